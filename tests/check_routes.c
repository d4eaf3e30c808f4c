/* tests/check_routes.c - the route tables against a plain breadth-first search.
 *
 * Invariant checked: for every forwarding node and every destination endpoint, the equal-cost
 * set weft_graph_route_set returns is, port for port and in order, the one a search from that
 * destination alone gives under sim/graph.h's policy (fabric switches toward the destination
 * or its gateway NIC, server nodes toward the destination inside their server or toward their
 * nearest NICs, cable-major order), on fat trees with more than 64 leaves (several batches of
 * the grouped search, the last one partial), a leaf-spine with parallel cables, a rail-
 * optimised SU of DGX servers, a single switch with thousands of hosts, and topology files
 * with multi-homed hosts, a switch that is itself a destination and parallel cables; the
 * static route is a member of its set.  Static overrides: a forwarding-table file changes
 * exactly the routes it names; thousands of overrides set one by one read back exactly as a
 * map kept by the test, while they are few (hashed) and once they are many (dense).  Memory:
 * the fabric table of a k = 16 fat tree is per leaf, far below switches x hosts.
 * The flat per-node views give the same sets, port for port, at every node they apply to, and
 * go stale when the tables are computed again.
 * Unchecked here: D-mod-k balance (check_graph, check_railopt), routing engines' choices
 * (check_updn, check_topology_build).
 */
#include "config.h"
#include <check.h>
#include <glib/gstdio.h>
#include <string.h>

#include "sim/experiment.h"
#include "sim/graph.h"
#include "tests/harness.h"
#include "topologies/topology.h"

static WeftGraph *
build_text (const char *text)
{
    GError *err = NULL;
    g_autoptr (WeftExperiment) exp = weft_experiment_new_from_data (text, "t.ini", &err);
    WeftGraph *g = exp ? weft_topology_build (exp, &err) : NULL;
    ck_assert_msg (g != NULL, "%s", err ? err->message : "");
    return g;
}

static WeftGraph *
build_file (const char *topo_text, const char *lft_text)
{
    g_autofree char *topo = g_build_filename (harness_tmp, "t.topo", NULL);
    g_autofree char *lft = g_build_filename (harness_tmp, "t.lft", NULL);
    ck_assert (g_file_set_contents (topo, topo_text, -1, NULL));
    if (lft_text)
        ck_assert (g_file_set_contents (lft, lft_text, -1, NULL));
    g_autofree char *ini =
        g_strdup_printf ("[topology]\ngenerator = file\nfile = %s\n%s%s\n", topo,
                         lft_text ? "forwarding_table = " : "", lft_text ? lft : "");
    return build_text (ini);
}

/* ---- the reference: one plain search per destination ------------------------------------ */

/* Distances from @starts, inside @region (a server id, or -1 for the fabric), over links of
 * kind @kind (-1: any); the starts are expanded whatever they are, other nodes only when they
 * forward.  @dist: G_MAXUINT = unreached. */
static void
ref_bfs (const WeftGraph *g, const guint32 *starts, guint n_starts, gint32 region, int kind,
         guint *dist)
{
    guint nn = weft_graph_n_nodes (g);
    for (guint v = 0; v < nn; v++)
        dist[v] = G_MAXUINT;
    GQueue q = G_QUEUE_INIT;
    for (guint i = 0; i < n_starts; i++) {
        dist[starts[i]] = 0;
        g_queue_push_tail (&q, GUINT_TO_POINTER (starts[i]));
    }
    while (!g_queue_is_empty (&q)) {
        guint32 v = GPOINTER_TO_UINT (g_queue_pop_head (&q));
        if (dist[v] > 0 && !weft_graph_node (g, v)->forwards)
            continue;
        const WeftNode *n = weft_graph_node (g, v);
        for (guint p = 0; p < n->ports->len; p++) {
            guint32 u;
            if (!weft_graph_peer (g, v, p, &u, NULL) || dist[u] != G_MAXUINT)
                continue;
            if (weft_graph_node (g, u)->server != region)
                continue;
            guint32 lid = g_array_index (n->ports, guint32, p);
            if (kind >= 0 && (int) weft_graph_link (g, lid)->kind != kind)
                continue;
            dist[u] = dist[v] + 1;
            g_queue_push_tail (&q, GUINT_TO_POINTER (u));
        }
    }
}

