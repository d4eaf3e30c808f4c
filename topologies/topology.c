/* topologies/topology.c - the generator registry and weft_topology_build. */
#include "config.h"
#define G_LOG_DOMAIN "weft-topology"
#include "topologies/topology.h"

#include <string.h>
#include <glib/gstdio.h>

#include "topologies/file.h"
#include "topologies/lft.h"
#include "topologies/minhop.h"
#include "topologies/updn.h"

#include "topologies/leafspine.h"
#include "topologies/railopt.h"
#include "topologies/server.h"

typedef struct {
    char *generator;
    int routing_engine;
    char *forwarding_table;
} Common;

enum { ENGINE_DMODK, ENGINE_MINHOP, ENGINE_UPDN };

static const WeftParamSpec common_params[] = {
    WEFT_PARAM_STRING ("generator", Common, generator, NULL,
                       "topology generator: see `weft params topology`"),
    WEFT_PARAM_ENUM ("routing_engine", Common, routing_engine, "dmodk", "dmodk|minhop|updn",
                     "how static routes are chosen, as a subnet manager would: dmodk (OpenSM "
                     "ftree-style D-mod-k on the destination number), minhop (each switch "
                     "spreads destinations over its minimal ports by route count) or updn (as "
                     "minhop, on up/down paths only, deadlock-free on fabrics with cycles)"),
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
    WEFT_PARAM_RATE ("bottleneck_rate", WeftDumbbellParams, bottleneck_rate_bps, "100Gbps", "1Mbps",
                     "3.2Tbps", "rate of the sw0-sw1 link"),
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
    WEFT_PARAM_RATE ("link_rate", WeftLeafSpineParams, link_rate_bps, "100Gbps", "1Mbps", "3.2Tbps",
                     "host-leaf link rate"),
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

static const WeftParamSpec railopt_params[] = {
    WEFT_PARAM_UINT ("sus", WeftRailOptParams, sus, "1", "1", "1024", "scalable units"),
    WEFT_PARAM_UINT ("servers_per_su", WeftRailOptParams, servers_per_su, "32", "1", "4096",
                     "server slots per SU (one port on each of the SU's rail leaves)"),
    WEFT_PARAM_UINT ("servers", WeftRailOptParams, servers, "0", "0", "1000000",
                     "servers present, filling slots SU by SU (0: every slot; fewer: partial SU)"),
    WEFT_PARAM_UINT ("radix", WeftRailOptParams, radix, "64", "2", "4096", "ports per switch"),
    WEFT_PARAM_UINT ("tiers", WeftRailOptParams, tiers, "0", "0", "3",
                     "switch tiers, 2 or 3 (0: the fewest that fit)"),
    WEFT_PARAM_ENUM ("spine_grouping", WeftRailOptParams, spine_grouping, "full_mesh",
                     "full_mesh|per_rail",
                     "full_mesh: leaves join every spine (of their SU with 3 tiers); per_rail: "
                     "one spine group per rail (3 tiers)"),
    WEFT_PARAM_ENUM ("layout", WeftRailOptParams, layout, "rail", "rail|tor",
                     "rail: NIC r of every server of an SU on the SU's rail-r leaf; tor: all the "
                     "NICs of a server on one leaf, a top-of-rack switch per group of "
                     "servers_per_su / NICs servers (same leaves and spines)"),
    WEFT_PARAM_RATIO ("leaf_oversubscription", WeftRailOptParams, leaf_oversubscription, "1:1",
                      "1:1", "64:1", "leaf down:up ports (fewer uplinks for the same downlinks)"),
    WEFT_PARAM_RATIO ("spine_oversubscription", WeftRailOptParams, spine_oversubscription, "1:1",
                      "1:1", "64:1", "spine down:up ports (three tiers)"),
    WEFT_PARAM_RATE ("spine_link_rate", WeftRailOptParams, spine_link_rate_bps, "400Gbps", "1Gbps",
                     "10Tbps", "leaf-spine link rate"),
    WEFT_PARAM_RATE ("core_link_rate", WeftRailOptParams, core_link_rate_bps, "400Gbps", "1Gbps",
                     "10Tbps", "spine-core link rate"),
    WEFT_PARAM_TIME ("link_delay", WeftRailOptParams, link_delay_ps, "0ps", "0ps", "1s",
                     "fixed delay added to every fabric link's cable delay"),
    WEFT_PARAM_LENGTH ("leaf_cable_length", WeftRailOptParams, leaf_cable_length_m, "3m", "0m",
                       "100000m", "NIC-leaf cable length (5 ns/m)"),
    WEFT_PARAM_LENGTH ("spine_cable_length", WeftRailOptParams, spine_cable_length_m, "20m", "0m",
                       "100000m", "leaf-spine cable length (5 ns/m)"),
    WEFT_PARAM_LENGTH ("core_cable_length", WeftRailOptParams, core_cable_length_m, "50m", "0m",
                       "100000m", "spine-core cable length (5 ns/m)"),
    WEFT_PARAM_END,
};

static const WeftParamSpec fattree_params[] = {
    WEFT_PARAM_UINT ("k", WeftFatTreeParams, k, "4", "2", "256",
                     "switch radix (even): k pods, k^3/4 hosts, 5k^2/4 switches (a run with "
                     "one flow per host needs about 0.5 GiB at k = 64, 4 GiB at 128, 40 GiB "
                     "at 256: doc/scale.md)"),
    WEFT_PARAM_RATE ("link_rate", WeftFatTreeParams, link_rate_bps, "100Gbps", "1Mbps", "10Tbps",
                     "rate of every link"),
    WEFT_PARAM_TIME ("link_delay", WeftFatTreeParams, link_delay_ps, "0ps", "0ps", "1s",
                     "fixed delay added to every link's cable delay"),
    WEFT_PARAM_LENGTH ("cable_length", WeftFatTreeParams, cable_length_m, "5m", "0m", "100000m",
                       "cable length of every link (5 ns/m)"),
    WEFT_PARAM_END,
};

typedef struct {
    char *file;
} FileParams;

static const WeftParamSpec file_params[] = {
    WEFT_PARAM_STRING ("file", FileParams, file, NULL,
                       "topology file (node and link lines; topologies/file.h), relative to the "
                       "experiment file"),
    WEFT_PARAM_END,
};

static WeftGraph *
gen_file (const void *p, const void *server, const char *dir, GError **error)
{
    const FileParams *fp = p;
    g_autofree char *path = g_path_is_absolute (fp->file) ? g_strdup (fp->file)
                                                          : g_build_filename (dir, fp->file, NULL);
    WeftGraph *g = weft_topology_load_file (path, error);
    if (g == NULL)
        g_prefix_error (error, "[topology] file: ");
    return g;
}

static WeftGraph *
gen_railopt (const void *p, const void *server, const char *dir, GError **error)
{
    return weft_topology_railopt (p, server, error);
}

static WeftGraph *
gen_fattree (const void *p, const void *server, const char *dir, GError **error)
{
    return weft_topology_fattree (p, error);
}

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

static gboolean
size_railopt (const void *p, const void *server, WeftGraphSize *out, GError **error)
{
    return weft_topology_railopt_size (p, server, out, error);
}

static gboolean
size_fattree (const void *p, const void *server, WeftGraphSize *out, GError **error)
{
    return weft_topology_fattree_size (p, out, error);
}

static gboolean
size_single_switch (const void *p, const void *server, WeftGraphSize *out, GError **error)
{
    return weft_topology_single_switch_size (p, out, error);
}

static gboolean
size_dumbbell (const void *p, const void *server, WeftGraphSize *out, GError **error)
{
    return weft_topology_dumbbell_size (p, out, error);
}

static gboolean
size_leafspine (const void *p, const void *server, WeftGraphSize *out, GError **error)
{
    return weft_topology_leafspine_size (p, out, error);
}

static const WeftTopologyGenerator gen_dumbbell_def = {
    "dumbbell",      "two switches joined by one bottleneck link, hosts split left and right",
    dumbbell_params, sizeof (WeftDumbbellParams),
    FALSE,           gen_dumbbell,
    size_dumbbell,
};
static const WeftTopologyGenerator gen_leafspine_def = {
    "leafspine",
    "two-tier leaf-spine with hosts on the leaves, ECMP over the spines",
    leafspine_params,
    sizeof (WeftLeafSpineParams),
    FALSE,
    gen_leafspine,
    size_leafspine,
};
static const WeftTopologyGenerator gen_railopt_def = {
    "railopt",      "rail-optimised fat tree of DGX-class servers in scalable units (2 or 3 tiers)",
    railopt_params, sizeof (WeftRailOptParams),
    TRUE,           gen_railopt,
    size_railopt,
};
static const WeftTopologyGenerator gen_file_def = {
    "file",      "nodes and links listed in a file, for anything the generators do not cover",
    file_params, sizeof (FileParams),
    FALSE,       gen_file,
    NULL,
};
static const WeftTopologyGenerator gen_fattree_def = {
    "fattree",      "k-ary three-tier fat tree of plain hosts",
    fattree_params, sizeof (WeftFatTreeParams),
    FALSE,          gen_fattree,
    size_fattree,
};
static const WeftTopologyGenerator gen_single_switch_def = {
    "single_switch", "N hosts on one switch", single_switch_params, sizeof (WeftSingleSwitchParams),
    FALSE,           gen_single_switch,       size_single_switch,
};

/* One sorted array (STYLE B4): grep finds every generator here. */
static const WeftTopologyGenerator *const generators[] = {
    &gen_dumbbell_def, &gen_fattree_def,       &gen_file_def, &gen_leafspine_def,
    &gen_railopt_def,  &gen_single_switch_def, NULL,
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

/* An experiment's [topology] (and [server]) read into its generator's params. */
typedef struct {
    const WeftTopologyGenerator *gen;
    Common common;
    WeftServerParams server;
    void *params;
} Reading;

static void
reading_clear (Reading *rd)
{
    if (rd->gen)
        weft_params_clear (rd->gen->params, rd->params);
    weft_params_clear (common_params, &rd->common);
    weft_params_clear (weft_server_params (), &rd->server);
    g_free (rd->params);
}

static gboolean
read_topology (const WeftExperiment *exp, Reading *rd, GError **error)
{
    *rd = (Reading){ 0 };
    GKeyFile *kf = weft_experiment_keyfile (exp);
    g_autofree char *name = g_key_file_get_string (kf, "topology", "generator", NULL);
    if (name == NULL)
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_MISSING, "topology", "generator",
                                     "missing: expected a generator name such as leafspine");
    g_strstrip (name);
    const WeftTopologyGenerator *gen = weft_topology_generator_lookup (name);
    if (gen == NULL) {
        const char *names[G_N_ELEMENTS (generators)];
        for (guint i = 0; i < G_N_ELEMENTS (generators); i++)
            names[i] = generators[i] ? generators[i]->name : NULL;
        const char *close = weft_suggest (name, names);
        g_autofree char *list = g_strjoinv (", ", (char **) names);
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_VALUE, "topology", "generator",
                                     "unknown generator '%s'%s%s%s: expected one of %s", name,
                                     close ? ", did you mean '" : "", close ? close : "",
                                     close ? "'?" : "", list);
    }
    rd->gen = gen;
    rd->params = g_malloc0 (gen->params_size);
    WeftParamBinding bind[2] = { { common_params, &rd->common }, { gen->params, rd->params } };
    if (!weft_params_read (exp, "topology", bind, 2, error))
        return FALSE;
    if (gen->uses_server)
        return weft_server_read (&rd->server, exp, error);
    if (weft_experiment_has_group (exp, "server"))
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_UNKNOWN_GROUP, "server", NULL,
                                     "generator %s builds no servers: expected no [server] group",
                                     gen->name);
    return TRUE;
}

