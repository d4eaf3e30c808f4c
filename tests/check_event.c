/* tests/check_event.c - the event queue and the run loop.
 *
 * Checks: events pop in (time, key) order against a sorted reference for many random events,
 * with bucket 0 a heap and indexed by scheduling id (thresholds 0, 16, the default and never;
 * changes of mode both ways; the index given up for the heap; the index grown while it holds
 * events; small refills taken whole as sorted runs, pushed into at their end, middle and head
 * and spread again, with pop_before and rewind while a run is held); stale records far ahead
 * dropped, but the latest of them, the rest popping in order;
 * ties at one time break by the scheduling object's id, then by its own counter, whatever the
 * order of scheduling; the run loop stops at `duration`, on a dry queue with work pending
 * (hang), when the watchdog sees no progress for hang_timeout (and not while progress goes on),
 * at the first sample after a dry queue's last event without the watchdog (samples alone never
 * keep a run going),
 * and when the interrupt flag is set.
 * Leaves unchecked: speed (bench/evq_hold measures it).
 */
#include "config.h"
#include <check.h>
#include <gsl/gsl_rng.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sim/event.h"
#include "sim/rng.h"
#include "sim/sim.h"
#include "tests/harness.h"

static int
cmp_event (const void *a, const void *b)
{
    const WeftEvent *x = a, *y = b;
    if (x->at != y->at)
        return x->at < y->at ? -1 : 1;
    return x->key < y->key ? -1 : x->key > y->key;
}

START_TEST (test_event_pops_in_time_then_key_order)
{
    WeftEventQueue q;
    weft_evq_init (&q);
    gsl_rng *r = weft_rng_new (7, 1);
    enum { N = 20000 };
    WeftEvent *ref = g_new (WeftEvent, N);
    for (guint i = 0; i < N; i++) {
        /* Few distinct times, so ties are common. */
        ref[i] = (WeftEvent){ .at = gsl_rng_uniform_int (r, 50),
                              .key = ((guint64) gsl_rng_uniform_int (r, 8) << 32) | i };
        weft_evq_push (&q, &ref[i]);
    }
    qsort (ref, N, sizeof *ref, cmp_event);
    WeftEvent ev;
    for (guint i = 0; i < N; i++) {
        ck_assert (weft_evq_pop (&q, &ev));
        ck_assert_uint_eq (ev.at, ref[i].at);
        ck_assert_uint_eq (ev.key, ref[i].key);
    }
    ck_assert (!weft_evq_pop (&q, &ev));
    g_free (ref);
    gsl_rng_free (r);
    weft_evq_clear (&q);
}
END_TEST

/* Pushes while popping (the simulation's pattern), at increments over many bit widths and at
 * the very time popped: every pop is the least (time, key) pending, found here by a linear
 * scan of the pending set, and peek_at and pop_before agree with it.  Exercises the buckets'
 * earliest times and bucket 0's heap as a refill builds it. */
START_TEST (test_event_interleaved_matches_linear_scan)
{
    WeftEventQueue q;
    weft_evq_init (&q);
    gsl_rng *r = weft_rng_new (11, 1);
    GArray *pend = g_array_new (FALSE, FALSE, sizeof (WeftEvent));
    guint64 next_key = 0;
    weft_time_t now = 0;
    for (guint step = 0; step < 40000; step++) {
        guint pushes = pend->len < 300 ? 2 : (guint) gsl_rng_uniform_int (r, 3);
        for (guint k = 0; k < pushes; k++) {
            guint bits = (guint) gsl_rng_uniform_int (r, 24);
            weft_time_t inc = gsl_rng_uniform_int (r, 4) == 0 ? 0 : gsl_rng_get (r) % (1u << bits);
            WeftEvent ev = { .at = now + inc,
                             .key = ((guint64) gsl_rng_uniform_int (r, 16) << 32) | next_key++ };
            weft_evq_push (&q, &ev);
            g_array_append_val (pend, ev);
        }
        guint best = 0;
        for (guint i = 1; i < pend->len; i++)
            if (cmp_event (&g_array_index (pend, WeftEvent, i),
                           &g_array_index (pend, WeftEvent, best)) < 0)
                best = i;
        WeftEvent want = g_array_index (pend, WeftEvent, best);
        ck_assert_uint_eq (weft_evq_peek_at (&q), want.at);
        WeftEvent ev;
        /* Not before the least one itself; then up to it inclusive. */
        ck_assert (!weft_evq_pop_before (&q, want.at, want.key, &ev));
        ck_assert (weft_evq_pop_before (&q, want.at, want.key + 1, &ev));
        ck_assert_uint_eq (ev.at, want.at);
        ck_assert_uint_eq (ev.key, want.key);
        g_array_remove_index_fast (pend, best);
        now = ev.at;
    }
    ck_assert_uint_eq (weft_evq_len (&q), pend->len);
    g_array_free (pend, TRUE);
    gsl_rng_free (r);
    weft_evq_clear (&q);
}
END_TEST

