#include "config.h"
#define G_LOG_DOMAIN "weft-pfc"
#include "models/pfc.h"

#include "models/registry.h"
#include "models/switch.h"

#include "sim/units.h"


const WeftParamSpec weft_pfc_params[] = {
    WEFT_PARAM_BOOL ("enabled", WeftPfcConfig, enabled, "true",
                     "lossless RDMA priority: PAUSE upstream when an ingress queue crosses xoff; "
                     "off: the RDMA priority is tail-dropped like plain Ethernet"),
    WEFT_PARAM_UINT ("rdma_priority", WeftPfcConfig, rdma_priority, "3", "0", "7",
                     "802.1p priority of RDMA data and its ACKs (NVIDIA default 3)"),
    WEFT_PARAM_UINT ("cnp_priority", WeftPfcConfig, cnp_priority, "6", "0", "7",
                     "802.1p priority of congestion notification packets (NVIDIA default 6)"),
    WEFT_PARAM_STRING ("xoff", WeftPfcConfig, xoff_str, "62400B",
                       "per (ingress port, priority): bytes held above which PAUSE is sent "
                       "upstream (default: 15 packets of 4160 B, htsim's RoCE setting); "
                       "dynamic: alpha x the switch's free shared buffer (needs [switch] "
                       "buffer_sharing)"),
    WEFT_PARAM_DOUBLE ("alpha", WeftPfcConfig, alpha, "1", "0.0078125", "64",
                       "xoff = dynamic: the priority group's alpha (SONiC's lossless profiles: "
                       "dynamic_th 0, alpha 1)"),
    WEFT_PARAM_BYTES ("xon", WeftPfcConfig, xon, "49920B", "0B", "1GiB",
                      "per (ingress port, priority): bytes at or below which a paused upstream "
                      "is resumed (pause time 0); at most xoff"),
    WEFT_PARAM_STRING (
        "headroom", WeftPfcConfig, headroom_str, "auto",
        "bytes accepted above xoff before a packet is dropped (a lossless "
        "violation); auto, per port: 2 x (cable delay + switch latency) x rate / 8 + "
        "3 x (mtu + header) + 84 B (the PAUSE) + response x 64 B (e.g. 400 Gb/s, "
        "2 m, no latency: 2 x 10 ns x 50 GB/s + 3 x 4178 + 84 + 905 x 64 = "
        "71,538 B)"),
    WEFT_PARAM_UINT ("quanta", WeftPfcConfig, quanta, "65535", "1", "65535",
                     "pause time carried by a PAUSE, in quanta of 512 bit times at the "
                     "link rate (65535: 83.9 us at 400 Gb/s); refreshed at half that while "
                     "the queue stays above xoff, so at least (mtu + header) / 32 (131 for "
                     "4096 + 82 B): shorter, the refreshes outnumber the data frames and the "
                     "run slows down as much"),
    WEFT_PARAM_UINT ("response", WeftPfcConfig, response, "905", "0", "65535",
                     "quanta between a PAUSE's arrival and the sender stopping (802.3 Annex "
                     "31B upper bound at 400 Gb/s: 905; 100G: 394)"),
    WEFT_PARAM_ENUM ("watchdog", WeftPfcConfig, watchdog, "off", "off|drop|forward",
                     "PFC watchdog: a priority paused with data waiting for watchdog_detect "
                     "polls is a storm (e.g. a deadlock); for watchdog_restore its pauses are "
                     "ignored (forward) or its queue dropped (drop)"),
    WEFT_PARAM_TIME ("watchdog_poll", WeftPfcConfig, wd_poll, "100ms", "1us", "10s",
                     "watchdog polling interval (SONiC, Junos: 100 ms)"),
    WEFT_PARAM_UINT ("watchdog_detect", WeftPfcConfig, wd_detect, "2", "1", "1000",
                     "consecutive stuck polls before a storm is declared (2: 200 ms)"),
    WEFT_PARAM_TIME ("watchdog_restore", WeftPfcConfig, wd_restore, "200ms", "1us", "10s",
                     "how long a stormed priority ignores pauses or drops before it is "
                     "restored (200 ms)"),
    WEFT_PARAM_END,
};

