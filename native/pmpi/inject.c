/* The LogGP policy of docs/reference/pmpi.md applied to real messages: the sender's NIC clock,
 * o + k·O busy on both sides, delivery at d + L + k·G inside a cluster and over FIFO
 * wide-area links (state in POSIX shared memory, shared by the ranks of one host). */
#include "netsens_pmpi.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static ps_t nic_s;          /* this rank's send NIC is free from (rank 0's timeline) */
static int64_t *link_free;  /* [from cluster * nclusters + to cluster] */

static ps_t per_byte(int64_t k, int64_t fs_per_b)
{
    return (ps_t)(((__int128)k * fs_per_b) / 1000);
}

static ps_t overhead(int64_t bytes)
{
    int64_t k = bytes > 0 ? bytes - 1 : 0;
    return ns_cfg.o_ps + per_byte(k, ns_cfg.o_fs_per_b);
}

void ns_wan_init(MPI_Comm world_dup, int rank)
{
    int c = ns_cfg.nclusters;
    if (c < 2) return;
    size_t bytes = sizeof(int64_t) * (size_t)c * (size_t)c;
    /* Rank 0 names the segment; ranks on one host share it, other hosts make their own. */
    char name[64];
    if (rank == 0) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        snprintf(name, sizeof name, "/netsens-pmpi-%ld-%ld%09ld", (long)getpid(),
                 (long)ts.tv_sec, ts.tv_nsec);
    }
    PMPI_Bcast(name, sizeof name, MPI_CHAR, 0, world_dup);
    int fd = shm_open(name, O_CREAT | O_RDWR, 0600);
    void *map = MAP_FAILED;
    if (fd >= 0 && ftruncate(fd, (off_t)bytes) == 0)
        map = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (fd >= 0) close(fd);
    if (map == MAP_FAILED) {
        /* Still correct for this rank's own messages, just not shared. */
        fprintf(stderr, "netsens-pmpi: warning: no shared memory for wide-area links\n");
        static int64_t own[64 * 64];
        map = own;
    }
    link_free = map;
    PMPI_Barrier(world_dup);
    shm_unlink(name); /* every rank has it mapped; nothing left behind after a crash */
}

/* Reserves one directed link from `reach`: returns the time the message reaches the
 * link's far end. */
static ps_t cross_link(int from, int to, int64_t bytes, ps_t reach)
{
    ps_t busy = per_byte(bytes, ns_cfg.wan_fs_per_b);
    int64_t *slot = &link_free[from * ns_cfg.nclusters + to];
    int64_t seen = __atomic_load_n(slot, __ATOMIC_ACQUIRE), start;
    do {
        start = reach > seen ? reach : seen;
    } while (!__atomic_compare_exchange_n(slot, &seen, start + busy, false, __ATOMIC_ACQ_REL,
                                          __ATOMIC_ACQUIRE));
    ns_stats_wan(from, to, bytes, busy);
    return start + busy + ns_cfg.wan_l_ps;
}

static ps_t cross_wan(int from, int to, int64_t bytes, ps_t reach)
{
    int c = ns_cfg.nclusters;
    switch (ns_cfg.wan_shape) {
    case WAN_FULL:
        return cross_link(from, to, bytes, reach);
    case WAN_STAR: {
        int hub = ns_cfg.wan_hub;
        if (from != hub) reach = cross_link(from, hub, bytes, reach);
        if (to != hub) reach = cross_link(hub, to, bytes, reach);
        return reach;
    }
    case WAN_RING: {
        int step = ((to - from + c) % c) <= c / 2 ? 1 : c - 1;
        for (int at = from; at != to; at = (at + step) % c)
            reach = cross_link(at, (at + step) % c, bytes, reach);
        return reach;
    }
    }
    return reach;
}

ps_t ns_inject_send(int dst_world, int64_t bytes)
{
    ns_stats_sent(dst_world, bytes);
    if (!ns_cfg.active || dst_world < 0) return 0;
    int64_t k = bytes > 0 ? bytes - 1 : 0;
    ps_t t = ns_global_now();
    ps_t t0 = t > nic_s ? t : nic_s;
    if (t0 > t) ns_wait_until(t0);
    ps_t spin = overhead(bytes);
    ns_busy_spin(spin);
    ns_stats_overhead(spin);
    nic_s = t0 + ns_cfg.gap_ps + per_byte(k, ns_cfg.gap_fs_per_b);
    ps_t departure = t0 + ns_cfg.o_ps;
    if (ns_cfg.o_cpu) { /* o ended when its CPU time was spent: later, with a shared core */
        ps_t spun = ns_global_now() - (spin - ns_cfg.o_ps);
        if (spun > departure) departure = spun;
    }
    int from = ns_cfg.cluster_of[ns_world_rank], to = ns_cfg.cluster_of[dst_world];
    if (from == to) return departure + ns_cfg.l_ps + per_byte(k, ns_cfg.gap_fs_per_b);
    return cross_wan(from, to, bytes, departure);
}

void ns_inject_recv(int src_world, int64_t bytes, ps_t deliver)
{
    (void)src_world;
    ns_stats_recv(bytes);
    if (!ns_cfg.active) return;
    if (ns_cfg.shadows) ns_wait_until(deliver);
    ps_t spin = overhead(bytes);
    ns_busy_spin(spin);
    ns_stats_overhead(spin);
}
