/* tests/check_uet.c - Ultra Ethernet's per-flow rules (models/uet.h, models/nscc.h), against
 * values derived here: round-robin visits the pool in turn; bitmap skips a congested EV for
 * exactly one pass; reps reuses acknowledged EVs oldest first and never a congested one, and
 * retires (skips in reuse and exploration) the EVs of the packets a timeout finds out, probes
 * one silent EV per period and starts afresh when a probe comes back;
 * oblivious draws stay in the pool and reach most of it; ecmp keeps the flow's hash; the RUD
 * sender's bitmaps count packets in flight and resend only what is due; NSCC decreases on a
 * marked ACK above target (by the delay average), increases otherwise (fair and proportional
 * increase per window), quick adapt drops to what got through, and its derived parameters are
 * UE 1.0.3's as UEC's htsim sets them, computed here from the RTT and the rate;
 * RCCC's pacer serves the flows that want credit in turn, a pull at most mtus_per_pull and
 * never past a flow's target, with a gap of the granted packets' time at pull_rate x the link
 * rate; a sender's initial credit and cap are initial_credit_bdp and max_credit_bdp x its BDP,
 * speculative credit is dropped at the receiver's first answer, its target is what it was
 * granted plus what it wants beyond what it holds (capped), and pulls are cumulative;
 * `weft params ecn` tells the truth about the defaults of [ecn] on each fabric (the help text
 * names a value per fabric, and a run of that fabric without [ecn] uses it).
 * Leaves unchecked: whole runs (tests/e2e/ue.sh). */
#include "config.h"

#include <check.h>

#include <string.h>

#include "cli/session.h"
#include "models/ecn.h"
#include "models/uet.h"
#include "sim/units.h"
#include "tests/harness.h"

static WeftUet
cfg (int lb, guint64 pool)
{
    WeftUet c = { .enabled = TRUE, .load_balance = lb, .ev_pool = pool, .seed = 7 };
    return c;
}

START_TEST (test_uet_round_robin_visits_the_pool_in_turn)
{
    WeftUet c = cfg (WEFT_UET_LB_ROUND_ROBIN, 5);
    WeftUetFlow f = { 0 };
    weft_uet_sender_init (&c, &f, 10);
    for (guint i = 0; i < 12; i++)
        ck_assert_uint_eq (weft_uet_pick_ev (&c, &f, 1, i % 10), i % 5);
    ck_assert_uint_eq (f.evs_used, 5);
    weft_uet_flow_clear (&f);
}
END_TEST

START_TEST (test_uet_bitmap_skips_a_congested_ev_once)
{
    WeftUet c = cfg (WEFT_UET_LB_BITMAP, 4);
    WeftUetFlow f = { 0 };
    weft_uet_sender_init (&c, &f, 10);
    weft_uet_ev_feedback (&c, &f, 1, TRUE);
    ck_assert_uint_eq (weft_uet_pick_ev (&c, &f, 1, 0), 0);
    ck_assert_uint_eq (weft_uet_pick_ev (&c, &f, 1, 0), 2); /* 1 skipped */
    ck_assert_uint_eq (weft_uet_pick_ev (&c, &f, 1, 0), 3);
    ck_assert_uint_eq (weft_uet_pick_ev (&c, &f, 1, 0), 0);
    ck_assert_uint_eq (weft_uet_pick_ev (&c, &f, 1, 0), 1); /* forgiven after one pass */
    weft_uet_flow_clear (&f);
}
END_TEST

START_TEST (test_uet_reps_reuses_clean_evs_oldest_first)
{
    WeftUet c = cfg (WEFT_UET_LB_REPS, 64);
    WeftUetFlow f = { 0 };
    weft_uet_sender_init (&c, &f, 10);
    weft_uet_ev_feedback (&c, &f, 9, FALSE);
    weft_uet_ev_feedback (&c, &f, 3, TRUE); /* marked: retired */
    weft_uet_ev_feedback (&c, &f, 5, FALSE);
    ck_assert_uint_eq (weft_uet_pick_ev (&c, &f, 1, 0), 9);
    ck_assert_uint_eq (weft_uet_pick_ev (&c, &f, 1, 0), 5);
    weft_uet_ev_feedback (&c, &f, 7, FALSE);
    ck_assert_uint_eq (weft_uet_pick_ev (&c, &f, 1, 0), 7);
    weft_uet_flow_clear (&f);
}
END_TEST

