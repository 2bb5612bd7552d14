/* A small OTF2 archive in Score-P's conventions, for netsens-trace's tests: a 2.1 GHz
 * tick clock whose global offset lies far before the first event, ranks that start
 * 716 ms and 100 ms after it and leave MPI_Init together (at T0 = 800 ms), an OpenMP
 * thread, an accelerator stream and a metric location beside the MPI processes, MPI
 * ranks in another order than their locations, MPI_COMM_WORLD (no parent),
 * MPI_COMM_SELF and a split communicator that orders the two ranks the other way.
 * Times below are ns after the global offset; T0 = 800 ms.
 *
 *   rank 0: main; MPI_Init ... T0; MPI_Comm_split T0..+500; MPI_Send of 8 B (tag 7) to
 *           rank 1 at +3500..+4500; measurement off at +6500, on 5 ms later; an 8-byte
 *           MPI_Allreduce at +5 007 500 (or the variant's non-blocking form; recorded
 *           as Score-P counts it, 16 B sent and received on 2 ranks), one on
 *           MPI_COMM_SELF, MPI_Finalize.
 *   rank 1: main; MPI_Init ... T0; MPI_Comm_split T0..+500; MPI_Recv at +3500..+9000;
 *           a 2 ms trace buffer flush from +10 000; the allreduce at +2 011 000.
 *
 * `variant`: bit 0, the allreduce is MPI_Iallreduce with its request, 4000 ns of
 * compute, then MPI_Wait completing it (Score-P 8's records); bit 1, the same calls as
 * regions only, without request records; bit 2, no MPI at all: one process, its
 * master thread and 32 accelerator streams; bit 3, rank 1's MPI location is the
 * accelerator stream; bit 4, other calls real codes make: rank 0's send is a persistent
 * one (MPI_Send_init, MPI_Start, an unmatched MPI_Iprobe, MPI_Waitany), rank 1's
 * receive an MPI_Irecv, an unsuccessful MPI_Testsome and MPI_Waitsome, both at the
 * same times as the blocking calls; and before MPI_Finalize each rank calls
 * MPI_Comm_dup (500 ns) and exchanges 100 000 B with the other in
 * MPI_Sendrecv_replace (Score-P records its send as a blocking MpiSend); bit 5, rank
 * 0's OpenMP thread sends a message itself (MPI_THREAD_MULTIPLE). Returns 0 or -1. */
#define _POSIX_C_SOURCE 200809L
#include "otf2_synth.h"

#include <otf2/otf2.h>
#include <stdbool.h>
#include <stdint.h>

#define NS_SCOREP_NONBLOCKING 1u
#define NS_SCOREP_REGIONS_ONLY 2u
#define NS_SCOREP_NO_MPI 4u
#define NS_SCOREP_STREAM_RANK 8u
#define NS_SCOREP_OTHER_CALLS 16u
#define NS_SCOREP_THREAD_MPI 32u

static const uint64_t OFFSET = 7300000000000000ULL; /* ticks */
static const uint64_t T0 = 800000000;               /* ns */

enum {
    R_MAIN, R_INIT, R_SPLIT, R_SEND, R_RECV, R_ALLREDUCE, R_FINALIZE, R_FLUSH, R_IALLREDUCE,
    R_WAIT, R_OMP, R_KERNEL, R_SEND_INIT, R_START, R_IPROBE, R_WAITANY, R_IRECV, R_TESTSOME,
    R_WAITSOME, R_COMM_DUP, R_SENDRECV_REPLACE, NREGIONS
};
static const char *const region_names[NREGIONS] = {
    "main", "MPI_Init", "MPI_Comm_split", "MPI_Send", "MPI_Recv", "MPI_Allreduce",
    "MPI_Finalize", "TRACE BUFFER FLUSH", "MPI_Iallreduce", "MPI_Wait", "!$omp parallel",
    "cudaKernel", "MPI_Send_init", "MPI_Start", "MPI_Iprobe", "MPI_Waitany", "MPI_Irecv",
    "MPI_Testsome", "MPI_Waitsome", "MPI_Comm_dup", "MPI_Sendrecv_replace"};