static gint
cmp_event_seq (gconstpointer a, gconstpointer b, gpointer unused)
{
    return cmp_event (a, b);
}

/* Pops the queue's next event and checks it is the first of the sorted reference @ref, which
 * peek_at must agree with; every 7th @step by pop_before, which must refuse the bound just at
 * that event and pop it with the bound just above.  Removes it from @ref; returns its time. */
static weft_time_t
pop_check_first (WeftEventQueue *q, GSequence *ref, guint step)
{
    GSequenceIter *first = g_sequence_get_begin_iter (ref);
    const WeftEvent *want = g_sequence_get (first);
    ck_assert_uint_eq (weft_evq_peek_at (q), want->at);
    WeftEvent ev;
    if (step % 7 == 0) {
        ck_assert (!weft_evq_pop_before (q, want->at, want->key, &ev));
        ck_assert (weft_evq_pop_before (q, want->at, want->key + 1, &ev));
    } else
        ck_assert (weft_evq_pop (q, &ev));
    ck_assert_uint_eq (ev.at, want->at);
    ck_assert_uint_eq (ev.key, want->key);
    g_sequence_remove (first);
    return ev.at;
}

/* The queue and its reference both drained: frees them and the random stream. */
static void
end_drained (WeftEventQueue *q, GSequence *ref, gsl_rng *r)
{
    ck_assert_uint_eq (g_sequence_get_length (ref), 0);
    WeftEvent ev;
    ck_assert (!weft_evq_pop (q, &ev));
    g_sequence_free (ref);
    gsl_rng_free (r);
    weft_evq_clear (q);
}

/* Thousands of events at one picosecond, as a k = 32 fat tree's synchronous arrivals give,
 * popped while more are pushed at that very picosecond (keys below and above the one just
 * popped) and later, and the queue's time now and then rewound below the pending events: each
 * pop is the first of a reference kept sorted (a GSequence), and peek_at and pop_before agree
 * with it.  Exercises bucket 0's heap at sizes of many levels, its refills from the buckets
 * above and its records' slots reused once it runs dry. */
START_TEST (test_event_many_ties_interleaved_match_sorted_reference)
{
    WeftEventQueue q;
    weft_evq_init (&q);
    gsl_rng *r = weft_rng_new (13, 1);
    GSequence *ref = g_sequence_new (g_free);
    guint64 counter = 0;
    weft_time_t now = 0;
    /* 12,000 events over three picoseconds, ids from 0 to 4999, pushed in random order. */
    for (guint i = 0; i < 12000; i++) {
        WeftEvent *ev = g_new (WeftEvent, 1);
        *ev = (WeftEvent){ .at = 1000 * gsl_rng_uniform_int (r, 3),
                           .key = ((guint64) gsl_rng_uniform_int (r, 5000) << 32) | counter++ };
        weft_evq_push (&q, ev);
        g_sequence_insert_sorted (ref, ev, cmp_event_seq, NULL);
    }
    guint max_len = 0, rewinds = 0;
    for (guint step = 0; step < 100000 && g_sequence_get_length (ref) > 0; step++) {
        now = pop_check_first (&q, ref, step);
        /* While the reference is large, 0 to 2 pushes per pop, most at this picosecond. */
        guint pushes = (guint) gsl_rng_uniform_int (r, step < 30000 ? 3 : 2);
        for (guint k = 0; k < pushes; k++) {
            WeftEvent *add = g_new (WeftEvent, 1);
            guint what = (guint) gsl_rng_uniform_int (r, 10);
            weft_time_t at = what < 8 ? now : now + 1 + gsl_rng_uniform_int (r, 1u << (2 * what));
            *add =
                (WeftEvent){ .at = at,
                             .key = ((guint64) gsl_rng_uniform_int (r, 5000) << 32) | counter++ };
            weft_evq_push (&q, add);
            g_sequence_insert_sorted (ref, add, cmp_event_seq, NULL);
        }
        max_len = MAX (max_len, (guint) weft_evq_len (&q));
        ck_assert_uint_eq (weft_evq_len (&q), (guint) g_sequence_get_length (ref));
        /* Now and then the queue's time goes back below every pending event (a duration stop). */
        if (step % 4999 == 0 && now > 0) {
            weft_evq_rewind (&q, now - 1);
            rewinds++;
        }
    }
    ck_assert_uint_ge (max_len, 12000);
    ck_assert_uint_ge (rewinds, 5);
    end_drained (&q, ref, r);
}
END_TEST

/* weft_evq_drop_stale: a test marking odd arguments stale; events near (within the first
 * microsecond) and far (a second and more ahead), stale and live, pushed in random order.  The
 * far stale ones go but the latest of them; nothing else does, and the rest pop in the order of
 * the sorted reference with them taken out, while more are pushed near and far. */
static gboolean
odd_is_stale (const WeftEvent *ev, void *data)
{
    (void) data;
    return ev->arg.u & 1;
}

