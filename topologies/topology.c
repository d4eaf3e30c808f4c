/* topologies/topology.c - the generator registry and weft_topology_build. */
#include "config.h"
#define G_LOG_DOMAIN "weft-topology"
#include "topologies/topology.h"

#include "topologies/leafspine.h"

typedef struct {
    char *generator;
    char *forwarding_table;
} Common;

static const WeftParamSpec common_params[] = {
    WEFT_PARAM_STRING ("generator", Common, generator, NULL,
                       "topology generator: see `weft params topology`"),
    WEFT_PARAM_STRING ("forwarding_table", Common, forwarding_table, "",
                       "file of static routes 'SWITCH DESTINATION PORT' to replay (ports from 1)"),
    WEFT_PARAM_END,
};

const WeftParamSpec *
weft_topology_common_params (void)
{
    return common_params;
}

/* ---- the simple generators' tables --------------------------------------------------- */

static const WeftParamSpec single_switch_params[] = {
    WEFT_PARAM_UINT ("hosts", WeftSingleSwitchParams, hosts, "16", "1", "1000000",
                     "hosts on the switch (host0..hostN-1 on sw0)"),
    WEFT_PARAM_RATE ("link_rate", WeftSingleSwitchParams, link_rate_bps, "100Gbps", "1Mbps",
                     "3.2Tbps", "rate of every host link"),
    WEFT_PARAM_TIME ("link_delay", WeftSingleSwitchParams, link_delay_ps, "0ps", "0ps", "1s",
                     "fixed delay added to every link's cable delay"),
    WEFT_PARAM_LENGTH ("cable_length", WeftSingleSwitchParams, cable_length_m, "2m", "0m",
                       "100000m", "cable length (5 ns/m of propagation)"),
    WEFT_PARAM_END,
};

static const WeftParamSpec dumbbell_params[] = {
    WEFT_PARAM_UINT ("left_hosts", WeftDumbbellParams, left_hosts, "2", "1", "1000000",
                     "hosts on sw0 (host0..)"),
    WEFT_PARAM_UINT ("right_hosts", WeftDumbbellParams, right_hosts, "2", "1", "1000000",
                     "hosts on sw1 (numbered after the left ones)"),
    WEFT_PARAM_RATE ("link_rate", WeftDumbbellParams, link_rate_bps, "100Gbps", "1Mbps", "3.2Tbps",
                     "rate of every host link"),
    WEFT_PARAM_TIME ("link_delay", WeftDumbbellParams, link_delay_ps, "0ps", "0ps", "1s",
                     "fixed delay added to every host link"),
    WEFT_PARAM_LENGTH ("cable_length", WeftDumbbellParams, cable_length_m, "2m", "0m", "100000m",
                       "host cable length (5 ns/m)"),
    WEFT_PARAM_RATE ("bottleneck_rate", WeftDumbbellParams, bottleneck_rate_bps, "100Gbps",
                     "1Mbps", "3.2Tbps", "rate of the sw0-sw1 link"),
    WEFT_PARAM_TIME ("bottleneck_delay", WeftDumbbellParams, bottleneck_delay_ps, "0ps", "0ps",
                     "1s", "fixed delay added to the sw0-sw1 link"),
    WEFT_PARAM_LENGTH ("bottleneck_cable_length", WeftDumbbellParams, bottleneck_cable_length_m,
                       "10m", "0m", "100000m", "sw0-sw1 cable length (5 ns/m)"),
    WEFT_PARAM_END,
};

static const WeftParamSpec leafspine_params[] = {
    WEFT_PARAM_UINT ("leaves", WeftLeafSpineParams, leaves, "4", "1", "100000", "leaf switches"),
    WEFT_PARAM_UINT ("spines", WeftLeafSpineParams, spines, "2", "1", "100000", "spine switches"),
    WEFT_PARAM_UINT ("hosts_per_leaf", WeftLeafSpineParams, hosts_per_leaf, "4", "1", "100000",
                     "hosts on each leaf"),
    WEFT_PARAM_UINT ("links_per_spine", WeftLeafSpineParams, links_per_spine, "1", "1", "1024",
                     "parallel cables between each leaf and each spine"),
    WEFT_PARAM_RATE ("link_rate", WeftLeafSpineParams, link_rate_bps, "100Gbps", "1Mbps",
                     "3.2Tbps", "host-leaf link rate"),
    WEFT_PARAM_RATE ("uplink_rate", WeftLeafSpineParams, uplink_rate_bps, "100Gbps", "1Mbps",
                     "3.2Tbps", "leaf-spine link rate"),
    WEFT_PARAM_TIME ("link_delay", WeftLeafSpineParams, link_delay_ps, "0ps", "0ps", "1s",
                     "fixed delay added to every link's cable delay"),
    WEFT_PARAM_LENGTH ("cable_length", WeftLeafSpineParams, cable_length_m, "2m", "0m", "100000m",
                       "host-leaf cable length (5 ns/m)"),
    WEFT_PARAM_LENGTH ("uplink_cable_length", WeftLeafSpineParams, uplink_cable_length_m, "20m",
                       "0m", "100000m", "leaf-spine cable length (5 ns/m)"),
    WEFT_PARAM_END,
};

