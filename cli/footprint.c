/* cli/footprint.c - the memory a run needs, and the memory it may use (cli/footprint.h).
 *
 * The estimate adds up what the setup allocates, from the sizes of the structures involved:
 * sim/routes.c's weft_graph_size_bytes for the graph and its routes, the routing engine's
 * overrides (topologies/topology.c), and here the models: a WeftPort per cabled port end, with
 * the fabric's per-port state (WeftPfcPort on RoCE, WeftIbPort on InfiniBand), a switch or NIC
 * model per node, and a WeftFlow with its fabric's per-flow state (and its out-of-order
 * placement where packets can arrive out of order) and its specs per flow.
 * doc/scale.md compares it with measured peaks.
 */
#include "config.h"
#define G_LOG_DOMAIN "weft-cli"
#include "cli/footprint.h"

#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "models/ib_credit.h"
#include "models/nic.h"
#include "models/pfc.h"
#include "models/port.h"
#include "models/switch.h"
#include "models/transport.h"
#include "sim/units.h"
#include "topologies/topology.h"
#include "workloads/workload.h"

/* The allocator's overhead and rounding on a small block. */
#define BLOCK 16
/* A GSL Mersenne Twister's state (ECN marking on RoCE, adaptive routing): 624 words. */
#define RNG_BYTES 5024

/* [fabric] kind and routing as written (the values are checked when the models are built). */
static void
fabric_of (const WeftExperiment *exp, gboolean *roce, gboolean *ib, gboolean *adaptive,
           gboolean *fixed)
{
    GKeyFile *kf = weft_experiment_keyfile (exp);
    g_autofree char *kind = g_key_file_get_string (kf, "fabric", "kind", NULL);
    g_autofree char *routing = g_key_file_get_string (kf, "fabric", "routing", NULL);
    *roce = kind && strcmp (g_strstrip (kind), "roce") == 0;
    *ib = kind && strcmp (g_strstrip (kind), "infiniband") == 0;
    *adaptive = routing && strcmp (g_strstrip (routing), "adaptive") == 0;
    *fixed = routing && strcmp (g_strstrip (routing), "static") == 0;
}

/* The models of a graph of size @s: every node gets a model (hosts and GPUs a NIC, the rest a
 * switch) with its name; every cabled port end a WeftPort, its place in the network's port
 * list and the NIC's per-port rings, plus the fabric's per-port state. */
static guint64
models_bytes (const WeftExperiment *exp, const WeftGraphSize *s)
{
    gboolean roce, ib, adaptive, fixed;
    fabric_of (exp, &roce, &ib, &adaptive, &fixed);
    guint64 per_node = MAX (sizeof (WeftNic), sizeof (WeftSwitch)) + 48 + 3 * 8 + 2 * BLOCK;
    guint64 per_port = sizeof (WeftPort) + 8 + 40 + BLOCK;
    if (roce)
        per_port += sizeof (WeftPfcPort) + BLOCK;
    if (ib)
        per_port += sizeof (WeftIbPort) + BLOCK;
    guint64 per_switch = (roce ? RNG_BYTES : 0) + (adaptive ? RNG_BYTES : 0);
    /* Static routing: every forwarding node (fabric switches, and a server's NVSwitches, PCIe
     * switches and NICs) keeps its recent answers. */
    guint64 per_forwarder = fixed ? sizeof (WeftSwitchRouteCache) + BLOCK : 0;
    return s->nodes * per_node + 2 * s->links * per_port + s->switches * per_switch +
           (s->nodes - MIN (s->nodes, s->hosts + s->gpus)) * per_forwarder;
}

/* Whether [group] key is written "false" (the parameter tables take only true and false). */
static gboolean
key_false (GKeyFile *kf, const char *group, const char *key)
{
    g_autofree char *v = g_key_file_get_string (kf, group, key, NULL);
    return v && strcmp (g_strstrip (v), "false") == 0;
}

static gboolean
key_true (GKeyFile *kf, const char *group, const char *key)
{
    g_autofree char *v = g_key_file_get_string (kf, group, key, NULL);
    return v && strcmp (g_strstrip (v), "true") == 0;
}

