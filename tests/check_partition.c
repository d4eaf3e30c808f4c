/* tests/check_partition.c - splitting the fabric over MPI ranks (sim/partition.h).
 *
 * Invariants checked: no link below [parallel] lookahead_floor is ever cut, for every rank count
 * a fabric allows; with partition = unit every pod (fat tree) and scalable unit (railopt) is on
 * one rank, hosts with their switch, servers whole; every rank gets nodes; the lookahead is the
 * smallest delay of a cut link, computed here from the graph; the same inputs give the same
 * partition; graph mode balances the port weight on a fat tree; no valid partition (unit on a
 * fabric without units, more ranks than indivisible parts) is a config error naming
 * [parallel] partition and the reason; the two ends of a release below the floor are joined
 * while atoms are left for every rank.
 * Unchecked here: running across ranks (doc/parallel.md's status).
 */
#include "config.h"
#include <check.h>
#include <string.h>

#include "sim/graph.h"
#include "sim/partition.h"
#include "tests/harness.h"
#include "topologies/leafspine.h"
#include "topologies/railopt.h"
#include "topologies/server.h"

static WeftExperiment *
experiment (const char *text)
{
    GError *err = NULL;
    WeftExperiment *exp = weft_experiment_new_from_data (text, "part.ini", &err);
    ck_assert_msg (exp, "%s", err ? err->message : "");
    return exp;
}

static WeftPartitionConfig
config (const WeftExperiment *exp)
{
    WeftPartitionConfig cfg = { 0 };
    GError *err = NULL;
    ck_assert_msg (weft_partition_config_read (exp, &cfg, &err), "%s", err ? err->message : "");
    return cfg;
}

static WeftGraph *
fattree (guint64 k)
{
    WeftFatTreeParams p = { .k = k,
                            .link_rate_bps = 400000000000ull,
                            .link_delay_ps = WEFT_US (1) };
    GError *err = NULL;
    WeftGraph *g = weft_topology_fattree (&p, &err);
    ck_assert_msg (g, "%s", err ? err->message : "");
    return g;
}

/* The checks every valid partition must pass; returns the lookahead computed here. */
static weft_time_t
check_valid (const WeftGraph *g, const WeftPartition *p, weft_time_t floor)
{
    guint n = weft_graph_n_nodes (g);
    guint *nodes = g_new0 (guint, p->n_ranks);
    for (guint32 v = 0; v < n; v++) {
        ck_assert_uint_lt (p->rank_of[v], p->n_ranks);
        nodes[p->rank_of[v]]++;
    }
    for (guint r = 0; r < p->n_ranks; r++)
        ck_assert_msg (nodes[r] > 0, "rank %u has no nodes", r);
    g_free (nodes);
    weft_time_t look = WEFT_TIME_NEVER;
    guint cut = 0;
    for (guint32 l = 0; l < weft_graph_n_links (g); l++) {
        const WeftLink *link = weft_graph_link (g, l);
        if (p->rank_of[link->a] == p->rank_of[link->b])
            continue;
        ck_assert_msg (link->delay_ps >= floor, "link %u (%s - %s, %" G_GUINT64_FORMAT " ps) cut",
                       l, weft_graph_node (g, link->a)->name, weft_graph_node (g, link->b)->name,
                       link->delay_ps);
        look = MIN (look, link->delay_ps);
        cut++;
    }
    ck_assert_uint_eq (p->cut_links, cut);
    ck_assert_uint_eq (p->lookahead, look);
    return look;
}

