/* tests/check_collective.c - collectives expanded into transfers and dependencies.
 *
 * Invariants checked, for every op on hand-built graphs (plain hosts, and servers of GPUs with
 * server and rail set directly) and on a generated rail-optimised fabric:
 *  - bytes: each rank sends and receives exactly nccl-tests' analytic amount (ring all-reduce
 *    2(n-1)/n x bytes, all-gather and reduce-scatter (n-1) x bytes/n, broadcast and reduce
 *    bytes on the chain, alltoall (n-1) x bytes/n, sendrecv bytes), and with sizes that divide
 *    unevenly the total still equals the analytic total; no transfer exceeds chunk_bytes on
 *    stepped ops, and none is empty;
 *  - dependencies: the DAG is acyclic; in a ring op every transfer of step s > 0 has exactly
 *    one predecessor, slice j of step s-1 into its sender from the ring predecessor, and the
 *    DAG has exactly `steps` layers of n x slices x channels transfers;
 *  - critical path (longest path summing delay_ps): 2(n-1) step latencies for ring
 *    all-reduce, n-1 for the others, unchanged by PXN; steps inside a server and between
 *    servers take their own latencies, and the first transfers the base latency, once;
 *  - protocol lines: a transfer carries its data in whole lines (LL 8 in 16, LL128 120 in
 *    128), slices count data;
 *  - ring order: every inter-server fabric transfer of channel c joins local GPU c mod 8 to
 *    local GPU c mod 8 with PXN on; with it off the hop lands on GPU c and leaves from c-1;
 *  - PXN: a cross-rail cross-server transfer becomes an NVLink hop to the sender-server GPU
 *    on the destination's rail plus a same-rail fabric hop that depends on it; with one NIC
 *    removed from a server (nic-removed), that server sends the missing rail's channel from
 *    the GPU beside the NIC that stands in, and never from the GPU whose NIC is gone;
 *  - data flow: in tree and ring all-reduce, propagating "whose data this carries" over the
 *    DAG, every rank ends up with every rank's contribution for every slice;
 *  - errors, op names and bus factors.
 *  - NCCL's trees: a chain inside each server, the servers' first GPUs under another server's
 *    first or second GPU, NCCL's roots, at most two children, logarithmic depth between
 *    servers, the two trees complementary; the expansion's transfers follow the chains;
 * Leaves unchecked: timing on a network (the engine's flow dependencies do that), and which
 * server is whose parent beyond the roots and the shape.
 */
#include "config.h"
#include <check.h>

#include "workloads/collective.h"
#include "sim/errors.h"
#include "tests/harness.h"
#include "topologies/railopt.h"
#include "topologies/server.h"

#define LAT 1000 /* step latency, ps */

/* ---- graphs ------------------------------------------------------------------------------- */

static WeftGraph *
hosts_graph (guint n, guint32 *ranks)
{
    WeftGraph *g = weft_graph_new ();
    for (guint i = 0; i < n; i++) {
        char name[32];
        g_snprintf (name, sizeof name, "host%u", i);
        ranks[i] = weft_graph_add_node (g, name, WEFT_NODE_HOST, 1);
    }
    return g;
}

/* @servers servers of @gpus GPUs; GPUs are added in a scrambled order (so node ids do not
 * follow rails) and @ranks lists them in another scrambled order. */
static WeftGraph *
servers_graph (guint servers, guint gpus, guint32 *ranks)
{
    WeftGraph *g = weft_graph_new ();
    guint n = servers * gpus;
    guint32 *id = g_new (guint32, n);
    for (guint s = 0; s < servers; s++) {
        for (guint i = 0; i < gpus; i++) {
            guint l = (i * 5 + 3) % gpus; /* 5 is coprime with 4 and 8: a permutation */
            char name[32];
            g_snprintf (name, sizeof name, "dgx-%u/gpu%u", s + 1, l);
            guint32 v = weft_graph_add_node (g, name, WEFT_NODE_GPU, 1);
            WeftNode *node = weft_graph_node (g, v);
            node->server = (gint32) s;
            node->rail = (gint32) l;
            id[s * gpus + l] = v;
        }
    }
    for (guint k = 0; k < n; k++)
        ranks[k] = id[(k * 7 + 1) % n]; /* 7 is coprime with 8, 16, 32: a permutation */
    g_free (id);
    return g;
}

static guint
local_index (const WeftGraph *g, guint32 node)
{
    return (guint) weft_graph_node (g, node)->rail;
}

/* ---- expansion and DAG helpers ------------------------------------------------------------ */

typedef struct {
    GArray *x, *d;   /* WeftCollXfer, WeftCollDep */
    GPtrArray *pred; /* per transfer: GArray of guint32 predecessors */
    GPtrArray *succ;
    guint32 *topo;       /* topological order */
    guint *layer;        /* longest chain (in transfers) ending at each transfer, from 1 */
    weft_time_t *finish; /* longest delay path ending after each transfer */
    weft_time_t critical;
    guint layers;
} Dag;

