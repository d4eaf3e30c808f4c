/* workloads/workload.c - the workload module's parameter tables, the checks that refuse keys the
 * chosen kind, size distribution or arrival process would ignore, size distributions from
 * keys, and the driver that merges every group's flows.  The generators are in workload_gen.c. */
#include "config.h"
#define G_LOG_DOMAIN "weft-workload"
#include "workloads/workload.h"

#include <math.h>
#include <string.h>

#include "workloads/workload_private.h"
#include "sim/rng.h"
#include "sim/units.h"

/* ---- parameter tables ------------------------------------------------------------------- */

static const char *const kind_names[] = { "flows",       "permutation",  "incast",
                                          "all_to_all",  "nccl-test",    "training",
                                          "ib_write_bw", "ib_write_lat", NULL };
static const char *const dist_names[] = { "fixed", "exponential", "lognormal", "pareto",
                                          "uniform" };

static const WeftParamSpec common_params[] = {
    WEFT_PARAM_ENUM ("kind", Common, kind, NULL, KIND_CHOICES,
                     "traffic pattern: an explicit list, a permutation, N:1 incast, all-to-all"),
    WEFT_PARAM_BYTES ("flow_size", Common, flow_size, "1MiB", "1B", "1TiB",
                      "size of every flow when size_dist = fixed and no size_cdf"),
    WEFT_PARAM_ENUM ("size_dist", Common, size_dist, "fixed",
                     "fixed|exponential|lognormal|pareto|uniform",
                     "flow-size distribution (GSL); its parameters are the size_* keys"),
    WEFT_PARAM_BYTES ("size_mean", Common, size_mean, "1MiB", "1B", "1TiB",
                      "mean size for exponential, lognormal (with size_sigma) and pareto"),
    WEFT_PARAM_DOUBLE ("size_sigma", Common, size_sigma, "1", "0", "10",
                       "lognormal: standard deviation of ln(size in bytes)"),
    WEFT_PARAM_DOUBLE ("size_mu", Common, size_mu, "10", "0", "50",
                       "lognormal: mean of ln(size in bytes), instead of size_mean"),
    WEFT_PARAM_DOUBLE ("size_shape", Common, size_shape, "1.5", "1.001", "100",
                       "pareto: shape alpha (> 1 for a finite mean)"),
    WEFT_PARAM_BYTES ("size_min", Common, size_min, "1KiB", "1B", "1TiB",
                      "uniform: smallest size (inclusive)"),
    WEFT_PARAM_BYTES ("size_max", Common, size_max, "1MiB", "1B", "1TiB",
                      "uniform: largest size (inclusive)"),
    WEFT_PARAM_STRING ("size_cdf", Common, size_cdf, "",
                       "empirical size CDF file ('bytes percent' lines), relative to the "
                       "experiment file; e.g. cdf/websearch.txt"),
    WEFT_PARAM_TIME ("start", Common, start, "0us", "0ps", "3600s",
                     "start of every flow (fixed arrivals) or of the arrival process (poisson)"),
    WEFT_PARAM_TIME ("jitter", Common, jitter, "0us", "0ps", "3600s",
                     "fixed arrivals: each start is delayed by a uniform draw in [0, jitter]"),
    WEFT_PARAM_ENUM ("arrival", Common, arrival, "fixed", "fixed|poisson",
                     "fixed: one round of flows at start; poisson: arrivals per sender at load"),
    WEFT_PARAM_DOUBLE ("load", Common, load, "0.5", "0.0001", "1",
                       "poisson: offered load as a fraction of each sender's link rate"),
    WEFT_PARAM_UINT ("count", Common, count, "0", "0", "1000000000",
                     "poisson: stop after this many flows in the group (0: no limit)"),
    WEFT_PARAM_TIME ("duration", Common, duration, "0us", "0ps", "3600s",
                     "poisson: arrivals from start for this long (0: no limit)"),
    WEFT_PARAM_LIST ("hosts", Common, hosts, "",
                     "endpoints taking part (names or ranges host0..host7; incast: the pool a "
                     "sender count draws from); default all hosts"),
    WEFT_PARAM_UINT ("sl", Common, sl, "0", "0", "15",
                     "InfiniBand service level of the group's flows ([infiniband] sl2vl maps it "
                     "to a virtual lane); must stay 0 on Ethernet"),
    WEFT_PARAM_END,
};

