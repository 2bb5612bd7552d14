#define _POSIX_C_SOURCE 200809L
/* netsens's OTF2 reader (see otf2_reader.h). Definitions first (clock, strings,
 * regions, locations, groups, communicators), then each rank's events in order:
 * reading per location keeps memory to one location's buffer, with no global merge. */
#include "otf2_reader.h"

#include <otf2/otf2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct group {
    uint32_t ref;
    OTF2_GroupType type;
    OTF2_Paradigm paradigm;
    uint32_t n;
    uint64_t *members;
};
struct pair {
    uint32_t ref, value;
};
struct region {
    uint32_t ref, name;
    uint8_t paradigm;
};
struct location {
    uint64_t ref;
    OTF2_LocationType type;
    OTF2_LocationGroupRef group;
};
/* A location's tracer gap (netsens's location properties): clock 0 wall, 1 CPU. */
struct property {
    uint64_t location;
    uint32_t clock;
    uint64_t value;
};

struct state {
    const struct ns_otf2_sink *sink;
    uint64_t resolution, offset;
    char **strings;
    uint32_t nstrings;
    struct region *regions;
    struct pair *comms; /* comm -> group */
    uint32_t nregions, ncomms;
    /* Attributes by name string; the CPU time attribute once definitions are read. */
    struct pair *attributes;
    uint32_t nattributes;
    OTF2_AttributeRef cpu_attribute;
    bool has_cpu_attribute;
    struct group *groups;
    uint32_t ngroups;
    struct location *locations;
    uint32_t nlocations;
    struct property *properties;
    uint32_t nproperties;
    char *creator;
    uint32_t rank;
    uint64_t position;
    int stopped;
};

static char otf2_error[256];

static OTF2_ErrorCode on_error(void *user, const char *file, uint64_t line, const char *function,
                               OTF2_ErrorCode code, const char *fmt, va_list va)
{
    (void)user, (void)file, (void)line, (void)function;
    if (otf2_error[0] == '\0') vsnprintf(otf2_error, sizeof otf2_error, fmt, va);
    return code;
}

#define GROW(array, n) ((array) = realloc((array), sizeof *(array) * ((size_t)(n) + 1)))