START_TEST (test_partition_fattree_pods_stay_whole)
{
    g_autoptr (WeftExperiment) exp = experiment ("[parallel]\npartition = unit\n");
    WeftPartitionConfig cfg = config (exp);
    g_autoptr (WeftGraph) g = fattree (4);
    for (guint ranks = 1; ranks <= 8; ranks++) {
        WeftPartition p;
        GError *err = NULL;
        ck_assert_msg (weft_partition_compute (g, &cfg, ranks, exp, &p, &err), "%s",
                       err ? err->message : "");
        ck_assert_int_eq (p.by, WEFT_PARTITION_UNIT);
        /* 4 pods and 4 cores, each its own part. */
        ck_assert_uint_eq (p.n_atoms, 8);
        weft_time_t look = check_valid (g, &p, cfg.lookahead_floor);
        ck_assert_uint_eq (look, ranks == 1 ? WEFT_TIME_NEVER : WEFT_US (1));
        guint pod_rank[4] = { G_MAXUINT, G_MAXUINT, G_MAXUINT, G_MAXUINT };
        for (guint32 v = 0; v < weft_graph_n_nodes (g); v++) {
            const WeftNode *node = weft_graph_node (g, v);
            gint32 pod = node->su;
            if (node->kind == WEFT_NODE_HOST) {
                /* A host is in its edge switch's pod. */
                guint32 peer, pp;
                ck_assert (weft_graph_peer (g, v, 0, &peer, &pp));
                pod = weft_graph_node (g, peer)->su;
                ck_assert_uint_eq (p.rank_of[v], p.rank_of[peer]);
            }
            if (pod < 0)
                continue;
            if (pod_rank[pod] == G_MAXUINT)
                pod_rank[pod] = p.rank_of[v];
            ck_assert_uint_eq (p.rank_of[v], pod_rank[pod]);
        }
        weft_partition_clear (&p);
    }
}
END_TEST

/* The two ends of a release below the floor (host pairs in two pods of a k = 4 fat tree, 8
 * parts by unit) are joined while atoms are left for every rank, in the order given: on 2
 * ranks both pairs join (6 parts, each pair on one rank); on 7 ranks only the first can (7
 * parts); on 8 none (8 parts, the pairs' pods on their own ranks). */
START_TEST (test_partition_joins_releases_while_it_can)
{
    g_autoptr (WeftExperiment) exp = experiment ("[parallel]\npartition = unit\n");
    WeftPartitionConfig cfg = config (exp);
    g_autoptr (WeftGraph) g = fattree (4);
    guint32 h[4];
    const char *names[] = { "host0", "host15", "host4", "host11" };
    for (guint i = 0; i < 4; i++) {
        h[i] = weft_graph_lookup (g, names[i]);
        ck_assert_uint_ne (h[i], WEFT_GRAPH_NONE);
    }
    g_autoptr (GArray) pairs = g_array_new (FALSE, FALSE, sizeof (guint32));
    g_array_append_vals (pairs, h, 4);
    struct {
        guint ranks, parts, joined;
    } want[] = { { 2, 6, 2 }, { 7, 7, 1 }, { 8, 8, 0 } };
    for (guint i = 0; i < G_N_ELEMENTS (want); i++) {
        WeftPartition p;
        GError *err = NULL;
        ck_assert_msg (weft_partition_compute_with (g, &cfg, want[i].ranks, pairs, exp, &p, &err),
                       "%s", err ? err->message : "");
        check_valid (g, &p, cfg.lookahead_floor);
        ck_assert_uint_eq (p.n_atoms, want[i].parts);
        ck_assert_uint_eq (p.joined, want[i].joined);
        ck_assert ((p.rank_of[h[0]] == p.rank_of[h[1]]) == (want[i].joined >= 1));
        ck_assert ((p.rank_of[h[2]] == p.rank_of[h[3]]) == (want[i].joined >= 2));
        weft_partition_clear (&p);
    }
}
END_TEST