static const WeftParamSpec flows_params[] = {
    WEFT_PARAM_LIST ("flows", FlowsParams, flows, "",
                     "inline list: SRC>DST SIZE [START]; ... (e.g. host0>host1 1MiB 10us)"),
    WEFT_PARAM_STRING ("file", FlowsParams, file, "",
                       "CSV file of src,dst,size[,start] with units, relative to the "
                       "experiment file ('#' comments, optional header line)"),
    WEFT_PARAM_END,
};

static const WeftParamSpec perm_params[] = {
    WEFT_PARAM_ENUM ("pattern", PermParams, pattern, "random", "random|shift",
                     "random: a uniformly random derangement; shift: host i sends to i + shift"),
    WEFT_PARAM_UINT ("shift", PermParams, shift, "1", "1", "100000000",
                     "pattern = shift: offset in the hosts list (not a multiple of its length)"),
    WEFT_PARAM_END,
};

static const WeftParamSpec incast_params[] = {
    WEFT_PARAM_STRING ("receiver", IncastParams, receiver, "",
                       "required: the endpoint every sender sends to"),
    WEFT_PARAM_LIST ("senders", IncastParams, senders, "",
                     "a count N (N hosts drawn at random, receiver excluded) or a list of "
                     "names; default every host but the receiver"),
    WEFT_PARAM_END,
};

static const WeftParamSpec all_to_all_params[] = {
    WEFT_PARAM_END,
};

static const WeftWorkloadKind kinds[] = {
    { "flows", "explicit flows, inline or from a CSV file", flows_params },
    { "permutation", "each host sends to exactly one other and receives from exactly one",
      perm_params },
    { "incast", "N senders to one receiver", incast_params },
    { "all_to_all", "every host to every other (poisson: a random other host per flow)",
      all_to_all_params },
    { "nccl-test",
      "an nccl-tests sweep: a collective over GPUs (or hosts) at each size, "
      "warm-up, out-of-place and in-place iterations, one after another",
      weft_workload_nccl_params },
    { "training",
      "data-parallel training steps: each gradient bucket is all-reduced as the "
      "backward pass makes it ready (one stream, in order); optionally a "
      "tensor-parallel all-reduce per server; step and exposed communication times",
      weft_workload_train_params },
    { "ib_write_bw",
      "perftest's RDMA write bandwidth between a device and a peer (a NIC, host "
      "or GPU): BW peak, BW average, message rate per size",
      weft_workload_perf_bw_params },
    { "ib_write_lat",
      "perftest's RDMA write latency: ping-pong between a device and a peer, "
      "half the round trip per sample",
      weft_workload_perf_lat_params },
    { NULL, NULL, NULL },
};

const WeftWorkloadKind *
weft_workload_kinds (void)
{
    return kinds;
}

const WeftParamSpec *
weft_workload_common_params (void)
{
    return common_params;
}

/* ---- shared helpers --------------------------------------------------------------------- */

gboolean
weft_workload_emit (Ctx *x, guint32 src, guint32 dst, guint64 size, weft_time_t start,
                    GError **error)
{
    if (x->out->len >= MAX_FLOWS) /* the caller's flows before this run's count too */
        return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_RANGE, x->group, NULL,
                                     "more than %u flows: reduce count, duration or hosts",
                                     MAX_FLOWS);
    if (G_UNLIKELY (x->budget && x->out->len >= x->budget->max_flows)) {
        const WeftFlowBudget *b = x->budget;
        return weft_experiment_fail (
            x->exp, error, WEFT_CONFIG_ERROR_RANGE, x->group, NULL,
            "more than %" G_GUINT64_FORMAT " flows, whose state (an estimated %" G_GUINT64_FORMAT
            " bytes a flow) needs more than the %.2f GiB that %s leaves once the fabric is "
            "built (doc/scale.md): expected a smaller workload, or more memory",
            b->max_flows, b->flow_bytes, weft_units_gib (b->bytes), b->limit);
    }
    WeftFlowSpec spec;
    memset (&spec, 0, sizeof spec); /* padding too, so equal flow arrays compare equal bytewise */
    spec.src = src;
    spec.dst = dst;
    spec.size_bytes = size;
    spec.start_ps = start;
    spec.group = x->group_index;
    spec.sl = (guint8) x->c.sl;
    spec.coll = G_MAXUINT32;
    if (*x->seq > 0 && start < g_array_index (x->out, WeftFlowSpec, x->out->len - 1).start_ps)
        *x->unsorted = TRUE;
    (*x->seq)++;
    g_array_append_val (x->out, spec);
    return TRUE;
}

