/* workloads/collective.c - NCCL-style collectives expanded into transfers and dependency edges.
 *
 * A pure function of the spec: no events, no packets.  The construction (ring order, tree
 * shape, byte splits, dependencies) is documented in workloads/collective.h; the comments here
 * only say how the code follows it.
 */
#include "config.h"
#define G_LOG_DOMAIN "weft-collective"
#include "workloads/collective.h"

#include <string.h>

#include "sim/errors.h"

#define NONE G_MAXUINT32

/* What one logical transfer became: the transfer its predecessors gate (head) and the one whose
 * delivery means the data has arrived (tail).  Equal unless PXN split it in two; NONE when it
 * carried no bytes. */
typedef struct {
    guint32 head, tail;
} Emit;

static const Emit emit_none = { NONE, NONE };

typedef struct {
    const WeftCollSpec *spec;
    GArray *xfers, *deps;
    guint base;     /* xfers->len on entry: dependency indices are relative to it */
    guint32 *relay; /* PXN: GPU node id per (server, rail), NONE where there is none */
    gint32 relay_servers, relay_rails;
} Ctx;

static guint64
split (guint64 total, guint64 parts, guint64 i)
{
    return total / parts + (i < total % parts ? 1 : 0);
}

static guint64
n_slices (guint64 bytes, guint64 chunk_bytes)
{
    return bytes / chunk_bytes + (bytes % chunk_bytes ? 1 : 0);
}

static guint64
slice_bytes (guint64 bytes, guint64 chunk_bytes, guint64 j)
{
    return MIN (chunk_bytes, bytes - j * chunk_bytes);
}

static guint32
append_xfer (Ctx *x, guint32 src, guint32 dst, guint64 data, guint channel, weft_time_t delay)
{
    const WeftCollSpec *spec = x->spec;
    guint64 wire = data;
    if (spec->line_data > 0 && spec->line_bytes > 0)
        wire = (data + spec->line_data - 1) / spec->line_data * spec->line_bytes;
    WeftCollXfer t = { .src = src,
                       .dst = dst,
                       .bytes = wire,
                       .data_bytes = data,
                       .channel = channel,
                       .delay_ps = delay };
    g_array_append_val (x->xfers, t);
    return x->xfers->len - 1 - x->base;
}

/* The step latency of a hop from @src to @dst: inside one server, or across the network. */
static weft_time_t
hop_latency (const Ctx *x, guint32 src, guint32 dst)
{
    const WeftCollSpec *spec = x->spec;
    if (!spec->graph)
        return spec->net_step_latency_ps;
    const WeftNode *a = weft_graph_node (spec->graph, src);
    const WeftNode *b = weft_graph_node (spec->graph, dst);
    return a->server >= 0 && a->server == b->server ? spec->step_latency_ps
                                                    : spec->net_step_latency_ps;
}

static void
depend (Ctx *x, Emit before, Emit after)
{
    if (before.tail == NONE || after.head == NONE)
        return;
    WeftCollDep d = { .before = before.tail, .after = after.head };
    g_array_append_val (x->deps, d);
}

/* The rail a GPU reaches the network on: its gateway NIC's (sim/graph.h), which is the GPU's own
 * rail unless that NIC was removed from the server ([fault.NAME] kind = nic-removed); then the
 * nearest remaining NIC's. */
static gint32
net_rail (const WeftGraph *g, guint32 gpu)
{
    const WeftNode *n = weft_graph_node (g, gpu);
    guint32 gw = n->server >= 0 ? weft_graph_gateway (g, gpu) : NONE;
    if (gw == NONE || weft_graph_node (g, gw)->rail < 0)
        return n->rail;
    return weft_graph_node (g, gw)->rail;
}

/* PXN relay for src -> dst: the GPU of src's server on dst's rail, when the two are on
 * different servers and src reaches the network on another rail, and such a GPU exists; else
 * NONE. */
static guint32
pxn_relay (const Ctx *x, guint32 src, guint32 dst)
{
    if (!x->relay)
        return NONE;
    const WeftNode *a = weft_graph_node (x->spec->graph, src);
    const WeftNode *b = weft_graph_node (x->spec->graph, dst);
    if (a->server < 0 || b->server < 0 || a->server == b->server || a->rail < 0 || b->rail < 0 ||
        net_rail (x->spec->graph, src) == b->rail || a->server >= x->relay_servers ||
        b->rail >= x->relay_rails)
        return NONE;
    guint32 r = x->relay[(gsize) a->server * (gsize) x->relay_rails + (gsize) b->rail];
    return r == src ? NONE : r;
}

/* One logical transfer of @bytes of data, carrying its hop's step latency; PXN may split it
 * (the NVLink leg then carries the latency of the whole hop). */
static Emit
emit (Ctx *x, guint32 src, guint32 dst, guint64 bytes, guint channel)
{
    if (bytes == 0)
        return emit_none;
    weft_time_t delay = hop_latency (x, src, dst);
    guint32 relay = pxn_relay (x, src, dst);
    if (relay == NONE) {
        guint32 i = append_xfer (x, src, dst, bytes, channel, delay);
        return (Emit){ i, i };
    }
    Emit e;
    e.head = append_xfer (x, src, relay, bytes, channel, delay);
    e.tail = append_xfer (x, relay, dst, bytes, channel, 0);
    depend (x, (Emit){ e.head, e.head }, (Emit){ e.tail, e.tail });
    return e;
}

