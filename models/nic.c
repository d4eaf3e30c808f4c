#include "config.h"
#define G_LOG_DOMAIN "weft-nic"
#include "models/nic.h"

#include <string.h>

#include "models/registry.h"
#include "models/switch.h"
#include "sim/units.h"

/* ---- sender half ---------------------------------------------------------------------- */

/* @f runs Ultra Ethernet's RUD (its UE state exists only on fabrics that use it). */
static inline gboolean
uet_rud (const WeftFlow *f)
{
    return f->uet && f->uet->rud;
}

/* @f times each packet it sends (RUD with packet_timers). */
static inline gboolean
uet_timers (const WeftFlow *f)
{
    return f->uet && f->uet->sent_at;
}

static inline gboolean
sendable (const WeftFlow *f)
{
    if (uet_rud (f)) /* Ultra Ethernet RUD: the window counts packets in flight */
        return f->started &&
               (f->uet->lost_n > 0 ||
                (f->snd_nxt < f->n_pkts && f->uet->inflight < f->window_pkts)) &&
               (!f->uet->rccc.on || f->uet->rccc.credit > 0);
    return f->started &&
           (f->resend || (f->snd_nxt < f->n_pkts && f->snd_nxt - f->snd_una < f->window_pkts));
}

static void
ring_push (WeftNicAgent *nic, WeftFlow *f)
{
    guint p = f->tx_port;
    f->in_ring = TRUE;
    f->ring_next = NULL;
    if (nic->ring_tail[p])
        nic->ring_tail[p]->ring_next = f;
    else
        nic->ring_head[p] = f;
    nic->ring_tail[p] = f;
}

static WeftFlow *
ring_pop (WeftNicAgent *nic, guint p)
{
    WeftFlow *f = nic->ring_head[p];
    if (f) {
        nic->ring_head[p] = f->ring_next;
        if (!nic->ring_head[p])
            nic->ring_tail[p] = NULL;
        else /* the next pull's flow, gone cold on the ring since its last packet */
            __builtin_prefetch (nic->ring_head[p]);
        f->in_ring = FALSE;
    }
    return f;
}

static void
make_ready (WeftNicAgent *nic, WeftFlow *f)
{
    if (!f->in_ring && !weft_timer_pending (&f->pace_timer) && sendable (f)) {
        ring_push (nic, f);
        /* Not the port that is pulling right now: it is about to send and pulls again when
         * free; kicking it from inside its own pull would start a second packet at once. */
        if ((gint) f->tx_port != nic->pulling)
            weft_port_kick (&nic->ports[f->tx_port]);
    }
}

static void on_rto (WeftSim *sim, void *target, WeftArg arg);
static void on_pace (WeftSim *sim, void *target, WeftArg arg);

/* ---- RCCC at the sender (models/rccc.h) ------------------------------------------------ */

/* The packets a flow still has to send: new ones and those due again. */
static inline guint64
rccc_need (const WeftFlow *f)
{
    return (f->n_pkts - f->snd_nxt) + f->uet->lost_n;
}

/* With NSCC the credit asked for is capped at the window plus a packet (htsim's pull target
 * is capped at cwnd + mtu); 0: no cap. */
static inline guint64
rccc_window_cap (const WeftNicAgent *nic, const WeftFlow *f)
{
    return nic->tp->uet->nscc.enabled ? (guint64) f->window_pkts + 1 : 0;
}

/* A zeroed packet of flow @f: every packet a flow's ends make comes from here, carrying its
 * flow's id and what the receiving NIC needs of the flow (WeftPacket.nic_path), so that no
 * packet can arrive without them. */
static inline WeftPacket *
flow_packet (WeftSim *sim, const WeftFlow *f)
{
    WeftPacket *pkt = weft_packet_alloc (&sim->pool);
    pkt->flow = f->spec.id;
    pkt->nic_path = f->nic_path;
    return pkt;
}

/* A header-only control packet of flow @f, sent now: toward its receiver (an RCCC credit
 * request) or back toward its sender (an RCCC pull, a CNP). */
static WeftPacket *
control_packet (WeftSim *sim, const WeftFlow *f, guint8 kind, guint8 prio, gboolean to_receiver,
                guint32 hash, guint32 size)
{
    WeftPacket *pkt = flow_packet (sim, f);
    pkt->kind = kind;
    pkt->prio = prio;
    pkt->src = to_receiver ? f->spec.src : f->spec.dst;
    pkt->dst = to_receiver ? f->spec.dst : f->spec.src;
    pkt->dst_ep = to_receiver ? f->dst_ep : f->src_ep;
    pkt->hash = hash;
    pkt->size = size;
    pkt->sent_at = sim->now;
    return pkt;
}

/* RCCC's control packets go over the flow's entropy values in turn (@n: a count of them), as
 * htsim's sink sprays its pulls, so that a dead path cannot hold them all. */
static inline guint32
rccc_hash (const WeftNicAgent *nic, const WeftFlow *f, guint64 n)
{
    const WeftUet *spray = nic->tp->spray;
    return spray ? weft_uet_ev_hash (spray, f->hash, (guint16) (n % spray->ev_pool)) : f->hash;
}

/* A sender with packets to send and no credit tells the receiver its credit target in a
 * credit request, when the receiver has not heard it yet (or @again: after a timeout, in case
 * the request or the pull was lost). */
static void
rccc_ask (WeftNicAgent *nic, WeftFlow *f, gboolean again)
{
    WeftRcccFlow *r = &f->uet->rccc;
    guint64 need = rccc_need (f);
    if (!r->on || r->credit > 0 || need == 0 || f->snd_una == f->n_pkts)
        return;
    guint64 target = weft_rccc_target (r, need, rccc_window_cap (nic, f));
    if (target <= r->asked && !again)
        return;
    WeftSim *sim = nic->owner->sim;
    WeftPacket *req =
        control_packet (sim, f, WEFT_PKT_CREDIT_REQ, weft_fabric_ack_prio (nic->tp->fabric), TRUE,
                        rccc_hash (nic, f, r->requests), (guint32) nic->tp->fabric->ack_bytes);
    req->credit = target;
    r->asked = MAX (r->asked, target);
    r->requests++;
    weft_port_enqueue (&nic->ports[f->tx_port], req);
}

/* ---- Ultra Ethernet at the sender (models/uet.h) --------------------------------------- */

static inline void
nscc_window (WeftFlow *f, const WeftUet *uet)
{
    if (uet->nscc.enabled)
        f->window_pkts = weft_nscc_window_pkts (&f->uet->cc);
}

/* A flow starts: its EV state, RUD bitmaps and NSCC window (its parameters derived from the
 * network's unloaded RTT and the flow's NIC rate where [nscc] leaves them). */
static void
uet_flow_begin (WeftNicAgent *nic, WeftFlow *f)
{
    const WeftUet *uet = nic->tp->uet;
    weft_uet_sender_init (uet, f->uet, f->n_pkts);
    double wire = (double) (nic->tp->fabric->mtu + nic->tp->fabric->header);
    if (uet->nscc.enabled) {
        WeftNsccNet net = {
            .rtt = nic->tp->net_rtt_ps,
            .bdp_bytes =
                (double) nic->tp->net_rtt_ps * (double) f->feed_bps / 8 / (double) WEFT_PS_PER_S,
            .trimming = uet->trimming,
        };
        weft_nscc_flow_init (&uet->nscc, &f->uet->cc, &net, wire, f->base_rtt_ps);
        nscc_window (f, uet);
    }
    if (f->uet->rud)
        f->uet->rto_floor = weft_uet_rto_floor (uet, nic->ports[f->tx_port].link.rate_bps);
    if (nic->tp->rccc_rx && f->uet->rud) {
        double bdp =
            (double) nic->tp->net_rtt_ps * (double) f->feed_bps / 8 / (double) WEFT_PS_PER_S;
        weft_rccc_sender_init (&uet->rccc, &f->uet->rccc, bdp, wire);
        rccc_ask (nic, f, FALSE); /* no initial credit: it asks first */
    }
}

/* A retransmission timeout: the window hears of a loss, and RCCC asks again for the credit
 * the packets due again need. */
static void
uet_on_timeout (WeftNicAgent *nic, WeftFlow *f)
{
    const WeftUet *uet = nic->tp->uet;
    rccc_ask (nic, f, TRUE);
    if (uet->nscc.enabled && !f->finished) { /* as in on_uet_ack */
        weft_nscc_on_loss (&uet->nscc, &f->uet->cc, nic->owner->sim->now);
        nscc_window (f, uet);
    }
}

