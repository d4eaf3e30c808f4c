/* sim/trace_schema.h - the records of a weft trace file (HDF5), each defined once.
 *
 * Each record (a row of one data set) is a list of fields below, WEFT_TRACE_<RECORD>_FIELDS,
 * one X (KIND, name, unit, doc) per field, in file order.  Everything else comes from that
 * list: the C struct (WEFT_TRACE_MEMBER, here), the field table (WeftTraceField, in
 * sim/trace_schema.c) from which the HDF5 compound types are built for the writer
 * (sim/trace.c) and the reader (analysis/trace_reader.c), the append and read functions
 * (WEFT_TRACE_RECORDS below), and the field tables of doc/hdf5-schema.md (sim/trace_doc.c:
 * `make schema-doc` rewrites them; tests/check_trace_doc fails while they differ).  So a new
 * field is one line in its list (and the code that fills it in); run `make schema-doc` and
 * bump WEFT_TRACE_SCHEMA_VERSION with it.  New fields go at the end of their list, so an
 * older file's members stay a prefix of the current layout.
 *
 * KIND is the C type and the stored type (integers little-endian, packed; see
 * sim/trace_types.h):
 *   U8 guint8 (H5T_STD_U8LE)   U32 guint32   I32 gint32   U64 guint64   F64 double (IEEE LE)
 *   NAME char[64]   KIND char[16]   SHORT char[16]: fixed-size, NUL-padded strings
 * unit: "ps", "B", "bit/s", ... or "" for ids and counts; doc: one line of Markdown, the
 * "meaning" column of the schema document.
 *
 * Units: times in picoseconds (uint64), sizes in bytes, rates in bits per second.
 */
#ifndef WEFT_SIM_TRACE_SCHEMA_H
#define WEFT_SIM_TRACE_SCHEMA_H

#include <glib.h>

#define WEFT_TRACE_SCHEMA_VERSION 11
#define WEFT_TRACE_NAME_LEN 64 /* fixed-size, NUL-padded name fields */
#define WEFT_TRACE_KIND_LEN 16
#define WEFT_TRACE_SHORT_LEN 16 /* /collectives type and redop (8 before schema 4) */

/* The field kinds: as a C member type and array suffix (for the structs), and as a value
 * (for the field tables). */
#define WEFT_TRACE_CTYPE_U8 guint8
#define WEFT_TRACE_CTYPE_U32 guint32
#define WEFT_TRACE_CTYPE_I32 gint32
#define WEFT_TRACE_CTYPE_U64 guint64
#define WEFT_TRACE_CTYPE_F64 double
#define WEFT_TRACE_CTYPE_NAME char
#define WEFT_TRACE_CTYPE_KIND char
#define WEFT_TRACE_CTYPE_SHORT char
#define WEFT_TRACE_DIM_U8
#define WEFT_TRACE_DIM_U32
#define WEFT_TRACE_DIM_I32
#define WEFT_TRACE_DIM_U64
#define WEFT_TRACE_DIM_F64
#define WEFT_TRACE_DIM_NAME [WEFT_TRACE_NAME_LEN]
#define WEFT_TRACE_DIM_KIND [WEFT_TRACE_KIND_LEN]
#define WEFT_TRACE_DIM_SHORT [WEFT_TRACE_SHORT_LEN]

typedef enum {
    WEFT_TRACE_FIELD_U8,
    WEFT_TRACE_FIELD_U32,
    WEFT_TRACE_FIELD_I32,
    WEFT_TRACE_FIELD_U64,
    WEFT_TRACE_FIELD_F64,
    WEFT_TRACE_FIELD_NAME,
    WEFT_TRACE_FIELD_KIND,
    WEFT_TRACE_FIELD_SHORT,
} WeftTraceFieldKind;

/* One struct member from one X (KIND, name, unit, doc) of a field list. */
#define WEFT_TRACE_MEMBER(kind, name, unit, doc) WEFT_TRACE_CTYPE_##kind name WEFT_TRACE_DIM_##kind;

