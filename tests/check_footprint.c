/* tests/check_footprint.c - the memory estimate made before a run is built (cli/footprint.h).
 *
 * Invariants checked: every generator's size from its parameters alone (weft_topology_size)
 * equals the counts of the graph it then builds (weft_graph_measure), field by field, on fat
 * trees, leaf-spines with parallel cables, single switches, dumbbells and rail-optimised
 * fabrics of two and three tiers, partial and per rail, with another server preset; the
 * measured groups of a topology file with multi-homed hosts are the hand-counted ones; the
 * route estimate covers the tables actually built; the flows estimated for the pattern kinds
 * are exactly the flows then generated; the per-flow state it counts (the flow record and its
 * fabric's congestion-control or Ultra Ethernet state) is what the transport allocates, on every
 * fabric kind with its mechanisms on and off; the cgroup v2 limit is the smallest memory.max on the
 * way up the hierarchy; a run whose estimate exceeds --max-memory is refused naming [topology]
 * and the estimate, and one that fits is not; the flows' budget is the memory the limit leaves
 * after the models, in flows of the estimate's bytes, never fewer than it counted, and a
 * collective's first flow past it is refused; experiments/superpod-64su.ini's switches, groups,
 * destinations, NICs and fabric links, computed from its parameters, are the estimate's and the
 * built graph's, and its estimate fits well under the 24 GiB CI machine.
 * Unchecked here: how close the estimate comes to a process's measured peak (doc/scale.md's
 * table, bench/README.md), the refusal end to end (tests/e2e/scale.sh).
 */
#include "config.h"
#include <check.h>
#include <glib/gstdio.h>
#include <string.h>

#include "cli/footprint.h"
#include "models/transport.h"
#include "sim/experiment.h"
#include "tests/harness.h"
#include "topologies/topology.h"
#include "workloads/workload.h"

static WeftExperiment *
exp_text (const char *text)
{
    GError *err = NULL;
    WeftExperiment *exp = weft_experiment_new_from_data (text, "t.ini", &err);
    ck_assert_msg (exp != NULL, "%s", err ? err->message : "");
    return exp;
}

/* Generates @exp's workloads on @g under @budget (NULL: none); *@n_flows gets the flows made. */
static gboolean
generate (const WeftExperiment *exp, const WeftGraph *g, const WeftFlowBudget *budget,
          guint *n_flows, GError **err)
{
    g_autoptr (GArray) flows = g_array_new (FALSE, FALSE, sizeof (WeftFlowSpec));
    g_autoptr (GArray) deps = g_array_new (FALSE, FALSE, sizeof (WeftFlowDep));
    g_autoptr (GArray) colls = g_array_new (FALSE, FALSE, sizeof (WeftCollInstance));
    g_autoptr (GArray) gates = g_array_new (FALSE, FALSE, sizeof (WeftCollGate));
    g_autoptr (GArray) ranks = g_array_new (FALSE, FALSE, sizeof (guint32));
    g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
    gboolean ok =
        weft_workload_generate (exp, g, 1, flows, deps, colls, gates, ranks, names, budget, err);
    *n_flows = flows->len;
    return ok;
}

static void
assert_same_size (const char *what, const WeftGraphSize *a, const WeftGraphSize *b)
{
#define SAME(f)                                                                                    \
    ck_assert_msg (a->f == b->f,                                                                   \
                   "%s: " #f " %" G_GUINT64_FORMAT " from the parameters, %" G_GUINT64_FORMAT      \
                   " built",                                                                       \
                   what, a->f, b->f)
    SAME (nodes);
    SAME (links);
    SAME (endpoints);
    SAME (ports);
    SAME (switches);
    SAME (destinations);
    SAME (groups);
    SAME (server_cells);
    SAME (hosts);
    SAME (gpus);
#undef SAME
}