gboolean
weft_workload_has_key (const Ctx *x, const char *key)
{
    return g_key_file_has_key (weft_experiment_keyfile (x->exp), x->group, key, NULL);
}

GPtrArray *
weft_workload_list_items (char **list)
{
    GPtrArray *a = g_ptr_array_new_with_free_func (g_free);
    for (guint i = 0; list && list[i]; i++) {
        char *s = g_strstrip (g_strdup (list[i]));
        if (*s)
            g_ptr_array_add (a, s);
        else
            g_free (s);
    }
    return a;
}

/* ---- sizes and start times -------------------------------------------------------------- */

static gboolean
make_size (Ctx *x, GError **error)
{
    const Common *c = &x->c;
    if (str_set (c->size_cdf)) {
        g_autofree char *dir = weft_experiment_dir_for (x->exp, x->group, "size_cdf");
        g_autofree char *path = g_path_is_absolute (c->size_cdf)
                                    ? g_strdup (c->size_cdf)
                                    : g_build_filename (dir, c->size_cdf, NULL);
        GError *local = NULL;
        x->size = weft_flowsize_new_cdf_load (path, &local);
        if (!x->size) {
            gboolean r = weft_experiment_fail (x->exp, error, (WeftConfigError) local->code,
                                               x->group, "size_cdf", "%s", local->message);
            g_error_free (local);
            return r;
        }
        return TRUE;
    }
    switch (c->size_dist) {
    case DIST_FIXED:
        x->size = weft_flowsize_new_fixed (c->flow_size);
        break;
    case DIST_EXPONENTIAL:
        x->size = weft_flowsize_new_exponential ((double) c->size_mean);
        break;
    case DIST_LOGNORMAL: {
        /* From the mean: E[X] = exp(mu + sigma^2 / 2). */
        double mu = weft_workload_has_key (x, "size_mu")
                        ? c->size_mu
                        : log ((double) c->size_mean) - c->size_sigma * c->size_sigma / 2;
        x->size = weft_flowsize_new_lognormal (mu, c->size_sigma);
        break;
    }
    case DIST_PARETO:
        x->size = weft_flowsize_new_pareto ((double) c->size_mean, c->size_shape);
        break;
    case DIST_UNIFORM:
        if (c->size_min > c->size_max)
            return weft_experiment_fail (
                x->exp, error, WEFT_CONFIG_ERROR_RANGE, x->group, "size_max",
                "size_max (%" G_GUINT64_FORMAT "B) is below size_min (%" G_GUINT64_FORMAT "B)",
                c->size_max, c->size_min);
        x->size = weft_flowsize_new_uniform (c->size_min, c->size_max);
        break;
    default:
        g_assert_not_reached ();
    }
    return TRUE;
}

/* ---- which keys apply ------------------------------------------------------------------- */

static gboolean
spec_has (const WeftParamSpec *spec, const char *key)
{
    for (; spec->name; spec++)
        if (strcmp (spec->name, key) == 0)
            return TRUE;
    return FALSE;
}

/* Before reading: the kind named in the group (-1 when missing or unknown: reading then
 * reports it), and no key that only another kind declares. */
