/* Expanded collectives that move data: barrier (dissemination), bcast (binomial tree),
 * gather(v) and scatter(v) (linear: the root exchanges with every rank), allgather(v)
 * (ring), alltoall(v) (pairwise exchange). Each message goes through the injecting
 * send/receive paths on the communicator's private duplicate. */
#include "coll_common.h"
#include "trace.h"

#include <otf2/OTF2_Events.h>

#include <stdlib.h>

bool ns_expand(MPI_Comm comm)
{
    int inter = 0;
    if (!ns_cfg.expand_collectives) return false;
    PMPI_Comm_test_inter(comm, &inter);
    return !inter;
}

void *ns_alloc_typed(int count, MPI_Datatype dt)
{
    MPI_Aint lb, extent, true_lb, true_extent;
    PMPI_Type_get_extent(dt, &lb, &extent);
    PMPI_Type_get_true_extent(dt, &true_lb, &true_extent);
    size_t bytes = (size_t)true_extent + (size_t)(count > 0 ? count - 1 : 0) * (size_t)extent;
    return (char *)malloc(bytes + 1) - true_lb;
}

void ns_free_typed(void *buf, MPI_Datatype dt)
{
    MPI_Aint true_lb, true_extent;
    PMPI_Type_get_true_extent(dt, &true_lb, &true_extent);
    free((char *)buf + true_lb);
}

void ns_copy(const void *src, int scount, MPI_Datatype sdt, void *dst, int rcount,
             MPI_Datatype rdt)
{
    if (src == dst) return;
    PMPI_Sendrecv(src, scount, sdt, 0, 0, dst, rcount, rdt, 0, 0, MPI_COMM_SELF,
                  MPI_STATUS_IGNORE);
}

void *ns_at(const void *buf, int64_t index, MPI_Datatype dt)
{
    MPI_Aint lb, extent;
    PMPI_Type_get_extent(dt, &lb, &extent);
    return (char *)buf + index * extent;
}

static void place(MPI_Comm cc, int *rank, int *size)
{
    PMPI_Comm_rank(cc, rank);
    PMPI_Comm_size(cc, size);
}

static int barrier(MPI_Comm cc)
{
    int r, p;
    place(cc, &r, &p);
    for (int k = 1; k < p; k *= 2)
        ns_sendrecv(NULL, 0, MPI_BYTE, (r + k) % p, NULL, 0, MPI_BYTE, (r - k + p) % p, cc);
    return MPI_SUCCESS;
}

static int bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm cc)
{
    int r, p, mask = 1;
    place(cc, &r, &p);
    int vr = (r - root + p) % p;
    for (; mask < p; mask <<= 1)
        if (vr & mask) {
            ns_coll_recv(buf, count, dt, (vr - mask + root) % p, cc);
            break;
        }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (vr + mask < p) ns_coll_send(buf, count, dt, (vr + mask + root) % p, cc);
    return MPI_SUCCESS;
}

static int gatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                   const int counts[], const int displs[], MPI_Datatype rdt, int root,
                   MPI_Comm cc)
{
    int r, p;
    place(cc, &r, &p);
    if (r != root) return ns_coll_send(sbuf, scount, sdt, root, cc);
    for (int i = 0; i < p; i++) {
        void *block = ns_at(rbuf, displs[i], rdt);
        if (i != root)
            ns_coll_recv(block, counts[i], rdt, i, cc);
        else if (sbuf != MPI_IN_PLACE)
            ns_copy(sbuf, scount, sdt, block, counts[i], rdt);
    }
    return MPI_SUCCESS;
}

int ns_scatterv_linear(const void *sbuf, const int counts[], const int displs[],
                       MPI_Datatype sdt, void *rbuf, int rcount, MPI_Datatype rdt, int root,
                       MPI_Comm cc)
{
    int r, p;
    place(cc, &r, &p);
    if (r != root) return ns_coll_recv(rbuf, rcount, rdt, root, cc);
    for (int i = 0; i < p; i++) {
        const void *block = ns_at(sbuf, displs[i], sdt);
        if (i != root)
            ns_coll_send(block, counts[i], sdt, i, cc);
        else if (rbuf != MPI_IN_PLACE)
            ns_copy(block, counts[i], sdt, rbuf, rcount, rdt);
    }
    return MPI_SUCCESS;
}

