/* topologies/railopt.c - rail-optimised fat trees and k-ary fat trees. */
#include "config.h"
#define G_LOG_DOMAIN "weft-topology"
#include "topologies/railopt.h"

#include <math.h>

#include "topologies/leafspine.h"

static gboolean fail (GError **error, const char *group, const char *key, const char *fmt, ...)
    G_GNUC_PRINTF (4, 5);

static gboolean
fail (GError **error, const char *group, const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    g_autofree char *msg = g_strdup_vprintf (fmt, ap);
    va_end (ap);
    g_set_error (error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_PARAM, "[%s] %s: %s", group, key, msg);
    return FALSE;
}

static char *
ratio_text (guint64 down, guint64 up)
{
    guint64 a = down, b = up;
    while (b) {
        guint64 t = a % b;
        a = b;
        b = t;
    }
    return g_strdup_printf ("%" G_GUINT64_FORMAT ":%" G_GUINT64_FORMAT, down / a, up / a);
}

gboolean
weft_topology_taper (double ratio, guint64 down, guint64 radix, const char *key, guint64 *up,
                     GError **error)
{
    double u = (double) down / ratio;
    guint64 ur = (guint64) llround (u);
    if (ratio > 0 && ur >= 1 && fabs (u - (double) ur) < 1e-9 && down + ur <= radix) {
        *up = ur;
        return TRUE;
    }
    /* nearest ratios N:1 that fit: uplink counts dividing the down ports */
    guint64 below = 0, above = 0;
    for (guint64 up_n = 1; up_n <= down && down + up_n <= radix; up_n++) {
        if (down % up_n != 0)
            continue;
        double r = (double) down / up_n;
        if (r < ratio && (below == 0 || r > (double) down / below))
            below = up_n;
        if (r > ratio && (above == 0 || r < (double) down / above))
            above = up_n;
    }
    GString *near = g_string_new (NULL);
    if (below) {
        g_autofree char *t = ratio_text (down, below);
        g_string_append_printf (near, "%s (%" G_GUINT64_FORMAT " up)", t, below);
    }
    if (above) {
        g_autofree char *t = ratio_text (down, above);
        g_string_append_printf (near, "%s%s (%" G_GUINT64_FORMAT " up)", near->len ? " and " : "",
                                t, above);
    }
    /* and the port split that realises the requested ratio on this radix */
    guint64 up_fit = ratio > 0 ? (guint64) floor ((double) radix / (ratio + 1)) : 0;
    double down_fit = (double) up_fit * ratio;
    if (up_fit >= 1 && fabs (down_fit - llround (down_fit)) < 1e-9)
        g_string_append_printf (near,
                                "; a %g:1 switch of %" G_GUINT64_FORMAT " ports is %lld down "
                                "and %" G_GUINT64_FORMAT " up",
                                ratio, radix, (long long) llround (down_fit), up_fit);
    fail (error, "topology", key,
          "%g:1 does not fit %" G_GUINT64_FORMAT " down ports on a %" G_GUINT64_FORMAT
          "-port switch (%.4g uplinks): nearest ratios that fit are %s",
          ratio, down, radix, u, near->len ? near->str : "none");
    g_string_free (near, TRUE);
    return FALSE;
}

static void
cable (WeftGraph *g, guint32 a, guint32 pa, guint32 b, guint32 pb, guint64 rate, weft_time_t extra,
       double len)
{
    guint32 l = weft_graph_connect (g, a, pa, b, pb, rate, weft_topology_cable_delay (extra, len),
                                    WEFT_LINK_FABRIC);
    weft_graph_link (g, l)->length_m = len;
}

static guint32
sw (WeftGraph *g, const char *name, guint64 radix, gint32 tier, gint32 su, gint32 rail)
{
    guint32 id = weft_graph_add_node (g, name, WEFT_NODE_SWITCH, radix);
    WeftNode *n = weft_graph_node (g, id);
    n->tier = tier;
    n->su = su;
    n->rail = rail;
    return id;
}

/* A railopt fabric's shape, derived from the parameters before anything is built. */
typedef struct {
    guint64 R, S, radix;     /* rails (NICs per server), server slots per SU, switch ports */
    guint64 n_servers, U, L; /* servers, uplinks per leaf, leaves */
    guint64 tiers;
    guint64 sp2;                                                /* two tiers: spines */
    guint64 pods, pod_leaves, sp_pod, D2, U2, cores, per_group; /* three tiers */
    gboolean rail_major; /* three tiers, per_rail: leaves created rail by rail */
    guint64 n_spines;
} Plan;

