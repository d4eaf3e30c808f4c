/* models/fault.c - [fault.NAME] groups: parsing and validation, the ports they act on, and the
 * events that switch a link Down, change its rate or its bit-error rate (models/fault.h). */
#include "config.h"
#define G_LOG_DOMAIN "weft-fault"
#include "models/fault.h"

#include <math.h>
#include <string.h>

#include "models/frn.h"
#include "models/registry.h"
#include "models/sm.h"
#include "models/switch.h"
#include "sim/rng.h"
#include "sim/units.h"
#include "workloads/workload.h"

/* ---- the group ------------------------------------------------------------------------- */

typedef struct {
    int kind;
    char *link;
    weft_time_t at, until, period;
    char *after;
    guint64 rate_bps;
    int width;
    double ber;
    char *switch_name; /* switch-down, uplinks-lost */
    char *ports;       /* uplinks-lost: port numbers */
    double fraction;   /* uplinks-lost */
    char *server;      /* gpudirect-off, nic-removed */
    char *nic;         /* nic-removed */
} FaultParams;

#define KINDS                                                                                      \
    "link-down|link-flap|degraded|bit-errors|switch-down|uplinks-lost|nic-removed|gpudirect-off"
#define WIDTHS "4x|2x|1x"

static const WeftParamSpec fault_params[] = {
    WEFT_PARAM_ENUM ("kind", FaultParams, kind, NULL, KINDS,
                     "what fails: link-down, link-flap, degraded (lower rate or width), "
                     "bit-errors, switch-down (every link of a switch), uplinks-lost (some of a "
                     "switch's uplinks), nic-removed (a NIC taken out of its server), "
                     "gpudirect-off (one server's GPUs without GPUDirect RDMA)"),
    WEFT_PARAM_STRING ("link", FaultParams, link, "",
                       "the link: NODE:PORT (ports from 1, as `weft topo --format topo` prints "
                       "them), a NIC or host name (its one fabric link), or the two ends' names "
                       "separated by a space"),
    WEFT_PARAM_TIME ("at", FaultParams, at, "0s", "0s", NULL,
                     "when the fault begins (give this or after, not both); gpudirect-off: the "
                     "collectives that start at or after it are staged"),
    WEFT_PARAM_STRING ("after", FaultParams, after, "",
                       "the event it begins at instead of a time, optionally '+ TIME' later: "
                       "workload.NAME (its first flow starts), workload.NAME.collective.N (the "
                       "group's Nth collective begins its first step), collective.N (the run's "
                       "Nth)"),
    WEFT_PARAM_TIME ("until", FaultParams, until, "0s", "0s", NULL,
                     "when it ends (the link is restored); with after, counted from the "
                     "resolved start; absent: the end of the run; gpudirect-off (with at only): "
                     "the collectives that start at or after it have GPUDirect again"),
    WEFT_PARAM_TIME ("period", FaultParams, period, "0s", "0s", NULL,
                     "link-flap: one Down + Active cycle (Down for the first half)"),
    WEFT_PARAM_RATE ("rate", FaultParams, rate_bps, "0bps", "0bps", NULL,
                     "degraded: the rate the link trains at (at most its own)"),
    WEFT_PARAM_ENUM ("width", FaultParams, width, "4x", WIDTHS,
                     "degraded: the width a 4x port trains at instead of a rate (1x at 400 "
                     "Gb/s: 100 Gb/s)"),
    WEFT_PARAM_DOUBLE ("ber", FaultParams, ber, "0", NULL, NULL,
                       "bit-errors: the bit-error rate, in [0, 1)"),
    WEFT_PARAM_STRING ("switch", FaultParams, switch_name, "",
                       "switch-down, uplinks-lost: the switch (a fabric switch's name)"),
    WEFT_PARAM_STRING ("ports", FaultParams, ports, "",
                       "uplinks-lost: the uplinks lost, as port numbers from 1 separated by "
                       "commas or spaces (or give fraction)"),
    WEFT_PARAM_DOUBLE ("fraction", FaultParams, fraction, "0", NULL, NULL,
                       "uplinks-lost: the share of the switch's uplinks lost, in (0, 1]: the "
                       "lowest-numbered round(fraction x uplinks) of them"),
    WEFT_PARAM_STRING ("server", FaultParams, server, "",
                       "gpudirect-off: the server whose GPUs lose GPUDirect RDMA (dgx-2), from "
                       "the start of the run, from after = collective.N (or "
                       "workload.NAME.collective.N) on, or for the collectives that start at or "
                       "after at (and before until); nic-removed: the NIC's server"),
    WEFT_PARAM_STRING ("nic", FaultParams, nic, "",
                       "nic-removed: the NIC taken out, as SERVER/NAME (dgx-2/mlx5_3) or its name "
                       "on `server` (mlx5_3): absent from the start of the run (no at, or at = "
                       "0s), or removed at a time or event of the run (at, after), which fails "
                       "the connections on it and the workload"),
    WEFT_PARAM_END,
};

/* The keys each kind takes besides kind, link, at, after and until. */
static const char *const kind_keys[][4] = {
    [WEFT_FAULT_LINK_DOWN] = { NULL },
    [WEFT_FAULT_LINK_FLAP] = { "period", NULL },
    [WEFT_FAULT_DEGRADED] = { "rate", "width", NULL },
    [WEFT_FAULT_BIT_ERRORS] = { "ber", NULL },
    [WEFT_FAULT_SWITCH_DOWN] = { "switch", NULL },
    [WEFT_FAULT_UPLINKS_LOST] = { "switch", "ports", "fraction", NULL },
    [WEFT_FAULT_NIC_REMOVED] = { "server", "nic", NULL },
    [WEFT_FAULT_GPUDIRECT_OFF] = { "server", NULL },
};

/* ---- gpudirect-off: the graph ------------------------------------------------------------ */

static guint ordinal (const char *text, const char *prefix);

/* The server part of @name ("dgx-2" of "dgx-2/gpu3"), or NULL. */
static char *
server_part (const char *name)
{
    const char *slash = strchr (name, '/');
    return slash ? g_strndup (name, (gsize) (slash - name)) : NULL;
}

/* nic-removed's keys of time: no link or until (a removed NIC does not come back during the
 * run), at most one of at and after; *mid_run: it is removed during the run (at > 0, or after
 * an event) rather than absent from the start. */
static gboolean
check_nic_when (const WeftExperiment *exp, const char *group, gboolean *mid_run, GError **error)
{
    GKeyFile *kf = weft_experiment_keyfile (exp);
    static const char *const not_mine[] = { "link", "until" };
    for (guint k = 0; k < G_N_ELEMENTS (not_mine); k++)
        if (g_key_file_has_key (kf, group, not_mine[k], NULL))
            return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_UNKNOWN_KEY, group,
                                         not_mine[k],
                                         "not used by kind = nic-removed (name the NIC with nic; "
                                         "a removed NIC does not come back during the run)");
    g_autofree char *at = g_key_file_get_string (kf, group, "at", NULL);
    gboolean has_after = g_key_file_has_key (kf, group, "after", NULL);
    if (at && has_after)
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_VALUE, group, "after",
                                     "give at or after, not both");
    guint64 at_ps = 0;
    if (at && !weft_units_parse_time (g_strstrip (at), &at_ps, NULL))
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_UNIT, group, "at",
                                     "'%s': expected a time such as 100us", at);
    *mid_run = has_after || at_ps > 0;
    return TRUE;
}

/* A key of @group, stripped, or NULL when absent or empty.  (transfer full) */
static char *
get_stripped (GKeyFile *kf, const char *group, const char *key)
{
    char *v = g_key_file_get_string (kf, group, key, NULL);
    if (v && !*g_strstrip (v)) {
        g_free (v);
        return NULL;
    }
    return v;
}

/* An error naming @key of @group: unknown @what '@name', with the nearest of @names. */
static gboolean
fail_unknown (const WeftExperiment *exp, GError **error, const char *group, const char *key,
              const char *what, const char *name, GPtrArray *names)
{
    g_ptr_array_add (names, NULL);
    const char *near = weft_suggest (name, (const char **) names->pdata);
    return weft_experiment_fail (
        exp, error, WEFT_CONFIG_ERROR_NODE, group, key, "unknown %s '%s'%s%s%s", what, name,
        near ? ", did you mean '" : "", near ? near : "", near ? "'?" : "");
}

