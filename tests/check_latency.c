/* tests/check_latency.c - the NICs' and switches' processing latency and the NICs' message
 * rate ([nic], [switch] latency; models/nic.h, models/switch.h, doc/latency.md), run through the
 * network and compared with figures computed here from the parameters.
 *
 * Checks:
 *  - the defaults per fabric kind are the documented figures (NIC 500 ns each way on
 *    InfiniBand, 600 ns on Ethernet and RoCE; 330 M messages/s; switches 130 ns on InfiniBand,
 *    300 ns elsewhere), and explicit values replace them;
 *  - ib_write_lat at 2 B between two NICs on one leaf: every sample is the sending NIC's
 *    processing + the packet's serialization and propagation on both links + the leaf's
 *    latency + the receiving NIC's processing, and with the default figures its minimum lies
 *    in the band of published measurements (1.0 to 1.5 us for one switch hop, doc/latency.md);
 *    the same on RoCE, store-and-forward;
 *  - ib_write_bw at 2 B with a deep send queue: the message rate is capped by [nic]
 *    message_rate, exactly n / ((n - 1) / rate + one message's latency), and without the cap it
 *    is far above it (so the cap is what binds);
 *  - large messages keep line rate: ib_write_bw at 1 MiB with one message outstanding takes,
 *    per message, the NIC's processing once, the packets back to back, the path once and the
 *    receiver's processing once (the latencies pipeline: none is paid per packet), give or
 *    take the flow-control packets returning the ACKs' credits between the data packets; with
 *    two outstanding, the link runs at the payload line rate;
 *  - a GPU's transfer to another server pays exactly tx + rx more with the NICs' processing
 *    than without, and its ideal FCT by as much; a transfer over NVLink pays nothing;
 *  - packets in a NIC's receive pipeline are in flight: counted by the accounting identity,
 *    and released at teardown;
 *  - bad values name the group and key, by domain and code.
 * Leaves unchecked: the figures themselves against hardware beyond the cited band (they are
 * parameters), congestion control's reaction to the added latency.
 */
#include "config.h"
#include <check.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "cli/session.h"
#include "models/nic.h"
#include "models/switch.h"
#include "tests/harness.h"

/* Two DGX servers of the seed cluster (experiments/dgx4.ini) on @fabric, plus @extra. */
static char *
two_dgx (const char *fabric, const char *extra)
{
    g_autofree char *dgx4 = harness_srcpath ("experiments/dgx4.ini");
    return g_strdup_printf ("[experiment]\ninclude = %s\nseed = 1\nhang_timeout = 10ms\n"
                            "[topology]\nservers = 2\n[fabric]\nkind = %s\nrouting = static\n%s",
                            dgx4, fabric, extra);
}

static void
run (WeftSession *s, const char *text, WeftSimStatus expect)
{
    harness_prepare (s, text);
    ck_assert_int_eq (weft_sim_run (s->sim), expect);
}

/* The one perftest result of workload 0 (a single size). */
static void
result (WeftSession *s, WeftPerftestResult *r)
{
    WeftPerftestSpec spec;
    g_autoptr (GArray) res = g_array_new (FALSE, FALSE, sizeof (WeftPerftestResult));
    ck_assert (weft_network_perftest (s->net, s->exp, 0, &spec, res));
    ck_assert_uint_eq (res->len, 1);
    *r = g_array_index (res, WeftPerftestResult, 0);
}

/* The fabric link at a NIC. */
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

static double
ser_s (double bytes, double rate_bps)
{
    return bytes * 8 / rate_bps;
}

static double
ps_s (weft_time_t ps)
{
    return weft_time_to_s (ps);
}

/* The leaf's latency as resolved from [switch] latency. */
static double
leaf_latency_s (const WeftSession *s)
{
    return ps_s (weft_switch_first_fabric (s->net->switches)->latency_ps);
}

