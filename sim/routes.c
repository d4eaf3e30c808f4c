/* sim/routes.c - the fabric graph's route tables.
 *
 * Routes are hierarchical (see sim/graph.h, "Route tables"): one table for the fabric region
 * (nodes with server < 0), whose columns are the fabric's endpoints and the server nodes cabled
 * to it (NICs), and one small table per server.  The fabric table is filled by one BFS per
 * distinct attachment point (a leaf), not per column: every NIC hanging off one leaf sees the
 * same distances beyond that leaf, so a 16k-NIC fabric with 512 leaves costs 512 searches.
 */
#include "config.h"
#define G_LOG_DOMAIN "weft-graph"
#include "sim/graph_private.h"

#include <string.h>

void
weft_graph_routes_free (Routes *r)
{
    if (r == NULL)
        return;
    g_free (r->port_off);
    g_free (r->peer);
    g_free (r->prank);
    g_free (r->row);
    g_free (r->col);
    g_free (r->scol);
    g_free (r->gw);
    g_free (r->div);
    g_free (r->fports);
    g_free (r->fabric.cells);
    g_free (r->fabric.over);
    for (guint i = 0; i < r->n_servers; i++) {
        g_free (r->servers[i].cells);
        g_free (r->servers[i].over);
    }
    g_free (r->servers);
    g_array_unref (r->set_off);
    g_array_unref (r->set_data);
    g_free (r->ht);
    if (r->extra_over)
        g_hash_table_unref (r->extra_over);
    g_free (r);
}

/* ---- interned port sets ---------------------------------------------------------------- */

static guint32
set_hash (const guint32 *ports, guint n)
{
    guint32 h = 2166136261u;
    for (guint i = 0; i < n; i++) {
        h ^= ports[i];
        h *= 16777619u;
    }
    h ^= n;
    return h * 2654435761u;
}

static const guint32 *
set_get (const Routes *r, guint32 id, guint *n)
{
    guint32 off = g_array_index (r->set_off, guint32, id);
    const guint32 *d = &g_array_index (r->set_data, guint32, off);
    *n = d[0];
    return d + 1;
}

static void
ht_insert (Routes *r, guint32 id)
{
    guint n;
    const guint32 *p = set_get (r, id, &n);
    guint32 mask = r->ht_cap - 1;
    for (guint32 i = set_hash (p, n) & mask;; i = (i + 1) & mask)
        if (r->ht[i] == WEFT_GRAPH_NONE) {
            r->ht[i] = id;
            return;
        }
}

static guint32
set_intern (Routes *r, const guint32 *ports, guint n)
{
    if (n == 0)
        return 0;
    if ((r->ht_used + 1) * 2 > r->ht_cap) {
        g_free (r->ht);
        r->ht_cap = r->ht_cap ? r->ht_cap * 2 : 256;
        r->ht = g_new (guint32, r->ht_cap);
        memset (r->ht, 0xff, sizeof (guint32) * r->ht_cap);
        for (guint32 id = 1; id < r->set_off->len; id++)
            ht_insert (r, id);
    }
    guint32 mask = r->ht_cap - 1;
    for (guint32 i = set_hash (ports, n) & mask;; i = (i + 1) & mask) {
        guint32 id = r->ht[i];
        if (id == WEFT_GRAPH_NONE) {
            guint32 off = r->set_data->len, nn = n;
            g_array_append_val (r->set_data, nn);
            g_array_append_vals (r->set_data, ports, n);
            id = r->set_off->len;
            g_array_append_val (r->set_off, off);
            r->ht[i] = id;
            r->ht_used++;
            return id;
        }
        guint m;
        const guint32 *q = set_get (r, id, &m);
        if (m == n && memcmp (q, ports, n * sizeof (guint32)) == 0)
            return id;
    }
}

/* ---- route computation --------------------------------------------------------------- */

typedef struct {
    const WeftGraph *g;
    Routes *r;
    guint32 *dist;  /* per node, NONE = unvisited */
    guint32 *queue; /* BFS queue; also the list of visited nodes to reset */
    guint32 n_queue;
    guint32 *buf;  /* scratch port list */
    int only_kind; /* a WeftLinkKind: BFS and sets use only links of that kind; -1: any */
} Ctx;

