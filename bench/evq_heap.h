/* bench/evq_heap.h - the 4-ary heap weft used before its radix heap, kept as the baseline
 * bench/evq_hold measures the radix heap against (same records, same (time, key) order).
 *
 * 16-byte entries (time, object id, slot) with sibling groups aligned to a cache line, over a
 * side table of records; a pop leaves a hole the next push fills with one sift-down.
 */
#ifndef WEFT_BENCH_EVQ_HEAP_H
#define WEFT_BENCH_EVQ_HEAP_H

#include "sim/event.h"

typedef struct {
    weft_time_t at;
    guint32 id;
    guint32 slot;
} EvqHeapEntry;

typedef struct {
    guint64 key;
    WeftHandler fn;
    void *target;
    WeftArg arg;
} EvqHeapRecord;

typedef struct {
    EvqHeapEntry *heap;
    void *heap_mem;
    gsize len, cap;
    gboolean hole;
    EvqHeapRecord *rec;
    guint32 *free_slots;
    gsize n_free, cap_rec;
} EvqHeap;

void evq_heap_init (EvqHeap *q);
void evq_heap_clear (EvqHeap *q);
void evq_heap_push (EvqHeap *q, const WeftEvent *ev);
gboolean evq_heap_pop (EvqHeap *q, WeftEvent *out);

static inline gsize
evq_heap_len (const EvqHeap *q)
{
    return q->len - (q->hole ? 1 : 0);
}

#endif /* WEFT_BENCH_EVQ_HEAP_H */
