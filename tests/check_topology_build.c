/* tests/check_topology_build.c - weft_topology_build from experiment text: the shipped
 * experiments/ files build with the exact SuperPOD counts, bad parameters give one error line
 * naming group and key, and the explicit topology-file generator works.
 * Unchecked here: the generators' internals (check_railopt, check_topology).
 */
#include "config.h"
#include <check.h>
#include <glib/gstdio.h>
#include <string.h>

#include "sim/experiment.h"
#include "tests/harness.h"
#include "topologies/topology.h"

static WeftGraph *
build_text (const char *text, GError **error)
{
    g_autoptr (WeftExperiment) exp = weft_experiment_new_from_data (text, "t.ini", error);
    return exp ? weft_topology_build (exp, error) : NULL;
}

static guint
count_tier (const WeftGraph *g, gint32 tier)
{
    guint n = 0;
    for (guint i = 0; i < weft_graph_n_nodes (g); i++)
        n += weft_graph_node (g, i)->kind == WEFT_NODE_SWITCH &&
             weft_graph_node (g, i)->tier == tier;
    return n;
}

START_TEST (test_topology_build_experiments)
{
    static const struct {
        const char *file;
        guint gpus, leaves, spines, cores;
    } want[] = {
        { "experiments/dgx4.ini", 32, 8, 4, 0 },
        { "experiments/superpod-1su.ini", 248, 8, 4, 0 },
        { "experiments/superpod-4su.ini", 1016, 32, 16, 0 },
        { "experiments/superpod-16su.ini", 4096, 128, 128, 64 },
        { "experiments/superpod-4su-oversub-2to1.ini", 1016, 32, 8, 0 },
        { "experiments/leafspine-3to1.ini", 384, 8, 2, 0 },
    };
    for (guint i = 0; i < G_N_ELEMENTS (want); i++) {
        g_autofree char *path = harness_srcpath (want[i].file);
        GError *err = NULL;
        g_autoptr (WeftExperiment) exp = weft_experiment_load (path, &err);
        ck_assert_msg (exp != NULL, "%s", err ? err->message : "");
        g_autoptr (WeftGraph) g = weft_topology_build (exp, &err);
        ck_assert_msg (g != NULL, "%s", err ? err->message : "");
        guint gpus = 0;
        for (guint v = 0; v < weft_graph_n_nodes (g); v++)
            gpus += weft_graph_node (g, v)->kind == WEFT_NODE_GPU;
        ck_assert_uint_eq (gpus, want[i].gpus);
        ck_assert_uint_eq (count_tier (g, 1), want[i].leaves);
        ck_assert_uint_eq (count_tier (g, 2), want[i].spines);
        ck_assert_uint_eq (count_tier (g, 3), want[i].cores);
        ck_assert (weft_graph_routes_ready (g));
    }
}
END_TEST

static void
assert_fails (const char *text, const char *needle)
{
    GError *err = NULL;
    WeftGraph *g = build_text (text, &err);
    ck_assert_msg (g == NULL, "built: %s", text);
    ck_assert_msg (strstr (err->message, needle) != NULL, "'%s' not in '%s'", needle, err->message);
    ck_assert_msg (strchr (err->message, '\n') == NULL, "more than one line");
    ck_assert_msg (g_str_has_prefix (err->message, "t.ini: ["), "no file prefix: %s", err->message);
    g_error_free (err);
}

START_TEST (test_topology_build_bad_params)
{
    assert_fails ("[topology]\ngenerator = railopt\nleaf_oversubscription = 3:1\n",
                  "[topology] leaf_oversubscription: 3:1 does not fit 32 down ports");
    assert_fails ("[topology]\ngenerator = railopt\nradix = 32\n", "[topology] radix:");
    assert_fails ("[topology]\ngenerator = railopt\nsus = 16\ntiers = 2\n", "[topology] tiers:");
    assert_fails ("[topology]\ngenerator = railopt\n[server]\nnics = 0\n", "[server] nics");
    assert_fails ("[topology]\ngenerator = railopt\nservers = 33\n", "[topology] servers:");
    assert_fails ("[topology]\ngenerator = railsopt\n", "did you mean 'railopt'");
    assert_fails ("[topology]\ngenerator = fattree\nk = 5\n", "[topology] k:");
    assert_fails ("[topology]\ngenerator = leafspine\n[server]\ngpus = 8\n", "[server]");
}
END_TEST