/* Whether port @p of @v carries a link of kind @kind (-1: any). */
static gboolean
kind_ok (const WeftGraph *g, guint32 v, guint p, int kind)
{
    guint32 lid = g_array_index (weft_graph_node (g, v)->ports, guint32, p);
    return kind < 0 || (int) weft_graph_link (g, lid)->kind == kind;
}

/* Rank of port @p of @v among @v's ports to the same peer. */
static guint
cable_rank (const WeftGraph *g, guint32 v, guint p)
{
    guint32 peer, u;
    weft_graph_peer (g, v, p, &peer, NULL);
    guint r = 0;
    for (guint q = 0; q < p; q++)
        r += weft_graph_peer (g, v, q, &u, NULL) && u == peer;
    return r;
}

/* Sorts @ports of @v cable-major: by (rank among parallel cables, peer id). */
static void
ref_sort (const WeftGraph *g, guint32 v, GArray *ports)
{
    for (guint i = 0; i < ports->len; i++)
        for (guint j = i + 1; j < ports->len; j++) {
            guint a = g_array_index (ports, guint, i), b = g_array_index (ports, guint, j);
            guint32 pa, pb;
            weft_graph_peer (g, v, a, &pa, NULL);
            weft_graph_peer (g, v, b, &pb, NULL);
            guint64 ka = ((guint64) cable_rank (g, v, a) << 32) | pa;
            guint64 kb = ((guint64) cable_rank (g, v, b) << 32) | pb;
            if (kb < ka) {
                g_array_index (ports, guint, i) = b;
                g_array_index (ports, guint, j) = a;
            }
        }
}

/* The set of @v toward the search's sources: ports to a node one hop closer that is a source
 * or forwards. */
static void
ref_set_from (const WeftGraph *g, guint32 v, const guint *dist, int kind, GArray *out)
{
    g_array_set_size (out, 0);
    if (dist[v] == G_MAXUINT || dist[v] == 0)
        return;
    const WeftNode *n = weft_graph_node (g, v);
    for (guint p = 0; p < n->ports->len; p++) {
        guint32 u;
        if (!weft_graph_peer (g, v, p, &u, NULL) || dist[u] != dist[v] - 1 ||
            !kind_ok (g, v, p, kind))
            continue;
        if (dist[u] != 0 && !weft_graph_node (g, u)->forwards)
            continue;
        g_array_append_val (out, p);
    }
    ref_sort (g, v, out);
}

/* A fabric search toward @target: from a fabric node, the node itself; from a server node (a
 * NIC), its fabric neighbours one hop away. */
static void
ref_fabric_bfs (const WeftGraph *g, guint32 target, guint *dist)
{
    if (weft_graph_node (g, target)->server < 0) {
        ref_bfs (g, &target, 1, -1, -1, dist);
        return;
    }
    g_autoptr (GArray) first = g_array_new (FALSE, FALSE, sizeof (guint32));
    const WeftNode *t = weft_graph_node (g, target);
    for (guint p = 0; p < t->ports->len; p++) {
        guint32 u;
        if (weft_graph_peer (g, target, p, &u, NULL) && weft_graph_node (g, u)->server < 0)
            g_array_append_val (first, u);
    }
    ref_bfs (g, (guint32 *) first->data, first->len, -1, -1, dist);
    for (guint v = 0; v < weft_graph_n_nodes (g); v++)
        if (dist[v] != G_MAXUINT)
            dist[v]++;
    dist[target] = 0;
}

static gboolean
fabric_attached (const WeftGraph *g, guint32 v)
{
    const WeftNode *n = weft_graph_node (g, v);
    if (n->server < 0)
        return FALSE;
    for (guint p = 0; p < n->ports->len; p++) {
        guint32 u;
        if (weft_graph_peer (g, v, p, &u, NULL) && weft_graph_node (g, u)->server < 0)
            return TRUE;
    }
    return FALSE;
}