/* Pushes @n events, half of them a second and more ahead, half of those stale (odd
 * arguments), into @q and the sorted reference @ref, keys numbered from *@counter; returns the
 * latest far stale one (owned by @ref) and counts the far stale ones in *@far_stale. */
static const WeftEvent *
push_near_and_far (WeftEventQueue *q, GSequence *ref, gsl_rng *r, guint n, guint64 *counter,
                   guint *far_stale)
{
    const WeftEvent *latest = NULL;
    for (guint i = 0; i < n; i++) {
        WeftEvent *ev = g_new (WeftEvent, 1);
        gboolean far = gsl_rng_uniform_int (r, 2);
        *ev = (WeftEvent){ .at = far ? WEFT_MS (1000) + gsl_rng_uniform_int (r, 1u << 30)
                                     : gsl_rng_uniform_int (r, 1000000),
                           .key = ((guint64) gsl_rng_uniform_int (r, 64) << 32) | (*counter)++,
                           .arg.u = gsl_rng_uniform_int (r, 2) };
        weft_evq_push (q, ev);
        g_sequence_insert_sorted (ref, ev, cmp_event_seq, NULL);
        if (far && (ev->arg.u & 1)) {
            (*far_stale)++;
            if (!latest || cmp_event (latest, ev) < 0)
                latest = ev;
        }
    }
    return latest;
}

START_TEST (test_event_drop_stale_keeps_the_latest_and_the_order)
{
    WeftEventQueue q;
    weft_evq_init (&q);
    GSequence *ref = g_sequence_new (g_free);
    gsl_rng *r = weft_rng_new (17, 1);
    guint64 counter = 0;
    guint far_stale = 0;
    const WeftEvent *latest = push_near_and_far (&q, ref, r, 6000, &counter, &far_stale);
    weft_time_t now = 0;
    for (guint step = 0; step < 100; step++)
        now = pop_check_first (&q, ref, step);
    /* Every far stale event but the latest goes, out of the reference too. */
    ck_assert_uint_gt (far_stale, 1000);
    ck_assert_uint_eq (weft_evq_drop_stale (&q, now + WEFT_MS (1), odd_is_stale, NULL),
                       far_stale - 1);
    for (GSequenceIter *it = g_sequence_get_begin_iter (ref); !g_sequence_iter_is_end (it);) {
        const WeftEvent *ev = g_sequence_get (it);
        GSequenceIter *next = g_sequence_iter_next (it);
        if (ev->at > now + WEFT_MS (1) && (ev->arg.u & 1) && ev != latest)
            g_sequence_remove (it);
        it = next;
    }
    ck_assert_uint_eq (weft_evq_len (&q), (guint) g_sequence_get_length (ref));
    /* Again: only the latest is stale and far, and it stays. */
    ck_assert_uint_eq (weft_evq_drop_stale (&q, now + WEFT_MS (1), odd_is_stale, NULL), 0);
    /* The rest pops in order, with near and far live events pushed meanwhile. */
    for (guint step = 0; g_sequence_get_length (ref) > 0; step++) {
        now = pop_check_first (&q, ref, step);
        if (step % 3 == 0) {
            WeftEvent *add = g_new (WeftEvent, 1);
            *add = (WeftEvent){ .at = now + gsl_rng_uniform_int (r, step % 2 ? 1000 : 1u << 30),
                                .key = ((guint64) gsl_rng_uniform_int (r, 64) << 32) | counter++ };
            weft_evq_push (&q, add);
            g_sequence_insert_sorted (ref, add, cmp_event_seq, NULL);
        }
    }
    end_drained (&q, ref, r);
}
END_TEST

/* Small refills taken whole (sim/event.c): the flagship's pattern of pushes at a few fixed
 * delays (a sorted FIFO each, nearly), some far ahead and some at the current picosecond with
 * keys below and above the last popped, against a sorted reference; with few records pending
 * (most refills become runs) and many (most spread).  Pushes land in a held run at its end, in
 * its middle, before its head and at its head's picosecond, and far enough back that the run
 * is spread into the buckets; pop_before (every 7th pop) and rewind find a run held.  Each of
 * these must have happened; a wrong pop fails at once. */
