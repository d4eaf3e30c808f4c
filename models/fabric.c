#include "config.h"
#define G_LOG_DOMAIN "weft-fabric"
#include "models/fabric.h"

const WeftParamSpec weft_fabric_params[] = {
    WEFT_PARAM_ENUM ("kind", WeftFabric, kind, "ethernet", "ethernet|infiniband|roce|ultra-ethernet",
                     "link layer: ethernet is a lossy baseline (tail drop, no flow control); the "
                     "others are reserved for their own models"),
    WEFT_PARAM_ENUM ("routing", WeftFabric, routing, "ecmp", "ecmp|static",
                     "path choice at switches: ecmp hashes each flow over the equal-cost ports "
                     "(per-switch seed); static takes the topology's single route (D-mod-k)"),
    WEFT_PARAM_BYTES ("mtu", WeftFabric, mtu, "4096B", "256B", "9000B",
                      "largest payload per packet"),
    WEFT_PARAM_BYTES ("header", WeftFabric, header, "82B", "0B", "1KiB",
                      "wire bytes added to each packet: RoCEv2 on Ethernet 62 B + 20 B "
                      "preamble and inter-frame gap"),
    WEFT_PARAM_BYTES ("ack", WeftFabric, ack_bytes, "84B", "1B", "1KiB",
                      "wire bytes of an acknowledgement (a 64 B minimum frame + 20 B)"),
    WEFT_PARAM_END,
};

gboolean
weft_fabric_read (WeftFabric *fabric, const WeftExperiment *exp, GError **error)
{
    WeftParamBinding b = { weft_fabric_params, fabric };
    if (!weft_params_read (exp, "fabric", &b, 1, error))
        return FALSE;
    if (fabric->kind != WEFT_FABRIC_ETHERNET)
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_UNSUPPORTED, "fabric", "kind",
                                     "'%s' is not implemented yet: expected ethernet",
                                     fabric->kind == WEFT_FABRIC_INFINIBAND ? "infiniband"
                                     : fabric->kind == WEFT_FABRIC_ROCE     ? "roce"
                                                                            : "ultra-ethernet");
    return TRUE;
}