/* A generator's error starts "[group] key: ": name the file (or --set) that set that key. */
static void
propagate_generator_error (const WeftExperiment *exp, GError **error, GError *local)
{
    const char *grp = g_str_has_prefix (local->message, "[server]") ? "server" : "topology";
    const char *k0 = strstr (local->message, "] "), *k1 = k0 ? strchr (k0, ':') : NULL;
    g_autofree char *key = k1 ? g_strndup (k0 + 2, k1 - k0 - 2) : NULL;
    g_propagate_prefixed_error (error, local, "%s: ", weft_experiment_origin (exp, grp, key));
}

WeftGraph *
weft_topology_generate (const WeftExperiment *exp, GError **error)
{
    Reading rd;
    WeftGraph *g = NULL;
    GError *local = NULL;
    if (read_topology (exp, &rd, error)) {
        /* Relative names resolve against the file that set them: the topology file's against
         * the one that set [topology] file, not the one that chose the generator. */
        g_autofree char *dir = weft_experiment_dir_for (
            exp, "topology", rd.gen == &gen_file_def ? "file" : "generator");
        g = rd.gen->generate (rd.params, rd.gen->uses_server ? &rd.server : NULL, dir, &local);
        if (g == NULL)
            propagate_generator_error (exp, error, local);
    }
    reading_clear (&rd);
    return g;
}

