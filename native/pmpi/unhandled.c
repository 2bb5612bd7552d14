/* Calls the library does not handle: passed through untouched, counted by name so a
 * run's result lists them. */
#include "trace.h"

#include <otf2/OTF2_Events.h>

#define UNHANDLED(NAME, PARAMS, ARGS)                                                       \
    int MPI_##NAME PARAMS                                                                   \
    {                                                                                       \
        NS_ENTER(STAT_UNHANDLED, "MPI_" #NAME);                                             \
        int rc = PMPI_##NAME ARGS;                                                          \
        NS_LEAVE();                                                                         \
        return rc;                                                                          \
    }

/* One-sided communication */
UNHANDLED(Win_create,
          (void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win),
          (base, size, disp_unit, info, comm, win))
UNHANDLED(Win_allocate,
          (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *base, MPI_Win *win),
          (size, disp_unit, info, comm, base, win))
UNHANDLED(Win_fence, (int assert, MPI_Win win), (assert, win))
UNHANDLED(Put,
          (const void *obuf, int ocount, MPI_Datatype odt, int target, MPI_Aint disp, int tcount,
           MPI_Datatype tdt, MPI_Win win),
          (obuf, ocount, odt, target, disp, tcount, tdt, win))
UNHANDLED(Get,
          (void *obuf, int ocount, MPI_Datatype odt, int target, MPI_Aint disp, int tcount,
           MPI_Datatype tdt, MPI_Win win),
          (obuf, ocount, odt, target, disp, tcount, tdt, win))
UNHANDLED(Accumulate,
          (const void *obuf, int ocount, MPI_Datatype odt, int target, MPI_Aint disp, int tcount,
           MPI_Datatype tdt, MPI_Op op, MPI_Win win),
          (obuf, ocount, odt, target, disp, tcount, tdt, op, win))

/* Matched probes (their messages' stamps are not consumed) */
UNHANDLED(Mprobe, (int src, int tag, MPI_Comm comm, MPI_Message *msg, MPI_Status *st),
          (src, tag, comm, msg, st))
UNHANDLED(Improbe,
          (int src, int tag, MPI_Comm comm, int *flag, MPI_Message *msg, MPI_Status *st),
          (src, tag, comm, flag, msg, st))

/* Non-blocking collectives: passed through (no delay is injected into them: the MPI
 * library progresses them out of the wrapper's sight, docs/guides/traces.md) and counted
 * as unhandled, but traced with their blocking form's byte counts, so replay models
 * them. */
#define UNHANDLED_NBC(NAME, PARAMS, ARGS, COLL, ROOT, SENT, RECEIVED)                       \
    int MPI_##NAME PARAMS                                                                   \
    {                                                                                       \
        NS_ENTER(STAT_UNHANDLED, "MPI_" #NAME);                                             \
        int rc = PMPI_##NAME ARGS;                                                          \
        if (ns_tracing && rc == MPI_SUCCESS) ns_trace_nbc(COLL, comm, ROOT, SENT, RECEIVED, *req); \
        NS_LEAVE();                                                                         \
        return rc;                                                                          \
    }

UNHANDLED_NBC(Ibcast,
              (void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm, MPI_Request *req),
              (buf, count, dt, root, comm, req), OTF2_COLLECTIVE_OP_BCAST, root,
              ns_type_bytes(count, dt), ns_type_bytes(count, dt))
UNHANDLED_NBC(Ireduce,
              (const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
               MPI_Comm comm, MPI_Request *req),
              (sbuf, rbuf, count, dt, op, root, comm, req), OTF2_COLLECTIVE_OP_REDUCE, root,
              ns_type_bytes(count, dt), AT_ROOT(ns_type_bytes(count, dt)))
UNHANDLED_NBC(Iallreduce,
              (const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
               MPI_Request *req),
              (sbuf, rbuf, count, dt, op, comm, req), OTF2_COLLECTIVE_OP_ALLREDUCE, 0,
              ns_type_bytes(count, dt), ns_type_bytes(count, dt))
UNHANDLED_NBC(Iallgather,
              (const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
               MPI_Datatype rdt, MPI_Comm comm, MPI_Request *req),
              (sbuf, scount, sdt, rbuf, rcount, rdt, comm, req), OTF2_COLLECTIVE_OP_ALLGATHER, 0,
              SENT(scount, sdt, rcount, rdt), ns_comm_size(comm) * ns_type_bytes(rcount, rdt))
UNHANDLED_NBC(Ialltoall,
              (const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
               MPI_Datatype rdt, MPI_Comm comm, MPI_Request *req),
              (sbuf, scount, sdt, rbuf, rcount, rdt, comm, req), OTF2_COLLECTIVE_OP_ALLTOALL, 0,
              ns_comm_size(comm) * ns_type_bytes(rcount, rdt),
              ns_comm_size(comm) * ns_type_bytes(rcount, rdt))

/* Collectives not expanded */
UNHANDLED(Alltoallw,
          (const void *sbuf, const int scounts[], const int sdispls[], const MPI_Datatype sdts[],
           void *rbuf, const int rcounts[], const int rdispls[], const MPI_Datatype rdts[],
           MPI_Comm comm),
          (sbuf, scounts, sdispls, sdts, rbuf, rcounts, rdispls, rdts, comm))
UNHANDLED(Neighbor_alltoall,
          (const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
           MPI_Datatype rdt, MPI_Comm comm),
          (sbuf, scount, sdt, rbuf, rcount, rdt, comm))
UNHANDLED(Neighbor_allgather,
          (const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
           MPI_Datatype rdt, MPI_Comm comm),
          (sbuf, scount, sdt, rbuf, rcount, rdt, comm))

UNHANDLED_NBC(Ibarrier, (MPI_Comm comm, MPI_Request *req), (comm, req),
              OTF2_COLLECTIVE_OP_BARRIER, 0, 0, 0)
