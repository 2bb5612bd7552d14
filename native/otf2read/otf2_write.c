/* An OTF2 archive from a list of events in the reader's own form (struct ns_otf2_event,
 * native/otf2read/otf2_reader.h), so that a test can write a trace of any shape and
 * derive its replay by hand. Timestamps are picoseconds (timer resolution 10^12);
 * region r is named names[r]; communicator 0 is the world, 1 a duplicate. The events of each rank
 * come in the rank's order (event i belongs to rank ranks_of[i]). An ENTER or LEAVE
 * whose cpu_ps is not NS_NO_CPU_TIME carries the thread CPU time attribute. With
 * `gaps` (wall and CPU ps per rank, NS_NO_CPU_TIME for none), each rank's location
 * carries the tracer gap properties netsens's tracer writes. */
#define _POSIX_C_SOURCE 200809L
#include "otf2_reader.h"
#include "otf2_synth.h"

#include <otf2/otf2.h>
#include <stdlib.h>

/* One event; -1 for a kind this writer does not write. */
static int write_event(OTF2_EvtWriter *w, OTF2_AttributeList *attrs,
                       const struct ns_otf2_event *e)
{
    OTF2_AttributeList *a = NULL;
    if ((e->kind == NS_ENTER || e->kind == NS_LEAVE) && e->cpu_ps != NS_NO_CPU_TIME) {
        OTF2_AttributeList_AddUint64(attrs, 0, e->cpu_ps);
        a = attrs;
    }
    uint64_t t = e->time_ps;
    switch (e->kind) {
    case NS_ENTER: OTF2_EvtWriter_Enter(w, a, t, e->region); break;
    case NS_LEAVE: OTF2_EvtWriter_Leave(w, a, t, e->region); break;
    case NS_SEND: OTF2_EvtWriter_MpiSend(w, NULL, t, e->peer, e->comm, e->tag, e->bytes); break;
    case NS_ISEND:
        OTF2_EvtWriter_MpiIsend(w, NULL, t, e->peer, e->comm, e->tag, e->bytes, e->req);
        break;
    case NS_ISEND_DONE: OTF2_EvtWriter_MpiIsendComplete(w, NULL, t, e->req); break;
    case NS_RECV: OTF2_EvtWriter_MpiRecv(w, NULL, t, e->peer, e->comm, e->tag, e->bytes); break;
    case NS_IRECV_POST: OTF2_EvtWriter_MpiIrecvRequest(w, NULL, t, e->req); break;
    case NS_IRECV_DONE:
        OTF2_EvtWriter_MpiIrecv(w, NULL, t, e->peer, e->comm, e->tag, e->bytes, e->req);
        break;
    case NS_COLL:
        OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, t);
        OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, t, e->coll, e->comm, e->peer, e->bytes,
                                        e->bytes2);
        break;
    default: return -1;
    }
    return 0;
}

