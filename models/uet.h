/* models/uet.h - Ultra Ethernet transport ([fabric] kind = ultra-ethernet, the [uet] group):
 * packet spraying over entropy values, the packet delivery sublayer (RUD, ROD), packet
 * trimming at switches, and NSCC (models/nscc.h) at the senders.
 *
 * Models (doc/ultra-ethernet.md has the sources and what is left out):
 *  - Spraying: the sending NIC gives every data packet an entropy value (EV) from a pool of
 *    `ev_pool` values; the packet's hash, which the switches' ECMP uses to choose among
 *    equal-cost ports (models/routing.h), is mixed from the flow's hash and the EV, so each EV
 *    is a path and the switches need no code of their own.  Policies (`load_balance`), one
 *    function each (weft_uet_pick_ev): ecmp (no spraying: the flow's own hash), oblivious (a
 *    uniform draw per packet), round-robin (the pool in turn), bitmap (the pool in turn,
 *    skipping for one round the EVs whose packets came back ECN-marked or trimmed) and reps
 *    (REPS: reuse the EVs whose packets were acknowledged unmarked, in the order they came
 *    back; when none is waiting, explore a uniform draw; EVs that saw a mark or a trim are
 *    not reused, and the EVs of the packets a timeout finds unacknowledged are retired: neither
 *    reused nor explored until one of their packets comes back unmarked; silent EVs are
 *    probed, one per reps_probe_after, and an answered probe starts the reuse afresh:
 *    weft_uet_reps_tick).
 *  - RUD (reliable unordered delivery): per-packet sequence numbers; the receiver places any
 *    packet in a bitmap and acknowledges each one selectively (the SACK names the packet, the
 *    cumulative point rides along); the sender keeps a bitmap of acknowledged packets and
 *    resends selectively: at once the packets a trim NACK names, and after a retransmission
 *    timeout (RFC 6298 from measured RTTs, [transport] rto_min/rto_initial/rto_max) every
 *    packet sent and not acknowledged, the flow's timer restarting on every fresh ACK; with
 *    `packet_timers`, each packet still out one timeout (never below `rto_floor`) after it
 *    left, as UEC's htsim times them.  That costs one timer per flow, never an event per
 *    packet: the transmissions are kept in the order they left, so the oldest one out has the
 *    earliest deadline, and the flow's timer runs to it alone (weft_uet_oldest_out).  Its
 *    window counts the
 *    packets in flight (sent, not acknowledged, not known lost), not the span above the
 *    cumulative point.
 *  - ROD (reliable ordered delivery), for comparison: the baseline transport's go-back-N
 *    (models/transport.h) under the same spraying; a trimmed packet is a gap, NAKed at once.
 *  - Trimming (`trimming`): a data packet that would overflow a fabric switch's egress queue
 *    (per-port buffers), or that its shared buffer refuses (models/buffer.h: the queue at its
 *    threshold or the pool full), is cut to `trim_header` bytes, marked trimmed and sent in
 *    the control class ahead of data (models/port.h).  Per-port buffers never tail-drop a
 *    header, nor an ACK or NACK (a trimming switch keeps a separate allowance for them); a shared
 * pool charges it to the control queue past the threshold, and drops it only when the pool cannot
 * hold even the header.  The receiver NACKs it at once.
 *  - Link-level credit-based flow control (`link_credits`): InfiniBand's credit machinery
 *    (models/ib_credit.h) on every port, one lane: a port sends a packet only with credits for
 *    it, each receiving port advertises `credit_buffer` bytes in 64-byte credits and returns
 *    them in flow-control packets as packets leave its node's buffer; no packet is dropped or
 *    trimmed for lack of buffer when the egress buffers hold what the credits admit.
 *  - Link-level retry (`llr`): a frame that a link's bit errors corrupt ([fault.NAME] kind =
 *    bit-errors decides, models/fault.h) is not lost to the transport: the receiving end drops
 *    it and the sending port replays it `llr_delay` after the corrupted copy ended, ahead of
 *    what waits (each replay costs its wire time again and may be corrupted again).  The
 *    replay is selective (only that frame; frames sent in between go on), so a saturated
 *    link's goodput is rate x (1 - PER) x payload / wire.  Replays are counted per port.
 * Reorder statistics per flow (RUD): a packet's displacement is how many packets ahead of the
 * first missing one it arrives (0 in order); /flows reorder_max keeps the largest, and the
 * flow's reorder_count and reorder_sum (its WeftOooFlow, models/transport.h) the count and the
 * sum, traced as /flows reorder_count and reorder_mean (the sum over the count, 0 when none:
 * sim/trace_schema.h).
 * Invariant: every payload byte is delivered exactly once (bytes_delivered == size_bytes for
 * a finished flow); duplicates are counted and discarded.
 */
