/* tests/check_collective_switch.c - collectives reduced in the switches: NVLS (NVLink SHARP in
 * the NVSwitch) and CollNetDirect (InfiniBand SHARP in the fabric switches), run through the
 * network.
 *
 * Checks, each bound computed here from link rates, header bytes and byte counts:
 *  - NVLS all-reduce on one DGX H100: every GPU's NVLink carries S (n + 1) / n each way (the
 *    switch reads each GPU's shard copies and multicasts the heads' sums), so busbw = 2 (n - 1)
 *    / (n + 1) x NVLink x efficiency x payload share, within 3 %; and the bytes on each GPU's
 *    two link directions are that figure, within 1 %.  reduce_scatter and all_gather: S each
 *    way on the busier direction, busbw = (n - 1) / n x the same rate, within 3 %.
 *  - CollNetDirect all-reduce on 4 hosts on one InfiniBand switch with SHARP: each host sends
 *    S and receives S, so busbw = 2 (n - 1) / n x the link's payload rate, within 3 %; the
 *    same on two leaves (the tree's root on a spine); and on two DGX H100 the slower of
 *    NVLink (2 (g - 1) / g S per GPU) and the NIC (S / g), within 3 %.
 *  - NCCL's choice: on one DGX H100 a large all-reduce runs NVLS (NCCL 2.20 prefers its
 *    bandwidth and 23 us over the ring's; LL's ring below it at 16 KiB); on a DGX A100 never.
 *  - NVLSTree all-reduce on two DGX H100: NVLink carries 9/8 S each way, each NIC S / 8, so
 *    busbw = 2 (n - 1) / n x S over the slower, within 5 %; each NIC sends S / 8 (and ACKs).
 *  - refusals, one line naming [workload.c] algo (or [infiniband]): NVLS on a DGX A100, with
 *    [server] nvls = false, on plain hosts, across two servers, with LL; CollNetDirect
 *    without [infiniband] sharp; SHARP on RoCE; NVLSTree on DGX A100s, with nvls = false, and
 *    in one server (NCCL runs it across nodes only).
 * Latencies are pinned to 0 where a bound is checked (the base latency adds 23 us or 31 us
 * once, which tests/check_nccl_tune.c's table checks cover).
 * Leaves unchecked: per-packet reduction timing inside a switch (a switch forwards a slice
 * once all its inputs have arrived).
 */
#include "config.h"
#include <check.h>
#include <string.h>

#include "cli/session.h"
#include "models/port.h"
#include "tests/harness.h"
#include "workloads/collective.h"

#define IB_SHARE (4096.0 / (4096 + 26)) /* InfiniBand: 26 B of headers per 4096 B payload */
#define PIN "proto = simple\nstep_latency = 0us\nbase_latency = 0us\niters = 1\nwarmup_iters = 0\n"

static char *
dgx (guint servers, const char *extra)
{
    g_autofree char *dgx4 = harness_srcpath ("experiments/dgx4.ini");
    return g_strdup_printf ("[experiment]\ninclude = %s\n[topology]\nservers = %u\n"
                            "[fabric]\nkind = infiniband\n%s",
                            dgx4, servers, extra);
}

static void
run (WeftSession *s, const char *text)
{
    harness_prepare (s, text);
    ck_assert_int_eq (weft_sim_run (s->sim), WEFT_SIM_DONE);
}

static WeftTraceCollective
last_row (const WeftSession *s)
{
    WeftTraceCollective row;
    weft_network_collective_row (s->net, s->net->tp.n_colls - 1, &row);
    return row;
}

