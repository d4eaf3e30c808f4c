#include "config.h"
#define G_LOG_DOMAIN "weft-uet"
#include "models/uet.h"

#include <string.h>

#include "models/registry.h"
#include "models/switch.h"
#include "sim/rng.h"

const WeftParamSpec weft_uet_params[] = {
    WEFT_PARAM_ENUM ("load_balance", WeftUet, load_balance, "oblivious",
                     "ecmp|oblivious|round-robin|bitmap|reps",
                     "entropy value (path) of each data packet: ecmp keeps the flow's own hash "
                     "(no spraying); oblivious draws one per packet; round-robin takes the pool "
                     "in turn; bitmap as round-robin, skipping for a round the EVs that came "
                     "back marked or trimmed; reps reuses the EVs acknowledged unmarked, "
                     "explores at random when none waits and retires the EVs of the packets "
                     "a timeout finds out"),
    WEFT_PARAM_UINT ("ev_pool", WeftUet, ev_pool, "64", "1", "65536",
                     "entropy values a flow sprays over (each one a path through the switches' "
                     "ECMP hash)"),
    WEFT_PARAM_ENUM ("delivery", WeftUet, delivery, "rud", "rud|rod",
                     "packet delivery: rud (reliable unordered: any order, selective ACKs and "
                     "retransmissions) or rod (reliable ordered: go-back-N, for comparison)"),
    WEFT_PARAM_BOOL ("trimming", WeftUet, trimming, "true",
                     "fabric switches cut a data packet that would overflow its egress queue to "
                     "trim_header bytes and send it ahead of data; the receiver NACKs it at once"),
    WEFT_PARAM_BYTES ("trim_header", WeftUet, trim_header, "64B", "1B", "9000B",
                      "wire bytes of a trimmed packet (at most the MTU)"),
    WEFT_PARAM_BOOL ("link_credits", WeftUet, link_credits, "false",
                     "link-level credit-based flow control on every link (InfiniBand's credit "
                     "machinery, one lane, 64-byte credits): a port sends only what the "
                     "receiving port's credit_buffer can hold, so nothing is dropped nor "
                     "trimmed; switches buffer per input port, [switch] buffer is not used"),
    WEFT_PARAM_BYTES ("credit_buffer", WeftUet, credit_buffer, "256KiB", "8KiB", "1GiB",
                      "with link_credits: the buffer each receiving port advertises to its peer "
                      "(at least two packets)"),
    WEFT_PARAM_BOOL ("llr", WeftUet, llr, "false",
                     "link-level retry: a frame corrupted by a link's bit errors ([fault.NAME] "
                     "kind = bit-errors) is replayed by the link instead of being lost to the "
                     "transport"),
    WEFT_PARAM_ENUM ("llr_mode", WeftUet, llr_mode, "go-back-n", "go-back-n|selective",
                     "with llr: go-back-n replays the corrupted frame and every frame sent "
                     "after it until the replay (the receiver discards them), as UE 1.0's "
                     "link-level retry is described; selective replays the corrupted frame "
                     "alone"),
    WEFT_PARAM_TIME ("llr_delay", WeftUet, llr_delay, "1us", "1ns", "1ms",
                     "with llr: from a corrupted frame's end to its replay (the receiver's "
                     "request travelling back); weft's default, unverified"),
    WEFT_PARAM_BOOL ("packet_timers", WeftUet, packet_timers, "false",
                     "rud: time every packet from when it left (UEC's htsim's per-packet "
                     "retransmission timeout) instead of the flow's timer that every fresh ACK "
                     "restarts; off by default until the defaults below meet the Ultra Ethernet "
                     "figures (doc/ultra-ethernet.md)"),
    WEFT_PARAM_TIME (
        "rto_floor", WeftUet, rto_floor, WEFT_PARAM_DERIVED, "1ns", "100s",
        "derived: 15 us + 6 x [switch] buffer drained at the flow's NIC rate (UEC's "
        "htsim sets its per-packet timeout so, in main_uec.cpp); packet_timers: a packet still "
        "out this long after it left (or [transport]'s RTO from measured RTTs, "
        "when longer) is taken for lost and sent again, whatever other packets of "
        "its flow are acknowledged meanwhile; the floor keeps a packet that waits "
        "in full queues from timing out"),
    WEFT_PARAM_TIME ("reps_probe_after", WeftUet, reps_probe_after, "10ms", "1ns", "100s",
                     "reps: every period this long, one silent EV (acknowledged before, or "
                     "retired, but not acknowledged unmarked in the period) gets a probe packet; "
                     "when a probe comes back unmarked, every silent EV gets one at once: a "
                     "restored path is found again; 10 ms is UEC's htsim's freezing time "
                     "(weft's rule, unverified against REPS and UE 1.0)"),
    WEFT_PARAM_END,
};

