/* tests/check_ibcc.c - InfiniBand congestion control ([ibcc], models/ibcc.h) and ACK
 * coalescing ([transport] ack_every), end to end through the same session code as `weft run`.
 *
 * Invariants checked:
 *  - congestion spreading (the scenario of check_infiniband.c: a victim sharing only an
 *    upstream link with a 4-to-1 incast): with IB CC off the victim runs below half its lone
 *    rate; with it on, it gets back most of it (>= 80 % of its lone rate), the incast senders'
 *    CCT index rises, and every FECN a switch marks reaches its receiver and comes back as a
 *    BECN (marked = received = BECNs, all > 0), and the CCTI timer lowers the indexes again
 *    (at the end they sum below their peaks); nothing is lost and every byte arrives;
 *  - no marks below the threshold: a lone flow at line rate, or a threshold larger than any
 *    queue can grow, marks nothing, and CC on leaves a lone flow's rate unchanged;
 *  - marking_rate = N marks exactly one of every N + 1 eligible packets at each output
 *    (floor(eligible / (N + 1))), and with N = 0 every eligible packet;
 *  - the table and the pacing: a flow with a fixed index (ccti_min) is paced at
 *    serialization + CCT[ccti_min] per packet, within 2 %;
 *  - ACK coalescing: ack_every = 4 sends about a quarter of the ACKs (n / 4 + the last one)
 *    and a lone flow still runs at line rate x payload / wire size within 1 %;
 *  - configuration: [ibcc] is refused on Ethernet; a malformed CCT entry, an InfiniBand MTU
 *    outside 256..4096 powers of two, and a window smaller than ack_every are refused.
 * Leaves unchecked: the exact CCTI trajectory (it depends on feedback timing), fairness among
 * the incast senders under CC, credit-starvation marking (not modelled).
 */
#include "config.h"
#include <check.h>
#include <glib/gstdio.h>

#include "cli/session.h"
#include "models/nic.h"
#include "models/switch.h"
#include "tests/harness.h"


static double
flow_gbps (const WeftFlow *f)
{
    return (double) f->spec.size_bytes * 8 / weft_time_to_s (f->finish_ps - f->spec.start_ps) / 1e9;
}

static const WeftFlow *
flow_to (const WeftSession *s, const char *dst)
{
    guint32 node = weft_graph_lookup (s->graph, dst);
    for (guint i = 0; i < s->net->tp.n_flows; i++)
        if (s->net->tp.flows[i].spec.dst == node)
            return &s->net->tp.flows[i];
    ck_abort_msg ("no flow to %s", dst);
    return NULL;
}

#define RATE 400e9
#define WIRE (4096.0 + 26.0)
#define LINE (RATE / 1e9 * 4096 / WIRE)

/* check_infiniband.c's congestion-spreading scenario: the victim host3 -> host7 crosses
 * leaf0 -> spine -> leaf1 beside a 4-to-1 incast into host4; uplinks at 1.6 Tb/s, so only
 * host4's link is oversubscribed.  Switches without latency, as the scenario was tuned for:
 * with Quantum's 130 ns per switch ([switch] latency = auto) the default congestion control
 * table no longer brings the victim back within its 8 MiB. */
static const char *spreading =
    "[topology]\ngenerator = leafspine\nleaves = 2\nspines = 1\nhosts_per_leaf = 4\n"
    "link_rate = 400Gbps\nuplink_rate = 1600Gbps\n[fabric]\nkind = infiniband\n"
    "routing = static\n[infiniband]\nbuffer = 32KiB\n[switch]\nlatency = 0ns\n"
    "[workload.victim]\nkind = flows\nflows = host3>host7 8MiB\n";
static const char *incast = "[workload.incast]\nkind = incast\nsenders = host0;host1;host5;host6\n"
                            "receiver = host4\nflow_size = 8MiB\n";