START_TEST (test_collective_switch_nvls_one_dgx_bound)
{
    const double n = 8, S = 32.0 * 1024 * 1024;
    const double rate = 450e9 * 0.8 * IB_SHARE; /* NVLink x efficiency x payload share */
    g_autofree char *text = dgx (1, "[workload.c]\nkind = nccl-test\nop = all_reduce\n"
                                    "minbytes = 32MiB\nmaxbytes = 32MiB\nalgo = nvls\n" PIN);
    WeftSession s;
    run (&s, text);
    WeftTraceCollective row = last_row (&s);
    ck_assert_str_eq (row.algo, "NVLS");
    double bound = 2 * (n - 1) / (n + 1) * rate / 1e9;
    ck_assert_double_eq_tol (row.busbw_gbs, bound, bound * 0.03);
    /* Every GPU's NVLink, both ways: S (n + 1) / n of data, in 4096-byte packets of 4122, in
     * each of the two runs (out of place, in place). */
    double wire = 2 * S * (n + 1) / n / IB_SHARE;
    guint links = 0;
    for (guint i = 0; i < s.net->ports->len; i++) {
        const WeftPort *p = s.net->ports->pdata[i];
        WeftNodeKind a = weft_graph_node (s.graph, p->owner->node)->kind;
        WeftNodeKind b = weft_graph_node (s.graph, p->link.peer->node)->kind;
        if (!((a == WEFT_NODE_GPU && b == WEFT_NODE_NVSWITCH) ||
              (a == WEFT_NODE_NVSWITCH && b == WEFT_NODE_GPU)))
            continue;
        links++;
        /* tx counts the ACKs going the other way too: 30 B per packet at most */
        ck_assert_double_ge ((double) p->tx_bytes, wire * 0.999);
        ck_assert_double_le ((double) p->tx_bytes, wire * 1.01);
    }
    ck_assert_uint_eq (links, 16);
    weft_session_clear (&s);
}
END_TEST

START_TEST (test_collective_switch_nvls_scatter_gather_bound)
{
    /* reduce_scatter: each GPU sends S (its input) to the switch and receives S / n; all_gather:
     * sends S / n (its share) and receives S.  The busier direction carries S. */
    const char *ops[] = { "reduce_scatter", "all_gather" };
    const double n = 8, rate = 450e9 * 0.8 * IB_SHARE;
    for (guint i = 0; i < G_N_ELEMENTS (ops); i++) {
        g_autofree char *wl =
            g_strdup_printf ("[workload.c]\nkind = nccl-test\nop = %s\n"
                             "minbytes = 32MiB\nmaxbytes = 32MiB\nalgo = nvls\n" PIN,
                             ops[i]);
        g_autofree char *text = dgx (1, wl);
        WeftSession s;
        run (&s, text);
        WeftTraceCollective row = last_row (&s);
        ck_assert_str_eq (row.algo, "NVLS");
        double bound = (n - 1) / n * rate / 1e9;
        ck_assert_double_eq_tol (row.busbw_gbs, bound, bound * 0.03);
        weft_session_clear (&s);
    }
}
END_TEST

static const char *sharp_wl = "[infiniband]\nsharp = true\n[workload.c]\nkind = nccl-test\n"
                              "op = all_reduce\nminbytes = 16MiB\nmaxbytes = 16MiB\n"
                              "algo = collnetdirect\nchunk = 64KiB\n" PIN;

START_TEST (test_collective_switch_sharp_hosts_bound)
{
    /* Each host sends its buffer up and receives the sum: S each way, at the link's payload
     * rate; on one switch, and on two leaves whose partial sums meet in a spine. */
    const double n = 4, rate = 100e9 / 8 * IB_SHARE;
    const char *topo[] = { "generator = single_switch\nhosts = 4\n",
                           "generator = leafspine\nleaves = 2\nspines = 2\nhosts_per_leaf = 2\n" };
    for (guint i = 0; i < G_N_ELEMENTS (topo); i++) {
        g_autofree char *text =
            g_strdup_printf ("[topology]\n%slink_rate = 100Gbps\n[fabric]\nkind = infiniband\n%s",
                             topo[i], sharp_wl);
        WeftSession s;
        run (&s, text);
        WeftTraceCollective row = last_row (&s);
        ck_assert_str_eq (row.algo, "CollNetDirect");
        double bound = 2 * (n - 1) / n * rate / 1e9;
        ck_assert_double_eq_tol (row.busbw_gbs, bound, bound * 0.03);
        /* nothing crosses the fabric but the hosts' contributions and the sums */
        guint32 sw_flows = 0;
        for (guint f = 0; f < s.net->tp.n_flows; f++)
            sw_flows +=
                weft_graph_node (s.graph, s.net->tp.flows[f].spec.dst)->kind == WEFT_NODE_SWITCH;
        ck_assert_uint_gt (sw_flows, 0);
        weft_session_clear (&s);
    }
}
END_TEST