/* ROD (go-back-N under the UE transport): the EVs learn from every ACK and NAK, and NSCC
 * from the @acked packets a cumulative ACK newly covers (@rtt 0: no sample) and from NAKs, as
 * RUD's window does from its selective ones. */
static void
uet_rod_ack (WeftNicAgent *nic, WeftFlow *f, const WeftPacket *ack, guint64 acked, weft_time_t rtt)
{
    const WeftUet *uet = nic->tp->uet;
    gboolean nak = ack->kind == WEFT_PKT_NACK;
    weft_uet_ev_feedback (uet, f->uet, ack->ev, nak || ack->ce);
    f->uet->ecn_echoes += ack->ce;
    f->uet->nacks += nak;
    if (!uet->nscc.enabled || f->finished) /* as in on_uet_ack */
        return;
    weft_time_t now = nic->owner->sim->now;
    if (acked)
        weft_nscc_on_ack (&uet->nscc, &f->uet->cc,
                          acked * (nic->tp->fabric->mtu + nic->tp->fabric->header), rtt, ack->ce,
                          now);
    if (nak)
        weft_nscc_on_loss (&uet->nscc, &f->uet->cc, now);
    nscc_window (f, uet);
}

/* One timer event per flow at a time: a later deadline is picked up when the pending event
 * fires early (sim/timer.h); only an earlier one schedules anew. */
static void
timer_arm (WeftNicAgent *nic, WeftFlow *f, weft_time_t deadline)
{
    weft_timer_rearm_at (nic->owner->sim, &f->rto_timer, &nic->owner->sched, deadline, on_rto, f,
                         0);
}

/* The timer runs f->rto from now; an RC timeout of 0 (f->rto NEVER) never runs. */
static void
timer_restart (WeftNicAgent *nic, WeftFlow *f)
{
    if (f->rto != WEFT_TIME_NEVER)
        timer_arm (nic, f, nic->owner->sim->now + f->rto);
}

/* RC (InfiniBand, RoCE): whether the expiry is a local ACK timeout, and whether the QP may
 * retry.  The hardware's timer runs only while a request is outstanding: a flow that has sent
 * nothing unacknowledged (held back by credits, pauses or pacing) is only timed again.  After
 * rc_retry_cnt timeouts without progress the next one fails the connection. */
static gboolean
rc_may_retry (WeftNicAgent *nic, WeftFlow *f, WeftSim *sim)
{
    if (f->snd_max == f->snd_una) {
        timer_restart (nic, f);
        return FALSE;
    }
    WeftFlowLoss *loss = weft_flow_loss (f);
    loss->timeouts++;
    if (loss->rc_retries == nic->tp->rc_retry_cnt) {
        weft_transport_flow_failed (nic->tp, f, sim);
        return FALSE;
    }
    loss->rc_retries++;
    return TRUE;
}

/* RUD: a packet's retransmission timeout, RFC 6298's RTO from measured RTTs, never below the
 * flow's floor (models/uet.h, weft_uet_rto_floor). */
static inline weft_time_t
rud_rto (const WeftFlow *f)
{
    return MAX (f->rto, f->uet->rto_floor);
}

/* RUD: the flow's timer runs to the deadline of its oldest packet out, one RTO after it left
 * (models/uet_pds.c keeps them in send order); with none out and the flow not done, to one
 * RTO from now, so that a flow that cannot send (RCCC without credit) is timed as before. */
static void
uet_timer_update (WeftNicAgent *nic, WeftFlow *f)
{
    weft_time_t now = nic->owner->sim->now;
    if (f->snd_una == f->n_pkts) {
        weft_timer_cancel (&f->rto_timer); /* all acknowledged */
        return;
    }
    weft_time_t oldest = weft_uet_oldest_out (f->uet);
    if (oldest != WEFT_TIME_NEVER)
        timer_arm (nic, f, MAX (oldest + rud_rto (f), now));
    else if (!weft_timer_pending (&f->rto_timer))
        timer_arm (nic, f, now + f->rto);
}

/* RUD: the flow's timer expired.  Every packet out that left an RTO ago or earlier is due
 * again (its EV retired under reps); one expiry is one timeout for the window and the count,
 * however many packets it finds.  RFC 6298's back-off doubles the RTO at most once per RTO:
 * the packets of one window expire one by one, and doubling for each would stall the flow for
 * good (Karn: their resends give no RTT sample to bring it back).  With none out, a flow that
 * cannot send (RCCC without credit) times out as a whole: one packet goes free. */
static void
uet_rud_expire (WeftNicAgent *nic, WeftFlow *f)
{
    const WeftUet *uet = nic->tp->uet; /* RUD runs only under the UE transport */
    weft_time_t now = nic->owner->sim->now;
    weft_time_t rto = rud_rto (f);
    weft_time_t before = now >= rto ? now - rto : 0;
    guint64 seq, n = 0;
    while ((seq = weft_uet_pop_expired (f->uet, before)) != G_MAXUINT64) {
        weft_uet_ev_timeout (uet, f->uet, seq, seq + 1);
        weft_uet_on_packet_timeout (f->uet, seq);
        n++;
    }
    if (n > 0 || (weft_uet_oldest_out (f->uet) == WEFT_TIME_NEVER && !sendable (f))) {
        weft_flow_loss (f)->timeouts++;
        if (now >= f->uet->backoff_at) {
            f->rto = MIN (f->rto * 2, nic->tp->rto_max);
            f->uet->backoff_at = now + rud_rto (f);
        }
        uet_on_timeout (nic, f);
    }
    uet_timer_update (nic, f);
    make_ready (nic, f);
}

/* A flow's retransmission timeout cancelled, seconds ahead as its flow finished: dropped by
 * the run loop's trims (sim/sim.h, weft_sim_add_stale_test). */
static gboolean
rto_stale (void *target, WeftArg arg)
{
    return weft_timer_stale (&((const WeftFlow *) target)->rto_timer, arg);
}

static void
on_rto (WeftSim *sim, void *target, WeftArg arg)
{
    WeftFlow *f = target;
    WeftNicAgent *nic = f->sender;
    if (!weft_timer_fire (sim, &f->rto_timer, &nic->owner->sched, on_rto, f, arg))
        return; /* nothing outstanding any more, or the deadline moved on */
    if (f->uet && f->uet->rccc.on && f->uet->inflight == 0 && f->uet->lost_n == 0 &&
        f->uet->rccc.credit <= 0) {
        /* RCCC: nothing out, waiting for credit: no loss, no timeout.  When no pull has come
         * since the last such expiry, the request goes again (it, or the pull, may have been
         * lost) and the RTO backs off (the next RTT sample sets it afresh). */
        WeftRcccFlow *r = &f->uet->rccc;
        if (r->pulled == r->pulled_seen) {
            rccc_ask (nic, f, TRUE);
            f->rto = MIN (f->rto * 2, nic->tp->rto_max);
        }
        r->pulled_seen = r->pulled;
        timer_restart (nic, f);
        return;
    }
    if (uet_timers (f)) { /* RUD with a timer per packet */
        uet_rud_expire (nic, f);
        return;
    }
    if (nic->tp->rc) {
        if (!rc_may_retry (nic, f, sim))
            return;
    } else {
        /* RFC 6298: back off. */
        weft_flow_loss (f)->timeouts++;
        f->rto = MIN (f->rto * 2, nic->tp->rto_max);
    }
    if (nic->tp->uet) {
        weft_uet_ev_timeout (nic->tp->uet, f->uet, f->snd_una, f->snd_nxt);
        uet_on_timeout (nic, f);
    }
    /* Go back to the first unacknowledged packet (selective repeat: send it alone; RUD: every
     * packet out and unacknowledged). */
    if (uet_rud (f)) {
        weft_uet_on_timeout (f->uet, f->snd_una, f->snd_nxt);
    } else if (nic->tp->recovery == WEFT_RECOVERY_SELECTIVE_REPEAT) {
        f->resend = TRUE;
        f->ooo->resend_seq = f->snd_una; /* selective repeat: tp->ooo_flows exists */
    } else {
        f->snd_nxt = f->snd_una;
    }
    timer_restart (nic, f);
    make_ready (nic, f);
}

