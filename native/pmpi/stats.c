/* Counters of one rank and its JSON file (rank-<r>.json in NETSENS_STATS_DIR, written
 * at MPI_Finalize under a temporary name, then renamed). */
#define _GNU_SOURCE
#include "netsens_pmpi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int ns_world_rank = -1, ns_world_size;
int ns_depth;
ps_t ns_in_mpi, ns_entered;

enum { MAX_NAMES = 160, BINS = 65 };
struct named_counts {
    const char *names[MAX_NAMES];
    int64_t counts[MAX_NAMES];
    int n;
};
static struct named_counts groups[3];
static int64_t *matrix_msgs, *matrix_bytes; /* per destination world rank */
static int64_t hist_msgs[BINS], hist_bytes[BINS];
static int64_t *wan_msgs, *wan_bytes, *wan_busy; /* per directed cluster link */
static int64_t sent_msgs, sent_bytes, recv_msgs, recv_bytes, shadows;
static ps_t overhead, start_local, start_ps, end_ps;
static bool started;

void ns_count_call(enum stat_group group, const char *name)
{
    struct named_counts *g = &groups[group];
    for (int i = 0; i < g->n; i++)
        if (g->names[i] == name || strcmp(g->names[i], name) == 0) {
            g->counts[i]++;
            return;
        }
    if (g->n < MAX_NAMES) {
        g->names[g->n] = name;
        g->counts[g->n++] = 1;
    }
}

static int bit_length(int64_t bytes)
{
    return bytes <= 0 ? 0 : 64 - __builtin_clzll((unsigned long long)bytes);
}

void ns_stats_sent(int dst_world, int64_t bytes)
{
    if (!started || dst_world < 0) return;
    sent_msgs++;
    sent_bytes += bytes;
    matrix_msgs[dst_world]++;
    matrix_bytes[dst_world] += bytes;
    hist_msgs[bit_length(bytes)]++;
    hist_bytes[bit_length(bytes)] += bytes;
}

void ns_stats_recv(int64_t bytes)
{
    if (!started) return;
    recv_msgs++;
    recv_bytes += bytes;
}

void ns_stats_wan(int from, int to, int64_t bytes, ps_t busy)
{
    if (!started) return;
    int i = from * ns_cfg.nclusters + to;
    wan_msgs[i]++;
    wan_bytes[i] += bytes;
    wan_busy[i] += busy;
}

void ns_stats_overhead(ps_t spin) { overhead += spin; }
void ns_stats_shadow(void) { shadows++; }

void ns_stats_start(int rank, int size, ps_t start_global, ps_t rank0_start)
{
    ns_world_rank = rank;
    ns_world_size = size;
    matrix_msgs = calloc((size_t)size, sizeof(int64_t));
    matrix_bytes = calloc((size_t)size, sizeof(int64_t));
    size_t links = (size_t)ns_cfg.nclusters * (size_t)ns_cfg.nclusters;
    wan_msgs = calloc(links, sizeof(int64_t));
    wan_bytes = calloc(links, sizeof(int64_t));
    wan_busy = calloc(links, sizeof(int64_t));
    start_local = start_global - ns_clock_offset;
    start_ps = start_global - rank0_start;
    ns_in_mpi = 0;
    overhead = 0;
    started = true;
}

static void write_counts(FILE *f, const char *key, const struct named_counts *g)
{
    fprintf(f, ", \"%s\": {", key);
    for (int i = 0; i < g->n; i++)
        fprintf(f, "%s\"%s\": %lld", i ? ", " : "", g->names[i], (long long)g->counts[i]);
    fprintf(f, "}");
}

static void write_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s != '\0' && *s != '\n'; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fputc(' ', f);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