START_TEST (test_collective_switch_sharp_two_dgx_bound)
{
    /* g = 8 GPUs per server, N = 2 servers: per GPU 2 (g - 1) / g S over NVLink (the direct
     * reduce-scatter and all-gather) and S / g through its NIC, each way. */
    const double g = 8, ranks = 16, S = 16.0 * 1024 * 1024;
    const double nvlink = 450e9 * 0.8 * IB_SHARE, nic = 400e9 / 8 * IB_SHARE;
    double t = MAX (2 * (g - 1) / g * S / nvlink, S / g / nic);
    double bound = S / t * 2 * (ranks - 1) / ranks / 1e9;
    g_autofree char *text = dgx (2, sharp_wl);
    WeftSession s;
    run (&s, text);
    WeftTraceCollective row = last_row (&s);
    ck_assert_str_eq (row.algo, "CollNetDirect");
    ck_assert_double_eq_tol (row.busbw_gbs, bound, bound * 0.03);
    weft_session_clear (&s);
}
END_TEST

START_TEST (test_collective_switch_nccl_picks_nvls)
{
    const char *wl = "[workload.c]\nkind = nccl-test\nop = all_reduce\nminbytes = 16KiB\n"
                     "maxbytes = 16MiB\nstepfactor = 1024\niters = 1\nwarmup_iters = 0\n";
    g_autofree char *h100 = dgx (1, wl);
    WeftSession s;
    run (&s, h100);
    WeftTraceCollective small, large;
    weft_network_collective_row (s.net, 0, &small);
    large = last_row (&s);
    ck_assert_uint_eq (large.bytes, 16 * 1024 * 1024);
    ck_assert_str_eq (large.algo, "NVLS");
    ck_assert_str_ne (small.algo, "NVLS"); /* the ring's LL latency wins at 16 KiB */
    weft_session_clear (&s);
    g_autofree char *extra = g_strconcat ("[server]\npreset = dgx-a100\n", wl, NULL);
    g_autofree char *a100 = dgx (1, extra);
    run (&s, a100);
    for (guint c = 0; c < s.net->tp.n_colls; c++) {
        WeftTraceCollective row;
        weft_network_collective_row (s.net, c, &row);
        ck_assert_str_ne (row.algo, "NVLS");
    }
    weft_session_clear (&s);
}
END_TEST

/* NVLSTree on two DGX H100, 64 MB, 32 KiB slices: per channel part P, each GPU sends every
 * head's shard to the switch (P) and, as head h, stores the result (P / 8); it receives its sum
 * (P / 8) and every multicast (P): NVLink carries 9/8 S each way.  Head h's NIC carries its
 * shard once each way (up in one tree, down in the other, per slice): S / 8 at 50 GB/s x
 * payload share, which NVLink (357.7 GB/s / 1.125 = 318 GB/s) undercuts.  So busbw = 2 x 15/16 x
 * 318 = 596 GB/s; within 5 %, the tree's and the switch's stages filling and draining around
 * 32 slices per head. */
START_TEST (test_collective_switch_nvls_tree_two_dgx_bound)
{
    g_autofree char *text =
        dgx (2, "[workload.c]\nkind = nccl-test\nop = all_reduce\nminbytes = 64MB\n"
                "maxbytes = 64MB\nalgo = nvlstree\nchunk = 32KiB\n" PIN);
    WeftSession s;
    run (&s, text);
    WeftTraceCollective r = last_row (&s);
    ck_assert_str_eq (r.algo, "NVLSTree");
    double S = 64e6, g = 8;
    double nvl = 450e9 * 0.8 * IB_SHARE, nic = 400e9 / 8 * IB_SHARE;
    double t = MAX ((g + 1) / g * S / nvl, S / g / nic);
    double bound = 2.0 * 15 / 16 * S / t / 1e9;
    ck_assert_msg (r.busbw_gbs <= bound * 1.01 && r.busbw_gbs >= bound * 0.95,
                   "busbw %.1f GB/s, bound %.1f", r.busbw_gbs, bound);
    /* Nothing but the heads' shards crosses the fabric: S / 8 per NIC and direction and
     * collective. */
    for (guint i = 0; i < s.net->ports->len; i++) {
        const WeftPort *p = s.net->ports->pdata[i];
        const WeftNode *from = weft_graph_node (s.graph, p->owner->node);
        if (from->kind != WEFT_NODE_NIC)
            continue;
        const WeftNode *to = weft_graph_node (s.graph, p->link.peer->node);
        if (to->kind != WEFT_NODE_SWITCH || to->server >= 0)
            continue;
        /* two collectives (out of place and in place); within 1 % for the ACKs */
        ck_assert_double_eq_tol ((double) p->tx_bytes, 2 * S / g / IB_SHARE, 2 * S / g * 0.01);
    }
    weft_session_clear (&s);
}
END_TEST

