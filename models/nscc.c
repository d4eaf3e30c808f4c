#include "config.h"
#define G_LOG_DOMAIN "weft-nscc"
#include "models/nscc.h"

#include "models/registry.h"

const WeftParamSpec weft_nscc_params[] = {
    WEFT_PARAM_BOOL ("enabled", WeftNscc, enabled, "true",
                     "NSCC sender window from ECN marks and queueing delay (off: a fixed window "
                     "of one BDP, [transport] window)"),
    WEFT_PARAM_TIME ("target_delay", WeftNscc, target_delay, "4us", "1ns", "10ms",
                     "queueing delay the window aims at (RTT minus the flow's base RTT); "
                     "weft's default, unverified against UE 1.0 (doc/ultra-ethernet.md)"),
    WEFT_PARAM_DOUBLE ("md_gain", WeftNscc, md_gain, "0.8", "0", "1",
                       "multiplicative decrease: cwnd x= 1 - md_gain x (d - target) / d on a "
                       "marked acknowledgement with delay d above target, once per base RTT"),
    WEFT_PARAM_DOUBLE ("pi_gain", WeftNscc, pi_gain, "0.25", "0", "10",
                       "proportional increase below target: cwnd += pi_gain x bytes acked x "
                       "(target - d) / target"),
    WEFT_PARAM_DOUBLE ("fi_packets", WeftNscc, fi_packets, "4", "0", "64",
                       "fair increase: full packets added to the window per RTT, whatever the "
                       "window (what makes competing flows converge)"),
    WEFT_PARAM_BOOL ("quick_adapt", WeftNscc, quick_adapt, "true",
                     "after a base RTT with a trim NACK or a timeout, cut the window to the "
                     "bytes acknowledged in that RTT"),
    WEFT_PARAM_BYTES ("max_window", WeftNscc, max_window, "0B", "0B", "1GiB",
                      "largest window; 0: 4 x the flow's bandwidth-delay product"),
    WEFT_PARAM_END,
};

void
weft_nscc_flow_init (const WeftNscc *cc, WeftNsccFlow *f, double bdp_bytes, double mtu_wire,
                     weft_time_t base_rtt)
{
    *f = (WeftNsccFlow){ 0 };
    f->mtu_wire = mtu_wire;
    f->cwnd = MAX (bdp_bytes, mtu_wire);
    f->max_cwnd = cc->max_window ? (double) cc->max_window : 4 * f->cwnd;
    f->max_cwnd = MAX (f->max_cwnd, mtu_wire);
    f->base_rtt = base_rtt;
}

static void
clamp (WeftNsccFlow *f)
{
    f->cwnd = CLAMP (f->cwnd, f->mtu_wire, f->max_cwnd);
}

/* Quick adapt: at the end of each base RTT, a window that heard of a loss drops to what got
 * through. */
static void
epoch (const WeftNscc *cc, WeftNsccFlow *f, weft_time_t now)
{
    if (now < f->epoch_end)
        return;
    if (cc->quick_adapt && f->epoch_loss && (double) f->epoch_acked < f->cwnd) {
        f->cwnd = (double) f->epoch_acked;
        f->quick_adapts++;
        clamp (f);
    }
    f->epoch_acked = 0;
    f->epoch_loss = FALSE;
    f->epoch_end = now + f->base_rtt;
}

void
weft_nscc_on_ack (const WeftNscc *cc, WeftNsccFlow *f, guint64 bytes, weft_time_t rtt, gboolean ce,
                  weft_time_t now)
{
    epoch (cc, f, now);
    f->epoch_acked += bytes;
    if (rtt == 0)
        return; /* no delay sample: a retransmitted packet's (Karn) */
    double target = (double) cc->target_delay;
    double d = rtt > f->base_rtt ? (double) (rtt - f->base_rtt) : 0;
    double b = (double) bytes;
    if (ce && d >= target) {
        if (now >= f->last_md + f->base_rtt) {
            double cut = cc->md_gain * (d - target) / d;
            f->cwnd *= 1 - MIN (cut, 0.5);
            f->last_md = now;
            f->decreases++;
        }
    } else if (!ce) {
        if (d < target)
            f->cwnd += cc->pi_gain * b * (target - d) / target;
        f->cwnd += cc->fi_packets * f->mtu_wire * b / f->cwnd;
    }
    clamp (f);
}

void
weft_nscc_on_loss (const WeftNscc *cc, WeftNsccFlow *f, weft_time_t now)
{
    epoch (cc, f, now);
    f->epoch_loss = TRUE;
}

/* ---- the mechanism (models/registry.h) ------------------------------------------------- */

static gboolean
nscc_configure (WeftMechEnv *env, const WeftExperiment *exp, GError **error)
{
    WeftParamBinding b = { weft_nscc_params, &env->fabric->uet.nscc };
    return weft_params_read (exp, "nscc", &b, 1, error);
}

static void
nscc_count (const WeftMechEnv *env, WeftNetworkStats *st)
{
    for (guint i = 0; i < env->tp->n_flows; i++) {
        st->nscc_decreases += env->tp->flows[i].uet.cc.decreases;
        st->nscc_quick_adapts += env->tp->flows[i].uet.cc.quick_adapts;
    }
}

static void
nscc_line (const WeftNscc *cc, const WeftNetworkStats *st, GString *out)
{
    if (!cc->enabled)
        return;
    g_string_append_printf (out,
                            "  nscc         CE %" G_GUINT64_FORMAT " marked; %" G_GUINT64_FORMAT
                            " window decreases, %" G_GUINT64_FORMAT " quick adapts\n",
                            st->ecn_marked, st->nscc_decreases, st->nscc_quick_adapts);
}

static void
nscc_summary (const WeftMechEnv *env, const WeftNetworkStats *st, GString *out)
{
    nscc_line (&env->fabric->uet.nscc, st, out);
}

/* From /ports (CE marks at the switches) and /flows (the senders' window changes). */
static void
nscc_report (const WeftFabric *fabric, const WeftTraceTables *t, GString *out)
{
    if (!t->ports || !t->flows)
        return;
    WeftNetworkStats st = { 0 };
    for (guint i = 0; i < t->ports->len; i++)
        st.ecn_marked += g_array_index (t->ports, WeftTracePort, i).ecn_marks;
    for (guint i = 0; i < t->flows->len; i++) {
        const WeftTraceFlow *f = &g_array_index (t->flows, WeftTraceFlow, i);
        st.nscc_decreases += f->window_decreases;
        st.nscc_quick_adapts += f->quick_adapts;
    }
    nscc_line (&fabric->uet.nscc, &st, out);
}

static void
nscc_clear (WeftMechEnv *env)
{
    weft_params_clear (weft_nscc_params, &env->fabric->uet.nscc);
}

const WeftMechanism weft_nscc_mechanism = {
    .name = "nscc",
    .group = "nscc",
    .help = "Ultra Ethernet NSCC: sender window from ECN marks and queueing delay",
    .params = weft_nscc_params,
    .fabrics = WEFT_FABRIC_BIT (WEFT_FABRIC_ULTRA_ETHERNET),
    .configure = nscc_configure,
    .count = nscc_count,
    .summary = nscc_summary,
    .report = nscc_report,
    .clear = nscc_clear,
};
