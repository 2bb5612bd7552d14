/* netsens's OTF2 reader: reads an archive's definitions and each location's MPI events
 * through libotf2 and hands them to the caller (crates/netsens-trace) one by one. */
#ifndef NETSENS_OTF2_READER_H
#define NETSENS_OTF2_READER_H

#include <stddef.h>
#include <stdint.h>

enum ns_otf2_kind {
    NS_ENTER = 0,      /* region */
    NS_LEAVE = 1,      /* region */
    NS_SEND = 2,       /* peer, comm, tag, bytes */
    NS_ISEND = 3,      /* + req */
    NS_ISEND_DONE = 4, /* req */
    NS_RECV = 5,       /* peer (the sender), comm, tag, bytes */
    NS_IRECV_POST = 6, /* req */
    NS_IRECV_DONE = 7, /* peer, comm, tag, bytes, req */
    NS_COLL = 8,       /* coll, comm, peer (the root), bytes (sent), bytes2 (received) */
    NS_NBC_POST = 9,   /* a non-blocking collective started: req */
    NS_NBC_DONE = 10,  /* its completion: coll, comm, peer (root), bytes, bytes2, req */
    NS_MEASURE = 11,   /* MeasurementOnOff: bytes 1 (on) or 0 (off) */
    NS_CANCELLED = 12, /* a request was cancelled: req */
};

/* A region's paradigm as OTF2 numbers it (OTF2_Paradigm): MPI calls and the
 * measurement system's own regions (a trace buffer flush) matter to replay. */
#define NS_PARADIGM_MPI 4
#define NS_PARADIGM_MEASUREMENT 6

/* The Enter/Leave attribute netsens's PMPI library writes (native/pmpi/trace.h): the
 * rank's thread CPU time then, ps. */
#define NS_OTF2_CPU_TIME "netsens::thread_cpu_time"
#define NS_NO_CPU_TIME UINT64_MAX
/* Location properties netsens's PMPI library writes for each rank (uint64, ps): what
 * its tracer adds to each gap between two MPI calls, on the wall and CPU clocks. */
#define NS_OTF2_TRACER_GAP_WALL "netsens::tracer_gap_wall"
#define NS_OTF2_TRACER_GAP_CPU "netsens::tracer_gap_cpu"

struct ns_otf2_event {
    uint64_t time_ps; /* from the archive's global offset */
    uint64_t bytes, bytes2, req;
    uint64_t cpu_ps; /* NS_ENTER, NS_LEAVE: the thread CPU time attribute, or NS_NO_CPU_TIME */
    uint32_t peer, tag, comm, region;
    uint8_t kind, coll;
};

struct ns_otf2_sink {
    void *ctx;
    /* The archive's ranks (locations of the MPI world, in rank order), its creator
     * (the tracer that wrote it, "" if none is recorded) and its clock's ticks per second. */
    int (*ranks)(void *ctx, uint32_t nranks, const char *creator, uint64_t resolution);
    int (*region)(void *ctx, uint32_t ref, const char *name, uint8_t paradigm);
    /* A communicator: its members' world ranks; `self` (MPI_COMM_SELF and the like:
     * every rank alone) has none. */
    int (*comm)(void *ctx, uint32_t ref, int self, uint32_t n, const uint64_t *world);
    /* One event of `rank`, in the rank's order; `position` counts its events from 0.
     * A non-zero return stops reading. NULL: read the definitions only. */
    int (*event)(void *ctx, uint32_t rank, uint64_t position, const struct ns_otf2_event *ev);
    /* A rank's tracer gaps (NS_OTF2_TRACER_GAP_*), each NS_NO_CPU_TIME where the archive
     * records none; called for every rank after the communicators. */
    int (*tracer_gap)(void *ctx, uint32_t rank, uint64_t wall_ps, uint64_t cpu_ps);
};

/* Reads `anchor` (the .otf2 file). 0 on success; otherwise the sink's non-zero code
 * or -1 with one line in `err`. */
int ns_otf2_read(const char *anchor, const struct ns_otf2_sink *sink, char *err, size_t errlen);

#endif
