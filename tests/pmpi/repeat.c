/* A program that runs its work three times and pauses the recording between the runs
 * (MPI_Pcontrol(0) ... MPI_Pcontrol(1)): each run is every rank busy for 30, then 10,
 * then 20 ms of its thread's CPU time, and a barrier. */
#include <mpi.h>
#include "busy.h"

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