static gboolean
check_kind_keys (const WeftExperiment *exp, const char *group, int *kind, GError **error)
{
    GKeyFile *kf = weft_experiment_keyfile (exp);
    g_autofree char *raw = g_key_file_get_value (kf, group, "kind", NULL);
    *kind = -1;
    if (!raw)
        return TRUE;
    g_strstrip (raw);
    for (int k = 0; k < N_KINDS; k++)
        if (strcmp (raw, kind_names[k]) == 0)
            *kind = k;
    if (*kind < 0)
        return TRUE;
    g_auto (GStrv) keys = g_key_file_get_keys (kf, group, NULL, NULL);
    for (guint i = 0; keys && keys[i]; i++) {
        if (spec_has (common_params, keys[i]) || spec_has (kinds[*kind].spec, keys[i]))
            continue;
        for (int k = 0; k < N_KINDS; k++)
            if (spec_has (kinds[k].spec, keys[i]))
                return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_UNKNOWN_KEY, group,
                                             keys[i], "not used by kind = %s (only by kind = %s)",
                                             kind_names[*kind], kind_names[k]);
    }
    return TRUE;
}

/* After reading: keys that the chosen size, arrival or pattern settings would ignore. */
static gboolean
check_applicable (Ctx *x, const PermParams *perm, GError **error)
{
    const Common *c = &x->c;
    gboolean perf = c->kind == KIND_IB_WRITE_BW || c->kind == KIND_IB_WRITE_LAT;
    gboolean coll = c->kind == KIND_NCCL_TEST || c->kind == KIND_TRAINING;
    if (c->kind == KIND_FLOWS || coll || perf) {
        const char *why = coll   ? "not used by collective kinds (the collective sets sizes and "
                                   "timing; `gpus` picks the ranks)"
                          : perf ? "not used by perftest kinds (device and peer are the "
                                   "endpoints; size or all the sizes)"
                                 : "not used by kind = flows (the list gives endpoints, sizes "
                                   "and start times)";
        for (const WeftParamSpec *s = common_params + 1; s->name; s++)
            if (strcmp (s->name, "sl") != 0 &&
                !((coll || perf) && strcmp (s->name, "start") == 0) &&
                weft_workload_has_key (x, s->name))
                return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_UNKNOWN_KEY, x->group,
                                             s->name, "%s", why);
        return TRUE;
    }
    gboolean cdf = str_set (c->size_cdf);
    int d = c->size_dist;
    g_autofree char *dist_why = g_strdup_printf ("not used with size_dist = %s", dist_names[d]);
    const char *arr_why = c->arrival == ARRIVAL_POISSON ? "not used with arrival = poisson"
                                                        : "only used with arrival = poisson";
    const struct {
        const char *key;
        gboolean used;
        const char *why;
    } rules[] = {
        { "flow_size", !cdf && d == DIST_FIXED, cdf ? "not used with size_cdf" : dist_why },
        { "size_dist", !cdf, "cannot be combined with size_cdf" },
        { "size_mean",
          !cdf && (d == DIST_EXPONENTIAL || d == DIST_PARETO ||
                   (d == DIST_LOGNORMAL && !weft_workload_has_key (x, "size_mu"))),
          cdf                   ? "not used with size_cdf"
          : d == DIST_LOGNORMAL ? "give size_mean or size_mu, not both"
                                : dist_why },
        { "size_sigma", !cdf && d == DIST_LOGNORMAL, cdf ? "not used with size_cdf" : dist_why },
        { "size_mu", !cdf && d == DIST_LOGNORMAL, cdf ? "not used with size_cdf" : dist_why },
        { "size_shape", !cdf && d == DIST_PARETO, cdf ? "not used with size_cdf" : dist_why },
        { "size_min", !cdf && d == DIST_UNIFORM, cdf ? "not used with size_cdf" : dist_why },
        { "size_max", !cdf && d == DIST_UNIFORM, cdf ? "not used with size_cdf" : dist_why },
        { "jitter", c->arrival == ARRIVAL_FIXED, arr_why },
        { "load", c->arrival == ARRIVAL_POISSON, arr_why },
        { "count", c->arrival == ARRIVAL_POISSON, arr_why },
        { "duration", c->arrival == ARRIVAL_POISSON, arr_why },
        { "shift", c->kind != KIND_PERMUTATION || perm->pattern == PATTERN_SHIFT,
          "only used with pattern = shift" },
    };
    for (guint i = 0; i < G_N_ELEMENTS (rules); i++)
        if (!rules[i].used && weft_workload_has_key (x, rules[i].key))
            return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_UNKNOWN_KEY, x->group,
                                         rules[i].key, "%s", rules[i].why);
    return TRUE;
}

