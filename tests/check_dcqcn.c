/* tests/check_dcqcn.c - RoCE ECN marking ([ecn], models/ecn.h) and DCQCN ([dcqcn],
 * models/dcqcn.h).
 *
 * Invariants checked:
 *  - the RED line: driving the marker directly with many packets at fixed queue depths, the
 *    fraction marked is 0 at and below kmin, pmax x (q - kmin) / (kmax - kmin) between, pmax
 *    at kmax and 1 above, within 5 standard deviations of the binomial; ACKs and CNPs are
 *    never marked; a rate-scaled (hpcc) profile moves the thresholds with the egress rate;
 *  - fairness: two flows into one 400 Gb/s link (the second joining 200 us after the first),
 *    paper preset: from some time on, every 1 ms window (sliding by 10 us) gives each flow
 *    within 10 % of the fair share (half the bottleneck's goodput) - the time printed is
 *    when the first such window starts, after the second flow's start - and the bottleneck
 *    queue after that stays below twice kmax; nothing is dropped.  connectx and hpcc are run
 *    and printed (they do not converge within the 4 ms these flows last: see below) with the
 *    invariants that hold for every preset;
 *  - every CE mark reaches its receiver; CNPs sent = received; at most one CNP per flow per
 *    cnp_interval; the same seed gives the same marks (determinism);
 *  - DCQCN off: CE marks still happen but no CNP is sent and no rate is cut;
 *  - configuration: [ecn] and [dcqcn] are refused unless kind = roce; kmax < kmin refused; a
 *    key given overrides its preset.
 * Leaves unchecked: PFC interaction (no PFC yet), the exact rate trajectory.
 */
#include "config.h"
#include <check.h>
#include <math.h>

#include "cli/session.h"
#include "models/nic.h"
#include "models/switch.h"
#include "sim/rng.h"
#include "tests/harness.h"

/* ---- ECN: the RED line ---------------------------------------------------------------- */

static guint64
marks_at (const WeftEcn *ecn, gsl_rng *rng, guint64 depth, guint64 rate, guint n, guint8 kind)
{
    guint64 k = 0;
    for (guint i = 0; i < n; i++) {
        WeftPacket p = {.kind = kind, .size = 4178};
        k += weft_ecn_mark (ecn, rng, depth, rate, &p);
        ck_assert_uint_eq (p.ce, k > 0 && p.ce); /* ce set exactly when counted */
    }
    return k;
}

static void
check_line (const WeftEcn *ecn, gsl_rng *rng, guint64 depth, guint64 rate, double expect)
{
    const guint n = 200000;
    guint64 k = marks_at (ecn, rng, depth, rate, n, WEFT_PKT_DATA);
    double mean = expect * n, sd = sqrt (n * expect * (1 - expect));
    printf ("# depth %" G_GUINT64_FORMAT " B: marked %" G_GUINT64_FORMAT " of %u, expected %.1f\n",
            depth, k, n, mean);
    ck_assert_msg (fabs ((double)k - mean) <= 5 * sd + 0.5,
                   "depth %" G_GUINT64_FORMAT ": %" G_GUINT64_FORMAT
                   " marks, expected %.1f +- %.1f",
                   depth, k, mean, 5 * sd);
}

START_TEST (test_ecn_red_line)
{
    gsl_rng *rng = weft_rng_new (1, 7);
    const guint64 rate = 400000000000;
    for (guint c = 0; c < 2; c++) {
        WeftEcn ecn = {.enabled = TRUE, .kmin = 5000, .kmax = 200000, .pmax = c ? 0.2 : 0.01};
        check_line (&ecn, rng, 0, rate, 0);
        check_line (&ecn, rng, ecn.kmin, rate, 0);
        for (guint j = 1; j <= 4; j++) {
            guint64 q = ecn.kmin + (ecn.kmax - ecn.kmin) * j / 4;
            check_line (&ecn, rng, q, rate, ecn.pmax * j / 4.0);
        }
        check_line (&ecn, rng, ecn.kmax + 1, rate, 1);
        /* Not ECN-capable: never marked. */
        ck_assert_uint_eq (marks_at (&ecn, rng, ecn.kmax + 1, rate, 1000, WEFT_PKT_ACK), 0);
        ck_assert_uint_eq (marks_at (&ecn, rng, ecn.kmax + 1, rate, 1000, WEFT_PKT_CNP), 0);
    }
    /* hpcc's profile scales with the egress rate: 100 KB..400 KB at 25 Gb/s is 1.6..6.4 MB at
     * 400 Gb/s. */
    WeftEcn h = {
        .enabled = TRUE, .kmin = 100000, .kmax = 400000, .pmax = 0.2, .scale_ref_bps = 25000000000};
    ck_assert_double_eq (weft_ecn_probability (&h, 1600000, rate), 0);
    ck_assert_double_eq_tol (weft_ecn_probability (&h, 4000000, rate), 0.1, 1e-9);
    ck_assert_double_eq_tol (weft_ecn_probability (&h, 250000, 25000000000), 0.1, 1e-9);
    ck_assert_double_eq (weft_ecn_probability (&h, 6400001, rate), 1);
    gsl_rng_free (rng);
}
END_TEST