static inline WeftNode *
node_at (const WeftGraph *g, guint32 id)
{
    return &g_array_index (g->nodes, WeftNode, id);
}

static inline guint32
n_ports_of (const Routes *r, guint32 v)
{
    return r->port_off[v + 1] - r->port_off[v];
}

/* Whether port @p of @v may carry the search (Ctx.only_kind). */
static inline gboolean
port_allowed (const Ctx *c, guint32 v, guint32 p)
{
    if (c->only_kind < 0)
        return TRUE;
    guint32 lid = g_array_index (node_at (c->g, v)->ports, guint32, p);
    return (int) g_array_index (c->g->links, WeftLink, lid).kind == c->only_kind;
}

static void
bfs_reset (Ctx *c)
{
    for (guint32 i = 0; i < c->n_queue; i++)
        c->dist[c->queue[i]] = WEFT_GRAPH_NONE;
    c->n_queue = 0;
}

/* BFS inside @region (a server id, or -1 for the fabric) from @starts, which are expanded
 * whatever they are; other nodes are expanded only when they forward. */
static void
bfs (Ctx *c, const guint32 *starts, guint n_starts, gint32 region)
{
    bfs_reset (c);
    for (guint i = 0; i < n_starts; i++) {
        c->dist[starts[i]] = 0;
        c->queue[c->n_queue++] = starts[i];
    }
    for (guint32 head = 0; head < c->n_queue; head++) {
        guint32 v = c->queue[head];
        if (head >= n_starts && !node_at (c->g, v)->forwards)
            continue;
        guint32 off = c->r->port_off[v], np = n_ports_of (c->r, v);
        for (guint32 p = 0; p < np; p++) {
            guint32 u = c->r->peer[off + p];
            if (u == WEFT_GRAPH_NONE || c->dist[u] != WEFT_GRAPH_NONE)
                continue;
            if (node_at (c->g, u)->server != region || !port_allowed (c, v, p))
                continue;
            c->dist[u] = c->dist[v] + 1;
            c->queue[c->n_queue++] = u;
        }
    }
}

/* Sort ports cable-major: (rank among parallel cables to the same peer, peer id), so that
 * D-mod-k picks the peer with the low digits of the key and the cable with the next ones. */
static void
sort_ports (const Routes *r, guint32 v, guint32 *ports, guint n)
{
    guint32 off = r->port_off[v];
    for (guint i = 1; i < n; i++) {
        guint32 p = ports[i];
        guint64 kp = ((guint64) r->prank[off + p] << 32) | r->peer[off + p];
        guint j = i;
        while (j > 0) {
            guint32 q = ports[j - 1];
            guint64 kq = ((guint64) r->prank[off + q] << 32) | r->peer[off + q];
            if (kq <= kp)
                break;
            ports[j] = q;
            j--;
        }
        ports[j] = p;
    }
}

/* Equal-cost set of @v toward the BFS sources (dist 0), transiting only forwarding nodes. */
static guint32
set_from_dist (Ctx *c, guint32 v)
{
    guint32 dv = c->dist[v];
    if (dv == WEFT_GRAPH_NONE || dv == 0)
        return 0;
    guint32 off = c->r->port_off[v], np = n_ports_of (c->r, v);
    guint n = 0;
    for (guint32 p = 0; p < np; p++) {
        guint32 u = c->r->peer[off + p];
        if (u == WEFT_GRAPH_NONE || c->dist[u] != dv - 1 || !port_allowed (c, v, p))
            continue;
        if (c->dist[u] != 0 && !node_at (c->g, u)->forwards)
            continue;
        c->buf[n++] = p;
    }
    sort_ports (c->r, v, c->buf, n);
    return set_intern (c->r, c->buf, n);
}

/* Ports of @v whose peer is @to (or, with @to NONE, whose peer is outside @v's server). */
static guint32
set_of_ports_to (Ctx *c, guint32 v, guint32 to)
{
    guint32 off = c->r->port_off[v], np = n_ports_of (c->r, v);
    gint32 region = node_at (c->g, v)->server;
    guint n = 0;
    for (guint32 p = 0; p < np; p++) {
        guint32 u = c->r->peer[off + p];
        if (u == WEFT_GRAPH_NONE)
            continue;
        if (to != WEFT_GRAPH_NONE ? u == to : node_at (c->g, u)->server < 0 || region < 0)
            c->buf[n++] = p;
    }
    sort_ports (c->r, v, c->buf, n);
    return set_intern (c->r, c->buf, n);
}