/* ---- driver ----------------------------------------------------------------------------- */

/* @perf_only: NULL to generate; else only read the group, filling it when the group is a
 * perftest kind (and returning FALSE without an error when it is another kind). */
static gboolean
generate_group (Ctx *x, guint64 seed, WeftPerftestSpec *perf_only, GError **error)
{
    FlowsParams fp = { 0 };
    PermParams pp = { 0 };
    IncastParams ip = { 0 };
    AllToAllParams ap = { 0 };
    NcclParams np = { 0 };
    TrainParams tp = { 0 };
    PerfParams bw = { 0 }, lat = { 0 };
    void *objs[N_KINDS] = { &fp, &pp, &ip, &ap, &np, &tp, &bw, &lat };
    WeftParamBinding b[1 + N_KINDS];
    guint nb = 0;
    int kind;
    gboolean ok = FALSE;
    GArray *hosts = NULL;

    if (!check_kind_keys (x->exp, x->group, &kind, error))
        return FALSE;
    b[nb++] = (WeftParamBinding){ common_params, &x->c };
    /* With the kind unknown, bind every table so the kind's own error is what gets reported. */
    for (int k = 0; k < N_KINDS; k++)
        if (kind < 0 || k == kind)
            b[nb++] = (WeftParamBinding){ kinds[k].spec, objs[k] };
    if (!weft_params_read (x->exp, x->group, b, nb, error) || !check_applicable (x, &pp, error))
        goto out;

    if (perf_only) {
        if (x->c.kind == KIND_IB_WRITE_BW || x->c.kind == KIND_IB_WRITE_LAT) {
            gboolean latency = x->c.kind == KIND_IB_WRITE_LAT;
            ok = weft_workload_perf_spec (x, latency ? &lat : &bw, latency, perf_only, error);
        }
        goto out;
    }
    x->rng = weft_rng_new (seed, weft_rng_stream_for_name (x->group));
    if (x->c.kind == KIND_FLOWS) {
        ok = weft_workload_gen_flows (x, &fp, error);
        goto out;
    }
    if (x->c.kind == KIND_NCCL_TEST) {
        ok = weft_workload_gen_nccl (x, &np, error);
        goto out;
    }
    if (x->c.kind == KIND_TRAINING) {
        ok = weft_workload_gen_training (x, &tp, error);
        goto out;
    }
    if (x->c.kind == KIND_IB_WRITE_BW || x->c.kind == KIND_IB_WRITE_LAT) {
        gboolean latency = x->c.kind == KIND_IB_WRITE_LAT;
        ok = weft_workload_gen_perf (x, latency ? &lat : &bw, latency, error);
        goto out;
    }
    if (!make_size (x, error) || !(hosts = weft_workload_select_hosts (x, error)))
        goto out;
    switch (x->c.kind) {
    case KIND_PERMUTATION:
        ok = weft_workload_gen_permutation (x, &pp, hosts, error);
        break;
    case KIND_INCAST:
        ok = weft_workload_gen_incast (x, &ip, hosts, error);
        break;
    case KIND_ALL_TO_ALL:
        ok = weft_workload_gen_all_to_all (x, hosts, error);
        break;
    default:
        g_assert_not_reached ();
    }
out:
    if (hosts)
        g_array_unref (hosts);
    weft_params_clear (common_params, &x->c);
    for (int k = 0; k < N_KINDS; k++)
        weft_params_clear (kinds[k].spec, objs[k]);
    return ok;
}

/* Endpoint names for suggestions, NULL-terminated.  (transfer container) */
static GPtrArray *
endpoint_names (const WeftGraph *g)
{
    GPtrArray *names = g_ptr_array_new ();
    for (guint32 ep = 0; ep < weft_graph_n_endpoints (g); ep++)
        g_ptr_array_add (names, weft_graph_node (g, weft_graph_endpoint_node (g, ep))->name);
    g_ptr_array_add (names, NULL);
    return names;
}

