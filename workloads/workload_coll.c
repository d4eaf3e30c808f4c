/* workloads/workload_coll.c - kind = nccl-test: an nccl-tests style sweep of one collective.
 *
 * For every size from minbytes to maxbytes (times stepfactor each time, as nccl-tests' -f),
 * the collective runs warmup_iters times, then iters times out of place and iters times in
 * place (nccl-tests runs both placements; in a network model they behave alike but are
 * reported apart, as nccl-tests prints them).  Every operation starts when the one before it
 * has completed on every rank (nccl-tests synchronises its timing around each batch; running
 * them strictly one after another slightly overstates the time of small, latency-bound
 * sizes).  Sizes, counts, reductions and roots are nccl-tests' (2.19.6: setupArgs() and each
 * op's GetCollByteCount() and RunTest()): a size is rounded down to whole elements; for the
 * ops that split the buffer among ranks (all_gather, reduce_scatter, alltoall) each rank's
 * share is rounded down to a multiple of 16 bytes ((count / ranks) & ~(16 / element size - 1)),
 * so the size becomes a multiple of 16 x ranks, and the count column is that per-rank share;
 * the reducing ops and sendrecv print the reduction (nccl-tests' default -o sum, which
 * sendrecv passes through although it reduces nothing), the others "none"; broadcast and
 * reduce print their root, the others -1.
 *
 * How each operation runs is NCCL's decision (workloads/nccl_tune.h): per size, the algorithm
 * and protocol its cost model prefers among those `algo` and `proto` enable, the channels it
 * keeps for that size, and the chosen protocol's chunk, wire lines and latencies.  Explicit
 * `channels`, `chunk`, `step_latency` and `base_latency` override the corresponding part of
 * that, and nothing else.
 */
#include "config.h"
#define G_LOG_DOMAIN "weft-workload"
#include <string.h>

#include "sim/units.h"
#include "workloads/collective.h"
#include "workloads/workload_private.h"

static const struct {
    const char *name;
    guint size;
} types[] = { { "float", 4 }, { "half", 2 },  { "bfloat16", 2 }, { "double", 8 },
              { "int8", 1 },  { "int32", 4 }, { "int64", 8 } };

const WeftParamSpec weft_workload_nccl_params[] = {
    WEFT_PARAM_ENUM ("op", NcclParams, op, "all_reduce",
                     "all_reduce|all_gather|reduce_scatter|broadcast|reduce|alltoall|sendrecv",
                     "the collective, named as nccl-tests' binaries (all_reduce_perf, ...)"),
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
    WEFT_PARAM_UINT ("root", NcclParams, root, "0", "0", "100000",
                     "broadcast / reduce root rank (nccl-tests -r)"),
    WEFT_WORKLOAD_COLL_PARAMS (NcclParams, ),
    WEFT_PARAM_END,
};

/* One channel per GPU with a NIC in the largest server of the ranks, when they span servers:
 * one per NIC with a GPU per NIC, and with GPUs sharing a NIC one for each of them to enter the
 * ring at (workloads/collective.c), so every NIC and both directions of every GPU's PCIe link
 * carry the same share; 1 within a server. */
static guint
default_channels (const WeftGraph *g, const guint32 *ranks, guint n)
{
    gint32 server0 = weft_graph_node (g, ranks[0])->server;
    gboolean spans = FALSE;
    g_autoptr (GHashTable) per_server = g_hash_table_new (NULL, NULL);
    guint most = 0;
    for (guint i = 0; i < n; i++) {
        const WeftNode *nd = weft_graph_node (g, ranks[i]);
        spans |= nd->server != server0;
        if (nd->server < 0 || nd->rail < 0)
            continue;
        gpointer key = GINT_TO_POINTER (nd->server + 1);
        guint count = GPOINTER_TO_UINT (g_hash_table_lookup (per_server, key)) + 1;
        g_hash_table_insert (per_server, key, GUINT_TO_POINTER (count));
        most = MAX (most, count);
    }
    return spans && most > 0 ? MIN (most, 64) : 1;
}

static const char *const redops[] = { "sum", "none" };

/* The ops whose buffer is split among the ranks: nccl-tests rounds each rank's share and
 * prints it as the count. */
static gboolean
split_op (WeftCollOp op)
{
    return op == WEFT_COLL_ALL_GATHER || op == WEFT_COLL_REDUCE_SCATTER ||
           op == WEFT_COLL_ALL_TO_ALL;
}

