/* Communicator ids that every member agrees on, cached as an attribute: the world is
 * 1, the self communicator 2, a child's id mixes its parent's id with the parent's
 * count of children so far (collective creation calls are ordered on the parent).
 * The same attribute caches the member -> world rank table and the private
 * duplicate on which collectives are expanded. */
#include "netsens_pmpi.h"

#include <stdlib.h>

struct comm_info {
    uint64_t id;
    uint64_t children;
    MPI_Comm coll;   /* private duplicate for expanded collectives, or MPI_COMM_NULL */
    int *world_of;   /* local group -> world rank */
    int *remote_of;  /* remote group (intercommunicators) -> world rank */
};

MPI_Comm ns_shadow_comm = MPI_COMM_NULL;
bool ns_finalizing;
static int keyval = MPI_KEYVAL_INVALID;

static int free_info(MPI_Comm comm, int key, void *value, void *extra)
{
    (void)comm, (void)key, (void)extra;
    struct comm_info *info = value;
    if (info->coll != MPI_COMM_NULL && !ns_finalizing) PMPI_Comm_free(&info->coll);
    free(info->world_of);
    free(info->remote_of);
    free(info);
    return MPI_SUCCESS;
}

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static int *world_table(MPI_Group group)
{
    int n;
    PMPI_Group_size(group, &n);
    int *ranks = malloc(sizeof(int) * (size_t)n), *world = malloc(sizeof(int) * (size_t)n);
    MPI_Group world_group;
    PMPI_Comm_group(MPI_COMM_WORLD, &world_group);
    for (int i = 0; i < n; i++) ranks[i] = i;
    PMPI_Group_translate_ranks(group, n, ranks, world_group, world);
    PMPI_Group_free(&world_group);
    free(ranks);
    return world;
}

static struct comm_info *attach(MPI_Comm comm, uint64_t id)
{
    struct comm_info *info = calloc(1, sizeof *info);
    info->id = id;
    info->coll = MPI_COMM_NULL;
    MPI_Group group;
    PMPI_Comm_group(comm, &group);
    info->world_of = world_table(group);
    PMPI_Group_free(&group);
    int inter = 0;
    PMPI_Comm_test_inter(comm, &inter);
    if (inter) {
        PMPI_Comm_remote_group(comm, &group);
        info->remote_of = world_table(group);
        PMPI_Group_free(&group);
    }
    PMPI_Comm_set_attr(comm, keyval, info);
    return info;
}

static struct comm_info *info_of(MPI_Comm comm)
{
    struct comm_info *info;
    int found = 0;
    PMPI_Comm_get_attr(comm, keyval, &info, &found);
    /* A communicator made by a call the library does not wrap: id 0 (shared by all
     * such communicators, so their stamps may mix; see docs/reference/pmpi.md). */
    return found ? info : attach(comm, 0);
}

void ns_comm_ids_init(void)
{
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_info, &keyval, NULL);
    attach(MPI_COMM_WORLD, 1);
    attach(MPI_COMM_SELF, 2);
    PMPI_Comm_dup(MPI_COMM_WORLD, &ns_shadow_comm);
}

uint64_t ns_comm_id(MPI_Comm comm) { return info_of(comm)->id; }

void ns_comm_child(MPI_Comm parent, MPI_Comm *child)
{
    struct comm_info *info = info_of(parent);
    uint64_t id = mix(info->id ^ mix(++info->children));
    if (child != NULL && *child != MPI_COMM_NULL) attach(*child, id);
}

void ns_comm_child_inter(MPI_Comm local, MPI_Comm *child)
{
    struct comm_info *info = info_of(local);
    uint64_t mine = mix(info->id ^ mix(++info->children)), theirs = 0;
    if (*child == MPI_COMM_NULL) return;
    PMPI_Allreduce(&mine, &theirs, 1, MPI_UINT64_T, MPI_MAX, *child); /* the remote group's */
    attach(*child, mix(mine ^ theirs));
}

MPI_Comm ns_coll_comm(MPI_Comm comm)
{
    struct comm_info *info = info_of(comm);
    if (info->coll == MPI_COMM_NULL) {
        PMPI_Comm_dup(comm, &info->coll);
        attach(info->coll, mix(info->id ^ 0x636f6c6cULL));
    }
    return info->coll;
}

/* The world rank of a point-to-point peer (on an intercommunicator, of the remote group). */
int ns_world_rank_of(MPI_Comm comm, int rank)
{
    if (comm == MPI_COMM_WORLD) return rank;
    struct comm_info *info = info_of(comm);
    return info->remote_of != NULL ? info->remote_of[rank] : info->world_of[rank];
}
