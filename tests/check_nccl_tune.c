/* tests/check_nccl_tune.c - NCCL's tuning model (workloads/nccl_tune.c).
 *
 * Checks:
 *  - the latency/bandwidth table of one communicator (32 ranks on 4 NVLink nodes, ring 8 x 45
 *    GB/s, tree 8 x 48 GB/s) against entries worked out by hand below from NCCL 2.20.3's
 *    published constants (src/graph/tuning.cc), for every algorithm and protocol of
 *    all_reduce and for all_gather and broadcast; the tree correction and the ring plateau in
 *    the predicted time;
 *  - the latency term against a published NCCL tuning log: on 3 nodes of 8 H100
 *    (NVIDIA/nccl issue #1453, NCCL_DEBUG_SUBSYS=TUNING) NCCL predicts 25.200924 us for an
 *    8-byte all_reduce (tree, LL);
 *  - NCCL_ALGO / NCCL_PROTO-style lists: names, '^', auto, errors by domain and code; LL128
 *    on by default only on NVLink nodes with GPUDirect, on whenever listed;
 *  - the communicator derived from generated DGX H100 fabrics (channels and bandwidth per
 *    channel worked out by hand from the link rates) and from plain hosts;
 *  - the channels NCCL keeps for small sizes, and each protocol's chunk, wire lines and
 *    latencies (tree LL128's smaller chunks worked out by hand);
 *  - the choice of algorithm and protocol against published NCCL tuning logs of the seed
 *    cluster's class (multi-node 8 x H100 with 8 x 400G InfiniBand), not against a
 *    re-implementation: see test_nccl_tune_choice_matches_published_logs.
 * Leaves unchecked: how the chosen protocol runs on the network (tests/check_collective_proto.c).
 */
#include "config.h"
#include <check.h>
#include <math.h>
#include <string.h>

#include "sim/errors.h"
#include "tests/harness.h"
#include "workloads/nccl_tune.h"

/* The seed cluster's communicator, set by hand: 4 DGX H100, 32 GPUs, rings of 8 channels at
 * 45 GB/s (8 x 45 = 360, the NVLink figure), trees of 8 at 48 GB/s (weft_nccl_comm_from_graph
 * derives the same; test_nccl_tune_comm_from_dgx). */
static WeftNcclComm
seed_comm (guint nodes)
{
    return (WeftNcclComm){ .n_ranks = 8 * nodes,
                           .n_nodes = nodes,
                           .nvlink = TRUE,
                           .ring_channels = 8,
                           .ring_bw_gbs = 45,
                           .tree_channels = 8,
                           .tree_bw_gbs = 48,
                           .comm_channels = 16,
                           .gpudirect = TRUE };
}

static void
tune (WeftNcclTune *t, const WeftNcclComm *comm)
{
    WeftNcclEnable en;
    weft_nccl_enable_default (&en);
    weft_nccl_tune_init (t, comm, &en);
}

#define EPS 1e-9

