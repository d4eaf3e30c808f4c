/* models/ib_credit.h - InfiniBand credit-based link-level flow control per virtual lane
 * (IBA Vol 1 7.9).
 *
 * Every port of an InfiniBand fabric has one WeftIbPort, and credits are counted here only.
 * Sender side: `vl[v].avail` credits it may still spend toward the peer's input buffer; a packet
 * of w wire bytes leaves only with ceil(w / credit_unit) credits in hand, spent when its
 * transmission starts.  Receiver side: `used[vl]` credits held by packets that arrived on this
 * port and still sit in this node's buffer (a switch keeps them until they start leaving
 * through an output; an HCA consumes them at once); when a packet leaves the buffer its
 * credits become `pending` and go back upstream in a flow-control packet (FCP) on this port's
 * own egress, ahead of data, taking link time and propagation delay.  While an FCP for a VL
 * waits for the transmitter, further freed credits join it (its count is filled in when it is
 * sent), which rate-limits updates as hardware does.
 *
 * Shared pool (optional, per switch): when a VL of an input port is about to run out of its
 * private buffer, the switch lends it one largest packet's worth of credits from the pool
 * (sent upstream like freed credits), and takes them back as that VL drains below half its
 * private buffer - the upstream sender sees more credits while the port is busy.
 *
 * Lazy credit application: an FCP is not an event.  When it is sent, the wire hands it at once
 * to the port whose credits it carries (weft_link_send_credit, or the port itself), whose
 * `returning` ring holds the FCPs on their way in arrival order, each as a small record (VL,
 * credits, the arrive_at the wire gives it), and `return_next` the first one's arrive_at.  Before
 * anything reads `avail` (the port choosing what to send, adaptive routing's load, IB CC's
 * marking), weft_ib_sync() applies every FCP whose arrival event would already have run: one
 * due before now, or at now with its wire's scheduling id (`return_key`) at or below the
 * running event's key - the order the engine gave the arrival event, whose key had the wire's
 * id (sim/event.h).  Credits therefore arrive at exactly the times they did as events.  An
 * arrival only ever did something else when the port was stalled (idle, with data waiting and
 * no credits for it): then it kicked the transmitter.  So a stalled port keeps one wake-up
 * event (models/port.h, credit_wake) for the first FCP still on its way, keyed by the wire's
 * identity as the arrival was; a port that is busy or has nothing waiting needs none.
 * Cost: one event per FCP that reaches a stalled port instead of one per FCP; a sync with
 * nothing due is one load and a compare, and applying an FCP is a ring pop and an add.
 *
 * No packet object: an FCP waiting for its port's transmitter is a VL in `fcp_ring` (at most
 * one per VL: fcp_queued), and one sent is a record in the far port's `returning`; neither
 * takes a packet from the pool (models/port.c, weft_port_queue_fcp).  Only where the FCP must
 * be a packet - a port with a fault acting on its link (link-level retry may hold it) or a cut
 * link of a run across ranks (it is posted by value) - is one made, as it starts.
 *
 * Invariant (checked by weft_network_check_credits): for every link direction and VL,
 * sender avail + credits of its packets on the wire + credits of packets buffered at the
 * receiver + receiver pending + credits in FCPs on the way back (those not yet applied from
 * the sender's `returning`) = the receiver's advertised
 * buffer: its private buffer plus what the pool has lent it.  A packet that arrives to a full
 * buffer is impossible by that invariant; if one did, it is dropped and counted in lossless_drops,
 * a bug reported at the end of the run.
 */
#ifndef WEFT_MODELS_IB_CREDIT_H
#define WEFT_MODELS_IB_CREDIT_H

#include "models/vlarb.h"
#include "sim/packet.h"
#include "sim/sim.h"

/* An FCP on its way to the port whose credits it carries: applied at arrive_at. */
typedef struct {
    weft_time_t arrive_at;
    guint32 credits;
    guint32 vl;
} WeftIbReturn;

/* One VL's credits, both sides of the port (see above): a send, an arrival and a release of a
 * packet each read one of these, so a VL's four counts share 16 bytes. */
typedef struct {
    guint32 avail;   /* sender: credits it may still spend toward the peer */
    guint32 used;    /* receiver: credits held by packets in this node's buffer */
    guint32 pending; /* receiver: freed, to go back upstream in the next FCP */
    guint32 granted; /* receiver: credits lent from the switch's shared pool */
} WeftIbVl;