static void
flow_begin (WeftNicAgent *nic, WeftFlow *f)
{
    WeftSim *sim = nic->owner->sim;
    weft_transport_flow_started (nic->tp, f, sim->now);
    if (G_UNLIKELY (f->device_lost)) {
        /* Its NIC was removed (weft_transport_device_lost): the first send on the device fails
         * and ends the workload. */
        weft_transport_flow_failed (nic->tp, f, sim);
        return;
    }
    if (nic->tp->uet)
        uet_flow_begin (nic, f);
    else if (nic->tp->spray) /* spraying over Ethernet or RoCE: the EV state alone */
        weft_uet_sender_init (nic->tp->spray, f->uet, f->n_pkts);
    if (nic->tp->fabric->dcqcn.enabled)
        weft_dcqcn_flow_init (&nic->tp->fabric->dcqcn, f->dcqcn,
                              nic->ports[f->tx_port].link.rate_bps);
    timer_restart (nic, f);
    if (f->nic_path) {
        /* A message that waited for its connection may have been taken up by the NIC in the
         * meantime: that part of tx_latency is no part of its FCT, so none of its ideal. */
        weft_time_t tx = nic->tp->fabric->nic.tx_latency_ps;
        weft_time_t left = f->pace_next_ps > sim->now ? f->pace_next_ps - sim->now : 0;
        if (left < tx)
            f->ideal_fct_ps -= tx - left;
    }
    if (sim->now < f->pace_next_ps) {
        /* The NIC is still taking the message up (tx_latency, message_rate): off the ring
         * until then, as a paced flow is. */
        weft_timer_arm_at (sim, &f->pace_timer, &nic->owner->sched, f->pace_next_ps, on_pace, f, 0);
    } else {
        make_ready (nic, f);
    }
}

/* Message @f is posted now: across the fabric the NIC takes it up in its port's next message
 * slot, and its first packet may leave tx_latency after that (models/nic.h).  A slot is given
 * once, at the post, so a message waiting behind others costs no event of its own. */
static void
nic_post (WeftNicAgent *nic, WeftFlow *f)
{
    if (!f->nic_path)
        return;
    const WeftNicConfig *cfg = &nic->tp->fabric->nic;
    weft_time_t *slot = &nic->msg_next[f->tx_port];
    weft_time_t take = MAX (nic->owner->sim->now, *slot);
    *slot = take + cfg->message_gap_ps;
    f->pace_next_ps = take + cfg->tx_latency_ps;
}

static inline gpointer
conn_key (const WeftFlow *f)
{
    return GSIZE_TO_POINTER (((gsize) f->spec.dst << 32) | f->spec.conn);
}

/* @f has sent its last packet once: the next message of its connection may go. */
static void
conn_advance (WeftNicAgent *nic, WeftFlow *f)
{
    if (f->conn_next) {
        WeftFlow *next = f->conn_next;
        f->conn_next = NULL;
        flow_begin (nic, next);
    } else {
        gpointer key = conn_key (f);
        if (g_hash_table_lookup (nic->conns, key) == f)
            g_hash_table_remove (nic->conns, key);
    }
}

static void
on_flow_start (WeftSim *sim, void *target, WeftArg arg)
{
    WeftNicAgent *nic = target;
    WeftFlow *f = &nic->tp->flows[arg.u];
    nic_post (nic, f); /* posted now, even if its connection sends another message first */
    if (f->spec.conn) {
        /* A connection sends its messages in order: queue behind one still sending. */
        if (!nic->conns)
            nic->conns = g_hash_table_new (NULL, NULL);
        gpointer key = conn_key (f);
        WeftFlow *tail = g_hash_table_lookup (nic->conns, key);
        g_hash_table_insert (nic->conns, key, f);
        if (tail) {
            tail->conn_next = f;
            return; /* started when tail has sent its last packet */
        }
    }
    flow_begin (nic, f);
}

void
weft_nic_start_flow_at (WeftNicAgent *nic, WeftFlow *flow, weft_time_t at, gboolean keyed)
{
    WeftArg arg = { .u = flow->spec.id };
    WeftSim *sim = nic->owner->sim;
    if (keyed)
        weft_sim_schedule_keyed (sim, at, WEFT_KEY_START (nic->owner->sched.id, flow->spec.id),
                                 on_flow_start, nic, arg);
    else
        weft_sim_schedule_at (sim, &nic->owner->sched, at, on_flow_start, nic, arg);
}

void
weft_nic_schedule_flow (WeftNicAgent *nic, WeftFlow *flow)
{
    WeftSim *sim = nic->owner->sim;
    flow->sender = nic;
    /* Across ranks (doc/parallel.md) a flow is work of the rank whose node receives it, where
     * it finishes, and starts on the rank that sends it; one process is both. */
    if (weft_sim_owns (sim, flow->spec.dst))
        weft_sim_work_add (sim, 1);
    if (flow->waiting == 0 && weft_sim_owns (sim, nic->owner->node))
        weft_nic_start_flow_at (nic, flow, flow->spec.start_ps, FALSE);
}

/* ---- per-flow pacing: IB CC's inter-packet delay, DCQCN's rate ------------------------- */

/* A paced flow's wait has passed: it may send again. */
static void
on_pace (WeftSim *sim, void *target, WeftArg arg)
{
    WeftFlow *f = target;
    if (!weft_timer_fire (sim, &f->pace_timer, &f->sender->owner->sched, on_pace, f, arg))
        return;
    make_ready (f->sender, f);
}

/* Whether the fabric's congestion control paces flows at their sources. */
static inline gboolean
fabric_paces (const WeftFabric *fab)
{
    return fab->ibcc.enabled || fab->dcqcn.enabled;
}

/* The time from the start of @f's packet of @size bytes on @port to the earliest start of its
 * next: serialization + the CCT's inter-packet delay (IB CC), or the packet at the flow's
 * current rate (DCQCN). */
static weft_time_t
pace_gap (const WeftNicAgent *nic, const WeftFlow *f, guint32 size, guint port)
{
    const WeftFabric *fab = nic->tp->fabric;
    if (fab->dcqcn.enabled)
        return weft_time_serialize (size, MIN (f->dcqcn->rc_bps, nic->ports[port].link.rate_bps));
    return weft_time_serialize (size, nic->ports[port].link.rate_bps) +
           weft_ibcc_delay (&fab->ibcc, f->cc);
}

/* ---- DCQCN (models/dcqcn.h) ------------------------------------------------------------ */

static void
on_dcqcn_timer (WeftSim *sim, void *target, WeftArg arg)
{
    WeftFlow *f = target;
    WeftSched *from = &f->sender->owner->sched;
    if (!weft_timer_fire (sim, &f->dcqcn->increase, from, on_dcqcn_timer, f, arg))
        return; /* superseded by a later cut */
    const WeftDcqcn *cc = &f->sender->tp->fabric->dcqcn;
    if (weft_dcqcn_on_timer (cc, f->dcqcn))
        weft_timer_arm (sim, &f->dcqcn->increase, from, cc->increase_timer, on_dcqcn_timer, f, 0);
}

/* After a cut, which cancelled the increase timer. */
static void
dcqcn_timer_restart (WeftSim *sim, WeftFlow *f)
{
    weft_timer_arm (sim, &f->dcqcn->increase, &f->sender->owner->sched,
                    f->sender->tp->fabric->dcqcn.increase_timer, on_dcqcn_timer, f, 0);
}

/* The end of a rate-reduce period in which a CNP arrived. */
static void
on_dcqcn_check (WeftSim *sim, void *target, WeftArg arg)
{
    WeftFlow *f = target;
    if (!weft_timer_fire (sim, &f->dcqcn->check, &f->sender->owner->sched, on_dcqcn_check, f, arg))
        return;
    if (weft_dcqcn_on_check (&f->sender->tp->fabric->dcqcn, f->dcqcn, sim->now))
        dcqcn_timer_restart (sim, f);
}

/* Reaction point: a CNP for one of this agent's flows. */
static void
on_cnp (WeftNicAgent *nic, WeftPacket *cnp)
{
    WeftSim *sim = nic->owner->sim;
    WeftFlow *f = &nic->tp->flows[cnp->flow];
    const WeftDcqcn *cc = &nic->tp->fabric->dcqcn;
    if (cc->enabled && f->started) {
        switch (weft_dcqcn_on_cnp (cc, f->dcqcn, sim->now)) {
        case WEFT_DCQCN_CUT:
            dcqcn_timer_restart (sim, f);
            break;
        case WEFT_DCQCN_CHECK:
            weft_timer_arm_at (sim, &f->dcqcn->check, &nic->owner->sched,
                               weft_dcqcn_check_at (cc, f->dcqcn, sim->now), on_dcqcn_check, f, 0);
            break;
        case WEFT_DCQCN_NONE:
            break;
        }
    }
    weft_packet_release (&sim->pool, cnp);
}

