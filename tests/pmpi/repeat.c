/* A program that runs its work three times and pauses the recording between the runs
 * (MPI_Pcontrol(0) ... MPI_Pcontrol(1)): each run is every rank busy for 30, then 10,
 * then 20 ms of its thread's CPU time, and a barrier. */
#include <mpi.h>
#include <time.h>

/* Busy for `ms` of the thread's own CPU time, which is what replay charges. */
static void busy_ms(int ms)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    do clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000.0 + (t.tv_nsec - t0.tv_nsec) / 1e6 < ms);
}

int main(int argc, char **argv)
{
    const int work_ms[] = {30, 10, 20};
    MPI_Init(&argc, &argv);
    MPI_Pcontrol(0);
    for (int run = 0; run < 3; run++) {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Pcontrol(1);
        busy_ms(work_ms[run]);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Pcontrol(0);
    }
    MPI_Finalize();
    return 0;
}