START_TEST (test_footprint_sizes_match_graphs)
{
    static const char *const topologies[] = {
        "generator = fattree\nk = 2\n",
        "generator = fattree\nk = 6\n",
        "generator = leafspine\nleaves = 5\nspines = 3\nhosts_per_leaf = 3\nlinks_per_spine = 2\n",
        "generator = single_switch\nhosts = 7\n",
        "generator = dumbbell\nleft_hosts = 3\nright_hosts = 4\n",
        "generator = railopt\nsus = 1\nservers_per_su = 4\nradix = 8\nservers = 3\n",
        "generator = railopt\nsus = 2\nservers_per_su = 4\nradix = 16\n",
        "generator = railopt\nsus = 4\nservers_per_su = 8\nradix = 16\ntiers = 3\nservers = 27\n",
        "generator = railopt\nsus = 4\nservers_per_su = 8\nradix = 16\ntiers = 3\n"
        "spine_grouping = per_rail\nleaf_oversubscription = 2:1\n",
        "generator = railopt\nsus = 1\nservers_per_su = 4\nradix = 8\n[server]\npreset = dgx-a100\n",
    };
    for (guint i = 0; i < G_N_ELEMENTS (topologies); i++) {
        g_autofree char *text = g_strconcat ("[topology]\n", topologies[i], NULL);
        g_autoptr (WeftExperiment) exp = exp_text (text);
        WeftGraphSize from_params, built;
        gboolean known;
        GError *err = NULL;
        ck_assert_msg (weft_topology_size (exp, &from_params, &known, &err), "%s: %s",
                       topologies[i], err ? err->message : "");
        ck_assert (known);
        g_autoptr (WeftGraph) g = weft_topology_generate (exp, &err);
        ck_assert_msg (g != NULL, "%s", err ? err->message : "");
        weft_graph_measure (g, &built);
        assert_same_size (topologies[i], &from_params, &built);
        ck_assert_uint_gt (built.groups, 0);
    }
}
END_TEST

/* Bad parameters: the size gives the generator's own error; a topology file is not known. */
START_TEST (test_footprint_size_errors_and_files)
{
    g_autoptr (WeftExperiment) bad = exp_text ("[topology]\ngenerator = fattree\nk = 5\n");
    WeftGraphSize s;
    gboolean known = TRUE;
    GError *err = NULL;
    ck_assert (!weft_topology_size (bad, &s, &known, &err));
    ck_assert (g_error_matches (err, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_PARAM));
    ck_assert_ptr_nonnull (strstr (err->message, "[topology] k:"));
    g_clear_error (&err);
    g_autoptr (WeftExperiment) file =
        exp_text ("[topology]\ngenerator = file\nfile = no-such.topo\n");
    ck_assert (weft_topology_size (file, &s, &known, &err));
    ck_assert (!known);
}
END_TEST

/* a and d are cabled to two switches (a group each), b twice to s1, c and e to s2, and the
 * switch s4 (a destination) only to s3: 6 destinations, 5 groups, 5 switches. */
START_TEST (test_footprint_measure_groups)
{
    g_autofree char *topo = g_build_filename (harness_tmp, "t.topo", NULL);
    ck_assert (g_file_set_contents (topo,
                                    "node s0 switch\nnode s1 switch\nnode s2 switch\n"
                                    "node s3 switch\nnode s4 switch endpoint=1\n"
                                    "node a host\nnode b host\nnode c host\nnode d host\n"
                                    "node e host\n"
                                    "link a s0 1Gbps\nlink a s1 1Gbps\nlink b s1 1Gbps\n"
                                    "link b s1 1Gbps\nlink c s2 1Gbps\nlink e s2 1Gbps\n"
                                    "link d s3 1Gbps\nlink d s0 1Gbps\nlink s0 s2 1Gbps\n"
                                    "link s1 s3 1Gbps\nlink s2 s3 1Gbps\nlink s4 s3 1Gbps\n",
                                    -1, NULL));
    g_autofree char *text = g_strdup_printf ("[topology]\ngenerator = file\nfile = %s\n", topo);
    g_autoptr (WeftExperiment) exp = exp_text (text);
    GError *err = NULL;
    g_autoptr (WeftGraph) g = weft_topology_build (exp, &err);
    ck_assert_msg (g != NULL, "%s", err ? err->message : "");
    WeftGraphSize s;
    weft_graph_measure (g, &s);
    ck_assert_uint_eq (s.destinations, 6);
    ck_assert_uint_eq (s.groups, 5);
    ck_assert_uint_eq (s.switches, 5);
    ck_assert_uint_eq (s.hosts, 5);
    ck_assert_uint_eq (s.links, 12);
}
END_TEST

