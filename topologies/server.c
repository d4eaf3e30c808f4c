/* topologies/server.c - the DGX-class server sub-topology. */
#include "config.h"
#define G_LOG_DOMAIN "weft-topology"
#include "topologies/server.h"

#include <string.h>

/* The defaults below are the dgx-h100 preset's (presets[] further down), so that a table
 * without a preset and `weft params server` agree with it. */
static const WeftParamSpec server_params[] = {
    WEFT_PARAM_ENUM ("preset", WeftServerParams, preset, "dgx-h100", "dgx-h100|dgx-b200|dgx-a100",
                     "the DGX whose GPUs, NICs, rates and NIC names the other keys default to "
                     "(doc/servers.md); a key set in the experiment overrides it"),
    WEFT_PARAM_UINT ("gpus", WeftServerParams, gpus, "8", "1", "1024",
                     "GPUs per server (every preset: 8)"),
    WEFT_PARAM_UINT ("nics", WeftServerParams, nics, "8", "1", "1024",
                     "compute NICs per server (= rails); GPU g uses NIC g * nics / gpus "
                     "(every preset: 8)"),
    WEFT_PARAM_UINT (
        "nvswitches", WeftServerParams, nvswitches, "1", "1", "64",
        "scale-up switches; each GPU has one link of nvlink_rate / nvswitches to each"),
    WEFT_PARAM_RATE ("nvlink_rate", WeftServerParams, nvlink_rate_bps, "450GB/s", "1Gbps",
                     "100Tbps",
                     "NVLink bandwidth per GPU, each way (presets: H100 450 GB/s, B200 900, "
                     "A100 300)"),
    WEFT_PARAM_TIME ("nvlink_latency", WeftServerParams, nvlink_latency_ps, "100ns", "0ps", "1ms",
                     "propagation per NVLink hop"),
    WEFT_PARAM_RATE ("pcie_rate", WeftServerParams, pcie_rate_bps, "50GB/s", "1Gbps", "10Tbps",
                     "effective PCIe rate per direction after protocol overhead (presets: "
                     "Gen5 x16 50 GB/s on H100 and B200, Gen4 x16 25 GB/s on A100)"),
    WEFT_PARAM_TIME ("pcie_latency", WeftServerParams, pcie_latency_ps, "100ns", "0ps", "1ms",
                     "propagation per PCIe hop"),
    WEFT_PARAM_RATE ("nic_rate", WeftServerParams, nic_rate_bps, "400Gbps", "1Gbps", "10Tbps",
                     "NIC port rate, the NIC-leaf link (presets: ConnectX-7 400 Gb/s on H100 and "
                     "B200, ConnectX-6 HDR 200 Gb/s on A100)"),
    WEFT_PARAM_BOOL ("nvls", WeftServerParams, nvls, "true",
                     "the NVSwitch reduces and multicasts (NVLink SHARP, third-generation "
                     "NVSwitch and later: NCCL's NVLS algorithm; presets: H100 and B200 true, "
                     "A100 false); false: a plain crossbar"),
    WEFT_PARAM_BOOL (
        "gpudirect", WeftServerParams, gpudirect, "true",
        "GPUDirect RDMA: NICs read GPU memory directly (false: staged in host memory)"),
    WEFT_PARAM_STRING ("name_prefix", WeftServerParams, name_prefix, "dgx-",
                       "server names are PREFIX1, PREFIX2, ..."),
    WEFT_PARAM_LIST ("nic_names", WeftServerParams, nic_names,
                     "mlx5_0;mlx5_3;mlx5_4;mlx5_5;mlx5_6;mlx5_9;mlx5_10;mlx5_11",
                     "NIC names in rail order, as perftest and the node names show them (the "
                     "preset's RDMA devices); missing ones are nicN"),
    WEFT_PARAM_END,
};

const WeftParamSpec *
weft_server_params (void)
{
    return server_params;
}

/* What a preset sets; rates in bits per second.  Sources (doc/servers.md has the details):
 *  - DGX H100: user guide (8 x H100 SXM, 4 NVSwitch chips; 8 single-port ConnectX-7, 400 Gb/s;
 *    the Network Modules table maps GPU 0-7 to mlx5_0, 3, 4, 5, 6, 9, 10, 11; PCIe 5.0 CPUs)
 *    and the SuperPOD H100 reference architecture (NVLink 4: 900 GB/s per GPU, 450 each way).
 *  - DGX B200: user guide (8 x B200; 2 NVSwitch chips, 14.4 TB/s aggregate = 1.8 TB/s per GPU,
 *    900 GB/s each way, NVLink 5; 8 single-port ConnectX-7 up to 400 Gb/s; PCIe Gen5 CPUs).
 *    The RDMA device names are those NCCL_IB_HCA lists on one DGX B200 (NVIDIA/nccl issue
 *    1646), unverified against the user guide and in no verified GPU order.
 *  - DGX A100: user guide DU-09821-001 and data sheet (8 x A100 SXM4, 6 NVSwitches, NVLink 3:
 *    600 GB/s per GPU, 300 each way, 4.8 TB/s in all; 8 single-port ConnectX-6 VPI HDR
 *    200 Gb/s; PCIe Gen4).  The RDMA names mlx5_0-3 and mlx5_6-9 are the compute HCAs that
 *    NCCL_IB_HCA settings for DGX A100 list, unverified against the user guide.
 *  - PCIe: the effective rate is this project's Gen5 x16 figure, 50 GB/s of 63 GB/s raw
 *    (32 GT/s x 16 lanes, 128b/130b); Gen4 x16 runs at half the transfer rate with the same
 *    encoding, so 25 GB/s (derived, unverified). */