START_TEST (test_event_small_refills_match_sorted_reference)
{
    static const weft_time_t delays[] = { 14, 120, 2276, 2290, 9160, 11450, 82000 };
    static const guint targets[] = { 12, 60, 400, 3000 };
    guint held = 0, inside = 0, at_end = 0, front = 0, spread = 0, rewinds_held = 0;
    guint before_held = 0;
    for (guint ti = 0; ti < G_N_ELEMENTS (targets); ti++) {
        WeftEventQueue q;
        weft_evq_init (&q);
        gsl_rng *r = weft_rng_new (29 + ti, 1);
        GSequence *ref = g_sequence_new (g_free);
        guint64 counter = 0;
        weft_time_t now = 0;
        for (guint step = 0; step < 60000; step++) {
            guint pend = (guint) g_sequence_get_length (ref);
            guint pushes = pend < targets[ti] ? 2 + (guint) gsl_rng_uniform_int (r, 3)
                                              : (guint) gsl_rng_uniform_int (r, 2);
            for (guint k = 0; k < pushes; k++) {
                WeftEvent *add = g_new (WeftEvent, 1);
                guint what = (guint) gsl_rng_uniform_int (r, 20);
                weft_time_t at = what < 13   ? now + delays[what % G_N_ELEMENTS (delays)]
                                 : what < 16 ? now
                                 : what < 19 ? now + gsl_rng_uniform_int (r, 1u << 14)
                                             : now + gsl_rng_uniform_int (r, 1u << 30);
                /* ids 0..63, counters rising; now and then a key below the rest (a wire's) */
                guint64 low =
                    gsl_rng_uniform_int (r, 8) == 0
                        ? (guint64) gsl_rng_uniform_int (r, 1u << 20) << 8 | (counter & 0xff)
                        : 0x80000000u | counter;
                counter++;
                *add = (WeftEvent){ .at = at,
                                    .key = ((guint64) gsl_rng_uniform_int (r, 64) << 32) | low };
                if (g_sequence_lookup (ref, add, cmp_event_seq, NULL)) { /* keys are unique */
                    g_free (add);
                    continue;
                }
                guint32 was = q.run.i, before = q.run.len - q.run.head;
                weft_evq_push (&q, add);
                g_sequence_insert_sorted (ref, add, cmp_event_seq, NULL);
                if (was && !q.run.i)
                    spread++;
                else if (was && q.run.len - q.run.head == before + 1) {
                    const WeftEvent *tail = &q.run.v[q.run.len - 1];
                    const WeftEvent *head = &q.run.v[q.run.head];
                    if (tail->key == add->key && tail->at == add->at)
                        at_end++;
                    else if (head->key == add->key && head->at == add->at)
                        front++;
                    else
                        inside++;
                }
            }
            if (g_sequence_get_length (ref) == 0)
                continue;
            held += q.run.i != 0;
            before_held += q.run.i != 0 && step % 7 == 0;
            now = pop_check_first (&q, ref, step);
            ck_assert_uint_eq (weft_evq_len (&q), (guint) g_sequence_get_length (ref));
            if (step % 997 == 0 && now > 0) {
                rewinds_held += q.run.i != 0;
                weft_evq_rewind (&q, now - 1 - gsl_rng_uniform_int (r, MIN (now, 100)));
            }
        }
        while (g_sequence_get_length (ref) > 0)
            pop_check_first (&q, ref, 1);
        WeftEvent ev;
        ck_assert (!weft_evq_pop (&q, &ev));
        ck_assert_uint_eq (weft_evq_peek_at (&q), WEFT_TIME_NEVER);
        g_sequence_free (ref);
        gsl_rng_free (r);
        weft_evq_clear (&q);
    }
    ck_assert_uint_gt (held, 10000);
    ck_assert_uint_gt (inside, 1000);
    ck_assert_uint_gt (at_end, 1000);
    ck_assert_uint_gt (front, 100);
    ck_assert_uint_gt (spread, 10);
    ck_assert_uint_gt (rewinds_held, 5);
    ck_assert_uint_gt (before_held, 1000);
}
END_TEST

/* A key under @id in one of the ranges of sim/event.h (an object's counter, WIRE, START, CTL,
 * WAKE), never pushed before: mostly the range's next number, now and then a random one (a
 * range that has wrapped, a flow started out of order), so that one id's keys interleave. */
static guint64
range_key (gsl_rng *r, GHashTable *used, guint64 *next, guint32 id)
{
    static const guint32 base[] = { 0, 0x80000000u, 0xa0000000u, 0xc0000000u, 0xe0000000u };
    for (;;) {
        guint which = (guint) gsl_rng_uniform_int (r, G_N_ELEMENTS (base));
        guint32 low = gsl_rng_uniform_int (r, 10) < 7 ? (guint32) next[which]++
                                                      : (guint32) gsl_rng_uniform_int (r, 1u << 29);
        guint64 key = ((guint64) id << 32) | base[which] | (low & 0x1fffffffu);
        if (!g_hash_table_contains (used, &key)) {
            guint64 *k = g_new (guint64, 1);
            *k = key;
            g_hash_table_add (used, k);
            return key;
        }
    }
}

/* Bucket 0 indexed by scheduling id (sim/event.c) pops exactly what the heap pops: random
 * pushes and pops against a sorted reference, with thousands of events at one picosecond,
 * keys in every range of sim/event.h under one id (so its list is inserted into at its end,
 * its front and its middle), one id holding thousands at t = 0 (a NIC's flow starts) into
 * which keys are inserted far from its ends (the index gives up for the heap), ids beyond what
 * the index holds, pushes at the current picosecond below and above the last key popped, the
 * threshold changed while bucket 0 is indexed, pop_before and rewind.  Each threshold run must
 * have seen bucket 0 indexed and given up on the index; a wrong pop fails at once. */