START_TEST (test_latency_defaults_per_fabric)
{
    const struct {
        const char *kind;
        weft_time_t nic_ps, switch_ps;
    } kinds[] = {
        { "infiniband", WEFT_NS (500), WEFT_NS (130) },
        { "roce", WEFT_NS (600), WEFT_NS (300) },
        { "ethernet", WEFT_NS (600), WEFT_NS (300) },
    };
    /* 330 M messages per second: one every 1e12 / 330e6 = 3030.3 ps, rounded up. */
    const weft_time_t gap_330 = (weft_time_t) ceil (1e12 / 330e6);
    for (guint i = 0; i < G_N_ELEMENTS (kinds); i++) {
        g_autofree char *text = g_strdup_printf (
            "[topology]\ngenerator = single_switch\nhosts = 2\nlink_rate = 400Gbps\n"
            "[fabric]\nkind = %s\n[workload.w]\nkind = flows\nflows = host0>host1 1KiB\n",
            kinds[i].kind);
        WeftSession s;
        harness_prepare (&s, text);
        const WeftNicConfig *nic = &s.net->fabric.nic;
        ck_assert_uint_eq (nic->tx_latency_ps, kinds[i].nic_ps);
        ck_assert_uint_eq (nic->rx_latency_ps, kinds[i].nic_ps);
        ck_assert_uint_eq (nic->message_gap_ps, gap_330);
        ck_assert_uint_eq (weft_switch_first_fabric (s.net->switches)->latency_ps,
                           kinds[i].switch_ps);
        ck_assert_uint_eq (weft_switch_default_latency (s.net->fabric.kind), kinds[i].switch_ps);
        weft_session_clear (&s);
    }
    /* Explicit values replace the defaults; the rate rounds its gap up to a whole ps. */
    WeftSession s;
    harness_prepare (&s, "[topology]\ngenerator = single_switch\nhosts = 2\n"
                         "[fabric]\nkind = infiniband\n[switch]\nlatency = 90ns\n"
                         "[nic]\ntx_latency = 1.25us\nrx_latency = 0ns\nmessage_rate = 215Mpps\n"
                         "[workload.w]\nkind = flows\nflows = host0>host1 1KiB\n");
    ck_assert_uint_eq (s.net->fabric.nic.tx_latency_ps, 1250000);
    ck_assert_uint_eq (s.net->fabric.nic.rx_latency_ps, 0);
    ck_assert_uint_eq (s.net->fabric.nic.message_gap_ps, (weft_time_t) ceil (1e12 / 215e6));
    ck_assert_uint_eq (weft_switch_first_fabric (s.net->switches)->latency_ps, 90000);
    weft_session_clear (&s);
    harness_prepare (&s, "[topology]\ngenerator = single_switch\nhosts = 2\n"
                         "[nic]\nmessage_rate = unlimited\n"
                         "[workload.w]\nkind = flows\nflows = host0>host1 1KiB\n");
    ck_assert_uint_eq (s.net->fabric.nic.message_gap_ps, 0);
    weft_session_clear (&s);
    harness_prepare (&s, "[topology]\ngenerator = single_switch\nhosts = 2\n"
                         "[nic]\nmessage_rate = 2.5Kpps\n"
                         "[workload.w]\nkind = flows\nflows = host0>host1 1KiB\n");
    ck_assert_uint_eq (s.net->fabric.nic.message_gap_ps, 400000000); /* 400 us */
    weft_session_clear (&s);
}
END_TEST

