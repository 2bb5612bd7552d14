/* Two ranks meant to share one core send each other a message and wait for both,
 * ROUNDS times; prints the median wall time of a round (round_ns).
 * usage: exchange ROUNDS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "median.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char buf[8] = {0}, got[8];
    MPI_Barrier(MPI_COMM_WORLD);
    int rounds = atoi(argv[1]), peer = 1 - rank;
    double *times = calloc((size_t)rounds, sizeof(double));
    for (int i = 0; i < rounds; i++) {
        MPI_Request reqs[2];
        MPI_Status statuses[2];
        double t = MPI_Wtime();
        MPI_Irecv(got, 1, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &reqs[0]);
        MPI_Isend(buf, 1, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &reqs[1]);
        MPI_Waitall(2, reqs, statuses);
        times[i] = MPI_Wtime() - t;
    }
    if (rank == 0) printf("round_ns %.0f\n", median(times, rounds) * 1e9);
    MPI_Finalize();
    return 0;
}