static gboolean
apply_gpudirect_off (const WeftExperiment *exp, WeftGraph *g, const char *group, GError **error)
{
    GKeyFile *kf = weft_experiment_keyfile (exp);
    if (g_key_file_has_key (kf, group, "link", NULL))
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_UNKNOWN_KEY, group, "link",
                                     "not used by kind = gpudirect-off (name the server with "
                                     "server)");
    /* at = TIME (and until): the collectives that start from then on (to until) are staged;
     * the range checks (at within the duration, until after at) are read_fault's, as for
     * every kind. */
    g_autofree char *at = g_key_file_get_string (kf, group, "at", NULL);
    g_autofree char *until = g_key_file_get_string (kf, group, "until", NULL);
    guint64 at_ps = 0, until_ps = WEFT_TIME_NEVER;
    if (at && !weft_units_parse_time (g_strstrip (at), &at_ps, NULL))
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_UNIT, group, "at",
                                     "'%s': expected a time such as 100us", at);
    if (until && !weft_units_parse_time (g_strstrip (until), &until_ps, NULL))
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_UNIT, group, "until",
                                     "'%s': expected a time such as 100us", until);
    gboolean window = at_ps > 0 || until;
    g_autofree char *after = g_key_file_get_string (kf, group, "after", NULL);
    guint first_coll = 0;
    g_autofree char *in_group = NULL; /* after = workload.NAME.collective.N: "workload.NAME" */
    if (after) {
        g_strstrip (after);
        if (at)
            return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_VALUE, group, "after",
                                         "give at or after, not both");
        if (until)
            return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_UNKNOWN_KEY, group, "until",
                                         "not used with after = collective.N (GPUDirect stays "
                                         "off to the end of the run; until goes with at)");
        first_coll = ordinal (after, "collective.");
        const char *tail = g_strrstr (after, ".collective.");
        if (first_coll == 0 && tail && g_str_has_prefix (after, "workload.") &&
            tail > after + strlen ("workload.")) {
            first_coll = ordinal (tail, ".collective.");
            in_group = g_strndup (after, (gsize) (tail - after));
        }
        if (first_coll == 0)
            return weft_experiment_fail (
                exp, error, WEFT_CONFIG_ERROR_VALUE, group, "after",
                "'%s': gpudirect-off takes after = collective.N or "
                "workload.NAME.collective.N (that collective and those after it are staged; "
                "no + TIME, no workload.NAME start)",
                after);
    }
    g_autofree char *server = get_stripped (kf, group, "server");
    if (!server)
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_MISSING, group, "server",
                                     "required: the server, e.g. dgx-2");
    guint32 cpu = WEFT_GRAPH_NONE;
    g_autoptr (GPtrArray) servers = g_ptr_array_new_with_free_func (g_free);
    for (guint32 n = 0; n < weft_graph_n_nodes (g); n++) {
        const WeftNode *node = weft_graph_node (g, n);
        if (node->kind != WEFT_NODE_CPU)
            continue;
        char *name = server_part (node->name);
        if (!name)
            continue;
        if (strcmp (name, server) == 0)
            cpu = n;
        g_ptr_array_add (servers, name);
    }
    if (cpu == WEFT_GRAPH_NONE)
        return fail_unknown (exp, error, group, "server", "server", server, servers);
    gint32 index = weft_graph_node (g, cpu)->server;
    /* One rule per server: a second would narrow the first's (the rules are not merged).  A
     * group from the start on a server staged from the start already changes nothing. */
    for (guint32 n = 0; n < weft_graph_n_nodes (g); n++) {
        const WeftNode *node = weft_graph_node (g, n);
        if (node->kind == WEFT_NODE_GPU && node->server == index &&
            weft_graph_staging (g, n) != n &&
            (window || first_coll > 0 || weft_graph_staging_timed (g, n)))
            return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_VALUE, group, "server",
                                         "%s has no GPUDirect already (another gpudirect-off "
                                         "group, or [server] gpudirect = false): one group per "
                                         "server",
                                         server);
    }
    for (guint32 n = 0; n < weft_graph_n_nodes (g); n++) {
        const WeftNode *node = weft_graph_node (g, n);
        if (node->kind != WEFT_NODE_GPU || node->server != index)
            continue;
        if (window)
            weft_graph_set_staging_window (g, n, cpu, at_ps, until_ps);
        else if (first_coll == 0)
            weft_graph_set_staging (g, n, cpu);
        else if (in_group)
            weft_graph_set_staging_from_group (g, n, cpu, in_group, first_coll - 1);
        else
            weft_graph_set_staging_from (g, n, cpu, first_coll - 1);
    }
    /* A collective's layouts are told apart by a bit each (WeftCollInstance.staged_layouts). */
    if (weft_graph_staging_n_epochs (g) > 64)
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_RANGE, group, "at",
                                     "more than 63 distinct gpudirect-off at and until times in "
                                     "one run");
    return TRUE;
}

/* Whether node @n still has a fabric link that is not removed. */
static gboolean
has_live_fabric_link (const WeftGraph *g, guint32 n)
{
    const WeftNode *node = weft_graph_node (g, n);
    for (guint p = 0; p < node->ports->len; p++) {
        guint32 lid = g_array_index (node->ports, guint32, p);
        if (lid != WEFT_GRAPH_NONE && weft_graph_link (g, lid)->kind == WEFT_LINK_FABRIC &&
            !weft_graph_link_removed (g, lid))
            return TRUE;
    }
    return FALSE;
}

/* nic-removed: the NIC's fabric links leave the graph's routing, so its server's endpoints
 * reach the fabric through their nearest remaining NIC (sim/graph.h). */
static gboolean
apply_nic_removed (const WeftExperiment *exp, WeftGraph *g, const char *group, GError **error)
{
    gboolean mid_run = FALSE;
    if (!check_nic_when (exp, group, &mid_run, error))
        return FALSE;
    GKeyFile *kf = weft_experiment_keyfile (exp);
    g_autofree char *nic = get_stripped (kf, group, "nic");
    g_autofree char *server = get_stripped (kf, group, "server");
    if (!nic)
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_MISSING, group, "nic",
                                     "required: the NIC, e.g. dgx-2/mlx5_3");
    g_autofree char *in_nic = server_part (nic);
    if (in_nic && server && strcmp (in_nic, server) != 0)
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_VALUE, group, "server",
                                     "'%s' is not the server of nic = %s", server, nic);
    if (!in_nic && !server)
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_MISSING, group, "server",
                                     "required with nic = %s: the server, e.g. dgx-2 (or give "
                                     "nic = SERVER/%s)",
                                     nic, nic);
    g_autofree char *full = in_nic ? g_strdup (nic) : g_strdup_printf ("%s/%s", server, nic);
    g_autofree char *srv = server_part (full);
    /* The server first, so that a wrong one is named as such. */
    g_autoptr (GPtrArray) servers = g_ptr_array_new_with_free_func (g_free);
    g_autoptr (GPtrArray) nics = g_ptr_array_new ();
    gboolean server_known = FALSE;
    for (guint32 n = 0; n < weft_graph_n_nodes (g); n++) {
        const WeftNode *node = weft_graph_node (g, n);
        if (node->kind == WEFT_NODE_CPU) {
            char *name = server_part (node->name);
            if (name) {
                server_known |= strcmp (name, srv) == 0;
                g_ptr_array_add (servers, name);
            }
        }
        if (node->kind == WEFT_NODE_NIC)
            g_ptr_array_add (nics, node->name);
    }
    if (!server_known)
        return fail_unknown (exp, error, group, in_nic ? "nic" : "server", "server", srv, servers);
    guint32 id = weft_graph_lookup (g, full);
    if (id == WEFT_GRAPH_NONE || weft_graph_node (g, id)->kind != WEFT_NODE_NIC)
        return fail_unknown (exp, error, group, "nic", "NIC", full, nics);
    const WeftNode *node = weft_graph_node (g, id);
    if (!has_live_fabric_link (g, id)) {
        gboolean removed = FALSE;
        for (guint p = 0; p < node->ports->len; p++) {
            guint32 lid = g_array_index (node->ports, guint32, p);
            removed |= lid != WEFT_GRAPH_NONE && weft_graph_link_removed (g, lid);
        }
        return weft_experiment_fail (
            exp, error, WEFT_CONFIG_ERROR_VALUE, group, "nic", "%s %s", full,
            removed ? "is removed by another group already" : "has no fabric link");
    }
    /* Removed during the run: routing has the NIC until then, and the run's fault event takes
     * its link Down (begin). */
    if (mid_run)
        return TRUE;
    for (guint p = 0; p < node->ports->len; p++) {
        guint32 lid = g_array_index (node->ports, guint32, p);
        if (lid != WEFT_GRAPH_NONE && weft_graph_link (g, lid)->kind == WEFT_LINK_FABRIC)
            weft_graph_set_link_removed (g, lid);
    }
    /* A server needs a NIC left for its traffic to reach the fabric at all. */
    for (guint32 n = 0; n < weft_graph_n_nodes (g); n++) {
        const WeftNode *other = weft_graph_node (g, n);
        if (other->kind == WEFT_NODE_NIC && other->server == node->server &&
            has_live_fabric_link (g, n))
            return TRUE;
    }
    return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_VALUE, group, "nic",
                                 "%s has no other NIC with a fabric link: its GPUs could not "
                                 "reach the network",
                                 srv);
}

gboolean
weft_faults_apply_graph (const WeftExperiment *exp, WeftGraph *g, GError **error)
{
    g_return_val_if_fail (exp != NULL && g != NULL, FALSE);
    g_auto (GStrv) groups = weft_experiment_groups_with_prefix (exp, "fault");
    GKeyFile *kf = weft_experiment_keyfile (exp);
    for (guint i = 0; groups && groups[i]; i++) {
        g_autofree char *kind = g_key_file_get_string (kf, groups[i], "kind", NULL);
        if (kind && strcmp (g_strstrip (kind), "gpudirect-off") == 0 &&
            !apply_gpudirect_off (exp, g, groups[i], error))
            return FALSE;
        if (kind && strcmp (kind, "nic-removed") == 0 &&
            !apply_nic_removed (exp, g, groups[i], error))
            return FALSE;
    }
    return TRUE;
}