static void write_body(FILE *f)
{
    char host[256] = "", library[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    gethostname(host, sizeof host - 1);
    int len = 0, version = 0, subversion = 0;
    PMPI_Get_library_version(library, &len);
    PMPI_Get_version(&version, &subversion);
    ps_t elapsed = end_ps - start_ps;
    fprintf(f, "{\"rank\": %d, \"size\": %d, \"host\": ", ns_world_rank, ns_world_size);
    write_string(f, host);
    fprintf(f, ", \"pid\": %ld, \"mpi_library\": ", (long)getpid());
    write_string(f, library);
    fprintf(f, ", \"mpi_version\": \"%d.%d\"", version, subversion);
    fprintf(f, ", \"start_ps\": %lld, \"end_ps\": %lld, \"elapsed_ps\": %lld", (long long)start_ps,
            (long long)end_ps, (long long)elapsed);
    fprintf(f, ", \"in_mpi_ps\": %lld, \"overhead_ps\": %lld, \"wait_ps\": %lld",
            (long long)ns_in_mpi, (long long)overhead, (long long)(ns_in_mpi - overhead));
    fprintf(f,
            ", \"sent_messages\": %lld, \"sent_bytes\": %lld, \"recv_messages\": %lld, "
            "\"recv_bytes\": %lld",
            (long long)sent_msgs, (long long)sent_bytes, (long long)recv_msgs,
            (long long)recv_bytes);
    fprintf(f, ", \"matrix\": [");
    for (int d = 0, first = 1; d < ns_world_size; d++)
        if (matrix_msgs[d] > 0) {
            fprintf(f, "%s[%d, %lld, %lld]", first ? "" : ", ", d, (long long)matrix_msgs[d],
                    (long long)matrix_bytes[d]);
            first = 0;
        }
    fprintf(f, "], \"histogram\": [");
    for (int b = 0, first = 1; b < BINS; b++)
        if (hist_msgs[b] > 0) {
            fprintf(f, "%s[%d, %lld, %lld]", first ? "" : ", ", b, (long long)hist_msgs[b],
                    (long long)hist_bytes[b]);
            first = 0;
        }
    fprintf(f, "], \"wan\": [");
    int c = ns_cfg.nclusters;
    for (int i = 0, first = 1; i < c * c; i++)
        if (wan_msgs[i] > 0) {
            fprintf(f, "%s[%d, %d, %lld, %lld, %lld]", first ? "" : ", ", i / c, i % c,
                    (long long)wan_msgs[i], (long long)wan_bytes[i], (long long)wan_busy[i]);
            first = 0;
        }
    fprintf(f, "]");
    write_counts(f, "calls", &groups[STAT_CALLS]);
    write_counts(f, "collectives", &groups[STAT_COLLECTIVES]);
    write_counts(f, "unhandled", &groups[STAT_UNHANDLED]);
    fprintf(f,
            ", \"injected\": {\"o_ps\": %lld, \"O_fs_per_B\": %lld, \"g_ps\": %lld, "
            "\"G_fs_per_B\": %lld, \"L_ps\": %lld, \"clusters\": [",
            (long long)ns_cfg.o_ps, (long long)ns_cfg.o_fs_per_b, (long long)ns_cfg.gap_ps,
            (long long)ns_cfg.gap_fs_per_b, (long long)ns_cfg.l_ps);
    for (int i = 0; i < c; i++) fprintf(f, "%s%d", i ? ", " : "", ns_cfg.cluster_sizes[i]);
    fprintf(f, "], \"wan_shape\": \"%s\", \"wan_L_ps\": %lld, \"wan_fs_per_B\": %lld}",
            ns_wan_shape_name(), (long long)ns_cfg.wan_l_ps, (long long)ns_cfg.wan_fs_per_b);
    fprintf(f, ", \"clock_offset_ps\": %lld, \"shadow_messages\": %lld}\n",
            (long long)ns_clock_offset, (long long)shadows);
}

void ns_stats_write(void)
{
    if (!started) return;
    end_ps = start_ps + (ns_now() - start_local);
    if (ns_cfg.stats_dir == NULL) return;
    char path[4096], tmp[4200];
    snprintf(path, sizeof path, "%s/rank-%d.json", ns_cfg.stats_dir, ns_world_rank);
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (f == NULL) {
        fprintf(stderr, "netsens-pmpi: warning: cannot write %s\n", tmp);
        return;
    }
    write_body(f);
    if (fclose(f) != 0 || rename(tmp, path) != 0)
        fprintf(stderr, "netsens-pmpi: warning: cannot write %s\n", path);
}
