/* models/link.h - one direction of a full-duplex link: the wire.
 *
 * Models: propagation delay and in-order delivery.  The transmitter (models/port.h) decides
 * when a packet's first and last bits leave; the wire holds it until last bit + propagation
 * delay + the receiver's forwarding latency, then hands it to the receiving model's receive
 * hook.  Toward a cut-through switch it is handed over once its first `cut_bytes` (the
 * headers the switch routes on) have arrived instead, and carries the time its tail arrives;
 * a packet addressed to the switch's own node (a NIC as an endpoint) is handed over whole.
 * Packets in flight are kept in the wire's own FIFO and only the head's arrival is scheduled
 * (htsim's pipe), so events never own packets and teardown finds every packet.
 * Ignores: bit errors and link failures (a later issue adds them here).
 *
 * A packet crosses a link only through weft_link_send(): no model reaches into the far end's
 * state, so a later partitioned run can cut the fabric at any link.
 */
#ifndef WEFT_MODELS_LINK_H
#define WEFT_MODELS_LINK_H

#include "sim/model.h"
#include "sim/sim.h"

typedef struct {
    WeftModel *owner;  /* sending side */
    WeftSched *sched;  /* the sending port's scheduling identity (arrival events) */
    WeftModel *peer;   /* receiving model */
    guint16 peer_port; /* port index at the receiver */
    guint8 direction;  /* 0: a -> b of the graph link, 1: b -> a */
    guint32 link_id;   /* graph link id */
    guint64 rate_bps;
    weft_time_t delay_ps; /* propagation + the receiver's forwarding latency */
    guint32 cut_bytes; /* receiver forwards after this many bytes (cut-through); 0: whole packet */
    WeftPacketFifo wire; /* in flight, in arrival order */
} WeftLinkTx;

/* Puts @pkt on the wire; its first bit leaves at @tx_start and its last at @tx_end.
 * (transfer full) */
void weft_link_send (WeftLinkTx *link, WeftPacket *pkt, weft_time_t tx_start, weft_time_t tx_end);

/* Releases packets still in flight (teardown). */
void weft_link_clear (WeftLinkTx *link);

#endif /* WEFT_MODELS_LINK_H */
