/* Tracing paused by MPI_Pcontrol, as a program marks its set-up and its pauses: every
 * rank busy for 200 ms before pausing, 200 ms of set-up while paused, then the program
 * (10 ms busy), 200 ms paused, 5 ms busy, a barrier; and paused for the 200 ms from
 * there to its end. */
#include <mpi.h>
#include "busy.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    busy_ms(200);
    MPI_Pcontrol(0);
    busy_ms(200);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Pcontrol(1);
    busy_ms(10);
    MPI_Pcontrol(0);
    busy_ms(200);
    MPI_Pcontrol(1);
    busy_ms(5);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Pcontrol(0);
    busy_ms(200);
    MPI_Finalize();
    return 0;
}
