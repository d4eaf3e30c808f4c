#include "config.h"
#define G_LOG_DOMAIN "weft-event"
#include "sim/event.h"

#include <string.h>

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
    b->min = MIN (b->min, ev->at); /* a store either way: a conditional move, not a branch */
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

/* The child of heap position @i of @h (@n long) with the lesser key (n or more: none).  Which
 * child that is follows the keys, not a pattern a predictor learns: a conditional move picks it,
 * where the branch mispredicted on 27 % of the levels in valgrind's branch simulation of the
 * flagship (bench/README.md, "The event queue's branches"). */
static inline guint32
lesser_child (const WeftEvent *h, guint32 n, guint32 i)
{
    guint32 c = 2 * i + 1;
    if (c + 1 >= n)
        return c;
    guint64 left = h[c].key, right = h[c + 1].key;
    return c + (guint32) (right < left);
}

/* Puts @ev at heap position @i of @h (@n long), moving it down past smaller keys. */
static inline void
sift_down (WeftEvent *h, guint32 n, guint32 i, const WeftEvent *ev)
{
    for (;;) {
        guint32 c = lesser_child (h, n, i);
        if (c >= n)
            break;
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
        guint32 c = lesser_child (h, n, i);
        if (c >= n)
            break;
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

/* Bucket 0 indexed by scheduling id.  Where thousands of events share a picosecond (k = 32's
 * lockstep fabric) the heap's pop sifts through ~12 levels of 40-byte records; keys are
 * (id << 32) | low with dense ids, so bucket 0 can instead be a bitmap of the ids holding
 * events (64-bit words, one level summarising the next: find-first-set from the top word down)
 * and, per id, a circular list of its events sorted by key (z->tail[id] is its last node,
 * whose next is the first).  A pop takes the least key (kept: z->min), unlinks it and finds
 * the next - its id's next event, or the next set bit; a push sets bits and links the node
 * into its id's list, usually alone or at its end.  Nodes come from a free list that hands
 * out the last freed first (a handler's pushes reuse the line its event was popped from), and
 * in order from the first once the index runs dry (a refill's writes stream).  The heap is
 * kept while bucket 0 is small (most runs: a heap of a few records is cheaper than any
 * index), the index taken when it grows past z->threshold, and the heap again once it runs
 * dry.  Both pop the least key, keys being unique: the order of pops is the same. */

#define NONE G_MAXUINT32
/* Nodes an insertion into an id's list walks before it gives the index up for the heap (until
 * bucket 0 runs dry): insertions land at a list's end or front but for an id whose key ranges
 * (models/link.h) interleave, which is short; this bounds the rare long one. */
#define MAX_WALK 32u
#define MAX_INDEXED_ID ((1u << 24) - 1)

static inline guint32
node_alloc (WeftEvqIndex *z)
{
    guint32 n = z->free;
    if (n != NONE) {
        z->free = z->node[n].next;
        return n;
    }
    if (G_UNLIKELY (z->n_node == z->cap_node)) {
        z->cap_node = z->cap_node ? z->cap_node * 2 : 1024;
        z->node = g_renew (WeftEvqNode, z->node, z->cap_node);
    }
    return z->n_node++;
}

static inline void
node_free (WeftEvqIndex *z, guint32 n)
{
    z->node[n].next = z->free;
    z->free = n;
}

static inline void
bit_set (WeftEvqIndex *z, guint32 id)
{
    for (guint32 l = 0; l < z->levels; l++) {
        guint64 *w = &z->bits[l][id >> 6];
        guint64 old = *w;
        *w = old | G_GUINT64_CONSTANT (1) << (id & 63);
        if (old)
            return;
        id >>= 6;
    }
}

/* Clears the bit of @id, the least id holding events, and returns the next least (NONE when
 * none is left).  Where a word keeps a bit set, every bit below the one cleared is clear (@id
 * was the least): its first set bit is the next, and the way down from there is the first set
 * bits of the levels below. */
static inline guint32
bit_clear_next (WeftEvqIndex *z, guint32 id)
{
    guint32 l = 0;
    guint64 w;
    for (;;) {
        guint64 *p = &z->bits[l][id >> 6];
        w = *p &= ~(G_GUINT64_CONSTANT (1) << (id & 63));
        if (w)
            break;
        id >>= 6;
        if (++l == z->levels)
            return NONE;
    }
    id = (id & ~63u) | (guint32) __builtin_ctzll (w);
    while (l-- > 0)
        id = (id << 6) | (guint32) __builtin_ctzll (z->bits[l][id]);
    return id;
}

/* Makes the index hold ids up to @id, keeping what it holds; FALSE if that is more than it
 * indexes. */
static gboolean
index_grow (WeftEvqIndex *z, guint32 id)
{
    if (id > MAX_INDEXED_ID)
        return FALSE;
    guint32 cap = MAX (z->cap_ids, 64u); /* a power of two above id */
    while (cap <= id)
        cap *= 2;
    guint32 levels = 1;
    for (guint64 span = 64; span < cap; span *= 64)
        levels++;
    gsize old_words = z->cap_ids / 64, words = cap / 64, below = 0;
    for (guint32 l = 0; l < levels; l++) {
        if (l >= z->levels)
            old_words = 0;
        z->bits[l] = g_renew (guint64, z->bits[l], words);
        memset (z->bits[l] + old_words, 0, (words - old_words) * sizeof (guint64));
        if (l >= z->levels && l > 0) /* a new level: summarise the one below */
            for (gsize i = 0; i < below; i++)
                if (z->bits[l - 1][i])
                    z->bits[l][i >> 6] |= G_GUINT64_CONSTANT (1) << (i & 63);
        below = words;
        old_words = (old_words + 63) / 64;
        words = (words + 63) / 64;
    }
    z->levels = levels;
    z->tail = g_renew (guint32, z->tail, cap);
    z->cap_ids = cap;
    return TRUE;
}

/* Links @ev into its id's list; FALSE (nothing changed) if its id is beyond what the index
 * holds or the insertion would walk too far. */
static inline gboolean
index_insert (WeftEvqIndex *z, const WeftEvent *ev)
{
    const guint64 key = ev->key;
    const guint32 id = (guint32) (key >> 32);
    if (G_UNLIKELY (id >= z->cap_ids) && !index_grow (z, id))
        return FALSE;
    const guint32 n = node_alloc (z);
    WeftEvqNode *nd = z->node;
    guint32 *tail = &z->tail[id];
    nd[n].ev = *ev;
    if (!(z->bits[0][id >> 6] & G_GUINT64_CONSTANT (1) << (id & 63))) {
        nd[n].next = n;
        *tail = n;
        bit_set (z, id);
    } else {
        /* a circular list: the tail's next is the head */
        const guint32 t = *tail, h = nd[t].next;
        if (key > nd[t].ev.key) {
            nd[n].next = h;
            nd[t].next = n;
            *tail = n;
        } else if (key < nd[h].ev.key) {
            nd[n].next = h;
            nd[t].next = n;
        } else {
            guint32 p = h;
            for (guint32 steps = 0; nd[nd[p].next].ev.key < key; steps++) {
                if (G_UNLIKELY (steps == MAX_WALK)) {
                    node_free (z, n);
                    return FALSE;
                }
                p = nd[p].next;
            }
            nd[n].next = nd[p].next;
            nd[p].next = n;
        }
    }
    z->count++;
    if (key < z->min_key) {
        z->min = n;
        z->min_key = key;
    }
    return TRUE;
}

/* Removes the least event (count > 0) into *out. */
static inline void
index_pop (WeftEvqIndex *z, WeftEvent *out)
{
    WeftEvqNode *nd = z->node;
    const guint32 n = z->min;
    *out = nd[n].ev;
    const guint32 id = (guint32) (out->key >> 32);
    const guint32 t = z->tail[id];
    guint32 next;
    if (t == n) { /* it was its id's only event */
        guint32 next_id = bit_clear_next (z, id);
        next = next_id != NONE ? z->node[z->tail[next_id]].next : NONE;
    } else
        next = nd[t].next = nd[n].next;
    z->min = next;
    if (--z->count > 0) {
        node_free (z, n);
        z->min_key = nd[next].ev.key;
    } else {
        /* empty: the next index allocates its nodes in order from the first */
        z->n_node = 0;
        z->free = NONE;
        z->min_key = G_MAXUINT64;
    }
}

/* Moves every indexed event into b[0] (empty while the index holds events) in key order,
 * which is a heap. */
static void
index_spill (WeftEventQueue *q)
{
    WeftEvent ev;
    while (q->z.count) {
        index_pop (&q->z, &ev);
        bucket_append (&q->b[0], &ev);
    }
}

/* Makes bucket @b a heap (Floyd: sifting down from the last parent up). */
static void
heapify (WeftEvqBucket *b)
{
    for (guint32 k = b->len / 2; k-- > 0;) {
        WeftEvent ev = b->v[k];
        sift_down (b->v, b->len, k, &ev);
    }
}

/* The heap b[0] has grown past the threshold: moves its events into the index, unless an id
 * is beyond what the index holds or an insertion would walk too far; then b[0] stays a heap
 * until it runs dry. */
static void
index_fill (WeftEventQueue *q)
{
    WeftEvqBucket *b = &q->b[0];
    guint32 k = 0;
    while (k < b->len && index_insert (&q->z, &b->v[k]))
        k++;
    if (k == b->len) {
        b->len = 0;
        return;
    }
    memmove (b->v, b->v + k, (b->len - k) * sizeof *b->v);
    b->len -= k;
    index_spill (q);
    heapify (b);
    q->z.threshold = NONE;
}

/* Pushes @ev at the current picosecond while bucket 0 is indexed, or gives the index up for
 * the heap until bucket 0 runs dry.  Out of line, as is index_pop_next: the heap's paths,
 * which every run takes, keep their registers. */
static G_GNUC_NO_INLINE void
index_push (WeftEventQueue *q, const WeftEvent *ev)
{
    if (G_UNLIKELY (!index_insert (&q->z, ev))) {
        /* an id beyond the index, or a long walk */
        index_spill (q);
        q->z.threshold = NONE;
        zero_push (&q->b[0], ev);
    }
}

/* weft_evq_pop while bucket 0 is indexed. */
static G_GNUC_NO_INLINE void
index_pop_next (WeftEventQueue *q, WeftEvent *out)
{
    index_pop (&q->z, out);
    q->len--;
    /* as in weft_evq_pop; the next record is the index's least, q->z.node[q->z.min] */
    if (q->z.count > 0) {
        __builtin_prefetch (q->z.node[q->z.min].ev.target);
        __builtin_prefetch (q->z.node[q->z.min].ev.arg.ptr);
    }
}

/* A small refill taken whole.  Where the lowest non-empty bucket i holds a few records, the
 * refill spreads them over buckets below i, each of which is refilled in turn: on the flagship
 * 7.7 records a refill, each moved ~2.9 times after its push (bench/README.md).  Every record
 * of bucket i comes before every record of the buckets above it (the radix heap's invariant),
 * so bucket i's records sorted by (time, key) can be popped in that order instead, while the
 * queue's time follows the run's head: the buckets above i stay right, their records differing
 * from every time of bucket i's range in the same bit.  A push whose bucket is below i lies in
 * that range and joins the run where it sorts; one that would move more than RUN_MAX_SHIFT
 * records spreads the run into the buckets as a refill would have (its records at the current
 * time, in key order, are a heap).  The run takes bucket i's array, which it sorts in place,
 * and gives bucket i its own (empty): no record is copied. */

/* Refills of at most this many records are taken whole. */
#define RUN_TAKE 16u
/* Records a push into the run moves before it spreads the run instead. */
#define RUN_MAX_SHIFT 16u

static inline gboolean
ev_before (const WeftEvent *a, const WeftEvent *b)
{
    /* a tenth of the flagship's mispredicts in valgrind's branch simulation as a two-step test */
    return weft_event_place (a->at, a->key) < weft_event_place (b->at, b->key);
}

/* Sorts @v (@n long) by (time, key): by insertion, the records mostly in order already. */
static void
run_sort (WeftEvent *v, guint32 n)
{
    for (guint32 k = 1; k < n; k++) {
        if (!ev_before (&v[k], &v[k - 1]))
            continue;
        const WeftEvent ev = v[k];
        guint32 j = k;
        do {
            v[j] = v[j - 1];
            j--;
        } while (j > 0 && ev_before (&ev, &v[j - 1]));
        v[j] = ev;
    }
}

/* Removes the run's head (the run not empty) into *out; the queue's time moves to it. */
static inline void
run_pop (WeftEventQueue *q, WeftEvent *out)
{
    WeftEvqRun *r = &q->run;
    *out = r->v[r->head++];
    q->last = out->at;
    q->len--;
    if (r->head == r->len)
        r->head = r->len = r->i = 0;
    else { /* as in weft_evq_pop */
        __builtin_prefetch (r->v[r->head].target);
        __builtin_prefetch (r->v[r->head].arg.ptr);
    }
}

/* Moves the run's records into the buckets (relative to the queue's time, at or before all of
 * them) and ends it. */
static void
run_spread (WeftEventQueue *q)
{
    WeftEvqRun *r = &q->run;
    for (guint32 k = r->head; k < r->len; k++) {
        guint j = bucket_of (q, r->v[k].at);
        if (j != 0)
            upper_append (q, j, &r->v[k]);
        else
            bucket_append (&q->b[0], &r->v[k]); /* in key order: a heap */
    }
    r->head = r->len = r->i = 0;
}

/* Makes room for one more record at the run's end: moves the records down once half the
 * array has been popped, else doubles it. */
static G_GNUC_NO_INLINE void
run_room (WeftEvqRun *r)
{
    if (r->head * 2 >= r->cap) {
        memmove (r->v, r->v + r->head, (r->len - r->head) * sizeof *r->v);
        r->len -= r->head;
        r->head = 0;
    } else {
        r->cap = r->cap ? r->cap * 2 : 64;
        r->v = g_renew (WeftEvent, r->v, r->cap);
    }
}

/* Puts @ev, which lies in the run's range, into the run where it sorts; FALSE (the run spread
 * into the buckets, @ev not pushed) if that would move too many records. */
static G_GNUC_NO_INLINE gboolean
run_push (WeftEventQueue *q, const WeftEvent *ev)
{
    WeftEvqRun *r = &q->run;
    if (G_UNLIKELY (r->len == r->cap))
        run_room (r);
    WeftEvent *v = r->v;
    const guint32 len = r->len, head = r->head;
    if (G_LIKELY (!ev_before (ev, &v[len - 1]))) { /* at the end, most pushes */
        v[len] = *ev;
        r->len = len + 1;
        return TRUE;
    }
    guint32 k = len - 1;
    const guint32 stop = len - head > RUN_MAX_SHIFT ? len - RUN_MAX_SHIFT : head;
    while (k > stop && ev_before (ev, &v[k - 1]))
        k--;
    if (G_UNLIKELY (k > head && ev_before (ev, &v[k - 1]))) {
        run_spread (q);
        return FALSE;
    }
    if (k == head && head > 0) { /* before the head, where a pop left room */
        v[head - 1] = *ev;
        r->head = head - 1;
        return TRUE;
    }
    for (guint32 j = len; j > k; j--)
        v[j] = v[j - 1];
    v[k] = *ev;
    r->len = len + 1;
    return TRUE;
}

void
weft_evq_init (WeftEventQueue *q)
{
    *q = (WeftEventQueue){ 0 };
    for (guint i = 0; i < WEFT_EVQ_BUCKETS; i++)
        q->b[i].min = WEFT_TIME_NEVER;
    q->z.threshold = q->z.index_at = WEFT_EVQ_INDEX_THRESHOLD;
    q->z.min = q->z.free = NONE;
    q->z.min_key = G_MAXUINT64;
}

void
weft_evq_set_index_threshold (WeftEventQueue *q, guint32 threshold)
{
    index_spill (q);
    q->z.threshold = q->z.index_at = threshold;
    if (q->b[0].len > threshold)
        index_fill (q);
}

void
weft_evq_clear (WeftEventQueue *q)
{
    for (guint i = 0; i < WEFT_EVQ_BUCKETS; i++)
        g_free (q->b[i].v);
    g_free (q->run.v);
    g_free (q->z.node);
    g_free (q->z.tail);
    for (guint l = 0; l < WEFT_EVQ_LEVELS; l++)
        g_free (q->z.bits[l]);
    guint32 index_at = q->z.index_at;
    weft_evq_init (q);
    q->z.threshold = q->z.index_at = index_at;
}

static inline void
push (WeftEventQueue *q, const WeftEvent *ev)
{
    g_assert (ev->at >= q->last); /* nothing is scheduled in the past */
    guint i = bucket_of (q, ev->at);
    q->len++;
    /* A push into a held run's range (below its bucket) joins it; none while bucket 0 is
     * indexed, so that path, k = 32's, does not look. */
    if (i != 0) {
        if (i < q->run.i && run_push (q, ev))
            return;
        upper_append (q, i, ev);
    } else if (q->z.count == 0) {
        if (q->run.i && run_push (q, ev))
            return;
        zero_push (&q->b[0], ev);
        if (G_UNLIKELY (q->b[0].len > q->z.threshold))
            index_fill (q);
    } else
        index_push (q, ev);
}

void
weft_evq_push (WeftEventQueue *q, const WeftEvent *ev)
{
    push (q, ev);
}

void
weft_evq_schedule (WeftEventQueue *q, weft_time_t at, guint64 key, WeftHandler fn, void *target,
                   WeftArg arg)
{
    const WeftEvent ev = { at, key, fn, target, arg };
    push (q, &ev);
}

/* Bucket 0 is empty: move the time forward to the earliest pending event and spread the
 * lowest non-empty bucket below it.  FALSE when nothing is pending.  The events that land in
 * bucket 0 are appended and made a heap once (Floyd): the same pops as pushing each, keys
 * being unique, for fewer moves; once more than the threshold have landed, they and the rest
 * go into the index instead. */
enum { REFILL_NONE, REFILL_HEAP, REFILL_INDEX, REFILL_RUN };

/* The rest of a refill once bucket 0 has been indexed (index_fill): events @k to @n - 1 of @v
 * into the index (or b[0], if the index gave up). */
static G_GNUC_NO_INLINE guint
refill_indexed (WeftEventQueue *q, const WeftEvent *v, guint32 k, guint32 n)
{
    WeftEvqBucket *z = &q->b[0];
    for (; k < n; k++) {
        const WeftEvent *ev = &v[k];
        guint j = bucket_of (q, ev->at);
        if (j != 0)
            upper_append (q, j, ev);
        else if (q->z.count > 0)
            index_push (q, ev);
        else
            bucket_append (z, ev);
    }
    if (q->z.count > 0)
        return REFILL_INDEX;
    heapify (z);
    return REFILL_HEAP;
}

static guint
refill (WeftEventQueue *q)
{
    if (q->nonempty == 0)
        return REFILL_NONE;
    q->z.threshold = q->z.index_at;
    guint i = (guint) __builtin_ctzll (q->nonempty) + 1;
    WeftEvqBucket *b = &q->b[i];
    q->last = b->min;
    q->nonempty &= ~(G_GUINT64_CONSTANT (1) << (i - 1));
    /* Every event of bucket i now differs from the new time in a lower bit (or not at all):
     * they all move to buckets below i, so b is not appended to while it is read. */
    guint32 n = b->len;
    b->len = 0;
    b->min = WEFT_TIME_NEVER;
    if (n <= RUN_TAKE) { /* taken whole: the run and bucket i swap arrays */
        WeftEvqRun *r = &q->run;
        WeftEvent *v = b->v;
        guint32 cap = b->cap;
        b->v = r->v;
        b->cap = r->cap;
        r->v = v;
        r->cap = cap;
        r->head = 0;
        r->len = n;
        r->i = i;
        run_sort (v, n);
        return REFILL_RUN;
    }
    WeftEvqBucket *z = &q->b[0];
    const WeftEvent *v = b->v;
    const weft_time_t last = q->last; /* a local: the appends' stores cannot change it */
    for (guint32 k = 0; k < n; k++) {
        const WeftEvent *ev = &v[k];
        guint j = ev->at == last ? 0 : 64 - (guint) __builtin_clzll (ev->at ^ last);
        if (j != 0)
            upper_append (q, j, ev);
        else {
            bucket_append (z, ev);
            if (G_UNLIKELY (z->len > q->z.threshold)) {
                index_fill (q);
                return refill_indexed (q, v, k + 1, n);
            }
        }
    }
    if (z->len > 1)
        heapify (z);
    return REFILL_HEAP;
}

void
weft_evq_rewind (WeftEventQueue *q, weft_time_t t)
{
    if (t >= q->last)
        return;
    index_spill (q);
    q->z.threshold = q->z.index_at;
    GArray *all = g_array_sized_new (FALSE, FALSE, sizeof (WeftEvent), (guint) q->len);
    g_array_append_vals (all, q->run.v + q->run.head, q->run.len - q->run.head);
    q->run.head = q->run.len = q->run.i = 0;
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
    if (q->b[0].len == 0) {
        guint got = q->z.count > 0 ? REFILL_INDEX : q->run.i ? REFILL_RUN : refill (q);
        if (got != REFILL_HEAP) {
            if (got == REFILL_NONE)
                return FALSE;
            if (got == REFILL_RUN)
                run_pop (q, out);
            else
                index_pop_next (q, out);
            return TRUE;
        }
    }
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
    if (q->b[0].len == 0 && q->z.count == 0 && q->run.i == 0) {
        if (q->nonempty == 0)
            return FALSE;
        /* Look at the earliest time before moving the queue's time to it (refill). */
        weft_time_t min = q->b[__builtin_ctzll (q->nonempty) + 1].min;
        if (min > end_at || (min == end_at && end_key == 0))
            return FALSE;
        refill (q);
    }
    const WeftEvent *head = q->run.i         ? &q->run.v[q->run.head]
                            : q->z.count > 0 ? &q->z.node[q->z.min].ev
                                             : &q->b[0].v[0];
    if (weft_event_place (head->at, head->key) >= weft_event_place (end_at, end_key))
        return FALSE;
    return weft_evq_pop (q, out);
}

weft_time_t
weft_evq_peek_at (const WeftEventQueue *q)
{
    if (q->run.i)
        return q->run.v[q->run.head].at;
    if (q->b[0].len > 0 || q->z.count > 0)
        return q->last;
    if (q->nonempty == 0)
        return WEFT_TIME_NEVER;
    return q->b[__builtin_ctzll (q->nonempty) + 1].min;
}

gsize
weft_evq_drop_stale (WeftEventQueue *q, weft_time_t after, WeftEvqStale stale, void *data)
{
    gsize dropped = 0;
    gboolean kept = FALSE;
    /* Top down: a higher bucket's records all come after a lower one's, so the latest stale
     * record is in the first bucket that holds one.  A bucket's records are in no order: the
     * one kept so far is overwritten in place by a later one.  @stale reads each record's
     * target (a flow gone cold), so it runs once a record. */
    for (guint i = WEFT_EVQ_BUCKETS; i-- > 1;) {
        WeftEvqBucket *b = &q->b[i];
        if (b->len == 0 || b->min <= after || i == q->run.i)
            continue;
        WeftEvent *v = b->v;
        guint32 out = 0, keep = G_MAXUINT32; /* keep: where this bucket's kept one is */
        for (guint32 k = 0; k < b->len; k++) {
            if (stale (&v[k], data)) {
                if (kept && keep == G_MAXUINT32) { /* a later one was kept above */
                    dropped++;
                    continue;
                }
                kept = TRUE;
                if (keep != G_MAXUINT32) {
                    dropped++;
                    if (ev_before (&v[k], &v[keep]))
                        continue;
                    v[keep] = v[k];
                    continue;
                }
                keep = out;
            }
            v[out++] = v[k];
        }
        weft_time_t min = WEFT_TIME_NEVER;
        for (guint32 k = 0; k < out; k++)
            min = MIN (min, v[k].at);
        b->len = out;
        b->min = min;
        if (out == 0)
            q->nonempty &= ~(G_GUINT64_CONSTANT (1) << (i - 1));
    }
    q->len -= dropped;
    return dropped;
}