/* /topology/nodes: one row per node. */
#define WEFT_TRACE_NODE_FIELDS(X)                                                                  \
    X (U32, id, "", "node id (index used by every other data set)")                                \
    X (NAME, name, "", "e.g. `host3`, `leaf0`")                                                    \
    X (KIND, kind, "", "`host`, `switch`, `gpu`, `nic`, ...")                                      \
    X (U32, n_ports, "", "ports on the node")                                                      \
    X (I32, tier, "", "switches: 1 leaf, 2 spine, 3 core; other nodes 0")                          \
    X (I32, rail, "",                                                                              \
       "*(schema 9)* rail: a server's NIC and its PCIe switch are on the rail of the NIC's "       \
       "index, a GPU on its NIC's; on a rail-optimised fabric a leaf on the rail it serves and a " \
       "spine of `spine_grouping = per_rail` on its rail group; -1 for every other node")
typedef struct {
    WEFT_TRACE_NODE_FIELDS (WEFT_TRACE_MEMBER)
} WeftTraceNode;

/* /topology/links: one row per full-duplex link. */
#define WEFT_TRACE_LINK_FIELDS(X)                                                                  \
    X (U32, id, "", "link id (`/links.link`, `/ports.link`)")                                      \
    X (U32, node_a, "", "one end: node id")                                                        \
    X (U32, port_a, "", "one end: port number (1-based)")                                          \
    X (U32, node_b, "", "other end: node id")                                                      \
    X (U32, port_b, "", "other end: port number (1-based)")                                        \
    X (U64, rate_bps, "bit/s", "line rate, each direction")                                        \
    X (U64, delay_ps, "ps", "propagation delay, each way")                                         \
    X (KIND, kind, "", "`fabric`, `nvlink`, `pcie`")
typedef struct {
    WEFT_TRACE_LINK_FIELDS (WEFT_TRACE_MEMBER)
} WeftTraceLink;

/* /flows: one row per flow, appended as flows finish (and, at the end, for unfinished ones). */
#define WEFT_TRACE_FLOW_FIELDS(X)                                                                  \
    X (U32, id, "", "flow id")                                                                     \
    X (U32, src, "", "sender's node id")                                                           \
    X (U32, dst, "", "receiver's node id")                                                         \
    X (U64, size_bytes, "B", "application payload")                                                \
    X (U64, start_ps, "ps", "first byte handed to the sender's transport")                         \
    X (U64, finish_ps, "ps", "last byte delivered to the receiving application; 0 if unfinished")  \
    X (U64, fct_ps, "ps", "`finish_ps - start_ps`; 0 if unfinished")                               \
    X (U64, ideal_fct_ps, "ps",                                                                    \
       "alone on an idle fabric: wire bytes / bottleneck rate + path latency")                     \
    X (F64, slowdown, "ratio", "`fct_ps / ideal_fct_ps`; 0 if unfinished")                         \
    X (U64, packets, "", "data packets (first transmissions)")                                     \
    X (U64, retransmits, "", "data packets sent again")                                            \
    X (U64, bytes_delivered, "B", "payload delivered in order to the application")                 \
    X (U8, finished, "", "1 finished, 0 still waiting at the end of the run")                      \
    X (KIND, workload, "", "the `[workload.X]` suffix, truncated")                                 \
    X (U64, ecn_marked, "",                                                                        \
       "*(schema 4)* data packets that reached the receiver marked CE (RoCE with `[ecn]`; 0 "      \
       "elsewhere)")                                                                               \
    X (U64, cnps_sent, "",                                                                         \
       "*(schema 4)* CNPs the receiver sent for this flow (DCQCN notification point: at most "     \
       "one per `[dcqcn] cnp_interval`)")                                                          \
    X (U64, cnps_received, "", "*(schema 4)* CNPs that reached the sender (reaction point)")       \
    X (U64, rate_cuts, "", "*(schema 4)* DCQCN rate decreases at the sender")                      \
    X (U64, min_rate_bps, "bit/s",                                                                 \
       "*(schema 4)* lowest DCQCN rate the flow reached (its line rate if never cut); 0 "          \
       "without DCQCN")                                                                            \
    X (U64, reorder_max, "packets",                                                                \
       "*(schema 4)* farthest out-of-order arrival: how many packets ahead of the next "           \
       "expected one (adaptive routing); 0 when every packet arrived in order")                    \
    X (U64, reorder_count, "",                                                                     \
       "*(schema 7)* data packets placed out of order (ahead of the next expected one)")           \
    X (F64, reorder_mean, "packets",                                                               \
       "*(schema 7)* mean displacement of those out-of-order packets (`reorder_count` of them); "  \
       "0 when none. The mean over every packet is `reorder_mean x reorder_count / packets`")      \
    X (U64, trims, "",                                                                             \
       "*(schema 7)* Ultra Ethernet: data packets of the flow that reached the receiver trimmed "  \
       "to their header; 0 elsewhere")                                                             \
    X (U64, nacks, "",                                                                             \
       "*(schema 7)* Ultra Ethernet: NACKs that reached the sender (RUD: one per trimmed "         \
       "packet; ROD: the NAKs of its gaps); 0 elsewhere")                                          \
    X (U64, timeouts, "", "*(schema 7)* retransmission timeouts at the sender")                    \
    X (U32, evs_used, "",                                                                          \
       "*(schema 7)* Ultra Ethernet: distinct entropy values (paths) the flow sent on; 0 "         \
       "elsewhere")                                                                                \
    X (U64, window_decreases, "",                                                                  \
       "*(schema 7)* Ultra Ethernet NSCC: multiplicative decreases of the window (like every "     \
       "sender counter here, up to the flow's finish, when the row is written)")                   \
    X (U64, quick_adapts, "", "*(schema 7)* Ultra Ethernet NSCC: quick adapts of the window")
