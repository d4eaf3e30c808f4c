/* sim/event.h - the event queue: fixed-size records in a radix heap.
 *
 * Records are ordered by (time, key).  The key is (scheduling object's id << 32) | that
 * object's own event counter, so ties never depend on allocation order or on how a later MPI
 * run partitions the fabric: one process and N ranks order simultaneous events identically.
 *
 * Structure: a radix heap (Ahuja, Mehlhorn, Orlin and Tarjan, 1990), which needs only that no
 * event is scheduled before the last one popped - true of a simulation clock.  Bucket i > 0
 * holds events whose time first differs from the last popped time in bit i - 1 (counting from
 * the least significant); bucket 0 holds the events at exactly the last popped time, kept as a
 * binary heap on the key.  A push appends to one bucket, which keeps its earliest time; when
 * bucket 0 runs dry, the queue's time moves to the lowest non-empty bucket's earliest time and
 * that bucket's events are spread into the lower buckets.  Every event moves down at most 64
 * times and in practice a handful, always by sequential appends, so the cost per event is a
 * few cache lines whatever the number pending. Measured against the 4-ary heap it replaced with
 * bench/evq_hold (bench/README.md).
 *
 * Bucket 0 can be large: at k = 32 the fabric's arrivals fall on a common picosecond grid and
 * each schedules more at its own picosecond, ~4,000 records on average at a pop.  A pop moves
 * the lesser child up to a leaf and then the last record up from there (Floyd's bottom-up
 * variant): one key comparison per level instead of two, -2 % of all instructions there.
 * Heaps of 16-byte entries over records left in place, a 4-ary bucket 0 and 4-bit digits were
 * measured and not kept (bench/README.md, "The event queue at k = 32, issue 17").
 *
 * Beyond WEFT_EVQ_INDEX_THRESHOLD records, bucket 0 is indexed by scheduling id instead
 * (WeftEvqIndex; sim/event.c): a bitmap of the ids holding events at this picosecond (64-bit
 * words in up to 4 levels, each summarising the one below; find-first-set from the top) and,
 * per id, a circular list of its events sorted by key, in 48-byte nodes.  A pop takes the
 * least key, kept at hand (z.min: the next record, for a prefetch), and finds the next: its
 * id's next event, else the next set bit, mostly in the same word - a few dozen instructions
 * and the node's line, where the heap moved ~12 levels of records.  A push sets bits and links
 * the node in, usually alone or at its list's end; an insertion that would walk more than 32
 * nodes (one id with thousands of events, its key ranges interleaved) or an id beyond 2^24
 * gives the index up for the heap until bucket 0 runs dry.  Bucket 0 is the heap again
 * whenever it runs dry, so runs whose bucket 0 holds a few events (the flagship) never index.
 * Keys being unique, both pop the same order.  At k = 32, -17 % instructions and -11 % D1
 * misses per event against the heap alone (bench/README.md, "Bucket 0 indexed by scheduling
 * id, issue 17").
 *
 * A refill of at most 16 records takes them whole instead of spreading them over the buckets
 * below (WeftEvqRun; sim/event.c): they are sorted by (time, key) in place, by insertion, and
 * popped in that order, the queue's time following each; a push that falls in the refilled
 * bucket's range joins the run where it sorts, or spreads it as the refill would have if that
 * moves more than 16 records.  All of bucket i's records come before every record of the
 * buckets above it, so the order of pops is the same.  On the flagship most refills are small
 * (7.7 records on average, each record moved ~2.9 times after its push): there the refills fell
 * from 5.6 M to 1.15 M and the queue's instructions by 10 %, -3.3 % of the whole 16 MB run
 * (bench/README.md, "The event queue's refills taken whole, issue 17"); 8, 24 or 32 records
 * paid less.  k = 32 holds no runs (its refills are large) yet pays +1.2 % instructions and
 * +0.7 % D1 misses per event, the pushes' compare with the run's bucket and presumably code
 * layout.
 *
 * Records (40 bytes) are stored by value in the buckets: no malloc per event once the buckets
 * have grown to the run's working set.  A bucket keeps its capacity, but the run loop trims
 * the queue every 2^20 events (weft_evq_trim): the pages of each array past its records and
 * its first MiB go back to the system, so the memory follows the events pending rather than
 * the sum of each bucket's most (bench/README.md, "k = 32's peak memory").
 *
 * Cancellation is lazy (ns-3 style): a timer bumps its generation and the stale event, when it
 * fires, sees a different generation in its argument and returns.
 */
