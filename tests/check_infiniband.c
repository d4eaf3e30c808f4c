/* tests/check_infiniband.c - the InfiniBand fabric end to end: credits, virtual lanes,
 * congestion spreading, adaptive routing, through the same session code as `weft run`.
 *
 * Checks, against values derived independently of weft:
 *  - a long flow with a per-VL buffer larger than a credit round trip of data reaches line
 *    rate x payload / wire size within 1 %; with a buffer of k packets it is paced at
 *    k packets per credit round trip (serialization + propagation there, the flow-control
 *    packet's serialization + propagation back) within 5 %;
 *  - 16-to-1 incast: no drop at all, every byte delivered once, the senders' ports wait for
 *    credits (PortXmitWait), each sender gets 1/16 of the receiver's link within 5 %;
 *  - credit conservation at every sample of a busy run, for every link direction and VL, also
 *    with a shared pool lending credits to filling inputs (whose own books must balance);
 *  - congestion spreading: a victim flow that shares only an upstream link with an incast is
 *    slowed well below its own line rate, and the link where it waits shows credit stalls;
 *  - two service levels on two VLs share a link by the arbitration weights, and a per-port
 *    SL-to-VL table changes which one the weights favour on that port;
 *  - flow-control packets applied lazily take effect in the order their arrival events had;
 *  - adaptive routing delivers every byte with packets placed out of order, and on a random
 *    permutation is no worse than static routing at the median and better in the tail.
 * Leaves unchecked: IB congestion control (tests/check_ibcc.c), faults (a later issue).
 */
#include "config.h"
#include <check.h>
#include <glib/gstdio.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "cli/session.h"
#include "models/nic.h"
#include "network/network.h"
#include "models/switch.h"
#include "tests/harness.h"


static double
flow_gbps (const WeftFlow *f)
{
    return (double) f->spec.size_bytes * 8 / weft_time_to_s (f->finish_ps - f->spec.start_ps) / 1e9;
}

#define RATE 400e9
#define WIRE (4096.0 + 26.0)

START_TEST (test_infiniband_line_rate_with_enough_credits)
{
    WeftSession s;
    harness_prepare (
        &s, "[topology]\ngenerator = single_switch\nhosts = 2\nlink_rate = 400Gbps\n"
            "cable_length = 2m\n[fabric]\nkind = infiniband\n[infiniband]\nbuffer = 256KiB\n"
            "[workload.w]\nkind = flows\nflows = host0>host1 64MiB\n");
    ck_assert_int_eq (weft_sim_run (s.sim), WEFT_SIM_DONE);
    double expect = RATE / 1e9 * 4096 / WIRE;
    ck_assert_double_eq_tol (flow_gbps (&s.net->tp.flows[0]), expect, expect * 0.01);
    weft_session_clear (&s);
}
END_TEST

START_TEST (test_infiniband_small_buffer_paced_by_credit_rtt)
{
    /* Store-and-forward, 100 m cables (500 ns each way), no switch latency: the credits of a
     * packet come back ser(packet) + prop + ser(FCP) + prop after it starts. */
    const guint k = 5;
    g_autofree char *text = g_strdup_printf (
        "[topology]\ngenerator = single_switch\nhosts = 2\nlink_rate = 400Gbps\n"
        "cable_length = 100m\n[fabric]\nkind = infiniband\n[infiniband]\nbuffer = %uB\n"
        "hca_buffer = 1MiB\n[switch]\nforwarding = store-and-forward\nlatency = 0ns\n"
        "[workload.w]\nkind = flows\nflows = host0>host1 16MiB\n",
        k * 65 * 64);
    WeftSession s;
    harness_prepare (&s, text);
    ck_assert_int_eq (weft_sim_run (s.sim), WEFT_SIM_DONE);
    double rtt = WIRE * 8 / RATE + 500e-9 + 6.0 * 8 / RATE + 500e-9;
    double expect_wire_gbps = k * WIRE * 8 / rtt / 1e9;
    double got_wire_gbps = flow_gbps (&s.net->tp.flows[0]) * WIRE / 4096;
    ck_assert_double_eq_tol (got_wire_gbps, expect_wire_gbps, expect_wire_gbps * 0.05);
    weft_session_clear (&s);
}
END_TEST