gboolean
weft_pfc_config_read (WeftPfcConfig *cfg, const WeftExperiment *exp, GError **error)
{
    WeftParamBinding b = { weft_pfc_params, cfg };
    if (!weft_params_read (exp, "pfc", &b, 1, error))
        return FALSE;
    cfg->xoff_dynamic = g_strcmp0 (cfg->xoff_str, "dynamic") == 0;
    if (!cfg->xoff_dynamic) {
        g_autoptr (GError) local = NULL;
        if (!weft_units_parse_bytes (cfg->xoff_str, &cfg->xoff, &local))
            return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_VALUE, "pfc", "xoff",
                                         "expected dynamic or a size: %s", local->message);
        if (cfg->xoff < 1 || cfg->xoff > G_GUINT64_CONSTANT (1) << 30)
            return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_RANGE, "pfc", "xoff",
                                         "%" G_GUINT64_FORMAT "B is outside 1B..1GiB", cfg->xoff);
        if (g_key_file_has_key (weft_experiment_keyfile (exp), "pfc", "alpha", NULL))
            return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_UNKNOWN_KEY, "pfc", "alpha",
                                         "used only with xoff = dynamic");
    }
    if (!cfg->xoff_dynamic && cfg->xon > cfg->xoff)
        return weft_experiment_fail (
            exp, error, WEFT_CONFIG_ERROR_RANGE, "pfc", "xon",
            "%" G_GUINT64_FORMAT "B is above xoff (%" G_GUINT64_FORMAT "B)", cfg->xon, cfg->xoff);
    cfg->headroom_auto = g_strcmp0 (cfg->headroom_str, "auto") == 0;
    if (!cfg->headroom_auto) {
        g_autoptr (GError) local = NULL;
        if (!weft_units_parse_bytes (cfg->headroom_str, &cfg->headroom, &local))
            return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_RANGE, "pfc", "headroom",
                                         "expected auto or a size: %s", local->message);
    }
    return TRUE;
}

void
weft_pfc_config_clear (WeftPfcConfig *cfg)
{
    weft_params_clear (weft_pfc_params, cfg);
}

guint64
weft_pfc_headroom (const WeftPfcConfig *cfg, guint64 rate_bps, weft_time_t delay_ps, guint64 frame)
{
    if (!cfg->headroom_auto)
        return cfg->headroom;
    /* In flight both ways while the PAUSE travels and the switch forwards; three frames: the
     * one whose arrival crossed xoff (counted whole, so up to a frame above it), the one the
     * receiver's egress is sending when the PAUSE joins it, the one the sender is sending when
     * it stops; the PAUSE's own wire time; the sender's response. */
    unsigned __int128 flight = (unsigned __int128) 2 * delay_ps * rate_bps / 8 / WEFT_PS_PER_S;
    return (guint64) flight + 3 * frame + WEFT_PFC_FRAME + cfg->response * 64;
}

WeftPfcPort *
weft_pfc_port_new (WeftArena *arena)
{
    return weft_arena_alloc0 (arena, sizeof (WeftPfcPort), _Alignof(WeftPfcPort));
}

guint64
weft_pfc_paused_ps (const WeftPfcPort *pfc, guint prio, weft_time_t now)
{
    guint64 t = pfc->paused_ps[prio];
    if (pfc->until[prio] > pfc->since[prio])
        t += MIN (pfc->until[prio], now) - pfc->since[prio];
    return t;
}

guint64
weft_pfc_paused_total (const WeftPfcPort *pfc, weft_time_t now)
{
    guint64 t = 0;
    for (guint p = 0; p < WEFT_PFC_PRIOS; p++)
        t += weft_pfc_paused_ps (pfc, p, now);
    return t;
}

WeftPfcCounts
weft_pfc_counts_total (const WeftPfcPort *pfc)
{
    WeftPfcCounts t = { 0 };
    for (guint p = 0; p < WEFT_PFC_PRIOS; p++) {
        t.pauses_sent += pfc->n[p].pauses_sent;
        t.resumes_sent += pfc->n[p].resumes_sent;
        t.pauses_received += pfc->n[p].pauses_received;
        t.violations += pfc->n[p].violations;
    }
    return t;
}

