/* tests/check_timer.c - the timer (sim/timer.h) driven through the real run loop.
 *
 * Checks, with the scheduling object's own counter as the count of weft_sim_schedule_at()
 * calls (the tie-break key: sim/event.h):
 *  - an armed timer expires once, at its deadline, and is idle when its handler runs;
 *  - moving the deadline earlier schedules one new event and leaves the old one stale; moving
 *    it later schedules nothing until the pending event fires early, which schedules exactly
 *    one more;
 *  - a cancelled timer never expires, schedules nothing, and may be armed again at once;
 *  - stale events reach the handler, which returns without expiring: every event a timer
 *    scheduled is popped exactly once, as a stale event, an early fire or the expiry;
 *  - at most one live event: arming a pending timer changes nothing (and says so); over a
 *    long random sequence of arms, moves, cancels and runs the timer matches a reference
 *    model of (pending, deadline, live event time, stale events) at every step;
 *  - the caller's 32 bits of data reach the handler.
 * Leaves unchecked: the models' use of timers (their own tests, and bench/same-bytes.sh for
 * every shipped run's bytes) and speed (bench/cachegrind.sh).
 */
#include "config.h"
#include <check.h>
#include <gsl/gsl_rng.h>

#include "sim/rng.h"
#include "sim/timer.h"
#include "tests/harness.h"

typedef struct {
    WeftTimer t;
    WeftSched sched;
    guint calls;            /* handler runs: stale, early and expiring */
    guint expiries;         /* weft_timer_fire() returned TRUE */
    weft_time_t expired_at; /* the last expiry */
    guint32 data;           /* its data */
    gboolean pending_in_handler;
    guint periodic; /* > 0: re-arm from the handler, 10 ps on, this many more times */
} Probe;

static WeftSim *sim;
static Probe p;

static void
on_probe (WeftSim *s, void *target, WeftArg arg)
{
    Probe *q = target;
    q->calls++;
    if (!weft_timer_fire (s, &q->t, &q->sched, on_probe, q, arg))
        return;
    q->expiries++;
    q->expired_at = s->now;
    q->data = weft_timer_data (arg);
    q->pending_in_handler = weft_timer_pending (&q->t);
    if (q->periodic > 0) {
        q->periodic--;
        weft_timer_arm (s, &q->t, &q->sched, 10, on_probe, q, 0);
    }
}

/* Ends a run: the last event at its time (its scheduling object was made after the probe's, so
 * it comes after the probe's events at the same time) and the run's only work. */
static WeftSched stop_sched;

static void
on_stop (WeftSim *s, void *target, WeftArg arg)
{
    weft_sim_work_done (s);
}

static void
setup (void)
{
    sim = weft_sim_new (1);
    p = (Probe){ .sched = weft_sim_sched_new (sim) };
    stop_sched = weft_sim_sched_new (sim);
}

static void
teardown (void)
{
    weft_sim_free (sim);
}

/* Runs every event due up to @until, and none after; the clock is then at @until.  (A stop by
 * `duration` would pop the first event after it and push it back, which leaves the queue
 * unable to take events between the two times.) */
static void
run_until (weft_time_t until)
{
    weft_sim_schedule_at (sim, &stop_sched, until, on_stop, NULL, (WeftArg){ 0 });
    weft_sim_work_add (sim, 1);
    ck_assert_int_eq (weft_sim_run (sim), WEFT_SIM_DONE);
    ck_assert_uint_eq (sim->now, until);
}

static void
arm_at (weft_time_t at, guint32 data)
{
    ck_assert (weft_timer_arm_at (sim, &p.t, &p.sched, at, on_probe, &p, data));
}

static void
rearm_at (weft_time_t at)
{
    weft_timer_rearm_at (sim, &p.t, &p.sched, at, on_probe, &p, 0);
}

START_TEST (test_timer_fires_once_at_deadline)
{
    ck_assert (!weft_timer_pending (&p.t)); /* a zeroed timer is idle */
    ck_assert_uint_eq (weft_timer_deadline (&p.t), WEFT_TIME_NEVER);
    arm_at (100, 0);
    ck_assert (weft_timer_pending (&p.t));
    ck_assert_uint_eq (weft_timer_deadline (&p.t), 100);
    ck_assert_uint_eq (p.sched.counter, 1);
    run_until (99);
    ck_assert_uint_eq (p.calls, 0);
    run_until (1000);
    ck_assert_uint_eq (p.calls, 1);
    ck_assert_uint_eq (p.expiries, 1);
    ck_assert_uint_eq (p.expired_at, 100);
    ck_assert (!p.pending_in_handler);
    ck_assert (!weft_timer_pending (&p.t));
    ck_assert_uint_eq (weft_timer_deadline (&p.t), WEFT_TIME_NEVER);
    /* After a delay, from now; and again from its own handler, once per period. */
    p.periodic = 3;
    weft_timer_arm (sim, &p.t, &p.sched, 50, on_probe, &p, 0);
    run_until (2000);
    ck_assert_uint_eq (p.expiries, 5);
    ck_assert_uint_eq (p.expired_at, 1080);
    ck_assert_uint_eq (p.calls, 5);
    ck_assert_uint_eq (p.sched.counter, 5);
}
END_TEST