START_TEST (test_nccl_tune_table_by_hand)
{
    WeftNcclComm c = seed_comm (4);
    WeftNcclTune t;
    tune (&t, &c);
    const guint AR = WEFT_COLL_ALL_REDUCE, T = WEFT_COLL_TREE, R = WEFT_COLL_RING;
    /* Tree, all_reduce: latency = base + 2 x ((ppn - 1) x NVLink hop + log2(nodes) x net hop);
     * bandwidth: min(channels x bw x 0.92, channels x 36.0 (Hopper, > 2 nodes)) = min(353.28,
     * 288) = 288, then per protocol, then x 0.5 (bus to algorithm bandwidth). */
    ck_assert_double_eq_tol (t.lat_us[AR][T][WEFT_NCCL_LL], 6.8 + 2 * (7 * 0.6 + 2 * 5.0), EPS);
    ck_assert_double_eq_tol (t.bw_gbs[AR][T][WEFT_NCCL_LL], MIN (288 / 3.8, 20.4) * 0.5, EPS);
    ck_assert_double_eq_tol (t.lat_us[AR][T][WEFT_NCCL_LL128], 14 + 2 * (7 * 1.25 + 2 * 8.5), EPS);
    ck_assert_double_eq_tol (t.bw_gbs[AR][T][WEFT_NCCL_LL128],
                             MIN (288 * 120.0 / 128, 8 * 29.0) * 0.5, EPS);
    ck_assert_double_eq_tol (t.lat_us[AR][T][WEFT_NCCL_SIMPLE], 0 + 2 * (7 * 28 + 2 * 28.0), EPS);
    ck_assert_double_eq_tol (t.bw_gbs[AR][T][WEFT_NCCL_SIMPLE], 288 * 0.5, EPS);
    /* Ring, all_reduce: 62 steps, 8 of them across nodes (2 x nodes); a step inside a node
     * costs at least the proxy's network overhead (1 us, 3 us for Simple); bandwidth
     * 8 x 45 = 360 refined per protocol, times nRanks / steps = 32 / 62. */
    ck_assert_double_eq_tol (t.lat_us[AR][R][WEFT_NCCL_LL], 6.6 + 54 * 1.0 + 8 * 2.7, EPS);
    ck_assert_double_eq_tol (t.bw_gbs[AR][R][WEFT_NCCL_LL], MIN (20.4, 360 / 4.0) * 32 / 62, EPS);
    ck_assert_double_eq_tol (t.lat_us[AR][R][WEFT_NCCL_LL128], 14 + 54 * 1.9 + 8 * 4.0, EPS);
    ck_assert_double_eq_tol (t.bw_gbs[AR][R][WEFT_NCCL_LL128], MIN (360 * 0.92, 8 * 36.7) * 32 / 62,
                             EPS);
    ck_assert_double_eq_tol (t.lat_us[AR][R][WEFT_NCCL_SIMPLE], 8.4 + 54 * 3.4 + 8 * 14.0, EPS);
    ck_assert_double_eq_tol (t.bw_gbs[AR][R][WEFT_NCCL_SIMPLE], 360.0 * 32 / 62, EPS);
    /* all_gather: ring only, 31 steps of which 3 across nodes. */
    const guint AG = WEFT_COLL_ALL_GATHER;
    ck_assert_double_eq_tol (t.lat_us[AG][R][WEFT_NCCL_SIMPLE], 8.4 + 28 * 3.4 + 3 * 14.0, EPS);
    ck_assert_double_eq_tol (t.bw_gbs[AG][R][WEFT_NCCL_SIMPLE], 360.0 * 32 / 31, EPS);
    ck_assert_double_eq_tol (t.bw_gbs[AG][T][WEFT_NCCL_SIMPLE], 0, EPS);
    /* broadcast: 32 steps, each at the network hop's latency (the rings of weft's channels
     * differ: NCCL's sameChannels = 0); LL at its cap. */
    const guint BC = WEFT_COLL_BROADCAST;
    ck_assert_double_eq_tol (t.lat_us[BC][R][WEFT_NCCL_LL], 6.6 + 32 * 2.7, EPS);
    ck_assert_double_eq_tol (t.bw_gbs[BC][R][WEFT_NCCL_LL], 20.4, EPS);

    /* Predicted times: latency + bytes / (1000 x bandwidth) us.  8 B on the tree: correction
     * 1.0; 64 KiB: log2(64 KiB / 64) = 10, LL correction 0.6.  1 GiB on the ring, Simple: the
     * plateau multiplies the latency by 1.4 (1 GiB / (16 channels x 32 ranks) >= 64). */
    double bw = MIN (288 / 3.8, 20.4) * 0.5;
    ck_assert_double_eq_tol (weft_nccl_tune_time_us (&t, AR, 8, T, WEFT_NCCL_LL),
                             35.2 + 8 / (1000 * bw), 1e-6);
    ck_assert_double_eq_tol (weft_nccl_tune_time_us (&t, AR, 65536, T, WEFT_NCCL_LL),
                             35.2 + 65536 / (1000 * bw * 0.6), 1e-6);
    double big = 1073741824.0;
    ck_assert_double_eq_tol (weft_nccl_tune_time_us (&t, AR, (guint64) big, R, WEFT_NCCL_SIMPLE),
                             304.0 * 1.4 + big / (1000 * 360.0 * 32 / 62), 1e-3);
    /* Point-to-point ops are not in the table. */
    ck_assert (weft_nccl_tune_time_us (&t, WEFT_COLL_ALL_TO_ALL, 8, R, WEFT_NCCL_SIMPLE) < 0);
}
END_TEST

