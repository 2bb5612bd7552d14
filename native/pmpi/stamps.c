/* How a message's delivery time reaches its receiver: a 32-byte shadow message on a
 * private duplicate of the world, sent before the data message and received right
 * after the data receive completes. MPI is non-overtaking per (source, communicator,
 * tag), so the k-th message matched on such a triple owns the k-th stamp sent on it;
 * stamps of other triples that arrive first wait in a per-source queue. */
#include "netsens_pmpi.h"

#include <stdlib.h>
#include <string.h>

struct queue {
    struct stamp *items;
    int count, capacity;
};
static struct queue *queues; /* one per world rank */

void ns_send_stamp(int dst_world, uint64_t comm_id, int tag, int64_t bytes, ps_t deliver)
{
    struct stamp s = {.deliver = deliver, .comm_id = comm_id, .tag = tag, .bytes = bytes};
    PMPI_Send(&s, (int)sizeof s, MPI_BYTE, dst_world, 0, ns_shadow_comm);
    ns_stats_shadow();
}

static void push(struct queue *q, const struct stamp *s)
{
    if (q->count == q->capacity) {
        q->capacity = q->capacity ? 2 * q->capacity : 8;
        q->items = realloc(q->items, sizeof *q->items * (size_t)q->capacity);
    }
    q->items[q->count++] = *s;
}

bool ns_find_stamp(int src_world, uint64_t comm_id, int tag, bool consume, struct stamp *out)
{
    if (src_world < 0) return false;
    if (queues == NULL) queues = calloc((size_t)ns_world_size, sizeof *queues);
    struct queue *q = &queues[src_world];
    for (int i = 0;; i++) {
        if (i == q->count) {
            struct stamp s;
            PMPI_Recv(&s, (int)sizeof s, MPI_BYTE, src_world, 0, ns_shadow_comm,
                      MPI_STATUS_IGNORE);
            push(q, &s);
        }
        if (q->items[i].comm_id == comm_id && q->items[i].tag == tag) {
            *out = q->items[i];
            if (consume) {
                memmove(&q->items[i], &q->items[i + 1],
                        sizeof *q->items * (size_t)(q->count - i - 1));
                q->count--;
            }
            return true;
        }
    }
}
