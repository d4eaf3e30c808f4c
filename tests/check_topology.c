/* tests/check_topology.c - the simple generators: exact node, link and port counts, names,
 * rates and delays; parameter errors name the key.
 * Unchecked here: reading parameters from experiment files (needs the parser), routes
 * (check_graph).
 */
#include "config.h"
#include <check.h>
#include <string.h>

#include "sim/graph.h"
#include "tests/harness.h"
#include "topologies/leafspine.h"

static guint
count_kind (const WeftGraph *g, WeftNodeKind kind)
{
    guint n = 0;
    for (guint i = 0; i < weft_graph_n_nodes (g); i++)
        n += weft_graph_node (g, i)->kind == kind;
    return n;
}

START_TEST (test_topology_single_switch)
{
    WeftSingleSwitchParams p = {
        .hosts = 8, .link_rate_bps = 400000000000ull, .link_delay_ps = 1000, .cable_length_m = 3
    };
    g_autoptr (WeftGraph) g = weft_topology_single_switch (&p, NULL);
    ck_assert_uint_eq (weft_graph_n_nodes (g), 9);
    ck_assert_uint_eq (weft_graph_n_links (g), 8);
    ck_assert_uint_eq (weft_graph_n_endpoints (g), 8);
    guint32 sw = weft_graph_lookup (g, "sw0");
    ck_assert_uint_eq (weft_graph_node (g, sw)->ports->len, 8);
    guint32 h7 = weft_graph_lookup (g, "host7"), peer, pp;
    ck_assert (weft_graph_peer (g, h7, 0, &peer, &pp));
    ck_assert_uint_eq (peer, sw);
    ck_assert_uint_eq (pp, 7);
    WeftLink *l = weft_graph_link (g, 0);
    ck_assert_uint_eq (l->rate_bps, 400000000000ull);
    ck_assert_uint_eq (l->delay_ps, 1000 + 15000); /* 1 ns + 3 m x 5 ns/m */
    ck_assert_uint_eq (weft_graph_node (g, h7)->endpoint, 7);
}
END_TEST

START_TEST (test_topology_dumbbell)
{
    WeftDumbbellParams p = { .left_hosts = 3,
                             .right_hosts = 2,
                             .link_rate_bps = 100,
                             .bottleneck_rate_bps = 10,
                             .bottleneck_cable_length_m = 10 };
    g_autoptr (WeftGraph) g = weft_topology_dumbbell (&p, NULL);
    ck_assert_uint_eq (weft_graph_n_nodes (g), 7);
    ck_assert_uint_eq (weft_graph_n_links (g), 6);
    ck_assert_uint_eq (count_kind (g, WEFT_NODE_SWITCH), 2);
    guint32 peer;
    weft_graph_peer (g, weft_graph_lookup (g, "host2"), 0, &peer, NULL);
    ck_assert_uint_eq (peer, weft_graph_lookup (g, "sw0"));
    weft_graph_peer (g, weft_graph_lookup (g, "host3"), 0, &peer, NULL);
    ck_assert_uint_eq (peer, weft_graph_lookup (g, "sw1"));
    WeftLink *b = weft_graph_link (g, 5);
    ck_assert_uint_eq (b->rate_bps, 10);
    ck_assert_uint_eq (b->delay_ps, 50000);
    weft_graph_routes_compute (g);
    ck_assert_uint_eq (
        weft_graph_route_hops (g, weft_graph_lookup (g, "host0"), weft_graph_lookup (g, "host4")),
        3);
}
END_TEST

START_TEST (test_topology_leafspine_counts)
{
    WeftLeafSpineParams p = { .leaves = 8,
                              .spines = 4,
                              .hosts_per_leaf = 16,
                              .links_per_spine = 2,
                              .link_rate_bps = 100,
                              .uplink_rate_bps = 400 };
    g_autoptr (WeftGraph) g = weft_topology_leafspine (&p, NULL);
    ck_assert_uint_eq (count_kind (g, WEFT_NODE_HOST), 128);
    ck_assert_uint_eq (count_kind (g, WEFT_NODE_SWITCH), 12);
    ck_assert_uint_eq (weft_graph_n_links (g), 128 + 8 * 4 * 2);
    guint32 leaf3 = weft_graph_lookup (g, "leaf3"), spine3 = weft_graph_lookup (g, "spine3");
    ck_assert_uint_eq (weft_graph_node (g, leaf3)->ports->len, 16 + 8);
    ck_assert_uint_eq (weft_graph_node (g, spine3)->ports->len, 16);
    ck_assert_int_eq (weft_graph_node (g, leaf3)->tier, 1);
    ck_assert_int_eq (weft_graph_node (g, spine3)->tier, 2);
    guint32 peer;
    weft_graph_peer (g, weft_graph_lookup (g, "host127"), 0, &peer, NULL);
    ck_assert_uint_eq (peer, weft_graph_lookup (g, "leaf7"));
}
END_TEST

START_TEST (test_topology_bad_params_name_key)
{
    WeftLeafSpineParams p = { .leaves = 2, .spines = 0, .hosts_per_leaf = 1, .links_per_spine = 1 };
    GError *err = NULL;
    ck_assert_ptr_null (weft_topology_leafspine (&p, &err));
    ck_assert (g_error_matches (err, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_PARAM));
    ck_assert_ptr_nonnull (strstr (err->message, "[topology] spines:"));
    g_clear_error (&err);
    WeftDumbbellParams d = { .left_hosts = 1, .right_hosts = 0 };
    ck_assert_ptr_null (weft_topology_dumbbell (&d, &err));
    ck_assert_ptr_nonnull (strstr (err->message, "right_hosts"));
    g_clear_error (&err);
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("topology");
    TCase *tc = tcase_create ("generators");
    tcase_add_test (tc, test_topology_single_switch);
    tcase_add_test (tc, test_topology_dumbbell);
    tcase_add_test (tc, test_topology_leafspine_counts);
    tcase_add_test (tc, test_topology_bad_params_name_key);
    suite_add_tcase (s, tc);
    return s;
}
