/* models/link.h - one direction of a full-duplex link: the wire.
 *
 * Models: propagation delay and in-order delivery.  The transmitter (models/port.h) decides
 * when a packet's last bit leaves; the wire holds it until last bit + propagation delay +
 * the receiver's forwarding latency, then hands it to the receiving model's receive hook.
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
    WeftModel *owner;      /* sending side */
    WeftSched *sched;      /* the sending port's scheduling identity (arrival events) */
    WeftModel *peer;       /* receiving model */
    guint16 peer_port;     /* port index at the receiver */
    guint8 direction;      /* 0: a -> b of the graph link, 1: b -> a */
    guint32 link_id;       /* graph link id */
    guint64 rate_bps;
    weft_time_t delay_ps;  /* propagation + the receiver's forwarding latency */
    WeftPacketFifo wire;   /* in flight, in arrival order */
} WeftLinkTx;

/* Puts @pkt on the wire; its last bit leaves at @tx_end.  (transfer full) */
void weft_link_send (WeftLinkTx *link, WeftPacket *pkt, weft_time_t tx_end);

/* Releases packets still in flight (teardown). */
void weft_link_clear (WeftLinkTx *link);

#endif /* WEFT_MODELS_LINK_H */