static void
assert_same (const WeftGraph *g, guint32 v, guint32 ep, const GArray *want)
{
    guint n;
    const guint32 *got = weft_graph_route_set (g, v, ep, &n);
    const char *vn = weft_graph_node (g, v)->name;
    const char *dn = weft_graph_node (g, weft_graph_endpoint_node (g, ep))->name;
    ck_assert_msg (n == want->len, "%s -> %s: %u ports, expected %u", vn, dn, n, want->len);
    for (guint i = 0; i < n; i++)
        ck_assert_msg (got[i] == g_array_index (want, guint, i),
                       "%s -> %s: port %u is %u, expected %u", vn, dn, i, got[i],
                       g_array_index (want, guint, i));
    guint32 st = weft_graph_route_static (g, v, ep);
    if (n == 0) {
        ck_assert_uint_eq (st, WEFT_GRAPH_NONE);
        return;
    }
    gboolean member = FALSE;
    for (guint i = 0; i < n; i++)
        member |= got[i] == st;
    ck_assert_msg (member, "%s -> %s: static port %u is not in the set", vn, dn, st);
}

/* Compares every (forwarding node, destination) route of @g with the reference; returns the
 * number of non-empty sets seen, so a test can tell it compared something. */
static guint
check_all (const WeftGraph *g)
{
    guint nn = weft_graph_n_nodes (g), ne = weft_graph_n_endpoints (g), seen = 0;
    guint *dist = g_new (guint, nn);
    g_autoptr (GArray) want = g_array_new (FALSE, FALSE, sizeof (guint));
    /* every destination's search, then every forwarding node's set from it */
    for (guint32 ep = 0; ep < ne; ep++) {
        guint32 d = weft_graph_endpoint_node (g, ep);
        gint32 sd = weft_graph_node (g, d)->server;
        guint32 target = sd < 0 ? d : weft_graph_gateway (g, d);
        if (target != WEFT_GRAPH_NONE && (sd < 0 || fabric_attached (g, target))) {
            ref_fabric_bfs (g, target, dist);
            for (guint32 v = 0; v < nn; v++) {
                const WeftNode *n = weft_graph_node (g, v);
                if (!n->forwards || n->server >= 0 || v == d)
                    continue;
                ref_set_from (g, v, dist, -1, want);
                assert_same (g, v, ep, want);
                seen += want->len > 0;
            }
        }
        if (sd < 0)
            continue;
        /* inside the destination's server: over NVLink to a GPU when NVLink reaches */
        gboolean gpu = weft_graph_node (g, d)->kind == WEFT_NODE_GPU;
        guint *dist_any = g_new (guint, nn);
        ref_bfs (g, &d, 1, sd, WEFT_LINK_NVLINK, dist);
        ref_bfs (g, &d, 1, sd, -1, dist_any);
        for (guint32 v = 0; v < nn; v++) {
            const WeftNode *n = weft_graph_node (g, v);
            if (!n->forwards || n->server != sd || v == d)
                continue;
            if (gpu)
                ref_set_from (g, v, dist, WEFT_LINK_NVLINK, want);
            if (!gpu || want->len == 0)
                ref_set_from (g, v, dist_any, -1, want);
            assert_same (g, v, ep, want);
            seen += want->len > 0;
        }
        g_free (dist_any);
    }
    /* server nodes toward destinations outside their server: the nearest NICs (a NIC itself:
     * its fabric ports) */
    for (guint32 v = 0; v < nn; v++) {
        const WeftNode *n = weft_graph_node (g, v);
        if (!n->forwards || n->server < 0)
            continue;
        g_autoptr (GArray) att = g_array_new (FALSE, FALSE, sizeof (guint32));
        for (guint32 u = 0; u < nn; u++)
            if (weft_graph_node (g, u)->server == n->server && fabric_attached (g, u))
                g_array_append_val (att, u);
        if (fabric_attached (g, v)) {
            g_array_set_size (want, 0);
            for (guint p = 0; p < n->ports->len; p++) {
                guint32 u;
                if (weft_graph_peer (g, v, p, &u, NULL) && weft_graph_node (g, u)->server < 0)
                    g_array_append_val (want, p);
            }
            ref_sort (g, v, want);
        } else {
            ref_bfs (g, (guint32 *) att->data, att->len, n->server, -1, dist);
            ref_set_from (g, v, dist, -1, want);
        }
        for (guint32 ep = 0; ep < ne; ep++) {
            guint32 d = weft_graph_endpoint_node (g, ep);
            gint32 sd = weft_graph_node (g, d)->server;
            guint32 target = sd < 0 ? d : weft_graph_gateway (g, d);
            if (sd == n->server || target == v || target == WEFT_GRAPH_NONE)
                continue;
            assert_same (g, v, ep, want);
        }
    }
    g_free (dist);
    return seen;
}

