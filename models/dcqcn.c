#include "config.h"
#define G_LOG_DOMAIN "weft-dcqcn"
#include "models/dcqcn.h"

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
                     "notification point: at least this between two CNPs of one flow "
                     "(paper 50 us; ConnectX min_time_between_cnps 4 us)"),
    WEFT_PARAM_DOUBLE ("g", WeftDcqcn, g, "0.0048828125", "0", "1",
                       "alpha gain: alpha = (1 - g) alpha + g on a CNP (paper 1/256; ConnectX "
                       "5/1024)"),
    WEFT_PARAM_DOUBLE ("alpha_init", WeftDcqcn, alpha_init, "0.9990234375", "0", "1",
                       "alpha of a flow before its first CNP (paper 1; ConnectX 1023/1024)"),
    WEFT_PARAM_TIME ("alpha_period", WeftDcqcn, alpha_period, "1us", "1ns", "1s",
                     "alpha decays by (1 - g) once per period without a CNP (paper 55 us; "
                     "ConnectX dce_tcp_rtt 1 us)"),
    WEFT_PARAM_TIME ("rate_reduce_period", WeftDcqcn, rate_reduce_period, "4us", "0ns", "1s",
                     "at least this between two rate cuts; 0 cuts on every CNP (ConnectX "
                     "rate_reduce_monitor_period 4 us)"),
    WEFT_PARAM_DOUBLE ("max_decrease", WeftDcqcn, max_decrease, "0.5", "0", "1",
                       "a cut lowers the rate by at most this fraction (ConnectX "
                       "rpg_min_dec_fac 50 %; paper 1: no floor)"),
    WEFT_PARAM_RATE ("min_rate", WeftDcqcn, min_rate, "1Mbps", "1bps", "10Tbps",
                     "the rate never drops below this (ConnectX rpg_min_rate)"),
    WEFT_PARAM_TIME ("increase_timer", WeftDcqcn, increase_timer, "300us", "1ns", "1s",
                     "rate-increase timer period (paper 55 us; ConnectX rpg_time_reset 300 us)"),
    WEFT_PARAM_BYTES ("byte_counter", WeftDcqcn, byte_counter, "32767B", "1B", "1TiB",
                      "bytes sent per byte-counter increase event (paper 10 MB; ConnectX "
                      "rpg_byte_reset 32767 B)"),
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
    guint64 scale_ref_bps; /* R_AI, R_HAI and the ECN thresholds scale against it */
    guint64 kmin, kmax;
    double pmax;
} Preset;

#define G25 G_GUINT64_CONSTANT (25000000000)

static const Preset presets[] = {
    [WEFT_DCQCN_PAPER] = {WEFT_US (50), WEFT_US (55), 0, WEFT_US (55), 1.0 / 256, 1.0, 1.0, 1000000,
                          10000000, 5, 40000000, 400000000, 0, 5000, 200000, 0.01},
    [WEFT_DCQCN_CONNECTX] = {WEFT_US (4), WEFT_US (1), WEFT_US (4), WEFT_US (300), 5.0 / 1024,
                             1023.0 / 1024, 0.5, 1000000, 32767, 1, 5000000, 50000000, 0, 5000,
                             200000, 0.01},
    [WEFT_DCQCN_HPCC] = {WEFT_US (4), WEFT_US (1), WEFT_US (4), WEFT_US (300), 5.0 / 1024,
                         1023.0 / 1024, 0.5, 1000000, 32767, 1, 5000000, 50000000, G25, 100000,
                         400000, 0.2},
};

gboolean
weft_dcqcn_read (WeftDcqcn *cc, WeftEcn *ecn, const WeftExperiment *exp, GError **error)
{
    WeftParamBinding b = {weft_dcqcn_params, cc};
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
    return (guint64)((double)v * (double)line_bps / (double)cc->scale_ref_bps + 0.5);
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

/* alpha decays once per whole alpha_period since it was last updated. */
static void
alpha_catch_up (const WeftDcqcn *cc, WeftDcqcnFlow *s, weft_time_t now)
{
    if (now <= s->alpha_at)
        return;
    guint64 n = (now - s->alpha_at) / cc->alpha_period;
    if (n > 0) {
        s->alpha *= pow (1 - cc->g, (double)n);
        s->alpha_at += n * cc->alpha_period;
    }
}

gboolean
weft_dcqcn_on_cnp (const WeftDcqcn *cc, WeftDcqcnFlow *s, weft_time_t now)
{
    s->cnps_received++;
    if (s->cnps_received == 1)
        s->alpha_at = now; /* alpha holds alpha_init until the first CNP */
    alpha_catch_up (cc, s, now);
    if (s->cuts > 0 && now < s->last_cut + cc->rate_reduce_period)
        return FALSE;
    double factor = MAX (1 - s->alpha / 2, 1 - cc->max_decrease);
    s->rt_bps = s->rc_bps;
    s->rc_bps = MAX ((guint64)((double)s->rc_bps * factor), cc->min_rate);
    s->min_rc_bps = MIN (s->min_rc_bps, s->rc_bps);
    s->alpha = (1 - cc->g) * s->alpha + cc->g;
    s->alpha_at = now; /* the alpha timer restarts */
    s->last_cut = now;
    s->cuts++;
    s->active = TRUE;
    s->t_stage = s->bc_stage = 0;
    s->bytes = 0;
    s->timer_gen++;
    return TRUE;
}

static void
increase (const WeftDcqcn *cc, WeftDcqcnFlow *s)
{
    guint32 hi = MAX (s->t_stage, s->bc_stage), lo = MIN (s->t_stage, s->bc_stage);
    if (hi < cc->fast_recovery) {
        /* fast recovery: halfway back to the target */
    } else if (lo > cc->fast_recovery) {
        s->rt_bps += (lo - cc->fast_recovery) * s->rhai_bps;
    } else {
        s->rt_bps += s->rai_bps;
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
    if (!s->active)
        return;
    s->bytes += bytes;
    while (s->active && s->bytes >= cc->byte_counter) {
        s->bytes -= cc->byte_counter;
        s->bc_stage++;
        increase (cc, s);
    }
}