START_TEST (test_topology_build_file)
{
    g_autofree char *dir = g_dir_make_tmp ("weft-topo-XXXXXX", NULL);
    g_autofree char *topo = g_build_filename (dir, "t.topo", NULL);
    const char *text = "# two hosts on a switch\n"
                       "node sw0 switch ports=4 tier=1\n"
                       "node a host\n"
                       "node b host\n"
                       "link a sw0:3 100Gbps 1us\n"
                       "link b sw0 100Gbps\n";
    ck_assert (g_file_set_contents (topo, text, -1, NULL));
    g_autofree char *ini = g_strdup_printf ("[topology]\ngenerator = file\nfile = %s\n", topo);
    GError *err = NULL;
    g_autoptr (WeftGraph) g = build_text (ini, &err);
    ck_assert_msg (g != NULL, "%s", err ? err->message : "");
    ck_assert_uint_eq (weft_graph_n_nodes (g), 3);
    guint32 peer, pp;
    ck_assert (weft_graph_peer (g, weft_graph_lookup (g, "a"), 0, &peer, &pp));
    ck_assert_uint_eq (pp, 2);
    ck_assert_uint_eq (weft_graph_link (g, 0)->delay_ps, 1000000);
    ck_assert_uint_eq (
        weft_graph_route_hops (g, weft_graph_lookup (g, "a"), weft_graph_lookup (g, "b")), 2);
    ck_assert (g_file_set_contents (topo, "node x host\nlink x y 1Gbps\n", -1, NULL));
    WeftGraph *bad = build_text (ini, &err);
    ck_assert_ptr_null (bad);
    ck_assert (g_error_matches (err, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_FILE));
    ck_assert_ptr_nonnull (strstr (err->message, "t.topo:2:"));
    g_clear_error (&err);
    g_unlink (topo);
    g_rmdir (dir);
}
END_TEST

/* minhop: every leaf spreads the remote destinations evenly over its uplinks, and every static
 * route stays on a minimal path. */
START_TEST (test_topology_build_minhop_balances_uplinks)
{
    g_autoptr (GError) error = NULL;
    WeftGraph *g = build_text ("[topology]\ngenerator = leafspine\nleaves = 4\nspines = 4\n"
                               "hosts_per_leaf = 8\nrouting_engine = minhop\n",
                               &error);
    ck_assert_msg (g != NULL, "%s", error ? error->message : "");
    for (guint32 sw = 0; sw < weft_graph_n_nodes (g); sw++) {
        const WeftNode *n = weft_graph_node (g, sw);
        if (n->kind != WEFT_NODE_SWITCH || n->tier != 1)
            continue;
        guint load[64] = { 0 };
        for (guint32 ep = 0; ep < weft_graph_n_endpoints (g); ep++) {
            guint k;
            const guint32 *set = weft_graph_route_set (g, sw, ep, &k);
            guint32 p = weft_graph_route_static (g, sw, ep);
            if (k == 0)
                continue;
            gboolean minimal = FALSE;
            for (guint i = 0; i < k; i++)
                minimal |= set[i] == p;
            ck_assert (minimal);
            if (k > 1)
                load[p]++;
        }
        /* 24 remote hosts over 4 uplinks: 6 each. */
        guint up = 0;
        for (guint p = 0; p < n->ports->len; p++)
            if (load[p]) {
                ck_assert_uint_eq (load[p], 6);
                up++;
            }
        ck_assert_uint_eq (up, 4);
    }
    weft_graph_free (g);
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("topology_build");
    TCase *tc = tcase_create ("build");
    tcase_set_timeout (tc, 60);
    tcase_add_test (tc, test_topology_build_experiments);
    tcase_add_test (tc, test_topology_build_bad_params);
    tcase_add_test (tc, test_topology_build_file);
    tcase_add_test (tc, test_topology_build_minhop_balances_uplinks);
    suite_add_tcase (s, tc);
    return s;
}