/* The switches built, by tier; leaf is indexed su * R + rail. */
typedef struct {
    guint32 *leaf, *spine, *core;
} Switches;

/* Checks the server, SU and radix counts and the leaf taper: fills R, S, radix, n_servers, U, L. */
static gboolean
plan_leaves (const WeftRailOptParams *p, const WeftServerParams *server, Plan *P, GError **error)
{
    if (!weft_server_check (server, error))
        return FALSE;
    guint64 R = server->nics, S = p->servers_per_su, radix = p->radix;
    if (p->sus < 1)
        return fail (error, "topology", "sus", "0: expected at least 1");
    if (S < 1)
        return fail (error, "topology", "servers_per_su", "0: expected at least 1");
    if (radix < 2 || S >= radix)
        return fail (error, "topology", "radix",
                     "%" G_GUINT64_FORMAT " ports cannot hold %" G_GUINT64_FORMAT
                     " servers per SU plus uplinks: expected a radix of at least %" G_GUINT64_FORMAT
                     " (or fewer servers_per_su)",
                     radix, S, S + 1);
    guint64 n_servers = p->servers ? p->servers : p->sus * S;
    if (n_servers > p->sus * S)
        return fail (error, "topology", "servers",
                     "%" G_GUINT64_FORMAT " servers do not fit %" G_GUINT64_FORMAT
                     " SUs of %" G_GUINT64_FORMAT " slots: expected at most %" G_GUINT64_FORMAT
                     " (or more sus)",
                     n_servers, p->sus, S, p->sus * S);
    if (p->layout == WEFT_LAYOUT_TOR && S % R != 0)
        return fail (error, "topology", "layout",
                     "tor puts each server's %" G_GUINT64_FORMAT
                     " NICs on one leaf of %" G_GUINT64_FORMAT
                     " server ports: expected servers_per_su a multiple of %" G_GUINT64_FORMAT
                     " (or layout = rail)",
                     R, S, R);
    guint64 U;
    if (!weft_topology_taper (p->leaf_oversubscription, S, radix, "leaf_oversubscription", &U,
                              error))
        return FALSE;
    P->R = R;
    P->S = S;
    P->radix = radix;
    P->n_servers = n_servers;
    P->U = U;
    P->L = p->sus * R;
    return TRUE;
}

/* Finds the two-tier spine count, if any fits, and chooses the tiers (checking a requested 2). */
static gboolean
plan_tiers (const WeftRailOptParams *p, Plan *P, GError **error)
{
    guint64 L = P->L, U = P->U, R = P->R, radix = P->radix;
    /* two tiers: every spine port goes to a leaf; spines must divide the uplinks evenly */
    guint64 sp2 = 0;
    gboolean fits2 = FALSE;
    for (guint64 s = (L * U + radix - 1) / radix; s >= 1 && s <= U; s++)
        if (U % s == 0 && L * (U / s) <= radix) {
            sp2 = s;
            fits2 = TRUE;
            break;
        }
    guint64 tiers =
        p->tiers ? p->tiers : (fits2 && p->spine_grouping == WEFT_SPINE_FULL_MESH ? 2 : 3);
    if (tiers == 2 && p->spine_grouping == WEFT_SPINE_PER_RAIL)
        return fail (error, "topology", "spine_grouping",
                     "per_rail needs tiers = 3 (cores join the rail groups); expected full_mesh "
                     "with two tiers");
    if (tiers == 2 && !fits2)
        return fail (error, "topology", "tiers",
                     "%" G_GUINT64_FORMAT " leaves with %" G_GUINT64_FORMAT
                     " uplinks each need more than two tiers of %" G_GUINT64_FORMAT
                     "-port switches: expected tiers = 3 (two tiers hold at most %" G_GUINT64_FORMAT
                     " SUs)",
                     L, U, radix, radix / R);
    P->sp2 = sp2;
    P->tiers = tiers;
    return TRUE;
}

