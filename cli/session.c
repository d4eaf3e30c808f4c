#include "config.h"
#define G_LOG_DOMAIN "weft-cli"
#include "cli/session.h"

#include "cli/footprint.h"
#include "models/fault.h"
#include "sim/sweep.h"
#include "topologies/topology.h"
#include "workloads/workload.h"

/* Across ranks (doc/parallel.md, "The partition"): the flows' releases from one node to another
 * with a delay below lookahead_floor, as node pairs (the receiver of a flow, the sender of a
 * flow it releases), for the partitioner to keep on one rank.  The workloads are generated
 * here once more, as weft_network_build will (the same experiment, graph and seed give the
 * same flows), and dropped. */
static gboolean
releases_below_floor (const WeftSession *s, GArray **out, GError **error)
{
    g_autoptr (GArray) specs = g_array_new (FALSE, TRUE, sizeof (WeftFlowSpec));
    g_autoptr (GArray) deps = g_array_new (FALSE, FALSE, sizeof (WeftFlowDep));
    g_autoptr (GArray) colls = g_array_new (FALSE, TRUE, sizeof (WeftCollInstance));
    g_autoptr (GArray) coll_ranks = g_array_new (FALSE, FALSE, sizeof (guint32));
    g_autoptr (GArray) coll_gates = g_array_new (FALSE, FALSE, sizeof (WeftCollGate));
    g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
    if (!weft_workload_generate (s->exp, s->graph, s->ec.seed, specs, deps, colls, coll_gates,
                                 coll_ranks, names, &s->budget, error))
        return FALSE;
    *out = g_array_new (FALSE, FALSE, sizeof (guint32));
    for (guint i = 0; i < deps->len; i++) {
        const WeftFlowDep *d = &g_array_index (deps, WeftFlowDep, i);
        const WeftFlowSpec *before = &g_array_index (specs, WeftFlowSpec, d->before);
        const WeftFlowSpec *after = &g_array_index (specs, WeftFlowSpec, d->after);
        if (before->dst == after->src || after->delay_ps >= s->pc.lookahead_floor)
            continue;
        g_array_append_val (*out, before->dst);
        g_array_append_val (*out, after->src);
    }
    return TRUE;
}

gboolean
weft_session_prepare (WeftSession *s, const char *path, char **overrides,
                      const guint64 *seed_override, guint64 max_memory, GError **error)
{
    return weft_session_prepare_ranks (s, path, overrides, seed_override, max_memory, 1, 0, error);
}

gboolean
weft_session_prepare_ranks (WeftSession *s, const char *path, char **overrides,
                            const guint64 *seed_override, guint64 max_memory, guint n_ranks,
                            guint rank, GError **error)
{
    *s = (WeftSession){ 0 };
    s->exp = weft_experiment_load (path, error);
    if (!s->exp)
        return FALSE;
    if (weft_experiment_has_group (s->exp, WEFT_SWEEP_GROUP)) {
        /* A sweep file: checked whole, then run as its base point (doc/sweeps.md). */
        g_autoptr (WeftSweep) sweep = weft_sweep_read (s->exp, error);
        if (!sweep)
            return FALSE;
        s->sweep_points = sweep->points->len;
        weft_sweep_strip (s->exp);
    }
    for (char **o = overrides; o && *o; o++)
        if (!weft_experiment_set (s->exp, *o, error))
            return FALSE;
    if (seed_override) {
        char *v = g_strdup_printf ("experiment:seed=%" G_GUINT64_FORMAT, *seed_override);
        gboolean ok = weft_experiment_set (s->exp, v, error);
        g_free (v);
        if (!ok)
            return FALSE;
    }
    if (!weft_network_check_groups (s->exp, error) ||
        !weft_runcfg_read (s->exp, &s->ec, &s->tc, error) ||
        !weft_partition_config_read (s->exp, &s->pc, error))
        return FALSE;
    s->graph = weft_footprint_build_topology (s->exp, TRUE, max_memory, error);
    if (!s->graph || !weft_faults_apply_graph (s->exp, s->graph, error))
        return FALSE;
    /* A fault that changed the links routing sees (nic-removed) dropped the route tables: the
     * fabric's routing engine computes them again, as a subnet manager would. */
    if (!weft_graph_routes_ready (s->graph) && !weft_topology_reroute (s->graph, s->exp, error))
        return FALSE;
    weft_footprint_flow_budget (s->exp, s->graph, max_memory, &s->budget);
    if (n_ranks > 1) {
        g_autoptr (GArray) releases = NULL;
        if (!releases_below_floor (s, &releases, error) ||
            !weft_partition_compute_with (s->graph, &s->pc, n_ranks, releases, s->exp, &s->part,
                                          error))
            return FALSE;
    }
    s->sim = weft_sim_new (s->ec.seed);
    s->sim->duration = s->ec.duration;
    s->sim->hang_timeout = s->ec.hang_timeout;
    if (n_ranks > 1) {
        s->sim->rank_of = s->part.rank_of;
        s->sim->rank = rank;
    }
    s->net = weft_network_build (s->exp, s->graph, s->sim, &s->budget, error);
    if (s->net == NULL)
        return FALSE;
    guint64 fastest = 0;
    for (guint i = 0; i < weft_graph_n_links (s->graph); i++)
        fastest = MAX (fastest, weft_graph_link (s->graph, i)->rate_bps);
    return weft_runcfg_check_interval (s->exp, &s->tc, s->net->fabric.mtu + s->net->fabric.header,
                                       fastest, s->net->ports->len, error);
}

void
weft_session_clear (WeftSession *s)
{
    /* Models borrow the graph and the network's tables: free them first. */
    weft_sim_free (s->sim);
    weft_network_free (s->net);
    if (s->graph)
        weft_graph_free (s->graph);
    if (s->exp)
        weft_experiment_free (s->exp);
    weft_runcfg_clear (&s->ec, &s->tc);
    weft_params_clear (weft_partition_params, &s->pc);
    weft_partition_clear (&s->part);
    g_free (s->budget.limit);
    *s = (WeftSession){ 0 };
}