static void
build_relay (Ctx *x)
{
    const WeftGraph *g = x->spec->graph;
    guint nn = weft_graph_n_nodes (g);
    gint32 ms = -1, mr = -1;
    for (guint i = 0; i < nn; i++) {
        const WeftNode *n = weft_graph_node (g, i);
        if (n->kind == WEFT_NODE_GPU && n->server >= 0 && n->rail >= 0) {
            ms = MAX (ms, n->server);
            mr = MAX (mr, n->rail);
        }
    }
    if (ms < 0)
        return;
    x->relay_servers = ms + 1;
    x->relay_rails = mr + 1;
    gsize cells = (gsize) x->relay_servers * (gsize) x->relay_rails;
    x->relay = g_new (guint32, cells);
    memset (x->relay, 0xff, cells * sizeof *x->relay); /* NONE */
    for (guint i = 0; i < nn; i++) {
        const WeftNode *n = weft_graph_node (g, i);
        if (n->kind != WEFT_NODE_GPU || n->server < 0 || n->rail < 0)
            continue;
        guint32 *cell = &x->relay[(gsize) n->server * (gsize) x->relay_rails + (gsize) n->rail];
        if (*cell == NONE && net_rail (g, i) == n->rail)
            *cell = i; /* lowest node id on ties (two GPUs sharing a NIC) */
    }
    /* A rail whose NIC was removed from a server (nic-removed): PXN sends that rail's traffic
     * through the GPU beside the NIC that stands in for it (the gateway of that rail's GPUs),
     * so the channel shares that NIC - NVLink to that GPU, then its PCIe switch. */
    for (guint i = 0; i < nn; i++) {
        const WeftNode *n = weft_graph_node (g, i);
        if (n->kind != WEFT_NODE_GPU || n->server < 0 || n->rail < 0)
            continue;
        gint32 via = net_rail (g, i);
        if (via == n->rail || via < 0 || via > x->relay_rails - 1)
            continue;
        gsize row = (gsize) n->server * (gsize) x->relay_rails;
        x->relay[row + (gsize) n->rail] = x->relay[row + (gsize) via];
    }
}

/* ---- ring order --------------------------------------------------------------------------- */

typedef struct {
    guint32 id;
    gint32 rail;
} Member;

static int
cmp_member (const void *pa, const void *pb)
{
    const Member *a = pa, *b = pb;
    if (a->rail != b->rail)
        return a->rail < b->rail ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;
}

/* Groups: ranks of one server together (servers in order of their first rank in the caller's
 * list), each group sorted by (rail, node id); a rank outside any server is a group of its own.
 * Fills @members (n entries, group by group) and @group_start (n_groups + 1 offsets). */
static guint
ring_groups (const WeftCollSpec *spec, Member *members, guint *group_start)
{
    guint n = spec->n_ranks, n_groups = 0, filled = 0;
    gboolean *placed = g_new0 (gboolean, n);
    for (guint i = 0; i < n; i++) {
        if (placed[i])
            continue;
        const WeftNode *ni = spec->graph ? weft_graph_node (spec->graph, spec->ranks[i]) : NULL;
        gint32 server = ni ? ni->server : -1;
        group_start[n_groups++] = filled;
        for (guint k = i; k < n; k++) {
            const WeftNode *nk = spec->graph ? weft_graph_node (spec->graph, spec->ranks[k]) : NULL;
            if (placed[k] || (k != i && (server < 0 || !nk || nk->server != server)))
                continue;
            placed[k] = TRUE;
            members[filled++] = (Member){ spec->ranks[k], nk ? nk->rail : -1 };
            if (server < 0)
                break;
        }
        qsort (members + group_start[n_groups - 1], filled - group_start[n_groups - 1],
               sizeof *members, cmp_member);
    }
    group_start[n_groups] = filled;
    g_free (placed);
    return n_groups;
}

/* Channel @c's ring through every group, as NCCL's ring graphs go through a server: in at a
 * NIC, through every GPU of the server over NVLink, out at the same NIC (NCCL's search pattern
 * "NET n -> GPU a -> ... -> GPU x -> NET n", src/graph/search.cc).  A group's members are sorted
 * by rail, so its rails are runs; channel c uses rail run c mod R (R runs), so channels spread
 * over all the server's NICs.  Within that run the channel enters at member (c / R) mod k (k
 * GPUs share the NIC) and, when another GPU shares the NIC, leaves at the next one: both ends
 * sit on the NIC's PCIe switch and nothing crosses NVLink or another rail to reach the NIC.
 * With one GPU per NIC the ring leaves at the GPU before the entry one, whose traffic reaches
 * the entry GPU's NIC over NVLink (PXN), as in NCCL; that is a rotation of the group. */
static void
ring_for_channel (const Member *members, const guint *group_start, guint n_groups, guint c,
                  guint32 *ring)
{
    guint k = 0;
    for (guint gi = 0; gi < n_groups; gi++) {
        guint s = group_start[gi], len = group_start[gi + 1] - s;
        const Member *m = members + s;
        /* The rail runs: R of them, the one channel c uses starting at rs with rk members. */
        guint R = 0, rs = 0, rk = 0;
        for (guint i = 0; i < len; i++)
            R += i == 0 || m[i].rail != m[i - 1].rail;
        guint want = c % R;
        for (guint i = 0, run = 0; i < len; i++) {
            if (i > 0 && m[i].rail != m[i - 1].rail)
                run++;
            if (run == want) {
                rs = rk == 0 ? i : rs;
                rk++;
            }
        }
        if (rk < 2 || m[rs].rail < 0) {
            /* One GPU per NIC (or no rails): rotate the group to start at member c. */
            for (guint i = 0; i < len; i++)
                ring[k++] = m[(c % len + i) % len].id;
            continue;
        }
        guint j = (c / R) % rk;
        guint in = rs + j, out = rs + (j + 1) % rk;
        ring[k++] = m[in].id;
        /* The other rails' GPUs, from the next run on, then the entry run's other GPUs. */
        for (guint i = 0; i < len; i++) {
            guint q = (rs + rk + i) % len;
            if (q != in && q != out)
                ring[k++] = m[q].id;
        }
        ring[k++] = m[out].id;
    }
}

/* ---- ring algorithms ---------------------------------------------------------------------- */

/* The chunk position @p sends at step @s (an index into the chunk sizes), or -1 if it does not
 * send.  @start is the root's ring position (broadcast, reduce). */
static gint
ring_chunk (WeftCollOp op, guint n, guint start, guint s, guint p)
{
    switch (op) {
    case WEFT_COLL_ALL_REDUCE:
    case WEFT_COLL_ALL_GATHER:
        return (gint) ((p + 2 * n - s % n) % n); /* (p - s) mod n */
    case WEFT_COLL_REDUCE_SCATTER:
        return (gint) ((p + 2 * n - s % n - 1) % n); /* (p - s - 1) mod n */
    case WEFT_COLL_BROADCAST:
        return p == (start + s) % n ? 0 : -1;
    case WEFT_COLL_REDUCE:
        return p == (start + 1 + s) % n ? 0 : -1;
    default:
        g_assert_not_reached ();
    }
}