static const OTF2_Paradigm region_paradigms[NREGIONS] = {
    OTF2_PARADIGM_COMPILER, OTF2_PARADIGM_MPI, OTF2_PARADIGM_MPI, OTF2_PARADIGM_MPI,
    OTF2_PARADIGM_MPI, OTF2_PARADIGM_MPI, OTF2_PARADIGM_MPI, OTF2_PARADIGM_MEASUREMENT_SYSTEM,
    OTF2_PARADIGM_MPI, OTF2_PARADIGM_MPI, OTF2_PARADIGM_OPENMP, OTF2_PARADIGM_CUDA,
    OTF2_PARADIGM_MPI, OTF2_PARADIGM_MPI, OTF2_PARADIGM_MPI, OTF2_PARADIGM_MPI, OTF2_PARADIGM_MPI,
    OTF2_PARADIGM_MPI, OTF2_PARADIGM_MPI, OTF2_PARADIGM_MPI, OTF2_PARADIGM_MPI};

/* Locations: the ranks' master threads (7 is rank 0, 3 rank 1), rank 0's OpenMP
 * thread, rank 1's accelerator stream and metric location. */
enum { L_RANK0 = 7, L_RANK1 = 3, L_THREAD = 9, L_STREAM = 11, L_METRIC = 12 };
enum { C_WORLD, C_SELF, C_SPLIT };
enum { REQ = 42 };

static OTF2_TimeStamp at(uint64_t ns)
{
    return OFFSET + ns * 21 / 10;
}


static void call(OTF2_EvtWriter *w, int region, uint64_t enter, uint64_t leave)
{
    OTF2_EvtWriter_Enter(w, NULL, at(enter), region);
    OTF2_EvtWriter_Leave(w, NULL, at(leave), region);
}

/* An 8-byte allreduce on `comm` from `t`, blocking or as the variant says; returns
 * the time its last call returns. */
static uint64_t allreduce(OTF2_EvtWriter *w, uint32_t variant, uint32_t comm, uint64_t t)
{
    const uint32_t none = OTF2_UNDEFINED_UINT32;
    if (comm == C_SELF || !(variant & (NS_SCOREP_NONBLOCKING | NS_SCOREP_REGIONS_ONLY))) {
        uint64_t end = comm == C_SELF ? t : t + 12500;
        OTF2_EvtWriter_Enter(w, NULL, at(t), R_ALLREDUCE);
        OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, at(t));
        /* Score-P's byte counts: the 8 bytes once per rank of the communicator */
        uint64_t bytes = comm == C_SELF ? 8 : 16;
        OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, at(end), OTF2_COLLECTIVE_OP_ALLREDUCE, comm,
                                        none, bytes, bytes);
        OTF2_EvtWriter_Leave(w, NULL, at(end), R_ALLREDUCE);
        return end;
    }
    bool records = variant & NS_SCOREP_NONBLOCKING;
    OTF2_EvtWriter_Enter(w, NULL, at(t), R_IALLREDUCE);
    if (records) OTF2_EvtWriter_NonBlockingCollectiveRequest(w, NULL, at(t + 100), REQ);
    OTF2_EvtWriter_Leave(w, NULL, at(t + 500), R_IALLREDUCE);
    OTF2_EvtWriter_Enter(w, NULL, at(t + 4500), R_WAIT);
    if (records)
        OTF2_EvtWriter_NonBlockingCollectiveComplete(w, NULL, at(t + 4900),
                                                     OTF2_COLLECTIVE_OP_ALLREDUCE, comm, none, 16,
                                                     16, REQ);
    OTF2_EvtWriter_Leave(w, NULL, at(t + 5000), R_WAIT);
    return t + 5000;
}