#ifndef WEFT_MODELS_UET_H
#define WEFT_MODELS_UET_H

#include "models/ib_credit.h"
#include "models/nscc.h"
#include "models/rccc.h"
#include "sim/packet.h"
#include "sim/params.h"
#include "sim/trace_schema.h"

typedef enum {
    WEFT_UET_LB_ECMP,
    WEFT_UET_LB_OBLIVIOUS,
    WEFT_UET_LB_ROUND_ROBIN,
    WEFT_UET_LB_BITMAP,
    WEFT_UET_LB_REPS,
} WeftUetLoadBalance;

typedef enum { WEFT_UET_RUD, WEFT_UET_ROD } WeftUetDelivery;

typedef enum { WEFT_UET_LLR_GO_BACK_N, WEFT_UET_LLR_SELECTIVE } WeftUetLlrMode;

/* Packets a REPS flow sends on uniform draws after a probe found a path back (UEC's htsim's
 * REPS explores 16 when it leaves its freezing mode: buffer_reps, explore_counter). */
#define WEFT_UET_REPS_EXPLORE 16

/* [uet] (and [nscc]): read on the ultra-ethernet fabric; zero (enabled FALSE) elsewhere. */
typedef struct {
    gboolean enabled;             /* the fabric is ultra-ethernet */
    int load_balance;             /* WeftUetLoadBalance */
    guint64 ev_pool;              /* entropy values per flow, 1 to 65536 */
    int delivery;                 /* WeftUetDelivery */
    gboolean trimming;            /* fabric switches trim instead of dropping data */
    guint64 trim_header;          /* bytes of a trimmed packet on the wire */
    guint64 seed;                 /* the run's seed (oblivious draws) */
    gboolean link_credits;        /* credit-based flow control on every link (models/ib_credit.h) */
    guint64 credit_buffer;        /* bytes each receiving port advertises */
    WeftIbConfig credits;         /* the credit machinery's configuration: one VL, 64-byte units */
    gboolean llr;                 /* link-level retry of corrupted frames */
    guint64 llr_delay;            /* ps from a corrupted frame's end to its replay */
    int llr_mode;                 /* WeftUetLlrMode */
    weft_time_t reps_probe_after; /* reps: a retired EV is probed again this long after */
    gboolean packet_timers;       /* rud: a retransmission timeout per packet, not per flow */
    weft_time_t rto_floor;        /* rud: the least per-packet timeout; 0: derived */
    guint64 switch_buffer;        /* the fabric switches' egress buffer (rto_floor's derivation) */
    WeftNscc nscc;                /* [nscc] (models/nscc.h) */
    WeftRccc rccc;                /* [rccc] (models/rccc.h) */
} WeftUet;

/* RUD: one transmission of a packet, in the order they left (models/uet_pds.c). */
typedef struct {
    guint64 seq;
    weft_time_t at;
} WeftUetSent;