START_TEST (test_event_index_matches_sorted_reference)
{
    static const guint32 thresholds[] = { 0, 16, WEFT_EVQ_INDEX_THRESHOLD, G_MAXUINT32 };
    for (guint ti = 0; ti < G_N_ELEMENTS (thresholds); ti++) {
        const guint32 threshold = thresholds[ti];
        WeftEventQueue q;
        weft_evq_init (&q);
        weft_evq_set_index_threshold (&q, threshold);
        gsl_rng *r = weft_rng_new (17 + ti, 1);
        GSequence *ref = g_sequence_new (g_free);
        GHashTable *used = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
        guint64 next[5] = { 0 };
        /* Thousands at t = 0 under id 7 (in key order, as a NIC starts its flows), and thousands
         * over three picoseconds under ids 0 to 3999. */
        for (guint i = 0; i < 9000; i++) {
            WeftEvent *ev = g_new (WeftEvent, 1);
            gboolean hot = i < 3000;
            guint32 id = hot ? 7 : (guint32) gsl_rng_uniform_int (r, 4000);
            *ev = (WeftEvent){ .at = hot ? 0 : 1000 * gsl_rng_uniform_int (r, 3),
                               .key = hot ? (7ull << 32 | 0xa0000000u | i)
                                          : range_key (r, used, next, id) };
            if (hot) {
                guint64 *k = g_new (guint64, 1);
                *k = ev->key;
                g_hash_table_add (used, k);
            }
            weft_evq_push (&q, ev);
            g_sequence_insert_sorted (ref, ev, cmp_event_seq, NULL);
        }
        guint max_len = 0, indexed = 0, gave_up = 0, heap_large = 0;
        weft_time_t now = 0;
        for (guint step = 0; step < 40000 && g_sequence_get_length (ref) > 0; step++) {
            now = pop_check_first (&q, ref, step);
            indexed += q.z.count > 0;
            gave_up += q.z.index_at != G_MAXUINT32 && q.z.threshold == G_MAXUINT32;
            heap_large += q.b[0].len > 64;
            guint pushes = (guint) gsl_rng_uniform_int (r, step < 15000 ? 3 : 2);
            for (guint k = 0; k < pushes; k++) {
                WeftEvent *add = g_new (WeftEvent, 1);
                guint what = (guint) gsl_rng_uniform_int (r, 10);
                weft_time_t at =
                    what < 6 ? now : now + 1 + gsl_rng_uniform_int (r, 1u << (2 * what));
                guint pick = (guint) gsl_rng_uniform_int (r, 1000);
                /* now and then the hot id (early on, while it holds thousands), an id beyond
                 * what the index holds (for a while), or one it must grow to hold */
                guint32 id = pick < 5 && step < 3000 ? 7
                             : pick == 5 && step >= 20000 && step < 22000
                                 ? (1u << 24) + (guint32) gsl_rng_uniform_int (r, 1000)
                             : pick < 16 ? (guint32) gsl_rng_uniform_int (r, 1u << 20)
                                         : (guint32) gsl_rng_uniform_int (r, 4000);
                *add = (WeftEvent){ .at = at, .key = range_key (r, used, next, id) };
                weft_evq_push (&q, add);
                g_sequence_insert_sorted (ref, add, cmp_event_seq, NULL);
            }
            max_len = MAX (max_len, (guint) weft_evq_len (&q));
            ck_assert_uint_eq (weft_evq_len (&q), (guint) g_sequence_get_length (ref));
            /* The threshold changed while bucket 0 may be indexed (both ways), and back. */
            if (step % 3001 == 1000)
                weft_evq_set_index_threshold (&q, step % 2 ? G_MAXUINT32 : 0);
            if (step % 3001 == 1500)
                weft_evq_set_index_threshold (&q, threshold);
            if (step % 4999 == 0 && now > 0)
                weft_evq_rewind (&q, now - 1);
        }
        ck_assert_uint_eq (g_sequence_get_length (ref), 0);
        ck_assert_uint_ge (max_len, 9000);
        if (threshold != G_MAXUINT32) {
            ck_assert_uint_gt (indexed, 5000);
            ck_assert_uint_gt (gave_up, 0);
        } else
            ck_assert_uint_gt (heap_large, 1000);
        WeftEvent ev;
        ck_assert (!weft_evq_pop (&q, &ev));
        g_hash_table_destroy (used);
        g_sequence_free (ref);
        gsl_rng_free (r);
        weft_evq_clear (&q);
    }
}
END_TEST

/* The index grows while it holds events (ids it has not seen, one more level of its bitmap):
 * the events it held before come out in their place, not after the new one. */
