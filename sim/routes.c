/* sim/routes.c - the fabric graph's route tables.
 *
 * Routes are hierarchical (see sim/graph.h, "Route tables"): one table for the fabric region
 * (nodes with server < 0), and one small table per server.  The fabric table's columns are
 * destination groups, not destinations: the endpoints and NICs hanging off one forwarding node
 * (the hosts under a leaf, the NICs on a rail leaf) have the same equal-cost sets everywhere
 * but at that node, so a cell holds the set per (row, group), and the attachment node's last
 * hop toward each of them is a set per destination.  A k = 128 fat tree (20,480 switches,
 * 8,192 leaves, 524,288 hosts) thus needs 20,480 x 8,192 cells, not 20,480 x 524,288.
 *
 * Filling it searches the fabric once per group: 64 groups at a time, a bit per group in one
 * 64-bit word per switch, level by level; a port's word collects the groups for which it leads
 * one hop closer.  A switch's ports then split the batch's groups into classes with the same
 * set, and each class costs one pass over the switch's ports.  The sets are those of a
 * breadth-first search per group, port for port and in the same order (tests/check_routes.c
 * compares them with a plain search).
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
    g_free (r->fabric.group);
    g_free (r->fabric.last);
    g_free (r->fabric.grow);
    g_free (r->fabric.over.keys);
    g_free (r->fabric.over.ports);
    g_free (r->fabric.over.dense);
    g_free (r->ep_group);
    g_free (r->ep_last);
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

/* ---- static overrides of fabric cells ---------------------------------------------------- */

/* The slot of @key (a cell + 1) in the hash: where it is, or the empty slot it would take. */
static gsize
over_slot (const Overrides *o, guint64 key)
{
    gsize mask = o->cap - 1;
    gsize i = (gsize) ((key * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15)) >> 29) & mask;
    while (o->keys[i] != 0 && o->keys[i] != key)
        i = (i + 1) & mask;
    return i;
}

static guint16
over_get (const Overrides *o, guint64 cell)
{
    if (o->dense)
        return o->dense[cell];
    if (o->used == 0)
        return NO_OVERRIDE;
    gsize i = over_slot (o, cell + 1);
    return o->keys[i] ? o->ports[i] : NO_OVERRIDE;
}

/* A hash slot costs 10 bytes at most half full, so 20 to 40 bytes an override; the dense
 * array 2 bytes a cell.  Past one override in ten cells the array is the smaller. */
