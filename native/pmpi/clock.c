/* Time: CLOCK_MONOTONIC in picoseconds, rank 0's timeline, busy spins and waits that
 * stay accurate with more ranks than cores (spin briefly, then sleep or yield). */
#define _GNU_SOURCE
#include "netsens_pmpi.h"

#include <sched.h>
#include <sys/prctl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

ps_t ns_clock_offset; /* rank 0's clock minus this rank's */

ps_t ns_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (ps_t)ts.tv_sec * 1000000000000LL + (ps_t)ts.tv_nsec * 1000LL;
}

ps_t ns_global_now(void) { return ns_now() + ns_clock_offset; }

/* CPU time of the calling thread: unlike the wall clock it does not run while the
 * rank waits for its core (another rank on the same core computes). */
ps_t ns_thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (ps_t)ts.tv_sec * 1000000000000LL + (ps_t)ts.tv_nsec * 1000LL;
}

static ps_t cpu_read_ps; /* what one ns_thread_cpu() costs, measured at MPI_Init */

void ns_measure_cpu_read(void)
{
    enum { READS = 64 };
    ps_t best = INT64_MAX;
    for (int i = 0; i < READS; i++) {
        ps_t t0 = ns_now();
        ns_thread_cpu();
        ps_t t = ns_now() - t0;
        if (t < best) best = t;
    }
    cpu_read_ps = best;
}

void ns_busy_spin(ps_t duration)
{
    if (duration <= 0) return;
    if (ns_cfg.o_cpu && duration > 2 * cpu_read_ps) {
        /* o as CPU work: until the thread has run for `duration`. With another rank
         * computing on the same core it lasts longer than `duration` on the wall clock,
         * and the two ranks' o no longer overlap (the model's o occupies the core).
         * Reading the thread's CPU time is a system call: the first and the last read
         * are part of the o (an o shorter than two reads spins on the wall clock). */
        ps_t end = ns_thread_cpu() + duration - 2 * cpu_read_ps;
        while (ns_thread_cpu() < end) sched_yield();
        return;
    }
    ps_t end = ns_now() + duration;
    /* The rank is busy until the deadline, but yields at every turn: with more ranks
     * than cores a spinning rank would otherwise hold its core for a whole time slice
     * (milliseconds) while the rank it shares the core with waits. Alone on a core,
     * sched_yield returns at once and this is a plain busy loop. */
    while (ns_now() < end) {
        sched_yield();
    }
}

static void sleep_until_local(ps_t local)
{
    struct timespec ts = {.tv_sec = local / 1000000000000LL,
                          .tv_nsec = (local % 1000000000000LL) / 1000};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0) {
    }
}

void ns_wait_until(ps_t global_deadline)
{
    ps_t deadline = global_deadline - ns_clock_offset;
    ps_t now = ns_now();
    if (now >= deadline) return;
    /* Far away: sleep until one spin window before it. */
    if (deadline - now > ns_cfg.spin_ps) sleep_until_local(deadline - ns_cfg.spin_ps);
    ps_t spin_end = ns_now() + ns_cfg.spin_ps;
    while ((now = ns_now()) < deadline) {
        if (now > spin_end) sched_yield();
    }
}

void ns_wait_request(MPI_Request *req, MPI_Status *status)
{
    int flag = 0;
    ps_t spin_end = ns_now() + ns_cfg.spin_ps;
    for (;;) {
        PMPI_Test(req, &flag, status);
        if (flag) return;
        if (ns_now() > spin_end) sched_yield();
    }
}

/* Each rank's offset to rank 0 from a few ping-pongs: the one with the smallest round
 * trip, assuming its two halves are equal. Ranks on rank 0's host share its clock. */
void ns_clock_sync(MPI_Comm world_dup, int rank, int size)
{
    prctl(PR_SET_TIMERSLACK, 1UL); /* sleeps end on time, not up to 50 us late */
    enum { ROUNDS = 8, TAG = 1 };
    char host[MPI_MAX_PROCESSOR_NAME], host0[MPI_MAX_PROCESSOR_NAME];
    memset(host, 0, sizeof host);
    gethostname(host, sizeof host - 1);
    memcpy(host0, host, sizeof host);
    PMPI_Bcast(host0, (int)sizeof host0, MPI_CHAR, 0, world_dup);
    for (int peer = 1; peer < size; peer++) {
        if (rank == 0) {
            for (int i = 0; i < ROUNDS; i++) {
                ps_t ping;
                PMPI_Recv(&ping, 1, MPI_INT64_T, peer, TAG, world_dup, MPI_STATUS_IGNORE);
                ps_t t0 = ns_now();
                PMPI_Send(&t0, 1, MPI_INT64_T, peer, TAG, world_dup);
            }
        } else if (rank == peer) {
            ps_t best_rtt = INT64_MAX;
            for (int i = 0; i < ROUNDS; i++) {
                ps_t t1 = ns_now(), t0;
                PMPI_Send(&t1, 1, MPI_INT64_T, 0, TAG, world_dup);
                PMPI_Recv(&t0, 1, MPI_INT64_T, 0, TAG, world_dup, MPI_STATUS_IGNORE);
                ps_t t2 = ns_now();
                if (t2 - t1 < best_rtt) {
                    best_rtt = t2 - t1;
                    ns_clock_offset = t0 - (t1 + t2) / 2;
                }
            }
            if (strcmp(host, host0) == 0) ns_clock_offset = 0;
        }
    }
}