START_TEST (test_event_index_grows_while_holding_events)
{
    WeftEventQueue q;
    weft_evq_init (&q);
    weft_evq_set_index_threshold (&q, 0);
    static const guint32 ids[] = { 5000, 5, 70000, 3, (1u << 20) + 1, 4999 };
    for (guint i = 0; i < G_N_ELEMENTS (ids); i++) {
        WeftEvent ev = { .at = 0, .key = (guint64) ids[i] << 32 };
        weft_evq_push (&q, &ev);
        ck_assert_uint_eq (q.z.count, i + 1); /* indexed, not given up */
    }
    static const guint32 want[] = { 3, 5, 4999, 5000, 70000, (1u << 20) + 1 };
    WeftEvent ev;
    for (guint i = 0; i < G_N_ELEMENTS (want); i++) {
        ck_assert (weft_evq_pop (&q, &ev));
        ck_assert_uint_eq (ev.key >> 32, want[i]);
    }
    ck_assert (!weft_evq_pop (&q, &ev));
    weft_evq_clear (&q);
}
END_TEST

/* Pages of [@from, @to) resident, by mincore (whole pages inside the range). */
static gsize
resident_pages (const void *from, const void *to)
{
    const guintptr page = (guintptr) sysconf (_SC_PAGESIZE);
    guintptr a = ((guintptr) from + page - 1) & ~(page - 1), b = (guintptr) to & ~(page - 1);
    if (b <= a)
        return 0;
    gsize n = (b - a) / page, got = 0;
    unsigned char *vec = g_new (unsigned char, n);
    ck_assert_int_eq (mincore ((void *) a, b - a, vec), 0);
    for (gsize i = 0; i < n; i++)
        got += vec[i] & 1;
    g_free (vec);
    return got;
}

/* A trim after a refill has drained a bucket keeps the bucket's capacity but gives back its
 * pages beyond WEFT_EVQ_KEEP_BYTES (none of those stays resident), keeps the first part, and
 * the bucket grows into the released pages again with the right records: 4 MiB of events at
 * one far time, twice. */
START_TEST (test_event_drained_bucket_releases_its_pages)
{
    WeftEventQueue q;
    weft_evq_init (&q);
    const guint32 n = (guint32) (4 * WEFT_EVQ_KEEP_BYTES / sizeof (WeftEvent));
    for (guint round = 0; round < 2; round++) {
        /* bucket 31, then 32: the time differs from the queue's in bit 30, then bit 31 */
        const weft_time_t at = round == 0 ? (weft_time_t) 1 << 30 : (weft_time_t) 3 << 30;
        const guint bucket = round == 0 ? 31 : 32;
        for (guint32 k = 0; k < n; k++) {
            WeftEvent ev = { .at = at, .key = ((guint64) (k % 1000) << 32) | k, .arg.u = k };
            weft_evq_push (&q, &ev);
        }
        WeftEvqBucket *b = &q.b[bucket];
        ck_assert_uint_eq (b->len, n);
        const guint32 cap = b->cap;
        const char *v = (const char *) b->v, *end = v + (gsize) n * sizeof (WeftEvent);
        const gsize page = (gsize) sysconf (_SC_PAGESIZE);
        ck_assert_uint_ge (resident_pages (v, end), (end - v) / page - 2); /* all written */
        WeftEvent ev;
        ck_assert (weft_evq_pop (&q, &ev)); /* the refill drains the bucket */
        ck_assert_uint_eq (b->len, 0);
        weft_evq_trim (&q);
        ck_assert_uint_eq (b->cap, cap);
        ck_assert_ptr_eq (b->v, v);
#ifdef MADV_DONTNEED
        ck_assert_uint_eq (resident_pages (v + WEFT_EVQ_KEEP_BYTES + page, end), 0);
#endif
        ck_assert_uint_ge (resident_pages (v, v + WEFT_EVQ_KEEP_BYTES),
                           WEFT_EVQ_KEEP_BYTES / page - 2);
        /* every record out in key order: (k mod 1000, k) */
        guint32 popped = 1;
        guint64 prev = ev.key;
        ck_assert_uint_eq (ev.at, at);
        while (weft_evq_pop (&q, &ev)) {
            ck_assert_uint_eq (ev.at, at);
            ck_assert_uint_gt (ev.key, prev);
            ck_assert_uint_eq (ev.arg.u, (guint32) ev.key);
            prev = ev.key;
            popped++;
        }
        ck_assert_uint_eq (popped, n);
    }
    weft_evq_clear (&q);
}
END_TEST

static GString *order;

static void
record (WeftSim *sim, void *target, WeftArg arg)
{
    g_string_append_printf (order, "%s%" G_GUINT64_FORMAT " ", ((WeftModel *) target)->name, arg.u);
}

static const WeftModelClass dummy_class = { .name = "dummy", .instance_size = sizeof (WeftModel) };