static OTF2_CallbackCode def_clock(void *u, uint64_t resolution, uint64_t offset, uint64_t len,
                                   uint64_t realtime)
{
    (void)len, (void)realtime;
    struct state *s = u;
    s->resolution = resolution;
    s->offset = offset;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_string(void *u, OTF2_StringRef ref, const char *text)
{
    struct state *s = u;
    if (ref >= s->nstrings) {
        s->strings = realloc(s->strings, sizeof(char *) * ((size_t)ref + 1));
        memset(s->strings + s->nstrings, 0, sizeof(char *) * (ref + 1 - s->nstrings));
        s->nstrings = ref + 1;
    }
    free(s->strings[ref]);
    s->strings[ref] = strdup(text);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_region(void *u, OTF2_RegionRef ref, OTF2_StringRef name,
                                    OTF2_StringRef canonical, OTF2_StringRef description,
                                    OTF2_RegionRole role, OTF2_Paradigm paradigm,
                                    OTF2_RegionFlag flags, OTF2_StringRef file, uint32_t begin,
                                    uint32_t end)
{
    (void)canonical, (void)description, (void)role, (void)flags, (void)file, (void)begin,
        (void)end;
    struct state *s = u;
    GROW(s->regions, s->nregions);
    s->regions[s->nregions++] = (struct region){ref, name, paradigm};
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_attribute(void *u, OTF2_AttributeRef ref, OTF2_StringRef name,
                                       OTF2_StringRef description, OTF2_Type type)
{
    (void)description;
    struct state *s = u;
    if (type != OTF2_TYPE_UINT64) return OTF2_CALLBACK_SUCCESS;
    GROW(s->attributes, s->nattributes);
    s->attributes[s->nattributes++] = (struct pair){ref, name};
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_location(void *u, OTF2_LocationRef ref, OTF2_StringRef name,
                                      OTF2_LocationType type, uint64_t events,
                                      OTF2_LocationGroupRef group)
{
    (void)name, (void)events;
    struct state *s = u;
    GROW(s->locations, s->nlocations);
    s->locations[s->nlocations++] = (struct location){ref, type, group};
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_location_property(void *u, OTF2_LocationRef location,
                                               OTF2_StringRef name, OTF2_Type type,
                                               OTF2_AttributeValue value)
{
    struct state *s = u;
    const char *text = name < s->nstrings ? s->strings[name] : NULL;
    if (type != OTF2_TYPE_UINT64 || text == NULL) return OTF2_CALLBACK_SUCCESS;
    uint32_t clock;
    if (strcmp(text, NS_OTF2_TRACER_GAP_WALL) == 0)
        clock = 0;
    else if (strcmp(text, NS_OTF2_TRACER_GAP_CPU) == 0)
        clock = 1;
    else
        return OTF2_CALLBACK_SUCCESS; /* another tracer's property */
    GROW(s->properties, s->nproperties);
    s->properties[s->nproperties++] = (struct property){location, clock, value.uint64};
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_group(void *u, OTF2_GroupRef ref, OTF2_StringRef name,
                                   OTF2_GroupType type, OTF2_Paradigm paradigm,
                                   OTF2_GroupFlag flags, uint32_t n, const uint64_t *members)
{
    (void)name, (void)flags;
    struct state *s = u;
    GROW(s->groups, s->ngroups);
    struct group *g = &s->groups[s->ngroups++];
    *g = (struct group){ref, type, paradigm, n, malloc(sizeof(uint64_t) * ((size_t)n + 1))};
    memcpy(g->members, members, sizeof(uint64_t) * n);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode def_comm(void *u, OTF2_CommRef ref, OTF2_StringRef name,
                                  OTF2_GroupRef group, OTF2_CommRef parent, OTF2_CommFlag flags)
{
    (void)name, (void)parent, (void)flags;
    struct state *s = u;
    GROW(s->comms, s->ncomms);
    s->comms[s->ncomms++] = (struct pair){ref, group};
    return OTF2_CALLBACK_SUCCESS;
}

static uint64_t to_ps(const struct state *s, OTF2_TimeStamp t)
{
    uint64_t d = t >= s->offset ? t - s->offset : 0;
    if (s->resolution == 1000000000000ULL || s->resolution == 0) return d;
    return (uint64_t)((unsigned __int128)d * 1000000000000ULL / s->resolution);
}

static OTF2_CallbackCode emit(struct state *s, OTF2_TimeStamp t, struct ns_otf2_event ev)
{
    ev.time_ps = to_ps(s, t);
    int rc = s->sink->event(s->sink->ctx, s->rank, s->position++, &ev);
    if (rc != 0) {
        s->stopped = rc;
        return OTF2_CALLBACK_INTERRUPT;
    }
    return OTF2_CALLBACK_SUCCESS;
}

#define EVENT_ARGS OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u, \
                   OTF2_AttributeList *attrs
#define UNUSED_EVENT_ARGS (void)loc, (void)pos, (void)attrs

/* The thread CPU time attribute of an Enter or Leave, if the archive has one. */
static uint64_t cpu_time(const struct state *s, const OTF2_AttributeList *attrs)
{
    uint64_t v = 0;
    if (s->has_cpu_attribute && attrs != NULL &&
        OTF2_AttributeList_GetUint64(attrs, s->cpu_attribute, &v) == OTF2_SUCCESS)
        return v;
    return NS_NO_CPU_TIME;
}

static OTF2_CallbackCode ev_enter(EVENT_ARGS, OTF2_RegionRef region)
{
    (void)loc, (void)pos;
    return emit(u, t, (struct ns_otf2_event){.kind = NS_ENTER, .region = region,
                                             .cpu_ps = cpu_time(u, attrs)});
}

static OTF2_CallbackCode ev_leave(EVENT_ARGS, OTF2_RegionRef region)
{
    (void)loc, (void)pos;
    return emit(u, t, (struct ns_otf2_event){.kind = NS_LEAVE, .region = region,
                                             .cpu_ps = cpu_time(u, attrs)});
}

static OTF2_CallbackCode ev_send(EVENT_ARGS, uint32_t peer, OTF2_CommRef comm, uint32_t tag,
                                 uint64_t bytes)
{
    UNUSED_EVENT_ARGS;
    return emit(u, t, (struct ns_otf2_event){.kind = NS_SEND, .peer = peer, .comm = comm,
                                             .tag = tag, .bytes = bytes});
}

static OTF2_CallbackCode ev_isend(EVENT_ARGS, uint32_t peer, OTF2_CommRef comm, uint32_t tag,
                                  uint64_t bytes, uint64_t req)
{
    UNUSED_EVENT_ARGS;
    return emit(u, t, (struct ns_otf2_event){.kind = NS_ISEND, .peer = peer, .comm = comm,
                                             .tag = tag, .bytes = bytes, .req = req});
}

static OTF2_CallbackCode ev_isend_done(EVENT_ARGS, uint64_t req)
{
    UNUSED_EVENT_ARGS;
    return emit(u, t, (struct ns_otf2_event){.kind = NS_ISEND_DONE, .req = req});
}

static OTF2_CallbackCode ev_recv(EVENT_ARGS, uint32_t peer, OTF2_CommRef comm, uint32_t tag,
                                 uint64_t bytes)
{
    UNUSED_EVENT_ARGS;
    return emit(u, t, (struct ns_otf2_event){.kind = NS_RECV, .peer = peer, .comm = comm,
                                             .tag = tag, .bytes = bytes});
}

static OTF2_CallbackCode ev_irecv_post(EVENT_ARGS, uint64_t req)
{
    UNUSED_EVENT_ARGS;
    return emit(u, t, (struct ns_otf2_event){.kind = NS_IRECV_POST, .req = req});
}

static OTF2_CallbackCode ev_irecv_done(EVENT_ARGS, uint32_t peer, OTF2_CommRef comm,
                                       uint32_t tag, uint64_t bytes, uint64_t req)
{
    UNUSED_EVENT_ARGS;
    return emit(u, t, (struct ns_otf2_event){.kind = NS_IRECV_DONE, .peer = peer, .comm = comm,
                                             .tag = tag, .bytes = bytes, .req = req});
}

static OTF2_CallbackCode ev_coll(EVENT_ARGS, OTF2_CollectiveOp op, OTF2_CommRef comm,
                                 uint32_t root, uint64_t sent, uint64_t received)
{
    UNUSED_EVENT_ARGS;
    return emit(u, t, (struct ns_otf2_event){.kind = NS_COLL, .coll = (uint8_t)op, .comm = comm,
                                             .peer = root, .bytes = sent, .bytes2 = received});
}

static OTF2_CallbackCode ev_nbc_post(EVENT_ARGS, uint64_t req)
{
    UNUSED_EVENT_ARGS;
    return emit(u, t, (struct ns_otf2_event){.kind = NS_NBC_POST, .req = req});
}

static OTF2_CallbackCode ev_nbc_done(EVENT_ARGS, OTF2_CollectiveOp op, OTF2_CommRef comm,
                                     uint32_t root, uint64_t sent, uint64_t received, uint64_t req)
{
    UNUSED_EVENT_ARGS;
    return emit(u, t, (struct ns_otf2_event){.kind = NS_NBC_DONE, .coll = (uint8_t)op,
                                             .comm = comm, .peer = root, .bytes = sent,
                                             .bytes2 = received, .req = req});
}

static OTF2_CallbackCode ev_measure(EVENT_ARGS, OTF2_MeasurementMode mode)
{
    UNUSED_EVENT_ARGS;
    return emit(u, t, (struct ns_otf2_event){.kind = NS_MEASURE,
                                             .bytes = mode == OTF2_MEASUREMENT_ON});
}

static OTF2_CallbackCode ev_cancelled(EVENT_ARGS, uint64_t req)
{
    UNUSED_EVENT_ARGS;
    return emit(u, t, (struct ns_otf2_event){.kind = NS_CANCELLED, .req = req});
}

static const struct group *find_group(const struct state *s, uint32_t ref)
{
    for (uint32_t i = 0; i < s->ngroups; i++)
        if (s->groups[i].ref == ref) return &s->groups[i];
    return NULL;
}

static int fail(char *err, size_t len, const char *what)
{
    snprintf(err, len, "%s%s%s", what, otf2_error[0] ? ": " : "", otf2_error);
    return -1;
}

/* The MPI ranks' locations in rank order: the members of the MPI group of locations
 * (Score-P and netsens write one). Each must be a distinct CPU thread location: a
 * process's other locations (threads, accelerator streams, metrics) are not ranks. */
static int rank_locations(const struct state *s, const uint64_t **locs, uint32_t *n, char *err,
                          size_t len)
{
    const struct group *mpi = NULL;
    for (uint32_t i = 0; i < s->ngroups && mpi == NULL; i++)
        if (s->groups[i].type == OTF2_GROUP_TYPE_COMM_LOCATIONS &&
            s->groups[i].paradigm == OTF2_PARADIGM_MPI)
            mpi = &s->groups[i];
    if (mpi == NULL || mpi->n == 0) {
        snprintf(err, len,
                 "the trace has no MPI processes (no MPI group of locations among its %u "
                 "locations): it is of a program without MPI, and replay needs MPI ranks",
                 s->nlocations);
        return -1;
    }
    for (uint32_t r = 0; r < mpi->n; r++) {
        const struct location *loc = NULL;
        for (uint32_t i = 0; i < s->nlocations && loc == NULL; i++)
            if (s->locations[i].ref == mpi->members[r]) loc = &s->locations[i];
        for (uint32_t q = 0; q < r; q++)
            if (mpi->members[q] == mpi->members[r]) {
                snprintf(err, len, "MPI ranks %u and %u share location %llu: netsens cannot "
                         "map this location layout to ranks", q, r,
                         (unsigned long long)mpi->members[r]);
                return -1;
            }
        if (loc == NULL || loc->type != OTF2_LOCATION_TYPE_CPU_THREAD) {
            snprintf(err, len, "MPI rank %u is location %llu, %s: netsens cannot map this "
                     "location layout to ranks", r, (unsigned long long)mpi->members[r],
                     loc == NULL ? "which the archive does not define" : "which is not a CPU thread");
            return -1;
        }
    }
    *locs = mpi->members;
    *n = mpi->n;
    return 0;
}

static int read_definitions(OTF2_Reader *r, struct state *s, char *err, size_t len)
{
    OTF2_GlobalDefReader *gdr = OTF2_Reader_GetGlobalDefReader(r);
    if (gdr == NULL) return fail(err, len, "cannot read the global definitions");
    OTF2_GlobalDefReaderCallbacks *cb = OTF2_GlobalDefReaderCallbacks_New();
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cb, def_clock);
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(cb, def_string);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cb, def_region);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cb, def_location);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cb, def_group);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(cb, def_comm);
    OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(cb, def_attribute);
    OTF2_GlobalDefReaderCallbacks_SetLocationPropertyCallback(cb, def_location_property);
    OTF2_Reader_RegisterGlobalDefCallbacks(r, gdr, cb, s);
    OTF2_GlobalDefReaderCallbacks_Delete(cb);
    uint64_t n = 0;
    OTF2_ErrorCode rc = OTF2_Reader_ReadAllGlobalDefinitions(r, gdr, &n);
    OTF2_Reader_CloseGlobalDefReader(r, gdr);
    if (rc != OTF2_SUCCESS) return fail(err, len, "corrupt or truncated definitions");
    for (uint32_t i = 0; i < s->nattributes; i++) {
        uint32_t name = s->attributes[i].value;
        if (name < s->nstrings && s->strings[name] && strcmp(s->strings[name], NS_OTF2_CPU_TIME) == 0) {
            s->cpu_attribute = s->attributes[i].ref;
            s->has_cpu_attribute = true;
        }
    }
    return 0;
}

static int by_location(const void *a, const void *b)
{
    uint64_t x = ((const struct property *)a)->location, y = ((const struct property *)b)->location;
    return (x > y) - (x < y);
}

/* The location's tracer gap on `clock`, or NS_NO_CPU_TIME; the properties sorted by
 * location (a rank has at most two: a binary search, then a look at its neighbours). */
static uint64_t tracer_gap(const struct state *s, uint64_t location, uint32_t clock)
{
    struct property key = {.location = location};
    const struct property *hit =
        bsearch(&key, s->properties, s->nproperties, sizeof key, by_location);
    if (hit == NULL) return NS_NO_CPU_TIME;
    const struct property *end = s->properties + s->nproperties;
    while (hit > s->properties && hit[-1].location == location) hit--;
    for (; hit < end && hit->location == location; hit++)
        if (hit->clock == clock) return hit->value;
    return NS_NO_CPU_TIME;
}

static int hand_definitions(struct state *s, const uint64_t *locs, uint32_t nranks)
{
    const struct ns_otf2_sink *k = s->sink;
    int rc = k->ranks(k->ctx, nranks, s->creator ? s->creator : "", s->resolution);
    for (uint32_t i = 0; rc == 0 && i < s->nregions; i++) {
        uint32_t name = s->regions[i].name;
        const char *text = name < s->nstrings && s->strings[name] ? s->strings[name] : "";
        rc = k->region(k->ctx, s->regions[i].ref, text, s->regions[i].paradigm);
    }
    for (uint32_t i = 0; rc == 0 && i < s->ncomms; i++) {
        const struct group *g = find_group(s, s->comms[i].value);
        if (g == NULL) continue;
        if (g->type == OTF2_GROUP_TYPE_COMM_SELF)
            rc = k->comm(k->ctx, s->comms[i].ref, 1, 0, NULL);
        else if (g->type == OTF2_GROUP_TYPE_COMM_GROUP)
            rc = k->comm(k->ctx, s->comms[i].ref, 0, g->n, g->members);
    }
    if (s->nproperties > 0)
        qsort(s->properties, s->nproperties, sizeof *s->properties, by_location);
    for (uint32_t r = 0; rc == 0 && k->tracer_gap != NULL && r < nranks; r++)
        rc = k->tracer_gap(k->ctx, r, tracer_gap(s, locs[r], 0), tracer_gap(s, locs[r], 1));
    return rc;
}

/* A CPU thread that is not a rank's location (an OpenMP or pthread worker). */
static bool other_thread(const struct location *l, const uint64_t *locs, uint32_t nranks)
{
    if (l->type != OTF2_LOCATION_TYPE_CPU_THREAD) return false;
    for (uint32_t i = 0; i < nranks; i++)
        if (locs[i] == l->ref) return false;
    return true;
}

static OTF2_CallbackCode found_mpi(OTF2_LocationRef loc, OTF2_TimeStamp t, uint64_t pos, void *u,
                                   OTF2_AttributeList *attrs)
{
    (void)loc, (void)t, (void)pos, (void)attrs;
    *(bool *)u = true;
    return OTF2_CALLBACK_INTERRUPT;
}

#define FOUND(SIGNATURE)                                                                  \
    static OTF2_CallbackCode found_##SIGNATURE(EVENT_ARGS, SIGNATURE##_ARGS)                  \
    {                                                                                     \
        SIGNATURE##_UNUSED;                                                               \
        return found_mpi(loc, t, pos, u, attrs);                                          \
    }
#define P2P_ARGS uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t bytes
#define P2P_UNUSED (void)peer, (void)comm, (void)tag, (void)bytes
#define IP2P_ARGS P2P_ARGS, uint64_t req
#define IP2P_UNUSED P2P_UNUSED, (void)req
#define COLL_ARGS OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root, uint64_t sent, uint64_t received
#define COLL_UNUSED (void)op, (void)comm, (void)root, (void)sent, (void)received
FOUND(P2P)
FOUND(IP2P)
FOUND(COLL)

/* Refuses MPI communication on a thread that is not a rank's location: netsens maps
 * one location per rank and would silently drop those messages. */
static int check_other_threads(OTF2_Reader *r, struct state *s, const uint64_t *locs,
                               uint32_t nranks, char *err, size_t len)
{
    OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New();
    OTF2_EvtReaderCallbacks_SetMpiSendCallback(cb, found_P2P);
    OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cb, found_P2P);
    OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cb, found_IP2P);
    OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cb, found_IP2P);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, found_COLL);
    int result = 0;
    for (uint32_t i = 0; i < s->nlocations && result == 0; i++) {
        const struct location *l = &s->locations[i];
        if (!other_thread(l, locs, nranks)) continue;
        OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(r, l->ref);
        if (er == NULL) continue;
        bool found = false;
        OTF2_Reader_RegisterEvtCallbacks(r, er, cb, &found);
        uint64_t n = 0;
        OTF2_Reader_ReadAllLocalEvents(r, er, &n);
        OTF2_Reader_CloseEvtReader(r, er);
        if (found) {
            snprintf(err, len, "location %llu, a thread beside the MPI ranks' (location group %u), "
                     "records MPI communication: netsens maps one location per rank and cannot "
                     "replay the MPI calls of other threads", (unsigned long long)l->ref, l->group);
            result = -1;
        }
    }
    OTF2_EvtReaderCallbacks_Delete(cb);
    return result;
}