/* ---- entropy values: one function per policy ------------------------------------------- */

static void
note_used (WeftUetFlow *uf, guint16 ev)
{
    if (!weft_uet_bit (uf->ev_used, ev)) {
        weft_uet_bit_set (uf->ev_used, ev);
        uf->evs_used++;
    }
}

/* A uniform draw per packet: a hash of (seed, flow, packet count), so no stream is shared. */
static guint16
pick_oblivious (const WeftUet *cfg, WeftUetFlow *uf, guint32 flow_hash)
{
    guint64 x = weft_mix64 (cfg->seed ^ ((guint64) flow_hash << 32) ^ uf->tx_count);
    return (guint16) (x % cfg->ev_pool);
}

static guint16
pick_round_robin (const WeftUet *cfg, WeftUetFlow *uf, guint32 flow_hash)
{
    guint16 ev = (guint16) uf->rr_next;
    uf->rr_next = (guint32) ((uf->rr_next + 1) % cfg->ev_pool);
    return ev;
}

/* Round-robin, skipping the EVs marked bad once (their bit clears as they are skipped). */
static guint16
pick_bitmap (const WeftUet *cfg, WeftUetFlow *uf, guint32 flow_hash)
{
    for (guint64 i = 0; i < cfg->ev_pool; i++) {
        guint16 ev = pick_round_robin (cfg, uf, flow_hash);
        if (!weft_uet_bit (uf->ev_bad, ev))
            return ev;
        weft_uet_bit_clear (uf->ev_bad, ev);
    }
    return pick_round_robin (cfg, uf, flow_hash);
}

/* REPS exploration: a uniform draw, moved on to the next EV not retired (a retired EV's share
 * goes to its successor: a slight bias, the price of one draw per packet). */
static guint16
explore_reps (const WeftUet *cfg, WeftUetFlow *uf, guint32 flow_hash)
{
    guint16 ev = pick_oblivious (cfg, uf, flow_hash);
    if (uf->evs_retired == 0)
        return ev;
    while (weft_uet_bit (uf->ev_retired, ev))
        ev = (guint16) ((ev + 1) % cfg->ev_pool);
    return ev;
}

/* The next EV due for a probe at or after the cursor; a retired one is reinstated. */
static guint16
probe_reps (const WeftUet *cfg, WeftUetFlow *uf)
{
    guint16 ev = (guint16) (uf->probe_next % cfg->ev_pool);
    while (!weft_uet_bit (uf->ev_probe, ev))
        ev = (guint16) ((ev + 1) % cfg->ev_pool);
    weft_uet_bit_clear (uf->ev_probe, ev);
    uf->probes_due--;
    uf->probe_next = (guint32) ((ev + 1) % cfg->ev_pool);
    weft_uet_bit_set (uf->ev_probed, ev);
    if (weft_uet_bit (uf->ev_retired, ev)) {
        weft_uet_bit_clear (uf->ev_retired, ev);
        uf->evs_retired--;
    }
    uf->probes++;
    return ev;
}

