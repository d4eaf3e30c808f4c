/* workloads/workload_perf.c - kind = ib_write_bw | ib_write_lat: perftest's RDMA write tests
 * between one device and one peer, and what they measure from the flows' times.
 *
 * ib_write_bw: for each size, `iters` messages device -> peer on each of `qps` connections
 * (message k of QP q is posted k-th on that QP; QPs take turns), at most `tx_depth`
 * outstanding per QP: message k waits for message k - tx_depth of its QP to be delivered.  A
 * connection sends its messages in order, one after another (WeftFlowSpec.conn).  Sizes run
 * one after another, as perftest -a: a size's first window waits for the last message of every
 * QP of the size before.  Completions are per message (perftest signals every cq_moderation-th
 * and frees the send queue in batches; not modelled) and counted when the data is delivered
 * (not when the ACK is back at the requester).
 * ib_write_lat: for each size, `iters` ping-pongs: ping k device -> peer, its pong peer ->
 * device once the ping is delivered, ping k + 1 once the pong is.  A sample is half the time
 * between two consecutive pings' posts (perftest stamps each post and halves the difference),
 * so `iters` iterations give iters - 1 samples.
 *
 * The devices are nodes (a server's NIC such as dgx-1/mlx5_3, or a host or GPU); a NIC is the
 * endpoint itself: perftest's buffers in host memory, and the DMA over PCIe, are left out
 * (one 400 Gb/s NIC needs 50 GB/s, which a PCIe Gen5 x16 uplink carries anyway).  The NICs'
 * own costs ([nic], models/nic.h) are in: each message pays the sender's processing
 * (tx_latency) and the receiver's (rx_latency) once, so ib_write_lat's samples carry both, and
 * a NIC takes up at most message_rate messages per second, which caps ib_write_bw's MsgRate
 * at small sizes when tx_depth x qps messages cover a round trip at that rate.
 *
 * The measurement (weft_workload_perftest_measure) follows perftest's calc_bw() in
 * src/perftest_resources.c: BW average = size x messages / (last completion - first post),
 * MsgRate = messages / the same time, BW peak = size / the least (completion j - post i) /
 * (j - i + 1) over i <= j, posts and completions each in time order.
 */
#include "config.h"
#define G_LOG_DOMAIN "weft-workload"
#include <stdlib.h>
#include <string.h>

#include "workloads/workload_private.h"

/* perftest -a: 2 B to 8 MiB (2^1 .. 2^23), doubling. */
#define ALL_FIRST_LOG2 1
#define ALL_LAST_LOG2 23
/* Messages per size up to which BW peak is searched exhaustively (20000^2 / 2 steps). */
#define PEAK_SCAN_MAX 20000

const WeftParamSpec weft_workload_perf_bw_params[] = {
    WEFT_PARAM_STRING ("device", PerfParams, device, NULL,
                       "the node perftest runs on, e.g. dgx-1/mlx5_3 (a NIC, host or "
                       "GPU); it sends the data"),
    WEFT_PARAM_STRING ("peer", PerfParams, peer, NULL,
                       "the node at the other end (perftest's server), e.g. "
                       "dgx-2/mlx5_3"),
    WEFT_PARAM_BYTES ("size", PerfParams, size, "64KiB", "1B", "1GiB",
                      "message size (perftest -s; its default for ib_write_bw is 65536)"),
    WEFT_PARAM_BOOL ("all", PerfParams, all, "false",
                     "every size from 2 B to 8 MiB, doubling (perftest -a); excludes size"),
    WEFT_PARAM_UINT ("iters", PerfParams, iters, "1000", "5", "1000000",
                     "messages per size and QP (perftest -n; perftest's default is 5000, 1000 "
                     "keeps an -a sweep to seconds and still amortises the first window)"),
    WEFT_PARAM_UINT ("tx_depth", PerfParams, tx_depth, "128", "1", "65536",
                     "messages outstanding per QP (perftest -t)"),
    WEFT_PARAM_UINT ("qps", PerfParams, qps, "1", "1", "255",
                     "queue pairs, each its own connection taking turns (perftest -q)"),
    WEFT_PARAM_END,
};

