#include "config.h"
#define G_LOG_DOMAIN "weft-dcqcn"
#include "models/dcqcn.h"

#include "models/registry.h"

#include <math.h>

const WeftParamSpec weft_dcqcn_params[] = {
    WEFT_PARAM_BOOL ("enabled", WeftDcqcn, enabled, "true",
                     "DCQCN at the NICs (CNPs from receivers of ECN-marked packets, rate "
                     "control at senders); on by default on RoCE"),
    WEFT_PARAM_ENUM ("preset", WeftDcqcn, preset, "connectx", "paper|connectx|hpcc",
                     "the published parameter set every other key defaults to: paper "
                     "(SIGCOMM 2015, 40 GbE), connectx (NVIDIA NIC firmware defaults: what "
                     "runs unless tuned; the default) or hpcc (the HPCC paper's ns-3 setup, "
                     "scaled to the link rate); also sets the [ecn] thresholds"),
    WEFT_PARAM_TIME ("cnp_interval", WeftDcqcn, cnp_interval, "4us", "0ns", "1s",
                     "notification point: at least this between two CNPs of one flow; 0 "
                     "answers every marked packet (paper 50 us; ConnectX "
                     "min_time_between_cnps 4 us; hpcc 0)"),
    WEFT_PARAM_DOUBLE ("g", WeftDcqcn, g, "0.0048828125", "0", "1",
                       "alpha gain: alpha = (1 - g) alpha + g per alpha period with a CNP "
                       "(paper 1/256; ConnectX dce_tcp_g 1019 = 1 - 5/1024; hpcc 1/256)"),
    WEFT_PARAM_DOUBLE ("alpha_init", WeftDcqcn, alpha_init, "0.9990234375", "0", "1",
                       "alpha at a flow's first CNP (paper and hpcc 1; ConnectX "
                       "initial_alpha_value 1023/1024)"),
    WEFT_PARAM_TIME ("alpha_period", WeftDcqcn, alpha_period, "1us", "1ns", "1s",
                     "alpha is updated once per period: raised if a CNP arrived in it, "
                     "decayed by (1 - g) if not (paper 55 us; ConnectX dce_tcp_rtt 1 us)"),
    WEFT_PARAM_TIME ("rate_reduce_period", WeftDcqcn, rate_reduce_period, "4us", "0ns", "1s",
                     "the rate is cut at the end of each such period in which a CNP arrived; "
                     "0: at once on every CNP, as in the paper (ConnectX "
                     "rate_reduce_monitor_period 4 us)"),
    WEFT_PARAM_DOUBLE ("max_decrease", WeftDcqcn, max_decrease, "0.5", "0", "1",
                       "a cut lowers the rate by at most this fraction (ConnectX "
                       "rpg_min_dec_fac 50 %; paper 1: no floor)"),
    WEFT_PARAM_RATE ("min_rate", WeftDcqcn, min_rate, "1Mbps", "1bps", "10Tbps",
                     "the rate never drops below this (ConnectX rpg_min_rate 1 Mb/s; hpcc "
                     "1 Gb/s)"),
    WEFT_PARAM_BOOL ("clamp_target", WeftDcqcn, clamp_target, "false",
                     "a cut sets the target rate to the current rate every time (paper; "
                     "ConnectX clamp_tgt_rate = 1); false: only when the increase timer has "
                     "raised the rate since the last cut (ConnectX defaults clamp_tgt_rate = 0, "
                     "clamp_tgt_rate_after_time_inc = 1)"),
    WEFT_PARAM_TIME ("increase_timer", WeftDcqcn, increase_timer, "300us", "1ns", "1s",
                     "rate-increase timer period (paper 55 us; ConnectX rpg_time_reset 300 us)"),
    WEFT_PARAM_BYTES ("byte_counter", WeftDcqcn, byte_counter, "0B", "0B", "1TiB",
                      "bytes sent per byte-counter increase event; 0: no byte counter, the "
                      "timer alone (paper 10 MB; connectx and hpcc 0, as HPCC's model of the "
                      "NIC: see models/dcqcn.h on rpg_byte_reset)"),
    WEFT_PARAM_UINT ("fast_recovery", WeftDcqcn, fast_recovery, "1", "0", "1000",
                     "F: increase events of fast recovery before additive increase (paper 5; "
                     "ConnectX rpg_threshold 1)"),
    WEFT_PARAM_RATE ("rai", WeftDcqcn, rai, "5Mbps", "0bps", "10Tbps",
                     "additive increase step R_AI (paper 40 Mb/s; ConnectX 5 Mb/s; hpcc "
                     "5 Mb/s x line rate / 25 Gb/s)"),
    WEFT_PARAM_RATE ("rhai", WeftDcqcn, rhai, "50Mbps", "0bps", "10Tbps",
                     "hyper increase step R_HAI (paper 400 Mb/s, assumed; ConnectX 50 Mb/s; "
                     "hpcc 50 Mb/s x line rate / 25 Gb/s)"),
    WEFT_PARAM_END,
};

