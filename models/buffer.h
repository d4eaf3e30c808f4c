/* models/buffer.h - a switch's shared packet buffer (commodity Ethernet switch chips' MMU).
 *
 * Models: one pool of `shared_buffer` bytes per fabric switch, shared by the egress queues
 * (port, traffic class) of all its ports, as in Broadcom Trident/Tomahawk and the SONiC
 * buffer model.  A packet holds pool bytes from the moment it is admitted to an egress queue
 * until it starts leaving (as the port's queue depth counts it: the packet being serialized
 * no longer does).  Admission of lossy traffic:
 *   static   the queue may hold at most `queue_limit` bytes;
 *   dynamic  the queue may grow while its bytes are below alpha x (free pool bytes)
 *            (Choudhury and Hahne, "Dynamic queue length thresholds for shared-memory packet
 *            switches", IEEE/ACM ToN 6(2), 1998; Broadcom's and SONiC's dynamic_th, with
 *            alpha = 2^dynamic_th).  One congested queue settles at alpha B / (1 + alpha),
 *            N of them at alpha B / (1 + N alpha) each: the rest stays free for newcomers.
 * and in both modes the pool itself must have room.  A packet refused is dropped and counted
 * (drops_threshold or drops_full) and on its egress port's drop counters.
 * Lossless traffic (RoCE with PFC: every priority PFC pauses) is never refused by an egress
 * threshold: it is accounted at its ingress priority group by models/pfc.h.  The pool then
 * sets aside one PFC headroom per port (for the RDMA priority's group, as SONiC reserves each
 * lossless PG's xoff headroom outside the shared pool); the rest is shared.  A group pauses
 * its sender at its xoff - static, or ([pfc] xoff = dynamic) alpha x the free shared bytes -
 * or when the shared part is full, whichever comes first, and may then fill its headroom; a
 * packet that still finds no room is dropped as a lossless violation.
 * Ignores: reserved (guaranteed) minimums per queue or priority group, separate ingress and
 * egress pools, SONiC's oversubscribed shared headroom pool (the reserve is one headroom per
 * port; the CNP priority's group has none set aside), per-port limits, cell granularity
 * (bytes are exact).
 * Invariants: used = the sum of the queues' bytes = the bytes of the packets the switch holds
 * in its egress queues (data and ACKs that crossed a link; not PAUSE frames) <= total, at
 * every event.
 * Parameters: [switch] buffer_sharing, shared_buffer, queue_limit, alpha; [pfc] xoff, alpha.
 */
#ifndef WEFT_MODELS_BUFFER_H
#define WEFT_MODELS_BUFFER_H

#include <glib.h>

#include "sim/experiment.h"
#include "sim/params.h"
#include "sim/time.h"
#include "sim/trace_schema.h"

typedef enum {
    WEFT_BUFFER_NONE,    /* per-port tail-drop buffers ([switch] buffer): no pool */
    WEFT_BUFFER_STATIC,  /* pool + a static per-queue limit */
    WEFT_BUFFER_DYNAMIC, /* pool + alpha x free per queue */
} WeftBufferSharing;

typedef enum {
    WEFT_BUFFER_ADMIT,
    WEFT_BUFFER_DROP_THRESHOLD, /* the queue is at its static or dynamic threshold */
    WEFT_BUFFER_DROP_FULL,      /* the pool has no room for the packet */
} WeftBufferVerdict;

/* The [switch] keys (the switch's parameter table points into it). */
typedef struct {
    int sharing;               /* WeftBufferSharing */
    guint64 total_bytes;       /* shared_buffer */
    guint64 queue_limit_bytes; /* queue_limit (static) */
    double alpha;              /* alpha (dynamic) */
} WeftBufferConfig;