/* ---- DCQCN: two flows into one 400 Gb/s link --------------------------------------------- */

#define PAIR                                                                                       \
    "[experiment]\nseed = 1\nhang_timeout = 10ms\n[topology]\ngenerator = single_switch\n"         \
    "hosts = 3\nlink_rate = 400Gbps\ncable_length = 2m\n[fabric]\nkind = roce\n"                   \
    "[pfc]\nenabled = false\n[switch]\nbuffer = 32MiB\n[transport]\nwindow = 64MiB\n"              \
    "[workload.pair]\nkind = flows\n"                                                              \
    "flows = host0>host2 %s 0us; host1>host2 %s %s\n"

#define PROBE_PS   WEFT_US (10)
#define MAX_PROBES 4096
#define WIN        100 /* probes per averaging window: 1 ms */

typedef struct {
    WeftSession *s;
    const WeftPort *bottleneck;
    guint n;
    weft_time_t t[MAX_PROBES];
    guint64 d0[MAX_PROBES], d1[MAX_PROBES], q[MAX_PROBES];
} Probe;

static void
probe (WeftSim *sim, void *data)
{
    Probe *p = data;
    if (p->n == MAX_PROBES)
        return;
    p->t[p->n] = sim->now;
    p->d0[p->n] = p->s->net->tp.flows[0].delivered;
    p->d1[p->n] = p->s->net->tp.flows[1].delivered;
    p->q[p->n] = p->bottleneck->q_bytes;
    p->n++;
}

typedef struct {
    WeftNetworkStats st;
    double converge_us;    /* after the second flow's start; < 0: never */
    guint64 q_after;       /* highest bottleneck queue sampled after convergence */
    double share0, share1; /* mean Gb/s of each after convergence */
    guint64 kmax_bytes;    /* the preset's kmax at 400 Gb/s */
} Fair;

