/* tests/check_topo_summary.c - topologies/summary.c counts a fabric from its graph (and
 * topologies/export.c writes it as a file that loads back).
 *
 * Invariants checked, against counts worked out here from the generators' documented shapes
 * (never from weft's output):
 *  - a leaf-spine of 4 leaves x 6 hosts and 2 spines (100 Gb/s down, 200 Gb/s up): 24 hosts,
 *    6 switches, 24 + 8 cables, every switch port used, leaf oversubscription
 *    6 x 100 : 2 x 200 = 1.5:1, the spines on top, bisection half the narrower boundary
 *    (8 x 200 Gb/s, not 24 x 100 Gb/s);
 *  - hand-made leaves with ports meant for hosts left empty: the designed ratio counts them
 *    at the mean rate of the cabled ones, the populated ratio only the cabled ones, per leaf
 *    when every leaf agrees and summed over the tier when not; a tier with no down port
 *    cabled and a top tier say so;
 *  - a rail-optimised SU of 4 DGX-style servers in 32 slots (radix 64, 1:1): 8 leaves and
 *    4 spines, 4 of 32 down ports cabled per leaf, and the switch hops between GPUs (none in
 *    a server, 1 on one rail, 3 across rails; no pair in another SU); exported as a topology
 *    file (topologies/export.h) it loads back node for node and link for link.
 * Unchecked here: the text of `weft topo` end to end (tests/e2e/topo.sh).
 */
#include "config.h"
#include <check.h>
#include <glib/gstdio.h>
#include <string.h>

#include "sim/graph.h"
#include "sim/units.h"
#include "tests/harness.h"
#include "topologies/export.h"
#include "topologies/file.h"
#include "topologies/leafspine.h"
#include "topologies/railopt.h"
#include "topologies/server.h"
#include "topologies/summary.h"

#define GBPS(x) ((guint64) (x) *1000000000ull)

static char *
summary_text (const WeftGraph *g)
{
    GString *out = g_string_new (NULL);
    weft_topo_summary_print (out, g, "TITLE");
    return g_string_free (out, FALSE);
}

static void
assert_has (const char *text, const char *line)
{
    ck_assert_msg (strstr (text, line) != NULL, "missing [%s] in:\n%s", line, text);
}

START_TEST (test_topo_summary_leafspine)
{
    WeftLeafSpineParams p = { .leaves = 4,
                              .spines = 2,
                              .hosts_per_leaf = 6,
                              .links_per_spine = 1,
                              .link_rate_bps = GBPS (100),
                              .uplink_rate_bps = GBPS (200),
                              .link_delay_ps = 1000 };
    g_autoptr (WeftGraph) g = weft_topology_leafspine (&p, NULL);
    ck_assert_ptr_nonnull (g);
    weft_graph_routes_compute (g);
    WeftTopoSummary s;
    weft_topo_summary_compute (g, &s);
    ck_assert_uint_eq (s.nodes_of_kind[WEFT_NODE_HOST], 24);
    ck_assert_uint_eq (s.nodes_of_kind[WEFT_NODE_SWITCH], 6);
    ck_assert_uint_eq (s.servers, 0);
    ck_assert_uint_eq (s.switches[1], 4);
    ck_assert_uint_eq (s.switches[2], 2);
    /* a leaf: 6 host ports + 2 uplinks; a spine: one port per leaf */
    ck_assert_uint_eq (s.ports[1], 4 * 8);
    ck_assert_uint_eq (s.ports_used[1], 4 * 8);
    ck_assert_uint_eq (s.ports[2], 2 * 4);
    ck_assert_uint_eq (s.ports_used[2], 2 * 4);
    ck_assert_uint_eq (s.n_links, 24 + 8);
    ck_assert_uint_eq (s.links_of_kind[WEFT_LINK_FABRIC], 32);
    ck_assert_uint_eq (s.cables[0][1], 24);
    ck_assert_uint_eq (s.cables[1][2], 8);
    ck_assert_double_eq (s.cross_bps[0], 24 * 100e9);
    ck_assert_double_eq (s.cross_bps[1], 8 * 200e9);
    ck_assert_double_eq (s.bisection_bps, 8 * 200e9 / 2);
    ck_assert_uint_eq (s.tier[1].designed, 24);
    ck_assert_uint_eq (s.tier[1].cabled, 24);
    ck_assert (s.tier[1].uniform);
    ck_assert_double_eq_tol (s.tier[1].designed_ratio, 1.5, 1e-12);
    ck_assert_double_eq_tol (s.tier[1].populated_ratio, 1.5, 1e-12);
    ck_assert_double_eq (s.tier[2].up_bps, 0);
    ck_assert_double_eq (s.tier[2].designed_ratio, 0); /* the top */
    g_autofree char *t = summary_text (g);
    ck_assert (g_str_has_prefix (t, "TITLE\n  hosts 24\n"));
    assert_has (t, "\n  switches 6: 4 leaves 2 spines\n");
    assert_has (t, "\n  links 32: 32 fabric, 0 NVLink, 0 PCIe\n");
    assert_has (t, "\n  cables per tier: endpoint-leaf 24 leaf-spine 8\n");
    assert_has (t, "\n  radix use: leaf 32/32 ports (100%) spine 8/8 ports (100%)\n");
    assert_has (t, "from the ports): leaf 1.5:1, spine top\n");
    g_autofree char *bis = weft_units_format_rate (GBPS (800));
    g_autofree char *line = g_strdup_printf ("each way): %s\n", bis);
    assert_has (t, line);
    ck_assert_ptr_null (strstr (t, "servers"));
    ck_assert_ptr_null (strstr (t, "hops between GPUs"));
}
END_TEST