typedef struct {
    double victim_gbps;
    guint32 incast_ccti_min_peak;               /* lowest peak CCTI among the incast senders */
    guint64 incast_ccti_peaks, incast_ccti_end; /* sums over the incast senders */
    WeftNetworkStats st;
} Outcome;

static Outcome
run_spreading (gboolean with_incast, const char *ibcc)
{
    g_autofree char *text = g_strconcat (spreading, with_incast ? incast : "", ibcc, NULL);
    WeftSession s;
    harness_prepare (&s, text);
    ck_assert_int_eq (weft_sim_run (s.sim), WEFT_SIM_DONE);
    Outcome o = { 0 };
    o.victim_gbps = flow_gbps (flow_to (&s, "host7"));
    o.incast_ccti_min_peak = G_MAXUINT32;
    for (guint i = 0; i < s.net->tp.n_flows; i++) {
        const WeftFlow *f = &s.net->tp.flows[i];
        /* IB CC's state exists only where [ibcc] is on (models/transport.h) */
        ck_assert ((f->cc != NULL) == s.net->fabric.ibcc.enabled);
        if (f->cc && f->spec.dst == weft_graph_lookup (s.graph, "host4")) {
            o.incast_ccti_min_peak = MIN (o.incast_ccti_min_peak, f->cc->ccti_peak);
            o.incast_ccti_peaks += f->cc->ccti_peak;
            o.incast_ccti_end += f->cc->ccti;
        }
    }
    weft_network_stats (s.net, &o.st);
    ck_assert_uint_eq (o.st.lossless_drops, 0);
    ck_assert_uint_eq (o.st.bytes_delivered, o.st.bytes_offered);
    weft_session_clear (&s);
    return o;
}

START_TEST (test_ibcc_victim_recovers)
{
    Outcome alone = run_spreading (FALSE, "");
    Outcome off = run_spreading (TRUE, "");
    Outcome on = run_spreading (TRUE, "[ibcc]\nenabled = true\n");
    printf ("# victim alone %.1f Gb/s, CC off %.1f, CC on %.1f; marks %" G_GUINT64_FORMAT
            " becn %" G_GUINT64_FORMAT " ccti peak (min over incast) %u, max %u\n",
            alone.victim_gbps, off.victim_gbps, on.victim_gbps, on.st.fecn_marked,
            on.st.becn_received, on.incast_ccti_min_peak, on.st.ccti_peak);
    ck_assert_double_lt (off.victim_gbps, 0.5 * alone.victim_gbps);
    ck_assert_uint_eq (off.st.fecn_marked, 0);
    ck_assert_uint_eq (off.st.becn_received, 0);
    ck_assert_double_ge (on.victim_gbps, 0.8 * alone.victim_gbps);
    ck_assert_uint_gt (on.st.fecn_marked, 0);
    ck_assert_uint_eq (on.st.fecn_received, on.st.fecn_marked);
    ck_assert_uint_eq (on.st.becn_received, on.st.fecn_marked);
    ck_assert_uint_gt (on.incast_ccti_min_peak, 0);
    /* The CCTI timer brings the indexes down again once the marks stop. */
    ck_assert_uint_lt (on.incast_ccti_end, on.incast_ccti_peaks);
}
END_TEST

/* Every fabric switch's markers: eligible packets and marks, summed; and checks that each
 * output marked exactly one of every @rate + 1 of its eligible packets (one VL here). */
static void
marker_totals (const WeftSession *s, guint64 rate, guint64 *eligible, guint64 *marked)
{
    *eligible = *marked = 0;
    for (guint i = 0; i < s->sim->models->len; i++) {
        const WeftModel *m = s->sim->models->pdata[i];
        if (m->klass != &weft_switch_class || !((const WeftSwitch *) m)->cc_markers)
            continue;
        const WeftSwitch *sw = (const WeftSwitch *) m;
        guint64 sum = 0;
        for (guint p = 0; p < sw->n_ports; p++) {
            const WeftIbccMarker *mk = &sw->cc_markers[p];
            ck_assert_uint_eq (mk->marked, mk->eligible / (rate + 1));
            *eligible += mk->eligible;
            *marked += mk->marked;
            sum += mk->marked;
        }
        ck_assert_uint_eq (sum, sw->fecn_marked);
    }
}