/* Three tiers: splits the leaves into pods and sizes the spines per pod and the cores. */
static gboolean
plan_three_tiers (const WeftRailOptParams *p, Plan *P, GError **error)
{
    guint64 U = P->U, radix = P->radix;
    guint64 pods = p->spine_grouping == WEFT_SPINE_PER_RAIL ? P->R : p->sus;
    guint64 pod_leaves = P->L / pods, sp_pod, D2 = 0, U2 = 0;
    /* spine ports: D2 down, U2 = D2 / ratio up, D2 + U2 <= radix, U2 whole */
    double r2 = p->spine_oversubscription;
    for (guint64 u2 = radix; u2 >= 1; u2--) {
        double d2 = (double) u2 * r2;
        if (fabs (d2 - llround (d2)) < 1e-9 && (guint64) llround (d2) + u2 <= radix) {
            D2 = (guint64) llround (d2);
            U2 = u2;
            break;
        }
    }
    if (D2 == 0)
        return fail (error, "topology", "spine_oversubscription",
                     "%g:1 cannot be realised on %" G_GUINT64_FORMAT "-port spines", r2, radix);
    if ((pod_leaves * U) % D2 != 0)
        return fail (error, "topology", "leaf_oversubscription",
                     "%" G_GUINT64_FORMAT " leaves per pod with %" G_GUINT64_FORMAT
                     " uplinks do not fill spines of %" G_GUINT64_FORMAT
                     " down ports evenly: expected uplinks x leaves per pod to be a multiple "
                     "of %" G_GUINT64_FORMAT,
                     pod_leaves, U, D2, D2);
    sp_pod = pod_leaves * U / D2;
    /* every leaf of a pod reaches every spine of it, with the same number of cables */
    if (U % sp_pod != 0) {
        if (p->spine_grouping == WEFT_SPINE_PER_RAIL)
            return fail (error, "topology", "spine_grouping",
                         "per_rail puts the %" G_GUINT64_FORMAT
                         " leaves of a rail in one pod, whose %" G_GUINT64_FORMAT
                         " spines of %" G_GUINT64_FORMAT " down ports a leaf's %" G_GUINT64_FORMAT
                         " uplinks cannot all reach evenly: expected fewer sus (spines per pod "
                         "dividing the uplinks) or full_mesh",
                         pod_leaves, sp_pod, D2, U);
        return fail (error, "topology", "leaf_oversubscription",
                     "%" G_GUINT64_FORMAT " leaves per pod with %" G_GUINT64_FORMAT
                     " uplinks need %" G_GUINT64_FORMAT " spines of %" G_GUINT64_FORMAT
                     " down ports, which the uplinks cannot all reach evenly: expected the "
                     "spines per pod to divide a leaf's uplinks",
                     pod_leaves, U, sp_pod, D2);
    }
    if ((pods * sp_pod * U2) % radix != 0 || ((pods * sp_pod * U2) / radix) % sp_pod != 0 ||
        U2 % ((pods * sp_pod * U2) / radix / sp_pod) != 0)
        return fail (error, "topology", "sus",
                     "%" G_GUINT64_FORMAT " pods of %" G_GUINT64_FORMAT
                     " spines do not fill %" G_GUINT64_FORMAT
                     "-port cores evenly: expected a number of pods that divides the radix",
                     pods, sp_pod, radix);
    guint64 cores = pods * sp_pod * U2 / radix, per_group = cores / sp_pod;
    if (pods * (U2 / per_group) > radix)
        return fail (error, "topology", "sus", "too many pods for %" G_GUINT64_FORMAT "-port cores",
                     radix);
    P->pods = pods;
    P->pod_leaves = pod_leaves;
    P->sp_pod = sp_pod;
    P->D2 = D2;
    P->U2 = U2;
    P->cores = cores;
    P->per_group = per_group;
    P->rail_major = p->spine_grouping == WEFT_SPINE_PER_RAIL;
    return TRUE;
}