/* Packets 0..3 leave on EVs 2, 5, 2, 6 (reused from ACKs); 1 is acknowledged, the timer runs
 * out with 0, 2 and 3 out: EVs 2 and 6 are retired, 5 is not (its packet came back).  Neither
 * reuse nor exploration picks a retired EV; one acknowledged unmarked is reinstated; when all
 * are retired, all are forgiven. */
START_TEST (test_uet_reps_retires_the_evs_a_timeout_finds_out)
{
    WeftUet c = cfg (WEFT_UET_LB_REPS, 8);
    WeftUetFlow f = { 0 };
    weft_uet_sender_init (&c, &f, 16);
    const guint16 sent[] = { 2, 5, 2, 6 };
    for (guint i = 0; i < 4; i++) {
        weft_uet_ev_feedback (&c, &f, sent[i], FALSE);
        ck_assert_uint_eq (weft_uet_pick_ev (&c, &f, 1, i), sent[i]);
    }
    ck_assert (weft_uet_on_sack (&f, 1));
    weft_uet_ev_feedback (&c, &f, 5, FALSE);
    weft_uet_ev_feedback (&c, &f, 6, FALSE); /* queued for reuse before the timeout */
    weft_uet_ev_timeout (&c, &f, 0, 4);
    ck_assert_uint_eq (f.evs_retired, 2);
    ck_assert (weft_uet_bit (f.ev_retired, 2) && weft_uet_bit (f.ev_retired, 6));
    ck_assert (!weft_uet_bit (f.ev_retired, 5));
    ck_assert_uint_eq (weft_uet_pick_ev (&c, &f, 1, 4), 5);
    for (guint i = 0; i < 200; i++) { /* 6 is skipped in the ring; exploration: never 2 nor 6 */
        guint16 ev = weft_uet_pick_ev (&c, &f, 1, 5);
        ck_assert (ev != 2 && ev != 6 && ev < 8);
    }
    ck_assert_uint_eq (f.reps_n, 0);
    weft_uet_ev_feedback (&c, &f, 6, FALSE); /* came back unmarked: reinstated */
    ck_assert_uint_eq (f.evs_retired, 1);
    ck_assert_uint_eq (weft_uet_pick_ev (&c, &f, 1, 6), 6);
    /* Every EV out at a timeout: all retired, so all forgiven. */
    for (guint i = 0; i < 8; i++)
        f.sent_ev[8 + i] = (guint16) i;
    weft_uet_ev_timeout (&c, &f, 8, 16);
    ck_assert_uint_eq (f.evs_retired, 0);
    ck_assert_uint_eq (f.evs_retires, 2 + 7);
    weft_uet_flow_clear (&f);
}
END_TEST

/* Probing, periods of 50 us from the first packet: EVs 1, 3 and 4 come back in the first
 * period, only 4 in the second, so 1 and 3 are silent: one probe at the end of each period
 * (1, then 3), none while the period runs; 3's probe comes back unmarked, so the flow forgets
 * what waits for reuse and sends the next 16 packets on uniform draws.  An EV a timeout
 * retired is silent too: probed, and reinstated for it. */
