/* sim/graph.c - the fabric graph: nodes, ports, links, endpoints, gateways and staging
 * (the route tables are in sim/routes.c). */
#include "config.h"
#define G_LOG_DOMAIN "weft-graph"
#include "sim/graph_private.h"

#include <string.h>

static const char *const node_kind_names[] = {
    "host", "switch", "gpu", "nic", "pcie-switch", "nvswitch", "cpu",
};
static const char *const link_kind_names[] = { "fabric", "nvlink", "pcie" };

const char *
weft_node_kind_name (WeftNodeKind kind)
{
    g_return_val_if_fail (kind < WEFT_NODE_KIND_COUNT, "?");
    return node_kind_names[kind];
}

const char *
weft_link_kind_name (WeftLinkKind kind)
{
    g_return_val_if_fail (kind < WEFT_LINK_KIND_COUNT, "?");
    return link_kind_names[kind];
}

WeftGraph *
weft_graph_new (void)
{
    WeftGraph *g = g_new0 (WeftGraph, 1);
    g->nodes = g_array_new (FALSE, TRUE, sizeof (WeftNode));
    g->links = g_array_new (FALSE, TRUE, sizeof (WeftLink));
    g->endpoints = g_array_new (FALSE, FALSE, sizeof (guint32));
    g->by_name = g_hash_table_new (g_str_hash, g_str_equal);
    g->staging = g_array_new (FALSE, FALSE, sizeof (guint32));
    g->free_hint = g_array_new (FALSE, TRUE, sizeof (guint32));
    g->gpudirect = TRUE;
    return g;
}

void
weft_graph_free (WeftGraph *g)
{
    if (g == NULL)
        return;
    for (guint i = 0; i < g->nodes->len; i++) {
        WeftNode *n = &g_array_index (g->nodes, WeftNode, i);
        g_free (n->name);
        g_array_unref (n->ports);
    }
    g_array_unref (g->nodes);
    g_array_unref (g->links);
    g_array_unref (g->endpoints);
    g_hash_table_unref (g->by_name);
    g_array_unref (g->staging);
    if (g->staging_from)
        g_hash_table_unref (g->staging_from);
    if (g->staging_group)
        g_hash_table_unref (g->staging_group);
    if (g->staging_window)
        g_hash_table_unref (g->staging_window);
    if (g->staging_breaks)
        g_array_unref (g->staging_breaks);
    g_array_unref (g->free_hint);
    weft_graph_routes_free (g->routes);
    g_free (g->cut);
    g_free (g->removed);
    g_free (g);
}

static void
invalidate (WeftGraph *g)
{
    weft_graph_routes_free (g->routes);
    g->routes = NULL;
    g->routes_gen++;
}

static gboolean
kind_forwards (WeftNodeKind kind)
{
    return kind == WEFT_NODE_SWITCH || kind == WEFT_NODE_NVSWITCH ||
           kind == WEFT_NODE_PCIE_SWITCH || kind == WEFT_NODE_NIC;
}

guint32
weft_graph_add_node (WeftGraph *g, const char *name, WeftNodeKind kind, guint n_ports)
{
    g_return_val_if_fail (g != NULL && name != NULL, WEFT_GRAPH_NONE);
    g_return_val_if_fail (kind < WEFT_NODE_KIND_COUNT, WEFT_GRAPH_NONE);
    g_return_val_if_fail (!g_hash_table_contains (g->by_name, name), WEFT_GRAPH_NONE);

    guint32 id = g->nodes->len;
    WeftNode n = { 0 };
    n.name = g_strdup (name);
    n.kind = kind;
    n.tier = 0;
    n.server = n.su = n.rail = -1;
    n.forwards = kind_forwards (kind);
    n.endpoint = WEFT_GRAPH_NONE;
    n.ports = g_array_sized_new (FALSE, FALSE, sizeof (guint32), n_ports);
    guint32 none = WEFT_GRAPH_NONE;
    for (guint i = 0; i < n_ports; i++)
        g_array_append_val (n.ports, none);
    g_array_append_val (g->nodes, n);
    g_array_append_val (g->staging, none);
    g_array_set_size (g->free_hint, id + 1);
    WeftNode *stored = &g_array_index (g->nodes, WeftNode, id);
    g_hash_table_insert (g->by_name, stored->name, GUINT_TO_POINTER (id + 1));
    if (kind == WEFT_NODE_HOST || kind == WEFT_NODE_GPU || kind == WEFT_NODE_CPU)
        weft_graph_make_endpoint (g, id);
    invalidate (g);
    return id;
}

