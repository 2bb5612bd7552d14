/* Expanded reductions: reduce (binomial tree), allreduce (recursive doubling; with a
 * size that is not a power of two, the first 2·rem ranks pair up first), reduce_scatter
 * and reduce_scatter_block (binomial reduce to rank 0, then linear scatter), scan and
 * exscan (linear chain). Combining uses MPI_Reduce_local, so any op and datatype work;
 * reduce, allreduce and reduce_scatter with a non-commutative op pass through. */
#include "coll_common.h"
#include "trace.h"

#include <otf2/OTF2_Events.h>

#include <stdlib.h>

static bool commutative(MPI_Op op)
{
    int yes = 0;
    PMPI_Op_commutative(op, &yes);
    return yes;
}

int ns_reduce_binomial(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                       int root, MPI_Comm cc)
{
    int r, p;
    PMPI_Comm_rank(cc, &r);
    PMPI_Comm_size(cc, &p);
    void *acc = ns_alloc_typed(count, dt), *tmp = ns_alloc_typed(count, dt);
    ns_copy(sbuf == MPI_IN_PLACE ? rbuf : sbuf, count, dt, acc, count, dt);
    int vr = (r - root + p) % p;
    for (int mask = 1; mask < p; mask <<= 1) {
        if (vr & mask) {
            ns_coll_send(acc, count, dt, ((vr & ~mask) + root) % p, cc);
            break;
        }
        if ((vr | mask) < p) {
            ns_coll_recv(tmp, count, dt, ((vr | mask) + root) % p, cc);
            PMPI_Reduce_local(tmp, acc, count, dt, op);
        }
    }
    if (r == root) ns_copy(acc, count, dt, rbuf, count, dt);
    ns_free_typed(acc, dt);
    ns_free_typed(tmp, dt);
    return MPI_SUCCESS;
}

static int allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                     MPI_Comm cc)
{
    int r, p, pof2 = 1;
    PMPI_Comm_rank(cc, &r);
    PMPI_Comm_size(cc, &p);
    if (sbuf != MPI_IN_PLACE) ns_copy(sbuf, count, dt, rbuf, count, dt);
    void *tmp = ns_alloc_typed(count, dt);
    while (pof2 * 2 <= p) pof2 *= 2;
    int rem = p - pof2, newrank;
    if (r < 2 * rem) {
        if (r % 2 == 0) {
            ns_coll_send(rbuf, count, dt, r + 1, cc);
            newrank = -1;
        } else {
            ns_coll_recv(tmp, count, dt, r - 1, cc);
            PMPI_Reduce_local(tmp, rbuf, count, dt, op);
            newrank = r / 2;
        }
    } else {
        newrank = r - rem;
    }
    if (newrank >= 0)
        for (int mask = 1; mask < pof2; mask <<= 1) {
            int newdst = newrank ^ mask;
            int dst = newdst < rem ? newdst * 2 + 1 : newdst + rem;
            ns_sendrecv(rbuf, count, dt, dst, tmp, count, dt, dst, cc);
            PMPI_Reduce_local(tmp, rbuf, count, dt, op);
        }
    if (r < 2 * rem) {
        if (r % 2 == 1)
            ns_coll_send(rbuf, count, dt, r - 1, cc);
        else
            ns_coll_recv(rbuf, count, dt, r + 1, cc);
    }
    ns_free_typed(tmp, dt);
    return MPI_SUCCESS;
}

static int reduce_scatter(const void *sbuf, void *rbuf, const int counts[], MPI_Datatype dt,
                          MPI_Op op, MPI_Comm cc)
{
    int r, p, total = 0;
    PMPI_Comm_rank(cc, &r);
    PMPI_Comm_size(cc, &p);
    int *displs = malloc(sizeof(int) * (size_t)p);
    for (int i = 0; i < p; i++) {
        displs[i] = total;
        total += counts[i];
    }
    void *all = ns_alloc_typed(total, dt);
    ns_reduce_binomial(sbuf == MPI_IN_PLACE ? rbuf : sbuf, all, total, dt, op, 0, cc);
    ns_scatterv_linear(all, counts, displs, dt, rbuf, counts[r], dt, 0, cc);
    ns_free_typed(all, dt);
    free(displs);
    return MPI_SUCCESS;
}

static int reduce_scatter_block(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                                MPI_Op op, MPI_Comm cc)
{
    int p;
    PMPI_Comm_size(cc, &p);
    int *counts = malloc(sizeof(int) * (size_t)p);
    for (int i = 0; i < p; i++) counts[i] = count;
    int rc = reduce_scatter(sbuf, rbuf, counts, dt, op, cc);
    free(counts);
    return rc;
}

