/* models/port.h - an egress port: per-class FIFO queues, a finite buffer, a transmitter.
 *
 * Models: strict priority between classes (class 0 first), FIFO inside a class, one buffer
 * shared by the port's classes with tail drop (a packet that would take the waiting bytes
 * above the buffer is dropped and counted), serialization at the link rate in integer
 * picoseconds.  A port may also have a pull source (a NIC's transport): when the queues are
 * empty and the transmitter is free, it asks the source for the next packet, so a host's flows
 * share its link round-robin without filling a queue.
 * Counters are 64-bit and kept per port for /ports; interval counters feed /links samples.
 * Queue depth counts bytes waiting, not the packet being serialized.
 * On InfiniBand (port->ib set) the port is credit-gated: class 0 carries flow-control packets,
 * class 1 + v virtual lane v; a packet leaves only with the credits it needs
 * (models/ib_credit.h), VLs take turns by the arbitration tables (models/vlarb.h), nothing is
 * tail-dropped (the buffer that matters is the receiver's), and time with data waiting but no
 * credits is PortXmitWait.  A pulled packet that cannot go yet waits in `staged`.
 * On RoCE (port->pfc set) class 0 carries PAUSE frames and class 1 + (7 - p) 802.1p priority
 * p; a paused priority (models/pfc.h) is skipped, and the pull source is not asked while the
 * RDMA priority is paused.
 * A switch with a shared buffer (models/buffer.h) gives its ports an unbounded cap_bytes and
 * admits packets itself.
 *
 * Events: at most one pending "transmitter free" event per port, and none at all while a
 * packet arrives at an idle port and leaves at once, nor when a pull source's pacing keeps the
 * port quiet past the packet's end (pull_defer); on InfiniBand, at most one credit wake-up
 * while the port is stalled, and no event at all for a flow-control packet's arrival.
 */
#ifndef WEFT_MODELS_PORT_H
#define WEFT_MODELS_PORT_H

#include "models/fault.h"
#include "models/ib_credit.h"
#include "models/link.h"
#include "models/pfc.h"
#include "sim/timer.h"
#include "sim/trace_schema.h"

/* Ethernet: 0 control (ACKs), 1 data.  InfiniBand: 0 flow control, 1 + v virtual lane v. */
#define WEFT_PORT_CLASSES (1 + WEFT_IB_MAX_VLS)

/* The next packet of @source (a transport agent) for port @port, or NULL. */
typedef WeftPacket *(*WeftPortPull) (void *source, guint port);

/* Port @port's transmitter frees at @at with nothing queued.  TRUE when a pull then would
 * certainly find nothing and do no more than arm the source's own wake-up for later: the source
 * has armed it now, and the port needs no "transmitter free" event at @at.  A source that
 * defers must kick the port (weft_port_kick) if it has something before @at after all: the
 * kick of a busy port with a deferring source arms the event. */
typedef gboolean (*WeftPortPullDefer) (void *source, guint port, weft_time_t at);

/* Layout: the fields every packet's enqueue, dequeue and transmission read - the queue
 * state, the transmitter, the mechanism pointers (PFC, InfiniBand credits, faults), the pull
 * source and the scheduling state - lie in the first two cache lines, and ports are aligned
 * to a line (weft_port_array_new), so a port gone cold costs two misses to decide what to do.
 * A packet's arrival on the port (its input side) reads and writes the first line only: the
 * mechanism pointers and the input's counters.  The per-packet counters follow in the next
 * two, then the wire (WeftLinkTx), then the queues themselves: q_mask says which classes hold
 * packets, so a dequeue reads only the FIFO it pops.  Everything read only by traces, reports and
 * rare mechanisms (credit wake-ups, link-level retry's chain, totals of rare events) comes last. A
 * field added to the hot part must keep it within WEFT_PORT_HOT_BYTES (asserted below); anything
 * else goes after it. */