guint32
weft_graph_make_endpoint (WeftGraph *g, guint32 node)
{
    g_return_val_if_fail (g != NULL && node < g->nodes->len, WEFT_GRAPH_NONE);
    WeftNode *n = &g_array_index (g->nodes, WeftNode, node);
    if (n->endpoint == WEFT_GRAPH_NONE) {
        n->endpoint = g->endpoints->len;
        g_array_append_val (g->endpoints, node);
        invalidate (g);
    }
    return n->endpoint;
}

/* The first empty port of @node, growing it when it has none.  Ports only fill (no link is
 * ever removed), so the search starts where the last one ended: a switch cabled port by port
 * costs linear time in its ports, not quadratic. */
static guint32
first_empty_port (WeftGraph *g, guint32 node)
{
    WeftNode *n = &g_array_index (g->nodes, WeftNode, node);
    guint32 *hint = &g_array_index (g->free_hint, guint32, node);
    for (; *hint < n->ports->len; ++*hint)
        if (g_array_index (n->ports, guint32, *hint) == WEFT_GRAPH_NONE)
            return *hint;
    guint32 none = WEFT_GRAPH_NONE;
    g_array_append_val (n->ports, none);
    return n->ports->len - 1;
}

guint32
weft_graph_connect (WeftGraph *g, guint32 a, guint32 pa, guint32 b, guint32 pb, guint64 rate_bps,
                    weft_time_t delay_ps, WeftLinkKind kind)
{
    g_return_val_if_fail (g != NULL, WEFT_GRAPH_NONE);
    g_return_val_if_fail (a < g->nodes->len && b < g->nodes->len && a != b, WEFT_GRAPH_NONE);
    g_return_val_if_fail (kind < WEFT_LINK_KIND_COUNT, WEFT_GRAPH_NONE);
    WeftNode *na = &g_array_index (g->nodes, WeftNode, a);
    WeftNode *nb = &g_array_index (g->nodes, WeftNode, b);
    g_return_val_if_fail (pa == WEFT_GRAPH_NONE || pa < na->ports->len, WEFT_GRAPH_NONE);
    g_return_val_if_fail (pb == WEFT_GRAPH_NONE || pb < nb->ports->len, WEFT_GRAPH_NONE);
    g_return_val_if_fail (pa == WEFT_GRAPH_NONE ||
                              g_array_index (na->ports, guint32, pa) == WEFT_GRAPH_NONE,
                          WEFT_GRAPH_NONE);
    g_return_val_if_fail (pb == WEFT_GRAPH_NONE ||
                              g_array_index (nb->ports, guint32, pb) == WEFT_GRAPH_NONE,
                          WEFT_GRAPH_NONE);
    if (pa == WEFT_GRAPH_NONE)
        pa = first_empty_port (g, a);
    if (pb == WEFT_GRAPH_NONE)
        pb = first_empty_port (g, b);

    guint32 id = g->links->len;
    WeftLink l = { .a = a,
                   .b = b,
                   .pa = pa,
                   .pb = pb,
                   .rate_bps = rate_bps,
                   .delay_ps = delay_ps,
                   .length_m = 0,
                   .kind = kind };
    g_array_append_val (g->links, l);
    if (g->cut) {
        g->cut = g_realloc (g->cut, g->links->len);
        g->cut[id] = 0;
    }
    if (g->removed) {
        g->removed = g_realloc (g->removed, g->links->len);
        g->removed[id] = 0;
    }
    g_array_index (na->ports, guint32, pa) = id;
    g_array_index (nb->ports, guint32, pb) = id;
    invalidate (g);
    return id;
}