typedef struct {
    WEFT_TRACE_FLOW_FIELDS (WEFT_TRACE_MEMBER)
} WeftTraceFlow;

/* /links: samples per link and direction at [trace] interval; counters are per interval. */
#define WEFT_TRACE_LINK_SAMPLE_FIELDS(X)                                                           \
    X (U64, time_ps, "ps", "end of the interval")                                                  \
    X (U32, link, "", "link id")                                                                   \
    X (U8, direction, "", "0: `node_a → node_b`, 1: `node_b → node_a`")                            \
    X (U64, bytes, "B", "wire bytes whose transmission finished in the interval")                  \
    X (U64, packets, "", "packets whose transmission finished in the interval")                    \
    X (U64, max_queue_bytes, "B", "largest depth of the egress queue feeding this direction")      \
    X (F64, mean_queue_bytes, "B", "time-weighted mean depth over the interval")                   \
    X (U64, drops, "", "packets dropped at that egress queue in the interval")                     \
    X (U64, stall_ps, "ps",                                                                        \
       "*(schema 2)* time in the interval with data waiting in that egress queue and no "          \
       "credits to send it; the per-interval view of `/ports.xmit_wait_ps`. On RoCE, PFC "         \
       "pause is Ethernet's analogue: the time that egress was paused by PAUSE frames in the "     \
       "interval, summed over priorities (only the RDMA priority is paused today). 0 on "          \
       "fabrics without link-level flow control")                                                  \
    X (U64, ecn_marks, "", "*(schema 4)* packets marked CE (ECN) at that egress in the interval")  \
    X (U64, trims, "",                                                                             \
       "*(schema 7)* data packets trimmed to their header at that egress in the interval (Ultra "  \
       "Ethernet)")                                                                                \
    X (U64, rcv_errors, "",                                                                        \
       "*(schema 10)* packets of this direction that arrived corrupted in the interval (a "        \
       "`bit-errors` fault): the receiving end's PortRcvErrors and SymbolErrorCounter")            \
    X (U32, link_downed, "",                                                                       \
       "*(schema 10)* the sending end's LinkDownedCounter increments in the interval (the link "   \
       "went Down)")
typedef struct {
    WEFT_TRACE_LINK_SAMPLE_FIELDS (WEFT_TRACE_MEMBER)
} WeftTraceLinkSample;

/* /buffers: samples of each switch's shared buffer ([switch] buffer_sharing) at [trace]
 * interval; none for switches without one. */