/* InfiniBand SHARP ([infiniband] sharp, read and checked by models/infiniband.c): collectives
 * send to the fabric switches, which reduce and send the result back, so the switches must be
 * endpoints before the routes are computed.  Only then, so that every other fabric's route
 * tables stay as they are. */
static void
mark_sharp (WeftGraph *g, const WeftExperiment *exp)
{
    GKeyFile *kf = weft_experiment_keyfile (exp);
    if (!g_key_file_get_boolean (kf, "infiniband", "sharp", NULL))
        return;
    for (guint32 id = 0; id < weft_graph_n_nodes (g); id++) {
        const WeftNode *n = weft_graph_node (g, id);
        if (n->kind == WEFT_NODE_SWITCH && n->server < 0)
            weft_graph_make_endpoint (g, id);
    }
}

gboolean
weft_topology_route (WeftGraph *g, const WeftExperiment *exp, GError **error)
{
    Reading rd;
    gboolean ok = read_topology (exp, &rd, error);
    if (ok) {
        mark_sharp (g, exp);
        weft_graph_routes_compute (g);
        if (rd.common.routing_engine == ENGINE_MINHOP)
            weft_minhop_route (g);
        else if (rd.common.routing_engine == ENGINE_UPDN)
            weft_updn_route (g);
    }
    if (ok && rd.common.forwarding_table && *rd.common.forwarding_table) {
        g_autofree char *lft_dir = weft_experiment_dir_for (exp, "topology", "forwarding_table");
        g_autofree char *lft = g_path_is_absolute (rd.common.forwarding_table)
                                   ? g_strdup (rd.common.forwarding_table)
                                   : g_build_filename (lft_dir, rd.common.forwarding_table, NULL);
        GError *local = NULL;
        if (!weft_lft_load (g, lft, &local)) {
            g_propagate_prefixed_error (
                error, local, "%s: [topology] forwarding_table: ",
                weft_experiment_origin (exp, "topology", "forwarding_table"));
            ok = FALSE;
        }
    }
    if (ok)
        g_debug ("%s: %u nodes, %u links, %u endpoints", rd.gen->name, weft_graph_n_nodes (g),
                 weft_graph_n_links (g), weft_graph_n_endpoints (g));
    reading_clear (&rd);
    return ok;
}

