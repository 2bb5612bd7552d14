/* Trace mode (NETSENS_TRACE_DIR set): every MPI call the program makes is recorded in
 * memory with its times, communicator, peer, tag, size and request; at MPI_Finalize
 * world rank 0 gathers every rank's records and writes one OTF2 archive (trace_otf2.c).
 * Injection, if also configured, is unchanged: the trace records what the program felt. */
#include "trace.h"

#include <fcntl.h>
#include <otf2/OTF2_Events.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool ns_tracing;
static const char *trace_dir;
/* Record the thread CPU time at every Enter and Leave (NETSENS_TRACE_CPU_TIME=0: not;
 * reading it is a system call, about 0.7 us on a virtual machine). */
static bool cpu_times = true;
static struct trace_rec *recs;
static int64_t nrecs, caprecs;
static bool in_collective;
/* Between MPI_Pcontrol(0) and the next MPI_Pcontrol(level > 0), ns_tracing is off:
 * every hook of the wrappers is skipped. */
static bool paused;
static int64_t open_collective = -1; /* the COLL_END of the call in progress */
static uint64_t next_req = 1;

/* Region names of this rank, by first use (string literals of the wrappers). */
static const char *regions[NS_TRACE_MAX_REGIONS];
static int nregions;

/* Communicators seen in events: id and members' world ranks. */
static struct trace_comm *comms;
static int ncomms, capcomms;

/* Requests in flight: handle bits -> trace request id and whether it is a send. */
enum { REQ_BUCKETS = 4096 };
enum traced_kind { TRACED_RECV, TRACED_SEND, TRACED_COLL };
/* A non-blocking collective's record at its completion: OTF2 op, root, byte counts. */
struct traced_coll {
    uint8_t op;
    int32_t root;
    int64_t sent, received;
};
struct traced_req {
    uint64_t key, id;
    enum traced_kind kind;
    uint64_t comm; /* non-blocking collectives: their communicator */
    struct traced_coll coll;
    struct traced_req *next;
};
static struct traced_req *req_buckets[REQ_BUCKETS];

/* What the tracer adds to every gap between two MPI calls (measured at start-up). */
static struct tracer_gap own_gap = {NS_TRACE_NO_CPU, NS_TRACE_NO_CPU};
static void measure_tracer_gap(void);

void ns_trace_init(void)
{
    const char *dir = getenv("NETSENS_TRACE_DIR");
    const char *mode = getenv("NETSENS_PMPI_MODE");
    ns_tracing = (dir != NULL && *dir != '\0');
    if (mode != NULL && strcmp(mode, "trace") == 0 && !ns_tracing) {
        if (ns_world_rank == 0)
            fprintf(stderr, "netsens-pmpi: error: NETSENS_PMPI_MODE=trace: NETSENS_TRACE_DIR "
                            "is not set\n");
        PMPI_Abort(MPI_COMM_WORLD, 2);
    }
    trace_dir = dir;
    const char *cpu = getenv("NETSENS_TRACE_CPU_TIME");
    cpu_times = !(cpu != NULL && strcmp(cpu, "0") == 0);
    if (ns_tracing) {
        ns_trace_dump_on_terminate();
        measure_tracer_gap();
    }
}

/* Replay charges the time between a call's leave and the next call's enter as the
 * program's compute; part of it is the tracer's own work (the rest of the leave's
 * record, the next enter's region lookup and record, its clock reads). A burst of
 * back-to-back calls with nothing between them measures that part: the median gap
 * between its records, on the wall clock and the thread CPU clock. Before the run
 * starts, through function pointers as a wrapper calls the hooks; the records are
 * dropped. */
