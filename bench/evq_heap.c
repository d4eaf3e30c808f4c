#include "config.h"
#include "bench/evq_heap.h"

#include <stdlib.h>
#include <string.h>

#define D 4

static inline gboolean
before (const EvqHeap *q, const EvqHeapEntry *a, const EvqHeapEntry *b)
{
    if (a->at != b->at)
        return a->at < b->at;
    if (a->id != b->id)
        return a->id < b->id;
    return q->rec[a->slot].key < q->rec[b->slot].key; /* same object, same time */
}

static void
heap_alloc (EvqHeap *q, gsize cap)
{
    /* D - 1 spare entries in front, so that heap + 1 - and every sibling group - starts on a
     * cache-line boundary. */
    void *mem = NULL;
    if (posix_memalign (&mem, 64, (cap + D) * sizeof (EvqHeapEntry)) != 0)
        g_error ("event queue: out of memory for %" G_GSIZE_FORMAT " events", cap);
    EvqHeapEntry *heap = (EvqHeapEntry *) mem + (D - 1);
    if (q->heap_mem) {
        memcpy (heap, q->heap, q->len * sizeof (EvqHeapEntry));
        free (q->heap_mem);
    }
    q->heap_mem = mem;
    q->heap = heap;
    q->cap = cap;
}

static void
rec_grow (EvqHeap *q)
{
    gsize old = q->cap_rec, cap = old ? old * 2 : 1024;
    q->rec = g_renew (EvqHeapRecord, q->rec, cap);
    q->free_slots = g_renew (guint32, q->free_slots, cap);
    /* Lowest slots on top of the stack, so a small queue stays in a few lines. */
    for (gsize s = cap; s-- > old;)
        q->free_slots[q->n_free++] = (guint32) s;
    q->cap_rec = cap;
}

void
evq_heap_init (EvqHeap *q)
{
    *q = (EvqHeap){ 0 };
    heap_alloc (q, 1024);
    rec_grow (q);
}

void
evq_heap_clear (EvqHeap *q)
{
    free (q->heap_mem);
    g_free (q->rec);
    g_free (q->free_slots);
    *q = (EvqHeap){ 0 };
}

/* Index of the earliest of the @k entries from @first. */
static inline gsize
min_child (const EvqHeap *q, gsize first, gsize k)
{
    const EvqHeapEntry *h = q->heap;
    if (G_LIKELY (k == 4)) {
        /* A full group of four: a tournament of three comparisons, no loop. */
        gsize a = before (q, &h[first + 1], &h[first]) ? first + 1 : first;
        gsize b = before (q, &h[first + 3], &h[first + 2]) ? first + 3 : first + 2;
        return before (q, &h[b], &h[a]) ? b : a;
    }
    gsize best = first;
    for (gsize c = first + 1; c < first + k; c++)
        if (before (q, &h[c], &h[best]))
            best = c;
    return best;
}

/* Places @e at position @i of a heap of @n entries, moving smaller children up. */
static inline void
sift_down (EvqHeap *q, gsize n, gsize i, EvqHeapEntry e)
{
    EvqHeapEntry *h = q->heap;
    for (;;) {
        gsize first = i * D + 1;
        if (first >= n)
            break;
        gsize best = min_child (q, first, first + D <= n ? D : n - first);
        if (!before (q, &h[best], &e))
            break;
        h[i] = h[best];
        i = best;
    }
    h[i] = e;
}

static void
settle (EvqHeap *q)
{
    if (!q->hole)
        return;
    q->hole = FALSE;
    gsize n = --q->len;
    if (n > 0)
        sift_down (q, n, 0, q->heap[n]);
}

void
evq_heap_push (EvqHeap *q, const WeftEvent *ev)
{
    if (G_UNLIKELY (q->n_free == 0))
        rec_grow (q);
    guint32 slot = q->free_slots[--q->n_free];
    q->rec[slot] = (EvqHeapRecord){ ev->key, ev->fn, ev->target, ev->arg };
    EvqHeapEntry e = { ev->at, (guint32) (ev->key >> 32), slot };
    if (q->hole) {
        /* Refill the root left by the last pop: one sift-down does both operations. */
        q->hole = FALSE;
        sift_down (q, q->len, 0, e);
        return;
    }
    if (G_UNLIKELY (q->len == q->cap))
        heap_alloc (q, q->cap * 2);
    /* Sift up: move parents down until e fits, then write it once. */
    gsize i = q->len++;
    EvqHeapEntry *h = q->heap;
    while (i > 0) {
        gsize parent = (i - 1) / D;
        if (!before (q, &e, &h[parent]))
            break;
        h[i] = h[parent];
        i = parent;
    }
    h[i] = e;
}

gboolean
evq_heap_pop (EvqHeap *q, WeftEvent *out)
{
    settle (q);
    if (q->len == 0)
        return FALSE;
    const EvqHeapEntry *top = &q->heap[0];
    const EvqHeapRecord *r = &q->rec[top->slot];
    *out = (WeftEvent){ top->at, r->key, r->fn, r->target, r->arg };
    q->free_slots[q->n_free++] = top->slot;
    q->hole = TRUE;
    return TRUE;
}