/* ---- the tests ------------------------------------------------------------------------- */

START_TEST (test_routes_fattree_batches)
{
    /* k = 12: 72 leaves, so two batches of the grouped search, the second of 8 */
    g_autoptr (WeftGraph) g = build_text ("[topology]\ngenerator = fattree\nk = 12\n");
    ck_assert_uint_eq (weft_graph_n_endpoints (g), 432);
    ck_assert_uint_gt (check_all (g), 180 * 400);
    g_autoptr (WeftGraph) g4 = build_text ("[topology]\ngenerator = fattree\nk = 4\n");
    ck_assert_uint_gt (check_all (g4), 0);
}
END_TEST

START_TEST (test_routes_leafspine_parallel_cables)
{
    g_autoptr (WeftGraph) g = build_text ("[topology]\ngenerator = leafspine\nleaves = 5\n"
                                          "spines = 3\nhosts_per_leaf = 3\nlinks_per_spine = 2\n");
    ck_assert_uint_gt (check_all (g), 0);
    /* a leaf toward another leaf's host: all 6 uplinks, cable-major (spines 0, 1, 2, then
     * their second cables) */
    guint32 leaf = weft_graph_lookup (g, "leaf0");
    guint n;
    const guint32 *set = weft_graph_route_set (g, leaf, 14, &n);
    ck_assert_uint_eq (n, 6);
    ck_assert_uint_eq (set[0], 3);
    ck_assert_uint_eq (set[1], 5);
    ck_assert_uint_eq (set[2], 7);
    ck_assert_uint_eq (set[3], 4);
}
END_TEST

START_TEST (test_routes_railopt_su)
{
    g_autoptr (WeftGraph) g =
        build_text ("[topology]\ngenerator = railopt\nsus = 2\nservers_per_su = 4\nradix = 16\n"
                    "servers = 7\n");
    ck_assert_uint_gt (check_all (g), 0);
}
END_TEST

START_TEST (test_routes_single_switch)
{
    g_autoptr (WeftGraph) g = build_text ("[topology]\ngenerator = single_switch\nhosts = 3000\n");
    guint32 sw = weft_graph_lookup (g, "sw0");
    for (guint32 ep = 0; ep < 3000; ep++) {
        guint n;
        const guint32 *set = weft_graph_route_set (g, sw, ep, &n);
        ck_assert_uint_eq (n, 1);
        guint32 peer;
        ck_assert (weft_graph_peer (g, sw, set[0], &peer, NULL));
        ck_assert_uint_eq (peer, weft_graph_endpoint_node (g, ep));
    }
}
END_TEST

/* Multi-homed hosts (each its own group), a switch that is a destination hanging off another,
 * parallel cables, a ring with two shortest ways around. */
static const char file_topo[] = "node s0 switch tier=1\n"
                                "node s1 switch tier=1\n"
                                "node s2 switch tier=2\n"
                                "node s3 switch tier=2\n"
                                "node s4 switch endpoint=1\n"
                                "node a host\n"
                                "node b host\n"
                                "node c host\n"
                                "node d host\n"
                                "link a s0 100Gbps\n"
                                "link a s1 100Gbps\n"
                                "link b s1 100Gbps\n"
                                "link b s1 100Gbps\n"
                                "link c s2 100Gbps\n"
                                "link d s3 100Gbps\n"
                                "link d s0 100Gbps\n"
                                "link s0 s2 100Gbps\n"
                                "link s0 s2 100Gbps\n"
                                "link s1 s3 100Gbps\n"
                                "link s2 s3 100Gbps\n"
                                "link s4 s3 100Gbps\n";

START_TEST (test_routes_file_multihomed)
{
    g_autoptr (WeftGraph) g = build_file (file_topo, NULL);
    ck_assert_uint_gt (check_all (g), 10);
}
END_TEST