static void measure_tracer_gap(void)
{
    enum { CALLS = 1001 };
    void (*volatile enter)(const char *, bool) = ns_trace_enter;
    void (*volatile leave)(void) = ns_trace_leave;
    int64_t first = nrecs;
    for (int i = 0; i < CALLS; i++) {
        enter("MPI_Init", false);
        leave();
    }
    static ps_t wall[CALLS - 1], cpu[CALLS - 1];
    bool with_cpu = true;
    for (int i = 0; i + 1 < CALLS; i++) {
        const struct trace_rec *out = &recs[first + 2 * i + 1], *in = out + 1;
        wall[i] = in->time - out->time;
        cpu[i] = in->cpu - out->cpu;
        with_cpu &= in->cpu != NS_TRACE_NO_CPU && out->cpu != NS_TRACE_NO_CPU;
    }
    qsort(wall, CALLS - 1, sizeof *wall, ns_ps_order);
    qsort(cpu, CALLS - 1, sizeof *cpu, ns_ps_order);
    own_gap.wall_ps = wall[CALLS / 2];
    own_gap.cpu_ps = with_cpu ? cpu[CALLS / 2] : NS_TRACE_NO_CPU;
    nrecs = first;
}

/* ---- a rank stopped by SIGTERM (a timeout, a deadlock) keeps what it recorded ---- */

static char partial_path[4096], partial_tmp[4096 + 8];

static void write_all(int fd, const void *data, size_t n)
{
    const char *at = data;
    while (n > 0) {
        ssize_t w = write(fd, at, n);
        if (w <= 0) return;
        at += w;
        n -= (size_t)w;
    }
}

/* Async-signal-safe: open, write, close, rename (so a reader sees whole files only),
 * strlen; then the default action. */