START_TEST (test_nccl_tune_in_switch_by_hand)
{
    /* One node of 8 H100 (totalBw 360): NVLS has 8 channels at the fastest intra-node speed
     * that fits 9 times into 360, 40 GB/s; bandwidth 8 x 40 x 5/6, latency 23 us, Simple only,
     * for all_reduce, reduce_scatter and all_gather.  CollNetDirect on the seed cluster (ring
     * graph 8 x 45, ppn 8): 8 x 45 / 1 x 0.85 x 0.5, latency 2 x (3.7 + 7 x 0.4) + 31. */
    WeftNcclComm one = seed_comm (1);
    one.nvls_channels = 8;
    one.nvls_bw_gbs = 40;
    one.nvls = TRUE;
    WeftNcclTune t;
    tune (&t, &one);
    const guint S = WEFT_NCCL_SIMPLE, N = WEFT_COLL_NVLS, C = WEFT_COLL_COLLNET_DIRECT;
    for (guint op = 0; op < WEFT_COLL_N_OPS; op++) {
        gboolean runs = op == WEFT_COLL_ALL_REDUCE || op == WEFT_COLL_REDUCE_SCATTER ||
                        op == WEFT_COLL_ALL_GATHER;
        ck_assert_double_eq_tol (t.bw_gbs[op][N][S], runs ? 8 * 40 * 5.0 / 6 : 0, EPS);
        ck_assert_double_eq (t.bw_gbs[op][N][WEFT_NCCL_LL], 0);
        ck_assert_double_eq (t.bw_gbs[op][C][S], 0); /* no SHARP */
    }
    ck_assert_double_eq_tol (t.lat_us[WEFT_COLL_ALL_REDUCE][N][S], 23, EPS);
    WeftCollAlgo a;
    WeftNcclProto p;
    ck_assert (weft_nccl_tune_pick (&t, WEFT_COLL_ALL_REDUCE, 64 << 20, &a, &p));
    ck_assert_int_eq (a, N);
    ck_assert_int_eq (p, S);
    /* Across nodes NCCL 2.20 runs NVLS only with CollNet: not offered. */
    WeftNcclComm four = seed_comm (4);
    four.nvls = four.collnet = TRUE;
    four.nvls_channels = 8;
    four.nvls_bw_gbs = 40;
    tune (&t, &four);
    ck_assert_double_eq (t.bw_gbs[WEFT_COLL_ALL_REDUCE][N][S], 0);
    ck_assert_double_eq_tol (t.bw_gbs[WEFT_COLL_ALL_REDUCE][C][S], 8 * 45 * 0.85 * 0.5, EPS);
    ck_assert_double_eq_tol (t.lat_us[WEFT_COLL_ALL_REDUCE][C][S], 2 * (3.7 + 7 * 0.4) + 31, EPS);
    ck_assert_double_eq (t.bw_gbs[WEFT_COLL_ALL_GATHER][C][S], 0);
}
END_TEST

START_TEST (test_nccl_tune_nvls_tree_by_hand)
{
    /* NVLSTree (NCCL 2.20.3 tuning.cc): all_reduce only, Simple only, across nodes only;
     * bandwidth channels x min(bwIntra, bwInter, halved beyond 2 nodes) x 5/6, latency 0 + 23
     * (NVLink) + 2 log2(nodes) x 14 (network).  Seed cluster: 8 heads at 40 GB/s inside the
     * node, 48 GB/s per NIC. */
    const guint S = WEFT_NCCL_SIMPLE, V = WEFT_COLL_NVLS_TREE, AR = WEFT_COLL_ALL_REDUCE;
    const guint nodes[] = { 1, 2, 4 };
    const double bw[] = { 0, 8 * 40 * 5.0 / 6, 8 * 24 * 5.0 / 6 };
    const double lat[] = { 0, 23 + 2 * 14, 23 + 2 * 2 * 14 };
    for (guint i = 0; i < G_N_ELEMENTS (nodes); i++) {
        WeftNcclComm c = seed_comm (nodes[i]);
        c.nvls_tree = TRUE;
        c.nvls_channels = c.nvls_tree_channels = 8;
        c.nvls_bw_gbs = 40;
        c.nvls_inter_bw_gbs = 48;
        WeftNcclTune t;
        tune (&t, &c);
        ck_assert_double_eq_tol (t.bw_gbs[AR][V][S], bw[i], EPS);
        if (nodes[i] > 1)
            ck_assert_double_eq_tol (t.lat_us[AR][V][S], lat[i], EPS);
        ck_assert_double_eq (t.bw_gbs[AR][V][WEFT_NCCL_LL128], 0);
        ck_assert_double_eq (t.bw_gbs[WEFT_COLL_ALL_GATHER][V][S], 0);
        c.nvls_tree = FALSE; /* the ranks cannot run it: not offered */
        tune (&t, &c);
        ck_assert_double_eq (t.bw_gbs[AR][V][S], 0);
    }
    ck_assert_str_eq (weft_nccl_algo_name (V), "NVLSTree");
}
END_TEST

