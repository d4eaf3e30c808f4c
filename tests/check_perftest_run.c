/* tests/check_perftest_run.c - perftest workloads (ib_write_bw, ib_write_lat) between two NICs
 * on one leaf, run through the network, against figures derived from the configuration.
 *
 * Checks:
 *  - ib_write_bw from dgx-1/mlx5_3 to dgx-2/mlx5_3 (both on su0-rail1-leaf) reports a BW
 *    average within 2 % of the NIC's line rate x InfiniBand's payload efficiency,
 *    4096 / (4096 + 26) (LRH 8 + BTH 12 + ICRC 4 + VCRC 2 bytes per 4 KiB packet), at 64 KiB,
 *    256 KiB and 1 MiB messages; BW peak is never below the average, and MsgRate is the
 *    average over the message size;
 *  - ib_write_lat at 8 B reports half the round trip computed from the path: per hop the
 *    packet's serialization, the cable's propagation and the next switch's latency; the NICs'
 *    send and receive processing ([nic]); and, when the sending NIC's processing is shorter,
 *    what the responder sends just ahead of its reply: the flow-control packet returning the
 *    credits of the request (6 B; the HCA frees its buffer at once) and the RC ACK (30 B),
 *    whose serialization delays the reply once (8 B keeps the reply, 34 B on the wire, longer
 *    than the ACK, so the ACK never holds it up again at the leaf, and the leaf consumes the
 *    flow-control packet);
 *  - bad keys (an unknown device, a missing peer) fail preparation with a config error that
 *    names the key.
 * Leaves unchecked: BW peak's exact value (it is the average whenever the first window is
 * posted at once, as here), several QPs, the -a sweep's small sizes (message-rate bound:
 * tests/check_latency.c checks that cap).
 */
#include "config.h"
#include <check.h>
#include <glib/gstdio.h>
#include <string.h>

#include "cli/session.h"
#include "tests/harness.h"


/* Two DGX servers of the seed cluster on InfiniBand, plus @extra. */
static char *
two_dgx (const char *extra)
{
    g_autofree char *dgx4 = harness_srcpath ("experiments/dgx4.ini");
    return g_strdup_printf ("[experiment]\ninclude = %s\nseed = 1\nhang_timeout = 10ms\n"
                            "[topology]\nservers = 2\n[fabric]\nkind = infiniband\n"
                            "routing = static\n%s",
                            dgx4, extra);
}


static void
run (WeftSession *s, const char *text)
{
    harness_prepare (s, text);
    ck_assert_int_eq (weft_sim_run (s->sim), WEFT_SIM_DONE);
}

/* The one perftest result of workload 0 (a single size). */
static void
result (WeftSession *s, WeftPerftestSpec *spec, WeftPerftestResult *r)
{
    g_autoptr (GArray) res = g_array_new (FALSE, FALSE, sizeof (WeftPerftestResult));
    ck_assert (weft_network_perftest (s->net, s->exp, 0, spec, res));
    ck_assert_uint_eq (res->len, 1);
    *r = g_array_index (res, WeftPerftestResult, 0);
}

/* The fabric link at @node_name (a NIC: its one fabric port). */
static const WeftLink *
fabric_link (const WeftGraph *g, const char *node_name)
{
    const WeftNode *n = weft_graph_node (g, weft_graph_lookup (g, node_name));
    for (guint p = 0; p < n->ports->len; p++) {
        guint32 lid = g_array_index (n->ports, guint32, p);
        if (lid != WEFT_GRAPH_NONE && weft_graph_link (g, lid)->kind == WEFT_LINK_FABRIC)
            return weft_graph_link (g, lid);
    }
    ck_abort_msg ("%s has no fabric link", node_name);
    return NULL;
}