typedef struct WeftPort {
    /* -- hot, line 1: what enqueue, dequeue and start of transmission test -- */
    _Alignas(64) WeftModel *owner;
    WeftPfcPort *pfc;             /* owned; NULL unless the fabric is RoCE */
    WeftIbPort *ib;               /* owned; NULL unless the fabric is InfiniBand */
    WeftFaultPort *fault;         /* borrowed; NULL unless a [fault.NAME] acts on this link (set
                                     once, as the fabric is built) */
    weft_time_t busy_until;       /* the transmitter is sending until then */
    guint64 q_bytes;              /* waiting bytes, all classes */
    guint64 rx_bytes, rx_packets; /* the input: written by every packet that arrives */
    /* -- hot, line 2: the transmitter's event and the pull source -- */
    WeftTimer tx_free;            /* the "transmitter free" event, at busy_until */
    WeftSched sched;              /* the port schedules its own events, so simultaneous events
                                     of a switch's ports tie-break by port, not by one counter */
    guint64 defer_key;            /* the key tx_free would have had when the pull source deferred
                                     it (pull_defer); 0: none */
    WeftPortPull pull;            /* may be NULL */
    WeftPortPullDefer pull_defer; /* may be NULL */
    void *pull_source;            /* borrowed: the first argument of pull and pull_defer */
    /* -- lines 3 and 4: the departure hook, the queues' bitmap, per-packet counters -- */
    /* Called when a packet starts leaving through this port (a switch frees its input buffer
     * credits then); may be NULL. */
    void (*on_depart) (WeftModel *owner, struct WeftPort *port, WeftPacket *pkt);
    guint32 index;  /* port index on the owner's node */
    guint16 q_mask; /* bit c set exactly when q[c] holds a packet */
    /* RoCE (pfc set), the sender side's flags, bit p for 802.1p priority p (models/pfc.h): */
    guint8 pfc_paused; /* the last PAUSE applied for p had a pause time: pfc->until[p] may lie
                          ahead; clear: p is not paused, and pfc is not read to know it */
    guint8 pfc_storm;  /* the watchdog ignores p's pauses (forward) or drops its queue (drop) */
    /* Totals for /ports and the current sample interval for /links, counted per packet. */
    guint64 tx_bytes, tx_packets, busy_ps, s_bytes, s_packets, max_q, s_max_q;
    double s_area; /* queue bytes x ps */
    weft_time_t s_last;
    guint64 cap_bytes; /* buffer; G_MAXUINT64 for unbounded (host memory): read as a packet
                          joins a queue, whose depth change (s_area) writes this line anyway */

    WeftLinkTx link;
    WeftPacketFifo q[WEFT_PORT_CLASSES];

    /* -- cold: rare mechanisms, traces -- */
    WeftPacket *staged;    /* InfiniBand: pulled, waiting for credits */
    struct WeftPort *far;  /* with ib: the port at the link's other end (borrowed), whose
                              credits this port's flow-control packets carry, and whose
                              identity keys this port's credit wake-ups */
    WeftTimer credit_wake; /* with ib, while stalled: the first FCP on its way arrives
                              (models/ib_credit.h) */
    /* Ultra Ethernet link-level retry (models/uet.h): a corrupted frame is sent again this
     * long after it ended, ahead of what waits; 0: off.  With llr_go_back_n the receiver also
     * discards every frame that starts before the replay, and they are sent again after the
     * corrupted one (llr_chain holds them, in order, meanwhile). */
    weft_time_t llr_delay_ps;
    gboolean llr_go_back_n;
    /* Ultra Ethernet trimming: a trimming switch keeps an allowance for header-only packets
     * (trimmed headers, ACKs, NACKs), which ride the control class: they are not tail-dropped
     * when data fills cap_bytes (UEC's htsim's CompositeQueue holds them apart). */
    gboolean header_room;
    WeftPacket *llr_chain; /* Ultra Ethernet go-back-N retry under way (set only with fault) */
    WeftPacket *llr_chain_tail;
    guint64 drops;
    guint64 drops_data; /* the data packets among the drops */
    guint64 ecn_marks;  /* packets marked CE at this egress (RoCE switches) */
    guint64 trims;      /* Ultra Ethernet: data packets trimmed at this egress */
    /* Ultra Ethernet: frames sent again for link-level retry. */
    guint64 llr_replays;
    guint64 s_drops, s_ecn_marks, s_trims;
    weft_time_t s_start;
    /* With a fault on the link: its counters at the last sample (their deltas are sampled). */
    guint64 s_corrupted_base, s_downed_base;
    WeftSched wake_sched; /* credit_wake's keys: far's id, counted from WEFT_KEY_WAKE (sim/event.h),
                             touched only by this port's wake-ups whichever rank sent the FCP */
} WeftPort;

