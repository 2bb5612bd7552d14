/* netsens-pmpi: LogGP injection into unmodified MPI programs (preloaded).
 * Shared declarations of the library's modules. Engine units: time in integer
 * picoseconds, per-byte costs in femtoseconds per byte. */
#ifndef NETSENS_PMPI_H
#define NETSENS_PMPI_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

typedef int64_t ps_t;

/* ---- config.c: the environment, parsed once at MPI_Init ---- */
enum wan_shape { WAN_FULL, WAN_STAR, WAN_RING };
struct ns_config {
    ps_t o_ps, gap_ps, l_ps;
    int64_t o_fs_per_b, gap_fs_per_b;
    int nclusters;
    int *cluster_of; /* world rank -> cluster index */
    int *cluster_sizes;
    enum wan_shape wan_shape;
    int wan_hub;
    ps_t wan_l_ps;
    int64_t wan_fs_per_b;
    const char *stats_dir;
    ps_t spin_ps;
    bool expand_collectives;
    bool shadows; /* a receiver needs the send time: L, G or WAN set */
    bool active;  /* anything injected at all */
    bool o_cpu;   /* NETSENS_O_CLOCK=cpu: injected o is the thread's CPU time */
};
extern struct ns_config ns_cfg;
/* Parses the environment for a world of `size` ranks; on a bad value prints one
 * error line (on world rank 0) and aborts the job with code 2. */
void ns_config_load(int rank, int size);
/* MPI_Pcontrol: a run starts (a level other than 0: NETSENS_SCHEDULE's next values) or
 * ends (0: the job's own values). */
void ns_schedule_pcontrol(int level);
const char *ns_wan_shape_name(void);

/* ---- clock.c: monotonic time, spins and waits ---- */
ps_t ns_now(void);        /* local CLOCK_MONOTONIC, ps */
ps_t ns_global_now(void); /* on rank 0's timeline */
ps_t ns_thread_cpu(void);  /* the calling thread's CPU time, ps */
int ns_ps_order(const void *a, const void *b); /* qsort's order of ps_t values */
void ns_measure_cpu_read(void); /* the cost of ns_thread_cpu, for o on the CPU clock */
extern ps_t ns_clock_offset;
void ns_busy_spin(ps_t duration);   /* injected overhead: a busy CPU (wall or CPU clock) */
void ns_wait_until(ps_t global_deadline); /* spin briefly, then yield/sleep */
void ns_wait_request(MPI_Request *req, MPI_Status *status); /* Test + yield */
void ns_clock_sync(MPI_Comm world_dup, int rank, int size);

/* ---- comm_ids.c: communicator ids agreed by all members ---- */
void ns_comm_ids_init(void);
uint64_t ns_comm_id(MPI_Comm comm);
void ns_comm_child(MPI_Comm parent, MPI_Comm *child);
void ns_comm_child_inter(MPI_Comm local, MPI_Comm *child);
MPI_Comm ns_coll_comm(MPI_Comm comm); /* private duplicate for expanded collectives */
int ns_world_rank_of(MPI_Comm comm, int rank);
extern MPI_Comm ns_shadow_comm;
extern bool ns_finalizing;

/* ---- inject.c: the LogGP policy ---- */
struct stamp {
    ps_t deliver; /* on rank 0's timeline */
    uint64_t comm_id;
    int64_t tag;
    int64_t bytes;
};
/* The sender's side of one message of `bytes` to world rank `dst`: waits for the
 * NIC, spins o + k·O, counts it, and returns its delivery time. */
ps_t ns_inject_send(int dst_world, int64_t bytes);
/* The receiver's side: waits for delivery, spins o + k·O, counts it. */
void ns_inject_recv(int src_world, int64_t bytes, ps_t deliver);
void ns_wan_init(MPI_Comm world_dup, int rank);

/* ---- stamps.c: the send time carried by shadow messages ---- */
void ns_send_stamp(int dst_world, uint64_t comm_id, int tag, int64_t bytes, ps_t deliver);
/* The stamp of the next message from `src_world` on (comm id, tag); consumed or not. */
bool ns_find_stamp(int src_world, uint64_t comm_id, int tag, bool consume, struct stamp *out);