/* nccl-tests' size for a requested @size: whole elements of @esize, and for a split op a
 * per-rank share of whole 16-byte units (all element sizes divide 16). */
static guint64
rounded_size (WeftCollOp op, guint64 size, guint esize, guint n_ranks)
{
    guint64 unit = split_op (op) ? (guint64) 16 * n_ranks : esize;
    return size / unit * unit;
}

/* The nodes a transfer from @src to @dst passes through as separate transports, into @hops;
 * returns their count (2: direct).  With GPUDirect off, a GPU's data to or from another
 * server is staged in its server's host memory (weft_graph_staging: the CPU) and the NIC of
 * its rail (weft_graph_gateway) moves it between host memories: GPU -> CPU (a copy over PCIe),
 * CPU -> NIC (the NIC's DMA read), NIC -> NIC (RDMA over the fabric), NIC -> CPU (DMA write),
 * CPU -> GPU (a copy).  The copies and DMAs cross the PCIe switch's uplink to the CPU, so
 * staging costs exactly what sharing that link costs - nothing is scaled by a factor.
 * @epoch: the staging epoch the collective starts in (sim/graph.h); *staged is set when a
 * leg goes through host memory. */
static guint
staging_legs (const WeftGraph *g, guint32 coll, guint epoch, guint32 src, guint32 dst,
              guint32 *hops, gboolean *staged)
{
    guint n = 0;
    hops[n++] = src;
    const WeftNode *a = weft_graph_node (g, src), *b = weft_graph_node (g, dst);
    gboolean cross = a->server != b->server || a->server < 0;
    /* GPUDirect off (every server, or one: [fault.NAME] kind = gpudirect-off) shows as a
     * staging node other than the endpoint itself. */
    if (cross) {
        /* (one server's GPUDirect may go off from a later collective on, or for a time) */
        guint32 sa = weft_graph_staging_in (g, src, coll, epoch),
                sb = weft_graph_staging_in (g, dst, coll, epoch);
        guint32 na = weft_graph_gateway (g, src), nb = weft_graph_gateway (g, dst);
        if (sa != src && na != WEFT_GRAPH_NONE) {
            hops[n++] = sa;
            hops[n++] = na;
            *staged = TRUE;
        } else if (na != WEFT_GRAPH_NONE && a->kind == WEFT_NODE_GPU && a->rail >= 0 &&
                   weft_graph_node (g, na)->rail >= 0 && weft_graph_node (g, na)->rail != a->rail) {
            /* The GPU's own NIC was removed (nic-removed): its connection lives on the NIC that
             * stands in (its gateway), which reads the data across PCIe.  A separate leg keeps
             * the data on that NIC: the route tables would pick any of the equally near NICs
             * by destination. */
            hops[n++] = na;
        }
        if (sb != dst && nb != WEFT_GRAPH_NONE) {
            hops[n++] = nb;
            hops[n++] = sb;
            *staged = TRUE;
        }
    }
    hops[n++] = dst;
    return n;
}

/* Whether some transfer of @xfers is laid out differently in a later staging epoch than in
 * epoch 0 (GPUDirect off for a window of time): the collective then needs a layout per
 * epoch, chosen as it starts. */
static gboolean
layout_varies (const WeftGraph *g, guint32 coll, const GArray *xfers)
{
    guint n_epochs = weft_graph_staging_n_epochs (g);
    for (guint i = 0; i < xfers->len && n_epochs > 1; i++) {
        const WeftCollXfer *t = &g_array_index (xfers, WeftCollXfer, i);
        guint32 h0[6], h[6];
        gboolean staged = FALSE;
        guint n0 = staging_legs (g, coll, 0, t->src, t->dst, h0, &staged);
        for (guint e = 1; e < n_epochs; e++) {
            guint n = staging_legs (g, coll, e, t->src, t->dst, h, &staged);
            if (n != n0 || memcmp (h, h0, n * sizeof *h) != 0)
                return TRUE;
        }
    }
    return FALSE;
}