START_TEST (test_nccl_tune_latency_matches_published_log)
{
    /* NVIDIA/nccl issue #1453: 3 nodes x 8 H100, NCCL_DEBUG_SUBSYS=TUNING prints
     * "8 Bytes -> Algo 0 proto 0 time 25.200924" (tree, LL).  The latency term is
     * 6.8 + 2 x (7 x 0.6 + log2(3) = 1 x 5.0) = 25.2 us whatever the graph's bandwidth; the
     * remaining 0.0009 us is 8 bytes at that cluster's ~9 GB/s. */
    WeftNcclComm c = seed_comm (3);
    WeftNcclTune t;
    tune (&t, &c);
    double got = weft_nccl_tune_time_us (&t, WEFT_COLL_ALL_REDUCE, 8, WEFT_COLL_TREE, WEFT_NCCL_LL);
    ck_assert_double_eq_tol (got, 25.200924, 0.001);
    WeftCollAlgo a;
    WeftNcclProto p;
    ck_assert (weft_nccl_tune_pick (&t, WEFT_COLL_ALL_REDUCE, 8, &a, &p));
    ck_assert_int_eq (a, WEFT_COLL_TREE);
    ck_assert_int_eq (p, WEFT_NCCL_LL);
}
END_TEST

START_TEST (test_nccl_tune_lists)
{
    WeftNcclEnable en;
    weft_nccl_enable_default (&en);
    ck_assert (weft_nccl_parse_protos ("LL,ll128", &en, NULL));
    ck_assert_uint_eq (en.proto[WEFT_NCCL_LL], 1);
    ck_assert_uint_eq (en.proto[WEFT_NCCL_LL128], 1);
    ck_assert_uint_eq (en.proto[WEFT_NCCL_SIMPLE], 0);
    ck_assert (weft_nccl_parse_protos ("^ll", &en, NULL));
    ck_assert_uint_eq (en.proto[WEFT_NCCL_LL], 0);
    ck_assert_uint_eq (en.proto[WEFT_NCCL_LL128], 1); /* forced on, as NCCL_PROTO=^LL does */
    ck_assert_uint_eq (en.proto[WEFT_NCCL_SIMPLE], 1);
    ck_assert (weft_nccl_parse_protos ("auto", &en, NULL));
    ck_assert_uint_eq (en.proto[WEFT_NCCL_LL128], 2);
    ck_assert (weft_nccl_parse_protos (" Simple ", &en, NULL));
    ck_assert_uint_eq (en.proto[WEFT_NCCL_SIMPLE], 1);
    ck_assert_uint_eq (en.proto[WEFT_NCCL_LL], 0);

    ck_assert (weft_nccl_parse_algos ("ring", &en, NULL));
    ck_assert_uint_eq (en.algo[WEFT_COLL_RING], 1);
    ck_assert_uint_eq (en.algo[WEFT_COLL_TREE], 0);
    ck_assert (weft_nccl_parse_algos ("^NVLS,collnetdirect", &en, NULL));
    ck_assert_uint_eq (en.algo[WEFT_COLL_RING], 1);
    ck_assert_uint_eq (en.algo[WEFT_COLL_TREE], 1);
    ck_assert (weft_nccl_parse_algos ("Tree,Ring", &en, NULL));

    const char *bad_protos[] = { "fast", "^ll,ll128,simple", "ll;simple" };
    for (guint i = 0; i < G_N_ELEMENTS (bad_protos); i++) {
        GError *e = NULL;
        weft_nccl_enable_default (&en);
        ck_assert (!weft_nccl_parse_protos (bad_protos[i], &en, &e));
        ck_assert (g_error_matches (e, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_VALUE));
        ck_assert_uint_eq (en.proto[WEFT_NCCL_LL128], 2); /* unchanged */
        g_error_free (e);
    }
    const char *bad_algos[] = { "collnetchain", "ring,collnetchain",
                                "^ring,tree,nvls,collnetdirect,nvlstree", "rings" };
    for (guint i = 0; i < G_N_ELEMENTS (bad_algos); i++) {
        GError *e = NULL;
        ck_assert (!weft_nccl_parse_algos (bad_algos[i], &en, &e));
        ck_assert (g_error_matches (e, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_VALUE));
        g_error_free (e);
    }
    ck_assert_str_eq (weft_nccl_algo_name (WEFT_COLL_TREE), "Tree");
    ck_assert_str_eq (weft_nccl_proto_name (WEFT_NCCL_LL128), "LL128");
}
END_TEST

