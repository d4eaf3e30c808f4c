/* workloads/workload_train.c - kind = training: data-parallel training steps, as PyTorch DDP
 * (with optional Megatron-style tensor parallelism) runs them.
 *
 * A step is a compute phase of `compute` (forward, then backward: the last backward_fraction
 * of it) during which the gradients become ready in `buckets` buckets of `bucket_size` each:
 * bucket i is ready when i+1 of the buckets' equal shares of the backward pass are done,
 *     ready_i = compute x (1 - backward_fraction) + compute x backward_fraction x (i+1)/buckets,
 * so the last one is ready when the compute ends.  Each bucket is all-reduced over its
 * data-parallel group once it is ready and the previous bucket's all-reduce has completed
 * (NCCL runs a communicator's collectives one after another on one stream): the all-reduces
 * overlap the rest of the backward pass, and what is left after the compute is exposed.  The
 * next step starts when the last all-reduce has completed (and, always earlier, the compute
 * has ended): the optimizer step is not modelled (no time).
 *
 * Tensor parallelism (tp_size > 1): consecutive ranks, tp_size of them, inside one server
 * form a TP group; the data-parallel groups are the ranks with the same index in their TP
 * group (Megatron's layout), each all-reducing its own buckets on its own stream, all at
 * once.  Each step begins with one all-reduce of tp_bytes in every TP group, standing for the
 * layers' activation all-reduces, which block the compute in a real run and so are modelled
 * as fully exposed, before it; the compute starts when every TP group has finished, and the
 * next step waits for every data-parallel group.
 *
 * How each all-reduce runs (algorithm and protocol, chosen by NCCL's model for the bucket's or
 * tp_bytes' size unless `algo` / `proto` restrict them; channels, chunk, latencies, efficiency,
 * PXN, type) is nccl-test's: the same keys, the same expansion (workloads/workload_coll.c).
 * Each bucket size is rounded down to a whole number of elements.
 *
 * Gating (models/transport.h): bucket i of step k is gated on every TP all-reduce of step k
 * (gap: ready_i), or without TP on the data-parallel groups' last all-reduces of step k-1
 * (gap: ready_i; step 0: a time floor of start + ready_i), and on bucket i-1 of its group (gap
 * 0); a TP all-reduce of step k > 0 on every group's last all-reduce of step k-1.
 *
 * The step report (weft_network_training_steps) derives step k's start as the earliest
 * (start - ready) of its collectives and its end as the later of its last collective's
 * finish and the compute's end; exposed communication is step time - compute.
 */
#include "config.h"
#define G_LOG_DOMAIN "weft-workload"

#include "workloads/collective.h"
#include "workloads/workload_private.h"

const WeftParamSpec weft_workload_train_params[] = {
    WEFT_PARAM_UINT ("steps", TrainParams, steps, "3", "1", "1000000",
                     "training steps (iterations) to run, one after another"),
    WEFT_PARAM_TIME ("compute", TrainParams, compute, "10ms", "0ps", "3600s",
                     "forward + backward compute time of one step (0: communication only)"),
    WEFT_PARAM_DOUBLE ("backward_fraction", TrainParams, backward_fraction, "0.667", "0", "1",
                       "the backward pass's share of compute (about 2/3: backward costs twice "
                       "the forward); buckets become ready evenly over it"),
    WEFT_PARAM_UINT ("buckets", TrainParams, buckets, "4", "1", "100000",
                     "gradient buckets per step, all-reduced in order (DDP: model size / "
                     "bucket_cap_mb)"),
    WEFT_PARAM_BYTES ("bucket_size", TrainParams, bucket_size, "25MiB", "1B", "64GiB",
                      "bytes per bucket (DDP's bucket_cap_mb default: 25 MiB)"),
    WEFT_PARAM_UINT ("tp_size", TrainParams, tp_size, "1", "1", "1024",
                     "tensor-parallel group size: consecutive ranks inside one server; 1: "
                     "data parallelism only"),
    WEFT_PARAM_BYTES ("tp_bytes", TrainParams, tp_bytes, "0B", "0B", "64GiB",
                      "tp_size > 1: bytes all-reduced in every TP group at the start of each "
                      "step (the activations' all-reduces of the forward and backward passes)"),
    WEFT_WORKLOAD_COLL_PARAMS (TrainParams, coll.),
    WEFT_PARAM_END,
};

