/* tests/check_graph.c - the fabric graph: construction, lookups and route tables.
 *
 * Invariants checked: ports and peers are symmetric, directions follow the link's a/b sides,
 * names resolve; on a leaf-spine, equal-cost sets have the minimal-path sizes (all uplinks at a
 * leaf, the parallel cables at a spine), static routes reach every destination without loops in
 * the minimal hop count, and D-mod-k puts at most one flow of any shift permutation on a link;
 * hierarchical server routing (GPU -> own NIC -> fabric -> gateway NIC -> GPU); a removed NIC
 * link (nic-removed) leaves routing: the GPU's gateway becomes the nearest remaining NIC, and
 * no route crosses the removed link.
 * Unchecked here: generator parameter parsing (check_topology), forwarding-table files.
 */
#include "config.h"
#include <check.h>

#include "sim/graph.h"
#include "tests/harness.h"
#include "topologies/leafspine.h"

START_TEST (test_graph_connect_peer_direction)
{
    g_autoptr (WeftGraph) g = weft_graph_new ();
    guint32 sw = weft_graph_add_node (g, "sw0", WEFT_NODE_SWITCH, 4);
    guint32 h0 = weft_graph_add_node (g, "host0", WEFT_NODE_HOST, 1);
    guint32 h1 = weft_graph_add_node (g, "host1", WEFT_NODE_HOST, 0);
    ck_assert_uint_eq (weft_graph_n_endpoints (g), 2);
    ck_assert_uint_eq (weft_graph_node (g, sw)->endpoint, WEFT_GRAPH_NONE);
    ck_assert_uint_eq (weft_graph_node (g, h1)->endpoint, 1);
    ck_assert_uint_eq (weft_graph_endpoint_node (g, 1), h1);
    ck_assert (weft_graph_node (g, sw)->forwards);
    ck_assert (!weft_graph_node (g, h0)->forwards);

    guint32 l0 = weft_graph_connect (g, h0, 0, sw, 2, 100000000000ull, 1000, WEFT_LINK_FABRIC);
    /* host1 has no port: connecting grows it; the switch gives its first empty port (0) */
    guint32 l1 =
        weft_graph_connect (g, sw, WEFT_GRAPH_NONE, h1, WEFT_GRAPH_NONE, 1, 2, WEFT_LINK_FABRIC);
    ck_assert_uint_eq (weft_graph_n_links (g), 2);
    ck_assert_uint_eq (weft_graph_node (g, h1)->ports->len, 1);
    WeftLink *l = weft_graph_link (g, l1);
    ck_assert_uint_eq (l->a, sw);
    ck_assert_uint_eq (l->pa, 0);
    ck_assert_uint_eq (l->pb, 0);

    guint32 pn, pp;
    ck_assert (weft_graph_peer (g, sw, 2, &pn, &pp));
    ck_assert_uint_eq (pn, h0);
    ck_assert_uint_eq (pp, 0);
    ck_assert (weft_graph_peer (g, h0, 0, &pn, &pp));
    ck_assert_uint_eq (pn, sw);
    ck_assert_uint_eq (pp, 2);
    ck_assert (!weft_graph_peer (g, sw, 1, &pn, &pp));
    ck_assert_uint_eq (weft_graph_direction (g, h0, 0), 0);
    ck_assert_uint_eq (weft_graph_direction (g, sw, 2), 1);
    ck_assert_uint_eq (weft_graph_direction (g, sw, 0), 0);
    ck_assert_uint_eq (weft_graph_link (g, l0)->delay_ps, 1000);

    ck_assert_uint_eq (weft_graph_lookup (g, "host1"), h1);
    ck_assert_uint_eq (weft_graph_lookup (g, "nope"), WEFT_GRAPH_NONE);
    ck_assert_str_eq (weft_node_kind_name (WEFT_NODE_NVSWITCH), "nvswitch");
    ck_assert_str_eq (weft_link_kind_name (WEFT_LINK_PCIE), "pcie");
}
END_TEST

static WeftGraph *
small_leafspine (guint64 leaves, guint64 spines, guint64 hpl, guint64 lps)
{
    WeftLeafSpineParams p = { .leaves = leaves,
                              .spines = spines,
                              .hosts_per_leaf = hpl,
                              .links_per_spine = lps,
                              .link_rate_bps = 100000000000ull,
                              .uplink_rate_bps = 100000000000ull,
                              .cable_length_m = 2,
                              .uplink_cable_length_m = 20 };
    GError *err = NULL;
    WeftGraph *g = weft_topology_leafspine (&p, &err);
    ck_assert_ptr_null (err);
    weft_graph_routes_compute (g);
    return g;
}