static guint credit_violations, credit_samples;
static GString *credit_report;

static void
check_credits_sample (WeftSim *sim, void *data)
{
    credit_samples++;
    credit_violations += weft_network_check_credits (data, credit_report);
}

START_TEST (test_infiniband_incast_lossless_fair_and_conserves_credits)
{
    WeftSession s;
    harness_prepare (&s, "[topology]\ngenerator = single_switch\nhosts = 17\nlink_rate = 400Gbps\n"
                         "[fabric]\nkind = infiniband\n[infiniband]\nbuffer = 32KiB\n"
                         "[workload.in]\nkind = incast\nsenders = 16\nreceiver = host0\n"
                         "flow_size = 2MiB\n");
    credit_violations = credit_samples = 0;
    credit_report = g_string_new (NULL);
    s.sim->sample = check_credits_sample;
    s.sim->sample_data = s.net;
    s.sim->sample_interval = WEFT_NS (700); /* an odd period, to land mid-packet */
    ck_assert_int_eq (weft_sim_run (s.sim), WEFT_SIM_DONE);
    ck_assert_uint_gt (credit_samples, 100);
    if (credit_violations)
        ck_abort_msg ("%u credit violations:\n%s", credit_violations, credit_report->str);
    g_string_free (credit_report, TRUE);

    WeftNetworkStats st;
    weft_network_stats (s.net, &st);
    ck_assert_uint_eq (st.finished, 16);
    ck_assert_uint_eq (st.drops, 0);
    ck_assert_uint_eq (st.lossless_drops, 0);
    ck_assert_uint_eq (st.retransmits, 0);
    ck_assert_uint_eq (st.bytes_delivered, 16u * 2 * 1024 * 1024);
    double share = RATE / 1e9 * 4096 / WIRE / 16;
    for (guint i = 0; i < 16; i++)
        ck_assert_double_eq_tol (flow_gbps (&s.net->tp.flows[i]), share, share * 0.05);
    /* Every sender's port waited for credits. */
    for (guint i = 0; i < s.net->ports->len; i++) {
        const WeftPort *p = s.net->ports->pdata[i];
        if (p->owner->klass == &weft_nic_class &&
            p->owner->node != weft_graph_lookup (s.graph, "host0"))
            ck_assert_uint_gt (p->ib->xmit_wait_ps, 0);
    }
    weft_session_clear (&s);
}
END_TEST

/* The victim host3 -> host7 crosses leaf0 -> spine -> leaf1 with an incast to host4 (from
 * host0, host1 on leaf0 and host5, host6 on leaf1).  Uplinks run at 1.6 Tb/s, so no link but
 * host4's is oversubscribed: whatever slows the victim is head-of-line blocking through
 * credits. */
static const char *spreading =
    "[topology]\ngenerator = leafspine\nleaves = 2\nspines = 1\nhosts_per_leaf = 4\n"
    "link_rate = 400Gbps\nuplink_rate = 1600Gbps\n[fabric]\nkind = infiniband\n"
    "routing = static\n[infiniband]\nbuffer = 32KiB\n"
    "[workload.victim]\nkind = flows\nflows = host3>host7 8MiB\n";

