/* workloads/nccl_tune.h - NCCL's choice of algorithm and protocol for a collective, made with
 * NCCL's own cost model, and what the chosen protocol means for how its transfers run.
 *
 * What it models.  NCCL picks, for every collective call, the (algorithm, protocol) pair whose
 * predicted time latency + bytes / bandwidth is smallest, from a table it computes once per
 * communicator (ncclTopoTuneModel, src/graph/tuning.cc; the pick is topoGetAlgoInfo in
 * src/enqueue.cc).  This module computes that table the same way, from the same published
 * constants, and makes the same pick, restricted by NCCL_ALGO / NCCL_PROTO-style lists.  The
 * constants are NCCL 2.20.3's (commit b6475625), for Hopper GPUs (compute capability 9.0) and
 * an Intel host CPU, as on a DGX H100; doc/nccl-protocols.md lists them with their sources.
 *
 * The communicator NCCL's model sees (WeftNcclComm): ranks, nodes (servers; a rank outside any
 * server is a node of its own), whether the GPUs of a node talk over NVLink or PCIe, and the
 * ring and tree graphs NCCL's topology search would find - channels and bandwidth per channel.
 * weft_nccl_comm_from_graph() derives them from the fabric graph's link rates; the derivation
 * (a short version of NCCL's search in src/graph/search.cc) is described at that function.
 *
 * The decision is NCCL's; the execution is the simulator's.  What the chosen protocol changes
 * in the transfers (WeftNcclExec): the data a step carries (NCCL's per-step buffer for that
 * protocol), the bytes on the wire (LL: 16-byte lines carrying 8 data bytes; LL128: 128-byte
 * lines carrying 120; Simple: the data), the overhead before each step (NCCL's per-hop latency
 * for the hop's hardware: NVLink, PCIe or the network) and a base latency once per collective.
 * How long the collective then takes comes out of the simulated network.
 *
 * Algorithms: ring, tree (all_reduce only), NVLS (NVLink SHARP: all_reduce, reduce_scatter and
 * all_gather inside one node, Simple only; NCCL 2.20 needs CollNet to run it across nodes),
 * NVLSTree (NVLS in each node, a tree between nodes: all_reduce across nodes, Simple only) and
 * CollNetDirect (InfiniBand SHARP: all_reduce, Simple only), the last three only where the
 * communicator says they can run (WeftNcclComm nvls, nvls_tree, collnet), as NCCL enables them
 * only on NVSwitch systems of compute capability 9.0 and with a CollNet (SHARP) plugin.
 * NCCL's other name, CollNetChain, is a known name that weft refuses to run.
 * alltoall and sendrecv are NCCL point-to-point operations, outside the tuning model: they run
 * with the Simple protocol.
 *
 * Left out: NCCL's tuner plugins, NCCL_*_THRESHOLD environment overrides, aggregation of
 * several operations (numPipeOps is 1), CUDA graph launch, and the GPU-side cost of LL's
 * 8-byte stores (NCCL caps LL's bandwidth far below its wire-byte bound; weft's LL runs at the
 * wire-byte bound, see doc/nccl-protocols.md).
 */
#ifndef WEFT_WORKLOADS_NCCL_TUNE_H
#define WEFT_WORKLOADS_NCCL_TUNE_H

#include <glib.h>

#include "sim/graph.h"
#include "sim/time.h"
#include "workloads/collective.h"

typedef enum { WEFT_NCCL_LL, WEFT_NCCL_LL128, WEFT_NCCL_SIMPLE, WEFT_NCCL_N_PROTOS } WeftNcclProto;

/* The communicator as NCCL's tuning model sees it. */
typedef struct {
    guint n_ranks, n_nodes;
    gboolean nvlink;     /* the GPUs of a node talk over NVLink (else PCIe) */
    guint ring_channels; /* NCCL's ring graph: channels ... */
    double ring_bw_gbs;  /* ... and bandwidth per channel, GB/s (10^9 bytes) */
    guint tree_channels; /* the tree graph, likewise */
    double tree_bw_gbs;
    guint comm_channels;      /* the communicator's channels (NCCL doubles the graph's) */
    gboolean gpudirect;       /* NICs read and write GPU memory directly (GPUDirect RDMA) */
    guint nvls_channels;      /* NCCL's NVLS graph: one channel per head GPU of the node ... */
    double nvls_bw_gbs;       /* ... at this bandwidth each */
    guint nvls_tree_channels; /* across nodes: one head per GPU with a NIC ... */
    double nvls_inter_bw_gbs; /* ... each at this inter-node bandwidth */
    /* The caller's (weft_collective_expand can run them on these ranks): NVLink SHARP on the
     * node's NVSwitch, InfiniBand SHARP on the fabric's switches. */
    gboolean nvls, collnet;
    gboolean nvls_tree; /* NVLS inside every server, a tree between servers */
} WeftNcclComm;

/* Which algorithms and protocols may be chosen: per entry 0 off, 1 on; for LL128 also 2, "on
 * where NCCL enables it by default" (intra-node NVLink), as NCCL_PROTO left unset gives. */
