/* Point-to-point wrappers: every send flavour injects on the sender's side (and sends
 * its stamp first when receivers need one); every receive flavour completes no earlier
 * than its message's delivery time and pays o + k·O. */
#include "trace.h"

int64_t ns_type_bytes(int count, MPI_Datatype dt)
{
    int size = 0;
    PMPI_Type_size(dt, &size);
    return (int64_t)count * size;
}

int64_t ns_status_bytes(const MPI_Status *st)
{
    MPI_Count bytes = 0;
    PMPI_Get_elements_x(st, MPI_BYTE, &bytes);
    return bytes == MPI_UNDEFINED ? 0 : (int64_t)bytes;
}

/* The sender's side: injection, then its stamp, before the data message. */
static void before_send(int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    if (dest == MPI_PROC_NULL) return;
    int64_t bytes = ns_type_bytes(count, dt);
    int dst_world = ns_world_rank_of(comm, dest);
    ps_t deliver = ns_inject_send(dst_world, bytes);
    if (ns_cfg.shadows) ns_send_stamp(dst_world, ns_comm_id(comm), tag, bytes, deliver);
}

static int send_flavour(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                        MPI_Comm comm, int flavour, MPI_Request *req)
{
    switch (flavour) {
    case SEND_SYNC:
        return req ? PMPI_Issend(buf, count, dt, dest, tag, comm, req)
                   : PMPI_Ssend(buf, count, dt, dest, tag, comm);
    case SEND_BUF:
        return req ? PMPI_Ibsend(buf, count, dt, dest, tag, comm, req)
                   : PMPI_Bsend(buf, count, dt, dest, tag, comm);
    case SEND_READY:
        return req ? PMPI_Irsend(buf, count, dt, dest, tag, comm, req)
                   : PMPI_Rsend(buf, count, dt, dest, tag, comm);
    default:
        return req ? PMPI_Isend(buf, count, dt, dest, tag, comm, req)
                   : PMPI_Send(buf, count, dt, dest, tag, comm);
    }
}

int ns_send(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
            int flavour, MPI_Request *req)
{
    before_send(count, dt, dest, tag, comm);
    int rc = send_flavour(buf, count, dt, dest, tag, comm, flavour, req);
    if (ns_tracing && rc == MPI_SUCCESS)
        ns_trace_send(comm, dest, tag, ns_type_bytes(count, dt), req);
    return rc;
}

/* The receiver's side, once the data has arrived: its stamp, the wait for delivery,
 * o + k·O. */
void ns_after_recv(MPI_Comm comm, MPI_Status *st)
{
    if (st->MPI_SOURCE == MPI_PROC_NULL || st->MPI_SOURCE < 0) return;
    int cancelled = 0;
    PMPI_Test_cancelled(st, &cancelled);
    if (cancelled) return;
    int src_world = ns_world_rank_of(comm, st->MPI_SOURCE);
    struct stamp stamp = {0};
    if (ns_cfg.shadows) ns_find_stamp(src_world, ns_comm_id(comm), st->MPI_TAG, true, &stamp);
    ns_inject_recv(src_world, ns_status_bytes(st), stamp.deliver);
}

static int recv(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
                MPI_Status *user_status)
{
    MPI_Status local, *st = user_status == MPI_STATUS_IGNORE ? &local : user_status;
    int rc;
    if (ns_cfg.active) {
        MPI_Request req;
        rc = PMPI_Irecv(buf, count, dt, src, tag, comm, &req);
        if (rc == MPI_SUCCESS) ns_wait_request(&req, st);
    } else {
        rc = PMPI_Recv(buf, count, dt, src, tag, comm, st);
    }
    if (rc == MPI_SUCCESS) ns_after_recv(comm, st);
    if (ns_tracing && rc == MPI_SUCCESS) ns_trace_recv(comm, st);
    return rc;
}

int ns_sendrecv_tagged(const void *sbuf, int scount, MPI_Datatype sdt, int dst, int stag,
                       void *rbuf, int rcount, MPI_Datatype rdt, int src, int rtag, MPI_Comm comm,
                       MPI_Status *user_status)
{
    MPI_Status local, *st = user_status == MPI_STATUS_IGNORE ? &local : user_status;
    before_send(scount, sdt, dst, stag, comm);
    int rc = PMPI_Sendrecv(sbuf, scount, sdt, dst, stag, rbuf, rcount, rdt, src, rtag, comm, st);
    if (rc == MPI_SUCCESS) ns_after_recv(comm, st);
    if (ns_tracing && rc == MPI_SUCCESS)
        ns_trace_sendrecv(comm, dst, stag, ns_type_bytes(scount, sdt), st);
    return rc;
}

int ns_sendrecv(const void *sbuf, int scount, MPI_Datatype sdt, int dst, void *rbuf, int rcount,
                MPI_Datatype rdt, int src, MPI_Comm comm)
{
    return ns_sendrecv_tagged(sbuf, scount, sdt, dst, 0, rbuf, rcount, rdt, src, 0, comm,
                              MPI_STATUS_IGNORE);
}

int ns_coll_send(const void *buf, int count, MPI_Datatype dt, int dst, MPI_Comm comm)
{
    return ns_send(buf, count, dt, dst, 0, comm, SEND_STD, NULL);
}