/* Notification point: a CE-marked data packet of @f arrived; send a CNP unless one went out
 * less than cnp_interval ago.  CNPs ride [pfc] cnp_priority (6), served ahead of data. */
static void
np_on_ce (WeftNicAgent *nic, WeftFlow *f)
{
    WeftSim *sim = nic->owner->sim;
    const WeftDcqcn *cc = &nic->tp->fabric->dcqcn;
    if (!cc->enabled) {
        f->dcqcn->ce_received++;
        return;
    }
    if (!weft_dcqcn_np_on_ce (cc, f->dcqcn, sim->now))
        return;
    WeftPacket *cnp = control_packet (sim, f, WEFT_PKT_CNP, weft_fabric_cnp_prio (nic->tp->fabric),
                                      FALSE, f->hash, WEFT_DCQCN_CNP_BYTES);
    weft_port_enqueue (&nic->ports[f->ack_port], cnp);
}

/* ---- IB congestion control at the source (models/ibcc.h) ------------------------------ */

static void
on_ccti_timer (WeftSim *sim, void *target, WeftArg arg)
{
    WeftFlow *f = target;
    WeftNicAgent *nic = f->sender;
    if (!weft_timer_fire (sim, &f->cc->timer, &nic->owner->sched, on_ccti_timer, f, arg))
        return;
    const WeftIbcc *cc = &nic->tp->fabric->ibcc;
    if (weft_ibcc_on_timer (cc, f->cc))
        weft_timer_arm (sim, &f->cc->timer, &nic->owner->sched, cc->ccti_timer, on_ccti_timer, f,
                        0);
}

static void
on_becn (WeftNicAgent *nic, WeftFlow *f)
{
    WeftSim *sim = nic->owner->sim;
    const WeftIbcc *cc = &nic->tp->fabric->ibcc;
    if (weft_ibcc_on_becn (cc, f->cc))
        weft_timer_arm (sim, &f->cc->timer, &nic->owner->sched, cc->ccti_timer, on_ccti_timer, f,
                        0);
}

static WeftPacket *pull_next (WeftNicAgent *nic, guint port);

/* A port's pacing gap has passed: let its transmitter pull again. */
static void
on_port_pace (WeftSim *sim, void *target, WeftArg arg)
{
    WeftPort *port = target;
    WeftNicAgent *nic = port->pull_source;
    if (!weft_timer_fire (sim, &nic->pace_wake[port->index], &nic->owner->sched, on_port_pace, port,
                          arg))
        return;
    weft_port_kick (port);
}

/* The port's pull source: the next packet of the next ready flow, round-robin.  With IB
 * congestion control a flow whose inter-packet delay has not passed is taken off the ring
 * and woken by an event when it has (one pending event per flow: it is off the ring until
 * then), so the pull never polls. */
static WeftPacket *
nic_pull (void *source, guint port)
{
    WeftNicAgent *nic = source;
    WeftSim *sim = nic->owner->sim;
    if (sim->now < nic->pace_next[port]) {
        /* Protocol efficiency: the port's collective traffic is spaced out; come back when
         * the next packet may go (one wake-up event at a time: arming a pending timer does
         * nothing). */
        weft_timer_arm_at (sim, &nic->pace_wake[port], &nic->owner->sched, nic->pace_next[port],
                           on_port_pace, &nic->ports[port], 0);
        return NULL;
    }
    /* No flow ready: pull_next would return at once (a third of the flagship's pulls). */
    if (nic->ring_head[port] == NULL)
        return NULL;
    nic->pulling = (gint) port;
    WeftPacket *pkt = pull_next (nic, port);
    nic->pulling = -1;
    return pkt;
}

/* The port frees at @at (models/port.h, WeftPortPullDefer): a pull then does nothing at all
 * when the port's pacing wake-up is pending past @at, or when the gap has ended and no flow is
 * ready; a flow made ready before @at kicks the port (make_ready), which then takes its event
 * after all.  (Before the gap ends with no wake-up pending, a pull would arm it, with the NIC's
 * identity at that moment: not deferred, so ties stay as they were.)  pace_next[port] cannot
 * move before @at: only this port's own pulls move it. */
static gboolean
nic_pull_defer (void *source, guint port, weft_time_t at)
{
    WeftNicAgent *nic = source;
    const WeftTimer *wake = &nic->pace_wake[port];
    if (at < nic->pace_next[port])
        return weft_timer_pending (wake) && weft_timer_deadline (wake) > at;
    return nic->ring_head[port] == NULL;
}

static WeftPacket *
pull_next (WeftNicAgent *nic, guint port)
{
    WeftSim *sim = nic->owner->sim;
    const WeftFabric *fab = nic->tp->fabric;
    WeftFlow *f;
    while ((f = ring_pop (nic, port))) {
        if (!sendable (f))
            continue;
        const gboolean paced = fabric_paces (fab);
        if (sim->now < f->pace_next_ps) {
            /* Paced, or its message not yet taken up by the NIC: off the ring until its pace
             * timer expires (make_ready skips it till then). */
            weft_timer_arm_at (sim, &f->pace_timer, &nic->owner->sched, f->pace_next_ps, on_pace, f,
                               0);
            continue;
        }
        guint64 seq;
        if (uet_rud (f)) {
            /* RUD: a packet due again first, then new data; each one counts in flight. */
            seq = weft_uet_next_lost (f->uet, f->snd_nxt);
            if (seq == G_MAXUINT64)
                seq = f->snd_nxt++;
            /* RCCC: a flow that had nothing out while it waited for credit times this packet
             * from now (RFC 6298, 5.1), not from its last ACK. */
            if (f->uet->rccc.on && f->uet->inflight == 0 && !f->uet->sent_at)
                timer_restart (nic, f);
            f->uet->inflight++;
        } else if (f->resend) {
            f->resend = FALSE;
            seq = f->ooo->resend_seq;
        } else {
            seq = f->snd_nxt++;
        }
        WeftPacket *pkt = flow_packet (sim, f);
        pkt->kind = WEFT_PKT_DATA;
        pkt->prio = weft_fabric_data_prio (fab);
        pkt->vl = f->vl;
        pkt->sl = f->spec.sl;
        pkt->src = f->spec.src;
        pkt->dst = f->spec.dst;
        pkt->dst_ep = f->dst_ep;
        pkt->hash = f->hash;
        if (nic->tp->spray) {
            /* Spraying: the packet's path is its entropy value's. */
            weft_uet_reps_tick (nic->tp->spray, f->uet, nic->owner->sim->now);
            pkt->ev = weft_uet_pick_ev (nic->tp->spray, f->uet, f->hash, seq);
            pkt->hash = weft_uet_ev_hash (nic->tp->spray, f->hash, pkt->ev);
        }
        if (f->uet &&
            f->uet->rccc.on) { /* RCCC: a packet of credit; the packet carries the target */
            WeftRcccFlow *r = &f->uet->rccc;
            r->credit--;
            pkt->credit = weft_rccc_target (r, rccc_need (f), rccc_window_cap (nic, f));
            r->asked = MAX (r->asked, pkt->credit);
        }
        pkt->seq = seq;
        if (uet_timers (f)) {
            /* Its retransmission timer (uet_timer_update): the oldest packet out's deadline
             * is no later than this one's, unless nothing else is out. */
            weft_uet_on_sent (f->uet, seq, sim->now);
            if (weft_timer_deadline (&f->rto_timer) > sim->now + rud_rto (f))
                timer_arm (nic, f, sim->now + rud_rto (f));
        }
        pkt->payload = seq + 1 == f->n_pkts ? f->last_payload : (guint32) fab->mtu;
        pkt->size = pkt->payload + (guint32) fab->header;
        pkt->sent_at = sim->now;
        if (paced)
            f->pace_next_ps = sim->now + pace_gap (nic, f, pkt->size, port);
        if (fab->dcqcn.enabled)
            weft_dcqcn_on_sent (&fab->dcqcn, f->dcqcn, pkt->size);
        guint64 feed = MIN (nic->ports[port].link.rate_bps, f->feed_bps);
        if (f->spec.efficiency > 0 || feed < nic->ports[port].link.rate_bps) {
            /* The port sends at most at the flow's feed rate: a NIC reads what it sends from
             * the source's memory (DMA) at its own rate, so a GPU's data for a NIC slower
             * than the GPU's PCIe link never queues inside the server, where it would block
             * the GPU's other traffic.  Collective data goes at efficiency x that, whatever
             * the number of flows: the protocol's overhead, applied once, where the data
             * leaves. */
            double eff = f->spec.efficiency > 0 ? f->spec.efficiency : 1.0;
            guint64 rate = (guint64) (eff * (double) feed);
            nic->pace_next[port] = sim->now + weft_time_serialize (pkt->size, rate);
        }
        if (seq < f->snd_max) {
            pkt->retransmit = 1;
            weft_flow_loss (f)->retransmits++;
        } else {
            f->snd_max = seq + 1;
            if (f->snd_max == f->n_pkts && f->spec.conn)
                conn_advance (nic, f);
        }
        if (sendable (f))
            ring_push (nic, f);
        return pkt;
    }
    return NULL;
}