/* REPS: a probe when some are due, else the oldest EV acknowledged unmarked and not retired
 * since, else exploration. */
static guint16
pick_reps (const WeftUet *cfg, WeftUetFlow *uf, guint32 flow_hash)
{
    if (uf->probes_due > 0)
        return probe_reps (cfg, uf);
    if (uf->explore_due > 0) {
        uf->explore_due--;
        return explore_reps (cfg, uf, flow_hash);
    }
    while (uf->reps_n > 0) {
        guint16 ev = uf->reps[uf->reps_head];
        uf->reps_head = (guint32) ((uf->reps_head + 1) % cfg->ev_pool);
        uf->reps_n--;
        if (!weft_uet_bit (uf->ev_retired, ev))
            return ev;
    }
    return explore_reps (cfg, uf, flow_hash);
}

guint16
weft_uet_pick_ev (const WeftUet *cfg, WeftUetFlow *uf, guint32 flow_hash, guint64 seq)
{
    guint16 ev = 0;
    switch (cfg->load_balance) {
    case WEFT_UET_LB_ECMP:
        ev = 0;
        break;
    case WEFT_UET_LB_OBLIVIOUS:
        ev = pick_oblivious (cfg, uf, flow_hash);
        break;
    case WEFT_UET_LB_ROUND_ROBIN:
        ev = pick_round_robin (cfg, uf, flow_hash);
        break;
    case WEFT_UET_LB_BITMAP:
        ev = pick_bitmap (cfg, uf, flow_hash);
        break;
    case WEFT_UET_LB_REPS:
        ev = pick_reps (cfg, uf, flow_hash);
        uf->sent_ev[seq] = ev;
        break;
    default:
        g_assert_not_reached ();
    }
    uf->tx_count++;
    note_used (uf, ev);
    return ev;
}

static void
reinstate (WeftUetFlow *uf, guint16 ev)
{
    if (uf->evs_retired > 0 && weft_uet_bit (uf->ev_retired, ev)) {
        weft_uet_bit_clear (uf->ev_retired, ev);
        uf->evs_retired--;
    }
}

void
weft_uet_ev_feedback (const WeftUet *cfg, WeftUetFlow *uf, guint16 ev, gboolean congested)
{
    if (cfg->load_balance == WEFT_UET_LB_BITMAP) {
        if (congested)
            weft_uet_bit_set (uf->ev_bad, ev);
    } else if (cfg->load_balance == WEFT_UET_LB_REPS && !congested) {
        /* The path works (again): reuse it. */
        weft_uet_bit_set (uf->ev_seen, ev);
        weft_uet_bit_set (uf->ev_alive, ev);
        if (weft_uet_bit (uf->ev_probed, ev)) {
            /* A silent path answered its probe: the paths changed.  Forget what was learnt
             * (the EVs waiting for reuse, the retired ones, the probes due) and explore
             * afresh - the next WEFT_UET_REPS_EXPLORE packets on uniform draws whatever waits
             * for reuse - as UEC's htsim's REPS does when it leaves its freezing mode. */
            gsize bytes = (cfg->ev_pool + 7) / 8;
            memset (uf->ev_probed, 0, bytes);
            memset (uf->ev_probe, 0, bytes);
            memset (uf->ev_retired, 0, bytes);
            uf->probes_due = 0;
            uf->evs_retired = 0;
            uf->reps_n = 0;
            uf->explore_due = WEFT_UET_REPS_EXPLORE;
            uf->resets++;
            return;
        }
        reinstate (uf, ev);
        if (uf->reps_n < cfg->ev_pool) {
            uf->reps[(uf->reps_head + uf->reps_n) % cfg->ev_pool] = ev;
            uf->reps_n++;
        }
    }
}

