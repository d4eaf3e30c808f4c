#include "config.h"
#define G_LOG_DOMAIN "weft-fabric"
#include "models/fabric.h"

const WeftParamSpec weft_fabric_params[] = {
    WEFT_PARAM_ENUM ("kind", WeftFabric, kind, "ethernet",
                     "ethernet|infiniband|roce|ultra-ethernet",
                     "link layer: ethernet is a lossy baseline (tail drop, no flow control); "
                     "infiniband is credit-based and lossless; roce is RoCEv2 on Ethernet "
                     "(the [ethernet] packet format) with PFC, ECN and DCQCN; ultra-ethernet "
                     "is reserved"),
    WEFT_PARAM_ENUM ("routing", WeftFabric, routing, "ecmp", "ecmp|static|adaptive",
                     "path choice at switches: ecmp hashes each flow over the equal-cost ports "
                     "(per-switch seed); static takes the topology's single route (D-mod-k or a "
                     "forwarding table); adaptive picks, per packet, the least-loaded equal-cost "
                     "port (ties at random)"),
    WEFT_PARAM_BYTES ("mtu", WeftFabric, mtu, "4096B", "256B", "9000B",
                      "largest payload per packet (InfiniBand: 256, 512, 1024, 2048 or 4096)"),
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

gboolean
weft_fabric_read (WeftFabric *fabric, const WeftExperiment *exp, GError **error)
{
    WeftParamBinding b = { weft_fabric_params, fabric };
    if (!weft_params_read (exp, "fabric", &b, 1, error))
        return FALSE;
    if (fabric->kind == WEFT_FABRIC_UEC)
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_UNSUPPORTED, "fabric", "kind",
                                     "'%s' is not implemented yet: expected ethernet, "
                                     "infiniband or roce",
                                     kind_names[fabric->kind]);
    /* A group for another fabric would be silently ignored: refuse it. */
    static const char *const eth_only[] = { "infiniband", "ibcc", NULL };
    static const char *const ib_only[] = { "ethernet", NULL };
    const char *const *others = fabric->kind == WEFT_FABRIC_INFINIBAND ? ib_only : eth_only;
    for (guint i = 0; others[i]; i++)
        if (weft_experiment_has_group (exp, others[i]))
            return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_UNKNOWN_GROUP, others[i],
                                         NULL, "not used with [fabric] kind = %s",
                                         kind_names[fabric->kind]);
    static const char *const roce_only[] = { "ecn", "dcqcn", "pfc", NULL };
    for (guint i = 0; fabric->kind != WEFT_FABRIC_ROCE && roce_only[i]; i++)
        if (weft_experiment_has_group (exp, roce_only[i]))
            return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_UNKNOWN_GROUP, roce_only[i],
                                         NULL, "not used with [fabric] kind = %s: RoCE only",
                                         kind_names[fabric->kind]);
    if (fabric->kind != WEFT_FABRIC_INFINIBAND) { /* ethernet and roce */
        WeftParamBinding eb = { weft_ethernet_params, &fabric->eth };
        if (!weft_params_read (exp, "ethernet", &eb, 1, error))
            return FALSE;
        if (fabric->kind == WEFT_FABRIC_ROCE &&
            !weft_dcqcn_read (&fabric->dcqcn, &fabric->ecn, exp, error))
            return FALSE;
        fabric->header = fabric->eth.header;
        fabric->ack_bytes = fabric->eth.ack_bytes;
        return fabric->kind == WEFT_FABRIC_ETHERNET || weft_pfc_config_read (&fabric->pfc, exp, error);
    }
    /* IBA's MTUs (OpenSM ib_types.h, IB_MTU_LEN_256 to IB_MTU_LEN_4096): a link
     * negotiates one of these, nothing in between. */
    guint64 m = fabric->mtu;
    if (m != 256 && m != 512 && m != 1024 && m != 2048 && m != 4096)
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_RANGE, "fabric", "mtu",
                                     "%" G_GUINT64_FORMAT "B is not an InfiniBand MTU: expected "
                                     "256B, 512B, 1024B, 2048B or 4096B",
                                     m);
    if (!weft_ib_config_read (&fabric->ib, fabric->mtu, exp, error))
        return FALSE;
    fabric->header = fabric->ib.header;
    fabric->ack_bytes = fabric->ib.ack_bytes;
    if (!weft_ibcc_read (&fabric->ibcc, fabric->mtu, fabric->header, exp, error))
        return FALSE;
    return TRUE;
}

void
weft_fabric_clear (WeftFabric *fabric)
{
    weft_params_clear (weft_fabric_params, fabric);
    weft_params_clear (weft_ethernet_params, &fabric->eth);
    weft_ib_config_clear (&fabric->ib);
    weft_ibcc_clear (&fabric->ibcc);
    weft_pfc_config_clear (&fabric->pfc);
    weft_ecn_clear (&fabric->ecn);
    weft_dcqcn_clear (&fabric->dcqcn);
}