/* Two leaves of 4 host ports (down_ports 4) and one 100 Gb/s uplink each to one spine; leaf k
 * gets hosts[k] hosts at 100 Gb/s. */
static WeftGraph *
partial (const guint hosts[2])
{
    WeftGraph *g = weft_graph_new ();
    guint32 spine = weft_graph_add_node (g, "spine", WEFT_NODE_SWITCH, 2);
    weft_graph_node (g, spine)->tier = 2;
    guint h = 0;
    for (guint k = 0; k < 2; k++) {
        char name[16];
        g_snprintf (name, sizeof name, "leaf%u", k);
        guint32 leaf = weft_graph_add_node (g, name, WEFT_NODE_SWITCH, 5);
        weft_graph_node (g, leaf)->tier = 1;
        weft_graph_node (g, leaf)->down_ports = 4;
        for (guint i = 0; i < hosts[k]; i++) {
            g_snprintf (name, sizeof name, "host%u", h++);
            guint32 host = weft_graph_add_node (g, name, WEFT_NODE_HOST, 1);
            weft_graph_connect (g, host, 0, leaf, i, GBPS (100), 1000, WEFT_LINK_FABRIC);
        }
        weft_graph_connect (g, leaf, 4, spine, k, GBPS (100), 1000, WEFT_LINK_FABRIC);
    }
    weft_graph_routes_compute (g);
    return g;
}