gsize
weft_footprint_flow_state_bytes (const WeftExperiment *exp)
{
    GKeyFile *kf = weft_experiment_keyfile (exp);
    g_autofree char *kind = g_key_file_get_string (kf, "fabric", "kind", NULL);
    g_autofree char *spray = g_key_file_get_string (kf, "fabric", "spray", NULL);
    g_autofree char *routing = g_key_file_get_string (kf, "fabric", "routing", NULL);
    g_autofree char *recovery = g_key_file_get_string (kf, "transport", "recovery", NULL);
    if (routing)
        g_strstrip (routing);
    if (recovery)
        g_strstrip (recovery);
    if (kind)
        g_strstrip (kind);
    if (spray)
        g_strstrip (spray);
    gboolean roce = kind && strcmp (kind, "roce") == 0;
    gboolean ib = kind && strcmp (kind, "infiniband") == 0;
    gboolean ue = kind && strcmp (kind, "ultra-ethernet") == 0;
    gsize bytes = sizeof (WeftFlow);
    /* What weft_transport_setup allocates (models/transport.h), not a flow's loss counters,
     * made at its first loss (WeftFlowLoss): IB CC's state where [ibcc] is
     * on (off by default); DCQCN's where DCQCN or ECN marking is (both on by default on RoCE,
     * ECN on Ultra Ethernet); Ultra Ethernet's on its fabric and wherever packets are sprayed. */
    if (ib && key_true (kf, "ibcc", "enabled"))
        bytes += sizeof (WeftIbccFlow);
    if ((roce && !(key_false (kf, "dcqcn", "enabled") && key_false (kf, "ecn", "enabled"))) ||
        (ue && !key_false (kf, "ecn", "enabled")))
        bytes += sizeof (WeftDcqcnFlow);
    gboolean sprayed = spray && strcmp (spray, "off") != 0;
    if (ue || sprayed)
        bytes += sizeof (WeftUetFlow);
    /* The receiver's out-of-order placement where packets can be placed out of order (adaptive
     * routing, selective repeat, spraying) or are counted as reordered (Ultra Ethernet). */
    if (ue || sprayed || (routing && strcmp (routing, "adaptive") == 0) ||
        (recovery && strcmp (recovery, "selective-repeat") == 0))
        bytes += sizeof (WeftOooFlow);
    /* RFC 6298's estimates where the transport is not RC (RC's timeout is fixed). */
    if (!ib && !roce)
        bytes += sizeof (WeftRttFlow);
    return bytes;
}

/* A flow: its state, its spec twice (the generators fill an array that doubles as it grows:
 * up to twice the specs' size), and 8 bytes of the ordering's id map and of slack. */
static guint64
flow_bytes (const WeftExperiment *exp)
{
    return weft_footprint_flow_state_bytes (exp) + 2 * sizeof (WeftFlowSpec) + 8 + BLOCK;
}