#define WEFT_TRACE_BUFFER_SAMPLE_FIELDS(X)                                                         \
    X (U64, time_ps, "ps", "end of the interval")                                                  \
    X (U32, node, "", "the switch's node id")                                                      \
    X (U64, used_bytes, "B", "bytes held at the end of the interval")                              \
    X (U64, max_bytes, "B",                                                                        \
       "the most held at any time in the interval (never above `total_bytes`)")                    \
    X (U64, total_bytes, "B", "the pool's size (`[switch] shared_buffer`)")                        \
    X (U64, drops, "",                                                                             \
       "packets refused in the interval: lossy ones over their queue's threshold, and any "        \
       "that found the pool full (lossless ones are also PFC violations in "                       \
       "`/ports.lossless_drops`)")
typedef struct {
    WEFT_TRACE_BUFFER_SAMPLE_FIELDS (WEFT_TRACE_MEMBER)
} WeftTraceBufferSample;

/* /ports: final 64-bit counters per connected port, written at the end, in the spirit of
 * perfquery -x (64-bit) and ibstat; the perfquery and ibstat names are in the docs. */
#define WEFT_TRACE_PORT_FIELDS(X)                                                                  \
    X (U32, node, "", "node id")                                                                   \
    X (U32, port, "", "port number (1-based)")                                                     \
    X (U32, link, "", "link id on this port")                                                      \
    X (U64, tx_bytes, "B",                                                                         \
       "wire bytes sent. perfquery `PortXmitData` counts 4-byte words: this / 4 (rounded "         \
       "down)")                                                                                    \
    X (U64, rx_bytes, "B", "wire bytes received. perfquery `PortRcvData`: this / 4")               \
    X (U64, tx_packets, "", "packets sent (perfquery `PortXmitPkts`)")                             \
    X (U64, rx_packets, "", "packets received (perfquery `PortRcvPkts`)")                          \
    X (U64, drops, "",                                                                             \
       "packets bound for this egress queue and dropped: tail drops, shared-buffer refusals "      \
       "(`/buffers`), PFC watchdog discards (perfquery `PortXmitDiscards`)")                       \
    X (U64, max_queue_bytes, "B", "largest egress queue depth")                                    \
    X (U64, busy_ps, "ps", "time the transmitter was sending")                                     \
    X (U64, xmit_wait_ps, "ps",                                                                    \
       "*(schema 2)* perfquery `PortXmitWait`: time with data to send and no credits to send "     \
       "it. IB's `PortXmitWait` counts ticks of an implementation-specific length; weft "          \
       "stores picoseconds and does not convert. On RoCE: time this egress was paused by "         \
       "PFC, summed over priorities. 0 on fabrics without link-level flow control")                \
    X (U64, lossless_drops, "",                                                                    \
       "*(schema 2)* (weft's own) packets dropped for lack of buffer on a lossless fabric "        \
       "(credit-based or PFC). A correct lossless fabric never does this: nonzero is a bug in "    \
       "a model or its configuration. On RoCE: packets dropped at this ingress above xoff + "      \
       "headroom (PFC lossless violations: `[pfc] headroom` too small)")                           \
    X (U64, symbol_errors, "",                                                                     \
       "*(schema 2)* perfquery `SymbolErrorCounter`: minor link errors; weft counts one per "      \
       "packet received corrupted (`[fault.NAME] kind = bit-errors`), 0 elsewhere")                \
    X (U64, link_downed, "",                                                                       \
       "*(schema 2)* perfquery `LinkDownedCounter`: times the link went down "                     \
       "(`[fault.NAME] kind = link-down` or `link-flap`)")                                         \
    X (U64, rcv_errors, "",                                                                        \
       "*(schema 2)* perfquery `PortRcvErrors`: packets received with errors and discarded "       \
       "(`[fault.NAME] kind = bit-errors`)")                                                       \
    X (U64, rate_bps, "bit/s", "*(schema 2)* ibstat `Rate`: the rate of the port's link")          \
    X (U8, state, "",                                                                              \
       "*(schema 2)* ibstat `State` (`PortState`) as IB numbers it: 1 `Down`, 2 `Init`, 3 "        \
       "`Armed`, 4 `Active`; 0 not recorded (IB also has 5 `ActiveDefer`). Every port is "         \
       "`Active` unless a `[fault.NAME]` left it `Down` at the end of the run")                    \
    X (U8, phys_state, "",                                                                         \
       "*(schema 2)* ibstat `Physical state` (`PortPhysicalState`) as IB numbers it: 2 "           \
       "`Polling`, 3 `Disabled`, 5 `LinkUp`; 0 not recorded (IB's others: 1 `Sleep`, 4 "           \
       "`PortConfigurationTraining`, 6 `LinkErrorRecovery`, 7 `PhyTest`). `LinkUp`, or "           \
       "`Polling` for a port a fault left `Down`")                                                 \
    X (KIND, link_layer, "", "*(schema 2)* ibstat `Link layer`: `InfiniBand` or `Ethernet`")       \
    X (U64, ecn_marks, "", "*(schema 4)* packets marked CE (ECN) at this egress")                  \
    X (U64, trims, "",                                                                             \
       "*(schema 7)* data packets trimmed to their header at this egress (Ultra Ethernet)")        \
    X (U64, llr_replays, "",                                                                       \
       "*(schema 8)* frames this egress sent again because the far end received them "             \
       "corrupted (Ultra Ethernet link-level retry, `[uet] llr`); 0 elsewhere")
