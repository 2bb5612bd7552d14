/* Busy for `ms` of the thread's own CPU time, which is what replay charges: a
 * preemption on a loaded machine stretches the loop, not the CPU time it counts. */
#include <time.h>

static void busy_ms(int ms)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    do clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000.0 + (t.tv_nsec - t0.tv_nsec) / 1e6 < ms);
}