/* Layout: what every send, arrival, release and FCP of the port reads - the config, the
 * `returning` ring and its ends, the FCP state and the limits - fills the first cache line; the
 * FCPs waiting, the SL-to-VL map and VL 0's counts (the only VL of most runs) the second.  The
 * state is aligned to a line, from the run's arena (weft_ib_port_new).  The layout before, each
 * count an array over the VLs, put one packet's counts in four lines and the FCP state in a
 * sixth, and the order check of a push read the ring's last record, in the peer's memory
 * (bench/README.md, "Where the flagship's CPU time goes"). */
typedef struct {
    /* first line */
    _Alignas(64) const WeftIbConfig *cfg;
    WeftIbReturn *returning; /* ring of FCPs from the peer on their way here, by arrival (owned) */
    weft_time_t return_next; /* arrive_at of returning's first FCP; G_MAXUINT64: none */
    weft_time_t return_last; /* arrive_at of returning's last FCP (pushes keep the order) */
    guint32 ret_head, ret_len, ret_mask; /* first record, records, capacity - 1 (a power of 2) */
    guint32 limit;                       /* the peer's advertised buffer per VL, in credits */
    guint32 capacity;                    /* this port's private buffer per VL, in credits */
    guint32 fcp_queued;                  /* bit per VL: an FCP waits in this port's egress */
    guint8 fcp_head, fcp_n;              /* first of fcp_ring, and how many */
    guint8 stalled;                      /* PortXmitWait: data waiting and no credits to send it */
    /* second line */
    _Alignas(64) guint8 fcp_ring[16]; /* the VLs whose FCP waits in class 0, in order */
    guint8 sl2vl[WEFT_IB_SLS];        /* the VL a packet of each SL leaves this port on */
    guint64 return_key; /* the peer port's scheduling id << 32 (sim/event.h); read on ties */
    guint64 fcps_sent;
    WeftIbVl vl[WEFT_IB_MAX_VLS];
    /* rare */
    guint32 *pool_free; /* the switch's shared pool, in credits; NULL: none */
    guint32 grant_unit; /* credits lent at a time: one largest packet */
    guint64 loans;      /* times the pool lent to this port */
    guint64 lossless_drops;
    WeftVlArb arb;
    weft_time_t stall_since;
    guint64 xmit_wait_ps, s_stall_ps;
} WeftIbPort;

G_STATIC_ASSERT (G_STRUCT_OFFSET (WeftIbPort, fcp_ring) == 64);
G_STATIC_ASSERT (G_STRUCT_OFFSET (WeftIbPort, vl) + sizeof (WeftIbVl) <= 128);

/** A port's state: @limit credits per VL toward the peer, @capacity of its own buffer, zeroed
 * and aligned to a line, from @arena (sim/arena.h): freed with the run, after
 * weft_ib_port_clear.  (transfer none) */
WeftIbPort *weft_ib_port_new (WeftArena *arena, const WeftIbConfig *cfg, guint32 limit,
                              guint32 capacity);

static inline guint32
weft_ib_pkt_credits (const WeftIbPort *ib, const WeftPacket *pkt)
{
    return weft_ib_credits (ib->cfg, pkt->size);
}

static inline gboolean
weft_ib_can_send (const WeftIbPort *ib, const WeftPacket *pkt)
{
    return pkt->kind == WEFT_PKT_CREDIT || ib->vl[pkt->vl].avail >= weft_ib_pkt_credits (ib, pkt);
}

/* weft_ib_can_send of a packet known not to be an FCP (a VL's queue or the staged packet). */
static inline gboolean
weft_ib_can_send_data (const WeftIbPort *ib, const WeftPacket *pkt)
{
    return ib->vl[pkt->vl].avail >= weft_ib_pkt_credits (ib, pkt);
}

/* The transmitter starts sending @pkt: spend its credits (FCPs need none: their count is
 * filled in here). */
void weft_ib_on_send (WeftIbPort *ib, WeftPacket *pkt);

/* An FCP for @vl starts: everything freed so far for @vl rides on it.  Returns its credits. */
static inline guint32
weft_ib_fcp_take (WeftIbPort *ib, guint vl)
{
    guint32 c = ib->vl[vl].pending;
    ib->vl[vl].pending = 0;
    ib->fcp_queued &= ~(1u << vl);
    ib->fcps_sent++;
    return c;
}

/* FCPs waiting for the transmitter, as VLs (class 0, in order). */
static inline void
weft_ib_fcp_ring_push (WeftIbPort *ib, guint vl)
{
    g_assert (ib->fcp_n < G_N_ELEMENTS (ib->fcp_ring));
    ib->fcp_ring[(ib->fcp_head + ib->fcp_n++) & 15u] = (guint8) vl;
}