/* One collective operation: its transfers become flows, in generation order. */
gboolean
weft_workload_emit_collective (Ctx *x, const WeftCollSpec *spec, WeftCollInstance *inst,
                               double efficiency, double net_efficiency, GError **error)
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
    guint32 coll = x->colls->len;
    /* One layout, or with GPUDirect off for a window of time one per staging epoch, each
     * complete with its own dependencies: the transport runs the one of the epoch the
     * collective starts in (sim/graph.h). */
    guint n_layouts = layout_varies (x->g, coll, xfers) ? weft_graph_staging_n_epochs (x->g) : 1;
    inst->n_layouts = (guint16) n_layouts;
    inst->staged_layouts = 0;
    /* Each transfer becomes one flow, or with GPUDirect off a chain of legs through host
     * memory; first[i] and last[i] are transfer i's first and last flows (generation order). */
    guint64 *first = g_new (guint64, MAX (xfers->len, 1));
    guint64 *last = g_new (guint64, MAX (xfers->len, 1));
    gboolean ok = TRUE;
    for (guint e = 0; e < n_layouts && ok; e++) {
        gboolean staged = FALSE;
        for (guint i = 0; i < xfers->len && ok; i++) {
            const WeftCollXfer *t = &g_array_index (xfers, WeftCollXfer, i);
            guint32 hops[6];
            guint n = staging_legs (x->g, coll, e, t->src, t->dst, hops, &staged);
            first[i] = *x->seq;
            for (guint k = 0; k + 1 < n && ok; k++) {
                ok = weft_workload_emit (x, hops[k], hops[k + 1], t->bytes, x->c.start, error);
                if (!ok)
                    break;
                WeftFlowSpec *f = &g_array_index (x->out, WeftFlowSpec, x->out->len - 1);
                f->delay_ps = k == 0 ? t->delay_ps : 0;
                /* One connection per workload and channel (and peer): slices go in order. */
                f->conn = ((x->group_index + 1) << 8) | (t->channel & 0xff);
                f->coll = coll;
                f->layout = n_layouts > 1 ? (guint16) (e + 1) : 0;
                const WeftNode *a = weft_graph_node (x->g, hops[k]),
                               *b = weft_graph_node (x->g, hops[k + 1]);
                /* The protocol efficiency of NVLink applies between two GPUs of one server, or
                 * a GPU and its NVSwitch (NVLS); everything else (the fabric, PCIe staging)
                 * takes net_efficiency. */
                gboolean nvlink = (a->kind == WEFT_NODE_GPU || a->kind == WEFT_NODE_NVSWITCH) &&
                                  (b->kind == WEFT_NODE_GPU || b->kind == WEFT_NODE_NVSWITCH) &&
                                  a->kind + b->kind != 2 * WEFT_NODE_NVSWITCH;
                f->efficiency = nvlink && a->server >= 0 && a->server == b->server ? efficiency
                                                                                   : net_efficiency;
                if (k > 0) {
                    WeftFlowDep leg = { (guint32) (*x->seq - 2), (guint32) (*x->seq - 1) };
                    g_array_append_val (x->deps, leg);
                }
            }
            last[i] = *x->seq - 1;
        }
        if (staged)
            inst->staged_layouts |= (guint64) 1 << e;
        for (guint i = 0; i < cdeps->len && ok; i++) {
            const WeftCollDep *d = &g_array_index (cdeps, WeftCollDep, i);
            WeftFlowDep fd = { (guint32) last[d->before], (guint32) first[d->after] };
            g_array_append_val (x->deps, fd);
        }
    }
    inst->n_flows = (guint32) (*x->seq - base);
    g_free (first);
    g_free (last);
    if (!ok)
        return FALSE;
    g_array_append_val (x->colls, *inst);
    return TRUE;
}

/* A time or size key that is "auto" or a value in [lo, hi]: *set is FALSE for auto. */
static gboolean
parse_auto (Ctx *x, const char *key, const char *text, gboolean time, guint64 lo, guint64 hi,
            guint64 *out, gboolean *set, GError **error)
{
    g_autofree char *v = g_strstrip (g_strdup (text ? text : ""));
    *set = FALSE;
    if (*v == '\0' || g_ascii_strcasecmp (v, "auto") == 0)
        return TRUE;
    g_autoptr (GError) local = NULL;
    gboolean ok =
        time ? weft_units_parse_time (v, out, &local) : weft_units_parse_bytes (v, out, &local);
    if (!ok)
        return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_UNIT, x->group, key,
                                     "expected auto or a %s: %s", time ? "time" : "size",
                                     local->message);
    if (*out < lo || *out > hi)
        return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_RANGE, x->group, key,
                                     "%s is out of range: expected auto or %s", v,
                                     time ? "0ps to 1ms" : "1KiB to 1GiB");
    *set = TRUE;
    return TRUE;
}