START_TEST (test_nccl_tune_ll128_default)
{
    /* NCCL enables LL128 by default on NVLink nodes reaching their NICs directly; on PCIe-only
     * nodes, or with GPUDirect off across nodes, only when listed. */
    WeftNcclComm c = seed_comm (2);
    WeftNcclEnable en;
    WeftNcclTune t;
    const guint AR = WEFT_COLL_ALL_REDUCE;
    weft_nccl_enable_default (&en);
    weft_nccl_tune_init (&t, &c, &en);
    ck_assert_double_gt (t.bw_gbs[AR][WEFT_COLL_RING][WEFT_NCCL_LL128], 0);
    c.nvlink = FALSE;
    weft_nccl_tune_init (&t, &c, &en);
    ck_assert_double_eq (t.bw_gbs[AR][WEFT_COLL_RING][WEFT_NCCL_LL128], 0);
    ck_assert_double_gt (t.bw_gbs[AR][WEFT_COLL_RING][WEFT_NCCL_LL], 0);
    ck_assert (weft_nccl_parse_protos ("ll128", &en, NULL));
    weft_nccl_tune_init (&t, &c, &en);
    ck_assert_double_gt (t.bw_gbs[AR][WEFT_COLL_RING][WEFT_NCCL_LL128], 0);
    ck_assert_double_eq (t.bw_gbs[AR][WEFT_COLL_RING][WEFT_NCCL_SIMPLE], 0);
    c = seed_comm (2);
    c.gpudirect = FALSE;
    weft_nccl_enable_default (&en);
    weft_nccl_tune_init (&t, &c, &en);
    ck_assert_double_eq (t.bw_gbs[AR][WEFT_COLL_TREE][WEFT_NCCL_LL128], 0);
    /* algo = ring: no tree anywhere; all_gather has no tree in any case. */
    ck_assert (weft_nccl_parse_algos ("ring", &en, NULL));
    weft_nccl_tune_init (&t, &c, &en);
    WeftCollAlgo a;
    WeftNcclProto p;
    ck_assert (weft_nccl_tune_pick (&t, AR, 8, &a, &p));
    ck_assert_int_eq (a, WEFT_COLL_RING);
    ck_assert (weft_nccl_parse_algos ("tree", &en, NULL));
    weft_nccl_tune_init (&t, &c, &en);
    ck_assert (!weft_nccl_tune_pick (&t, WEFT_COLL_ALL_GATHER, 8, &a, &p));
    ck_assert (weft_nccl_tune_pick (&t, WEFT_COLL_ALL_TO_ALL, 8, &a, &p));
    ck_assert_int_eq (p, WEFT_NCCL_SIMPLE);
}
END_TEST

/* The communicator of every GPU (or host) of the fabric @topology describes. */
static void
comm_of (const char *topology, guint channels, WeftNcclComm *c)
{
    g_autofree char *text = g_strdup_printf (
        "%s[workload.w]\nkind = flows\nflows = %s\n", topology,
        strstr (topology, "dgx4") ? "dgx-1/gpu0>dgx-1/gpu1 1KiB" : "host0>host1 1KiB");
    WeftSession s;
    harness_prepare (&s, text);
    GArray *ranks = g_array_new (FALSE, FALSE, sizeof (guint32));
    for (guint32 id = 0; id < weft_graph_n_nodes (s.graph); id++) {
        WeftNodeKind k = weft_graph_node (s.graph, id)->kind;
        if (k == WEFT_NODE_GPU || k == WEFT_NODE_HOST)
            g_array_append_val (ranks, id);
    }
    weft_nccl_comm_from_graph (c, s.graph, (const guint32 *) ranks->data, ranks->len, 0.8,
                               channels);
    g_array_unref (ranks);
    weft_session_clear (&s);
}

static char *
dgx (guint servers, const char *extra)
{
    g_autofree char *dgx4 = harness_srcpath ("experiments/dgx4.ini");
    return g_strdup_printf ("[experiment]\ninclude = %s\n[topology]\nservers = %u\n%s", dgx4,
                            servers, extra);
}

