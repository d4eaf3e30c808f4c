/* tests/check_updn.c - the up/down routing engine: on fat trees it equals minhop, and on
 * fabrics with cycles it never turns up after going down (where minhop does), reaches every
 * destination, and its channel dependencies have no cycle (so credit loops cannot deadlock).
 * Unchecked here: minhop's own balance (check_topology_build).
 */
#include "config.h"
#include <check.h>
#include <glib/gstdio.h>

#include "sim/experiment.h"
#include "tests/harness.h"
#include "topologies/minhop.h"
#include "topologies/topology.h"
#include "topologies/updn.h"

static WeftGraph *
build_text (const char *text)
{
    g_autoptr (GError) error = NULL;
    g_autoptr (WeftExperiment) exp = weft_experiment_new_from_data (text, "t.ini", &error);
    WeftGraph *g = exp ? weft_topology_build (exp, &error) : NULL;
    ck_assert_msg (g != NULL, "%s", error ? error->message : "");
    return g;
}

static WeftGraph *
build_file (const char *file, const char *engine)
{
    g_autoptr (GError) error = NULL;
    g_autofree char *path = harness_srcpath (file);
    g_autofree char *set = g_strconcat ("topology:routing_engine=", engine, NULL);
    g_autoptr (WeftExperiment) exp = weft_experiment_load (path, &error);
    ck_assert_msg (exp != NULL, "%s", error ? error->message : "");
    ck_assert (weft_experiment_set (exp, set, &error));
    WeftGraph *g = weft_topology_build (exp, &error);
    ck_assert_msg (g != NULL, "%s", error ? error->message : "");
    return g;
}

/* Every static route of a fabric switch toward a host or NIC is the same in @a and @b, and
 * lies in the minimal set; returns how many routes had a choice. */
static guint
assert_same_routes (const WeftGraph *a, const WeftGraph *b)
{
    guint choices = 0;
    ck_assert_uint_eq (weft_graph_n_nodes (a), weft_graph_n_nodes (b));
    for (guint32 sw = 0; sw < weft_graph_n_nodes (a); sw++) {
        const WeftNode *n = weft_graph_node (a, sw);
        if (n->kind != WEFT_NODE_SWITCH)
            continue;
        for (guint32 ep = 0; ep < weft_graph_n_endpoints (a); ep++) {
            WeftNodeKind k = weft_graph_node (a, weft_graph_endpoint_node (a, ep))->kind;
            if (k != WEFT_NODE_HOST && k != WEFT_NODE_NIC)
                continue;
            guint m;
            const guint32 *set = weft_graph_route_set (b, sw, ep, &m);
            guint32 p = weft_graph_route_static (b, sw, ep);
            ck_assert_msg (weft_graph_route_static (a, sw, ep) == p, "%s -> endpoint %u: %u vs %u",
                           n->name, ep, weft_graph_route_static (a, sw, ep), p);
            gboolean minimal = m == 0;
            for (guint i = 0; i < m; i++)
                minimal |= set[i] == p;
            ck_assert (minimal);
            choices += m > 1;
        }
    }
    return choices;
}

START_TEST (test_updn_equals_minhop_on_fat_trees)
{
    static const char *const texts[] = {
        "[topology]\ngenerator = leafspine\nleaves = 4\nspines = 4\nhosts_per_leaf = 8\n",
        "[topology]\ngenerator = leafspine\nleaves = 6\nspines = 3\nhosts_per_leaf = 5\n",
        "[topology]\ngenerator = fattree\nk = 4\n",
        "[topology]\ngenerator = fattree\nk = 6\n",
    };
    for (guint i = 0; i < G_N_ELEMENTS (texts); i++) {
        g_autofree char *mh = g_strconcat (texts[i], "routing_engine = minhop\n", NULL);
        g_autofree char *ud = g_strconcat (texts[i], "routing_engine = updn\n", NULL);
        g_autoptr (WeftGraph) a = build_text (mh);
        g_autoptr (WeftGraph) b = build_text (ud);
        ck_assert_uint_gt (assert_same_routes (a, b), 0);
    }
    /* a rail-optimised SuperPOD scalable unit: NIC destinations inside servers */
    g_autoptr (WeftGraph) a = build_file ("experiments/superpod-1su.ini", "minhop");
    g_autoptr (WeftGraph) b = build_file ("experiments/superpod-1su.ini", "updn");
    ck_assert_uint_gt (assert_same_routes (a, b), 0);
}
END_TEST

