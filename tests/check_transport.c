/* tests/check_transport.c - the RDMA reliable connection's timeout and retry counter
 * (models/transport.h, doc/transport.md), end to end through the session code `weft run` uses.
 *
 * Checks, against values computed here:
 *  - the local ACK timeout is 4.096 us x 2^rc_timeout (NCCL's 18 and 20: 1.07 s and 4.29 s);
 *    rc_timeout 0 never times out;
 *  - bad input: rc_timeout beyond 31 and rc_retry_cnt beyond 7 are range errors naming
 *    [transport] and the key; the RFC 6298 keys are refused on InfiniBand and RoCE, the RC
 *    keys on Ethernet;
 *  - a congested InfiniBand incast (128 senders into one 200 Gb/s port, credits, no loss)
 *    never times out at NCCL's timeout, which exceeds the whole run's wire time; the same
 *    incast with a 16 us timeout, shorter than the 21 us the port takes to serve one packet of
 *    every sender, does time out (so the first check can fail);
 *  - the retry counter restarts with progress: a RoCE incast whose short timeout fires dozens
 *    of times per flow finishes with rc_retry_cnt = 1;
 *  - a destination blackholed by a forwarding table: the connection fails (the run stops with
 *    WEFT_SIM_WORKLOAD_FAILED) (rc_retry_cnt + 1) x 4.096 us x 2^rc_timeout after its first
 *    packet is lost, within 1 %, after exactly rc_retry_cnt go-back-N resends of its packets;
 *    with the default hang_timeout (10 ms) the hang watchdog stops the run first;
 *  - a finished flow's cancelled timeout, seconds ahead, leaves the queue at the run loop's
 *    trims (weft_sim_drop_stale): all but the latest, the rest popping as they would have;
 *  - a NIC removed during the run (weft_transport_device_lost): the flow under way through it
 *    fails at that instant, the flow beside it on another NIC does not, a later flow through
 *    it is marked and not started; its link is Down, LinkDowned counted at the switch's end.
 * Leaves unchecked: the exit status, the trace's status and the printed error
 * (tests/e2e/rc_timeout.sh); Ethernet's RFC 6298 timer (tests/check_network.c's incast).
 */
#include "config.h"
#include <check.h>
#include <math.h>
#include <string.h>

#include "cli/session.h"
#include "models/fault.h"
#include "models/nic.h"
#include "models/switch.h"
#include "tests/harness.h"

START_TEST (test_transport_rc_timeout_is_4096ns_times_two_to_the_n)
{
    for (guint n = 1; n < 32; n++) {
        double expect_s = 4.096e-6 * ldexp (1.0, (int) n);
        double got_s = weft_time_to_s (weft_transport_rc_timeout_ps (n));
        ck_assert_double_eq_tol (got_s, expect_s, expect_s * 1e-12);
    }
    /* NCCL_IB_TIMEOUT's defaults: 18 (NCCL 2.14 to 2.22) and 20 (2.23 on). */
    ck_assert_double_eq_tol (weft_time_to_s (weft_transport_rc_timeout_ps (18)), 1.073741824,
                             1e-12);
    ck_assert_double_eq_tol (weft_time_to_s (weft_transport_rc_timeout_ps (20)), 4.294967296,
                             1e-12);
    ck_assert_uint_eq (weft_transport_rc_timeout_ps (0), WEFT_TIME_NEVER);
}
END_TEST

#define LINE "[topology]\ngenerator = single_switch\nhosts = 2\n"
#define FLOW "[workload.w]\nkind = flows\nflows = host0>host1 1MiB\n"

/* Prepares @text and expects a configuration error @code naming "[transport] @key". */
static void
expect_config_error (const char *text, WeftConfigError code, const char *key)
{
    WeftSession s;
    g_autoptr (GError) error = NULL;
    ck_assert (!harness_try_prepare (&s, text, &error));
    ck_assert_msg (g_error_matches (error, WEFT_CONFIG_ERROR, code), "%s", error->message);
    g_autofree char *named = g_strdup_printf ("[transport] %s", key);
    ck_assert_msg (strstr (error->message, named) != NULL, "%s", error->message);
    weft_session_clear (&s);
}