START_TEST (test_event_ties_break_by_object_then_counter)
{
    order = g_string_new (NULL);
    WeftSim *sim = weft_sim_new (1);
    WeftModel *a = weft_sim_add_model (sim, &dummy_class, "a", 0);
    WeftModel *b = weft_sim_add_model (sim, &dummy_class, "b", 1);
    /* Scheduled interleaved, b first; at one time a (lower id) goes first, each in its order. */
    weft_sim_schedule_at (sim, &b->sched, 10, record, b, (WeftArg){ .u = 1 });
    weft_sim_schedule_at (sim, &a->sched, 10, record, a, (WeftArg){ .u = 1 });
    weft_sim_schedule_at (sim, &b->sched, 10, record, b, (WeftArg){ .u = 2 });
    weft_sim_schedule_at (sim, &a->sched, 5, record, a, (WeftArg){ .u = 0 });
    weft_sim_schedule_at (sim, &a->sched, 10, record, a, (WeftArg){ .u = 2 });
    weft_sim_work_add (sim, 1);
    ck_assert_int_eq (weft_sim_run (sim), WEFT_SIM_HANG); /* dry queue, work pending */
    ck_assert_str_eq (order->str, "a0 a1 a2 b1 b2 ");
    ck_assert_uint_eq (sim->now, 10);
    ck_assert_uint_eq (sim->events, 5);
    weft_sim_free (sim);
    g_string_free (order, TRUE);
}
END_TEST

/* A ticking object that reports progress every tick while @arg.u ticks remain. */
static void
tick (WeftSim *sim, void *target, WeftArg arg)
{
    if (arg.u > 0)
        weft_sim_progress (sim);
    weft_sim_schedule (sim, &((WeftModel *) target)->sched, WEFT_US (1), tick, target,
                       (WeftArg){ .u = arg.u ? arg.u - 1 : 0 });
}

START_TEST (test_event_watchdog_counts_progress_not_events)
{
    WeftSim *sim = weft_sim_new (1);
    WeftModel *m = weft_sim_add_model (sim, &dummy_class, "m", 0);
    sim->hang_timeout = WEFT_US (50);
    weft_sim_work_add (sim, 1);
    /* 100 us of progress, then events that are not progress forever. */
    weft_sim_schedule_at (sim, &m->sched, 0, tick, m, (WeftArg){ .u = 100 });
    ck_assert_int_eq (weft_sim_run (sim), WEFT_SIM_HANG);
    ck_assert_uint_eq (sim->last_progress, WEFT_US (99));
    ck_assert_uint_ge (sim->now, WEFT_US (99) + WEFT_US (50));
    ck_assert_uint_le (sim->now, WEFT_US (99) + WEFT_US (51));
    weft_sim_free (sim);
}
END_TEST

static void
noop (WeftSim *sim, void *target, WeftArg arg)
{
}

static void
count_sample (WeftSim *sim, void *data)
{
    (*(guint *) data)++;
}

/* Samples never keep a run whose queue ran dry going: with no watchdog, the first sample that
 * finds nothing else queued is the last, and the run ends there as a hang (a sample at the
 * time of the last event runs before it: the engine's id is 0, so one more follows); with the
 * watchdog, it is in the queue, and the run ends at its deadline, the samples going on until
 * then. */
START_TEST (test_event_samples_end_with_a_dry_queue)
{
    for (int watchdog = 0; watchdog <= 1; watchdog++) {
        WeftSim *sim = weft_sim_new (1);
        WeftModel *m = weft_sim_add_model (sim, &dummy_class, "m", 0);
        guint samples = 0;
        sim->sample = count_sample;
        sim->sample_data = &samples;
        sim->sample_interval = WEFT_US (5);
        sim->hang_timeout = watchdog ? WEFT_US (50) : 0;
        weft_sim_work_add (sim, 1);
        weft_sim_schedule_at (sim, &m->sched, WEFT_US (7), noop, NULL, (WeftArg){ 0 });
        weft_sim_schedule_at (sim, &m->sched, WEFT_US (10), noop, NULL, (WeftArg){ 0 });
        ck_assert_int_eq (weft_sim_run (sim), WEFT_SIM_HANG);
        weft_time_t end = watchdog ? WEFT_US (50) : WEFT_US (15);
        ck_assert_uint_eq (sim->now, end);
        /* Every interval up to the end: the last sample at the end itself without the
         * watchdog; with it, the deadline's sample runs or not by the two engine events'
         * order, so at least the ones before it. */
        guint want = (guint) (end / WEFT_US (5));
        ck_assert_uint_ge (samples, watchdog ? want - 1 : want);
        ck_assert_uint_le (samples, want);
        weft_sim_free (sim);
    }
}
END_TEST

START_TEST (test_event_duration_stops_the_clock)
{
    WeftSim *sim = weft_sim_new (1);
    WeftModel *m = weft_sim_add_model (sim, &dummy_class, "m", 0);
    sim->duration = WEFT_US (30) + 500;
    weft_sim_work_add (sim, 1);
    weft_sim_schedule_at (sim, &m->sched, 0, tick, m, (WeftArg){ .u = 1000 });
    ck_assert_int_eq (weft_sim_run (sim), WEFT_SIM_DURATION);
    ck_assert_uint_eq (sim->now, WEFT_US (30) + 500);
    ck_assert_uint_eq (sim->events, 31); /* ticks at 0..30 us */
    weft_sim_free (sim);
}
END_TEST