START_TEST (test_nccl_tune_comm_from_dgx)
{
    /* 4 DGX H100: NVLink 450 GB/s x 0.8 = 360 GB/s per GPU for all channels, NICs 400 Gb/s =
     * 50 GB/s (8 per server), PCIe 50 GB/s.  Rings: at 48 GB/s only 7 channels fit 360; at 45
     * GB/s 8 do (360) - the most channels x speed, and no speed below fits more; 45 < 50 with
     * more than 4 channels: not duplicated.  Trees may use 8/7 of the GPU (411 GB/s): 8 x 48.
     * One server: speeds inside a node, 6 x 60 = 360, duplicated to 12 x 30. */
    g_autofree char *four = dgx (4, "");
    WeftNcclComm c;
    comm_of (four, 16, &c);
    ck_assert_uint_eq (c.n_ranks, 32);
    ck_assert_uint_eq (c.n_nodes, 4);
    ck_assert (c.nvlink && c.gpudirect);
    ck_assert_uint_eq (c.ring_channels, 8);
    ck_assert_double_eq_tol (c.ring_bw_gbs, 45, EPS);
    ck_assert_uint_eq (c.tree_channels, 8);
    ck_assert_double_eq_tol (c.tree_bw_gbs, 48, EPS);
    ck_assert_uint_eq (c.comm_channels, 16);
    /* At most 4 channels: 4 x 48. */
    comm_of (four, 4, &c);
    ck_assert_uint_eq (c.ring_channels, 4);
    ck_assert_double_eq_tol (c.ring_bw_gbs, 48, EPS);
    /* 200 Gb/s NICs: 25 GB/s per NIC, so 24 GB/s channels, one per NIC: 8 x 24 = 192. */
    g_autofree char *hdr = dgx (2, "[server]\nnic_rate = 200Gbps\n");
    comm_of (hdr, 16, &c);
    ck_assert_uint_eq (c.ring_channels, 8);
    ck_assert_double_eq_tol (c.ring_bw_gbs, 24, EPS);
    g_autofree char *one = dgx (1, "");
    comm_of (one, 16, &c);
    ck_assert_uint_eq (c.n_nodes, 1);
    ck_assert_uint_eq (c.ring_channels, 12);
    ck_assert_double_eq_tol (c.ring_bw_gbs, 30, EPS);
    /* NVLS: a head per GPU, 9 x 40 <= 360 < 9 x 50 */
    ck_assert_uint_eq (c.nvls_channels, 8);
    ck_assert_double_eq_tol (c.nvls_bw_gbs, 40, EPS);
    /* Plain hosts on one switch, 100 Gb/s = 12.5 GB/s each: every host a node, one channel
     * at 12 GB/s; no NVLink. */
    comm_of ("[topology]\ngenerator = single_switch\nhosts = 4\nlink_rate = 100Gbps\n", 16, &c);
    ck_assert_uint_eq (c.n_nodes, 4);
    ck_assert (!c.nvlink);
    ck_assert_uint_eq (c.ring_channels, 1);
    ck_assert_double_eq_tol (c.ring_bw_gbs, 12, EPS);
}
END_TEST

