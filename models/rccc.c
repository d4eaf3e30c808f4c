#include "config.h"
#define G_LOG_DOMAIN "weft-rccc"
#include "models/rccc.h"

#include <math.h>

#include "models/registry.h"
#include "models/uet.h"
#include "sim/units.h"

/* Defaults from UEC's htsim (uet-htsim 40ccb05); doc/ultra-ethernet.md says what each rests
 * on and what is unverified against UE 1.0. */
const WeftParamSpec weft_rccc_params[] = {
    WEFT_PARAM_BOOL ("enabled", WeftRccc, enabled, "false",
                     "receiver credits: each receiver paces the credit it grants its senders "
                     "(pulls) at pull_rate x its link rate (needs [uet] delivery = rud; runs "
                     "with NSCC)"),
    WEFT_PARAM_UINT ("mtus_per_pull", WeftRccc, mtus_per_pull, "4", "1", "1024",
                     "full packets of credit one pull grants at most (htsim's _mtus_per_pull, "
                     "\"as per default in UEC spec\")"),
    WEFT_PARAM_DOUBLE ("pull_rate", WeftRccc, pull_rate, "0.99", "0.01", "4",
                       "the pacer grants credit at this fraction of the receiving node's link "
                       "rate (htsim's per-node pull pacer under receiver CC: 0.99)"),
    WEFT_PARAM_DOUBLE ("initial_credit_bdp", WeftRccc, initial_credit_bdp, "1.5", "0", "64",
                       "credit a sender starts with and spends unasked until the receiver first "
                       "answers, in BDPs (the network's unloaded RTT x its NIC rate; htsim: its "
                       "largest window, 1.5 BDP); 0: it asks first"),
    WEFT_PARAM_DOUBLE ("max_credit_bdp", WeftRccc, max_credit_bdp, "1.5", "0.01", "64",
                       "the most credit a sender holds or asks for, in BDPs (at least one "
                       "packet; htsim: 1.5 BDP)"),
    WEFT_PARAM_END,
};

void
weft_rccc_sender_init (const WeftRccc *cfg, WeftRcccFlow *r, double bdp_bytes, double wire)
{
    r->on = TRUE;
    r->credit = (gint64) floor (cfg->initial_credit_bdp * bdp_bytes / wire);
    r->cap = MAX ((gint64) floor (cfg->max_credit_bdp * bdp_bytes / wire), 1);
    r->speculating = r->credit > 0;
    r->pulled = r->asked = r->pulled_seen = 0;
}

guint64
weft_rccc_target (const WeftRcccFlow *r, guint64 need, guint64 window_cap)
{
    guint64 want = MIN (need, (guint64) r->cap);
    if (window_cap)
        want = MIN (want, window_cap);
    guint64 held = (guint64) MAX (r->credit, 0);
    return r->pulled + (want > held ? want - held : 0);
}

void
weft_rccc_stop_speculating (WeftRcccFlow *r)
{
    if (r->speculating) {
        r->speculating = FALSE;
        r->credit = 0;
    }
}

guint64
weft_rccc_on_pull (WeftRcccFlow *r, guint64 pulled)
{
    weft_rccc_stop_speculating (r);
    if (pulled <= r->pulled)
        return 0; /* an older pull overtaken by a later one */
    guint64 more = pulled - r->pulled;
    r->pulled = pulled;
    gint64 before = r->credit;
    r->credit = MIN (r->credit + (gint64) more, r->cap);
    return (guint64) (r->credit - before);
}

gboolean
weft_rccc_on_target (WeftRcccRx *rx, WeftRcccFlowAt at, gpointer ctx, guint32 id, guint64 target)
{
    WeftRcccFlow *r = at (ctx, id);
    r->target = MAX (r->target, target);
    if (r->queued || r->target <= r->granted)
        return FALSE;
    r->queued = TRUE;
    r->next = 0;
    if (rx->tail)
        at (ctx, rx->tail - 1)->next = id + 1;
    else
        rx->head = id + 1;
    rx->tail = id + 1;
    return TRUE;
}

