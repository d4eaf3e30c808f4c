#include "config.h"
#define G_LOG_DOMAIN "weft-port"
#include "models/port.h"


WeftPort *
weft_port_array_new (WeftArena *arena, guint n)
{
    return weft_arena_alloc0 (arena, sizeof (WeftPort) * MAX (n, 1), _Alignof(WeftPort));
}

void
weft_port_init (WeftPort *port, WeftModel *owner, guint32 index, guint32 link_id, guint8 direction,
                WeftModel *peer, guint16 peer_port, guint64 rate_bps, weft_time_t delay_ps,
                guint64 cap_bytes)
{
    *port = (WeftPort){ 0 };
    port->owner = owner;
    port->sched = weft_sim_sched_new (owner->sim);
    port->index = index;
    port->cap_bytes = cap_bytes;
    port->link = (WeftLinkTx){ .owner = owner,
                               .sched_id = port->sched.id,
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
    WeftPacketPool *pool = &port->owner->sim->pool;
    for (guint c = 0; c < WEFT_PORT_CLASSES; c++)
        weft_fifo_release_all (&port->q[c], pool);
    if (port->staged)
        weft_packet_release (pool, port->staged);
    port->staged = NULL;
    weft_link_clear (&port->link);
    if (port->ib)
        weft_ib_port_clear (port->ib);
    port->ib = NULL;  /* the run's arena owns it */
    port->pfc = NULL; /* the run's arena owns it */
}

void
weft_port_set_far (WeftPort *port, WeftPort *far)
{
    g_assert (port->ib && far->ib && !port->pfc);
    port->far = far;
    port->ib->return_key = (guint64) far->sched.id << 32;
    port->wake_sched = (WeftSched){ far->sched.id, (guint32) WEFT_KEY_WAKE (0, 0) };
}

/* Queue depth changes: integrate the old depth over the time it held, and keep the peaks. */
/* The depth integral brought up to @now at the current depth. */
static inline void
depth_integrate (WeftPort *port, weft_time_t now)
{
    /* An empty queue adds nothing (+0.0 leaves the sum as it is): skip the conversions.  Both
     * factors lie below 2^63, where converting them as signed integers gives the same double
     * in one instruction (x86-64 has no unsigned conversion: GCC's takes a branch and more). */
    if (port->q_bytes)
        port->s_area += (double) (gint64) port->q_bytes * (double) (gint64) (now - port->s_last);
    port->s_last = now;
}

/* A depth of @bytes reached: the sample's and the run's peaks. */
static inline void
depth_peak (WeftPort *port, guint64 bytes)
{
    if (bytes > port->s_max_q)
        port->s_max_q = bytes;
    if (bytes > port->max_q)
        port->max_q = bytes;
}

static inline void
queue_changed (WeftPort *port, weft_time_t now, guint64 new_bytes)
{
    depth_integrate (port, now);
    port->q_bytes = new_bytes;
    depth_peak (port, new_bytes);
}

/* The depth falls to @new_bytes: queue_changed without the peaks, which a fall never reaches
 * (q_bytes <= s_max_q <= max_q holds: every rise passes queue_changed's tests, and a sample
 * resets s_max_q to the depth at its end). */
static inline void
queue_fell (WeftPort *port, weft_time_t now, guint64 new_bytes)
{
    depth_integrate (port, now);
    port->q_bytes = new_bytes;
}

/* @bytes join the queue and leave it at this picosecond (a packet or FCP at an idle port,
 * sent at once as joining its FIFO and leaving it would be): queue_changed's rise and fall in
 * one.  The fall's own integral term, the risen depth over no time, is +0.0, which leaves
 * s_area as it is; so the integral, the peaks and the depth end as the pair left them. */
static inline void
queue_passed (WeftPort *port, weft_time_t now, guint64 bytes)
{
    depth_integrate (port, now);
    depth_peak (port, port->q_bytes + bytes);
}

static void on_tx_free (WeftSim *sim, void *target, WeftArg arg);
static void on_llr_replay (WeftSim *sim, void *target, WeftArg arg);

/* The first flow-control packet on its way to a stalled port arrives: it kicked the
 * transmitter when it was an event, and this does so at the same time and with the same
 * identity, its wire's (models/ib_credit.h). */
static void
on_credit_wake (WeftSim *sim, void *target, WeftArg arg)
{
    WeftPort *port = target;
    if (!weft_timer_fire (sim, &port->credit_wake, &port->wake_sched, on_credit_wake, port, arg))
        return;
    weft_port_kick (port);
}

/* A stalled port waits for the first FCP on its way, if any (one wake-up at a time: after it,
 * a port still stalled arms the next). */
static inline void
arm_credit_wake (WeftPort *port)
{
    if (port->ib->ret_len && port->far && !weft_timer_pending (&port->credit_wake))
        weft_timer_arm_at (port->owner->sim, &port->credit_wake, &port->wake_sched,
                           port->ib->return_next, on_credit_wake, port, 0);
}

void
weft_port_credit_in (WeftPort *port, WeftPacket *pkt)
{
    weft_ib_return_push (port->ib, pkt->arrive_at, pkt->vl, (guint32) pkt->seq);
    weft_packet_release (&port->owner->sim->pool, pkt);
    if (port->ib->stalled)
        arm_credit_wake (port);
}

/* A transmission starts: the counters of /ports and /links. */
static inline void
count_sent (WeftPort *port, const WeftPacket *pkt, weft_time_t ser)
{
    port->busy_ps += ser;
    port->s_bytes += pkt->size;
    port->s_packets++;
    if (G_LIKELY (pkt->kind != WEFT_PKT_CREDIT)) {
        /* As perfquery counts: link-level flow-control packets are not data. */
        port->tx_bytes += pkt->size;
        port->tx_packets++;
    }
}

/* start_tx on a port with a fault acting on its link (models/fault.h): counts the
 * transmission as count_sent does, unless the packet never leaves; TRUE when the fault
 * takes the packet (discarded, or kept for link-level retry), so it does not go on the
 * wire.  Apart, so the common case tests the fault pointer once. */
G_NO_INLINE static gboolean
fault_takes (WeftPort *port, WeftPacket *pkt, weft_time_t ser, weft_time_t end)
{
    if (weft_fault_port_discards (port->fault, pkt)) {
        /* A Down port (models/fault.h): the packet leaves the queue at the link's pace and is
         * gone; no credits are taken, nothing is counted as sent. */
        if (port->on_depart)
            port->on_depart (port->owner, port, pkt);
        weft_packet_release (&port->owner->sim->pool, pkt);
        return TRUE;
    }
    count_sent (port, pkt, ser);
    if (G_UNLIKELY (port->llr_chain != NULL)) {
        /* Go-back-N link-level retry under way: the receiver discards this frame, which stays
         * in the replay buffer and leaves again after the corrupted one. */
        port->llr_replays++;
        port->llr_chain_tail->next = pkt;
        port->llr_chain_tail = pkt;
        pkt->next = NULL;
        return TRUE;
    }
    if (weft_fault_port_corrupts (port->fault, pkt)) {
        if (port->llr_delay_ps && port->llr_go_back_n) {
            /* Go-back-N: the replay starts from this frame, llr_delay after its end. */
            port->llr_replays++;
            port->llr_chain = port->llr_chain_tail = pkt;
            pkt->next = NULL;
            weft_sim_schedule_at (port->owner->sim, &port->sched, end + port->llr_delay_ps,
                                  on_llr_replay, port, (WeftArg){ .ptr = NULL });
            return TRUE;
        }
        if (port->llr_delay_ps) {
            /* Link-level retry: the receiver drops the frame and asks for it again; the frame
             * stays in this port's replay buffer and leaves once more llr_delay after its end
             * (nothing departs from the node until then). */
            port->llr_replays++;
            weft_sim_schedule_at (port->owner->sim, &port->sched, end + port->llr_delay_ps,
                                  on_llr_replay, port, (WeftArg){ .ptr = pkt });
            return TRUE;
        }
        /* Sent, and discarded by the receiver as corrupted: no credits held (models/fault.h). */
        if (port->on_depart)
            port->on_depart (port->owner, port, pkt);
        weft_packet_release (&port->owner->sim->pool, pkt);
        return TRUE;
    }
    return FALSE;
}

static void
start_tx (WeftPort *port, WeftPacket *pkt, weft_time_t now)
{
    weft_time_t ser = weft_time_serialize (pkt->size, port->link.rate_bps);
    /* Cut-through: a packet cannot finish leaving before its tail has arrived. */
    weft_time_t end = MAX (now + ser, pkt->tail_at);
    port->busy_until = end;
    if (G_UNLIKELY (port->fault != NULL)) {
        if (fault_takes (port, pkt, ser, end))
            return;
    } else {
        count_sent (port, pkt, ser);
    }
    if (port->ib)
        weft_ib_on_send (port->ib, pkt);
    if (port->on_depart)
        port->on_depart (port->owner, port, pkt);
    if (pkt->kind == WEFT_PKT_CREDIT && port->far) {
        /* No arrival event: the far port applies it when due, or wakes for it if stalled. */
        WeftPort *far = port->far;
        if (weft_link_send_credit (&port->link, pkt, now, end, far->ib) && far->ib->stalled)
            arm_credit_wake (far);
        return;
    }
    weft_link_send (&port->link, pkt, now, end);
}

/* An InfiniBand FCP for @vl starts: start_tx without a packet where none is needed (see
 * models/ib_credit.h): what it counts, spends and hands to the far port is the same.  No
 * departure hook runs: switch_depart ignores flow-control packets. */
static void
start_fcp (WeftPort *port, guint vl, weft_time_t now)
{
    WeftIbPort *ib = port->ib;
    if (G_UNLIKELY (port->fault != NULL || port->link.post != NULL || port->far == NULL)) {
        start_tx (port, weft_ib_fcp_new (&port->owner->sim->pool, ib, vl), now);
        return;
    }
    guint32 size = (guint32) ib->cfg->fc_bytes;
    weft_time_t ser = weft_time_serialize (size, port->link.rate_bps);
    weft_time_t end = now + ser; /* an FCP's tail_at is 0: it is no cut-through packet */
    port->busy_until = end;
    port->busy_ps += ser;
    port->s_bytes += size;
    port->s_packets++;
    WeftIbPort *far = port->far->ib;
    weft_link_send_fcp (&port->link, far, vl, weft_ib_fcp_take (ib, vl), size, now, end);
    if (far->stalled)
        arm_credit_wake (port->far);
}

/* At most one "transmitter free" event per port: arming a pending timer does nothing.  After a
 * deferred look (pull_defer) the event takes the key it would have had (defer_key), so it ties
 * with the other events of its picosecond as it did. */
static inline void
ensure_free_event (WeftPort *port)
{
    WeftSched *from = &port->sched, keyed;
    if (G_UNLIKELY (port->defer_key != 0) && !weft_timer_pending (&port->tx_free)) {
        keyed = (WeftSched){ port->sched.id, (guint32) port->defer_key };
        from = &keyed;
        port->defer_key = 0;
    }
    weft_timer_arm_at (port->owner->sim, &port->tx_free, from, port->busy_until, on_tx_free, port,
                       0);
}

static WeftPacket *
pop_class (WeftPort *port, guint c, weft_time_t now)
{
    WeftPacket *pkt = weft_fifo_pop (&port->q[c]);
    if (!port->q[c].head)
        port->q_mask &= ~(1u << c);
    else /* the next to leave, gone cold in a long queue: it is read when this one has left */
        __builtin_prefetch (port->q[c].head);
    queue_fell (port, now, port->q_bytes - pkt->size);
    return pkt;
}

static inline void
push_class (WeftPort *port, guint c, WeftPacket *pkt)
{
    weft_fifo_push (&port->q[c], pkt);
    port->q_mask |= 1u << c;
}

/* Ethernet: strict priority between classes, then the pull source.  RoCE: paused priorities
 * wait (PAUSE frames in class 0 never do). */
static WeftPacket *
dequeue_plain (WeftPort *port, weft_time_t now)
{
    const WeftPfcPort *pfc = port->pfc;
    guint classes = pfc ? 1 + WEFT_PFC_PRIOS : 2;
    /* The classes holding packets, lowest first: only their FIFOs are read. */
    for (guint32 m = port->q_mask & ((1u << classes) - 1); m != 0; m &= m - 1) {
        guint c = (guint) __builtin_ctz (m);
        if (!(pfc && c > 0 && weft_port_pfc_paused (port, weft_port_pfc_prio (c), now)))
            return pop_class (port, c, now);
    }
    if (pfc && port->pfc_paused &&
        weft_port_pfc_paused (port, (guint) pfc->cfg->rdma_priority, now))
        return NULL;
    return port->pull ? port->pull (port->pull_source, port->index) : NULL;
}

/* InfiniBand: flow control first, then the VL arbitration among VLs whose next packet has
 * its credits; with nothing eligible but data waiting, the port stalls (PortXmitWait). */
static WeftPacket *
dequeue_ib (WeftPort *port, weft_time_t now)
{
    WeftIbPort *ib = port->ib;
    if (port->q[0].head)
        return pop_class (port, 0, now);
    weft_ib_sync (ib, port->owner->sim);
    if (!port->staged && port->pull) {
        port->staged = port->pull (port->pull_source, port->index);
        if (port->staged)
            port->staged->vl = ib->sl2vl[port->staged->sl];
    }
    guint32 eligible = 0;
    gboolean waiting = FALSE;
    guint vls = (guint) ib->cfg->vls;
    for (guint v = 0; v < vls; v++) {
        const WeftPacket *head = port->q[1 + v].head;
        if (!head && port->staged && port->staged->vl == v)
            head = port->staged;
        if (!head)
            continue;
        waiting = TRUE;
        if (weft_ib_can_send_data (ib, head)) /* FCPs wait in class 0 alone */
            eligible |= 1u << v;
    }
    gboolean high;
    int v = weft_vlarb_pick (&ib->arb, eligible, &high);
    if (v < 0) {
        if (waiting) {
            weft_ib_stall_begin (ib, now);
            arm_credit_wake (port);
        }
        return NULL;
    }
    if (G_UNLIKELY (ib->stalled)) /* a call only to end a stall */
        weft_ib_stall_end (ib, now, port->s_start);
    WeftPacket *pkt;
    if (port->q[1 + v].head) {
        pkt = pop_class (port, 1 + v, now);
    } else {
        pkt = port->staged;
        port->staged = NULL;
    }
    weft_vlarb_sent (&ib->arb, high, pkt->size);
    return pkt;
}

/* After a packet started with nothing else waiting: whether the transmitter must look again
 * when it frees for the pull source (unless the source defers: models/port.h). */
static inline gboolean
pull_needs_look (WeftPort *port)
{
    if (!port->pull)
        return FALSE;
    if (!port->pull_defer || !port->pull_defer (port->pull_source, port->index, port->busy_until))
        return TRUE;
    /* Deferred: the key the event would have taken is spent as arming it would have spent it,
     * and kept for the port's idle test and a later arming (ensure_free_event). */
    port->defer_key = ((guint64) port->sched.id << 32) | port->sched.counter++;
    return FALSE;
}

/* After a dequeued packet started: the transmitter looks again when it frees if anything
 * may be waiting then. */
static inline void
after_dequeued (WeftPort *port)
{
    port->defer_key = 0;
    if (port->q_bytes > 0 || (port->ib && port->staged) || pull_needs_look (port))
        ensure_free_event (port);
}

/* @pkt, just dequeued, starts. */
static inline void
send_dequeued (WeftPort *port, WeftPacket *pkt, weft_time_t now)
{
    start_tx (port, pkt, now);
    after_dequeued (port);
}

/* InfiniBand: the FCP for @vl, just dequeued (or never queued), starts. */
static inline void
send_fcp_dequeued (WeftPort *port, guint vl, weft_time_t now)
{
    start_fcp (port, vl, now);
    after_dequeued (port);
}

static gboolean
try_send (WeftPort *port, weft_time_t now)
{
    if (port->ib && G_UNLIKELY (port->ib->fcp_n != 0) && !port->q[0].head) {
        /* Class 0's FCPs (after any replayed into q[0]: requeue_head puts them first). */
        guint vl = weft_ib_fcp_ring_pop (port->ib);
        queue_fell (port, now, port->q_bytes - port->ib->cfg->fc_bytes);
        send_fcp_dequeued (port, vl, now);
        return TRUE;
    }
    WeftPacket *pkt = port->ib ? dequeue_ib (port, now) : dequeue_plain (port, now);
    if (!pkt)
        return FALSE;
    send_dequeued (port, pkt, now);
    return TRUE;
}

static void
on_tx_free (WeftSim *sim, void *target, WeftArg arg)
{
    WeftPort *port = target;
    if (!weft_timer_fire (sim, &port->tx_free, &port->sched, on_tx_free, port, arg))
        return;
    try_send (port, sim->now);
}

/* Idle: no transmitter-free event pending and the transmitter free - at the very picosecond it
 * frees after a deferred look, only for the events its event would have preceded. */
static inline gboolean
idle (const WeftPort *port, weft_time_t now)
{
    if (weft_timer_pending (&port->tx_free) || port->busy_until > now)
        return FALSE;
    return port->busy_until < now || port->defer_key == 0 ||
           port->owner->sim->now_key > port->defer_key;
}

/* @pkt back at the head of its class, so it leaves next. */
static void
requeue_head (WeftPort *port, WeftPacket *pkt, weft_time_t now)
{
    guint c = weft_port_class (port, pkt);
    WeftPacketFifo *q = &port->q[c];
    pkt->next = q->head;
    q->head = pkt;
    if (!q->tail)
        q->tail = pkt;
    q->packets++;
    q->bytes += pkt->size;
    port->q_mask |= 1u << c;
    queue_changed (port, now, port->q_bytes + pkt->size);
}

/* Frames to replay (models/uet.h): the corrupted one (@arg), or under go-back-N the chain
 * from it on, at the head of their classes in their order, so they leave next. */
static void
on_llr_replay (WeftSim *sim, void *target, WeftArg arg)
{
    WeftPort *port = target;
    if (arg.ptr) {
        requeue_head (port, arg.ptr, sim->now);
    } else {
        /* Reverse the chain, then push each at its class's head: the first ends up first. */
        WeftPacket *rev = NULL, *next;
        for (WeftPacket *p = port->llr_chain; p; p = next) {
            next = p->next;
            p->next = rev;
            rev = p;
        }
        port->llr_chain = port->llr_chain_tail = NULL;
        for (WeftPacket *p = rev; p; p = next) {
            next = p->next;
            requeue_head (port, p, sim->now);
        }
    }
    if (idle (port, sim->now))
        try_send (port, sim->now);
    else
        ensure_free_event (port);
}

/* InfiniBand: data packet @pkt (its VL set) at an idle port with empty queues and no pull
 * source, where dequeue_ib would find it alone: when its credits are in hand it starts at
 * once, as joining its VL's FIFO and leaving it at this picosecond would (the queue's depth
 * rises and falls, the arbitration takes its turn), without the FIFO's round trip; FALSE
 * (nothing changed but the credits brought up to date) when it must wait. */
static gboolean
send_alone_ib (WeftPort *port, WeftPacket *pkt, weft_time_t now)
{
    WeftIbPort *ib = port->ib;
    weft_ib_sync (ib, port->owner->sim);
    if (!weft_ib_can_send_data (ib, pkt))
        return FALSE;
    gboolean high;
    if (weft_vlarb_pick (&ib->arb, 1u << pkt->vl, &high) < 0)
        return FALSE;
    queue_passed (port, now, pkt->size);
    if (G_UNLIKELY (ib->stalled)) /* a call only to end a stall */
        weft_ib_stall_end (ib, now, port->s_start);
    weft_vlarb_sent (&ib->arb, high, pkt->size);
    send_dequeued (port, pkt, now);
    return TRUE;
}

gboolean
weft_port_enqueue (WeftPort *port, WeftPacket *pkt)
{
    WeftSim *sim = port->owner->sim;
    weft_time_t now = sim->now;
    if (G_UNLIKELY (port->pfc && weft_port_pfc_stormed (port, pkt->prio & 7u) &&
                    port->pfc->cfg->watchdog == WEFT_PFC_WD_DROP && pkt->kind != WEFT_PKT_CREDIT)) {
        /* The PFC watchdog drops a stormed priority: the packet leaves the switch's buffer. */
        port->pfc->wd_dropped++;
        port->drops++;
        port->drops_data += pkt->kind == WEFT_PKT_DATA;
        port->s_drops++;
        if (port->on_depart)
            port->on_depart (port->owner, port, pkt);
        weft_packet_release (&sim->pool, pkt);
        return FALSE;
    }
    if (!port->ib && idle (port, now) &&
        !(port->pfc &&
          ((port->q_mask & (1u << weft_port_class (port, pkt))) ||
           (pkt->kind != WEFT_PKT_CREDIT && weft_port_pfc_paused (port, pkt->prio & 7u, now))))) {
        /* Idle transmitter and (necessarily) empty queues: send at once, no event. */
        start_tx (port, pkt, now);
        port->defer_key = 0;
        if (pull_needs_look (port))
            ensure_free_event (port);
        return TRUE;
    }
    /* A trimmed header is never tail-dropped: switches keep an allowance for them
     * (models/uet.h), and with trimming for ACKs and NACKs too (header_room). */
    if (port->q_bytes + pkt->size > port->cap_bytes && !pkt->trimmed &&
        !(port->header_room && pkt->kind != WEFT_PKT_DATA)) {
        port->drops++;
        port->drops_data += pkt->kind == WEFT_PKT_DATA;
        port->s_drops++;
        weft_packet_release (&sim->pool, pkt);
        return FALSE;
    }
    /* InfiniBand FCPs come through weft_port_queue_fcp, without a packet; the packet start_fcp
     * still makes on a faulted link or a link cut between ranks goes to start_tx directly, and
     * a replayed one back to class 0 (requeue_head), so none reaches this function.  One that
     * did would join class 0, which dequeue_ib serves first. */
    if (port->ib && pkt->kind != WEFT_PKT_CREDIT) {
        pkt->vl = port->ib->sl2vl[pkt->sl]; /* this port's SL-to-VL table */
        if (port->q_mask == 0 && !port->pull && idle (port, now) && send_alone_ib (port, pkt, now))
            return TRUE;
    }
    push_class (port, weft_port_class (port, pkt), pkt);
    queue_changed (port, now, port->q_bytes + pkt->size);
    if (idle (port, now))
        try_send (port, now);
    else
        ensure_free_event (port);
    return TRUE;
}

void
weft_port_queue_fcp (WeftPort *port, guint vl)
{
    WeftIbPort *ib = port->ib;
    weft_time_t now = port->owner->sim->now;
    guint64 size = ib->cfg->fc_bytes;
    /* As weft_port_enqueue of an FCP packet, which the buffer could refuse (the bit of
     * fcp_queued then stays set, as it did). */
    if (G_UNLIKELY (port->q_bytes + size > port->cap_bytes && !port->header_room)) {
        port->drops++;
        port->s_drops++;
        return;
    }
    if (!port->q[0].head && !ib->fcp_n && idle (port, now)) {
        /* At an idle port it leaves at once: the queue's depth rises and falls at this
         * picosecond as if it had joined class 0. */
        queue_passed (port, now, size);
        send_fcp_dequeued (port, vl, now);
        return;
    }
    weft_ib_fcp_ring_push (ib, vl);
    queue_changed (port, now, port->q_bytes + size);
    if (idle (port, now))
        try_send (port, now);
    else
        ensure_free_event (port);
}

void
weft_port_kick (WeftPort *port)
{
    weft_time_t now = port->owner->sim->now;
    if (idle (port, now))
        try_send (port, now);
    else if (port->pull_defer)
        ensure_free_event (port); /* its source deferred the look it now needs (pull_defer) */
}

void
weft_port_on_flow_control (WeftPort *port, WeftPacket *pkt)
{
    if (port->pfc) {
        weft_pfc_on_pause (port, pkt);
        return;
    }
    weft_ib_on_fcp (port->ib, pkt);
    weft_packet_release (&port->owner->sim->pool, pkt);
    weft_port_kick (port);
}

guint64
weft_port_inflight_data (const WeftPort *p)
{
    /* A trimmed header carries no data: its transmission already ended as a trim. */
    guint64 n = p->staged && p->staged->kind == WEFT_PKT_DATA && !p->staged->trimmed;
    for (const WeftPacket *pkt = p->link.wire.head; pkt; pkt = pkt->next)
        n += pkt->kind == WEFT_PKT_DATA && !pkt->trimmed;
    for (guint c = 0; c < WEFT_PORT_CLASSES; c++)
        for (const WeftPacket *pkt = p->q[c].head; pkt; pkt = pkt->next)
            n += pkt->kind == WEFT_PKT_DATA && !pkt->trimmed;
    return n;
}

gboolean
weft_port_sample (WeftPort *port, weft_time_t now, WeftTraceLinkSample *row)
{
    queue_changed (port, now, port->q_bytes);
    guint64 stall = 0;
    if (port->ib) {
        stall = weft_ib_stall_sample (port->ib, now, port->s_start);
    } else if (port->pfc) {
        /* PFC pause is Ethernet's "no credits to send": paused time in the interval. */
        guint64 total = weft_pfc_paused_total (port->pfc, now);
        stall = total - port->pfc->s_paused_base;
        port->pfc->s_paused_base = total;
    }
    /* A faulty link's error counters, as the intervals' increments. */
    guint64 corrupted = 0, downed = 0;
    if (port->fault) {
        corrupted = port->fault->corrupted - port->s_corrupted_base;
        downed = port->fault->link_downed - port->s_downed_base;
        port->s_corrupted_base = port->fault->corrupted;
        port->s_downed_base = port->fault->link_downed;
    }
    gboolean active =
        port->s_bytes || port->s_drops || port->s_max_q || stall || corrupted || downed;
    if (active) {
        weft_time_t span = now - port->s_start;
        *row = (WeftTraceLinkSample){ .time_ps = now,
                                      .link = port->link.link_id,
                                      .direction = port->link.direction,
                                      .bytes = port->s_bytes,
                                      .packets = port->s_packets,
                                      .max_queue_bytes = port->s_max_q,
                                      .mean_queue_bytes = span ? port->s_area / (double) span : 0,
                                      .drops = port->s_drops,
                                      .stall_ps = stall,
                                      .ecn_marks = port->s_ecn_marks,
                                      .trims = port->s_trims,
                                      .rcv_errors = corrupted,
                                      .link_downed = (guint32) downed };
    }
    port->s_bytes = port->s_packets = port->s_drops = port->s_ecn_marks = port->s_trims = 0;
    port->s_max_q = port->q_bytes;
    port->s_area = 0;
    port->s_start = now;
    return active;
}