START_TEST (test_perftest_bw_two_nics_line_rate_times_payload_efficiency)
{
    const struct {
        const char *size;
        guint64 bytes;
        guint iters;
    } cases[] = { { "64KiB", 65536, 400 }, { "256KiB", 262144, 150 }, { "1MiB", 1048576, 40 } };
    for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
        g_autofree char *wl = g_strdup_printf ("[workload.bw]\nkind = ib_write_bw\n"
                                               "device = dgx-1/mlx5_3\npeer = dgx-2/mlx5_3\n"
                                               "size = %s\niters = %u\n",
                                               cases[i].size, cases[i].iters);
        g_autofree char *text = two_dgx (wl);
        WeftSession s;
        run (&s, text);
        /* The two NICs hang off one leaf. */
        guint32 dev = weft_graph_lookup (s.graph, "dgx-1/mlx5_3");
        guint32 peer = weft_graph_lookup (s.graph, "dgx-2/mlx5_3");
        ck_assert_uint_eq (weft_graph_route_hops (s.graph, dev, peer), 2);
        ck_assert_uint_eq (s.net->fabric.mtu, 4096);
        double line = (double) fabric_link (s.graph, "dgx-1/mlx5_3")->rate_bps;
        double expect = line * 4096.0 / (4096.0 + 26.0);
        WeftPerftestSpec spec;
        WeftPerftestResult r;
        result (&s, &spec, &r);
        ck_assert (!spec.latency);
        ck_assert_uint_eq (r.bytes, cases[i].bytes);
        ck_assert_uint_eq (r.iterations, cases[i].iters);
        ck_assert_double_eq_tol (r.avg_bps, expect, 0.02 * expect);
        ck_assert_double_ge (r.peak_bps, r.avg_bps * (1 - 1e-9));
        ck_assert_double_eq_tol (r.msg_rate_pps, r.avg_bps / (8.0 * r.bytes),
                                 1e-6 * r.msg_rate_pps);
        weft_workload_perftest_result_clear (&r);
        weft_session_clear (&s);
    }
}
END_TEST

static double
ser_s (double bytes, double rate_bps)
{
    return bytes * 8 / rate_bps;
}

START_TEST (test_perftest_lat_is_half_the_round_trip_of_the_path)
{
    /* The NICs' processing ([nic]): none, where the responder's flow-control packet and ACK
     * hold its reply up; and some, where both have left before the reply is ready. */
    const struct {
        double tx_s, rx_s;
    } nics[] = { { 0, 0 }, { 400e-9, 300e-9 } };
    const double latency_s = 100e-9; /* [switch] latency below */
    for (guint i = 0; i < G_N_ELEMENTS (nics); i++) {
        g_autofree char *extra = g_strdup_printf (
            "[switch]\nlatency = 100ns\n[nic]\ntx_latency = %.0fns\nrx_latency = %.0fns\n"
            "[workload.lat]\nkind = ib_write_lat\ndevice = dgx-1/mlx5_3\npeer = dgx-2/mlx5_3\n"
            "size = 8B\niters = 20\n",
            nics[i].tx_s * 1e9, nics[i].rx_s * 1e9);
        g_autofree char *text = two_dgx (extra);
        WeftSession s;
        run (&s, text);
        const WeftLink *up = fabric_link (s.graph, "dgx-1/mlx5_3");
        const WeftLink *down = fabric_link (s.graph, "dgx-2/mlx5_3");
        ck_assert_double_eq (up->rate_bps, down->rate_bps);
        /* Bytes on the wire: payload + IB headers; the ACK; a flow-control packet. */
        const double wire = 8 + 26, ack_s = ser_s (30, up->rate_bps),
                     fcp_s = ser_s (6, up->rate_bps);
        const double tx = nics[i].tx_s, rx = nics[i].rx_s;
        /* NIC -> leaf (whole: the packet is shorter than the 64 B a cut-through switch routes
         * on), the leaf's latency, leaf -> NIC; the receiving NIC's processing. */
        double one_way = ser_s (wire, up->rate_bps) + weft_time_to_s (up->delay_ps) + latency_s +
                         ser_s (wire, down->rate_bps) + weft_time_to_s (down->delay_ps) + rx;
        /* A message posted as its predecessor's reply is processed: the NIC queued the reply's
         * flow-control packet when it arrived (rx earlier), and queues its ACK now; the message
         * goes after tx_latency, or after both, whichever is later. */
        double post_to_wire = MAX (tx, MAX (rx, fcp_s) + ack_s - rx);
        double half_rtt = post_to_wire + one_way;
        WeftPerftestSpec spec;
        WeftPerftestResult r;
        result (&s, &spec, &r);
        ck_assert (spec.latency);
        ck_assert_uint_eq (r.bytes, 8);
        ck_assert_uint_eq (r.n_samples, 19); /* perftest: iterations - 1 */
        /* The first ping has nothing ahead of it (it waits tx_latency alone); every later
         * sample is the steady round trip. */
        for (gsize k = 1; k < r.n_samples; k++)
            ck_assert_double_eq_tol (r.samples_ps[k] / 1e12, half_rtt, 4e-12);
        ck_assert_double_eq_tol (r.samples_ps[0] / 1e12, one_way + (tx + post_to_wire) / 2, 4e-12);
        weft_workload_perftest_result_clear (&r);
        weft_session_clear (&s);
    }
}
END_TEST

