/* Rank 0 sends a burst of COUNT messages of BYTES to rank 1, which acknowledges the
 * last; prints the median time of a burst in ns. usage: burst BYTES COUNT REPETITIONS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "median.h"
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int bytes = atoi(argv[1]), count = atoi(argv[2]), reps = atoi(argv[3]);
    char *buf = calloc((size_t)bytes + 1, 1);
    double *times = calloc((size_t)reps, sizeof(double));
    for (int i = -2; i < reps; i++) {
        /* A pause longer than any gap tested: the send NIC's clock, busy for g after
         * the previous burst's last message, is free again when this burst starts. */
        usleep(1000);
        MPI_Barrier(MPI_COMM_WORLD);
        double t = MPI_Wtime();
        for (int m = 0; m < count; m++) {
            if (rank == 0)
                MPI_Send(buf, bytes, MPI_BYTE, 1, 3, MPI_COMM_WORLD);
            else if (rank == 1)
                MPI_Recv(buf, bytes, MPI_BYTE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        if (rank == 0)
            MPI_Recv(buf, 0, MPI_BYTE, 1, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else if (rank == 1)
            MPI_Send(buf, 0, MPI_BYTE, 0, 4, MPI_COMM_WORLD);
        if (i >= 0) times[i] = MPI_Wtime() - t;
    }
    double mid = median(times, reps);
    if (rank == 0) printf("burst_ns %.0f\n", mid * 1e9);
    MPI_Finalize();
    return 0;
}