gboolean
weft_pfc_sample (WeftPfcPort *pfc, guint prio, weft_time_t now, WeftTracePfcSample *row)
{
    const WeftPfcCounts *n = &pfc->n[prio], *base = &pfc->s_n[prio];
    guint64 paused = weft_pfc_paused_ps (pfc, prio, now);
    *row = (WeftTracePfcSample){ .time_ps = now,
                                 .priority = (guint8) prio,
                                 .pauses_sent = n->pauses_sent - base->pauses_sent,
                                 .resumes_sent = n->resumes_sent - base->resumes_sent,
                                 .pauses_received = n->pauses_received - base->pauses_received,
                                 .paused_ps = paused - pfc->s_paused[prio],
                                 .violations = n->violations - base->violations,
                                 .max_ingress_bytes = weft_pfc_rx (pfc, prio)->s_max_used };
    pfc->s_n[prio] = *n;
    pfc->s_paused[prio] = paused;
    weft_pfc_rx (pfc, prio)->s_max_used = weft_pfc_rx (pfc, prio)->used;
    return row->pauses_sent || row->resumes_sent || row->pauses_received || row->paused_ps ||
           row->violations;
}

/* ---- on ports (declared in models/port.h) ----------------------------------------------- */

#include "models/port.h"

static void
send_pause (WeftPort *in, guint prio, guint64 quanta)
{
    WeftPacket *f = weft_packet_alloc (&in->owner->sim->pool);
    f->kind = WEFT_PKT_CREDIT;
    f->prio = (guint8) prio;
    f->seq = quanta;
    f->size = WEFT_PFC_FRAME;
    if (quanta)
        in->pfc->n[prio].pauses_sent++;
    else
        in->pfc->n[prio].resumes_sent++;
    weft_port_enqueue (in, f);
}

static void on_refresh (WeftSim *sim, void *target, WeftArg arg);

/* Sends a PAUSE for @prio upstream on @in and arms its refresh at half its pause time. */
static void
pause_upstream (WeftPort *in, guint prio)
{
    WeftPfcPort *pfc = in->pfc;
    WeftSim *sim = in->owner->sim;
    send_pause (in, prio, pfc->cfg->quanta);
    weft_timer_arm (sim, &pfc->refresh[prio], &in->sched,
                    weft_pfc_quanta_ps (pfc->cfg->quanta, pfc->rate_bps) / 2, on_refresh, in, prio);
}

static void
on_refresh (WeftSim *sim, void *target, WeftArg arg)
{
    WeftPort *in = target;
    guint prio = weft_timer_data (arg);
    /* Stale once the resume went out (and superseded by a later pause). */
    if (!weft_timer_fire (sim, &in->pfc->refresh[prio], &in->sched, on_refresh, in, arg))
        return;
    pause_upstream (in, prio);
}

gboolean
weft_pfc_admit (WeftPort *in, const WeftPacket *pkt, guint64 xoff, guint64 room)
{
    WeftPfcPort *pfc = in->pfc;
    guint prio = pkt->prio & 7u;
    WeftPfcRx *rx = weft_pfc_rx (pfc, prio);
    /* While a pause is in force, the threshold it was sent at holds (a dynamic one moves with
     * the pool, and the headroom above it is what the pause was sized for).  A dynamic
     * threshold may fall below what the group already holds: the headroom then starts there.
     * (A static one never does: the group pauses as it crosses it.) */
    if (pfc->xoff[prio])
        xoff = rx->xoff_at;
    else
        xoff = MAX (xoff, rx->used);
    guint64 after = rx->used + pkt->size;
    gboolean fits = after <= xoff + pfc->headroom && pkt->size <= room;
    if (fits) {
        rx->used = after;
        rx->max_used = MAX (rx->max_used, after);
        rx->s_max_used = MAX (rx->s_max_used, after);
    } else {
        pfc->n[prio].violations++;
    }
    /* A packet that would cross xoff pauses the sender, even one dropped for want of
     * headroom. */
    if (after > xoff && !pfc->xoff[prio]) {
        pfc->xoff[prio] = TRUE;
        rx->xoff_at = xoff;
        pause_upstream (in, prio);
    }
    return fits;
}