START_TEST (test_uet_reps_probes_silent_evs_each_period)
{
    WeftUet c = cfg (WEFT_UET_LB_REPS, 8);
    c.reps_probe_after = WEFT_US (50);
    WeftUetFlow f = { 0 };
    weft_uet_sender_init (&c, &f, 64);
    weft_uet_reps_tick (&c, &f, 0); /* the first period starts */
    const guint16 alive[] = { 1, 3, 4 };
    for (guint i = 0; i < 3; i++) {
        weft_uet_ev_feedback (&c, &f, alive[i], FALSE);
        ck_assert_uint_eq (weft_uet_pick_ev (&c, &f, 1, i), alive[i]);
    }
    weft_uet_reps_tick (&c, &f, WEFT_US (49));
    weft_uet_reps_tick (&c, &f, WEFT_US (50)); /* all three seen: nothing silent */
    ck_assert_uint_eq (f.probes_due, 0);
    weft_uet_ev_feedback (&c, &f, 4, FALSE);
    weft_uet_reps_tick (&c, &f, WEFT_US (99));
    ck_assert_uint_eq (weft_uet_pick_ev (&c, &f, 1, 3), 4); /* reuse, no probe yet */
    weft_uet_ev_feedback (&c, &f, 4, FALSE);
    weft_uet_reps_tick (&c, &f, WEFT_US (100)); /* 1 and 3 silent: one probe */
    ck_assert_uint_eq (f.probes_due, 1);
    ck_assert_uint_eq (weft_uet_pick_ev (&c, &f, 1, 4), 1);
    ck_assert_uint_eq (weft_uet_pick_ev (&c, &f, 1, 5), 4);
    weft_uet_ev_feedback (&c, &f, 4, FALSE);
    weft_uet_reps_tick (&c, &f, WEFT_US (150)); /* 1's probe lost: the next silent one */
    ck_assert_uint_eq (weft_uet_pick_ev (&c, &f, 1, 6), 3);
    ck_assert_uint_eq (f.probes, 2);
    weft_uet_ev_feedback (&c, &f, 3, FALSE); /* 3 is back: start afresh */
    ck_assert_uint_eq (f.resets, 1);
    ck_assert_uint_eq (f.reps_n, 0); /* nothing waits for reuse any more */
    weft_uet_ev_feedback (&c, &f, 4, FALSE);
    for (guint i = 0; i < WEFT_UET_REPS_EXPLORE; i++) /* the draws come first */
        ck_assert_uint_lt (weft_uet_pick_ev (&c, &f, 1, 7 + i), 8);
    ck_assert_uint_eq (f.explore_due, 0);
    ck_assert_uint_eq (f.reps_n, 1);
    ck_assert_uint_eq (weft_uet_pick_ev (&c, &f, 1, 23), 4); /* reuse again */
    /* A timeout retires 6, the EV packet 30 is out on; it is silent at the period's end. */
    f.sent_ev[30] = 6;
    weft_uet_ev_timeout (&c, &f, 30, 31);
    ck_assert_uint_eq (f.evs_retired, 1);
    weft_uet_ev_feedback (&c, &f, 1, FALSE);
    weft_uet_ev_feedback (&c, &f, 3, FALSE);
    weft_uet_ev_feedback (&c, &f, 4, FALSE);
    weft_uet_reps_tick (&c, &f, WEFT_US (200));
    ck_assert_uint_eq (weft_uet_pick_ev (&c, &f, 1, 31), 6);
    ck_assert_uint_eq (f.evs_retired, 0);
    weft_uet_flow_clear (&f);
}
END_TEST

START_TEST (test_uet_oblivious_stays_in_the_pool_and_spreads)
{
    WeftUet c = cfg (WEFT_UET_LB_OBLIVIOUS, 16);
    WeftUetFlow f = { 0 };
    weft_uet_sender_init (&c, &f, 10);
    for (guint i = 0; i < 400; i++)
        ck_assert_uint_lt (weft_uet_pick_ev (&c, &f, 42, i % 10), 16);
    /* 400 uniform draws from 16 miss a given value with probability (15/16)^400 ~ 6e-12. */
    ck_assert_uint_eq (f.evs_used, 16);
    weft_uet_flow_clear (&f);
    WeftUet e = cfg (WEFT_UET_LB_ECMP, 16);
    ck_assert_uint_eq (weft_uet_ev_hash (&e, 1234, 5), 1234);
    ck_assert_uint_ne (weft_uet_ev_hash (&c, 1234, 5), weft_uet_ev_hash (&c, 1234, 6));
}
END_TEST