/* ib_write_lat at 2 B on @fabric: every sample (half the round trip) against the path. */
static void
check_write_lat (const char *fabric, double header, gboolean cut_through, double *t_min_s)
{
    g_autofree char *text = two_dgx (fabric, "[workload.lat]\nkind = ib_write_lat\n"
                                             "device = dgx-1/mlx5_3\npeer = dgx-2/mlx5_3\n"
                                             "size = 2B\niters = 50\n");
    WeftSession s;
    run (&s, text, WEFT_SIM_DONE);
    ck_assert_uint_eq (s.net->fabric.header, (guint64) header);
    const WeftLink *up = fabric_link (s.graph, "dgx-1/mlx5_3");
    const WeftLink *down = fabric_link (s.graph, "dgx-2/mlx5_3");
    const WeftNicConfig *nic = &s.net->fabric.nic;
    const double wire = 2 + header;
    /* Shorter than the 64 B a cut-through switch routes on, the packet crosses the leaf whole
     * either way: NIC -> leaf, the leaf's latency, leaf -> NIC. */
    ck_assert (cut_through == weft_switch_cut_through (weft_switch_first_fabric (s.net->switches)));
    double one_way = ps_s (nic->tx_latency_ps) + ser_s (wire, up->rate_bps) + ps_s (up->delay_ps) +
                     leaf_latency_s (&s) + ser_s (wire, down->rate_bps) + ps_s (down->delay_ps) +
                     ps_s (nic->rx_latency_ps);
    WeftPerftestResult r;
    result (&s, &r);
    ck_assert_uint_eq (r.n_samples, 49);
    double lo = G_MAXDOUBLE;
    for (gsize k = 0; k < r.n_samples; k++) {
        ck_assert_double_eq_tol (r.samples_ps[k] / 1e12, one_way, 4e-12);
        lo = MIN (lo, r.samples_ps[k] / 1e12);
    }
    printf ("# ib_write_lat 2 B on %s: t_min %.3f us (computed %.3f us)\n", fabric, lo * 1e6,
            one_way * 1e6);
    *t_min_s = lo;
    weft_workload_perftest_result_clear (&r);
    weft_session_clear (&s);
}

START_TEST (test_latency_ib_write_lat_minimum)
{
    double t_min;
    check_write_lat ("infiniband", 26, TRUE, &t_min);
    /* Published ib_write_lat minima for one switch hop between two ConnectX NICs lie between
     * about 1.1 and 1.3 us (doc/latency.md); the band leaves room either side. */
    ck_assert_double_ge (t_min, 1.0e-6);
    ck_assert_double_le (t_min, 1.5e-6);
    check_write_lat ("roce", 82, FALSE, &t_min);
}
END_TEST

/* ib_write_bw at 2 B, @n messages, a send queue deep enough that the window never binds. */
static double
write_bw_rate (const char *nic, guint n, double *one_msg_s, double *gap_s)
{
    g_autofree char *extra = g_strdup_printf ("%s[workload.bw]\nkind = ib_write_bw\n"
                                              "device = dgx-1/mlx5_3\npeer = dgx-2/mlx5_3\n"
                                              "size = 2B\niters = %u\ntx_depth = 4096\n",
                                              nic, n);
    g_autofree char *text = two_dgx ("infiniband", extra);
    WeftSession s;
    run (&s, text, WEFT_SIM_DONE);
    const WeftLink *up = fabric_link (s.graph, "dgx-1/mlx5_3");
    const WeftLink *down = fabric_link (s.graph, "dgx-2/mlx5_3");
    const WeftNicConfig *cfg = &s.net->fabric.nic;
    const double wire = 2 + 26;
    *one_msg_s = ps_s (cfg->tx_latency_ps) + ser_s (wire, up->rate_bps) + ps_s (up->delay_ps) +
                 leaf_latency_s (&s) + ser_s (wire, down->rate_bps) + ps_s (down->delay_ps) +
                 ps_s (cfg->rx_latency_ps);
    *gap_s = ps_s (cfg->message_gap_ps);
    WeftPerftestResult r;
    result (&s, &r);
    double rate = r.msg_rate_pps;
    weft_workload_perftest_result_clear (&r);
    weft_session_clear (&s);
    return rate;
}