typedef struct {
    weft_time_t cnp_interval, alpha_period, rate_reduce_period, increase_timer;
    double g, alpha_init, max_decrease;
    guint64 min_rate, byte_counter, fast_recovery, rai, rhai;
    gboolean clamp_target;
    guint64 scale_ref_bps; /* R_AI, R_HAI and the ECN thresholds scale against it */
    guint64 kmin, kmax;
    double pmax;
} Preset;

#define G25 G_GUINT64_CONSTANT (25000000000)

static const Preset presets[] = {
    [WEFT_DCQCN_PAPER] = { .cnp_interval = WEFT_US (50),
                           .alpha_period = WEFT_US (55),
                           .rate_reduce_period = 0,
                           .increase_timer = WEFT_US (55),
                           .g = 1.0 / 256,
                           .alpha_init = 1.0,
                           .max_decrease = 1.0,
                           .min_rate = 1000000,
                           .byte_counter = 10000000,
                           .fast_recovery = 5,
                           .rai = 40000000,
                           .rhai = 400000000,
                           .clamp_target = TRUE,
                           .kmin = 5000,
                           .kmax = 200000,
                           .pmax = 0.01 },
    [WEFT_DCQCN_CONNECTX] = { .cnp_interval = WEFT_US (4),
                              .alpha_period = WEFT_US (1),
                              .rate_reduce_period = WEFT_US (4),
                              .increase_timer = WEFT_US (300),
                              .g = 5.0 / 1024,
                              .alpha_init = 1023.0 / 1024,
                              .max_decrease = 0.5,
                              .min_rate = 1000000,
                              .byte_counter = 0,
                              .fast_recovery = 1,
                              .rai = 5000000,
                              .rhai = 50000000,
                              .clamp_target = FALSE,
                              .kmin = 150000,
                              .kmax = 1500000,
                              .pmax = 1.0 },
    [WEFT_DCQCN_HPCC] = { .cnp_interval = 0,
                          .alpha_period = WEFT_US (1),
                          .rate_reduce_period = WEFT_US (4),
                          .increase_timer = WEFT_US (300),
                          .g = 1.0 / 256,
                          .alpha_init = 1.0,
                          .max_decrease = 1.0,
                          .min_rate = 1000000000,
                          .byte_counter = 0,
                          .fast_recovery = 1,
                          .rai = 5000000,
                          .rhai = 50000000,
                          .clamp_target = FALSE,
                          .scale_ref_bps = G25,
                          .kmin = 100000,
                          .kmax = 400000,
                          .pmax = 0.2 },
};