/* ---- p2p.c: the shared send/receive paths ---- */
int ns_send(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
            int flavour, MPI_Request *req);
void ns_after_recv(MPI_Comm comm, MPI_Status *st);
int64_t ns_type_bytes(int count, MPI_Datatype dt);
int64_t ns_status_bytes(const MPI_Status *st);
int ns_sendrecv_tagged(const void *sbuf, int scount, MPI_Datatype sdt, int dst, int stag,
                       void *rbuf, int rcount, MPI_Datatype rdt, int src, int rtag, MPI_Comm comm,
                       MPI_Status *st);
/* Collectives' exchanges (tag 0 on their private communicator) and one-way messages. */
int ns_sendrecv(const void *sbuf, int scount, MPI_Datatype sdt, int dst, void *rbuf, int rcount,
                MPI_Datatype rdt, int src, MPI_Comm comm);
int ns_coll_send(const void *buf, int count, MPI_Datatype dt, int dst, MPI_Comm comm);
int ns_coll_recv(void *buf, int count, MPI_Datatype dt, int src, MPI_Comm comm);

/* ---- requests.c: receives in flight ---- */
enum req_kind { REQ_RECV, REQ_PSEND, REQ_PRECV };
struct req_info {
    enum req_kind kind;
    bool active;
    MPI_Comm comm;
    /* persistent sends: the arguments to inject at MPI_Start */
    int count, peer, tag;
    MPI_Datatype dt;
    const void *buf;
    bool have_stamp;
    struct stamp stamp;
};
struct req_info *ns_req_add(MPI_Request req);
struct req_info *ns_req_find(MPI_Request req);
void ns_req_remove(MPI_Request req);
/* Completion with injection: whether *req is complete and delivered. */
int ns_test_one(MPI_Request *req, int *flag, MPI_Status *st);
int ns_wait_one(MPI_Request *req, MPI_Status *st);

/* ---- stats.c: counters and the per-rank JSON file ---- */
enum stat_group { STAT_CALLS, STAT_COLLECTIVES, STAT_UNHANDLED };
void ns_count_call(enum stat_group group, const char *name);
void ns_stats_sent(int dst_world, int64_t bytes);
void ns_stats_recv(int64_t bytes);
void ns_stats_wan(int from, int to, int64_t bytes, ps_t busy);
void ns_stats_overhead(ps_t spin);
void ns_stats_shadow(void);
void ns_stats_start(int rank, int size, ps_t start_global, ps_t rank0_start);
void ns_stats_write(void);
extern int ns_world_rank, ns_world_size;

/* Time inside MPI calls: every wrapper brackets its body with these. */
extern int ns_depth;
extern ps_t ns_in_mpi, ns_entered;
/* Trace mode (trace.c) records the program's own calls: the outermost ones. */
extern bool ns_tracing;
void ns_trace_enter(const char *name, bool collective);
void ns_trace_leave(void);
#define NS_ENTER(group, name)                                                   \
    do {                                                                        \
        ns_count_call(group, name);                                             \
        if (ns_depth++ == 0) {                                                  \
            ns_entered = ns_now();                                              \
            if (ns_tracing) ns_trace_enter(name, (group) == STAT_COLLECTIVES);  \
        }                                                                       \
    } while (0)
#define NS_LEAVE()                                                 \
    do {                                                           \
        if (--ns_depth == 0) {                                     \
            ns_in_mpi += ns_now() - ns_entered;                    \
            if (ns_tracing) ns_trace_leave();                      \
        }                                                          \
    } while (0)

/* ---- init.c: setup after PMPI_Init, the stats file before PMPI_Finalize ---- */
void ns_after_init(void);
void ns_before_finalize(void);

/* send flavours for ns_send */
enum { SEND_STD, SEND_SYNC, SEND_BUF, SEND_READY };

#endif