/* A packet out and unacknowledged when the timer ran out took a path that failed it (a dead or
 * silently dropping link, or a queue that overflowed without trimming): retire its EV.  Packets
 * already marked lost (trimmed, or out at an earlier timeout) were judged then.  The ring of
 * EVs to reuse is kept, minus the retired ones (pick_reps skips them): they came back since. */
void
weft_uet_ev_timeout (const WeftUet *cfg, WeftUetFlow *uf, guint64 snd_una, guint64 snd_nxt)
{
    if (cfg->load_balance != WEFT_UET_LB_REPS)
        return;
    for (guint64 s = snd_una; s < snd_nxt; s++) {
        if (weft_uet_bit (uf->acked, s) || weft_uet_bit (uf->lost, s))
            continue;
        guint16 ev = uf->sent_ev[s];
        if (!weft_uet_bit (uf->ev_retired, ev)) {
            weft_uet_bit_set (uf->ev_retired, ev);
            uf->evs_retired++;
            uf->evs_retires++;
        }
    }
    if (uf->evs_retired == cfg->ev_pool) {
        /* Every path failed: nothing to learn from, start afresh. */
        memset (uf->ev_retired, 0, (cfg->ev_pool + 7) / 8);
        uf->evs_retired = 0;
    }
}

/* Makes up to @max silent EVs (alive or retired before, not acknowledged unmarked in the
 * current period, not already due) due for a probe, from the cursor on. */
static void
mark_silent (const WeftUet *cfg, WeftUetFlow *uf, guint32 max)
{
    guint32 n = 0;
    for (guint64 i = 0; i < cfg->ev_pool && n < max; i++) {
        guint64 ev = (uf->probe_next + i) % cfg->ev_pool;
        if ((weft_uet_bit (uf->ev_alive, ev) || weft_uet_bit (uf->ev_retired, ev)) &&
            !weft_uet_bit (uf->ev_seen, ev) && !weft_uet_bit (uf->ev_probe, ev)) {
            weft_uet_bit_set (uf->ev_probe, ev);
            uf->probes_due++;
            n++;
        }
    }
}

void
weft_uet_reps_tick (const WeftUet *cfg, WeftUetFlow *uf, weft_time_t now)
{
    if (cfg->load_balance != WEFT_UET_LB_REPS)
        return;
    if (!uf->probe_armed) { /* the flow's first packet: the first period starts */
        uf->probe_armed = TRUE;
        uf->probe_at = now + cfg->reps_probe_after;
        return;
    }
    if (now < uf->probe_at)
        return;
    /* A period has passed: one silent EV is due for a probe. */
    gsize bytes = (cfg->ev_pool + 7) / 8;
    mark_silent (cfg, uf, 1);
    memset (uf->ev_seen, 0, bytes);
    uf->probe_at = now + cfg->reps_probe_after;
}

void
weft_uet_trace_flow (const WeftUetFlow *uf, WeftTraceFlow *row)
{
    row->trims = uf->trims_rx;
    row->nacks = uf->nacks;
    row->evs_used = uf->evs_used;
    row->window_decreases = uf->cc.decreases;
    row->quick_adapts = uf->cc.quick_adapts;
}

weft_time_t
weft_uet_rto_floor (const WeftUet *cfg, guint64 rate_bps)
{
    if (cfg->rto_floor)
        return cfg->rto_floor;
    return WEFT_US (15) + 6 * weft_time_serialize (cfg->switch_buffer, MAX (rate_bps, 1));
}