typedef struct {
    WEFT_TRACE_PORT_FIELDS (WEFT_TRACE_MEMBER)
} WeftTracePort;

/* /paths (schema 4): the hops of each flow's data packets, written with the flow's /flows row,
 * when routing decides per flow (ecmp or static; under adaptive routing each packet chooses
 * and no rows are written).  Hop 0 leaves the sender. */
#define WEFT_TRACE_PATH_HOP_FIELDS(X)                                                              \
    X (U32, flow, "", "flow id (`/flows.id`)")                                                     \
    X (U32, hop, "", "0 for the sender's port, then 1, 2, ... to the last switch")                 \
    X (U32, node, "", "the node the packet leaves")                                                \
    X (U32, port, "", "through this port (1-based)")                                               \
    X (U32, link, "", "onto this link (`/topology/links.id`)")
typedef struct {
    WEFT_TRACE_PATH_HOP_FIELDS (WEFT_TRACE_MEMBER)
} WeftTracePathHop;

/* /pfc (schema 4): PFC per port and priority at [trace] interval; a row for each (port,
 * priority) with anything to report in the interval.  Counters are per interval. */
#define WEFT_TRACE_PFC_SAMPLE_FIELDS(X)                                                            \
    X (U64, time_ps, "ps", "end of the interval")                                                  \
    X (U32, node, "", "node id")                                                                   \
    X (U32, port, "", "port number (1-based)")                                                     \
    X (U32, link, "", "link id on this port")                                                      \
    X (U8, priority, "", "802.1p priority 0-7 (RDMA on `[pfc] rdma_priority`, 3 by default)")      \
    X (U64, pauses_sent, "",                                                                       \
       "PAUSE frames with a pause time sent upstream (crossing xoff, and refreshes while "         \
       "above it)")                                                                                \
    X (U64, resumes_sent, "", "PAUSE frames with pause time 0 (below xon) sent upstream")          \
    X (U64, pauses_received, "", "PAUSE frames with a pause time that reached this port")          \
    X (U64, paused_ps, "ps",                                                                       \
       "time this port's egress was paused at this priority in the interval")                      \
    X (U64, violations, "",                                                                        \
       "packets dropped at this ingress above xoff + headroom (lossless violations)")              \
    X (U64, max_ingress_bytes, "B",                                                                \
       "deepest ingress accounting of this (port, priority) in the interval")
typedef struct {
    WEFT_TRACE_PFC_SAMPLE_FIELDS (WEFT_TRACE_MEMBER)
} WeftTracePfcSample;

/* /dcqcn (schema 4): the DCQCN state of every flow under way (started, not finished) at each
 * [trace] interval, when DCQCN is on. */
#define WEFT_TRACE_DCQCN_SAMPLE_FIELDS(X)                                                          \
    X (U64, time_ps, "ps", "sample time")                                                          \
    X (U32, flow, "", "flow id")                                                                   \
    X (U64, rate_bps, "bit/s", "current rate R_C (the flow's line rate until its first cut)")      \
    X (U64, target_bps, "bit/s", "target rate R_T")                                                \
    X (F64, alpha, "",                                                                             \
       "alpha as of its last update (it decays between CNPs; the decay is applied at the next "    \
       "CNP)")                                                                                     \
    X (U64, cnps_received, "", "CNPs received since the flow started")                             \
    X (U64, rate_cuts, "", "rate decreases since the flow started")