/* A flow's UE state (sender and receiver halves); bitmaps allocated when it starts. */
typedef struct {
    /* sender */
    guint8 *acked;          /* RUD: packets selectively acknowledged */
    guint8 *lost;           /* RUD: packets to send again (trimmed, or out at a timeout) */
    guint64 lost_n;         /* bits set in lost */
    guint64 lost_lo;        /* no bit of lost below this */
    guint64 inflight;       /* RUD: packets sent, not acknowledged, not known lost */
    weft_time_t rto_floor;  /* RUD: the least per-packet timeout (weft_uet_rto_floor) */
    weft_time_t backoff_at; /* RUD: the RTO is not backed off again before this */
    weft_time_t *sent_at;   /* RUD: when each packet last left */
    WeftUetSent *tx;        /* RUD: transmissions in the order they left, a ring (oldest first) */
    guint32 tx_head, tx_n, tx_cap;
    guint64 tx_count; /* data packets sent (EV draws) */
    guint32 rr_next;  /* round-robin and bitmap: the next EV */
    guint8 *ev_bad;   /* bitmap: EVs to skip on the next pass */
    guint16 *reps;    /* reps: EVs to reuse, a ring of ev_pool */
    guint32 reps_head, reps_n;
    guint16 *sent_ev;     /* reps: the EV each packet last left on (per sequence number) */
    guint8 *ev_retired;   /* reps: EVs retired by a timeout (bits): neither reused nor explored */
    guint32 evs_retired;  /* bits set in ev_retired */
    guint64 evs_retires;  /* reps: EVs retired over the flow (an EV retired twice counts twice) */
    guint8 *ev_seen;      /* reps: EVs acknowledged unmarked in the current probe period */
    guint8 *ev_probe;     /* reps: EVs due for a probe packet */
    guint8 *ev_alive;     /* reps: EVs ever acknowledged unmarked */
    guint8 *ev_probed;    /* reps: EVs probed, no unmarked answer yet */
    guint32 probes_due;   /* bits set in ev_probe */
    guint32 probe_next;   /* where the search for the next EV to probe starts */
    weft_time_t probe_at; /* the end of the current probe period */
    gboolean probe_armed; /* the first period has started */
    guint64 probes;       /* probe packets sent */
    guint64 resets;       /* probes answered: reuse forgotten, exploration afresh */
    guint32 explore_due;  /* packets still to send on uniform draws after a reset */
    guint8 *ev_used;      /* EVs the flow has sent on (bits) */
    guint32 evs_used;     /* distinct EVs sent on */
    guint64 nacks;        /* trim NACKs that reached the sender */
    guint64 ecn_echoes;   /* acknowledgements echoing a CE mark */
    WeftNsccFlow cc;      /* NSCC window (models/nscc.h) */
    WeftRcccFlow rccc;    /* RCCC, sender and receiver (models/rccc.h) */
    gboolean rud;         /* the sender runs RUD (bitmaps allocated) */
    /* receiver */
    guint8 *rcvd;     /* RUD: packets placed */
    guint64 rcvd_n;   /* distinct packets placed */
    guint64 trims_rx; /* trimmed packets that reached the receiver */
} WeftUetFlow;

extern const WeftParamSpec weft_uet_params[];

/* Fills @row's Ultra Ethernet members (trims, nacks, evs_used, NSCC's counters) from @uf. */
void weft_uet_trace_flow (const WeftUetFlow *uf, WeftTraceFlow *row);

/* Frees @uf's bitmaps (the flow's end, or the run's). */
void weft_uet_flow_clear (WeftUetFlow *uf);

/* The EV of @uf's next data packet (sequence number @seq) of flow hash @flow_hash under @cfg's
 * policy; records it as used (and, under reps, as the EV packet @seq left on). */
guint16 weft_uet_pick_ev (const WeftUet *cfg, WeftUetFlow *uf, guint32 flow_hash, guint64 seq);

/* RUD's least per-packet retransmission timeout for a flow whose NIC sends at @rate_bps:
 * rto_floor, or derived as UEC's htsim derives its timeout (main_uec.cpp: 15 us + 6 x the
 * queue size at the link speed, "2 priority queues; 3 hops for incast"). */
weft_time_t weft_uet_rto_floor (const WeftUet *cfg, guint64 rate_bps);

/* The switches' hash of a packet of flow hash @flow_hash sent on @ev: the flow's own hash
 * under ecmp, one path per EV otherwise. */
static inline guint32
weft_uet_ev_hash (const WeftUet *cfg, guint32 flow_hash, guint16 ev)
{
    if (cfg->load_balance == WEFT_UET_LB_ECMP)
        return flow_hash;
    guint64 x = ((guint64) flow_hash << 20) ^ ev ^ G_GUINT64_CONSTANT (0x9e3779b97f4a7c15);
    x ^= x >> 31;
    x *= G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9);
    x ^= x >> 29;
    return (guint32) (x ^ (x >> 32));
}

/* Feedback on @ev from an acknowledgement: @congested when it echoed a CE mark, or was a
 * trim NACK or a timeout's; the bitmap and reps policies learn from it. */