static void
over_put (Overrides *o, guint64 cell, guint16 port)
{
    if (!o->dense && (o->used + 1) * 10 > o->n_cells) {
        o->dense = g_new (guint16, o->n_cells + 1);
        memset (o->dense, 0xff, sizeof (guint16) * (o->n_cells + 1));
        for (gsize i = 0; i < o->cap; i++)
            if (o->keys[i])
                o->dense[o->keys[i] - 1] = o->ports[i];
        g_clear_pointer (&o->keys, g_free);
        g_clear_pointer (&o->ports, g_free);
        o->cap = o->used = 0;
    }
    if (o->dense) {
        o->dense[cell] = port;
        return;
    }
    if ((o->used + 1) * 2 > o->cap) {
        Overrides old = *o;
        o->cap = old.cap ? old.cap * 2 : 64;
        o->keys = g_new0 (guint64, o->cap);
        o->ports = g_new (guint16, o->cap);
        for (gsize i = 0; i < old.cap; i++)
            if (old.keys[i]) {
                gsize j = over_slot (o, old.keys[i]);
                o->keys[j] = old.keys[i];
                o->ports[j] = old.ports[i];
            }
        g_free (old.keys);
        g_free (old.ports);
    }
    gsize i = over_slot (o, cell + 1);
    if (!o->keys[i]) {
        o->keys[i] = cell + 1;
        o->used++;
    }
    o->ports[i] = port;
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
            if (!weft_graph_peer (g, v, p, &u, NULL) ||
                weft_graph_link_removed (g, g_array_index (n->ports, guint32, p)))
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

/* Groups the columns by attachment point: a column hanging off a single forwarding fabric node
 * joins that node's group, any other (a multi-homed host or NIC) is a group of its own.  Groups
 * are numbered in the order of their attachment node's id.  Fills the fabric's group[] and
 * grow[] and returns the attachment node of every group.  (transfer full) */
static guint32 *
group_columns (const WeftGraph *g, Routes *r, GArray *cols)
{
    guint nn = g->nodes->len;
    Fabric *t = &r->fabric;
    guint32 *gid = g_new (guint32, nn + 1);
    memset (gid, 0xff, sizeof (guint32) * (nn + 1));
    t->group = g_new (guint32, cols->len + 1);
    for (guint i = 0; i < cols->len; i++) {
        guint32 cnode = g_array_index (cols, guint32, i);
        guint32 x = single_attachment (g, r, cnode);
        t->group[i] = x != WEFT_GRAPH_NONE ? x : cnode; /* a node id for now */
        gid[t->group[i]] = 0;
    }
    t->n_groups = 0;
    for (guint v = 0; v < nn; v++)
        if (gid[v] != WEFT_GRAPH_NONE)
            gid[v] = t->n_groups++;
    guint32 *src = g_new (guint32, t->n_groups + 1);
    t->grow = g_new (guint32, t->n_groups + 1);
    for (guint v = 0; v < nn; v++)
        if (gid[v] != WEFT_GRAPH_NONE) {
            src[gid[v]] = v;
            t->grow[gid[v]] = node_at (g, v)->server < 0 ? r->row[v] : WEFT_GRAPH_NONE;
        }
    for (guint i = 0; i < cols->len; i++)
        t->group[i] = gid[t->group[i]];
    g_free (gid);
    return src;
}

/* The search of one batch of up to 64 groups: bit b of a row's words stands for group g0 + b.
 * Only fabric rows (forwarding fabric nodes) are searched: nothing else carries transit
 * traffic, and a group's attachment node, when it is no row, starts the search. */
typedef struct {
    guint32 *rownode;    /* per row: its node */
    guint32 *sorted;     /* per row, its connected ports cable-major (sort_ports' order) ... */
    guint32 *sorted_off; /* ... from sorted[sorted_off[row]] to sorted[sorted_off[row + 1]] */
    guint32 *rev;        /* per (node, port) index: the index of the port at the other end */
    guint8 *cut;         /* per (node, port) index: its link is cut (NULL: none is) */
    guint64 *mask;       /* per (node, port) index: the batch's groups it leads one hop closer to */
    guint64 *vis, *front, *next; /* per row: groups reached, reached last level, reached now */
    guint32 *cur, *nxt;          /* the rows with a non-zero front, next */
} Batch;

static void
batch_init (Batch *b, const WeftGraph *g, const Routes *r)
{
    guint nn = g->nodes->len;
    guint32 n_rows = r->fabric.n_rows, total = r->port_off[nn];
    b->rownode = g_new (guint32, n_rows + 1);
    b->sorted_off = g_new (guint32, n_rows + 2);
    guint32 n_sorted = 0;
    for (guint v = 0; v < nn; v++)
        if (r->row[v] != WEFT_GRAPH_NONE) {
            b->rownode[r->row[v]] = v;
            n_sorted += n_ports_of (r, v);
        }
    b->sorted = g_new (guint32, n_sorted + 1);
    n_sorted = 0;
    for (guint32 ri = 0; ri < n_rows; ri++) {
        guint32 v = b->rownode[ri], off = r->port_off[v], np = n_ports_of (r, v);
        b->sorted_off[ri] = n_sorted;
        guint32 *s = b->sorted + n_sorted;
        guint n = 0;
        for (guint32 p = 0; p < np; p++)
            if (r->peer[off + p] != WEFT_GRAPH_NONE)
                s[n++] = p;
        sort_ports (r, v, s, n);
        n_sorted += n;
    }
    b->sorted_off[n_rows] = n_sorted;
    b->rev = g_new (guint32, total + 1);
    for (guint v = 0; v < nn; v++) {
        guint32 off = r->port_off[v], np = n_ports_of (r, v);
        for (guint32 p = 0; p < np; p++) {
            guint32 u, pu;
            b->rev[off + p] = weft_graph_peer (g, v, p, &u, &pu) ? r->port_off[u] + pu : 0;
        }
    }
    b->cut = NULL;
    if (g->cut) {
        b->cut = g_new0 (guint8, total + 1);
        for (guint v = 0; v < nn; v++)
            for (guint32 p = 0; p < n_ports_of (r, v); p++) {
                guint32 lid = g_array_index (node_at (g, v)->ports, guint32, p);
                b->cut[r->port_off[v] + p] = lid != WEFT_GRAPH_NONE && g->cut[lid];
            }
    }
    b->mask = g_new0 (guint64, total + 1);
    b->vis = g_new0 (guint64, n_rows + 1);
    b->front = g_new0 (guint64, n_rows + 1);
    b->next = g_new0 (guint64, n_rows + 1);
    b->cur = g_new (guint32, n_rows + 1);
    b->nxt = g_new (guint32, n_rows + 1);
}

static void
batch_clear (Batch *b)
{
    g_free (b->rownode);
    g_free (b->sorted);
    g_free (b->sorted_off);
    g_free (b->rev);
    g_free (b->cut);
    g_free (b->mask);
    g_free (b->vis);
    g_free (b->front);
    g_free (b->next);
    g_free (b->cur);
    g_free (b->nxt);
}

/* Row @j is reached through port index @pi (at @j's end) for the groups @bits. */
static inline void
reach (Batch *b, guint32 j, guint32 pi, guint64 bits, guint *n_nxt)
{
    if (!b->next[j])
        b->nxt[(*n_nxt)++] = j;
    b->next[j] |= bits;
    b->mask[pi] |= bits;
}

/* Breadth-first search from the attachment nodes of groups g0 .. g0 + nb - 1 at once, level by
 * level: a row first reached at level d + 1 from a row of level d gets the group's bit in the
 * mask of its port toward that row, which is then on a shortest path.  An attachment node
 * that is a row is level 0; one that is not (a multi-homed host or NIC) makes the rows it is
 * cabled to level 1 (as the search in sim/graph.h's policy: such a node is expanded, never
 * crossed). */
static void
search_batch (const Routes *r, Batch *b, const guint32 *src, guint32 g0, guint nb)
{
    guint n_cur = 0, n_nxt = 0;
    for (guint k = 0; k < nb; k++) {
        guint64 bit = G_GUINT64_CONSTANT (1) << k;
        guint32 x = src[g0 + k], xr = r->fabric.grow[g0 + k];
        if (xr != WEFT_GRAPH_NONE) {
            if (!b->front[xr])
                b->cur[n_cur++] = xr;
            b->front[xr] |= bit;
            b->vis[xr] |= bit;
            continue;
        }
        guint32 off = r->port_off[x], np = n_ports_of (r, x);
        for (guint32 q = 0; q < np; q++) {
            guint32 v = r->peer[off + q];
            if (v != WEFT_GRAPH_NONE && r->row[v] != WEFT_GRAPH_NONE &&
                !(b->cut && b->cut[off + q]))
                reach (b, r->row[v], b->rev[off + q], bit, &n_nxt);
        }
    }
    for (;;) {
        for (guint i = 0; i < n_cur; i++) {
            guint32 ri = b->cur[i], u = b->rownode[ri];
            guint64 f = b->front[ri];
            guint32 off = r->port_off[u], np = n_ports_of (r, u);
            for (guint32 q = 0; q < np; q++) {
                guint32 v = r->peer[off + q];
                if (v == WEFT_GRAPH_NONE || r->row[v] == WEFT_GRAPH_NONE ||
                    (b->cut && b->cut[off + q]))
                    continue;
                guint64 bits = f & ~b->vis[r->row[v]];
                if (bits)
                    reach (b, r->row[v], b->rev[off + q], bits, &n_nxt);
            }
        }
        for (guint i = 0; i < n_cur; i++)
            b->front[b->cur[i]] = 0;
        if (n_nxt == 0)
            break;
        for (guint i = 0; i < n_nxt; i++) {
            guint32 j = b->nxt[i];
            b->vis[j] |= b->next[j];
            b->front[j] = b->next[j];
            b->next[j] = 0;
        }
        guint32 *tmp = b->cur;
        b->cur = b->nxt;
        b->nxt = tmp;
        n_cur = n_nxt;
        n_nxt = 0;
    }
}

/* Writes the batch's cells: for each row, the groups whose port masks agree form a class with
 * one set, built once from the row's ports in cable-major order.  Clears the masks and the
 * reached words for the next batch. */
static void
fill_batch (Routes *r, Batch *b, guint32 g0, guint nb, guint32 *buf)
{
    Fabric *t = &r->fabric;
    guint64 full = nb == 64 ? G_MAXUINT64 : (G_GUINT64_CONSTANT (1) << nb) - 1;
    guint64 cls[64];
    for (guint32 ri = 0; ri < t->n_rows; ri++) {
        guint32 off = r->port_off[b->rownode[ri]];
        const guint32 *s = b->sorted + b->sorted_off[ri];
        guint32 ns = b->sorted_off[ri + 1] - b->sorted_off[ri];
        guint32 *cells = t->cells + (gsize) ri * t->n_groups + g0;
        guint n_cls = 1;
        cls[0] = full;
        for (guint32 i = 0; i < ns; i++) {
            guint64 m = b->mask[off + s[i]];
            if (m == 0 || m == full)
                continue;
            for (guint c = 0, n = n_cls; c < n; c++) {
                guint64 in = cls[c] & m;
                if (in && in != cls[c]) {
                    cls[n_cls++] = cls[c] & ~m;
                    cls[c] = in;
                }
            }
        }
        for (guint c = 0; c < n_cls; c++) {
            guint64 rep = cls[c] & (~cls[c] + 1);
            guint n = 0;
            for (guint32 i = 0; i < ns; i++)
                if (b->mask[off + s[i]] & rep)
                    buf[n++] = s[i];
            guint32 id = set_intern (r, buf, n);
            for (guint64 m = cls[c]; m; m &= m - 1)
                cells[__builtin_ctzll (m)] = id;
        }
        for (guint32 i = 0; i < ns; i++)
            b->mask[off + s[i]] = 0;
        b->vis[ri] = 0;
    }
}

/* The attachment rows' last hops: for each column hanging off a row, that row's ports to it
 * (but the cut ones), in port order (which is sort_ports' order for cables to one node).  One pass
 * over each attachment row's ports: a million hosts on one switch cost a million steps, not a
 * million scans of its ports. */
static void
fill_last_hops (const WeftGraph *g, Routes *r, const guint32 *src)
{
    Fabric *t = &r->fabric;
    guint32 *start = g_new0 (guint32, t->n_cols + 2);
    t->last = g_new0 (guint32, t->n_cols + 1);
    for (int pass = 0; pass < 2; pass++) {
        guint32 *ports = pass ? g_new (guint32, start[t->n_cols] + 1) : NULL;
        guint32 *fill = pass ? g_new (guint32, t->n_cols + 1) : NULL;
        if (pass)
            memcpy (fill, start, sizeof (guint32) * (t->n_cols + 1));
        for (guint32 gi = 0; gi < t->n_groups; gi++) {
            if (t->grow[gi] == WEFT_GRAPH_NONE)
                continue;
            guint32 x = src[gi], off = r->port_off[x], np = n_ports_of (r, x);
            for (guint32 p = 0; p < np; p++) {
                guint32 u = r->peer[off + p];
                if (u == WEFT_GRAPH_NONE || u == x || r->col[u] == WEFT_GRAPH_NONE ||
                    t->group[r->col[u]] != gi)
                    continue;
                if (weft_graph_link_cut (g, g_array_index (node_at (g, x)->ports, guint32, p)))
                    continue; /* the destination is unreachable through a cut cable */
                if (pass)
                    ports[fill[r->col[u]]++] = p;
                else
                    start[r->col[u] + 1]++;
            }
        }
        if (!pass) {
            for (guint32 ci = 0; ci < t->n_cols; ci++)
                start[ci + 1] += start[ci];
            continue;
        }
        for (guint32 ci = 0; ci < t->n_cols; ci++)
            t->last[ci] = set_intern (r, ports + start[ci], start[ci + 1] - start[ci]);
        g_free (ports);
        g_free (fill);
    }
    g_free (start);
}

/* Fills the fabric table: 64 groups per search. */
static void
compute_fabric (Ctx *c, GArray *cols)
{
    const WeftGraph *g = c->g;
    Routes *r = c->r;
    Fabric *t = &r->fabric;
    t->n_cols = cols->len;
    guint32 *src = group_columns (g, r, cols);
    t->cells = g_new0 (guint32, (gsize) t->n_rows * t->n_groups + 1);
    t->over.n_cells = (gsize) t->n_rows * t->n_cols;
    if (t->n_rows > 0) {
        Batch b;
        batch_init (&b, g, r);
        for (guint32 g0 = 0; g0 < t->n_groups; g0 += 64) {
            guint nb = MIN (64, t->n_groups - g0);
            search_batch (r, &b, src, g0, nb);
            fill_batch (r, &b, g0, nb, c->buf);
        }
        batch_clear (&b);
    }
    fill_last_hops (g, r, src);
    g_free (src);
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

/* The flat views' per-endpoint arrays: each endpoint's fabric column, resolved as find_cell
 * resolves it from a fabric node (its own node, or a server endpoint's gateway), gives its
 * group and its last hop's set. */
static void
compute_views (const WeftGraph *g, Routes *r)
{
    guint ne = g->endpoints->len;
    const Fabric *t = &r->fabric;
    r->ep_group = g_new (guint32, ne + 1);
    r->ep_last = g_new0 (guint32, ne + 1);
    for (guint e = 0; e < ne; e++) {
        guint32 dn = g_array_index (g->endpoints, guint32, e);
        guint32 target = node_at (g, dn)->server < 0 ? dn : r->gw[dn];
        guint32 col = target == WEFT_GRAPH_NONE ? WEFT_GRAPH_NONE : r->col[target];
        r->ep_group[e] = col == WEFT_GRAPH_NONE ? WEFT_GRAPH_NONE : t->group[col];
        r->ep_last[e] = col == WEFT_GRAPH_NONE ? 0 : t->last[col];
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
    compute_views (g, r);

    g_free (c.dist);
    g_free (c.queue);
    g_free (c.buf);
    g->routes = r;
    g->routes_gen++;
    g_debug ("routes: %u fabric rows x %u groups (%u destinations), %u servers, %u distinct "
             "port sets",
             r->fabric.n_rows, r->fabric.n_groups, r->fabric.n_cols, r->n_servers, r->set_off->len);
}

/* ---- lookups ------------------------------------------------------------------------- */

typedef enum { CELL_NONE, CELL_FABRIC, CELL_SERVER } CellKind;

typedef struct {
    guint32 set;
    CellKind kind; /* CELL_NONE when structural (a NIC's fabric ports) */
    Table *table;  /* CELL_SERVER: the server's table */
    guint64 cell;  /* CELL_FABRIC: row * n_cols + col; CELL_SERVER: index in the table */
    guint32 key;   /* D-mod-k destination key */
    guint32 div;
} Cell;

static gboolean
find_cell (const WeftGraph *g, guint32 node, guint32 dst_ep, Cell *out)
{
    Routes *r = g->routes;
    out->set = 0;
    out->kind = CELL_NONE;
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
        out->kind = CELL_SERVER;
        out->table = t;
        out->cell = (gsize) r->row[node] * t->n_cols + r->scol[dn];
        out->set = t->cells[out->cell];
        return TRUE;
    }
    if (target == WEFT_GRAPH_NONE || r->col[target] == WEFT_GRAPH_NONE)
        return FALSE;
    out->key = r->col[target];
    if (sv < 0 && r->row[node] != WEFT_GRAPH_NONE) {
        const Fabric *t = &r->fabric;
        guint32 row = r->row[node], col = r->col[target], grp = t->group[col];
        out->kind = CELL_FABRIC;
        out->cell = (guint64) row * t->n_cols + col;
        out->set = t->grow[grp] == row ? t->last[col] : t->cells[(gsize) row * t->n_groups + grp];
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
    out->kind = CELL_SERVER;
    out->table = t;
    out->cell = (gsize) r->row[node] * t->n_cols + (t->n_cols - 1);
    out->set = t->cells[out->cell];
    return TRUE;
}

void
weft_graph_route_view (const WeftGraph *g, guint32 node, WeftRouteView *view)
{
    g_return_if_fail (g != NULL && view != NULL);
    *view = (WeftRouteView){ .gen = g->routes_gen, .live_gen = &g->routes_gen };
    const Routes *r = g->routes;
    if (r == NULL || node >= g->nodes->len)
        return;
    const WeftNode *n = node_at (g, node);
    /* find_cell's fabric case: a fabric forwarding node that is not itself a destination (at a
     * destination's own node find_cell answers "no route" before looking at the table). */
    if (n->server >= 0 || r->row[node] == WEFT_GRAPH_NONE || n->endpoint != WEFT_GRAPH_NONE)
        return;
    const Fabric *t = &r->fabric;
    view->row = r->row[node];
    view->cells = t->cells + (gsize) view->row * t->n_groups;
    view->ep_group = r->ep_group;
    view->ep_last = r->ep_last;
    view->grow = t->grow;
    view->set_off = &g_array_index (r->set_off, guint32, 0);
    view->set_data = &g_array_index (r->set_data, guint32, 0);
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
    if (c.kind == CELL_FABRIC) {
        guint16 port = over_get (&g->routes->fabric.over, c.cell);
        if (port != NO_OVERRIDE)
            return port;
    }
    if (c.kind == CELL_SERVER && c.table->over != NULL && c.table->over[c.cell] != NO_OVERRIDE)
        return c.table->over[c.cell];
    if (c.kind == CELL_NONE && g->routes->extra_over != NULL) {
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
    g->routes_gen++; /* an answer changes: views and switches' remembered answers refill */
    Cell c;
    if (!find_cell (g, node, dst_ep, &c))
        return;
    if (c.kind == CELL_FABRIC) {
        over_put (&g->routes->fabric.over, c.cell, (guint16) port);
        return;
    }
    if (c.kind == CELL_SERVER) {
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

guint64
weft_graph_routes_generation (const WeftGraph *g)
{
    g_return_val_if_fail (g != NULL, 0);
    return g->routes_gen;
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
    const Fabric *t = &r->fabric;
    gsize b = (gsize) t->n_rows * t->n_groups * 4 + (gsize) t->n_cols * 8 + (gsize) t->n_groups * 4;
    b += t->over.dense ? t->over.n_cells * 2 : t->over.cap * 10;
    for (guint i = 0; i < r->n_servers; i++)
        b += (gsize) r->servers[i].n_rows * r->servers[i].n_cols * (r->servers[i].over ? 6 : 4);
    b += r->set_data->len * 4 + r->set_off->len * 4 + r->ht_cap * 4;
    guint nn = g->nodes->len;
    b += (gsize) nn * 4 * 7 + (gsize) r->port_off[nn] * 8;
    b += (gsize) g->endpoints->len * 8; /* the flat views' group and last hop per endpoint */
    return b;
}

/* ---- sizes, before building -------------------------------------------------------------- */

/* The fabric node every fabric port of @v leads to (the key of @v's group), or @v itself when
 * there is none or more than one: as single_attachment, from the graph alone. */
static guint32
group_key (const WeftGraph *g, guint32 v)
{
    const WeftNode *n = node_at (g, v);
    guint32 x = WEFT_GRAPH_NONE;
    for (guint p = 0; p < n->ports->len; p++) {
        guint32 u;
        if (!weft_graph_peer (g, v, p, &u, NULL))
            continue;
        if (node_at (g, u)->server >= 0) {
            if (n->server >= 0)
                continue;
            return v;
        }
        if (x != WEFT_GRAPH_NONE && u != x)
            return v;
        x = u;
    }
    return x != WEFT_GRAPH_NONE && node_at (g, x)->forwards ? x : v;
}

void
weft_graph_measure (const WeftGraph *g, WeftGraphSize *out)
{
    g_return_if_fail (g != NULL && out != NULL);
    *out = (WeftGraphSize){ .nodes = g->nodes->len,
                            .links = g->links->len,
                            .endpoints = g->endpoints->len };
    guint nn = g->nodes->len;
    guint8 *key = g_new0 (guint8, nn + 1);
    gint32 max_server = -1;
    for (guint v = 0; v < nn; v++) {
        const WeftNode *n = node_at (g, v);
        out->ports += n->ports->len;
        out->hosts += n->kind == WEFT_NODE_HOST;
        out->gpus += n->kind == WEFT_NODE_GPU;
        out->switches += n->server < 0 && n->forwards;
        max_server = MAX (max_server, n->server);
        gboolean dest = n->server < 0 ? n->endpoint != WEFT_GRAPH_NONE : FALSE;
        for (guint p = 0; n->server >= 0 && p < n->ports->len && !dest; p++) {
            guint32 u;
            dest = weft_graph_peer (g, v, p, &u, NULL) && node_at (g, u)->server < 0;
        }
        if (!dest)
            continue;
        out->destinations++;
        guint32 k = group_key (g, v);
        out->groups += !key[k];
        key[k] = 1;
    }
    g_free (key);
    /* a server's table: its nodes x (its endpoints + "outside") */
    guint64 *members = g_new0 (guint64, max_server + 2), *eps = g_new0 (guint64, max_server + 2);
    for (guint v = 0; v < nn; v++) {
        const WeftNode *n = node_at (g, v);
        if (n->server < 0)
            continue;
        members[n->server]++;
        eps[n->server] += n->endpoint != WEFT_GRAPH_NONE;
    }
    for (gint32 sv = 0; sv <= max_server; sv++)
        out->server_cells += members[sv] * (eps[sv] + 1);
    g_free (members);
    g_free (eps);
}

void
weft_graph_size_bytes (const WeftGraphSize *s, guint64 *graph_bytes, guint64 *routes_bytes)
{
    g_return_if_fail (s != NULL);
    /* The graph.  Per node: its WeftNode in an array that doubles as it grows (up to twice its
     * length), its name (~48 bytes with the allocator's overhead), its ports' GArray (~48 bytes
     * of header), its entry in the name table (~40 bytes), staging and free-port hints; per
     * port 4 bytes, doubled; per link its WeftLink, doubled; per endpoint 8 bytes. */
    guint64 graph = s->nodes * (2 * sizeof (WeftNode) + 48 + 48 + 40 + 16) + s->ports * 8 +
                    s->links * 2 * sizeof (WeftLink) + s->endpoints * 8;
    /* The route tables.  Per node: 9 arrays of 4 bytes (adjacency offsets, rows, columns,
     * gateways, divisors, NIC sets, and the search's distances and queue); per port: peer, rank,
     * the port at the other end and its 8-byte group mask, and the sorted port lists (at most a
     * port each); the fabric cells, 4 bytes per (switch, group); per destination its group, its
     * last hop and that last hop's interned set (~20 bytes); per group its attachment; per
     * switch its batch words and set classes (~64 bytes); the server tables; per endpoint the
     * flat views' group and last hop (8 bytes). */
    guint64 routes = s->nodes * 9 * 4 + s->ports * (4 + 4 + 4 + 8 + 4) +
                     s->switches * s->groups * 4 + s->destinations * 28 + s->groups * 8 +
                     s->switches * 64 + s->server_cells * 4 + s->endpoints * 8;
    if (graph_bytes)
        *graph_bytes = graph;
    if (routes_bytes)
        *routes_bytes = routes;
}