const WeftParamSpec weft_workload_perf_lat_params[] = {
    WEFT_PARAM_STRING ("device", PerfParams, device, NULL,
                       "the node perftest runs on, e.g. dgx-1/mlx5_3 (a NIC, host or "
                       "GPU); it sends the pings"),
    WEFT_PARAM_STRING ("peer", PerfParams, peer, NULL,
                       "the node that answers each ping with a pong, e.g. "
                       "dgx-2/mlx5_3"),
    WEFT_PARAM_BYTES ("size", PerfParams, size, "2B", "1B", "1GiB",
                      "message size (perftest -s; its default for ib_write_lat is 2)"),
    WEFT_PARAM_BOOL ("all", PerfParams, all, "false",
                     "every size from 2 B to 8 MiB, doubling (perftest -a); excludes size"),
    WEFT_PARAM_UINT ("iters", PerfParams, iters, "1000", "5", "1000000",
                     "ping-pongs per size (perftest -n; 1000 as perftest)"),
    WEFT_PARAM_END,
};

static gboolean
resolve (Ctx *x, const char *key, const char *name, guint32 *id, GError **error)
{
    if (!str_set (name))
        return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_MISSING, x->group, key,
                                     "required: the node name, e.g. dgx-1/mlx5_3");
    g_autoptr (GPtrArray) items = g_ptr_array_new ();
    g_ptr_array_add (items, (gpointer) name);
    g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (guint32));
    if (!weft_workload_resolve_names (x, key, items, ids, error))
        return FALSE;
    *id = g_array_index (ids, guint32, 0);
    WeftNodeKind kind = weft_graph_node (x->g, *id)->kind;
    if (kind != WEFT_NODE_HOST && kind != WEFT_NODE_GPU && kind != WEFT_NODE_NIC)
        return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_NODE, x->group, key,
                                     "'%s' is a %s: perftest runs on a NIC, host or GPU", name,
                                     weft_node_kind_name (kind));
    return TRUE;
}

gboolean
weft_workload_perf_spec (Ctx *x, const PerfParams *p, gboolean latency, WeftPerftestSpec *spec,
                         GError **error)
{
    *spec = (WeftPerftestSpec){ 0 };
    spec->latency = latency;
    if (!resolve (x, "device", p->device, &spec->device, error) ||
        !resolve (x, "peer", p->peer, &spec->peer, error))
        return FALSE;
    if (spec->device == spec->peer)
        return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_VALUE, x->group, "peer",
                                     "'%s' is the device itself: expected another node", p->peer);
    if (p->all && weft_workload_has_key (x, "size"))
        return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_VALUE, x->group, "size",
                                     "give size or all = true, not both");
    spec->iters = p->iters;
    spec->tx_depth = latency ? 1 : p->tx_depth;
    spec->qps = latency ? 1 : p->qps;
    if (p->all) {
        for (guint e = ALL_FIRST_LOG2; e <= ALL_LAST_LOG2; e++)
            spec->sizes[spec->n_sizes++] = G_GUINT64_CONSTANT (1) << e;
    } else {
        spec->sizes[spec->n_sizes++] = p->size;
    }
    return TRUE;
}

guint64
weft_workload_perftest_n_flows (const WeftPerftestSpec *spec)
{
    return (guint64) spec->n_sizes * spec->iters * (spec->latency ? 2 : spec->qps);
}

static void
dep (Ctx *x, guint64 before, guint64 after)
{
    WeftFlowDep d = { (guint32) before, (guint32) after };
    g_array_append_val (x->deps, d);
}

gboolean
weft_workload_gen_perf (Ctx *x, const PerfParams *p, gboolean latency, GError **error)
{
    WeftPerftestSpec spec;
    if (!weft_workload_perf_spec (x, p, latency, &spec, error))
        return FALSE;
    if (weft_workload_perftest_n_flows (&spec) > MAX_FLOWS / 2)
        return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_RANGE, x->group, "iters",
                                     "too many messages: reduce iters or qps");
    guint64 per_size = spec.iters * (latency ? 2 : spec.qps);
    guint64 prev = G_MAXUINT64; /* seq of the previous size's first flow */
    for (guint s = 0; s < spec.n_sizes; s++) {
        guint64 base = *x->seq;
        for (guint64 i = 0; i < per_size; i++) {
            /* bw: i = k x qps + q; lat: i = 2k (ping k), 2k + 1 (pong k). */
            gboolean pong = latency && i % 2 == 1;
            guint32 src = pong ? spec.peer : spec.device, dst = pong ? spec.device : spec.peer;
            if (!weft_workload_emit (x, src, dst, spec.sizes[s], x->c.start, error))
                return FALSE;
            WeftFlowSpec *f = &g_array_index (x->out, WeftFlowSpec, x->out->len - 1);
            if (latency) {
                if (i > 0)
                    dep (x, base + i - 1, base + i); /* ping after pong, pong after ping */
                else if (prev != G_MAXUINT64)
                    dep (x, base - 1, base); /* after the last pong of the size before */
                continue;
            }
            guint64 k = i / spec.qps, q = i % spec.qps;
            f->conn = ((x->group_index + 1) << 8) | (guint32) q;
            if (k >= spec.tx_depth) {
                dep (x, base + i - spec.tx_depth * spec.qps, base + i);
            } else if (prev != G_MAXUINT64) {
                for (guint64 r = 0; r < spec.qps; r++)
                    dep (x, base - spec.qps + r, base + i);
            }
        }
        prev = base;
    }
    return TRUE;
}