/* Tiered fabrics are ranked from the top tier: the spines are the roots. */
START_TEST (test_updn_ranks_from_top_tier)
{
    g_autoptr (WeftGraph) g =
        build_text ("[topology]\ngenerator = fattree\nk = 4\nrouting_engine = updn\n");
    g_autofree guint32 *rank = weft_updn_ranks (g);
    for (guint32 v = 0; v < weft_graph_n_nodes (g); v++) {
        const WeftNode *n = weft_graph_node (g, v);
        if (n->kind == WEFT_NODE_SWITCH)
            ck_assert_uint_eq (rank[v], 3 - n->tier);
        else
            ck_assert_uint_eq (rank[v], WEFT_GRAPH_NONE);
    }
}
END_TEST

/* A @w x @h grid of switches, wrapped into a torus when @wrap, with one host on each. */
static WeftGraph *
grid (guint w, guint h, gboolean wrap, gboolean updn)
{
    WeftGraph *g = weft_graph_new ();
    guint32 sw[64];
    for (guint i = 0; i < w * h; i++) {
        g_autofree char *name = g_strdup_printf ("sw%u", i);
        g_autofree char *host = g_strdup_printf ("host%u", i);
        sw[i] = weft_graph_add_node (g, name, WEFT_NODE_SWITCH, 0);
        guint32 hn = weft_graph_add_node (g, host, WEFT_NODE_HOST, 0);
        weft_graph_connect (g, sw[i], WEFT_GRAPH_NONE, hn, WEFT_GRAPH_NONE, 100000000000ULL, 0,
                            WEFT_LINK_FABRIC);
    }
    for (guint y = 0; y < h; y++)
        for (guint x = 0; x < w; x++) {
            guint i = y * w + x;
            if (x + 1 < w || (wrap && w > 2))
                weft_graph_connect (g, sw[i], WEFT_GRAPH_NONE, sw[y * w + (x + 1) % w],
                                    WEFT_GRAPH_NONE, 100000000000ULL, 0, WEFT_LINK_FABRIC);
            if (h > 1 && (y + 1 < h || (wrap && h > 2)))
                weft_graph_connect (g, sw[i], WEFT_GRAPH_NONE, sw[((y + 1) % h) * w + x],
                                    WEFT_GRAPH_NONE, 100000000000ULL, 0, WEFT_LINK_FABRIC);
        }
    weft_graph_routes_compute (g);
    if (updn)
        weft_updn_route (g);
    else
        weft_minhop_route (g);
    return g;
}

typedef struct {
    guint down_up;      /* host pairs whose static path turns up after going down */
    guint paths;        /* host pairs routed */
    gboolean cdg_cycle; /* the channel dependency graph has a cycle */
} Turns;

/* The directed channel (link, direction) from node @from to its neighbour @to. */
static guint32
channel (const WeftGraph *g, guint32 from, guint32 to)
{
    const WeftNode *n = weft_graph_node (g, from);
    for (guint32 p = 0; p < n->ports->len; p++) {
        guint32 q, qp;
        if (weft_graph_peer (g, from, p, &q, &qp) && q == to)
            return g_array_index (n->ports, guint32, p) * 2 + weft_graph_direction (g, from, p);
    }
    ck_abort ();
    return 0;
}

/* Depth-first search for a cycle from channel @c (colour 1: on the stack, 2: done). */
static gboolean
dfs_cycle (GPtrArray *deps, guint8 *colour, guint c)
{
    colour[c] = 1;
    GArray *next = g_ptr_array_index (deps, c);
    for (guint i = 0; next && i < next->len; i++) {
        guint d = g_array_index (next, guint, i);
        if (colour[d] == 1 || (colour[d] == 0 && dfs_cycle (deps, colour, d)))
            return TRUE;
    }
    colour[c] = 2;
    return FALSE;
}

static void
array_unref0 (gpointer a)
{
    if (a)
        g_array_unref (a);
}

