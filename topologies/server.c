/* topologies/server.c - the DGX-class server sub-topology. */
#include "config.h"
#define G_LOG_DOMAIN "weft-topology"
#include "topologies/server.h"

#include <string.h>

static const WeftParamSpec server_params[] = {
    WEFT_PARAM_UINT ("gpus", WeftServerParams, gpus, "8", "1", "1024", "GPUs per server"),
    WEFT_PARAM_UINT ("nics", WeftServerParams, nics, "8", "1", "1024",
                     "compute NICs per server (= rails); GPU g uses NIC g * nics / gpus"),
    WEFT_PARAM_UINT (
        "nvswitches", WeftServerParams, nvswitches, "1", "1", "64",
        "scale-up switches; each GPU has one link of nvlink_rate / nvswitches to each"),
    WEFT_PARAM_RATE ("nvlink_rate", WeftServerParams, nvlink_rate_bps, "450GB/s", "1Gbps",
                     "100Tbps", "NVLink bandwidth per GPU, each way (H100: 450 GB/s)"),
    WEFT_PARAM_TIME ("nvlink_latency", WeftServerParams, nvlink_latency_ps, "100ns", "0ps", "1ms",
                     "propagation per NVLink hop"),
    WEFT_PARAM_RATE ("pcie_rate", WeftServerParams, pcie_rate_bps, "50GB/s", "1Gbps", "10Tbps",
                     "effective PCIe rate per direction (Gen5 x16 after protocol overhead)"),
    WEFT_PARAM_TIME ("pcie_latency", WeftServerParams, pcie_latency_ps, "100ns", "0ps", "1ms",
                     "propagation per PCIe hop"),
    WEFT_PARAM_RATE ("nic_rate", WeftServerParams, nic_rate_bps, "400Gbps", "1Gbps", "10Tbps",
                     "NIC port rate (the NIC-leaf link)"),
    WEFT_PARAM_BOOL (
        "gpudirect", WeftServerParams, gpudirect, "true",
        "GPUDirect RDMA: NICs read GPU memory directly (false: staged in host memory)"),
    WEFT_PARAM_STRING ("name_prefix", WeftServerParams, name_prefix, "dgx-",
                       "server names are PREFIX1, PREFIX2, ..."),
    WEFT_PARAM_LIST ("nic_names", WeftServerParams, nic_names,
                     "mlx5_0;mlx5_3;mlx5_4;mlx5_5;mlx5_6;mlx5_9;mlx5_10;mlx5_11",
                     "NIC names in rail order (DGX H100 user guide); missing ones are nicN"),
    WEFT_PARAM_END,
};

const WeftParamSpec *
weft_server_params (void)
{
    return server_params;
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
    weft_graph_set_gpudirect (g, p->gpudirect);
    g_free (pcie);
}