gboolean
weft_pfc_on_arrival (WeftPort *in, const WeftPacket *pkt)
{
    return weft_pfc_admit (in, pkt, in->pfc->cfg->xoff, G_MAXUINT64);
}

void
weft_pfc_on_depart (WeftPort *in, const WeftPacket *pkt)
{
    WeftPfcPort *pfc = in->pfc;
    guint prio = pkt->prio & 7u;
    WeftPfcRx *rx = weft_pfc_rx (pfc, prio);
    g_assert (rx->used >= pkt->size);
    rx->used -= pkt->size;
    /* Static xoff: xon <= xoff, so this is xon. */
    if (pfc->xoff[prio] && rx->used <= MIN (pfc->cfg->xon, rx->xoff_at)) {
        pfc->xoff[prio] = FALSE;
        weft_timer_cancel (&pfc->refresh[prio]);
        send_pause (in, prio, 0);
    }
}

static void
on_expire (WeftSim *sim, void *target, WeftArg arg)
{
    weft_port_kick (target);
}

/* Watchdog drop action: the stormed priority's queue is discarded (each packet leaves the
 * switch's buffer as if sent, so its ingress count is released). */
static void
wd_drop_queue (WeftPort *port, guint prio)
{
    WeftPacketPool *pool = &port->owner->sim->pool;
    WeftPacket *pkt;
    while ((pkt = port->q[weft_port_pfc_class (prio)].head)) {
        pkt = weft_fifo_pop (&port->q[weft_port_pfc_class (prio)]);
        port->q_bytes -= pkt->size;
        port->drops++;
        port->s_drops++;
        port->drops_data += pkt->kind == WEFT_PKT_DATA;
        port->pfc->wd_dropped++;
        if (port->on_depart)
            port->on_depart (port->owner, port, pkt);
        weft_packet_release (pool, pkt);
    }
    port->q_mask &= ~(1u << weft_port_pfc_class (prio));
}

static void
on_poll (WeftSim *sim, void *target, WeftArg arg)
{
    WeftPort *port = target;
    WeftPfcPort *pfc = port->pfc;
    if (!weft_timer_fire (sim, &pfc->wd_poll, &port->sched, on_poll, port, arg))
        return;
    const WeftPfcConfig *cfg = pfc->cfg;
    weft_time_t now = sim->now;
    gboolean again = FALSE;
    for (guint p = 0; p < WEFT_PFC_PRIOS; p++) {
        if (weft_port_pfc_stormed (port, p)) {
            if (now >= pfc->storm_until[p]) {
                port->pfc_storm &= (guint8) ~(1u << p); /* restored */
                pfc->stuck[p] = 0;
            } else {
                if (cfg->watchdog == WEFT_PFC_WD_DROP)
                    wd_drop_queue (port, p);
                again = TRUE;
                continue;
            }
        }
        gboolean waiting =
            port->q[weft_port_pfc_class (p)].head || (port->pull && p == cfg->rdma_priority);
        if (pfc->until[p] > now && waiting) {
            again = TRUE;
            if (++pfc->stuck[p] >= cfg->wd_detect) {
                port->pfc_storm |= (guint8) (1u << p);
                pfc->storm_until[p] = now + cfg->wd_restore;
                pfc->storms++;
                g_info ("%s port %u priority %u: PFC storm, %s for %" G_GUINT64_FORMAT " ps",
                        port->owner->name, port->index + 1, p,
                        cfg->watchdog == WEFT_PFC_WD_DROP ? "dropping" : "ignoring pauses",
                        (guint64) cfg->wd_restore);
                if (cfg->watchdog == WEFT_PFC_WD_DROP)
                    wd_drop_queue (port, p);
                weft_port_kick (port);
            }
        } else {
            pfc->stuck[p] = 0;
            again = again || pfc->until[p] > now;
        }
    }
    if (again)
        weft_timer_arm (sim, &pfc->wd_poll, &port->sched, cfg->wd_poll, on_poll, port, 0);
}