START_TEST (test_transport_rc_keys_out_of_range)
{
    expect_config_error (LINE "[fabric]\nkind = infiniband\n[transport]\nrc_timeout = 32\n" FLOW,
                         WEFT_CONFIG_ERROR_RANGE, "rc_timeout");
    expect_config_error (LINE "[fabric]\nkind = roce\n[transport]\nrc_retry_cnt = 8\n" FLOW,
                         WEFT_CONFIG_ERROR_RANGE, "rc_retry_cnt");
    /* The ends of the ranges are accepted. */
    WeftSession s;
    harness_prepare (&s, LINE "[fabric]\nkind = infiniband\n[transport]\nrc_timeout = 31\n"
                              "rc_retry_cnt = 0\n" FLOW);
    ck_assert_uint_eq (s.net->tp.rc_retry_cnt, 0);
    ck_assert_uint_eq (s.net->tp.flows[0].rto, weft_transport_rc_timeout_ps (31));
    weft_session_clear (&s);
}
END_TEST

START_TEST (test_transport_timeout_keys_follow_the_fabric)
{
    expect_config_error (LINE "[fabric]\nkind = infiniband\n[transport]\nrto_min = 1ms\n" FLOW,
                         WEFT_CONFIG_ERROR_UNKNOWN_KEY, "rto_min");
    expect_config_error (LINE "[fabric]\nkind = roce\n[transport]\nrto_max = 1ms\n" FLOW,
                         WEFT_CONFIG_ERROR_UNKNOWN_KEY, "rto_max");
    expect_config_error (LINE "[transport]\nrc_timeout = 10\n" FLOW, WEFT_CONFIG_ERROR_UNKNOWN_KEY,
                         "rc_timeout");
    expect_config_error (LINE "[fabric]\nkind = ethernet\n[transport]\nrc_retry_cnt = 3\n" FLOW,
                         WEFT_CONFIG_ERROR_UNKNOWN_KEY, "rc_retry_cnt");
    /* Each fabric's own keys are taken, and the RC model is on where the NICs run RDMA. */
    const char *fabric[] = { "ethernet", "infiniband", "roce" };
    for (guint k = 0; k < 3; k++) {
        g_autofree char *text =
            g_strdup_printf (LINE "[fabric]\nkind = %s\n[transport]\n%s\n" FLOW, fabric[k],
                             k == 0 ? "rto_min = 50us" : "rc_timeout = 12");
        WeftSession s;
        harness_prepare (&s, text);
        ck_assert_int_eq (s.net->tp.rc, k != 0);
        ck_assert_uint_eq (s.net->tp.flows[0].rto,
                           k == 0 ? WEFT_US (100) : WEFT_NS (4096) * 4096); /* rto_initial */
        weft_session_clear (&s);
    }
}
END_TEST

/* 128 senders of 256 KiB each into one 200 Gb/s port, InfiniBand (credits: nothing is lost). */
#define IB_INCAST(transport)                                                                       \
    "[experiment]\nhang_timeout = 100ms\n"                                                         \
    "[topology]\ngenerator = single_switch\nhosts = 129\nlink_rate = 200Gbps\n"                    \
    "cable_length = 2m\n[fabric]\nkind = infiniband\nmtu = 4096B\nrouting = static\n"              \
    "[infiniband]\nbuffer = 64KiB\n[switch]\nforwarding = cut-through\nlatency = 100ns\n"          \
    "[transport]\n" transport "\n"                                                                 \
    "[workload.in]\nkind = incast\nsenders = 128\nreceiver = host0\nflow_size = 256KiB\n"