/* Ethernet and Ultra Ethernet only (rtt_flows exists where the transport is not RC): an RC
 * timeout is fixed, whatever the round trips. */
static void
rtt_sample (WeftNicAgent *nic, WeftFlow *f, weft_time_t rtt)
{
    /* RFC 6298 with alpha = 1/8, beta = 1/4, in integer picoseconds. */
    WeftRttFlow *e = &nic->tp->rtt_flows[f->spec.id];
    if (e->srtt == 0) {
        e->srtt = rtt;
        e->rttvar = rtt / 2;
    } else {
        weft_time_t err = e->srtt > rtt ? e->srtt - rtt : rtt - e->srtt;
        e->rttvar = (3 * e->rttvar + err) / 4;
        e->srtt = (7 * e->srtt + rtt) / 8;
    }
    f->rto = CLAMP (e->srtt + 4 * e->rttvar, nic->tp->rto_min, nic->tp->rto_max);
}

/* Ultra Ethernet RUD: a selective ACK or a trim NACK for packet ack->sack, with the
 * receiver's cumulative point in ack->seq, the data's EV and its CE mark echoed. */
static void
on_uet_ack (WeftNicAgent *nic, WeftFlow *f, WeftPacket *ack)
{
    WeftSim *sim = nic->owner->sim;
    const WeftUet *uet = nic->tp->uet;
    gboolean nack = ack->kind == WEFT_PKT_NACK, fresh = FALSE;
    weft_uet_ev_feedback (uet, f->uet, ack->ev, nack || ack->ce);
    f->uet->ecn_echoes += ack->ce;
    if (f->uet->rccc.on)
        weft_rccc_stop_speculating (&f->uet->rccc); /* the receiver has answered */
    if (nack) {
        f->uet->nacks++;
        weft_flow_loss (f)->naks++;
        /* A NACK shows the path alive: it restarts the timer as an ACK would. */
        fresh = weft_uet_on_nack (f->uet, ack->sack);
        /* Once the receiver has it all (the flow's /flows row is written) the window has
         * nothing left to pace: answers still on their way do not move it. */
        if (fresh && uet->nscc.enabled && !f->finished)
            weft_nscc_on_loss (&uet->nscc, &f->uet->cc, sim->now);
    } else if ((fresh = weft_uet_on_sack (f->uet, ack->sack))) {
        /* Karn: no samples from retransmitted packets. */
        weft_time_t rtt = ack->retransmit ? 0 : sim->now - ack->sent_at;
        if (rtt)
            rtt_sample (nic, f, rtt);
        if (uet->nscc.enabled && !f->finished)
            weft_nscc_on_ack (&uet->nscc, &f->uet->cc,
                              nic->tp->fabric->mtu + nic->tp->fabric->header, rtt, ack->ce,
                              sim->now);
    }
    /* The cumulative point covers packets whose own ACKs may have been lost. */
    for (guint64 s = f->snd_una; s < ack->seq; s++)
        fresh |= weft_uet_on_sack (f->uet, s);
    guint64 una = weft_uet_advance (f->uet, f->snd_una, f->n_pkts);
    if (una > f->snd_una) {
        f->snd_una = una;
        if (f->loss)
            f->loss->rc_retries = 0;
    }
    nscc_window (f, uet);
    if (f->uet->sent_at)
        uet_timer_update (nic, f);
    else if (f->snd_una == f->n_pkts)
        weft_timer_cancel (&f->rto_timer); /* all acknowledged */
    else if (fresh)
        timer_restart (nic, f);
    rccc_ask (nic, f, FALSE);
    make_ready (nic, f);
    weft_packet_release (&sim->pool, ack);
}

/* RCCC: a pull (models/rccc.h) - the receiver's cumulative grant for the flow. */
static void
on_pull (WeftNicAgent *nic, WeftPacket *pull)
{
    WeftFlow *f = &nic->tp->flows[pull->flow];
    if (f->uet->rccc.on) {
        weft_rccc_on_pull (&f->uet->rccc, pull->credit);
        rccc_ask (nic, f, FALSE); /* the initial credit it dropped may leave it short */
        make_ready (nic, f);
    }
    weft_packet_release (&nic->owner->sim->pool, pull);
}

static void
on_ack (WeftNicAgent *nic, WeftPacket *ack)
{
    WeftSim *sim = nic->owner->sim;
    WeftFlow *f = &nic->tp->flows[ack->flow];
    if (uet_rud (f)) {
        on_uet_ack (nic, f, ack);
        return;
    }
    if (ack->becn)
        on_becn (nic, f);
    gboolean progressed = ack->seq > f->snd_una;
    if (nic->tp->uet) /* ROD: the EVs and NSCC learn from its ACKs and NAKs too */
        uet_rod_ack (nic, f, ack, progressed ? ack->seq - f->snd_una : 0,
                     progressed && !ack->retransmit ? sim->now - ack->sent_at : 0);
    if (progressed) {
        if (f->loss) /* RC: progress gives the QP its retries back */
            f->loss->rc_retries = 0;
        if (!nic->tp->rc && !ack->retransmit) /* Karn: no samples from retransmitted packets */
            rtt_sample (nic, f, sim->now - ack->sent_at);
        f->snd_una = ack->seq;
        if (f->snd_nxt < f->snd_una)
            f->snd_nxt = f->snd_una;
    }
    if (ack->kind == WEFT_PKT_NACK && ack->seq < f->snd_nxt) {
        weft_flow_loss (f)->naks++;
        if (nic->tp->recovery == WEFT_RECOVERY_SELECTIVE_REPEAT) {
            /* Send the missing packet alone. */
            f->resend = TRUE;
            f->ooo->resend_seq = ack->seq;
        } else {
            /* Go back to the first packet the receiver is missing. */
            f->snd_nxt = ack->seq;
        }
    }
    if (ack->kind == WEFT_PKT_NACK || progressed) {
        if (f->snd_una == f->n_pkts)
            weft_timer_cancel (&f->rto_timer); /* all acknowledged */
        else
            timer_restart (nic, f);
        make_ready (nic, f);
    }
    weft_packet_release (&sim->pool, ack);
}

/* ---- receiver half -------------------------------------------------------------------- */

static inline gboolean
ooo_test (const WeftFlow *f, guint64 seq)
{
    return f->ooo && f->ooo->bits && (f->ooo->bits[seq / 8] & (1u << (seq % 8)));
}

/* ---- RCCC at the receiver (models/rccc.h) ---------------------------------------------- */

static WeftRcccFlow *
rccc_flow_at (gpointer ctx, guint32 id)
{
    return &((WeftTransport *) ctx)->flows[id].uet->rccc;
}

static void on_rccc_pull (WeftSim *sim, void *target, WeftArg arg);

/* The node's pacer sends its next pull when its gap after the last one has passed. */
static void
rccc_kick (WeftNicAgent *nic, WeftRcccRx *rx)
{
    if (rx->busy || !rx->head)
        return;
    WeftSim *sim = nic->owner->sim;
    rx->busy = TRUE;
    weft_sim_schedule_at (sim, &nic->owner->sched, MAX (sim->now, rx->free_at), on_rccc_pull, rx,
                          (WeftArg){ 0 });
}

