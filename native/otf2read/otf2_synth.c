/* A synthetic OTF2 archive, for netsens-trace's tests and benchmark: `ranks` ranks,
 * each repeating `iterations` times: `compute_ns` of CPU, then MPI_Sendrecv with its
 * right neighbour (an MpiIsend of `bytes` to rank+1, an MpiRecv from rank-1 and the
 * send's completion, inside one MPI_Sendrecv region); every `allreduce_every`
 * iterations (0: never) an MPI_Allreduce of 8 bytes on MPI_COMM_WORLD. Timestamps
 * in ns (timer resolution 10^9). `faults` makes bad traces for the tests: bit 0, rank 0
 * sends nothing (its right neighbour's receives have no sender); bit 1, rank 1 ends
 * with an MPI_Put (a call replay does not model); bit 2, every rank starts with a
 * 500 ns MPI_Comm_dup; bit 3, rank 1 ends inside an MPI_Sendrecv it entered and never
 * left (a run stopped while stuck). Not a fault: bit 4, each MPI_Sendrecv's Enter and
 * Leave carry the thread CPU time attribute (NS_OTF2_CPU_TIME), which advances by only
 * half of each compute (as if the rank had waited the other half for its core); bit 5,
 * the same attribute advancing by twice each compute (a CPU clock ahead of the wall
 * clock, which replay must report). */
#define _POSIX_C_SOURCE 200809L
#include "otf2_reader.h"
#include "otf2_synth.h"

#include <otf2/otf2.h>
#include <stdlib.h>

static OTF2_FlushType pre_flush(void *u, OTF2_FileType t, OTF2_LocationRef l, void *c, bool f)
{
    (void)u, (void)t, (void)l, (void)c, (void)f;
    return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *u, OTF2_FileType t, OTF2_LocationRef l)
{
    (void)u, (void)t, (void)l;
    return 0;
}

static const OTF2_FlushCallbacks flush = {.otf2_pre_flush = pre_flush, .otf2_post_flush = post_flush};

OTF2_Archive *ns_otf2_synth_open(const char *dir, const char *creator)
{
    OTF2_Archive *a = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024,
                                        4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX,
                                        OTF2_COMPRESSION_NONE);
    if (a == NULL) return NULL;
    OTF2_Archive_SetFlushCallbacks(a, &flush, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(a);
    OTF2_Archive_SetCreator(a, creator);
    OTF2_Archive_OpenEvtFiles(a);
    return a;
}