typedef struct {
    WEFT_TRACE_DCQCN_SAMPLE_FIELDS (WEFT_TRACE_MEMBER)
} WeftTraceDcqcnSample;

/* /uet (schema 7): the Ultra Ethernet sender state of every flow under way (started, not
 * finished) at each [trace] interval, on the ultra-ethernet fabric. */
#define WEFT_TRACE_UET_SAMPLE_FIELDS(X)                                                            \
    X (U64, time_ps, "ps", "sample time")                                                          \
    X (U32, flow, "", "flow id")                                                                   \
    X (U64, cwnd_bytes, "B", "NSCC congestion window; 0 with `[nscc] enabled = false`")            \
    X (U64, credit_bytes, "B",                                                                     \
       "RCCC: the sender's credit not yet spent (its initial credit, then what the receiver's "    \
       "pulls granted; full packets on the wire); 0 without RCCC")                                 \
    X (U64, inflight, "", "data packets sent and neither acknowledged nor known lost")             \
    X (U64, acked, "", "data packets acknowledged so far (the cumulative point under ROD)")        \
    X (U64, retransmits, "", "data packets sent again so far")                                     \
    X (U64, nacks, "", "trim NACKs received so far")                                               \
    X (U32, evs_used, "", "distinct entropy values sent on so far")
typedef struct {
    WEFT_TRACE_UET_SAMPLE_FIELDS (WEFT_TRACE_MEMBER)
} WeftTraceUetSample;

/* /collectives (schema 3; algo and proto schema 5): one row per collective operation, appended
 * as each finishes. */
#define WEFT_TRACE_COLLECTIVE_FIELDS(X)                                                            \
    X (U32, id, "", "collective instance, dense in start order")                                   \
    X (KIND, workload, "", "the `[workload.X]` suffix, truncated")                                 \
    X (KIND, op, "",                                                                               \
       "nccl-tests' name: `all_reduce`, `all_gather`, `reduce_scatter`, `broadcast`, "             \
       "`reduce`, `alltoall`, `sendrecv`")                                                         \
    X (U64, bytes, "B",                                                                            \
       "nccl-tests' `size` column: the larger of the send and receive buffer of one rank (for "    \
       "all-gather the gathered output, for reduce-scatter the input)")                            \
    X (U64, count, "elements",                                                                     \
       "nccl-tests' `count` column: elements of `type` per call (for all-gather, "                 \
       "reduce-scatter and all-to-all that is `bytes` / element size / `n_ranks`)")                \
    X (SHORT, type, "",                                                                            \
       "element type as nccl-tests names it: `float`, `half`, `bfloat16`, `int32`, ...")           \
    X (SHORT, redop, "",                                                                           \
       "reduction as nccl-tests names it: `sum`, `prod`, `max`, `min`, `avg`; `none` for "         \
       "all-gather, all-to-all and broadcast (send/recv prints nccl-tests' default, `sum`)")       \
    X (I32, root, "",                                                                              \
       "root rank of broadcast and reduce; -1 for the others (nccl-tests prints -1)")              \
    X (U32, n_ranks, "", "ranks (GPUs) taking part")                                               \
    X (U8, in_place, "", "0 out-of-place, 1 in-place (nccl-tests runs both for every size)")       \
    X (U8, warmup, "",                                                                             \
       "1 for a warm-up iteration, which nccl-tests leaves out of its averages; 0 for a timed "    \
       "one")                                                                                      \
    X (U32, iteration, "",                                                                         \
       "index within its size and placement (warm-up and timed ones counted separately)")          \
    X (U64, start_ps, "ps", "the first rank started the operation")                                \
    X (U64, finish_ps, "ps", "the last rank finished it")                                          \
    X (U64, time_ps, "ps", "`finish_ps - start_ps`")                                               \
    X (F64, algbw_gbs, "GB/s",                                                                     \
       "`bytes / time`, GB = 10^9 bytes, as nccl-tests (this iteration alone)")                    \
    X (F64, busbw_gbs, "GB/s",                                                                     \
       "`algbw_gbs` × the op's bus factor: all-reduce 2(n-1)/n; all-gather, reduce-scatter "      \
       "and all-to-all (n-1)/n; broadcast, reduce and sendrecv 1 (nccl-tests' definitions)")       \
    X (SHORT, algo, "",                                                                            \
       "*(schema 5)* NCCL algorithm it ran with, as NCCL names it: `Ring`, `Tree`, `NVLS`, "       \
       "`NVLSTree`, `CollNetDirect`; `P2P` for "                                                   \
       "alltoall and sendrecv (point-to-point sends); empty before schema 5")                      \
    X (SHORT, proto, "",                                                                           \
       "*(schema 5)* NCCL protocol it ran with: `LL`, `LL128`, `Simple` "                          \
       "(doc/nccl-protocols.md); empty before schema 5")                                           \
    X (U8, staged, "",                                                                             \
       "*(schema 11)* 1 when it ran with GPUDirect RDMA off on a rank's server, its data to and "  \
       "from other servers staged in host memory (`[server] gpudirect = false`, or a "             \
       "`gpudirect-off` fault in effect when it started: doc/faults.md); 0 otherwise")