START_TEST (test_uet_rud_sender_resends_only_what_is_due)
{
    WeftUet c = cfg (WEFT_UET_LB_OBLIVIOUS, 4);
    c.delivery = WEFT_UET_RUD;
    c.packet_timers = TRUE;
    WeftUetFlow f = { 0 };
    weft_uet_sender_init (&c, &f, 8);
    for (guint64 s = 0; s < 6; s++) /* packets 0..5 leave 1 us apart */
        weft_uet_on_sent (&f, s, WEFT_US (s + 1));
    f.inflight = 6;
    ck_assert (weft_uet_on_sack (&f, 0));
    ck_assert (!weft_uet_on_sack (&f, 0)); /* a duplicate ACK changes nothing */
    ck_assert (weft_uet_on_sack (&f, 2));
    ck_assert (weft_uet_on_nack (&f, 3));
    ck_assert_uint_eq (f.inflight, 3);
    ck_assert_uint_eq (weft_uet_advance (&f, 0, 8), 1);
    ck_assert_uint_eq (weft_uet_next_lost (&f, 6), 3);
    ck_assert_uint_eq (weft_uet_next_lost (&f, 6), G_MAXUINT64);
    /* 3 is resent at 7 us: its first transmission no longer times it. */
    weft_uet_on_sent (&f, 3, WEFT_US (7));
    f.inflight++;
    /* Out: 1 (sent at 2 us), 4 (5), 5 (6), 3 (7); the oldest is 1. */
    ck_assert_uint_eq (weft_uet_oldest_out (&f), WEFT_US (2));
    ck_assert_uint_eq (weft_uet_pop_expired (&f, WEFT_US (1)), G_MAXUINT64);
    /* Expiring everything sent by 6 us: 1, then 4 and 5 (0, 2 acknowledged, 3 resent later). */
    ck_assert_uint_eq (weft_uet_pop_expired (&f, WEFT_US (6)), 1);
    weft_uet_on_packet_timeout (&f, 1);
    ck_assert_uint_eq (weft_uet_pop_expired (&f, WEFT_US (6)), 4);
    weft_uet_on_packet_timeout (&f, 4);
    ck_assert_uint_eq (weft_uet_pop_expired (&f, WEFT_US (6)), 5);
    weft_uet_on_packet_timeout (&f, 5);
    ck_assert_uint_eq (weft_uet_pop_expired (&f, WEFT_US (6)), G_MAXUINT64);
    ck_assert_uint_eq (weft_uet_oldest_out (&f), WEFT_US (7)); /* 3's resend */
    ck_assert_uint_eq (f.inflight, 1);
    /* A late ACK for 4: it was taken for lost, so it leaves neither the window nor the resends
     * twice. */
    ck_assert (weft_uet_on_sack (&f, 4));
    ck_assert_uint_eq (f.inflight, 1);
    ck_assert_uint_eq (weft_uet_next_lost (&f, 6), 1);
    ck_assert_uint_eq (weft_uet_next_lost (&f, 6), 5);
    ck_assert_uint_eq (weft_uet_next_lost (&f, 6), G_MAXUINT64);
    ck_assert (weft_uet_on_sack (&f, 3));
    ck_assert_uint_eq (f.inflight, 0);
    ck_assert_uint_eq (weft_uet_oldest_out (&f), WEFT_TIME_NEVER);
    weft_uet_flow_clear (&f);
}
END_TEST

