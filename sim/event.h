/* sim/event.h - the event queue: fixed-size records in a d-ary min-heap.
 *
 * Records are ordered by (time, key).  The key is (scheduling object's id << 32) | that
 * object's own event counter, so ties never depend on allocation order or on how a later MPI
 * run partitions the fabric: one process and N ranks order simultaneous events identically.
 *
 * Structure: an implicit 4-ary min-heap of 16-byte entries (time, slot) whose groups of four
 * siblings share one 64-byte cache line, over a side table of 32-byte records (key, handler,
 * target, argument) recycled through a free list (no malloc per event).  Moving entries moves
 * 16 bytes, and a level of the sift-down touches one cache line.  The entry carries the time
 * and the key's high half (the scheduling object's id), so the side table is read only when
 * one object scheduled two events for the same picosecond.  bench/evq_hold measures it (bench/README.md); the arity is a
 * compile-time constant (WEFT_EVQ_ARITY) so the benchmark can build a binary heap beside it.
 *
 * Pop leaves a hole at the root instead of restructuring at once: the next push (a handler
 * almost always schedules something) drops its entry into the hole and sifts it down once,
 * instead of a sift-down for the pop plus a sift-up for the push.  Keys are unique, so the
 * order of pops does not depend on the heap's shape.
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

/* A scheduling identity: every object that schedules events (a model, a port) has one.  The
 * id is assigned from the fabric graph's order, so it is the same however a run is
 * partitioned; the counter numbers that object's events, so ties keep its own order. */
typedef struct {
    guint32 id;
    guint32 counter;
} WeftSched;

typedef struct {
    weft_time_t at;
    guint64 key;        /* (object id << 32) | object's counter */
    WeftHandler fn;
    void *target;       /* borrowed: a model instance or engine object */
    WeftArg arg;        /* events never own packets: queues and wires do */
} WeftEvent;

typedef struct {
    weft_time_t at;
    guint32 id;   /* high half of the key: the scheduling object */
    guint32 slot; /* index of the record (holding the full key) in the side table */
} WeftEvqEntry;

typedef struct {
    guint64 key;
    WeftHandler fn;
    void *target;
    WeftArg arg;
} WeftEvqRecord;

typedef struct {
    WeftEvqEntry *heap; /* heap + 1 is 64-byte aligned, so siblings 4i+1..4i+4 share a line */
    void *heap_mem;
    gsize len, cap;     /* len counts the hole, if any */
    gboolean hole;      /* heap[0] was popped and not yet refilled */
    WeftEvqRecord *rec;
    guint32 *free_slots;
    gsize n_free, cap_rec;
} WeftEventQueue;

void weft_evq_init (WeftEventQueue *q);
void weft_evq_clear (WeftEventQueue *q);
void weft_evq_push (WeftEventQueue *q, const WeftEvent *ev);
/* Removes the earliest event into *out; FALSE when empty. */
gboolean weft_evq_pop (WeftEventQueue *q, WeftEvent *out);

static inline gsize
weft_evq_len (const WeftEventQueue *q)
{
    return q->len - (q->hole ? 1 : 0);
}

/* Closes a pending hole (pop's deferred restructuring). */
void weft_evq_settle (WeftEventQueue *q);

/* Time of the earliest event, or WEFT_TIME_NEVER. */
static inline weft_time_t
weft_evq_peek_time (WeftEventQueue *q)
{
    if (q->hole)
        weft_evq_settle (q);
    return q->len ? q->heap[0].at : WEFT_TIME_NEVER;
}

#endif /* WEFT_SIM_EVENT_H */