START_TEST (test_nccl_tune_channels_and_exec)
{
    WeftNcclComm c = seed_comm (4);
    WeftNcclTune t;
    tune (&t, &c);
    /* Channels drop while bytes < channels x threads x bytes per thread: tree LL 512 x 8, so
     * 8 bytes run on 1 channel and 32 KiB on 8; ring LL's threshold is 8 x 32 ranks per
     * thread: 64 KiB < 2 x 512 x 256, 1 channel; Simple 512 x 64: 1 MiB keeps 8. */
    ck_assert_uint_eq (weft_nccl_tune_channels (&t, WEFT_COLL_TREE, WEFT_NCCL_LL, 8, 8), 1);
    ck_assert_uint_eq (weft_nccl_tune_channels (&t, WEFT_COLL_TREE, WEFT_NCCL_LL, 32768, 8), 8);
    ck_assert_uint_eq (weft_nccl_tune_channels (&t, WEFT_COLL_TREE, WEFT_NCCL_LL, 32767, 8), 7);
    ck_assert_uint_eq (weft_nccl_tune_channels (&t, WEFT_COLL_RING, WEFT_NCCL_LL, 65536, 8), 1);
    ck_assert_uint_eq (weft_nccl_tune_channels (&t, WEFT_COLL_RING, WEFT_NCCL_SIMPLE, 1 << 20, 8),
                       8);

    WeftNcclExec e;
    /* LL: 64 KiB step buffers of 16-byte lines, 8 data bytes each: 32 KiB of data per step.
     * Ring steps inside a node across several nodes cost the 1 us network overhead (more than
     * NVLink's 0.6), steps across nodes 2.7 us, once 6.6 us. */
    weft_nccl_tune_exec (&t, WEFT_COLL_RING, WEFT_NCCL_LL, 1 << 20, 8, &e);
    ck_assert_uint_eq (e.chunk_bytes, 32768);
    ck_assert_uint_eq (e.line_bytes, 16);
    ck_assert_uint_eq (e.line_data, 8);
    ck_assert_uint_eq (e.intra_step_ps, WEFT_US (1));
    ck_assert_uint_eq (e.net_step_ps, WEFT_NS (2700));
    ck_assert_uint_eq (e.base_ps, WEFT_NS (6600));
    /* LL128: 120 x 640 x 8 bytes of 128-byte lines per step, 120 data bytes per line:
     * 614400 / 128 x 120 = 576000. */
    weft_nccl_tune_exec (&t, WEFT_COLL_RING, WEFT_NCCL_LL128, 1 << 30, 8, &e);
    ck_assert_uint_eq (e.chunk_bytes, 576000);
    ck_assert_uint_eq (e.line_bytes, 128);
    ck_assert_uint_eq (e.line_data, 120);
    ck_assert_uint_eq (e.intra_step_ps, WEFT_NS (1900));
    /* Tree LL128, 1 MB on 8 channels, 4 nodes of 8: depth 1 + 2 + 0.8 = 3.8; halve while
     * bytes / (8 x chunk) < 3.8 x 64 / 8 = 30.4 and chunk > 128 KiB: 576000 -> 288000 ->
     * 144000 -> 72000; then while < 3.8 x 16 / 8 = 7.6 and chunk > 32 KiB: 72000 (1e6 /
     * 576000 = 1) -> 36000 (3) -> 18000. */
    weft_nccl_tune_exec (&t, WEFT_COLL_TREE, WEFT_NCCL_LL128, 1000000, 8, &e);
    ck_assert_uint_eq (e.chunk_bytes, 18000);
    ck_assert_uint_eq (e.intra_step_ps, WEFT_NS (1250));
    ck_assert_uint_eq (e.net_step_ps, WEFT_NS (8500));
    /* Simple: 4 MiB / 8 steps; ring steps inside a node 3.4 us, across 14 us, 8.4 us once;
     * the tree's Simple hop is 28 us everywhere and it has no base latency. */
    weft_nccl_tune_exec (&t, WEFT_COLL_RING, WEFT_NCCL_SIMPLE, 1 << 30, 8, &e);
    ck_assert_uint_eq (e.chunk_bytes, 512 * 1024);
    ck_assert_uint_eq (e.line_bytes, 1);
    ck_assert_uint_eq (e.intra_step_ps, WEFT_NS (3400));
    ck_assert_uint_eq (e.net_step_ps, WEFT_US (14));
    ck_assert_uint_eq (e.base_ps, WEFT_NS (8400));
    weft_nccl_tune_exec (&t, WEFT_COLL_TREE, WEFT_NCCL_SIMPLE, 1 << 30, 8, &e);
    ck_assert_uint_eq (e.intra_step_ps, WEFT_US (28));
    ck_assert_uint_eq (e.base_ps, 0);
}
END_TEST

/* The first power of two from 8 B at which the choice for an all_reduce of that size on
 * @t has protocol @p (and *algo what it runs with there), or 0 when none up to 4 GiB does. */
static guint64
first_with (const WeftNcclTune *t, WeftNcclProto want, WeftCollAlgo *algo)
{
    for (guint64 b = 8; b <= ((guint64) 4 << 30); b *= 2) {
        WeftCollAlgo a;
        WeftNcclProto p;
        ck_assert (weft_nccl_tune_pick (t, WEFT_COLL_ALL_REDUCE, b, &a, &p));
        if (p == want) {
            *algo = a;
            return b;
        }
    }
    return 0;
}

static void
pick (const WeftNcclTune *t, guint64 bytes, WeftCollAlgo algo, WeftNcclProto proto)
{
    WeftCollAlgo a;
    WeftNcclProto p;
    ck_assert (weft_nccl_tune_pick (t, WEFT_COLL_ALL_REDUCE, bytes, &a, &p));
    ck_assert_msg (a == algo && p == proto, "%" G_GUINT64_FORMAT " B: %s/%s, expected %s/%s", bytes,
                   weft_nccl_algo_name (a), weft_nccl_proto_name (p), weft_nccl_algo_name (algo),
                   weft_nccl_proto_name (proto));
}