/* The hot part: two cache lines, from owner to pull_source. */
#define WEFT_PORT_HOT_BYTES 128
G_STATIC_ASSERT (G_STRUCT_OFFSET (WeftPort, pull_source) + sizeof (void *) <= WEFT_PORT_HOT_BYTES);
G_STATIC_ASSERT (G_STRUCT_OFFSET (WeftPort, s_last) < 4 * 64); /* counters: lines 3 and 4 */
G_STATIC_ASSERT (sizeof (WeftPort) % 64 == 0);
G_STATIC_ASSERT (WEFT_PORT_CLASSES <= 16 && WEFT_PFC_PRIOS <= 8); /* q_mask, pfc_paused bits */
/* The wire's per-packet fields (models/link.h, owner to wire) in lines 4 and 5. */
G_STATIC_ASSERT (G_STRUCT_OFFSET (WeftPort, link) >= 3 * 64);
/* The input's counters, written by every packet that arrives, in the first line with the
 * mechanism pointers its arrival reads. */
G_STATIC_ASSERT (G_STRUCT_OFFSET (WeftPort, rx_packets) + sizeof (guint64) <= 64);
/* The buffer's size in the line of the queue's depth integral (queue_changed). */
G_STATIC_ASSERT (G_STRUCT_OFFSET (WeftPort, cap_bytes) / 64 ==
                 G_STRUCT_OFFSET (WeftPort, s_area) / 64);
G_STATIC_ASSERT (G_STRUCT_OFFSET (WeftPort, link) + G_STRUCT_OFFSET (WeftLinkTx, wire) +
                     sizeof (WeftPacketFifo) <=
                 5 * 64);

/* An array of @n ports, zeroed and aligned to a cache line, from @arena: the run's huge pages
 * (sim/arena.h), freed with the run; weft_port_clear each before.  (transfer none) */
WeftPort *weft_port_array_new (WeftArena *arena, guint n);

/* Sets up @port for @owner's port @index sending over @link_id in @direction to @peer. */
void weft_port_init (WeftPort *port, WeftModel *owner, guint32 index, guint32 link_id,
                     guint8 direction, WeftModel *peer, guint16 peer_port, guint64 rate_bps,
                     weft_time_t delay_ps, guint64 cap_bytes);
/* Releases queued and in-flight packets. */
void weft_port_clear (WeftPort *port);

/* InfiniBand credits (both ports have ib): @port's flow-control packets go to @far, and come
 * back from it, without arrival events (models/ib_credit.h). */
void weft_port_set_far (WeftPort *port, WeftPort *far);

/** Queues @pkt in class pkt->prio (clamped) or sends it at once if the port is idle.  Returns
 * FALSE when the buffer is full: the packet is then dropped, counted and released.
 * (transfer full) */
gboolean weft_port_enqueue (WeftPort *port, WeftPacket *pkt);

/* InfiniBand: an FCP for @vl joins class 0 of @port, or leaves at once if the port is idle;
 * as weft_port_enqueue of weft_ib_fcp_new()'s packet, without the packet (models/ib_credit.h).
 * Call when weft_ib_release() or weft_ib_grant() says one must be queued. */
void weft_port_queue_fcp (WeftPort *port, guint vl);

/* Something may be sendable now (the pull source has data, credits came back): start the
 * transmitter if it is idle. */
void weft_port_kick (WeftPort *port);

/* Data packets queued, staged, or on this port's wire (for accounting checks); trimmed
 * headers are not counted (their transmission ended as a trim). */