static void
build_adjacency (const WeftGraph *g, Routes *r)
{
    guint nn = g->nodes->len;
    r->port_off = g_new (guint32, nn + 1);
    guint32 total = 0;
    for (guint v = 0; v < nn; v++) {
        r->port_off[v] = total;
        total += node_at (g, v)->ports->len;
    }
    r->port_off[nn] = total;
    r->peer = g_new (guint32, total ? total : 1);
    r->prank = g_new0 (guint32, total ? total : 1);
    guint32 *count = g_new0 (guint32, nn ? nn : 1);
    for (guint v = 0; v < nn; v++) {
        WeftNode *n = node_at (g, v);
        guint32 off = r->port_off[v];
        for (guint p = 0; p < n->ports->len; p++) {
            guint32 u;
            if (!weft_graph_peer (g, v, p, &u, NULL))
                u = WEFT_GRAPH_NONE;
            r->peer[off + p] = u;
            if (u != WEFT_GRAPH_NONE)
                r->prank[off + p] = count[u]++;
        }
        for (guint p = 0; p < n->ports->len; p++)
            if (r->peer[off + p] != WEFT_GRAPH_NONE)
                count[r->peer[off + p]] = 0;
    }
    g_free (count);
}

/* D-mod-k divisors: a tier-t switch divides the destination key by the product of the number
 * of distinct upward neighbours of the tiers below it (classic D-mod-k on a fat tree). */