static int allgatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                      const int counts[], const int displs[], MPI_Datatype rdt, MPI_Comm cc)
{
    int r, p;
    place(cc, &r, &p);
    if (sbuf != MPI_IN_PLACE) ns_copy(sbuf, scount, sdt, ns_at(rbuf, displs[r], rdt), counts[r], rdt);
    int right = (r + 1) % p, left = (r - 1 + p) % p;
    for (int step = 0; step < p - 1; step++) {
        int out = (r - step + p) % p, in = (r - step - 1 + p) % p;
        ns_sendrecv(ns_at(rbuf, displs[out], rdt), counts[out], rdt, right,
                    ns_at(rbuf, displs[in], rdt), counts[in], rdt, left, cc);
    }
    return MPI_SUCCESS;
}

static int alltoallv(const void *sbuf, const int scounts[], const int sdispls[],
                     MPI_Datatype sdt, void *rbuf, const int rcounts[], const int rdispls[],
                     MPI_Datatype rdt, MPI_Comm cc)
{
    int r, p;
    place(cc, &r, &p);
    ns_copy(ns_at(sbuf, sdispls[r], sdt), scounts[r], sdt, ns_at(rbuf, rdispls[r], rdt),
            rcounts[r], rdt);
    for (int i = 1; i < p; i++) {
        int dst = (r + i) % p, src = (r - i + p) % p;
        ns_sendrecv(ns_at(sbuf, sdispls[dst], sdt), scounts[dst], sdt, dst,
                    ns_at(rbuf, rdispls[src], rdt), rcounts[src], rdt, src, cc);
    }
    return MPI_SUCCESS;
}

/* Regular counts as the v-forms' arrays. */
static void uniform(MPI_Comm comm, int count, int **counts, int **displs)
{
    int p;
    PMPI_Comm_size(comm, &p);
    *counts = malloc(sizeof(int) * (size_t)p);
    *displs = malloc(sizeof(int) * (size_t)p);
    for (int i = 0; i < p; i++) {
        (*counts)[i] = count;
        (*displs)[i] = i * count;
    }
}

#define COLLECTIVE(NAME, TRACE, EXPANDED, PASSED) \
    NS_ENTER(STAT_COLLECTIVES, "MPI_" #NAME); \
    if (ns_tracing) TRACE; \
    int rc = ns_expand(comm) ? (EXPANDED) : (PASSED);                                       \
    NS_LEAVE();                                                                             \
    return rc

int MPI_Barrier(MPI_Comm comm)
{
    COLLECTIVE(Barrier, ns_trace_coll(OTF2_COLLECTIVE_OP_BARRIER, comm, 0, 0, 0), barrier(ns_coll_comm(comm)), PMPI_Barrier(comm));
}

int MPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    COLLECTIVE(Bcast, ns_trace_coll(OTF2_COLLECTIVE_OP_BCAST, comm, root, ns_type_bytes(count, dt), ns_type_bytes(count, dt)), bcast(buf, count, dt, root, ns_coll_comm(comm)),
               PMPI_Bcast(buf, count, dt, root, comm));
}

static int regular(MPI_Comm comm, int count, int which, const void *sbuf, int scount,
                   MPI_Datatype sdt, void *rbuf, int rcount, MPI_Datatype rdt, int root)
{
    int *counts, *displs, rc;
    MPI_Comm cc = ns_coll_comm(comm);
    uniform(comm, count, &counts, &displs);
    switch (which) {
    case 0:
        rc = gatherv(sbuf, scount, sdt, rbuf, counts, displs, rdt, root, cc);
        break;
    case 1:
        rc = ns_scatterv_linear(sbuf, counts, displs, sdt, rbuf, rcount, rdt, root, cc);
        break;
    case 2:
        rc = allgatherv(sbuf, scount, sdt, rbuf, counts, displs, rdt, cc);
        break;
    default: {
        int *rcounts, *rdispls;
        uniform(comm, rcount, &rcounts, &rdispls);
        rc = alltoallv(sbuf, counts, displs, sdt, rbuf, rcounts, rdispls, rdt, cc);
        free(rcounts);
        free(rdispls);
    }
    }
    free(counts);
    free(displs);
    return rc;
}

int MPI_Gather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
               MPI_Datatype rdt, int root, MPI_Comm comm)
{
    COLLECTIVE(Gather, ns_trace_coll(OTF2_COLLECTIVE_OP_GATHER, comm, root, SENT(scount, sdt, rcount, rdt), AT_ROOT(ns_comm_size(comm) * ns_type_bytes(rcount, rdt))), regular(comm, rcount, 0, sbuf, scount, sdt, rbuf, rcount, rdt, root),
               PMPI_Gather(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm));
}