/* The pacer's turn: a pull to the head flow, then a gap as long as the data it grants takes
 * at pull_rate x the node's link rate. */
static void
on_rccc_pull (WeftSim *sim, void *target, WeftArg arg)
{
    WeftRcccRx *rx = target;
    WeftNicAgent *nic = rx->agent;
    WeftTransport *tp = nic->tp;
    const WeftRccc *cfg = &tp->uet->rccc;
    rx->busy = FALSE;
    guint32 id;
    guint64 grant;
    do /* a flow finished meanwhile is dropped from the queue without a pull */
        grant = weft_rccc_pacer_pull (rx, rccc_flow_at, tp, cfg->mtus_per_pull, &id);
    while (grant == 0 && id != G_MAXUINT32);
    if (id == G_MAXUINT32)
        return;
    WeftFlow *f = &tp->flows[id];
    WeftPacket *pull =
        control_packet (sim, f, WEFT_PKT_PULL, weft_fabric_ack_prio (tp->fabric), FALSE,
                        rccc_hash (nic, f, rx->pulls), (guint32) tp->fabric->ack_bytes);
    pull->credit = f->uet->rccc.granted;
    weft_port_enqueue (&nic->ports[f->ack_port], pull);
    rx->pulls++;
    rx->free_at = sim->now + weft_rccc_pull_gap (cfg, grant, tp->fabric->mtu + tp->fabric->header,
                                                 rx->rate_bps);
    rccc_kick (nic, rx);
}

/* A data packet (whole or trimmed) or a credit request of @f carried credit target @target. */
static void
rccc_heard (WeftNicAgent *nic, WeftFlow *f, guint64 target)
{
    WeftTransport *tp = nic->tp;
    WeftRcccRx *rx = &tp->rccc_rx[f->spec.dst];
    if (!rx->agent) { /* the node's pacer runs at its ports' rate together */
        rx->agent = nic;
        for (guint i = 0; i < nic->n_ports; i++)
            if (nic->ports[i].owner)
                rx->rate_bps += nic->ports[i].link.rate_bps;
    }
    if (f->finished) { /* it has it all: nothing more to grant */
        f->uet->rccc.target = f->uet->rccc.granted;
        return;
    }
    if (weft_rccc_on_target (rx, rccc_flow_at, tp, f->spec.id, target))
        rccc_kick (nic, rx);
}

/* A credit request reached the receiver. */
static void
on_credit_req (WeftNicAgent *nic, WeftPacket *req)
{
    rccc_heard (nic, &nic->tp->flows[req->flow], req->credit);
    weft_packet_release (&nic->owner->sim->pool, req);
}

/* Ultra Ethernet RUD receiver (models/uet.h): places any packet, answers each one at once -
 * a selective ACK, or a NACK for a trimmed one - with the cumulative point, its EV and the
 * echo of its CE mark. */
static void
uet_on_data (WeftNicAgent *nic, WeftFlow *f, WeftPacket *pkt)
{
    WeftSim *sim = nic->owner->sim;
    WeftTransport *tp = nic->tp;
    guint8 reply = WEFT_PKT_ACK;
    if (pkt->trimmed) {
        f->uet->trims_rx++;
        reply = WEFT_PKT_NACK;
    } else {
        if (pkt->ce)
            np_on_ce (nic, f);
        if (!f->finished && !f->uet->rcvd)
            f->uet->rcvd = g_new0 (guint8, (f->n_pkts + 7) / 8);
        if (f->finished || weft_uet_bit (f->uet->rcvd, pkt->seq)) {
            weft_flow_loss (f)->dup_discards++;
        } else {
            weft_uet_bit_set (f->uet->rcvd, pkt->seq);
            f->uet->rcvd_n++;
            f->delivered += pkt->payload;
            if (pkt->seq > f->rcv_nxt) {
                guint64 distance = pkt->seq - f->rcv_nxt;
                f->ooo->reorder_count++;
                f->ooo->reorder_sum += distance;
                f->ooo->reorder_max = MAX (f->ooo->reorder_max, distance);
            }
            while (f->rcv_nxt < f->n_pkts && weft_uet_bit (f->uet->rcvd, f->rcv_nxt))
                f->rcv_nxt++;
            weft_sim_progress (sim);
            if (f->uet->rcvd_n == f->n_pkts) {
                g_clear_pointer (&f->uet->rcvd, g_free);
                weft_transport_flow_finished (tp, f, sim);
            }
        }
    }
    if (tp->rccc_rx)
        rccc_heard (nic, f, pkt->credit);
    f->acks_sent++;
    WeftPacket *ack = pkt; /* reuse the packet: the data is consumed */
    ack->kind = reply;
    ack->sack = pkt->seq;
    ack->trimmed = 0;
    ack->credit = 0;
    ack->prio = weft_fabric_ack_prio (tp->fabric);
    ack->src = f->spec.dst;
    ack->dst = f->spec.src;
    ack->dst_ep = f->src_ep;
    ack->seq = f->rcv_nxt;
    ack->payload = 0;
    ack->size = (guint32) tp->fabric->ack_bytes;
    ack->hop = 0;
    weft_port_enqueue (&nic->ports[f->ack_port], ack);
}

static void
on_data (WeftNicAgent *nic, WeftPacket *pkt)
{
    WeftSim *sim = nic->owner->sim;
    WeftTransport *tp = nic->tp;
    WeftFlow *f = &tp->flows[pkt->flow];
    if (tp->uet && tp->uet->delivery == WEFT_UET_RUD) {
        uet_on_data (nic, f, pkt);
        return;
    }
    guint8 reply = WEFT_PKT_ACK;
    gboolean now = TRUE; /* answer at once; in-order arrivals may wait for ack_every */
    gboolean echo_ce = tp->uet && pkt->ce; /* Ultra Ethernet ROD: NSCC's and the EVs' signal */
    if (G_UNLIKELY (pkt->fecn))            /* marked only with [ibcc] on, where every flow has cc */
        f->cc->fecn_received++;
    if (pkt->ce)
        np_on_ce (nic, f);
    if (G_UNLIKELY (pkt->trimmed)) {
        /* Ultra Ethernet ROD: a trimmed packet is a gap, NAKed at once (once per gap). */
        f->uet->trims_rx++;
        if (f->nak_sent || pkt->seq < f->rcv_nxt) {
            weft_packet_release (&sim->pool, pkt);
            return;
        }
        f->nak_sent = TRUE;
        reply = WEFT_PKT_NACK;
    } else if (pkt->seq == f->rcv_nxt) {
        f->rcv_nxt++;
        f->delivered += pkt->payload;
        /* Packets placed out of order earlier now join the in-order prefix. */
        while (f->ooo && f->ooo->bits && f->rcv_nxt < f->n_pkts && ooo_test (f, f->rcv_nxt)) {
            f->delivered += f->rcv_nxt + 1 == f->n_pkts ? f->last_payload : tp->fabric->mtu;
            f->rcv_nxt++;
        }
        f->nak_sent = FALSE;
        if (tp->recovery == WEFT_RECOVERY_SELECTIVE_REPEAT && f->ooo->high > f->rcv_nxt &&
            !f->finished && f->rcv_nxt < f->n_pkts) {
            /* Healed up to another gap with placed packets beyond it: name the next one. */
            f->nak_sent = TRUE;
            reply = WEFT_PKT_NACK;
        }
        weft_sim_progress (sim);
        if (f->rcv_nxt == f->n_pkts) {
            if (f->ooo)
                g_clear_pointer (&f->ooo->bits, g_free);
            weft_transport_flow_finished (tp, f, sim);
        }
        /* Coalescing: every Nth in-order packet and the message's last are acknowledged; a
         * FECN is never held back (its ACK carries the BECN). */
        now = ++f->unacked >= tp->ack_every || f->finished || pkt->fecn;
    } else if (pkt->seq < f->rcv_nxt || ooo_test (f, pkt->seq)) {
        weft_flow_loss (f)->dup_discards++;
    } else if (tp->accept_ooo) {
        /* Out-of-order placement (ConnectX with adaptive routing): keep it, count how far. */
        WeftOooFlow *o = f->ooo; /* tp->ooo_flows exists with accept_ooo */
        if (!o->bits)
            o->bits = g_new0 (guint8, (f->n_pkts + 7) / 8);
        o->bits[pkt->seq / 8] |= (guint8) (1u << (pkt->seq % 8));
        o->high = MAX (o->high, pkt->seq + 1);
        guint64 distance = pkt->seq - f->rcv_nxt;
        o->reorder_count++;
        o->reorder_sum += distance;
        o->reorder_max = MAX (o->reorder_max, distance);
        if (tp->recovery == WEFT_RECOVERY_SELECTIVE_REPEAT) {
            /* A gap: NAK its first missing packet once; later arrivals beyond it are quiet. */
            if (f->nak_sent) {
                weft_packet_release (&sim->pool, pkt);
                return;
            }
            f->nak_sent = TRUE;
            reply = WEFT_PKT_NACK;
        }
    } else {
        weft_flow_loss (f)->ooo_discards++;
        if (f->nak_sent) {
            weft_packet_release (&sim->pool, pkt);
            return;
        }
        f->nak_sent = TRUE;
        reply = WEFT_PKT_NACK;
    }
    if (!now) {
        weft_packet_release (&sim->pool, pkt);
        return;
    }
    /* Cumulative ACK (or NAK), echoing the data packet's send time and retransmit flag, and
     * its FECN as BECN. */
    f->unacked = 0;
    f->acks_sent++;
    WeftPacket *ack = pkt; /* reuse the packet: the data is consumed */
    ack->becn = pkt->fecn;
    ack->fecn = 0;
    ack->ce = echo_ce;
    ack->trimmed = 0;
    ack->kind = reply;
    ack->prio = weft_fabric_ack_prio (tp->fabric);
    ack->src = f->spec.dst;
    ack->dst = f->spec.src;
    ack->dst_ep = f->src_ep;
    ack->seq = f->rcv_nxt;
    ack->payload = 0;
    ack->size = (guint32) tp->fabric->ack_bytes;
    ack->hop = 0;
    weft_port_enqueue (&nic->ports[f->ack_port], ack);
}

