#include "config.h"
#define G_LOG_DOMAIN "weft-fabric"
#include "models/fabric.h"

#include "models/registry.h"
#include "models/switch.h"
#include "sim/rng.h"

/* [fabric] spray's choices are the first of Ultra Ethernet's policies, in its order. */
G_STATIC_ASSERT (WEFT_UET_LB_ECMP == 0 && WEFT_UET_LB_OBLIVIOUS == 1 &&
                 WEFT_UET_LB_ROUND_ROBIN == 2);

const WeftParamSpec weft_fabric_params[] = {
    WEFT_PARAM_ENUM ("kind", WeftFabric, kind, "ethernet",
                     "ethernet|infiniband|roce|ultra-ethernet",
                     "link layer: ethernet is a lossy baseline (tail drop, no flow control); "
                     "infiniband is credit-based and lossless; roce is RoCEv2 on Ethernet "
                     "(the [ethernet] packet format) with PFC, ECN and DCQCN; ultra-ethernet is "
                     "lossy Ethernet with Ultra Ethernet's transport: spraying, RUD, trimming, "
                     "NSCC ([uet], [nscc])"),
    WEFT_PARAM_ENUM ("routing", WeftFabric, routing, "ecmp", "ecmp|static|adaptive",
                     "path choice at switches: ecmp hashes each flow over the equal-cost ports "
                     "(per-switch seed); static takes the topology's single route (D-mod-k or a "
                     "forwarding table); adaptive picks, per packet, the least-loaded equal-cost "
                     "port (ties at random)"),
    WEFT_PARAM_BYTES ("mtu", WeftFabric, mtu, "4096B", "256B", "9000B",
                      "largest payload per packet (InfiniBand: 256, 512, 1024, 2048 or 4096)"),
    WEFT_PARAM_ENUM ("spray", WeftFabric, spray, "off", "off|oblivious|round-robin",
                     "Ethernet and RoCE: the sending NIC sprays each data packet over spray_evs "
                     "entropy values (paths of the switches' ECMP hash), as Ultra Ethernet does; "
                     "the receivers place packets out of order (on Ultra Ethernet: [uet] "
                     "load_balance)"),
    WEFT_PARAM_UINT ("spray_evs", WeftFabric, spray_evs, "64", "1", "65536",
                     "entropy values a flow sprays over with spray on"),
    WEFT_PARAM_END,
};

const WeftParamSpec weft_ethernet_params[] = {
    WEFT_PARAM_BYTES ("header", WeftEthernetConfig, header, "82B", "0B", "1KiB",
                      "wire bytes added to each packet: RoCEv2 on Ethernet 62 B + 20 B "
                      "preamble and inter-frame gap"),
    WEFT_PARAM_BYTES ("ack", WeftEthernetConfig, ack_bytes, "84B", "1B", "1KiB",
                      "wire bytes of an acknowledgement (a 64 B minimum frame + 20 B)"),
    WEFT_PARAM_END,
};

static const char *const kind_names[] = { "ethernet", "infiniband", "roce", "ultra-ethernet" };

const char *
weft_fabric_kind_name (int kind)
{
    g_return_val_if_fail (kind >= 0 && kind < (int) G_N_ELEMENTS (kind_names), "?");
    return kind_names[kind];
}