typedef struct {
    guint8 algo[WEFT_COLL_N_ALGOS];
    guint8 named[WEFT_COLL_N_ALGOS]; /* named in the list (not "auto", not excluded) */
    guint8 proto[WEFT_NCCL_N_PROTOS];
} WeftNcclEnable;

/* NCCL's table for one communicator: predicted latency (us) and bandwidth (GB/s, of the
 * algorithm: bytes / time) per op, algorithm and protocol; bandwidth 0 where the pair is not
 * available or not enabled. */
typedef struct {
    WeftNcclComm comm;
    double lat_us[WEFT_COLL_N_OPS][WEFT_COLL_N_ALGOS][WEFT_NCCL_N_PROTOS];
    double bw_gbs[WEFT_COLL_N_OPS][WEFT_COLL_N_ALGOS][WEFT_NCCL_N_PROTOS];
} WeftNcclTune;

/* How a collective runs once its algorithm and protocol are chosen. */
typedef struct {
    guint64 chunk_bytes;           /* data per step (a pipelining slice) */
    guint32 line_bytes, line_data; /* on the wire: line_bytes per line_data bytes of data */
    weft_time_t intra_step_ps;     /* before each step between two ranks of one node */
    weft_time_t net_step_ps;       /* before each step between nodes */
    weft_time_t base_ps;           /* once per collective */
} WeftNcclExec;

/**
 * weft_nccl_parse_algos / weft_nccl_parse_protos:
 * Parse an `algo` / `proto` value as NCCL_ALGO / NCCL_PROTO do: names separated by commas,
 * case-insensitive, or a leading '^' to enable all but the names listed; "auto" (or an empty
 * value) is NCCL's default.  The algorithm name weft does not run (collnetchain) may be
 * excluded but not enabled.  On error (WEFT_CONFIG_ERROR_VALUE, the
 * message says what was expected) @en is unchanged.
 */
gboolean weft_nccl_parse_algos (const char *text, WeftNcclEnable *en, GError **error);
gboolean weft_nccl_parse_protos (const char *text, WeftNcclEnable *en, GError **error);
/* Everything NCCL enables by default. */
void weft_nccl_enable_default (WeftNcclEnable *en);

/**
 * weft_nccl_comm_from_graph:
 * The communicator of @ranks (@n node ids of @g, at least 2) as NCCL's model sees it.
 * @nvlink_efficiency scales NVLink's line rate to the bandwidth NCCL counts on (NCCL 2.20
 * counts 20.6 GB/s per 25 GB/s NVLink 4 link, 82 %; weft passes its NVLink protocol
 * efficiency); @max_channels caps the channels of a graph (NCCL: 16; weft's `channels` key
 * when set).
 */
void weft_nccl_comm_from_graph (WeftNcclComm *comm, const WeftGraph *g, const guint32 *ranks,
                                guint n, double nvlink_efficiency, guint max_channels);

/** Fills @t with NCCL's table for @comm, the pairs @en leaves off at bandwidth 0. */
void weft_nccl_tune_init (WeftNcclTune *t, const WeftNcclComm *comm, const WeftNcclEnable *en);

/**
 * weft_nccl_tune_time_us:
 * NCCL's predicted time of @op over @bytes (its nBytes: the buffer nccl-tests reports) with
 * @algo and @proto, in microseconds; a negative value when the pair is not available.
 */
double weft_nccl_tune_time_us (const WeftNcclTune *t, WeftCollOp op, guint64 bytes,
                               WeftCollAlgo algo, WeftNcclProto proto);

/**
 * weft_nccl_tune_pick:
 * NCCL's choice for @op over @bytes: the available pair of least predicted time, ties to the
 * first in NCCL's order (tree before ring, LL before LL128 before Simple).  FALSE when no pair
 * is available (the enable lists leave nothing that runs @op).  alltoall and sendrecv are not
 * tuned: ring and Simple.
 */
gboolean weft_nccl_tune_pick (const WeftNcclTune *t, WeftCollOp op, guint64 bytes,
                              WeftCollAlgo *algo, WeftNcclProto *proto);

/**
 * weft_nccl_tune_channels:
 * The channels NCCL runs @bytes on, from @max_channels down: one fewer while the data would
 * give each of the protocol's threads less than its threshold (getChannnelThreadInfo).
 */
guint weft_nccl_tune_channels (const WeftNcclTune *t, WeftCollAlgo algo, WeftNcclProto proto,
                               guint64 bytes, guint max_channels);

/**
 * weft_nccl_tune_exec:
 * How a collective of @bytes on @channels channels runs with @algo and @proto (see
 * WeftNcclExec).
 */
void weft_nccl_tune_exec (const WeftNcclTune *t, WeftCollAlgo algo, WeftNcclProto proto,
                          guint64 bytes, guint channels, WeftNcclExec *e);

/* NCCL's names: "Tree", "Ring", "NVLS", "CollNetDirect", "NVLSTree", "LL", "LL128", "Simple". */
const char *weft_nccl_algo_name (WeftCollAlgo algo);
const char *weft_nccl_proto_name (WeftNcclProto proto);

#endif /* WEFT_WORKLOADS_NCCL_TUNE_H */
