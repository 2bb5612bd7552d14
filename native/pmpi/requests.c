/* The request table: receives in flight (their communicator, to find their stamp) and
 * persistent requests (their arguments, to inject at MPI_Start). Keyed by the handle's
 * bits, which are a pointer in Open MPI and an integer in MPICH. */
#include "netsens_pmpi.h"

#include <stdlib.h>
#include <string.h>

enum { BUCKETS = 1024 };
struct entry {
    uint64_t key;
    struct req_info info;
    struct entry *next;
};
static struct entry *buckets[BUCKETS];

static uint64_t key_of(MPI_Request req)
{
    uint64_t key = 0;
    memcpy(&key, &req, sizeof req < sizeof key ? sizeof req : sizeof key);
    return key;
}

static struct entry **slot(uint64_t key)
{
    return &buckets[(key ^ (key >> 12) ^ (key >> 24)) % BUCKETS];
}

struct req_info *ns_req_add(MPI_Request req)
{
    uint64_t key = key_of(req);
    struct entry **head = slot(key);
    for (struct entry *e = *head; e != NULL; e = e->next)
        if (e->key == key) { /* a stale entry of a freed handle now reused */
            memset(&e->info, 0, sizeof e->info);
            return &e->info;
        }
    struct entry *e = calloc(1, sizeof *e);
    e->key = key;
    e->next = *head;
    *head = e;
    return &e->info;
}

struct req_info *ns_req_find(MPI_Request req)
{
    if (req == MPI_REQUEST_NULL) return NULL;
    uint64_t key = key_of(req);
    for (struct entry *e = *slot(key); e != NULL; e = e->next)
        if (e->key == key) return &e->info;
    return NULL;
}

void ns_req_remove(MPI_Request req)
{
    uint64_t key = key_of(req);
    for (struct entry **p = slot(key); *p != NULL; p = &(*p)->next)
        if ((*p)->key == key) {
            struct entry *gone = *p;
            *p = gone->next;
            free(gone);
            return;
        }
}