static inline guint
weft_ib_fcp_ring_pop (WeftIbPort *ib)
{
    guint vl = ib->fcp_ring[ib->fcp_head];
    ib->fcp_head = (guint8) ((ib->fcp_head + 1u) & 15u);
    ib->fcp_n--;
    return vl;
}
G_STATIC_ASSERT (WEFT_IB_MAX_VLS <= 16); /* fcp_ring: at most one FCP per VL waits */

/* @pkt arrived on the port owning @ib and enters the node's buffer.  FALSE when the buffer
 * cannot hold it: the caller drops it (a lossless violation, counted here). */
gboolean weft_ib_on_arrival (WeftIbPort *ib, WeftPacket *pkt);

/* A packet that arrived on the port owning @ib leaves the buffer: its credits become pending.
 * Returns TRUE when the caller must queue an FCP for pkt->in_vl on that port (none is
 * queued). */
gboolean weft_ib_release (WeftIbPort *ib, const WeftPacket *pkt);

/* A flow-control packet for @vl, its credit count to be filled in when it is sent.
 * (transfer full) */
WeftPacket *weft_ib_fcp_new (WeftPacketPool *pool, const WeftIbPort *ib, guint vl);

/* After an arrival: lend @vl a packet's worth of credits from the shared pool if it is about
 * to run out.  TRUE when the caller must queue an FCP for @vl (none is queued). */
gboolean weft_ib_grant (WeftIbPort *ib, guint vl);

/* An FCP from the peer arrived: its credits become available again. */
void weft_ib_on_fcp (WeftIbPort *ib, const WeftPacket *fcp);

/* The @i-th FCP on its way to @ib (0: the first), i < ret_len. */
static inline const WeftIbReturn *
weft_ib_return_at (const WeftIbPort *ib, guint32 i)
{
    return &ib->returning[(ib->ret_head + i) & ib->ret_mask];
}

/* Makes room for one more FCP on its way (the ring is full or not yet allocated). */
void weft_ib_return_grow (WeftIbPort *ib);

/* An FCP for @vl carrying @credits is on its way to @ib, to be applied at @arrive_at (no
 * earlier than the last one pushed). */
static inline void
weft_ib_return_push (WeftIbPort *ib, weft_time_t arrive_at, guint vl, guint32 credits)
{
    if (G_UNLIKELY (ib->returning == NULL || ib->ret_len > ib->ret_mask))
        weft_ib_return_grow (ib);
    /* The order is checked against a field of the first line, not the ring's last record: that
     * load missed the cache at most pushes. */
    g_assert (ib->ret_len == 0 || arrive_at >= ib->return_last);
    ib->returning[(ib->ret_head + ib->ret_len) & ib->ret_mask] =
        (WeftIbReturn){ .arrive_at = arrive_at, .credits = credits, .vl = vl };
    ib->return_last = arrive_at;
    if (ib->ret_len++ == 0)
        ib->return_next = arrive_at;
}

/* Applies the FCPs of `returning` that are due at @now for an event of key @now_key (see
 * above). */
void weft_ib_apply_due (WeftIbPort *ib, weft_time_t now, guint64 now_key);

/* Whether the first FCP on its way is due for the running event (none: return_next is
 * G_MAXUINT64, never at or before a running event's time). */
static inline gboolean
weft_ib_fcp_due (const WeftIbPort *ib, weft_time_t now, guint64 now_key)
{
    /* without a branch: whether an FCP is due is a test of every credit check */
    return weft_event_place (ib->return_next, ib->return_key) <= weft_event_place (now, now_key);
}

/* Brings `avail` up to date for the running event of @sim: call before reading it. */
static inline void
weft_ib_sync (WeftIbPort *ib, WeftSim *sim)
{
    if (G_UNLIKELY (weft_ib_fcp_due (ib, sim->now, sim->now_key)))
        weft_ib_apply_due (ib, sim->now, sim->now_key);
}

/* Frees the FCPs still on their way (teardown). */
void weft_ib_port_clear (WeftIbPort *ib);

/* Stall bookkeeping (PortXmitWait), called by the port. */
void weft_ib_stall_begin (WeftIbPort *ib, weft_time_t now);
void weft_ib_stall_end (WeftIbPort *ib, weft_time_t now, weft_time_t sample_start);
/* Stall time in the sample interval [start, now], resetting it. */
guint64 weft_ib_stall_sample (WeftIbPort *ib, weft_time_t now, weft_time_t start);

#endif /* WEFT_MODELS_IB_CREDIT_H */