static Fair
run_pair (const char *extra, const char *size, const char *second_start)
{
    g_autofree char *base = g_strdup_printf (PAIR, size, size, second_start);
    g_autofree char *text = g_strconcat (base, extra, NULL);
    WeftSession s;
    harness_prepare (&s, text);
    Probe *p = g_new0 (Probe, 1);
    p->s = &s;
    for (guint i = 0; i < s.sim->models->len; i++) {
        const WeftModel *m = s.sim->models->pdata[i];
        if (m->klass != &weft_switch_class)
            continue;
        const WeftSwitch *sw = (const WeftSwitch *)m;
        for (guint k = 0; k < sw->n_ports; k++)
            if (sw->ports[k].owner && sw->ports[k].link.peer &&
                sw->ports[k].link.peer->node == weft_graph_lookup (s.graph, "host2"))
                p->bottleneck = &sw->ports[k];
    }
    ck_assert_ptr_nonnull (p->bottleneck);
    s.sim->sample = probe;
    s.sim->sample_data = p;
    s.sim->sample_interval = PROBE_PS;
    ck_assert_int_eq (weft_sim_run (s.sim), WEFT_SIM_DONE);
    Fair r = {0};
    weft_network_stats (s.net, &r.st);
    const WeftEcn *ecn = &s.net->fabric.ecn;
    r.kmax_bytes = ecn->scale_ref_bps ? ecn->kmax * 400000000000 / ecn->scale_ref_bps : ecn->kmax;
    ck_assert_uint_eq (r.st.drops, 0);
    ck_assert_uint_eq (r.st.bytes_delivered, r.st.bytes_offered);
    ck_assert_uint_eq (r.st.ce_received, r.st.ecn_marked);
    ck_assert_uint_eq (r.st.cnps_received, r.st.cnps_sent);
    /* At most one CNP per flow per interval: the flows ran for at most the run's length. */
    const WeftDcqcn *cc = &s.net->fabric.dcqcn;
    if (cc->enabled && cc->cnp_interval > 0)
        for (guint i = 0; i < 2; i++)
            ck_assert_uint_le (s.net->tp.flows[i].dcqcn.cnps_sent,
                               s.sim->now / cc->cnp_interval + 1);
    /* 1 ms windows (WIN probes), sliding by 10 us, while both flows run: the fair share is half the
     * link's goodput (payload / wire bytes). */
    const double fair = 400e9 * 4096 / (4096 + 82) / 2 / 1e9;
    weft_time_t t1 = s.net->tp.flows[1].start_ps;
    weft_time_t end = MIN (s.net->tp.flows[0].finish_ps, s.net->tp.flows[1].finish_ps);
    guint first = 0, n_ok = 0, n_win = 0;
    gboolean ok_run = FALSE;
    double sum0 = 0, sum1 = 0;
    for (guint i = 0; i + WIN < p->n; i++) {
        if (p->t[i] < t1 || p->t[i + WIN] > end)
            continue;
        double dt = weft_time_to_s (p->t[i + WIN] - p->t[i]);
        double g0 = (double)(p->d0[i + WIN] - p->d0[i]) * 8 / dt / 1e9;
        double g1 = (double)(p->d1[i + WIN] - p->d1[i]) * 8 / dt / 1e9;
        gboolean ok = fabs (g0 - fair) <= 0.1 * fair && fabs (g1 - fair) <= 0.1 * fair;
        if (i % 20 == 0)
            printf ("#   t %7.1f us  flow0 %6.1f  flow1 %6.1f Gb/s  queue %8.1f KB%s\n",
                    weft_time_to_us (p->t[i]), g0, g1, p->q[i] / 1e3, ok ? "" : "  *");
        if (!ok) {
            ok_run = FALSE;
            continue;
        }
        if (!ok_run) {
            ok_run = TRUE;
            first = i;
            n_ok = 0;
            sum0 = sum1 = 0;
        }
        n_ok++;
        sum0 += g0;
        sum1 += g1;
    }
    n_win = n_ok;
    r.converge_us = ok_run && n_win >= 10 ? weft_time_to_us (p->t[first] - t1) : -1;
    if (ok_run) {
        r.share0 = sum0 / n_win;
        r.share1 = sum1 / n_win;
        for (guint i = first; i < p->n && p->t[i] <= end; i++)
            r.q_after = MAX (r.q_after, p->q[i]);
    }
    g_free (p);
    weft_session_clear (&s);
    return r;
}

static void
check_fair (const char *preset, gboolean must_converge)
{
    g_autofree char *extra = g_strdup_printf ("[dcqcn]\npreset = %s\n", preset);
    Fair r = run_pair (extra, "100MB", "200us");
    printf ("# %s: converged %.0f us after the second flow started; then flow0 %.1f, flow1 "
            "%.1f Gb/s, queue <= %.1f KB (kmax %.1f KB); CE %" G_GUINT64_FORMAT
            ", CNPs %" G_GUINT64_FORMAT ", cuts %" G_GUINT64_FORMAT "\n",
            preset, r.converge_us, r.share0, r.share1, r.q_after / 1e3, r.kmax_bytes / 1e3,
            r.st.ecn_marked, r.st.cnps_sent, r.st.dcqcn_cuts);
    ck_assert_uint_gt (r.st.cnps_sent, 0);
    ck_assert_uint_gt (r.st.dcqcn_cuts, 0);
    if (!must_converge)
        return;
    ck_assert_msg (r.converge_us >= 0, "%s: no convergence to within 10 %% of the fair share",
                   preset);
    ck_assert_uint_le (r.q_after, 2 * r.kmax_bytes);
}

START_TEST (test_dcqcn_fair_connectx)
{
    check_fair ("connectx", FALSE);
}
END_TEST

START_TEST (test_dcqcn_fair_paper)
{
    check_fair ("paper", TRUE);
}
END_TEST

START_TEST (test_dcqcn_fair_hpcc)
{
    check_fair ("hpcc", FALSE);
}
END_TEST

START_TEST (test_dcqcn_off_no_cnps)
{
    /* ECN still marks, but nobody answers: no CNP, no cut; a shorter run suffices. */
    Fair r = run_pair ("[dcqcn]\nenabled = false\n", "20MB", "20us");
    printf ("# dcqcn off: CE %" G_GUINT64_FORMAT ", CNPs %" G_GUINT64_FORMAT
            ", max queue %" G_GUINT64_FORMAT " B\n",
            r.st.ecn_marked, r.st.cnps_sent, r.st.max_queue_bytes);
    ck_assert_uint_gt (r.st.ecn_marked, 0);
    ck_assert_uint_eq (r.st.cnps_sent, 0);
    ck_assert_uint_eq (r.st.cnps_received, 0);
    ck_assert_uint_eq (r.st.dcqcn_cuts, 0);
}
END_TEST