START_TEST (test_graph_routes_leafspine_sets)
{
    g_autoptr (WeftGraph) g = small_leafspine (4, 2, 4, 2);
    guint32 leaf0 = weft_graph_lookup (g, "leaf0"), spine1 = weft_graph_lookup (g, "spine1");
    guint32 h0 = weft_graph_lookup (g, "host0"), h1 = weft_graph_lookup (g, "host1");
    guint32 h5 = weft_graph_lookup (g, "host5");
    guint32 ep1 = weft_graph_node (g, h1)->endpoint, ep5 = weft_graph_node (g, h5)->endpoint;
    guint n;
    const guint32 *set = weft_graph_route_set (g, leaf0, ep1, &n);
    ck_assert_uint_eq (n, 1);
    ck_assert_uint_eq (set[0], 1); /* host1 on leaf0 port 1 */
    weft_graph_route_set (g, leaf0, ep5, &n);
    ck_assert_uint_eq (n, 4); /* 2 spines x 2 cables */
    weft_graph_route_set (g, spine1, ep5, &n);
    ck_assert_uint_eq (n, 2); /* the 2 cables to leaf1 */
    weft_graph_route_set (g, h0, ep5, &n);
    ck_assert_uint_eq (n, 1);
    weft_graph_route_set (g, h5, ep5, &n);
    ck_assert_uint_eq (n, 0);
    ck_assert_uint_eq (weft_graph_route_static (g, h5, ep5), WEFT_GRAPH_NONE);
    ck_assert_uint_eq (weft_graph_route_hops (g, h0, h1), 2);
    ck_assert_uint_eq (weft_graph_route_hops (g, h0, h5), 4);
    ck_assert_uint_eq (weft_graph_route_hops (g, h0, h0), 0);
    ck_assert_uint_eq (weft_graph_route_hops (g, leaf0, h5), 3);
    /* every port of a set is on a minimal path */
    set = weft_graph_route_set (g, leaf0, ep5, &n);
    for (guint i = 0; i < n; i++) {
        guint32 peer;
        ck_assert (weft_graph_peer (g, leaf0, set[i], &peer, NULL));
        ck_assert_int_eq (weft_graph_node (g, peer)->tier, 2);
        ck_assert_uint_eq (weft_graph_route_hops (g, peer, h5), 2);
    }
    /* overriding a static choice */
    weft_graph_route_set_static (g, leaf0, ep5, set[3]);
    ck_assert_uint_eq (weft_graph_route_static (g, leaf0, ep5), set[3]);
}
END_TEST

START_TEST (test_graph_routes_loop_free)
{
    g_autoptr (WeftGraph) g = small_leafspine (5, 3, 3, 1);
    guint n_ep = weft_graph_n_endpoints (g);
    for (guint s = 0; s < n_ep; s++)
        for (guint d = 0; d < n_ep; d++) {
            guint32 a = weft_graph_endpoint_node (g, s), b = weft_graph_endpoint_node (g, d);
            guint hops = weft_graph_route_hops (g, a, b);
            guint want = s == d ? 0 : (s / 3 == d / 3 ? 2 : 4);
            ck_assert_uint_eq (hops, want);
        }
}
END_TEST

/* Counts flows per (link, direction) of the shift permutation i -> i + shift. */
static guint
max_link_load (const WeftGraph *g, guint shift)
{
    guint n_ep = weft_graph_n_endpoints (g), worst = 0;
    guint *load = g_new0 (guint, 2 * weft_graph_n_links (g));
    for (guint s = 0; s < n_ep; s++) {
        guint32 a = weft_graph_endpoint_node (g, s);
        guint32 b = weft_graph_endpoint_node (g, (s + shift) % n_ep);
        guint32 ep = weft_graph_node (g, b)->endpoint;
        for (guint32 cur = a; cur != b;) {
            guint32 port = weft_graph_route_static (g, cur, ep);
            ck_assert_uint_ne (port, WEFT_GRAPH_NONE);
            guint32 lid = g_array_index (weft_graph_node (g, cur)->ports, guint32, port);
            guint i = 2 * lid + weft_graph_direction (g, cur, port);
            load[i]++;
            worst = MAX (worst, load[i]);
            weft_graph_peer (g, cur, port, &cur, NULL);
        }
    }
    g_free (load);
    return worst;
}

START_TEST (test_graph_dmodk_balanced_leafspine)
{
    /* 1:1 leaf-spine: 8 hosts per leaf, 4 spines x 2 cables */
    g_autoptr (WeftGraph) g = small_leafspine (6, 4, 8, 2);
    for (guint shift = 1; shift < weft_graph_n_endpoints (g); shift++)
        ck_assert_uint_le (max_link_load (g, shift), 1);
}
END_TEST