/* The ring of transmissions grows past its first allocation and keeps the send order. */
START_TEST (test_uet_rud_timers_keep_the_send_order)
{
    WeftUet c = cfg (WEFT_UET_LB_OBLIVIOUS, 4);
    c.delivery = WEFT_UET_RUD;
    c.packet_timers = TRUE;
    WeftUetFlow f = { 0 };
    weft_uet_sender_init (&c, &f, 200);
    for (guint64 s = 0; s < 100; s++) {
        weft_uet_on_sent (&f, s, WEFT_US (s));
        if (s % 2 == 0) /* every even one is acknowledged at once: superseded in the ring */
            weft_uet_on_sack (&f, s);
    }
    for (guint64 s = 1; s < 100; s += 2) {
        ck_assert_uint_eq (weft_uet_oldest_out (&f), WEFT_US (s));
        ck_assert_uint_eq (weft_uet_pop_expired (&f, WEFT_US (1000)), s);
    }
    ck_assert_uint_eq (weft_uet_oldest_out (&f), WEFT_TIME_NEVER);
    weft_uet_flow_clear (&f);
}
END_TEST

START_TEST (test_uet_nscc_directions)
{
    WeftNscc cc = { .enabled = TRUE,
                    .target_delay = WEFT_US (4),
                    .md_gain = 0.8,
                    .pi_packets = 2,
                    .fi_packets = 1,
                    .quick_adapt = TRUE,
                    .max_window = 400000 };
    WeftNsccNet net = { .rtt = WEFT_US (5), .bdp_bytes = 62500, .trimming = TRUE };
    WeftNsccFlow f;
    const double pkt = 4178, target = 4e6, alpha = 0.0125;
    weft_nscc_flow_init (&cc, &f, &net, pkt, WEFT_US (5));
    /* Given values win over derived ones; the window starts at its largest. */
    ck_assert_double_eq (f.cwnd, 400000);
    ck_assert_double_eq (f.max_cwnd, 400000);
    ck_assert_double_eq (f.target, target);
    /* Unmarked, no queueing: fi + pi packets per window, pkt x pkt / cwnd for one packet. */
    double w = f.cwnd, avg = 0;
    weft_nscc_on_ack (&cc, &f, 4178, WEFT_US (5), FALSE, WEFT_US (10));
    ck_assert_double_eq_tol (f.cwnd, MIN (400000, w + (1 + 2) * pkt * pkt / w), 1e-6);
    /* Halfway to target: fi + pi / 2. */
    cc.max_window = 0;
    weft_nscc_flow_init (&cc, &f, &net, pkt, WEFT_US (5));
    f.cwnd = w = 50000;
    weft_nscc_on_ack (&cc, &f, 4178, WEFT_US (7), FALSE, WEFT_US (10));
    ck_assert_double_eq_tol (f.cwnd, w + (1 + 2 * 0.5) * pkt * pkt / w, 1e-6);
    avg = alpha * 2e6;
    /* Above target, unmarked: the fair increase alone, and the delay average follows. */
    for (int i = 0; i < 300; i++) {
        w = f.cwnd;
        weft_nscc_on_ack (&cc, &f, 4178, WEFT_US (13), FALSE, WEFT_US (11));
        ck_assert_double_eq_tol (f.cwnd, MIN (93750, w + pkt * pkt / w), 1e-6);
        avg = alpha * 8e6 + (1 - alpha) * avg;
    }
    ck_assert_double_eq_tol (f.avg_delay, avg, 1e-3);
    /* Marked with queueing delay 8 us: cut by 0.8 x (avg - 4) / avg, avg the delay average. */
    w = f.cwnd;
    avg = alpha * 8e6 + (1 - alpha) * avg;
    weft_nscc_on_ack (&cc, &f, 4178, WEFT_US (13), TRUE, WEFT_US (20));
    ck_assert_double_eq_tol (f.cwnd, w * (1 - 0.8 * (avg - target) / avg), 1e-6);
    ck_assert_uint_eq (f.decreases, 1);
    /* A second mark within the base RTT does not cut again. */
    w = f.cwnd;
    weft_nscc_on_ack (&cc, &f, 4178, WEFT_US (13), TRUE, WEFT_US (21));
    ck_assert_double_eq (f.cwnd, w);
    /* A mark below target: nothing. */
    weft_nscc_on_ack (&cc, &f, 4178, WEFT_US (6), TRUE, WEFT_US (30));
    ck_assert_double_eq (f.cwnd, w);
    ck_assert_uint_eq (f.decreases, 1);
    /* Quick adapt: a loss in the epoch, then the next epoch starts with what got through. */
    weft_nscc_on_loss (&cc, &f, WEFT_US (31));
    weft_nscc_on_ack (&cc, &f, 4178, 0, FALSE, WEFT_US (50));
    ck_assert_uint_eq (f.quick_adapts, 1);
    ck_assert_double_le (f.cwnd, 3 * 4178.0 + 4178.0);
}
END_TEST