START_TEST (test_ecn_deterministic_and_enqueue)
{
    Fair a = run_pair ("", "20MB", "20us");
    Fair b = run_pair ("", "20MB", "20us");
    Fair e = run_pair ("[ecn]\nmark_on = enqueue\n", "20MB", "20us");
    printf ("# dequeue marks %" G_GUINT64_FORMAT " (twice: %" G_GUINT64_FORMAT
            "), enqueue marks %" G_GUINT64_FORMAT "\n",
            a.st.ecn_marked, b.st.ecn_marked, e.st.ecn_marked);
    ck_assert_uint_gt (a.st.ecn_marked, 0);
    ck_assert_uint_eq (a.st.ecn_marked, b.st.ecn_marked);
    ck_assert_uint_eq (a.st.cnps_sent, b.st.cnps_sent);
    ck_assert_uint_gt (e.st.ecn_marked, 0);
    ck_assert_uint_gt (e.st.cnps_sent, 0);
}
END_TEST

static const char *lone = "[workload.w]\nkind = flows\nflows = host0>host1 1MiB\n[topology]\n"
                          "generator = single_switch\nhosts = 2\nlink_rate = 400Gbps\n";

START_TEST (test_dcqcn_config)
{
    struct {
        const char *extra;
        int code;
    } cases[] = {
        {"[dcqcn]\nenabled = true\n", WEFT_CONFIG_ERROR_UNKNOWN_GROUP},
        {"[ecn]\nkmin = 1KB\n", WEFT_CONFIG_ERROR_UNKNOWN_GROUP},
        {"[fabric]\nkind = infiniband\n[ecn]\nkmin = 1KB\n", WEFT_CONFIG_ERROR_UNKNOWN_GROUP},
        {"[fabric]\nkind = roce\n[ecn]\nkmin = 100KB\nkmax = 50KB\n", WEFT_CONFIG_ERROR_RANGE},
        {"[fabric]\nkind = roce\n[dcqcn]\npreset = dctcp\n", WEFT_CONFIG_ERROR_VALUE},
    };
    for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
        WeftSession s;
        g_autoptr (GError) error = NULL;
        g_autofree char *text = g_strconcat (lone, cases[i].extra, NULL);
        ck_assert_msg (!harness_try_prepare (&s, text, &error), "case %u accepted", i);
        ck_assert_msg (g_error_matches (error, WEFT_CONFIG_ERROR, cases[i].code), "case %u: %s", i,
                       error->message);
        weft_session_clear (&s);
    }
    /* Presets fill what the file leaves out; a key given wins. */
    WeftSession s;
    g_autofree char *text = g_strconcat (lone,
                                         "[fabric]\nkind = roce\n[dcqcn]\npreset = paper\n"
                                         "rai = 10Mbps\n[ecn]\npmax = 0.05\n",
                                         NULL);
    harness_prepare (&s, text);
    const WeftDcqcn *cc = &s.net->fabric.dcqcn;
    const WeftEcn *ecn = &s.net->fabric.ecn;
    ck_assert (cc->enabled);
    ck_assert_uint_eq (cc->rai, 10000000);
    ck_assert_uint_eq (cc->rhai, 400000000);
    ck_assert_uint_eq (cc->cnp_interval, WEFT_US (50));
    ck_assert_uint_eq (cc->byte_counter, 10000000);
    ck_assert_uint_eq (cc->fast_recovery, 5);
    ck_assert_double_eq (cc->g, 1.0 / 256);
    ck_assert_uint_eq (ecn->kmin, 5000);
    ck_assert_uint_eq (ecn->kmax, 200000);
    ck_assert_double_eq (ecn->pmax, 0.05);
    weft_session_clear (&s);
    /* hpcc: thresholds and steps scale with the rate unless given. */
    g_autofree char *h =
        g_strconcat (lone, "[fabric]\nkind = roce\n[dcqcn]\npreset = hpcc\n", NULL);
    harness_prepare (&s, h);
    ck_assert_uint_eq (s.net->fabric.ecn.kmin, 100000);
    ck_assert_uint_eq (s.net->fabric.ecn.scale_ref_bps, 25000000000);
    ck_assert_double_eq (s.net->fabric.ecn.pmax, 0.2);
    ck_assert_uint_eq (s.net->fabric.dcqcn.scale_ref_bps, 25000000000);
    weft_session_clear (&s);
}
END_TEST

/* ---- reaction point by hand ------------------------------------------------------------ */

