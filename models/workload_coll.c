/* models/workload_coll.c - kind = nccl-test: an nccl-tests style sweep of one collective.
 *
 * For every size from minbytes to maxbytes (times stepfactor each time, as nccl-tests' -f),
 * the collective runs warmup_iters times, then iters times out of place and iters times in
 * place (nccl-tests runs both placements; in a network model they behave alike but are
 * reported apart, as nccl-tests prints them).  Every operation starts when the one before it
 * has completed on every rank (nccl-tests synchronises its timing around each batch; running
 * them strictly one after another slightly overstates the time of small, latency-bound
 * sizes).  Sizes are rounded down to a whole number of elements, and for ops that split the
 * buffer among ranks (all_gather, reduce_scatter, alltoall) to a multiple of ranks x element
 * size, as nccl-tests does.
 */
#include "config.h"
#define G_LOG_DOMAIN "weft-workload"
#include <string.h>

#include "models/collective.h"
#include "models/workload_private.h"

static const struct {
    const char *name;
    guint size;
} types[] = { { "float", 4 }, { "half", 2 }, { "bfloat16", 2 }, { "double", 8 },
              { "int8", 1 },  { "int32", 4 }, { "int64", 8 } };

const WeftParamSpec weft_workload_nccl_params[] = {
    WEFT_PARAM_ENUM ("op", NcclParams, op, "all_reduce",
                     "all_reduce|all_gather|reduce_scatter|broadcast|reduce|alltoall|sendrecv",
                     "the collective, named as nccl-tests' binaries (all_reduce_perf, ...)"),
    WEFT_PARAM_ENUM ("algo", NcclParams, algo, "ring", "ring|tree",
                     "NCCL algorithm: ring, or tree (double binary tree, all_reduce only)"),
    WEFT_PARAM_BYTES ("minbytes", NcclParams, minbytes, "32MiB", "1B", "64GiB",
                      "smallest size (nccl-tests -b)"),
    WEFT_PARAM_BYTES ("maxbytes", NcclParams, maxbytes, "32MiB", "1B", "64GiB",
                      "largest size (nccl-tests -e)"),
    WEFT_PARAM_UINT ("stepfactor", NcclParams, stepfactor, "2", "2", "1024",
                     "multiply the size by this between steps (nccl-tests -f)"),
    WEFT_PARAM_UINT ("iters", NcclParams, iters, "5", "1", "100000",
                     "timed iterations per size and placement (nccl-tests -n)"),
    WEFT_PARAM_UINT ("warmup_iters", NcclParams, warmup_iters, "1", "0", "100000",
                     "untimed iterations before each size (nccl-tests -w)"),
    WEFT_PARAM_LIST ("gpus", NcclParams, gpus, "",
                     "the ranks, in order: names or ranges (dgx-1/gpu0..7); default every GPU, "
                     "or every host on topologies without GPUs"),
    WEFT_PARAM_UINT ("channels", NcclParams, channels, "0", "0", "64",
                     "rings (channels) the data is split over; 0: one per NIC of a server when "
                     "the ranks span servers (each ring on its own rail), else 1"),
    WEFT_PARAM_BYTES ("chunk", NcclParams, chunk, "512KiB", "1KiB", "1GiB",
                      "pipelining slice of a ring step (NCCL's SIMPLE protocol: 512 KiB)"),
    WEFT_PARAM_TIME ("step_latency", NcclParams, step_latency, "1us", "0ps", "1ms",
                     "latency added before each step (kernel and protocol overhead), on top of "
                     "the network's own"),
    WEFT_PARAM_DOUBLE ("efficiency", NcclParams, efficiency, "0.8", "0.01", "1",
                       "protocol efficiency inside a server: the fraction of NVLink's rate a "
                       "collective's transfer gets (NCCL reaches about 80 %: 360 of 450 GB/s), "
                       "applied once, at the sender"),
    WEFT_PARAM_DOUBLE ("net_efficiency", NcclParams, net_efficiency, "1", "0.01", "1",
                       "the same for transfers that cross the fabric (1: the packet model's "
                       "own headers and ACKs are the only overhead)"),
    WEFT_PARAM_BOOL ("pxn", NcclParams, pxn, "true",
                     "PXN (NCCL 2.12+): cross-rail sends go over NVLink to the GPU on the "
                     "destination's rail first"),
    WEFT_PARAM_ENUM ("type", NcclParams, type, "float",
                     "float|half|bfloat16|double|int8|int32|int64", "element type (nccl-tests -d)"),
    WEFT_PARAM_UINT ("root", NcclParams, root, "0", "0", "100000",
                     "broadcast / reduce root rank (nccl-tests -r)"),
    WEFT_PARAM_END,
};