static Dag *
dag_expand (const WeftCollSpec *spec)
{
    Dag *D = g_new0 (Dag, 1);
    D->x = g_array_new (FALSE, FALSE, sizeof (WeftCollXfer));
    D->d = g_array_new (FALSE, FALSE, sizeof (WeftCollDep));
    GError *error = NULL;
    ck_assert_msg (weft_collective_expand (spec, D->x, D->d, &error), "%s",
                   error ? error->message : "");
    guint n = D->x->len;
    D->pred = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
    D->succ = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
    for (guint i = 0; i < n; i++) {
        g_ptr_array_add (D->pred, g_array_new (FALSE, FALSE, sizeof (guint32)));
        g_ptr_array_add (D->succ, g_array_new (FALSE, FALSE, sizeof (guint32)));
        ck_assert_uint_gt (g_array_index (D->x, WeftCollXfer, i).bytes, 0);
        ck_assert_uint_ne (g_array_index (D->x, WeftCollXfer, i).src,
                           g_array_index (D->x, WeftCollXfer, i).dst);
    }
    guint *indeg = g_new0 (guint, n);
    for (guint k = 0; k < D->d->len; k++) {
        WeftCollDep e = g_array_index (D->d, WeftCollDep, k);
        ck_assert_uint_lt (e.before, n);
        ck_assert_uint_lt (e.after, n);
        /* data flows: what arrived at a node is what leaves it */
        ck_assert_uint_eq (g_array_index (D->x, WeftCollXfer, e.before).dst,
                           g_array_index (D->x, WeftCollXfer, e.after).src);
        g_array_append_val (g_ptr_array_index (D->pred, e.after), e.before);
        g_array_append_val (g_ptr_array_index (D->succ, e.before), e.after);
        indeg[e.after]++;
    }
    /* Kahn: every transfer is reached exactly when the DAG is acyclic */
    D->topo = g_new (guint32, n ? n : 1);
    D->layer = g_new0 (guint, n ? n : 1);
    D->finish = g_new0 (weft_time_t, n ? n : 1);
    guint head = 0, tail = 0;
    for (guint i = 0; i < n; i++)
        if (indeg[i] == 0)
            D->topo[tail++] = i;
    while (head < tail) {
        guint32 t = D->topo[head++];
        GArray *p = g_ptr_array_index (D->pred, t);
        weft_time_t start = 0;
        guint layer = 0;
        for (guint k = 0; k < p->len; k++) {
            guint32 b = g_array_index (p, guint32, k);
            start = MAX (start, D->finish[b]);
            layer = MAX (layer, D->layer[b]);
        }
        D->finish[t] = start + g_array_index (D->x, WeftCollXfer, t).delay_ps;
        D->layer[t] = layer + 1;
        D->critical = MAX (D->critical, D->finish[t]);
        D->layers = MAX (D->layers, D->layer[t]);
        GArray *s = g_ptr_array_index (D->succ, t);
        for (guint k = 0; k < s->len; k++) {
            guint32 a = g_array_index (s, guint32, k);
            if (--indeg[a] == 0)
                D->topo[tail++] = a;
        }
    }
    ck_assert_uint_eq (tail, n); /* acyclic */
    g_free (indeg);
    return D;
}

static void
dag_free (Dag *D)
{
    g_array_unref (D->x);
    g_array_unref (D->d);
    g_ptr_array_unref (D->pred);
    g_ptr_array_unref (D->succ);
    g_free (D->topo);
    g_free (D->layer);
    g_free (D->finish);
    g_free (D);
}

static WeftCollXfer *
xf (const Dag *D, guint i)
{
    return &g_array_index (D->x, WeftCollXfer, i);
}

static GArray *
preds (const Dag *D, guint i)
{
    return g_ptr_array_index (D->pred, i);
}

static WeftCollSpec
spec_of (WeftCollOp op, guint n, const guint32 *ranks, guint64 bytes, guint channels, guint64 chunk,
         const WeftGraph *g)
{
    return (WeftCollSpec){ .op = op,
                           .algo = WEFT_COLL_RING,
                           .bytes = bytes,
                           .n_ranks = n,
                           .ranks = ranks,
                           .root = 0,
                           .channels = channels,
                           .chunk_bytes = chunk,
                           .step_latency_ps = LAT,
                           .net_step_latency_ps = LAT,
                           .pxn = FALSE,
                           .graph = g };
}

/* ---- bytes -------------------------------------------------------------------------------- */

static const WeftCollOp all_ops[] = { WEFT_COLL_ALL_REDUCE,     WEFT_COLL_ALL_GATHER,
                                      WEFT_COLL_REDUCE_SCATTER, WEFT_COLL_BROADCAST,
                                      WEFT_COLL_REDUCE,         WEFT_COLL_ALL_TO_ALL,
                                      WEFT_COLL_SEND_RECV };

/* Analytic bytes rank i (caller's order; hosts, so ring order = caller order) sends and
 * receives; root given. */
static void
analytic (WeftCollOp op, guint n, guint root, guint i, guint64 B, guint64 *sent, guint64 *recv)
{
    switch (op) {
    case WEFT_COLL_ALL_REDUCE:
        *sent = *recv = 2 * (n - 1) * B / n;
        break;
    case WEFT_COLL_ALL_GATHER:
    case WEFT_COLL_REDUCE_SCATTER:
    case WEFT_COLL_ALL_TO_ALL:
        *sent = *recv = (n - 1) * (B / n);
        break;
    case WEFT_COLL_BROADCAST:
        *sent = i == (root + n - 1) % n ? 0 : B;
        *recv = i == root ? 0 : B;
        break;
    case WEFT_COLL_REDUCE:
        *sent = i == root ? 0 : B;
        *recv = i == (root + 1) % n ? 0 : B;
        break;
    default:
        *sent = *recv = B;
    }
}

static guint64
analytic_total (WeftCollOp op, WeftCollAlgo algo, guint n, guint64 B)
{
    switch (op) {
    case WEFT_COLL_ALL_REDUCE:
        return 2 * (guint64) (n - 1) * B; /* ring and tree alike */
    case WEFT_COLL_ALL_GATHER:
    case WEFT_COLL_REDUCE_SCATTER:
    case WEFT_COLL_ALL_TO_ALL:
        return (guint64) n * (n - 1) * (B / n);
    case WEFT_COLL_BROADCAST:
    case WEFT_COLL_REDUCE:
        return (guint64) (n - 1) * B;
    default:
        (void) algo;
        return (guint64) n * B;
    }
}

static gboolean
stepped (WeftCollOp op)
{
    return op != WEFT_COLL_ALL_TO_ALL && op != WEFT_COLL_SEND_RECV;
}

