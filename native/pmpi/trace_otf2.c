/* Trace mode: world rank 0 writes every rank's records as one OTF2 archive
 * (<NETSENS_TRACE_DIR>/traces.otf2), serially, one event location per MPI rank.
 * Timestamps are picoseconds on rank 0's clock (timer resolution 10^12 per second). */
#include "trace.h"

#include <otf2/otf2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int global_region(const char ***names, int *n, const char *name)
{
    for (int i = 0; i < *n; i++)
        if (strcmp((*names)[i], name) == 0) return i;
    *names = realloc(*names, sizeof(char *) * (size_t)(*n + 1));
    (*names)[*n] = name;
    return (*n)++;
}

/* A communicator's key in the archive: its id (comm_ids.c), which the disjoint
 * communicators of one MPI_Comm_split share, told apart by its first member. */
uint64_t ns_trace_comm_key(uint64_t id, int first_world_rank)
{
    return id ^ ((uint64_t)(first_world_rank + 1) * 0x9e3779b97f4a7c15ULL);
}

static OTF2_FlushType pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc,
                                void *caller, bool final)
{
    (void)user, (void)type, (void)loc, (void)caller, (void)final;
    return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc)
{
    (void)user, (void)type, (void)loc;
    return 0;
}

static const OTF2_FlushCallbacks flush_callbacks = {.otf2_pre_flush = pre_flush,
                                                    .otf2_post_flush = post_flush};

static uint32_t comm_ref(const struct trace_comm *comms, int ncomms, uint64_t id)
{
    for (int i = 0; i < ncomms; i++)
        if (comms[i].id == id) return (uint32_t)i;
    return OTF2_UNDEFINED_COMM;
}

/* The attribute of every Enter and Leave: the rank's thread CPU time (ps) then. */
enum { CPU_TIME_ATTRIBUTE = 0 };

static void write_events(OTF2_EvtWriter *w, const struct trace_rec *r, int64_t n,
                         const struct trace_comm *comms, int ncomms)
{
    OTF2_RegionRef open = 0;
    OTF2_AttributeList *cpu = OTF2_AttributeList_New(); /* emptied by every write */
    for (int64_t i = 0; i < n; i++, r++) {
        OTF2_TimeStamp t = (OTF2_TimeStamp)r->time;
        uint32_t comm = comm_ref(comms, ncomms, r->comm);
        switch ((enum trace_type)r->type) {
        case TR_ENTER:
            open = r->region;
            if (r->cpu != NS_TRACE_NO_CPU)
                OTF2_AttributeList_AddUint64(cpu, CPU_TIME_ATTRIBUTE, (uint64_t)r->cpu);
            OTF2_EvtWriter_Enter(w, cpu, t, open);
            break;
        case TR_LEAVE:
            if (r->cpu != NS_TRACE_NO_CPU)
                OTF2_AttributeList_AddUint64(cpu, CPU_TIME_ATTRIBUTE, (uint64_t)r->cpu);
            OTF2_EvtWriter_Leave(w, cpu, t, open);
            break;
        case TR_SEND:
            OTF2_EvtWriter_MpiSend(w, NULL, t, (uint32_t)r->peer, comm, (uint32_t)r->tag,
                                   (uint64_t)r->bytes);
            break;
        case TR_ISEND:
            OTF2_EvtWriter_MpiIsend(w, NULL, t, (uint32_t)r->peer, comm, (uint32_t)r->tag,
                                    (uint64_t)r->bytes, r->req);
            break;
        case TR_ISEND_DONE:
            OTF2_EvtWriter_MpiIsendComplete(w, NULL, t, r->req);
            break;
        case TR_RECV:
            OTF2_EvtWriter_MpiRecv(w, NULL, t, (uint32_t)r->peer, comm, (uint32_t)r->tag,
                                   (uint64_t)r->bytes);
            break;
        case TR_IRECV_POST:
            OTF2_EvtWriter_MpiIrecvRequest(w, NULL, t, r->req);
            break;
        case TR_IRECV_DONE:
            OTF2_EvtWriter_MpiIrecv(w, NULL, t, (uint32_t)r->peer, comm, (uint32_t)r->tag,
                                    (uint64_t)r->bytes, r->req);
            break;
        case TR_COLL_BEGIN:
            OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, t);
            break;
        case TR_NBC_POST:
            OTF2_EvtWriter_NonBlockingCollectiveRequest(w, NULL, t, r->req);
            break;
        case TR_NBC_DONE:
            OTF2_EvtWriter_NonBlockingCollectiveComplete(w, NULL, t, r->coll, comm,
                                                         (uint32_t)r->peer, (uint64_t)r->bytes,
                                                         (uint64_t)r->bytes2, r->req);
            break;
        case TR_COLL_END:
            OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, t, r->coll, comm, (uint32_t)r->peer,
                                            (uint64_t)r->bytes, (uint64_t)r->bytes2);
            break;
        }
    }
    OTF2_AttributeList_Delete(cpu);
}