#define GBPS(n) (G_GUINT64_CONSTANT (1000000000) * (n))
#define GBYTES(n) (GBPS (n) * 8)
static const struct {
    guint64 gpus, nics, nvlink_rate_bps, pcie_rate_bps, nic_rate_bps;
    gboolean nvls;
    const char *nic_names;
} presets[] = {
    [WEFT_SERVER_DGX_H100] = { 8, 8, GBYTES (450), GBYTES (50), GBPS (400), TRUE,
                               "mlx5_0;mlx5_3;mlx5_4;mlx5_5;mlx5_6;mlx5_9;mlx5_10;mlx5_11" },
    [WEFT_SERVER_DGX_B200] = { 8, 8, GBYTES (900), GBYTES (50), GBPS (400), TRUE,
                               "mlx5_4;mlx5_7;mlx5_8;mlx5_9;mlx5_10;mlx5_13;mlx5_14;mlx5_15" },
    [WEFT_SERVER_DGX_A100] = { 8, 8, GBYTES (300), GBYTES (25), GBPS (200), FALSE,
                               "mlx5_0;mlx5_1;mlx5_2;mlx5_3;mlx5_6;mlx5_7;mlx5_8;mlx5_9" },
};

void
weft_server_preset_set (WeftServerParams *p, WeftServerPreset preset)
{
    g_return_if_fail (p != NULL && (guint) preset < G_N_ELEMENTS (presets));
    p->preset = preset;
    p->gpus = presets[preset].gpus;
    p->nics = presets[preset].nics;
    p->nvlink_rate_bps = presets[preset].nvlink_rate_bps;
    p->pcie_rate_bps = presets[preset].pcie_rate_bps;
    p->nic_rate_bps = presets[preset].nic_rate_bps;
    p->nvls = presets[preset].nvls;
    g_strfreev (p->nic_names);
    p->nic_names = g_strsplit (presets[preset].nic_names, ";", -1);
}

gboolean
weft_server_read (WeftServerParams *p, const WeftExperiment *exp, GError **error)
{
    g_return_val_if_fail (p != NULL && exp != NULL, FALSE);
    WeftParamBinding b = { server_params, p };
    if (!weft_params_read (exp, "server", &b, 1, error))
        return FALSE;
    /* The preset under the keys the experiment sets: apply it to a copy, then take from the
     * copy the keys the experiment leaves out. */
    WeftServerParams pre = { .nic_names = NULL };
    weft_server_preset_set (&pre, (WeftServerPreset) p->preset);
    GKeyFile *kf = weft_experiment_keyfile (exp);
#define FROM_PRESET(key, field)                                                                    \
    if (!g_key_file_has_key (kf, "server", key, NULL))                                             \
        p->field = pre.field;
    FROM_PRESET ("gpus", gpus);
    FROM_PRESET ("nics", nics);
    FROM_PRESET ("nvlink_rate", nvlink_rate_bps);
    FROM_PRESET ("pcie_rate", pcie_rate_bps);
    FROM_PRESET ("nic_rate", nic_rate_bps);
    FROM_PRESET ("nvls", nvls);
#undef FROM_PRESET
    if (!g_key_file_has_key (kf, "server", "nic_names", NULL)) {
        g_strfreev (p->nic_names);
        p->nic_names = g_steal_pointer (&pre.nic_names);
    }
    g_strfreev (pre.nic_names);
    return TRUE;
}

