#include "config.h"
#define G_LOG_DOMAIN "weft-link"
#include "models/link.h"

static void
on_arrival (WeftSim *sim, void *target, WeftArg arg)
{
    WeftLinkTx *link = target;
    WeftPacket *pkt = weft_fifo_pop (&link->wire);
    g_assert (pkt && pkt == arg.ptr && pkt->arrive_at == sim->now);
    pkt->in_port = link->peer_port;
    pkt->hop++;
    /* The event's argument is the packet it delivers, borrowed: the queue prefetches it beside
     * the wire (sim/event.c) before this runs; the wire's FIFO stays the state. */
    if (link->wire.head)
        weft_sim_schedule_keyed (sim, pkt->next_at,
                                 WEFT_KEY_WIRE (link->sched_id, link->arrivals++), on_arrival, link,
                                 (WeftArg){ .ptr = link->wire.head });
    link->peer->klass->receive (link->peer, link->peer_port, pkt);
}

/* A flow-control frame on a wire that carries a NIC's receive pipeline (rx_ps) arrives on its
 * own FIFO, at its tail_at: it overtakes the packets still in the pipeline. */
static void
on_ctl_arrival (WeftSim *sim, void *target, WeftArg arg)
{
    WeftLinkTx *link = target;
    WeftPacket *pkt = weft_fifo_pop (&link->ctl);
    g_assert (pkt && pkt->arrive_at == sim->now);
    pkt->in_port = link->peer_port;
    pkt->hop++;
    if (link->ctl.head)
        weft_sim_schedule_keyed (sim, link->ctl.head->arrive_at,
                                 WEFT_KEY_CTL (link->sched_id, link->ctl_arrivals++),
                                 on_ctl_arrival, link, (WeftArg){ 0 });
    link->peer->klass->receive (link->peer, link->peer_port, pkt);
}

/* When @pkt, sent over [tx_start, tx_end], is handed to the receiver: sets its tail_at and
 * arrive_at. */
static inline void
set_arrival (const WeftLinkTx *link, WeftPacket *pkt, weft_time_t tx_start, weft_time_t tx_end)
{
    pkt->tail_at = tx_end + link->delay_ps;
    if (link->rx_ps && pkt->kind == WEFT_PKT_CREDIT) {
        pkt->arrive_at = pkt->tail_at;
        return;
    }
    pkt->arrive_at = pkt->tail_at + link->rx_ps;
    /* A cut-through switch forwards once it has the headers, but consumes a packet addressed
     * to its own node (a NIC as an endpoint) whole. */
    if (link->cut_bytes && pkt->size > link->cut_bytes && pkt->dst != link->peer->node)
        pkt->arrive_at =
            tx_start + weft_time_serialize (link->cut_bytes, link->rate_bps) + link->delay_ps;
}

gboolean
weft_link_send_credit (WeftLinkTx *link, WeftPacket *pkt, weft_time_t tx_start, weft_time_t tx_end,
                       WeftIbPort *far)
{
    set_arrival (link, pkt, tx_start, tx_end);
    if (G_UNLIKELY (link->post != NULL)) {
        link->post (link->post_data, link, pkt);
        return FALSE;
    }
    g_assert (pkt->arrive_at == weft_link_fcp_arrival (link, pkt->size, tx_start, tx_end));
    weft_ib_return_push (far, pkt->arrive_at, pkt->vl, (guint32) pkt->seq);
    weft_packet_release (&link->owner->sim->pool, pkt);
    return TRUE;
}

void
weft_link_send (WeftLinkTx *link, WeftPacket *pkt, weft_time_t tx_start, weft_time_t tx_end)
{
    set_arrival (link, pkt, tx_start, tx_end);
    if (G_UNLIKELY (link->post != NULL)) {
        link->post (link->post_data, link, pkt);
        return;
    }
    weft_link_put (link, pkt);
}

void
weft_link_put (WeftLinkTx *link, WeftPacket *pkt)
{
    if (link->rx_ps && pkt->kind == WEFT_PKT_CREDIT) {
        gboolean idle = link->ctl.head == NULL;
        weft_fifo_push (&link->ctl, pkt);
        if (idle)
            weft_sim_schedule_keyed (link->owner->sim, pkt->arrive_at,
                                     WEFT_KEY_CTL (link->sched_id, link->ctl_arrivals++),
                                     on_ctl_arrival, link, (WeftArg){ 0 });
        return;
    }
    gboolean was_empty = link->wire.head == NULL;
    /* A FIFO wire: nothing overtakes (a transmitter sends one packet at a time). */
    g_assert (was_empty || pkt->arrive_at >= link->wire.tail->arrive_at);
    if (!was_empty)
        link->wire.tail->next_at = pkt->arrive_at; /* its line is written by the push anyway */
    weft_fifo_push (&link->wire, pkt);
    /* A FIFO wire delivers in order, so only the head needs an event.  (Not a WeftTimer: the
     * wire's FIFO is the state - an event is pending exactly while it holds a packet - and each
     * event is a delivery, never moved or cancelled.) */
    if (was_empty)
        weft_sim_schedule_keyed (link->owner->sim, pkt->arrive_at,
                                 WEFT_KEY_WIRE (link->sched_id, link->arrivals++), on_arrival, link,
                                 (WeftArg){ .ptr = pkt });
}

void
weft_link_count_arrived (const WeftLinkTx *link, weft_time_t now, guint64 *packets, guint64 *bytes)
{
    for (const WeftPacket *pkt = link->wire.head; pkt && pkt->tail_at <= now; pkt = pkt->next) {
        (*packets)++;
        *bytes += pkt->size;
    }
}

void
weft_link_clear (WeftLinkTx *link)
{
    if (link->owner) {
        weft_fifo_release_all (&link->wire, &link->owner->sim->pool);
        weft_fifo_release_all (&link->ctl, &link->owner->sim->pool);
    }
}