/* This process's size now: resident, or virtual (for RLIMIT_AS), from /proc/self/statm. */
static guint64
self_bytes (gboolean resident)
{
    g_autofree char *statm = NULL;
    if (!g_file_get_contents ("/proc/self/statm", &statm, NULL, NULL))
        return 0;
    guint64 size = 0, rss = 0;
    if (sscanf (statm, "%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT, &size, &rss) != 2)
        return 0;
    return (resident ? rss : size) * (guint64) sysconf (_SC_PAGESIZE);
}

gboolean
weft_footprint_estimate (const WeftExperiment *exp, const WeftGraph *g, gboolean models,
                         WeftFootprint *fp, GError **error)
{
    *fp = (WeftFootprint){ 0 };
    if (g) {
        weft_graph_measure (g, &fp->size);
        fp->known = TRUE;
    } else if (!weft_topology_size (exp, &fp->size, &fp->known, error)) {
        return FALSE;
    }
    if (!fp->known)
        return TRUE;
    const WeftGraphSize *s = &fp->size;
    weft_graph_size_bytes (s, &fp->graph, &fp->routes);
    fp->routes += weft_topology_engine_bytes (exp, s);
    if (models) {
        fp->models = models_bytes (exp, s);
        fp->n_flows =
            weft_workload_estimate_flows (exp, s->hosts ? s->hosts : s->gpus, s->endpoints);
        guint64 per_flow = flow_bytes (exp);
        fp->flows = fp->n_flows > G_MAXUINT64 / per_flow ? G_MAXUINT64 : fp->n_flows * per_flow;
    }
    fp->base = self_bytes (TRUE);
    guint64 parts[] = { fp->base, fp->graph, fp->routes, fp->models, fp->flows };
    for (guint i = 0; i < G_N_ELEMENTS (parts); i++)
        fp->total = parts[i] > G_MAXUINT64 - fp->total ? G_MAXUINT64 : fp->total + parts[i];
    return TRUE;
}

/* ---- limits ------------------------------------------------------------------------------ */

static guint64
read_limit_file (const char *path)
{
    g_autofree char *text = NULL;
    if (!g_file_get_contents (path, &text, NULL, NULL))
        return G_MAXUINT64;
    g_strstrip (text);
    char *end;
    guint64 v = g_ascii_strtoull (text, &end, 10);
    return end != text && *end == '\0' ? v : G_MAXUINT64; /* "max": no limit */
}

guint64
weft_footprint_cgroup_limit (const char *root, const char *self_cgroup)
{
    /* cgroup v2: the line "0::/PATH" */
    const char *line = self_cgroup;
    while (line && !g_str_has_prefix (line, "0::")) {
        line = strchr (line, '\n');
        line = line ? line + 1 : NULL;
    }
    if (!line)
        return G_MAXUINT64;
    const char *eol = strchr (line, '\n');
    g_autofree char *path =
        g_strndup (line + 3, eol ? (gsize) (eol - line - 3) : strlen (line + 3));
    g_strstrip (path);
    guint64 limit = G_MAXUINT64;
    g_autofree char *dir = g_build_filename (root, path, NULL);
    g_autofree char *stop = g_canonicalize_filename (root, NULL);
    for (char *d = g_canonicalize_filename (dir, NULL);;) {
        g_autofree char *f = g_build_filename (d, "memory.max", NULL);
        limit = MIN (limit, read_limit_file (f));
        if (strcmp (d, stop) == 0 || !g_str_has_prefix (d, stop)) {
            g_free (d);
            break;
        }
        char *up = g_path_get_dirname (d);
        g_free (d);
        d = up;
    }
    return limit;
}

guint64
weft_footprint_limit (guint64 max_memory, char **what)
{
    guint64 limit = G_MAXUINT64;
    const char *why = NULL;
    if (max_memory > 0) {
        limit = max_memory;
        why = "--max-memory";
    }
    struct rlimit rl;
    if (getrlimit (RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        (guint64) rl.rlim_cur < limit) {
        limit = rl.rlim_cur;
        why = "the address-space limit (ulimit -v)";
    }
    g_autofree char *self = NULL;
    if (g_file_get_contents ("/proc/self/cgroup", &self, NULL, NULL)) {
        guint64 cg = weft_footprint_cgroup_limit ("/sys/fs/cgroup", self);
        if (cg < limit) {
            limit = cg;
            why = "the cgroup's memory.max";
        }
    }
    long pages = sysconf (_SC_PHYS_PAGES), page = sysconf (_SC_PAGESIZE);
    if (pages > 0 && page > 0 && (guint64) pages * (guint64) page < limit) {
        limit = (guint64) pages * (guint64) page;
        why = "the machine's physical memory";
    }
    if (what)
        *what = g_strdup (why ? why : "nothing");
    return limit;
}

gboolean
weft_footprint_parse_max (const char *text, guint64 *bytes, GError **error)
{
    GError *local = NULL;
    if (!weft_units_parse_bytes (text, bytes, &local) || *bytes == 0) {
        g_set_error (error, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_VALUE, "--max-memory %s: %s", text,
                     local ? local->message : "expected a size above 0, such as 8GiB");
        g_clear_error (&local);
        return FALSE;
    }
    return TRUE;
}

/* @fp's total as the limit @what counts it: an address-space limit counts the process's virtual
 * size, not what it has touched. */
static guint64
need_against (const WeftFootprint *fp, const char *what)
{
    if (g_str_has_prefix (what, "the address-space"))
        return fp->total - fp->base + MAX (fp->base, self_bytes (FALSE));
    return fp->total;
}

gboolean
weft_footprint_check (const WeftExperiment *exp, const WeftFootprint *fp, guint64 max_memory,
                      GError **error)
{
    if (!fp->known)
        return TRUE;
    g_autofree char *what = NULL;
    guint64 limit = weft_footprint_limit (max_memory, &what);
    guint64 need = need_against (fp, what);
    g_debug ("memory estimate: %.3f GiB (base %.3f, graph %.3f, routes %.3f, models %.3f, flows "
             "%.3f for %" G_GUINT64_FORMAT " flows); limit %.3f GiB (%s)",
             weft_units_gib (need), weft_units_gib (fp->base), weft_units_gib (fp->graph),
             weft_units_gib (fp->routes), weft_units_gib (fp->models), weft_units_gib (fp->flows),
             fp->n_flows, weft_units_gib (limit), what);
    if (need <= limit)
        return TRUE;
    g_autofree char *gen =
        g_key_file_get_string (weft_experiment_keyfile (exp), "topology", "generator", NULL);
    g_autoptr (GString) parts = g_string_new (NULL);
    g_string_append_printf (parts, "graph %.2f GiB, routes %.2f GiB", weft_units_gib (fp->graph),
                            weft_units_gib (fp->routes));
    if (fp->models)
        g_string_append_printf (parts, ", models %.2f GiB", weft_units_gib (fp->models));
    if (fp->n_flows)
        g_string_append_printf (parts, ", flows %.2f GiB for %" G_GUINT64_FORMAT " flows",
                                weft_units_gib (fp->flows), fp->n_flows);
    return weft_experiment_fail (
        exp, error, WEFT_CONFIG_ERROR_RANGE, "topology", "generator",
        "%s: %" G_GUINT64_FORMAT " nodes and %" G_GUINT64_FORMAT
        " links need about %.2f GiB (%s; doc/scale.md), more than the %.2f GiB %s allows: "
        "expected a smaller fabric or workload, or more memory",
        gen ? g_strstrip (gen) : "?", fp->size.nodes, fp->size.links, weft_units_gib (need),
        parts->str, weft_units_gib (limit), what);
}

void
weft_footprint_flow_budget (const WeftExperiment *exp, const WeftGraph *g, guint64 max_memory,
                            WeftFlowBudget *budget)
{
    guint64 limit = weft_footprint_limit (max_memory, &budget->limit);
    budget->flow_bytes = flow_bytes (exp);
    budget->bytes = limit;
    budget->max_flows = G_MAXUINT64;
    WeftFootprint fp;
    if (!weft_footprint_estimate (exp, g, TRUE, &fp, NULL) || !fp.known)
        return;
    /* The graph and its routes are built: the process as it stands holds them already. */
    guint64 others = need_against (&fp, budget->limit) - fp.flows - fp.graph - fp.routes;
    budget->bytes = limit > others ? limit - others : 0;
    /* The flows the estimate counted fitted (weft_footprint_check): never fewer. */
    budget->max_flows = MAX (budget->bytes / budget->flow_bytes, fp.n_flows);
}

/* Estimates @exp's memory (from the parameters, or from @g) and refuses it when it cannot fit. */
static gboolean
fits (const WeftExperiment *exp, const WeftGraph *g, gboolean models, guint64 max_memory,
      GError **error)
{
    WeftFootprint fp;
    return weft_footprint_estimate (exp, g, models, &fp, error) &&
           weft_footprint_check (exp, &fp, max_memory, error);
}

WeftGraph *
weft_footprint_build_topology (const WeftExperiment *exp, gboolean models, guint64 max_memory,
                               GError **error)
{
    if (!fits (exp, NULL, models, max_memory, error))
        return NULL;
    WeftGraph *g = weft_topology_generate (exp, error);
    if (g && (!fits (exp, g, models, max_memory, error) || !weft_topology_route (g, exp, error)))
        g_clear_pointer (&g, weft_graph_free);
    return g;
}