static guint
default_channels (const WeftGraph *g, const guint32 *ranks, guint n)
{
    gint32 server0 = weft_graph_node (g, ranks[0])->server;
    gboolean spans = FALSE;
    gint32 max_rail = -1;
    for (guint i = 0; i < n; i++) {
        const WeftNode *nd = weft_graph_node (g, ranks[i]);
        spans |= nd->server != server0;
        max_rail = MAX (max_rail, nd->rail);
    }
    return spans && max_rail >= 0 ? (guint) max_rail + 1 : 1;
}

static const char *const redops[] = { "sum", "none" };

/* One collective operation: its transfers become flows, in generation order. */
static gboolean
emit_collective (Ctx *x, const WeftCollSpec *spec, WeftCollInstance *inst, double efficiency,
                 double net_efficiency, GError **error)
{
    g_autoptr (GArray) xfers = g_array_new (FALSE, FALSE, sizeof (WeftCollXfer));
    g_autoptr (GArray) cdeps = g_array_new (FALSE, FALSE, sizeof (WeftCollDep));
    if (!weft_collective_expand (spec, xfers, cdeps, error)) {
        g_prefix_error (error, "%s: [%s]: ", weft_experiment_origin (x->exp, x->group, NULL),
                        x->group);
        return FALSE;
    }
    guint64 base = *x->seq;
    inst->first_flow = (guint32) base;
    inst->n_flows = xfers->len;
    guint32 coll = x->colls->len;
    for (guint i = 0; i < xfers->len; i++) {
        const WeftCollXfer *t = &g_array_index (xfers, WeftCollXfer, i);
        if (!weft_workload_emit (x, t->src, t->dst, t->bytes, x->c.start, error))
            return FALSE;
        WeftFlowSpec *f = &g_array_index (x->out, Gen, x->out->len - 1).spec;
        f->delay_ps = t->delay_ps;
        /* One connection per workload and channel (and peer): slices go in order. */
        f->conn = ((x->group_index + 1) << 8) | (t->channel & 0xff);
        f->coll = coll;
        gint32 s0 = weft_graph_node (x->g, t->src)->server, s1 = weft_graph_node (x->g, t->dst)->server;
        f->efficiency = s0 >= 0 && s0 == s1 ? efficiency : net_efficiency;
    }
    for (guint i = 0; i < cdeps->len; i++) {
        const WeftCollDep *d = &g_array_index (cdeps, WeftCollDep, i);
        WeftFlowDep fd = { (guint32) (base + d->before), (guint32) (base + d->after) };
        g_array_append_val (x->deps, fd);
    }
    g_array_append_val (x->colls, *inst);
    return TRUE;
}