int MPI_Gatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, const int counts[],
                const int displs[], MPI_Datatype rdt, int root, MPI_Comm comm)
{
    COLLECTIVE(Gatherv, ns_trace_coll(OTF2_COLLECTIVE_OP_GATHERV, comm, root, SENT(scount, sdt, counts[ns_comm_rank(comm)], rdt), AT_ROOT(ns_sum_bytes(counts, rdt, comm))), gatherv(sbuf, scount, sdt, rbuf, counts, displs, rdt, root, ns_coll_comm(comm)),
               PMPI_Gatherv(sbuf, scount, sdt, rbuf, counts, displs, rdt, root, comm));
}

int MPI_Scatter(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                MPI_Datatype rdt, int root, MPI_Comm comm)
{
    COLLECTIVE(Scatter, ns_trace_coll(OTF2_COLLECTIVE_OP_SCATTER, comm, root, AT_ROOT(ns_comm_size(comm) * ns_type_bytes(scount, sdt)), ns_type_bytes(scount, sdt)), regular(comm, scount, 1, sbuf, scount, sdt, rbuf, rcount, rdt, root),
               PMPI_Scatter(sbuf, scount, sdt, rbuf, rcount, rdt, root, comm));
}

int MPI_Scatterv(const void *sbuf, const int counts[], const int displs[], MPI_Datatype sdt,
                 void *rbuf, int rcount, MPI_Datatype rdt, int root, MPI_Comm comm)
{
    COLLECTIVE(Scatterv, ns_trace_coll(OTF2_COLLECTIVE_OP_SCATTERV, comm, root, AT_ROOT(ns_sum_bytes(counts, sdt, comm)), rbuf == MPI_IN_PLACE ? ns_type_bytes(counts[root], sdt) : ns_type_bytes(rcount, rdt)), ns_scatterv_linear(sbuf, counts, displs, sdt, rbuf, rcount, rdt, root,
                                  ns_coll_comm(comm)),
               PMPI_Scatterv(sbuf, counts, displs, sdt, rbuf, rcount, rdt, root, comm));
}

int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                  MPI_Datatype rdt, MPI_Comm comm)
{
    COLLECTIVE(Allgather, ns_trace_coll(OTF2_COLLECTIVE_OP_ALLGATHER, comm, 0, SENT(scount, sdt, rcount, rdt), ns_comm_size(comm) * ns_type_bytes(rcount, rdt)), regular(comm, rcount, 2, sbuf, scount, sdt, rbuf, rcount, rdt, 0),
               PMPI_Allgather(sbuf, scount, sdt, rbuf, rcount, rdt, comm));
}

int MPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf,
                   const int counts[], const int displs[], MPI_Datatype rdt, MPI_Comm comm)
{
    COLLECTIVE(Allgatherv, ns_trace_coll(OTF2_COLLECTIVE_OP_ALLGATHERV, comm, 0, SENT(scount, sdt, counts[ns_comm_rank(comm)], rdt), ns_sum_bytes(counts, rdt, comm)), allgatherv(sbuf, scount, sdt, rbuf, counts, displs, rdt, ns_coll_comm(comm)),
               PMPI_Allgatherv(sbuf, scount, sdt, rbuf, counts, displs, rdt, comm));
}

/* MPI_IN_PLACE alltoall(v) passes through (counted): the pairwise exchange needs the
 * send blocks intact. */
int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype sdt, void *rbuf, int rcount,
                 MPI_Datatype rdt, MPI_Comm comm)
{
    COLLECTIVE(Alltoall, ns_trace_coll(OTF2_COLLECTIVE_OP_ALLTOALL, comm, 0, ns_comm_size(comm) * ns_type_bytes(rcount, rdt), ns_comm_size(comm) * ns_type_bytes(rcount, rdt)), sbuf == MPI_IN_PLACE ? PMPI_Alltoall(sbuf, scount, sdt, rbuf, rcount, rdt, comm)
                                    : regular(comm, scount, 3, sbuf, scount, sdt, rbuf, rcount,
                                              rdt, 0),
               PMPI_Alltoall(sbuf, scount, sdt, rbuf, rcount, rdt, comm));
}

int MPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype sdt,
                  void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rdt,
                  MPI_Comm comm)
{
    COLLECTIVE(Alltoallv, ns_trace_coll(OTF2_COLLECTIVE_OP_ALLTOALLV, comm, 0, sbuf == MPI_IN_PLACE ? ns_sum_bytes(rcounts, rdt, comm) : ns_sum_bytes(scounts, sdt, comm), ns_sum_bytes(rcounts, rdt, comm)), sbuf == MPI_IN_PLACE
                   ? PMPI_Alltoallv(sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt,
                                    comm)
                   : alltoallv(sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt,
                               ns_coll_comm(comm)),
               PMPI_Alltoallv(sbuf, scounts, sdispls, sdt, rbuf, rcounts, rdispls, rdt, comm));
}