START_TEST (test_ibcc_marking_rate_and_threshold)
{
    guint64 marks[2], eligible[2];
    const guint64 rates[2] = { 0, 3 };
    for (guint r = 0; r < 2; r++) {
        g_autofree char *text =
            g_strdup_printf ("%s%s[ibcc]\nenabled = true\nmarking_rate = %" G_GUINT64_FORMAT "\n",
                             spreading, incast, rates[r]);
        WeftSession s;
        harness_prepare (&s, text);
        ck_assert_int_eq (weft_sim_run (s.sim), WEFT_SIM_DONE);
        marker_totals (&s, rates[r], &eligible[r], &marks[r]);
        WeftNetworkStats st;
        weft_network_stats (s.net, &st);
        ck_assert_uint_eq (st.fecn_marked, marks[r]);
        ck_assert_uint_eq (st.becn_received, marks[r]);
        weft_session_clear (&s);
    }
    printf ("# marking_rate 0: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
            " eligible marked; marking_rate 3: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT "\n",
            marks[0], eligible[0], marks[1], eligible[1]);
    ck_assert_uint_eq (marks[0], eligible[0]);
    ck_assert_uint_gt (marks[1], 0);
    ck_assert_uint_le (marks[1], eligible[1] / 4);

    /* A threshold above any queue the input buffers allow (3 inputs x 32 KiB): no marks. */
    g_autofree char *high =
        g_strconcat (spreading, incast, "[ibcc]\nenabled = true\nthreshold = 1MiB\n", NULL);
    WeftSession s;
    harness_prepare (&s, high);
    ck_assert_int_eq (weft_sim_run (s.sim), WEFT_SIM_DONE);
    guint64 e, m;
    marker_totals (&s, 0, &e, &m);
    ck_assert_uint_eq (e, 0);
    ck_assert_uint_eq (m, 0);
    weft_session_clear (&s);
}
END_TEST

static const char *lone = "[topology]\ngenerator = single_switch\nhosts = 2\n"
                          "link_rate = 400Gbps\ncable_length = 2m\n[fabric]\nkind = infiniband\n"
                          "[infiniband]\nbuffer = 256KiB\n"
                          "[workload.w]\nkind = flows\nflows = host0>host1 16MiB\n";

START_TEST (test_ibcc_lone_flow_unmarked_at_line_rate)
{
    g_autofree char *text = g_strconcat (lone, "[ibcc]\nenabled = true\n", NULL);
    WeftSession s;
    harness_prepare (&s, text);
    ck_assert_int_eq (weft_sim_run (s.sim), WEFT_SIM_DONE);
    WeftNetworkStats st;
    weft_network_stats (s.net, &st);
    ck_assert_uint_eq (st.fecn_marked, 0);
    ck_assert_uint_eq (st.becn_received, 0);
    ck_assert_double_eq_tol (flow_gbps (&s.net->tp.flows[0]), LINE, LINE * 0.01);
    weft_session_clear (&s);
}
END_TEST

START_TEST (test_ibcc_pacing_follows_the_table)
{
    /* ccti_min = 31 pins the index: entry 31 of the default table is 31 x 8 = 248 units of
     * 1.024 ns; each packet then takes its serialization plus that delay. */
    g_autofree char *text = g_strconcat (lone, "[ibcc]\nenabled = true\nccti_min = 31\n", NULL);
    WeftSession s;
    harness_prepare (&s, text);
    ck_assert_int_eq (weft_sim_run (s.sim), WEFT_SIM_DONE);
    double per_pkt_s = WIRE * 8 / RATE + 248 * 1.024e-9;
    double expect = 4096 * 8 / per_pkt_s / 1e9;
    printf ("# paced at CCTI 31: %.2f Gb/s, expected %.2f\n", flow_gbps (&s.net->tp.flows[0]),
            expect);
    ck_assert_double_eq_tol (flow_gbps (&s.net->tp.flows[0]), expect, expect * 0.02);
    ck_assert_uint_eq (s.net->tp.flows[0].cc->ccti, 31);
    weft_session_clear (&s);
}
END_TEST