/* MPI_Comm_dup, then MPI_Sendrecv_replace of 100 000 B with `peer` (world), from `t`;
 * returns when it ends. */
static uint64_t dup_and_exchange(OTF2_EvtWriter *w, uint32_t peer, uint64_t t)
{
    call(w, R_COMM_DUP, t, t + 500);
    OTF2_EvtWriter_Enter(w, NULL, at(t + 500), R_SENDRECV_REPLACE);
    OTF2_EvtWriter_MpiSend(w, NULL, at(t + 600), peer, C_WORLD, 9, 100000);
    OTF2_EvtWriter_MpiRecv(w, NULL, at(t + 900000), peer, C_WORLD, 9, 100000);
    OTF2_EvtWriter_Leave(w, NULL, at(t + 900000), R_SENDRECV_REPLACE);
    return t + 900000;
}

static void rank0(OTF2_EvtWriter *w, uint32_t variant)
{
    uint64_t start = 716000000;
    OTF2_EvtWriter_Enter(w, NULL, at(start), R_MAIN);
    call(w, R_INIT, start + 10000, T0);
    call(w, R_SPLIT, T0, T0 + 500);
    if (variant & NS_SCOREP_OTHER_CALLS) {
        call(w, R_SEND_INIT, T0 + 3500, T0 + 3500);
        OTF2_EvtWriter_Enter(w, NULL, at(T0 + 3500), R_START);
        OTF2_EvtWriter_MpiIsend(w, NULL, at(T0 + 3550), 0, C_SPLIT, 7, 8, 77);
        OTF2_EvtWriter_Leave(w, NULL, at(T0 + 3600), R_START);
        call(w, R_IPROBE, T0 + 3600, T0 + 3700);
        OTF2_EvtWriter_Enter(w, NULL, at(T0 + 3700), R_WAITANY);
        OTF2_EvtWriter_MpiIsendComplete(w, NULL, at(T0 + 4400), 77);
        OTF2_EvtWriter_Leave(w, NULL, at(T0 + 4500), R_WAITANY);
    } else {
        OTF2_EvtWriter_Enter(w, NULL, at(T0 + 3500), R_SEND);
        OTF2_EvtWriter_MpiSend(w, NULL, at(T0 + 3600), 0, C_SPLIT, 7, 8); /* rank 0 of the split: world 1 */
        OTF2_EvtWriter_Leave(w, NULL, at(T0 + 4500), R_SEND);
    }
    OTF2_EvtWriter_MeasurementOnOff(w, NULL, at(T0 + 6500), OTF2_MEASUREMENT_OFF);
    OTF2_EvtWriter_MeasurementOnOff(w, NULL, at(T0 + 5006500), OTF2_MEASUREMENT_ON);
    uint64_t t = allreduce(w, variant, C_WORLD, T0 + 5007500);
    t = allreduce(w, variant, C_SELF, t);
    if (variant & NS_SCOREP_OTHER_CALLS) t = dup_and_exchange(w, 1, t);
    call(w, R_FINALIZE, t, t + 1000);
    OTF2_EvtWriter_Leave(w, NULL, at(t + 1000), R_MAIN);
}