static void on_terminate(int sig)
{
    int fd = open(partial_tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
        struct trace_partial h = {.magic = NS_TRACE_PARTIAL_MAGIC,
                                  .rank = ns_world_rank,
                                  .size = ns_world_size,
                                  .nrecs = nrecs,
                                  .gap = own_gap};
        for (int i = 0; i < nregions; i++) h.name_bytes += (int64_t)strlen(regions[i]) + 1;
        for (int i = 0; i < ncomms; i++) h.comm_words += 2 + comms[i].size;
        write_all(fd, &h, sizeof h);
        write_all(fd, recs, sizeof *recs * (size_t)nrecs);
        for (int i = 0; i < nregions; i++) write_all(fd, regions[i], strlen(regions[i]) + 1);
        for (int i = 0; i < ncomms; i++) {
            int64_t head[2] = {(int64_t)comms[i].id, comms[i].size};
            write_all(fd, head, sizeof head);
            write_all(fd, comms[i].world, sizeof(int64_t) * (size_t)comms[i].size);
        }
        close(fd);
        rename(partial_tmp, partial_path);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

void ns_trace_dump_on_terminate(void)
{
    int n = snprintf(partial_path, sizeof partial_path, "%s/" NS_TRACE_PARTIAL, trace_dir,
                     ns_world_rank);
    if (n <= 0 || (size_t)n >= sizeof partial_path) return;
    snprintf(partial_tmp, sizeof partial_tmp, "%s.tmp", partial_path);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_terminate;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
}

static struct trace_rec *push(enum trace_type type);
static uint16_t region_of(const char *name);

void ns_trace_started(void)
{
    push(TR_ENTER)->region = region_of("MPI_Init");
    push(TR_LEAVE);
}

static struct trace_rec *push(enum trace_type type)
{
    if (nrecs == caprecs) {
        caprecs = caprecs ? caprecs * 2 : 4096;
        recs = realloc(recs, sizeof *recs * (size_t)caprecs);
        if (recs == NULL) {
            fprintf(stderr, "netsens-pmpi: error: out of memory for the trace (%lld records)\n",
                    (long long)nrecs);
            PMPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    struct trace_rec *r = &recs[nrecs++];
    memset(r, 0, sizeof *r);
    r->type = (uint8_t)type;
    r->time = ns_global_now();
    /* Compute between calls is the CPU time from a leave to the next enter. */
    r->cpu = NS_TRACE_NO_CPU;
    if (cpu_times && (type == TR_ENTER || type == TR_LEAVE)) r->cpu = ns_thread_cpu();
    return r;
}

static uint16_t region_of(const char *name)
{
    for (int i = 0; i < nregions; i++)
        if (regions[i] == name || strcmp(regions[i], name) == 0) return (uint16_t)i;
    if (nregions == NS_TRACE_MAX_REGIONS) return NS_TRACE_MAX_REGIONS - 1;
    regions[nregions] = name;
    return (uint16_t)nregions++;
}

static uint64_t comm_of(MPI_Comm comm)
{
    uint64_t id = ns_trace_comm_key(ns_comm_id(comm), ns_world_rank_of(comm, 0));
    for (int i = 0; i < ncomms; i++)
        if (comms[i].id == id) return id;
    if (ncomms == capcomms) {
        capcomms = capcomms ? capcomms * 2 : 8;
        comms = realloc(comms, sizeof *comms * (size_t)capcomms);
    }
    int size = 0;
    PMPI_Comm_size(comm, &size);
    struct trace_comm *c = &comms[ncomms++];
    c->id = id;
    c->size = size;
    c->world = malloc(sizeof(int64_t) * (size_t)size);
    for (int i = 0; i < size; i++) c->world[i] = ns_world_rank_of(comm, i);
    return id;
}

static uint64_t req_key(MPI_Request req)
{
    uint64_t key = 0;
    memcpy(&key, &req, sizeof req < sizeof key ? sizeof req : sizeof key);
    return key;
}

static uint64_t track(MPI_Request req, enum traced_kind kind, uint64_t comm,
                      struct traced_coll coll)
{
    struct traced_req *t = malloc(sizeof *t);
    uint64_t key = req_key(req);
    *t = (struct traced_req){.key = key, .id = next_req++, .kind = kind, .comm = comm,
                             .coll = coll};
    struct traced_req **head = &req_buckets[(key ^ (key >> 12)) % REQ_BUCKETS];
    t->next = *head;
    *head = t;
    return t->id;
}

/* Removes the request's entry; false when it was never tracked. */
static bool untrack(MPI_Request req, uint64_t *id, enum traced_kind *kind, uint64_t *comm,
                    struct traced_coll *coll)
{
    uint64_t key = req_key(req);
    for (struct traced_req **p = &req_buckets[(key ^ (key >> 12)) % REQ_BUCKETS]; *p != NULL;
         p = &(*p)->next)
        if ((*p)->key == key) {
            struct traced_req *gone = *p;
            *id = gone->id;
            *kind = gone->kind;
            *comm = gone->comm;
            *coll = gone->coll;
            *p = gone->next;
            free(gone);
            return true;
        }
    return false;
}

void ns_trace_enter(const char *name, bool collective)
{
    in_collective = collective;
    push(TR_ENTER)->region = region_of(name);
}

void ns_trace_leave(void)
{
    if (open_collective >= 0) recs[open_collective].time = ns_global_now();
    open_collective = -1;
    push(TR_LEAVE);
    in_collective = false;
}

void ns_trace_send(MPI_Comm comm, int peer, int tag, int64_t bytes, MPI_Request *req)
{
    if (in_collective || peer == MPI_PROC_NULL) return;
    struct trace_rec *r = push(req ? TR_ISEND : TR_SEND);
    r->comm = comm_of(comm);
    r->peer = peer;
    r->tag = tag;
    r->bytes = bytes;
    if (req) r->req = track(*req, TRACED_SEND, 0, (struct traced_coll){0});
}

static bool real_message(const MPI_Status *st)
{
    int cancelled = 0;
    if (st->MPI_SOURCE == MPI_PROC_NULL || st->MPI_SOURCE < 0) return false;
    PMPI_Test_cancelled(st, &cancelled);
    return !cancelled;
}

static void matched(struct trace_rec *r, MPI_Comm comm, const MPI_Status *st)
{
    r->comm = comm_of(comm);
    r->peer = st->MPI_SOURCE;
    r->tag = st->MPI_TAG;
    r->bytes = ns_status_bytes(st);
}

void ns_trace_recv(MPI_Comm comm, const MPI_Status *st)
{
    if (in_collective || !real_message(st)) return;
    matched(push(TR_RECV), comm, st);
}

void ns_trace_sendrecv(MPI_Comm comm, int dst, int stag, int64_t sbytes, const MPI_Status *st)
{
    if (in_collective) return;
    uint64_t id = next_req++;
    if (dst != MPI_PROC_NULL) {
        struct trace_rec *r = push(TR_ISEND);
        r->comm = comm_of(comm);
        r->peer = dst;
        r->tag = stag;
        r->bytes = sbytes;
        r->req = id;
    }
    ns_trace_recv(comm, st);
    if (dst != MPI_PROC_NULL) push(TR_ISEND_DONE)->req = id;
}

void ns_trace_irecv_post(MPI_Request req)
{
    if (in_collective) return;
    push(TR_IRECV_POST)->req = track(req, TRACED_RECV, 0, (struct traced_coll){0});
}

void ns_trace_complete(MPI_Request handle, MPI_Comm comm, const MPI_Status *st)
{
    uint64_t id, coll_comm;
    enum traced_kind kind;
    struct traced_coll coll;
    if (in_collective || !untrack(handle, &id, &kind, &coll_comm, &coll)) return;
    if (kind == TRACED_SEND) {
        push(TR_ISEND_DONE)->req = id;
    } else if (kind == TRACED_COLL) {
        struct trace_rec *r = push(TR_NBC_DONE);
        r->req = id;
        r->comm = coll_comm;
        r->coll = coll.op;
        r->peer = coll.root;
        r->bytes = coll.sent;
        r->bytes2 = coll.received;
    } else if (real_message(st)) {
        struct trace_rec *r = push(TR_IRECV_DONE);
        matched(r, comm, st);
        r->req = id;
    }
}

void ns_trace_nbc(int coll, MPI_Comm comm, int root, int64_t sent, int64_t received,
                  MPI_Request req)
{
    int inter = 0;
    PMPI_Comm_test_inter(comm, &inter);
    if (in_collective || inter) return;
    uint64_t key = comm_of(comm);
    struct traced_coll c = {(uint8_t)coll, root, sent, received};
    push(TR_NBC_POST)->req = track(req, TRACED_COLL, key, c);
}

int ns_comm_size(MPI_Comm comm)
{
    int size = 0;
    PMPI_Comm_size(comm, &size);
    return size;
}

int ns_comm_rank(MPI_Comm comm)
{
    int rank = 0;
    PMPI_Comm_rank(comm, &rank);
    return rank;
}

int64_t ns_sum_bytes(const int counts[], MPI_Datatype dt, MPI_Comm comm)
{
    int64_t total = 0;
    for (int i = 0, n = ns_comm_size(comm); i < n; i++) total += ns_type_bytes(counts[i], dt);
    return total;
}

void ns_trace_coll(int coll, MPI_Comm comm, int root, int64_t sent, int64_t received)
{
    int inter = 0;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter) return;
    push(TR_COLL_BEGIN);
    struct trace_rec *r = push(TR_COLL_END); /* its time is set when the call returns */
    r->coll = (uint8_t)coll;
    r->comm = comm_of(comm);
    r->peer = root;
    r->bytes = sent;
    r->bytes2 = received;
    open_collective = nrecs - 1;
}

/* Gathers a variable-length block of `unit` from every rank to rank 0 (NULL elsewhere). */
static void *gather_blocks(const void *mine, int64_t n, MPI_Datatype unit, size_t unit_bytes,
                           int64_t *counts)
{
    int p = ns_world_size, me = ns_world_rank;
    int n32 = (int)n, *ns = NULL, *displs = NULL;
    void *all = NULL;
    if (me == 0) {
        ns = malloc(sizeof(int) * (size_t)p);
        displs = malloc(sizeof(int) * (size_t)p);
    }
    PMPI_Gather(&n32, 1, MPI_INT, ns, 1, MPI_INT, 0, ns_shadow_comm);
    if (me == 0) {
        int64_t total = 0;
        for (int i = 0; i < p; i++) {
            displs[i] = (int)total;
            counts[i] = ns[i];
            total += ns[i];
        }
        all = malloc(unit_bytes * (size_t)(total ? total : 1));
    }
    PMPI_Gatherv(mine, n32, unit, all, ns, displs, unit, 0, ns_shadow_comm);
    free(ns);
    free(displs);
    return all;
}

/* MPI_Pcontrol, the convention of profilers such as mpiP and IPM: level 0 pauses the
 * recording, any other level resumes it. The pause is recorded as one MPI_Pcontrol call
 * (entered at the pause, left at the resume), so the paused time is not compute. */
int MPI_Pcontrol(const int level, ...)
{
    ns_schedule_pcontrol(level);
    bool configured = ns_tracing || paused;
    if (configured && ns_depth == 0) {
        if (level == 0 && !paused) {
            push(TR_ENTER)->region = region_of("MPI_Pcontrol");
            paused = true;
            ns_tracing = false;
        } else if (level != 0 && paused) {
            paused = false;
            ns_tracing = true;
            push(TR_LEAVE);
        }
    }
    return PMPI_Pcontrol(level);
}

/* MPI_Finalize while paused: the pause ends where the run does. */
void ns_trace_finalize_paused(void)
{
    if (!paused) return;
    paused = false;
    ns_tracing = true;
    push(TR_LEAVE);
}

void ns_trace_finalize_entered(void)
{
    push(TR_ENTER)->region = region_of("MPI_Finalize");
    push(TR_LEAVE);
}

void ns_trace_finish(void)
{
    int p = ns_world_size, me = ns_world_rank;
    MPI_Datatype rec_type;
    PMPI_Type_contiguous((int)sizeof(struct trace_rec), MPI_BYTE, &rec_type);
    PMPI_Type_commit(&rec_type);
    int64_t *rec_counts = calloc((size_t)p, sizeof(int64_t));
    int64_t *name_counts = calloc((size_t)p, sizeof(int64_t));
    int64_t *comm_counts = calloc((size_t)p, sizeof(int64_t));
    struct trace_rec *all = gather_blocks(recs, nrecs, rec_type, sizeof *recs, rec_counts);
    PMPI_Type_free(&rec_type);

    /* Region names: '\0'-separated, in this rank's region order. */
    size_t blob_len = 0;
    for (int i = 0; i < nregions; i++) blob_len += strlen(regions[i]) + 1;
    char *blob = malloc(blob_len + 1), *at = blob;
    for (int i = 0; i < nregions; i++) at = stpcpy(at, regions[i]) + 1;
    char *names = gather_blocks(blob, (int64_t)blob_len, MPI_CHAR, 1, name_counts);

    /* Communicators: id, size, members' world ranks. */
    int64_t comm_len = 0;
    for (int i = 0; i < ncomms; i++) comm_len += 2 + comms[i].size;
    int64_t *flat = malloc(sizeof(int64_t) * (size_t)(comm_len + 1)), *f = flat;
    for (int i = 0; i < ncomms; i++) {
        *f++ = (int64_t)comms[i].id;
        *f++ = comms[i].size;
        memcpy(f, comms[i].world, sizeof(int64_t) * (size_t)comms[i].size);
        f += comms[i].size;
    }
    int64_t *all_comms = gather_blocks(flat, comm_len, MPI_INT64_T, sizeof(int64_t), comm_counts);
    struct tracer_gap *gaps = me == 0 ? malloc(sizeof *gaps * (size_t)p) : NULL;
    PMPI_Gather(&own_gap, 2, MPI_INT64_T, gaps, 2, MPI_INT64_T, 0, ns_shadow_comm);

    if (me == 0 && ns_trace_assemble(trace_dir, p, all, rec_counts, names, name_counts,
                                      all_comms, comm_counts, gaps) != 0)
        fprintf(stderr, "netsens-pmpi: error: could not write the OTF2 archive in %s\n",
                trace_dir);
    free(all);
    free(names);
    free(all_comms);
    free(gaps);
    free(blob);
    free(flat);
    free(rec_counts);
    free(name_counts);
    free(comm_counts);
}