gboolean
weft_topology_reroute (WeftGraph *g, const WeftExperiment *exp, GError **error)
{
    Reading rd;
    gboolean ok = read_topology (exp, &rd, error);
    if (ok) {
        weft_graph_routes_compute (g);
        if (rd.common.routing_engine == ENGINE_MINHOP)
            weft_minhop_route (g);
        else if (rd.common.routing_engine == ENGINE_UPDN)
            weft_updn_route (g);
    }
    reading_clear (&rd);
    return ok;
}

WeftGraph *
weft_topology_build (const WeftExperiment *exp, GError **error)
{
    WeftGraph *g = weft_topology_generate (exp, error);
    if (g && !weft_topology_route (g, exp, error))
        g_clear_pointer (&g, weft_graph_free);
    return g;
}

gboolean
weft_topology_size (const WeftExperiment *exp, WeftGraphSize *out, gboolean *known, GError **error)
{
    Reading rd;
    GError *local = NULL;
    gboolean ok = read_topology (exp, &rd, error);
    *out = (WeftGraphSize){ 0 };
    *known = ok && rd.gen->size != NULL;
    if (*known && !rd.gen->size (rd.params, rd.gen->uses_server ? &rd.server : NULL, out, &local)) {
        propagate_generator_error (exp, error, local);
        ok = *known = FALSE;
    }
    reading_clear (&rd);
    return ok;
}

guint64
weft_topology_engine_bytes (const WeftExperiment *exp, const WeftGraphSize *s)
{
    Reading rd;
    guint64 bytes = 0;
    if (read_topology (exp, &rd, NULL)) {
        guint64 dense = s->switches * s->destinations * 2;
        if (rd.common.routing_engine == ENGINE_MINHOP)
            bytes += dense;
        else if (rd.common.routing_engine == ENGINE_UPDN)
            bytes += dense + s->switches * s->groups * 8;
        if (rd.common.forwarding_table && *rd.common.forwarding_table) {
            g_autofree char *dir = weft_experiment_dir_for (exp, "topology", "forwarding_table");
            g_autofree char *path = g_path_is_absolute (rd.common.forwarding_table)
                                        ? g_strdup (rd.common.forwarding_table)
                                        : g_build_filename (dir, rd.common.forwarding_table, NULL);
            GStatBuf st;
            if (g_stat (path, &st) == 0)
                bytes += MIN ((guint64) st.st_size * 2, dense);
        }
    }
    reading_clear (&rd);
    return bytes;
}