gboolean
weft_workload_perftest_spec (const WeftExperiment *exp, const WeftGraph *g, const char *group,
                             WeftPerftestSpec *spec, GError **error)
{
    g_return_val_if_fail (exp != NULL && g != NULL && group != NULL && spec != NULL, FALSE);
    g_autoptr (GPtrArray) ep_names = endpoint_names (g);
    g_autoptr (GArray) out = g_array_new (FALSE, FALSE, sizeof (WeftFlowSpec));
    guint64 seq = 0;
    gboolean unsorted = FALSE;
    Ctx x = { .exp = exp,
              .g = g,
              .group = group,
              .out = out,
              .seq = &seq,
              .unsorted = &unsorted,
              .endpoint_names = ep_names };
    return generate_group (&x, 0, spec, error);
}

/* A flow's place in the sorted order: its start, then its generation index. */
typedef struct {
    weft_time_t start;
    guint32 seq;
} GenKey;

static gint
gen_key_cmp (gconstpointer a, gconstpointer b)
{
    const GenKey *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* What the groups generate, in generation order: the flows after the caller's, the rest before
 * it joins the caller's arrays. */
typedef struct {
    GArray *out;       /* WeftFlowSpec: the caller's flows */
    GArray *deps;      /* WeftFlowDep between generation indices */
    GArray *colls;     /* WeftCollInstance */
    GArray *gates;     /* WeftCollGate between indices into colls */
    GArray *ranks;     /* guint32 node ids */
    gboolean unsorted; /* some flow of out starts before the one before it */
} Generated;

/* Runs every [workload.NAME] group's generator in turn, each with its own generator state. */
static gboolean
generate_groups (const WeftExperiment *exp, const WeftGraph *g, guint64 seed, char **groups,
                 guint32 first_index, Generated *gen, const WeftFlowBudget *budget, GError **error)
{
    g_autoptr (GPtrArray) ep_names = endpoint_names (g);
    guint64 seq = 0;
    for (guint i = 0; groups[i]; i++) {
        Ctx x = { .exp = exp,
                  .g = g,
                  .group = groups[i],
                  .group_index = first_index + i,
                  .out = gen->out,
                  .seq = &seq,
                  .unsorted = &gen->unsorted,
                  .deps = gen->deps,
                  .colls = gen->colls,
                  .gates = gen->gates,
                  .ranks = gen->ranks,
                  .endpoint_names = ep_names,
                  .budget = budget };
        /* A server's GPUDirect may go off from this group's Nth collective on
         * ([fault.NAME] kind = gpudirect-off, after = workload.NAME.collective.N). */
        weft_graph_staging_number_group (g, groups[i], gen->colls->len);
        gboolean ok = generate_group (&x, seed, NULL, error);
        if (x.rng)
            gsl_rng_free (x.rng);
        weft_flowsize_free (x.size);
        if (!ok)
            return FALSE;
        g_debug ("[%s]: %" G_GUINT64_FORMAT " flows so far", groups[i], seq);
    }
    return TRUE;
}

/* Sorts the flows generated after @flows' first @base by (start, generation index) and numbers
 * them; returns each one's id by generation index.  In generation order they are sorted as
 * soon as their starts are, which most workloads (a collective sweep: 2.1 million flows) give:
 * then nothing moves.  (transfer full) */
static guint32 *
order_flows (GArray *flows, guint base, gboolean unsorted)
{
    guint n = flows->len - base;
    WeftFlowSpec *f = &g_array_index (flows, WeftFlowSpec, base);
    guint32 *id_of = g_new (guint32, MAX (n, 1));
    if (!unsorted) {
        for (guint i = 0; i < n; i++)
            id_of[i] = f[i].id = base + i;
        return id_of;
    }
    GenKey *key = g_new (GenKey, n);
    for (guint i = 0; i < n; i++)
        key[i] = (GenKey){ f[i].start_ps, i };
    qsort (key, n, sizeof *key, gen_key_cmp);
    WeftFlowSpec *sorted = g_new (WeftFlowSpec, n);
    for (guint i = 0; i < n; i++) {
        sorted[i] = f[key[i].seq];
        id_of[key[i].seq] = sorted[i].id = base + i;
    }
    memcpy (f, sorted, (gsize) n * sizeof *f);
    g_free (sorted);
    g_free (key);
    return id_of;
}

/* Appends the dependencies, gates, collectives and ranks, renumbered after what the arrays
 * already hold and mapped onto flow ids with @id_of. */
static void
append_collectives (const Generated *gen, const guint32 *id_of, GArray *deps, GArray *colls,
                    GArray *coll_gates, GArray *coll_ranks)
{
    for (guint i = 0; i < gen->deps->len; i++) {
        WeftFlowDep d = g_array_index (gen->deps, WeftFlowDep, i);
        d.before = id_of[d.before];
        d.after = id_of[d.after];
        g_array_append_val (deps, d);
    }
    guint32 coll_base = colls ? colls->len : 0;
    for (guint i = 0; i < gen->gates->len; i++) {
        WeftCollGate e = g_array_index (gen->gates, WeftCollGate, i);
        e.before += coll_base;
        e.after += coll_base;
        g_array_append_val (coll_gates, e);
    }
    for (guint i = 0; i < gen->colls->len; i++) {
        WeftCollInstance c = g_array_index (gen->colls, WeftCollInstance, i);
        c.rank_first += coll_ranks->len;
        if (c.gate != G_MAXUINT32)
            c.gate += coll_base;
        if (c.n_flows > 0) {
            guint32 first = id_of[c.first_flow];
            /* A collective's flows share one start, so they stay together when sorted. */
            for (guint32 k = 1; k < c.n_flows; k++)
                g_assert (id_of[c.first_flow + k] == first + k);
            c.first_flow = first;
        }
        g_array_append_val (colls, c);
    }
    if (coll_ranks)
        g_array_append_vals (coll_ranks, gen->ranks->data, gen->ranks->len);
}

gboolean
weft_workload_generate (const WeftExperiment *exp, const WeftGraph *g, guint64 seed, GArray *flows,
                        GArray *deps, GArray *colls, GArray *coll_gates, GArray *coll_ranks,
                        GPtrArray *names, const WeftFlowBudget *budget, GError **error)
{
    g_autoptr (GArray) gen_deps = g_array_new (FALSE, FALSE, sizeof (WeftFlowDep));
    g_autoptr (GArray) gen_colls = g_array_new (FALSE, TRUE, sizeof (WeftCollInstance));
    g_autoptr (GArray) gen_ranks = g_array_new (FALSE, FALSE, sizeof (guint32));
    g_autoptr (GArray) gen_gates = g_array_new (FALSE, FALSE, sizeof (WeftCollGate));
    g_return_val_if_fail (exp != NULL && g != NULL && flows != NULL && names != NULL, FALSE);
    g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
    g_auto (GStrv) groups = weft_experiment_groups_with_prefix (exp, "workload");
    if (!groups || !groups[0]) {
        g_set_error (error, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_MISSING,
                     "%s: no [workload.NAME] group: nothing to simulate (e.g. [workload.perm] "
                     "with kind = permutation)",
                     weft_experiment_path (exp));
        return FALSE;
    }

    /* The groups write their flows straight into @flows (no copy: the flagship sweep's are
     * 135 MB), which goes back to @base on any failure. */
    guint base = flows->len;
    Generated gen = {
        .out = flows, .deps = gen_deps, .colls = gen_colls, .gates = gen_gates, .ranks = gen_ranks
    };
    gboolean ok = generate_groups (exp, g, seed, groups, names->len, &gen, budget, error);
    if (ok && (gen_colls->len > 0 || gen_deps->len > 0) &&
        (!deps || !colls || !coll_gates || !coll_ranks))
        ok = weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_UNSUPPORTED, groups[0], NULL,
                                   "collective workloads are not supported here");
    if (!ok) {
        g_array_set_size (flows, base);
        return FALSE;
    }
    guint32 *id_of = order_flows (flows, base, gen.unsorted);
    append_collectives (&gen, id_of, deps, colls, coll_gates, coll_ranks);
    g_free (id_of);
    for (guint i = 0; groups[i]; i++)
        g_ptr_array_add (names, g_strdup (groups[i] + strlen ("workload.")));
    return TRUE;
}