/* Rank r receives the prefix of ranks 0..r-1 and passes on its own (inclusive or not). */
static int scan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                bool inclusive, MPI_Comm cc)
{
    int r, p;
    PMPI_Comm_rank(cc, &r);
    PMPI_Comm_size(cc, &p);
    void *own = ns_alloc_typed(count, dt);
    ns_copy(sbuf == MPI_IN_PLACE ? rbuf : sbuf, count, dt, own, count, dt);
    if (r > 0) {
        void *prefix = ns_alloc_typed(count, dt);
        ns_coll_recv(prefix, count, dt, r - 1, cc);
        if (!inclusive) ns_copy(prefix, count, dt, rbuf, count, dt);
        PMPI_Reduce_local(prefix, own, count, dt, op); /* own = prefix op own */
        ns_free_typed(prefix, dt);
    }
    if (r < p - 1) ns_coll_send(own, count, dt, r + 1, cc);
    if (inclusive) ns_copy(own, count, dt, rbuf, count, dt);
    ns_free_typed(own, dt);
    return MPI_SUCCESS;
}

#define REDUCTION(NAME, TRACE, EXPANDED, PASSED) \
    NS_ENTER(STAT_COLLECTIVES, "MPI_" #NAME); \
    if (ns_tracing) TRACE; \
    int rc = ns_expand(comm) ? (EXPANDED) : (PASSED);                                       \
    NS_LEAVE();                                                                             \
    return rc

int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
               MPI_Comm comm)
{
    REDUCTION(Reduce, ns_trace_coll(OTF2_COLLECTIVE_OP_REDUCE, comm, root, ns_type_bytes(count, dt), AT_ROOT(ns_type_bytes(count, dt))), commutative(op)
                  ? ns_reduce_binomial(sbuf, rbuf, count, dt, op, root, ns_coll_comm(comm))
                  : PMPI_Reduce(sbuf, rbuf, count, dt, op, root, comm),
              PMPI_Reduce(sbuf, rbuf, count, dt, op, root, comm));
}

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                  MPI_Comm comm)
{
    REDUCTION(Allreduce, ns_trace_coll(OTF2_COLLECTIVE_OP_ALLREDUCE, comm, 0, ns_type_bytes(count, dt), ns_type_bytes(count, dt)), commutative(op) ? allreduce(sbuf, rbuf, count, dt, op, ns_coll_comm(comm))
                              : PMPI_Allreduce(sbuf, rbuf, count, dt, op, comm),
              PMPI_Allreduce(sbuf, rbuf, count, dt, op, comm));
}

int MPI_Reduce_scatter(const void *sbuf, void *rbuf, const int counts[], MPI_Datatype dt,
                       MPI_Op op, MPI_Comm comm)
{
    REDUCTION(Reduce_scatter, ns_trace_coll(OTF2_COLLECTIVE_OP_REDUCE_SCATTER, comm, 0, ns_sum_bytes(counts, dt, comm), ns_type_bytes(counts[ns_comm_rank(comm)], dt)), commutative(op) ? reduce_scatter(sbuf, rbuf, counts, dt, op, ns_coll_comm(comm))
                              : PMPI_Reduce_scatter(sbuf, rbuf, counts, dt, op, comm),
              PMPI_Reduce_scatter(sbuf, rbuf, counts, dt, op, comm));
}

int MPI_Reduce_scatter_block(const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                             MPI_Op op, MPI_Comm comm)
{
    REDUCTION(Reduce_scatter_block, ns_trace_coll(OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK, comm, 0, ns_comm_size(comm) * ns_type_bytes(count, dt), ns_type_bytes(count, dt)), commutative(op)
                  ? reduce_scatter_block(sbuf, rbuf, count, dt, op, ns_coll_comm(comm))
                  : PMPI_Reduce_scatter_block(sbuf, rbuf, count, dt, op, comm),
              PMPI_Reduce_scatter_block(sbuf, rbuf, count, dt, op, comm));
}

int MPI_Scan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
             MPI_Comm comm)
{
    REDUCTION(Scan, ns_trace_coll(OTF2_COLLECTIVE_OP_SCAN, comm, 0, ns_type_bytes(count, dt), ns_type_bytes(count, dt)), scan(sbuf, rbuf, count, dt, op, true, ns_coll_comm(comm)),
              PMPI_Scan(sbuf, rbuf, count, dt, op, comm));
}

int MPI_Exscan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
               MPI_Comm comm)
{
    REDUCTION(Exscan, ns_trace_coll(OTF2_COLLECTIVE_OP_EXSCAN, comm, 0, ns_type_bytes(count, dt), ns_type_bytes(count, dt)), scan(sbuf, rbuf, count, dt, op, false, ns_coll_comm(comm)),
              PMPI_Exscan(sbuf, rbuf, count, dt, op, comm));
}