static void
gate (Ctx *x, guint32 before, guint32 after, weft_time_t gap_ps)
{
    WeftCollGate e = { before, after, gap_ps };
    g_array_append_val (x->gates, e);
}

typedef struct {
    GArray *ranks; /* guint32 node ids of this group */
    guint32 rank_first;
    CollComm *cc;        /* its all-reduce, planned for its one size (owned) */
    WeftNcclProto proto; /* the protocol NCCL chose for it */
} Group;

/* Group @gr of @ranks (taken), all-reducing @bytes (rounded down to whole elements) each time. */
static void
group_init (Ctx *x, const NcclParams *p, Group *gr, GArray *ranks, guint64 bytes)
{
    gr->ranks = ranks;
    gr->rank_first = x->ranks->len;
    g_array_append_vals (x->ranks, ranks->data, ranks->len);
    gr->cc = g_new (CollComm, 1);
    weft_workload_coll_spec (x, p, ranks, gr->cc);
    guint64 esize = weft_workload_coll_type_bytes (p->type);
    weft_workload_coll_plan (p, gr->cc, bytes / esize * esize, &gr->proto);
}

static gboolean
check_params (Ctx *x, const TrainParams *p, guint n, GError **error)
{
    if (weft_workload_has_key (x, "tp_bytes") && p->tp_size == 1)
        return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_UNKNOWN_KEY, x->group,
                                     "tp_bytes", "only used with tp_size > 1");
    if (p->tp_size > 1 && p->tp_bytes == 0)
        return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_RANGE, x->group, "tp_bytes",
                                     "0B: tp_size > 1 needs the bytes its "
                                     "all-reduce carries per step");
    if (n % p->tp_size != 0 || n / p->tp_size < 2)
        return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_RANGE, x->group, "tp_size",
                                     "%" G_GUINT64_FORMAT " with %u ranks: expected a divisor "
                                     "of the ranks that leaves at least 2 data-parallel ranks",
                                     p->tp_size, n);
    if (p->bucket_size < weft_workload_coll_type_bytes (p->coll.type))
        return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_RANGE, x->group,
                                     "bucket_size", "less than one element of the type");
    if (p->tp_size > 1 && p->tp_bytes < weft_workload_coll_type_bytes (p->coll.type))
        return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_RANGE, x->group, "tp_bytes",
                                     "less than one element of the type");
    return TRUE;
}

/* One training group being expanded: its all-reduce, its TP and DP groups, the instance ids. */
typedef struct {
    Ctx *x;
    const TrainParams *tp;
    NcclParams p;        /* every all-reduce's keys */
    guint t, n_tp, n_dp; /* TP group size; TP groups (0 without TP); DP groups */
    Group *tpg, *dpg;
    weft_time_t fwd, bwd;   /* the compute's forward and backward parts */
    guint32 base, per_step; /* the first instance id, and instances per step */
} Train;

/* Instance ids, relative to base: step k's TP groups, then its buckets (bucket-major). */

/* The instance id of step k's all-reduce in TP group j. */
static guint32
tp_id (const Train *s, guint64 k, guint j)
{
    return s->base + (guint32) k * s->per_step + (guint32) j;
}

/* The instance id of step k's bucket i in DP group d. */
static guint32
dp_id (const Train *s, guint64 k, guint64 i, guint d)
{
    return s->base + (guint32) k * s->per_step + s->n_tp + (guint32) i * s->n_dp + (guint32) d;
}