guint
weft_graph_n_nodes (const WeftGraph *g)
{
    return g->nodes->len;
}

guint
weft_graph_n_links (const WeftGraph *g)
{
    return g->links->len;
}

guint
weft_graph_n_endpoints (const WeftGraph *g)
{
    return g->endpoints->len;
}

WeftNode *
weft_graph_node (const WeftGraph *g, guint32 id)
{
    g_return_val_if_fail (g != NULL && id < g->nodes->len, NULL);
    return &g_array_index (g->nodes, WeftNode, id);
}

WeftLink *
weft_graph_link (const WeftGraph *g, guint32 id)
{
    g_return_val_if_fail (g != NULL && id < g->links->len, NULL);
    return &g_array_index (g->links, WeftLink, id);
}

guint32
weft_graph_endpoint_node (const WeftGraph *g, guint32 ep)
{
    g_return_val_if_fail (g != NULL && ep < g->endpoints->len, WEFT_GRAPH_NONE);
    return g_array_index (g->endpoints, guint32, ep);
}

guint32
weft_graph_lookup (const WeftGraph *g, const char *name)
{
    g_return_val_if_fail (g != NULL && name != NULL, WEFT_GRAPH_NONE);
    gpointer v = g_hash_table_lookup (g->by_name, name);
    return v ? GPOINTER_TO_UINT (v) - 1 : WEFT_GRAPH_NONE;
}

gboolean
weft_graph_peer (const WeftGraph *g, guint32 node, guint32 port, guint32 *peer_node,
                 guint32 *peer_port)
{
    g_return_val_if_fail (g != NULL && node < g->nodes->len, FALSE);
    WeftNode *n = &g_array_index (g->nodes, WeftNode, node);
    g_return_val_if_fail (port < n->ports->len, FALSE);
    guint32 lid = g_array_index (n->ports, guint32, port);
    if (lid == WEFT_GRAPH_NONE)
        return FALSE;
    WeftLink *l = &g_array_index (g->links, WeftLink, lid);
    gboolean is_a = (l->a == node && l->pa == port);
    if (peer_node)
        *peer_node = is_a ? l->b : l->a;
    if (peer_port)
        *peer_port = is_a ? l->pb : l->pa;
    return TRUE;
}

guint
weft_graph_direction (const WeftGraph *g, guint32 node, guint32 port)
{
    g_return_val_if_fail (g != NULL && node < g->nodes->len, 0);
    WeftNode *n = &g_array_index (g->nodes, WeftNode, node);
    g_return_val_if_fail (port < n->ports->len, 0);
    guint32 lid = g_array_index (n->ports, guint32, port);
    g_return_val_if_fail (lid != WEFT_GRAPH_NONE, 0);
    WeftLink *l = &g_array_index (g->links, WeftLink, lid);
    return (l->a == node && l->pa == port) ? 0 : 1;
}

guint32
weft_graph_gateway (const WeftGraph *g, guint32 node)
{
    g_return_val_if_fail (g != NULL && node < g->nodes->len, WEFT_GRAPH_NONE);
    if (g->routes)
        return g->routes->gw[node];
    return weft_graph_node (g, node)->server < 0 ? node : WEFT_GRAPH_NONE;
}

void
weft_graph_set_staging (WeftGraph *g, guint32 node, guint32 staging)
{
    g_return_if_fail (g != NULL && node < g->nodes->len);
    g_return_if_fail (staging == WEFT_GRAPH_NONE || staging < g->nodes->len);
    g_array_index (g->staging, guint32, node) = staging;
}