#ifndef WEFT_SIM_EVENT_H
#define WEFT_SIM_EVENT_H

#include <glib.h>

#include "sim/time.h"

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

/* The low 32 bits of a key under one object's id.  An object's own events count from 0 up
 * (below 2^31 for any run weft can hold in memory).  The arrivals of the wire it sends on have
 * keys of their own above those, numbered by the wire (models/link.h): a wire's n-th arrival
 * gets the same key whichever side of a cut link schedules it (doc/parallel.md), where the
 * sending port's own counter would depend on which rank schedules it.  Every range wraps
 * within itself; the order it gives is then still the same on every rank. */
#define WEFT_KEY_WIRE(id, n) (((guint64) (id) << 32) | 0x80000000u | ((n) &0x1fffffffu))
/* the start of flow @flow released by its collective's gate or by a flow another node receives
 * (models/nic.h, weft_nic_start_flow_at), under its sender's id: the same whichever rank's
 * event released it and whenever that rank learnt it (doc/parallel.md), where the sender's own
 * counter would depend on both */
#define WEFT_KEY_START(id, flow) (((guint64) (id) << 32) | 0xa0000000u | ((flow) &0x1fffffffu))
/* a wire's flow-control frames on their own FIFO (a NIC's receive pipeline, models/link.h) */
#define WEFT_KEY_CTL(id, n) (((guint64) (id) << 32) | 0xc0000000u | ((n) &0x1fffffffu))
/* the far port's wake-up for the first InfiniBand FCP on that wire (models/port.h) */
#define WEFT_KEY_WAKE(id, n) (((guint64) (id) << 32) | 0xe0000000u | ((n) &0x1fffffffu))

typedef struct {
    weft_time_t at;
    guint64 key; /* (object id << 32) | object's counter */
    WeftHandler fn;
    void *target; /* borrowed: a model instance or engine object */
    WeftArg arg;  /* events never own packets: queues and wires do */
} WeftEvent;

/* The place of an event at @at with key @key in the engine's (time, key) order, as one number:
 * two places compare with one 128-bit compare (a compare and a subtract with borrow), without
 * the two-step test's branches, whose outcome follows the traffic and mispredicts
 * (bench/README.md, "The event queue's branches"). */
static inline unsigned __int128
weft_event_place (weft_time_t at, guint64 key)
{
    return (unsigned __int128) at << 64 | key;
}

typedef struct {
    WeftEvent *v;
    guint32 len, cap;
    weft_time_t min; /* buckets > 0: the earliest time held (WEFT_TIME_NEVER when empty) */
} WeftEvqBucket;

#define WEFT_EVQ_BUCKETS 65

/* Bucket 0 indexed by scheduling id (sim/event.c): a record in a list of its id's events. */
typedef struct {
    WeftEvent ev;
    guint32 next; /* the next node of the id's circular list, or of the free list */
} WeftEvqNode;

#define WEFT_EVQ_LEVELS 4 /* of 64-bit words: ids below 64^4 = 2^24 can be indexed */

typedef struct {
    guint32 count;     /* events held; 0: bucket 0 is the heap b[0] */
    guint32 min;       /* node of the least key, while count > 0 */
    guint64 min_key;   /* its key */
    guint32 threshold; /* b[0] longer than this becomes the index (G_MAXUINT32: not now) */
    guint32 index_at;  /* the threshold set, restored whenever bucket 0 runs dry */
    guint32 levels;    /* of bits: bits[levels - 1] is one word */
    guint32 cap_ids;   /* ids below this fit (64^levels) */
    guint32 n_node, cap_node, free; /* nodes in use or freed, allocated; free list's head */
    WeftEvqNode *node;
    guint32 *tail; /* by id, while its bit is set: the last node of the circular list of its
                      events by key (the first is the last's next) */
    guint64 *bits[WEFT_EVQ_LEVELS]; /* bits[0]: ids with events; bits[l + 1]: non-zero words of
                                       bits[l] */
} WeftEvqIndex;

/* A small refill taken whole (sim/event.c): the records of one bucket sorted by (time, key),
 * popped from v[head], all before every other bucket's.  Empty (i == 0) but between such a
 * refill and its last pop; b[0] and the index are empty meanwhile. */
typedef struct {
    WeftEvent *v;
    guint32 head, len, cap;
    guint32 i; /* the bucket it was taken from (0: no run); a push below it joins the run */
} WeftEvqRun;