START_TEST (test_partition_more_ranks_than_parts_is_refused)
{
    g_autoptr (WeftExperiment) exp = experiment ("[parallel]\npartition = unit\n");
    WeftPartitionConfig cfg = config (exp);
    g_autoptr (WeftGraph) g = fattree (4);
    WeftPartition p;
    GError *err = NULL;
    ck_assert (!weft_partition_compute (g, &cfg, 9, exp, &p, &err));
    ck_assert (g_error_matches (err, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_RANGE));
    ck_assert_msg (strstr (err->message, "[parallel] partition") &&
                       strstr (err->message, "9 ranks") && strstr (err->message, "only 8"),
                   "%s", err->message);
    ck_assert (p.rank_of == NULL);
    g_clear_error (&err);
}
END_TEST

START_TEST (test_partition_unit_without_units_is_refused)
{
    g_autoptr (WeftExperiment) exp = experiment ("[parallel]\npartition = unit\n");
    WeftPartitionConfig cfg = config (exp);
    WeftLeafSpineParams lp = { .leaves = 4,
                               .spines = 2,
                               .hosts_per_leaf = 4,
                               .links_per_spine = 1,
                               .link_rate_bps = 100000000000ull,
                               .uplink_rate_bps = 100000000000ull,
                               .link_delay_ps = WEFT_US (1) };
    GError *err = NULL;
    g_autoptr (WeftGraph) g = weft_topology_leafspine (&lp, &err);
    ck_assert (g);
    WeftPartition p;
    ck_assert (!weft_partition_compute (g, &cfg, 2, exp, &p, &err));
    ck_assert (g_error_matches (err, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_VALUE));
    ck_assert_msg (strstr (err->message, "[parallel] partition") &&
                       strstr (err->message, "no pods or scalable units"),
                   "%s", err->message);
    g_clear_error (&err);
    /* auto falls back to a graph partition there. */
    cfg.by = WEFT_PARTITION_AUTO;
    ck_assert (weft_partition_compute (g, &cfg, 2, exp, &p, &err));
    ck_assert_int_eq (p.by, WEFT_PARTITION_GRAPH);
    check_valid (g, &p, cfg.lookahead_floor);
    weft_partition_clear (&p);
}
END_TEST

/* A chain of switches with alternating slow and fast links, and a host on each end: the fast
 * links (below the floor) must never be cut, whatever the rank count. */
START_TEST (test_partition_never_cuts_a_link_below_the_floor)
{
    g_autoptr (WeftExperiment) exp =
        experiment ("[parallel]\npartition = graph\nlookahead_floor = 200ns\n");
    WeftPartitionConfig cfg = config (exp);
    ck_assert_uint_eq (cfg.lookahead_floor, WEFT_NS (200));
    g_autoptr (WeftGraph) g = weft_graph_new ();
    enum { SW = 12 };
    guint32 sw[SW];
    for (guint i = 0; i < SW; i++) {
        char name[16];
        g_snprintf (name, sizeof name, "sw%u", i);
        sw[i] = weft_graph_add_node (g, name, WEFT_NODE_SWITCH, 3);
    }
    /* Delays: 0 ps, 1 us, 150 ns, 300 ns, 0 ps, 1 us, ... (below, above, below, above). */
    const weft_time_t delays[4] = { 0, WEFT_US (1), WEFT_NS (150), WEFT_NS (300) };
    for (guint i = 0; i + 1 < SW; i++)
        weft_graph_connect (g, sw[i], WEFT_GRAPH_NONE, sw[i + 1], WEFT_GRAPH_NONE, 100000000000ull,
                            delays[i % 4], WEFT_LINK_FABRIC);
    guint32 h0 = weft_graph_add_node (g, "host0", WEFT_NODE_HOST, 1);
    guint32 h1 = weft_graph_add_node (g, "host1", WEFT_NODE_HOST, 1);
    weft_graph_connect (g, h0, 0, sw[0], WEFT_GRAPH_NONE, 100000000000ull, WEFT_US (5),
                        WEFT_LINK_FABRIC);
    weft_graph_connect (g, h1, 0, sw[SW - 1], WEFT_GRAPH_NONE, 100000000000ull, WEFT_US (5),
                        WEFT_LINK_FABRIC);
    /* Pairs (sw0 sw1), (sw2 sw3), ... joined by sub-floor links: 6 parts, the hosts inside. */
    for (guint ranks = 1; ranks <= 6; ranks++) {
        WeftPartition p;
        GError *err = NULL;
        ck_assert_msg (weft_partition_compute (g, &cfg, ranks, exp, &p, &err), "%s",
                       err ? err->message : "");
        ck_assert_uint_eq (p.n_atoms, 6);
        weft_time_t look = check_valid (g, &p, cfg.lookahead_floor);
        for (guint i = 0; i + 1 < SW; i += 2)
            ck_assert_uint_eq (p.rank_of[sw[i]], p.rank_of[sw[i + 1]]);
        ck_assert_uint_eq (p.rank_of[h0], p.rank_of[sw[0]]);
        ck_assert_uint_eq (p.rank_of[h1], p.rank_of[sw[SW - 1]]);
        /* Only the 1 us and 300 ns links can be cut. */
        ck_assert (look == WEFT_TIME_NEVER || look == WEFT_US (1) || look == WEFT_NS (300));
        ck_assert (ranks == 1 || look != WEFT_TIME_NEVER);
        weft_partition_clear (&p);
    }
    WeftPartition p;
    GError *err = NULL;
    ck_assert (!weft_partition_compute (g, &cfg, 7, exp, &p, &err));
    ck_assert (g_error_matches (err, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_RANGE));
    g_clear_error (&err);
    /* A floor above every delay merges everything: no partition for two ranks, and the reason
     * names the floor. */
    cfg.lookahead_floor = WEFT_US (10);
    ck_assert (!weft_partition_compute (g, &cfg, 2, exp, &p, &err));
    ck_assert_msg (strstr (err->message, "only 1 indivisible part") &&
                       strstr (err->message, "lookahead_floor"),
                   "%s", err->message);
    g_clear_error (&err);
}
END_TEST