/* ---- the agent's life ------------------------------------------------------------------ */

/* The transport takes a received packet. */
static void
consume (WeftNicAgent *nic, WeftPacket *pkt)
{
    if (pkt->kind == WEFT_PKT_DATA)
        on_data (nic, pkt);
    else if (pkt->kind == WEFT_PKT_CNP)
        on_cnp (nic, pkt);
    else if (pkt->kind == WEFT_PKT_PULL)
        on_pull (nic, pkt);
    else if (pkt->kind == WEFT_PKT_CREDIT_REQ)
        on_credit_req (nic, pkt);
    else
        on_ack (nic, pkt);
}

/* The head of the receive pipeline has been processed.  (Not a WeftTimer, as the wire's head
 * event is not: the FIFO is the state, an event is pending exactly while it holds a packet.) */
static void
on_rx_done (WeftSim *sim, void *target, WeftArg arg)
{
    WeftNicAgent *nic = target;
    WeftPacket *pkt = weft_fifo_pop (&nic->rx);
    g_assert (pkt && pkt->arrive_at == sim->now);
    if (nic->rx.head)
        weft_sim_schedule_at (sim, &nic->owner->sched, nic->rx.head->arrive_at, on_rx_done, nic,
                              (WeftArg){ 0 });
    consume (nic, pkt);
}

void
weft_nic_agent_receive (WeftNicAgent *nic, WeftPort *in, WeftPacket *pkt)
{
    WeftModel *m = nic->owner;
    /* The HCA moves what arrives to memory at once: its buffer space is free again. */
    if (in->ib && weft_ib_release (in->ib, pkt))
        weft_port_queue_fcp (in, pkt->in_vl);
    if (G_UNLIKELY (pkt->dst != m->node)) {
        nic->misdelivered++;
        weft_packet_release (&m->sim->pool, pkt);
        return;
    }
    weft_time_t rx = nic->tp->fabric->nic.rx_latency_ps;
    if (rx == 0 || !pkt->nic_path) {
        consume (nic, pkt);
        return;
    }
    if (nic->rx_on_wire && nic->rx_on_wire[in->index]) {
        /* The wire has held it for the pipeline's rx_latency already (weft_nic_fold_rx). */
        consume (nic, pkt);
        return;
    }
    /* Receive processing: one constant latency keeps the pipeline in arrival order, so only
     * its head needs an event.  The flow's record, which the transport reads then, has gone
     * cold since its last packet: its load starts now. */
    __builtin_prefetch (&nic->tp->flows[pkt->flow]);
    pkt->arrive_at = m->sim->now + rx;
    gboolean was_empty = nic->rx.head == NULL;
    g_assert (was_empty || pkt->arrive_at >= nic->rx.tail->arrive_at);
    weft_fifo_push (&nic->rx, pkt);
    if (was_empty)
        weft_sim_schedule_at (m->sim, &m->sched, pkt->arrive_at, on_rx_done, nic, (WeftArg){ 0 });
}

guint64
weft_nic_agent_inflight_data (const WeftNicAgent *nic)
{
    guint64 n = 0;
    for (const WeftPacket *pkt = nic->rx.head; pkt; pkt = pkt->next)
        n += pkt->kind == WEFT_PKT_DATA;
    return n;
}

void
weft_nic_agent_init (WeftNicAgent *nic, WeftModel *owner, WeftTransport *tp, WeftPort *ports,
                     guint n_ports)
{
    *nic = (WeftNicAgent){ 0 };
    nic->owner = owner;
    nic->tp = tp;
    nic->n_ports = n_ports;
    nic->ports = ports;
    nic->ring_head = g_new0 (WeftFlow *, MAX (n_ports, 1));
    nic->ring_tail = g_new0 (WeftFlow *, MAX (n_ports, 1));
    nic->pace_next = g_new0 (weft_time_t, MAX (n_ports, 1));
    nic->pace_wake = g_new0 (WeftTimer, MAX (n_ports, 1));
    nic->msg_next = g_new0 (weft_time_t, MAX (n_ports, 1));
    nic->pulling = -1;
    weft_sim_add_stale_test (owner->sim, on_rto, rto_stale);
    for (guint p = 0; p < n_ports; p++)
        if (ports[p].owner) {
            ports[p].pull = nic_pull;
            ports[p].pull_defer = nic_pull_defer;
            ports[p].pull_source = nic;
        }
}

void
weft_nic_agent_clear (WeftNicAgent *nic)
{
    g_free (nic->rx_on_wire);
    g_free (nic->ring_head);
    g_free (nic->ring_tail);
    g_free (nic->pace_next);
    g_free (nic->pace_wake);
    g_free (nic->msg_next);
    if (nic->conns)
        g_hash_table_unref (nic->conns);
    if (nic->owner)
        weft_fifo_release_all (&nic->rx, &nic->owner->sim->pool);
    *nic = (WeftNicAgent){ 0 };
}

/* ---- the endpoint model ---------------------------------------------------------------- */

static void
nic_receive (WeftModel *m, guint port, WeftPacket *pkt)
{
    WeftNic *nic = (WeftNic *) m;
    WeftPort *in = &nic->ports[port];
    WeftIbPort *ib = in->ib;
    if (pkt->kind == WEFT_PKT_CREDIT) {
        weft_port_on_flow_control (in, pkt);
        return;
    }
    weft_port_count_rx (in, pkt);
    if (ib && !weft_ib_on_arrival (ib, pkt)) {
        nic->lossless_drops++;
        weft_packet_release (&m->sim->pool, pkt);
        return;
    }
    weft_nic_agent_receive (&nic->agent, in, pkt);
}

static gboolean
nic_init (WeftModel *m, GError **error)
{
    WeftNic *nic = (WeftNic *) m;
    /* After the builder has set up the ports: the agent pulls from the connected ones. */
    weft_nic_agent_init (&nic->agent, m, nic->tp, nic->ports, nic->n_ports);
    return TRUE;
}

void
weft_nic_fold_rx (WeftNic *nic, const WeftGraph *graph)
{
    weft_time_t rx = nic->tp->fabric->nic.rx_latency_ps;
    if (rx == 0)
        return;
    for (guint p = 0; p < nic->n_ports; p++) {
        WeftPort *in = &nic->ports[p];
        if (!in->owner || in->ib ||
            weft_graph_link (graph, in->link.link_id)->kind != WEFT_LINK_FABRIC)
            continue;
        /* The far end's port toward this one sends on the wire that arrives here. */
        WeftPort *up = weft_model_port (in->link.peer, in->link.peer_port);
        g_assert (up->link.peer == &nic->parent && up->link.peer_port == p &&
                  up->link.cut_bytes == 0);
        /* Its deliveries are the pipeline's ends, keyed by the wire as every arrival is
         * (sim/event.h: WEFT_KEY_WIRE), so that they tie alike however a run is split. */
        up->link.rx_ps = rx;
        if (!nic->agent.rx_on_wire)
            nic->agent.rx_on_wire = g_new0 (gboolean, nic->n_ports);
        nic->agent.rx_on_wire[p] = TRUE;
    }
}