gboolean
weft_workload_coll_parse (Ctx *x, NcclParams *p, GError **error)
{
    g_autoptr (GError) local = NULL;
    weft_nccl_enable_default (&p->enable);
    if (!weft_nccl_parse_algos (p->algo, &p->enable, &local))
        return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_VALUE, x->group, "algo", "%s",
                                     local->message);
    if (!weft_nccl_parse_protos (p->proto, &p->enable, &local))
        return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_VALUE, x->group, "proto",
                                     "%s", local->message);
    gboolean direct = p->op == WEFT_COLL_ALL_TO_ALL || p->op == WEFT_COLL_SEND_RECV;
    gboolean nvls_op = p->op == WEFT_COLL_REDUCE_SCATTER || p->op == WEFT_COLL_ALL_GATHER;
    if (!direct && p->op != WEFT_COLL_ALL_REDUCE && !p->enable.algo[WEFT_COLL_RING] &&
        !(nvls_op && p->enable.algo[WEFT_COLL_NVLS]))
        return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_VALUE, x->group, "algo",
                                     "%s runs on the ring%s only (tree, collnetdirect and nvlstree "
                                     "are all_reduce algorithms): expected ring%s",
                                     weft_collective_op_name (p->op), nvls_op ? " or nvls" : "",
                                     nvls_op ? " or nvls" : "");
    gboolean set;
    if (!parse_auto (x, "chunk", p->chunk, FALSE, 1024, (guint64) 1 << 30, &p->chunk_bytes, &set,
                     error))
        return FALSE;
    if (!set)
        p->chunk_bytes = 0;
    guint64 v = 0;
    if (!parse_auto (x, "step_latency", p->step_latency, TRUE, 0, WEFT_MS (1), &v,
                     &p->step_latency_set, error))
        return FALSE;
    p->step_latency_ps = v;
    v = 0;
    if (!parse_auto (x, "base_latency", p->base_latency, TRUE, 0, WEFT_MS (1), &v,
                     &p->base_latency_set, error))
        return FALSE;
    p->base_latency_ps = v;
    return TRUE;
}

gboolean
weft_workload_coll_ranks (Ctx *x, const NcclParams *p, GArray *ranks, GError **error)
{
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
    return TRUE;
}

guint64
weft_workload_coll_type_bytes (int type)
{
    return types[type].size;
}

void
weft_workload_coll_spec (Ctx *x, const NcclParams *p, const GArray *ranks, CollComm *cc)
{
    const guint32 *r = (const guint32 *) ranks->data;
    guint n = ranks->len;
    cc->channels = p->channels ? (guint) p->channels : default_channels (x->g, r, n);
    cc->spec = (WeftCollSpec){ .op = p->op,
                               .algo = WEFT_COLL_RING,
                               .n_ranks = n,
                               .ranks = r,
                               .root = (guint) p->root,
                               .channels = cc->channels,
                               .pxn = p->pxn,
                               .graph = x->g };
    /* NCCL's graphs may use up to 16 channels; an explicit `channels` caps them, as
     * NCCL_MAX_NCHANNELS would. */
    WeftNcclComm comm = { 0 };
    weft_nccl_comm_from_graph (&comm, x->g, r, n, p->efficiency, p->channels ? cc->channels : 16);
    /* The in-switch algorithms where the ranks can run them: GPUs of one server on NVLink SHARP
     * switches, every rank behind an InfiniBand SHARP switch. */
    WeftCollSpec probe = cc->spec;
    probe.op = WEFT_COLL_ALL_REDUCE;
    probe.channels = probe.chunk_bytes = 1;
    probe.algo = WEFT_COLL_NVLS;
    comm.nvls = weft_collective_check (&probe, NULL);
    probe.algo = WEFT_COLL_COLLNET_DIRECT;
    comm.collnet = weft_collective_check (&probe, NULL);
    probe.algo = WEFT_COLL_NVLS_TREE;
    comm.nvls_tree = weft_collective_check (&probe, NULL);
    weft_nccl_tune_init (&cc->tune, &comm, &p->enable);
}

