/* Ranks 0 and 1 (one cluster) each send BYTES to rank 2 (another cluster) at once;
 * rank 2 prints the median times from the common start to the first and to the second
 * arrival, in ns. usage: wan BYTES REPETITIONS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "median.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int bytes = atoi(argv[1]), reps = atoi(argv[2]);
    char *buf = calloc((size_t)bytes + 1, 1);
    double *first = calloc((size_t)reps, sizeof(double));
    double *second = calloc((size_t)reps, sizeof(double));
    for (int i = -1; i < reps; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t = MPI_Wtime();
        if (rank < 2) {
            MPI_Send(buf, bytes, MPI_BYTE, 2, 5, MPI_COMM_WORLD);
        } else {
            MPI_Recv(buf, bytes, MPI_BYTE, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            double t1 = MPI_Wtime() - t;
            MPI_Recv(buf, bytes, MPI_BYTE, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (i >= 0) {
                first[i] = t1;
                second[i] = MPI_Wtime() - t;
            }
        }
    }
    double first_mid = median(first, reps), second_mid = median(second, reps);
    if (rank == 2)
        printf("first_ns %.0f\nsecond_ns %.0f\n", first_mid * 1e9, second_mid * 1e9);
    MPI_Finalize();
    return 0;
}
