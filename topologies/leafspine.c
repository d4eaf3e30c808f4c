/* topologies/leafspine.c - single switch, dumbbell and two-tier leaf-spine generators. */
#include "config.h"
#define G_LOG_DOMAIN "weft-topology"
#include "topologies/leafspine.h"

#include <math.h>

weft_time_t
weft_topology_cable_delay (weft_time_t extra_ps, double length_m)
{
    return extra_ps + (weft_time_t) llround (length_m * 5000.0);
}

static guint32
link (WeftGraph *g, guint32 a, guint32 b, guint64 rate, weft_time_t extra, double len)
{
    guint32 l = weft_graph_connect (g, a, WEFT_GRAPH_NONE, b, WEFT_GRAPH_NONE, rate,
                                    weft_topology_cable_delay (extra, len), WEFT_LINK_FABRIC);
    weft_graph_link (g, l)->length_m = len;
    return l;
}

static guint32
add_switch (WeftGraph *g, const char *name, guint ports, gint32 tier)
{
    guint32 id = weft_graph_add_node (g, name, WEFT_NODE_SWITCH, ports);
    weft_graph_node (g, id)->tier = tier;
    return id;
}

static guint32
add_host (WeftGraph *g, guint64 i)
{
    char name[32];
    g_snprintf (name, sizeof name, "host%" G_GUINT64_FORMAT, i);
    return weft_graph_add_node (g, name, WEFT_NODE_HOST, 1);
}

#define TOO_MANY(n) ((n) > 1000000)

static gboolean
single_switch_check (const WeftSingleSwitchParams *p, GError **error)
{
    if (p->hosts < 1 || TOO_MANY (p->hosts)) {
        g_set_error (error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_PARAM,
                     "[topology] hosts: %" G_GUINT64_FORMAT " hosts: expected 1 to 1000000",
                     p->hosts);
        return FALSE;
    }
    return TRUE;
}

gboolean
weft_topology_single_switch_size (const WeftSingleSwitchParams *p, WeftGraphSize *out,
                                  GError **error)
{
    if (!single_switch_check (p, error))
        return FALSE;
    guint64 n = p->hosts;
    *out = (WeftGraphSize){ .nodes = n + 1,
                            .links = n,
                            .endpoints = n,
                            .ports = 2 * n,
                            .switches = 1,
                            .destinations = n,
                            .groups = 1,
                            .hosts = n };
    return TRUE;
}

WeftGraph *
weft_topology_single_switch (const WeftSingleSwitchParams *p, GError **error)
{
    if (!single_switch_check (p, error))
        return NULL;
    WeftGraph *g = weft_graph_new ();
    guint32 sw = add_switch (g, "sw0", p->hosts, 1);
    for (guint64 i = 0; i < p->hosts; i++)
        link (g, add_host (g, i), sw, p->link_rate_bps, p->link_delay_ps, p->cable_length_m);
    return g;
}

static gboolean
dumbbell_check (const WeftDumbbellParams *p, GError **error)
{
    if (p->left_hosts < 1 || p->right_hosts < 1 || TOO_MANY (p->left_hosts + p->right_hosts)) {
        g_set_error (error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_PARAM,
                     "[topology] %s: a dumbbell needs at least one host on each side",
                     p->left_hosts < 1 ? "left_hosts" : "right_hosts");
        return FALSE;
    }
    return TRUE;
}

gboolean
weft_topology_dumbbell_size (const WeftDumbbellParams *p, WeftGraphSize *out, GError **error)
{
    if (!dumbbell_check (p, error))
        return FALSE;
    guint64 n = p->left_hosts + p->right_hosts;
    *out = (WeftGraphSize){ .nodes = n + 2,
                            .links = n + 1,
                            .endpoints = n,
                            .ports = 2 * n + 2,
                            .switches = 2,
                            .destinations = n,
                            .groups = 2,
                            .hosts = n };
    return TRUE;
}