const char *
weft_fault_kind_name (WeftFaultKind kind)
{
    static const char *const names[] = { "link-down",   "link-flap",    "degraded",
                                         "bit-errors",  "switch-down",  "uplinks-lost",
                                         "nic-removed", "gpudirect-off" };
    return (guint) kind < G_N_ELEMENTS (names) ? names[kind] : "?";
}

/* ---- the run's state -------------------------------------------------------------------- */

typedef struct {
    WeftFaultPort end[2]; /* end[d]: the transmitter of direction d (0: a -> b) */
} FaultLink;

typedef struct {
    char *group; /* "fault.cable" */
    FaultParams p;
    gboolean has_at, has_until;
    guint32 link;  /* graph link id */
    FaultLink *fl; /* borrowed from WeftFaults.links */
    WeftPort *port[2];
    weft_time_t start; /* resolved begin */
    /* after = EVENT [+ TIME]: */
    guint32 after_coll;      /* the collective whose start it waits for, or G_MAXUINT32 */
    weft_time_t after_delay; /* the + TIME */
    weft_time_t until_rel;   /* with after: until, counted from the resolved start */
    weft_time_t due;         /* its begin event's time once scheduled, until it ran; else NEVER */
    guint64 rate_bps;        /* degraded: resolved */
    guint32 nic;             /* nic-removed: the NIC's graph node */
    struct WeftFaults *all;
} Fault;

struct WeftFaults {
    GPtrArray *faults;      /* Fault *, file order */
    GHashTable *links;      /* link id -> FaultLink * (owned) */
    GPtrArray *rngs;        /* gsl_rng *, owned */
    WeftSched sched;        /* the fault events' scheduling identity */
    WeftSim *sim;           /* borrowed */
    GArray *log;            /* WeftFaultEvent: what happened, in order */
    guint n_groups;         /* [fault.NAME] groups (a switch's group has a Fault per link) */
    const WeftMechEnv *env; /* borrowed: its trace, once the run has one */
    guint written;          /* events of log already in /faults */
    gboolean merged;        /* across ranks: the counters are every rank's (rank_merge) */
};

static void
fault_free (gpointer data)
{
    Fault *f = data;
    weft_params_clear (fault_params, &f->p);
    g_free (f->group);
    g_free (f);
}

static void
rng_free (gpointer data)
{
    gsl_rng_free (data);
}

/* ---- per packet ------------------------------------------------------------------------- */

double
weft_fault_per (double ber, guint64 bytes)
{
    if (ber <= 0)
        return 0;
    /* 1 - (1 - ber)^bits without cancellation for tiny ber. */
    return -expm1 ((double) (8 * bytes) * log1p (-ber));
}

gboolean
weft_fault_port_corrupts (WeftFaultPort *f, const WeftPacket *pkt)
{
    if (f->ber <= 0 || pkt->kind == WEFT_PKT_CREDIT)
        return FALSE;
    if (gsl_rng_uniform (f->rng) >= weft_fault_per (f->ber, pkt->size))
        return FALSE;
    f->corrupted++;
    return TRUE;
}

/* ---- naming links ----------------------------------------------------------------------- */

static gboolean
fail_node (const WeftExperiment *exp, GError **error, const char *group, const WeftGraph *g,
           const char *name)
{
    guint n = weft_graph_n_nodes (g);
    g_autofree const char **names = g_new0 (const char *, n + 1);
    for (guint i = 0; i < n; i++)
        names[i] = weft_graph_node (g, i)->name;
    const char *near = weft_suggest (name, names);
    if (near)
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_NODE, group, "link",
                                     "unknown node '%s', did you mean '%s'?", name, near);
    return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_NODE, group, "link",
                                 "unknown node '%s'", name);
}

/* The graph link @text names: NODE:PORT, a node with one fabric link, or "A B". */
static gboolean
resolve_link (const WeftExperiment *exp, const char *group, const WeftGraph *g, const char *text,
              guint32 *link, GError **error)
{
    g_autofree char *t = g_strstrip (g_strdup (text));
    if (!*t)
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_MISSING, group, "link",
                                     "required: which link fails");
    g_auto (GStrv) parts = g_strsplit_set (t, " \t", -1);
    const char *words[2] = { NULL, NULL };
    guint nw = 0;
    for (guint i = 0; parts[i]; i++) {
        if (!*parts[i])
            continue;
        if (nw == 2)
            return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_VALUE, group, "link",
                                         "'%s': expected NODE:PORT, NODE or two node names", t);
        words[nw++] = parts[i];
    }
    if (nw == 2) {
        guint32 a = weft_graph_lookup (g, words[0]), b = weft_graph_lookup (g, words[1]);
        if (a == WEFT_GRAPH_NONE)
            return fail_node (exp, error, group, g, words[0]);
        if (b == WEFT_GRAPH_NONE)
            return fail_node (exp, error, group, g, words[1]);
        const WeftNode *na = weft_graph_node (g, a);
        for (guint p = 0; p < na->ports->len; p++) {
            guint32 peer, pp;
            if (weft_graph_peer (g, a, p, &peer, &pp) && peer == b) {
                *link = g_array_index (na->ports, guint32, p);
                return TRUE;
            }
        }
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_NODE, group, "link",
                                     "no link between %s and %s", words[0], words[1]);
    }
    guint32 node = weft_graph_lookup (g, t);
    const char *colon = strrchr (t, ':');
    if (node == WEFT_GRAPH_NONE && colon) {
        g_autofree char *name = g_strndup (t, (gsize) (colon - t));
        node = weft_graph_lookup (g, name);
        if (node == WEFT_GRAPH_NONE)
            return fail_node (exp, error, group, g, name);
        const WeftNode *n = weft_graph_node (g, node);
        char *end = NULL;
        guint64 port = g_ascii_strtoull (colon + 1, &end, 10);
        if (!colon[1] || *end || port < 1 || port > n->ports->len)
            return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_VALUE, group, "link",
                                         "'%s': %s has ports 1 to %u", t, name, n->ports->len);
        *link = g_array_index (n->ports, guint32, port - 1);
        if (*link == WEFT_GRAPH_NONE)
            return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_VALUE, group, "link",
                                         "'%s': port %" G_GUINT64_FORMAT " of %s is not cabled", t,
                                         port, name);
        return TRUE;
    }
    if (node == WEFT_GRAPH_NONE)
        return fail_node (exp, error, group, g, t);
    /* A node alone: its one fabric link (a NIC's or a host's cable to its leaf). */
    const WeftNode *n = weft_graph_node (g, node);
    guint found = 0;
    for (guint p = 0; p < n->ports->len; p++) {
        guint32 lid = g_array_index (n->ports, guint32, p);
        if (lid != WEFT_GRAPH_NONE && weft_graph_link (g, lid)->kind == WEFT_LINK_FABRIC) {
            *link = lid;
            found++;
        }
    }
    if (found != 1)
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_VALUE, group, "link",
                                     "%s has %u fabric links: name one as %s:PORT", t, found, t);
    return TRUE;
}

/* ---- naming a switch's links (switch-down, uplinks-lost) -------------------------------- */

static gboolean
has_key (const WeftExperiment *exp, const char *group, const char *key)
{
    return g_key_file_has_key (weft_experiment_keyfile (exp), group, key, NULL);
}

/* The fabric switch @f names in `switch`, or NONE with an error. */
static guint32
resolve_switch (const WeftExperiment *exp, const char *group, const WeftGraph *g,
                const FaultParams *p, GError **error)
{
    g_autofree char *name = g_strstrip (g_strdup (p->switch_name));
    if (!*name) {
        weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_MISSING, group, "switch",
                              "required: which switch");
        return WEFT_GRAPH_NONE;
    }
    guint32 sw = weft_graph_lookup (g, name);
    if (sw != WEFT_GRAPH_NONE && weft_graph_node (g, sw)->kind == WEFT_NODE_SWITCH &&
        weft_graph_node (g, sw)->server < 0)
        return sw;
    guint n = weft_graph_n_nodes (g), k = 0;
    g_autofree const char **names = g_new0 (const char *, n + 1);
    for (guint i = 0; i < n; i++)
        if (weft_graph_node (g, i)->kind == WEFT_NODE_SWITCH && weft_graph_node (g, i)->server < 0)
            names[k++] = weft_graph_node (g, i)->name;
    const char *near = weft_suggest (name, names);
    weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_NODE, group, "switch",
                          "no fabric switch named '%s'%s%s%s", name, near ? ", did you mean '" : "",
                          near ? near : "", near ? "'?" : "");
    return WEFT_GRAPH_NONE;
}

