/* Rank 1 sends one int to rank 0 at a common start. 20 ms later (long after the
 * hardware delivered it) rank 0 probes for it, then posts its receive and tests it, then
 * waits for it; prints whether the Iprobe and the Test saw it, and when the Wait
 * returned (ns after the start). */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, value = 7;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    if (rank == 1) MPI_Send(&value, 1, MPI_INT, 0, 9, MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Request req;
        int probed = 0, tested = 0;
        struct timespec pause = {.tv_sec = 0, .tv_nsec = 20000000};
        nanosleep(&pause, NULL);
        /* A first MPI_Iprobe may only poll the network: try for 1 ms. */
        double until = MPI_Wtime() + 1e-3;
        while (!probed && MPI_Wtime() < until)
            MPI_Iprobe(1, 9, MPI_COMM_WORLD, &probed, MPI_STATUS_IGNORE);
        MPI_Irecv(&value, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, &req);
        until = MPI_Wtime() + 1e-3;
        while (!tested && MPI_Wtime() < until) MPI_Test(&req, &tested, MPI_STATUS_IGNORE);
        if (!tested) MPI_Wait(&req, MPI_STATUS_IGNORE);
        printf("probed %d\ntested %d\nwait_ns %.0f\n", probed, tested,
               (MPI_Wtime() - start) * 1e9);
    }
    MPI_Finalize();
    return 0;
}