void weft_uet_ev_feedback (const WeftUet *cfg, WeftUetFlow *uf, guint16 ev, gboolean congested);

/* A retransmission timeout, before the packets in [@snd_una, @snd_nxt) are marked lost: reps
 * retires the EVs that the packets out and unacknowledged left on (they took the path that
 * failed them), so that neither its reuse nor its exploration sends on them again; an EV
 * acknowledged unmarked later is reinstated, and when every EV is retired all are forgiven. */
void weft_uet_ev_timeout (const WeftUet *cfg, WeftUetFlow *uf, guint64 snd_una, guint64 snd_nxt);

/* Before a data packet leaves at @now, under reps: the flow's time runs in periods of
 * reps_probe_after from its first packet.  An EV is silent when it was acknowledged unmarked
 * before (or retired by a timeout) but not in the current period: a dead path's.  When a
 * period ends one silent EV is due for a probe packet (the next one sent goes on it; a retired
 * EV is reinstated for it); when a probe comes back unmarked the paths have changed: the flow
 * forgets the EVs waiting for reuse, its retirements and its due probes, and explores afresh
 * (UEC's htsim's REPS does so when it leaves its freezing mode).  So a path restored after a
 * failure ([fault.NAME] until) carries its share again within about a period, and a dead one
 * costs a lost packet per period. */
void weft_uet_reps_tick (const WeftUet *cfg, WeftUetFlow *uf, weft_time_t now);

/* ---- RUD bookkeeping (models/uet_pds.c): pure state changes, the NIC does the events ---- */

static inline gboolean
weft_uet_bit (const guint8 *bits, guint64 i)
{
    return (bits[i / 8] >> (i % 8)) & 1u;
}

static inline void
weft_uet_bit_set (guint8 *bits, guint64 i)
{
    bits[i / 8] |= (guint8) (1u << (i % 8));
}

static inline void
weft_uet_bit_clear (guint8 *bits, guint64 i)
{
    bits[i / 8] &= (guint8) ~(1u << (i % 8));
}

/* Sender: allocates the bitmaps of a flow of @n_pkts packets (and the policy's EV state). */
void weft_uet_sender_init (const WeftUet *cfg, WeftUetFlow *uf, guint32 n_pkts);
/* Sender: the next packet to resend, or G_MAXUINT64 when none waits. */
guint64 weft_uet_next_lost (WeftUetFlow *uf, guint64 snd_nxt);
/* Sender: packet @seq is acknowledged; TRUE when it was not before. */
gboolean weft_uet_on_sack (WeftUetFlow *uf, guint64 seq);
/* Sender: packet @seq was trimmed; TRUE when it is newly due for a resend. */
gboolean weft_uet_on_nack (WeftUetFlow *uf, guint64 seq);
/* Sender: the flow's timer expired (packet_timers off); every packet in [@snd_una, @snd_nxt)
 * not acknowledged is due again. */
void weft_uet_on_timeout (WeftUetFlow *uf, guint64 snd_una, guint64 snd_nxt);
/* Sender, packet_timers on: packet @seq leaves at @now (a first transmission or a resend). */
void weft_uet_on_sent (WeftUetFlow *uf, guint64 seq, weft_time_t now);
/* Sender: when the oldest packet out (sent, not acknowledged, not known lost) left, or
 * WEFT_TIME_NEVER when none is; transmissions since superseded are dropped on the way. */
weft_time_t weft_uet_oldest_out (WeftUetFlow *uf);
/* Sender: the oldest packet out when it left at or before @before: taken off the send order
 * and returned, still out (weft_uet_on_packet_timeout marks it); G_MAXUINT64 otherwise. */
guint64 weft_uet_pop_expired (WeftUetFlow *uf, weft_time_t before);
/* Sender: packet @seq's retransmission timer expired: it is due again, no longer in flight. */
void weft_uet_on_packet_timeout (WeftUetFlow *uf, guint64 seq);
/* Sender: the cumulative point @snd_una advanced past acknowledged packets (up to @n_pkts). */
guint64 weft_uet_advance (const WeftUetFlow *uf, guint64 snd_una, guint64 n_pkts);

#endif /* WEFT_MODELS_UET_H */