/* Creates the leaves (SU-major, or rail-major for per_rail), then the spines, then the cores. */
static void
add_switches (WeftGraph *g, const WeftRailOptParams *p, const Plan *P, Switches *sws)
{
    guint64 R = P->R, radix = P->radix, tiers = P->tiers, sp_pod = P->sp_pod;
    gboolean rail_major = P->rail_major;
    char name[64];
    guint32 *leaf = sws->leaf = g_new (guint32, P->L); /* indexed su * R + rail */
    for (guint64 i = 0; i < P->L; i++) {
        guint64 su = rail_major ? i % p->sus : i / R, rail = rail_major ? i / p->sus : i % R;
        g_snprintf (name, sizeof name, "su%" G_GUINT64_FORMAT "-rail%" G_GUINT64_FORMAT "-leaf", su,
                    rail);
        leaf[su * R + rail] = sw (g, name, radix, 1, su, rail);
        /* slot k on port k */
        weft_graph_node (g, leaf[su * R + rail])->down_ports = (guint32) P->S;
    }
    guint32 *spine = sws->spine = g_new (guint32, P->n_spines);
    for (guint64 s = 0; s < P->n_spines; s++) {
        g_snprintf (name, sizeof name, "spine%" G_GUINT64_FORMAT, s);
        spine[s] = sw (g, name, radix, 2, tiers == 3 && !rail_major ? (gint32) (s / sp_pod) : -1,
                       rail_major ? (gint32) (s / sp_pod) : -1);
        if (tiers == 3)
            weft_graph_node (g, spine[s])->down_ports = (guint32) P->D2;
    }
    guint32 *core = sws->core = g_new (guint32, P->cores + 1);
    for (guint64 c = 0; c < P->cores; c++) {
        g_snprintf (name, sizeof name, "core%" G_GUINT64_FORMAT, c);
        core[c] = sw (g, name, radix, 3, -1, -1);
    }
}

/* Adds the servers and cables NIC r of each to its SU's rail-r leaf, on the server's slot; or,
 * with layout = tor, every NIC of the server to leaf slot / (S / R) of its SU, on port
 * (slot mod (S / R)) x R + r: the servers of a group of S / R slots share one leaf. */
static void
add_servers (WeftGraph *g, const WeftRailOptParams *p, const WeftServerParams *server,
             const Plan *P, const guint32 *leaf)
{
    guint64 R = P->R, S = P->S;
    /* servers: server i in SU i / S, slot i % S */
    guint32 *nics = g_new (guint32, R);
    for (guint64 i = 0; i < P->n_servers; i++) {
        weft_server_add (g, server, i, nics);
        guint64 su = i / S, slot = i % S;
        for (guint64 r = 0; r < R; r++) {
            weft_graph_node (g, nics[r])->su = (gint32) su;
            guint64 lf = r, port = slot;
            if (p->layout == WEFT_LAYOUT_TOR) {
                lf = slot / (S / R);
                port = slot % (S / R) * R + r;
            }
            cable (g, nics[r], WEFT_GRAPH_NONE, leaf[su * R + lf], port, server->nic_rate_bps,
                   p->link_delay_ps, p->leaf_cable_length_m);
        }
    }
    g_free (nics);
}

/* Two tiers: cables every leaf to every spine, U / spines cables each (ports S.., spine-major). */
static void
cable_two_tiers (WeftGraph *g, const WeftRailOptParams *p, const Plan *P, const Switches *sws)
{
    guint64 S = P->S, sp2 = P->sp2;
    guint64 c = P->U / sp2;
    guint32 *next = g_new0 (guint32, sp2);
    for (guint64 l = 0; l < P->L; l++) {
        guint32 lf = sws->leaf[l];
        for (guint64 s = 0; s < sp2; s++)
            for (guint64 k = 0; k < c; k++)
                cable (g, lf, S + s * c + k, sws->spine[s], next[s]++, p->spine_link_rate_bps,
                       p->link_delay_ps, p->spine_cable_length_m);
    }
    g_free (next);
}

/* Three tiers: cables every leaf of a pod to every spine of that pod (spine-major on the leaf). */
static void
cable_pods (WeftGraph *g, const WeftRailOptParams *p, const Plan *P, const Switches *sws)
{
    guint64 R = P->R, S = P->S, sp_pod = P->sp_pod;
    gboolean rail_major = P->rail_major;
    guint64 c = P->U / sp_pod;
    guint32 *next = g_new0 (guint32, P->n_spines);
    for (guint64 pod = 0; pod < P->pods; pod++)
        for (guint64 j = 0; j < P->pod_leaves; j++) {
            guint64 su = rail_major ? j : pod, rail = rail_major ? pod : j;
            guint32 lf = sws->leaf[su * R + rail];
            for (guint64 s = 0; s < sp_pod; s++)
                for (guint64 k = 0; k < c; k++)
                    cable (g, lf, S + s * c + k, sws->spine[pod * sp_pod + s],
                           next[pod * sp_pod + s]++, p->spine_link_rate_bps, p->link_delay_ps,
                           p->spine_cable_length_m);
        }
    g_free (next);
}

