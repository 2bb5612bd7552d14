/* The environment: every setting of the library, parsed and checked at MPI_Init. */
#include "netsens_pmpi.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct ns_config ns_cfg;
static int config_rank;

/* Every rank reads the same environment: rank 0 reports and aborts at once; the others
 * wait so that its line is not cut off by their own abort, and report only if the job
 * is still alive (their environment differed). */
static void fail(const char *name, const char *value, const char *why)
{
    if (config_rank != 0) sleep(2);
    fprintf(stderr, "netsens-pmpi: error: %s=%s: %s\n", name, value, why);
    fflush(stderr);
    /* The launcher forwards a process's output asynchronously (MPICH's hydra may drop
     * it once the job aborts): give it time to pass the line on. */
    struct timespec pause = {.tv_sec = 0, .tv_nsec = 300000000};
    nanosleep(&pause, NULL);
    PMPI_Abort(MPI_COMM_WORLD, 2);
    exit(2);
}

/* A non-negative integer setting; absent or empty means `fallback`. */
static int64_t env_int(const char *name, int64_t fallback)
{
    const char *value = getenv(name);
    if (value == NULL || *value == '\0') return fallback;
    char *end;
    errno = 0;
    long long parsed = strtoll(value, &end, 10);
    if (*end != '\0' || end == value) fail(name, value, "not an integer");
    if (errno == ERANGE) fail(name, value, "out of range");
    if (parsed < 0) fail(name, value, "negative");
    return parsed;
}

static void load_clusters(int size)
{
    ns_cfg.cluster_of = calloc((size_t)size, sizeof(int));
    const char *value = getenv("NETSENS_CLUSTERS");
    if (value == NULL || *value == '\0') {
        ns_cfg.nclusters = 1;
        ns_cfg.cluster_sizes = calloc(1, sizeof(int));
        ns_cfg.cluster_sizes[0] = size;
        return;
    }
    ns_cfg.cluster_sizes = calloc(strlen(value) + 1, sizeof(int));
    int total = 0, n = 0;
    const char *p = value;
    for (;;) {
        char *end;
        errno = 0;
        long sz = strtol(p, &end, 10);
        if (end == p || (*end != ',' && *end != '\0') || errno == ERANGE)
            fail("NETSENS_CLUSTERS", value, "not a comma list of integers");
        if (sz <= 0) fail("NETSENS_CLUSTERS", value, "a cluster size is not positive");
        for (long i = 0; i < sz && total + i < size; i++) ns_cfg.cluster_of[total + i] = n;
        ns_cfg.cluster_sizes[n++] = (int)sz;
        total += (int)sz;
        if (*end == '\0') break;
        p = end + 1;
    }
    if (total != size) {
        char why[96];
        snprintf(why, sizeof why, "cluster sizes add up to %d, the world has %d ranks", total,
                 size);
        fail("NETSENS_CLUSTERS", value, why);
    }
    ns_cfg.nclusters = n;
}

static void load_wan_shape(void)
{
    const char *value = getenv("NETSENS_WAN_SHAPE");
    ns_cfg.wan_shape = WAN_FULL;
    if (value == NULL || *value == '\0' || strcmp(value, "full") == 0) return;
    if (strcmp(value, "star") == 0)
        ns_cfg.wan_shape = WAN_STAR;
    else if (strcmp(value, "ring") == 0)
        ns_cfg.wan_shape = WAN_RING;
    else
        fail("NETSENS_WAN_SHAPE", value, "unknown shape (full, star or ring)");
}

const char *ns_wan_shape_name(void)
{
    static const char *names[] = {"full", "star", "ring"};
    return names[ns_cfg.wan_shape];
}

static void load_schedule(void);
static void set_active(void);

void ns_config_load(int rank, int size)
{
    config_rank = rank;
    ns_cfg.o_ps = env_int("NETSENS_O_PS", 0);
    ns_cfg.o_fs_per_b = env_int("NETSENS_O_FS_PER_B", 0);
    ns_cfg.gap_ps = env_int("NETSENS_GAP_PS", 0);
    ns_cfg.gap_fs_per_b = env_int("NETSENS_GAP_FS_PER_B", 0);
    ns_cfg.l_ps = env_int("NETSENS_L_PS", 0);
    load_clusters(size);
    load_wan_shape();
    ns_cfg.wan_hub = (int)env_int("NETSENS_WAN_HUB", 0);
    if (ns_cfg.wan_hub >= ns_cfg.nclusters)
        fail("NETSENS_WAN_HUB", getenv("NETSENS_WAN_HUB"), "no such cluster");
    ns_cfg.wan_l_ps = env_int("NETSENS_WAN_L_PS", 0);
    ns_cfg.wan_fs_per_b = env_int("NETSENS_WAN_FS_PER_B", 0);
    ns_cfg.spin_ps = env_int("NETSENS_SPIN_NS", 20000) * 1000;
    const char *stats = getenv("NETSENS_STATS_DIR");
    ns_cfg.stats_dir = (stats != NULL && *stats != '\0') ? stats : NULL;
    const char *coll = getenv("NETSENS_COLLECTIVES");
    ns_cfg.expand_collectives = true;
    if (coll != NULL && *coll != '\0') {
        if (strcmp(coll, "pass") == 0)
            ns_cfg.expand_collectives = false;
        else if (strcmp(coll, "expand") != 0)
            fail("NETSENS_COLLECTIVES", coll, "neither expand nor pass");
    }
    const char *o_clock = getenv("NETSENS_O_CLOCK");
    ns_cfg.o_cpu = false;
    if (o_clock != NULL && *o_clock != '\0') {
        if (strcmp(o_clock, "cpu") == 0) {
            ns_cfg.o_cpu = true;
            ns_measure_cpu_read();
        } else if (strcmp(o_clock, "wall") != 0)
            fail("NETSENS_O_CLOCK", o_clock, "neither wall nor cpu");
    }
    bool wan = ns_cfg.nclusters > 1 && (ns_cfg.wan_l_ps > 0 || ns_cfg.wan_fs_per_b > 0);
    ns_cfg.shadows = ns_cfg.l_ps > 0 || ns_cfg.gap_fs_per_b > 0 || wan;
    load_schedule();
    set_active();
}