START_TEST (test_collective_bytes_per_rank)
{
    static const guint ns[] = { 2, 3, 5, 8 };
    static const guint chans[] = { 1, 3 };
    for (guint a = 0; a < G_N_ELEMENTS (ns); a++)
        for (guint b = 0; b < G_N_ELEMENTS (chans); b++)
            for (guint o = 0; o < G_N_ELEMENTS (all_ops); o++) {
                guint n = ns[a], C = chans[b];
                guint32 ranks[8];
                WeftGraph *g = hosts_graph (n, ranks);
                guint64 B = (guint64) n * C * 4096; /* divides evenly */
                WeftCollSpec spec = spec_of (all_ops[o], n, ranks, B, C, 1000, g);
                spec.root = n - 1;
                Dag *D = dag_expand (&spec);
                for (guint i = 0; i < n; i++) {
                    guint64 s = 0, r = 0, es, er;
                    for (guint t = 0; t < D->x->len; t++) {
                        if (xf (D, t)->src == ranks[i])
                            s += xf (D, t)->bytes;
                        if (xf (D, t)->dst == ranks[i])
                            r += xf (D, t)->bytes;
                        if (stepped (all_ops[o]))
                            ck_assert_uint_le (xf (D, t)->bytes, 1000);
                        ck_assert_uint_lt (xf (D, t)->channel, C);
                        ck_assert_uint_eq (xf (D, t)->delay_ps, LAT);
                    }
                    analytic (all_ops[o], n, spec.root, i, B, &es, &er);
                    ck_assert_msg (s == es && r == er,
                                   "%s n=%u C=%u rank %u: sent %" G_GUINT64_FORMAT
                                   " recv %" G_GUINT64_FORMAT " expected %" G_GUINT64_FORMAT
                                   " / %" G_GUINT64_FORMAT,
                                   weft_collective_op_name (all_ops[o]), n, C, i, s, r, es, er);
                }
                dag_free (D);
                weft_graph_free (g);
            }
}
END_TEST

START_TEST (test_collective_bytes_total_uneven)
{
    static const guint ns[] = { 2, 3, 7 };
    static const guint64 sizes[] = { 1, 5, 999983, 1000003 };
    for (guint a = 0; a < G_N_ELEMENTS (ns); a++)
        for (guint z = 0; z < G_N_ELEMENTS (sizes); z++)
            for (guint o = 0; o < G_N_ELEMENTS (all_ops) + 1; o++) {
                guint n = ns[a];
                guint32 ranks[8];
                WeftGraph *g = hosts_graph (n, ranks);
                gboolean tree = o == G_N_ELEMENTS (all_ops);
                WeftCollOp op = tree ? WEFT_COLL_ALL_REDUCE : all_ops[o];
                WeftCollSpec spec = spec_of (op, n, ranks, sizes[z], 3, 65536, g);
                spec.algo = tree ? WEFT_COLL_TREE : WEFT_COLL_RING;
                spec.root = 1;
                Dag *D = dag_expand (&spec);
                guint64 total = 0;
                for (guint t = 0; t < D->x->len; t++)
                    total += xf (D, t)->bytes;
                ck_assert_msg (total == analytic_total (op, spec.algo, n, sizes[z]),
                               "%s%s n=%u B=%" G_GUINT64_FORMAT ": %" G_GUINT64_FORMAT,
                               weft_collective_op_name (op), tree ? " (tree)" : "", n, sizes[z],
                               total);
                dag_free (D);
                weft_graph_free (g);
            }
}
END_TEST

/* ---- dependencies and critical path ------------------------------------------------------- */

/* Ring ops on hosts: step s > 0 has exactly one predecessor: slice j of step s-1, sent into
 * its sender by the ring predecessor; the DAG has `steps` layers of n x slices x C. */
START_TEST (test_collective_ring_dependencies)
{
    static const WeftCollOp ops[] = { WEFT_COLL_ALL_REDUCE, WEFT_COLL_ALL_GATHER,
                                      WEFT_COLL_REDUCE_SCATTER, WEFT_COLL_BROADCAST,
                                      WEFT_COLL_REDUCE };
    for (guint o = 0; o < G_N_ELEMENTS (ops); o++)
        for (guint n = 2; n <= 6; n++) {
            guint32 ranks[6];
            WeftGraph *g = hosts_graph (n, ranks);
            guint C = 2, slices = 3;
            guint64 chunk = 100;
            /* per-step chunk of 3 slices: 300 bytes per channel */
            guint64 B = ops[o] == WEFT_COLL_BROADCAST || ops[o] == WEFT_COLL_REDUCE
                            ? C * chunk * slices
                            : (guint64) n * C * chunk * slices;
            WeftCollSpec spec = spec_of (ops[o], n, ranks, B, C, chunk, g);
            spec.root = n / 2;
            Dag *D = dag_expand (&spec);
            guint steps = ops[o] == WEFT_COLL_ALL_REDUCE ? 2 * (n - 1) : n - 1;
            guint per_layer =
                stepped (ops[o]) && (ops[o] == WEFT_COLL_BROADCAST || ops[o] == WEFT_COLL_REDUCE)
                    ? slices * C
                    : n * slices * C;
            ck_assert_uint_eq (D->layers, steps);
            ck_assert_uint_eq (D->x->len, steps * per_layer);
            guint *in_layer = g_new0 (guint, steps + 1);
            /* k-th transfer of (channel, src, layer) in emission order is slice k */
            GHashTable *count = g_hash_table_new (g_int64_hash, g_int64_equal);
            guint *slice = g_new (guint, D->x->len);
            gint64 *keys = g_new (gint64, D->x->len);
            for (guint t = 0; t < D->x->len; t++) {
                keys[t] = ((gint64) xf (D, t)->channel << 40) | ((gint64) xf (D, t)->src << 16) |
                          D->layer[t];
                slice[t] = GPOINTER_TO_UINT (g_hash_table_lookup (count, &keys[t]));
                g_hash_table_insert (count, &keys[t], GUINT_TO_POINTER (slice[t] + 1));
                in_layer[D->layer[t]]++;
            }
            for (guint s = 1; s <= steps; s++)
                ck_assert_uint_eq (in_layer[s], per_layer);
            for (guint t = 0; t < D->x->len; t++) {
                GArray *p = preds (D, t);
                ck_assert_uint_eq (p->len, D->layer[t] == 1 ? 0 : 1);
                if (p->len == 0)
                    continue;
                guint32 b = g_array_index (p, guint32, 0);
                guint i = 0;
                while (ranks[i] != xf (D, t)->src)
                    i++;
                ck_assert_uint_eq (xf (D, b)->src, ranks[(i + n - 1) % n]);
                ck_assert_uint_eq (xf (D, b)->dst, xf (D, t)->src);
                ck_assert_uint_eq (xf (D, b)->channel, xf (D, t)->channel);
                ck_assert_uint_eq (xf (D, b)->bytes, xf (D, t)->bytes);
                ck_assert_uint_eq (D->layer[b] + 1, D->layer[t]);
                ck_assert_uint_eq (slice[b], slice[t]);
            }
            ck_assert_uint_eq (D->critical, (weft_time_t) steps * LAT);
            g_free (in_layer);
            g_free (slice);
            g_free (keys);
            g_hash_table_destroy (count);
            dag_free (D);
            weft_graph_free (g);
        }
}
END_TEST