gboolean
weft_workload_coll_check (Ctx *x, const NcclParams *p, const CollComm *cc, GError **error)
{
    static const WeftCollAlgo in_switch[] = { WEFT_COLL_NVLS, WEFT_COLL_COLLNET_DIRECT,
                                              WEFT_COLL_NVLS_TREE };
    for (guint i = 0; i < G_N_ELEMENTS (in_switch); i++) {
        if (!p->enable.named[in_switch[i]])
            continue;
        WeftCollSpec probe = cc->spec;
        probe.channels = probe.chunk_bytes = 1;
        probe.algo = in_switch[i];
        g_autoptr (GError) local = NULL;
        if (!weft_collective_check (&probe, &local))
            return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_VALUE, x->group, "algo",
                                         "%s", local->message);
    }
    if (p->op == WEFT_COLL_ALL_TO_ALL || p->op == WEFT_COLL_SEND_RECV)
        return TRUE;
    WeftCollAlgo a;
    WeftNcclProto pr;
    if (!weft_nccl_tune_pick (&cc->tune, p->op, 1, &a, &pr)) {
        if (p->enable.named[WEFT_COLL_NVLS_TREE] && cc->tune.comm.n_nodes == 1)
            return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_VALUE, x->group, "algo",
                                         "%s: NVLSTree runs across servers only (NCCL turns it "
                                         "off inside one; nvls runs there)",
                                         weft_collective_op_name (p->op));
        return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_VALUE, x->group, "algo",
                                     "%s: none of the algorithms enabled runs here with the "
                                     "protocols enabled (NVLS, NVLSTree and CollNetDirect run "
                                     "Simple only)",
                                     weft_collective_op_name (p->op));
    }
    return TRUE;
}

void
weft_workload_coll_plan (const NcclParams *p, CollComm *cc, guint64 bytes, WeftNcclProto *proto)
{
    WeftCollSpec *spec = &cc->spec;
    WeftCollAlgo algo;
    spec->bytes = bytes;
    if (spec->op == WEFT_COLL_ALL_TO_ALL || spec->op == WEFT_COLL_SEND_RECV) {
        /* Point-to-point: outside NCCL's tuning model, Simple, 1 us per transfer as weft
         * always ran them (the chunk is not used: nothing is pipelined). */
        *proto = WEFT_NCCL_SIMPLE;
        spec->algo = WEFT_COLL_RING;
        spec->channels = cc->channels;
        spec->chunk_bytes = p->chunk_bytes ? p->chunk_bytes : 512 * 1024;
        spec->step_latency_ps = spec->net_step_latency_ps =
            p->step_latency_set ? p->step_latency_ps : WEFT_US (1);
        spec->base_latency_ps = p->base_latency_set ? p->base_latency_ps : 0;
        spec->line_bytes = spec->line_data = 1;
        return;
    }
    /* weft_workload_coll_parse refused lists that leave nothing to run the op. */
    gboolean ok = weft_nccl_tune_pick (&cc->tune, spec->op, bytes, &algo, proto);
    g_assert (ok);
    spec->algo = algo;
    spec->channels = p->channels
                         ? cc->channels
                         : weft_nccl_tune_channels (&cc->tune, algo, *proto, bytes, cc->channels);
    WeftNcclExec e = { 0 };
    weft_nccl_tune_exec (&cc->tune, algo, *proto, bytes, spec->channels, &e);
    spec->chunk_bytes = p->chunk_bytes ? p->chunk_bytes : e.chunk_bytes;
    spec->step_latency_ps = p->step_latency_set ? p->step_latency_ps : e.intra_step_ps;
    spec->net_step_latency_ps = p->step_latency_set ? p->step_latency_ps : e.net_step_ps;
    spec->base_latency_ps = p->base_latency_set ? p->base_latency_ps : e.base_ps;
    spec->line_bytes = e.line_bytes;
    spec->line_data = e.line_data;
}

void
weft_workload_coll_ran (const CollComm *cc, WeftNcclProto proto, WeftCollInstance *inst)
{
    gboolean direct = cc->spec.op == WEFT_COLL_ALL_TO_ALL || cc->spec.op == WEFT_COLL_SEND_RECV;
    inst->algo = direct ? -1 : (gint8) cc->spec.algo;
    inst->proto = (guint8) proto;
}