START_TEST (test_latency_ib_write_bw_message_rate_capped)
{
    const guint n = 4000;
    const double limit = 330e6; /* [nic] message_rate below */
    double one_msg, gap;
    double rate = write_bw_rate ("[nic]\nmessage_rate = 330Mpps\n", n, &one_msg, &gap);
    /* The NIC takes a message up every 1 / limit (rounded up to a whole ps); the last one is
     * complete one message's latency after it is taken up. */
    ck_assert_double_eq_tol (gap, 1 / limit, 1e-12);
    double expect = n / ((n - 1) * gap + one_msg);
    printf ("# ib_write_bw 2 B: %.2f Mpps (cap %.0f Mpps, expected %.2f)\n", rate / 1e6,
            limit / 1e6, expect / 1e6);
    ck_assert_double_le (rate, limit);
    ck_assert_double_eq_tol (rate, expect, expect * 1e-6);
    /* Without the cap the same run is far faster: the cap is what bound it. */
    double free = write_bw_rate ("[nic]\nmessage_rate = unlimited\n", n, &one_msg, &gap);
    ck_assert_double_eq (gap, 0);
    printf ("# ib_write_bw 2 B, message_rate = unlimited: %.2f Mpps\n", free / 1e6);
    ck_assert_double_gt (free, 2 * limit);
}
END_TEST

START_TEST (test_latency_large_messages_keep_line_rate)
{
    const guint iters = 20;
    const double size = 1024 * 1024;
    g_autofree char *extra = g_strdup_printf ("[workload.bw]\nkind = ib_write_bw\n"
                                              "device = dgx-1/mlx5_3\npeer = dgx-2/mlx5_3\n"
                                              "size = 1MiB\niters = %u\ntx_depth = 1\n",
                                              iters);
    g_autofree char *text = two_dgx ("infiniband", extra);
    WeftSession s;
    run (&s, text, WEFT_SIM_DONE);
    const WeftLink *up = fabric_link (s.graph, "dgx-1/mlx5_3");
    const WeftLink *down = fabric_link (s.graph, "dgx-2/mlx5_3");
    ck_assert_double_eq (up->rate_bps, down->rate_bps);
    const WeftNicConfig *nic = &s.net->fabric.nic;
    /* One message at a time: posted as the previous one is delivered, it leaves tx_latency
     * later, its 256 packets of 4096 + 26 B back to back; the leaf forwards each once its
     * first 64 B are in (cut-through), so the last arrives 64 B, both cables and the leaf's
     * latency after it left; the receiving NIC hands it over rx_latency later.  Between two
     * packets the sender's port may also return the credits of an ACK it received (a 6 B
     * flow-control packet, served first): at most one per packet. */
    double per_msg = ps_s (nic->tx_latency_ps) + 256 * ser_s (4096 + 26, up->rate_bps) +
                     ser_s (64, up->rate_bps) + ps_s (up->delay_ps) + leaf_latency_s (&s) +
                     ps_s (down->delay_ps) + ps_s (nic->rx_latency_ps);
    double fcps = 256 * ser_s (6, up->rate_bps);
    double hi = size * 8 / per_msg, lo = size * 8 / (per_msg + fcps);
    WeftPerftestResult r;
    result (&s, &r);
    printf ("# ib_write_bw 1 MiB, one outstanding: %.3f Gb/s, expected %.3f to %.3f\n",
            r.avg_bps / 1e9, lo / 1e9, hi / 1e9);
    ck_assert_double_ge (r.avg_bps, lo * (1 - 1e-9));
    ck_assert_double_le (r.avg_bps, hi * (1 + 1e-9));
    double line = up->rate_bps * 4096 / (4096 + 26);
    weft_workload_perftest_result_clear (&r);
    weft_session_clear (&s);
    /* Two outstanding: the next message's processing overlaps this one's packets, and the
     * link runs at the payload line rate. */
    g_autofree char *extra2 = g_strdup_printf ("[workload.bw]\nkind = ib_write_bw\n"
                                               "device = dgx-1/mlx5_3\npeer = dgx-2/mlx5_3\n"
                                               "size = 1MiB\niters = %u\ntx_depth = 2\n",
                                               iters);
    g_autofree char *text2 = two_dgx ("infiniband", extra2);
    run (&s, text2, WEFT_SIM_DONE);
    result (&s, &r);
    printf ("# ib_write_bw 1 MiB, two outstanding: %.3f Gb/s, line %.3f\n", r.avg_bps / 1e9,
            line / 1e9);
    ck_assert_double_ge (r.avg_bps, 0.99 * line);
    weft_workload_perftest_result_clear (&r);
    weft_session_clear (&s);
}
END_TEST

