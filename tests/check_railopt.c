/* tests/check_railopt.c - rail-optimised fat trees, DGX servers and k-ary fat trees.
 *
 * Invariants checked: exact switch and cable counts for the SuperPOD sizes (radix 64, 32 slots
 * per SU, 1:1); NIC r on a rail-r leaf; every GPU pair reachable over loop-free static routes
 * with the expected switch hops (same rail in one SU: 1; across SUs: 3 in two tiers, 5 in three
 * unless spines are grouped per rail); D-mod-k balance (a shift permutation over the NICs,
 * numbered leaf-major, puts at most one flow on any link direction, and every leaf up port and
 * spine down port carries the same number of destination routes); the oversubscription
 * taper and its error; 64 SUs per rail (64 spines to a pod, 32 uplinks a leaf) refused naming
 * spine_grouping; the server sub-topology and GPUDirect staging; k-ary fat tree formulas.
 * Unchecked here: experiment-file parsing of these parameters (check_topology_build).
 */
#include "config.h"
#include <check.h>
#include <string.h>

#include "sim/graph.h"
#include "tests/harness.h"
#include "topologies/railopt.h"
#include "topologies/server.h"

static WeftServerParams server;

static void
setup (void)
{
    weft_params_set_defaults (weft_server_params (), &server);
}

static void
teardown (void)
{
    weft_params_clear (weft_server_params (), &server);
}

static WeftRailOptParams
superpod (guint64 sus, guint64 servers)
{
    WeftRailOptParams p = { .sus = sus,
                            .servers_per_su = 32,
                            .servers = servers,
                            .radix = 64,
                            .tiers = 0,
                            .spine_grouping = WEFT_SPINE_FULL_MESH,
                            .leaf_oversubscription = 1,
                            .spine_oversubscription = 1,
                            .spine_link_rate_bps = 400000000000ull,
                            .core_link_rate_bps = 400000000000ull,
                            .leaf_cable_length_m = 3,
                            .spine_cable_length_m = 20,
                            .core_cable_length_m = 50 };
    return p;
}

typedef struct {
    guint tier[4], cables[4][4], gpus, nics, servers;
} Counts;

static Counts
count (const WeftGraph *g)
{
    Counts c = { 0 };
    gint32 ms = -1;
    for (guint i = 0; i < weft_graph_n_nodes (g); i++) {
        const WeftNode *n = weft_graph_node (g, i);
        if (n->kind == WEFT_NODE_SWITCH)
            c.tier[n->tier]++;
        c.gpus += n->kind == WEFT_NODE_GPU;
        c.nics += n->kind == WEFT_NODE_NIC;
        ms = MAX (ms, n->server);
    }
    c.servers = ms + 1;
    for (guint i = 0; i < weft_graph_n_links (g); i++) {
        const WeftLink *l = weft_graph_link (g, i);
        if (l->kind != WEFT_LINK_FABRIC)
            continue;
        const WeftNode *a = weft_graph_node (g, l->a), *b = weft_graph_node (g, l->b);
        gint32 ta = a->kind == WEFT_NODE_SWITCH ? a->tier : 0;
        gint32 tb = b->kind == WEFT_NODE_SWITCH ? b->tier : 0;
        c.cables[MIN (ta, tb)][MAX (ta, tb)]++;
    }
    return c;
}

static WeftGraph *
build (const WeftRailOptParams *p)
{
    GError *err = NULL;
    WeftGraph *g = weft_topology_railopt (p, &server, &err);
    ck_assert_msg (g != NULL, "%s", err ? err->message : "?");
    return g;
}

static const struct {
    guint64 sus, servers, leaves, spines, cores;
} sizes[] = {
    { 1, 31, 8, 4, 0 },    { 2, 63, 16, 8, 0 },       { 4, 127, 32, 16, 0 },
    { 8, 256, 64, 32, 0 }, { 16, 512, 128, 128, 64 }, { 64, 2048, 512, 512, 256 },
};