/* ---- flows, before generating them ------------------------------------------------------- */

/* Names in a hosts or senders list, a range counted without expanding it; no more than
 * @n_endpoints (a longer list is refused when it is resolved). */
static guint64
count_names (char **list, guint64 n_endpoints)
{
    g_autoptr (GPtrArray) items = weft_workload_list_items (list);
    g_autoptr (GString) p0 = g_string_new (NULL);
    g_autoptr (GString) p1 = g_string_new (NULL);
    guint64 n = 0;
    for (guint i = 0; i < items->len; i++) {
        const char *item = items->pdata[i], *dots = strstr (item, "..");
        guint64 lo, hi;
        g_autofree char *a = dots ? g_strstrip (g_strndup (item, (gsize) (dots - item))) : NULL;
        g_autofree char *b = dots ? g_strstrip (g_strdup (dots + 2)) : NULL;
        g_autofree char *b_full = b && *b && strspn (b, "0123456789") == strlen (b) &&
                                          weft_workload_split_index (a, p0, &lo)
                                      ? g_strconcat (p0->str, b, NULL)
                                      : NULL;
        if (dots && weft_workload_split_index (a, p0, &lo) &&
            weft_workload_split_index (b_full ? b_full : b, p1, &hi) && lo <= hi)
            n += hi - lo + 1;
        else
            n++;
    }
    return MIN (n, n_endpoints);
}

