/* Fortran entry points (mpif.h and `use mpi`, gfortran naming): Open MPI's Fortran
 * bindings call PMPI_* directly, so without these a Fortran program would bypass the
 * library. Each converts handles, statuses and the MPI_IN_PLACE / MPI_BOTTOM sentinels,
 * then calls the library's C wrapper. Aliases: name_, name__, name and NAME. */
#include <stdlib.h>

#include "netsens_pmpi.h"

/* Fortran sentinels: Open MPI's common blocks, MPICH's recorded addresses. */
extern int mpi_fortran_in_place_ __attribute__((weak));
extern int mpi_fortran_bottom_ __attribute__((weak));
extern int mpi_fortran_status_ignore_ __attribute__((weak));
extern int mpi_fortran_statuses_ignore_ __attribute__((weak));
extern void *MPIR_F_MPI_IN_PLACE __attribute__((weak));
extern void *MPIR_F_MPI_BOTTOM __attribute__((weak));
/* The implementation's own Fortran setup (MPICH records its sentinels there). */
extern void pmpi_init_(MPI_Fint *ierr) __attribute__((weak));
extern void pmpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
    __attribute__((weak));
extern void pmpi_finalize_(MPI_Fint *ierr) __attribute__((weak));

typedef MPI_Fint F;
#ifndef MPI_F_STATUS_SIZE /* Open MPI 4.1 leaves it out; its Fortran status is the C one */
#define MPI_F_STATUS_SIZE ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))
#endif

static const void *c_buf(const void *buf)
{
    if ((&mpi_fortran_in_place_ != NULL && buf == (void *)&mpi_fortran_in_place_) ||
        (&MPIR_F_MPI_IN_PLACE != NULL && MPIR_F_MPI_IN_PLACE != NULL &&
         buf == MPIR_F_MPI_IN_PLACE))
        return MPI_IN_PLACE;
    if ((&mpi_fortran_bottom_ != NULL && buf == (void *)&mpi_fortran_bottom_) ||
        (&MPIR_F_MPI_BOTTOM != NULL && MPIR_F_MPI_BOTTOM != NULL && buf == MPIR_F_MPI_BOTTOM))
        return MPI_BOTTOM;
    return buf;
}
#define CBUF(b) ((void *)c_buf(b))

static bool status_ignored(F *f)
{
    return f == MPI_F_STATUS_IGNORE || f == MPI_F_STATUSES_IGNORE ||
           (&mpi_fortran_status_ignore_ != NULL && f == &mpi_fortran_status_ignore_) ||
           (&mpi_fortran_statuses_ignore_ != NULL && f == &mpi_fortran_statuses_ignore_);
}

static void to_fortran(const MPI_Status *c, F *f)
{
    if (!status_ignored(f)) PMPI_Status_c2f(c, f);
}