/* Two tiny servers: 2 GPUs on an NVSwitch, each GPU with a PCIe switch holding its NIC and an
 * uplink to the CPU; NIC r of both servers on leaf r; leaves joined by one spine. */
static WeftGraph *
tiny_servers (void)
{
    WeftGraph *g = weft_graph_new ();
    guint32 leaf[2], spine = 0;
    leaf[0] = weft_graph_add_node (g, "leaf0", WEFT_NODE_SWITCH, 0);
    leaf[1] = weft_graph_add_node (g, "leaf1", WEFT_NODE_SWITCH, 0);
    spine = weft_graph_add_node (g, "spine0", WEFT_NODE_SWITCH, 0);
    weft_graph_node (g, leaf[0])->tier = weft_graph_node (g, leaf[1])->tier = 1;
    weft_graph_node (g, spine)->tier = 2;
    for (gint32 s = 0; s < 2; s++) {
        char name[32];
        g_snprintf (name, sizeof name, "s%d/nvs", s);
        guint32 nvs = weft_graph_add_node (g, name, WEFT_NODE_NVSWITCH, 0);
        g_snprintf (name, sizeof name, "s%d/cpu", s);
        guint32 cpu = weft_graph_add_node (g, name, WEFT_NODE_CPU, 0);
        weft_graph_node (g, nvs)->server = weft_graph_node (g, cpu)->server = s;
        for (gint32 r = 0; r < 2; r++) {
            g_snprintf (name, sizeof name, "s%d/gpu%d", s, r);
            guint32 gpu = weft_graph_add_node (g, name, WEFT_NODE_GPU, 0);
            g_snprintf (name, sizeof name, "s%d/pcie%d", s, r);
            guint32 pcie = weft_graph_add_node (g, name, WEFT_NODE_PCIE_SWITCH, 0);
            g_snprintf (name, sizeof name, "s%d/nic%d", s, r);
            guint32 nic = weft_graph_add_node (g, name, WEFT_NODE_NIC, 0);
            weft_graph_make_endpoint (g, nic);
            weft_graph_node (g, gpu)->server = weft_graph_node (g, pcie)->server = s;
            weft_graph_node (g, nic)->server = s;
            weft_graph_connect (g, gpu, WEFT_GRAPH_NONE, nvs, WEFT_GRAPH_NONE, 1, 1,
                                WEFT_LINK_NVLINK);
            weft_graph_connect (g, gpu, WEFT_GRAPH_NONE, pcie, WEFT_GRAPH_NONE, 1, 1,
                                WEFT_LINK_PCIE);
            weft_graph_connect (g, nic, WEFT_GRAPH_NONE, pcie, WEFT_GRAPH_NONE, 1, 1,
                                WEFT_LINK_PCIE);
            weft_graph_connect (g, cpu, WEFT_GRAPH_NONE, pcie, WEFT_GRAPH_NONE, 1, 1,
                                WEFT_LINK_PCIE);
            weft_graph_connect (g, nic, WEFT_GRAPH_NONE, leaf[r], WEFT_GRAPH_NONE, 1, 1,
                                WEFT_LINK_FABRIC);
        }
    }
    weft_graph_connect (g, leaf[0], WEFT_GRAPH_NONE, spine, WEFT_GRAPH_NONE, 1, 1,
                        WEFT_LINK_FABRIC);
    weft_graph_connect (g, leaf[1], WEFT_GRAPH_NONE, spine, WEFT_GRAPH_NONE, 1, 1,
                        WEFT_LINK_FABRIC);
    weft_graph_routes_compute (g);
    return g;
}

static guint32
id (const WeftGraph *g, const char *name)
{
    guint32 v = weft_graph_lookup (g, name);
    ck_assert_msg (v != WEFT_GRAPH_NONE, "%s", name);
    return v;
}

