/* sim/event.h - the event queue: fixed-size records in a d-ary min-heap.
 *
 * Records are ordered by (time, key).  The key is (scheduling object's id << 32) | that
 * object's own event counter, so ties never depend on allocation order or on how a later MPI
 * run partitions the fabric: one process and N ranks order simultaneous events identically.
 *
 * Structure: an implicit 4-ary heap of 40-byte records stored by value in one growing array
 * (no malloc per event).  Measured with bench/evq_hold (the hold model, 10^5 pending events):
 * the 4-ary heap beats the binary heap because a sift-down touches half as many levels and the
 * four children share a cache line pair; see bench/README.md for the figures.  The arity is a
 * compile-time constant (WEFT_EVQ_ARITY) so the benchmark can build both.
 *
 * Cancellation is lazy (ns-3 style): a timer bumps its generation and the stale event, when it
 * fires, sees a different generation in its argument and returns.
 */
#ifndef WEFT_SIM_EVENT_H
#define WEFT_SIM_EVENT_H

#include <glib.h>

#include "sim/time.h"

#ifndef WEFT_EVQ_ARITY
#define WEFT_EVQ_ARITY 4
#endif

typedef struct _WeftSim WeftSim;

typedef union {
    guint64 u;
    void *ptr;
} WeftArg;

typedef void (*WeftHandler) (WeftSim *sim, void *target, WeftArg arg);

typedef struct {
    weft_time_t at;
    guint64 key;        /* (object id << 32) | object's counter */
    WeftHandler fn;
    void *target;       /* borrowed: a model instance or engine object */
    WeftArg arg;        /* events never own packets: queues and wires do */
} WeftEvent;

typedef struct {
    WeftEvent *heap;
    gsize len, cap;
} WeftEventQueue;

void weft_evq_init (WeftEventQueue *q);
void weft_evq_clear (WeftEventQueue *q);
void weft_evq_push (WeftEventQueue *q, const WeftEvent *ev);
/* Removes the earliest event into *out; FALSE when empty. */
gboolean weft_evq_pop (WeftEventQueue *q, WeftEvent *out);

static inline gsize
weft_evq_len (const WeftEventQueue *q)
{
    return q->len;
}

/* Time of the earliest event, or WEFT_TIME_NEVER. */
static inline weft_time_t
weft_evq_peek_time (const WeftEventQueue *q)
{
    return q->len ? q->heap[0].at : WEFT_TIME_NEVER;
}

#endif /* WEFT_SIM_EVENT_H */
