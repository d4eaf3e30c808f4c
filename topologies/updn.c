/* topologies/updn.c - up/down routing (see updn.h for the rules and how they differ from
 * OpenSM's). */
#include "config.h"
#define G_LOG_DOMAIN "weft-updn"
#include "topologies/updn.h"

#include <string.h>

#define INF G_MAXUINT

static gboolean
is_fabric_switch (const WeftGraph *g, guint32 v)
{
    const WeftNode *n = weft_graph_node (g, v);
    return n->kind == WEFT_NODE_SWITCH && n->server < 0;
}

static gboolean
is_fabric_dest (const WeftNode *n)
{
    return n->kind == WEFT_NODE_HOST || n->kind == WEFT_NODE_NIC;
}

/* The peer across port @p of @v, when the link is cabled and not cut (a subnet manager's
 * re-route leaves a Down link out: sim/graph.h); the ranks are computed on every cable. */
static gboolean
live_peer (const WeftGraph *g, guint32 v, guint32 p, guint32 *q, guint32 *qp)
{
    if (!weft_graph_peer (g, v, p, q, qp))
        return FALSE;
    return !weft_graph_link_cut (g, g_array_index (weft_graph_node (g, v)->ports, guint32, p));
}

/* Breadth-first search over switch-to-switch links from the switches already at distance
 * < INF in @dist, which are queued in @queue[@head..@tail). */
static void
bfs_switches (const WeftGraph *g, guint *dist, guint32 *queue, guint head, guint tail)
{
    while (head < tail) {
        guint32 v = queue[head++];
        const WeftNode *n = weft_graph_node (g, v);
        for (guint32 p = 0; p < n->ports->len; p++) {
            guint32 q, qp;
            if (weft_graph_peer (g, v, p, &q, &qp) && is_fabric_switch (g, q) && dist[q] == INF) {
                dist[q] = dist[v] + 1;
                queue[tail++] = q;
            }
        }
    }
}

guint32 *
weft_updn_ranks (const WeftGraph *g)
{
    guint n = weft_graph_n_nodes (g);
    guint32 *rank = g_new (guint32, n);
    guint *dist = g_new (guint, n);
    guint32 *queue = g_new (guint32, n);
    gint32 top_tier = 0;
    for (guint32 v = 0; v < n; v++) {
        rank[v] = WEFT_GRAPH_NONE;
        dist[v] = INF;
        if (is_fabric_switch (g, v))
            top_tier = MAX (top_tier, weft_graph_node (g, v)->tier);
    }

    /* The roots: the top tier, or else the switches farthest from their nearest destination. */
    guint tail = 0;
    if (top_tier > 0) {
        for (guint32 v = 0; v < n; v++)
            if (is_fabric_switch (g, v) && weft_graph_node (g, v)->tier == top_tier) {
                dist[v] = 0;
                queue[tail++] = v;
            }
    } else {
        guint *far = g_new (guint, n);
        for (guint32 v = 0; v < n; v++) {
            far[v] = INF;
            const WeftNode *node = weft_graph_node (g, v);
            if (!is_fabric_switch (g, v))
                continue;
            for (guint32 p = 0; p < node->ports->len && far[v] == INF; p++) {
                guint32 q, qp;
                if (weft_graph_peer (g, v, p, &q, &qp) && is_fabric_dest (weft_graph_node (g, q))) {
                    far[v] = 1;
                    queue[tail++] = v;
                }
            }
        }
        bfs_switches (g, far, queue, 0, tail);
        guint max = 0;
        for (guint32 v = 0; v < n; v++)
            if (far[v] != INF)
                max = MAX (max, far[v]);
        tail = 0;
        for (guint32 v = 0; v < n; v++)
            if (far[v] != INF && far[v] == max) {
                dist[v] = 0;
                queue[tail++] = v;
            }
        g_free (far);
    }
    bfs_switches (g, dist, queue, 0, tail);
    /* Components without a root (no destination, or no top-tier switch) rank from their
     * lowest switch id. */
    for (guint32 v = 0; v < n; v++)
        if (is_fabric_switch (g, v) && dist[v] == INF) {
            dist[v] = 0;
            queue[0] = v;
            bfs_switches (g, dist, queue, 0, 1);
        }
    for (guint32 v = 0; v < n; v++)
        if (is_fabric_switch (g, v))
            rank[v] = dist[v];
    g_free (dist);
    g_free (queue);
    return rank;
}

gboolean
weft_updn_is_up (const guint32 *ranks, guint32 from, guint32 to)
{
    return ranks[to] < ranks[from] || (ranks[to] == ranks[from] && to < from);
}

typedef struct {
    const WeftGraph *g;
    const guint32 *rank;
    guint n_sw;
    guint32 *sw;    /* dense index -> node id, in (rank, id) order: up hops go to earlier */
    guint32 *index; /* node id -> dense index, or NONE */
    guint32 *queue;
    guint *load_off; /* dense index -> its first entry in load */
    guint *load;     /* per switch port: destinations routed through it when it had a choice */
    /* per switch port (indexed as load): the live peer (NONE if none), its dense index (NONE
     * if not a switch, or the switch itself), and whether the hop goes up.  Read once for all
     * destinations: routing looks at every port of every switch per destination, and a
     * 64-SU SuperPOD is 1,280 switches x 64 ports x 16,384 destinations. */
    guint32 *peer;
    guint32 *peer_index;
    gboolean *peer_up;
} Ctx;