/* Whether port @p of switch @sw is an uplink: cabled to a fabric switch of a higher tier. */
static gboolean
is_uplink (const WeftGraph *g, guint32 sw, guint32 p)
{
    guint32 peer;
    if (!weft_graph_peer (g, sw, p, &peer, NULL))
        return FALSE;
    const WeftNode *a = weft_graph_node (g, sw), *b = weft_graph_node (g, peer);
    return b->kind == WEFT_NODE_SWITCH && b->server < 0 && a->tier > 0 && b->tier > a->tier;
}

/* The links a switch-down (every cabled port) or uplinks-lost (`ports`, or the lowest-numbered
 * round(fraction x uplinks) uplinks) group takes Down, in port order, into @links. */
static gboolean
resolve_switch_links (const WeftExperiment *exp, const char *group, const WeftGraph *g,
                      const FaultParams *p, GArray *links, GError **error)
{
    if (has_key (exp, group, "link"))
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_UNKNOWN_KEY, group, "link",
                                     "not used by kind = %s: name the switch",
                                     weft_fault_kind_name (p->kind));
    guint32 sw = resolve_switch (exp, group, g, p, error);
    if (sw == WEFT_GRAPH_NONE)
        return FALSE;
    const WeftNode *n = weft_graph_node (g, sw);
    if (p->kind == WEFT_FAULT_SWITCH_DOWN) {
        for (guint32 q = 0; q < n->ports->len; q++) {
            guint32 lid = g_array_index (n->ports, guint32, q);
            if (lid != WEFT_GRAPH_NONE)
                g_array_append_val (links, lid);
        }
        if (links->len == 0)
            return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_VALUE, group, "switch",
                                         "%s has no cabled port", n->name);
        return TRUE;
    }
    g_autoptr (GArray) up = g_array_new (FALSE, FALSE, sizeof (guint32));
    for (guint32 q = 0; q < n->ports->len; q++)
        if (is_uplink (g, sw, q))
            g_array_append_val (up, q);
    if (up->len == 0)
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_VALUE, group, "switch",
                                     "%s has no uplinks (ports cabled to a higher tier)", n->name);
    gboolean has_ports = has_key (exp, group, "ports"),
             has_fraction = has_key (exp, group, "fraction");
    if (has_ports == has_fraction)
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_MISSING, group, "ports",
                                     "give the lost uplinks' ports or their fraction (one of "
                                     "them)");
    if (has_fraction) {
        if (!(p->fraction > 0 && p->fraction <= 1))
            return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_RANGE, group, "fraction",
                                         "%g is outside (0, 1]", p->fraction);
        guint k = (guint) (p->fraction * up->len + 0.5);
        if (k == 0)
            return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_RANGE, group, "fraction",
                                         "%g of %u uplinks is none: expected at least %.3g",
                                         p->fraction, up->len, 0.5 / up->len);
        for (guint i = 0; i < k; i++)
            g_array_append_val (links,
                                g_array_index (n->ports, guint32, g_array_index (up, guint32, i)));
        return TRUE;
    }
    g_auto (GStrv) words = g_strsplit_set (p->ports, " ,\t", -1);
    for (guint i = 0; words[i]; i++) {
        if (!*words[i])
            continue;
        char *end = NULL;
        guint64 port = g_ascii_strtoull (words[i], &end, 10);
        if (*end || port < 1 || port > n->ports->len || !is_uplink (g, sw, (guint32) port - 1))
            return weft_experiment_fail (
                exp, error, WEFT_CONFIG_ERROR_VALUE, group, "ports",
                "'%s' is not an uplink of %s: its uplinks are ports %u to %u", words[i], n->name,
                g_array_index (up, guint32, 0) + 1, g_array_index (up, guint32, up->len - 1) + 1);
        guint32 lid = g_array_index (n->ports, guint32, port - 1);
        for (guint j = 0; j < links->len; j++)
            if (g_array_index (links, guint32, j) == lid)
                return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_VALUE, group, "ports",
                                             "port %s given twice", words[i]);
        g_array_append_val (links, lid);
    }
    if (links->len == 0)
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_MISSING, group, "ports",
                                     "empty: expected port numbers from 1");
    return TRUE;
}

/* ---- after = EVENT [+ TIME] ------------------------------------------------------------ */

/* Splits @text into its event name (transfer full) and the optional "+ TIME" offset. */
static gboolean
parse_after (const WeftExperiment *exp, const char *group, const char *text, char **event,
             weft_time_t *delay, GError **error)
{
    const char *plus = strchr (text, '+');
    g_autofree char *name =
        g_strstrip (plus ? g_strndup (text, (gsize) (plus - text)) : g_strdup (text));
    *delay = 0;
    if (!*name)
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_VALUE, group, "after",
                                     "'%s': expected EVENT or EVENT + TIME", text);
    if (plus) {
        g_autofree char *t = g_strstrip (g_strdup (plus + 1));
        if (!weft_units_parse_time (t, delay, NULL))
            return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_UNIT, group, "after",
                                         "'%s': expected EVENT + TIME, with TIME such as 50us",
                                         text);
    }
    *event = g_steal_pointer (&name);
    return TRUE;
}

/* The number N of "PREFIXN" (from 1), or 0. */
static guint
ordinal (const char *text, const char *prefix)
{
    if (!g_str_has_prefix (text, prefix))
        return 0;
    const char *digits = text + strlen (prefix);
    char *end = NULL;
    guint64 n = g_ascii_strtoull (digits, &end, 10);
    return *digits && !*end && n > 0 && n < G_MAXUINT ? (guint) n : 0;
}

/* Resolves @f's event: a collective (f->after_coll, its start known only in the run) or the
 * first flow start of a workload group (f->start).  Unknown: a "did you mean" error. */
static gboolean
resolve_after (const WeftMechEnv *env, const WeftExperiment *exp, Fault *f, GError **error)
{
    const char *ev = f->p.after;
    const GArray *colls = env->colls;
    guint n_colls = colls ? colls->len : 0;
    guint n;
    if ((n = ordinal (ev, "collective.")) > 0 && n <= n_colls) {
        f->after_coll = n - 1;
        return TRUE;
    }
    for (guint w = 0; w < env->workload_names->len; w++) {
        const char *name = env->workload_names->pdata[w];
        g_autofree char *base = g_strconcat ("workload.", name, NULL);
        g_autofree char *start = g_strconcat (base, ".start", NULL);
        g_autofree char *coll = g_strconcat (base, ".collective.", NULL);
        if (strcmp (ev, base) == 0 || strcmp (ev, start) == 0) {
            f->start = G_MAXUINT64;
            for (guint s = 0; s < env->specs->len; s++) {
                const WeftFlowSpec *spec = &g_array_index (env->specs, WeftFlowSpec, s);
                if (spec->group == w && spec->start_ps < f->start)
                    f->start = spec->start_ps;
            }
            if (f->start == G_MAXUINT64)
                f->start = 0;
            f->start += f->after_delay;
            return TRUE;
        }
        if ((n = ordinal (ev, coll)) > 0) {
            guint k = 0;
            for (guint c = 0; c < n_colls; c++)
                if (g_array_index (colls, WeftCollInstance, c).group == w && ++k == n) {
                    f->after_coll = c;
                    return TRUE;
                }
        }
    }
    /* Unknown: suggest from the events this run has (a few collectives of each group). */
    g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
    for (guint w = 0; w < env->workload_names->len; w++) {
        const char *name = env->workload_names->pdata[w];
        g_ptr_array_add (names, g_strconcat ("workload.", name, NULL));
        for (guint c = 0, k = 0; c < n_colls && k < 16; c++)
            if (g_array_index (colls, WeftCollInstance, c).group == w)
                g_ptr_array_add (names, g_strdup_printf ("workload.%s.collective.%u", name, ++k));
    }
    for (guint c = 0; c < MIN (n_colls, 16u); c++)
        g_ptr_array_add (names, g_strdup_printf ("collective.%u", c + 1));
    g_ptr_array_add (names, NULL);
    const char *near = weft_suggest (ev, (const char *const *) names->pdata);
    return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_VALUE, f->group, "after",
                                 "unknown event '%s' (this run has workload.NAME, "
                                 "workload.NAME.collective.N up to its collectives, collective.N "
                                 "up to %u)%s%s%s",
                                 ev, n_colls, near ? ", did you mean " : "", near ? near : "",
                                 near ? "?" : "");
}

/* ---- configure: read and check every group ---------------------------------------------- */