/* NSCC's derived parameters (UE 1.0.3's Table 3-82 as UEC's htsim sets them): with an
 * unloaded RTT of 12.5 us at 400 Gb/s, BDP = 625,000 B and a = BDP / 150,000 B = 25 / 6. */
START_TEST (test_uet_nscc_derived)
{
    WeftNscc cc = { .enabled = TRUE, .md_gain = 0.8, .quick_adapt = TRUE };
    WeftNsccNet net = { .rtt = 12500000, .bdp_bytes = 12.5e-6 * 400e9 / 8, .trimming = TRUE };
    WeftNsccFlow f;
    const double a = 625000.0 / 150000.0;
    weft_nscc_flow_init (&cc, &f, &net, 4178, 10000000);
    ck_assert_double_eq_tol (f.target, 0.75 * 12.5e6, 1); /* 9.375 us with trimming */
    ck_assert_double_eq_tol (f.fi, 5 * a, 1e-9);
    ck_assert_double_eq_tol (f.pi, 4 * a * (9.375 / 12), 1e-6);
    ck_assert_double_eq_tol (f.max_cwnd, 1.5 * 625000, 1e-6);
    ck_assert_double_eq_tol (f.cwnd, 1.5 * 625000, 1e-6); /* the first window: the largest */
    net.trimming = FALSE;
    weft_nscc_flow_init (&cc, &f, &net, 4178, 10000000);
    ck_assert_double_eq_tol (f.target, 12.5e6, 1); /* the RTT itself without trimming */
    ck_assert_double_eq_tol (f.pi, 4 * a * (12.5 / 12), 1e-6);
    /* A tiny network still allows one packet. */
    net.bdp_bytes = 100;
    weft_nscc_flow_init (&cc, &f, &net, 4178, 10000000);
    ck_assert_double_eq (f.max_cwnd, 4178);
}
END_TEST

/* RCCC's pacer over a small flow table (models/rccc.h). */
static WeftRcccFlow rccc_flows[3];

static WeftRcccFlow *
rccc_at (gpointer ctx, guint32 id)
{
    return &((WeftRcccFlow *) ctx)[id];
}