typedef struct {
    WEFT_TRACE_COLLECTIVE_FIELDS (WEFT_TRACE_MEMBER)
} WeftTraceCollective;

/* /faults (schema 6): one row per fault event ([fault.NAME], models/fault.h), in time order,
 * with both ends' counters at that moment: what a trace can tell of a port before and after. */
#define WEFT_TRACE_FAULT_FIELDS(X)                                                                 \
    X (U64, time_ps, "ps", "when it happened")                                                     \
    X (NAME, fault, "", "the group that caused it: `fault.NAME`")                                  \
    X (KIND, kind, "", "the fault's kind: `link-down`, `link-flap`, `degraded` or `bit-errors`")   \
    X (KIND, action, "", "what changed: `down`, `up` (the link's state), `rate` or `ber`")         \
    X (U32, link, "", "graph link id (row of `/topology/links`): both directions")                 \
    X (F64, value, "",                                                                             \
       "`rate`: the link's new rate in bit/s; `ber`: its new bit-error rate; 0 for `down`/`up`")   \
    X (U64, a_link_downed, "", "LinkDownedCounter of the link's `a` end, after the event")         \
    X (U64, b_link_downed, "", "LinkDownedCounter of the link's `b` end, after the event")         \
    X (U64, a_rcv_errors, "", "PortRcvErrors of the `a` end so far")                               \
    X (U64, b_rcv_errors, "", "PortRcvErrors of the `b` end so far")                               \
    X (U64, a_tx_bytes, "B", "bytes the `a` end has sent so far (`/ports.tx_bytes` until then)")   \
    X (U64, b_tx_bytes, "B", "bytes the `b` end has sent so far")
typedef struct {
    WEFT_TRACE_FAULT_FIELDS (WEFT_TRACE_MEMBER)
} WeftTraceFault;

/* The records, one R (one, many, Struct, data set, chunk rows, since) each, in the order
 * the writer creates their data sets: "one" names the writer's
 * weft_trace_append_<one>() (sim/trace.h), "many" the reader's weft_trace_reader_<many>()
 * (analysis/trace_reader.h) and the record's WeftTraceRecord weft_trace_record_<one>; chunk
 * rows is the data set's chunk size and the writer's buffer; since is the schema version
 * that added the data set (an older file reads as 0 rows). */
#define WEFT_TRACE_RECORDS(R)                                                                      \
    R (node, nodes, WeftTraceNode, "/topology/nodes", 1024, 1)                                     \
    R (link, links, WeftTraceLink, "/topology/links", 1024, 1)                                     \
    R (flow, flows, WeftTraceFlow, "/flows", 4096, 1)                                              \
    R (link_sample, link_samples, WeftTraceLinkSample, "/links", 4096, 1)                          \
    R (port, ports, WeftTracePort, "/ports", 1024, 1)                                              \
    R (collective, collectives, WeftTraceCollective, "/collectives", 1024, 3)                      \
    R (path_hop, paths, WeftTracePathHop, "/paths", 4096, 4)                                       \
    R (pfc_sample, pfc_samples, WeftTracePfcSample, "/pfc", 4096, 4)                               \
    R (dcqcn_sample, dcqcn_samples, WeftTraceDcqcnSample, "/dcqcn", 4096, 4)                       \
    R (buffer_sample, buffer_samples, WeftTraceBufferSample, "/buffers", 4096, 4)                  \
    R (fault, faults, WeftTraceFault, "/faults", 1024, 6)                                          \
    R (uet_sample, uet_samples, WeftTraceUetSample, "/uet", 4096, 7)