START_TEST (test_graph_routes_servers)
{
    g_autoptr (WeftGraph) g = tiny_servers ();
    ck_assert_uint_eq (weft_graph_gateway (g, id (g, "s1/gpu1")), id (g, "s1/nic1"));
    ck_assert_uint_eq (weft_graph_gateway (g, id (g, "s0/cpu")), id (g, "s0/nic0"));
    ck_assert_uint_eq (weft_graph_gateway (g, id (g, "leaf0")), id (g, "leaf0"));
    /* inside a server: GPU - NVSwitch - GPU; GPU - PCIe - CPU */
    ck_assert_uint_eq (weft_graph_route_hops (g, id (g, "s0/gpu0"), id (g, "s0/gpu1")), 2);
    ck_assert_uint_eq (weft_graph_route_hops (g, id (g, "s0/gpu0"), id (g, "s0/cpu")), 2);
    ck_assert_uint_eq (weft_graph_route_hops (g, id (g, "s0/cpu"), id (g, "s0/nic1")), 2);
    /* same rail across servers: gpu-pcie-nic-leaf-nic-pcie-gpu */
    GArray *path = g_array_new (FALSE, FALSE, sizeof (guint32));
    ck_assert_uint_eq (weft_graph_route_path (g, id (g, "s0/gpu1"), id (g, "s1/gpu1"), path), 6);
    ck_assert_uint_eq (g_array_index (path, guint32, 2), id (g, "s0/nic1"));
    ck_assert_uint_eq (g_array_index (path, guint32, 3), id (g, "leaf1"));
    g_array_set_size (path, 0);
    /* cross rail: leaves 0 -> spine -> leaf1, into gpu1's own NIC */
    ck_assert_uint_eq (weft_graph_route_path (g, id (g, "s0/gpu0"), id (g, "s1/gpu1"), path), 8);
    ck_assert_uint_eq (g_array_index (path, guint32, 7), id (g, "s1/pcie1"));
    g_array_unref (path);
    /* the CPU reaches a remote GPU through either NIC */
    guint n;
    weft_graph_route_set (g, id (g, "s0/cpu"), weft_graph_node (g, id (g, "s1/gpu0"))->endpoint,
                          &n);
    ck_assert_uint_eq (n, 2);
    ck_assert_uint_ne (weft_graph_route_hops (g, id (g, "s0/cpu"), id (g, "s1/cpu")), G_MAXUINT);
    ck_assert (weft_graph_routes_bytes (g) > 0);
}
END_TEST

START_TEST (test_graph_removed_link_moves_gateway)
{
    g_autoptr (WeftGraph) g = tiny_servers ();
    /* the root complex carries PCIe peer-to-peer, as in topologies/server.c */
    weft_graph_node (g, id (g, "s1/cpu"))->forwards = TRUE;
    guint32 nic1 = id (g, "s1/nic1");
    guint32 cable = g_array_index (weft_graph_node (g, nic1)->ports, guint32, 1);
    ck_assert_int_eq (weft_graph_link (g, cable)->kind, WEFT_LINK_FABRIC);
    ck_assert (!weft_graph_link_removed (g, cable));
    weft_graph_set_link_removed (g, cable);
    ck_assert (weft_graph_link_removed (g, cable));
    ck_assert (!weft_graph_routes_ready (g)); /* the tables are dropped */
    weft_graph_routes_compute (g);
    /* s1/gpu1 now reaches the fabric through s1/nic0, across PCIe and the CPU */
    ck_assert_uint_eq (weft_graph_gateway (g, id (g, "s1/gpu1")), id (g, "s1/nic0"));
    ck_assert_uint_eq (weft_graph_gateway (g, id (g, "s1/gpu0")), id (g, "s1/nic0"));
    ck_assert_uint_eq (weft_graph_gateway (g, id (g, "s0/gpu1")), id (g, "s0/nic1"));
    /* s0/gpu1 -> s1/gpu1: pcie1, nic1, leaf1, spine, leaf0, s1/nic0, pcie0, cpu, pcie1, gpu1 */
    GArray *path = g_array_new (FALSE, FALSE, sizeof (guint32));
    ck_assert_uint_eq (weft_graph_route_path (g, id (g, "s0/gpu1"), id (g, "s1/gpu1"), path), 10);
    ck_assert_uint_eq (g_array_index (path, guint32, 6), id (g, "s1/nic0"));
    for (guint i = 0; i < path->len; i++)
        ck_assert_uint_ne (g_array_index (path, guint32, i), nic1);
    g_array_set_size (path, 0);
    /* and back out the same way */
    ck_assert_uint_eq (weft_graph_route_path (g, id (g, "s1/gpu1"), id (g, "s0/gpu1"), path), 10);
    ck_assert_uint_eq (g_array_index (path, guint32, 4), id (g, "s1/nic0"));
    g_array_unref (path);
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("graph");
    TCase *tc = tcase_create ("graph");
    tcase_add_test (tc, test_graph_connect_peer_direction);
    tcase_add_test (tc, test_graph_routes_leafspine_sets);
    tcase_add_test (tc, test_graph_routes_loop_free);
    tcase_add_test (tc, test_graph_dmodk_balanced_leafspine);
    tcase_add_test (tc, test_graph_routes_servers);
    tcase_add_test (tc, test_graph_removed_link_moves_gateway);
    suite_add_tcase (s, tc);
    return s;
}
