/* tests/check_network.c - the baseline Ethernet fabric end to end, through the same session
 * code as `weft run` (experiment text -> topology -> models -> run), without a trace file.
 *
 * Checks, against values derived independently of weft:
 *  - one 64 MiB flow through one switch on 400 Gb/s links, MTU 4096: FCT within 100 ns of
 *    the sender NIC's processing + wire bytes / rate + propagation + one packet of
 *    store-and-forward at the switch + the receiver NIC's processing, and
 *    goodput within 0.5 % of rate x payload / (payload + header);
 *  - N-to-1 incast through a small buffer: drops happen, every flow delivers exactly its size,
 *    and every retransmission is accounted for: retransmits = data drops + out-of-order
 *    discards + duplicate discards + data packets still in flight (each transmission of a
 *    sequence number ends in exactly one of those, and the first transmissions are accepted);
 *  - the same identity on Ultra Ethernet, where a transmission may also end trimmed at a
 *    switch: retransmits = data drops + trims + out-of-order discards + duplicate discards +
 *    untrimmed data packets still in flight, under RUD with and without trimming and under
 *    ROD;
 *  - no packet is left outside the pool once the models are torn down;
 *  - ECMP on a leaf-spine delivers every flow of a permutation, and static routing too.
 * Leaves unchecked: trace contents (tests/e2e), fairness (no fair share to hold a drop-tail
 * queue without congestion control to).
 */
#include "config.h"
#include <check.h>
#include <glib/gstdio.h>

#include "cli/session.h"
#include "models/nic.h"
#include "tests/harness.h"


/* Runs @text; returns the prepared, run session (caller clears). */
static void
run_text (WeftSession *s, const char *text, WeftSimStatus expect)
{
    harness_prepare (s, text);
    ck_assert_int_eq (weft_sim_run (s->sim), expect);
}

START_TEST (test_network_single_flow_fct_matches_analytic)
{
    WeftSession s;
    run_text (&s,
              "[topology]\ngenerator = single_switch\nhosts = 2\nlink_rate = 400Gbps\n"
              "cable_length = 0m\nlink_delay = 500ns\n"
              "[switch]\nlatency = 0ns\n[fabric]\nmtu = 4096B\n[ethernet]\nheader = 82B\n"
              "[nic]\ntx_latency = 700ns\nrx_latency = 400ns\n"
              "[workload.one]\nkind = flows\nflows = host0>host1 64MiB\n",
              WEFT_SIM_DONE);
    const WeftFlow *f = &s.net->tp.flows[0];
    ck_assert (f->finished);
    const double rate = 400e9, size = 64.0 * 1024 * 1024, mtu = 4096, hdr = 82;
    double pkts = size / mtu; /* exactly 16384 */
    double wire = size + pkts * hdr;
    /* The sender's NIC takes the message up (700 ns), the receiver's hands the last packet
     * over (400 ns). */
    double expect_s = 700e-9 + wire * 8 / rate + 2 * 500e-9 + (mtu + hdr) * 8 / rate + 400e-9;
    double fct_s = weft_time_to_s (f->finish_ps - f->spec.start_ps);
    printf ("# FCT %.9g s, expected %.9g s\n", fct_s, expect_s);
    ck_assert_double_eq_tol (fct_s, expect_s, 100e-9);
    double goodput = size * 8 / fct_s, expect_goodput = rate * mtu / (mtu + hdr);
    ck_assert_double_eq_tol (goodput, expect_goodput, expect_goodput * 0.005);
    ck_assert_uint_eq (weft_flow_loss_of (f)->retransmits, 0);
    ck_assert_ptr_null (f->loss); /* a lossless flow makes none */
    ck_assert_uint_eq (f->delivered, 64u * 1024 * 1024);
    weft_session_clear (&s);
}
END_TEST

START_TEST (test_network_incast_accounts_every_retransmission)
{
    WeftSession s;
    run_text (&s,
              "[topology]\ngenerator = single_switch\nhosts = 9\nlink_rate = 100Gbps\n"
              "[switch]\nbuffer = 64KiB\n"
              "[workload.in]\nkind = incast\nsenders = 8\nreceiver = host0\nflow_size = 1MiB\n",
              WEFT_SIM_DONE);
    WeftNetworkStats st;
    weft_network_stats (s.net, &st);
    ck_assert_uint_eq (st.finished, 8);
    ck_assert_uint_gt (st.data_drops, 0);
    for (guint i = 0; i < s.net->tp.n_flows; i++)
        ck_assert_uint_eq (s.net->tp.flows[i].delivered, 1024 * 1024);
    ck_assert_uint_eq (st.bytes_delivered, st.bytes_offered);
    ck_assert_uint_eq (st.retransmits,
                       st.data_drops + st.ooo_discards + st.dup_discards + st.inflight_data);
    ck_assert_uint_eq (st.unroutable, 0);
    weft_session_clear (&s);
}
END_TEST