START_TEST (test_infiniband_congestion_spreads_to_a_victim)
{
    WeftSession alone;
    harness_prepare (&alone, spreading);
    ck_assert_int_eq (weft_sim_run (alone.sim), WEFT_SIM_DONE);
    double alone_gbps = flow_gbps (&alone.net->tp.flows[0]);
    weft_session_clear (&alone);

    g_autofree char *text =
        g_strconcat (spreading,
                     "[workload.incast]\nkind = incast\nsenders = host0;host1;host5;host6\n"
                     "receiver = host4\nflow_size = 8MiB\n",
                     NULL);
    WeftSession s;
    harness_prepare (&s, text);
    ck_assert_int_eq (weft_sim_run (s.sim), WEFT_SIM_DONE);
    const WeftFlow *victim = NULL;
    for (guint i = 0; i < s.net->tp.n_flows; i++)
        if (s.net->tp.flows[i].spec.dst == weft_graph_lookup (s.graph, "host7"))
            victim = &s.net->tp.flows[i];
    ck_assert_ptr_nonnull (victim);
    ck_assert_double_lt (flow_gbps (victim), 0.5 * alone_gbps);
    /* Where it waits: the spine's port toward leaf1 ran out of credits. */
    guint32 spine = weft_graph_lookup (s.graph, "spine0"),
            leaf1 = weft_graph_lookup (s.graph, "leaf1");
    ck_assert_uint_ne (spine, WEFT_GRAPH_NONE);
    gboolean found = FALSE;
    for (guint i = 0; i < s.net->ports->len; i++) {
        const WeftPort *p = s.net->ports->pdata[i];
        if (p->owner->node == spine && p->link.peer->node == leaf1) {
            ck_assert_uint_gt (p->ib->xmit_wait_ps, 0);
            found = TRUE;
        }
    }
    ck_assert (found);
    WeftNetworkStats st;
    weft_network_stats (s.net, &st);
    ck_assert_uint_eq (st.lossless_drops, 0);
    weft_session_clear (&s);
}
END_TEST

START_TEST (test_infiniband_vl_arbitration_weights)
{
    /* Two senders on two service levels / VLs share the switch's port to host2; the low table
     * gives VL 1 three times VL 0's weight, so it gets ~3/4 of the link while both send. */
    WeftSession s;
    harness_prepare (&s, "[topology]\ngenerator = single_switch\nhosts = 3\nlink_rate = 400Gbps\n"
                         "[fabric]\nkind = infiniband\n[infiniband]\nvls = 2\nsl2vl = 0;1\n"
                         "vlarb_low = 0:65;1:195\n"
                         "[workload.a]\nkind = flows\nflows = host0>host2 16MiB\nsl = 0\n"
                         "[workload.b]\nkind = flows\nflows = host1>host2 16MiB\nsl = 1\n");
    ck_assert_int_eq (weft_sim_run (s.sim), WEFT_SIM_DONE);
    const WeftFlow *a = &s.net->tp.flows[0], *b = &s.net->tp.flows[1];
    ck_assert_uint_eq (a->vl, 0);
    ck_assert_uint_eq (b->vl, 1);
    /* b finishes first, having had 3/4 of the link: 16 MiB at 300 of 400 Gb/s. */
    ck_assert_uint_lt (b->finish_ps, a->finish_ps);
    double expect = RATE / 1e9 * 4096 / WIRE * 0.75;
    ck_assert_double_eq_tol (flow_gbps (b), expect, expect * 0.05);
    weft_session_clear (&s);
}
END_TEST

START_TEST (test_infiniband_per_port_sl2vl)
{
    /* The same two flows as above, but the switch's port to host2 maps SL 0 to VL 1 and SL 1
     * to VL 0: the weights now favour the SL 0 flow on that link, and credits stay conserved
     * although packets leave on another VL than they arrived on. */
    g_autofree char *lft = g_build_filename (harness_tmp, "sl2vl.txt", NULL);
    ck_assert (g_file_set_contents (lft, "# node port vl-of-sl0;vl-of-sl1\nsw0 3 1;0\n", -1, NULL));
    g_autofree char *text =
        g_strdup_printf ("[topology]\ngenerator = single_switch\nhosts = 3\nlink_rate = 400Gbps\n"
                         "[fabric]\nkind = infiniband\n[infiniband]\nvls = 2\nsl2vl = 0;1\n"
                         "vlarb_low = 0:65;1:195\nsl2vl_file = %s\nbuffer = 32KiB\n"
                         "[workload.a]\nkind = flows\nflows = host0>host2 16MiB\nsl = 0\n"
                         "[workload.b]\nkind = flows\nflows = host1>host2 16MiB\nsl = 1\n",
                         lft);
    WeftSession s;
    harness_prepare (&s, text);
    credit_violations = credit_samples = 0;
    credit_report = g_string_new (NULL);
    s.sim->sample = check_credits_sample;
    s.sim->sample_data = s.net;
    s.sim->sample_interval = WEFT_NS (700);
    ck_assert_int_eq (weft_sim_run (s.sim), WEFT_SIM_DONE);
    if (credit_violations)
        ck_abort_msg ("%u credit violations:\n%s", credit_violations, credit_report->str);
    g_string_free (credit_report, TRUE);
    const WeftFlow *a = &s.net->tp.flows[0], *b = &s.net->tp.flows[1];
    ck_assert_uint_lt (a->finish_ps, b->finish_ps);
    double expect = RATE / 1e9 * 4096 / WIRE * 0.75;
    ck_assert_double_eq_tol (flow_gbps (a), expect, expect * 0.05);
    weft_session_clear (&s);
}
END_TEST