START_TEST (test_collective_ring_allreduce_critical_path)
{
    static const guint ns[] = { 2, 3, 4, 8, 16, 32 };
    for (guint a = 0; a < G_N_ELEMENTS (ns); a++)
        for (guint pxn = 0; pxn < 2; pxn++) {
            guint n = ns[a];
            guint32 ranks[32];
            /* servers of 4 GPUs (n >= 8) exercise PXN; below that, plain hosts */
            WeftGraph *g = n >= 8 ? servers_graph (n / 4, 4, ranks) : hosts_graph (n, ranks);
            WeftCollSpec spec = spec_of (WEFT_COLL_ALL_REDUCE, n, ranks, 1 << 20, 4, 8192, g);
            spec.pxn = pxn;
            Dag *D = dag_expand (&spec);
            ck_assert_uint_eq (D->critical, (weft_time_t) 2 * (n - 1) * LAT);
            dag_free (D);
            weft_graph_free (g);
        }
}
END_TEST

/* ---- ring order and PXN ------------------------------------------------------------------- */

START_TEST (test_collective_ring_rail_aligned)
{
    guint32 ranks[32];
    WeftGraph *g = servers_graph (4, 8, ranks);
    for (guint pxn = 0; pxn < 2; pxn++) {
        WeftCollSpec spec = spec_of (WEFT_COLL_ALL_REDUCE, 32, ranks, 16 << 20, 16, 1 << 20, g);
        spec.pxn = pxn;
        Dag *D = dag_expand (&spec);
        guint inter = 0;
        for (guint t = 0; t < D->x->len; t++) {
            const WeftCollXfer *x = xf (D, t);
            const WeftNode *a = weft_graph_node (g, x->src), *b = weft_graph_node (g, x->dst);
            guint c = x->channel % 8;
            if (a->server == b->server) {
                /* NVLink: the ring inside a server, or a PXN relay to GPU c */
                if (pxn && local_index (g, x->dst) == c && local_index (g, x->src) == (c + 7) % 8)
                    ck_assert_uint_eq (((GArray *) g_ptr_array_index (D->succ, t))->len, 1);
                continue;
            }
            inter++;
            ck_assert_int_eq ((b->server - a->server + 4) % 4, 1); /* servers in a ring */
            ck_assert_uint_eq (local_index (g, x->dst), c);
            ck_assert_uint_eq (local_index (g, x->src), pxn ? c : (c + 7) % 8);
        }
        /* 4 inter-server hops per channel, step and slice (one slice per chunk here) */
        ck_assert_uint_eq (inter, 4 * 16 * 2 * 31);
        dag_free (D);
    }
    weft_graph_free (g);
}
END_TEST

/* The same on a generated rail-optimised fabric: channel c's fabric legs stay on rail c. */
START_TEST (test_collective_rail_aligned_railopt)
{
    WeftServerParams server = { 0 };
    weft_params_set_defaults (weft_server_params (), &server);
    WeftRailOptParams p = { .sus = 1,
                            .servers_per_su = 4,
                            .servers = 4,
                            .radix = 8,
                            .tiers = 0,
                            .spine_grouping = WEFT_SPINE_FULL_MESH,
                            .leaf_oversubscription = 1,
                            .spine_oversubscription = 1,
                            .spine_link_rate_bps = 400000000000ull,
                            .core_link_rate_bps = 400000000000ull };
    GError *error = NULL;
    WeftGraph *g = weft_topology_railopt (&p, &server, &error);
    ck_assert_msg (g != NULL, "%s", error ? error->message : "");
    guint32 ranks[64];
    guint n = 0;
    for (guint i = 0; i < weft_graph_n_nodes (g); i++)
        if (weft_graph_node (g, i)->kind == WEFT_NODE_GPU)
            ranks[n++] = i;
    ck_assert_uint_eq (n, 32);
    WeftCollSpec spec = spec_of (WEFT_COLL_ALL_REDUCE, n, ranks, 1 << 20, 8, 1 << 20, g);
    spec.pxn = TRUE;
    Dag *D = dag_expand (&spec);
    for (guint t = 0; t < D->x->len; t++) {
        const WeftNode *a = weft_graph_node (g, xf (D, t)->src);
        const WeftNode *b = weft_graph_node (g, xf (D, t)->dst);
        if (a->server != b->server) {
            ck_assert_int_eq (a->rail, (gint32) xf (D, t)->channel);
            ck_assert_int_eq (b->rail, (gint32) xf (D, t)->channel);
        }
    }
    dag_free (D);
    weft_graph_free (g);
    weft_params_clear (weft_server_params (), &server);
}
END_TEST