int ns_otf2_write(const char *dir, uint32_t ranks, uint32_t nnames, const char *const *names,
                  uint64_t n, const struct ns_otf2_event *events, const uint32_t *ranks_of,
                  const uint64_t *gaps)
{
    /* Written as netsens's own tracer writes (its conventions, not Score-P's). */
    OTF2_Archive *arch = ns_otf2_synth_open(dir, "netsens-pmpi");
    if (arch == NULL) return -1;
    OTF2_AttributeList *attrs = OTF2_AttributeList_New();
    uint64_t end = 0, *counts = calloc(ranks ? ranks : 1, sizeof(uint64_t));
    int rc = counts == NULL ? -1 : 0;
    for (uint32_t r = 0; r < ranks && rc == 0; r++) {
        OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(arch, r);
        for (uint64_t i = 0; i < n && rc == 0; i++) {
            if (ranks_of[i] != r) continue;
            rc = write_event(w, attrs, &events[i]);
            counts[r]++;
            if (events[i].time_ps > end) end = events[i].time_ps;
        }
        OTF2_Archive_CloseEvtWriter(arch, w);
    }
    OTF2_AttributeList_Delete(attrs);
    OTF2_Archive_CloseEvtFiles(arch);
    OTF2_GlobalDefWriter *d = OTF2_Archive_GetGlobalDefWriter(arch);
    OTF2_GlobalDefWriter_WriteClockProperties(d, 1000000000000ULL, 0, end + 1,
                                              OTF2_UNDEFINED_TIMESTAMP);
    /* Strings: 0 "", 1 "rank", 2 "MPI_COMM_WORLD", 3 the attribute, 4.. the regions,
     * then the tracer gap properties' names. */
    OTF2_GlobalDefWriter_WriteString(d, 0, "");
    OTF2_GlobalDefWriter_WriteString(d, 1, "rank");
    OTF2_GlobalDefWriter_WriteString(d, 2, "MPI_COMM_WORLD");
    /* The attribute only where some event carries it (libotf2 reports every event of
     * a defined attribute that lacks it). */
    bool with_cpu = false;
    for (uint64_t i = 0; i < n; i++)
        with_cpu |= (events[i].kind == NS_ENTER || events[i].kind == NS_LEAVE) &&
                    events[i].cpu_ps != NS_NO_CPU_TIME;
    if (with_cpu) {
        OTF2_GlobalDefWriter_WriteString(d, 3, NS_OTF2_CPU_TIME);
        OTF2_GlobalDefWriter_WriteAttribute(d, 0, 3, 0, OTF2_TYPE_UINT64);
    }
    for (uint32_t k = 0; k < nnames; k++) {
        OTF2_GlobalDefWriter_WriteString(d, 4 + k, names[k]);
        OTF2_GlobalDefWriter_WriteRegion(d, k, 4 + k, 4 + k, 0, OTF2_REGION_ROLE_FUNCTION,
                                         OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, 0, 0, 0);
    }
    if (gaps != NULL) {
        OTF2_GlobalDefWriter_WriteString(d, 4 + nnames, NS_OTF2_TRACER_GAP_WALL);
        OTF2_GlobalDefWriter_WriteString(d, 5 + nnames, NS_OTF2_TRACER_GAP_CPU);
    }
    OTF2_GlobalDefWriter_WriteSystemTreeNode(d, 0, 1, 1, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    uint64_t *members = malloc(sizeof(uint64_t) * (ranks ? ranks : 1));
    for (uint32_t r = 0; r < ranks && members != NULL && counts != NULL; r++) {
        members[r] = r;
        OTF2_GlobalDefWriter_WriteLocationGroup(d, r, 1, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                OTF2_UNDEFINED_LOCATION_GROUP);
        OTF2_GlobalDefWriter_WriteLocation(d, r, 1, OTF2_LOCATION_TYPE_CPU_THREAD, counts[r], r);
        for (uint32_t clock = 0; gaps != NULL && clock < 2; clock++) {
            if (gaps[2 * r + clock] == NS_NO_CPU_TIME) continue;
            OTF2_AttributeValue v;
            v.uint64 = gaps[2 * r + clock];
            OTF2_GlobalDefWriter_WriteLocationProperty(d, r, 4 + nnames + clock, OTF2_TYPE_UINT64, v);
        }
    }
    if (members == NULL) rc = -1;
    if (rc == 0) {
        OTF2_GlobalDefWriter_WriteGroup(d, 0, 2, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                        OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, ranks, members);
        OTF2_GlobalDefWriter_WriteGroup(d, 1, 2, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                        OTF2_GROUP_FLAG_NONE, ranks, members);
        OTF2_GlobalDefWriter_WriteComm(d, 0, 2, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
        /* A duplicate of the world, as a library's private communicator. */
        OTF2_GlobalDefWriter_WriteComm(d, 1, 2, 1, 0, OTF2_COMM_FLAG_NONE);
    }
    free(members);
    free(counts);
    return OTF2_Archive_Close(arch) == OTF2_SUCCESS ? rc : -1;
}