static guint pool_violations;

static void
check_credits_and_pool (WeftSim *sim, void *data)
{
    WeftNetwork *net = data;
    check_credits_sample (sim, data);
    for (guint i = 0; i < sim->models->len; i++) {
        const WeftModel *m = sim->models->pdata[i];
        if (m->klass != &weft_switch_class)
            continue;
        const WeftSwitch *sw = (const WeftSwitch *) m;
        guint64 lent = 0;
        for (guint p = 0; p < sw->n_ports; p++)
            if (sw->ports[p].ib && sw->ports[p].ib->pool_free)
                for (guint v = 0; v < WEFT_IB_MAX_VLS; v++)
                    lent += sw->ports[p].ib->vl[v].granted;
        pool_violations += lent + sw->pool_free != net->fabric.ib.shared_credits;
    }
}

START_TEST (test_infiniband_shared_pool)
{
    /* 16-to-1 incast with private buffers of 3 packets per input VL and a 1 MiB pool: the
     * filling inputs borrow, nothing is lost, credits stay conserved counting the loans, and
     * the pool's free credits plus what it has lent always add up to its size. */
    WeftSession s;
    harness_prepare (&s, "[topology]\ngenerator = single_switch\nhosts = 17\nlink_rate = 400Gbps\n"
                         "[fabric]\nkind = infiniband\n[infiniband]\nbuffer = 12480B\n"
                         "shared_buffer = 1MiB\n[workload.in]\nkind = incast\nsenders = 16\n"
                         "receiver = host0\nflow_size = 1MiB\n");
    credit_violations = credit_samples = pool_violations = 0;
    credit_report = g_string_new (NULL);
    s.sim->sample = check_credits_and_pool;
    s.sim->sample_data = s.net;
    s.sim->sample_interval = WEFT_NS (700);
    ck_assert_int_eq (weft_sim_run (s.sim), WEFT_SIM_DONE);
    if (credit_violations)
        ck_abort_msg ("%u credit violations:\n%s", credit_violations, credit_report->str);
    g_string_free (credit_report, TRUE);
    ck_assert_uint_eq (pool_violations, 0);
    guint64 loans = 0;
    for (guint i = 0; i < s.net->ports->len; i++) {
        const WeftPort *p = s.net->ports->pdata[i];
        loans += p->ib->loans;
    }
    ck_assert_uint_gt (loans, 0);
    WeftNetworkStats st;
    weft_network_stats (s.net, &st);
    ck_assert_uint_eq (st.lossless_drops, 0);
    ck_assert_uint_eq (st.finished, 16);
    weft_session_clear (&s);
}
END_TEST

static void
fct_quantiles (const WeftSession *s, double *p50, double *p99)
{
    guint n = s->net->tp.n_flows;
    double *x = g_new (double, n);
    for (guint i = 0; i < n; i++) {
        const WeftFlow *f = &s->net->tp.flows[i];
        ck_assert (f->finished);
        x[i] = weft_time_to_us (f->finish_ps - f->spec.start_ps);
    }
    gsl_sort (x, 1, n);
    *p50 = gsl_stats_quantile_from_sorted_data (x, 1, n, 0.5);
    *p99 = gsl_stats_quantile_from_sorted_data (x, 1, n, 0.99);
    g_free (x);
}