START_TEST (test_collective_pxn_nic_removed)
{
    WeftServerParams server = { 0 };
    weft_params_set_defaults (weft_server_params (), &server);
    WeftRailOptParams p = { .sus = 1,
                            .servers_per_su = 4,
                            .servers = 4,
                            .radix = 8,
                            .tiers = 0,
                            .spine_grouping = WEFT_SPINE_FULL_MESH,
                            .leaf_oversubscription = 1,
                            .spine_oversubscription = 1,
                            .spine_link_rate_bps = 400000000000ull,
                            .core_link_rate_bps = 400000000000ull };
    GError *error = NULL;
    WeftGraph *g = weft_topology_railopt (&p, &server, &error);
    ck_assert_msg (g != NULL, "%s", error ? error->message : "");
    /* dgx-2/mlx5_3 (rail 1) out: its GPU's gateway becomes the nearest NIC left, mlx5_0 */
    guint32 nic = weft_graph_lookup (g, "dgx-2/mlx5_3");
    const WeftNode *nn = weft_graph_node (g, nic);
    for (guint q = 0; q < nn->ports->len; q++) {
        guint32 lid = g_array_index (nn->ports, guint32, q);
        if (lid != WEFT_GRAPH_NONE && weft_graph_link (g, lid)->kind == WEFT_LINK_FABRIC)
            weft_graph_set_link_removed (g, lid);
    }
    weft_graph_routes_compute (g);
    guint32 gpu1 = weft_graph_lookup (g, "dgx-2/gpu1"), gpu0 = weft_graph_lookup (g, "dgx-2/gpu0");
    ck_assert_uint_eq (weft_graph_gateway (g, gpu1), weft_graph_lookup (g, "dgx-2/mlx5_0"));
    guint32 ranks[64];
    guint n = 0;
    for (guint i = 0; i < weft_graph_n_nodes (g); i++)
        if (weft_graph_node (g, i)->kind == WEFT_NODE_GPU)
            ranks[n++] = i;
    ck_assert_uint_eq (n, 32);
    WeftCollSpec spec = spec_of (WEFT_COLL_ALL_REDUCE, n, ranks, 1 << 20, 8, 1 << 20, g);
    spec.pxn = TRUE;
    Dag *D = dag_expand (&spec);
    guint from_stand_in = 0;
    for (guint t = 0; t < D->x->len; t++) {
        const WeftCollXfer *x = xf (D, t);
        const WeftNode *a = weft_graph_node (g, x->src), *b = weft_graph_node (g, x->dst);
        if (a->server == b->server)
            continue;
        ck_assert_uint_ne (x->src, gpu1);
        ck_assert_int_eq (b->rail, (gint32) x->channel); /* into the channel's rail GPU */
        if (a->server == 1 && x->channel == 1) {
            ck_assert_uint_eq (x->src, gpu0); /* the missing rail leaves through mlx5_0 */
            from_stand_in++;
        } else {
            ck_assert_int_eq (a->rail, (gint32) x->channel);
        }
    }
    ck_assert_uint_gt (from_stand_in, 0);
    dag_free (D);
    weft_graph_free (g);
    weft_params_clear (weft_server_params (), &server);
}
END_TEST

START_TEST (test_collective_pxn_splits_cross_rail)
{
    guint32 ranks[8];
    WeftGraph *g = servers_graph (2, 4, ranks);
    guint64 B = 8 * 1000;
    for (guint pxn = 0; pxn < 2; pxn++) {
        WeftCollSpec spec = spec_of (WEFT_COLL_ALL_TO_ALL, 8, ranks, B, 1, 1 << 20, g);
        spec.pxn = pxn;
        Dag *D = dag_expand (&spec);
        /* 56 pairs; with PXN the 2 x 4 x 3 cross-server cross-rail ones are two transfers */
        ck_assert_uint_eq (D->x->len, pxn ? 56 + 24 : 56);
        ck_assert_uint_eq (D->d->len, pxn ? 24 : 0);
        guint64 fabric = 0;
        for (guint t = 0; t < D->x->len; t++) {
            const WeftCollXfer *x = xf (D, t);
            const WeftNode *a = weft_graph_node (g, x->src), *b = weft_graph_node (g, x->dst);
            ck_assert_uint_eq (x->bytes, B / 8);
            if (a->server != b->server) {
                fabric += x->bytes;
                if (pxn)
                    ck_assert_int_eq (a->rail, b->rail);
            }
            GArray *p = preds (D, t);
            if (p->len) {
                /* the fabric leg of a split: its one predecessor is the NVLink hop from the
                 * original sender to the GPU on this rail in the sender's server */
                ck_assert_uint_eq (p->len, 1);
                const WeftCollXfer *h = xf (D, g_array_index (p, guint32, 0));
                const WeftNode *hs = weft_graph_node (g, h->src);
                const WeftNode *hd = weft_graph_node (g, h->dst);
                ck_assert_int_eq (hs->server, hd->server);
                ck_assert_int_eq (hd->server, a->server);
                ck_assert_int_eq (hd->rail, b->rail);
                ck_assert_int_ne (hs->rail, b->rail);
                ck_assert_int_ne (a->server, b->server);
                ck_assert_uint_eq (h->delay_ps, LAT);
                ck_assert_uint_eq (x->delay_ps, 0);
            }
        }
        ck_assert_uint_eq (fabric, 2 * 4 * 4 * (B / 8)); /* every cross-server pair, once */
        dag_free (D);
    }
    weft_graph_free (g);
}
END_TEST

/* ---- protocols: wire lines and latencies -------------------------------------------------- */

START_TEST (test_collective_protocol_lines)
{
    /* A transfer of d data bytes carries ceil(d / line_data) x line_bytes: NCCL's LL (8 data
     * bytes in 16) doubles every transfer of 8-byte multiples; LL128 (120 in 128) rounds up to
     * whole lines.  Slices count data: none exceeds chunk_bytes of data. */
    guint32 ranks[8];
    WeftGraph *g = servers_graph (2, 4, ranks);
    const struct {
        guint32 line, data;
    } lines[] = { { 16, 8 }, { 128, 120 }, { 1, 1 } };
    for (guint i = 0; i < G_N_ELEMENTS (lines); i++) {
        for (guint t = 0; t < 2; t++) {
            WeftCollSpec spec = spec_of (WEFT_COLL_ALL_REDUCE, 8, ranks, 3 << 20, 2, 40000, g);
            spec.algo = t ? WEFT_COLL_TREE : WEFT_COLL_RING;
            spec.line_bytes = lines[i].line;
            spec.line_data = lines[i].data;
            Dag *D = dag_expand (&spec);
            guint64 data = 0, wire = 0;
            for (guint k = 0; k < D->x->len; k++) {
                const WeftCollXfer *x = xf (D, k);
                ck_assert_uint_le (x->data_bytes, 40000);
                guint64 want = (x->data_bytes + lines[i].data - 1) / lines[i].data * lines[i].line;
                ck_assert_uint_eq (x->bytes, want);
                data += x->data_bytes;
                wire += x->bytes;
            }
            if (!t) /* the ring's total data is 2(n-1) x bytes, as without lines */
                ck_assert_uint_eq (data, 2 * 7 * (guint64) (3 << 20));
            if (lines[i].line == 16)
                ck_assert_uint_eq (wire, 2 * data); /* every slice here is a multiple of 8 */
            dag_free (D);
        }
    }
    weft_graph_free (g);
}
END_TEST

