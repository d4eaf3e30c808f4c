#include "config.h"
#define G_LOG_DOMAIN "weft-nscc"
#include "models/nscc.h"

#include "models/registry.h"

const WeftParamSpec weft_nscc_params[] = {
    WEFT_PARAM_BOOL ("enabled", WeftNscc, enabled, "true",
                     "NSCC sender window from ECN marks and queueing delay (off: a fixed window "
                     "of one BDP, [transport] window)"),
    WEFT_PARAM_TIME ("target_delay", WeftNscc, target_delay, WEFT_PARAM_DERIVED, "1ns", "10ms",
                     "derived: 0.75 x the network's unloaded RTT with [uet] trimming, 1 x "
                     "without (UE 1.0.3, UEC's htsim); the queueing delay the window aims at "
                     "(RTT minus the flow's base RTT)"),
    WEFT_PARAM_DOUBLE ("md_gain", WeftNscc, md_gain, "0.8", "0", "1",
                       "multiplicative decrease (gamma of UE 1.0.3, UEC's htsim): cwnd x= 1 - "
                       "md_gain x (d - target) / d on a marked acknowledgement with delay d "
                       "above target, once per base RTT, never by more than half"),
    WEFT_PARAM_DOUBLE ("pi_packets", WeftNscc, pi_packets, WEFT_PARAM_DERIVED, "0.001", "1024",
                       "derived: 4 x a x b, a as for fi_packets, b = target_delay / 12 us (UE "
                       "1.0.3's alpha, UEC's htsim); proportional increase below target: full "
                       "packets added per RTT at no queueing delay, x (target - d) / target"),
    WEFT_PARAM_DOUBLE ("fi_packets", WeftNscc, fi_packets, WEFT_PARAM_DERIVED, "0.01", "1024",
                       "derived: 5 x a, a = the network's BDP / (100 Gb/s x 12 us) (UE 1.0.3, "
                       "UEC's htsim); fair increase: full packets added to the window per RTT, "
                       "whatever the window (what makes competing flows converge)"),
    WEFT_PARAM_BOOL ("quick_adapt", WeftNscc, quick_adapt, "true",
                     "after a base RTT with a trim NACK or a timeout, cut the window to the "
                     "bytes acknowledged in that RTT"),
    WEFT_PARAM_BYTES ("max_window", WeftNscc, max_window, WEFT_PARAM_DERIVED, "1B", "1GiB",
                      "derived: 1.5 x the network's BDP (its unloaded RTT x the flow's NIC "
                      "rate; UE 1.0.3, UEC's htsim); the largest window, and the first"),
    WEFT_PARAM_END,
};

weft_time_t
weft_nscc_derived_target (const WeftNsccNet *net)
{
    return net->trimming ? (weft_time_t) (0.75 * (double) net->rtt) : net->rtt;
}

double
weft_nscc_derived_fi (const WeftNsccNet *net)
{
    return 5 * net->bdp_bytes / WEFT_NSCC_REF_BDP;
}

double
weft_nscc_derived_pi (const WeftNsccNet *net, weft_time_t target)
{
    return 4 * (net->bdp_bytes / WEFT_NSCC_REF_BDP) * ((double) target / WEFT_NSCC_REF_RTT);
}

double
weft_nscc_derived_max_window (const WeftNsccNet *net)
{
    return 1.5 * net->bdp_bytes;
}

void
weft_nscc_flow_init (const WeftNscc *cc, WeftNsccFlow *f, const WeftNsccNet *net, double mtu_wire,
                     weft_time_t base_rtt)
{
    *f = (WeftNsccFlow){ 0 };
    f->mtu_wire = mtu_wire;
    f->target = (double) (cc->target_delay ? cc->target_delay : weft_nscc_derived_target (net));
    f->target = MAX (f->target, 1);
    f->fi = cc->fi_packets > 0 ? cc->fi_packets : weft_nscc_derived_fi (net);
    f->pi =
        cc->pi_packets > 0 ? cc->pi_packets : weft_nscc_derived_pi (net, (weft_time_t) f->target);
    f->max_cwnd = cc->max_window ? (double) cc->max_window : weft_nscc_derived_max_window (net);
    f->max_cwnd = MAX (f->max_cwnd, mtu_wire);
    f->cwnd = f->max_cwnd;
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
    double target = f->target;
    double d = rtt > f->base_rtt ? (double) (rtt - f->base_rtt) : 0;
    double b = (double) bytes;
    /* The delay average the decrease sizes its cut by (UEC's htsim, update_delay): an unmarked
     * sample above target counts as a quarter of the base RTT, the queue being on its way
     * down. */
    double sample = d;
    f->avg_delay = WEFT_NSCC_DELAY_ALPHA * sample + (1 - WEFT_NSCC_DELAY_ALPHA) * f->avg_delay;
    if (ce && d >= target) {
        double avg = f->avg_delay;
        if (avg > target && now >= f->last_md + f->base_rtt) {
            double cut = cc->md_gain * (avg - target) / avg;
            f->cwnd *= 1 - MIN (cut, 0.5);
            f->last_md = now;
            f->decreases++;
        }
    } else if (!ce) {
        double per_rtt = f->fi; /* packets per window acknowledged */
        if (d < target)
            per_rtt += f->pi * (target - d) / target;
        f->cwnd += per_rtt * f->mtu_wire * b / f->cwnd;
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
    for (guint i = 0; env->tp->uet_flows && i < env->tp->n_flows; i++) {
        st->nscc_decreases += env->tp->uet_flows[i].cc.decreases;
        st->nscc_quick_adapts += env->tp->uet_flows[i].cc.quick_adapts;
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