static gboolean
read_fault (WeftMechEnv *env, const WeftExperiment *exp, const char *group, Fault *f, GArray *more,
            GError **error)
{
    WeftParamBinding b = { fault_params, &f->p };
    if (!weft_params_read (exp, group, &b, 1, error))
        return FALSE;
    int kind = f->p.kind;
    f->after_coll = G_MAXUINT32; /* no collective to wait for, unless after = names one */
    f->due = WEFT_TIME_NEVER;
    /* Keys of other kinds would be silently ignored. */
    static const char *const own[] = { "period", "rate",     "width",  "ber", "switch",
                                       "ports",  "fraction", "server", "nic" };
    for (guint i = 0; i < G_N_ELEMENTS (own); i++) {
        gboolean mine = FALSE;
        for (guint k = 0; kind_keys[kind][k]; k++)
            mine |= strcmp (kind_keys[kind][k], own[i]) == 0;
        if (!mine && has_key (exp, group, own[i]))
            return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_UNKNOWN_KEY, group, own[i],
                                         "not used by kind = %s", weft_fault_kind_name (kind));
    }
    /* nic-removed took the NIC's link out of the graph's routing before the network was built
     * (weft_faults_apply_graph, which checked its keys); here its link's ends are Down from the
     * start, for the ports' state and the /faults row. */
    if (kind == WEFT_FAULT_NIC_REMOVED) {
        g_autofree char *full = strchr (f->p.nic, '/')
                                    ? g_strdup (f->p.nic)
                                    : g_strdup_printf ("%s/%s", f->p.server, f->p.nic);
        if (!resolve_link (exp, group, env->graph, g_strstrip (full), &f->link, error))
            return FALSE;
        f->nic = weft_graph_lookup (env->graph, full);
    }
    f->has_at = has_key (exp, group, "at");
    f->has_until = has_key (exp, group, "until");
    gboolean has_after = has_key (exp, group, "after");
    if ((kind == WEFT_FAULT_NIC_REMOVED || kind == WEFT_FAULT_GPUDIRECT_OFF) && !f->has_at &&
        !has_after) {
        f->has_at = TRUE; /* no time: absent (or staged) from the start of the run */
        f->p.at = 0;
    }
    if (f->has_at && has_after)
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_VALUE, group, "after",
                                     "give at or after, not both");
    if (!f->has_at && !has_after)
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_MISSING, group, "at",
                                     "required: when the fault begins (at = TIME or after = "
                                     "EVENT)");
    if (has_after) {
        g_autofree char *event = NULL;
        if (!parse_after (exp, group, f->p.after, &event, &f->after_delay, error))
            return FALSE;
        g_free (f->p.after);
        f->p.after = g_steal_pointer (&event);
        f->until_rel = f->p.until;
        if (f->has_until && f->p.until == 0)
            return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_RANGE, group, "until",
                                         "not after the fault begins (with after, until counts "
                                         "from the event)");
    }
    weft_time_t duration = env->sim->duration;
    if (f->has_at && duration && f->p.at >= duration) {
        g_autofree char *d = weft_units_format_human_time (duration);
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_RANGE, group, "at",
                                     "past the run's duration (%s)", d);
    }
    if (f->has_until && f->has_at && f->p.until <= f->p.at)
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_RANGE, group, "until",
                                     "not after at");
    /* gpudirect-off was applied to the graph before the network was built
     * (weft_faults_apply_graph): its staging, from the start, from a collective on or for the
     * collectives that start in [at, until), is laid out by the workloads and chosen by the
     * transport as each collective starts, no event of the run. */
    if (kind == WEFT_FAULT_GPUDIRECT_OFF)
        return TRUE;
    if (kind == WEFT_FAULT_NIC_REMOVED)
        return TRUE; /* its link resolved above */
    if (kind == WEFT_FAULT_SWITCH_DOWN || kind == WEFT_FAULT_UPLINKS_LOST) {
        /* One Fault per link: the first here, the others in @more (fault_configure). */
        if (!resolve_switch_links (exp, group, env->graph, &f->p, more, error))
            return FALSE;
        f->link = g_array_index (more, guint32, 0);
        g_array_remove_index (more, 0);
        return TRUE;
    }
    if (!resolve_link (exp, group, env->graph, f->p.link, &f->link, error))
        return FALSE;
    guint64 rate = weft_graph_link (env->graph, f->link)->rate_bps;
    switch (kind) {
    case WEFT_FAULT_LINK_FLAP:
        if (f->p.period == 0)
            return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_RANGE, group, "period",
                                         "required and above 0 for a flapping link");
        break;
    case WEFT_FAULT_DEGRADED:
        if (has_key (exp, group, "rate") == has_key (exp, group, "width"))
            return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_MISSING, group, "rate",
                                         "give the rate or the width the link trains at "
                                         "(one of them)");
        f->rate_bps = has_key (exp, group, "rate") ? f->p.rate_bps : rate / (1u << f->p.width);
        if (f->rate_bps == 0 || f->rate_bps > rate) {
            g_autofree char *r = weft_units_format_rate (rate);
            return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_RANGE, group,
                                         has_key (exp, group, "rate") ? "rate" : "width",
                                         "above 0 and at most the link's own rate (%s)", r);
        }
        break;
    case WEFT_FAULT_BIT_ERRORS:
        if (!has_key (exp, group, "ber"))
            return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_MISSING, group, "ber",
                                         "required for bit errors");
        if (!(f->p.ber >= 0 && f->p.ber < 1))
            return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_RANGE, group, "ber",
                                         "%g is outside [0, 1)", f->p.ber);
        break;
    default:
        break;
    }
    return TRUE;
}

static gboolean
fault_configure (WeftMechEnv *env, const WeftExperiment *exp, GError **error)
{
    if (weft_experiment_has_group (exp, "fault"))
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_UNKNOWN_GROUP, "fault", NULL,
                                     "a fault needs a name: [fault.NAME]");
    g_auto (GStrv) groups = weft_experiment_groups_with_prefix (exp, "fault");
    /* `weft report` configures without a network (no graph): faults have nothing to report
     * from a finished trace's tables that /ports does not show already. */
    if (!groups || !groups[0] || !env->graph)
        return TRUE;
    WeftFaults *fs = g_new0 (WeftFaults, 1);
    env->fabric->faults = fs;
    fs->faults = g_ptr_array_new_with_free_func (fault_free);
    fs->links = g_hash_table_new_full (NULL, NULL, NULL, g_free);
    fs->rngs = g_ptr_array_new_with_free_func (rng_free);
    fs->log = g_array_new (FALSE, TRUE, sizeof (WeftFaultEvent));
    fs->sim = env->sim;
    g_autoptr (GArray) more = g_array_new (FALSE, FALSE, sizeof (guint32));
    for (guint i = 0; groups[i]; i++) {
        Fault *f = g_new0 (Fault, 1);
        f->group = g_strdup (groups[i]);
        f->all = fs;
        g_ptr_array_add (fs->faults, f);
        g_array_set_size (more, 0);
        if (!read_fault (env, exp, groups[i], f, more, error))
            return FALSE;
        fs->n_groups++;
        /* changes the graph before the run (weft_faults_apply_graph), no event of the run */
        if (f->p.kind == WEFT_FAULT_GPUDIRECT_OFF) {
            g_ptr_array_remove (fs->faults, f);
            continue;
        }
        /* A group on several links (a switch's): one Fault per link, the same group. */
        for (guint k = 0; k < more->len; k++) {
            Fault *c = g_new0 (Fault, 1);
            *c = *f;
            c->group = g_strdup (f->group);
            c->p.link = g_strdup (f->p.link);
            c->p.after = g_strdup (f->p.after);
            c->p.switch_name = g_strdup (f->p.switch_name);
            c->p.ports = g_strdup (f->p.ports);
            c->p.server = g_strdup (f->p.server);
            c->p.nic = g_strdup (f->p.nic);
            c->link = g_array_index (more, guint32, k);
            g_ptr_array_add (fs->faults, c);
        }
    }
    return TRUE;
}

/* ---- setup: the ports ------------------------------------------------------------------- */

static gboolean
fault_setup (WeftMechEnv *env, const WeftExperiment *exp, GError **error)
{
    (void) exp;
    (void) error;
    WeftFaults *fs = env->fabric->faults;
    if (!fs)
        return TRUE;
    fs->sched = weft_sim_sched_new (env->sim);
    fs->env = env;
    for (guint i = 0; i < fs->faults->len; i++) {
        Fault *f = fs->faults->pdata[i];
        const WeftLink *l = weft_graph_link (env->graph, f->link);
        FaultLink *fl = g_hash_table_lookup (fs->links, GUINT_TO_POINTER (f->link));
        if (!fl) {
            fl = g_new0 (FaultLink, 1);
            g_hash_table_insert (fs->links, GUINT_TO_POINTER (f->link), fl);
            for (guint d = 0; d < 2; d++) {
                guint32 node = d == 0 ? l->a : l->b, port = d == 0 ? l->pa : l->pb;
                WeftPort *wp = weft_model_port (env->node_model[node], port);
                WeftFaultPort *e = &fl->end[d];
                e->nominal_rate_bps = l->rate_bps;
                e->rng = weft_rng_new (env->sim->seed, weft_rng_stream_for_name ("fault") +
                                                           2 * (guint64) f->link + d);
                g_ptr_array_add (fs->rngs, e->rng);
                wp->fault = e;
            }
        }
        f->fl = fl;
        for (guint d = 0; d < 2; d++)
            f->port[d] =
                weft_model_port (env->node_model[d == 0 ? l->a : l->b], d == 0 ? l->pa : l->pb);
    }
    return TRUE;
}

/* ---- the events ------------------------------------------------------------------------- */

const char *weft_faults_group (const WeftFaults *fs, guint32 fault);