START_TEST (test_collective_hop_latencies_and_base)
{
    /* A step inside a server waits step_latency_ps, one between servers net_step_latency_ps;
     * the transfers that wait for no other carry base_latency_ps on top, once.  One ring of
     * 8 ranks in 2 servers crosses servers on 2 of its 8 hops, and some chunk's 14 all-reduce
     * steps take both crossings twice: the critical path is base + 10 x intra + 4 x net.
     * With PXN a crossing becomes an NVLink leg carrying the crossing's latency and a fabric
     * leg carrying none, so the critical path stays the same. */
    const weft_time_t intra = 1000, net = 5000, base = 7000;
    guint32 ranks[8];
    WeftGraph *g = servers_graph (2, 4, ranks);
    for (guint pxn = 0; pxn < 2; pxn++) {
        WeftCollSpec spec = spec_of (WEFT_COLL_ALL_REDUCE, 8, ranks, 1 << 20, 1, 1 << 20, g);
        spec.pxn = pxn;
        spec.step_latency_ps = intra;
        spec.net_step_latency_ps = net;
        spec.base_latency_ps = base;
        Dag *D = dag_expand (&spec);
        guint roots = 0;
        for (guint k = 0; k < D->x->len && !pxn; k++) {
            const WeftCollXfer *x = xf (D, k);
            const WeftNode *a = weft_graph_node (g, x->src), *b = weft_graph_node (g, x->dst);
            gboolean root = preds (D, k)->len == 0;
            roots += root;
            ck_assert_uint_eq (x->delay_ps,
                               (a->server == b->server ? intra : net) + (root ? base : 0));
        }
        ck_assert_uint_eq (D->critical, base + 10 * intra + 4 * net);
        ck_assert (pxn || roots == 8); /* step 0: every rank's first chunk, one slice each */
        dag_free (D);
    }
    /* The tree's first transfers (leaves going up) carry the base latency too. */
    WeftCollSpec spec = spec_of (WEFT_COLL_ALL_REDUCE, 8, ranks, 1 << 20, 1, 1 << 20, g);
    spec.algo = WEFT_COLL_TREE;
    spec.base_latency_ps = base;
    Dag *D = dag_expand (&spec);
    for (guint k = 0; k < D->x->len; k++)
        ck_assert_uint_eq (xf (D, k)->delay_ps, LAT + (preds (D, k)->len == 0 ? base : 0));
    dag_free (D);
    weft_graph_free (g);
}
END_TEST

/* ---- data flow: every rank gets every rank's data ----------------------------------------- */

static guint
uf_find (guint *parent, guint i)
{
    while (parent[i] != i)
        i = parent[i] = parent[parent[i]];
    return i;
}

/* Propagates "whose contributions this transfer carries" (a bit per rank; the sender adds its
 * own) over the DAG, then checks every rank holds all n contributions in every weakly
 * connected component (one per channel, tree or chunk, and slice). */
static void
check_everyone_gets_everything (const Dag *D, const guint32 *ranks, guint n)
{
    guint m = D->x->len;
    GHashTable *index = g_hash_table_new (NULL, NULL);
    for (guint i = 0; i < n; i++)
        g_hash_table_insert (index, GUINT_TO_POINTER (ranks[i]), GUINT_TO_POINTER (i));
    guint64 *carried = g_new0 (guint64, m);
    guint *uf = g_new (guint, m);
    for (guint t = 0; t < m; t++)
        uf[t] = t;
    for (guint k = 0; k < D->d->len; k++) {
        WeftCollDep e = g_array_index (D->d, WeftCollDep, k);
        uf[uf_find (uf, e.before)] = uf_find (uf, e.after);
    }
    for (guint k = 0; k < m; k++) {
        guint32 t = D->topo[k];
        carried[t] =
            G_GUINT64_CONSTANT (1)
            << GPOINTER_TO_UINT (g_hash_table_lookup (index, GUINT_TO_POINTER (xf (D, t)->src)));
        GArray *p = preds (D, t);
        for (guint i = 0; i < p->len; i++)
            carried[t] |= carried[g_array_index (p, guint32, i)];
    }
    GHashTable *known = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
    guint components = 0;
    for (guint t = 0; t < m; t++) {
        guint r = GPOINTER_TO_UINT (g_hash_table_lookup (index, GUINT_TO_POINTER (xf (D, t)->dst)));
        gint64 key = ((gint64) uf_find (uf, t) << 8) | r;
        guint64 *v = g_hash_table_lookup (known, &key);
        if (!v) {
            v = g_new (guint64, 1);
            *v = G_GUINT64_CONSTANT (1) << r;
            gint64 *kc = g_new (gint64, 1);
            *kc = key;
            g_hash_table_insert (known, kc, v);
        }
        *v |= carried[t];
        if (uf_find (uf, t) == t)
            components++;
    }
    /* every component delivers to every rank, and each rank then knows everyone */
    ck_assert_uint_eq (g_hash_table_size (known), components * n);
    GHashTableIter it;
    gpointer kp, vp;
    guint64 all = n == 64 ? G_MAXUINT64 : (G_GUINT64_CONSTANT (1) << n) - 1;
    g_hash_table_iter_init (&it, known);
    while (g_hash_table_iter_next (&it, &kp, &vp))
        ck_assert_uint_eq (*(guint64 *) vp, all);
    g_hash_table_destroy (known);
    g_hash_table_destroy (index);
    g_free (carried);
    g_free (uf);
}