static void
compute_divisors (const WeftGraph *g, Routes *r)
{
    guint nn = g->nodes->len;
    guint32 div_of_tier[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
    for (gint32 t = 1; t < 7; t++) {
        guint32 up = 0;
        for (guint v = 0; v < nn && up == 0; v++) {
            WeftNode *n = node_at (g, v);
            if (n->kind != WEFT_NODE_SWITCH || n->tier != t)
                continue;
            /* distinct neighbours one tier up */
            guint32 off = r->port_off[v], np = n_ports_of (r, v);
            for (guint32 p = 0; p < np; p++) {
                guint32 u = r->peer[off + p];
                if (u != WEFT_GRAPH_NONE && node_at (g, u)->kind == WEFT_NODE_SWITCH &&
                    node_at (g, u)->tier == t + 1 && r->prank[off + p] == 0)
                    up++;
            }
        }
        div_of_tier[t + 1] = div_of_tier[t] * (up ? up : 1);
    }
    r->div = g_new (guint32, nn ? nn : 1);
    for (guint v = 0; v < nn; v++) {
        WeftNode *n = node_at (g, v);
        r->div[v] =
            (n->kind == WEFT_NODE_SWITCH && n->tier > 0 && n->tier < 8) ? div_of_tier[n->tier] : 1;
    }
}

/* The single fabric-region forwarding node every port of @v leads to, or NONE. */
static guint32
single_attachment (const WeftGraph *g, const Routes *r, guint32 v)
{
    guint32 off = r->port_off[v], np = n_ports_of (r, v), x = WEFT_GRAPH_NONE;
    for (guint32 p = 0; p < np; p++) {
        guint32 u = r->peer[off + p];
        if (u == WEFT_GRAPH_NONE)
            continue;
        if (node_at (g, u)->server >= 0) {
            if (node_at (g, v)->server >= 0)
                continue; /* the NIC's own server side */
            return WEFT_GRAPH_NONE;
        }
        if (x != WEFT_GRAPH_NONE && u != x)
            return WEFT_GRAPH_NONE;
        x = u;
    }
    if (x == WEFT_GRAPH_NONE || !node_at (g, x)->forwards)
        return WEFT_GRAPH_NONE;
    return x;
}

static gboolean
is_fabric_attached (const WeftGraph *g, const Routes *r, guint32 v)
{
    if (node_at (g, v)->server < 0)
        return FALSE;
    guint32 off = r->port_off[v], np = n_ports_of (r, v);
    for (guint32 p = 0; p < np; p++) {
        guint32 u = r->peer[off + p];
        if (u != WEFT_GRAPH_NONE && node_at (g, u)->server < 0)
            return TRUE;
    }
    return FALSE;
}

/* Groups the columns by attachment point, keeping column order inside a group: key[i] is column
 * i's attachment point (or its own node), order lists the columns group by group. */
static void
group_columns (const WeftGraph *g, const Routes *r, GArray *cols, guint32 *key, guint32 *order)
{
    guint nn = g->nodes->len;
    for (guint i = 0; i < cols->len; i++) {
        guint32 cnode = g_array_index (cols, guint32, i);
        guint32 x = single_attachment (g, r, cnode);
        key[i] = x != WEFT_GRAPH_NONE ? x : cnode;
    }
    /* counting sort by key */
    guint32 *cnt = g_new0 (guint32, nn + 1);
    for (guint i = 0; i < cols->len; i++)
        cnt[key[i] + 1]++;
    for (guint v = 0; v < nn; v++)
        cnt[v + 1] += cnt[v];
    for (guint i = 0; i < cols->len; i++)
        order[cnt[key[i]]++] = i;
    g_free (cnt);
}

/* BFS over the fabric from a multi-homed server node @x: its fabric neighbours at distance 1,
 * then onward through forwarding fabric nodes. */
static void
bfs_from_server_node (Ctx *c, guint32 x)
{
    const WeftGraph *g = c->g;
    const Routes *r = c->r;
    bfs_reset (c);
    c->dist[x] = 0;
    c->queue[c->n_queue++] = x;
    guint32 off = r->port_off[x], np = n_ports_of (r, x);
    for (guint32 p = 0; p < np; p++) {
        guint32 u = r->peer[off + p];
        if (u != WEFT_GRAPH_NONE && node_at (g, u)->server < 0 && c->dist[u] == WEFT_GRAPH_NONE) {
            c->dist[u] = 1;
            c->queue[c->n_queue++] = u;
        }
    }
    /* continue the search from the first hops */
    for (guint32 head = 1; head < c->n_queue; head++) {
        guint32 v = c->queue[head];
        if (!node_at (g, v)->forwards)
            continue;
        guint32 o2 = r->port_off[v], np2 = n_ports_of (r, v);
        for (guint32 p = 0; p < np2; p++) {
            guint32 u = r->peer[o2 + p];
            if (u == WEFT_GRAPH_NONE || c->dist[u] != WEFT_GRAPH_NONE ||
                node_at (g, u)->server >= 0)
                continue;
            c->dist[u] = c->dist[v] + 1;
            c->queue[c->n_queue++] = u;
        }
    }
}

/* Fills the fabric table: one search per attachment point, whose sets serve every column
 * hanging off it. */
static void
compute_fabric (Ctx *c, GArray *cols)
{
    const WeftGraph *g = c->g;
    Routes *r = c->r;
    guint nn = g->nodes->len;
    Table *t = &r->fabric;
    t->n_cols = cols->len;
    t->cells = g_new0 (guint32, (gsize) t->n_rows * t->n_cols + 1);

    guint32 *key = g_new (guint32, cols->len + 1);
    guint32 *order = g_new (guint32, cols->len + 1);
    group_columns (g, r, cols, key, order);

    guint32 *rowset = g_new (guint32, t->n_rows + 1);
    guint32 *rownode = g_new (guint32, t->n_rows + 1);
    for (guint v = 0; v < nn; v++)
        if (r->row[v] != WEFT_GRAPH_NONE && node_at (g, v)->server < 0)
            rownode[r->row[v]] = v;

    for (guint i = 0; i < cols->len;) {
        guint32 x = key[order[i]];
        if (node_at (g, x)->server < 0)
            bfs (c, &x, 1, -1);
        else
            bfs_from_server_node (c, x); /* a multi-homed server node: search the fabric from it */
        for (guint32 row = 0; row < t->n_rows; row++)
            rowset[row] = set_from_dist (c, rownode[row]);
        for (; i < cols->len && key[order[i]] == x; i++) {
            guint32 ci = order[i];
            guint32 cnode = g_array_index (cols, guint32, ci);
            for (guint32 row = 0; row < t->n_rows; row++)
                t->cells[(gsize) row * t->n_cols + ci] = rowset[row];
            if (x != cnode)
                t->cells[(gsize) r->row[x] * t->n_cols + ci] = set_of_ports_to (c, x, cnode);
            if (node_at (g, cnode)->server < 0 && r->row[cnode] != WEFT_GRAPH_NONE)
                t->cells[(gsize) r->row[cnode] * t->n_cols + ci] = 0;
        }
    }
    g_free (rowset);
    g_free (rownode);
    g_free (key);
    g_free (order);
}

static void
compute_server (Ctx *c, gint32 s, const guint32 *members, guint n_members)
{
    const WeftGraph *g = c->g;
    Routes *r = c->r;
    Table *t = &r->servers[s];
    guint32 n_cols = 0;
    for (guint i = 0; i < n_members; i++) {
        guint32 v = members[i];
        r->row[v] = i;
        if (node_at (g, v)->endpoint != WEFT_GRAPH_NONE)
            r->scol[v] = n_cols++;
    }
    t->n_rows = n_members;
    t->n_cols = n_cols + 1; /* the last column is "outside this server" */
    t->cells = g_new0 (guint32, (gsize) t->n_rows * t->n_cols);

    for (guint i = 0; i < n_members; i++) {
        guint32 dst = members[i];
        if (r->scol[dst] == WEFT_GRAPH_NONE)
            continue;
        guint32 *col = &t->cells[r->scol[dst]];
        /* GPU to GPU inside a server goes over NVLink whenever NVLink reaches: a PCIe path
         * of as many hops (two GPUs under one PCIe switch) is no alternative, as in
         * hardware, where peer-to-peer copies take NVLink.  Nodes NVLink does not reach
         * (PCIe switches, NICs, the CPU) take the shortest path of any links. */
        if (node_at (g, dst)->kind == WEFT_NODE_GPU) {
            c->only_kind = WEFT_LINK_NVLINK;
            bfs (c, &dst, 1, s);
            for (guint j = 0; j < n_members; j++)
                col[(gsize) j * t->n_cols] = set_from_dist (c, members[j]);
            c->only_kind = -1;
        }
        bfs (c, &dst, 1, s);
        for (guint j = 0; j < n_members; j++)
            if (col[(gsize) j * t->n_cols] == 0)
                col[(gsize) j * t->n_cols] = set_from_dist (c, members[j]);
    }

    /* outside: toward the nearest fabric-attached node; gateways: the nearest one too */
    guint32 *att = g_new (guint32, n_members + 1);
    guint n_att = 0;
    for (guint i = 0; i < n_members; i++)
        if (is_fabric_attached (g, r, members[i]))
            att[n_att++] = members[i];
    if (n_att > 0) {
        bfs (c, att, n_att, s);
        for (guint j = 0; j < n_members; j++)
            t->cells[(gsize) j * t->n_cols + n_cols] = set_from_dist (c, members[j]);
    }
    guint32 *best = g_new (guint32, n_members + 1);
    for (guint j = 0; j < n_members; j++)
        best[j] = WEFT_GRAPH_NONE;
    for (guint a = 0; a < n_att; a++) {
        bfs (c, &att[a], 1, s);
        for (guint j = 0; j < n_members; j++) {
            guint32 d = c->dist[members[j]];
            if (d != WEFT_GRAPH_NONE && d < best[j]) {
                best[j] = d;
                r->gw[members[j]] = att[a];
            }
        }
    }
    g_free (best);
    g_free (att);
}

/* A new Routes with its adjacency, divisors and per-node arrays; numbers the fabric rows (the
 * fabric region's forwarding nodes) and returns the highest server id in *max_server. */
static Routes *
routes_new (const WeftGraph *g, gint32 *max_server_out)
{
    guint nn = g->nodes->len;
    Routes *r = g_new0 (Routes, 1);
    r->set_off = g_array_new (FALSE, FALSE, sizeof (guint32));
    r->set_data = g_array_new (FALSE, FALSE, sizeof (guint32));
    guint32 zero = 0;
    g_array_append_val (r->set_data, zero); /* set 0: empty */
    g_array_append_val (r->set_off, zero);
    build_adjacency (g, r);
    compute_divisors (g, r);

    r->row = g_new (guint32, nn + 1);
    r->col = g_new (guint32, nn + 1);
    r->scol = g_new (guint32, nn + 1);
    r->gw = g_new (guint32, nn + 1);
    r->fports = g_new0 (guint32, nn + 1);
    gint32 max_server = -1;
    guint32 n_fabric = 0;
    for (guint v = 0; v < nn; v++) {
        WeftNode *n = node_at (g, v);
        r->col[v] = r->scol[v] = WEFT_GRAPH_NONE;
        r->row[v] = n->server < 0 && n->forwards ? n_fabric++ : WEFT_GRAPH_NONE;
        r->gw[v] = n->server < 0 ? v : WEFT_GRAPH_NONE;
        max_server = MAX (max_server, n->server);
    }
    r->fabric.n_rows = n_fabric;
    *max_server_out = max_server;
    return r;
}

/* The search state: distances (all unvisited), the queue and a port buffer as long as the
 * largest node's ports. */
static void
ctx_init (Ctx *c, const WeftGraph *g, Routes *r)
{
    guint nn = g->nodes->len;
    *c = (Ctx){ .g = g, .r = r, .only_kind = -1 };
    c->dist = g_new (guint32, nn + 1);
    memset (c->dist, 0xff, sizeof (guint32) * (nn + 1));
    c->queue = g_new (guint32, nn + 1);
    guint32 max_ports = 1;
    for (guint v = 0; v < nn; v++)
        max_ports = MAX (max_ports, n_ports_of (r, v));
    c->buf = g_new (guint32, max_ports);
}

/* Numbers the fabric table's columns in r->col (and keeps the fabric ports of those without a
 * row in r->fports); returns the column nodes in column order.  (transfer full) */
static GArray *
fabric_columns (Ctx *c)
{
    const WeftGraph *g = c->g;
    Routes *r = c->r;
    guint nn = g->nodes->len;
    /* Fabric columns, leaf-major: the endpoints and fabric-attached nodes hanging off each
     * fabric-region forwarding node in node order and port order, then any others. */
    GArray *cols = g_array_new (FALSE, FALSE, sizeof (guint32));
    guint8 *cand = g_new0 (guint8, nn + 1);
    for (guint v = 0; v < nn; v++) {
        WeftNode *n = node_at (g, v);
        if (n->server < 0 ? n->endpoint != WEFT_GRAPH_NONE : is_fabric_attached (g, r, v))
            cand[v] = 1;
        if (cand[v] && r->row[v] == WEFT_GRAPH_NONE)
            r->fports[v] = set_of_ports_to (c, v, WEFT_GRAPH_NONE);
    }
    for (guint v = 0; v < nn; v++) {
        WeftNode *n = node_at (g, v);
        if (n->server >= 0 || !n->forwards)
            continue;
        guint32 off = r->port_off[v], np = n_ports_of (r, v);
        for (guint32 p = 0; p < np; p++) {
            guint32 u = r->peer[off + p];
            if (u != WEFT_GRAPH_NONE && cand[u] && r->col[u] == WEFT_GRAPH_NONE) {
                r->col[u] = cols->len;
                g_array_append_val (cols, u);
            }
        }
    }
    for (guint v = 0; v < nn; v++)
        if (cand[v] && r->col[v] == WEFT_GRAPH_NONE) {
            r->col[v] = cols->len;
            g_array_append_val (cols, v);
        }
    g_free (cand);
    return cols;
}

/* Fills one table per server (servers 0 .. @max_server), each from its members in node order. */
static void
compute_servers (Ctx *c, gint32 max_server)
{
    const WeftGraph *g = c->g;
    Routes *r = c->r;
    guint nn = g->nodes->len;
    r->n_servers = max_server + 1;
    r->servers = g_new0 (Table, r->n_servers + 1);
    if (r->n_servers > 0) {
        guint32 *start = g_new0 (guint32, r->n_servers + 1);
        for (guint v = 0; v < nn; v++)
            if (node_at (g, v)->server >= 0)
                start[node_at (g, v)->server + 1]++;
        for (guint s = 0; s < r->n_servers; s++)
            start[s + 1] += start[s];
        guint32 *members = g_new (guint32, start[r->n_servers] + 1);
        guint32 *fill = g_new (guint32, r->n_servers + 1);
        memcpy (fill, start, sizeof (guint32) * (r->n_servers + 1));
        for (guint v = 0; v < nn; v++)
            if (node_at (g, v)->server >= 0)
                members[fill[node_at (g, v)->server]++] = v;
        for (guint s = 0; s < r->n_servers; s++)
            compute_server (c, s, members + start[s], start[s + 1] - start[s]);
        g_free (fill);
        g_free (members);
        g_free (start);
    }
}

void
weft_graph_routes_compute (WeftGraph *g)
{
    g_return_if_fail (g != NULL);
    weft_graph_routes_free (g->routes);
    g->routes = NULL;
    gint32 max_server;
    Routes *r = routes_new (g, &max_server);
    Ctx c;
    ctx_init (&c, g, r);

    GArray *cols = fabric_columns (&c);
    compute_fabric (&c, cols);
    g_array_unref (cols);

    compute_servers (&c, max_server);

    g_free (c.dist);
    g_free (c.queue);
    g_free (c.buf);
    g->routes = r;
    g_debug ("routes: %u fabric rows x %u columns, %u servers, %u distinct port sets",
             r->fabric.n_rows, r->fabric.n_cols, r->n_servers, r->set_off->len);
}

/* ---- lookups ------------------------------------------------------------------------- */

typedef struct {
    guint32 set;
    Table *table; /* NULL when the cell is structural (a NIC's fabric ports) */
    gsize cell;
    guint32 key; /* D-mod-k destination key */
    guint32 div;
} Cell;

static gboolean
find_cell (const WeftGraph *g, guint32 node, guint32 dst_ep, Cell *out)
{
    Routes *r = g->routes;
    out->set = 0;
    out->table = NULL;
    out->cell = 0;
    out->key = dst_ep;
    out->div = 1;
    guint32 dn = g_array_index (g->endpoints, guint32, dst_ep);
    if (dn == node)
        return FALSE;
    gint32 sv = node_at (g, node)->server, sd = node_at (g, dn)->server;
    guint32 target = sd < 0 ? dn : r->gw[dn];
    if (sv >= 0 && sv == sd) {
        Table *t = &r->servers[sv];
        out->table = t;
        out->cell = (gsize) r->row[node] * t->n_cols + r->scol[dn];
        out->set = t->cells[out->cell];
        return TRUE;
    }
    if (target == WEFT_GRAPH_NONE || r->col[target] == WEFT_GRAPH_NONE)
        return FALSE;
    out->key = r->col[target];
    if (sv < 0 && r->row[node] != WEFT_GRAPH_NONE) {
        Table *t = &r->fabric;
        out->table = t;
        out->cell = (gsize) r->row[node] * t->n_cols + r->col[target];
        out->set = t->cells[out->cell];
        out->div = r->div[node];
        return TRUE;
    }
    if (r->col[node] != WEFT_GRAPH_NONE) {
        /* a fabric-attached server node (a NIC) leaving its server, or a host */
        if (node == target)
            return FALSE;
        out->set = r->fports[node];
        return TRUE;
    }
    if (sv < 0)
        return FALSE;
    Table *t = &r->servers[sv];
    out->table = t;
    out->cell = (gsize) r->row[node] * t->n_cols + (t->n_cols - 1);
    out->set = t->cells[out->cell];
    return TRUE;
}

const guint32 *
weft_graph_route_set (const WeftGraph *g, guint32 node, guint32 dst_ep, guint *n_out)
{
    static const guint32 empty[1] = { 0 };
    g_return_val_if_fail (n_out != NULL, NULL);
    *n_out = 0;
    g_return_val_if_fail (g != NULL && g->routes != NULL, empty);
    g_return_val_if_fail (node < g->nodes->len && dst_ep < g->endpoints->len, empty);
    Cell c;
    if (!find_cell (g, node, dst_ep, &c) || c.set == 0)
        return empty;
    return set_get (g->routes, c.set, n_out);
}

guint32
weft_graph_route_static (const WeftGraph *g, guint32 node, guint32 dst_ep)
{
    g_return_val_if_fail (g != NULL && g->routes != NULL, WEFT_GRAPH_NONE);
    g_return_val_if_fail (node < g->nodes->len && dst_ep < g->endpoints->len, WEFT_GRAPH_NONE);
    Cell c;
    if (!find_cell (g, node, dst_ep, &c))
        return WEFT_GRAPH_NONE;
    if (c.table != NULL && c.table->over != NULL && c.table->over[c.cell] != NO_OVERRIDE)
        return c.table->over[c.cell];
    if (c.table == NULL && g->routes->extra_over != NULL) {
        gpointer v = g_hash_table_lookup (g->routes->extra_over,
                                          GSIZE_TO_POINTER (((gsize) node << 32) | dst_ep));
        if (v)
            return GPOINTER_TO_UINT (v) - 1;
    }
    if (c.set == 0)
        return WEFT_GRAPH_NONE;
    guint n;
    const guint32 *p = set_get (g->routes, c.set, &n);
    return p[(c.key / c.div) % n];
}

void
weft_graph_route_set_static (WeftGraph *g, guint32 node, guint32 dst_ep, guint32 port)
{
    g_return_if_fail (g != NULL && g->routes != NULL);
    g_return_if_fail (node < g->nodes->len && dst_ep < g->endpoints->len);
    g_return_if_fail (port < node_at (g, node)->ports->len && port < NO_OVERRIDE);
    Cell c;
    if (!find_cell (g, node, dst_ep, &c))
        return;
    if (c.table != NULL) {
        if (c.table->over == NULL) {
            gsize n = (gsize) c.table->n_rows * c.table->n_cols;
            c.table->over = g_new (guint16, n + 1);
            memset (c.table->over, 0xff, sizeof (guint16) * (n + 1));
        }
        c.table->over[c.cell] = (guint16) port;
        return;
    }
    Routes *r = g->routes;
    if (r->extra_over == NULL)
        r->extra_over = g_hash_table_new (g_direct_hash, g_direct_equal);
    g_hash_table_insert (r->extra_over, GSIZE_TO_POINTER (((gsize) node << 32) | dst_ep),
                         GUINT_TO_POINTER (port + 1));
}

gboolean
weft_graph_routes_ready (const WeftGraph *g)
{
    return g != NULL && g->routes != NULL;
}

guint
weft_graph_route_path (const WeftGraph *g, guint32 src, guint32 dst, GArray *nodes_out)
{
    g_return_val_if_fail (g != NULL && g->routes != NULL, G_MAXUINT);
    g_return_val_if_fail (src < g->nodes->len && dst < g->nodes->len, G_MAXUINT);
    guint32 ep = node_at (g, dst)->endpoint;
    g_return_val_if_fail (ep != WEFT_GRAPH_NONE, G_MAXUINT);
    if (nodes_out)
        g_array_append_val (nodes_out, src);
    guint hops = 0;
    for (guint32 cur = src; cur != dst;) {
        guint32 port = weft_graph_route_static (g, cur, ep);
        if (port == WEFT_GRAPH_NONE || hops > g->nodes->len)
            return G_MAXUINT; /* unreachable, or a loop (only a forwarding-table file makes one) */
        if (!weft_graph_peer (g, cur, port, &cur, NULL))
            return G_MAXUINT;
        hops++;
        if (nodes_out)
            g_array_append_val (nodes_out, cur);
    }
    return hops;
}

guint
weft_graph_route_hops (const WeftGraph *g, guint32 src, guint32 dst)
{
    return weft_graph_route_path (g, src, dst, NULL);
}

gsize
weft_graph_routes_bytes (const WeftGraph *g)
{
    g_return_val_if_fail (g != NULL, 0);
    Routes *r = g->routes;
    if (r == NULL)
        return 0;
    gsize b = (gsize) r->fabric.n_rows * r->fabric.n_cols * 4;
    if (r->fabric.over)
        b += (gsize) r->fabric.n_rows * r->fabric.n_cols * 2;
    for (guint i = 0; i < r->n_servers; i++)
        b += (gsize) r->servers[i].n_rows * r->servers[i].n_cols * (r->servers[i].over ? 6 : 4);
    b += r->set_data->len * 4 + r->set_off->len * 4 + r->ht_cap * 4;
    guint nn = g->nodes->len;
    b += (gsize) nn * 4 * 7 + (gsize) r->port_off[nn] * 8;
    return b;
}