#define ALIASES(lower, upper, params)                                                       \
    void lower##__ params __attribute__((alias(#lower "_")));                               \
    void lower params __attribute__((alias(#lower "_")));                                   \
    void upper params __attribute__((alias(#lower "_")));

#define T(x) PMPI_Type_f2c(*(x))
#define C(x) PMPI_Comm_f2c(*(x))
#define O(x) PMPI_Op_f2c(*(x))

void mpi_init_(F *ierr)
{
    if (pmpi_init_ != NULL) {
        pmpi_init_(ierr);
        if (*ierr == MPI_SUCCESS) ns_after_init();
    } else {
        *ierr = MPI_Init(NULL, NULL);
    }
}
ALIASES(mpi_init, MPI_INIT, (F * ierr))

void mpi_init_thread_(F *required, F *provided, F *ierr)
{
    if (pmpi_init_thread_ != NULL) {
        pmpi_init_thread_(required, provided, ierr);
        if (*ierr == MPI_SUCCESS) ns_after_init();
    } else {
        int p = 0;
        *ierr = MPI_Init_thread(NULL, NULL, *required, &p);
        *provided = p;
    }
}
ALIASES(mpi_init_thread, MPI_INIT_THREAD, (F * required, F *provided, F *ierr))

void mpi_finalize_(F *ierr)
{
    if (pmpi_finalize_ != NULL) {
        ns_before_finalize();
        pmpi_finalize_(ierr);
    } else {
        *ierr = MPI_Finalize();
    }
}
ALIASES(mpi_finalize, MPI_FINALIZE, (F * ierr))

#define F_SEND(lower, upper, CALL)                                                          \
    void lower##_(void *buf, F *count, F *dt, F *dest, F *tag, F *comm, F *ierr)            \
    {                                                                                       \
        *ierr = CALL(CBUF(buf), *count, T(dt), *dest, *tag, C(comm));                       \
    }                                                                                       \
    ALIASES(lower, upper, (void *buf, F *count, F *dt, F *dest, F *tag, F *comm, F *ierr))

F_SEND(mpi_send, MPI_SEND, MPI_Send)
F_SEND(mpi_ssend, MPI_SSEND, MPI_Ssend)
F_SEND(mpi_bsend, MPI_BSEND, MPI_Bsend)
F_SEND(mpi_rsend, MPI_RSEND, MPI_Rsend)

#define F_ISEND(lower, upper, CALL)                                                         \
    void lower##_(void *buf, F *count, F *dt, F *dest, F *tag, F *comm, F *req, F *ierr)    \
    {                                                                                       \
        MPI_Request r;                                                                      \
        *ierr = CALL(CBUF(buf), *count, T(dt), *dest, *tag, C(comm), &r);                   \
        if (*ierr == MPI_SUCCESS) *req = PMPI_Request_c2f(r);                               \
    }                                                                                       \
    ALIASES(lower, upper,                                                                   \
            (void *buf, F *count, F *dt, F *dest, F *tag, F *comm, F *req, F *ierr))

F_ISEND(mpi_isend, MPI_ISEND, MPI_Isend)
F_ISEND(mpi_issend, MPI_ISSEND, MPI_Issend)
F_ISEND(mpi_irecv, MPI_IRECV, MPI_Irecv)
F_ISEND(mpi_send_init, MPI_SEND_INIT, MPI_Send_init)
F_ISEND(mpi_recv_init, MPI_RECV_INIT, MPI_Recv_init)

void mpi_recv_(void *buf, F *count, F *dt, F *src, F *tag, F *comm, F *status, F *ierr)
{
    MPI_Status st;
    *ierr = MPI_Recv(CBUF(buf), *count, T(dt), *src, *tag, C(comm), &st);
    to_fortran(&st, status);
}
ALIASES(mpi_recv, MPI_RECV,
        (void *buf, F *count, F *dt, F *src, F *tag, F *comm, F *status, F *ierr))

void mpi_sendrecv_(void *sbuf, F *scount, F *sdt, F *dst, F *stag, void *rbuf, F *rcount,
                   F *rdt, F *src, F *rtag, F *comm, F *status, F *ierr)
{
    MPI_Status st;
    *ierr = MPI_Sendrecv(CBUF(sbuf), *scount, T(sdt), *dst, *stag, CBUF(rbuf), *rcount, T(rdt),
                         *src, *rtag, C(comm), &st);
    to_fortran(&st, status);
}
ALIASES(mpi_sendrecv, MPI_SENDRECV,
        (void *sbuf, F *scount, F *sdt, F *dst, F *stag, void *rbuf, F *rcount, F *rdt, F *src,
         F *rtag, F *comm, F *status, F *ierr))

void mpi_probe_(F *src, F *tag, F *comm, F *status, F *ierr)
{
    MPI_Status st;
    *ierr = MPI_Probe(*src, *tag, C(comm), &st);
    to_fortran(&st, status);
}
ALIASES(mpi_probe, MPI_PROBE, (F * src, F *tag, F *comm, F *status, F *ierr))

void mpi_iprobe_(F *src, F *tag, F *comm, F *flag, F *status, F *ierr)
{
    MPI_Status st;
    int f = 0;
    *ierr = MPI_Iprobe(*src, *tag, C(comm), &f, &st);
    *flag = f;
    if (f) to_fortran(&st, status);
}
ALIASES(mpi_iprobe, MPI_IPROBE, (F * src, F *tag, F *comm, F *flag, F *status, F *ierr))

void mpi_start_(F *req, F *ierr)
{
    MPI_Request r = PMPI_Request_f2c(*req);
    *ierr = MPI_Start(&r);
}
ALIASES(mpi_start, MPI_START, (F * req, F *ierr))

void mpi_wait_(F *req, F *status, F *ierr)
{
    MPI_Request r = PMPI_Request_f2c(*req);
    MPI_Status st;
    *ierr = MPI_Wait(&r, &st);
    *req = PMPI_Request_c2f(r);
    to_fortran(&st, status);
}
ALIASES(mpi_wait, MPI_WAIT, (F * req, F *status, F *ierr))

void mpi_test_(F *req, F *flag, F *status, F *ierr)
{
    MPI_Request r = PMPI_Request_f2c(*req);
    MPI_Status st;
    int f = 0;
    *ierr = MPI_Test(&r, &f, &st);
    *flag = f;
    *req = PMPI_Request_c2f(r);
    if (f) to_fortran(&st, status);
}
ALIASES(mpi_test, MPI_TEST, (F * req, F *flag, F *status, F *ierr))

void mpi_waitall_(F *count, F *reqs, F *statuses, F *ierr)
{
    *ierr = MPI_SUCCESS;
    for (F i = 0; i < *count; i++) {
        F *status = status_ignored(statuses) ? statuses : statuses + i * MPI_F_STATUS_SIZE;
        F one;
        mpi_wait_(&reqs[i], status, &one);
        if (one != MPI_SUCCESS) *ierr = one;
    }
}
ALIASES(mpi_waitall, MPI_WAITALL, (F * count, F *reqs, F *statuses, F *ierr))

void mpi_barrier_(F *comm, F *ierr) { *ierr = MPI_Barrier(C(comm)); }
ALIASES(mpi_barrier, MPI_BARRIER, (F * comm, F *ierr))

void mpi_bcast_(void *buf, F *count, F *dt, F *root, F *comm, F *ierr)
{
    *ierr = MPI_Bcast(CBUF(buf), *count, T(dt), *root, C(comm));
}
ALIASES(mpi_bcast, MPI_BCAST, (void *buf, F *count, F *dt, F *root, F *comm, F *ierr))

void mpi_reduce_(void *sbuf, void *rbuf, F *count, F *dt, F *op, F *root, F *comm, F *ierr)
{
    *ierr = MPI_Reduce(CBUF(sbuf), CBUF(rbuf), *count, T(dt), O(op), *root, C(comm));
}
ALIASES(mpi_reduce, MPI_REDUCE,
        (void *sbuf, void *rbuf, F *count, F *dt, F *op, F *root, F *comm, F *ierr))

void mpi_allreduce_(void *sbuf, void *rbuf, F *count, F *dt, F *op, F *comm, F *ierr)
{
    *ierr = MPI_Allreduce(CBUF(sbuf), CBUF(rbuf), *count, T(dt), O(op), C(comm));
}
ALIASES(mpi_allreduce, MPI_ALLREDUCE,
        (void *sbuf, void *rbuf, F *count, F *dt, F *op, F *comm, F *ierr))

#define F_MOVE(lower, upper, CALL)                                                          \
    void lower##_(void *sbuf, F *scount, F *sdt, void *rbuf, F *rcount, F *rdt, F *comm,    \
                  F *ierr)                                                                  \
    {                                                                                       \
        *ierr = CALL(CBUF(sbuf), *scount, T(sdt), CBUF(rbuf), *rcount, T(rdt), C(comm));    \
    }                                                                                       \
    ALIASES(lower, upper,                                                                   \
            (void *sbuf, F *scount, F *sdt, void *rbuf, F *rcount, F *rdt, F *comm, F *ierr))

F_MOVE(mpi_alltoall, MPI_ALLTOALL, MPI_Alltoall)
F_MOVE(mpi_allgather, MPI_ALLGATHER, MPI_Allgather)

#define F_ROOTED(lower, upper, CALL)                                                        \
    void lower##_(void *sbuf, F *scount, F *sdt, void *rbuf, F *rcount, F *rdt, F *root,    \
                  F *comm, F *ierr)                                                         \
    {                                                                                       \
        *ierr = CALL(CBUF(sbuf), *scount, T(sdt), CBUF(rbuf), *rcount, T(rdt), *root,       \
                     C(comm));                                                              \
    }                                                                                       \
    ALIASES(lower, upper,                                                                   \
            (void *sbuf, F *scount, F *sdt, void *rbuf, F *rcount, F *rdt, F *root, F *comm, \
             F *ierr))

F_ROOTED(mpi_gather, MPI_GATHER, MPI_Gather)
F_ROOTED(mpi_scatter, MPI_SCATTER, MPI_Scatter)

#define F_CHILD(lower, upper, PARAMS, CALL)                                                 \
    void lower##_ PARAMS                                                                    \
    {                                                                                       \
        MPI_Comm out;                                                                       \
        *ierr = CALL;                                                                       \
        if (*ierr == MPI_SUCCESS) *newcomm = PMPI_Comm_c2f(out);                            \
    }                                                                                       \
    ALIASES(lower, upper, PARAMS)

F_CHILD(mpi_comm_dup, MPI_COMM_DUP, (F * comm, F *newcomm, F *ierr), MPI_Comm_dup(C(comm), &out))
F_CHILD(mpi_comm_split, MPI_COMM_SPLIT, (F * comm, F *color, F *key, F *newcomm, F *ierr),
        MPI_Comm_split(C(comm), *color, *key, &out))
F_CHILD(mpi_comm_split_type, MPI_COMM_SPLIT_TYPE,
        (F * comm, F *type, F *key, F *info, F *newcomm, F *ierr),
        MPI_Comm_split_type(C(comm), *type, *key, PMPI_Info_f2c(*info), &out))
F_CHILD(mpi_comm_create, MPI_COMM_CREATE, (F * comm, F *group, F *newcomm, F *ierr),
        MPI_Comm_create(C(comm), PMPI_Group_f2c(*group), &out))
F_CHILD(mpi_comm_create_group, MPI_COMM_CREATE_GROUP,
        (F * comm, F *group, F *tag, F *newcomm, F *ierr),
        MPI_Comm_create_group(C(comm), PMPI_Group_f2c(*group), *tag, &out))

/* The integer arrays below (counts, displacements, dimensions) are passed as they are:
 * gfortran's default INTEGER is the C int. LOGICALs are converted (nonzero is true). */
_Static_assert(sizeof(F) == sizeof(int), "MPI_Fint must be int to pass integer arrays");

void mpi_cart_create_(F *comm, F *ndims, F *dims, F *periods, F *reorder, F *newcomm, F *ierr)
{
    int *p = malloc(sizeof(int) * (*ndims > 0 ? *ndims : 1));
    if (p == NULL) {
        *ierr = MPI_ERR_NO_MEM;
        return;
    }
    for (F i = 0; i < *ndims; i++) p[i] = periods[i] != 0;
    MPI_Comm out;
    *ierr = MPI_Cart_create(C(comm), *ndims, dims, p, *reorder != 0, &out);
    if (*ierr == MPI_SUCCESS) *newcomm = PMPI_Comm_c2f(out);
    free(p);
}
ALIASES(mpi_cart_create, MPI_CART_CREATE,
        (F * comm, F *ndims, F *dims, F *periods, F *reorder, F *newcomm, F *ierr))

void mpi_cart_sub_(F *comm, F *remain, F *newcomm, F *ierr)
{
    int ndims = 0;
    *ierr = PMPI_Cartdim_get(C(comm), &ndims);
    if (*ierr != MPI_SUCCESS) return;
    int *r = malloc(sizeof(int) * (ndims > 0 ? ndims : 1));
    if (r == NULL) {
        *ierr = MPI_ERR_NO_MEM;
        return;
    }
    for (int i = 0; i < ndims; i++) r[i] = remain[i] != 0;
    MPI_Comm out;
    *ierr = MPI_Cart_sub(C(comm), r, &out);
    if (*ierr == MPI_SUCCESS) *newcomm = PMPI_Comm_c2f(out);
    free(r);
}
ALIASES(mpi_cart_sub, MPI_CART_SUB, (F * comm, F *remain, F *newcomm, F *ierr))

void mpi_sendrecv_replace_(void *buf, F *count, F *dt, F *dst, F *stag, F *src, F *rtag,
                           F *comm, F *status, F *ierr)
{
    MPI_Status st;
    *ierr = MPI_Sendrecv_replace(CBUF(buf), *count, T(dt), *dst, *stag, *src, *rtag, C(comm),
                                 &st);
    to_fortran(&st, status);
}
ALIASES(mpi_sendrecv_replace, MPI_SENDRECV_REPLACE,
        (void *buf, F *count, F *dt, F *dst, F *stag, F *src, F *rtag, F *comm, F *status,
         F *ierr))

void mpi_scan_(void *sbuf, void *rbuf, F *count, F *dt, F *op, F *comm, F *ierr)
{
    *ierr = MPI_Scan(CBUF(sbuf), CBUF(rbuf), *count, T(dt), O(op), C(comm));
}
ALIASES(mpi_scan, MPI_SCAN, (void *sbuf, void *rbuf, F *count, F *dt, F *op, F *comm, F *ierr))

void mpi_reduce_scatter_(void *sbuf, void *rbuf, F *counts, F *dt, F *op, F *comm, F *ierr)
{
    *ierr = MPI_Reduce_scatter(CBUF(sbuf), CBUF(rbuf), counts, T(dt), O(op), C(comm));
}
ALIASES(mpi_reduce_scatter, MPI_REDUCE_SCATTER,
        (void *sbuf, void *rbuf, F *counts, F *dt, F *op, F *comm, F *ierr))

void mpi_allgatherv_(void *sbuf, F *scount, F *sdt, void *rbuf, F *counts, F *displs, F *rdt,
                     F *comm, F *ierr)
{
    *ierr = MPI_Allgatherv(CBUF(sbuf), *scount, T(sdt), CBUF(rbuf), counts, displs, T(rdt),
                           C(comm));
}
ALIASES(mpi_allgatherv, MPI_ALLGATHERV,
        (void *sbuf, F *scount, F *sdt, void *rbuf, F *counts, F *displs, F *rdt, F *comm,
         F *ierr))

void mpi_gatherv_(void *sbuf, F *scount, F *sdt, void *rbuf, F *counts, F *displs, F *rdt,
                  F *root, F *comm, F *ierr)
{
    *ierr = MPI_Gatherv(CBUF(sbuf), *scount, T(sdt), CBUF(rbuf), counts, displs, T(rdt), *root,
                        C(comm));
}
ALIASES(mpi_gatherv, MPI_GATHERV,
        (void *sbuf, F *scount, F *sdt, void *rbuf, F *counts, F *displs, F *rdt, F *root,
         F *comm, F *ierr))

void mpi_scatterv_(void *sbuf, F *counts, F *displs, F *sdt, void *rbuf, F *rcount, F *rdt,
                   F *root, F *comm, F *ierr)
{
    *ierr = MPI_Scatterv(CBUF(sbuf), counts, displs, T(sdt), CBUF(rbuf), *rcount, T(rdt), *root,
                         C(comm));
}
ALIASES(mpi_scatterv, MPI_SCATTERV,
        (void *sbuf, F *counts, F *displs, F *sdt, void *rbuf, F *rcount, F *rdt, F *root,
         F *comm, F *ierr))

void mpi_alltoallv_(void *sbuf, F *scounts, F *sdispls, F *sdt, void *rbuf, F *rcounts,
                    F *rdispls, F *rdt, F *comm, F *ierr)
{
    *ierr = MPI_Alltoallv(CBUF(sbuf), scounts, sdispls, T(sdt), CBUF(rbuf), rcounts, rdispls,
                          T(rdt), C(comm));
}
ALIASES(mpi_alltoallv, MPI_ALLTOALLV,
        (void *sbuf, F *scounts, F *sdispls, F *sdt, void *rbuf, F *rcounts, F *rdispls,
         F *rdt, F *comm, F *ierr))

/* The request arrays of testany, testall and waitany: converted to C and back (a
 * completed request becomes MPI_REQUEST_NULL); Fortran's index counts from 1. */
static MPI_Request *c_requests(F count, const F *reqs)
{
    MPI_Request *r = malloc(sizeof(MPI_Request) * (count > 0 ? count : 1));
    for (F i = 0; r != NULL && i < count; i++) r[i] = PMPI_Request_f2c(reqs[i]);
    return r;
}

static void f_requests(F count, MPI_Request *r, F *reqs)
{
    for (F i = 0; i < count; i++) reqs[i] = PMPI_Request_c2f(r[i]);
    free(r);
}

static F f_index(int index) { return index == MPI_UNDEFINED ? MPI_UNDEFINED : index + 1; }

void mpi_testany_(F *count, F *reqs, F *index, F *flag, F *status, F *ierr)
{
    MPI_Request *r = c_requests(*count, reqs);
    if (r == NULL) {
        *ierr = MPI_ERR_NO_MEM;
        return;
    }
    MPI_Status st;
    int i = MPI_UNDEFINED, f = 0;
    *ierr = MPI_Testany(*count, r, &i, &f, &st);
    f_requests(*count, r, reqs);
    *index = f_index(i);
    *flag = f;
    if (f && i != MPI_UNDEFINED) to_fortran(&st, status);
}
ALIASES(mpi_testany, MPI_TESTANY, (F * count, F *reqs, F *index, F *flag, F *status, F *ierr))

void mpi_waitany_(F *count, F *reqs, F *index, F *status, F *ierr)
{
    MPI_Request *r = c_requests(*count, reqs);
    if (r == NULL) {
        *ierr = MPI_ERR_NO_MEM;
        return;
    }
    MPI_Status st;
    int i = MPI_UNDEFINED;
    *ierr = MPI_Waitany(*count, r, &i, &st);
    f_requests(*count, r, reqs);
    *index = f_index(i);
    if (i != MPI_UNDEFINED) to_fortran(&st, status);
}
ALIASES(mpi_waitany, MPI_WAITANY, (F * count, F *reqs, F *index, F *status, F *ierr))

void mpi_testall_(F *count, F *reqs, F *flag, F *statuses, F *ierr)
{
    MPI_Request *r = c_requests(*count, reqs);
    MPI_Status *st = malloc(sizeof(MPI_Status) * (*count > 0 ? *count : 1));
    if (r == NULL || st == NULL) {
        free(r);
        free(st);
        *ierr = MPI_ERR_NO_MEM;
        return;
    }
    int f = 0;
    *ierr = MPI_Testall(*count, r, &f, st);
    f_requests(*count, r, reqs);
    *flag = f;
    for (F i = 0; f && !status_ignored(statuses) && i < *count; i++)
        to_fortran(&st[i], statuses + i * MPI_F_STATUS_SIZE);
    free(st);
}
ALIASES(mpi_testall, MPI_TESTALL, (F * count, F *reqs, F *flag, F *statuses, F *ierr))