/* One-packet transfers gpu1 -> gpu2 inside dgx-1 (NVLink) and dgx-1/gpu3 -> dgx-2/gpu3 (PCIe,
 * NIC, fabric), with @nic; their FCTs and ideal FCTs.  (One packet: no ACK's flow-control
 * packet shares a link with the data while it is under way.) */
static void
gpu_flows (const char *nic, double fct[2], double ideal[2], gboolean nic_path[2])
{
    g_autofree char *extra =
        g_strdup_printf ("%s[workload.w]\nkind = flows\n"
                         "flows = dgx-1/gpu1>dgx-1/gpu2 4KiB;dgx-1/gpu3>dgx-2/gpu3 4KiB\n",
                         nic);
    g_autofree char *text = two_dgx ("infiniband", extra);
    WeftSession s;
    run (&s, text, WEFT_SIM_DONE);
    ck_assert_uint_eq (s.net->tp.n_flows, 2);
    for (guint i = 0; i < 2; i++) {
        const WeftFlow *f = &s.net->tp.flows[i];
        fct[i] = ps_s (f->finish_ps - f->start_ps);
        ideal[i] = ps_s (f->ideal_fct_ps);
        nic_path[i] = f->nic_path;
    }
    weft_session_clear (&s);
}

/* A lone flow of @size from @src to @dst: its FCT and ideal FCT, in seconds. */
static void
lone_flow (const char *src, const char *dst, const char *size, double *fct, double *ideal)
{
    g_autofree char *extra =
        g_strdup_printf ("[workload.w]\nkind = flows\nflows = %s>%s %s\n", src, dst, size);
    g_autofree char *text = two_dgx ("infiniband", extra);
    WeftSession s;
    run (&s, text, WEFT_SIM_DONE);
    ck_assert_uint_eq (s.net->tp.n_flows, 1);
    const WeftFlow *f = &s.net->tp.flows[0];
    *fct = ps_s (f->finish_ps - f->start_ps);
    *ideal = ps_s (f->ideal_fct_ps);
    weft_session_clear (&s);
}

/* The ideal FCT is what the flow takes alone (its slowdown 1): a one-packet flow's exactly,
 * through the NVSwitch and the PCIe switches (cut-through inside a server) and the
 * InfiniBand leaf (cut-through): each forwards once the packet's first 64 bytes are in, not
 * the whole packet. */
START_TEST (test_latency_ideal_is_a_lone_flows_fct)
{
    static const struct {
        const char *src, *dst;
    } path[] = { { "dgx-1/gpu1", "dgx-1/gpu2" }, { "dgx-1/gpu3", "dgx-2/gpu3" } };
    for (guint i = 0; i < G_N_ELEMENTS (path); i++) {
        double fct, ideal;
        lone_flow (path[i].src, path[i].dst, "4KiB", &fct, &ideal);
        printf ("# %s > %s 4 KiB: FCT %.3f ns, ideal %.3f ns\n", path[i].src, path[i].dst,
                fct * 1e9, ideal * 1e9);
        ck_assert_double_eq_tol (fct, ideal, 1e-12);
        lone_flow (path[i].src, path[i].dst, "1MiB", &fct, &ideal);
        printf ("# %s > %s 1 MiB: FCT %.3f ns, ideal %.3f ns\n", path[i].src, path[i].dst,
                fct * 1e9, ideal * 1e9);
        ck_assert_double_ge (fct, ideal - 1e-12);
    }
}
END_TEST

START_TEST (test_latency_only_fabric_transfers_pay_the_nic)
{
    double fct0[2], ideal0[2], fct1[2], ideal1[2];
    gboolean path0[2], path1[2];
    gpu_flows ("[nic]\ntx_latency = 0ns\nrx_latency = 0ns\n", fct0, ideal0, path0);
    gpu_flows ("[nic]\ntx_latency = 400ns\nrx_latency = 300ns\n", fct1, ideal1, path1);
    ck_assert (!path0[0] && !path1[0]);
    ck_assert (path0[1] && path1[1]);
    /* NVLink: the same transfer either way. */
    ck_assert_double_eq_tol (fct1[0], fct0[0], 1e-12);
    ck_assert_double_eq_tol (ideal1[0], ideal0[0], 1e-12);
    /* To the other server: the sending NIC's 400 ns once, the receiving NIC's 300 ns once. */
    ck_assert_double_eq_tol (fct1[1] - fct0[1], 700e-9, 1e-12);
    ck_assert_double_eq_tol (ideal1[1] - ideal0[1], 700e-9, 1e-12);
}
END_TEST