guint32
weft_graph_staging (const WeftGraph *g, guint32 node)
{
    g_return_val_if_fail (g != NULL && node < g->nodes->len, WEFT_GRAPH_NONE);
    guint32 s = g_array_index (g->staging, guint32, node);
    return s == WEFT_GRAPH_NONE ? node : s;
}

void
weft_graph_set_staging_from (WeftGraph *g, guint32 node, guint32 staging, guint32 first_coll)
{
    weft_graph_set_staging (g, node, staging);
    g_return_if_fail (node < g->nodes->len && first_coll < G_MAXUINT32);
    if (!g->staging_from)
        g->staging_from = g_hash_table_new (NULL, NULL);
    g_hash_table_insert (g->staging_from, GUINT_TO_POINTER (node + 1),
                         GUINT_TO_POINTER (first_coll + 1));
}

typedef struct {
    char *group; /* "workload.NAME" */
    guint32 nth; /* its collective, from 0 */
} StagingGroup;

static void
staging_group_free (gpointer data)
{
    StagingGroup *sg = data;
    g_free (sg->group);
    g_free (sg);
}

void
weft_graph_set_staging_from_group (WeftGraph *g, guint32 node, guint32 staging, const char *group,
                                   guint32 nth)
{
    g_return_if_fail (g != NULL && node < g->nodes->len && group != NULL);
    weft_graph_set_staging (g, node, staging);
    if (!g->staging_from)
        g->staging_from = g_hash_table_new (NULL, NULL);
    if (!g->staging_group)
        g->staging_group = g_hash_table_new_full (NULL, NULL, NULL, staging_group_free);
    StagingGroup *sg = g_new (StagingGroup, 1);
    sg->group = g_strdup (group);
    sg->nth = nth;
    g_hash_table_insert (g->staging_group, GUINT_TO_POINTER (node + 1), sg);
    /* Until its group is generated, no collective is staged: those before it come first. */
    g_hash_table_insert (g->staging_from, GUINT_TO_POINTER (node + 1),
                         GUINT_TO_POINTER (G_MAXUINT32));
}

void
weft_graph_staging_number_group (const WeftGraph *g, const char *group, guint32 coll_base)
{
    g_return_if_fail (g != NULL && group != NULL);
    if (!g->staging_group)
        return;
    GHashTableIter it;
    gpointer key, value;
    g_hash_table_iter_init (&it, g->staging_group);
    while (g_hash_table_iter_next (&it, &key, &value)) {
        const StagingGroup *sg = value;
        if (strcmp (sg->group, group) == 0)
            g_hash_table_insert (g->staging_from, key, GUINT_TO_POINTER (coll_base + sg->nth + 1));
    }
}

typedef struct {
    weft_time_t from_ps, until_ps;
} StagingWindow;

/* Adds @t to the sorted, distinct breaks (0 and NEVER are no break). */
static void
add_break (WeftGraph *g, weft_time_t t)
{
    if (t == 0 || t == WEFT_TIME_NEVER)
        return;
    guint i = 0;
    while (i < g->staging_breaks->len && g_array_index (g->staging_breaks, weft_time_t, i) < t)
        i++;
    if (i < g->staging_breaks->len && g_array_index (g->staging_breaks, weft_time_t, i) == t)
        return;
    g_array_insert_val (g->staging_breaks, i, t);
}

void
weft_graph_set_staging_window (WeftGraph *g, guint32 node, guint32 staging, weft_time_t from_ps,
                               weft_time_t until_ps)
{
    g_return_if_fail (g != NULL && node < g->nodes->len);
    weft_graph_set_staging (g, node, staging);
    if (!g->staging_window) {
        g->staging_window = g_hash_table_new_full (NULL, NULL, NULL, g_free);
        g->staging_breaks = g_array_new (FALSE, FALSE, sizeof (weft_time_t));
    }
    StagingWindow *w = g_new (StagingWindow, 1);
    *w = (StagingWindow){ from_ps, until_ps };
    g_hash_table_insert (g->staging_window, GUINT_TO_POINTER (node + 1), w);
    add_break (g, from_ps);
    add_break (g, until_ps);
}

