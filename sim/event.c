#include "config.h"
#define G_LOG_DOMAIN "weft-event"
#include "sim/event.h"

#define D WEFT_EVQ_ARITY

static inline gboolean
before (const WeftEvent *a, const WeftEvent *b)
{
    return a->at < b->at || (a->at == b->at && a->key < b->key);
}

void
weft_evq_init (WeftEventQueue *q)
{
    q->cap = 1024;
    q->len = 0;
    q->heap = g_new (WeftEvent, q->cap);
}

void
weft_evq_clear (WeftEventQueue *q)
{
    g_clear_pointer (&q->heap, g_free);
    q->len = q->cap = 0;
}

void
weft_evq_push (WeftEventQueue *q, const WeftEvent *ev)
{
    if (G_UNLIKELY (q->len == q->cap)) {
        q->cap *= 2;
        q->heap = g_renew (WeftEvent, q->heap, q->cap);
    }
    /* Sift up with a hole: move parents down until ev fits, then write it once. */
    gsize i = q->len++;
    WeftEvent *h = q->heap;
    while (i > 0) {
        gsize parent = (i - 1) / D;
        if (!before (ev, &h[parent]))
            break;
        h[i] = h[parent];
        i = parent;
    }
    h[i] = *ev;
}

gboolean
weft_evq_pop (WeftEventQueue *q, WeftEvent *out)
{
    if (q->len == 0)
        return FALSE;
    WeftEvent *h = q->heap;
    *out = h[0];
    gsize n = --q->len;
    if (n == 0)
        return TRUE;
    /* Sift the last record down from the root, again with a hole. */
    WeftEvent last = h[n];
    gsize i = 0;
    for (;;) {
        gsize first = i * D + 1;
        if (first >= n)
            break;
        gsize best = first;
        gsize end = first + D < n ? first + D : n;
        for (gsize c = first + 1; c < end; c++)
            if (before (&h[c], &h[best]))
                best = c;
        if (!before (&h[best], &last))
            break;
        h[i] = h[best];
        i = best;
    }
    h[i] = last;
    return TRUE;
}