START_TEST (test_latency_receive_pipeline_in_flight)
{
    /* One single-packet message between two hosts: stopped while the receiving NIC is
     * processing it, the packet is in flight; torn down, it goes back to the pool. */
    const char *base = "[topology]\ngenerator = single_switch\nhosts = 2\nlink_rate = 100Gbps\n"
                       "cable_length = 0m\n[switch]\nlatency = 0ns\n"
                       "[nic]\ntx_latency = 1us\nrx_latency = 1us\n"
                       "[workload.w]\nkind = flows\nflows = host0>host1 1000B\n";
    /* Sent at 1 us; 1082 B at 100 Gb/s, twice (store-and-forward): arrives at 1.17312 us. */
    double arrive = 1e-6 + 2 * ser_s (1000 + 82, 100e9);
    g_autofree char *text =
        g_strdup_printf ("[experiment]\nduration = %.0fns\n%s", (arrive + 0.5e-6) * 1e9, base);
    WeftSession s;
    run (&s, text, WEFT_SIM_DURATION);
    WeftNetworkStats st;
    weft_network_stats (s.net, &st);
    ck_assert_uint_eq (st.finished, 0);
    ck_assert_uint_eq (st.inflight_data, 1);
    ck_assert_uint_eq (st.retransmits, 0);
    ck_assert_uint_gt (weft_packet_pool_live (&s.sim->pool), 0);
    ck_assert_uint_eq (weft_sim_clear_models (s.sim), 0);
    weft_session_clear (&s);
    /* Run to the end: delivered rx_latency after it arrived. */
    run (&s, base, WEFT_SIM_DONE);
    const WeftFlow *f = &s.net->tp.flows[0];
    ck_assert_double_eq_tol (ps_s (f->finish_ps - f->start_ps), arrive + 1e-6, 1e-12);
    weft_session_clear (&s);
}
END_TEST

/* Between two hosts the receive pipeline rides on the wire (weft_nic_fold_rx): it adds no
 * event, and a run stopped while a packet is in it still counts that packet as received. */
static char *
two_hosts (const char *rx, const char *size)
{
    return g_strdup_printf (
        "[topology]\ngenerator = single_switch\nhosts = 2\nlink_rate = 100Gbps\n"
        "cable_length = 0m\n[switch]\nlatency = 0ns\n"
        "[nic]\ntx_latency = 1us\nrx_latency = %s\n"
        "[workload.w]\nkind = flows\nflows = host0>host1 %s\n",
        rx, size);
}

START_TEST (test_latency_receive_pipeline_on_the_wire)
{
    /* Every received packet (the data, its ACK) reaches the transport 1 us later, so the flow
     * ends 1 us later, in the same number of events as with no pipeline at all. */
    guint64 events[2];
    weft_time_t fct[2];
    const char *rx[2] = { "0ns", "1us" };
    for (guint i = 0; i < 2; i++) {
        g_autofree char *text = two_hosts (rx[i], "4000B");
        WeftSession s;
        run (&s, text, WEFT_SIM_DONE);
        events[i] = s.sim->events;
        fct[i] = s.net->tp.flows[0].finish_ps - s.net->tp.flows[0].start_ps;
        weft_session_clear (&s);
    }
    ck_assert_uint_eq (events[1], events[0]);
    ck_assert_uint_eq (fct[1] - fct[0], WEFT_US (1));

    /* One 1000 B packet: sent at 1 us, 1082 B at 100 Gb/s twice, its last bit at host1 at
     * 1.17312 us; stopped 0.5 us later, in the pipeline: on host1's wire still, yet received. */
    double arrive = 1e-6 + 2 * ser_s (1000 + 82, 100e9);
    g_autofree char *one = two_hosts ("1us", "1000B");
    g_autofree char *text =
        g_strdup_printf ("[experiment]\nduration = %.0fns\n%s", (arrive + 0.5e-6) * 1e9, one);
    WeftSession s;
    run (&s, text, WEFT_SIM_DURATION);
    WeftNic *h1 = (WeftNic *) s.net->node_model[weft_graph_lookup (s.graph, "host1")];
    ck_assert_uint_eq (h1->ports[0].rx_packets, 0);
    weft_nic_settle_rx (h1, s.sim->now);
    ck_assert_uint_eq (h1->ports[0].rx_packets, 1);
    ck_assert_uint_eq (h1->ports[0].rx_bytes, 1082);
    weft_session_clear (&s);
}
END_TEST