/* The PAUSE's response delay is over: (re)load or clear the pause timer of its priority. */
static void
on_apply (WeftSim *sim, void *target, WeftArg arg)
{
    WeftPort *port = target;
    WeftPfcPort *pfc = port->pfc;
    guint prio = (guint) (arg.u & 0xff);
    guint64 quanta = arg.u >> 8;
    weft_time_t now = sim->now;
    if (pfc->until[prio] > pfc->since[prio])
        pfc->paused_ps[prio] += MIN (pfc->until[prio], now) - pfc->since[prio];
    pfc->since[prio] = now;
    pfc->until[prio] = now + (quanta ? weft_pfc_quanta_ps (quanta, pfc->rate_bps) : 0);
    /* until[prio] lies ahead only after a PAUSE with a pause time; a resume sets it to now. */
    if (quanta)
        port->pfc_paused |= (guint8) (1u << prio);
    else
        port->pfc_paused &= (guint8) ~(1u << prio);
    /* One expiry event per PAUSE applied, not a WeftTimer: a refresh extends `until` and an
     * earlier expiry's kick is harmless, but a timer that kept one event would schedule fewer
     * and move the port's tie-break counter, and with it every later tie. */
    if (quanta)
        weft_sim_schedule_at (sim, &port->sched, pfc->until[prio], on_expire, port, (WeftArg){ 0 });
    else
        weft_port_kick (port);
    /* The watchdog polls while a priority is paused (arming a pending timer does nothing). */
    if (quanta && pfc->cfg->watchdog != WEFT_PFC_WD_OFF)
        weft_timer_arm (sim, &pfc->wd_poll, &port->sched, pfc->cfg->wd_poll, on_poll, port, 0);
}

void
weft_pfc_on_pause (WeftPort *port, WeftPacket *pause)
{
    WeftPfcPort *pfc = port->pfc;
    WeftSim *sim = port->owner->sim;
    pfc->n[pause->prio & 7u].pauses_received += pause->seq != 0;
    weft_sim_schedule_at (sim, &port->sched,
                          sim->now + weft_pfc_quanta_ps (pfc->cfg->response, pfc->rate_bps),
                          on_apply, port, (WeftArg){ .u = (pause->prio & 7u) | pause->seq << 8 });
    weft_packet_release (&sim->pool, pause);
}

/* ---- the mechanism (models/registry.h) ------------------------------------------------- */

/* Besides [pfc] itself: RoCE's traffic classes are its 802.1p priorities. */
static gboolean
pfc_configure (WeftMechEnv *env, const WeftExperiment *exp, GError **error)
{
    WeftFabric *fab = env->fabric;
    if (!weft_pfc_config_read (&fab->pfc, exp, error))
        return FALSE;
    fab->data_prio = fab->ack_prio = (guint8) fab->pfc.rdma_priority;
    fab->cnp_prio = (guint8) fab->pfc.cnp_priority;
    return TRUE;
}

/* Every RoCE port counts its priorities (pauses received, time paused) and gets headroom for
 * the data it receives: a packet is handled a switch's forwarding latency after it arrives
 * (the PAUSE too, at the other end), so the round trip is both cable delays plus both
 * latencies.  With PFC on, fabric switches account each packet to its (input port,
 * priority). */