/* The rank's location property `name` (string `s`): a tracer gap, if measured. */
static void write_gap(OTF2_GlobalDefWriter *d, uint64_t rank, uint32_t s, int64_t ps)
{
    if (ps == NS_TRACE_NO_CPU) return;
    OTF2_AttributeValue v;
    v.uint64 = (uint64_t)(ps > 0 ? ps : 0);
    OTF2_GlobalDefWriter_WriteLocationProperty(d, rank, s, OTF2_TYPE_UINT64, v);
}

static void write_definitions(OTF2_GlobalDefWriter *d, int nranks, const int64_t *counts,
                              struct trace_rec **recs, const struct trace_comm *comms,
                              int ncomms, const char **regions, int nregions,
                              const struct tracer_gap *gaps)
{
    ps_t first = INT64_MAX, last = 0;
    for (int r = 0; r < nranks; r++)
        if (counts[r] > 0) {
            if (recs[r][0].time < first) first = recs[r][0].time;
            if (recs[r][counts[r] - 1].time > last) last = recs[r][counts[r] - 1].time;
        }
    if (first > last) first = last;
    OTF2_GlobalDefWriter_WriteClockProperties(d, 1000000000000ULL, (uint64_t)first,
                                              (uint64_t)(last - first + 1),
                                              OTF2_UNDEFINED_TIMESTAMP);
    /* strings: 0 "", 1 "machine", 2 "node", 3 the world's locations, 4-5 the CPU time
     * attribute, 6-7 the tracer gap properties, then regions, ranks, comms */
    uint32_t s = 0;
    OTF2_GlobalDefWriter_WriteString(d, s++, "");
    OTF2_GlobalDefWriter_WriteString(d, s++, "machine");
    OTF2_GlobalDefWriter_WriteString(d, s++, "node");
    OTF2_GlobalDefWriter_WriteString(d, s++, "MPI_COMM_WORLD locations");
    OTF2_GlobalDefWriter_WriteString(d, s, NS_OTF2_CPU_TIME);
    OTF2_GlobalDefWriter_WriteString(d, s + 1, "CPU time of the rank's thread (ps)");
    OTF2_GlobalDefWriter_WriteAttribute(d, CPU_TIME_ATTRIBUTE, s, s + 1, OTF2_TYPE_UINT64);
    s += 2;
    const uint32_t gap_wall = s++, gap_cpu = s++;
    OTF2_GlobalDefWriter_WriteString(d, gap_wall, NS_OTF2_TRACER_GAP_WALL);
    OTF2_GlobalDefWriter_WriteString(d, gap_cpu, NS_OTF2_TRACER_GAP_CPU);
    for (int i = 0; i < nregions; i++) {
        OTF2_GlobalDefWriter_WriteString(d, s, regions[i]);
        OTF2_GlobalDefWriter_WriteRegion(d, (uint32_t)i, s, s, 0, OTF2_REGION_ROLE_FUNCTION,
                                         OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, 0, 0, 0);
        s++;
    }
    OTF2_GlobalDefWriter_WriteSystemTreeNode(d, 0, 1, 2, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    char name[64];
    for (int r = 0; r < nranks; r++) {
        snprintf(name, sizeof name, "MPI rank %d", r);
        OTF2_GlobalDefWriter_WriteString(d, s, name);
        OTF2_GlobalDefWriter_WriteLocationGroup(d, (uint32_t)r, s, OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                                0, OTF2_UNDEFINED_LOCATION_GROUP);
        OTF2_GlobalDefWriter_WriteLocation(d, (uint64_t)r, s, OTF2_LOCATION_TYPE_CPU_THREAD,
                                           (uint64_t)counts[r], (uint32_t)r);
        if (gaps != NULL) {
            write_gap(d, (uint64_t)r, gap_wall, gaps[r].wall_ps);
            write_gap(d, (uint64_t)r, gap_cpu, gaps[r].cpu_ps);
        }
        s++;
    }
    uint64_t *members = malloc(sizeof(uint64_t) * (size_t)(nranks > 0 ? nranks : 1));
    for (int r = 0; r < nranks; r++) members[r] = (uint64_t)r;
    OTF2_GlobalDefWriter_WriteGroup(d, 0, 3, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, (uint32_t)nranks, members);
    free(members);
    for (int c = 0; c < ncomms; c++) {
        const struct trace_comm *comm = &comms[c];
        uint64_t *world = malloc(sizeof(uint64_t) * (size_t)(comm->size > 0 ? comm->size : 1));
        for (int64_t i = 0; i < comm->size; i++) world[i] = (uint64_t)comm->world[i];
        if (comm->id == ns_trace_comm_key(1, 0))
            snprintf(name, sizeof name, "MPI_COMM_WORLD");
        else
            snprintf(name, sizeof name, "comm %016llx", (unsigned long long)comm->id);
        OTF2_GlobalDefWriter_WriteString(d, s, name);
        OTF2_GlobalDefWriter_WriteGroup(d, (uint32_t)c + 1, s, OTF2_GROUP_TYPE_COMM_GROUP,
                                        OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                        (uint32_t)comm->size, world);
        OTF2_GlobalDefWriter_WriteComm(d, (uint32_t)c, s, (uint32_t)c + 1, OTF2_UNDEFINED_COMM,
                                       OTF2_COMM_FLAG_NONE);
        s++;
        free(world);
    }
}

int ns_trace_write_otf2(const char *dir, int nranks, struct trace_rec **recs,
                        const int64_t *counts, struct trace_comm *comms, int ncomms,
                        const char **regions, int nregions, const struct tracer_gap *gaps)
{
    OTF2_Archive *a = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024,
                                        4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX,
                                        OTF2_COMPRESSION_NONE);
    if (a == NULL) return -1;
    OTF2_Archive_SetFlushCallbacks(a, &flush_callbacks, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(a);
    OTF2_Archive_SetCreator(a, "netsens-pmpi");
    OTF2_Archive_OpenEvtFiles(a);
    for (int r = 0; r < nranks; r++) {
        OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(a, (OTF2_LocationRef)r);
        write_events(w, recs[r], counts[r], comms, ncomms);
        OTF2_Archive_CloseEvtWriter(a, w);
    }
    OTF2_Archive_CloseEvtFiles(a);
    OTF2_Archive_OpenDefFiles(a);
    for (int r = 0; r < nranks; r++) {
        OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(a, (OTF2_LocationRef)r);
        OTF2_Archive_CloseDefWriter(a, dw);
    }
    OTF2_Archive_CloseDefFiles(a);
    OTF2_GlobalDefWriter *d = OTF2_Archive_GetGlobalDefWriter(a);
    write_definitions(d, nranks, counts, recs, comms, ncomms, regions, nregions, gaps);
    return OTF2_Archive_Close(a) == OTF2_SUCCESS ? 0 : -1;
}

int ns_trace_assemble(const char *dir, int p, struct trace_rec *all, const int64_t *rec_counts,
                      char *names, const int64_t *name_counts, int64_t *all_comms,
                      const int64_t *comm_counts, const struct tracer_gap *gaps)
{
    struct trace_rec **per_rank = malloc(sizeof *per_rank * (size_t)p);
    const char **global = NULL;
    int nglobal = 0;
    struct trace_rec *r = all;
    char *name = names;
    for (int rank = 0; rank < p; rank++) {
        per_rank[rank] = r;
        /* this rank's region ids, by its names, to the archive's */
        int local_ids[NS_TRACE_MAX_REGIONS], nlocal = 0;
        char *end = name + name_counts[rank];
        for (; name < end && nlocal < NS_TRACE_MAX_REGIONS; name += strlen(name) + 1)
            local_ids[nlocal++] = global_region(&global, &nglobal, name);
        for (int64_t i = 0; i < rec_counts[rank]; i++)
            if (r[i].type == TR_ENTER) r[i].region = (uint16_t)local_ids[r[i].region];
        r += rec_counts[rank];
    }
    struct trace_comm *merged = NULL;
    int nmerged = 0;
    int64_t total = 0;
    for (int rank = 0; rank < p; rank++) total += comm_counts[rank];
    for (int64_t i = 0; i < total; i += 2 + all_comms[i + 1]) {
        bool known = false;
        for (int k = 0; k < nmerged && !known; k++) known = merged[k].id == (uint64_t)all_comms[i];
        if (known) continue;
        merged = realloc(merged, sizeof *merged * (size_t)(nmerged + 1));
        merged[nmerged++] = (struct trace_comm){
            .id = (uint64_t)all_comms[i], .size = all_comms[i + 1], .world = &all_comms[i + 2]};
    }
    int rc = ns_trace_write_otf2(dir, p, per_rank, rec_counts, merged, nmerged, global, nglobal, gaps);
    free(per_rank);
    free(global);
    free(merged);
    return rc;
}