typedef struct {
    const WeftBufferConfig *cfg; /* borrowed */
    guint n_queues;
    guint64 *queue_bytes;    /* owned: n_queues counters */
    guint64 used_bytes;      /* = the sum of queue_bytes */
    guint64 reserved_bytes;  /* PFC headroom set aside: not shared below thresholds */
    guint64 headroom_bytes;  /* of used_bytes, those in PFC groups' headroom (taken from the
                                reserve first) */
    guint64 peak_bytes;      /* highest used_bytes so far */
    guint64 drops_threshold; /* lossy packets refused by their queue's threshold */
    guint64 drops_full;      /* packets refused for want of pool room (lossless ones too) */
    guint64 s_peak_bytes;    /* highest used_bytes in the current sample interval */
    guint64 s_drops_base;    /* drops_threshold + drops_full at the interval's start */
} WeftBuffer;

#define WEFT_BUFFER_SHARING_CHOICES "none|static|dynamic"

/* [switch]'s shared-buffer keys, into a WeftBufferConfig. */
extern const WeftParamSpec weft_buffer_params[];

/* Sets up @buf with @n_queues empty queues. */
void weft_buffer_init (WeftBuffer *buf, const WeftBufferConfig *cfg, guint n_queues);
void weft_buffer_clear (WeftBuffer *buf);

/* Bytes the pool has left (the headroom reserve included). */
static inline guint64
weft_buffer_free (const WeftBuffer *buf)
{
    return buf->cfg->total_bytes - buf->used_bytes;
}

/* Bytes the pool has left outside the headroom reserve: what thresholds share.  Headroom in
 * use comes out of the reserve, and beyond it out of the shared part. */
static inline guint64
weft_buffer_shared_free (const WeftBuffer *buf)
{
    guint64 taken =
        buf->used_bytes - buf->headroom_bytes + MAX (buf->reserved_bytes, buf->headroom_bytes);
    return taken < buf->cfg->total_bytes ? buf->cfg->total_bytes - taken : 0;
}

/** Bytes the switch's packets hold in the pool now. */
static inline guint64
weft_buffer_used (const WeftBuffer *buf)
{
    return buf->used_bytes;
}

/* Sets @bytes aside from sharing (PFC headroom). */
static inline void
weft_buffer_reserve (WeftBuffer *buf, guint64 bytes)
{
    buf->reserved_bytes = bytes;
}

/* alpha x @free_bytes, rounded down: the dynamic threshold. */
guint64 weft_buffer_dynamic_limit (double alpha, guint64 free_bytes);

/* The admission rule alone: may a lossy packet of @size join a queue holding @queue bytes
 * when the pool holds @used of cfg->total_bytes? */
WeftBufferVerdict weft_buffer_decide (const WeftBufferConfig *cfg, guint64 used, guint64 queue,
                                      guint64 size);

/* Lossy admission to queue @q: charges the packet and returns WEFT_BUFFER_ADMIT, or counts
 * the refusal. */
WeftBufferVerdict weft_buffer_admit (WeftBuffer *buf, guint q, guint64 size);

/* Charges @size bytes to queue @q without a threshold (lossless traffic, admitted by PFC);
 * the caller has checked that they fit (size <= weft_buffer_free). */
void weft_buffer_charge (WeftBuffer *buf, guint q, guint64 size);

/* A packet of @size charged to queue @q starts leaving (or is discarded). */
void weft_buffer_release (WeftBuffer *buf, guint q, guint64 size);

/* Closes the current sample interval at @now into @row for switch @node; FALSE (row
 * untouched) when the pool stayed empty and refused nothing. */
gboolean weft_buffer_sample (WeftBuffer *buf, guint32 node, weft_time_t now,
                             WeftTraceBufferSample *row);

/* Refuses keys that would be ignored: on InfiniBand any sharing; with sharing `buffer` (the
 * per-port size); without it shared_buffer, queue_limit and alpha; queue_limit outside
 * static, alpha outside dynamic.  Errors name [switch] and the key (WEFT_CONFIG_ERROR). */
gboolean weft_buffer_check_keys (const WeftBufferConfig *cfg, const WeftExperiment *exp,
                                 gboolean infiniband, GError **error);

#endif /* WEFT_MODELS_BUFFER_H */