static gboolean
pfc_setup (WeftMechEnv *env, const WeftExperiment *exp, GError **error)
{
    const WeftFabric *fab = env->fabric;
    for (guint i = 0; i < env->ports->len; i++) {
        WeftPort *port = env->ports->pdata[i];
        const WeftLink *l = weft_graph_link (env->graph, port->link.link_id);
        weft_time_t one_way =
            l->delay_ps +
            (env->node_latency[port->owner->node] + env->node_latency[port->link.peer->node]) / 2;
        port->pfc = weft_pfc_port_new (&port->owner->sim->arena);
        port->pfc->cfg = &fab->pfc;
        port->pfc->hot_prio = (guint8) (fab->pfc.rdma_priority & 7u);
        port->pfc->rate_bps = l->rate_bps;
        port->pfc->headroom =
            weft_pfc_headroom (&fab->pfc, l->rate_bps, one_way, fab->mtu + fab->header);
    }
    for (guint i = 0; fab->pfc.enabled && i < env->switches->len; i++) {
        WeftSwitch *sw = env->switches->pdata[i];
        if (!sw->internal)
            weft_switch_enable_pfc (sw);
    }
    return TRUE;
}

static gboolean
pfc_check (const WeftMechEnv *env, const WeftExperiment *exp, GError **error)
{
    const WeftPfcConfig *pfc = &env->fabric->pfc;
    if (!pfc->enabled)
        return TRUE;
    const WeftSwitch *sw = weft_switch_first_fabric (env->switches);
    if (pfc->xoff_dynamic && (!sw || sw->buffer_cfg.sharing == WEFT_BUFFER_NONE))
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_VALUE, "pfc", "xoff",
                                     "dynamic needs a shared buffer: set [switch] "
                                     "buffer_sharing = static or dynamic");
    /* A PAUSE is refreshed every quanta / 2 (quanta x 32 B of wire time) while its ingress
     * stays above xoff: refreshed more often than a data frame takes to send, PAUSE frames
     * outnumber the data they pause and the run's cost goes into them (quanta = 1 simulates
     * under a microsecond per wall minute). */
    guint64 frame = env->fabric->mtu + env->fabric->header, min_quanta = (frame + 31) / 32;
    if (pfc->quanta < min_quanta)
        return weft_experiment_fail (
            exp, error, WEFT_CONFIG_ERROR_RANGE, "pfc", "quanta",
            "%" G_GUINT64_FORMAT
            " is too short: a PAUSE is refreshed every quanta / 2 (%" G_GUINT64_FORMAT
            " B of wire time) while the ingress stays above xoff, more often than one %" G_GUINT64_FORMAT
            " B data frame takes to send, so PAUSE frames would outnumber the data and the run "
            "slow down as much; expected at least %" G_GUINT64_FORMAT
            " (one frame between refreshes)",
            pfc->quanta, pfc->quanta * 32, frame, min_quanta);
    /* The PFC watchdog must get the chance to break a deadlock before the hang watchdog
     * declares the run hung. */
    weft_time_t hang = env->sim->hang_timeout;
    if (pfc->watchdog != WEFT_PFC_WD_OFF && hang && hang <= pfc->wd_poll * pfc->wd_detect) {
        g_autofree char *h = weft_units_format_time (hang);
        g_autofree char *detect = weft_units_format_time (pfc->wd_poll * pfc->wd_detect);
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_RANGE, "experiment",
                                     "hang_timeout",
                                     "%s is not longer than the PFC watchdog's detection time "
                                     "(%s = watchdog_poll x watchdog_detect): a deadlock would "
                                     "be called a hang before the watchdog could break it",
                                     h, detect);
    }
    return TRUE;
}

/* /pfc: per port and priority, what happened in the interval. */
static void
pfc_sample (const WeftMechEnv *env, weft_time_t now)
{
    for (guint i = 0; i < env->ports->len; i++) {
        WeftPort *p = env->ports->pdata[i];
        /* Across ranks: this rank's own ports, in one process's order (sim/trace.h). */
        if (!weft_sim_owns (env->sim, p->owner->node))
            continue;
        weft_trace_set_order (env->trace, i);
        for (guint prio = 0; prio < WEFT_PFC_PRIOS; prio++) {
            WeftTracePfcSample row;
            if (!weft_pfc_sample (p->pfc, prio, now, &row))
                continue;
            row.node = p->owner->node;
            row.port = p->index + 1;
            row.link = p->link.link_id;
            weft_trace_append_pfc_sample (env->trace, &row);
        }
    }
}