/* A field of a record, from its X (KIND, name, unit, doc). */
typedef struct {
    const char *name;
    gsize offset; /* in the struct */
    WeftTraceFieldKind kind;
    const char *unit; /* "" for ids and counts */
    const char *doc;  /* one line of Markdown */
} WeftTraceField;

/* A record, from its R (...) line; built in sim/trace_schema.c. */
typedef struct {
    const char *dataset;     /* "/flows" */
    const char *struct_name; /* "WeftTraceFlow" */
    gsize row_size;          /* sizeof the struct */
    guint chunk_rows;
    guint since;                  /* schema version that added the data set */
    const WeftTraceField *fields; /* in file order */
    guint n_fields;
} WeftTraceRecord;

/* weft_trace_record_node, _link, _flow, ...: one per record. */
#define WEFT_TRACE_DECLARE_RECORD(one, ...) extern const WeftTraceRecord weft_trace_record_##one;
WEFT_TRACE_RECORDS (WEFT_TRACE_DECLARE_RECORD)
#undef WEFT_TRACE_DECLARE_RECORD

/* Every record in the order of WEFT_TRACE_RECORDS, NULL-terminated. */
extern const WeftTraceRecord *const weft_trace_records[];

/* /meta attributes written when the file is opened. */
typedef struct {
    const char *weft_version;
    const char *git_revision;
    const char *experiment_text; /* resolved experiment (includes, overrides) */
    const char *experiment_path;
    guint64 seed;
    const char *glib_version, *hdf5_version, *gsl_version; /* filled by trace.c when NULL */
} WeftTraceMeta;

/* /meta attributes written at the end (and by the interrupt path).  Whether the closed trace
 * is complete follows from the status: see weft_trace_status_complete(). */
typedef enum {
    WEFT_TRACE_STATUS_RUNNING =
        0, /* on disk while the run goes on; a file still saying this was killed */
    WEFT_TRACE_STATUS_DONE = 1,            /* workload completed */
    WEFT_TRACE_STATUS_DURATION = 2,        /* stopped at [experiment] duration */
    WEFT_TRACE_STATUS_HANG = 3,            /* watchdog saw no progress for hang_timeout */
    WEFT_TRACE_STATUS_INTERRUPTED = 4,     /* SIGINT / SIGTERM */
    WEFT_TRACE_STATUS_FAILED = 5,          /* runtime failure */
    WEFT_TRACE_STATUS_WORKLOAD_FAILED = 6, /* the workload failed as its application would see
                                              it (an RDMA connection out of retries) */
} WeftTraceStatus;

typedef struct {
    WeftTraceStatus status;
    guint64 sim_time_ps;
    double wall_time_s;
    guint64 events;
    const char *message; /* failure reason (one line) or hang report (a line per waiting flow
                            and deadlock cycle); may be NULL */
} WeftTraceEnd;

/* The /meta status text of a status ("running", "done", ...; "unknown" if out of range),
 * and back; FALSE for a text that names no status.  HDF5 types: sim/trace_types.h. */
const char *weft_trace_status_name (WeftTraceStatus status);
gboolean weft_trace_status_from_name (const char *text, WeftTraceStatus *status);

/* Whether a trace closed with @status holds the whole run (/meta complete = 1): done,
 * duration, hang and workload-failed do - a hang trace is complete data about a hung run, a
 * workload-failed one about a run whose workload failed; interrupted and failed (a runtime
 * failure of weft) stop short, and running was never closed. */
gboolean weft_trace_status_complete (WeftTraceStatus status);

#endif /* WEFT_SIM_TRACE_SCHEMA_H */
