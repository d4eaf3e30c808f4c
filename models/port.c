#include "config.h"
#define G_LOG_DOMAIN "weft-port"
#include "models/port.h"

void
weft_port_init (WeftPort *port, WeftModel *owner, guint32 index, guint32 link_id,
                guint8 direction, WeftModel *peer, guint16 peer_port, guint64 rate_bps,
                weft_time_t delay_ps, guint64 cap_bytes)
{
    *port = (WeftPort){ 0 };
    port->owner = owner;
    port->sched = weft_sim_sched_new (owner->sim);
    port->index = index;
    port->cap_bytes = cap_bytes;
    port->link = (WeftLinkTx){ .owner = owner,
                               .sched = &port->sched,
                               .peer = peer,
                               .peer_port = peer_port,
                               .direction = direction,
                               .link_id = link_id,
                               .rate_bps = rate_bps,
                               .delay_ps = delay_ps };
}

void
weft_port_clear (WeftPort *port)
{
    if (!port->owner)
        return;
    for (guint c = 0; c < WEFT_PORT_CLASSES; c++)
        weft_fifo_release_all (&port->q[c], &port->owner->sim->pool);
    weft_link_clear (&port->link);
}

/* Queue depth changes: integrate the old depth over the time it held. */
static inline void
queue_changed (WeftPort *port, weft_time_t now, guint64 new_bytes)
{
    port->s_area += (double) port->q_bytes * (double) (now - port->s_last);
    port->s_last = now;
    port->q_bytes = new_bytes;
    if (new_bytes > port->s_max_q)
        port->s_max_q = new_bytes;
    if (new_bytes > port->max_q)
        port->max_q = new_bytes;
}

static void on_tx_free (WeftSim *sim, void *target, WeftArg arg);

static void
start_tx (WeftPort *port, WeftPacket *pkt, weft_time_t now)
{
    weft_time_t ser = weft_time_serialize (pkt->size, port->link.rate_bps);
    port->busy_until = now + ser;
    port->busy_ps += ser;
    port->tx_bytes += pkt->size;
    port->tx_packets++;
    port->s_bytes += pkt->size;
    port->s_packets++;
    weft_link_send (&port->link, pkt, port->busy_until);
}

static void
schedule_free (WeftPort *port)
{
    port->tx_event = TRUE;
    weft_sim_schedule_at (port->owner->sim, &port->sched, port->busy_until, on_tx_free, port,
                          (WeftArg){ 0 });
}

static WeftPacket *
dequeue (WeftPort *port, weft_time_t now)
{
    for (guint c = 0; c < WEFT_PORT_CLASSES; c++) {
        if (port->q[c].head) {
            WeftPacket *pkt = weft_fifo_pop (&port->q[c]);
            queue_changed (port, now, port->q_bytes - pkt->size);
            return pkt;
        }
    }
    return port->pull ? port->pull (port->owner, port->index) : NULL;
}

static void
on_tx_free (WeftSim *sim, void *target, WeftArg arg)
{
    WeftPort *port = target;
    port->tx_event = FALSE;
    WeftPacket *pkt = dequeue (port, sim->now);
    if (!pkt)
        return;
    start_tx (port, pkt, sim->now);
    if (port->q_bytes > 0 || port->pull)
        schedule_free (port);
}

gboolean
weft_port_enqueue (WeftPort *port, WeftPacket *pkt)
{
    WeftSim *sim = port->owner->sim;
    weft_time_t now = sim->now;
    if (!port->tx_event && port->busy_until <= now) {
        /* Idle transmitter and (necessarily) empty queues: send at once, no event. */
        start_tx (port, pkt, now);
        if (port->pull)
            schedule_free (port);
        return TRUE;
    }
    if (port->q_bytes + pkt->size > port->cap_bytes) {
        port->drops++;
        port->drops_data += pkt->kind == WEFT_PKT_DATA;
        port->s_drops++;
        weft_packet_release (&sim->pool, pkt);
        return FALSE;
    }
    guint c = pkt->prio < WEFT_PORT_CLASSES ? pkt->prio : WEFT_PORT_CLASSES - 1;
    weft_fifo_push (&port->q[c], pkt);
    queue_changed (port, now, port->q_bytes + pkt->size);
    if (!port->tx_event)
        schedule_free (port);
    return TRUE;
}

void
weft_port_kick (WeftPort *port)
{
    weft_time_t now = port->owner->sim->now;
    if (port->tx_event || port->busy_until > now)
        return; /* the pending "free" event will pull */
    WeftPacket *pkt = port->pull (port->owner, port->index);
    if (!pkt)
        return;
    start_tx (port, pkt, now);
    schedule_free (port);
}

gboolean
weft_port_sample (WeftPort *port, weft_time_t now, WeftTraceLinkSample *row)
{
    queue_changed (port, now, port->q_bytes);
    gboolean active = port->s_bytes || port->s_drops || port->s_max_q;
    if (active) {
        weft_time_t span = now - port->s_start;
        *row = (WeftTraceLinkSample){ .time_ps = now,
                                      .link = port->link.link_id,
                                      .direction = port->link.direction,
                                      .bytes = port->s_bytes,
                                      .packets = port->s_packets,
                                      .max_queue_bytes = port->s_max_q,
                                      .mean_queue_bytes = span ? port->s_area / (double) span : 0,
                                      .drops = port->s_drops };
    }
    port->s_bytes = port->s_packets = port->s_drops = 0;
    port->s_max_q = port->q_bytes;
    port->s_area = 0;
    port->s_start = now;
    return active;
}