void
weft_nic_settle_rx (WeftNic *nic, weft_time_t now)
{
    for (guint p = 0; nic->agent.rx_on_wire && p < nic->n_ports; p++) {
        if (!nic->agent.rx_on_wire[p])
            continue;
        WeftPort *in = &nic->ports[p];
        const WeftPort *up = weft_model_port (in->link.peer, in->link.peer_port);
        weft_link_count_arrived (&up->link, now, &in->rx_packets, &in->rx_bytes);
    }
}

void
weft_nic_setup_ports (WeftNic *nic, guint n_ports)
{
    nic->n_ports = n_ports;
    nic->ports = weft_port_array_new (&nic->parent.sim->arena, n_ports);
}

static void
nic_clear (WeftModel *m)
{
    WeftNic *nic = (WeftNic *) m;
    for (guint p = 0; p < nic->n_ports; p++)
        weft_port_clear (&nic->ports[p]);
    weft_nic_agent_clear (&nic->agent);
}

const WeftModelClass weft_nic_class = {
    .name = "nic",
    .help = "endpoint (host or GPU): reliable go-back-N transport for its flows over its ports",
    .instance_size = sizeof (WeftNic),
    .params = NULL,
    .init = nic_init,
    .receive = nic_receive,
    .clear = nic_clear,
};

/* ---- [nic]: the RDMA NIC's costs (the mechanism, models/registry.h) -------------------- */

const WeftParamSpec weft_nic_params[] = {
    WEFT_PARAM_STRING ("tx_latency", WeftNicConfig, tx_latency_str, "auto",
                       "send processing: from a message's post to its first packet's first bit "
                       "on the wire, once per message (the packets after the first stream at "
                       "line rate), 0ns to 1ms; auto: 500 ns on InfiniBand, 600 ns on Ethernet "
                       "and RoCE (ConnectX; doc/latency.md)"),
    WEFT_PARAM_STRING ("rx_latency", WeftNicConfig, rx_latency_str, "auto",
                       "receive processing: from a packet's last bit to the transport (data "
                       "placed, its ACK generated; an ACK seen by the sender), 0ns to 1ms; auto: "
                       "500 ns on InfiniBand, 600 ns on Ethernet and RoCE (ConnectX; "
                       "doc/latency.md)"),
    WEFT_PARAM_STRING ("message_rate", WeftNicConfig, message_rate_str, "auto",
                       "messages (work requests) a NIC port takes up per second, in pps, Kpps, "
                       "Mpps or Gpps (e.g. 215Mpps), or unlimited; auto: 330Mpps (ConnectX-7, "
                       "unverified; doc/latency.md)"),
    WEFT_PARAM_END,
};

/* The defaults of [nic] on a fabric of @kind (doc/latency.md). */
#define NIC_LATENCY_IB WEFT_NS (500)
#define NIC_LATENCY_ETHERNET WEFT_NS (600)
#define NIC_MESSAGE_RATE G_GUINT64_CONSTANT (330000000)

/* @text: auto (then @def), or a time from 0 to 1 ms. */
static gboolean
read_latency (const WeftExperiment *exp, const char *key, const char *text, weft_time_t def,
              weft_time_t *out, GError **error)
{
    if (g_strcmp0 (text, "auto") == 0) {
        *out = def;
        return TRUE;
    }
    g_autoptr (GError) local = NULL;
    if (!weft_units_parse_time (text, out, &local))
        return weft_experiment_fail (exp, error, local->code, "nic", key, "%s, or auto",
                                     local->message);
    if (*out > WEFT_MS (1))
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_RANGE, "nic", key,
                                     "%s is out of range: expected 0ns to 1ms, or auto", text);
    return TRUE;
}

/* "330Mpps", "1.5Gpps", "2000pps": a whole number of messages per second, from 1 pps to 1 Tpps,
 * read exactly (no floating point). */
static gboolean
parse_message_rate (const char *text, guint64 *pps)
{
    static const struct {
        const char *unit;
        guint64 mult;
    } units[] = { { "pps", 1 }, { "Kpps", 1000 }, { "Mpps", 1000000 }, { "Gpps", 1000000000 } };
    const char *p = text;
    guint64 whole = 0, frac = 0, frac_div = 1;
    gboolean digits = FALSE;
    for (; g_ascii_isdigit (*p); p++, digits = TRUE)
        if ((whole = whole * 10 + (guint64) (*p - '0')) > G_GUINT64_CONSTANT (1000000000000))
            return FALSE;
    if (*p == '.')
        for (p++; g_ascii_isdigit (*p); p++, digits = TRUE) {
            if (frac_div >= G_GUINT64_CONSTANT (1000000000))
                return FALSE;
            frac = frac * 10 + (guint64) (*p - '0');
            frac_div *= 10;
        }
    while (*p == ' ')
        p++;
    for (guint i = 0; digits && i < G_N_ELEMENTS (units); i++) {
        if (strcmp (p, units[i].unit) != 0)
            continue;
        guint64 m = units[i].mult;
        if ((frac * m) % frac_div != 0 || whole > G_GUINT64_CONSTANT (1000000000000) / m)
            return FALSE;
        *pps = whole * m + frac * m / frac_div;
        return *pps >= 1 && *pps <= G_GUINT64_CONSTANT (1000000000000);
    }
    return FALSE;
}

static gboolean
nic_configure (WeftMechEnv *env, const WeftExperiment *exp, GError **error)
{
    WeftNicConfig *cfg = &env->fabric->nic;
    WeftParamBinding b = { weft_nic_params, cfg };
    if (!weft_params_read (exp, "nic", &b, 1, error))
        return FALSE;
    weft_time_t lat =
        env->fabric->kind == WEFT_FABRIC_INFINIBAND ? NIC_LATENCY_IB : NIC_LATENCY_ETHERNET;
    if (!read_latency (exp, "tx_latency", cfg->tx_latency_str, lat, &cfg->tx_latency_ps, error) ||
        !read_latency (exp, "rx_latency", cfg->rx_latency_str, lat, &cfg->rx_latency_ps, error))
        return FALSE;
    guint64 pps = NIC_MESSAGE_RATE;
    if (g_strcmp0 (cfg->message_rate_str, "unlimited") == 0) {
        cfg->message_gap_ps = 0;
        return TRUE;
    }
    if (g_strcmp0 (cfg->message_rate_str, "auto") != 0 &&
        !parse_message_rate (cfg->message_rate_str, &pps))
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_VALUE, "nic", "message_rate",
                                     "'%s': expected messages per second from 1pps to 1000Gpps "
                                     "(pps, Kpps, Mpps, Gpps, e.g. 330Mpps), auto or unlimited",
                                     cfg->message_rate_str);
    /* Rounded up: the NIC never takes up messages faster than the rate. */
    cfg->message_gap_ps = (WEFT_PS_PER_S + pps - 1) / pps;
    return TRUE;
}

/* Packets in the receive pipelines are in flight (the accounting identity counts them). */
static void
nic_count (const WeftMechEnv *env, WeftNetworkStats *st)
{
    for (guint i = 0; i < env->nics->len; i++)
        st->inflight_data +=
            weft_nic_agent_inflight_data (&((const WeftNic *) env->nics->pdata[i])->agent);
    for (guint i = 0; i < env->switches->len; i++) {
        const WeftNicAgent *agent = ((const WeftSwitch *) env->switches->pdata[i])->agent;
        if (agent)
            st->inflight_data += weft_nic_agent_inflight_data (agent);
    }
}

static void
nic_mech_clear (WeftMechEnv *env)
{
    weft_params_clear (weft_nic_params, &env->fabric->nic);
}

const WeftMechanism weft_nic_mechanism = {
    .name = "nic",
    .group = "nic",
    .help = "the RDMA NICs' own costs: send and receive processing latency, message rate",
    .params = weft_nic_params,
    .fabrics = WEFT_FABRICS_ALL,
    .configure = nic_configure,
    .count = nic_count,
    .clear = nic_mech_clear,
};
