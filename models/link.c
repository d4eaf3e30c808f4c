#include "config.h"
#define G_LOG_DOMAIN "weft-link"
#include "models/link.h"

static void
on_arrival (WeftSim *sim, void *target, WeftArg arg)
{
    WeftLinkTx *link = target;
    WeftPacket *pkt = weft_fifo_pop (&link->wire);
    g_assert (pkt && pkt->arrive_at == sim->now);
    pkt->in_port = link->peer_port;
    pkt->hop++;
    if (link->wire.head)
        weft_sim_schedule_at (sim, link->sched, link->wire.head->arrive_at, on_arrival, link,
                              (WeftArg){ 0 });
    link->peer->klass->receive (link->peer, link->peer_port, pkt);
}

void
weft_link_send (WeftLinkTx *link, WeftPacket *pkt, weft_time_t tx_start, weft_time_t tx_end)
{
    pkt->tail_at = tx_end + link->delay_ps;
    pkt->arrive_at = pkt->tail_at;
    /* A cut-through switch forwards once it has the headers, but consumes a packet addressed
     * to its own node (a NIC as an endpoint) whole. */
    if (link->cut_bytes && pkt->size > link->cut_bytes && pkt->dst != link->peer->node)
        pkt->arrive_at =
            tx_start + weft_time_serialize (link->cut_bytes, link->rate_bps) + link->delay_ps;
    gboolean was_empty = link->wire.head == NULL;
    /* A FIFO wire: nothing overtakes (a transmitter sends one packet at a time). */
    g_assert (was_empty || pkt->arrive_at >= link->wire.tail->arrive_at);
    weft_fifo_push (&link->wire, pkt);
    /* A FIFO wire delivers in order, so only the head needs an event.  (Not a WeftTimer: the
     * wire's FIFO is the state - an event is pending exactly while it holds a packet - and each
     * event is a delivery, never moved or cancelled.) */
    if (was_empty)
        weft_sim_schedule_at (link->owner->sim, link->sched, pkt->arrive_at, on_arrival, link,
                              (WeftArg){ 0 });
}

void
weft_link_clear (WeftLinkTx *link)
{
    if (link->owner)
        weft_fifo_release_all (&link->wire, &link->owner->sim->pool);
}