void
weft_uet_flow_clear (WeftUetFlow *uf)
{
    g_clear_pointer (&uf->acked, g_free);
    g_clear_pointer (&uf->lost, g_free);
    g_clear_pointer (&uf->sent_at, g_free);
    g_clear_pointer (&uf->tx, g_free);
    uf->tx_n = uf->tx_cap = uf->tx_head = 0;
    g_clear_pointer (&uf->ev_bad, g_free);
    g_clear_pointer (&uf->reps, g_free);
    g_clear_pointer (&uf->sent_ev, g_free);
    g_clear_pointer (&uf->ev_retired, g_free);
    g_clear_pointer (&uf->ev_seen, g_free);
    g_clear_pointer (&uf->ev_probe, g_free);
    g_clear_pointer (&uf->ev_alive, g_free);
    g_clear_pointer (&uf->ev_probed, g_free);
    g_clear_pointer (&uf->ev_used, g_free);
    g_clear_pointer (&uf->rcvd, g_free);
}

/* ---- the mechanism (models/registry.h) ------------------------------------------------- */

/* ECN thresholds on this fabric when [ecn] says nothing: a fifth and four fifths of the
 * default 1 MiB egress buffer, marking surely above (weft's choice; doc/ultra-ethernet.md). */
#define UET_ECN_KMIN (200 * 1024)
#define UET_ECN_KMAX (800 * 1024)

/* The credit machinery's configuration for UE links: one lane (every SL on VL 0, served by
 * one arbitration entry), 64-byte credits as on InfiniBand, credit_buffer at every receiving
 * port, no shared pool. */
static gboolean
credits_configure (WeftUet *uet, const WeftFabric *fab, const WeftExperiment *exp, GError **error)
{
    WeftIbConfig *c = &uet->credits;
    c->vls = 1;
    c->credit_unit = 64;
    c->header = fab->header;
    c->fc_bytes = 64;
    c->n_low = 1;
    c->low[0] = (WeftIbArbEntry){ 0, 255 };
    guint32 buf = (guint32) MIN (uet->credit_buffer / c->credit_unit, G_MAXUINT32 / 2);
    c->buffer_credits = c->hca_credits = c->internal_credits = buf;
    c->max_packet_credits = weft_ib_credits (c, (guint32) (fab->mtu + fab->header));
    if (buf < 2 * c->max_packet_credits)
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_RANGE, "uet", "credit_buffer",
                                     "holds %u credits, less than two %u-credit packets (mtu + "
                                     "header): expected at least %" G_GUINT64_FORMAT "B",
                                     buf, c->max_packet_credits,
                                     2 * c->max_packet_credits * c->credit_unit);
    return TRUE;
}

static gboolean
uet_configure (WeftMechEnv *env, const WeftExperiment *exp, GError **error)
{
    WeftFabric *fab = env->fabric;
    WeftUet *uet = &fab->uet;
    WeftParamBinding b = { weft_uet_params, uet };
    if (!weft_params_read (exp, "uet", &b, 1, error))
        return FALSE;
    uet->enabled = TRUE;
    /* No sim when `weft report` rebuilds the configuration from a trace. */
    if (env->sim)
        uet->seed = weft_mix64 (env->sim->seed ^ G_GUINT64_CONSTANT (0x0e7));
    if (uet->trim_header > fab->mtu)
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_RANGE, "uet", "trim_header",
                                     "%" G_GUINT64_FORMAT "B is larger than the MTU ([fabric] "
                                     "mtu = %" G_GUINT64_FORMAT "B)",
                                     uet->trim_header, fab->mtu);
    if (g_key_file_has_key (weft_experiment_keyfile (exp), "transport", "recovery", NULL))
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_UNKNOWN_KEY, "transport",
                                     "recovery",
                                     "not used with [fabric] kind = ultra-ethernet: [uet] "
                                     "delivery chooses rud or rod");
    if (uet->link_credits && !credits_configure (uet, fab, exp, error))
        return FALSE;
    /* ECN marking is NSCC's input: on unless [ecn] enabled = false. */
    if (!weft_ecn_read (&fab->ecn, UET_ECN_KMIN, UET_ECN_KMAX, 1.0, exp, error))
        return FALSE;
    if (!g_key_file_has_key (weft_experiment_keyfile (exp), "ecn", "enabled", NULL))
        fab->ecn.enabled = TRUE;
    return TRUE;
}

