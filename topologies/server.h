/* topologies/server.h - a DGX H100-class server as a small topology of its own.
 *
 * Models: GPUs on a scale-up switch (NVSwitch), NICs, PCIe switches and the CPU (host memory).
 * NIC n sits on PCIe switch "pcieN" together with the GPUs that share it (GPU g uses NIC
 * g * nics / gpus, so 8 GPUs and 8 NICs pair one to one); each PCIe switch has one uplink to the
 * CPU.  Every GPU has one NVLink to each of `nvswitches` switches, at nvlink_rate / nvswitches
 * (the default, one logical NVSwitch at 450 GB/s each way, stands for the four chips of a DGX
 * H100, which act as one non-blocking crossbar).  Rates are effective rates after protocol
 * overhead; the PCIe default, 50 GB/s per direction, is what a Gen5 x16 link leaves for large
 * DMA transfers after TLP/DLLP overhead (63 GB/s raw: 32 GT/s x 16 lanes, 128b/130b).
 * Ignores: NUMA, the CPU interconnect between sockets, storage NICs, PCIe credit flow control.
 *
 * Names (server i, numbered from 1 with the prefix "dgx-"):  PREFIXi/gpuG, PREFIXi/nvswitchK,
 * PREFIXi/pcieN, PREFIXi/NICNAME (nic_names[n], the names a user sees on a real DGX H100:
 * mlx5_0, mlx5_3, mlx5_4, mlx5_5, mlx5_6, mlx5_9, mlx5_10, mlx5_11), PREFIXi/cpu.
 * Endpoints: GPUs, the CPU, and the NICs (so a NIC's DMA to host memory has a route); with
 * nvls (NVLink SHARP, on by the H100 and B200 presets) the NVSwitches too, so that collectives
 * can send to the switch that reduces and receive what it multicasts.  The CPU
 * forwards (the root complex carries PCIe peer-to-peer between root ports, so GPU g reaches
 * NIC n != g through it); GPUs do not (GPU-to-GPU traffic crosses the NVSwitch, 2 hops, which
 * is shorter than PCIe through the CPU, 4 hops).
 * Every node of the server carries server = i - 1 (0-based) for the route tables.
 *
 * gpudirect: recorded with weft_graph_set_gpudirect; when off, every GPU's staging node is the
 * CPU (sim/graph.h), so the models stage NIC traffic through host memory and it crosses the
 * PCIe uplink twice; when on, the NIC reads and writes GPU memory through the PCIe switch.
 *
 * Presets ([server] preset = dgx-h100 | dgx-b200 | dgx-a100): the GPUs, NICs, NVLink, PCIe
 * and NIC rates and the NIC names of an NVIDIA DGX server, from its user guide and data sheet
 * (cited in server.c and doc/servers.md).  A key the experiment sets (in any file it includes,
 * or with --set) overrides the preset; the others take the preset's value.  The table's
 * defaults are the dgx-h100 preset's, so `weft params server` shows them.  A preset keeps one
 * logical NVSwitch (nvswitches = 1): the chips of every DGX act as one non-blocking crossbar.
 */
#ifndef WEFT_TOPOLOGIES_SERVER_H
#define WEFT_TOPOLOGIES_SERVER_H

#include "sim/graph.h"
#include "sim/params.h"

/* The presets, in the order of the key's choices. */
typedef enum {
    WEFT_SERVER_DGX_H100,
    WEFT_SERVER_DGX_B200,
    WEFT_SERVER_DGX_A100,
} WeftServerPreset;

typedef struct {
    int preset; /* WeftServerPreset */
    guint64 gpus, nics, nvswitches;
    guint64 nvlink_rate_bps;
    weft_time_t nvlink_latency_ps;
    guint64 pcie_rate_bps;
    weft_time_t pcie_latency_ps;
    guint64 nic_rate_bps;
    gboolean gpudirect;
    gboolean nvls; /* the NVSwitch reduces and multicasts (NVLink SHARP): it is an endpoint */
    char *name_prefix;
    char **nic_names;
} WeftServerParams;

/* The [server] group's table. */
const WeftParamSpec *weft_server_params (void);

/**
 * weft_server_read:
 * Reads [server] of @exp into @p: the table's defaults, then the preset's value for each key
 * the experiment does not set, then the keys it sets.  Errors as weft_params_read
 * (WEFT_CONFIG_ERROR, "FILE: [server] KEY: ..."), among them an unknown preset
 * (WEFT_CONFIG_ERROR_VALUE, listing the presets).  Call weft_params_clear on @p even on error.
 */
gboolean weft_server_read (WeftServerParams *p, const WeftExperiment *exp, GError **error);

/**
 * weft_server_preset_set:
 * Sets every field a preset gives (gpus, nics, nvlink_rate, pcie_rate, nic_rate, nic_names)
 * to preset @preset's value, and p->preset to @preset; the other fields are left alone.  For
 * code that builds servers without a file.
 */
void weft_server_preset_set (WeftServerParams *p, WeftServerPreset preset);

/* Checks @p; errors name "[server] KEY: ". */
gboolean weft_server_check (const WeftServerParams *p, GError **error);

/**
 * weft_server_add:
 * Adds server number @index (0-based; named PREFIX(index+1)) to @g and stores its NIC node ids
 * in @nics_out (p->nics entries).  The NICs' fabric ports are left for the caller to cable.
 */
void weft_server_add (WeftGraph *g, const WeftServerParams *p, guint index, guint32 *nics_out);

#endif /* WEFT_TOPOLOGIES_SERVER_H */