static void rank1(OTF2_EvtWriter *w, uint32_t variant)
{
    uint64_t start = 100000000;
    OTF2_EvtWriter_Enter(w, NULL, at(start), R_MAIN);
    call(w, R_INIT, start + 10000, T0);
    call(w, R_SPLIT, T0, T0 + 500);
    if (variant & NS_SCOREP_OTHER_CALLS) {
        OTF2_EvtWriter_Enter(w, NULL, at(T0 + 3500), R_IRECV);
        OTF2_EvtWriter_MpiIrecvRequest(w, NULL, at(T0 + 3550), 78);
        OTF2_EvtWriter_Leave(w, NULL, at(T0 + 3600), R_IRECV);
        OTF2_EvtWriter_Enter(w, NULL, at(T0 + 3600), R_TESTSOME);
        OTF2_EvtWriter_MpiRequestTest(w, NULL, at(T0 + 3650), 78);
        OTF2_EvtWriter_Leave(w, NULL, at(T0 + 3700), R_TESTSOME);
        OTF2_EvtWriter_Enter(w, NULL, at(T0 + 3700), R_WAITSOME);
        OTF2_EvtWriter_MpiIrecv(w, NULL, at(T0 + 8900), 1, C_SPLIT, 7, 8, 78);
        OTF2_EvtWriter_Leave(w, NULL, at(T0 + 9000), R_WAITSOME);
    } else {
        OTF2_EvtWriter_Enter(w, NULL, at(T0 + 3500), R_RECV);
        OTF2_EvtWriter_MpiRecv(w, NULL, at(T0 + 8900), 1, C_SPLIT, 7, 8); /* rank 1 of the split: world 0 */
        OTF2_EvtWriter_Leave(w, NULL, at(T0 + 9000), R_RECV);
    }
    call(w, R_FLUSH, T0 + 10000, T0 + 2010000);
    uint64_t t = allreduce(w, variant, C_WORLD, T0 + 2011000);
    t = allreduce(w, variant, C_SELF, t);
    if (variant & NS_SCOREP_OTHER_CALLS) t = dup_and_exchange(w, 0, t);
    call(w, R_FINALIZE, t, t + 1000);
    OTF2_EvtWriter_Leave(w, NULL, at(t + 1000), R_MAIN);
}

/* Events off the ranks' own locations, long enough to swamp a replay that took them
 * for the ranks' time. */
static void others(OTF2_Archive *a, uint64_t stream, int streams, bool thread_sends)
{
    OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(a, L_THREAD);
    if (thread_sends) {
        OTF2_EvtWriter_Enter(w, NULL, at(T0 + 100), R_SEND);
        OTF2_EvtWriter_MpiSend(w, NULL, at(T0 + 200), 1, C_WORLD, 3, 8);
        OTF2_EvtWriter_Leave(w, NULL, at(T0 + 300), R_SEND);
    }
    call(w, R_OMP, T0 + 400, T0 + 9000000);
    OTF2_Archive_CloseEvtWriter(a, w);
    for (int s = 0; s < streams; s++) {
        w = OTF2_Archive_GetEvtWriter(a, stream + (uint64_t)s);
        call(w, R_KERNEL, 100000000, T0 + 9000000);
        OTF2_Archive_CloseEvtWriter(a, w);
    }
}

