/* Rank 1 dies by a signal after MPI_Init; the others wait for it in a barrier. */
#include <mpi.h>
#include <signal.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) raise(SIGSEGV);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