static Turns
turns (const WeftGraph *g)
{
    Turns t = { 0 };
    g_autofree guint32 *rank = weft_updn_ranks (g);
    guint n_ch = 2 * weft_graph_n_links (g);
    g_autoptr (GPtrArray) deps = g_ptr_array_new_with_free_func (array_unref0);
    for (guint i = 0; i < n_ch; i++)
        g_ptr_array_add (deps, NULL);
    g_autoptr (GArray) path = g_array_new (FALSE, FALSE, sizeof (guint32));
    for (guint32 s = 0; s < weft_graph_n_nodes (g); s++)
        for (guint32 d = 0; d < weft_graph_n_nodes (g); d++) {
            if (s == d || weft_graph_node (g, s)->kind != WEFT_NODE_HOST ||
                weft_graph_node (g, d)->kind != WEFT_NODE_HOST)
                continue;
            g_array_set_size (path, 0);
            ck_assert_uint_ne (weft_graph_route_path (g, s, d, path), G_MAXUINT);
            t.paths++;
            gboolean went_down = FALSE, down_up = FALSE;
            /* switch-to-switch hops only: path[1] .. path[len-2] are switches */
            for (guint i = 1; i + 2 < path->len; i++) {
                guint32 a = g_array_index (path, guint32, i),
                        b = g_array_index (path, guint32, i + 1);
                gboolean up = weft_updn_is_up (rank, a, b);
                down_up |= up && went_down;
                went_down |= !up;
            }
            t.down_up += down_up;
            for (guint i = 0; i + 2 < path->len; i++) {
                guint c0 = channel (g, g_array_index (path, guint32, i),
                                    g_array_index (path, guint32, i + 1));
                guint c1 = channel (g, g_array_index (path, guint32, i + 1),
                                    g_array_index (path, guint32, i + 2));
                if (g_ptr_array_index (deps, c0) == NULL)
                    deps->pdata[c0] = g_array_new (FALSE, FALSE, sizeof (guint));
                g_array_append_val ((GArray *) g_ptr_array_index (deps, c0), c1);
            }
        }
    g_autofree guint8 *colour = g_new0 (guint8, n_ch);
    for (guint c = 0; c < n_ch && !t.cdg_cycle; c++)
        if (colour[c] == 0)
            t.cdg_cycle = dfs_cycle (deps, colour, c);
    return t;
}

START_TEST (test_updn_no_down_up_turns_on_cycles)
{
    static const struct {
        guint w, h;
        gboolean wrap;
    } shapes[] = { { 6, 1, TRUE }, { 3, 3, TRUE }, { 4, 4, TRUE }, { 4, 3, FALSE } };
    guint minhop_down_up = 0;
    for (guint i = 0; i < G_N_ELEMENTS (shapes); i++) {
        g_autoptr (WeftGraph) mh = grid (shapes[i].w, shapes[i].h, shapes[i].wrap, FALSE);
        g_autoptr (WeftGraph) ud = grid (shapes[i].w, shapes[i].h, shapes[i].wrap, TRUE);
        Turns tm = turns (mh), tu = turns (ud);
        guint n = shapes[i].w * shapes[i].h;
        ck_assert_uint_eq (tu.paths, n * (n - 1));
        ck_assert_uint_eq (tu.down_up, 0);
        ck_assert (!tu.cdg_cycle);
        minhop_down_up += tm.down_up;
    }
    /* the reason updn exists: minhop's minimal paths do turn up after going down */
    ck_assert_uint_gt (minhop_down_up, 0);
}
END_TEST

/* Through [topology] routing_engine = updn on a topology file: a ring of five switches with a
 * host each (no tiers, so the roots come from distances to the hosts).  minhop's shortest paths
 * around the ring turn up after going down; updn's never do. */
START_TEST (test_updn_topology_file)
{
    g_autofree char *dir = g_dir_make_tmp ("weft-updn-XXXXXX", NULL);
    g_autofree char *topo = g_build_filename (dir, "ring.topo", NULL);
    GString *text = g_string_new ("# a ring of switches\n");
    for (guint i = 0; i < 5; i++)
        g_string_append_printf (
            text, "node sw%u switch\nnode host%u host\nlink host%u sw%u 100Gbps\n", i, i, i, i);
    for (guint i = 0; i < 5; i++)
        g_string_append_printf (text, "link sw%u sw%u 100Gbps\n", i, (i + 1) % 5);
    ck_assert (g_file_set_contents (topo, text->str, -1, NULL));
    g_string_free (text, TRUE);
    g_autofree char *exp_mh = g_strdup_printf ("[topology]\ngenerator = file\nfile = %s\n"
                                               "routing_engine = minhop\n",
                                               topo);
    g_autofree char *exp_ud = g_strdup_printf ("[topology]\ngenerator = file\nfile = %s\n"
                                               "routing_engine = updn\n",
                                               topo);
    g_autoptr (WeftGraph) mh = build_text (exp_mh);
    g_autoptr (WeftGraph) ud = build_text (exp_ud);
    Turns tm = turns (mh), tu = turns (ud);
    ck_assert_uint_eq (tu.paths, 20);
    ck_assert_uint_eq (tu.down_up, 0);
    ck_assert (!tu.cdg_cycle);
    ck_assert_uint_gt (tm.down_up, 0);
    g_unlink (topo);
    g_rmdir (dir);
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("updn");
    TCase *tc = tcase_create ("updn");
    tcase_set_timeout (tc, 60);
    tcase_add_test (tc, test_updn_equals_minhop_on_fat_trees);
    tcase_add_test (tc, test_updn_ranks_from_top_tier);
    tcase_add_test (tc, test_updn_no_down_up_turns_on_cycles);
    tcase_add_test (tc, test_updn_topology_file);
    suite_add_tcase (s, tc);
    return s;
}