START_TEST (test_infiniband_adaptive_routing_beats_static_in_the_tail)
{
#define BASE                                                                                       \
    "[experiment]\nseed = 3\n"                                                                     \
    "[topology]\ngenerator = leafspine\nleaves = 8\nspines = 8\n"                                  \
    "hosts_per_leaf = 8\nlink_rate = 400Gbps\nuplink_rate = 400Gbps\n"                             \
    "[fabric]\nkind = infiniband\nrouting = %s\n"                                                  \
    "[workload.p]\nkind = permutation\nflow_size = 4MiB\n"
    double p50[2], p99[2];
    const char *routing[] = { "static", "adaptive" };
    for (guint r = 0; r < 2; r++) {
        g_autofree char *text = g_strdup_printf (BASE, routing[r]);
        WeftSession s;
        harness_prepare (&s, text);
        ck_assert_int_eq (weft_sim_run (s.sim), WEFT_SIM_DONE);
        WeftNetworkStats st;
        weft_network_stats (s.net, &st);
        ck_assert_uint_eq (st.bytes_delivered, st.bytes_offered);
        ck_assert_uint_eq (st.lossless_drops, 0);
        if (r == 1)
            ck_assert_uint_gt (st.reorder_count, 0);
        fct_quantiles (&s, &p50[r], &p99[r]);
        weft_session_clear (&s);
    }
    ck_assert_double_le (p50[1], p50[0] * 1.02);
    ck_assert_double_lt (p99[1], p99[0]);
}
END_TEST

/* experiments/dgx4.ini (4 x DGX H100, one SU, 8 rails, 1:1) on InfiniBand with @extra. */
static char *
dgx4_text (const char *extra)
{
    g_autofree char *dgx4 = harness_srcpath ("experiments/dgx4.ini");
    return g_strdup_printf ("[experiment]\ninclude = %s\n[fabric]\nkind = infiniband\n%s", dgx4,
                            extra);
}

/* GPUs numbered leaf-major (rail by rail, server by server), as the D-mod-k tables number
 * destinations: rail r of server s is r * 4 + s. */
static char *
leaf_major_gpus (void)
{
    GString *h = g_string_new (NULL);
    for (guint r = 0; r < 8; r++)
        for (guint sv = 1; sv <= 4; sv++)
            g_string_append_printf (h, "%sdgx-%u/gpu%u", h->len ? ";" : "", sv, r);
    return g_string_free (h, FALSE);
}

START_TEST (test_infiniband_railopt_shift_permutation_at_line_rate)
{
    /* Shift by 5 in leaf-major order: rail r of server s sends to rail r + 1 of server s + 1,
     * so every flow crosses leaf -> spine -> leaf.  Balanced D-mod-k routes put at most one
     * flow on each link, and each flow runs at line rate (its links also carry one other
     * flow's ACKs: 30 of every 4152 bytes) after its fixed costs: the two NICs' processing
     * and three switches' latency. */
    g_autofree char *gpus = leaf_major_gpus ();
    g_autofree char *extra = g_strdup_printf (
        "routing = static\n[workload.s]\nkind = permutation\npattern = shift\nshift = 5\n"
        "hosts = %s\nflow_size = 32MiB\n",
        gpus);
    g_autofree char *text = dgx4_text (extra);
    WeftSession s;
    harness_prepare (&s, text);
    ck_assert_int_eq (weft_sim_run (s.sim), WEFT_SIM_DONE);
    ck_assert_uint_eq (s.net->tp.n_flows, 32);
    double line = RATE / 1e9 * 4096 / WIRE;
    const WeftNicConfig *nic = &s.net->fabric.nic;
    double fixed_s = weft_time_to_s (nic->tx_latency_ps + nic->rx_latency_ps +
                                     3 * weft_switch_first_fabric (s.net->switches)->latency_ps);
    double bits = 32.0 * 1024 * 1024 * 8;
    double expect = bits / (bits / (line * 1e9) + fixed_s) / 1e9;
    for (guint i = 0; i < s.net->tp.n_flows; i++)
        ck_assert_double_ge (flow_gbps (&s.net->tp.flows[i]), 0.99 * expect);
    weft_session_clear (&s);
}
END_TEST