/* A forwarding table changes exactly the routes it names. */
START_TEST (test_routes_file_overrides_exact)
{
    g_autoptr (WeftGraph) plain = build_file (file_topo, NULL);
    g_autoptr (WeftGraph) g = build_file (file_topo, "s2 b 1\ns1 c 3\ns3 a 4\n");
    guint nn = weft_graph_n_nodes (g), ne = weft_graph_n_endpoints (g), changed = 0;
    for (guint32 v = 0; v < nn; v++)
        for (guint32 ep = 0; ep < ne; ep++) {
            if (!weft_graph_node (g, v)->forwards)
                continue;
            const char *vn = weft_graph_node (g, v)->name;
            const char *dn = weft_graph_node (g, weft_graph_endpoint_node (g, ep))->name;
            guint32 want = weft_graph_route_static (plain, v, ep);
            if (!strcmp (vn, "s2") && !strcmp (dn, "b"))
                want = 0;
            else if (!strcmp (vn, "s1") && !strcmp (dn, "c"))
                want = 2;
            else if (!strcmp (vn, "s3") && !strcmp (dn, "a"))
                want = 3;
            changed += want != weft_graph_route_static (plain, v, ep);
            ck_assert_msg (weft_graph_route_static (g, v, ep) == want, "%s -> %s", vn, dn);
        }
    ck_assert_uint_ge (changed, 2);
}
END_TEST

/* Overrides set one by one read back as a map the test keeps: first few (the hash, growing),
 * then most cells (the dense array). */
START_TEST (test_routes_overrides_sparse_then_dense)
{
    g_autoptr (WeftGraph) g = build_text ("[topology]\ngenerator = fattree\nk = 8\n");
    guint nn = weft_graph_n_nodes (g), ne = weft_graph_n_endpoints (g);
    g_autoptr (GHashTable) map = g_hash_table_new (g_direct_hash, g_direct_equal);
    GRand *rnd = g_rand_new_with_seed (7);
    guint32 *plain = g_new (guint32, (gsize) nn * ne);
    for (guint32 v = 0; v < nn; v++)
        for (guint32 ep = 0; ep < ne; ep++)
            plain[(gsize) v * ne + ep] = weft_graph_route_static (g, v, ep);
    for (guint round = 0; round < 2; round++) {
        guint n_set = round == 0 ? 400 : 9000;
        for (guint i = 0; i < n_set; i++) {
            guint32 v = g_rand_int_range (rnd, 0, nn);
            guint32 ep = g_rand_int_range (rnd, 0, ne);
            if (weft_graph_node (g, v)->kind != WEFT_NODE_SWITCH)
                continue;
            guint32 port = g_rand_int_range (rnd, 0, 8);
            weft_graph_route_set_static (g, v, ep, port);
            g_hash_table_insert (map, GUINT_TO_POINTER (v * ne + ep), GUINT_TO_POINTER (port + 1));
        }
        for (guint32 v = 0; v < nn; v++)
            for (guint32 ep = 0; ep < ne; ep++) {
                gpointer o = g_hash_table_lookup (map, GUINT_TO_POINTER (v * ne + ep));
                guint32 want = o ? GPOINTER_TO_UINT (o) - 1 : plain[(gsize) v * ne + ep];
                ck_assert_uint_eq (weft_graph_route_static (g, v, ep), want);
            }
    }
    g_free (plain);
    g_rand_free (rnd);
}
END_TEST

/* The fabric table is per leaf: a k = 16 fat tree (320 switches, 128 leaves, 1024 hosts) would
 * need 320 x 1024 x 4 = 1.3 MB per destination; grouped, it is 320 x 128 x 4 = 164 kB plus
 * per-node and per-port arrays. */
/* Every node's flat view (sim/graph.h) against weft_graph_route_set: the same ports in the same
 * order for every destination, wherever the view applies; returns the nodes it applies at. */