gboolean
weft_fabric_read (WeftFabric *fabric, const WeftExperiment *exp, GError **error)
{
    WeftParamBinding b = { weft_fabric_params, fabric };
    if (!weft_params_read (exp, "fabric", &b, 1, error))
        return FALSE;
    GKeyFile *kf = weft_experiment_keyfile (exp);
    gboolean ethernet = fabric->kind == WEFT_FABRIC_ETHERNET || fabric->kind == WEFT_FABRIC_ROCE;
    for (guint i = 0; i < 2 && !ethernet; i++) {
        const char *key = i ? "spray_evs" : "spray";
        if (g_key_file_has_key (kf, "fabric", key, NULL))
            return weft_experiment_fail (
                exp, error, WEFT_CONFIG_ERROR_UNKNOWN_KEY, "fabric", key,
                "used on Ethernet and RoCE only (%s)",
                fabric->kind == WEFT_FABRIC_ULTRA_ETHERNET
                    ? "Ultra Ethernet sprays as [uet] load_balance says"
                    : "InfiniBand spreads per packet with routing = adaptive");
    }
    /* The spraying policy, as Ultra Ethernet's (models/uet.h): off, oblivious and round-robin
     * are its ecmp, oblivious and round-robin; delivery stays the fabric's own (ROD). */
    fabric->spray_cfg = (WeftUet){ .load_balance = fabric->spray,
                                   .ev_pool = fabric->spray_evs,
                                   .delivery = WEFT_UET_ROD,
                                   .seed = G_GUINT64_CONSTANT (0x5b7a) };
    fabric->data_prio = 1;
    fabric->ack_prio = fabric->cnp_prio = 0;
    return TRUE;
}

void
weft_fabric_clear (WeftFabric *fabric)
{
    weft_params_clear (weft_fabric_params, fabric);
}

/* ---- the baseline Ethernet port: the mechanism (models/registry.h) --------------------- */

static gboolean
ethernet_configure (WeftMechEnv *env, const WeftExperiment *exp, GError **error)
{
    WeftFabric *fab = env->fabric;
    WeftParamBinding b = { weft_ethernet_params, &fab->eth };
    if (!weft_params_read (exp, "ethernet", &b, 1, error))
        return FALSE;
    fab->header = fab->eth.header;
    fab->ack_bytes = fab->eth.ack_bytes;
    if (env->sim) /* none when `weft report` rebuilds the configuration */
        fab->spray_cfg.seed = weft_mix64 (env->sim->seed ^ G_GUINT64_CONSTANT (0x5b7a));
    return TRUE;
}

/* A fabric switch's egress ports tail-drop beyond [switch] buffer, unless PFC paces the
 * lossless traffic or a shared buffer admits packets instead (models/buffer.h); every other
 * port (hosts, NICs, a server's internal switches) has unbounded room. */
static gboolean
ethernet_setup (WeftMechEnv *env, const WeftExperiment *exp, GError **error)
{
    if (env->fabric->spray != WEFT_UET_LB_ECMP && !env->fabric->uet.enabled)
        env->tp->spray = &env->fabric->spray_cfg;
    if (weft_fabric_pfc (env->fabric))
        return TRUE;
    for (guint i = 0; i < env->switches->len; i++) {
        WeftSwitch *sw = env->switches->pdata[i];
        if (sw->internal || sw->buffer_cfg.sharing != WEFT_BUFFER_NONE)
            continue;
        for (guint p = 0; p < sw->n_ports; p++)
            if (sw->ports[p].owner)
                sw->ports[p].cap_bytes = sw->buffer_bytes;
    }
    return TRUE;
}

/* Service levels are InfiniBand's: a workload's `sl` would be ignored here. */
static gboolean
ethernet_check (const WeftMechEnv *env, const WeftExperiment *exp, GError **error)
{
    for (guint i = 0; i < env->specs->len; i++) {
        const WeftFlowSpec *s = &g_array_index (env->specs, WeftFlowSpec, i);
        if (s->sl == 0)
            continue;
        g_autofree char *group =
            g_strconcat ("workload.", (const char *) env->workload_names->pdata[s->group], NULL);
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_UNKNOWN_KEY, group, "sl",
                                     "service levels exist on InfiniBand only");
    }
    return TRUE;
}

static void
ethernet_clear (WeftMechEnv *env)
{
    weft_params_clear (weft_ethernet_params, &env->fabric->eth);
}

const WeftMechanism weft_ethernet_mechanism = {
    .name = "ethernet",
    .group = "ethernet",
    .help = "the Ethernet fabric's packet format",
    .params = weft_ethernet_params,
    .fabrics = WEFT_FABRICS_ETHERNET_FAMILY,
    .configure = ethernet_configure,
    .setup = ethernet_setup,
    .check = ethernet_check,
    .clear = ethernet_clear,
};