gboolean
weft_workload_gen_nccl (Ctx *x, const NcclParams *p, GError **error)
{
    g_autoptr (GArray) ranks = g_array_new (FALSE, FALSE, sizeof (guint32));
    g_autoptr (GPtrArray) items = weft_workload_list_items (p->gpus);
    if (items->len > 0) {
        if (!weft_workload_resolve_names (x, "gpus", items, ranks, error))
            return FALSE;
    } else {
        g_autoptr (GArray) all = weft_workload_select_hosts (x, error);
        if (!all)
            return FALSE;
        g_array_append_vals (ranks, all->data, all->len);
    }
    guint n = ranks->len;
    if (n < 2)
        return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_VALUE, x->group, "gpus",
                                     "%u rank%s: a collective needs at least 2", n,
                                     n == 1 ? "" : "s");
    if (p->root >= n)
        return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_RANGE, x->group, "root",
                                     "rank %" G_GUINT64_FORMAT " of %u ranks: expected 0 to %u",
                                     p->root, n, n - 1);
    if (p->minbytes > p->maxbytes)
        return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_RANGE, x->group,
                                     "minbytes", "larger than maxbytes");
    if (p->algo == WEFT_COLL_TREE && p->op != WEFT_COLL_ALL_REDUCE)
        return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_VALUE, x->group, "algo",
                                     "tree is NCCL's all_reduce algorithm only: expected ring");
    guint esize = types[p->type].size;
    gboolean split = p->op == WEFT_COLL_ALL_GATHER || p->op == WEFT_COLL_REDUCE_SCATTER ||
                     p->op == WEFT_COLL_ALL_TO_ALL;
    guint64 unit = split ? (guint64) esize * n : esize;
    const guint32 *r = (const guint32 *) ranks->data;
    WeftCollSpec spec = { .op = p->op,
                          .algo = p->algo,
                          .n_ranks = n,
                          .ranks = r,
                          .root = (guint) p->root,
                          .channels = p->channels ? (guint) p->channels
                                                  : default_channels (x->g, r, n),
                          .chunk_bytes = p->chunk,
                          .step_latency_ps = p->step_latency,
                          .pxn = p->pxn,
                          .graph = x->g };
    guint32 prev = G_MAXUINT32;
    guint32 rank_first = x->ranks->len;
    g_array_append_vals (x->ranks, r, n);
    for (guint64 size = p->minbytes; size <= p->maxbytes; size *= p->stepfactor) {
        guint64 bytes = size / unit * unit;
        if (bytes == 0)
            return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_RANGE, x->group,
                                         "minbytes",
                                         "%" G_GUINT64_FORMAT "B is less than one element per "
                                         "rank: expected at least %" G_GUINT64_FORMAT "B",
                                         size, unit);
        spec.bytes = bytes;
        guint64 runs = p->warmup_iters + 2 * p->iters;
        for (guint64 k = 0; k < runs; k++) {
            WeftCollInstance inst = { 0 };
            inst.group = x->group_index;
            inst.op = p->op;
            inst.bytes = bytes;
            inst.count = split ? bytes / esize : bytes / esize;
            g_strlcpy (inst.type, types[p->type].name, sizeof inst.type);
            gboolean reducing = p->op == WEFT_COLL_ALL_REDUCE || p->op == WEFT_COLL_REDUCE ||
                                p->op == WEFT_COLL_REDUCE_SCATTER;
            g_strlcpy (inst.redop, redops[reducing ? 0 : 1], sizeof inst.redop);
            inst.root = p->op == WEFT_COLL_BROADCAST || p->op == WEFT_COLL_REDUCE
                            ? (gint32) p->root
                            : -1;
            inst.n_ranks = n;
            inst.rank_first = rank_first;
            inst.warmup = k < p->warmup_iters;
            inst.in_place = k >= p->warmup_iters + p->iters;
            inst.iteration = (guint32) (inst.warmup ? k
                                        : inst.in_place ? k - p->warmup_iters - p->iters
                                                        : k - p->warmup_iters);
            inst.bus_factor = weft_collective_bus_factor (p->op, n);
            inst.gate = prev;
            inst.gap_ps = prev == G_MAXUINT32 ? x->c.start : 0;
            if (!emit_collective (x, &spec, &inst, p->efficiency, p->net_efficiency, error))
                return FALSE;
            prev = x->colls->len - 1;
        }
        if (p->maxbytes / p->stepfactor < size)
            break; /* the next step would overflow or pass maxbytes */
    }
    return TRUE;
}
