/* Trace mode: what the library records about each MPI call of a rank (kept in memory,
 * written as one OTF2 archive by world rank 0 at MPI_Finalize). Only the calls the
 * program makes are recorded, never the messages of an expanded collective. */
#ifndef NETSENS_TRACE_H
#define NETSENS_TRACE_H

#include "netsens_pmpi.h"

enum trace_type {
    TR_ENTER,      /* an MPI call begins: region */
    TR_LEAVE,      /* it returns */
    TR_SEND,       /* blocking send: peer, comm, tag, bytes */
    TR_ISEND,      /* non-blocking send posted: + req */
    TR_ISEND_DONE, /* its completion: req */
    TR_RECV,       /* blocking receive completed: source and tag as matched */
    TR_IRECV_POST, /* non-blocking receive posted: req */
    TR_IRECV_DONE, /* its completion: source, comm, tag, bytes, req */
    TR_COLL_BEGIN,
    TR_COLL_END, /* coll, comm, root, bytes (sent), bytes2 (received) */
    TR_NBC_POST, /* a non-blocking collective started: req */
    TR_NBC_DONE, /* its completion: coll, comm, root (peer), bytes, bytes2, req */
};

/* The name of the Enter/Leave attribute holding the rank's thread CPU time, ps (the
 * reader, native/otf2read/otf2_reader.h, looks it up by this name). */
#define NS_OTF2_CPU_TIME "netsens::thread_cpu_time"
/* Location properties of each rank (uint64, ps): the time the tracer itself adds to the
 * gap between two MPI calls, on the wall clock and on the thread CPU clock (the latter
 * only when CPU times are recorded), measured by the rank at start-up. The reader,
 * native/otf2read/otf2_reader.h, looks them up by these names. */
#define NS_OTF2_TRACER_GAP_WALL "netsens::tracer_gap_wall"
#define NS_OTF2_TRACER_GAP_CPU "netsens::tracer_gap_cpu"

/* Collective kinds: OTF2's OTF2_CollectiveOp values. */
struct trace_rec {
    uint8_t type;
    uint8_t coll;
    uint16_t region;
    int32_t peer; /* rank in comm; the root for collectives */
    int32_t tag;
    uint32_t pad;
    uint64_t comm; /* communicator id (comm_ids.c) */
    int64_t bytes, bytes2;
    uint64_t req;
    ps_t time; /* rank 0's timeline */
    ps_t cpu;  /* TR_ENTER, TR_LEAVE: the rank's thread CPU time then, or NS_TRACE_NO_CPU */
};
#define NS_TRACE_NO_CPU (-1)

extern bool ns_tracing;
void ns_trace_init(void);
/* MPI_Init returned (every rank together): the start of the rank's first compute. */
void ns_trace_started(void);
void ns_trace_enter(const char *name, bool collective);
void ns_trace_leave(void);
/* Point-to-point events of the program's own calls (ignored inside a collective). */
void ns_trace_send(MPI_Comm comm, int peer, int tag, int64_t bytes, MPI_Request *req);
void ns_trace_recv(MPI_Comm comm, const MPI_Status *st);
void ns_trace_irecv_post(MPI_Request req);
/* MPI_Sendrecv(_replace): a send in flight while the receive completes. */
void ns_trace_sendrecv(MPI_Comm comm, int dst, int stag, int64_t sbytes, const MPI_Status *st);
/* A request completed (any kind); `st` is its status. */
void ns_trace_complete(MPI_Request handle, MPI_Comm comm, const MPI_Status *st);
/* A non-blocking collective started (its request `req`): recorded with the OTF2 op,
 * root and byte counts of its blocking form, written at its completion. */
void ns_trace_nbc(int coll, MPI_Comm comm, int root, int64_t sent, int64_t received,
                  MPI_Request req);
void ns_trace_coll(int coll, MPI_Comm comm, int root, int64_t sent, int64_t received);
/* Byte counts of a collective's arguments (trace_otf2.c documents the convention). */
int ns_comm_size(MPI_Comm comm);
int ns_comm_rank(MPI_Comm comm);
int64_t ns_sum_bytes(const int counts[], MPI_Datatype dt, MPI_Comm comm);
#define AT_ROOT(bytes) (ns_comm_rank(comm) == root ? (bytes) : 0)
/* What a rank contributes to a gather: its own block, or (MPI_IN_PLACE) its receive block. */
#define SENT(scount, sdt, rcount, rdt) \
    (sbuf == MPI_IN_PLACE ? ns_type_bytes(rcount, rdt) : ns_type_bytes(scount, sdt))

/* MPI_Finalize was called while MPI_Pcontrol(0) paused the recording: resume it. */
void ns_trace_finalize_paused(void);
/* MPI_Finalize was called: its region, at the end of the program's run. */
void ns_trace_finalize_entered(void);
/* Gathers every rank's records to world rank 0, which writes the archive. */
void ns_trace_finish(void);

uint64_t ns_trace_comm_key(uint64_t id, int first_world_rank);

/* What the tracer adds to a gap between two calls, ps (NS_TRACE_NO_CPU: not measured). */
struct tracer_gap {
    int64_t wall_ps, cpu_ps;
};

/* trace_otf2.c: rank 0 writes the archive from every rank's records. */
struct trace_comm {
    uint64_t id;
    int64_t size;
    int64_t *world; /* member -> world rank */
};
/* A rank stopped by SIGTERM (a timeout) writes what it recorded to
 * <NETSENS_TRACE_DIR>/traces.rank-<N>.partial: this header, its records, its region
 * names ('\0'-terminated, in id order), then its communicators (id, size, members'
 * world ranks as int64); netsens-trace-merge (trace_merge.c) makes the archive. */
#define NS_TRACE_PARTIAL "traces.rank-%d.partial"
struct trace_partial {
    uint64_t magic; /* NS_TRACE_PARTIAL_MAGIC */
    int64_t rank, size, nrecs, name_bytes, comm_words;
    struct tracer_gap gap;
};
#define NS_TRACE_PARTIAL_MAGIC 0x6e736e7370617275ULL
void ns_trace_dump_on_terminate(void);

/* Region names per rank, at most (by first use). */
enum { NS_TRACE_MAX_REGIONS = 512 };
/* The archive from every rank's records, region names and communicators as gathered
 * (each rank's block after the other: records with the rank's own region ids, names
 * '\0'-separated in that id order, communicators as id, size, members' world ranks). */
int ns_trace_assemble(const char *dir, int p, struct trace_rec *all, const int64_t *rec_counts,
                      char *names, const int64_t *name_counts, int64_t *all_comms,
                      const int64_t *comm_counts, const struct tracer_gap *gaps);
int ns_trace_write_otf2(const char *dir, int nranks, struct trace_rec **recs,
                        const int64_t *counts, struct trace_comm *comms, int ncomms,
                        const char **regions, int nregions, const struct tracer_gap *gaps);

#endif