static void definitions(OTF2_GlobalDefWriter *d, uint32_t variant)
{
    bool mpi = !(variant & NS_SCOREP_NO_MPI);
    OTF2_GlobalDefWriter_WriteClockProperties(d, 2100000000ULL, OFFSET, at(T0 + 10000000) - OFFSET,
                                              OTF2_UNDEFINED_TIMESTAMP);
    uint32_t s = 0;
    OTF2_GlobalDefWriter_WriteString(d, s++, "");
    for (int r = 0; r < NREGIONS; r++) {
        OTF2_GlobalDefWriter_WriteString(d, s, region_names[r]);
        OTF2_GlobalDefWriter_WriteRegion(d, (uint32_t)r, s, s, 0, OTF2_REGION_ROLE_FUNCTION,
                                         region_paradigms[r], OTF2_REGION_FLAG_NONE, 0, 0, 0);
        s++;
    }
    uint32_t node = s, process = s + 1, world = s + 2, self = s + 3, split = s + 4;
    OTF2_GlobalDefWriter_WriteString(d, node, "node");
    OTF2_GlobalDefWriter_WriteString(d, process, "process");
    OTF2_GlobalDefWriter_WriteString(d, world, "MPI_COMM_WORLD");
    OTF2_GlobalDefWriter_WriteString(d, self, "MPI_COMM_SELF");
    OTF2_GlobalDefWriter_WriteString(d, split, "split");
    OTF2_GlobalDefWriter_WriteSystemTreeNode(d, 0, node, node, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    if (!mpi) {
        OTF2_GlobalDefWriter_WriteLocationGroup(d, 0, process, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                OTF2_UNDEFINED_LOCATION_GROUP);
        OTF2_GlobalDefWriter_WriteLocation(d, L_THREAD, process, OTF2_LOCATION_TYPE_CPU_THREAD, 2, 0);
        for (uint64_t l = 100; l < 132; l++)
            OTF2_GlobalDefWriter_WriteLocation(d, l, process, OTF2_LOCATION_TYPE_ACCELERATOR_STREAM,
                                               2, 0);
        return;
    }
    for (uint32_t g = 0; g < 2; g++)
        OTF2_GlobalDefWriter_WriteLocationGroup(d, g, process, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                OTF2_UNDEFINED_LOCATION_GROUP);
    OTF2_GlobalDefWriter_WriteLocation(d, L_RANK0, process, OTF2_LOCATION_TYPE_CPU_THREAD, 0, 0);
    OTF2_GlobalDefWriter_WriteLocation(d, L_THREAD, process, OTF2_LOCATION_TYPE_CPU_THREAD, 2, 0);
    OTF2_GlobalDefWriter_WriteLocation(d, L_RANK1, process, OTF2_LOCATION_TYPE_CPU_THREAD, 0, 1);
    OTF2_GlobalDefWriter_WriteLocation(d, L_STREAM, process, OTF2_LOCATION_TYPE_ACCELERATOR_STREAM,
                                       2, 1);
    OTF2_GlobalDefWriter_WriteLocation(d, L_METRIC, process, OTF2_LOCATION_TYPE_METRIC, 0, 1);
    uint64_t ranks[2] = {L_RANK0, variant & NS_SCOREP_STREAM_RANK ? L_STREAM : L_RANK1};
    uint64_t both[2] = {0, 1}, swapped[2] = {1, 0};
    OTF2_GlobalDefWriter_WriteGroup(d, 0, world, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, 2, ranks);
    OTF2_GlobalDefWriter_WriteGroup(d, 1, world, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, 2, both);
    OTF2_GlobalDefWriter_WriteGroup(d, 2, self, OTF2_GROUP_TYPE_COMM_SELF, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, 0, NULL);
    OTF2_GlobalDefWriter_WriteGroup(d, 3, split, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, 2, swapped);
    OTF2_GlobalDefWriter_WriteComm(d, C_WORLD, world, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    OTF2_GlobalDefWriter_WriteComm(d, C_SELF, self, 2, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    OTF2_GlobalDefWriter_WriteComm(d, C_SPLIT, split, 3, C_WORLD, OTF2_COMM_FLAG_NONE);
}

int ns_otf2_scorep_synth(const char *dir, uint32_t variant)
{
    OTF2_Archive *a = ns_otf2_synth_open(dir, "Score-P 8.4");
    if (a == NULL) return -1;
    if (variant & NS_SCOREP_NO_MPI) {
        others(a, 100, 32, false);
    } else {
        OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(a, L_RANK0);
        rank0(w, variant);
        OTF2_Archive_CloseEvtWriter(a, w);
        w = OTF2_Archive_GetEvtWriter(a, L_RANK1);
        rank1(w, variant);
        OTF2_Archive_CloseEvtWriter(a, w);
        others(a, L_STREAM, 1, variant & NS_SCOREP_THREAD_MPI);
    }
    OTF2_Archive_CloseEvtFiles(a);
    definitions(OTF2_Archive_GetGlobalDefWriter(a), variant);
    return OTF2_Archive_Close(a) == OTF2_SUCCESS ? 0 : -1;
}