static guint
check_views (const WeftGraph *g)
{
    guint flat = 0;
    for (guint32 v = 0; v < weft_graph_n_nodes (g); v++) {
        WeftRouteView view;
        weft_graph_route_view (g, v, &view);
        ck_assert (!weft_route_view_stale (&view));
        if (view.cells == NULL)
            continue;
        flat++;
        for (guint32 ep = 0; ep < weft_graph_n_endpoints (g); ep++) {
            guint n, m;
            const guint32 *want = weft_graph_route_set (g, v, ep, &n);
            const guint32 *got = weft_route_view_set (&view, ep, &m);
            ck_assert_msg (m == n, "node %u toward %u: %u ports, want %u", v, ep, m, n);
            for (guint i = 0; i < n; i++)
                ck_assert_uint_eq (got[i], want[i]);
        }
    }
    return flat;
}

START_TEST (test_routes_flat_views)
{
    g_autoptr (WeftGraph) ft = build_text ("[topology]\ngenerator = fattree\nk = 12\n");
    ck_assert_uint_eq (check_views (ft), 180); /* every switch, no host */
    g_autoptr (WeftGraph) ls = build_text ("[topology]\ngenerator = leafspine\nleaves = 5\n"
                                           "spines = 3\nhosts_per_leaf = 3\nlinks_per_spine = 2\n");
    ck_assert_uint_eq (check_views (ls), 8);
    /* servers: their NVSwitches and NICs take the graph's lookup, the rail switches the view */
    g_autoptr (WeftGraph) ro =
        build_text ("[topology]\ngenerator = railopt\nsus = 2\nservers_per_su = 4\nradix = 16\n"
                    "servers = 7\n");
    guint flat = check_views (ro);
    ck_assert_uint_gt (flat, 0);
    ck_assert_uint_lt (flat, weft_graph_n_nodes (ro) - weft_graph_n_endpoints (ro));
    /* a switch that is itself a destination has no view (its own endpoint has no route) */
    g_autoptr (WeftGraph) file = build_file (file_topo, NULL);
    ck_assert_uint_gt (check_views (file), 0);
    WeftRouteView view;
    weft_graph_route_view (file, weft_graph_lookup (file, "s4"), &view);
    ck_assert (view.cells == NULL);

    /* Tables computed again (a link cut, as a subnet manager does): a view filled before goes
     * stale, and filled again it gives the new sets. */
    guint32 leaf = weft_graph_lookup (ft, "pod0-edge0");
    weft_graph_route_view (ft, leaf, &view);
    guint32 up = WEFT_GRAPH_NONE;
    guint n;
    const guint32 *set = weft_route_view_set (&view, 431, &n);
    ck_assert_uint_eq (n, 6);
    up = set[0];
    const WeftNode *node = weft_graph_node (ft, leaf);
    weft_graph_set_link_cut (ft, g_array_index (node->ports, guint32, up), TRUE);
    weft_graph_routes_compute (ft);
    ck_assert (weft_route_view_stale (&view));
    weft_graph_route_view (ft, leaf, &view);
    set = weft_route_view_set (&view, 431, &n);
    ck_assert_uint_eq (n, 5);
    for (guint i = 0; i < n; i++)
        ck_assert_uint_ne (set[i], up);
    ck_assert_uint_eq (check_views (ft), 180);
}
END_TEST

START_TEST (test_routes_memory_per_group)
{
    g_autoptr (WeftGraph) g = build_text ("[topology]\ngenerator = fattree\nk = 16\n");
    ck_assert_uint_lt (weft_graph_routes_bytes (g), 320 * 1024 * 4 / 2);
    ck_assert_uint_gt (weft_graph_routes_bytes (g), 320 * 128 * 4);
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("routes");
    TCase *tc = tcase_create ("reference");
    tcase_add_checked_fixture (tc, harness_tmp_setup, harness_tmp_teardown);
    tcase_set_timeout (tc, 60);
    tcase_add_test (tc, test_routes_fattree_batches);
    tcase_add_test (tc, test_routes_leafspine_parallel_cables);
    tcase_add_test (tc, test_routes_railopt_su);
    tcase_add_test (tc, test_routes_single_switch);
    tcase_add_test (tc, test_routes_file_multihomed);
    tcase_add_test (tc, test_routes_file_overrides_exact);
    tcase_add_test (tc, test_routes_overrides_sparse_then_dense);
    tcase_add_test (tc, test_routes_flat_views);
    tcase_add_test (tc, test_routes_memory_per_group);
    suite_add_tcase (s, tc);
    return s;
}