static void
expect_config_error (const char *workload, int code, const char *key)
{
    g_autofree char *text = two_dgx (workload);
    WeftSession s;
    g_autoptr (GError) error = NULL;
    ck_assert (!harness_try_prepare (&s, text, &error));
    ck_assert_msg (g_error_matches (error, WEFT_CONFIG_ERROR, code), "%s", error->message);
    g_autofree char *named = g_strdup_printf ("%s:", key);
    ck_assert_msg (strstr (error->message, "[workload.p]") && strstr (error->message, named), "%s",
                   error->message);
    weft_session_clear (&s);
}

START_TEST (test_perftest_bad_keys_name_the_key)
{
    /* A misspelt device gets a suggestion. */
    expect_config_error ("[workload.p]\nkind = ib_write_bw\ndevice = dgx-1/mlx5_33\n"
                         "peer = dgx-2/mlx5_3\n",
                         WEFT_CONFIG_ERROR_NODE, "device");
    expect_config_error ("[workload.p]\nkind = ib_write_lat\ndevice = dgx-1/mlx5_3\n",
                         WEFT_CONFIG_ERROR_MISSING, "peer");
    /* A switch is no endpoint. */
    expect_config_error ("[workload.p]\nkind = ib_write_bw\ndevice = dgx-1/mlx5_3\n"
                         "peer = su0-rail1-leaf\n",
                         WEFT_CONFIG_ERROR_NODE, "peer");
    /* Latency has no window of its own. */
    expect_config_error ("[workload.p]\nkind = ib_write_lat\ndevice = dgx-1/mlx5_3\n"
                         "peer = dgx-2/mlx5_3\ntx_depth = 4\n",
                         WEFT_CONFIG_ERROR_UNKNOWN_KEY, "tx_depth");
    expect_config_error ("[workload.p]\nkind = ib_write_bw\ndevice = dgx-1/mlx5_3\n"
                         "peer = dgx-2/mlx5_3\nsize = 4KiB\nall = true\n",
                         WEFT_CONFIG_ERROR_VALUE, "size");
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("perftest_run");
    TCase *tc = tcase_create ("run");
    tcase_add_checked_fixture (tc, harness_tmp_setup, harness_tmp_teardown);
    tcase_set_timeout (tc, 120);
    tcase_add_test (tc, test_perftest_bw_two_nics_line_rate_times_payload_efficiency);
    tcase_add_test (tc, test_perftest_lat_is_half_the_round_trip_of_the_path);
    tcase_add_test (tc, test_perftest_bad_keys_name_the_key);
    suite_add_tcase (s, tc);
    return s;
}