static void
expand_ring (Ctx *x, const Member *members, const guint *group_start, guint n_groups)
{
    const WeftCollSpec *spec = x->spec;
    guint n = spec->n_ranks, C = spec->channels;
    guint64 cb = spec->chunk_bytes;
    guint steps = spec->op == WEFT_COLL_ALL_REDUCE ? 2 * (n - 1) : n - 1;
    guint32 *ring = g_new (guint32, n);
    guint64 *chunk = g_new (guint64, n);

    for (guint c = 0; c < C; c++) {
        ring_for_channel (members, group_start, n_groups, c, ring);
        guint start = 0;
        guint n_chunks = n;
        switch (spec->op) {
        case WEFT_COLL_ALL_REDUCE: {
            guint64 part = split (spec->bytes, C, c);
            for (guint k = 0; k < n; k++)
                chunk[k] = split (part, n, k);
            break;
        }
        case WEFT_COLL_ALL_GATHER:
        case WEFT_COLL_REDUCE_SCATTER: {
            guint64 share = split (spec->bytes / n, C, c);
            for (guint k = 0; k < n; k++)
                chunk[k] = share;
            break;
        }
        default: /* broadcast, reduce: one chunk, the channel's part, along the chain */
            chunk[0] = split (spec->bytes, C, c);
            n_chunks = 1;
            for (guint p = 0; p < n; p++)
                if (ring[p] == spec->ranks[spec->root])
                    start = p;
            break;
        }
        guint64 max_slices = 0;
        for (guint k = 0; k < n_chunks; k++)
            max_slices = MAX (max_slices, n_slices (chunk[k], cb));
        if (max_slices == 0)
            continue;
        /* prev[p * max_slices + j]: slice j sent by position p at the previous step. */
        Emit *prev = g_new (Emit, (gsize) n * max_slices);
        Emit *cur = g_new (Emit, (gsize) n * max_slices);
        for (gsize i = 0; i < (gsize) n * max_slices; i++)
            prev[i] = emit_none;
        /* Broadcast and reduce have one sender per step (a chain): visit only it, so a
         * chain costs O(n) rather than O(n^2).  Rows of positions that do not send are never
         * read, since a sender's ring predecessor sent at the previous step. */
        gboolean chain = n_chunks == 1;
        for (guint s = 0; s < steps; s++) {
            guint p0 =
                chain ? (spec->op == WEFT_COLL_BROADCAST ? start + s : start + 1 + s) % n : 0;
            for (guint p = p0; p < (chain ? p0 + 1 : n); p++) {
                Emit *row = cur + (gsize) p * max_slices;
                const Emit *in = prev + (gsize) ((p + n - 1) % n) * max_slices;
                gint k = ring_chunk (spec->op, n, start, s, p);
                guint64 sz = k < 0 ? 0 : chunk[k], ns = n_slices (sz, cb);
                for (guint64 j = 0; j < max_slices; j++) {
                    row[j] = j < ns
                                 ? emit (x, ring[p], ring[(p + 1) % n], slice_bytes (sz, cb, j), c)
                                 : emit_none;
                    if (s > 0)
                        depend (x, in[j], row[j]);
                }
            }
            Emit *t = prev;
            prev = cur;
            cur = t;
        }
        g_free (prev);
        g_free (cur);
    }
    g_free (ring);
    g_free (chunk);
}

/* ---- NCCL's trees ------------------------------------------------------------------------- */

/* NCCL's binary tree over 0..n-1 (src/graph/trees.cc, ncclGetBtree): 0 is the root; p > 0 with
 * lowest set bit b hangs under (p - b) | 2b, or under p - b when that is out of range.  Every
 * position has at most two children (the root one). */
static guint
btree_parent (guint n, guint p)
{
    guint b = p & (~p + 1);
    guint up = (p ^ b) | (b << 1);
    return up >= n ? p ^ b : up;
}

/* Tree 1 of the double tree (ncclGetDtree) is tree 0 with positions mirrored (n even) or
 * shifted by one (n odd), so that tree 0's leaves are mostly tree 1's inner nodes. */
static guint
tree_map (guint n, guint t, guint p)
{
    if (t == 0)
        return p;
    return n % 2 == 0 ? n - 1 - p : (p + 1) % n;
}

static guint
tree_unmap (guint n, guint t, guint p)
{
    if (t == 0)
        return p;
    return n % 2 == 0 ? n - 1 - p : (p + n - 1) % n;
}

/* Node @v's parent in inter-node tree @t of @N nodes, NONE for the root; *@type is which child
 * of it @v is (NCCL's parentChildType: 0 when @v comes before its parent in the binary tree's
 * own numbering, 1 after). */
static guint
dtree_parent (guint N, guint t, guint v, guint *type)
{
    guint q = tree_unmap (N, t, v);
    if (q == 0)
        return NONE;
    guint up = btree_parent (N, q);
    *type = q < up ? 0 : 1;
    return tree_map (N, t, up);
}

void
weft_collective_tree_parents (const guint *group_start, guint n_groups, guint t, guint *parent)
{
    for (guint v = 0; v < n_groups; v++) {
        guint s = group_start[v], len = group_start[v + 1] - s, type = 0;
        for (guint i = 1; i < len; i++)
            parent[s + i] = s + i - 1; /* the chain: up toward the node's first GPU */
        guint u = dtree_parent (n_groups, t, v, &type);
        if (u == NONE) {
            parent[s] = NONE;
            continue;
        }
        /* NCCL's balanced pattern: a node's tree parent and its second child connect at its
         * first GPU, its first child at the second (the first again in a one-GPU node). */
        guint us = group_start[u], ulen = group_start[u + 1] - us;
        parent[s] = type == 0 && ulen > 1 ? us + 1 : us;
    }
}

/* Per channel c: the chain of every server is channel c's ring through it; the two trees of
 * NCCL's double tree carry half of the channel's part each, both on connection c. */
