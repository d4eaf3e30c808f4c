#include "config.h"
#define G_LOG_DOMAIN "weft-ecn"
#include "models/ecn.h"

#include "models/registry.h"
#include "models/switch.h"
#include "sim/rng.h"

const WeftParamSpec weft_ecn_params[] = {
    WEFT_PARAM_BOOL (
        "enabled", WeftEcn, enabled, "true",
        "RED-style ECN marking at the fabric switches' egress queues (RoCE, Ultra Ethernet)"),
    WEFT_PARAM_BYTES ("kmin", WeftEcn, kmin, "150KB", "0B", "16GiB",
                      "queue bytes at and below which nothing is marked (default: on RoCE the "
                      "[dcqcn] preset's, 150KB for connectx; on Ultra Ethernet 200KiB)"),
    WEFT_PARAM_BYTES ("kmax", WeftEcn, kmax, "1500KB", "0B", "16GiB",
                      "queue bytes at which the marking probability reaches pmax; above it "
                      "every packet is marked (default: on RoCE the [dcqcn] preset's, 1500KB "
                      "for connectx; on Ultra Ethernet 800KiB)"),
    WEFT_PARAM_DOUBLE ("pmax", WeftEcn, pmax, "1", "0", "1",
                       "marking probability at kmax (default: on RoCE the [dcqcn] preset's, 1 "
                       "for connectx; on Ultra Ethernet 1)"),
    WEFT_PARAM_ENUM ("mark_on", WeftEcn, mark_on, "dequeue", "enqueue|dequeue",
                     "decide as a packet joins its queue (bytes ahead of it) or as it starts "
                     "leaving (bytes behind it; the fresher signal)"),
    WEFT_PARAM_END,
};

gboolean
weft_ecn_read (WeftEcn *ecn, guint64 kmin, guint64 kmax, double pmax, const WeftExperiment *exp,
               GError **error)
{
    WeftParamBinding b = { weft_ecn_params, ecn };
    if (!weft_params_read (exp, "ecn", &b, 1, error))
        return FALSE;
    GKeyFile *kf = weft_experiment_keyfile (exp);
    if (!g_key_file_has_key (kf, "ecn", "kmin", NULL))
        ecn->kmin = kmin;
    if (!g_key_file_has_key (kf, "ecn", "kmax", NULL))
        ecn->kmax = kmax;
    if (!g_key_file_has_key (kf, "ecn", "pmax", NULL))
        ecn->pmax = pmax;
    if (ecn->kmax < ecn->kmin)
        return weft_experiment_fail (
            exp, error, WEFT_CONFIG_ERROR_RANGE, "ecn", "kmax",
            "%" G_GUINT64_FORMAT "B is below kmin (%" G_GUINT64_FORMAT "B)", ecn->kmax, ecn->kmin);
    return TRUE;
}

void
weft_ecn_clear (WeftEcn *ecn)
{
    weft_params_clear (weft_ecn_params, ecn);
}

double
weft_ecn_probability (const WeftEcn *ecn, guint64 queued, guint64 rate_bps)
{
    double kmin = (double) ecn->kmin, kmax = (double) ecn->kmax, q = (double) queued;
    if (ecn->scale_ref_bps) {
        double s = (double) rate_bps / (double) ecn->scale_ref_bps;
        kmin *= s;
        kmax *= s;
    }
    if (q <= kmin)
        return 0;
    if (q > kmax)
        return 1;
    return ecn->pmax * (q - kmin) / (kmax - kmin);
}

gboolean
weft_ecn_mark (const WeftEcn *ecn, gsl_rng *rng, guint64 queued, guint64 rate_bps, WeftPacket *pkt)
{
    if (pkt->kind != WEFT_PKT_DATA || pkt->ce)
        return FALSE;
    double p = weft_ecn_probability (ecn, queued, rate_bps);
    /* No draw when the outcome is certain: the stream advances only on a real decision. */
    if (p <= 0 || (p < 1 && gsl_rng_uniform (rng) >= p))
        return FALSE;
    pkt->ce = 1;
    return TRUE;
}

/* ---- the mechanism (models/registry.h) ------------------------------------------------- */

/* Only fabric switches mark, each from a stream of its own (apart from adaptive routing's). */
static gboolean
ecn_setup (WeftMechEnv *env, const WeftExperiment *exp, GError **error)
{
    const WeftEcn *ecn = &env->fabric->ecn;
    if (!ecn->enabled)
        return TRUE;
    for (guint i = 0; i < env->switches->len; i++) {
        WeftSwitch *sw = env->switches->pdata[i];
        if (sw->internal)
            continue;
        sw->ecn_rng =
            weft_rng_new (env->sim->seed, weft_rng_stream_for_name ("ecn") + sw->parent.sched.id);
        sw->ecn_dequeue = ecn->mark_on == WEFT_ECN_ON_DEQUEUE;
        if (sw->ecn_dequeue)
            weft_switch_install_depart (sw);
    }
    return TRUE;
}

static void
ecn_count (const WeftMechEnv *env, WeftNetworkStats *st)
{
    for (guint i = 0; i < env->ports->len; i++)
        st->ecn_marked += ((const WeftPort *) env->ports->pdata[i])->ecn_marks;
    for (guint i = 0; env->tp->dcqcn_flows && i < env->tp->n_flows; i++)
        st->ce_received += env->tp->dcqcn_flows[i].ce_received;
}

/* [ecn] is read by dcqcn's configure (models/dcqcn.c), since its thresholds' defaults are the
 * DCQCN preset's; its counters print on the dcqcn summary line. */
const WeftMechanism weft_ecn_mechanism = {
    .name = "ecn",
    .group = "ecn",
    .help = "ECN marking (RoCE, Ultra Ethernet) at switch egress queues (RED: kmin, kmax, pmax)",
    .params = weft_ecn_params,
    .fabrics = WEFT_FABRIC_BIT (WEFT_FABRIC_ROCE) | WEFT_FABRIC_BIT (WEFT_FABRIC_ULTRA_ETHERNET),
    .setup = ecn_setup,
    .count = ecn_count,
};
