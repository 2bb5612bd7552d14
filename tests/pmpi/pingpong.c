/* Ping-pong between ranks 0 and 1: prints the median round trip in ns.
 * usage: pingpong BYTES REPETITIONS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "median.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int bytes = argc > 1 ? atoi(argv[1]) : 8, reps = argc > 2 ? atoi(argv[2]) : 100;
    char *buf = calloc((size_t)bytes + 1, 1);
    double *rtt = calloc((size_t)reps, sizeof(double));
    for (int i = -5; i < reps; i++) { /* five warm-up rounds */
        double t = MPI_Wtime();
        if (rank == 0) {
            MPI_Send(buf, bytes, MPI_BYTE, 1, 7, MPI_COMM_WORLD);
            MPI_Recv(buf, bytes, MPI_BYTE, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(buf, bytes, MPI_BYTE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, bytes, MPI_BYTE, 0, 7, MPI_COMM_WORLD);
        }
        if (i >= 0) rtt[i] = MPI_Wtime() - t;
    }
    double mid = median(rtt, reps);
    if (rank == 0) printf("rtt_ns %.0f\n", mid * 1e9);
    MPI_Finalize();
    return 0;
}