/* ---- NETSENS_SCHEDULE: other values for the runs of one job ----
 * "O_PS=25000000;O_PS=0,L_PS=5000000;..." gives run k (the k-th MPI_Pcontrol with a
 * level other than 0, netsens-mpi-run's start of a run) the k-th entry's values, each
 * key one of the five below without its NETSENS_ prefix; a key an entry leaves out keeps
 * the job's own value, and runs past the last entry keep the last. Between runs
 * (MPI_Pcontrol(0): the set-up and drain around a run) the job's own values hold. So
 * one job measures several parameter values in turn, on the same placement of its ranks. */

struct scheduled {
    ps_t o_ps, gap_ps, l_ps;
    int64_t o_fs_per_b, gap_fs_per_b;
};
static struct scheduled *schedule, own;
static int schedule_len, schedule_next;

static void set_active(void)
{
    ns_cfg.active = ns_cfg.shadows || ns_cfg.o_ps > 0 || ns_cfg.o_fs_per_b > 0 ||
                    ns_cfg.gap_ps > 0;
}

static void load_schedule(void)
{
    const char *value = getenv("NETSENS_SCHEDULE");
    if (value == NULL || *value == '\0') return;
    size_t entries = 1;
    for (const char *c = value; *c; c++) entries += *c == ';';
    schedule = calloc(entries, sizeof *schedule);
    own = (struct scheduled){ns_cfg.o_ps, ns_cfg.gap_ps, ns_cfg.l_ps, ns_cfg.o_fs_per_b,
                             ns_cfg.gap_fs_per_b};
    const char *p = value;
    for (;;) {
        struct scheduled *e = &schedule[schedule_len++];
        *e = own;
        while (*p != ';' && *p != '\0') {
            static const char *keys[] = {"O_PS", "GAP_PS", "L_PS", "O_FS_PER_B",
                                         "GAP_FS_PER_B"};
            int64_t *slots[] = {&e->o_ps, &e->gap_ps, &e->l_ps, &e->o_fs_per_b,
                                &e->gap_fs_per_b};
            size_t key_len = strcspn(p, "=;,");
            int k = 0;
            while (k < 5 && !(strlen(keys[k]) == key_len && strncmp(p, keys[k], key_len) == 0))
                k++;
            if (k == 5 || p[key_len] != '=')
                fail("NETSENS_SCHEDULE", value,
                     "an entry is not KEY=VALUE with KEY one of O_PS, GAP_PS, L_PS, O_FS_PER_B, "
                     "GAP_FS_PER_B");
            char *end;
            errno = 0;
            long long parsed = strtoll(p + key_len + 1, &end, 10);
            if (end == p + key_len + 1 || (*end != ',' && *end != ';' && *end != '\0') ||
                errno == ERANGE || parsed < 0)
                fail("NETSENS_SCHEDULE", value, "a value is not a non-negative integer");
            *slots[k] = parsed;
            p = *end == ',' ? end + 1 : end;
        }
        if (e->l_ps > 0 || e->gap_fs_per_b > 0) ns_cfg.shadows = true; /* stamps, every run */
        if (*p == '\0') break;
        p++;
    }
}

static void apply(const struct scheduled *e)
{
    ns_cfg.o_ps = e->o_ps;
    ns_cfg.gap_ps = e->gap_ps;
    ns_cfg.l_ps = e->l_ps;
    ns_cfg.o_fs_per_b = e->o_fs_per_b;
    ns_cfg.gap_fs_per_b = e->gap_fs_per_b;
    set_active();
}

void ns_schedule_pcontrol(int level)
{
    if (schedule_len == 0) return;
    if (level == 0) {
        apply(&own);
        return;
    }
    apply(&schedule[schedule_next < schedule_len ? schedule_next : schedule_len - 1]);
    schedule_next++;
}
