/* Time: CLOCK_MONOTONIC in picoseconds, rank 0's timeline, busy spins and waits that
 * stay accurate with more ranks than cores (spin briefly, then sleep or yield). */
#define _GNU_SOURCE
#include "netsens_pmpi.h"

#include <sched.h>
#include <stdlib.h>
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

int ns_ps_order(const void *a, const void *b)
{
    ps_t x = *(const ps_t *)a, y = *(const ps_t *)b;
    return (x > y) - (x < y);
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

/* How close to a deadline a spin stops yielding. */
#define YIELD_STOP_PS 3000000

void ns_busy_spin(ps_t duration)
{
    if (duration <= 0) return;
    if (ns_cfg.o_cpu && duration > 2 * cpu_read_ps) {
        /* o as CPU work: until the thread has run for `duration`. With another rank
         * computing on the same core it lasts longer than `duration` on the wall clock,
         * and the two ranks' o no longer overlap (the model's o occupies the core).
         * Reading the thread's CPU time is a system call: the first and the last read
         * are part of the o (an o shorter than two reads spins on the wall clock).
         * No yields, as a computation has none: a rank waiting on the same core yields
         * at every poll, and a spin that yielded too gave it every other turn (a 25 us
         * o took 46.5 us of wall time beside a rank looping on sched_yield, 26.1 us
         * without the spin's yields; in the model a waiting rank takes no core time). */
        ps_t end = ns_thread_cpu() + duration - 2 * cpu_read_ps;
        while (ns_thread_cpu() < end) {
        }
        return;
    }
    ps_t end = ns_now() + duration;
    /* The rank is busy until the deadline, but yields at every turn: with more ranks
     * than cores a spinning rank would otherwise hold its core for a whole time slice
     * (milliseconds) while the rank it shares the core with waits. Alone on a core,
     * sched_yield returns at once and this is a plain busy loop. */
    ps_t now;
    while ((now = ns_now()) < end) {
        /* The last stretch without the system call: a yield takes up to a few us on
         * a virtual machine, and ending one past the deadline added 0.3-1.3 us to
         * every injected o (a calibration measured o = 20 us as 20.3-21.3 us). */
        if (end - now > YIELD_STOP_PS) sched_yield();
    }
}

static void sleep_until_local(ps_t local)
{
    struct timespec ts = {.tv_sec = local / 1000000000000LL,
                          .tv_nsec = (local % 1000000000000LL) / 1000};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0) {
    }
}

/* How late a timed sleep wakes on this machine (the third quartile of a few), so a
 * wait wakes before its spin window: a virtual machine here woke 17-40 us late, past
 * the default 20 us window, and the waits paced on deadlines (g, L) then ended late
 * every other time. Capped, so a loaded start does not turn every wait into a spin. */
static ps_t wake_late_ps;

static void measure_wake_up(void)
{
    enum { SLEEPS = 16, SLEEP_PS = 50000000, CAP_PS = 200000000 };
    ps_t late[SLEEPS];
    for (int i = 0; i < SLEEPS; i++) {
        ps_t target = ns_now() + SLEEP_PS;
        sleep_until_local(target);
        late[i] = ns_now() - target;
    }
    qsort(late, SLEEPS, sizeof *late, ns_ps_order);
    ps_t q3 = late[SLEEPS * 3 / 4];
    wake_late_ps = q3 < CAP_PS ? q3 : CAP_PS;
}

void ns_wait_until(ps_t global_deadline)
{
    ps_t deadline = global_deadline - ns_clock_offset;
    ps_t now = ns_now();
    if (now >= deadline) return;
    /* Far away: sleep until one spin window, and the usual wake-up delay, before it. */
    ps_t margin = ns_cfg.spin_ps + wake_late_ps;
    if (deadline - now > margin) sleep_until_local(deadline - margin);
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
    measure_wake_up();
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