/* Appends the events not yet written to /faults (the trace is attached after the network is
 * built, so an event at time 0 waits for the next one, or the end of the run). */
static void
flush_log (WeftFaults *fs)
{
    WeftTrace *trace = fs->env ? fs->env->trace : NULL;
    if (!trace || (fs->sim->rank_of && !fs->merged))
        return; /* across ranks: written once, merged, at the end (weft_faults_rank_merge) */
    if (fs->sim->rank_of && fs->sim->rank != 0) {
        fs->written = fs->log->len; /* rank 0 writes every row */
        return;
    }
    static const char *const actions[] = { "down", "up", "rate", "ber" };
    for (; fs->written < fs->log->len; fs->written++) {
        const WeftFaultEvent *ev = &g_array_index (fs->log, WeftFaultEvent, fs->written);
        WeftTraceFault row = { .time_ps = ev->time_ps,
                               .link = ev->link,
                               .value = ev->value,
                               .a_link_downed = ev->link_downed[0],
                               .b_link_downed = ev->link_downed[1],
                               .a_rcv_errors = ev->rcv_errors[0],
                               .b_rcv_errors = ev->rcv_errors[1],
                               .a_tx_bytes = ev->tx_bytes[0],
                               .b_tx_bytes = ev->tx_bytes[1] };
        g_strlcpy (row.fault, weft_faults_group (fs, ev->fault), sizeof row.fault);
        g_strlcpy (row.kind, weft_fault_kind_name (ev->kind), sizeof row.kind);
        g_strlcpy (row.action, actions[ev->action], sizeof row.action);
        if (fs->sim->rank_of)
            weft_trace_set_order (trace, fs->written);
        weft_trace_append_fault (trace, &row);
    }
    if (fs->sim->rank_of)
        weft_trace_set_order (trace, 0);
}

static void
log_event (Fault *f, WeftFaultAction action, double value)
{
    WeftFaults *fs = f->all;
    WeftFaultEvent ev = { .time_ps = fs->sim->now,
                          .kind = (guint8) f->p.kind,
                          .action = (guint8) action,
                          .link = f->link,
                          .value = value };
    guint idx;
    if (g_ptr_array_find (fs->faults, f, &idx))
        ev.fault = idx;
    for (guint d = 0; d < 2; d++) {
        const WeftFaultPort *e = &f->fl->end[d];
        ev.link_downed[d] = e->link_downed;
        ev.rcv_errors[d] = f->fl->end[1 - d].corrupted;
        ev.tx_bytes[d] = f->port[d]->tx_bytes;
    }
    g_array_append_val (fs->log, ev);
    flush_log (fs);
}

/* A port that may send again looks at its queue: on its own rank only (across ranks every rank
 * runs every fault event, and keeps every link end's state, but only the port's owner sends). */
static void
kick (WeftPort *port)
{
    if (weft_sim_owns (port->owner->sim, port->owner->node))
        weft_port_kick (port);
}

static void
set_down (Fault *f, gboolean down)
{
    weft_time_t now = f->all->sim->now;
    for (guint d = 0; d < 2; d++) {
        WeftFaultPort *e = &f->fl->end[d];
        if (down && !e->down) {
            e->link_downed++;
            e->down_since = now;
        } else if (!down && e->down) {
            e->up_since = now;
        }
        e->down = down;
        e->cause = f->group;
    }
    log_event (f, down ? WEFT_FAULT_ACTION_DOWN : WEFT_FAULT_ACTION_UP, 0);
    weft_sm_port_changed (f->all->env->fabric->sm);
    weft_frn_port_changed (f->all->env->fabric->frn);
    if (!down)
        for (guint d = 0; d < 2; d++)
            kick (f->port[d]);
}

/* nic-removed during the run: the NIC leaves its server (a hot removal, or a device that dies).
 * Its link goes Down both ways; the switch's end counts the transition (LinkDownedCounter), the
 * NIC's end has no port to count it any more.  A subnet manager sees the switch port change.
 * The NIC's device reports a fatal error, so every connection on it is in error: the flows
 * through it fail, and with them the workload (weft_transport_device_lost, doc/faults.md). */
static void
remove_nic (Fault *f)
{
    WeftFaults *fs = f->all;
    const WeftGraph *g = fs->env->graph;
    const WeftLink *l = weft_graph_link (g, f->link);
    for (guint d = 0; d < 2; d++) {
        WeftFaultPort *e = &f->fl->end[d];
        if (!e->down && (d == 0 ? l->a : l->b) != f->nic)
            e->link_downed++;
        e->down = TRUE;
        e->down_since = fs->sim->now;
        e->cause = f->group;
    }
    log_event (f, WEFT_FAULT_ACTION_DOWN, 0);
    weft_sm_port_changed (fs->env->fabric->sm);
    weft_transport_device_lost (fs->env->tp, f->link, f->nic, f->group, fs->sim);
}

static void
begin (Fault *f)
{
    switch (f->p.kind) {
    case WEFT_FAULT_LINK_DOWN:
    case WEFT_FAULT_LINK_FLAP:
    case WEFT_FAULT_SWITCH_DOWN:
    case WEFT_FAULT_UPLINKS_LOST:
        set_down (f, TRUE);
        break;
    case WEFT_FAULT_NIC_REMOVED:
        if (weft_graph_link_removed (f->all->env->graph, f->link)) {
            /* Absent from the start: Down without a transition (the link never trained:
             * LinkDownedCounter stays 0), and nothing for a subnet manager to sweep: routing
             * never had the link. */
            for (guint d = 0; d < 2; d++) {
                f->fl->end[d].down = TRUE;
                f->fl->end[d].down_since = 0;
                f->fl->end[d].cause = f->group;
            }
            log_event (f, WEFT_FAULT_ACTION_DOWN, 0);
            break;
        }
        remove_nic (f);
        break;
    case WEFT_FAULT_DEGRADED:
        /* The transmitter reads the rate as each packet starts, so the packet on the wire
         * keeps its timing and the wire's FIFO stays in order (models/link.h). */
        for (guint d = 0; d < 2; d++) {
            f->port[d]->link.rate_bps = f->rate_bps;
            f->fl->end[d].cause = f->group;
        }
        log_event (f, WEFT_FAULT_ACTION_RATE, (double) f->rate_bps);
        break;
    case WEFT_FAULT_BIT_ERRORS:
        for (guint d = 0; d < 2; d++) {
            f->fl->end[d].ber = f->p.ber;
            f->fl->end[d].cause = f->group;
        }
        log_event (f, WEFT_FAULT_ACTION_BER, f->p.ber);
        break;
    default:
        g_assert_not_reached ();
    }
}

static void
end_fault (Fault *f)
{
    switch (f->p.kind) {
    case WEFT_FAULT_LINK_DOWN:
    case WEFT_FAULT_LINK_FLAP:
    case WEFT_FAULT_SWITCH_DOWN:
    case WEFT_FAULT_UPLINKS_LOST:
        set_down (f, FALSE);
        break;
    case WEFT_FAULT_DEGRADED:
        for (guint d = 0; d < 2; d++) {
            f->port[d]->link.rate_bps = f->fl->end[d].nominal_rate_bps;
            kick (f->port[d]);
        }
        log_event (f, WEFT_FAULT_ACTION_RATE, (double) f->fl->end[0].nominal_rate_bps);
        break;
    case WEFT_FAULT_BIT_ERRORS:
        for (guint d = 0; d < 2; d++)
            f->fl->end[d].ber = 0;
        log_event (f, WEFT_FAULT_ACTION_BER, 0);
        break;
    default:
        g_assert_not_reached ();
    }
}

enum { PHASE_BEGIN, PHASE_END, PHASE_FLAP };

static void
on_fault (WeftSim *sim, void *target, WeftArg arg)
{
    Fault *f = target;
    sim->shared_events++; /* every rank runs every fault event (doc/parallel.md) */
    switch (arg.u) {
    case PHASE_BEGIN:
        f->due = WEFT_TIME_NEVER;
        begin (f);
        if (f->p.kind == WEFT_FAULT_LINK_FLAP)
            weft_sim_schedule_at (sim, &f->all->sched, sim->now + f->p.period / 2, on_fault, f,
                                  (WeftArg){ .u = PHASE_FLAP });
        break;
    case PHASE_FLAP: {
        if (f->has_until && sim->now >= f->p.until)
            break;
        gboolean down = !f->fl->end[0].down;
        set_down (f, down);
        weft_time_t half = down ? f->p.period / 2 : f->p.period - f->p.period / 2;
        weft_sim_schedule_at (sim, &f->all->sched, sim->now + half, on_fault, f,
                              (WeftArg){ .u = PHASE_FLAP });
        break;
    }
    case PHASE_END:
        if (f->p.kind != WEFT_FAULT_LINK_FLAP || f->fl->end[0].down)
            end_fault (f);
        f->has_until = TRUE; /* stops the flapping */
        f->p.until = sim->now;
        break;
    default:
        g_assert_not_reached ();
    }
}

/* ---- check: resolve `after`, refuse contradictions, schedule ---------------------------- */