START_TEST (test_topo_summary_partial_population)
{
    /* 2 + 1 hosts: designed 100 x 8 : 200 = 4:1, populated 300 : 200 = 1.5:1, the leaves
     * differ */
    static const guint uneven[2] = { 2, 1 };
    g_autoptr (WeftGraph) g = partial (uneven);
    WeftTopoSummary s;
    weft_topo_summary_compute (g, &s);
    ck_assert_uint_eq (s.tier[1].designed, 8);
    ck_assert_uint_eq (s.tier[1].cabled, 3);
    ck_assert (!s.tier[1].uniform);
    ck_assert_double_eq_tol (s.tier[1].designed_ratio, 4.0, 1e-12);
    ck_assert_double_eq_tol (s.tier[1].populated_ratio, 1.5, 1e-12);
    ck_assert_uint_eq (s.ports[1], 10);
    ck_assert_uint_eq (s.ports_used[1], 3 + 2);
    g_autofree char *t = summary_text (g);
    assert_has (t, "from the ports): leaf 4:1 (populated 1.5:1: 3 of 8 down ports used on 2 "
                   "leaves), spine top\n");
    assert_has (t, "\n  radix use: leaf 5/10 ports (50%) spine 2/2 ports (100%)\n");

    /* 2 + 2: the same on both leaves, said per leaf */
    static const guint even[2] = { 2, 2 };
    g_autoptr (WeftGraph) g2 = partial (even);
    g_autofree char *t2 = summary_text (g2);
    assert_has (t2, "from the ports): leaf 4:1 (populated 2:1: 2 of 4 down ports used per "
                    "leaf), spine top\n");

    /* no host at all */
    static const guint none[2] = { 0, 0 };
    g_autoptr (WeftGraph) g3 = partial (none);
    g_autofree char *t3 = summary_text (g3);
    assert_has (t3, "from the ports): leaf no down ports cabled, spine top\n");
}
END_TEST