START_TEST (test_network_uet_accounts_every_retransmission)
{
    static const char *const variants[] = {
        "[uet]\ntrimming = true\n",
        "[uet]\ntrimming = false\n",
        "[uet]\ndelivery = rod\n",
    };
    for (guint v = 0; v < G_N_ELEMENTS (variants); v++) {
        g_autofree char *text = g_strdup_printf (
            "[topology]\ngenerator = single_switch\nhosts = 9\nlink_rate = 100Gbps\n"
            "[fabric]\nkind = ultra-ethernet\n[switch]\nbuffer = 64KiB\n%s"
            "[workload.in]\nkind = incast\nsenders = 8\nreceiver = host0\nflow_size = 1MiB\n",
            variants[v]);
        WeftSession s;
        run_text (&s, text, WEFT_SIM_DONE);
        WeftNetworkStats st;
        weft_network_stats (s.net, &st);
        ck_assert_uint_eq (st.finished, 8);
        ck_assert_uint_eq (st.bytes_delivered, st.bytes_offered);
        ck_assert_msg (st.uet_trims + st.data_drops > 0, "variant %u lost nothing", v);
        ck_assert_msg (st.retransmits == st.data_drops + st.uet_trims + st.ooo_discards +
                                             st.dup_discards + st.inflight_data,
                       "variant %u: %" G_GUINT64_FORMAT " retransmits, %" G_GUINT64_FORMAT
                       " drops, %" G_GUINT64_FORMAT " trims, %" G_GUINT64_FORMAT
                       " ooo, %" G_GUINT64_FORMAT " dup, %" G_GUINT64_FORMAT " in flight",
                       v, st.retransmits, st.data_drops, st.uet_trims, st.ooo_discards,
                       st.dup_discards, st.inflight_data);
        weft_session_clear (&s);
    }
}
END_TEST

START_TEST (test_network_teardown_returns_every_packet)
{
    WeftSession s;
    /* Stop mid-flight at a duration so queues and wires still hold packets. */
    run_text (&s,
              "[experiment]\nduration = 20us\n"
              "[topology]\ngenerator = single_switch\nhosts = 5\nlink_rate = 100Gbps\n"
              "[switch]\nbuffer = 32KiB\n"
              "[workload.in]\nkind = incast\nsenders = 4\nreceiver = host0\nflow_size = 1MiB\n",
              WEFT_SIM_DURATION);
    WeftSim *sim = s.sim;
    ck_assert_uint_gt (weft_packet_pool_live (&sim->pool), 0);
    ck_assert_uint_eq (weft_sim_clear_models (sim), 0);
    weft_session_clear (&s);
}
END_TEST

START_TEST (test_network_leafspine_permutation_completes)
{
    const char *routing[] = { "ecmp", "static" };
    for (guint r = 0; r < 2; r++) {
        g_autofree char *text = g_strdup_printf (
            "[topology]\ngenerator = leafspine\nleaves = 4\nspines = 4\nhosts_per_leaf = 4\n"
            "link_rate = 100Gbps\nuplink_rate = 100Gbps\n[fabric]\nrouting = %s\n"
            "[workload.p]\nkind = permutation\nflow_size = 256KiB\n",
            routing[r]);
        WeftSession s;
        run_text (&s, text, WEFT_SIM_DONE);
        WeftNetworkStats st;
        weft_network_stats (s.net, &st);
        ck_assert_uint_eq (st.finished, 16);
        ck_assert_uint_eq (st.bytes_delivered, 16 * 256 * 1024);
        ck_assert_uint_eq (st.unroutable, 0);
        weft_session_clear (&s);
    }
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("network");
    TCase *tc = tcase_create ("ethernet");
    tcase_add_checked_fixture (tc, harness_tmp_setup, harness_tmp_teardown);
    tcase_set_timeout (tc, 120);
    tcase_add_test (tc, test_network_single_flow_fct_matches_analytic);
    tcase_add_test (tc, test_network_incast_accounts_every_retransmission);
    tcase_add_test (tc, test_network_uet_accounts_every_retransmission);
    tcase_add_test (tc, test_network_teardown_returns_every_packet);
    tcase_add_test (tc, test_network_leafspine_permutation_completes);
    suite_add_tcase (s, tc);
    return s;
}