START_TEST (test_transport_rc_congested_incast_never_times_out)
{
    const double senders = 128, size = 256 * 1024, mtu = 4096, hdr = 26, rate = 200e9;
    /* Every packet of the run crosses the receiver's port once: no ACK can be waited for
     * longer than the whole incast's wire time (plus a few microseconds of cables, switch and
     * first packets), 11.1 ms even with a tenfold margin, far below 4.096 us x 2^20. */
    double wire_s = senders * (size + size / mtu * hdr) * 8 / rate;
    double bound_s = 10 * wire_s;
    ck_assert_double_lt (bound_s, 4.096e-6 * ldexp (1.0, 20));
    WeftSession s;
    harness_prepare (&s, IB_INCAST (""));
    ck_assert_int_eq (weft_sim_run (s.sim), WEFT_SIM_DONE);
    WeftNetworkStats st;
    weft_network_stats (s.net, &st);
    ck_assert_uint_eq (st.finished, 128);
    ck_assert_uint_eq (st.bytes_delivered, (guint64) (senders * size));
    ck_assert_uint_eq (st.drops, 0);
    ck_assert_uint_eq (st.lossless_drops, 0);
    ck_assert_uint_eq (st.timeouts, 0);
    ck_assert_uint_eq (st.retransmits, 0);
    ck_assert_uint_gt (st.xmit_wait_ps, 0); /* congested: the senders waited for credits */
    ck_assert_double_le (weft_time_to_s (s.sim->now), bound_s);
    ck_assert_double_ge (weft_time_to_s (s.sim->now), wire_s);
    weft_session_clear (&s);

    /* The port serves one packet of each sender in 128 x 4122 B / 200 Gb/s = 21.1 us, so the
     * last of the first packets is acknowledged no sooner: a 16.4 us timeout (rc_timeout = 2)
     * must fire. */
    ck_assert_double_lt (4.096e-6 * 4, senders * (mtu + hdr) * 8 / rate);
    harness_prepare (&s, IB_INCAST ("rc_timeout = 2"));
    weft_sim_run (s.sim);
    weft_network_stats (s.net, &st);
    ck_assert_uint_gt (st.timeouts, 0);
    ck_assert_uint_gt (st.retransmits, 0);
    weft_session_clear (&s);
}
END_TEST

/* RoCE 16-to-1 incast with PFC (experiments/roce-incast.ini): the queues PFC builds hold ACKs
 * back far longer than a 32.8 us timeout (rc_timeout = 3), which fires again and again behind
 * them; with rc_retry_cnt = 1 a flow would fail at its second timeout if progress did not give
 * the retries back. */
START_TEST (test_transport_rc_progress_resets_the_retry_counter)
{
    WeftSession s;
    harness_prepare (&s, "[topology]\ngenerator = single_switch\nhosts = 17\nlink_rate = 400Gbps\n"
                         "cable_length = 2m\n[fabric]\nkind = roce\nrouting = static\n"
                         "[ecn]\nenabled = false\n[dcqcn]\nenabled = false\n"
                         "[switch]\nlatency = 300ns\n"
                         "[transport]\nrc_timeout = 3\nrc_retry_cnt = 1\n"
                         "[workload.in]\nkind = incast\nsenders = 16\nreceiver = host0\n"
                         "flow_size = 4MiB\n");
    ck_assert_int_eq (weft_sim_run (s.sim), WEFT_SIM_DONE);
    ck_assert_ptr_null (s.net->tp.failed);
    guint64 most = 0;
    for (guint i = 0; i < s.net->tp.n_flows; i++) {
        const WeftFlow *f = &s.net->tp.flows[i];
        ck_assert (f->finished && !f->failed);
        ck_assert_uint_eq (f->delivered, 4u << 20);
        most = MAX (most, weft_flow_loss_of (f)->timeouts);
    }
    ck_assert_uint_gt (most, 2); /* more than rc_retry_cnt + 1 */
    weft_session_clear (&s);
}
END_TEST

