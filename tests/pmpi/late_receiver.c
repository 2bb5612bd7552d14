/* Rank 0 sends rank 1 one message of BYTES at a common start; rank 1 is busy for MS
 * milliseconds of its thread's CPU time first, then receives it, and prints when its
 * receive returned (microseconds after the start).
 * usage: late_receiver BYTES MS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "busy.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int bytes = argc > 1 ? atoi(argv[1]) : 65536, ms = argc > 2 ? atoi(argv[2]) : 2;
    char *buf = calloc((size_t)bytes + 1, 1);
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    if (rank == 0) MPI_Send(buf, bytes, MPI_BYTE, 1, 4, MPI_COMM_WORLD);
    if (rank == 1) {
        busy_ms(ms);
        MPI_Recv(buf, bytes, MPI_BYTE, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("recv_done_us %.1f\n", (MPI_Wtime() - start) * 1e6);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