/* A collective began (models/transport.h): the faults waiting for it are scheduled from its
 * start, which may lie ahead of now (a gap after its gate).  Their two events are keyed by the
 * fault's index and phase, under the fault mechanism's own id, in the range of a released start
 * (sim/event.h, WEFT_KEY_START), which it has no other use for: not by its counter, since
 * across MPI ranks the start is learnt at a window's end, after fault events of that window
 * (a flap's) that one process schedules after it (doc/parallel.md). */
static void
on_collective_started (const WeftCollRun *c, void *data)
{
    WeftFaults *fs = data;
    guint32 id = (guint32) (c - fs->env->tp->colls);
    for (guint i = 0; i < fs->faults->len; i++) {
        Fault *f = fs->faults->pdata[i];
        if (f->after_coll != id)
            continue;
        f->start = c->start_ps + f->after_delay;
        f->due = f->start;
        weft_sim_schedule_keyed (fs->sim, f->start, WEFT_KEY_START (fs->sched.id, 2 * i), on_fault,
                                 f, (WeftArg){ .u = PHASE_BEGIN });
        if (f->has_until) {
            f->p.until = f->start + f->until_rel;
            weft_sim_schedule_keyed (fs->sim, f->p.until, WEFT_KEY_START (fs->sched.id, 2 * i + 1),
                                     on_fault, f, (WeftArg){ .u = PHASE_END });
        }
    }
}

/* The part of a link a kind changes: its state, its rate, its bit-error rate. */
static int
aspect (int kind)
{
    if (kind == WEFT_FAULT_SWITCH_DOWN || kind == WEFT_FAULT_UPLINKS_LOST ||
        kind == WEFT_FAULT_NIC_REMOVED)
        return WEFT_FAULT_LINK_DOWN;
    return kind == WEFT_FAULT_LINK_FLAP ? WEFT_FAULT_LINK_DOWN : kind;
}

static gboolean
fault_check (const WeftMechEnv *env, const WeftExperiment *exp, GError **error)
{
    WeftFaults *fs = env->fabric->faults;
    if (!fs)
        return TRUE;
    /* gpudirect-off from a collective on (weft_faults_apply_graph): one the run has. */
    g_auto (GStrv) groups = weft_experiment_groups_with_prefix (exp, "fault");
    GKeyFile *kf = weft_experiment_keyfile (exp);
    for (guint i = 0; groups && groups[i]; i++) {
        g_autofree char *kind = g_key_file_get_string (kf, groups[i], "kind", NULL);
        g_autofree char *after = g_key_file_get_string (kf, groups[i], "after", NULL);
        guint n_colls = env->colls ? env->colls->len : 0;
        if (!kind || !after || strcmp (g_strstrip (kind), "gpudirect-off") != 0)
            continue;
        g_strstrip (after);
        if (ordinal (after, "collective.") > n_colls)
            return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_VALUE, groups[i], "after",
                                         "'%s': the run has %u collectives", after, n_colls);
        if (g_str_has_prefix (after, "workload.")) {
            /* a group and a collective of it the run has (resolve_after says which it lacks) */
            Fault probe = { .group = groups[i], .after_coll = G_MAXUINT32 };
            probe.p.after = after;
            if (!resolve_after (env, exp, &probe, error))
                return FALSE;
        }
    }
    gboolean waits = FALSE;
    for (guint i = 0; i < fs->faults->len; i++) {
        Fault *f = fs->faults->pdata[i];
        if (f->has_at) {
            f->start = f->p.at;
            continue;
        }
        if (!resolve_after (env, exp, f, error))
            return FALSE;
        if (f->after_coll != G_MAXUINT32) {
            /* Known once the collective starts (on_collective_started); for the checks
             * below it may begin any time from its offset on. */
            f->start = f->after_delay;
            waits = TRUE;
            continue;
        }
        weft_time_t duration = env->sim->duration;
        if (duration && f->start >= duration) {
            g_autofree char *d = weft_units_format_human_time (duration);
            return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_RANGE, f->group, "after",
                                         "begins past the run's duration (%s)", d);
        }
        if (f->has_until)
            f->p.until = f->start + f->until_rel;
    }
    if (waits) {
        env->tp->collective_started = on_collective_started;
        env->tp->collective_started_data = fs;
    }
    /* Two faults that set the same thing of one link at overlapping times contradict (one
     * that waits for a collective may begin at any time from its offset, up to the end). */
    for (guint i = 0; i < fs->faults->len; i++) {
        const Fault *a = fs->faults->pdata[i];
        weft_time_t a_end = a->has_until && a->after_coll == G_MAXUINT32 ? a->p.until : G_MAXUINT64;
        for (guint j = 0; j < i; j++) {
            const Fault *b = fs->faults->pdata[j];
            weft_time_t b_end =
                b->has_until && b->after_coll == G_MAXUINT32 ? b->p.until : G_MAXUINT64;
            if (a->link != b->link || aspect (a->p.kind) != aspect (b->p.kind))
                continue;
            if (a->start < b_end && b->start < a_end)
                return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_VALUE, a->group, "at",
                                             "contradicts [%s] on the same link at the same time",
                                             b->group);
        }
    }
    for (guint i = 0; i < fs->faults->len; i++) {
        Fault *f = fs->faults->pdata[i];
        if (f->after_coll != G_MAXUINT32)
            continue; /* scheduled when its collective starts */
        if (f->start == 0 &&
            (f->p.kind == WEFT_FAULT_DEGRADED || (f->p.kind == WEFT_FAULT_NIC_REMOVED &&
                                                  weft_graph_link_removed (env->graph, f->link))))
            begin (f); /* trained that way (or absent): before the first packet leaves */
        else {
            f->due = f->start;
            weft_sim_schedule_at (env->sim, &fs->sched, f->start, on_fault, f,
                                  (WeftArg){ .u = PHASE_BEGIN });
        }
        if (f->has_until)
            weft_sim_schedule_at (env->sim, &fs->sched, f->p.until, on_fault, f,
                                  (WeftArg){ .u = PHASE_END });
    }
    return TRUE;
}

/* ---- weft topo --faults: the fabric as the faults leave it -------------------------------- */

/* Whether the group @p of @group is in effect at @at_ps (every group when @all): *known is
 * FALSE when that depends on the run (after = EVENT). */
static gboolean
in_effect (const WeftExperiment *exp, const char *group, const FaultParams *p, gboolean all,
           weft_time_t at_ps, gboolean *known)
{
    *known = TRUE;
    if (all)
        return TRUE;
    if (has_key (exp, group, "after")) {
        *known = FALSE;
        return FALSE;
    }
    if (p->at > at_ps || (has_key (exp, group, "until") && at_ps >= p->until))
        return FALSE;
    if (p->kind == WEFT_FAULT_LINK_FLAP && p->period > 0)
        return (at_ps - p->at) % p->period < p->period / 2; /* Down for the first half */
    return TRUE;
}

static void
note_link (GString *notes, const WeftGraph *g, guint32 lid, const char *what)
{
    const WeftLink *l = weft_graph_link (g, lid);
    g_string_append_printf (notes, "  %s:%u <-> %s:%u %s\n", weft_graph_node (g, l->a)->name,
                            l->pa + 1, weft_graph_node (g, l->b)->name, l->pb + 1, what);
}