static int read_events(OTF2_Reader *r, struct state *s, const uint64_t *locs, uint32_t nranks,
                       char *err, size_t len)
{
    for (uint32_t i = 0; i < nranks; i++) OTF2_Reader_SelectLocation(r, locs[i]);
    for (uint32_t i = 0; i < s->nlocations; i++)
        if (other_thread(&s->locations[i], locs, nranks))
            OTF2_Reader_SelectLocation(r, s->locations[i].ref);
    bool defs = OTF2_Reader_OpenDefFiles(r) == OTF2_SUCCESS;
    if (OTF2_Reader_OpenEvtFiles(r) != OTF2_SUCCESS) return fail(err, len, "cannot open the event files");
    for (uint32_t i = 0; defs && i < nranks; i++) {
        OTF2_DefReader *dr = OTF2_Reader_GetDefReader(r, locs[i]);
        if (dr == NULL) continue;
        uint64_t n = 0;
        OTF2_Reader_ReadAllLocalDefinitions(r, dr, &n);
        OTF2_Reader_CloseDefReader(r, dr);
    }
    if (defs) OTF2_Reader_CloseDefFiles(r);
    OTF2_EvtReaderCallbacks *cb = OTF2_EvtReaderCallbacks_New();
    OTF2_EvtReaderCallbacks_SetEnterCallback(cb, ev_enter);
    OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, ev_leave);
    OTF2_EvtReaderCallbacks_SetMpiSendCallback(cb, ev_send);
    OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cb, ev_isend);
    OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(cb, ev_isend_done);
    OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cb, ev_recv);
    OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(cb, ev_irecv_post);
    OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cb, ev_irecv_done);
    OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, ev_coll);
    OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveRequestCallback(cb, ev_nbc_post);
    OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveCompleteCallback(cb, ev_nbc_done);
    OTF2_EvtReaderCallbacks_SetMeasurementOnOffCallback(cb, ev_measure);
    OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback(cb, ev_cancelled);
    int result = 0;
    for (uint32_t i = 0; i < nranks && result == 0; i++) {
        OTF2_EvtReader *er = OTF2_Reader_GetEvtReader(r, locs[i]);
        if (er == NULL) {
            result = fail(err, len, "cannot read a rank's events");
            break;
        }
        OTF2_Reader_RegisterEvtCallbacks(r, er, cb, s);
        s->rank = i;
        s->position = 0;
        uint64_t n = 0;
        OTF2_ErrorCode rc = OTF2_Reader_ReadAllLocalEvents(r, er, &n);
        if (s->stopped)
            result = s->stopped;
        else if (rc != OTF2_SUCCESS) {
            char what[96];
            snprintf(what, sizeof what, "corrupt or truncated events of rank %u", i);
            result = fail(err, len, what);
        }
        OTF2_Reader_CloseEvtReader(r, er);
    }
    OTF2_EvtReaderCallbacks_Delete(cb);
    if (result == 0) result = check_other_threads(r, s, locs, nranks, err, len);
    OTF2_Reader_CloseEvtFiles(r);
    return result;
}