int ns_otf2_synth(const char *dir, uint32_t ranks, uint64_t iterations, uint64_t compute_ns,
                  uint64_t bytes, uint64_t allreduce_every, uint32_t faults)
{
    OTF2_Archive *a = ns_otf2_synth_open(dir, "netsens-pmpi"); /* netsens's conventions */
    if (a == NULL) return -1;
    uint64_t end = 0;
    OTF2_AttributeList *attrs = OTF2_AttributeList_New();
    bool with_cpu = faults & (16 | 32);
    uint64_t cpu_per_ns = faults & 32 ? 2000 : 500;
    for (uint32_t r = 0; r < ranks; r++) {
        OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(a, r);
        uint64_t t = 0, cpu_ps = 0;
        if (faults & 4) {
            OTF2_EvtWriter_Enter(w, NULL, 0, 3);
            OTF2_EvtWriter_Leave(w, NULL, 500, 3);
            t = 500;
        }
        for (uint64_t i = 0; i < iterations; i++) {
            t += compute_ns;
            cpu_ps += compute_ns * cpu_per_ns;
            if (with_cpu) OTF2_AttributeList_AddUint64(attrs, 0, cpu_ps);
            OTF2_EvtWriter_Enter(w, with_cpu ? attrs : NULL, t, 0);
            bool silent = (faults & 1) && r == 0;
            if (!silent) OTF2_EvtWriter_MpiIsend(w, NULL, t, (r + 1) % ranks, 0, 0, bytes, i);
            OTF2_EvtWriter_MpiRecv(w, NULL, t + 1, (r + ranks - 1) % ranks, 0, 0, bytes);
            if (!silent) OTF2_EvtWriter_MpiIsendComplete(w, NULL, t + 2, i);
            t += 3;
            cpu_ps += 3000;
            if (with_cpu) OTF2_AttributeList_AddUint64(attrs, 0, cpu_ps);
            OTF2_EvtWriter_Leave(w, with_cpu ? attrs : NULL, t, 0);
            if (allreduce_every != 0 && (i + 1) % allreduce_every == 0) {
                OTF2_EvtWriter_Enter(w, NULL, t, 1);
                OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, t);
                OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, t + 1, OTF2_COLLECTIVE_OP_ALLREDUCE,
                                                0, 0, 8, 8);
                t += 2;
                OTF2_EvtWriter_Leave(w, NULL, t, 1);
            }
        }
        if ((faults & 8) && r == 1) OTF2_EvtWriter_Enter(w, NULL, t + 1, 0); /* never left */
        if ((faults & 2) && r == 1) {
            OTF2_EvtWriter_Enter(w, NULL, t + 1, 2);
            OTF2_EvtWriter_Leave(w, NULL, t + 2, 2);
            t += 2;
        }
        if (t > end) end = t;
        OTF2_Archive_CloseEvtWriter(a, w);
    }
    OTF2_AttributeList_Delete(attrs);
    OTF2_Archive_CloseEvtFiles(a);
    OTF2_GlobalDefWriter *d = OTF2_Archive_GetGlobalDefWriter(a);
    OTF2_GlobalDefWriter_WriteClockProperties(d, 1000000000ULL, 0, end + 1,
                                              OTF2_UNDEFINED_TIMESTAMP);
    OTF2_GlobalDefWriter_WriteString(d, 0, "");
    OTF2_GlobalDefWriter_WriteString(d, 1, "MPI_Sendrecv");
    OTF2_GlobalDefWriter_WriteString(d, 2, "MPI_Allreduce");
    OTF2_GlobalDefWriter_WriteString(d, 3, "rank");
    OTF2_GlobalDefWriter_WriteString(d, 4, "MPI_COMM_WORLD");
    OTF2_GlobalDefWriter_WriteString(d, 5, "MPI_Put");
    OTF2_GlobalDefWriter_WriteString(d, 6, "MPI_Comm_dup");
    if (with_cpu) {
        OTF2_GlobalDefWriter_WriteString(d, 7, NS_OTF2_CPU_TIME);
        OTF2_GlobalDefWriter_WriteAttribute(d, 0, 7, 0, OTF2_TYPE_UINT64);
    }
    OTF2_GlobalDefWriter_WriteRegion(d, 3, 6, 6, 0, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_MPI,
                                     OTF2_REGION_FLAG_NONE, 0, 0, 0);
    for (uint32_t k = 0; k < 2; k++)
        OTF2_GlobalDefWriter_WriteRegion(d, k, k + 1, k + 1, 0, OTF2_REGION_ROLE_FUNCTION,
                                         OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteRegion(d, 2, 5, 5, 0, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_MPI,
                                     OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(d, 0, 3, 3, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    uint64_t *members = malloc(sizeof(uint64_t) * (ranks ? ranks : 1));
    uint64_t per_rank = iterations * 5 + (allreduce_every ? iterations / allreduce_every * 4 : 0);
    for (uint32_t r = 0; r < ranks; r++) {
        members[r] = r;
        OTF2_GlobalDefWriter_WriteLocationGroup(d, r, 3, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                OTF2_UNDEFINED_LOCATION_GROUP);
        OTF2_GlobalDefWriter_WriteLocation(d, r, 3, OTF2_LOCATION_TYPE_CPU_THREAD, per_rank, r);
    }
    OTF2_GlobalDefWriter_WriteGroup(d, 0, 4, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, ranks, members);
    OTF2_GlobalDefWriter_WriteGroup(d, 1, 4, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, ranks, members);
    OTF2_GlobalDefWriter_WriteComm(d, 0, 4, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    free(members);
    return OTF2_Archive_Close(a) == OTF2_SUCCESS ? 0 : -1;
}