gboolean
weft_server_check (const WeftServerParams *p, GError **error)
{
    if (p->gpus == 0 || p->nics == 0) {
        g_set_error (error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_PARAM,
                     "[server] %s: 0: a server needs at least one GPU and one NIC (rail)",
                     p->gpus == 0 ? "gpus" : "nics");
        return FALSE;
    }
    if (p->nics > p->gpus) {
        g_set_error (error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_PARAM,
                     "[server] nics: %" G_GUINT64_FORMAT " NICs for %" G_GUINT64_FORMAT
                     " GPUs: expected at most one NIC per GPU",
                     p->nics, p->gpus);
        return FALSE;
    }
    guint n_names = p->nic_names ? g_strv_length (p->nic_names) : 0;
    for (guint i = 0; i < n_names; i++)
        for (guint j = 0; j < i; j++)
            if (g_strcmp0 (p->nic_names[i], p->nic_names[j]) == 0 ||
                strchr (p->nic_names[i], '/') != NULL) {
                g_set_error (error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_PARAM,
                             "[server] nic_names: '%s' is repeated or contains '/': expected "
                             "distinct names",
                             p->nic_names[i]);
                return FALSE;
            }
    return TRUE;
}

static guint32
node (WeftGraph *g, const char *prefix, guint index, const char *what, WeftNodeKind kind,
      guint ports)
{
    char name[128];
    g_snprintf (name, sizeof name, "%s%u/%s", prefix, index + 1, what);
    guint32 id = weft_graph_add_node (g, name, kind, ports);
    weft_graph_node (g, id)->server = (gint32) index;
    return id;
}

void
weft_server_add (WeftGraph *g, const WeftServerParams *p, guint index, guint32 *nics_out)
{
    const char *prefix = p->name_prefix ? p->name_prefix : "dgx-";
    guint n_names = p->nic_names ? g_strv_length (p->nic_names) : 0;
    char what[64];
    guint32 cpu = node (g, prefix, index, "cpu", WEFT_NODE_CPU, 0);
    /* the root complex forwards PCIe peer-to-peer between its root ports */
    weft_graph_node (g, cpu)->forwards = TRUE;
    guint32 nvs[64];
    for (guint k = 0; k < p->nvswitches && k < 64; k++) {
        g_snprintf (what, sizeof what, "nvswitch%u", k);
        nvs[k] = node (g, prefix, index, what, WEFT_NODE_NVSWITCH, 0);
    }
    guint32 *pcie = g_new (guint32, p->nics);
    for (guint n = 0; n < p->nics; n++) {
        g_snprintf (what, sizeof what, "pcie%u", n);
        pcie[n] = node (g, prefix, index, what, WEFT_NODE_PCIE_SWITCH, 0);
        if (n < n_names)
            g_strlcpy (what, p->nic_names[n], sizeof what);
        else
            g_snprintf (what, sizeof what, "nic%u", n);
        guint32 nic = node (g, prefix, index, what, WEFT_NODE_NIC, 0);
        weft_graph_node (g, nic)->rail = (gint32) n;
        weft_graph_node (g, pcie[n])->rail = (gint32) n;
        weft_graph_make_endpoint (g, nic);
        nics_out[n] = nic;
        /* the NIC's PCIe port is port 0; its fabric port comes next */
        weft_graph_connect (g, nic, WEFT_GRAPH_NONE, pcie[n], WEFT_GRAPH_NONE, p->pcie_rate_bps,
                            p->pcie_latency_ps, WEFT_LINK_PCIE);
        weft_graph_connect (g, pcie[n], WEFT_GRAPH_NONE, cpu, WEFT_GRAPH_NONE, p->pcie_rate_bps,
                            p->pcie_latency_ps, WEFT_LINK_PCIE);
    }
    for (guint gi = 0; gi < p->gpus; gi++) {
        g_snprintf (what, sizeof what, "gpu%u", gi);
        guint32 gpu = node (g, prefix, index, what, WEFT_NODE_GPU, 0);
        guint n = (guint) ((guint64) gi * p->nics / p->gpus);
        weft_graph_node (g, gpu)->rail = (gint32) n;
        weft_graph_connect (g, gpu, WEFT_GRAPH_NONE, pcie[n], WEFT_GRAPH_NONE, p->pcie_rate_bps,
                            p->pcie_latency_ps, WEFT_LINK_PCIE);
        for (guint k = 0; k < p->nvswitches && k < 64; k++)
            weft_graph_connect (g, gpu, WEFT_GRAPH_NONE, nvs[k], WEFT_GRAPH_NONE,
                                p->nvlink_rate_bps / p->nvswitches, p->nvlink_latency_ps,
                                WEFT_LINK_NVLINK);
        weft_graph_set_staging (g, gpu, p->gpudirect ? WEFT_GRAPH_NONE : cpu);
    }
    /* NVLink SHARP: a collective's flows start and end at the NVSwitch, which reduces what the
     * GPUs send it and multicasts what they store (workloads/collective.h, NVLS).  Marked
     * last, so the server's other endpoints keep their indices. */
    for (guint k = 0; p->nvls && k < p->nvswitches && k < 64; k++)
        weft_graph_make_endpoint (g, nvs[k]);
    weft_graph_set_gpudirect (g, p->gpudirect);
    g_free (pcie);
}