START_TEST (test_timer_rearm_earlier_supersedes)
{
    arm_at (100, 0);
    rearm_at (40);
    ck_assert_uint_eq (weft_timer_deadline (&p.t), 40);
    ck_assert_uint_eq (p.sched.counter, 2);
    run_until (1000);
    ck_assert_uint_eq (p.expiries, 1);
    ck_assert_uint_eq (p.expired_at, 40);
    ck_assert_uint_eq (p.calls, 2); /* the stale event at 100 came and went */
    ck_assert_uint_eq (p.sched.counter, 2);
}
END_TEST

START_TEST (test_timer_rearm_later_fires_early_once)
{
    arm_at (100, 0);
    rearm_at (300);
    ck_assert_uint_eq (p.sched.counter, 1); /* nothing scheduled yet */
    ck_assert_uint_eq (weft_timer_deadline (&p.t), 300);
    /* Back, but not before the pending event: it stays, and the deadline with it. */
    rearm_at (200);
    ck_assert_uint_eq (p.sched.counter, 1);
    run_until (150);
    ck_assert_uint_eq (p.calls, 1); /* fired early at 100 ... */
    ck_assert_uint_eq (p.expiries, 0);
    ck_assert (weft_timer_pending (&p.t));
    ck_assert_uint_eq (weft_timer_deadline (&p.t), 200);
    ck_assert_uint_eq (p.sched.counter, 2); /* ... and moved on to 200 */
    run_until (1000);
    ck_assert_uint_eq (p.expiries, 1);
    ck_assert_uint_eq (p.expired_at, 200);
    ck_assert_uint_eq (p.calls, 2);
    /* Idle: rearm arms. */
    rearm_at (1500);
    ck_assert_uint_eq (p.sched.counter, 3);
    run_until (2000);
    ck_assert_uint_eq (p.expiries, 2);
    ck_assert_uint_eq (p.expired_at, 1500);
    /* Later, then back to the pending event's own time: it expires there, nothing more. */
    arm_at (2100, 0);
    rearm_at (2400);
    rearm_at (2100);
    run_until (3000);
    ck_assert_uint_eq (p.expiries, 3);
    ck_assert_uint_eq (p.expired_at, 2100);
    ck_assert_uint_eq (p.calls, 4);
    ck_assert_uint_eq (p.sched.counter, 4);
}
END_TEST

START_TEST (test_timer_cancel)
{
    arm_at (100, 0);
    weft_timer_cancel (&p.t);
    ck_assert (!weft_timer_pending (&p.t));
    ck_assert_uint_eq (weft_timer_deadline (&p.t), WEFT_TIME_NEVER);
    weft_timer_cancel (&p.t); /* idle: harmless */
    run_until (1000);
    ck_assert_uint_eq (p.calls, 1);
    ck_assert_uint_eq (p.expiries, 0);
    ck_assert_uint_eq (p.sched.counter, 1);
}
END_TEST

START_TEST (test_timer_cancel_then_arm)
{
    /* Again later than the stale event, and earlier. */
    arm_at (100, 0);
    weft_timer_cancel (&p.t);
    arm_at (150, 7);
    run_until (1000);
    ck_assert_uint_eq (p.expiries, 1);
    ck_assert_uint_eq (p.expired_at, 150);
    ck_assert_uint_eq (p.data, 7);
    ck_assert_uint_eq (p.calls, 2);
    arm_at (1100, 0);
    weft_timer_cancel (&p.t);
    arm_at (1050, 8);
    run_until (2000);
    ck_assert_uint_eq (p.expiries, 2);
    ck_assert_uint_eq (p.expired_at, 1050);
    ck_assert_uint_eq (p.data, 8);
    ck_assert_uint_eq (p.calls, 4);
    ck_assert_uint_eq (p.sched.counter, 4);
}
END_TEST

START_TEST (test_timer_stale_events_ignored)
{
    /* Ten moves earlier: ten events, nine stale, one expiry. */
    arm_at (1000, 0);
    for (weft_time_t at = 900; at >= 100; at -= 100)
        rearm_at (at);
    ck_assert_uint_eq (p.sched.counter, 10);
    run_until (5000);
    ck_assert_uint_eq (p.calls, 10);
    ck_assert_uint_eq (p.expiries, 1);
    ck_assert_uint_eq (p.expired_at, 100);
}
END_TEST