gboolean
weft_dcqcn_read (WeftDcqcn *cc, WeftEcn *ecn, const WeftExperiment *exp, GError **error)
{
    WeftParamBinding b = { weft_dcqcn_params, cc };
    if (!weft_params_read (exp, "dcqcn", &b, 1, error))
        return FALSE;
    const Preset *p = &presets[cc->preset];
    GKeyFile *kf = weft_experiment_keyfile (exp);
#define FROM_PRESET(key)                                                                           \
    if (!g_key_file_has_key (kf, "dcqcn", #key, NULL))                                             \
        cc->key = p->key;
    FROM_PRESET (cnp_interval);
    FROM_PRESET (g);
    FROM_PRESET (alpha_init);
    FROM_PRESET (alpha_period);
    FROM_PRESET (rate_reduce_period);
    FROM_PRESET (max_decrease);
    FROM_PRESET (min_rate);
    FROM_PRESET (clamp_target);
    FROM_PRESET (increase_timer);
    FROM_PRESET (byte_counter);
    FROM_PRESET (fast_recovery);
    FROM_PRESET (rai);
    FROM_PRESET (rhai);
#undef FROM_PRESET
    /* A step given in the file is taken as is; the preset's scale with the line rate. */
    cc->scale_ref_bps = p->scale_ref_bps;
    if (!weft_ecn_read (ecn, p->kmin, p->kmax, p->pmax, exp, error))
        return FALSE;
    if (!g_key_file_has_key (kf, "ecn", "kmin", NULL) &&
        !g_key_file_has_key (kf, "ecn", "kmax", NULL))
        ecn->scale_ref_bps = p->scale_ref_bps;
    if (g_key_file_has_key (kf, "dcqcn", "rai", NULL) ||
        g_key_file_has_key (kf, "dcqcn", "rhai", NULL))
        cc->scale_ref_bps = 0;
    return TRUE;
}

void
weft_dcqcn_clear (WeftDcqcn *cc)
{
    weft_params_clear (weft_dcqcn_params, cc);
}

static guint64
scaled (const WeftDcqcn *cc, guint64 v, guint64 line_bps)
{
    if (!cc->scale_ref_bps)
        return v;
    return (guint64) ((double) v * (double) line_bps / (double) cc->scale_ref_bps + 0.5);
}

void
weft_dcqcn_flow_init (const WeftDcqcn *cc, WeftDcqcnFlow *s, guint64 line_bps)
{
    s->line_bps = s->rc_bps = s->rt_bps = s->min_rc_bps = line_bps;
    s->alpha = cc->alpha_init;
    s->alpha_at = 0;
    s->active = FALSE;
    s->rai_bps = scaled (cc, cc->rai, line_bps);
    s->rhai_bps = scaled (cc, cc->rhai, line_bps);
}

gboolean
weft_dcqcn_np_on_ce (const WeftDcqcn *cc, WeftDcqcnFlow *s, weft_time_t now)
{
    s->ce_received++;
    if (s->cnps_sent > 0 && now < s->cnp_last + cc->cnp_interval)
        return FALSE;
    s->cnp_last = now;
    s->cnps_sent++;
    return TRUE;
}

/* The paper's alpha: decays once per whole alpha_period since its last update (a CNP
 * restarts that timer).  The firmware's periods without a CNP decay it the same way. */
static void
alpha_decay (const WeftDcqcn *cc, WeftDcqcnFlow *s, weft_time_t now)
{
    guint64 n = (now - s->alpha_at) / cc->alpha_period;
    if (n > 0) {
        s->alpha *= pow (1 - cc->g, (double) n);
        s->alpha_at += n * cc->alpha_period;
    }
}

/* Per-period alpha (the firmware's): brings alpha to the period that contains @now.  The
 * period that ended first raises alpha if a CNP arrived in it; every later whole period had
 * none and decays it.  Exact, and no event per flow per microsecond. */
static void
alpha_advance (const WeftDcqcn *cc, WeftDcqcnFlow *s, weft_time_t now)
{
    if (now < s->alpha_at + cc->alpha_period)
        return;
    s->alpha = (1 - cc->g) * s->alpha + (s->alpha_cnp ? cc->g : 0);
    s->alpha_cnp = FALSE;
    s->alpha_at += cc->alpha_period;
    alpha_decay (cc, s, now);
}

static void
cut (const WeftDcqcn *cc, WeftDcqcnFlow *s, weft_time_t now)
{
    double factor = MAX (1 - s->alpha / 2, 1 - cc->max_decrease);
    /* Without clamping, consecutive cuts keep the target the flow had before congestion, so
     * fast recovery heads back there; a timer increase since the last cut resets it. */
    if (cc->clamp_target || s->t_stage > 0)
        s->rt_bps = s->rc_bps;
    s->rc_bps = MAX ((guint64) ((double) s->rc_bps * factor), cc->min_rate);
    s->min_rc_bps = MIN (s->min_rc_bps, s->rc_bps);
    s->last_cut = now;
    s->cuts++;
    s->active = TRUE;
    s->t_stage = s->bc_stage = 0;
    s->bytes = 0;
    weft_timer_cancel (&s->increase);
}

WeftDcqcnAction
weft_dcqcn_on_cnp (const WeftDcqcn *cc, WeftDcqcnFlow *s, weft_time_t now)
{
    gboolean first = s->cnps_received++ == 0;
    if (cc->rate_reduce_period == 0) {
        /* The paper: every CNP cuts at once, then raises alpha and restarts its timer. */
        if (first)
            s->alpha_at = now; /* alpha holds alpha_init until the first CNP */
        alpha_decay (cc, s, now);
        cut (cc, s, now);
        s->alpha = (1 - cc->g) * s->alpha + cc->g;
        s->alpha_at = now;
        return WEFT_DCQCN_CUT;
    }
    /* The firmware: alpha and cut decisions on period grids that start at the first CNP;
     * that CNP sets alpha to alpha_init and starts both. */
    if (first) {
        s->first_cnp_at = s->alpha_at = now;
        s->alpha = cc->alpha_init;
        s->alpha_cnp = FALSE;
    } else {
        alpha_advance (cc, s, now);
        s->alpha_cnp = TRUE;
    }
    s->cut_pending = TRUE;
    return weft_timer_pending (&s->check) ? WEFT_DCQCN_NONE : WEFT_DCQCN_CHECK;
}

weft_time_t
weft_dcqcn_check_at (const WeftDcqcn *cc, const WeftDcqcnFlow *s, weft_time_t now)
{
    guint64 k = (now - s->first_cnp_at) / cc->rate_reduce_period + 1;
    return s->first_cnp_at + k * cc->rate_reduce_period;
}

gboolean
weft_dcqcn_on_check (const WeftDcqcn *cc, WeftDcqcnFlow *s, weft_time_t now)
{
    g_return_val_if_fail (!weft_timer_pending (&s->check), FALSE);
    if (!s->cut_pending)
        return FALSE;
    s->cut_pending = FALSE;
    alpha_advance (cc, s, now); /* the alpha period ending now counts, as in the firmware */
    cut (cc, s, now);
    return TRUE;
}

/* One rate-increase event; T and BC count the expiries since the last cut, this one
 * included, so the first F events are fast recovery. */
static void
increase (const WeftDcqcn *cc, WeftDcqcnFlow *s)
{
    const guint64 f = cc->fast_recovery;
    if (cc->byte_counter == 0) {
        /* The timer alone (HPCC's ns-3 model of the NIC): F events of fast recovery, one
         * additive, then hyper increase by R_HAI each. */
        if (s->t_stage == f + 1)
            s->rt_bps += s->rai_bps;
        else if (s->t_stage > f + 1)
            s->rt_bps += s->rhai_bps;
    } else {
        guint32 hi = MAX (s->t_stage, s->bc_stage), lo = MIN (s->t_stage, s->bc_stage);
        if (hi <= f) {
            /* fast recovery: halfway back to the target */
        } else if (lo > f) {
            s->rt_bps += (lo - f) * s->rhai_bps;
        } else {
            s->rt_bps += s->rai_bps;
        }
    }
    s->rt_bps = MIN (s->rt_bps, s->line_bps);
    s->rc_bps = MIN ((s->rt_bps + s->rc_bps + 1) / 2, s->line_bps);
    if (s->rc_bps == s->line_bps && s->rt_bps == s->line_bps)
        s->active = FALSE; /* back at line rate: nothing more to recover */
}

gboolean
weft_dcqcn_on_timer (const WeftDcqcn *cc, WeftDcqcnFlow *s)
{
    if (!s->active)
        return FALSE;
    s->t_stage++;
    increase (cc, s);
    return s->active;
}

void
weft_dcqcn_on_sent (const WeftDcqcn *cc, WeftDcqcnFlow *s, guint64 bytes)
{
    if (!s->active || cc->byte_counter == 0)
        return;
    s->bytes += bytes;
    while (s->active && s->bytes >= cc->byte_counter) {
        s->bytes -= cc->byte_counter;
        s->bc_stage++;
        increase (cc, s);
    }
}

/* ---- the mechanism (models/registry.h) ------------------------------------------------- */

static gboolean
dcqcn_configure (WeftMechEnv *env, const WeftExperiment *exp, GError **error)
{
    return weft_dcqcn_read (&env->fabric->dcqcn, &env->fabric->ecn, exp, error);
}

/* /dcqcn: each flow under way, its rates, alpha and counters. */
static void
dcqcn_sample (const WeftMechEnv *env, weft_time_t now)
{
    if (!env->fabric->dcqcn.enabled)
        return;
    const WeftTransport *tp = env->tp;
    for (guint i = 0; i < tp->active->len; i++) {
        const WeftFlow *f = &tp->flows[g_array_index (tp->active, guint32, i)];
        const WeftDcqcnFlow *d = f->dcqcn;
        WeftTraceDcqcnSample row = { .time_ps = now,
                                     .flow = f->spec.id,
                                     .rate_bps = d->rc_bps,
                                     .target_bps = d->rt_bps,
                                     .alpha = d->alpha,
                                     .cnps_received = d->cnps_received,
                                     .rate_cuts = d->cuts };
        /* Across ranks the sender's rank samples it; rows merge by flow id (sim/trace.h). */
        weft_trace_set_order (env->trace, f->spec.id);
        weft_trace_append_dcqcn_sample (env->trace, &row);
    }
}

static void
dcqcn_count (const WeftMechEnv *env, WeftNetworkStats *st)
{
    for (guint i = 0; env->tp->dcqcn_flows && i < env->tp->n_flows; i++) {
        const WeftDcqcnFlow *d = &env->tp->dcqcn_flows[i];
        st->cnps_sent += d->cnps_sent;
        st->cnps_received += d->cnps_received;
        st->dcqcn_cuts += d->cuts;
    }
}

/* One line for ECN and DCQCN: the marks are DCQCN's input. */
static void
dcqcn_line (const WeftDcqcn *cc, const WeftNetworkStats *st, GString *out)
{
    g_string_append_printf (out,
                            "  ecn/dcqcn    CE %" G_GUINT64_FORMAT " marked, %" G_GUINT64_FORMAT
                            " received; CNP %" G_GUINT64_FORMAT " sent, %" G_GUINT64_FORMAT
                            " received; %" G_GUINT64_FORMAT " rate cuts (dcqcn %s)\n",
                            st->ecn_marked, st->ce_received, st->cnps_sent, st->cnps_received,
                            st->dcqcn_cuts, cc->enabled ? "on" : "off");
}

static void
dcqcn_summary (const WeftMechEnv *env, const WeftNetworkStats *st, GString *out)
{
    dcqcn_line (&env->fabric->dcqcn, st, out);
}

/* From /ports (CE marks at the switches) and /flows (what the endpoints saw). */
static void
dcqcn_report (const WeftFabric *fabric, const WeftTraceTables *t, GString *out)
{
    if (!t->ports || !t->flows)
        return;
    WeftNetworkStats st = { 0 };
    for (guint i = 0; i < t->ports->len; i++)
        st.ecn_marked += g_array_index (t->ports, WeftTracePort, i).ecn_marks;
    for (guint i = 0; i < t->flows->len; i++) {
        const WeftTraceFlow *f = &g_array_index (t->flows, WeftTraceFlow, i);
        st.ce_received += f->ecn_marked;
        st.cnps_sent += f->cnps_sent;
        st.cnps_received += f->cnps_received;
        st.dcqcn_cuts += f->rate_cuts;
    }
    dcqcn_line (&fabric->dcqcn, &st, out);
}

static void
dcqcn_clear (WeftMechEnv *env)
{
    weft_dcqcn_clear (&env->fabric->dcqcn);
    weft_ecn_clear (&env->fabric->ecn);
}

const WeftMechanism weft_dcqcn_mechanism = {
    .name = "dcqcn",
    .group = "dcqcn",
    .help = "RoCE DCQCN at the NICs: CNPs, rate cuts and recovery, presets",
    .params = weft_dcqcn_params,
    .fabrics = WEFT_FABRIC_BIT (WEFT_FABRIC_ROCE),
    .configure = dcqcn_configure,
    .sample = dcqcn_sample,
    .count = dcqcn_count,
    .summary = dcqcn_summary,
    .report = dcqcn_report,
    .clear = dcqcn_clear,
};