/* The route estimate covers the tables built (it adds the search's scratch arrays). */
START_TEST (test_footprint_routes_cover_tables)
{
    static const char *const texts[] = {
        "[topology]\ngenerator = fattree\nk = 16\n",
        "[topology]\ngenerator = railopt\nsus = 4\nservers_per_su = 8\nradix = 16\ntiers = 3\n",
        "[topology]\ngenerator = single_switch\nhosts = 5000\n",
    };
    for (guint i = 0; i < G_N_ELEMENTS (texts); i++) {
        g_autoptr (WeftExperiment) exp = exp_text (texts[i]);
        GError *err = NULL;
        g_autoptr (WeftGraph) g = weft_topology_build (exp, &err);
        ck_assert_msg (g != NULL, "%s", err ? err->message : "");
        WeftGraphSize s;
        guint64 graph, routes;
        weft_graph_measure (g, &s);
        weft_graph_size_bytes (&s, &graph, &routes);
        ck_assert_uint_ge (routes, weft_graph_routes_bytes (g));
        ck_assert_uint_le (routes, 4 * weft_graph_routes_bytes (g));
        ck_assert_uint_gt (graph, s.links * sizeof (WeftLink));
    }
}
END_TEST

/* The flows estimated from the parameters are the flows generated, for the kinds it counts. */
START_TEST (test_footprint_flows_match_generated)
{
    static const struct {
        const char *workload;
        guint64 expected; /* on 16 hosts; G_MAXUINT64: as generated */
    } cases[] = {
        { "[workload.p]\nkind = permutation\n", 16 },
        { "[workload.p]\nkind = permutation\nhosts = host2..host9;host12\n", 9 },
        { "[workload.i]\nkind = incast\nreceiver = host0\nsenders = 5\n", 5 },
        { "[workload.i]\nkind = incast\nreceiver = host0\nsenders = host1..4;host9\n", 5 },
        { "[workload.i]\nkind = incast\nreceiver = host0\n", 15 },
        { "[workload.a]\nkind = all_to_all\n", 16 * 15 },
        { "[workload.f]\nkind = flows\nflows = host0>host1 1MiB; host2>host3 2KiB 1us\n", 2 },
        { "[workload.p]\nkind = permutation\narrival = poisson\ncount = 50\n", 50 },
        { "[workload.p]\nkind = permutation\n[workload.a]\nkind = all_to_all\n"
          "hosts = host0..host3\n",
          16 + 12 },
    };
    for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
        g_autofree char *text =
            g_strconcat ("[topology]\ngenerator = fattree\nk = 4\n", cases[i].workload, NULL);
        g_autoptr (WeftExperiment) exp = exp_text (text);
        GError *err = NULL;
        g_autoptr (WeftGraph) g = weft_topology_build (exp, &err);
        ck_assert (g != NULL);
        guint n_flows;
        ck_assert_msg (generate (exp, g, NULL, &n_flows, &err), "%s", err ? err->message : "");
        ck_assert_uint_eq (n_flows, cases[i].expected);
        ck_assert_uint_eq (weft_workload_estimate_flows (exp, 16, 16), n_flows);
    }
    /* collectives are not counted (their flows follow the algorithm) */
    g_autoptr (WeftExperiment) nccl =
        exp_text ("[workload.n]\nkind = nccl-test\nop = all_reduce\n");
    ck_assert_uint_eq (weft_workload_estimate_flows (nccl, 16, 16), 0);
}
END_TEST

/* experiments/superpod-64su.ini (issue 17's 16,384-GPU fabric), without simulating it: the
 * counts the estimate starts from, computed here from the file's [topology] parameters and the
 * DGX H100's 8 NICs, are those of the parameters' size and of the graph then built.  Three
 * tiers of 1:1 switches: SUS x 8 rail leaves with SERVERS_PER_SU ports down and as many up;
 * spines of RADIX / 2 ports down and up, so as many spines as leaves; cores take RADIX spine
 * uplinks each.  One group per rail leaf, one destination and one permutation flow per GPU. */
