/* Completion: MPI_Wait/Test and their any/some/all forms. A receive is complete once
 * its data has arrived and its delivery time has passed; a Test before that reports
 * "not yet" without freeing the request (MPI_Request_get_status looks, MPI_Test frees). */
#include "trace.h"

#include <sched.h>

static bool tracked_recv(const struct req_info *info)
{
    return info != NULL && info->active && info->kind != REQ_PSEND;
}

/* Whether completing *req now would not wait (data arrived and delivered). */
static bool ready(MPI_Request *req)
{
    if (*req == MPI_REQUEST_NULL) return true;
    struct req_info *info = ns_req_find(*req);
    MPI_Status st;
    int flag = 0;
    PMPI_Request_get_status(*req, &flag, &st);
    if (!flag || !tracked_recv(info) || !ns_cfg.shadows) return flag;
    if (!info->have_stamp) {
        int cancelled = 0;
        PMPI_Test_cancelled(&st, &cancelled);
        if (cancelled || st.MPI_SOURCE == MPI_PROC_NULL) return true;
        ns_find_stamp(ns_world_rank_of(info->comm, st.MPI_SOURCE), ns_comm_id(info->comm),
                      st.MPI_TAG, true, &info->stamp);
        info->have_stamp = true;
    }
    return ns_global_now() >= info->stamp.deliver;
}

/* After a request completed in MPI: a receive's delivery wait and o, and its entry. */
static void finish(struct req_info *info, MPI_Request handle, MPI_Status *st)
{
    if (ns_tracing) ns_trace_complete(handle, info != NULL ? info->comm : MPI_COMM_NULL, st);
    if (!tracked_recv(info)) {
        if (info != NULL) info->active = false; /* a persistent send */
        return;
    }
    if (info->have_stamp)
        ns_inject_recv(ns_world_rank_of(info->comm, st->MPI_SOURCE), ns_status_bytes(st),
                       info->stamp.deliver);
    else
        ns_after_recv(info->comm, st);
    if (info->kind == REQ_RECV) {
        ns_req_remove(handle);
    } else {
        info->active = false;
        info->have_stamp = false;
    }
}

int ns_wait_one(MPI_Request *req, MPI_Status *user_status)
{
    MPI_Status local, *st = user_status == MPI_STATUS_IGNORE ? &local : user_status;
    MPI_Request handle = *req;
    struct req_info *info = ns_req_find(handle);
    int rc = MPI_SUCCESS;
    if (ns_cfg.active)
        ns_wait_request(req, st);
    else
        rc = PMPI_Wait(req, st);
    finish(info, handle, st);
    return rc;
}

int ns_test_one(MPI_Request *req, int *flag, MPI_Status *user_status)
{
    if (ns_cfg.shadows) { /* look first: a delivered receive may still be early */
        *flag = ready(req);
        return *flag ? ns_wait_one(req, user_status) : MPI_SUCCESS;
    }
    MPI_Status local, *st = user_status == MPI_STATUS_IGNORE ? &local : user_status;
    MPI_Request handle = *req;
    struct req_info *info = ns_req_find(handle);
    int rc = PMPI_Test(req, flag, st);
    if (*flag) finish(info, handle, st);
    return rc;
}

static MPI_Status *status_at(MPI_Status *statuses, int i)
{
    return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
}

/* Inactive persistent requests and null handles take no part in any/some. */
static bool idle(MPI_Request req)
{
    if (req == MPI_REQUEST_NULL) return true;
    struct req_info *info = ns_req_find(req);
    return info != NULL && info->kind != REQ_RECV && !info->active;
}

/* One pass over the requests: completes the ready ones (all of them, or the first). */
static int sweep(int n, MPI_Request reqs[], bool first_only, int *done, int indices[],
                 MPI_Status statuses[])
{
    int active = 0;
    *done = 0;
    for (int i = 0; i < n; i++) {
        if (idle(reqs[i])) continue;
        active++;
        if (!ready(&reqs[i])) continue;
        MPI_Status *st = first_only ? statuses : status_at(statuses, *done);
        ns_wait_one(&reqs[i], st);
        indices[(*done)++] = i;
        if (first_only) break;
    }
    return active;
}

static void pause_round(ps_t spin_end)
{
    if (ns_now() > spin_end) sched_yield();
}

int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
    NS_ENTER(STAT_CALLS, "MPI_Wait");
    int rc = ns_wait_one(req, status);
    NS_LEAVE();
    return rc;
}

int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status)
{
    NS_ENTER(STAT_CALLS, "MPI_Test");
    int rc = ns_test_one(req, flag, status);
    NS_LEAVE();
    return rc;
}

int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[])
{
    NS_ENTER(STAT_CALLS, "MPI_Waitall");
    for (int i = 0; i < n; i++) ns_wait_one(&reqs[i], status_at(statuses, i));
    NS_LEAVE();
    return MPI_SUCCESS;
}

int MPI_Testall(int n, MPI_Request reqs[], int *flag, MPI_Status statuses[])
{
    NS_ENTER(STAT_CALLS, "MPI_Testall");
    *flag = 1;
    for (int i = 0; i < n && *flag; i++) *flag = ready(&reqs[i]);
    if (*flag)
        for (int i = 0; i < n; i++) ns_wait_one(&reqs[i], status_at(statuses, i));
    NS_LEAVE();
    return MPI_SUCCESS;
}

int MPI_Waitany(int n, MPI_Request reqs[], int *index, MPI_Status *status)
{
    NS_ENTER(STAT_CALLS, "MPI_Waitany");
    ps_t spin_end = ns_now() + ns_cfg.spin_ps;
    int done = 0;
    *index = MPI_UNDEFINED;
    while (sweep(n, reqs, true, &done, index, status) > 0 && done == 0) pause_round(spin_end);
    if (done == 0) *index = MPI_UNDEFINED;
    NS_LEAVE();
    return MPI_SUCCESS;
}

int MPI_Testany(int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
    NS_ENTER(STAT_CALLS, "MPI_Testany");
    int done = 0;
    int active = sweep(n, reqs, true, &done, index, status);
    *flag = done > 0 || active == 0;
    if (done == 0) *index = MPI_UNDEFINED;
    NS_LEAVE();
    return MPI_SUCCESS;
}

int MPI_Waitsome(int n, MPI_Request reqs[], int *outcount, int indices[],
                 MPI_Status statuses[])
{
    NS_ENTER(STAT_CALLS, "MPI_Waitsome");
    ps_t spin_end = ns_now() + ns_cfg.spin_ps;
    int active;
    while ((active = sweep(n, reqs, false, outcount, indices, statuses)) > 0 && *outcount == 0)
        pause_round(spin_end);
    if (active == 0) *outcount = MPI_UNDEFINED;
    NS_LEAVE();
    return MPI_SUCCESS;
}

int MPI_Testsome(int n, MPI_Request reqs[], int *outcount, int indices[],
                 MPI_Status statuses[])
{
    NS_ENTER(STAT_CALLS, "MPI_Testsome");
    if (sweep(n, reqs, false, outcount, indices, statuses) == 0) *outcount = MPI_UNDEFINED;
    NS_LEAVE();
    return MPI_SUCCESS;
}