START_TEST (test_dcqcn_reaction_point)
{
    WeftDcqcn cc = {.enabled = TRUE,
                    .g = 1.0 / 256,
                    .alpha_init = 1,
                    .alpha_period = WEFT_US (55),
                    .max_decrease = 1,
                    .min_rate = 1000000,
                    .increase_timer = WEFT_US (55),
                    .byte_counter = 10000000,
                    .fast_recovery = 5,
                    .rai = 40000000,
                    .rhai = 400000000};
    WeftDcqcnFlow s = {0};
    weft_dcqcn_flow_init (&cc, &s, 40000000000);
    /* First CNP: Rt = 40G, Rc = 40G x (1 - 1/2) = 20G, alpha = (1 - g) + g = 1. */
    ck_assert (weft_dcqcn_on_cnp (&cc, &s, WEFT_US (100)));
    ck_assert_uint_eq (s.rt_bps, 40000000000);
    ck_assert_uint_eq (s.rc_bps, 20000000000);
    ck_assert_double_eq_tol (s.alpha, 1, 1e-12);
    /* Two alpha periods later alpha has decayed twice before the second cut. */
    ck_assert (weft_dcqcn_on_cnp (&cc, &s, WEFT_US (100) + 2 * WEFT_US (55) + 1));
    double a = pow (1 - cc.g, 2);
    ck_assert_uint_eq (s.rt_bps, 20000000000);
    ck_assert_uint_eq (s.rc_bps, (guint64)(20e9 * (1 - a / 2)));
    ck_assert_double_eq_tol (s.alpha, (1 - cc.g) * a + cc.g, 1e-12);
    /* Fast recovery: F = 5 timer events halve the gap to Rt each, Rt unchanged. */
    guint64 rt = s.rt_bps;
    for (guint i = 0; i < 4; i++) {
        guint64 rc = s.rc_bps;
        ck_assert (weft_dcqcn_on_timer (&cc, &s));
        ck_assert_uint_eq (s.rt_bps, rt);
        ck_assert_uint_eq (s.rc_bps, (rt + rc + 1) / 2);
    }
    /* Fifth timer event: max (T, BC) = F: additive increase. */
    ck_assert (weft_dcqcn_on_timer (&cc, &s));
    ck_assert_uint_eq (s.rt_bps, rt + cc.rai);
    /* Byte counter past F too: hyper increase by (min (T, BC) - F) x R_HAI. */
    for (guint i = 0; i < 6; i++)
        weft_dcqcn_on_sent (&cc, &s, cc.byte_counter);
    ck_assert_uint_eq (s.bc_stage, 6);
    ck_assert_uint_eq (s.rt_bps, rt + 7 * cc.rai); /* min (T, BC) = 5 = F: still additive */
    ck_assert (weft_dcqcn_on_timer (&cc, &s));     /* T = 6, BC = 6 */
    ck_assert_uint_eq (s.rt_bps, rt + 7 * cc.rai + cc.rhai);
    /* It gets back to line rate and stops. */
    for (guint i = 0; i < 1000 && weft_dcqcn_on_timer (&cc, &s); i++)
        ;
    ck_assert (!s.active);
    ck_assert_uint_eq (s.rc_bps, 40000000000);
    /* The notification point: one CNP per interval. */
    WeftDcqcn np = {.cnp_interval = WEFT_US (50)};
    WeftDcqcnFlow n = {0};
    ck_assert (weft_dcqcn_np_on_ce (&np, &n, WEFT_US (1)));
    ck_assert (!weft_dcqcn_np_on_ce (&np, &n, WEFT_US (50)));
    ck_assert (weft_dcqcn_np_on_ce (&np, &n, WEFT_US (51)));
    ck_assert_uint_eq (n.ce_received, 3);
    ck_assert_uint_eq (n.cnps_sent, 2);
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("dcqcn");
    TCase *tc = tcase_create ("dcqcn");
    tcase_add_checked_fixture (tc, harness_tmp_setup, harness_tmp_teardown);
    tcase_set_timeout (tc, 300);
    tcase_add_test (tc, test_ecn_red_line);
    tcase_add_test (tc, test_dcqcn_reaction_point);
    tcase_add_test (tc, test_dcqcn_config);
    tcase_add_test (tc, test_dcqcn_off_no_cnps);
    tcase_add_test (tc, test_ecn_deterministic_and_enqueue);
    tcase_add_test (tc, test_dcqcn_fair_connectx);
    tcase_add_test (tc, test_dcqcn_fair_paper);
    tcase_add_test (tc, test_dcqcn_fair_hpcc);
    suite_add_tcase (s, tc);
    return s;
}