START_TEST (test_collective_tree_allreduce_reaches_all)
{
    static const guint ns[] = { 2, 3, 4, 5, 7, 8, 13, 16, 33 };
    for (guint a = 0; a < G_N_ELEMENTS (ns); a++)
        for (guint C = 1; C <= 2; C++) {
            guint n = ns[a];
            guint32 ranks[64];
            WeftGraph *g = hosts_graph (n, ranks);
            WeftCollSpec spec = spec_of (WEFT_COLL_ALL_REDUCE, n, ranks, 4 * 3000, C, 1000, g);
            spec.algo = WEFT_COLL_TREE;
            Dag *D = dag_expand (&spec);
            check_everyone_gets_everything (D, ranks, n);
            /* every rank sends and receives on both trees; the depth is logarithmic */
            guint depth = 0;
            while ((1u << depth) < n)
                depth++;
            ck_assert_uint_le (D->critical, (weft_time_t) 2 * (depth + 1) * LAT);
            ck_assert_uint_ge (D->critical, (weft_time_t) 2 * depth * LAT);
            dag_free (D);
            /* the ring all-reduce passes the same check */
            spec.algo = WEFT_COLL_RING;
            D = dag_expand (&spec);
            check_everyone_gets_everything (D, ranks, n);
            dag_free (D);
            weft_graph_free (g);
        }
}
END_TEST

/* NCCL's tree over servers of @g GPUs each (weft_collective_tree_parents), for 1 to 40 servers:
 * each server a chain down from its first GPU; the servers' first GPUs hang under another
 * server's first or second GPU; one root, the first GPU of server 0 in tree 0 and of server
 * N-1 (N even) or 1 (N odd) in tree 1, as ncclGetDtreeRoots; at most two children per rank; a
 * tree of logarithmic depth between servers; and the two trees complementary: no server is an
 * inner node of both (one, the first, when N is odd). */
START_TEST (test_collective_tree_nccl_shape)
{
    static const guint gs[] = { 1, 2, 3, 8 };
    for (guint a = 0; a < G_N_ELEMENTS (gs); a++) {
        for (guint N = 1; N <= 40; N++) {
            guint g = gs[a], n = N * g;
            guint *start = g_new (guint, N + 1), *parent[2], *kids = g_new (guint, n);
            for (guint v = 0; v <= N; v++)
                start[v] = v * g;
            guint inner_both = 0;
            gboolean *inner = g_new0 (gboolean, 2 * (gsize) N);
            for (guint t = 0; t < 2; t++) {
                parent[t] = g_new (guint, n);
                weft_collective_tree_parents (start, N, t, parent[t]);
                guint roots = 0, root = 0;
                memset (kids, 0, n * sizeof *kids);
                for (guint p = 0; p < n; p++) {
                    guint v = p / g, i = p % g, q = parent[t][p];
                    if (q == G_MAXUINT32) {
                        roots++;
                        root = p;
                        continue;
                    }
                    ck_assert_uint_lt (q, n);
                    kids[q]++;
                    if (i > 0) { /* the chain */
                        ck_assert_uint_eq (q, p - 1);
                        continue;
                    }
                    ck_assert_uint_ne (q / g, v); /* another server's first or second GPU */
                    ck_assert_uint_le (q % g, 1);
                    inner[t * N + q / g] = TRUE;
                }
                ck_assert_uint_eq (roots, 1);
                guint want_root = t == 0 ? 0 : (N % 2 == 1 && N > 1 ? 1 : N - 1);
                ck_assert_uint_eq (root, want_root * g);
                guint depth_max = 1;
                while ((1u << (depth_max - 1)) < N)
                    depth_max++;
                for (guint p = 0; p < n; p++) {
                    ck_assert_uint_le (kids[p], 2);
                    /* up to the root: the chain, then at most log2(N) + 1 servers */
                    guint q = p, hops = 0;
                    while (q != root && hops <= n) {
                        if (q % g == 0)
                            hops++;
                        q = parent[t][q];
                    }
                    ck_assert_uint_le (hops, depth_max);
                }
            }
            for (guint v = 0; v < N; v++)
                inner_both += inner[v] && inner[N + v];
            if (N % 2 == 0)
                ck_assert_uint_eq (inner_both, 0);
            else
                ck_assert_uint_le (inner_both, 1);
            g_free (parent[0]);
            g_free (parent[1]);
            g_free (start);
            g_free (kids);
            g_free (inner);
        }
    }
}
END_TEST

/* The expansion follows that tree: on 3 servers x 4 GPUs (PXN off), channel c's transfers
 * inside a server join chain neighbours (local GPUs c + i and c + i + 1, mod 4) and those
 * between servers leave and land on local GPU c or c + 1, the chain's first two; every slice
 * of each tree goes up and down once per rank but the root: 2 (n - 1) transfers; and the
 * critical path is the chains' and the servers' tree's depth. */
START_TEST (test_collective_tree_chain_in_server)
{
    guint32 ranks[12];
    WeftGraph *g = servers_graph (3, 4, ranks);
    WeftCollSpec spec = spec_of (WEFT_COLL_ALL_REDUCE, 12, ranks, 4 * 1000, 4, 1 << 20, g);
    spec.algo = WEFT_COLL_TREE;
    Dag *D = dag_expand (&spec);
    check_everyone_gets_everything (D, ranks, 12);
    ck_assert_uint_eq (D->x->len, 4 * 2 * 2 * (12 - 1));
    for (guint i = 0; i < D->x->len; i++) {
        const WeftCollXfer *x = xf (D, i);
        const WeftNode *a = weft_graph_node (g, x->src), *b = weft_graph_node (g, x->dst);
        guint c = x->channel, la = (local_index (g, x->src) + 4 - c) % 4,
              lb = (local_index (g, x->dst) + 4 - c) % 4;
        if (a->server == b->server) {
            ck_assert_uint_eq (MAX (la, lb) - MIN (la, lb), 1);
        } else {
            ck_assert_uint_le (la, 1);
            ck_assert_uint_le (lb, 1);
        }
    }
    /* Critical path, with network steps 100 times the NVLink ones: 3 servers make a chain of
     * nodes in both trees (0 <- 2 <- 1; 1 <- 0 <- 2); the deepest GPU climbs its chain (3
     * steps), crosses to the middle server's second GPU (the first child's link), steps to its
     * first and crosses to the root's first GPU: 4 + 4 NVLink steps and 2 + 2 network steps
     * up and down.  NCCL's latency model counts 2 x (3 x intra + log2(3) = 1 x network). */
    dag_free (D);
    spec.net_step_latency_ps = 100 * LAT;
    D = dag_expand (&spec);
    ck_assert_uint_eq (D->critical, 8 * LAT + 4 * 100 * LAT);
    dag_free (D);
    weft_graph_free (g);
}
END_TEST