START_TEST (test_infiniband_railopt_random_permutation_static_vs_adaptive)
{
    /* A full scalable unit (32 servers, 256 GPUs: every leaf port in use), a random permutation
     * of the GPUs: static routes collide on some spine links (a flow at about half rate);
     * adaptive routing is no worse at the median and better in the tail. */
    double p50[2], p99[2], slowest[2];
    const char *routing[] = { "static", "adaptive" };
    for (guint r = 0; r < 2; r++) {
        g_autofree char *extra =
            g_strdup_printf ("routing = %s\n[experiment]\nseed = 7\n[topology]\nservers = 32\n"
                             "[workload.p]\nkind = permutation\nflow_size = 4MiB\n",
                             routing[r]);
        g_autofree char *text = dgx4_text (extra);
        WeftSession s;
        harness_prepare (&s, text);
        ck_assert_int_eq (weft_sim_run (s.sim), WEFT_SIM_DONE);
        fct_quantiles (&s, &p50[r], &p99[r]);
        slowest[r] = G_MAXDOUBLE;
        for (guint i = 0; i < s.net->tp.n_flows; i++)
            slowest[r] = MIN (slowest[r], flow_gbps (&s.net->tp.flows[i]));
        weft_session_clear (&s);
    }
    double line = RATE / 1e9 * 4096 / WIRE;
    ck_assert_double_lt (slowest[0], 0.6 * line); /* a collision under static routing */
    ck_assert_double_le (p50[1], p50[0] * 1.02);
    ck_assert_double_lt (p99[1], p99[0]);
}
END_TEST

/* Lazy credits (models/ib_credit.h): a flow-control packet on its way is applied exactly when
 * its arrival event would have run - before the running event if it arrived earlier, or at the
 * same picosecond from a wire whose scheduling id is not above the running event's - and the
 * conservation check counts it as returning until then. */
START_TEST (test_infiniband_lazy_credits_follow_the_event_order)
{
    WeftSession s;
    harness_prepare (&s, "[topology]\ngenerator = single_switch\nhosts = 2\n"
                         "[fabric]\nkind = infiniband\n[workload.w]\nkind = flows\n"
                         "flows = host0>host1 4KiB\n");
    WeftPort *port = s.net->ports->pdata[0];
    ck_assert_ptr_nonnull (port->ib);
    ck_assert_ptr_nonnull (port->far);
    WeftIbPort *ib = port->ib;
    ck_assert_uint_eq (ib->return_key, (guint64) port->far->sched.id << 32);
    guint32 start = ib->vl[0].avail;
    ib->vl[0].avail = start - 8;
    const guint32 seq[2] = { 3, 5 };
    const weft_time_t at[2] = { 100, 200 };
    for (guint i = 0; i < 2; i++)
        weft_ib_return_push (ib, at[i], 0, seq[i]);
    /* Its 8 credits are on their way: the books balance before any is applied. */
    ck_assert_uint_eq (weft_network_check_credits (s.net, NULL), 0);
    guint64 id = ib->return_key >> 32;
    /* At 100 ps, an event of a lower id runs before the arrival: nothing yet. */
    weft_ib_apply_due (ib, 100, ((id - 1) << 32) | 0xffff);
    ck_assert_uint_eq (ib->vl[0].avail, start - 8);
    /* The same picosecond from an event of a higher id: the first arrival has run. */
    weft_ib_apply_due (ib, 100, (id + 1) << 32);
    ck_assert_uint_eq (ib->vl[0].avail, start - 8 + 3);
    ck_assert_uint_eq (weft_network_check_credits (s.net, NULL), 0);
    /* Later, whatever the key, until the second one is due. */
    weft_ib_apply_due (ib, 199, 0);
    ck_assert_uint_eq (ib->vl[0].avail, start - 8 + 3);
    weft_ib_apply_due (ib, 201, 0);
    ck_assert_uint_eq (ib->vl[0].avail, start);
    ck_assert_uint_eq (ib->ret_len, 0);
    ck_assert_uint_eq (ib->return_next, G_MAXUINT64);
    ck_assert_uint_eq (weft_network_check_credits (s.net, NULL), 0);
    weft_session_clear (&s);
}
END_TEST