static void
expand_tree (Ctx *x, const Member *members, const guint *group_start, guint n_groups)
{
    const WeftCollSpec *spec = x->spec;
    guint n = spec->n_ranks, C = spec->channels;
    guint64 cb = spec->chunk_bytes;
    guint32 *ring = g_new (guint32, n);
    guint *parent = g_new (guint, n), *order = g_new (guint, n);
    guint *child = g_new (guint, 2 * (gsize) n), *n_child = g_new (guint, n);
    Emit *up = g_new (Emit, n), *down = g_new (Emit, n);

    for (guint c = 0; c < C; c++) {
        ring_for_channel (members, group_start, n_groups, c, ring);
        guint64 part = split (spec->bytes, C, c);
        for (guint t = 0; t < 2; t++) {
            guint64 data = split (part, 2, t), ns = n_slices (data, cb);
            if (ns == 0)
                continue;
            weft_collective_tree_parents (group_start, n_groups, t, parent);
            guint root = NONE;
            memset (n_child, 0, n * sizeof *n_child);
            for (guint p = 0; p < n; p++) {
                if (parent[p] == NONE) {
                    root = p;
                    continue;
                }
                g_assert (n_child[parent[p]] < 2);
                child[2 * parent[p] + n_child[parent[p]]++] = p;
            }
            /* Breadth-first order from the root: parents before children. */
            guint head = 0, tail = 0;
            order[tail++] = root;
            while (head < tail) {
                guint p = order[head++];
                for (guint i = 0; i < n_child[p]; i++)
                    order[tail++] = child[2 * p + i];
            }
            g_assert (tail == n);
            /* up[p]: slice sent by p to its parent; down[p]: slice received by p from its
             * parent. */
            for (guint64 j = 0; j < ns; j++) {
                guint64 sz = slice_bytes (data, cb, j);
                for (guint i = n; i-- > 0;) { /* reduce: children before parents */
                    guint p = order[i];
                    up[p] = emit_none;
                    if (p == root)
                        continue;
                    up[p] = emit (x, ring[p], ring[parent[p]], sz, c);
                    for (guint k = 0; k < n_child[p]; k++)
                        depend (x, up[child[2 * p + k]], up[p]);
                }
                for (guint i = 0; i < n; i++) { /* broadcast: parents before children */
                    guint p = order[i];
                    for (guint k = 0; k < n_child[p]; k++) {
                        guint ch = child[2 * p + k];
                        down[ch] = emit (x, ring[p], ring[ch], sz, c);
                        if (p == root)
                            for (guint m = 0; m < n_child[p]; m++)
                                depend (x, up[child[2 * p + m]], down[ch]);
                        else
                            depend (x, down[p], down[ch]);
                    }
                }
            }
        }
    }
    g_free (ring);
    g_free (parent);
    g_free (order);
    g_free (child);
    g_free (n_child);
    g_free (up);
    g_free (down);
}

/* ---- in-switch reduction: NVLS, NVLSTree and CollNetDirect --------------------------------- */

guint
weft_collective_nvls_switches (const WeftGraph *g, guint32 gpu, guint32 *out, guint max)
{
    const WeftNode *n = weft_graph_node (g, gpu);
    guint k = 0;
    for (guint p = 0; p < n->ports->len && k < max; p++) {
        guint32 peer, pp;
        if (!weft_graph_peer (g, gpu, p, &peer, &pp))
            continue;
        const WeftNode *m = weft_graph_node (g, peer);
        if (m->kind == WEFT_NODE_NVSWITCH && m->endpoint != WEFT_GRAPH_NONE)
            out[k++] = peer;
    }
    return k;
}

guint32
weft_collective_sharp_switch (const WeftGraph *g, guint32 node)
{
    guint32 gw = weft_graph_node (g, node)->server >= 0 ? weft_graph_gateway (g, node) : node;
    if (gw == WEFT_GRAPH_NONE)
        return WEFT_GRAPH_NONE;
    const WeftNode *n = weft_graph_node (g, gw);
    for (guint p = 0; p < n->ports->len; p++) {
        guint32 peer, pp;
        if (!weft_graph_peer (g, gw, p, &peer, &pp))
            continue;
        const WeftNode *m = weft_graph_node (g, peer);
        if (m->kind == WEFT_NODE_SWITCH && m->server < 0 && m->endpoint != WEFT_GRAPH_NONE)
            return peer;
    }
    return WEFT_GRAPH_NONE;
}

#define MAX_NVS 64

/* The root of a SHARP tree over @leaves: the lowest-id switch that is an endpoint and cabled to
 * every one of them; WEFT_GRAPH_NONE if there is none. */
static guint32
sharp_root (const WeftGraph *g, const guint32 *leaves, guint n_leaves)
{
    guint32 best = WEFT_GRAPH_NONE;
    const WeftNode *l0 = weft_graph_node (g, leaves[0]);
    for (guint p = 0; p < l0->ports->len; p++) {
        guint32 up, pp;
        if (!weft_graph_peer (g, leaves[0], p, &up, &pp) || up >= best)
            continue;
        const WeftNode *u = weft_graph_node (g, up);
        if (u->kind != WEFT_NODE_SWITCH || u->endpoint == WEFT_GRAPH_NONE)
            continue;
        guint hit = 0;
        for (guint k = 0; k < n_leaves; k++) {
            const WeftNode *l = weft_graph_node (g, leaves[k]);
            for (guint q = 0; q < l->ports->len; q++) {
                guint32 peer, pq;
                if (weft_graph_peer (g, leaves[k], q, &peer, &pq) && peer == up) {
                    hit++;
                    break;
                }
            }
        }
        if (hit == n_leaves)
            best = up;
    }
    return best;
}

/* NVLS: per channel and slice, each head's shard reduced in the switch and multicast from it
 * (workloads/collective.h). */
static void
expand_nvls (Ctx *x)
{
    const WeftCollSpec *spec = x->spec;
    guint n = spec->n_ranks, C = spec->channels;
    guint64 cb = spec->chunk_bytes;
    guint32 nvs[MAX_NVS];
    guint K = weft_collective_nvls_switches (spec->graph, spec->ranks[0], nvs, MAX_NVS);
    gboolean reduce = spec->op != WEFT_COLL_ALL_GATHER,
             mcast = spec->op != WEFT_COLL_REDUCE_SCATTER;
    guint64 *shard = g_new (guint64, n);
    Emit *in = g_new (Emit, n);
    for (guint c = 0; c < C; c++) {
        guint64 part = split (spec->bytes, C, c), max_slices = 0;
        for (guint h = 0; h < n; h++) {
            shard[h] = spec->op == WEFT_COLL_ALL_REDUCE ? split (part, n, h)
                                                        : split (spec->bytes / n, C, c);
            max_slices = MAX (max_slices, n_slices (shard[h], cb));
        }
        for (guint64 j = 0; j < max_slices; j++) {
            for (guint h = 0; h < n; h++) {
                if (j >= n_slices (shard[h], cb))
                    continue;
                guint64 sz = slice_bytes (shard[h], cb, j);
                guint32 sw = nvs[(h + j) % K], head = spec->ranks[h];
                Emit sum = emit_none;
                if (reduce) {
                    for (guint i = 0; i < n; i++)
                        in[i] = emit (x, spec->ranks[i], sw, sz, c);
                    sum = emit (x, sw, head, sz, c);
                    for (guint i = 0; i < n; i++)
                        depend (x, in[i], sum);
                }
                if (mcast) {
                    Emit st = emit (x, head, sw, sz, c + C);
                    depend (x, sum, st);
                    for (guint i = 0; i < n; i++)
                        depend (x, st, emit (x, sw, spec->ranks[i], sz, c + C));
                }
            }
        }
    }
    g_free (shard);
    g_free (in);
}