/* ---- errors, names, factors --------------------------------------------------------------- */

START_TEST (test_collective_errors)
{
    guint32 ranks[4];
    WeftGraph *g = hosts_graph (4, ranks);
    GArray *x = g_array_new (FALSE, FALSE, sizeof (WeftCollXfer));
    GArray *d = g_array_new (FALSE, FALSE, sizeof (WeftCollDep));
    WeftCollSpec ok = spec_of (WEFT_COLL_BROADCAST, 4, ranks, 4096, 1, 1024, g);
    WeftCollSpec bad[6];
    for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
        bad[i] = ok;
    bad[0].n_ranks = 0;
    bad[1].root = 4;
    bad[2].channels = 0;
    bad[3].chunk_bytes = 0;
    bad[4].algo = WEFT_COLL_TREE;
    guint32 dup[4] = { ranks[0], ranks[1], ranks[1], ranks[2] };
    bad[5].ranks = dup;
    for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
        GError *error = NULL;
        ck_assert (!weft_collective_expand (&bad[i], x, d, &error));
        ck_assert (g_error_matches (error, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_VALUE));
        ck_assert_uint_eq (x->len, 0);
        ck_assert_uint_eq (d->len, 0);
        g_error_free (error);
    }
    /* one rank, or no bytes: legal and empty */
    WeftCollSpec one = ok;
    one.n_ranks = 1;
    ck_assert (weft_collective_expand (&one, x, d, NULL));
    one = ok;
    one.bytes = 0;
    ck_assert (weft_collective_expand (&one, x, d, NULL));
    ck_assert_uint_eq (x->len, 0);
    /* indices of a second call are relative to its own first transfer */
    ck_assert (weft_collective_expand (&ok, x, d, NULL));
    guint first = x->len;
    ck_assert (weft_collective_expand (&ok, x, d, NULL));
    ck_assert_uint_eq (x->len, 2 * first);
    for (guint k = d->len / 2; k < d->len; k++)
        ck_assert_uint_lt (g_array_index (d, WeftCollDep, k).after, first);
    g_array_unref (x);
    g_array_unref (d);
    weft_graph_free (g);
}
END_TEST

START_TEST (test_collective_names_and_bus_factor)
{
    for (guint i = 0; i < WEFT_COLL_N_OPS; i++) {
        WeftCollOp op;
        ck_assert (weft_collective_op_from_name (weft_collective_op_name (i), &op));
        ck_assert_int_eq (op, i);
    }
    static const char *names[] = { "all_reduce", "all_gather", "reduce_scatter", "broadcast",
                                   "reduce",     "alltoall",   "sendrecv" };
    for (guint i = 0; i < G_N_ELEMENTS (names); i++)
        ck_assert_str_eq (weft_collective_op_name (i), names[i]);
    WeftCollOp op;
    ck_assert (weft_collective_op_from_name ("all_to_all", &op));
    ck_assert_int_eq (op, WEFT_COLL_ALL_TO_ALL);
    ck_assert (!weft_collective_op_from_name ("allreduce", &op));
    ck_assert_double_eq_tol (weft_collective_bus_factor (WEFT_COLL_ALL_REDUCE, 8), 1.75, 1e-12);
    ck_assert_double_eq_tol (weft_collective_bus_factor (WEFT_COLL_ALL_GATHER, 8), 0.875, 1e-12);
    ck_assert_double_eq_tol (weft_collective_bus_factor (WEFT_COLL_REDUCE_SCATTER, 4), 0.75, 1e-12);
    ck_assert_double_eq_tol (weft_collective_bus_factor (WEFT_COLL_ALL_TO_ALL, 2), 0.5, 1e-12);
    ck_assert_double_eq_tol (weft_collective_bus_factor (WEFT_COLL_BROADCAST, 8), 1, 1e-12);
    ck_assert_double_eq_tol (weft_collective_bus_factor (WEFT_COLL_REDUCE, 8), 1, 1e-12);
    ck_assert_double_eq_tol (weft_collective_bus_factor (WEFT_COLL_SEND_RECV, 8), 1, 1e-12);
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("collective");
    TCase *tc = tcase_create ("expand");
    tcase_set_timeout (tc, 60);
    tcase_add_test (tc, test_collective_bytes_per_rank);
    tcase_add_test (tc, test_collective_bytes_total_uneven);
    tcase_add_test (tc, test_collective_ring_dependencies);
    tcase_add_test (tc, test_collective_ring_allreduce_critical_path);
    tcase_add_test (tc, test_collective_ring_rail_aligned);
    tcase_add_test (tc, test_collective_rail_aligned_railopt);
    tcase_add_test (tc, test_collective_pxn_splits_cross_rail);
    tcase_add_test (tc, test_collective_pxn_nic_removed);
    tcase_add_test (tc, test_collective_protocol_lines);
    tcase_add_test (tc, test_collective_hop_latencies_and_base);
    tcase_add_test (tc, test_collective_tree_allreduce_reaches_all);
    tcase_add_test (tc, test_collective_tree_nccl_shape);
    tcase_add_test (tc, test_collective_tree_chain_in_server);
    tcase_add_test (tc, test_collective_errors);
    tcase_add_test (tc, test_collective_names_and_bus_factor);
    suite_add_tcase (s, tc);
    return s;
}
