/* Communicator creation: each wrapper gives the new communicator its agreed id. */
#include "netsens_pmpi.h"

#define CHILD_WRAPPER(NAME, PARAMS, ARGS, PARENT, CHILD)                                   \
    int MPI_##NAME PARAMS                                                                   \
    {                                                                                       \
        NS_ENTER(STAT_CALLS, "MPI_" #NAME);                                                 \
        int rc = PMPI_##NAME ARGS;                                                          \
        if (rc == MPI_SUCCESS) ns_comm_child(PARENT, CHILD);                                \
        NS_LEAVE();                                                                         \
        return rc;                                                                          \
    }

CHILD_WRAPPER(Comm_dup, (MPI_Comm comm, MPI_Comm *out), (comm, out), comm, out)
CHILD_WRAPPER(Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm *out),
              (comm, color, key, out), comm, out)
CHILD_WRAPPER(Comm_split_type, (MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *out),
              (comm, type, key, info, out), comm, out)
CHILD_WRAPPER(Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm *out),
              (comm, group, out), comm, out)
CHILD_WRAPPER(Comm_create_group, (MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *out),
              (comm, group, tag, out), comm, out)
CHILD_WRAPPER(Cart_create,
              (MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder,
               MPI_Comm *out),
              (comm, ndims, dims, periods, reorder, out), comm, out)
CHILD_WRAPPER(Cart_sub, (MPI_Comm comm, const int remain[], MPI_Comm *out), (comm, remain, out),
              comm, out)
CHILD_WRAPPER(Graph_create,
              (MPI_Comm comm, int nnodes, const int index[], const int edges[], int reorder,
               MPI_Comm *out),
              (comm, nnodes, index, edges, reorder, out), comm, out)
CHILD_WRAPPER(Dist_graph_create_adjacent,
              (MPI_Comm comm, int indegree, const int sources[], const int sourceweights[],
               int outdegree, const int destinations[], const int destweights[], MPI_Info info,
               int reorder, MPI_Comm *out),
              (comm, indegree, sources, sourceweights, outdegree, destinations, destweights,
               info, reorder, out),
              comm, out)

/* The two groups derive ids from different parents; they combine both. */
int MPI_Intercomm_create(MPI_Comm local, int local_leader, MPI_Comm peer, int remote_leader,
                         int tag, MPI_Comm *out)
{
    NS_ENTER(STAT_CALLS, "MPI_Intercomm_create");
    int rc = PMPI_Intercomm_create(local, local_leader, peer, remote_leader, tag, out);
    if (rc == MPI_SUCCESS) ns_comm_child_inter(local, out);
    NS_LEAVE();
    return rc;
}

/* Both groups see the merged communicator as a child of their intercommunicator. */
CHILD_WRAPPER(Intercomm_merge, (MPI_Comm inter, int high, MPI_Comm *out), (inter, high, out),
              inter, out)