START_TEST (test_footprint_superpod_64su)
{
    g_autofree char *path = harness_srcpath ("experiments/superpod-64su.ini");
    GError *err = NULL;
    g_autoptr (WeftExperiment) exp = weft_experiment_load (path, &err);
    ck_assert_msg (exp != NULL, "%s", err ? err->message : "");
    GKeyFile *kf = weft_experiment_keyfile (exp);
    guint64 sus = g_key_file_get_uint64 (kf, "topology", "sus", NULL),
            per_su = g_key_file_get_uint64 (kf, "topology", "servers_per_su", NULL),
            radix = g_key_file_get_uint64 (kf, "topology", "radix", NULL), rails = 8;
    ck_assert_uint_eq (sus * per_su * rails, 16384);
    guint64 servers = sus * per_su, leaves = sus * rails, spines = leaves * per_su / (radix / 2),
            cores = spines * (radix / 2) / radix;
    guint64 fabric_links = servers * rails + leaves * per_su + spines * (radix / 2);

    WeftFootprint fp;
    ck_assert_msg (weft_footprint_estimate (exp, NULL, TRUE, &fp, &err), "%s",
                   err ? err->message : "");
    ck_assert (fp.known);
    ck_assert_uint_eq (fp.size.switches, leaves + spines + cores);
    ck_assert_uint_eq (fp.size.groups, leaves);
    ck_assert_uint_eq (fp.size.destinations, servers * rails);
    ck_assert_uint_eq (fp.size.gpus, servers * rails);
    ck_assert_uint_eq (fp.n_flows, servers * rails);
    /* it fits the 24 GiB CI machine with room to spare */
    ck_assert_uint_lt (fp.total, G_GUINT64_CONSTANT (2) << 30);

    g_autoptr (WeftGraph) g = weft_topology_generate (exp, &err);
    ck_assert_msg (g != NULL, "%s", err ? err->message : "");
    WeftGraphSize built;
    weft_graph_measure (g, &built);
    assert_same_size ("superpod-64su.ini", &fp.size, &built);
    guint64 tier[4] = { 0 }, nics = 0, fabric = 0;
    for (guint32 v = 0; v < weft_graph_n_nodes (g); v++) {
        const WeftNode *n = weft_graph_node (g, v);
        if (n->kind == WEFT_NODE_SWITCH && n->tier >= 1 && n->tier <= 3)
            tier[n->tier]++;
        nics += n->kind == WEFT_NODE_NIC;
    }
    for (guint i = 0; i < weft_graph_n_links (g); i++)
        fabric += weft_graph_link (g, i)->kind == WEFT_LINK_FABRIC;
    ck_assert_uint_eq (tier[1], leaves);
    ck_assert_uint_eq (tier[2], spines);
    ck_assert_uint_eq (tier[3], cores);
    ck_assert_uint_eq (nics, servers * rails);
    ck_assert_uint_eq (fabric, fabric_links);

    /* and the route estimate covers the tables then computed */
    ck_assert_msg (weft_topology_route (g, exp, &err), "%s", err ? err->message : "");
    guint64 graph_bytes, routes_bytes;
    weft_graph_size_bytes (&built, &graph_bytes, &routes_bytes);
    ck_assert_uint_ge (routes_bytes, weft_graph_routes_bytes (g));
    ck_assert_uint_le (routes_bytes, 4 * weft_graph_routes_bytes (g));
}
END_TEST

/* The per-flow state the estimate counts is what the transport allocates: the flow record, and
 * each fabric's congestion-control or Ultra Ethernet state, and the out-of-order placement, only
 * where that fabric uses it. */
START_TEST (test_footprint_flow_state_matches_transport)
{
    static const struct {
        const char *fabric;
        gsize extra; /* expected beyond sizeof (WeftFlow) */
    } cases[] = {
        { "[fabric]\nkind = infiniband\n", 0 },
        { "[fabric]\nkind = infiniband\n[ibcc]\nenabled = true\n", sizeof (WeftIbccFlow) },
        { "[fabric]\nkind = ethernet\n", sizeof (WeftRttFlow) },
        { "[fabric]\nkind = ethernet\nspray = oblivious\n",
          sizeof (WeftUetFlow) + sizeof (WeftOooFlow) + sizeof (WeftRttFlow) },
        { "[fabric]\nkind = ethernet\nrouting = adaptive\n",
          sizeof (WeftOooFlow) + sizeof (WeftRttFlow) },
        { "[fabric]\nkind = infiniband\nrouting = adaptive\n", sizeof (WeftOooFlow) },
        { "[fabric]\nkind = roce\n[transport]\nrecovery = selective-repeat\n",
          sizeof (WeftDcqcnFlow) + sizeof (WeftOooFlow) },
        { "[fabric]\nkind = roce\n", sizeof (WeftDcqcnFlow) },
        { "[fabric]\nkind = roce\n[dcqcn]\nenabled = false\n", sizeof (WeftDcqcnFlow) },
        { "[fabric]\nkind = roce\n[dcqcn]\nenabled = false\n[ecn]\nenabled = false\n", 0 },
        { "[fabric]\nkind = roce\nspray = round-robin\n",
          sizeof (WeftDcqcnFlow) + sizeof (WeftUetFlow) + sizeof (WeftOooFlow) },
        { "[fabric]\nkind = ultra-ethernet\n", sizeof (WeftDcqcnFlow) + sizeof (WeftUetFlow) +
                                                   sizeof (WeftOooFlow) + sizeof (WeftRttFlow) },
        { "[fabric]\nkind = ultra-ethernet\n[ecn]\nenabled = false\n",
          sizeof (WeftUetFlow) + sizeof (WeftOooFlow) + sizeof (WeftRttFlow) },
    };
    for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
        g_autofree char *text =
            g_strdup_printf ("[topology]\ngenerator = single_switch\nhosts = 4\n%s"
                             "[workload.w]\nkind = permutation\n",
                             cases[i].fabric);
        WeftSession s;
        harness_prepare (&s, text);
        gsize built = weft_transport_flow_bytes (&s.net->tp);
        ck_assert_msg (built == sizeof (WeftFlow) + cases[i].extra,
                       "%s: %" G_GSIZE_FORMAT " bytes per flow built", cases[i].fabric, built);
        ck_assert_msg (weft_footprint_flow_state_bytes (s.exp) == built,
                       "%s: estimate %" G_GSIZE_FORMAT ", built %" G_GSIZE_FORMAT, cases[i].fabric,
                       weft_footprint_flow_state_bytes (s.exp), built);
        weft_session_clear (&s);
    }
}
END_TEST