START_TEST (test_uet_rccc_pacer_grants_pulls_round_robin)
{
    WeftRccc c = { .enabled = TRUE, .mtus_per_pull = 4, .pull_rate = 0.99 };
    WeftRcccRx rx = { 0 };
    memset (rccc_flows, 0, sizeof rccc_flows);
    guint32 id;
    /* Nothing asked: no pull. */
    ck_assert_uint_eq (weft_rccc_pacer_pull (&rx, rccc_at, rccc_flows, 4, &id), 0);
    ck_assert_uint_eq (id, G_MAXUINT32);
    /* Flow 0 wants 10 packets, flow 2 wants 3; flow 0 again (an older target) changes nothing. */
    ck_assert (weft_rccc_on_target (&rx, rccc_at, rccc_flows, 0, 10));
    ck_assert (weft_rccc_on_target (&rx, rccc_at, rccc_flows, 2, 3));
    ck_assert (!weft_rccc_on_target (&rx, rccc_at, rccc_flows, 0, 7));
    /* Invariant: turns alternate, each pull grants at most mtus_per_pull and never past the
     * target, and a flow leaves the queue once granted its target. */
    guint64 want[] = { 4, 3, 4, 2 };
    guint32 who[] = { 0, 2, 0, 0 };
    for (guint i = 0; i < G_N_ELEMENTS (want); i++) {
        ck_assert_uint_eq (weft_rccc_pacer_pull (&rx, rccc_at, rccc_flows, 4, &id), want[i]);
        ck_assert_uint_eq (id, who[i]);
    }
    ck_assert_uint_eq (weft_rccc_pacer_pull (&rx, rccc_at, rccc_flows, 4, &id), 0);
    ck_assert_uint_eq (id, G_MAXUINT32);
    ck_assert_uint_eq (rccc_flows[0].granted, 10);
    ck_assert_uint_eq (rccc_flows[2].granted, 3);
    ck_assert (!rccc_flows[0].queued && !rccc_flows[2].queued);
    /* A raised target queues the flow again. */
    ck_assert (weft_rccc_on_target (&rx, rccc_at, rccc_flows, 2, 4));
    ck_assert_uint_eq (weft_rccc_pacer_pull (&rx, rccc_at, rccc_flows, 4, &id), 1);
    /* The gap after a pull: its packets' time at pull_rate x the link rate, computed here -
     * 4 x 4178 B at 99 Gb/s is 1350.464... ns, rounded up to the picosecond. */
    guint64 bits = 4 * 4178 * 8;
    weft_time_t gap = weft_rccc_pull_gap (&c, 4, 4178, 100 * G_GUINT64_CONSTANT (1000000000));
    ck_assert_uint_eq (gap, (bits * 1000000000000ull + 99000000000ull - 1) / 99000000000ull);
}
END_TEST

START_TEST (test_uet_rccc_sender_credit_and_target)
{
    WeftRccc c = { .enabled = TRUE,
                   .mtus_per_pull = 4,
                   .pull_rate = 0.99,
                   .initial_credit_bdp = 1.5,
                   .max_credit_bdp = 1.5 };
    WeftRcccFlow r = { 0 };
    /* 1.5 x 60048 B of BDP in 4178-byte packets: 21 packets, speculative, also the cap. */
    weft_rccc_sender_init (&c, &r, 60048, 4178);
    ck_assert_int_eq (r.credit, 21);
    ck_assert_int_eq (r.cap, 21);
    ck_assert (r.speculating);
    /* While it holds 21 and wants 100, it asks for nothing beyond what it holds. */
    ck_assert_uint_eq (weft_rccc_target (&r, 100, 0), 0);
    /* The receiver answers: what is left of the initial credit is dropped; now it asks for its
     * cap, or its window plus one when NSCC caps it (here 5), or what it needs (3). */
    weft_rccc_stop_speculating (&r);
    ck_assert_int_eq (r.credit, 0);
    ck_assert_uint_eq (weft_rccc_target (&r, 100, 0), 21);
    ck_assert_uint_eq (weft_rccc_target (&r, 100, 5), 5);
    ck_assert_uint_eq (weft_rccc_target (&r, 3, 0), 3);
    /* Pulls carry the cumulative grant: a later one adds the difference, an older one nothing,
     * and credit never exceeds the cap. */
    ck_assert_uint_eq (weft_rccc_on_pull (&r, 4), 4);
    ck_assert_uint_eq (weft_rccc_on_pull (&r, 3), 0);
    ck_assert_int_eq (r.credit, 4);
    /* The target counts what it was granted: 4 + (21 - 4 held) */
    ck_assert_uint_eq (weft_rccc_target (&r, 100, 0), 21);
    ck_assert_uint_eq (weft_rccc_on_pull (&r, 40), 17);
    ck_assert_int_eq (r.credit, 21);
    /* No initial credit: not speculating, it asks first. */
    c.initial_credit_bdp = 0;
    weft_rccc_sender_init (&c, &r, 60048, 4178);
    ck_assert_int_eq (r.credit, 0);
    ck_assert (!r.speculating);
}
END_TEST