/* One switch, three hosts; a forwarding table sends host1's packets out of host2's port, and
 * host2 discards them (not its address): a path that drops everything toward host1. */
static char *
blackhole_experiment (const char *extra)
{
    g_autofree char *topo = g_build_filename (harness_tmp, "star.topo", NULL);
    g_autofree char *lft = g_build_filename (harness_tmp, "blackhole.lft", NULL);
    ck_assert (g_file_set_contents (topo,
                                    "node sw0 switch\nnode host0 host\nnode host1 host\n"
                                    "node host2 host\nlink host0 sw0 400Gbps 100ns\n"
                                    "link host1 sw0 400Gbps 100ns\nlink host2 sw0 400Gbps 100ns\n",
                                    -1, NULL));
    ck_assert (g_file_set_contents (lft, "sw0 host1 3\n", -1, NULL));
    return g_strdup_printf ("[topology]\ngenerator = file\nfile = %s\nforwarding_table = %s\n"
                            "[fabric]\nkind = infiniband\nrouting = static\n"
                            "[workload.w]\nkind = flows\nflows = host0>host1 64KiB\n%s",
                            topo, lft, extra);
}

START_TEST (test_transport_rc_blackhole_fails_after_the_retries)
{
    const guint timeout[] = { 10, 8 }, retries[] = { 7, 3 };
    for (guint k = 0; k < 2; k++) {
        g_autofree char *extra = g_strdup_printf ("[experiment]\nhang_timeout = 100ms\n"
                                                  "[transport]\nrc_timeout = %u\n"
                                                  "rc_retry_cnt = %u\n",
                                                  timeout[k], retries[k]);
        g_autofree char *text = blackhole_experiment (extra);
        WeftSession s;
        harness_prepare (&s, text);
        ck_assert_int_eq (weft_sim_run (s.sim), WEFT_SIM_WORKLOAD_FAILED);
        const WeftFlow *f = &s.net->tp.flows[0];
        ck_assert_ptr_eq (s.net->tp.failed, f);
        ck_assert (f->failed && !f->finished);
        ck_assert_uint_eq (f->delivered, 0);
        /* The first packet leaves at 0 and is lost at host2 after two hops: 4122 B at 400 Gb/s
         * and 100 ns each, plus the switch's forwarding latency (under a microsecond, far
         * inside 1 % of milliseconds). */
        double lost_s = 2 * (4122 * 8 / 400e9 + 100e-9);
        double expect_s = lost_s + (retries[k] + 1) * 4.096e-6 * ldexp (1.0, (int) timeout[k]);
        double got_s = weft_time_to_s (s.sim->now);
        fprintf (stderr,
                 "blackhole: rc_timeout %u, rc_retry_cnt %u: failed at %.6f ms, "
                 "expected %.6f ms\n",
                 timeout[k], retries[k], got_s * 1e3, expect_s * 1e3);
        ck_assert_double_eq_tol (got_s, expect_s, expect_s * 0.01);
        ck_assert_uint_eq (s.net->tp.failed_ps, s.sim->now);
        /* Every timeout but the last resent the whole message (go-back-N): 16 packets. */
        ck_assert_uint_eq (weft_flow_loss_of (f)->timeouts, retries[k] + 1);
        ck_assert_uint_eq (weft_flow_loss_of (f)->retransmits, retries[k] * 16u);
        weft_session_clear (&s);
    }
    /* The default hang watchdog (10 ms) sees no progress long before 8 x 4.19 ms. */
    g_autofree char *text = blackhole_experiment ("[transport]\nrc_timeout = 10\n");
    WeftSession s;
    harness_prepare (&s, text);
    ck_assert_int_eq (weft_sim_run (s.sim), WEFT_SIM_HANG);
    ck_assert_uint_eq (s.sim->now, WEFT_MS (10));
    ck_assert_ptr_null (s.net->tp.failed);
    ck_assert_uint_eq (weft_flow_loss_of (&s.net->tp.flows[0])->timeouts,
                       2); /* at 4.19 ms and 8.39 ms */
    weft_session_clear (&s);
}
END_TEST

