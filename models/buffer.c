#include "config.h"
#define G_LOG_DOMAIN "weft-buffer"
#include "models/buffer.h"

void
weft_buffer_init (WeftBuffer *buf, const WeftBufferConfig *cfg, guint n_queues)
{
    *buf = (WeftBuffer){.cfg = cfg, .n_queues = n_queues};
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
    return (guint64)(alpha * (double)free_bytes);
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
        return (double)queue < cfg->alpha * (double)(cfg->total_bytes - used)
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