START_TEST (test_partition_graph_mode_balances_and_repeats)
{
    g_autoptr (WeftExperiment) exp = experiment ("[parallel]\npartition = graph\n");
    WeftPartitionConfig cfg = config (exp);
    g_autoptr (WeftGraph) g = fattree (8);
    guint64 total = 0;
    for (guint32 v = 0; v < weft_graph_n_nodes (g); v++)
        total += weft_graph_node (g, v)->kind == WEFT_NODE_HOST ? 1 : 8;
    for (guint ranks = 2; ranks <= 4; ranks++) {
        WeftPartition p, q;
        GError *err = NULL;
        ck_assert (weft_partition_compute (g, &cfg, ranks, exp, &p, &err));
        ck_assert (weft_partition_compute (g, &cfg, ranks, exp, &q, &err));
        ck_assert_int_eq (p.by, WEFT_PARTITION_GRAPH);
        check_valid (g, &p, cfg.lookahead_floor);
        ck_assert (memcmp (p.rank_of, q.rank_of, weft_graph_n_nodes (g) * sizeof (guint32)) == 0);
        guint64 sum = 0;
        for (guint r = 0; r < ranks; r++) {
            sum += p.weight[r];
            /* Within a quarter of an equal share (atoms here weigh at most 12 of 768). */
            ck_assert_msg (p.weight[r] * 4 * ranks >= total * 3 &&
                               p.weight[r] * 4 * ranks <= total * 5,
                           "rank %u of %u: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT, r, ranks,
                           p.weight[r], total);
        }
        ck_assert_uint_eq (sum, total);
        weft_partition_clear (&p);
        weft_partition_clear (&q);
    }
}
END_TEST