/* A finished flow's retransmission timeout, cancelled seconds ahead (NCCL's 4.29 s), can do
 * nothing: weft_sim_drop_stale takes all but the latest of them out of the queue, and the rest
 * pops as a copy of the run whose queue still holds them pops it, less those. */
START_TEST (test_transport_finished_flows_timeouts_dropped)
{
    const char *text = "[topology]\ngenerator = single_switch\nhosts = 17\nlink_rate = 400Gbps\n"
                       "[fabric]\nkind = infiniband\n"
                       "[workload.in]\nkind = incast\nsenders = 16\nreceiver = host0\n"
                       "flow_size = 256KiB\n";
    WeftSession a, b;
    harness_prepare (&a, text);
    harness_prepare (&b, text);
    ck_assert_int_eq (weft_sim_run (a.sim), WEFT_SIM_DONE);
    ck_assert_int_eq (weft_sim_run (b.sim), WEFT_SIM_DONE);
    ck_assert_uint_eq (a.sim->now, b.sim->now);
    /* Each flow whose sender had every packet acknowledged when the run ended (the last ACKs
     * of the others are still on their way) cancelled its timeout; the latest stays. */
    guint cancelled = 0;
    for (guint i = 0; i < b.net->tp.n_flows; i++)
        cancelled += !weft_timer_pending (&b.net->tp.flows[i].rto_timer);
    ck_assert_uint_ge (cancelled, 2);
    ck_assert_uint_eq (weft_sim_drop_stale (b.sim), cancelled - 1);
    ck_assert_uint_eq (weft_sim_drop_stale (b.sim), 0);
    ck_assert_uint_eq (weft_evq_len (&a.sim->evq), weft_evq_len (&b.sim->evq) + cancelled - 1);
    WeftEvent ea, eb;
    gboolean more_b = weft_evq_pop (&b.sim->evq, &eb);
    guint skipped = 0;
    WeftHandler rto = NULL;
    while (weft_evq_pop (&a.sim->evq, &ea)) {
        if (more_b && ea.at == eb.at && ea.key == eb.key) {
            ck_assert (ea.fn == eb.fn); /* targets and pointer arguments: each run its own */
            more_b = weft_evq_pop (&b.sim->evq, &eb);
            continue;
        }
        /* One of those dropped: all of one handler, far ahead. */
        skipped++;
        rto = rto ? rto : ea.fn;
        ck_assert (ea.fn == rto);
        ck_assert_uint_gt (ea.at, a.sim->now + WEFT_MS (1000));
    }
    ck_assert (!more_b);
    ck_assert_uint_eq (skipped, cancelled - 1);
    weft_session_clear (&a);
    weft_session_clear (&b);
}
END_TEST

START_TEST (test_transport_rc_timeout_zero_never_fires)
{
    /* The QP waits forever: no timeout, no failure; the hang watchdog ends the run after
     * hang_timeout without progress (where rc_timeout = 10 fails it at 33.6 ms). */
    g_autofree char *text =
        blackhole_experiment ("[experiment]\nhang_timeout = 100ms\n[transport]\nrc_timeout = 0\n");
    WeftSession s;
    harness_prepare (&s, text);
    ck_assert_int_eq (weft_sim_run (s.sim), WEFT_SIM_HANG);
    ck_assert_uint_eq (s.sim->now, WEFT_MS (100));
    ck_assert_ptr_null (s.net->tp.flows[0].loss); /* nothing to count */
    ck_assert_ptr_null (s.net->tp.failed);
    weft_session_clear (&s);
}
END_TEST