static void
refused (const char *group_keys, int code, const char *group, const char *key)
{
    g_autofree char *text = g_strdup_printf ("[topology]\ngenerator = single_switch\nhosts = 2\n"
                                             "[workload.w]\nkind = flows\n"
                                             "flows = host0>host1 1KiB\n%s",
                                             group_keys);
    WeftSession s;
    g_autoptr (GError) error = NULL;
    ck_assert (!harness_try_prepare (&s, text, &error));
    ck_assert_msg (g_error_matches (error, WEFT_CONFIG_ERROR, code), "%s", error->message);
    g_autofree char *named = g_strdup_printf ("[%s] %s:", group, key);
    ck_assert_msg (strstr (error->message, named), "%s", error->message);
    weft_session_clear (&s);
}

START_TEST (test_latency_bad_values_name_the_key)
{
    refused ("[nic]\ntx_latency = 500\n", WEFT_CONFIG_ERROR_UNIT, "nic", "tx_latency");
    refused ("[nic]\nrx_latency = 2ms\n", WEFT_CONFIG_ERROR_RANGE, "nic", "rx_latency");
    refused ("[nic]\nrx_latency = 5MB\n", WEFT_CONFIG_ERROR_UNIT, "nic", "rx_latency");
    refused ("[nic]\nmessage_rate = fast\n", WEFT_CONFIG_ERROR_VALUE, "nic", "message_rate");
    refused ("[nic]\nmessage_rate = 0pps\n", WEFT_CONFIG_ERROR_VALUE, "nic", "message_rate");
    refused ("[nic]\nmessage_rate = 330\n", WEFT_CONFIG_ERROR_VALUE, "nic", "message_rate");
    refused ("[nic]\nmessage_rate = 0.5pps\n", WEFT_CONFIG_ERROR_VALUE, "nic", "message_rate");
    refused ("[nic]\nlatency = 1us\n", WEFT_CONFIG_ERROR_UNKNOWN_KEY, "nic", "latency");
    refused ("[switch]\nlatency = 3MB\n", WEFT_CONFIG_ERROR_UNIT, "switch", "latency");
    refused ("[switch]\nlatency = 1.5ms\n", WEFT_CONFIG_ERROR_RANGE, "switch", "latency");
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("latency");
    TCase *tc = tcase_create ("latency");
    tcase_add_checked_fixture (tc, harness_tmp_setup, harness_tmp_teardown);
    tcase_set_timeout (tc, 120);
    tcase_add_test (tc, test_latency_defaults_per_fabric);
    tcase_add_test (tc, test_latency_ib_write_lat_minimum);
    tcase_add_test (tc, test_latency_ib_write_bw_message_rate_capped);
    tcase_add_test (tc, test_latency_large_messages_keep_line_rate);
    tcase_add_test (tc, test_latency_only_fabric_transfers_pay_the_nic);
    tcase_add_test (tc, test_latency_ideal_is_a_lone_flows_fct);
    tcase_add_test (tc, test_latency_receive_pipeline_in_flight);
    tcase_add_test (tc, test_latency_receive_pipeline_on_the_wire);
    tcase_add_test (tc, test_latency_bad_values_name_the_key);
    suite_add_tcase (s, tc);
    return s;
}