START_TEST (test_timer_at_most_one_pending)
{
    ck_assert (weft_timer_arm_at (sim, &p.t, &p.sched, 100, on_probe, &p, 1));
    /* Pending: arming again changes nothing and schedules nothing. */
    ck_assert (!weft_timer_arm_at (sim, &p.t, &p.sched, 50, on_probe, &p, 2));
    ck_assert (!weft_timer_arm (sim, &p.t, &p.sched, 500, on_probe, &p, 3));
    ck_assert_uint_eq (p.sched.counter, 1);
    ck_assert_uint_eq (weft_timer_deadline (&p.t), 100);
    run_until (1000);
    ck_assert_uint_eq (p.calls, 1);
    ck_assert_uint_eq (p.expired_at, 100);
    ck_assert_uint_eq (p.data, 1);
    /* Idle again: arming arms. */
    ck_assert (weft_timer_arm (sim, &p.t, &p.sched, 5, on_probe, &p, 4));
    run_until (2000);
    ck_assert_uint_eq (p.expired_at, 1005);
    ck_assert_uint_eq (p.data, 4);
}
END_TEST

/* The reference: what a timer must do, as plain bookkeeping. */
typedef struct {
    gboolean pending;
    weft_time_t deadline, event_at;
    GArray *stale; /* times of events that must come back stale */
    guint scheduled, expiries, calls;
    weft_time_t expired_at;
} Ref;

static void
ref_retire (Ref *r)
{
    if (r->pending)
        g_array_append_val (r->stale, r->event_at);
}

/* Everything due up to @until, in time order (the live event and the stale ones are distinct
 * events; their order among themselves does not matter to the counts). */
static void
ref_run (Ref *r, weft_time_t until)
{
    for (guint i = 0; i < r->stale->len;) {
        if (g_array_index (r->stale, weft_time_t, i) <= until) {
            r->calls++;
            g_array_remove_index_fast (r->stale, i);
        } else {
            i++;
        }
    }
    while (r->pending && r->event_at <= until) {
        r->calls++;
        if (r->deadline > r->event_at) {
            r->event_at = r->deadline; /* early: on to the deadline */
            r->scheduled++;
        } else {
            r->pending = FALSE;
            r->expiries++;
            r->expired_at = r->deadline;
        }
    }
}

static void
ref_check (const Ref *r)
{
    ck_assert_int_eq (weft_timer_pending (&p.t), r->pending);
    ck_assert_uint_eq (weft_timer_deadline (&p.t), r->pending ? r->deadline : WEFT_TIME_NEVER);
    ck_assert_uint_eq (p.sched.counter, r->scheduled);
    ck_assert_uint_eq (p.expiries, r->expiries);
    ck_assert_uint_eq (p.calls, r->calls);
    if (r->expiries)
        ck_assert_uint_eq (p.expired_at, r->expired_at);
    ck_assert (!p.pending_in_handler);
}

START_TEST (test_timer_matches_reference)
{
    gsl_rng *rng = weft_rng_new (11, 3);
    Ref r = { .stale = g_array_new (FALSE, FALSE, sizeof (weft_time_t)) };
    weft_time_t now = 0;
    for (guint step = 0; step < 20000; step++) {
        weft_time_t at = now + gsl_rng_uniform_int (rng, 100);
        switch (gsl_rng_uniform_int (rng, 4)) {
        case 0: /* arm: nothing when pending */
            ck_assert_int_eq (weft_timer_arm_at (sim, &p.t, &p.sched, at, on_probe, &p, step),
                              !r.pending);
            if (r.pending)
                break;
            r.pending = TRUE;
            r.deadline = r.event_at = at;
            r.scheduled++;
            break;
        case 1: /* move, or arm */
            rearm_at (at);
            if (r.pending && r.event_at <= at) {
                r.deadline = at;
            } else {
                ref_retire (&r);
                r.pending = TRUE;
                r.deadline = r.event_at = at;
                r.scheduled++;
            }
            break;
        case 2:
            weft_timer_cancel (&p.t);
            ref_retire (&r);
            r.pending = FALSE;
            break;
        case 3: /* time passes */
            run_until (at);
            ref_run (&r, at);
            now = at;
            break;
        }
        ref_check (&r);
    }
    run_until (now + 1000);
    ref_run (&r, now + 1000);
    ref_check (&r);
    ck_assert_uint_eq (r.stale->len, 0);
    ck_assert_uint_gt (r.expiries, 1000); /* the sequence did exercise expiries */
    g_array_unref (r.stale);
    gsl_rng_free (rng);
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("timer");
    TCase *tc = tcase_create ("timer");
    tcase_add_checked_fixture (tc, setup, teardown);
    tcase_add_test (tc, test_timer_fires_once_at_deadline);
    tcase_add_test (tc, test_timer_rearm_earlier_supersedes);
    tcase_add_test (tc, test_timer_rearm_later_fires_early_once);
    tcase_add_test (tc, test_timer_cancel);
    tcase_add_test (tc, test_timer_cancel_then_arm);
    tcase_add_test (tc, test_timer_stale_events_ignored);
    tcase_add_test (tc, test_timer_at_most_one_pending);
    tcase_add_test (tc, test_timer_matches_reference);
    suite_add_tcase (s, tc);
    return s;
}