/* The instance's description (what /collectives and the tables show); gating is the
 * caller's. */
void
weft_workload_coll_instance (Ctx *x, const NcclParams *p, guint64 bytes, guint32 n_ranks,
                             guint32 rank_first, WeftCollInstance *inst)
{
    guint esize = types[p->type].size;
    *inst = (WeftCollInstance){ 0 };
    inst->group = x->group_index;
    inst->op = p->op;
    inst->bytes = bytes;
    inst->count = split_op (p->op) ? bytes / esize / MAX (n_ranks, 1) : bytes / esize;
    g_strlcpy (inst->type, types[p->type].name, sizeof inst->type);
    gboolean summing = p->op == WEFT_COLL_ALL_REDUCE || p->op == WEFT_COLL_REDUCE ||
                       p->op == WEFT_COLL_REDUCE_SCATTER || p->op == WEFT_COLL_SEND_RECV;
    g_strlcpy (inst->redop, redops[summing ? 0 : 1], sizeof inst->redop);
    inst->root = p->op == WEFT_COLL_BROADCAST || p->op == WEFT_COLL_REDUCE ? (gint32) p->root : -1;
    inst->n_ranks = n_ranks;
    inst->rank_first = rank_first;
    inst->bus_factor = weft_collective_bus_factor (p->op, n_ranks);
    inst->gate = G_MAXUINT32;
}

gboolean
weft_workload_gen_nccl (Ctx *x, NcclParams *p, GError **error)
{
    g_autoptr (GArray) ranks = g_array_new (FALSE, FALSE, sizeof (guint32));
    if (!weft_workload_coll_parse (x, p, error) || !weft_workload_coll_ranks (x, p, ranks, error))
        return FALSE;
    guint n = ranks->len;
    if (p->root >= n)
        return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_RANGE, x->group, "root",
                                     "rank %" G_GUINT64_FORMAT " of %u ranks: expected 0 to %u",
                                     p->root, n, n - 1);
    if (p->minbytes > p->maxbytes)
        return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_RANGE, x->group, "minbytes",
                                     "larger than maxbytes");
    guint esize = types[p->type].size;
    g_autofree CollComm *cc = g_new (CollComm, 1); /* its tuning table is a few KiB */
    weft_workload_coll_spec (x, p, ranks, cc);
    if (!weft_workload_coll_check (x, p, cc, error))
        return FALSE;
    guint32 prev = G_MAXUINT32;
    guint32 rank_first = x->ranks->len;
    g_array_append_vals (x->ranks, ranks->data, n);
    for (guint64 size = p->minbytes; size <= p->maxbytes; size *= p->stepfactor) {
        guint64 bytes = rounded_size (p->op, size, esize, n);
        if (bytes == 0) {
            guint64 least = split_op (p->op) ? (guint64) 16 * n : esize;
            return weft_experiment_fail (
                x->exp, error, WEFT_CONFIG_ERROR_RANGE, x->group, "minbytes",
                "%" G_GUINT64_FORMAT "B rounds down to nothing (nccl-tests' sizes are whole "
                "elements%s): expected at least %" G_GUINT64_FORMAT "B",
                size, split_op (p->op) ? ", 16 bytes per rank" : "", least);
        }
        WeftNcclProto proto;
        weft_workload_coll_plan (p, cc, bytes, &proto);
        guint64 runs = p->warmup_iters + 2 * p->iters;
        for (guint64 k = 0; k < runs; k++) {
            WeftCollInstance inst;
            weft_workload_coll_instance (x, p, bytes, n, rank_first, &inst);
            inst.warmup = k < p->warmup_iters;
            inst.in_place = k >= p->warmup_iters + p->iters;
            inst.iteration = (guint32) (inst.warmup     ? k
                                        : inst.in_place ? k - p->warmup_iters - p->iters
                                                        : k - p->warmup_iters);
            inst.gate = prev;
            inst.gap_ps = prev == G_MAXUINT32 ? x->c.start : 0;
            weft_workload_coll_ran (cc, proto, &inst);
            if (!weft_workload_emit_collective (x, &cc->spec, &inst, p->efficiency,
                                                p->net_efficiency, error))
                return FALSE;
            prev = x->colls->len - 1;
        }
        if (p->maxbytes / p->stepfactor < size)
            break; /* the next step would overflow or pass maxbytes */
    }
    return TRUE;
}