START_TEST (test_ibcc_ack_coalescing)
{
    guint64 acks[2];
    const guint every[2] = { 1, 4 };
    for (guint r = 0; r < 2; r++) {
        g_autofree char *text = g_strdup_printf ("%s[transport]\nack_every = %u\n", lone, every[r]);
        WeftSession s;
        harness_prepare (&s, text);
        ck_assert_int_eq (weft_sim_run (s.sim), WEFT_SIM_DONE);
        const WeftFlow *f = &s.net->tp.flows[0];
        acks[r] = f->acks_sent;
        ck_assert_uint_eq (acks[r], (f->n_pkts + every[r] - 1) / every[r]);
        ck_assert_double_eq_tol (flow_gbps (f), LINE, LINE * 0.01);
        weft_session_clear (&s);
    }
    printf ("# ACKs: %" G_GUINT64_FORMAT " with ack_every 1, %" G_GUINT64_FORMAT " with 4\n",
            acks[0], acks[1]);
    ck_assert_double_eq_tol ((double) acks[0] / (double) acks[1], 4.0, 0.05);
}
END_TEST

START_TEST (test_ibcc_config_refused)
{
    struct {
        const char *text;
        int code;
    } cases[] = {
        { "[workload.w]\nkind = flows\nflows = host0>host1 1MiB\n[topology]\n"
          "generator = single_switch\nhosts = 2\nlink_rate = 400Gbps\n[ibcc]\nenable = true\n",
          WEFT_CONFIG_ERROR_UNKNOWN_KEY },
        { "[workload.w]\nkind = flows\nflows = host0>host1 1MiB\n[topology]\n"
          "generator = single_switch\nhosts = 2\nlink_rate = 400Gbps\n[fabric]\n"
          "kind = infiniband\n[ibcc]\nenabled = true\ncct = 0:0;4:10\n",
          WEFT_CONFIG_ERROR_VALUE },
        { "[workload.w]\nkind = flows\nflows = host0>host1 1MiB\n[topology]\n"
          "generator = single_switch\nhosts = 2\nlink_rate = 400Gbps\n[fabric]\n"
          "kind = infiniband\nmtu = 1500B\n",
          WEFT_CONFIG_ERROR_RANGE },
        { "[workload.w]\nkind = flows\nflows = host0>host1 1MiB\n[topology]\n"
          "generator = single_switch\nhosts = 2\nlink_rate = 400Gbps\n[transport]\n"
          "window = 8KiB\nack_every = 4\n",
          WEFT_CONFIG_ERROR_RANGE },
    };
    for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
        WeftSession s;
        g_autoptr (GError) error = NULL;
        ck_assert_msg (!harness_try_prepare (&s, cases[i].text, &error), "case %u accepted", i);
        ck_assert_msg (g_error_matches (error, WEFT_CONFIG_ERROR, cases[i].code), "case %u: %s", i,
                       error->message);
        weft_session_clear (&s); /* a failed prepare leaves what it had built */
    }
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("ibcc");
    TCase *tc = tcase_create ("ibcc");
    tcase_add_checked_fixture (tc, harness_tmp_setup, harness_tmp_teardown);
    tcase_set_timeout (tc, 300);
    tcase_add_test (tc, test_ibcc_victim_recovers);
    tcase_add_test (tc, test_ibcc_marking_rate_and_threshold);
    tcase_add_test (tc, test_ibcc_lone_flow_unmarked_at_line_rate);
    tcase_add_test (tc, test_ibcc_pacing_follows_the_table);
    tcase_add_test (tc, test_ibcc_ack_coalescing);
    tcase_add_test (tc, test_ibcc_config_refused);
    suite_add_tcase (s, tc);
    return s;
}
