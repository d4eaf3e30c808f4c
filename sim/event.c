#include "config.h"
#define G_LOG_DOMAIN "weft-event"
#include "sim/event.h"

static inline guint
bucket_of (const WeftEventQueue *q, weft_time_t at)
{
    return at == q->last ? 0 : 64 - (guint) __builtin_clzll (at ^ q->last);
}

static inline void
bucket_append (WeftEvqBucket *b, const WeftEvent *ev)
{
    if (G_UNLIKELY (b->len == b->cap)) {
        b->cap = b->cap ? b->cap * 2 : 64;
        b->v = g_renew (WeftEvent, b->v, b->cap);
    }
    b->v[b->len++] = *ev;
}

/* A bucket above 0: appended to, its earliest time kept, so a refill does not scan for it. */
static inline void
upper_append (WeftEventQueue *q, guint i, const WeftEvent *ev)
{
    WeftEvqBucket *b = &q->b[i];
    bucket_append (b, ev);
    if (ev->at < b->min)
        b->min = ev->at;
    q->nonempty |= G_GUINT64_CONSTANT (1) << (i - 1);
}

/* Bucket 0 is a binary min-heap on the key (all its events share one time). */
static void
zero_push (WeftEvqBucket *b, const WeftEvent *ev)
{
    bucket_append (b, ev);
    WeftEvent *h = b->v;
    guint32 i = b->len - 1;
    while (i > 0) {
        guint32 parent = (i - 1) / 2;
        if (h[parent].key <= ev->key)
            break;
        h[i] = h[parent];
        i = parent;
    }
    h[i] = *ev;
}

/* Puts @ev at heap position @i of @h (@n long), moving it down past smaller keys. */
static inline void
sift_down (WeftEvent *h, guint32 n, guint32 i, const WeftEvent *ev)
{
    for (;;) {
        guint32 c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && h[c + 1].key < h[c].key)
            c++;
        if (h[c].key >= ev->key)
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = *ev;
}

/* Removes the root of @h, @n long after, by moving the lesser child up level by level to a
 * leaf and then the last record, h[n], up from that leaf (Floyd's bottom-up variant): the
 * last record belongs near the bottom, so this compares less than sifting it down from the
 * root. */
static void
zero_pop (WeftEvqBucket *b, WeftEvent *out)
{
    WeftEvent *h = b->v;
    *out = h[0];
    guint32 n = --b->len;
    if (n == 0)
        return;
    guint32 i = 0;
    for (;;) {
        guint32 c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && h[c + 1].key < h[c].key)
            c++;
        h[i] = h[c];
        i = c;
    }
    const guint64 key = h[n].key;
    while (i > 0) {
        guint32 parent = (i - 1) / 2;
        if (h[parent].key <= key)
            break;
        h[i] = h[parent];
        i = parent;
    }
    h[i] = h[n];
}

void
weft_evq_init (WeftEventQueue *q)
{
    *q = (WeftEventQueue){ 0 };
    for (guint i = 0; i < WEFT_EVQ_BUCKETS; i++)
        q->b[i].min = WEFT_TIME_NEVER;
}

void
weft_evq_clear (WeftEventQueue *q)
{
    for (guint i = 0; i < WEFT_EVQ_BUCKETS; i++)
        g_free (q->b[i].v);
    weft_evq_init (q);
}

void
weft_evq_push (WeftEventQueue *q, const WeftEvent *ev)
{
    g_assert (ev->at >= q->last); /* nothing is scheduled in the past */
    guint i = bucket_of (q, ev->at);
    q->len++;
    if (i == 0)
        zero_push (&q->b[0], ev);
    else
        upper_append (q, i, ev);
}

/* Bucket 0 is empty: move the time forward to the earliest pending event and spread the
 * lowest non-empty bucket below it.  FALSE when nothing is pending.  The events that land in
 * bucket 0 are appended and made a heap once (Floyd): the same pops as pushing each, keys
 * being unique, for fewer moves. */
static gboolean
refill (WeftEventQueue *q)
{
    if (q->nonempty == 0)
        return FALSE;
    guint i = (guint) __builtin_ctzll (q->nonempty) + 1;
    WeftEvqBucket *b = &q->b[i];
    q->last = b->min;
    q->nonempty &= ~(G_GUINT64_CONSTANT (1) << (i - 1));
    /* Every event of bucket i now differs from the new time in a lower bit (or not at all):
     * they all move to buckets below i, so b is not appended to while it is read. */
    guint32 n = b->len;
    b->len = 0;
    b->min = WEFT_TIME_NEVER;
    WeftEvqBucket *z = &q->b[0];
    for (guint32 k = 0; k < n; k++) {
        const WeftEvent *ev = &b->v[k];
        guint j = bucket_of (q, ev->at);
        if (j == 0)
            bucket_append (z, ev);
        else
            upper_append (q, j, ev);
    }
    for (guint32 k = z->len / 2; k-- > 0;) {
        WeftEvent ev = z->v[k];
        sift_down (z->v, z->len, k, &ev);
    }
    return TRUE;
}

void
weft_evq_rewind (WeftEventQueue *q, weft_time_t t)
{
    if (t >= q->last)
        return;
    GArray *all = g_array_sized_new (FALSE, FALSE, sizeof (WeftEvent), (guint) q->len);
    for (guint i = 0; i < WEFT_EVQ_BUCKETS; i++) {
        g_array_append_vals (all, q->b[i].v, q->b[i].len);
        q->b[i].len = 0;
        q->b[i].min = WEFT_TIME_NEVER;
    }
    q->nonempty = 0;
    q->len = 0;
    q->last = t;
    for (guint k = 0; k < all->len; k++)
        weft_evq_push (q, &g_array_index (all, WeftEvent, k)); /* asserts each is at or after t */
    g_array_free (all, TRUE);
}

gboolean
weft_evq_pop (WeftEventQueue *q, WeftEvent *out)
{
    if (q->b[0].len == 0 && !refill (q))
        return FALSE;
    zero_pop (&q->b[0], out);
    q->len--;
    /* The next event of this picosecond (many share one) is known now: start loading its
     * target (a port, a wire, a NIC) while this one runs, and what its argument points to: a
     * wire's arrival carries the arriving packet (models/link.c), whose line has gone cold on
     * the wire and which the target's line would otherwise have to name first.  Any other
     * argument is a number; a prefetch never faults, so that one loads nothing useful. */
    if (q->b[0].len > 0) {
        __builtin_prefetch (q->b[0].v[0].target);
        __builtin_prefetch (q->b[0].v[0].arg.ptr);
    }
    return TRUE;
}

gboolean
weft_evq_pop_before (WeftEventQueue *q, weft_time_t end_at, guint64 end_key, WeftEvent *out)
{
    if (q->b[0].len == 0) {
        if (q->nonempty == 0)
            return FALSE;
        /* Look at the earliest time before moving the queue's time to it (refill). */
        weft_time_t min = q->b[__builtin_ctzll (q->nonempty) + 1].min;
        if (min > end_at || (min == end_at && end_key == 0))
            return FALSE;
        refill (q);
    }
    const WeftEvent *head = &q->b[0].v[0];
    if (head->at > end_at || (head->at == end_at && head->key >= end_key))
        return FALSE;
    return weft_evq_pop (q, out);
}

weft_time_t
weft_evq_peek_at (const WeftEventQueue *q)
{
    if (q->b[0].len > 0)
        return q->last;
    if (q->nonempty == 0)
        return WEFT_TIME_NEVER;
    return q->b[__builtin_ctzll (q->nonempty) + 1].min;
}