/* The credits on their way are a ring of records: it grows while wrapped (more FCPs on the
 * way than it held) and still applies them in arrival order, each with its own VL and count;
 * the conservation check counts every one until it is applied. */
START_TEST (test_infiniband_fcp_ring_grows_in_arrival_order)
{
    WeftSession s;
    harness_prepare (&s, "[topology]\ngenerator = single_switch\nhosts = 2\n"
                         "[fabric]\nkind = infiniband\n[workload.w]\nkind = flows\n"
                         "flows = host0>host1 4KiB\n");
    WeftPort *port = s.net->ports->pdata[0];
    WeftIbPort *ib = port->ib;
    guint64 id = ib->return_key >> 32;
    guint32 start = ib->vl[0].avail;
    /* Wrap the ring first: 6 FCPs of 1 credit each, 5 applied. */
    ib->vl[0].avail = start - 6;
    for (guint i = 0; i < 6; i++)
        weft_ib_return_push (ib, 10 + i, 0, 1);
    weft_ib_apply_due (ib, 14, (id + 1) << 32);
    ck_assert_uint_eq (ib->vl[0].avail, start - 1);
    ck_assert_uint_eq (ib->ret_len, 1);
    /* Then 20 more, arriving every 10 ps from 100 ps, of i + 1 credits: past the 8 records
     * held, so it grows with its first record behind the block's end. */
    guint32 sum = 0;
    for (guint i = 0; i < 20; i++)
        sum += i + 1;
    ib->vl[0].avail -= sum;
    for (guint i = 0; i < 20; i++)
        weft_ib_return_push (ib, 100 + 10 * i, 0, i + 1);
    ck_assert_uint_eq (ib->ret_len, 21);
    ck_assert_uint_eq (weft_network_check_credits (s.net, NULL), 0);
    /* Applied one by one, each exactly when due. */
    guint32 expect = ib->vl[0].avail;
    weft_ib_apply_due (ib, 15, (id + 1) << 32);
    expect += 1;
    ck_assert_uint_eq (ib->vl[0].avail, expect);
    for (guint i = 0; i < 20; i++) {
        weft_ib_apply_due (ib, 100 + 10 * i, (id - 1) << 32); /* a lower id: not yet */
        ck_assert_uint_eq (ib->vl[0].avail, expect);
        weft_ib_apply_due (ib, 100 + 10 * i, id << 32); /* the wire's own id: due */
        expect += i + 1;
        ck_assert_uint_eq (ib->vl[0].avail, expect);
        ck_assert_uint_eq (ib->ret_len, 19 - i);
        ck_assert_uint_eq (weft_network_check_credits (s.net, NULL), 0);
    }
    ck_assert_uint_eq (ib->vl[0].avail, start);
    ck_assert_uint_eq (ib->return_next, G_MAXUINT64);
    weft_session_clear (&s);
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("infiniband");
    TCase *tc = tcase_create ("credits");
    tcase_add_checked_fixture (tc, harness_tmp_setup, harness_tmp_teardown);
    tcase_set_timeout (tc, 300);
    tcase_add_test (tc, test_infiniband_line_rate_with_enough_credits);
    tcase_add_test (tc, test_infiniband_small_buffer_paced_by_credit_rtt);
    tcase_add_test (tc, test_infiniband_incast_lossless_fair_and_conserves_credits);
    tcase_add_test (tc, test_infiniband_congestion_spreads_to_a_victim);
    tcase_add_test (tc, test_infiniband_vl_arbitration_weights);
    tcase_add_test (tc, test_infiniband_per_port_sl2vl);
    tcase_add_test (tc, test_infiniband_shared_pool);
    tcase_add_test (tc, test_infiniband_adaptive_routing_beats_static_in_the_tail);
    tcase_add_test (tc, test_infiniband_railopt_shift_permutation_at_line_rate);
    tcase_add_test (tc, test_infiniband_railopt_random_permutation_static_vs_adaptive);
    tcase_add_test (tc, test_infiniband_lazy_credits_follow_the_event_order);
    tcase_add_test (tc, test_infiniband_fcp_ring_grows_in_arrival_order);
    suite_add_tcase (s, tc);
    return s;
}
