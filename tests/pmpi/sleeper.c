/* Compute that is not all CPU: 5 rounds, in each every rank sleeps 20 ms (no CPU),
 * then is busy for 20 ms of its thread's CPU time, then exchanges one int with its
 * partner (rank ^ 1) in an MPI_Sendrecv. Run on an even number of ranks. */
#include <mpi.h>
#include <time.h>

static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 5; i++) {
        struct timespec nap = {0, 20 * 1000 * 1000};
        nanosleep(&nap, NULL);
        double end = cpu_seconds() + 0.020;
        while (cpu_seconds() < end) {
        }
        int mine = i, theirs = 0;
        MPI_Sendrecv(&mine, 1, MPI_INT, rank ^ 1, 0, &theirs, 1, MPI_INT, rank ^ 1, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Finalize();
    return 0;
}