/* ---- measurement ------------------------------------------------------------------------ */

static int
cmp_time (const void *a, const void *b)
{
    weft_time_t x = *(const weft_time_t *) a, y = *(const weft_time_t *) b;
    return x < y ? -1 : x > y;
}

gboolean
weft_workload_perftest_measure (const WeftPerftestSpec *spec, guint s, const weft_time_t *start_ps,
                                const weft_time_t *finish_ps, const gboolean *finished,
                                WeftPerftestResult *out)
{
    g_return_val_if_fail (spec != NULL && s < spec->n_sizes && out != NULL, FALSE);
    *out = (WeftPerftestResult){ 0 };
    guint64 per = spec->iters * (spec->latency ? 2 : spec->qps);
    guint64 base = s * per;
    for (guint64 i = 0; i < per; i++)
        if (!finished[base + i])
            return FALSE;
    out->bytes = spec->sizes[s];
    out->iterations = spec->iters;
    /* When the size could begin: its first flow's start, or the previous size's end. */
    weft_time_t begin = start_ps[base];
    if (s > 0)
        for (guint64 i = base - (spec->latency ? 1 : spec->qps); i < base; i++)
            begin = MAX (begin, finish_ps[i]);
    if (spec->latency) {
        /* Ping k is posted when pong k - 1 is delivered (ping 0 at the size's begin). */
        out->n_samples = spec->iters - 1;
        out->samples_ps = g_new (guint64, out->n_samples);
        weft_time_t post = begin;
        for (guint64 k = 0; k + 1 < spec->iters; k++) {
            weft_time_t next = finish_ps[base + 2 * k + 1];
            out->samples_ps[k] = (next - post) / 2;
            post = next;
        }
        return TRUE;
    }
    gsize n = per;
    weft_time_t *posted = g_new (weft_time_t, n), *done = g_new (weft_time_t, n);
    for (gsize i = 0; i < n; i++) {
        guint64 k = i / spec->qps;
        posted[i] = k < spec->tx_depth ? begin : finish_ps[base + i - spec->tx_depth * spec->qps];
        done[i] = finish_ps[base + i];
    }
    qsort (posted, n, sizeof *posted, cmp_time);
    qsort (done, n, sizeof *done, cmp_time);
    double elapsed_s = weft_time_to_s (done[n - 1] - posted[0]);
    double bits = (double) out->bytes * 8;
    out->avg_bps = bits * (double) n / elapsed_s;
    out->msg_rate_pps = (double) n / elapsed_s;
    /* perftest's peak: the least time per message over any run of posts i..completions j;
     * the scan is quadratic, so past PEAK_SCAN_MAX messages the peak is the average. */
    double best = n > PEAK_SCAN_MAX ? (double) (done[n - 1] - posted[0]) / (double) n
                                    : (double) (done[0] - posted[0]);
    for (gsize i = 0; i < n && n <= PEAK_SCAN_MAX; i++)
        for (gsize j = i; j < n; j++) {
            double t = (double) (done[j] - posted[i]) / (double) (j - i + 1);
            if (t < best)
                best = t;
        }
    out->peak_bps = bits / (best / WEFT_PS_PER_S);
    g_free (posted);
    g_free (done);
    return TRUE;
}

void
weft_workload_perftest_result_clear (WeftPerftestResult *r)
{
    g_clear_pointer (&r->samples_ps, g_free);
    r->n_samples = 0;
}