static void free_state(struct state *s)
{
    for (uint32_t i = 0; i < s->nstrings; i++) free(s->strings[i]);
    for (uint32_t i = 0; i < s->ngroups; i++) free(s->groups[i].members);
    free(s->strings);
    free(s->regions);
    free(s->comms);
    free(s->attributes);
    free(s->groups);
    free(s->locations);
    free(s->properties);
    free(s->creator);
}

int ns_otf2_read(const char *anchor, const struct ns_otf2_sink *sink, char *err, size_t errlen)
{
    otf2_error[0] = '\0';
    OTF2_ErrorCallback previous = OTF2_Error_RegisterCallback(on_error, NULL);
    struct state s = {.sink = sink, .resolution = 1000000000000ULL};
    int rc = -1;
    OTF2_Reader *r = OTF2_Reader_Open(anchor);
    if (r == NULL) {
        fail(err, errlen, "not a readable OTF2 archive");
    } else {
        OTF2_Reader_SetSerialCollectiveCallbacks(r);
        rc = read_definitions(r, &s, err, errlen);
        const uint64_t *locs = NULL;
        uint32_t nranks = 0;
        if (rc == 0) {
            OTF2_Reader_GetCreator(r, &s.creator);
            rc = rank_locations(&s, &locs, &nranks, err, errlen);
        }
        if (rc == 0) rc = hand_definitions(&s, locs, nranks);
        if (rc == 0 && sink->event != NULL) rc = read_events(r, &s, locs, nranks, err, errlen);
        OTF2_Reader_Close(r);
    }
    free_state(&s);
    OTF2_Error_RegisterCallback(previous, NULL);
    return rc;
}