typedef struct {
    WeftEvqBucket b[WEFT_EVQ_BUCKETS]; /* b[0]: at == last, a binary heap on key */
    WeftEvqRun run;                    /* instead of b[0], after a small refill */
    guint64 nonempty;                  /* bit i - 1 set when bucket i > 0 holds events */
    weft_time_t last;                  /* time of the last event popped (0 before any) */
    gsize len;
    WeftEvqIndex z; /* bucket 0 when it holds many events (then b[0] is empty) */
} WeftEventQueue;

/* Bytes of each bucket's array that weft_evq_trim keeps resident. */
#define WEFT_EVQ_KEEP_BYTES ((gsize) 1 << 20)

/* Bucket 0's size beyond which it is indexed by id (weft_evq_init's default). */
#define WEFT_EVQ_INDEX_THRESHOLD 256u

void weft_evq_init (WeftEventQueue *q);
/* Sets bucket 0's size beyond which it is indexed by scheduling id (G_MAXUINT32: never); the
 * order of pops is the same whatever it is.  For tests and bench/. */
void weft_evq_set_index_threshold (WeftEventQueue *q, guint32 threshold);
void weft_evq_clear (WeftEventQueue *q);
void weft_evq_push (WeftEventQueue *q, const WeftEvent *ev);
/* weft_evq_push of the record (@at, @key, @fn, @target, @arg), its fields passed as values:
 * what the engine's schedule calls use (sim/sim.h).  Link-time optimisation inlines it into
 * them, so each call writes the record into its bucket from registers.  weft_evq_push, out of
 * line, read back with 16-byte loads a record its caller had just written on the stack with
 * 8-byte stores, which the processor cannot forward to such loads: they wait for the stores
 * to reach the cache (bench/README.md, "The event queue's push inlined"). */
void weft_evq_schedule (WeftEventQueue *q, weft_time_t at, guint64 key, WeftHandler fn,
                        void *target, WeftArg arg);
/* Pushing an event earlier than the last one popped is a broken engine invariant (asserted). */
/* Removes the earliest event into *out; FALSE when empty. */
gboolean weft_evq_pop (WeftEventQueue *q, WeftEvent *out);
/* Removes the earliest event into *out if it comes before (@end_at, @end_key) in (time, key)
 * order; FALSE (leaving the queue's time at or before @end_at) when none does.  What a window
 * of a run across ranks needs (doc/parallel.md): events may then be pushed from @end_at on. */
gboolean weft_evq_pop_before (WeftEventQueue *q, weft_time_t end_at, guint64 end_key,
                              WeftEvent *out);
/* The time of the earliest pending event (WEFT_TIME_NEVER when none), without moving the
 * queue's time. */
weft_time_t weft_evq_peek_at (const WeftEventQueue *q);
/* Moves the queue's time back to @t, at or before every pending event, so that events may be
 * pushed from @t on: what a run stopped by its duration needs, its clock left at the duration
 * while the next event, popped to see its time and pushed back, lies beyond.  Every pending
 * event is spread again (O(pending)); once per stop, never on the hot path. */
void weft_evq_rewind (WeftEventQueue *q, weft_time_t t);
/* Gives back to the system the pages of each bucket's array past its records and past its
 * first WEFT_EVQ_KEEP_BYTES, keeping every capacity: the run's memory then follows the events
 * pending rather than the sum of each bucket's most.  O(buckets) plus the system calls: for
 * the run loop's periodic calls, never per event.  Defined in sim/sim.c beside its caller:
 * in sim/event.c it changed how LTO inlined the queue's push into its callers (+0.03 % of the
 * flagship's instructions; bench/README.md, "k = 32's peak memory"). */
void weft_evq_trim (WeftEventQueue *q);
/* Whether record @ev can do nothing when it is popped (a cancelled timer's event, sim/timer.h). */
typedef gboolean (*WeftEvqStale) (const WeftEvent *ev, void *data);
/* Drops from the buckets whose every record lies after @after the records @stale says can do
 * nothing, but the latest of them in (time, key) order, and returns how many went.  The one
 * kept holds the queue as long as they all would have: its length stays non-zero and a dry
 * queue's last time is the same, which is all that popping the others would have shown (a run
 * that hangs samples, and ends, until its queue runs dry).  The order of the other pops is
 * unchanged.  For the run loop's periodic trims (a record of each such bucket is read once per
 * trim; the buckets read are those of events far ahead, whose records were pushed since). */
gsize weft_evq_drop_stale (WeftEventQueue *q, weft_time_t after, WeftEvqStale stale, void *data);

static inline gsize
weft_evq_len (const WeftEventQueue *q)
{
    return q->len;
}

#endif /* WEFT_SIM_EVENT_H */