/* CollNetDirect: per channel, head and slice, a direct reduce-scatter to the head inside each
 * server, the heads' sums through the aggregation switches' tree, and a direct all-gather from
 * each head (workloads/collective.h). */
static void
expand_collnet (Ctx *x, const Member *members, const guint *group_start, guint n_groups)
{
    const WeftCollSpec *spec = x->spec;
    const WeftGraph *g = spec->graph;
    guint C = spec->channels, gsz = group_start[1] - group_start[0];
    guint64 cb = spec->chunk_bytes;
    /* Per head: the servers' leaf switches (distinct, in order of first use), which head goes
     * to which, and the root when the leaves differ. */
    guint32 *leaf_of = g_new (guint32, n_groups), *leaves = g_new (guint32, n_groups);
    guint *leaf_index = g_new (guint, n_groups);
    Emit *up = g_new (Emit, n_groups), *part_in = g_new (Emit, n_groups), *lin = g_new (Emit, gsz);
    Emit *leaf_sum = g_new (Emit, n_groups), *leaf_down = g_new (Emit, n_groups);
    for (guint h = 0; h < gsz; h++) {
        guint n_leaves = 0;
        for (guint s = 0; s < n_groups; s++) {
            leaf_of[s] = weft_collective_sharp_switch (g, members[group_start[s] + h].id);
            guint k = 0;
            while (k < n_leaves && leaves[k] != leaf_of[s])
                k++;
            if (k == n_leaves)
                leaves[n_leaves++] = leaf_of[s];
            leaf_index[s] = k;
        }
        guint32 root = n_leaves == 1 ? leaves[0] : sharp_root (g, leaves, n_leaves);
        for (guint c = 0; c < C; c++) {
            guint64 shard = split (split (spec->bytes, C, c), gsz, h), ns = n_slices (shard, cb);
            for (guint64 j = 0; j < ns; j++) {
                guint64 sz = slice_bytes (shard, cb, j);
                /* Up: each server's GPUs to head h, the head to its leaf. */
                for (guint s = 0; s < n_groups; s++) {
                    const Member *m = members + group_start[s];
                    for (guint i = 0; i < gsz; i++)
                        lin[i] = i == h ? emit_none : emit (x, m[i].id, m[h].id, sz, c);
                    up[s] = emit (x, m[h].id, leaf_of[s], sz, c);
                    for (guint i = 0; i < gsz; i++)
                        depend (x, lin[i], up[s]);
                }
                /* The switches: each leaf's partial sum to the root, the sum back down. */
                if (n_leaves > 1) {
                    for (guint k = 0; k < n_leaves; k++) {
                        part_in[k] = emit (x, leaves[k], root, sz, c);
                        for (guint s = 0; s < n_groups; s++)
                            if (leaf_index[s] == k)
                                depend (x, up[s], part_in[k]);
                    }
                    for (guint k = 0; k < n_leaves; k++) {
                        leaf_down[k] = emit (x, root, leaves[k], sz, c);
                        for (guint q = 0; q < n_leaves; q++)
                            depend (x, part_in[q], leaf_down[k]);
                    }
                }
                for (guint s = 0; s < n_groups; s++) {
                    const Member *m = members + group_start[s];
                    leaf_sum[s] = emit (x, leaf_of[s], m[h].id, sz, c);
                    if (n_leaves > 1)
                        depend (x, leaf_down[leaf_index[s]], leaf_sum[s]);
                    else
                        for (guint q = 0; q < n_groups; q++)
                            depend (x, up[q], leaf_sum[s]);
                    /* Down: the head to every other GPU of its server. */
                    for (guint i = 0; i < gsz; i++)
                        if (i != h)
                            depend (x, leaf_sum[s], emit (x, m[h].id, m[i].id, sz, c + C));
                }
            }
        }
    }
    g_free (leaf_of);
    g_free (leaves);
    g_free (leaf_index);
    g_free (up);
    g_free (part_in);
    g_free (lin);
    g_free (leaf_sum);
    g_free (leaf_down);
}

/* NVLSTree: per channel, head and slice, the server's NVLS reduction to its head h, the heads h
 * of all servers reducing up and broadcasting down NCCL's double tree (tree (c + j) mod 2 for
 * slice j), and each head's NVLS multicast of the result (workloads/collective.h). */