START_TEST (test_topo_summary_railopt_hops)
{
    WeftServerParams server = { 0 };
    weft_params_set_defaults (weft_server_params (), &server);
    WeftRailOptParams p = { .sus = 1,
                            .servers_per_su = 32,
                            .servers = 4,
                            .radix = 64,
                            .spine_grouping = WEFT_SPINE_FULL_MESH,
                            .leaf_oversubscription = 1,
                            .spine_oversubscription = 1,
                            .spine_link_rate_bps = GBPS (400),
                            .core_link_rate_bps = GBPS (400),
                            .leaf_cable_length_m = 3,
                            .spine_cable_length_m = 20,
                            .core_cable_length_m = 50 };
    GError *err = NULL;
    g_autoptr (WeftGraph) g = weft_topology_railopt (&p, &server, &err);
    ck_assert_msg (g != NULL, "%s", err ? err->message : "?");
    weft_graph_routes_compute (g);
    WeftTopoSummary s;
    weft_topo_summary_compute (g, &s);
    guint64 rails = server.nics, gpus = 4 * server.gpus;
    ck_assert_uint_eq (s.servers, 4);
    ck_assert_uint_eq (s.nodes_of_kind[WEFT_NODE_GPU], gpus);
    ck_assert_uint_eq (s.nodes_of_kind[WEFT_NODE_NIC], 4 * rails);
    /* one leaf per rail with 32 slots down and 32 up at 1:1; spines = leaves x 32 / 64 */
    ck_assert_uint_eq (s.switches[1], rails);
    ck_assert_uint_eq (s.switches[2], rails * 32 / 64);
    ck_assert_uint_eq (s.cables[0][1], 4 * rails);
    ck_assert_uint_eq (s.cables[1][2], rails * 32);
    ck_assert_uint_eq (s.ports[1], rails * 64);
    ck_assert_uint_eq (s.ports_used[1], rails * (4 + 32));
    ck_assert (s.tier[1].uniform);
    ck_assert_uint_eq (s.tier[1].first_designed, 32);
    ck_assert_uint_eq (s.tier[1].first_cabled, 4);
    double nic = (double) server.nic_rate_bps;
    ck_assert_double_eq_tol (s.tier[1].designed_ratio, nic * 32 / (32 * 400e9), 1e-12);
    ck_assert_double_eq_tol (s.tier[1].populated_ratio, nic * 4 / (32 * 400e9), 1e-12);
    ck_assert_double_eq (s.bisection_bps, MIN (4 * rails * nic, rails * 32 * 400e9) / 2);
    /* hops from the first server's GPU on rail 0 */
    const WeftTopoHopPair *pr = s.pairs;
    ck_assert_str_eq (weft_graph_node (g, pr[0].a)->name, "dgx-1/gpu0");
    ck_assert_str_eq (pr[0].label, "same server:");
    ck_assert_int_eq (weft_graph_node (g, pr[0].b)->server, weft_graph_node (g, pr[0].a)->server);
    ck_assert_uint_eq (pr[0].switch_hops, 0); /* over the NVSwitch */
    ck_assert_str_eq (pr[1].label, "same rail, same SU:");
    ck_assert_int_eq (weft_graph_node (g, pr[1].b)->rail, 0);
    ck_assert_uint_eq (pr[1].switch_hops, 1); /* the rail's leaf */
    ck_assert_str_eq (pr[2].label, "cross rail, same SU:");
    ck_assert_int_eq (weft_graph_node (g, pr[2].b)->rail, 1);
    ck_assert_uint_eq (pr[2].switch_hops, 3); /* leaf, spine, leaf */
    for (guint k = 0; k < 3; k++)
        ck_assert_uint_gt (pr[k].links, pr[k].switch_hops);
    ck_assert_uint_eq (pr[3].a, WEFT_GRAPH_NONE); /* one SU: no other SU */
    ck_assert_uint_eq (pr[4].a, WEFT_GRAPH_NONE);
    g_autofree char *t = summary_text (g);
    assert_has (t, "  hops between GPUs (static routes):\n  same server:               "
                   "dgx-1/gpu0 -> ");
    ck_assert_ptr_null (strstr (t, "other SU"));

    /* Exported as a topology file, it loads back to the same graph: every node with its
     * kind, ports, tier, server, SU, rail and endpoint; every link with its ends, ports, rate,
     * delay and kind. */
    g_autoptr (GString) file = g_string_new (NULL);
    weft_topo_export_file (file, g);
    g_autofree char *dir = g_dir_make_tmp ("weft-export-XXXXXX", NULL);
    g_autofree char *path = g_build_filename (dir, "dgx.topo", NULL);
    ck_assert (g_file_set_contents (path, file->str, -1, NULL));
    g_autoptr (WeftGraph) h = weft_topology_load_file (path, &err);
    ck_assert_msg (h != NULL, "%s", err ? err->message : "?");
    g_unlink (path);
    g_rmdir (dir);
    ck_assert_uint_eq (weft_graph_n_nodes (h), weft_graph_n_nodes (g));
    ck_assert_uint_eq (weft_graph_n_links (h), weft_graph_n_links (g));
    for (guint32 i = 0; i < weft_graph_n_nodes (g); i++) {
        const WeftNode *a = weft_graph_node (g, i), *b = weft_graph_node (h, i);
        ck_assert_str_eq (a->name, b->name);
        ck_assert_int_eq (a->kind, b->kind);
        ck_assert_uint_eq (a->ports->len, b->ports->len);
        ck_assert_int_eq (MAX (a->tier, 0), MAX (b->tier, 0));
        ck_assert_int_eq (a->server, b->server);
        ck_assert_int_eq (a->su, b->su);
        ck_assert_int_eq (a->rail, b->rail);
        ck_assert_int_eq (a->endpoint == WEFT_GRAPH_NONE, b->endpoint == WEFT_GRAPH_NONE);
    }
    for (guint32 i = 0; i < weft_graph_n_links (g); i++) {
        const WeftLink *a = weft_graph_link (g, i), *b = weft_graph_link (h, i);
        ck_assert_uint_eq (a->a, b->a);
        ck_assert_uint_eq (a->pa, b->pa);
        ck_assert_uint_eq (a->b, b->b);
        ck_assert_uint_eq (a->pb, b->pb);
        ck_assert_uint_eq (a->rate_bps, b->rate_bps);
        ck_assert_uint_eq (a->delay_ps, b->delay_ps);
        ck_assert_int_eq (a->kind, b->kind);
    }
    weft_params_clear (weft_server_params (), &server);
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("topo_summary");
    TCase *tc = tcase_create ("counts");
    tcase_add_test (tc, test_topo_summary_leafspine);
    tcase_add_test (tc, test_topo_summary_partial_population);
    tcase_add_test (tc, test_topo_summary_railopt_hops);
    suite_add_tcase (s, tc);
    return s;
}
