#include "config.h"
#define G_LOG_DOMAIN "weft-rccc"
#include "models/rccc.h"

#include "models/registry.h"
#include "models/uet.h"
#include "sim/units.h"

const WeftParamSpec weft_rccc_params[] = {
    WEFT_PARAM_BOOL ("enabled", WeftRccc, enabled, "false",
                     "receiver credits: each receiver grants its senders, on the ACKs, the data "
                     "they may have in flight toward it (needs [uet] delivery = rud; runs with "
                     "NSCC)"),
    WEFT_PARAM_BYTES ("budget", WeftRccc, budget, "128KiB", "1B", "1GiB",
                      "credit each receiver hands out, shared fairly by the flows toward it "
                      "(weft's default, unverified: about one BDP of a 100 Gb/s port at 10 us)"),
    WEFT_PARAM_BYTES ("initial_credit", WeftRccc, initial_credit, "0B", "0B", "1GiB",
                      "bytes a flow may send without credit beyond its first packet (which "
                      "always goes, to announce it)"),
    WEFT_PARAM_END,
};

guint32
weft_rccc_on_arrival (WeftRcccRx *rx, gint64 budget_pkts, gint64 *held, gboolean credited,
                      gint64 want)
{
    if (credited && *held > 0) {
        (*held)--;
        rx->pool++;
    }
    want -= *held;
    if (want <= 0)
        return 0;
    gint64 fair = MAX (budget_pkts / MAX (rx->active, 1u), 1);
    gint64 grant = MIN (MIN (fair - *held, rx->pool), want);
    if (grant <= 0)
        grant = *held == 0 ? 1 : 0; /* never starve a flow that holds nothing */
    *held += grant;
    rx->pool -= grant;
    return (guint32) grant;
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

/* Every node's receive pool, full. */
static gboolean
rccc_setup (WeftMechEnv *env, const WeftExperiment *exp, GError **error)
{
    const WeftFabric *fab = env->fabric;
    if (!fab->uet.rccc.enabled)
        return TRUE;
    guint n = weft_graph_n_nodes (env->graph);
    env->tp->rccc_rx = g_new0 (WeftRcccRx, MAX (n, 1));
    gint64 budget = weft_rccc_budget_pkts (&fab->uet.rccc, fab->mtu + fab->header);
    for (guint i = 0; i < n; i++)
        env->tp->rccc_rx[i].pool = budget;
    return TRUE;
}

static void
rccc_summary (const WeftMechEnv *env, const WeftNetworkStats *st, GString *out)
{
    const WeftRccc *r = &env->fabric->uet.rccc;
    if (!r->enabled)
        return;
    g_autofree char *b = weft_units_format_bytes (r->budget);
    g_string_append_printf (out, "  rccc         %s of credit per receiver\n", b);
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
    .help = "Ultra Ethernet RCCC: receiver-granted credits for the data in flight toward it",
    .params = weft_rccc_params,
    .fabrics = WEFT_FABRIC_BIT (WEFT_FABRIC_ULTRA_ETHERNET),
    .configure = rccc_configure,
    .setup = rccc_setup,
    .summary = rccc_summary,
    .clear = rccc_clear,
};