static void
expand_nvls_tree (Ctx *x, const Member *members, const guint *group_start, guint n_groups)
{
    const WeftCollSpec *spec = x->spec;
    guint C = spec->channels, N = n_groups, gsz = group_start[1] - group_start[0];
    guint64 cb = spec->chunk_bytes;
    guint32 *nvs = g_new (guint32, (gsize) N * MAX_NVS);
    guint *K = g_new (guint, N), *parent = g_new (guint, 2 * (gsize) N), *order = g_new (guint, N);
    guint *child = g_new (guint, 2 * (gsize) N), *n_child = g_new (guint, N);
    Emit *in = g_new (Emit, gsz), *sum = g_new (Emit, N), *up = g_new (Emit, N),
         *down = g_new (Emit, N);
    for (guint s = 0; s < N; s++)
        K[s] = weft_collective_nvls_switches (spec->graph, members[group_start[s]].id,
                                              nvs + (gsize) s * MAX_NVS, MAX_NVS);
    for (guint t = 0; t < 2; t++)
        for (guint s = 0; s < N; s++) {
            guint type;
            parent[t * N + s] = dtree_parent (N, t, s, &type);
        }
    for (guint c = 0; c < C; c++) {
        guint64 part = split (spec->bytes, C, c), max_slices = n_slices (split (part, gsz, 0), cb);
        /* Slice by slice, every head's in turn, as NVLS does: a connection's transfers run in
         * order, so each head's tree starts with its first slice. */
        for (guint64 j = 0; j < max_slices; j++) {
            for (guint h = 0; h < gsz; h++) {
                guint64 shard = split (part, gsz, h);
                if (j >= n_slices (shard, cb))
                    continue;
                guint64 sz = slice_bytes (shard, cb, j);
                const guint *par = parent + ((c + j) % 2) * N;
                /* The tree of nodes, parents before children. */
                guint root = 0;
                memset (n_child, 0, N * sizeof *n_child);
                for (guint s = 0; s < N; s++) {
                    if (par[s] == NONE)
                        root = s;
                    else
                        child[2 * par[s] + n_child[par[s]]++] = s;
                }
                guint head = 0, tail = 0;
                order[tail++] = root;
                while (head < tail) {
                    guint s = order[head++];
                    for (guint i = 0; i < n_child[s]; i++)
                        order[tail++] = child[2 * s + i];
                }
                g_assert (tail == N);
                /* In each server: every GPU's copy into the switch, the sum to head h. */
                for (guint s = 0; s < N; s++) {
                    const Member *m = members + group_start[s];
                    guint32 sw = nvs[(gsize) s * MAX_NVS + (h + j) % K[s]];
                    for (guint i = 0; i < gsz; i++)
                        in[i] = emit (x, m[i].id, sw, sz, c);
                    sum[s] = emit (x, sw, m[h].id, sz, c);
                    for (guint i = 0; i < gsz; i++)
                        depend (x, in[i], sum[s]);
                }
                /* Up the tree of heads h: children before parents. */
                for (guint i = N; i-- > 0;) {
                    guint s = order[i];
                    up[s] = emit_none;
                    if (s == root)
                        continue;
                    up[s] = emit (x, members[group_start[s] + h].id,
                                  members[group_start[par[s]] + h].id, sz, c);
                    depend (x, sum[s], up[s]);
                    for (guint k = 0; k < n_child[s]; k++)
                        depend (x, up[child[2 * s + k]], up[s]);
                }
                /* Down, and each head's store into its switch, which multicasts to the
                 * server's GPUs (connection c + C). */
                for (guint i = 0; i < N; i++) {
                    guint s = order[i];
                    const Member *m = members + group_start[s];
                    guint32 sw = nvs[(gsize) s * MAX_NVS + (h + j) % K[s]];
                    Emit st = emit (x, m[h].id, sw, sz, c + C);
                    if (s == root) {
                        depend (x, sum[s], st);
                        for (guint k = 0; k < n_child[s]; k++)
                            depend (x, up[child[2 * s + k]], st);
                    } else {
                        depend (x, down[s], st);
                    }
                    for (guint r = 0; r < gsz; r++)
                        depend (x, st, emit (x, sw, m[r].id, sz, c + C));
                    for (guint k = 0; k < n_child[s]; k++) {
                        guint d = child[2 * s + k];
                        down[d] = emit (x, m[h].id, members[group_start[d] + h].id, sz, c);
                        if (s == root) {
                            depend (x, sum[s], down[d]);
                            for (guint q = 0; q < n_child[s]; q++)
                                depend (x, up[child[2 * s + q]], down[d]);
                        } else {
                            depend (x, down[s], down[d]);
                        }
                    }
                }
            }
        }
    }
    g_free (nvs);
    g_free (K);
    g_free (parent);
    g_free (order);
    g_free (child);
    g_free (n_child);
    g_free (in);
    g_free (sum);
    g_free (up);
    g_free (down);
}

/* ---- direct patterns ---------------------------------------------------------------------- */

static void
expand_direct (Ctx *x)
{
    const WeftCollSpec *spec = x->spec;
    guint n = spec->n_ranks, C = spec->channels;
    for (guint i = 0; i < n; i++) {
        for (guint d = 1; d < n; d++) {
            guint j = (i + d) % n;
            guint64 bytes;
            if (spec->op == WEFT_COLL_ALL_TO_ALL)
                bytes = spec->bytes / n;
            else if (d == 1)
                bytes = spec->bytes; /* send/recv: to the next rank only */
            else
                break;
            for (guint c = 0; c < C; c++)
                emit (x, spec->ranks[i], spec->ranks[j], split (bytes, C, c), c);
        }
    }
}

/* ---- entry points ------------------------------------------------------------------------- */

/* The collective's base latency, once: on every transfer of this expansion (from @xfers0 on)
 * that no dependency of it (from @deps0 on) waits for something before. */
static void
add_base_latency (Ctx *x, guint xfers0, guint deps0)
{
    if (x->spec->base_latency_ps == 0)
        return;
    guint n = x->xfers->len - xfers0;
    gboolean *waits = g_new0 (gboolean, MAX (n, 1));
    for (guint i = deps0; i < x->deps->len; i++)
        waits[g_array_index (x->deps, WeftCollDep, i).after] = TRUE;
    for (guint i = 0; i < n; i++)
        if (!waits[i])
            g_array_index (x->xfers, WeftCollXfer, xfers0 + i).delay_ps += x->spec->base_latency_ps;
    g_free (waits);
}

/* NVLS: every rank a GPU of one server, on the same NVLink SHARP switches. */
static gboolean
check_nvls (const WeftCollSpec *spec, GError **error)
{
    const WeftGraph *g = spec->graph;
    guint32 nvs[MAX_NVS], other[MAX_NVS];
    guint K = weft_collective_nvls_switches (g, spec->ranks[0], nvs, MAX_NVS);
    gint32 server = weft_graph_node (g, spec->ranks[0])->server;
    for (guint i = 0; i < spec->n_ranks; i++) {
        const WeftNode *r = weft_graph_node (g, spec->ranks[i]);
        guint k = weft_collective_nvls_switches (g, spec->ranks[i], other, MAX_NVS);
        if (r->kind != WEFT_NODE_GPU || K == 0 || k != K || memcmp (nvs, other, K * sizeof *nvs)) {
            g_set_error (error, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_VALUE,
                         "%s: NVLS needs GPUs on an NVSwitch with NVLink SHARP ([server] nvls); "
                         "%s has none",
                         weft_collective_op_name (spec->op), r->name);
            return FALSE;
        }
        if (r->server != server) {
            g_set_error (error, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_VALUE,
                         "%s: NVLS runs inside one server (%s is in another)",
                         weft_collective_op_name (spec->op), r->name);
            return FALSE;
        }
    }
    return TRUE;
}

/* NVLSTree: every rank a GPU on NVLink SHARP switches shared by its server, servers of one
 * size. */