guint
weft_graph_staging_n_epochs (const WeftGraph *g)
{
    g_return_val_if_fail (g != NULL, 1);
    return g->staging_breaks ? g->staging_breaks->len + 1 : 1;
}

guint
weft_graph_staging_epoch (const WeftGraph *g, weft_time_t t)
{
    g_return_val_if_fail (g != NULL, 0);
    guint e = 0;
    while (g->staging_breaks && e < g->staging_breaks->len &&
           g_array_index (g->staging_breaks, weft_time_t, e) <= t)
        e++;
    return e;
}

weft_time_t
weft_graph_staging_epoch_start (const WeftGraph *g, guint epoch)
{
    g_return_val_if_fail (g != NULL && epoch < weft_graph_staging_n_epochs (g), 0);
    return epoch == 0 ? 0 : g_array_index (g->staging_breaks, weft_time_t, epoch - 1);
}

guint32
weft_graph_staging_in (const WeftGraph *g, guint32 node, guint32 coll, guint epoch)
{
    guint32 s = weft_graph_staging (g, node);
    if (g->staging_from) {
        guint32 first =
            GPOINTER_TO_UINT (g_hash_table_lookup (g->staging_from, GUINT_TO_POINTER (node + 1)));
        if (first && coll < first - 1)
            return node;
    }
    if (g->staging_window) {
        const StagingWindow *w =
            g_hash_table_lookup (g->staging_window, GUINT_TO_POINTER (node + 1));
        /* The breaks include the window's ends, so the whole epoch is in or out of it. */
        weft_time_t t = weft_graph_staging_epoch_start (g, epoch);
        if (w && (t < w->from_ps || t >= w->until_ps))
            return node;
    }
    return s;
}

gboolean
weft_graph_staging_timed (const WeftGraph *g, guint32 node)
{
    g_return_val_if_fail (g != NULL && node < g->nodes->len, FALSE);
    gpointer key = GUINT_TO_POINTER (node + 1);
    return (g->staging_from && g_hash_table_contains (g->staging_from, key)) ||
           (g->staging_window && g_hash_table_contains (g->staging_window, key));
}

guint32
weft_graph_staging_for (const WeftGraph *g, guint32 node, guint32 coll)
{
    return weft_graph_staging_in (g, node, coll, 0);
}

void
weft_graph_set_gpudirect (WeftGraph *g, gboolean on)
{
    g_return_if_fail (g != NULL);
    g->gpudirect = on;
}

gboolean
weft_graph_gpudirect (const WeftGraph *g)
{
    g_return_val_if_fail (g != NULL, TRUE);
    return g->gpudirect;
}

void
weft_graph_set_link_cut (WeftGraph *g, guint32 link, gboolean cut)
{
    g_return_if_fail (link < g->links->len);
    if (!g->cut && !cut)
        return;
    if (!g->cut)
        g->cut = g_new0 (guint8, g->links->len);
    g->cut[link] = cut ? 1 : 0;
}

gboolean
weft_graph_link_cut (const WeftGraph *g, guint32 link)
{
    return g->cut != NULL && link < g->links->len && g->cut[link];
}

void
weft_graph_set_link_removed (WeftGraph *g, guint32 link)
{
    g_return_if_fail (link < g->links->len);
    if (!g->removed)
        g->removed = g_new0 (guint8, g->links->len);
    g->removed[link] = 1;
    invalidate (g);
}

gboolean
weft_graph_link_removed (const WeftGraph *g, guint32 link)
{
    return g->removed != NULL && link < g->links->len && g->removed[link];
}
