/* models/link.h - one direction of a full-duplex link: the wire.
 *
 * Models: propagation delay and in-order delivery.  The transmitter (models/port.h) decides
 * when a packet's first and last bits leave; the wire holds it until last bit + propagation
 * delay + the receiver's forwarding latency, then hands it to the receiving model's receive
 * hook.  Toward a cut-through switch it is handed over once its first `cut_bytes` (the
 * headers the switch routes on) have arrived instead, and carries the time its tail arrives;
 * a packet addressed to the switch's own node (a NIC as an endpoint) is handed over whole.
 * Toward a NIC whose receive pipeline it carries (rx_ps, models/nic.h) it is handed over that
 * much later, as the NIC's own event; flow-control frames skip the pipeline on a FIFO of their
 * own (ctl).
 * Packets in flight are kept in the wire's own FIFO and only the head's arrival is scheduled
 * (htsim's pipe), so events never own packets and teardown finds every packet.  The arrival
 * event's argument names the packet it delivers (borrowed), for the event queue to prefetch.
 * InfiniBand flow-control packets (credits) are not on that FIFO and have no arrival event:
 * weft_link_send_fcp() (or weft_link_send_credit(), for one that is a packet) hands them to
 * the far port at once, as a record with their arrival time, and that port applies them when
 * due (models/ib_credit.h).
 * Ignores: bit errors and link failures (a later issue adds them here).
 *
 * A packet crosses a link only through weft_link_send(): no model reaches into the far end's
 * state, so a later partitioned run can cut the fabric at any link.
 */
#ifndef WEFT_MODELS_LINK_H
#define WEFT_MODELS_LINK_H

#include "models/ib_credit.h"
#include "sim/model.h"
#include "sim/sim.h"

typedef struct WeftLinkTxS {
    /* Layout: a port's wire (models/port.h) is read and written by every packet it sends and
     * every arrival: the fields from owner to wire (96 bytes) lie in two of the port's lines
     * (asserted there); the cross-rank poster's data and the flow-control FIFO, rare, follow. */
    WeftModel *owner;  /* sending side */
    guint32 sched_id;  /* the sending port's scheduling id (its WeftSched's, fixed): it keys
                          the arrivals, read here rather than from the port, whose line is
                          cold by the time a packet arrives */
    guint32 arrivals;  /* arrival events scheduled on wire so far: the n-th is keyed
                          WEFT_KEY_WIRE (sending port's id, n) (sim/event.h), whichever
                          side schedules it */
    WeftModel *peer;   /* receiving model */
    guint16 peer_port; /* port index at the receiver */
    guint8 direction;  /* 0: a -> b of the graph link, 1: b -> a */
    guint32 cut_bytes; /* receiver forwards after this many bytes (cut-through); 0: whole packet */
    guint64 rate_bps;
    weft_time_t delay_ps; /* propagation + the receiver's forwarding latency */
    weft_time_t rx_ps;    /* the receiving NIC's receive processing, carried by the wire when the
                             NIC does nothing at a packet's arrival but start it (weft_nic_fold_rx):
                             a packet is handed over rx_ps after its last bit (tail_at) */
    /* A cut link of a run across ranks (doc/parallel.md): the far end is another rank's, so
     * a packet sent here, its arrival times set, goes to post (the window's outbox) by value;
     * the far rank puts it on its own copy of this wire (weft_link_put).  NULL otherwise. */
    void (*post) (void *data, const struct WeftLinkTxS *link, WeftPacket *pkt);
    WeftPacketFifo wire; /* in flight, in arrival order */
    /* -- rare -- */
    void *post_data;
    guint32 link_id;      /* graph link id (traces, and the cross-rank post beside post_data) */
    guint32 ctl_arrivals; /* arrival events scheduled on ctl so far (WEFT_KEY_CTL) */
    WeftPacketFifo ctl;   /* with rx_ps: flow-control frames (PFC PAUSE), which act as they
                             arrive, never through the NIC's pipeline */
} WeftLinkTx;

/* Puts @pkt on the wire; its first bit leaves at @tx_start and its last at @tx_end.
 * (transfer full) */
void weft_link_send (WeftLinkTx *link, WeftPacket *pkt, weft_time_t tx_start, weft_time_t tx_end);

/* Puts the InfiniBand flow-control packet @pkt on the wire without an event of its own: it
 * is pushed, as a record with the arrive_at the wire would give it, onto @far's credits on
 * their way (models/ib_credit.h), which applies it when it next needs credits, and released.
 * On a cut link it is posted to the far rank instead, and FALSE is returned (@far is that
 * rank's).  (transfer full) */
gboolean weft_link_send_credit (WeftLinkTx *link, WeftPacket *pkt, weft_time_t tx_start,
                                weft_time_t tx_end, WeftIbPort *far);

/* When an InfiniBand FCP of @size bytes sent over [@tx_start, @tx_end] is handed to the far
 * port: the arrive_at weft_link_send_credit gives an FCP packet (whose dst is 0).  It skips
 * a NIC's receive pipeline (rx_ps), as the ctl FIFO's frames do. */
static inline weft_time_t
weft_link_fcp_arrival (const WeftLinkTx *link, guint32 size, weft_time_t tx_start,
                       weft_time_t tx_end)
{
    if (G_UNLIKELY (link->cut_bytes && size > link->cut_bytes && !link->rx_ps &&
                    link->peer->node != 0))
        return tx_start + weft_time_serialize (link->cut_bytes, link->rate_bps) + link->delay_ps;
    return tx_end + link->delay_ps;
}

/* An InfiniBand FCP for @vl carrying @credits, @size bytes sent over [@tx_start, @tx_end],
 * that is no packet: its record joins @far's credits on their way, as weft_link_send_credit
 * does.  Not on a cut link (post set: an FCP crosses ranks as a packet). */
static inline void
weft_link_send_fcp (const WeftLinkTx *link, WeftIbPort *far, guint vl, guint32 credits,
                    guint32 size, weft_time_t tx_start, weft_time_t tx_end)
{
    g_assert (link->post == NULL);
    weft_ib_return_push (far, weft_link_fcp_arrival (link, size, tx_start, tx_end), vl, credits);
}

/* The far side of a cut link: puts @pkt, sent by another rank with its arrival times set, on
 * this rank's copy of the wire (or its ctl FIFO) and schedules its arrival as weft_link_send
 * would have.  Not for InfiniBand flow-control packets (models/port.h: weft_port_credit_in).
 * (transfer full) */
void weft_link_put (WeftLinkTx *link, WeftPacket *pkt);

/* The packets on @link's wire whose last bit has reached the receiver by @now, counted into
 * *@packets and *@bytes: with rx_ps, those the receiver has and processes (its rx counters
 * at the end of a run). */
void weft_link_count_arrived (const WeftLinkTx *link, weft_time_t now, guint64 *packets,
                              guint64 *bytes);

/* Releases packets still in flight (teardown). */
void weft_link_clear (WeftLinkTx *link);

#endif /* WEFT_MODELS_LINK_H */
