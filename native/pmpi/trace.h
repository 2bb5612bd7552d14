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
    TR_NBC_DONE, /* its completion: coll, comm, req */
};

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
};

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
void ns_trace_ibarrier(MPI_Comm comm, MPI_Request req);
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

/* trace_otf2.c: rank 0 writes the archive from every rank's records. */
struct trace_comm {
    uint64_t id;
    int64_t size;
    int64_t *world; /* member -> world rank */
};
int ns_trace_write_otf2(const char *dir, int nranks, struct trace_rec **recs,
                        const int64_t *counts, struct trace_comm *comms, int ncomms,
                        const char **regions, int nregions);

#endif