/* Trimming at the fabric switches with per-port tail-drop buffers. */
static gboolean
uet_setup (WeftMechEnv *env, const WeftExperiment *exp, GError **error)
{
    WeftUet *uet = &env->fabric->uet;
    env->tp->uet = uet;
    env->tp->spray = uet;
    /* The per-packet timeout's floor is derived from the fabric switches' egress buffer. */
    const WeftSwitch *sw0 = weft_switch_first_fabric (env->switches);
    uet->switch_buffer = sw0 ? sw0->buffer_bytes : 0;
    for (guint i = 0; uet->llr && i < env->ports->len; i++) {
        WeftPort *port = env->ports->pdata[i];
        port->llr_delay_ps = uet->llr_delay;
        port->llr_go_back_n = uet->llr_mode == WEFT_UET_LLR_GO_BACK_N;
    }
    if (uet->link_credits) {
        const WeftSwitch *first = weft_switch_first_fabric (env->switches);
        if (first && first->buffer_cfg.sharing != WEFT_BUFFER_NONE)
            return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_UNSUPPORTED, "uet",
                                         "link_credits",
                                         "credits stand for per-input-port buffers: not with "
                                         "[switch] buffer_sharing");
        /* Every port spends its peer's credits and advertises its own buffer. */
        for (guint i = 0; i < env->ports->len; i++) {
            WeftPort *p = env->ports->pdata[i];
            p->ib = weft_ib_port_new (&p->owner->sim->arena, &uet->credits,
                                      uet->credits.buffer_credits, uet->credits.buffer_credits);
        }
        weft_ports_pair_credits (env->ports);
        /* As on InfiniBand, the buffer is the input port's: an output queue holds at most what
         * its inputs' credits admitted, so it is not capped (and nothing is trimmed). */
        for (guint i = 0; i < env->switches->len; i++) {
            WeftSwitch *sw = env->switches->pdata[i];
            for (guint p = 0; p < sw->n_ports; p++)
                sw->ports[p].cap_bytes = G_MAXUINT64;
            weft_switch_enable_credits (sw);
        }
    }
    if (!uet->trimming)
        return TRUE;
    for (guint i = 0; i < env->switches->len; i++) {
        WeftSwitch *sw = env->switches->pdata[i];
        if (sw->internal)
            continue;
        sw->trim_bytes = (guint32) uet->trim_header;
        /* Its allowance for headers holds the acknowledgements too: a NACK dropped at a full
         * queue would leave its trimmed packet to a retransmission timeout. */
        for (guint p = 0; p < sw->n_ports; p++)
            sw->ports[p].header_room = TRUE;
    }
    return TRUE;
}

static void
uet_count (const WeftMechEnv *env, WeftNetworkStats *st)
{
    for (guint i = 0; i < env->ports->len; i++)
        st->uet_trims += ((const WeftPort *) env->ports->pdata[i])->trims;
    for (guint i = 0; env->tp->uet_flows && i < env->tp->n_flows; i++)
        st->uet_nacks += env->tp->uet_flows[i].nacks;
}

/* /ports trims: the port's share of its row. */
static void
uet_port_row (const WeftMechEnv *env, const WeftPort *port, WeftTracePort *row)
{
    row->trims = port->trims;
    row->llr_replays = port->llr_replays;
}