static void
record_time (WeftSim *sim, void *target, WeftArg arg)
{
    g_string_append_printf ((GString *) arg.ptr, "%" G_GUINT64_FORMAT " ", sim->now);
}

/* A run stopped by its duration leaves the next event pending beyond it; an event scheduled
 * between the two (by a caller who then runs on with a longer duration) must still run, and
 * before it. */
START_TEST (test_event_schedule_after_duration_stop)
{
    WeftSim *sim = weft_sim_new (1);
    WeftModel *m = weft_sim_add_model (sim, &dummy_class, "m", 0);
    g_autoptr (GString) seen = g_string_new (NULL);
    sim->duration = WEFT_US (30) + 500;
    weft_sim_work_add (sim, 1);
    weft_sim_schedule_at (sim, &m->sched, 0, tick, m, (WeftArg){ .u = 1000 });
    ck_assert_int_eq (weft_sim_run (sim), WEFT_SIM_DURATION);
    ck_assert_uint_eq (sim->now, WEFT_US (30) + 500);
    weft_sim_schedule_at (sim, &m->sched, WEFT_US (30) + 700, record_time, m,
                          (WeftArg){ .ptr = seen });
    weft_sim_schedule_at (sim, &m->sched, WEFT_US (31) + 1, record_time, m,
                          (WeftArg){ .ptr = seen });
    sim->duration = WEFT_US (32);
    ck_assert_int_eq (weft_sim_run (sim), WEFT_SIM_DURATION);
    /* 31 ticks before the stop; then 30.7 us, the tick at 31 us, 31.000001 us, 32 us. */
    ck_assert_str_eq (seen->str, "30000700 31000001 ");
    ck_assert_uint_eq (sim->events, 31 + 4);
    ck_assert_uint_eq (sim->now, WEFT_US (32));
    weft_sim_free (sim);
}
END_TEST

static void
finish_at_once (WeftSim *sim, void *target, WeftArg arg)
{
    weft_sim_work_done (sim);
}

START_TEST (test_event_done_and_interrupt)
{
    WeftSim *sim = weft_sim_new (1);
    WeftModel *m = weft_sim_add_model (sim, &dummy_class, "m", 0);
    weft_sim_work_add (sim, 1);
    weft_sim_schedule_at (sim, &m->sched, WEFT_NS (3), finish_at_once, m, (WeftArg){ 0 });
    weft_sim_schedule_at (sim, &m->sched, WEFT_NS (4), finish_at_once, m, (WeftArg){ 0 });
    ck_assert_int_eq (weft_sim_run (sim), WEFT_SIM_DONE);
    ck_assert_uint_eq (sim->now, WEFT_NS (3));
    weft_sim_free (sim);

    static volatile sig_atomic_t flag = 1;
    sim = weft_sim_new (1);
    m = weft_sim_add_model (sim, &dummy_class, "m", 0);
    sim->interrupt = &flag;
    weft_sim_work_add (sim, 1);
    weft_sim_schedule_at (sim, &m->sched, 0, tick, m, (WeftArg){ .u = 1000000 });
    ck_assert_int_eq (weft_sim_run (sim), WEFT_SIM_INTERRUPTED);
    ck_assert_uint_lt (sim->events, 10000);
    weft_sim_free (sim);
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("event");
    TCase *tc = tcase_create ("queue");
    tcase_set_timeout (tc, 60); /* seconds: a loaded machine, sanitizers */
    tcase_add_test (tc, test_event_pops_in_time_then_key_order);
    tcase_add_test (tc, test_event_interleaved_matches_linear_scan);
    tcase_add_test (tc, test_event_many_ties_interleaved_match_sorted_reference);
    tcase_add_test (tc, test_event_index_matches_sorted_reference);
    tcase_add_test (tc, test_event_index_grows_while_holding_events);
    tcase_add_test (tc, test_event_drained_bucket_releases_its_pages);
    tcase_add_test (tc, test_event_small_refills_match_sorted_reference);
    tcase_add_test (tc, test_event_drop_stale_keeps_the_latest_and_the_order);
    tcase_add_test (tc, test_event_ties_break_by_object_then_counter);
    suite_add_tcase (s, tc);
    tc = tcase_create ("run");
    tcase_add_test (tc, test_event_watchdog_counts_progress_not_events);
    tcase_add_test (tc, test_event_samples_end_with_a_dry_queue);
    tcase_add_test (tc, test_event_duration_stops_the_clock);
    tcase_add_test (tc, test_event_schedule_after_duration_stop);
    tcase_add_test (tc, test_event_done_and_interrupt);
    suite_add_tcase (s, tc);
    return s;
}