guint64
weft_rccc_pacer_pull (WeftRcccRx *rx, WeftRcccFlowAt at, gpointer ctx, guint64 per_pull,
                      guint32 *id)
{
    if (!rx->head) {
        *id = G_MAXUINT32;
        return 0;
    }
    *id = rx->head - 1;
    WeftRcccFlow *r = at (ctx, *id);
    rx->head = r->next;
    if (!rx->head)
        rx->tail = 0;
    r->queued = FALSE;
    r->next = 0;
    guint64 grant = r->target > r->granted ? MIN (per_pull, r->target - r->granted) : 0;
    r->granted += grant;
    if (r->target > r->granted)
        weft_rccc_on_target (rx, at, ctx, *id, r->target); /* wants more: to the tail */
    return grant;
}

weft_time_t
weft_rccc_pull_gap (const WeftRccc *cfg, guint64 pkts, guint64 wire, guint64 rate_bps)
{
    guint64 rate = MAX ((guint64) (cfg->pull_rate * (double) rate_bps), 1);
    return weft_time_serialize (pkts * wire, rate);
}

/* ---- the mechanism (models/registry.h) ------------------------------------------------- */

static gboolean
rccc_configure (WeftMechEnv *env, const WeftExperiment *exp, GError **error)
{
    WeftRccc *rccc = &env->fabric->uet.rccc;
    WeftParamBinding b = { weft_rccc_params, rccc };
    if (!weft_params_read (exp, "rccc", &b, 1, error))
        return FALSE;
    if (rccc->enabled && env->fabric->uet.delivery != WEFT_UET_RUD)
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_VALUE, "rccc", "enabled",
                                     "receiver credits need [uet] delivery = rud: under rod "
                                     "the go-back-N sender resends packets no credit asked for");
    return TRUE;
}

/* Every node's pacer, idle (its link rate is taken from its NIC at its first packet). */
static gboolean
rccc_setup (WeftMechEnv *env, const WeftExperiment *exp, GError **error)
{
    if (!env->fabric->uet.rccc.enabled)
        return TRUE;
    env->tp->rccc_rx = g_new0 (WeftRcccRx, MAX (weft_graph_n_nodes (env->graph), 1));
    return TRUE;
}

static void
rccc_summary (const WeftMechEnv *env, const WeftNetworkStats *st, GString *out)
{
    const WeftRccc *r = &env->fabric->uet.rccc;
    if (!r->enabled || !env->tp->rccc_rx)
        return;
    guint64 pulls = 0, requests = 0;
    for (guint i = 0; i < weft_graph_n_nodes (env->graph); i++)
        pulls += env->tp->rccc_rx[i].pulls;
    for (guint i = 0; i < env->tp->n_flows; i++)
        if (env->tp->flows[i].uet)
            requests += env->tp->flows[i].uet->rccc.requests;
    g_string_append_printf (out,
                            "  rccc         pulls of %" G_GUINT64_FORMAT
                            " packets at %.2f x the receiver's link rate: %" G_GUINT64_FORMAT
                            " pulls, %" G_GUINT64_FORMAT " credit requests\n",
                            r->mtus_per_pull, r->pull_rate, pulls, requests);
}

static void
rccc_clear (WeftMechEnv *env)
{
    g_clear_pointer (&env->tp->rccc_rx, g_free);
    weft_params_clear (weft_rccc_params, &env->fabric->uet.rccc);
}

const WeftMechanism weft_rccc_mechanism = {
    .name = "rccc",
    .group = "rccc",
    .help = "Ultra Ethernet RCCC: receiver-paced credit grants (pulls) for the data toward it",
    .params = weft_rccc_params,
    .fabrics = WEFT_FABRIC_BIT (WEFT_FABRIC_ULTRA_ETHERNET),
    .configure = rccc_configure,
    .setup = rccc_setup,
    .summary = rccc_summary,
    .clear = rccc_clear,
};
