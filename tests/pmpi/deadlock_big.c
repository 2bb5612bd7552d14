/* deadlock.c after a long record: each rank first makes `argv[1]` MPI_Iprobe calls
 * that find nothing (two records each, so a few million calls make a trace of
 * hundreds of MB that takes a while to write), then ranks 0 and 1 each wait in
 * MPI_Recv for the other, which never sends; the run ends only when it is killed. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, flag;
    long polls = argc > 1 ? atol(argv[1]) : 1000000;
    double x = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (long i = 0; i < polls; i++)
        MPI_Iprobe(MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    printf("rank %d polled\n", rank);
    fflush(stdout);
    if (rank < 2) MPI_Recv(&x, 1, MPI_DOUBLE, 1 - rank, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