START_TEST (test_nccl_tune_choice_matches_published_logs)
{
    /* What NCCL chose on a cluster of the seed cluster's class, as its own tuning log prints
     * it (NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING, "N Bytes -> Algo A proto P", algo 0 tree,
     * 1 ring; proto 0 LL, 1 LL128, 2 Simple): NVIDIA/nccl issue #1453, "Poor NCCL allreduce
     * performance", 3 nodes x 8 H100 80GB HBM3, InfiniBand, an nccl-tests all_reduce_perf
     * sweep.  The log shows tree/LL for 8 B, 64 B, 128 B, 256 B, 512 B, 1 KiB, 2 KiB, 4 KiB,
     * 8 KiB and 64 KiB; tree/LL128 for 128 KiB and 256 KiB; ring/Simple for 512 MiB and 1 GiB.
     * The same generated fabric with 3 servers must choose exactly that at those sizes. */
    g_autofree char *three = dgx (3, "");
    WeftNcclComm c;
    comm_of (three, 16, &c);
    WeftNcclTune t;
    tune (&t, &c);
    const guint64 ll[] = { 8, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 65536 };
    for (guint i = 0; i < G_N_ELEMENTS (ll); i++)
        pick (&t, ll[i], WEFT_COLL_TREE, WEFT_NCCL_LL);
    pick (&t, 131072, WEFT_COLL_TREE, WEFT_NCCL_LL128);
    pick (&t, 262144, WEFT_COLL_TREE, WEFT_NCCL_LL128);
    pick (&t, (guint64) 512 << 20, WEFT_COLL_RING, WEFT_NCCL_SIMPLE);
    pick (&t, (guint64) 1 << 30, WEFT_COLL_RING, WEFT_NCCL_SIMPLE);

    /* The seed cluster, 4 nodes: the published observations bound where its switches may
     * lie.  LL -> LL128: the class keeps LL through 64 KiB and runs LL128 by 256 KiB, so the
     * first LL128 size is in (64 KiB, 256 KiB].  LL128 -> Simple: LL128 at 256 KiB, Simple by
     * 512 MiB, so the first Simple size is in (256 KiB, 512 MiB]; and Simple from there on.
     * Small sizes run on the tree, as in the log. */
    g_autofree char *four = dgx (4, "");
    comm_of (four, 16, &c);
    tune (&t, &c);
    WeftCollAlgo a;
    guint64 ll128 = first_with (&t, WEFT_NCCL_LL128, &a);
    ck_assert_uint_gt (ll128, 65536);
    ck_assert_uint_le (ll128, 262144);
    ck_assert_int_eq (a, WEFT_COLL_TREE);
    guint64 simple = first_with (&t, WEFT_NCCL_SIMPLE, &a);
    ck_assert_uint_gt (simple, 262144);
    ck_assert_uint_le (simple, (guint64) 512 << 20);
    for (guint64 b = 8; b < ll128; b *= 2)
        pick (&t, b, WEFT_COLL_TREE, WEFT_NCCL_LL);
    pick (&t, (guint64) 512 << 20, WEFT_COLL_RING, WEFT_NCCL_SIMPLE);
    pick (&t, (guint64) 1 << 30, WEFT_COLL_RING, WEFT_NCCL_SIMPLE);
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("nccl_tune");
    TCase *tc = tcase_create ("model");
    tcase_add_checked_fixture (tc, harness_tmp_setup, harness_tmp_teardown);
    tcase_set_timeout (tc, 60);
    tcase_add_test (tc, test_nccl_tune_table_by_hand);
    tcase_add_test (tc, test_nccl_tune_in_switch_by_hand);
    tcase_add_test (tc, test_nccl_tune_nvls_tree_by_hand);
    tcase_add_test (tc, test_nccl_tune_latency_matches_published_log);
    tcase_add_test (tc, test_nccl_tune_lists);
    tcase_add_test (tc, test_nccl_tune_ll128_default);
    tcase_add_test (tc, test_nccl_tune_comm_from_dgx);
    tcase_add_test (tc, test_nccl_tune_channels_and_exec);
    tcase_add_test (tc, test_nccl_tune_choice_matches_published_logs);
    suite_add_tcase (s, tc);
    return s;
}
