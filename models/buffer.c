#include "config.h"
#define G_LOG_DOMAIN "weft-buffer"
#include "models/buffer.h"

#include "models/registry.h"
#include "models/switch.h"
#include "sim/units.h"

/* [switch]'s shared-buffer keys (the switch's own keys are models/switch.c's). */
const WeftParamSpec weft_buffer_params[] = {
    WEFT_PARAM_ENUM ("buffer_sharing", WeftBufferConfig, sharing, "none",
                     WEFT_BUFFER_SHARING_CHOICES,
                     "Ethernet and RoCE: none (per-port buffers of size `buffer`), or one pool of "
                     "shared_buffer bytes for all egress queues (port, class) of a fabric switch "
                     "with a static (queue_limit) or dynamic (alpha) threshold per queue, as in "
                     "Broadcom and SONiC switches; a lossy packet over its threshold or without "
                     "room is dropped.  Lossless (PFC) traffic is admitted by [pfc] xoff"),
    WEFT_PARAM_BYTES ("shared_buffer", WeftBufferConfig, total_bytes, "16MiB", "1KiB", "16GiB",
                      "buffer_sharing: the switch's whole packet buffer (Broadcom Tomahawk: "
                      "16 MB; Tomahawk 3: 64 MB)"),
    WEFT_PARAM_BYTES ("queue_limit", WeftBufferConfig, queue_limit_bytes, "1MiB", "1B", "16GiB",
                      "buffer_sharing = static: the most one egress queue (port, class) may hold"),
    WEFT_PARAM_DOUBLE ("alpha", WeftBufferConfig, alpha, "1", "0.0078125", "64",
                       "buffer_sharing = dynamic: a queue may grow while it holds less than alpha "
                       "x the free shared buffer; one congested queue settles at alpha/(1+alpha) "
                       "of it, N at alpha/(1+N alpha) each (Choudhury and Hahne 1998).  alpha = "
                       "2^dynamic_th of SONiC and Broadcom; default 1: SONiC's default_dynamic_th "
                       "0 (its lossy profiles often use dynamic_th 3, alpha 8)"),
    WEFT_PARAM_END,
};

void
weft_buffer_init (WeftBuffer *buf, const WeftBufferConfig *cfg, guint n_queues)
{
    *buf = (WeftBuffer){ .cfg = cfg, .n_queues = n_queues };
    buf->queue_bytes = g_new0 (guint64, MAX (n_queues, 1));
}

void
weft_buffer_clear (WeftBuffer *buf)
{
    g_clear_pointer (&buf->queue_bytes, g_free);
}

guint64
weft_buffer_dynamic_limit (double alpha, guint64 free_bytes)
{
    /* A double holds every byte count below 2^53 exactly; alpha is at most 64 (the range). */
    return (guint64) (alpha * (double) free_bytes);
}

WeftBufferVerdict
weft_buffer_decide (const WeftBufferConfig *cfg, guint64 used, guint64 queue, guint64 size)
{
    if (used + size > cfg->total_bytes)
        return WEFT_BUFFER_DROP_FULL;
    switch (cfg->sharing) {
    case WEFT_BUFFER_STATIC:
        return queue + size <= cfg->queue_limit_bytes ? WEFT_BUFFER_ADMIT
                                                      : WEFT_BUFFER_DROP_THRESHOLD;
    case WEFT_BUFFER_DYNAMIC:
        /* The queue may grow while it is below the threshold: the packet that finds it just
         * below may take it up to one packet above (as a chip admits whole packets). */
        return (double) queue < cfg->alpha * (double) (cfg->total_bytes - used)
                   ? WEFT_BUFFER_ADMIT
                   : WEFT_BUFFER_DROP_THRESHOLD;
    default:
        return WEFT_BUFFER_ADMIT;
    }
}

void
weft_buffer_charge (WeftBuffer *buf, guint q, guint64 size)
{
    g_assert (q < buf->n_queues);
    g_assert (size <= weft_buffer_free (buf));
    buf->queue_bytes[q] += size;
    buf->used_bytes += size;
    buf->peak_bytes = MAX (buf->peak_bytes, buf->used_bytes);
    buf->s_peak_bytes = MAX (buf->s_peak_bytes, buf->used_bytes);
}

