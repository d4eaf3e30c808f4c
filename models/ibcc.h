/* models/ibcc.h - InfiniBand congestion control (IBA Vol 1 Annex A10), the [ibcc] group.
 *
 * Off by default, as on real fabrics (OpenSM's `congestion_control FALSE`).  When on:
 *  - Switch (FECN): a fabric switch that forwards a data packet to an output whose queue for
 *    the packet's VL holds more than `threshold` bytes marks one of every `marking_rate` + 1
 *    such eligible packets with FECN (a deterministic count per output and VL; IBA calls the
 *    rate a mean).  Only a root of congestion marks: an output that is out of credits for
 *    that VL is a victim of congestion further on and marks only with `victim_marking`
 *    (OpenSM's per-port victim mask).  Packets smaller than `packet_size` are never marked.
 *    Marking is decided as the packet joins the output queue.
 *  - Receiver (BECN): the destination answers a FECN-marked packet at once (even when ACKs
 *    are coalesced) with an ACK whose BTH carries BECN - what an RC responder does; no
 *    separate congestion notification packet is modelled, as weft's transport is RC only
 *    and every data packet's acknowledgement path already exists.
 *  - Source (per flow = queue pair, IBA's QP-based control): each BECN raises the flow's
 *    index CCTI by `ccti_increase` (up to the table's last entry); while CCTI is above
 *    `ccti_min`, a timer lowers it by one every `ccti_timer`.  The flow's next packet may
 *    start no earlier than the previous one's start + its serialization + CCT[CCTI], the
 *    inter-packet delay; the NIC skips a flow that must wait and is woken by an event when
 *    it may send.
 * The CCT (`cct`) lists shift:multiplier entries, as OpenSM's cc_cct; entry i delays
 * (multiplier << shift) x `cct_unit`.  Parameter names follow OpenSM's osm_subnet.c
 * (cc_sw_cong_setting_threshold, _marking_rate, _packet_size, _victim_mask;
 * cc_ca_cong_setting_ccti_timer, _ccti_increase, _ccti_min; cc_cct).
 * Ignores: credit starvation marking (credit_mask), SL-based control, the congestion log,
 * the trigger threshold (a log event only).
 */
#ifndef WEFT_MODELS_IBCC_H
#define WEFT_MODELS_IBCC_H

#include "models/infiniband.h"
#include "sim/packet.h"
#include "sim/timer.h"

#define WEFT_IBCC_MAX_CCT 16384 /* IBA: CCTI is 14 bits */

typedef struct {
    /* [ibcc] parameters */
    gboolean enabled;
    guint64 threshold;    /* bytes; 0: 4 packets of mtu + header */
    guint64 marking_rate; /* eligible packets left unmarked between two marks */
    guint64 packet_size;  /* bytes: smaller data packets are never marked */
    gboolean victim_marking;
    guint64 ccti_increase, ccti_min;
    weft_time_t ccti_timer;
    weft_time_t cct_unit;
    char **cct_text;
    /* Resolved */
    guint64 threshold_bytes;
    weft_time_t *cct_ps; /* inter-packet delay of each CCT entry */
    guint n_cct;         /* CCTI limit + 1 */
} WeftIbcc;

/* A switch output's marking state: eligible packets since the last mark, per VL, and
 * totals over its VLs (marked = eligible / (marking_rate + 1) per VL, rounded down). */
typedef struct {
    guint32 since[WEFT_IB_MAX_VLS];
    guint64 eligible, marked;
} WeftIbccMarker;

/* A flow's (queue pair's) source state. */
typedef struct {
    guint32 ccti;
    guint32 ccti_peak;     /* highest CCTI reached */
    WeftTimer timer;       /* the CCTI timer: the caller (models/nic.c) arms it */
    guint64 becns;         /* BECNs received */
    guint64 fecn_received; /* at its destination: data packets that arrived marked FECN */
} WeftIbccFlow;

extern const WeftParamSpec weft_ibcc_params[];

/** Reads and checks [ibcc] for packets of @mtu payload + @header bytes (WEFT_CONFIG_ERROR).
 * The default CCT is built when `cct` is empty. */
gboolean weft_ibcc_read (WeftIbcc *cc, guint64 mtu, guint64 header, const WeftExperiment *exp,
                         GError **error);
void weft_ibcc_clear (WeftIbcc *cc);

/* Switch side: @pkt joins an output queue holding @queued bytes of its VL; the output has
 * @has_credits for a full packet on that VL.  Sets pkt->fecn and returns TRUE when it marks. */
gboolean weft_ibcc_mark (const WeftIbcc *cc, WeftIbccMarker *m, guint64 queued,
                         gboolean has_credits, WeftPacket *pkt);

/* Source side: a BECN arrived for the flow.  Returns TRUE when the caller must arm s->timer
 * for ccti_timer (it is not pending and CCTI is above ccti_min). */
gboolean weft_ibcc_on_becn (const WeftIbcc *cc, WeftIbccFlow *s);

/* The CCTI timer expired: lower CCTI.  Returns TRUE when the caller must arm it again. */
gboolean weft_ibcc_on_timer (const WeftIbcc *cc, WeftIbccFlow *s);

/* The flow's current inter-packet delay. */
static inline weft_time_t
weft_ibcc_delay (const WeftIbcc *cc, const WeftIbccFlow *s)
{
    return cc->cct_ps[s->ccti];
}

#endif /* WEFT_MODELS_IBCC_H */