START_TEST (test_partition_railopt_keeps_servers_and_units_whole)
{
    WeftServerParams server = { 0 };
    weft_params_set_defaults (weft_server_params (), &server);
    WeftRailOptParams rp = { .sus = 2,
                             .servers_per_su = 4,
                             .servers = 8,
                             .radix = 16,
                             .tiers = 0,
                             .spine_grouping = WEFT_SPINE_FULL_MESH,
                             .leaf_oversubscription = 1,
                             .spine_oversubscription = 1,
                             .spine_link_rate_bps = 400000000000ull,
                             .core_link_rate_bps = 400000000000ull,
                             .leaf_cable_length_m = 3,
                             .spine_cable_length_m = 20,
                             .core_cable_length_m = 50 };
    GError *err = NULL;
    g_autoptr (WeftGraph) g = weft_topology_railopt (&rp, &server, &err);
    ck_assert_msg (g, "%s", err ? err->message : "");
    g_autoptr (WeftExperiment) exp = experiment ("[parallel]\nlookahead_floor = 10ns\n");
    WeftPartitionConfig cfg = config (exp);
    WeftPartition p;
    ck_assert_msg (weft_partition_compute (g, &cfg, 2, exp, &p, &err), "%s",
                   err ? err->message : "");
    ck_assert_int_eq (p.by, WEFT_PARTITION_UNIT); /* auto: the fabric records its SUs */
    check_valid (g, &p, cfg.lookahead_floor);
    GHashTable *seen = g_hash_table_new (g_direct_hash, g_direct_equal);
    for (guint32 v = 0; v < weft_graph_n_nodes (g); v++) {
        const WeftNode *node = weft_graph_node (g, v);
        /* Servers keyed by id + 1, units by -(su + 1): one rank each. */
        gint keys[2] = { node->server >= 0 ? node->server + 1 : 0,
                         node->su >= 0 ? -(node->su + 1) : 0 };
        for (guint k = 0; k < 2; k++) {
            if (keys[k] == 0)
                continue;
            gpointer r;
            if (g_hash_table_lookup_extended (seen, GINT_TO_POINTER (keys[k]), NULL, &r))
                ck_assert_uint_eq (GPOINTER_TO_UINT (r), p.rank_of[v] + 1);
            else
                g_hash_table_insert (seen, GINT_TO_POINTER (keys[k]),
                                     GUINT_TO_POINTER (p.rank_of[v] + 1));
        }
    }
    g_hash_table_unref (seen);
    weft_partition_clear (&p);
    weft_params_clear (weft_server_params (), &server);
}
END_TEST

START_TEST (test_partition_bad_key_values_name_the_key)
{
    g_autoptr (WeftExperiment) exp = experiment ("[parallel]\npartition = pods\n");
    WeftPartitionConfig cfg = { 0 };
    GError *err = NULL;
    ck_assert (!weft_partition_config_read (exp, &cfg, &err));
    ck_assert_msg (strstr (err->message, "[parallel] partition"), "%s", err->message);
    g_clear_error (&err);
    g_autoptr (WeftExperiment) exp2 = experiment ("[parallel]\nlookahead_floor = 0ns\n");
    ck_assert (!weft_partition_config_read (exp2, &cfg, &err));
    ck_assert (g_error_matches (err, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_RANGE));
    ck_assert_msg (strstr (err->message, "[parallel] lookahead_floor"), "%s", err->message);
    g_clear_error (&err);
    weft_params_clear (weft_partition_params, &cfg);
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("partition");
    TCase *tc = tcase_create ("partition");
    tcase_add_test (tc, test_partition_fattree_pods_stay_whole);
    tcase_add_test (tc, test_partition_more_ranks_than_parts_is_refused);
    tcase_add_test (tc, test_partition_joins_releases_while_it_can);
    tcase_add_test (tc, test_partition_unit_without_units_is_refused);
    tcase_add_test (tc, test_partition_never_cuts_a_link_below_the_floor);
    tcase_add_test (tc, test_partition_graph_mode_balances_and_repeats);
    tcase_add_test (tc, test_partition_railopt_keeps_servers_and_units_whole);
    tcase_add_test (tc, test_partition_bad_key_values_name_the_key);
    suite_add_tcase (s, tc);
    return s;
}