START_TEST (test_collective_switch_refusals)
{
    const char *ar = "[workload.c]\nkind = nccl-test\nop = all_reduce\nminbytes = 1MiB\n"
                     "maxbytes = 1MiB\n";
    g_autofree char *a100 =
        g_strconcat ("[server]\npreset = dgx-a100\n", ar, "algo = nvls\n", NULL);
    g_autofree char *off = g_strconcat ("[server]\nnvls = false\n", ar, "algo = nvls\n", NULL);
    g_autofree char *ll = g_strconcat (ar, "algo = nvls\nproto = ll\n", NULL);
    g_autofree char *two = g_strconcat (ar, "algo = nvls\n", NULL);
    g_autofree char *nosharp = g_strconcat (ar, "algo = collnetdirect\n", NULL);
    g_autofree char *nvt_a100 =
        g_strconcat ("[server]\npreset = dgx-a100\n", ar, "algo = nvlstree\n", NULL);
    g_autofree char *nvt_off =
        g_strconcat ("[server]\nnvls = false\n", ar, "algo = nvlstree\n", NULL);
    g_autofree char *nvt = g_strconcat (ar, "algo = nvlstree\n", NULL);
    struct {
        char *text;
        const char *named;
    } cases[] = {
        { dgx (1, a100), "[workload.c] algo:" },
        { dgx (1, off), "[workload.c] algo:" },
        { dgx (1, ll), "[workload.c] algo:" },
        { dgx (2, two), "[workload.c] algo:" },
        { dgx (2, nosharp), "[workload.c] algo:" },
        { dgx (2, nvt_a100), "[workload.c] algo:" },
        { dgx (2, nvt_off), "[workload.c] algo:" },
        { dgx (1, nvt), "[workload.c] algo:" },
        { g_strconcat ("[topology]\ngenerator = single_switch\nhosts = 4\n[fabric]\n"
                       "kind = infiniband\n",
                       ar, "algo = nvls\n", NULL),
          "[workload.c] algo:" },
        /* [infiniband] on RoCE is another fabric's group, unused, but its keys are checked */
        { g_strconcat ("[topology]\ngenerator = single_switch\nhosts = 4\n[fabric]\nkind = roce\n"
                       "[infiniband]\nsharp = yes\n",
                       ar, NULL),
          "[infiniband] sharp" },
    };
    for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
        WeftSession s;
        g_autoptr (GError) error = NULL;
        ck_assert_msg (!harness_try_prepare (&s, cases[i].text, &error), "case %u accepted", i);
        ck_assert_msg (error->domain == WEFT_CONFIG_ERROR, "case %u: %s", i, error->message);
        ck_assert_msg (strstr (error->message, cases[i].named) != NULL, "case %u: %s", i,
                       error->message);
        ck_assert_ptr_null (strchr (error->message, '\n'));
        weft_session_clear (&s);
        g_free (cases[i].text);
    }
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("collective_switch");
    TCase *tc = tcase_create ("in_switch");
    tcase_add_checked_fixture (tc, harness_tmp_setup, harness_tmp_teardown);
    tcase_set_timeout (tc, 300);
    tcase_add_test (tc, test_collective_switch_nvls_one_dgx_bound);
    tcase_add_test (tc, test_collective_switch_nvls_scatter_gather_bound);
    tcase_add_test (tc, test_collective_switch_sharp_hosts_bound);
    tcase_add_test (tc, test_collective_switch_sharp_two_dgx_bound);
    tcase_add_test (tc, test_collective_switch_nccl_picks_nvls);
    tcase_add_test (tc, test_collective_switch_nvls_tree_two_dgx_bound);
    tcase_add_test (tc, test_collective_switch_refusals);
    suite_add_tcase (s, tc);
    return s;
}