static gboolean
check_nvls_tree (const WeftCollSpec *spec, const Member *members, const guint *group_start,
                 guint n_groups, GError **error)
{
    const WeftGraph *g = spec->graph;
    const char *op = weft_collective_op_name (spec->op);
    guint gsz = group_start[1] - group_start[0];
    guint32 nvs[MAX_NVS], other[MAX_NVS];
    for (guint s = 0; s < n_groups; s++) {
        if (group_start[s + 1] - group_start[s] != gsz) {
            g_set_error (error, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_VALUE,
                         "%s: NVLSTree needs as many ranks in every server (%u and %u)", op, gsz,
                         group_start[s + 1] - group_start[s]);
            return FALSE;
        }
        guint K = weft_collective_nvls_switches (g, members[group_start[s]].id, nvs, MAX_NVS);
        for (guint i = group_start[s]; i < group_start[s + 1]; i++) {
            const WeftNode *r = weft_graph_node (g, members[i].id);
            guint k = weft_collective_nvls_switches (g, members[i].id, other, MAX_NVS);
            if (r->kind != WEFT_NODE_GPU || r->server < 0 || K == 0 || k != K ||
                memcmp (nvs, other, K * sizeof *nvs)) {
                g_set_error (error, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_VALUE,
                             "%s: NVLSTree needs GPUs on an NVSwitch with NVLink SHARP ([server] "
                             "nvls); %s has none",
                             op, r->name);
                return FALSE;
            }
        }
    }
    return TRUE;
}

/* CollNetDirect: servers of one size, every rank with an aggregation switch, and a root for
 * every head's tree when the switches differ. */
static gboolean
check_collnet (const WeftCollSpec *spec, const Member *members, const guint *group_start,
               guint n_groups, GError **error)
{
    const WeftGraph *g = spec->graph;
    const char *op = weft_collective_op_name (spec->op);
    guint gsz = group_start[1] - group_start[0];
    for (guint s = 0; s < n_groups; s++) {
        if (group_start[s + 1] - group_start[s] != gsz) {
            g_set_error (error, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_VALUE,
                         "%s: CollNetDirect needs as many ranks in every server (%u and %u)", op,
                         gsz, group_start[s + 1] - group_start[s]);
            return FALSE;
        }
    }
    guint32 *leaves = g_new (guint32, n_groups);
    gboolean ok = TRUE;
    for (guint h = 0; h < gsz && ok; h++) {
        guint n_leaves = 0;
        for (guint s = 0; s < n_groups && ok; s++) {
            guint32 id = members[group_start[s] + h].id, l = weft_collective_sharp_switch (g, id);
            if (l == WEFT_GRAPH_NONE) {
                g_set_error (error, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_VALUE,
                             "%s: CollNetDirect needs an InfiniBand SHARP switch ([infiniband] "
                             "sharp) where %s's traffic enters the fabric",
                             op, weft_graph_node (g, id)->name);
                ok = FALSE;
                break;
            }
            guint k = 0;
            while (k < n_leaves && leaves[k] != l)
                k++;
            if (k == n_leaves)
                leaves[n_leaves++] = l;
        }
        if (ok && n_leaves > 1 && sharp_root (g, leaves, n_leaves) == WEFT_GRAPH_NONE) {
            g_set_error (error, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_VALUE,
                         "%s: no SHARP switch is cabled to all of %s's %u leaves", op,
                         weft_graph_node (g, members[h].id)->name, n_leaves);
            ok = FALSE;
        }
    }
    g_free (leaves);
    return ok;
}

static gboolean
check_spec (const WeftCollSpec *spec, GError **error)
{
    const char *op = weft_collective_op_name (spec->op);
    if (spec->n_ranks == 0 || !spec->ranks) {
        g_set_error (error, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_VALUE, "%s: no ranks", op);
        return FALSE;
    }
    if (spec->channels == 0 || spec->chunk_bytes == 0) {
        g_set_error (error, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_VALUE,
                     "%s: channels and chunk size must be at least 1", op);
        return FALSE;
    }
    if ((spec->op == WEFT_COLL_BROADCAST || spec->op == WEFT_COLL_REDUCE) &&
        spec->root >= spec->n_ranks) {
        g_set_error (error, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_VALUE,
                     "%s: root %u out of range (%u ranks)", op, spec->root, spec->n_ranks);
        return FALSE;
    }
    if (spec->algo == WEFT_COLL_TREE && spec->op != WEFT_COLL_ALL_REDUCE &&
        spec->op != WEFT_COLL_ALL_TO_ALL && spec->op != WEFT_COLL_SEND_RECV) {
        g_set_error (error, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_VALUE,
                     "%s: the tree algorithm runs all_reduce only (as in NCCL); use ring", op);
        return FALSE;
    }
    if (spec->algo == WEFT_COLL_NVLS && spec->op != WEFT_COLL_ALL_REDUCE &&
        spec->op != WEFT_COLL_REDUCE_SCATTER && spec->op != WEFT_COLL_ALL_GATHER &&
        spec->op != WEFT_COLL_ALL_TO_ALL && spec->op != WEFT_COLL_SEND_RECV) {
        g_set_error (error, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_VALUE,
                     "%s: NVLS runs all_reduce, reduce_scatter and all_gather only (as in NCCL)",
                     op);
        return FALSE;
    }
    if (spec->algo == WEFT_COLL_NVLS_TREE && spec->op != WEFT_COLL_ALL_REDUCE &&
        spec->op != WEFT_COLL_ALL_TO_ALL && spec->op != WEFT_COLL_SEND_RECV) {
        g_set_error (error, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_VALUE,
                     "%s: NVLSTree runs all_reduce only (as in NCCL)", op);
        return FALSE;
    }
    if (spec->algo == WEFT_COLL_COLLNET_DIRECT && spec->op != WEFT_COLL_ALL_REDUCE &&
        spec->op != WEFT_COLL_ALL_TO_ALL && spec->op != WEFT_COLL_SEND_RECV) {
        g_set_error (error, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_VALUE,
                     "%s: weft runs CollNetDirect for all_reduce only", op);
        return FALSE;
    }
    if ((spec->algo == WEFT_COLL_NVLS || spec->algo == WEFT_COLL_COLLNET_DIRECT ||
         spec->algo == WEFT_COLL_NVLS_TREE) &&
        !spec->graph) {
        g_set_error (error, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_VALUE,
                     "%s: in-switch reduction needs the fabric graph", op);
        return FALSE;
    }
    guint nn = spec->graph ? weft_graph_n_nodes (spec->graph) : G_MAXUINT;
    g_autoptr (GHashTable) seen = g_hash_table_new (NULL, NULL);
    for (guint i = 0; i < spec->n_ranks; i++) {
        if (spec->ranks[i] >= nn) {
            g_set_error (error, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_VALUE,
                         "%s: rank %u is node %u, not in the graph", op, i, spec->ranks[i]);
            return FALSE;
        }
        if (!g_hash_table_add (seen, GUINT_TO_POINTER (spec->ranks[i]))) {
            g_set_error (error, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_VALUE,
                         "%s: node %u is listed twice among the ranks", op, spec->ranks[i]);
            return FALSE;
        }
    }
    return spec->algo == WEFT_COLL_NVLS ? check_nvls (spec, error) : TRUE;
}