/* The value @help gives after @after ("on Ultra Ethernet "), up to ')' or ';'. */
static guint64
help_bytes (const char *help, const char *after)
{
    const char *at = strstr (help, after);
    ck_assert_msg (at != NULL, "no '%s' in '%s'", after, help);
    at += strlen (after);
    g_autofree char *text = g_strndup (at, strcspn (at, ");"));
    guint64 bytes = 0;
    ck_assert_msg (weft_units_parse_bytes (text, &bytes, NULL), "'%s'", text);
    return bytes;
}

static const char *
ecn_help (const char *key)
{
    for (const WeftParamSpec *p = weft_ecn_params; p->name; p++)
        if (strcmp (p->name, key) == 0)
            return p->help;
    ck_abort_msg ("no [ecn] %s", key);
    return NULL;
}

START_TEST (test_uet_ecn_defaults_as_params_says)
{
    static const struct {
        const char *kind, *after;
    } fabrics[] = { { "ultra-ethernet", "on Ultra Ethernet " }, { "roce", "for connectx" } };
    for (guint i = 0; i < G_N_ELEMENTS (fabrics); i++) {
        g_autofree char *text = g_strdup_printf (
            "[topology]\ngenerator = single_switch\nhosts = 2\nlink_rate = 100Gbps\n"
            "[fabric]\nkind = %s\n[workload.w]\nkind = flows\nflows = host0>host1 8KiB\n",
            fabrics[i].kind);
        WeftSession s;
        harness_prepare (&s, text);
        const WeftEcn *ecn = &s.net->env.fabric->ecn;
        ck_assert (ecn->enabled);
        /* RoCE's text reads "150KB for connectx": the value comes before the words. */
        if (i == 0) {
            ck_assert_uint_eq (ecn->kmin, help_bytes (ecn_help ("kmin"), fabrics[i].after));
            ck_assert_uint_eq (ecn->kmax, help_bytes (ecn_help ("kmax"), fabrics[i].after));
            ck_assert_double_eq (ecn->pmax,
                                 g_ascii_strtod (strstr (ecn_help ("pmax"), fabrics[i].after) +
                                                     strlen (fabrics[i].after),
                                                 NULL));
        } else {
            ck_assert (strstr (ecn_help ("kmin"), "150KB for connectx"));
            ck_assert (strstr (ecn_help ("kmax"), "1500KB for connectx"));
            ck_assert_uint_eq (ecn->kmin, 150000);
            ck_assert_uint_eq (ecn->kmax, 1500000);
        }
        weft_session_clear (&s);
    }
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("uet");
    TCase *tc = tcase_create ("rules");
    tcase_add_checked_fixture (tc, harness_tmp_setup, harness_tmp_teardown);
    tcase_add_test (tc, test_uet_round_robin_visits_the_pool_in_turn);
    tcase_add_test (tc, test_uet_bitmap_skips_a_congested_ev_once);
    tcase_add_test (tc, test_uet_reps_reuses_clean_evs_oldest_first);
    tcase_add_test (tc, test_uet_reps_retires_the_evs_a_timeout_finds_out);
    tcase_add_test (tc, test_uet_reps_probes_silent_evs_each_period);
    tcase_add_test (tc, test_uet_oblivious_stays_in_the_pool_and_spreads);
    tcase_add_test (tc, test_uet_rud_sender_resends_only_what_is_due);
    tcase_add_test (tc, test_uet_rud_timers_keep_the_send_order);
    tcase_add_test (tc, test_uet_nscc_directions);
    tcase_add_test (tc, test_uet_nscc_derived);
    tcase_add_test (tc, test_uet_ecn_defaults_as_params_says);
    tcase_add_test (tc, test_uet_rccc_pacer_grants_pulls_round_robin);
    tcase_add_test (tc, test_uet_rccc_sender_credit_and_target);
    suite_add_tcase (s, tc);
    return s;
}