START_TEST (test_railopt_superpod_counts)
{
    WeftRailOptParams p = superpod (sizes[_i].sus, sizes[_i].servers);
    g_autoptr (WeftGraph) g = build (&p);
    Counts c = count (g);
    ck_assert_uint_eq (c.tier[1], sizes[_i].leaves);
    ck_assert_uint_eq (c.tier[2], sizes[_i].spines);
    ck_assert_uint_eq (c.tier[3], sizes[_i].cores);
    ck_assert_uint_eq (c.servers, sizes[_i].servers);
    ck_assert_uint_eq (c.gpus, 8 * sizes[_i].servers);
    ck_assert_uint_eq (c.nics, 8 * sizes[_i].servers);
    ck_assert_uint_eq (c.cables[0][1], 8 * sizes[_i].servers);
    ck_assert_uint_eq (c.cables[1][2], sizes[_i].leaves * 32);
    if (sizes[_i].cores)
        ck_assert_uint_eq (c.cables[2][3], sizes[_i].spines * 32);
    /* NIC r of every server on a rail-r leaf */
    for (guint i = 0; i < weft_graph_n_nodes (g); i++) {
        const WeftNode *n = weft_graph_node (g, i);
        if (n->kind != WEFT_NODE_NIC)
            continue;
        guint32 leaf;
        ck_assert (weft_graph_peer (g, i, 1, &leaf, NULL));
        ck_assert_int_eq (weft_graph_node (g, leaf)->rail, n->rail);
        ck_assert_int_eq (weft_graph_node (g, leaf)->tier, 1);
    }
    /* names */
    ck_assert_uint_ne (weft_graph_lookup (g, "dgx-1/mlx5_11"), WEFT_GRAPH_NONE);
    ck_assert_uint_ne (weft_graph_lookup (g, "dgx-1/gpu7"), WEFT_GRAPH_NONE);
    ck_assert_uint_ne (weft_graph_lookup (g, "su0-rail3-leaf"), WEFT_GRAPH_NONE);
}
END_TEST

static guint
switch_hops (const WeftGraph *g, guint32 a, guint32 b)
{
    GArray *path = g_array_new (FALSE, FALSE, sizeof (guint32));
    guint h = weft_graph_route_path (g, a, b, path), n = 0;
    ck_assert_uint_ne (h, G_MAXUINT);
    for (guint i = 0; i < path->len; i++)
        n += weft_graph_node (g, g_array_index (path, guint32, i))->kind == WEFT_NODE_SWITCH;
    g_array_unref (path);
    return n;
}

static guint32
gpu (const WeftGraph *g, guint server_1based, guint k)
{
    char name[64];
    g_snprintf (name, sizeof name, "dgx-%u/gpu%u", server_1based, k);
    guint32 v = weft_graph_lookup (g, name);
    ck_assert_msg (v != WEFT_GRAPH_NONE, "%s", name);
    return v;
}

START_TEST (test_railopt_hops_two_tier)
{
    WeftRailOptParams p = superpod (2, 0);
    g_autoptr (WeftGraph) g = build (&p);
    weft_graph_routes_compute (g);
    ck_assert_uint_eq (switch_hops (g, gpu (g, 1, 3), gpu (g, 2, 3)), 1);  /* same rail, SU */
    ck_assert_uint_eq (switch_hops (g, gpu (g, 1, 3), gpu (g, 40, 3)), 3); /* other SU */
    ck_assert_uint_eq (switch_hops (g, gpu (g, 1, 3), gpu (g, 2, 4)), 3);  /* cross rail */
    ck_assert_uint_eq (switch_hops (g, gpu (g, 1, 3), gpu (g, 1, 4)), 0);  /* NVSwitch */
    ck_assert_uint_eq (weft_graph_route_hops (g, gpu (g, 1, 3), gpu (g, 1, 4)), 2);
    /* every endpoint reachable from dgx-1's GPUs, loop-free - but another server's NVSwitch
     * (an endpoint for NVLS), which only its own GPUs reach */
    guint n_ep = weft_graph_n_endpoints (g);
    for (guint s = 0; s < 8; s++)
        for (guint d = 0; d < n_ep; d++) {
            guint32 a = gpu (g, 1, s), b = weft_graph_endpoint_node (g, d);
            const WeftNode *nb = weft_graph_node (g, b);
            gboolean far_nvs = nb->kind == WEFT_NODE_NVSWITCH && nb->server != 0;
            ck_assert_uint_eq (weft_graph_route_hops (g, a, b) == G_MAXUINT, far_nvs);
        }
}
END_TEST