/* /ports: paused time is this port's PortXmitWait; violations its lossless drops. */
static void
pfc_port_row (const WeftMechEnv *env, const WeftPort *p, WeftTracePort *row)
{
    row->xmit_wait_ps = weft_pfc_paused_total (p->pfc, env->sim->now);
    row->lossless_drops = weft_pfc_counts_total (p->pfc).violations;
}

static void
pfc_count (const WeftMechEnv *env, WeftNetworkStats *st)
{
    for (guint i = 0; i < env->ports->len; i++) {
        const WeftPfcPort *pfc = ((const WeftPort *) env->ports->pdata[i])->pfc;
        WeftPfcCounts n = weft_pfc_counts_total (pfc);
        st->pfc_pauses_sent += n.pauses_sent;
        st->pfc_resumes_sent += n.resumes_sent;
        st->pfc_pauses_received += n.pauses_received;
        st->pfc_paused_ps += weft_pfc_paused_total (pfc, env->sim->now);
        st->pfc_violations += n.violations;
        st->pfc_storms += pfc->storms;
        st->pfc_wd_dropped += pfc->wd_dropped;
    }
}

static void
pfc_line (const WeftPfcConfig *pfc, const WeftNetworkStats *st, GString *out)
{
    if (!pfc->enabled) {
        g_string_append (out, "  pfc          off\n");
        return;
    }
    g_autofree char *paused = weft_units_format_human_time (st->pfc_paused_ps);
    g_string_append_printf (out,
                            "  pfc          %" G_GUINT64_FORMAT " pauses sent (%" G_GUINT64_FORMAT
                            " received), %" G_GUINT64_FORMAT " resumes; paused %s summed over "
                            "ports; lossless violations %" G_GUINT64_FORMAT "%s\n",
                            st->pfc_pauses_sent, st->pfc_pauses_received, st->pfc_resumes_sent,
                            paused, st->pfc_violations,
                            st->pfc_violations ? " (headroom too small)" : "");
}

static void
pfc_summary (const WeftMechEnv *env, const WeftNetworkStats *st, GString *out)
{
    const WeftPfcConfig *pfc = &env->fabric->pfc;
    pfc_line (pfc, st, out);
    if (pfc->enabled && pfc->watchdog != WEFT_PFC_WD_OFF)
        g_string_append_printf (out,
                                "  pfc watchdog %" G_GUINT64_FORMAT " storms, %" G_GUINT64_FORMAT
                                " packets dropped\n",
                                st->pfc_storms, st->pfc_wd_dropped);
}

/* From /pfc: the intervals' counts add up to the run's (the storms and the watchdog's drops
 * are not in the trace). */
static void
pfc_report (const WeftFabric *fabric, const WeftTraceTables *t, GString *out)
{
    if (fabric->pfc.enabled && !t->pfc)
        return;
    WeftNetworkStats st = { 0 };
    for (guint i = 0; i < t->pfc->len; i++) {
        const WeftTracePfcSample *r = &g_array_index (t->pfc, WeftTracePfcSample, i);
        st.pfc_pauses_sent += r->pauses_sent;
        st.pfc_resumes_sent += r->resumes_sent;
        st.pfc_pauses_received += r->pauses_received;
        st.pfc_paused_ps += r->paused_ps;
        st.pfc_violations += r->violations;
    }
    pfc_line (&fabric->pfc, &st, out);
}

static void
pfc_clear (WeftMechEnv *env)
{
    weft_pfc_config_clear (&env->fabric->pfc);
}

const WeftMechanism weft_pfc_mechanism = {
    .name = "pfc",
    .group = "pfc",
    .help = "RoCE Priority Flow Control (802.1Qbb): priorities, xoff/xon, headroom, pause quanta",
    .params = weft_pfc_params,
    .fabrics = WEFT_FABRIC_BIT (WEFT_FABRIC_ROCE),
    .configure = pfc_configure,
    .setup = pfc_setup,
    .check = pfc_check,
    .sample = pfc_sample,
    .port_row = pfc_port_row,
    .count = pfc_count,
    .summary = pfc_summary,
    .report = pfc_report,
    .clear = pfc_clear,
};
