/* Two ranks meant to share one core send each other a message and wait for both,
 * ROUNDS times; prints the mean wall time of a round (round_ns: the loop's time over
 * ROUNDS) and the mean time the core served a round (served_ns: the two processes'
 * CPU time in the loop over ROUNDS; on a core that is never idle, the wall time less
 * what a hypervisor took from it). Means, since on the CPU clock one rank may hold the
 * core for a few o in a row and single rounds alternate long and short.
 * usage: exchange ROUNDS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double process_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char buf[8] = {0}, got[8];
    MPI_Barrier(MPI_COMM_WORLD);
    int rounds = atoi(argv[1]), peer = 1 - rank;
    double cpu = process_cpu_s(), start = MPI_Wtime();
    for (int i = 0; i < rounds; i++) {
        MPI_Request reqs[2];
        MPI_Status statuses[2];
        MPI_Irecv(got, 1, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &reqs[0]);
        MPI_Isend(buf, 1, MPI_BYTE, peer, 0, MPI_COMM_WORLD, &reqs[1]);
        MPI_Waitall(2, reqs, statuses);
    }
    double loop = MPI_Wtime() - start, served = 0;
    cpu = process_cpu_s() - cpu;
    MPI_Reduce(&cpu, &served, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("round_ns %.0f\nserved_ns %.0f\n", loop / rounds * 1e9, served / rounds * 1e9);
    MPI_Finalize();
    return 0;
}