static void
write_limit (const char *dir, const char *value)
{
    ck_assert (g_mkdir_with_parents (dir, 0700) == 0);
    g_autofree char *f = g_build_filename (dir, "memory.max", NULL);
    ck_assert (g_file_set_contents (f, value, -1, NULL));
}

START_TEST (test_footprint_cgroup_limit)
{
    g_autofree char *root = g_build_filename (harness_tmp, "cg", NULL);
    g_autofree char *a = g_build_filename (root, "a", NULL);
    g_autofree char *b = g_build_filename (a, "b", NULL);
    g_autofree char *c = g_build_filename (b, "c", NULL);
    write_limit (root, "max\n");
    write_limit (a, "4294967296\n");
    write_limit (b, "1073741824\n");
    write_limit (c, "max\n");
    /* the process in a/b/c: b's limit is the smallest on the way up */
    ck_assert_uint_eq (weft_footprint_cgroup_limit (root, "0::/a/b/c\n"), 1073741824);
    ck_assert_uint_eq (weft_footprint_cgroup_limit (root, "12:cpu:/x\n0::/a\n"), 4294967296);
    ck_assert_uint_eq (weft_footprint_cgroup_limit (root, "0::/\n"), G_MAXUINT64);
    /* cgroup v1 only: nothing to read */
    ck_assert_uint_eq (weft_footprint_cgroup_limit (root, "4:memory:/a/b\n"), G_MAXUINT64);
}
END_TEST

START_TEST (test_footprint_check_refuses_above_limit)
{
    g_autoptr (WeftExperiment) exp =
        exp_text ("[topology]\ngenerator = fattree\nk = 48\n[workload.p]\nkind = permutation\n");
    WeftFootprint fp;
    GError *err = NULL;
    ck_assert (weft_footprint_estimate (exp, NULL, TRUE, &fp, &err));
    ck_assert (fp.known);
    ck_assert_uint_eq (fp.n_flows, 48 * 48 * 48 / 4);
    ck_assert_uint_gt (fp.total, G_GUINT64_CONSTANT (64) << 20);
    ck_assert (!weft_footprint_check (exp, &fp, G_GUINT64_CONSTANT (64) << 20, &err));
    ck_assert (g_error_matches (err, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_RANGE));
    ck_assert_msg (strstr (err->message, "t.ini: [topology] generator: fattree:") &&
                       strstr (err->message, "GiB") && strstr (err->message, "--max-memory") &&
                       !strchr (err->message, '\n'),
                   "%s", err->message);
    g_clear_error (&err);
    ck_assert (weft_footprint_check (exp, &fp, G_GUINT64_CONSTANT (64) << 30, &err));
    /* without models (weft topo) the estimate is smaller */
    WeftFootprint topo;
    ck_assert (weft_footprint_estimate (exp, NULL, FALSE, &topo, &err));
    ck_assert_uint_lt (topo.total, fp.total);
    ck_assert_uint_eq (topo.models + topo.flows, 0);
    /* --max-memory values */
    guint64 bytes;
    ck_assert (weft_footprint_parse_max ("8GiB", &bytes, NULL));
    ck_assert_uint_eq (bytes, G_GUINT64_CONSTANT (8) << 30);
    ck_assert (!weft_footprint_parse_max ("8", &bytes, &err));
    ck_assert_ptr_nonnull (strstr (err->message, "--max-memory"));
    g_clear_error (&err);
    ck_assert (!weft_footprint_parse_max ("0B", &bytes, &err));
    g_clear_error (&err);
}
END_TEST