WeftBufferVerdict
weft_buffer_admit (WeftBuffer *buf, guint q, guint64 size)
{
    g_assert (q < buf->n_queues);
    /* The reserve counts as used: thresholds share what is left of the pool. */
    WeftBufferVerdict v = weft_buffer_decide (buf->cfg, buf->used_bytes + buf->reserved_bytes,
                                              buf->queue_bytes[q], size);
    if (v == WEFT_BUFFER_ADMIT)
        weft_buffer_charge (buf, q, size);
    else if (v == WEFT_BUFFER_DROP_FULL)
        buf->drops_full++;
    else
        buf->drops_threshold++;
    return v;
}

void
weft_buffer_release (WeftBuffer *buf, guint q, guint64 size)
{
    g_assert (q < buf->n_queues);
    g_assert (buf->queue_bytes[q] >= size);
    buf->queue_bytes[q] -= size;
    buf->used_bytes -= size;
}

gboolean
weft_buffer_sample (WeftBuffer *buf, guint32 node, weft_time_t now, WeftTraceBufferSample *row)
{
    guint64 drops = buf->drops_threshold + buf->drops_full - buf->s_drops_base;
    gboolean active = buf->s_peak_bytes > 0 || drops > 0;
    if (active)
        *row = (WeftTraceBufferSample){ .time_ps = now,
                                        .node = node,
                                        .used_bytes = buf->used_bytes,
                                        .max_bytes = buf->s_peak_bytes,
                                        .total_bytes = buf->cfg->total_bytes,
                                        .drops = drops };
    /* The next interval starts with what is held now. */
    buf->s_peak_bytes = buf->used_bytes;
    buf->s_drops_base += drops;
    return active;
}

static gboolean
refuse (const WeftExperiment *exp, const char *key, const char *why, GError **error)
{
    if (!g_key_file_has_key (weft_experiment_keyfile (exp), "switch", key, NULL))
        return TRUE;
    return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_UNKNOWN_KEY, "switch", key, "%s",
                                 why);
}

gboolean
weft_buffer_check_keys (const WeftBufferConfig *cfg, const WeftExperiment *exp, gboolean infiniband,
                        GError **error)
{
    if (infiniband && cfg->sharing != WEFT_BUFFER_NONE)
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_VALUE, "switch",
                                     "buffer_sharing",
                                     "Ethernet and RoCE only: InfiniBand's shared pool is "
                                     "[infiniband] shared_buffer");
    if (cfg->sharing != WEFT_BUFFER_NONE)
        return refuse (exp, "buffer",
                       "per-port buffers are not used with buffer_sharing: set shared_buffer "
                       "(the whole switch's)",
                       error) &&
               refuse (exp, cfg->sharing == WEFT_BUFFER_STATIC ? "alpha" : "queue_limit",
                       cfg->sharing == WEFT_BUFFER_STATIC
                           ? "used with buffer_sharing = dynamic only"
                           : "used with buffer_sharing = static only",
                       error);
    return refuse (exp, "shared_buffer", "used only with buffer_sharing = static or dynamic",
                   error) &&
           refuse (exp, "queue_limit", "used only with buffer_sharing = static", error) &&
           refuse (exp, "alpha", "used only with buffer_sharing = dynamic", error);
}

/* ---- the mechanism (models/registry.h) ------------------------------------------------- */

/* A fabric switch with buffer_sharing gets its pool; its ports keep the unbounded caps the
 * assembly gave them, since the pool admits instead.  With PFC, one headroom per port (for
 * the RDMA priority's group, from the pfc mechanism's setup, which runs before) is set aside
 * from sharing. */