int ns_coll_recv(void *buf, int count, MPI_Datatype dt, int src, MPI_Comm comm)
{
    return recv(buf, count, dt, src, 0, comm, MPI_STATUS_IGNORE);
}

#define SEND_WRAPPER(NAME, INAME, FLAVOUR)                                                         \
    int MPI_##NAME(const void *buf, int count, MPI_Datatype dt, int dest, int tag,          \
                   MPI_Comm comm)                                                           \
    {                                                                                       \
        NS_ENTER(STAT_CALLS, "MPI_" #NAME);                                                 \
        int rc = ns_send(buf, count, dt, dest, tag, comm, FLAVOUR, NULL);                   \
        NS_LEAVE();                                                                         \
        return rc;                                                                          \
    }                                                                                       \
    int MPI_##INAME(const void *buf, int count, MPI_Datatype dt, int dest, int tag,         \
                    MPI_Comm comm, MPI_Request *req)                                        \
    {                                                                                       \
        NS_ENTER(STAT_CALLS, "MPI_" #INAME);                                                \
        int rc = ns_send(buf, count, dt, dest, tag, comm, FLAVOUR, req);                    \
        NS_LEAVE();                                                                         \
        return rc;                                                                          \
    }

SEND_WRAPPER(Send, Isend, SEND_STD)
SEND_WRAPPER(Ssend, Issend, SEND_SYNC)
SEND_WRAPPER(Bsend, Ibsend, SEND_BUF)
SEND_WRAPPER(Rsend, Irsend, SEND_READY)

int MPI_Recv(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
             MPI_Status *status)
{
    NS_ENTER(STAT_CALLS, "MPI_Recv");
    int rc = recv(buf, count, dt, src, tag, comm, status);
    NS_LEAVE();
    return rc;
}

int MPI_Irecv(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
              MPI_Request *req)
{
    NS_ENTER(STAT_CALLS, "MPI_Irecv");
    int rc = PMPI_Irecv(buf, count, dt, src, tag, comm, req);
    if (rc == MPI_SUCCESS && src != MPI_PROC_NULL) {
        struct req_info *info = ns_req_add(*req);
        info->kind = REQ_RECV;
        info->active = true;
        info->comm = comm;
    }
    if (ns_tracing && rc == MPI_SUCCESS) ns_trace_irecv_post(*req);
    NS_LEAVE();
    return rc;
}

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype sdt, int dst, int stag, void *rbuf,
                 int rcount, MPI_Datatype rdt, int src, int rtag, MPI_Comm comm,
                 MPI_Status *status)
{
    NS_ENTER(STAT_CALLS, "MPI_Sendrecv");
    int rc = ns_sendrecv_tagged(sbuf, scount, sdt, dst, stag, rbuf, rcount, rdt, src, rtag, comm,
                                status);
    NS_LEAVE();
    return rc;
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype dt, int dst, int stag, int src,
                         int rtag, MPI_Comm comm, MPI_Status *status)
{
    NS_ENTER(STAT_CALLS, "MPI_Sendrecv_replace");
    MPI_Status local, *st = status == MPI_STATUS_IGNORE ? &local : status;
    before_send(count, dt, dst, stag, comm);
    int rc = PMPI_Sendrecv_replace(buf, count, dt, dst, stag, src, rtag, comm, st);
    if (rc == MPI_SUCCESS) ns_after_recv(comm, st);
    if (ns_tracing && rc == MPI_SUCCESS)
        ns_trace_sendrecv(comm, dst, stag, ns_type_bytes(count, dt), st);
    NS_LEAVE();
    return rc;
}

/* A probe reports a message only once it is delivered; its receive pays o later. */
static ps_t probed_delivery(MPI_Comm comm, const MPI_Status *st)
{
    if (!ns_cfg.shadows || st->MPI_SOURCE == MPI_PROC_NULL) return 0;
    struct stamp stamp = {0};
    ns_find_stamp(ns_world_rank_of(comm, st->MPI_SOURCE), ns_comm_id(comm), st->MPI_TAG, false,
                  &stamp);
    return stamp.deliver;
}

int MPI_Probe(int src, int tag, MPI_Comm comm, MPI_Status *status)
{
    NS_ENTER(STAT_CALLS, "MPI_Probe");
    MPI_Status local, *st = status == MPI_STATUS_IGNORE ? &local : status;
    int rc = PMPI_Probe(src, tag, comm, st);
    if (rc == MPI_SUCCESS && ns_cfg.shadows) ns_wait_until(probed_delivery(comm, st));
    NS_LEAVE();
    return rc;
}

int MPI_Iprobe(int src, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    NS_ENTER(STAT_CALLS, "MPI_Iprobe");
    MPI_Status local, *st = status == MPI_STATUS_IGNORE ? &local : status;
    int rc = PMPI_Iprobe(src, tag, comm, flag, st);
    if (rc == MPI_SUCCESS && *flag && ns_cfg.shadows &&
        ns_global_now() < probed_delivery(comm, st))
        *flag = 0;
    NS_LEAVE();
    return rc;
}