gboolean
weft_faults_apply_topology (const WeftExperiment *exp, WeftGraph *g, gboolean all,
                            weft_time_t at_ps, GString *notes, GError **error)
{
    g_return_val_if_fail (exp != NULL && g != NULL && notes != NULL, FALSE);
    g_auto (GStrv) groups = weft_experiment_groups_with_prefix (exp, "fault");
    for (guint i = 0; groups && groups[i]; i++) {
        const char *group = groups[i];
        FaultParams p = { 0 };
        WeftParamBinding b = { fault_params, &p };
        if (!weft_params_read (exp, group, &b, 1, error)) {
            weft_params_clear (fault_params, &p);
            return FALSE;
        }
        gboolean known, on = in_effect (exp, group, &p, all, at_ps, &known);
        /* nic-removed without a time is absent from the start */
        if (p.kind == WEFT_FAULT_NIC_REMOVED && !has_key (exp, group, "after") && p.at == 0)
            on = known = TRUE;
        g_autoptr (GArray) links = g_array_new (FALSE, FALSE, sizeof (guint32));
        guint32 lid = WEFT_GRAPH_NONE;
        gboolean ok = TRUE;
        if (p.kind == WEFT_FAULT_SWITCH_DOWN || p.kind == WEFT_FAULT_UPLINKS_LOST) {
            ok = resolve_switch_links (exp, group, g, &p, links, error);
        } else if (p.kind == WEFT_FAULT_NIC_REMOVED) {
            g_autofree char *full =
                strchr (p.nic, '/') ? g_strdup (p.nic) : g_strdup_printf ("%s/%s", p.server, p.nic);
            ok = resolve_link (exp, group, g, g_strstrip (full), &lid, error);
        } else if (p.kind != WEFT_FAULT_GPUDIRECT_OFF) {
            ok = resolve_link (exp, group, g, p.link, &lid, error);
        }
        if (lid != WEFT_GRAPH_NONE)
            g_array_append_val (links, lid);
        if (!ok) {
            weft_params_clear (fault_params, &p);
            return FALSE;
        }
        g_string_append_printf (notes, "[%s] %s: %s\n", group, weft_fault_kind_name (p.kind),
                                !known ? "begins at a run's event (after), not applied"
                                : on   ? "applied"
                                       : "not in effect at that time");
        for (guint k = 0; on && k < links->len; k++) {
            guint32 l = g_array_index (links, guint32, k);
            WeftLink *wl = weft_graph_link (g, l);
            switch (p.kind) {
            case WEFT_FAULT_DEGRADED: {
                guint64 rate =
                    has_key (exp, group, "rate") ? p.rate_bps : wl->rate_bps / (1u << p.width);
                if (rate > 0 && rate < wl->rate_bps)
                    wl->rate_bps = rate;
                g_autofree char *r = weft_units_format_rate (wl->rate_bps);
                g_autofree char *what = g_strdup_printf ("trained at %s", r);
                note_link (notes, g, l, what);
                break;
            }
            case WEFT_FAULT_BIT_ERRORS: {
                g_autofree char *what =
                    g_strdup_printf ("bit-error rate %g (rate unchanged)", p.ber);
                note_link (notes, g, l, what);
                break;
            }
            case WEFT_FAULT_NIC_REMOVED:
                if (!weft_graph_link_removed (g, l))
                    weft_graph_set_link_removed (g, l);
                note_link (notes, g, l, "removed with its NIC");
                break;
            default: /* link-down, link-flap (Down then), switch-down, uplinks-lost */
                if (!weft_graph_link_removed (g, l))
                    weft_graph_set_link_removed (g, l);
                note_link (notes, g, l, "Down: left out");
                break;
            }
        }
        if (on && p.kind == WEFT_FAULT_GPUDIRECT_OFF)
            g_string_append_printf (notes, "  %s stages through host memory (no GPUDirect)\n",
                                    p.server);
        weft_params_clear (fault_params, &p);
    }
    return TRUE;
}

/* ---- results ---------------------------------------------------------------------------- */

static void
fault_summary (const WeftMechEnv *env, const WeftNetworkStats *st, GString *out)
{
    (void) st;
    const WeftFaults *fs = env->fabric->faults;
    if (!fs)
        return;
    guint64 down = 0, corrupted = 0, downed = 0;
    GHashTableIter it;
    gpointer key, value;
    g_hash_table_iter_init (&it, fs->links);
    while (g_hash_table_iter_next (&it, &key, &value)) {
        const FaultLink *fl = value;
        for (guint d = 0; d < 2; d++) {
            down += fl->end[d].lost_down;
            corrupted += fl->end[d].corrupted;
            downed += fl->end[d].link_downed;
        }
    }
    g_string_append_printf (out,
                            "  faults       %u groups, %u events; lost %" G_GUINT64_FORMAT
                            " packets to Down ports, %" G_GUINT64_FORMAT
                            " corrupted; LinkDowned %" G_GUINT64_FORMAT "\n",
                            fs->n_groups, fs->log->len, down, corrupted, downed);
}

/* perfquery's and ibstat's view of a faulty link's end: its LinkDownedCounter, the packets it
 * received corrupted (the peer's transmitter drew them: PortRcvErrors, and one symbol error
 * each), and its state. */
static void
fault_port_row (const WeftMechEnv *env, const WeftPort *port, WeftTracePort *row)
{
    const WeftFaultPort *f = port->fault;
    if (!f)
        return;
    flush_log (env->fabric->faults); /* the end of the run: anything still pending */
    const WeftPort *peer = weft_model_port (port->link.peer, port->link.peer_port);
    guint64 rx_bad = peer->fault ? peer->fault->corrupted : 0;
    row->link_downed = f->link_downed;
    row->rcv_errors = rx_bad;
    row->symbol_errors = rx_bad;
    if (f->down) {
        row->state = 1;      /* Down */
        row->phys_state = 2; /* Polling: no signal from the peer */
    }
}

static void
fault_clear (WeftMechEnv *env)
{
    WeftFaults *fs = env->fabric->faults;
    if (!fs)
        return;
    g_ptr_array_unref (fs->faults);
    g_hash_table_unref (fs->links);
    g_ptr_array_unref (fs->rngs);
    g_array_unref (fs->log);
    g_free (fs);
    env->fabric->faults = NULL;
}

const GArray *
weft_faults_log (const WeftFaults *fs)
{
    return fs ? fs->log : NULL;
}

void
weft_faults_cut_down_links (const WeftFaults *fs, WeftGraph *g)
{
    if (!fs)
        return;
    GHashTableIter it;
    gpointer key, value;
    g_hash_table_iter_init (&it, fs->links);
    while (g_hash_table_iter_next (&it, &key, &value))
        weft_graph_set_link_cut (g, GPOINTER_TO_UINT (key), ((FaultLink *) value)->end[0].down);
}

/* The counters only a link end's own rank counts, in one order every rank shares: per logged
 * event the two ends' rcv_errors and tx_bytes, then per fault each end's corrupted and
 * lost_down packets. */
#define EVENT_COUNTS 4
#define FAULT_COUNTS 4

gsize
weft_faults_rank_counts (const WeftFaults *fs, guint64 *out)
{
    if (!fs)
        return 0;
    gsize n = 0;
    for (guint i = 0; i < fs->log->len; i++) {
        const WeftFaultEvent *ev = &g_array_index (fs->log, WeftFaultEvent, i);
        if (out) {
            out[n] = ev->rcv_errors[0];
            out[n + 1] = ev->rcv_errors[1];
            out[n + 2] = ev->tx_bytes[0];
            out[n + 3] = ev->tx_bytes[1];
        }
        n += EVENT_COUNTS;
    }
    for (guint i = 0; i < fs->faults->len; i++) {
        const Fault *f = fs->faults->pdata[i];
        for (guint d = 0; out && d < 2; d++) {
            out[n + 2 * d] = f->fl->end[d].corrupted;
            out[n + 2 * d + 1] = f->fl->end[d].lost_down;
        }
        n += FAULT_COUNTS;
    }
    return n;
}

void
weft_faults_rank_merge (WeftFaults *fs, const guint64 *sums)
{
    if (!fs)
        return;
    gsize n = 0;
    for (guint i = 0; i < fs->log->len; i++, n += EVENT_COUNTS) {
        WeftFaultEvent *ev = &g_array_index (fs->log, WeftFaultEvent, i);
        ev->rcv_errors[0] = sums[n];
        ev->rcv_errors[1] = sums[n + 1];
        ev->tx_bytes[0] = sums[n + 2];
        ev->tx_bytes[1] = sums[n + 3];
    }
    for (guint i = 0; i < fs->faults->len; i++, n += FAULT_COUNTS) {
        const Fault *f = fs->faults->pdata[i];
        for (guint d = 0; d < 2; d++) {
            f->fl->end[d].corrupted = sums[n + 2 * d];
            f->fl->end[d].lost_down = sums[n + 2 * d + 1];
        }
    }
    fs->merged = TRUE;
    flush_log (fs);
}

const char *
weft_faults_nic_removed_live (const WeftFaults *fs, const WeftGraph *g)
{
    for (guint i = 0; fs && i < fs->faults->len; i++) {
        const Fault *f = fs->faults->pdata[i];
        if (f->p.kind == WEFT_FAULT_NIC_REMOVED && !weft_graph_link_removed (g, f->link))
            return f->group;
    }
    return NULL;
}

weft_time_t
weft_faults_next_nic_removal (const WeftFaults *fs)
{
    weft_time_t at = WEFT_TIME_NEVER;
    for (guint i = 0; fs && i < fs->faults->len; i++) {
        const Fault *f = fs->faults->pdata[i];
        if (f->p.kind == WEFT_FAULT_NIC_REMOVED)
            at = MIN (at, f->due);
    }
    return at;
}

weft_time_t
weft_faults_after_collective (const WeftFaults *fs, guint32 coll, const char **group)
{
    weft_time_t least = WEFT_TIME_NEVER;
    for (guint i = 0; fs && i < fs->faults->len; i++) {
        const Fault *f = fs->faults->pdata[i];
        if (f->after_coll != coll || f->after_delay >= least)
            continue;
        least = f->after_delay;
        if (group)
            *group = f->group;
    }
    return least;
}

const char *
weft_faults_group (const WeftFaults *fs, guint32 fault)
{
    return fs && fault < fs->faults->len ? ((Fault *) fs->faults->pdata[fault])->group : NULL;
}

const WeftMechanism weft_fault_mechanism = {
    .name = "fault",
    .group = "fault",
    .help = "[fault.NAME]: a link that goes Down, flaps, trains at a lower rate or corrupts "
            "packets, at a time or an event of the run (doc/faults.md)",
    .params = fault_params,
    .fabrics = WEFT_FABRICS_ALL,
    .configure = fault_configure,
    .setup = fault_setup,
    .check = fault_check,
    .port_row = fault_port_row,
    .summary = fault_summary,
    .clear = fault_clear,
};