static gboolean
buffer_setup (WeftMechEnv *env, const WeftExperiment *exp, GError **error)
{
    for (guint i = 0; i < env->switches->len; i++) {
        WeftSwitch *sw = env->switches->pdata[i];
        if (sw->internal || sw->buffer_cfg.sharing == WEFT_BUFFER_NONE)
            continue;
        sw->buffer = g_new0 (WeftBuffer, 1);
        weft_buffer_init (sw->buffer, &sw->buffer_cfg, MAX (sw->n_ports, 1) * WEFT_PORT_CLASSES);
        weft_switch_install_depart (sw);
        if (!sw->pfc_ingress)
            continue;
        guint64 headroom = 0;
        for (guint p = 0; p < sw->n_ports; p++)
            if (sw->ports[p].owner)
                headroom += sw->ports[p].pfc->headroom;
        if (headroom >= sw->buffer_cfg.total_bytes) {
            g_set_error (error, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_RANGE,
                         "%s: [switch] shared_buffer: %" G_GUINT64_FORMAT "B leaves nothing to "
                         "share after the PFC headroom of %s's ports (%" G_GUINT64_FORMAT "B)",
                         weft_experiment_path (exp), sw->buffer_cfg.total_bytes, sw->parent.name,
                         headroom);
            return FALSE;
        }
        weft_buffer_reserve (sw->buffer, headroom);
    }
    return TRUE;
}

static gboolean
buffer_check (const WeftMechEnv *env, const WeftExperiment *exp, GError **error)
{
    const WeftSwitch *sw = weft_switch_first_fabric (env->switches);
    return !sw || weft_buffer_check_keys (&sw->buffer_cfg, exp, FALSE, error);
}

static void
buffer_sample (const WeftMechEnv *env, weft_time_t now)
{
    WeftTraceBufferSample row;
    for (guint i = 0; i < env->switches->len; i++) {
        WeftSwitch *sw = env->switches->pdata[i];
        /* Across ranks: this rank's own switches, in one process's order (sim/trace.h). */
        if (!weft_sim_owns (env->sim, sw->parent.node))
            continue;
        weft_trace_set_order (env->trace, i);
        if (sw->buffer && weft_buffer_sample (sw->buffer, sw->parent.node, now, &row))
            weft_trace_append_buffer_sample (env->trace, &row);
    }
}

static void
buffer_count (const WeftMechEnv *env, WeftNetworkStats *st)
{
    for (guint i = 0; i < env->switches->len; i++) {
        const WeftBuffer *buf = ((const WeftSwitch *) env->switches->pdata[i])->buffer;
        if (!buf)
            continue;
        st->buffer_drops_threshold += buf->drops_threshold;
        st->buffer_drops_full += buf->drops_full;
        st->buffer_peak_bytes = MAX (st->buffer_peak_bytes, buf->peak_bytes);
    }
}

static void
buffer_summary (const WeftMechEnv *env, const WeftNetworkStats *st, GString *out)
{
    if (!st->buffer_peak_bytes && !st->buffer_drops_threshold && !st->buffer_drops_full)
        return;
    g_autofree char *peak = weft_units_format_bytes (st->buffer_peak_bytes);
    g_string_append_printf (out,
                            "  shared buf   peak %s (the fullest switch); %" G_GUINT64_FORMAT
                            " packets over their threshold, %" G_GUINT64_FORMAT
                            " with the pool full\n",
                            peak, st->buffer_drops_threshold, st->buffer_drops_full);
}

/* From /buffers: the fullest any switch's pool got, and what the pools refused. */
static void
buffer_report (const WeftFabric *fabric, const WeftTraceTables *t, GString *out)
{
    if (!t->buffers || t->buffers->len == 0)
        return;
    guint64 peak = 0, drops = 0;
    for (guint i = 0; i < t->buffers->len; i++) {
        const WeftTraceBufferSample *r = &g_array_index (t->buffers, WeftTraceBufferSample, i);
        peak = MAX (peak, r->max_bytes);
        drops += r->drops;
    }
    g_autofree char *p = weft_units_format_bytes (peak);
    g_string_append_printf (
        out, "  shared buf   peak %s (the fullest switch); %" G_GUINT64_FORMAT " packets refused\n",
        p, drops);
}

const WeftMechanism weft_buffer_mechanism = {
    .name = "buffer",
    .group = "switch",
    .help = "a shared switch buffer with static or dynamic (alpha) thresholds per egress queue",
    .params = weft_buffer_params,
    .fabrics = WEFT_FABRICS_ETHERNET_FAMILY,
    .setup = buffer_setup,
    .check = buffer_check,
    .sample = buffer_sample,
    .count = buffer_count,
    .summary = buffer_summary,
    .report = buffer_report,
};