gboolean
weft_collective_check (const WeftCollSpec *spec, GError **error)
{
    g_return_val_if_fail (spec != NULL, FALSE);
    if (!check_spec (spec, error))
        return FALSE;
    if ((spec->algo != WEFT_COLL_COLLNET_DIRECT && spec->algo != WEFT_COLL_NVLS_TREE) ||
        spec->op == WEFT_COLL_ALL_TO_ALL || spec->op == WEFT_COLL_SEND_RECV)
        return TRUE;
    if (spec->algo == WEFT_COLL_COLLNET_DIRECT && spec->n_ranks < 2)
        return TRUE;
    Member *members = g_new (Member, spec->n_ranks);
    guint *group_start = g_new (guint, spec->n_ranks + 1);
    guint n_groups = ring_groups (spec, members, group_start);
    gboolean ok = spec->algo == WEFT_COLL_COLLNET_DIRECT
                      ? check_collnet (spec, members, group_start, n_groups, error)
                      : check_nvls_tree (spec, members, group_start, n_groups, error);
    g_free (members);
    g_free (group_start);
    return ok;
}

static const char *const algo_debug_names[WEFT_COLL_N_ALGOS] = { "ring", "tree", "nvls",
                                                                 "collnet_direct", "nvls_tree" };

gboolean
weft_collective_expand (const WeftCollSpec *spec, GArray *xfers, GArray *deps, GError **error)
{
    g_return_val_if_fail (spec != NULL && xfers != NULL && deps != NULL, FALSE);
    g_return_val_if_fail ((guint) spec->op < WEFT_COLL_N_OPS, FALSE);
    g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
    if (!check_spec (spec, error))
        return FALSE;
    guint n = spec->n_ranks;
    if (n < 2 || spec->bytes == 0)
        return TRUE; /* nothing crosses a link */

    Ctx x = { .spec = spec, .xfers = xfers, .deps = deps, .base = xfers->len };
    if (spec->pxn && spec->graph)
        build_relay (&x);
    guint xfers0 = xfers->len, deps0 = deps->len;

    if (spec->op == WEFT_COLL_ALL_TO_ALL || spec->op == WEFT_COLL_SEND_RECV) {
        expand_direct (&x);
    } else {
        Member *members = g_new (Member, n);
        guint *group_start = g_new (guint, n + 1);
        guint n_groups = ring_groups (spec, members, group_start);
        gboolean ok = TRUE;
        if (spec->algo == WEFT_COLL_COLLNET_DIRECT)
            ok = check_collnet (spec, members, group_start, n_groups, error);
        else if (spec->algo == WEFT_COLL_NVLS_TREE)
            ok = check_nvls_tree (spec, members, group_start, n_groups, error);
        if (!ok)
            ;
        else if (spec->algo == WEFT_COLL_NVLS_TREE)
            expand_nvls_tree (&x, members, group_start, n_groups);
        else if (spec->algo == WEFT_COLL_TREE)
            expand_tree (&x, members, group_start, n_groups);
        else if (spec->algo == WEFT_COLL_NVLS)
            expand_nvls (&x);
        else if (spec->algo == WEFT_COLL_COLLNET_DIRECT)
            expand_collnet (&x, members, group_start, n_groups);
        else
            expand_ring (&x, members, group_start, n_groups);
        g_free (members);
        g_free (group_start);
        if (!ok) {
            g_free (x.relay);
            return FALSE;
        }
    }
    g_free (x.relay);
    add_base_latency (&x, xfers0, deps0);
    g_debug ("%s %s: %u ranks, %u channels, %" G_GUINT64_FORMAT " B: %u transfers, %u deps",
             weft_collective_op_name (spec->op), algo_debug_names[spec->algo], n, spec->channels,
             spec->bytes, xfers->len - xfers0, deps->len - deps0);
    return TRUE;
}

double
weft_collective_bus_factor (WeftCollOp op, guint n_ranks)
{
    double n = n_ranks;
    if (n_ranks == 0)
        return 0.0;
    switch (op) {
    case WEFT_COLL_ALL_REDUCE:
        return 2.0 * (n - 1) / n;
    case WEFT_COLL_ALL_GATHER:
    case WEFT_COLL_REDUCE_SCATTER:
    case WEFT_COLL_ALL_TO_ALL:
        return (n - 1) / n;
    case WEFT_COLL_BROADCAST:
    case WEFT_COLL_REDUCE:
    case WEFT_COLL_SEND_RECV:
        return 1.0;
    default:
        g_return_val_if_reached (0.0);
    }
}

static const char *const op_names[WEFT_COLL_N_OPS] = {
    [WEFT_COLL_ALL_REDUCE] = "all_reduce",
    [WEFT_COLL_ALL_GATHER] = "all_gather",
    [WEFT_COLL_REDUCE_SCATTER] = "reduce_scatter",
    [WEFT_COLL_BROADCAST] = "broadcast",
    [WEFT_COLL_REDUCE] = "reduce",
    [WEFT_COLL_ALL_TO_ALL] = "alltoall",
    [WEFT_COLL_SEND_RECV] = "sendrecv",
};

const char *
weft_collective_op_name (WeftCollOp op)
{
    g_return_val_if_fail ((guint) op < WEFT_COLL_N_OPS, NULL);
    return op_names[op];
}

gboolean
weft_collective_op_from_name (const char *name, WeftCollOp *op)
{
    g_return_val_if_fail (name != NULL && op != NULL, FALSE);
    for (guint i = 0; i < WEFT_COLL_N_OPS; i++) {
        if (strcmp (name, op_names[i]) == 0) {
            *op = (WeftCollOp) i;
            return TRUE;
        }
    }
    if (strcmp (name, "all_to_all") == 0) {
        *op = WEFT_COLL_ALL_TO_ALL;
        return TRUE;
    }
    return FALSE;
}
