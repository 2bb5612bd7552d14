/* Persistent requests: a send injects at each MPI_Start (its arguments are kept from
 * MPI_*_init); a receive is tracked like MPI_Irecv while active. */
#include "trace.h"

static void track_send(MPI_Request req, const void *buf, int count, MPI_Datatype dt, int dest,
                       int tag, MPI_Comm comm)
{
    struct req_info *info = ns_req_add(req);
    *info = (struct req_info){.kind = REQ_PSEND, .comm = comm, .count = count, .peer = dest,
                              .tag = tag, .dt = dt, .buf = buf};
}

#define SEND_INIT_WRAPPER(NAME)                                                             \
    int MPI_##NAME(const void *buf, int count, MPI_Datatype dt, int dest, int tag,          \
                   MPI_Comm comm, MPI_Request *req)                                         \
    {                                                                                       \
        NS_ENTER(STAT_CALLS, "MPI_" #NAME);                                                 \
        int rc = PMPI_##NAME(buf, count, dt, dest, tag, comm, req);                         \
        if (rc == MPI_SUCCESS) track_send(*req, buf, count, dt, dest, tag, comm);           \
        NS_LEAVE();                                                                         \
        return rc;                                                                          \
    }

SEND_INIT_WRAPPER(Send_init)
SEND_INIT_WRAPPER(Ssend_init)
SEND_INIT_WRAPPER(Bsend_init)
SEND_INIT_WRAPPER(Rsend_init)

int MPI_Recv_init(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
                  MPI_Request *req)
{
    NS_ENTER(STAT_CALLS, "MPI_Recv_init");
    int rc = PMPI_Recv_init(buf, count, dt, src, tag, comm, req);
    if (rc == MPI_SUCCESS) {
        struct req_info *info = ns_req_add(*req);
        *info = (struct req_info){.kind = REQ_PRECV, .comm = comm};
    }
    NS_LEAVE();
    return rc;
}

static int start(MPI_Request *req)
{
    struct req_info *info = ns_req_find(*req);
    if (info != NULL && info->kind == REQ_PSEND && info->peer != MPI_PROC_NULL) {
        int64_t bytes = ns_type_bytes(info->count, info->dt);
        int dst_world = ns_world_rank_of(info->comm, info->peer);
        ps_t deliver = ns_inject_send(dst_world, bytes);
        if (ns_cfg.shadows)
            ns_send_stamp(dst_world, ns_comm_id(info->comm), info->tag, bytes, deliver);
    }
    if (info != NULL) {
        info->active = true;
        info->have_stamp = false;
    }
    int rc = PMPI_Start(req);
    if (ns_tracing && rc == MPI_SUCCESS && info != NULL) { /* each start: a new request */
        if (info->kind == REQ_PSEND)
            ns_trace_send(info->comm, info->peer, info->tag, ns_type_bytes(info->count, info->dt),
                          req);
        else
            ns_trace_irecv_post(*req);
    }
    return rc;
}

int MPI_Start(MPI_Request *req)
{
    NS_ENTER(STAT_CALLS, "MPI_Start");
    int rc = start(req);
    NS_LEAVE();
    return rc;
}

int MPI_Startall(int n, MPI_Request reqs[])
{
    NS_ENTER(STAT_CALLS, "MPI_Startall");
    int rc = MPI_SUCCESS;
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) rc = start(&reqs[i]);
    NS_LEAVE();
    return rc;
}

int MPI_Request_free(MPI_Request *req)
{
    NS_ENTER(STAT_CALLS, "MPI_Request_free");
    ns_req_remove(*req);
    int rc = PMPI_Request_free(req);
    NS_LEAVE();
    return rc;
}