guint64 weft_port_inflight_data (const WeftPort *port);

static inline void
weft_port_count_rx (WeftPort *port, const WeftPacket *pkt)
{
    port->rx_bytes += pkt->size;
    port->rx_packets++;
}

/* A packet bound for @port is dropped before it joins a queue (a switch's shared buffer
 * refused it): counted as a tail drop would be. */
static inline void
weft_port_count_drop (WeftPort *port, const WeftPacket *pkt)
{
    port->drops++;
    port->drops_data += pkt->kind == WEFT_PKT_DATA;
    port->s_drops++;
}

/* RoCE: the port class of 802.1p priority @prio (class 0 carries PAUSE frames). */
static inline guint
weft_port_pfc_class (guint prio)
{
    return 8u - (prio & 7u); /* class 1 + (7 - p): strict priority serves higher p first */
}

/* The 802.1p priority of RoCE class @c (1..8). */
static inline guint
weft_port_pfc_prio (guint c)
{
    return 8u - c;
}

/* The class a packet waits in. */
static inline guint
weft_port_class (const WeftPort *port, const WeftPacket *pkt)
{
    if (port->ib)
        return pkt->kind == WEFT_PKT_CREDIT ? 0 : 1u + pkt->vl;
    if (port->pfc)
        return pkt->kind == WEFT_PKT_CREDIT ? 0 : weft_port_pfc_class (pkt->prio);
    return pkt->prio < 2 ? pkt->prio : 1;
}

/* RoCE: whether priority @prio (0-7) is paused at @port's egress at @now (a PAUSE in force
 * and not stormed by the watchdog).  @port->pfc must be set. */
static inline gboolean
weft_port_pfc_paused (const WeftPort *port, guint prio, weft_time_t now)
{
    /* pfc_paused first: a priority no PAUSE has stopped costs no read of pfc. */
    return (port->pfc_paused >> prio & 1u) && port->pfc->until[prio] > now &&
           !(port->pfc_storm >> prio & 1u);
}

/* RoCE: whether the watchdog has declared @prio stormed at @port. */
static inline gboolean
weft_port_pfc_stormed (const WeftPort *port, guint prio)
{
    return port->pfc_storm >> prio & 1u;
}

/* A link-level flow-control packet arrived on @port: InfiniBand credits or a PFC PAUSE.
 * (transfer full) */
void weft_port_on_flow_control (WeftPort *port, WeftPacket *pkt);

/* An InfiniBand FCP sent to @port from another rank over a cut link (doc/parallel.md): joins
 * the credits on their way (models/ib_credit.h) and wakes @port for it if stalled, as the
 * sending side does in one process.  (transfer full) */
void weft_port_credit_in (WeftPort *port, WeftPacket *pkt);

/* PFC (models/pfc.c).  A packet that arrived on @in enters the switch's buffer: FALSE when it
 * overflows xoff + headroom (the caller drops it; counted as a lossless violation).  May send
 * a PAUSE upstream on @in. */
gboolean weft_pfc_on_arrival (WeftPort *in, const WeftPacket *pkt);
/* The same with the threshold @xoff (a switch's dynamic one: models/buffer.h) and the shared
 * buffer's free bytes @room: a packet larger than @room is dropped (a lossless violation). */
gboolean weft_pfc_admit (WeftPort *in, const WeftPacket *pkt, guint64 xoff, guint64 room);
/* A PAUSE from the peer arrived on @port: takes effect after the response delay.
 * (transfer full) */
void weft_pfc_on_pause (WeftPort *port, WeftPacket *pause);
/* A packet that arrived on @in starts leaving the switch: may send a resume on @in. */
void weft_pfc_on_depart (WeftPort *in, const WeftPacket *pkt);

/* Closes the current sample interval at @now into @row; returns FALSE (row untouched) when
 * nothing happened in it (no bytes, no drops, empty queue), so idle rows are not written. */
gboolean weft_port_sample (WeftPort *port, weft_time_t now, WeftTraceLinkSample *row);

#endif /* WEFT_MODELS_PORT_H */