static WeftGraph *
gen_single_switch (const void *p, const void *server, const char *dir, GError **error)
{
    return weft_topology_single_switch (p, error);
}

static WeftGraph *
gen_dumbbell (const void *p, const void *server, const char *dir, GError **error)
{
    return weft_topology_dumbbell (p, error);
}

static WeftGraph *
gen_leafspine (const void *p, const void *server, const char *dir, GError **error)
{
    return weft_topology_leafspine (p, error);
}

static const WeftTopologyGenerator gen_dumbbell_def = {
    "dumbbell", "two switches joined by one bottleneck link, hosts split left and right",
    dumbbell_params, sizeof (WeftDumbbellParams), FALSE, gen_dumbbell,
};
static const WeftTopologyGenerator gen_leafspine_def = {
    "leafspine", "two-tier leaf-spine with hosts on the leaves, ECMP over the spines",
    leafspine_params, sizeof (WeftLeafSpineParams), FALSE, gen_leafspine,
};
static const WeftTopologyGenerator gen_single_switch_def = {
    "single_switch", "N hosts on one switch", single_switch_params,
    sizeof (WeftSingleSwitchParams), FALSE, gen_single_switch,
};

/* One sorted array (STYLE B4): grep finds every generator here. */
static const WeftTopologyGenerator *const generators[] = {
    &gen_dumbbell_def,
    &gen_leafspine_def,
    &gen_single_switch_def,
    NULL,
};

const WeftTopologyGenerator *const *
weft_topology_generators (void)
{
    return generators;
}

const WeftTopologyGenerator *
weft_topology_generator_lookup (const char *name)
{
    for (guint i = 0; generators[i]; i++)
        if (g_strcmp0 (generators[i]->name, name) == 0)
            return generators[i];
    return NULL;
}

WeftGraph *
weft_topology_build (const WeftExperiment *exp, GError **error)
{
    GKeyFile *kf = weft_experiment_keyfile (exp);
    g_autofree char *name = g_key_file_get_string (kf, "topology", "generator", NULL);
    if (name == NULL) {
        weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_MISSING, "topology", "generator",
                              "missing: expected a generator name such as leafspine");
        return NULL;
    }
    g_strstrip (name);
    const WeftTopologyGenerator *gen = weft_topology_generator_lookup (name);
    if (gen == NULL) {
        const char *names[G_N_ELEMENTS (generators)];
        for (guint i = 0; i < G_N_ELEMENTS (generators); i++)
            names[i] = generators[i] ? generators[i]->name : NULL;
        const char *close = weft_suggest (name, names);
        g_autofree char *list = g_strjoinv (", ", (char **) names);
        weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_VALUE, "topology", "generator",
                              "unknown generator '%s'%s%s%s: expected one of %s", name,
                              close ? ", did you mean '" : "", close ? close : "",
                              close ? "'?" : "", list);
        return NULL;
    }

    Common common = { 0 };
    void *params = g_malloc0 (gen->params_size);
    WeftGraph *g = NULL;
    g_autofree char *dir = NULL;
    GError *local = NULL;
    WeftParamBinding bind[2] = { { common_params, &common }, { gen->spec, params } };
    if (!weft_params_read (exp, "topology", bind, 2, error))
        goto out;

    dir = weft_experiment_dir_for (exp, "topology", "generator");
    g = gen->generate (params, NULL, dir, &local);
    if (g == NULL) {
        g_propagate_prefixed_error (error, local, "%s: ",
                                    weft_experiment_origin (exp, "topology", NULL));
        goto out;
    }
    weft_graph_routes_compute (g);
    g_debug ("%s: %u nodes, %u links, %u endpoints", gen->name, weft_graph_n_nodes (g),
             weft_graph_n_links (g), weft_graph_n_endpoints (g));
out:
    weft_params_clear (gen->spec, params);
    weft_params_clear (common_params, &common);
    g_free (params);
    return g;
}