/* Three tiers: cables spine j of each pod to the per_group cores of group j (ports D2..). */
static void
cable_cores (WeftGraph *g, const WeftRailOptParams *p, const Plan *P, const Switches *sws)
{
    guint64 sp_pod = P->sp_pod, per_group = P->per_group;
    /* spine j of each pod: U2 uplinks over the per_group cores of group j */
    guint64 c2 = P->U2 / per_group;
    guint32 *cnext = g_new0 (guint32, P->cores);
    for (guint64 pod = 0; pod < P->pods; pod++)
        for (guint64 j = 0; j < sp_pod; j++)
            for (guint64 m = 0; m < per_group; m++)
                for (guint64 k = 0; k < c2; k++) {
                    guint64 cid = j * per_group + m;
                    cable (g, sws->spine[pod * sp_pod + j], P->D2 + m * c2 + k, sws->core[cid],
                           cnext[cid]++, p->core_link_rate_bps, p->link_delay_ps,
                           p->core_cable_length_m);
                }
    g_free (cnext);
}

/* The whole plan: leaves, tiers, spines and cores, checked. */
static gboolean
plan (const WeftRailOptParams *p, const WeftServerParams *server, Plan *P, GError **error)
{
    *P = (Plan){ 0 };
    if (!plan_leaves (p, server, P, error) || !plan_tiers (p, P, error))
        return FALSE;
    if (P->tiers == 3) {
        if (!plan_three_tiers (p, P, error))
            return FALSE;
    } else if (P->tiers != 2) {
        return fail (error, "topology", "tiers", "%" G_GUINT64_FORMAT ": expected 2 or 3",
                     P->tiers);
    }
    P->n_spines = P->tiers == 2 ? P->sp2 : P->pods * P->sp_pod;
    return TRUE;
}

/* One server's counts, from a scratch graph holding one server whose NICs are cabled to a
 * stand-in switch (so a NIC's fabric port is counted as the generator makes it). */
static void
server_counts (const WeftServerParams *server, WeftGraphSize *one)
{
    WeftGraph *g = weft_graph_new ();
    guint32 *nics = g_new (guint32, server->nics);
    guint32 stand_in = weft_graph_add_node (g, "stand-in", WEFT_NODE_SWITCH, server->nics);
    weft_server_add (g, server, 0, nics);
    for (guint64 r = 0; r < server->nics; r++)
        weft_graph_connect (g, nics[r], WEFT_GRAPH_NONE, stand_in, r, 1, 0, WEFT_LINK_FABRIC);
    weft_graph_measure (g, one);
    one->nodes -= 1;
    one->links -= server->nics;
    one->ports -= server->nics;
    g_free (nics);
    weft_graph_free (g);
}

gboolean
weft_topology_railopt_size (const WeftRailOptParams *p, const WeftServerParams *server,
                            WeftGraphSize *out, GError **error)
{
    Plan P;
    if (!plan (p, server, &P, error))
        return FALSE;
    WeftGraphSize one;
    server_counts (server, &one);
    guint64 n = P.n_servers, switches = P.L + P.n_spines + P.cores;
    /* Every rail leaf of an SU that holds a server; with tor, a partial SU's first leaves. */
    guint64 per_leaf = P.S / P.R, rem = n % P.S;
    guint64 groups = n / P.S * P.R;
    if (rem)
        groups += p->layout == WEFT_LAYOUT_TOR ? (rem + per_leaf - 1) / per_leaf : P.R;
    *out = (WeftGraphSize){
        .nodes = switches + n * one.nodes,
        .links = n * (one.links + P.R) + P.L * P.U + (P.tiers == 3 ? P.n_spines * P.U2 : 0),
        .endpoints = n * one.endpoints,
        .ports = switches * P.radix + n * one.ports,
        .switches = switches,
        .destinations = n * P.R,
        .groups = groups, /* the leaves holding servers */
        .server_cells = n * one.server_cells,
        .hosts = n * one.hosts,
        .gpus = n * one.gpus,
    };
    return TRUE;
}