static int
cmp_rank (gconstpointer a, gconstpointer b, gpointer data)
{
    const guint32 *rank = data;
    guint32 x = *(const guint32 *) a, y = *(const guint32 *) b;
    if (rank[x] != rank[y])
        return rank[x] < rank[y] ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* Hops to the destination whose neighbour switches are @attach (dense indices): h[i] of switch
 * i, and down[i] when switch i reaches it by down hops alone (then h is the down-only
 * distance). */
static void
legal_hops (const Ctx *c, const GArray *attach, guint *h, gboolean *down)
{
    guint head = 0, tail = 0;
    for (guint i = 0; i < c->n_sw; i++) {
        h[i] = INF;
        down[i] = FALSE;
    }
    for (guint i = 0; i < attach->len; i++) {
        guint32 a = g_array_index (attach, guint32, i);
        h[a] = 1;
        down[a] = TRUE;
        c->queue[tail++] = a;
    }
    /* down-only distances: backward from the destination over hops v -> w that go down */
    while (head < tail) {
        guint32 wi = c->queue[head++], w = c->sw[wi];
        const WeftNode *node = weft_graph_node (c->g, w);
        for (guint32 p = 0; p < node->ports->len; p++) {
            guint32 v, vp;
            if (!live_peer (c->g, w, p, &v, &vp) || c->index[v] == WEFT_GRAPH_NONE)
                continue;
            guint32 vi = c->index[v];
            if (!down[vi] && v != w && weft_updn_is_up (c->rank, w, v)) {
                down[vi] = TRUE;
                h[vi] = h[wi] + 1;
                c->queue[tail++] = vi;
            }
        }
    }
    /* the others go up: in (rank, id) order every up neighbour is settled first */
    for (guint vi = 0; vi < c->n_sw; vi++) {
        if (down[vi])
            continue;
        guint32 v = c->sw[vi];
        const WeftNode *node = weft_graph_node (c->g, v);
        for (guint32 p = 0; p < node->ports->len; p++) {
            guint32 w, wp;
            if (!live_peer (c->g, v, p, &w, &wp) || c->index[w] == WEFT_GRAPH_NONE)
                continue;
            guint32 wi = c->index[w];
            if (weft_updn_is_up (c->rank, v, w) && h[wi] != INF && h[wi] + 1 < h[vi])
                h[vi] = h[wi] + 1;
        }
    }
}

typedef struct {
    guint *h;
    gboolean *down;
} Hops;

static void
hops_free (gpointer p)
{
    Hops *x = p;
    g_free (x->h);
    g_free (x->down);
    g_free (x);
}

/* Ranks the switches and indexes them densely in (rank, id) order, with a zero load per port. */
static void
ctx_init (Ctx *c, WeftGraph *g)
{
    guint n = weft_graph_n_nodes (g);
    *c = (Ctx){ .g = g, .rank = weft_updn_ranks (g) };
    c->index = g_new (guint32, n);
    GArray *sws = g_array_new (FALSE, FALSE, sizeof (guint32));
    for (guint32 v = 0; v < n; v++)
        if (c->rank[v] != WEFT_GRAPH_NONE)
            g_array_append_val (sws, v);
    g_array_sort_with_data (sws, cmp_rank, (gpointer) c->rank);
    c->n_sw = sws->len;
    c->sw = (guint32 *) g_array_free (sws, FALSE);
    c->queue = g_new (guint32, c->n_sw + 1);
    c->load_off = g_new (guint, c->n_sw + 1);
    for (guint32 v = 0; v < n; v++)
        c->index[v] = WEFT_GRAPH_NONE;
    c->load_off[0] = 0;
    for (guint i = 0; i < c->n_sw; i++) {
        c->index[c->sw[i]] = i;
        c->load_off[i + 1] = c->load_off[i] + weft_graph_node (g, c->sw[i])->ports->len;
    }
    c->load = g_new0 (guint, c->load_off[c->n_sw]);
    c->peer = g_new (guint32, c->load_off[c->n_sw]);
    c->peer_index = g_new (guint32, c->load_off[c->n_sw]);
    c->peer_up = g_new (gboolean, c->load_off[c->n_sw]);
    for (guint i = 0; i < c->n_sw; i++) {
        guint32 v = c->sw[i];
        const WeftNode *node = weft_graph_node (g, v);
        for (guint32 p = 0; p < node->ports->len; p++) {
            guint k = c->load_off[i] + p;
            guint32 q, qp;
            c->peer[k] = c->peer_index[k] = WEFT_GRAPH_NONE;
            c->peer_up[k] = FALSE;
            if (!live_peer (g, v, p, &q, &qp))
                continue;
            c->peer[k] = q;
            if (c->index[q] != WEFT_GRAPH_NONE && q != v) {
                c->peer_index[k] = c->index[q];
                c->peer_up[k] = weft_updn_is_up (c->rank, v, q);
            }
        }
    }
}

/* Frees what ctx_init allocated, the ranks included. */
static void
ctx_clear (Ctx *c)
{
    g_free (c->peer);
    g_free (c->peer_index);
    g_free (c->peer_up);
    g_free (c->load);
    g_free (c->load_off);
    g_free (c->queue);
    g_free (c->sw);
    g_free (c->index);
    g_free ((gpointer) c->rank);
}

/* The distinct switches (dense indices) cabled to destination node @d, in port order. */
static void
attachments (const Ctx *c, guint32 d, GArray *attach)
{
    const WeftNode *dn = weft_graph_node (c->g, d);
    g_array_set_size (attach, 0);
    for (guint32 p = 0; p < dn->ports->len; p++) {
        guint32 q, qp;
        if (live_peer (c->g, d, p, &q, &qp) && c->index[q] != WEFT_GRAPH_NONE) {
            gboolean seen = FALSE;
            for (guint i = 0; i < attach->len; i++)
                seen |= g_array_index (attach, guint32, i) == c->index[q];
            if (!seen)
                g_array_append_val (attach, c->index[q]);
        }
    }
}

/* The hop counts toward a destination attached to @attach, from @cache or computed into it. */
static const Hops *
cached_hops (const Ctx *c, GHashTable *cache, GString *key, const GArray *attach)
{
    g_string_truncate (key, 0);
    for (guint i = 0; i < attach->len; i++)
        g_string_append_printf (key, "%u,", g_array_index (attach, guint32, i));
    Hops *hops = g_hash_table_lookup (cache, key->str);
    if (hops == NULL) {
        hops = g_new (Hops, 1);
        hops->h = g_new (guint, c->n_sw);
        hops->down = g_new (gboolean, c->n_sw);
        legal_hops (c, attach, hops->h, hops->down);
        g_hash_table_insert (cache, g_strdup (key->str), hops);
    }
    return hops;
}

/* Routes switch @vi toward endpoint @ep (node @d, @hv hops away): the least-loaded port on a
 * shortest legal path, whose load counts the route when there was a choice. */
static void
route_switch (WeftGraph *g, Ctx *c, guint vi, guint32 ep, guint32 d, const Hops *hops, guint hv)
{
    guint32 v = c->sw[vi];
    guint n_ports = c->load_off[vi + 1] - c->load_off[vi];
    guint *ld = c->load + c->load_off[vi];
    const guint32 *peer = c->peer + c->load_off[vi], *qi = c->peer_index + c->load_off[vi];
    const gboolean *up = c->peer_up + c->load_off[vi];
    guint32 best = WEFT_GRAPH_NONE;
    guint n_cand = 0;
    for (guint32 p = 0; p < n_ports; p++) {
        if (peer[p] == WEFT_GRAPH_NONE)
            continue;
        gboolean ok;
        if (peer[p] == d)
            ok = hv == 1;
        else if (qi[p] == WEFT_GRAPH_NONE)
            ok = FALSE;
        else if (hops->down[vi]) /* down-only: stay on down hops */
            ok = !up[p] && hops->down[qi[p]] && hops->h[qi[p]] + 1 == hv;
        else
            ok = up[p] && hops->h[qi[p]] + 1 == hv;
        if (!ok)
            continue;
        n_cand++;
        if (best == WEFT_GRAPH_NONE || ld[p] < ld[best])
            best = p;
    }
    g_assert (best != WEFT_GRAPH_NONE);
    if (n_cand > 1)
        ld[best]++;
    weft_graph_route_set_static (g, v, ep, best);
}

void
weft_updn_route (WeftGraph *g)
{
    guint n_ep = weft_graph_n_endpoints (g);
    Ctx c;
    ctx_init (&c, g);
    /* destinations with the same neighbour switches share their hop counts */
    g_autoptr (GHashTable) cache =
        g_hash_table_new_full (g_str_hash, g_str_equal, g_free, hops_free);
    g_autoptr (GArray) attach = g_array_new (FALSE, FALSE, sizeof (guint32));
    g_autoptr (GString) key = g_string_new (NULL);
    guint unreachable = 0;

    for (guint32 ep = 0; ep < n_ep; ep++) {
        guint32 d = weft_graph_endpoint_node (g, ep);
        if (!is_fabric_dest (weft_graph_node (g, d)))
            continue;
        attachments (&c, d, attach);
        if (attach->len == 0)
            continue;
        const Hops *hops = cached_hops (&c, cache, key, attach);
        for (guint vi = 0; vi < c.n_sw; vi++) {
            guint hv = hops->h[vi];
            if (hv == INF) {
                unreachable++;
                continue;
            }
            route_switch (g, &c, vi, ep, d, hops, hv);
        }
    }
    if (unreachable)
        g_debug ("%u switch-destination pairs have no up/down path and keep their routes",
                 unreachable);
    ctx_clear (&c);
}