START_TEST (test_railopt_hops_three_tier)
{
    WeftRailOptParams p = superpod (16, 0);
    g_autoptr (WeftGraph) g = build (&p);
    weft_graph_routes_compute (g);
    ck_assert_uint_eq (switch_hops (g, gpu (g, 1, 0), gpu (g, 32, 0)), 1);
    ck_assert_uint_eq (switch_hops (g, gpu (g, 1, 0), gpu (g, 33, 0)), 5);
    ck_assert_uint_eq (switch_hops (g, gpu (g, 1, 0), gpu (g, 2, 5)), 3);
    p.spine_grouping = WEFT_SPINE_PER_RAIL;
    g_autoptr (WeftGraph) h = build (&p);
    weft_graph_routes_compute (h);
    Counts c = count (h);
    ck_assert_uint_eq (c.tier[2], 128);
    ck_assert_uint_eq (c.tier[3], 64);
    ck_assert_uint_eq (switch_hops (h, gpu (h, 1, 0), gpu (h, 33, 0)), 3);
    ck_assert_uint_eq (switch_hops (h, gpu (h, 1, 0), gpu (h, 33, 1)), 5);
}
END_TEST

/* Shift permutation over the NICs in fabric-column order (leaf-major). */
static guint
max_nic_shift_load (const WeftGraph *g, guint shift)
{
    GArray *nics = g_array_new (FALSE, FALSE, sizeof (guint32));
    /* leaf-major: leaves in node order, ports in order */
    for (guint v = 0; v < weft_graph_n_nodes (g); v++) {
        const WeftNode *n = weft_graph_node (g, v);
        if (n->kind != WEFT_NODE_SWITCH || n->tier != 1)
            continue;
        for (guint p = 0; p < n->ports->len; p++) {
            guint32 u;
            if (weft_graph_peer (g, v, p, &u, NULL) &&
                weft_graph_node (g, u)->kind == WEFT_NODE_NIC)
                g_array_append_val (nics, u);
        }
    }
    guint *load = g_new0 (guint, 2 * weft_graph_n_links (g)), worst = 0;
    for (guint s = 0; s < nics->len; s++) {
        guint32 a = g_array_index (nics, guint32, s);
        guint32 b = g_array_index (nics, guint32, (s + shift) % nics->len);
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
    g_array_unref (nics);
    return worst;
}

START_TEST (test_railopt_dmodk_balanced)
{
    static const guint64 sus[] = { 1, 2, 4, 8 };
    for (guint i = 0; i < G_N_ELEMENTS (sus); i++) {
        WeftRailOptParams p = superpod (sus[i], 0);
        g_autoptr (WeftGraph) g = build (&p);
        weft_graph_routes_compute (g);
        guint n = 256 * sus[i];
        guint shifts[] = { 1, 7, 31, 32, 33, 255, n / 2, n - 1 };
        for (guint k = 0; k < G_N_ELEMENTS (shifts); k++)
            ck_assert_msg (max_nic_shift_load (g, shifts[k]) <= 1, "%u SU shift %u", (guint) sus[i],
                           shifts[k]);
    }
}
END_TEST

/* Destinations (NICs, or GPUs) whose static route leaves switch @v through each port. */
static guint *
routes_per_port (const WeftGraph *g, guint32 v, WeftNodeKind dest_kind)
{
    const WeftNode *n = weft_graph_node (g, v);
    guint *per_port = g_new0 (guint, n->ports->len);
    for (guint ep = 0; ep < weft_graph_n_endpoints (g); ep++) {
        if (weft_graph_node (g, weft_graph_endpoint_node (g, ep))->kind != dest_kind)
            continue;
        guint32 port = weft_graph_route_static (g, v, ep);
        ck_assert_uint_lt (port, n->ports->len);
        per_port[port]++;
    }
    return per_port;
}

/* The "balanced": on the full 1, 2 and 4 SU fabrics every spine-facing port of a leaf
 * carries the routes of (N - 32) / 32 destinations (the N - 32 NICs or GPUs not on the leaf
 * over its 32 uplinks), and every port of a spine N / 64 (all N over its 64 down ports). */
START_TEST (test_railopt_dmodk_port_balance)
{
    static const guint64 sus[] = { 1, 2, 4 };
    static const WeftNodeKind kinds[] = { WEFT_NODE_NIC, WEFT_NODE_GPU };
    for (guint i = 0; i < G_N_ELEMENTS (sus); i++) {
        WeftRailOptParams p = superpod (sus[i], 0);
        g_autoptr (WeftGraph) g = build (&p);
        weft_graph_routes_compute (g);
        guint dests = 32 * 8 * sus[i], leaves = 0, spines = 0;
        for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
            for (guint32 v = 0; v < weft_graph_n_nodes (g); v++) {
                const WeftNode *n = weft_graph_node (g, v);
                if (n->kind != WEFT_NODE_SWITCH)
                    continue;
                g_autofree guint *per_port = routes_per_port (g, v, kinds[k]);
                guint up = 0, down = 0;
                for (guint port = 0; port < n->ports->len; port++) {
                    guint32 u;
                    ck_assert (weft_graph_peer (g, v, port, &u, NULL)); /* full: all cabled */
                    const WeftNode *peer = weft_graph_node (g, u);
                    gboolean is_up = peer->kind == WEFT_NODE_SWITCH && peer->tier > n->tier;
                    guint want = n->tier == 1 ? (is_up ? (dests - 32) / 32 : 1) : dests / 64;
                    ck_assert_msg (per_port[port] == want,
                                   "%u SU, %s destinations: %s port %u carries %u routes, "
                                   "expected %u",
                                   (guint) sus[i], weft_node_kind_name (kinds[k]), n->name,
                                   port + 1, per_port[port], want);
                    up += is_up;
                    down += !is_up;
                }
                ck_assert_uint_eq (up, n->tier == 1 ? 32 : 0);
                ck_assert_uint_eq (down, n->tier == 1 ? 32 : 64);
                leaves += n->tier == 1;
                spines += n->tier == 2;
            }
        ck_assert_uint_eq (leaves, 2 * 8 * sus[i]);
        ck_assert_uint_eq (spines, 2 * 4 * sus[i]);
    }
}
END_TEST

START_TEST (test_railopt_dmodk_balanced_three_tier)
{
    for (int grouping = 0; grouping < 2; grouping++) {
        WeftRailOptParams p = superpod (16, 0);
        p.spine_grouping = grouping;
        g_autoptr (WeftGraph) g = build (&p);
        weft_graph_routes_compute (g);
        guint shifts[] = { 1, 32, 100, 256, 1000, 2048, 4095 };
        for (guint k = 0; k < G_N_ELEMENTS (shifts); k++)
            ck_assert_msg (max_nic_shift_load (g, shifts[k]) <= 1, "grouping %d shift %u", grouping,
                           shifts[k]);
    }
}
END_TEST

START_TEST (test_railopt_oversubscription)
{
    /* 3:1 leaf: 48 down, 16 up on a 64-port switch */
    WeftRailOptParams p = superpod (1, 0);
    p.servers_per_su = 48;
    p.leaf_oversubscription = 3;
    g_autoptr (WeftGraph) g = build (&p);
    guint32 leaf = weft_graph_lookup (g, "su0-rail0-leaf");
    double down = 0, up = 0;
    const WeftNode *n = weft_graph_node (g, leaf);
    for (guint i = 0; i < n->ports->len; i++) {
        guint32 u;
        if (!weft_graph_peer (g, leaf, i, &u, NULL))
            continue;
        guint32 lid = g_array_index (n->ports, guint32, i);
        if (weft_graph_node (g, u)->kind == WEFT_NODE_SWITCH)
            up += weft_graph_link (g, lid)->rate_bps;
        else
            down += weft_graph_link (g, lid)->rate_bps;
    }
    ck_assert_double_eq_tol (down / up, 3.0, 1e-9);

    /* 3:1 with 32 downlinks is refused with 2:1 and 4:1 */
    p = superpod (1, 0);
    p.leaf_oversubscription = 3;
    GError *err = NULL;
    ck_assert_ptr_null (weft_topology_railopt (&p, &server, &err));
    ck_assert (g_error_matches (err, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_PARAM));
    ck_assert_ptr_nonnull (strstr (err->message, "[topology] leaf_oversubscription:"));
    ck_assert_ptr_nonnull (strstr (err->message, "4:1 (8 up)"));
    ck_assert_ptr_nonnull (strstr (err->message, "2:1 (16 up)"));
    g_clear_error (&err);

    /* 2:1 at 4 SU: 16 uplinks per leaf */
    p = superpod (4, 0);
    p.leaf_oversubscription = 2;
    g_autoptr (WeftGraph) h = build (&p);
    Counts c = count (h);
    ck_assert_uint_eq (c.cables[1][2], 32 * 16);
    ck_assert_uint_eq (c.tier[2], 8);
}
END_TEST

START_TEST (test_railopt_bad_params)
{
    GError *err = NULL;
    WeftRailOptParams p = superpod (1, 0);
    p.radix = 32; /* 32 servers per SU need more than 32 ports */
    ck_assert_ptr_null (weft_topology_railopt (&p, &server, &err));
    ck_assert_ptr_nonnull (strstr (err->message, "[topology] radix:"));
    g_clear_error (&err);
    p = superpod (16, 0);
    p.tiers = 2;
    ck_assert_ptr_null (weft_topology_railopt (&p, &server, &err));
    ck_assert_ptr_nonnull (strstr (err->message, "[topology] tiers:"));
    g_clear_error (&err);
    p = superpod (1, 40);
    ck_assert_ptr_null (weft_topology_railopt (&p, &server, &err));
    ck_assert_ptr_nonnull (strstr (err->message, "[topology] servers:"));
    g_clear_error (&err);
    /* 64 SUs per rail: 64 leaves to a pod, 64 spines, 32 uplinks per leaf (the parameters'
     * size says so too); at 32 SUs a leaf reaches each of 32 spines once */
    p = superpod (64, 0);
    p.spine_grouping = WEFT_SPINE_PER_RAIL;
    ck_assert_ptr_null (weft_topology_railopt (&p, &server, &err));
    ck_assert_msg (strstr (err->message, "[topology] spine_grouping: per_rail puts the 64 leaves "
                                         "of a rail in one pod, whose 64 spines"),
                   "%s", err->message);
    g_clear_error (&err);
    WeftGraphSize size;
    ck_assert (!weft_topology_railopt_size (&p, &server, &size, &err));
    ck_assert_ptr_nonnull (strstr (err->message, "[topology] spine_grouping:"));
    g_clear_error (&err);
    p.sus = 32;
    g_autoptr (WeftGraph) g32 = build (&p);
    p = superpod (1, 0);
    server.nics = 0;
    ck_assert_ptr_null (weft_topology_railopt (&p, &server, &err));
    ck_assert_ptr_nonnull (strstr (err->message, "[server] nics:"));
    g_clear_error (&err);
}
END_TEST

START_TEST (test_railopt_partial_su)
{
    WeftRailOptParams p = superpod (1, 31);
    g_autoptr (WeftGraph) g = build (&p);
    const WeftNode *leaf = weft_graph_node (g, weft_graph_lookup (g, "su0-rail0-leaf"));
    ck_assert_uint_eq (leaf->ports->len, 64);
    ck_assert_uint_eq (g_array_index (leaf->ports, guint32, 31), WEFT_GRAPH_NONE);
    ck_assert_uint_ne (g_array_index (leaf->ports, guint32, 32), WEFT_GRAPH_NONE);
}
END_TEST

/* layout = tor: the same switches and uplinks, each server's NICs all on one leaf - leaf t of
 * an SU holds slots t x 4 .. t x 4 + 3 (32 slots, 8 NICs), NIC r of slot k on port
 * (k mod 4) x 8 + r + 1; a partial SU fills its first leaves; the size estimate agrees. */
START_TEST (test_railopt_tor_layout)
{
    WeftRailOptParams p = superpod (2, 0);
    g_autoptr (WeftGraph) rail = build (&p);
    p.layout = WEFT_LAYOUT_TOR;
    g_autoptr (WeftGraph) tor = build (&p);
    WeftGraphSize a, b, est;
    weft_graph_measure (rail, &a);
    weft_graph_measure (tor, &b);
    ck_assert_uint_eq (a.nodes, b.nodes);
    ck_assert_uint_eq (a.links, b.links);
    ck_assert_uint_eq (a.switches, b.switches);
    ck_assert (weft_topology_railopt_size (&p, &server, &est, NULL));
    ck_assert_uint_eq (est.groups, b.groups);
    ck_assert_uint_eq (est.links, b.links);
    for (guint64 i = 0; i < 64; i++) {
        guint64 su = i / 32, slot = i % 32;
        for (guint r = 0; r < 8; r++) {
            g_autofree char *lf = g_strdup_printf (
                "su%" G_GUINT64_FORMAT "-rail%" G_GUINT64_FORMAT "-leaf", su, slot / 4);
            guint32 leaf = weft_graph_lookup (tor, lf);
            guint32 port = (guint32) (slot % 4 * 8 + r), peer;
            ck_assert (weft_graph_peer (tor, leaf, port, &peer, NULL));
            const WeftNode *nic = weft_graph_node (tor, peer);
            ck_assert_int_eq (nic->kind, WEFT_NODE_NIC);
            ck_assert_int_eq (nic->server, (gint32) i);
            ck_assert_int_eq (nic->rail, (gint32) r);
        }
    }
    /* Uplinks as in the rail layout: the leaf's ports 33.. to the spines. */
    guint32 l0 = weft_graph_lookup (tor, "su1-rail5-leaf"),
            l1 = weft_graph_lookup (rail, "su1-rail5-leaf");
    for (guint32 q = 32; q < 64; q++) {
        guint32 pa, pb;
        ck_assert (weft_graph_peer (tor, l0, q, &pa, NULL));
        ck_assert (weft_graph_peer (rail, l1, q, &pb, NULL));
        ck_assert_str_eq (weft_graph_node (tor, pa)->name, weft_graph_node (rail, pb)->name);
    }
    /* A partial SU: 37 servers fill SU 1's first two leaves (slots 0-3, 4). */
    p.servers = 37;
    g_autoptr (WeftGraph) part = build (&p);
    weft_graph_measure (part, &b);
    ck_assert (weft_topology_railopt_size (&p, &server, &est, NULL));
    ck_assert_uint_eq (est.groups, 8 + 2);
    ck_assert_uint_eq (b.groups, est.groups);
    /* Slots that are not a multiple of the NICs: refused, naming the key. */
    p.servers_per_su = 30;
    p.servers = 0;
    GError *err = NULL;
    ck_assert (weft_topology_railopt (&p, &server, &err) == NULL);
    ck_assert_msg (strstr (err->message, "[topology] layout:") != NULL, "%s", err->message);
    g_error_free (err);
}
END_TEST

START_TEST (test_server_shape_and_gpudirect)
{
    WeftRailOptParams p = superpod (1, 4);
    server.gpudirect = FALSE;
    g_autoptr (WeftGraph) g = build (&p);
    weft_graph_routes_compute (g);
    ck_assert (!weft_graph_gpudirect (g));
    guint32 g3 = gpu (g, 2, 3), cpu = weft_graph_lookup (g, "dgx-2/cpu");
    ck_assert_uint_eq (weft_graph_staging (g, g3), cpu);
    ck_assert_uint_eq (weft_graph_gateway (g, g3), weft_graph_lookup (g, "dgx-2/mlx5_5"));
    ck_assert_uint_eq (weft_graph_route_hops (g, g3, cpu), 2);
    /* GPU -> PCIe switch -> NIC; 8 NVSwitch links per server, 8 x 4 PCIe links */
    guint nv = 0, pcie = 0;
    for (guint i = 0; i < weft_graph_n_links (g); i++) {
        nv += weft_graph_link (g, i)->kind == WEFT_LINK_NVLINK;
        pcie += weft_graph_link (g, i)->kind == WEFT_LINK_PCIE;
    }
    ck_assert_uint_eq (nv, 4 * 8);
    ck_assert_uint_eq (pcie, 4 * 8 * 3);
    ck_assert_uint_eq (weft_graph_link (g, 0)->rate_bps, 400000000000ull); /* 50 GB/s */
    server.gpudirect = TRUE;
    g_autoptr (WeftGraph) h = build (&p);
    ck_assert_uint_eq (weft_graph_staging (h, gpu (h, 2, 3)), gpu (h, 2, 3));
    /* staged from collective 5 on (gpudirect-off after = collective.6); from the start above */
    guint32 h3 = gpu (h, 2, 3), hcpu = weft_graph_lookup (h, "dgx-2/cpu");
    weft_graph_set_staging_from (h, h3, hcpu, 5);
    ck_assert_uint_eq (weft_graph_staging_for (h, h3, 4), h3);
    ck_assert_uint_eq (weft_graph_staging_for (h, h3, 5), hcpu);
    ck_assert_uint_eq (weft_graph_staging_for (h, h3, 9), hcpu);
    ck_assert_uint_eq (weft_graph_staging_for (h, gpu (h, 2, 2), 9), gpu (h, 2, 2));
    ck_assert_uint_eq (weft_graph_staging_for (g, g3, 0), cpu);
}
END_TEST

/* gpudirect-off for a window of time (at = 100us, until = 300us on one GPU, at = 200us to the
 * end on another): the epochs are the intervals between the windows' ends, [0, 100us),
 * [100us, 200us), [200us, 300us), [300us, ...); a collective starting at t takes the epoch of
 * the ends at or before t (so one starting exactly at `at` is staged, one starting exactly at
 * `until` is not), and a GPU stages in the epochs inside its window only. */
START_TEST (test_server_gpudirect_window_epochs)
{
    WeftRailOptParams p = superpod (1, 4);
    g_autoptr (WeftGraph) h = build (&p);
    guint32 a = gpu (h, 2, 3), b = gpu (h, 3, 0), other = gpu (h, 2, 2);
    guint32 cpu2 = weft_graph_lookup (h, "dgx-2/cpu"), cpu3 = weft_graph_lookup (h, "dgx-3/cpu");
    ck_assert_uint_eq (weft_graph_staging_n_epochs (h), 1);
    ck_assert_uint_eq (weft_graph_staging_epoch (h, WEFT_US (500)), 0);
    weft_graph_set_staging_window (h, a, cpu2, WEFT_US (100), WEFT_US (300));
    weft_graph_set_staging_window (h, b, cpu3, WEFT_US (200), WEFT_TIME_NEVER);
    ck_assert_uint_eq (weft_graph_staging_n_epochs (h), 4);
    static const struct {
        weft_time_t t;
        guint epoch;
    } at[] = { { 0, 0 },
               { WEFT_US (100) - 1, 0 },
               { WEFT_US (100), 1 },
               { WEFT_US (250), 2 },
               { WEFT_US (300), 3 },
               { WEFT_TIME_NEVER - 1, 3 } };
    for (guint k = 0; k < G_N_ELEMENTS (at); k++)
        ck_assert_uint_eq (weft_graph_staging_epoch (h, at[k].t), at[k].epoch);
    ck_assert_uint_eq (weft_graph_staging_epoch_start (h, 2), WEFT_US (200));
    const guint32 want_a[] = { a, cpu2, cpu2, a }, want_b[] = { b, b, cpu3, cpu3 };
    for (guint e = 0; e < 4; e++) {
        ck_assert_uint_eq (weft_graph_staging_in (h, a, 7, e), want_a[e]);
        ck_assert_uint_eq (weft_graph_staging_in (h, b, 7, e), want_b[e]);
        ck_assert_uint_eq (weft_graph_staging_in (h, other, 7, e), other);
    }
    /* the layout laid out first (epoch 0) is the unstaged one */
    ck_assert_uint_eq (weft_graph_staging_for (h, a, 7), a);
}
END_TEST

/* GPU to GPU inside a server: over NVLink only, whatever the PCIe layout.  With fewer NICs than
 * GPUs, GPUs share a PCIe switch, and the path through it (GPU - PCIe switch - GPU) is as short
 * as the one through the NVSwitch: every equal-cost port at every hop must still be NVLink. */
START_TEST (test_server_gpu_pairs_take_nvlink)
{
    static const guint64 nics[] = { 8, 4, 2, 1 };
    for (guint k = 0; k < G_N_ELEMENTS (nics); k++) {
        server.nics = nics[k];
        WeftRailOptParams p = superpod (1, 2);
        g_autoptr (WeftGraph) g = build (&p);
        weft_graph_routes_compute (g);
        for (guint a = 0; a < 8; a++)
            for (guint b = 0; b < 8; b++) {
                if (a == b)
                    continue;
                guint32 src = gpu (g, 1, a), dst = gpu (g, 1, b);
                guint32 ep = weft_graph_node (g, dst)->endpoint;
                g_autoptr (GArray) path = g_array_new (FALSE, FALSE, sizeof (guint32));
                ck_assert_uint_eq (weft_graph_route_path (g, src, dst, path), 2);
                for (guint i = 0; i + 1 < path->len; i++) {
                    guint32 v = g_array_index (path, guint32, i), n = 0;
                    const guint32 *set = weft_graph_route_set (g, v, ep, &n);
                    ck_assert_uint_gt (n, 0);
                    for (guint j = 0; j < n; j++) {
                        guint32 lid =
                            g_array_index (weft_graph_node (g, v)->ports, guint32, set[j]);
                        ck_assert_msg (weft_graph_link (g, lid)->kind == WEFT_LINK_NVLINK,
                                       "nics=%u: gpu%u -> gpu%u leaves %s by a %s link",
                                       (guint) nics[k], a, b, weft_graph_node (g, v)->name,
                                       weft_link_kind_name (weft_graph_link (g, lid)->kind));
                    }
                }
            }
    }
    server.nics = 8;
}
END_TEST

START_TEST (test_fattree_counts)
{
    static const guint64 ks[] = { 4, 8, 16, 48 };
    for (guint i = 0; i < G_N_ELEMENTS (ks); i++) {
        guint64 k = ks[i];
        WeftFatTreeParams p = { .k = k, .link_rate_bps = 1 };
        g_autoptr (WeftGraph) g = weft_topology_fattree (&p, NULL);
        guint hosts = 0, sws = 0;
        for (guint v = 0; v < weft_graph_n_nodes (g); v++) {
            hosts += weft_graph_node (g, v)->kind == WEFT_NODE_HOST;
            sws += weft_graph_node (g, v)->kind == WEFT_NODE_SWITCH;
        }
        ck_assert_uint_eq (hosts, k * k * k / 4);
        ck_assert_uint_eq (sws, 5 * k * k / 4);
        ck_assert_uint_eq (weft_graph_n_links (g), 3 * k * k * k / 4);
        if (k <= 8) {
            weft_graph_routes_compute (g);
            for (guint s = 1; s < hosts; s += 3)
                ck_assert_uint_le (max_nic_shift_load (g, s), 1);
        }
    }
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("railopt");
    TCase *tc = tcase_create ("railopt");
    tcase_add_checked_fixture (tc, setup, teardown);
    tcase_set_timeout (tc, 120);
    tcase_add_loop_test (tc, test_railopt_superpod_counts, 0, G_N_ELEMENTS (sizes));
    tcase_add_test (tc, test_railopt_hops_two_tier);
    tcase_add_test (tc, test_railopt_hops_three_tier);
    tcase_add_test (tc, test_railopt_dmodk_balanced);
    tcase_add_test (tc, test_railopt_dmodk_balanced_three_tier);
    tcase_add_test (tc, test_railopt_dmodk_port_balance);
    tcase_add_test (tc, test_railopt_oversubscription);
    tcase_add_test (tc, test_railopt_bad_params);
    tcase_add_test (tc, test_railopt_partial_su);
    tcase_add_test (tc, test_railopt_tor_layout);
    tcase_add_test (tc, test_server_shape_and_gpudirect);
    tcase_add_test (tc, test_server_gpudirect_window_epochs);
    tcase_add_test (tc, test_server_gpu_pairs_take_nvlink);
    tcase_add_test (tc, test_fattree_counts);
    suite_add_tcase (s, tc);
    return s;
}