/* The workloads' flow budget (weft_footprint_flow_budget), once the graph and routes are built:
 * the memory the limit leaves after the process as it stands and the models' estimate, in
 * flows of the estimate's bytes; never fewer flows than the estimate counted; none left below
 * the process's own size, so that a collective's first flow is refused naming its group. */
START_TEST (test_footprint_flow_budget)
{
    g_autoptr (WeftExperiment) exp = exp_text ("[topology]\ngenerator = fattree\nk = 4\n"
                                               "[workload.p]\nkind = permutation\n");
    GError *err = NULL;
    g_autoptr (WeftGraph) g = weft_topology_build (exp, &err);
    ck_assert (g != NULL);
    WeftFootprint fp;
    ck_assert (weft_footprint_estimate (exp, g, TRUE, &fp, &err));
    ck_assert_uint_eq (fp.n_flows, 16);
    guint64 limit = G_GUINT64_CONSTANT (1) << 30;
    WeftFlowBudget b;
    weft_footprint_flow_budget (exp, g, limit, &b);
    ck_assert_str_eq (b.limit, "--max-memory");
    /* a flow: at least its state and its spec twice (doc/scale.md) */
    ck_assert_uint_ge (b.flow_bytes,
                       weft_footprint_flow_state_bytes (exp) + 2 * sizeof (WeftFlowSpec));
    /* the limit less everything but the flows, the graph and the routes (built, so in the
     * process's size): the process's size moves by a few pages between the two readings */
    guint64 others = fp.total - fp.flows - fp.graph - fp.routes;
    ck_assert_uint_lt (others, limit);
    guint64 expected = limit - others, slack = G_GUINT64_CONSTANT (1) << 20;
    ck_assert_msg (b.bytes + slack >= expected && b.bytes <= expected + slack,
                   "%" G_GUINT64_FORMAT " bytes left, expected about %" G_GUINT64_FORMAT, b.bytes,
                   expected);
    ck_assert_uint_eq (b.max_flows, b.bytes / b.flow_bytes);
    ck_assert_uint_gt (b.max_flows, 1000000); /* 1 GiB holds millions of 0.5 KB flows */
    g_free (b.limit);
    /* a limit below the process itself: nothing left, but the 16 flows counted still fit */
    weft_footprint_flow_budget (exp, g, 4096, &b);
    ck_assert_uint_eq (b.bytes, 0);
    ck_assert_uint_eq (b.max_flows, 16);
    g_free (b.limit);
    /* a collective's flows are not counted: its first flow is refused */
    g_autoptr (WeftExperiment) nccl =
        exp_text ("[topology]\ngenerator = fattree\nk = 4\n"
                  "[workload.n]\nkind = nccl-test\nop = all_reduce\n");
    weft_footprint_flow_budget (nccl, g, 4096, &b);
    ck_assert_uint_eq (b.max_flows, 0);
    guint n_flows;
    ck_assert (!generate (nccl, g, &b, &n_flows, &err));
    ck_assert_msg (strstr (err->message, "[workload.n]: more than 0 flows") &&
                       strstr (err->message, "--max-memory"),
                   "%s", err->message);
    ck_assert_uint_eq (n_flows, 0);
    g_clear_error (&err);
    g_free (b.limit);
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("footprint");
    TCase *tc = tcase_create ("estimate");
    tcase_add_checked_fixture (tc, harness_tmp_setup, harness_tmp_teardown);
    tcase_add_test (tc, test_footprint_sizes_match_graphs);
    tcase_add_test (tc, test_footprint_size_errors_and_files);
    tcase_add_test (tc, test_footprint_measure_groups);
    tcase_add_test (tc, test_footprint_routes_cover_tables);
    tcase_add_test (tc, test_footprint_flows_match_generated);
    tcase_add_test (tc, test_footprint_superpod_64su);
    tcase_add_test (tc, test_footprint_flow_state_matches_transport);
    tcase_add_test (tc, test_footprint_cgroup_limit);
    tcase_add_test (tc, test_footprint_check_refuses_above_limit);
    tcase_add_test (tc, test_footprint_flow_budget);
    suite_add_tcase (s, tc);
    return s;
}