/* Forms TP group j from ranks j*t .. j*t+t-1, refusing a group that spans servers. */
static gboolean
make_tp_groups (Train *s, const guint32 *r, GError **error)
{
    Ctx *x = s->x;
    guint t = s->t;
    gboolean ok = TRUE;
    for (guint j = 0; j < s->n_tp && ok; j++) {
        GArray *ranks = g_array_new (FALSE, FALSE, sizeof (guint32));
        g_array_append_vals (ranks, r + j * t, t);
        gint32 server = weft_graph_node (x->g, r[j * t])->server;
        for (guint k = 1; k < t && ok; k++)
            if (server < 0 || weft_graph_node (x->g, r[j * t + k])->server != server)
                ok = weft_experiment_fail (
                    x->exp, error, WEFT_CONFIG_ERROR_VALUE, x->group, "tp_size",
                    "tensor-parallel group %u (%s ...) spans servers: expected tp_size "
                    "consecutive ranks in one server",
                    j, weft_graph_node (x->g, r[j * t])->name);
        group_init (x, &s->p, &s->tpg[j], ranks, s->tp->tp_bytes);
    }
    return ok;
}

/* Forms DP group d from ranks d, t+d, 2t+d, ... of the @n. */
static void
make_dp_groups (Train *s, const guint32 *r, guint n)
{
    for (guint d = 0; d < s->n_dp; d++) {
        GArray *ranks = g_array_new (FALSE, FALSE, sizeof (guint32));
        for (guint i = d; i < n; i += s->t)
            g_array_append_val (ranks, r[i]);
        group_init (s->x, &s->p, &s->dpg[d], ranks, s->tp->bucket_size);
    }
}

/* Emits step k's TP all-reduces, each gated on every DP group's last bucket of step k-1. */
static gboolean
emit_tp_step (Train *s, guint64 k, GError **error)
{
    Ctx *x = s->x;
    const TrainParams *tp = s->tp;
    gboolean ok = TRUE;
    for (guint j = 0; j < s->n_tp && ok; j++) {
        WeftCollInstance inst;
        weft_workload_coll_instance (x, &s->p, s->tpg[j].cc->spec.bytes, s->t, s->tpg[j].rank_first,
                                     &inst);
        weft_workload_coll_ran (s->tpg[j].cc, s->tpg[j].proto, &inst);
        inst.role = WEFT_COLL_ROLE_TP;
        inst.in_place = 1;
        inst.iteration = inst.step = (guint32) k;
        inst.index = j;
        inst.compute_ps = tp->compute;
        inst.gap_ps = x->c.start;
        g_assert (x->colls->len == tp_id (s, k, j));
        for (guint d = 0; k > 0 && d < s->n_dp; d++)
            gate (x, dp_id (s, k - 1, tp->buckets - 1, d), tp_id (s, k, j), 0);
        ok = weft_workload_emit_collective (x, &s->tpg[j].cc->spec, &inst, s->p.efficiency,
                                            s->p.net_efficiency, error);
    }
    return ok;
}