/* /uet: each flow under way, its window, credit and counters. */
static void
uet_sample (const WeftMechEnv *env, weft_time_t now)
{
    const WeftTransport *tp = env->tp;
    for (guint i = 0; i < tp->active->len; i++) {
        const WeftFlow *f = &tp->flows[g_array_index (tp->active, guint32, i)];
        const WeftUetFlow *uf = f->uet;
        guint64 acked = f->snd_una;
        if (uf->rud && uf->acked)
            for (guint64 s = f->snd_una; s < f->snd_nxt; s++)
                acked += weft_uet_bit (uf->acked, s);
        WeftTraceUetSample row = { .time_ps = now,
                                   .flow = f->spec.id,
                                   .cwnd_bytes =
                                       env->fabric->uet.nscc.enabled ? (guint64) uf->cc.cwnd : 0,
                                   .credit_bytes = (guint64) MAX (uf->rccc.credit, 0) *
                                                   (env->fabric->mtu + env->fabric->header),
                                   .inflight = uf->rud ? uf->inflight : f->snd_nxt - f->snd_una,
                                   .acked = acked,
                                   .retransmits = weft_flow_loss_of (f)->retransmits,
                                   .nacks = uf->nacks,
                                   .evs_used = uf->evs_used };
        /* Across ranks the sender's rank samples it; rows merge by flow id (sim/trace.h). */
        weft_trace_set_order (env->trace, f->spec.id);
        weft_trace_append_uet_sample (env->trace, &row);
    }
}

static const char *const lb_names[] = { "ecmp", "oblivious", "round-robin", "bitmap", "reps" };

/* One line for the run summary and `weft report`. */
static void
uet_line (const WeftUet *uet, const WeftNetworkStats *st, GString *out)
{
    g_string_append_printf (out,
                            "  uet          %s over %" G_GUINT64_FORMAT
                            " EVs, %s; %" G_GUINT64_FORMAT " trimmed, %" G_GUINT64_FORMAT
                            " NACKs, %" G_GUINT64_FORMAT " timeouts (trimming %s, nscc %s)\n",
                            lb_names[uet->load_balance], uet->ev_pool,
                            uet->delivery == WEFT_UET_RUD ? "rud" : "rod", st->uet_trims,
                            st->uet_nacks, st->timeouts, uet->trimming ? "on" : "off",
                            uet->nscc.enabled ? "on" : "off");
}

static void
uet_summary (const WeftMechEnv *env, const WeftNetworkStats *st, GString *out)
{
    uet_line (&env->fabric->uet, st, out);
    if (!env->fabric->uet.llr)
        return;
    guint64 replays = 0;
    for (guint i = 0; i < env->ports->len; i++)
        replays += ((const WeftPort *) env->ports->pdata[i])->llr_replays;
    g_string_append_printf (out, "  llr          %" G_GUINT64_FORMAT " frames replayed\n", replays);
}

/* From /ports (trims at the switches) and /flows (NACKs and timeouts at the senders). */
static void
uet_report (const WeftFabric *fabric, const WeftTraceTables *t, GString *out)
{
    if (!t->ports || !t->flows)
        return;
    WeftNetworkStats st = { 0 };
    for (guint i = 0; i < t->ports->len; i++)
        st.uet_trims += g_array_index (t->ports, WeftTracePort, i).trims;
    for (guint i = 0; i < t->flows->len; i++) {
        const WeftTraceFlow *f = &g_array_index (t->flows, WeftTraceFlow, i);
        st.uet_nacks += f->nacks;
        st.timeouts += f->timeouts;
    }
    uet_line (&fabric->uet, &st, out);
}

static void
uet_clear (WeftMechEnv *env)
{
    weft_params_clear (weft_uet_params, &env->fabric->uet);
    weft_ecn_clear (&env->fabric->ecn);
}

const WeftMechanism weft_uet_mechanism = {
    .name = "uet",
    .group = "uet",
    .help = "Ultra Ethernet transport: spraying over entropy values, RUD/ROD delivery, "
            "packet trimming",
    .params = weft_uet_params,
    .fabrics = WEFT_FABRIC_BIT (WEFT_FABRIC_ULTRA_ETHERNET),
    .configure = uet_configure,
    .setup = uet_setup,
    .sample = uet_sample,
    .port_row = uet_port_row,
    .count = uet_count,
    .summary = uet_summary,
    .report = uet_report,
    .clear = uet_clear,
};