WeftGraph *
weft_topology_railopt (const WeftRailOptParams *p, const WeftServerParams *server, GError **error)
{
    Plan P;
    if (!plan (p, server, &P, error))
        return NULL;

    WeftGraph *g = weft_graph_new ();
    Switches sws;
    add_switches (g, p, &P, &sws);
    add_servers (g, p, server, &P, sws.leaf);
    /* leaf uplinks, spine-major on the leaf (ports S.., the cables to one spine together) */
    if (P.tiers == 2) {
        cable_two_tiers (g, p, &P, &sws);
    } else {
        cable_pods (g, p, &P, &sws);
        cable_cores (g, p, &P, &sws);
    }
    g_free (sws.leaf);
    g_free (sws.spine);
    g_free (sws.core);
    return g;
}

static gboolean
fattree_check (const WeftFatTreeParams *p, GError **error)
{
    if (p->k < 2 || p->k % 2 != 0 || p->k > 256)
        return fail (error, "topology", "k",
                     "%" G_GUINT64_FORMAT ": expected an even number from 2 to 256", p->k);
    return TRUE;
}

gboolean
weft_topology_fattree_size (const WeftFatTreeParams *p, WeftGraphSize *out, GError **error)
{
    if (!fattree_check (p, error))
        return FALSE;
    guint64 k = p->k, hosts = k * k * k / 4, switches = 5 * k * k / 4;
    *out = (WeftGraphSize){ .nodes = hosts + switches,
                            .links = 3 * hosts,
                            .endpoints = hosts,
                            .ports = switches * k + hosts,
                            .switches = switches,
                            .destinations = hosts,
                            .groups = k * k / 2, /* the edge switches */
                            .hosts = hosts };
    return TRUE;
}

WeftGraph *
weft_topology_fattree (const WeftFatTreeParams *p, GError **error)
{
    guint64 k = p->k, h = k / 2;
    if (!fattree_check (p, error))
        return NULL;
    WeftGraph *g = weft_graph_new ();
    char name[64];
    guint32 *edge = g_new (guint32, k * h), *agg = g_new (guint32, k * h),
            *core = g_new (guint32, h * h);
    for (guint64 pod = 0; pod < k; pod++)
        for (guint64 e = 0; e < h; e++) {
            g_snprintf (name, sizeof name, "pod%" G_GUINT64_FORMAT "-edge%" G_GUINT64_FORMAT, pod,
                        e);
            edge[pod * h + e] = sw (g, name, k, 1, (gint32) pod, -1);
        }
    for (guint64 pod = 0; pod < k; pod++)
        for (guint64 a = 0; a < h; a++) {
            g_snprintf (name, sizeof name, "pod%" G_GUINT64_FORMAT "-agg%" G_GUINT64_FORMAT, pod,
                        a);
            agg[pod * h + a] = sw (g, name, k, 2, (gint32) pod, -1);
        }
    for (guint64 c = 0; c < h * h; c++) {
        g_snprintf (name, sizeof name, "core%" G_GUINT64_FORMAT, c);
        core[c] = sw (g, name, k, 3, -1, -1);
    }
    for (guint64 e = 0; e < k * h; e++)
        for (guint64 i = 0; i < h; i++) {
            g_snprintf (name, sizeof name, "host%" G_GUINT64_FORMAT, e * h + i);
            guint32 host = weft_graph_add_node (g, name, WEFT_NODE_HOST, 1);
            cable (g, host, 0, edge[e], i, p->link_rate_bps, p->link_delay_ps, p->cable_length_m);
        }
    for (guint64 pod = 0; pod < k; pod++)
        for (guint64 e = 0; e < h; e++)
            for (guint64 a = 0; a < h; a++)
                cable (g, edge[pod * h + e], h + a, agg[pod * h + a], e, p->link_rate_bps,
                       p->link_delay_ps, p->cable_length_m);
    for (guint64 pod = 0; pod < k; pod++)
        for (guint64 a = 0; a < h; a++)
            for (guint64 m = 0; m < h; m++)
                cable (g, agg[pod * h + a], h + m, core[a * h + m], pod, p->link_rate_bps,
                       p->link_delay_ps, p->cable_length_m);
    g_free (edge);
    g_free (agg);
    g_free (core);
    return g;
}