/* Emits step k's bucket i in every DP group, ready once its share of the backward pass is done. */
static gboolean
emit_bucket (Train *s, guint64 k, guint64 i, GError **error)
{
    Ctx *x = s->x;
    const TrainParams *tp = s->tp;
    guint n_tp = s->n_tp, n_dp = s->n_dp;
    weft_time_t ready =
        s->fwd + (weft_time_t) ((double) s->bwd * (double) (i + 1) / (double) tp->buckets);
    if (i + 1 == tp->buckets)
        ready = tp->compute; /* exactly, whatever the rounding */
    gboolean ok = TRUE;
    for (guint d = 0; d < n_dp && ok; d++) {
        WeftCollInstance inst;
        weft_workload_coll_instance (x, &s->p, s->dpg[d].cc->spec.bytes, s->dpg[d].ranks->len,
                                     s->dpg[d].rank_first, &inst);
        weft_workload_coll_ran (s->dpg[d].cc, s->dpg[d].proto, &inst);
        inst.role = WEFT_COLL_ROLE_DP_BUCKET;
        inst.in_place = 1;
        inst.iteration = inst.step = (guint32) k;
        inst.index = (guint32) i;
        inst.dp_group = d;
        inst.compute_ps = tp->compute;
        inst.ready_ps = ready;
        guint32 id = dp_id (s, k, i, d);
        g_assert (x->colls->len == id);
        /* The compute it waits for starts with the step (after the TP all-reduces). */
        inst.gap_ps = x->c.start + (n_tp == 0 && k == 0 ? ready : 0);
        for (guint j = 0; j < n_tp; j++)
            gate (x, tp_id (s, k, j), id, ready);
        for (guint e = 0; n_tp == 0 && k > 0 && e < n_dp; e++)
            gate (x, dp_id (s, k - 1, tp->buckets - 1, e), id, ready);
        if (i > 0)
            gate (x, dp_id (s, k, i - 1, d), id, 0); /* one stream, in order */
        ok = weft_workload_emit_collective (x, &s->dpg[d].cc->spec, &inst, s->p.efficiency,
                                            s->p.net_efficiency, error);
    }
    return ok;
}

/* Frees @n groups and their rank arrays (NULL where a group was never formed). */
static void
groups_free (Group *gr, guint n)
{
    for (guint j = 0; j < n; j++) {
        if (gr[j].ranks)
            g_array_unref (gr[j].ranks);
        g_free (gr[j].cc);
    }
    g_free (gr);
}

gboolean
weft_workload_gen_training (Ctx *x, const TrainParams *tp, GError **error)
{
    Train s = { .x = x, .tp = tp, .p = tp->coll };
    s.p.op = WEFT_COLL_ALL_REDUCE; /* DDP and TP reduce with all-reduce */
    s.p.root = 0;
    g_autoptr (GArray) all = g_array_new (FALSE, FALSE, sizeof (guint32));
    if (!weft_workload_coll_parse (x, &s.p, error) ||
        !weft_workload_coll_ranks (x, &s.p, all, error))
        return FALSE;
    guint n = all->len;
    if (!check_params (x, tp, n, error))
        return FALSE;
    s.t = (guint) tp->tp_size;
    s.n_dp = s.t;
    s.n_tp = s.t > 1 ? n / s.t : 0;
    const guint32 *r = (const guint32 *) all->data;

    /* TP group j: ranks j*t .. j*t+t-1, inside one server.  DP group d: ranks d, t+d, ... */
    s.tpg = g_new0 (Group, MAX (s.n_tp, 1));
    s.dpg = g_new0 (Group, s.n_dp);
    gboolean ok = make_tp_groups (&s, r, error);
    if (ok)
        make_dp_groups (&s, r, n);
    for (guint j = 0; j < s.n_tp && ok; j++)
        ok = weft_workload_coll_check (x, &s.p, s.tpg[j].cc, error);
    for (guint d = 0; d < s.n_dp && ok; d++)
        ok = weft_workload_coll_check (x, &s.p, s.dpg[d].cc, error);

    s.fwd = (weft_time_t) ((double) tp->compute * (1 - tp->backward_fraction));
    s.bwd = tp->compute - s.fwd;
    s.base = x->colls->len;
    s.per_step = (guint32) (s.n_tp + s.n_dp * tp->buckets);
    for (guint64 k = 0; k < tp->steps && ok; k++) {
        ok = emit_tp_step (&s, k, error);
        for (guint64 i = 0; i < tp->buckets && ok; i++)
            ok = emit_bucket (&s, k, i, error);
    }
    groups_free (s.tpg, s.n_tp);
    groups_free (s.dpg, s.n_dp);
    return ok;
}