static guint64
sat_mul (guint64 a, guint64 b)
{
    return a && b > G_MAXUINT64 / a ? G_MAXUINT64 : a * b;
}

/* One group's estimate, or 0 when its keys do not read. */
static guint64
estimate_group (const WeftExperiment *exp, const char *group, guint64 n_hosts, guint64 n_endpoints)
{
    int kind;
    if (!check_kind_keys (exp, group, &kind, NULL) || kind < 0)
        return 0;
    Common c = { 0 };
    FlowsParams fp = { 0 };
    PermParams pp = { 0 };
    IncastParams ip = { 0 };
    AllToAllParams ap = { 0 };
    NcclParams np = { 0 };
    TrainParams tp = { 0 };
    PerfParams bw = { 0 }, lat = { 0 };
    void *objs[N_KINDS] = { &fp, &pp, &ip, &ap, &np, &tp, &bw, &lat };
    WeftParamBinding b[2] = { { common_params, &c }, { kinds[kind].spec, objs[kind] } };
    guint64 n = 0;
    if (weft_params_read (exp, group, b, 2, NULL)) {
        guint64 hosts = c.hosts && c.hosts[0] ? count_names (c.hosts, n_endpoints) : n_hosts;
        gboolean poisson = c.arrival == ARRIVAL_POISSON;
        switch (kind) {
        case KIND_FLOWS: {
            g_autoptr (GPtrArray) entries = weft_workload_list_items (fp.flows);
            n = entries->len;
            break;
        }
        case KIND_PERMUTATION:
            n = poisson ? c.count : hosts;
            break;
        case KIND_INCAST: {
            g_autoptr (GPtrArray) s = weft_workload_list_items (ip.senders);
            const char *one = s->len == 1 ? s->pdata[0] : NULL;
            n = one && strspn (one, "0123456789") == strlen (one)
                    ? MIN (g_ascii_strtoull (one, NULL, 10), n_endpoints)
                : s->len > 0 ? count_names (ip.senders, n_endpoints)
                             : (hosts ? hosts - 1 : 0);
            if (poisson)
                n = c.count;
            break;
        }
        case KIND_ALL_TO_ALL:
            n = poisson ? c.count : sat_mul (hosts, hosts ? hosts - 1 : 0);
            break;
        default:
            break;
        }
    }
    weft_params_clear (common_params, &c);
    weft_params_clear (kinds[kind].spec, objs[kind]);
    return n;
}

guint64
weft_workload_estimate_flows (const WeftExperiment *exp, guint64 n_hosts, guint64 n_endpoints)
{
    g_auto (GStrv) groups = weft_experiment_groups_with_prefix (exp, "workload");
    guint64 total = 0;
    for (guint i = 0; groups && groups[i]; i++) {
        guint64 n = estimate_group (exp, groups[i], n_hosts, n_endpoints);
        total = n > G_MAXUINT64 - total ? G_MAXUINT64 : total + n;
    }
    return total;
}