START_TEST (test_transport_device_lost_fails_the_flows_through_it)
{
    /* dgx-2/mlx5_3 (GPU 1's NIC) removed at 20 us: flow 0 (4 MiB into dgx-2/gpu1, 84 us of
     * wire time at 400 Gb/s) is under way through it and fails then; flow 1 (GPU 0's rail)
     * does not cross it; flow 2 (out of dgx-2/gpu1 at 200 us) crosses it, not yet started. */
    WeftSession s;
    harness_prepare (&s, "[experiment]\nseed = 1\n"
                         "[topology]\ngenerator = railopt\nsus = 1\nservers_per_su = 4\n"
                         "radix = 16\ntiers = 2\n[fabric]\nkind = infiniband\nrouting = static\n"
                         "[workload.w]\nkind = flows\nflows = dgx-1/gpu1>dgx-2/gpu1 4MiB 0us; "
                         "dgx-1/gpu0>dgx-2/gpu0 4MiB 0us; dgx-2/gpu1>dgx-3/gpu1 1MiB 200us\n"
                         "[fault.nic]\nkind = nic-removed\nnic = dgx-2/mlx5_3\nat = 20us\n");
    ck_assert_int_eq (weft_sim_run (s.sim), WEFT_SIM_WORKLOAD_FAILED);
    const WeftTransport *tp = &s.net->tp;
    ck_assert_uint_eq (s.sim->now, WEFT_US (20));
    ck_assert_ptr_eq (tp->failed, &tp->flows[0]);
    ck_assert (tp->flows[0].failed && tp->flows[0].device_lost && tp->flows[0].started);
    ck_assert (tp->flows[0].delivered < tp->flows[0].spec.size_bytes);
    ck_assert (!tp->flows[1].device_lost && !tp->flows[1].failed);
    ck_assert (tp->flows[2].device_lost && !tp->flows[2].started && !tp->flows[2].failed);
    guint32 nic = weft_graph_lookup (s.graph, "dgx-2/mlx5_3");
    ck_assert_uint_eq (tp->lost_nic, nic);
    ck_assert_uint_eq (tp->lost_ps, WEFT_US (20));
    ck_assert_str_eq (tp->lost_cause, "fault.nic");
    /* Its link Down both ways; the switch's end counts the transition, the NIC's does not. */
    const WeftNode *n = weft_graph_node (s.graph, nic);
    guint found = 0;
    for (guint32 p = 0; p < n->ports->len; p++) {
        guint32 lid = g_array_index (n->ports, guint32, p);
        if (lid == WEFT_GRAPH_NONE || weft_graph_link (s.graph, lid)->kind != WEFT_LINK_FABRIC)
            continue;
        const WeftPort *mine = weft_model_port (s.net->node_model[nic], p);
        const WeftPort *far = weft_model_port (mine->link.peer, mine->link.peer_port);
        ck_assert (mine->fault->down && far->fault->down);
        ck_assert_uint_eq (mine->fault->link_downed, 0);
        ck_assert_uint_eq (far->fault->link_downed, 1);
        found++;
    }
    ck_assert_uint_eq (found, 1);
    weft_session_clear (&s);
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("transport");
    TCase *tc = tcase_create ("rc");
    tcase_add_checked_fixture (tc, harness_tmp_setup, harness_tmp_teardown);
    tcase_set_timeout (tc, 120);
    tcase_add_test (tc, test_transport_rc_timeout_is_4096ns_times_two_to_the_n);
    tcase_add_test (tc, test_transport_rc_keys_out_of_range);
    tcase_add_test (tc, test_transport_timeout_keys_follow_the_fabric);
    tcase_add_test (tc, test_transport_rc_congested_incast_never_times_out);
    tcase_add_test (tc, test_transport_rc_progress_resets_the_retry_counter);
    tcase_add_test (tc, test_transport_rc_blackhole_fails_after_the_retries);
    tcase_add_test (tc, test_transport_rc_timeout_zero_never_fires);
    tcase_add_test (tc, test_transport_finished_flows_timeouts_dropped);
    tcase_add_test (tc, test_transport_device_lost_fails_the_flows_through_it);
    suite_add_tcase (s, tc);
    return s;
}