WeftGraph *
weft_topology_dumbbell (const WeftDumbbellParams *p, GError **error)
{
    if (!dumbbell_check (p, error))
        return NULL;
    WeftGraph *g = weft_graph_new ();
    guint32 sw[2] = { add_switch (g, "sw0", p->left_hosts + 1, 1),
                      add_switch (g, "sw1", p->right_hosts + 1, 1) };
    for (guint64 i = 0; i < p->left_hosts + p->right_hosts; i++)
        link (g, add_host (g, i), sw[i < p->left_hosts ? 0 : 1], p->link_rate_bps, p->link_delay_ps,
              p->cable_length_m);
    link (g, sw[0], sw[1], p->bottleneck_rate_bps, p->bottleneck_delay_ps,
          p->bottleneck_cable_length_m);
    return g;
}

static gboolean
leafspine_check (const WeftLeafSpineParams *p, GError **error)
{
    const char *bad = p->leaves < 1                                           ? "leaves"
                      : p->spines < 1                                         ? "spines"
                      : p->hosts_per_leaf < 1                                 ? "hosts_per_leaf"
                      : p->links_per_spine < 1                                ? "links_per_spine"
                      : TOO_MANY (p->leaves * p->hosts_per_leaf)              ? "hosts_per_leaf"
                      : TOO_MANY (p->leaves * p->spines * p->links_per_spine) ? "links_per_spine"
                                                                              : NULL;
    if (bad) {
        g_set_error (error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_PARAM,
                     "[topology] %s: expected at least 1 (and at most a million hosts or links)",
                     bad);
        return FALSE;
    }
    return TRUE;
}

gboolean
weft_topology_leafspine_size (const WeftLeafSpineParams *p, WeftGraphSize *out, GError **error)
{
    if (!leafspine_check (p, error))
        return FALSE;
    guint64 L = p->leaves, S = p->spines, H = p->hosts_per_leaf, C = p->links_per_spine;
    *out = (WeftGraphSize){ .nodes = L + S + L * H,
                            .links = L * H + L * S * C,
                            .endpoints = L * H,
                            .ports = 2 * L * H + 2 * L * S * C,
                            .switches = L + S,
                            .destinations = L * H,
                            .groups = L,
                            .hosts = L * H };
    return TRUE;
}

WeftGraph *
weft_topology_leafspine (const WeftLeafSpineParams *p, GError **error)
{
    if (!leafspine_check (p, error))
        return NULL;
    WeftGraph *g = weft_graph_new ();
    guint64 up = p->spines * p->links_per_spine;
    guint32 *leaf = g_new (guint32, p->leaves);
    guint32 *spine = g_new (guint32, p->spines);
    char name[32];
    for (guint64 l = 0; l < p->leaves; l++) {
        g_snprintf (name, sizeof name, "leaf%" G_GUINT64_FORMAT, l);
        leaf[l] = add_switch (g, name, p->hosts_per_leaf + up, 1);
    }
    for (guint64 s = 0; s < p->spines; s++) {
        g_snprintf (name, sizeof name, "spine%" G_GUINT64_FORMAT, s);
        spine[s] = add_switch (g, name, p->leaves * p->links_per_spine, 2);
    }
    for (guint64 l = 0; l < p->leaves; l++)
        for (guint64 h = 0; h < p->hosts_per_leaf; h++)
            link (g, add_host (g, l * p->hosts_per_leaf + h), leaf[l], p->link_rate_bps,
                  p->link_delay_ps, p->cable_length_m);
    for (guint64 l = 0; l < p->leaves; l++)
        for (guint64 s = 0; s < p->spines; s++)
            for (guint64 k = 0; k < p->links_per_spine; k++)
                link (g, leaf[l], spine[s], p->uplink_rate_bps, p->link_delay_ps,
                      p->uplink_cable_length_m);
    g_free (leaf);
    g_free (spine);
    return g;
}
