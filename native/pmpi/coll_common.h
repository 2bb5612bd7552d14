/* Helpers shared by the expanded collectives. */
#ifndef NETSENS_COLL_COMMON_H
#define NETSENS_COLL_COMMON_H

#include "netsens_pmpi.h"

/* Whether a collective on `comm` is expanded into point-to-point messages. */
bool ns_expand(MPI_Comm comm);
/* A buffer for `count` elements of `dt` (free with ns_free_typed). */
void *ns_alloc_typed(int count, MPI_Datatype dt);
void ns_free_typed(void *buf, MPI_Datatype dt);
/* Copies typed data locally (no message is injected or counted). */
void ns_copy(const void *src, int scount, MPI_Datatype sdt, void *dst, int rcount,
             MPI_Datatype rdt);
/* Address of element `index` of a buffer of `dt`. */
void *ns_at(const void *buf, int64_t index, MPI_Datatype dt);

/* The algorithms on the private communicator `cc` (coll_move.c, coll_reduce.c). */
int ns_reduce_binomial(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                       int root, MPI_Comm cc);
int ns_scatterv_linear(const void *sbuf, const int counts[], const int displs[],
                       MPI_Datatype sdt, void *rbuf, int rcount, MPI_Datatype rdt, int root,
                       MPI_Comm cc);

#endif
