/* workloads/collective.h - NCCL-style collectives expanded into point-to-point transfers with
 * step dependencies, pipelined in chunks.
 *
 * A collective over n ranks (GPUs, or hosts on non-AI topologies) becomes transfers (src rank,
 * dst rank, bytes, channel) and dependency edges (a transfer starts when all its predecessors
 * have been delivered, plus the per-step latency).  The network then carries each transfer as
 * a flow; nothing here knows about packets or events.
 *
 * Algorithms (as NCCL runs them):
 *   ring  all-reduce = reduce-scatter then all-gather, 2(n-1) steps per channel; all-gather
 *         and reduce-scatter n-1 steps; broadcast and reduce pipelined along the ring from/to
 *         the root.  Each channel is its own ring carrying 1/channels of the data; the data
 *         of a step is cut into slices of at most `chunk` bytes, and slice j of step s leaves
 *         a rank as soon as slice j of step s-1 has arrived there (pipelining).
 *   tree  all-reduce as NCCL builds it (2.4+, src/graph/trees.cc and connect.cc): per channel a
 *         chain through each server's GPUs over NVLink and a double binary tree between
 *         servers; half the data reduces up one tree and broadcasts down, half on the
 *         complementary tree, chunk-pipelined.
 *   nvls  (NVLink SHARP, one server) all-reduce, reduce-scatter and all-gather through the
 *         server's NVSwitch, which reduces what the GPUs send it and multicasts what they
 *         store: the switch is an endpoint of the transfers (topologies/server.h, nvls).
 *   collnet_direct  (InfiniBand SHARP, NCCL's CollNetDirect) all-reduce: inside each server a
 *         direct reduce-scatter over NVLink to one head GPU per shard, each head's shard up
 *         through its NIC to the aggregation switches, which reduce it and send the result
 *         back down, then a direct all-gather from each head.
 *   nvls_tree  (NCCL 2.18+ across nodes on NVSwitch systems) all-reduce: NVLS inside each
 *         server reduces head h's shard to GPU h, the heads h of all servers reduce it up and
 *         broadcast it down NCCL's double tree, and each head's switch multicasts the result.
 *   all-to-all and send/recv: direct transfers, no steps.
 *
 * Exact construction.
 *
 * Ring order.  Ranks are grouped by server (WeftNode.server): the groups come in the order of
 * their first rank in the caller's list; a rank with server -1 (or with no graph) is a group
 * of its own, so plain hosts keep the caller's order.  Inside a group, ranks are sorted by
 * (rail, node id); a rank's local index is its place in that order.  Channel c's ring is the
 * concatenation of the groups, each rotated to start at local index (c mod group size): in an
 * 8-GPU server, channel c runs GPU c, c+1, ..., 7, 0, ..., c-1, then GPU c of the next server.
 * So every inter-server hop of channel c lands on local GPU c and leaves from local GPU c-1
 * (mod 8): as in NCCL's rings (NET c, GPU c, ..., last GPU, NET c), the exit GPU's hop
 * crosses rails, and PXN (below) relays it over NVLink to GPU c, so that the fabric leg runs
 * GPU c -> GPU c, on rail c.  With PXN off it goes direct and the network carries it from the
 * exit GPU's own NIC to the destination's rail.
 *
 * Byte splits (nccl-tests' conventions for `bytes`).  split(T, k, i) = T/k + (i < T%k): T
 * cut into k parts whose sizes differ by at most one byte and sum to T.  Channel c carries
 * part c of its op's data; a part is cut into slices of chunk_bytes (the last one shorter).
 *   all_reduce:     bytes is the per-rank buffer; channel c's part split(bytes, channels, c)
 *                   is cut into n chunks split(part, n, k); at step s (0 <= s < 2(n-1)) ring
 *                   position p sends chunk (p - s) mod n to position p+1 (steps < n-1 reduce,
 *                   the rest gather).  Each rank sends 2(n-1)/n x bytes when n divides the
 *                   parts; the total is always 2(n-1) x bytes.
 *   all_gather:     bytes is the output buffer; each rank contributes bytes/n (rounded down,
 *                   as nccl-tests rounds its count to a multiple of n), split over channels;
 *                   at step s (0 <= s < n-1) position p sends chunk (p - s) mod n (its own at
 *                   step 0).  Total n(n-1) x (bytes/n).
 *   reduce_scatter: bytes is the input buffer; each rank ends with bytes/n (rounded down);
 *                   at step s position p sends chunk (p - s - 1) mod n, so position p ends
 *                   holding chunk p.  Total n(n-1) x (bytes/n).
 *   broadcast:      channel c's part of bytes goes root -> root+1 -> ... (n-1 hops along
 *                   channel c's ring); hop s is step s.  Total (n-1) x bytes.
 *   reduce:         the same chain ending at the root: root+1 -> root+2 -> ... -> root.
 *   alltoall:       nccl-tests' size is the whole per-rank buffer, split in n: every rank
 *                   sends bytes/n (rounded down, as nccl-tests does) to each other rank, in
 *                   channels transfers split(bytes/n, channels, c); all at once, no steps.
 *   sendrecv:       rank i (caller's order) sends bytes to rank i+1 mod n, split over
 *                   channels; no steps.
 *   tree all_reduce: channel c's part is halved, split(part, 2, t) on tree t (t = 0, 1).
 * Dependencies.  Ring ops: slice j of step s from position p depends on exactly one transfer,
 * slice j of step s-1 into p (from p-1); step 0 depends on nothing.  Slices of one chunk
 * share its size at every step (a rank forwards the chunk it received), so slices line up.
 * Tree.  Ranks are grouped into nodes as for the ring (servers; a plain host is a node of one),
 * nodes numbered 0..N-1 in group order.  Channel c's chain in node v is channel c's ring
 * through it: its first GPU, then the next, ...; each GPU but the first hangs under the one
 * before it.  Between nodes, NCCL's double binary tree over 0..N-1 (ncclGetDtree): in tree 0
 * node 0 is the root and node q > 0 with lowest set bit b hangs under (q - b) | 2b, or under
 * q - b when that is >= N; tree 1 is tree 0 mirrored (q -> N-1-q) when N is even and shifted
 * (q -> q+1 mod N) when N is odd.  A node is its parent's first child when it comes before it
 * in the binary tree's own numbering, else its second.  NCCL's balanced pattern (the tree
 * graph's first choice, init.cc) places the links at the chain's ends: a node's first GPU
 * sends up to its parent node and takes its second child; its second GPU (its first again in
 * a node of one) takes the first child.  So every rank has at most two children.  Slice j
 * going up from p depends on slice j coming up from each child of p; the root sends slice j
 * down to each child once all of its children's slice j arrived; slice j going down from p
 * depends on slice j from p's parent.  Both trees' transfers of channel c use connection c.
 * Critical path: 2 x depth steps, depth = the chain + about log2 N nodes.
 * NVLSTree.  Groups as for CollNetDirect (every server the same size g, local index h = head
 * h, owner of shard h; every rank a GPU on its server's NVLink SHARP switches).  Per channel c
 * and shard h, slice by slice (all heads' slice j before slice j + 1), slice j on tree
 * (c + j) mod 2 of the double tree above over the servers: in every server each GPU sends the
 * slice to switch (h + j) mod K and the switch sends the sum to head h; each non-root head
 * sends it to its parent's head h once its sum and its children's arrived; the root's head
 * sends it down to its children once its sum and theirs arrived, and each head passes it on;
 * a head holding the result stores it into the switch, which multicasts it to every GPU of
 * the server (connection c + C).  Per GPU and direction: S (g + 1) / g over NVLink; per head
 * and direction through its NIC: S / g x (1 + the number of its children in the slice's
 * tree), averaged over both trees.
 * Latency.  Every transfer of a step (and every alltoall / sendrecv transfer) carries a
 * delay_ps: step_latency_ps when its two ranks are in one server, net_step_latency_ps when
 * they are not (or are plain hosts), so a ring all-reduce's critical path holds 2(n-1) of them.
 * The transfers that depend on nothing (the collective's first) carry base_latency_ps on top,
 * once per collective.
 * Protocol lines.  Data moves in lines of line_data bytes that take line_bytes on the wire
 * (NCCL's LL: 8 in 16; LL128: 120 in 128; Simple, or 0/0: the data itself): a transfer of d
 * bytes of data carries ceil(d / line_data) x line_bytes bytes (WeftCollXfer.bytes); slices
 * (chunk_bytes) and the byte splits above count data.
 * NVLS.  Switch k of a GPU is its k-th NVLink peer that is an NVSwitch and an endpoint (K of
 * them); every rank must be a GPU of one server with such switches.  The n ranks are the heads
 * in the caller's order; head h owns shard h.  Per channel c: all_reduce's part split(bytes,
 * C, c) is cut into n shards split(part, n, h); reduce_scatter's and all_gather's shard h is
 * split(bytes / n, C, c).  Each shard is cut into slices; slice j of shard h goes through
 * switch (h + j) mod K.  all_reduce and reduce_scatter: every rank sends the slice to the
 * switch (channel c; multimem.ld_reduce reads every GPU's copy through the switch, the head's
 * own too), and the switch sends the sum to head h once all n have arrived.  all_reduce and
 * all_gather: the head sends its slice to the switch (after the sum arrived, for all_reduce)
 * and the switch sends it to every rank, the head too (multimem.st), on channel c + C, so the
 * stores and multicasts do not queue behind the reductions of one connection.  Bytes per GPU
 * and direction for all_reduce: S (n + 1) / n.
 * CollNetDirect.  Ranks are grouped by server as for the ring (a plain host is a group of one);
 * every group must have the same size g.  Local index h of every server is head h, owner of
 * shard h: per channel c, part split(bytes, C, c), shard split(part, g, h), slices.  The
 * aggregation switch of a rank is the fabric switch its gateway NIC (or the host itself) is
 * cabled to, when that switch is an endpoint (topologies, [infiniband] sharp); the heads h of
 * all servers form tree h: when they hang off one switch it is the root, else their switches
 * send their partial sums to the lowest-id switch that is an endpoint and cabled to each of
 * them (the root).  Slice j: every other local GPU sends it to head h (channel c); the head
 * sends it up to its switch once all of them arrived; a switch that is not the root sends its
 * partial sum up once all its heads' arrived, the root sends the sum down to its switches (or
 * its heads) once all its inputs arrived, and each switch to its heads; each head then sends
 * it to every other local GPU (channel c + C).  Per GPU and direction: 2 (g - 1) / g x S over
 * NVLink, S / g through the NIC.
 * PXN.  When pxn is set and a transfer goes between GPUs of different servers and different
 * rails, it becomes src -> R (R: the lowest-id GPU of src's server on dst's rail; NVLink),
 * carrying the step latency, then R -> dst with delay 0, depending on the first; predecessors
 * gate the first, successors wait for the second.  Without such a GPU it goes direct.  A GPU
 * whose own NIC was removed from its server ([fault.NAME] kind = nic-removed) counts as on its
 * gateway NIC's rail, and its own rail's R is the R of that rail: the missing rail's traffic
 * goes over NVLink to the GPU beside the NIC that stands in, and out through it.
 * Ranks: n = 1 is legal and yields no transfers (nccl-tests runs on one GPU; nothing crosses
 * a link), as does bytes = 0.
 */
#ifndef WEFT_WORKLOADS_COLLECTIVE_H
#define WEFT_WORKLOADS_COLLECTIVE_H

#include <glib.h>

#include "sim/graph.h"
#include "sim/time.h"

typedef enum {
    WEFT_COLL_ALL_REDUCE,
    WEFT_COLL_ALL_GATHER,
    WEFT_COLL_REDUCE_SCATTER,
    WEFT_COLL_BROADCAST,
    WEFT_COLL_REDUCE,
    WEFT_COLL_ALL_TO_ALL,
    WEFT_COLL_SEND_RECV,
    WEFT_COLL_N_OPS
} WeftCollOp;

typedef enum {
    WEFT_COLL_RING,
    WEFT_COLL_TREE,
    WEFT_COLL_NVLS,           /* NVLink SHARP: the NVSwitch reduces and multicasts */
    WEFT_COLL_COLLNET_DIRECT, /* InfiniBand SHARP: the fabric switches reduce */
    WEFT_COLL_NVLS_TREE,      /* NVLS inside each server, a tree between servers */
    WEFT_COLL_N_ALGOS
} WeftCollAlgo;

typedef struct {
    WeftCollOp op;
    WeftCollAlgo algo;
    guint64 bytes; /* nccl-tests' size: the per-rank buffer (all-gather: the
                      output buffer; see weft_collective_bus_factor) */
    guint n_ranks;
    const guint32 *ranks;            /* node ids, in the caller's order (ring order is derived) */
    guint root;                      /* broadcast / reduce: index into ranks */
    guint channels;                  /* >= 1 */
    guint64 chunk_bytes;             /* pipelining slice of data, >= 1 */
    weft_time_t step_latency_ps;     /* before each step's transfer inside a server */
    weft_time_t net_step_latency_ps; /* before each step's transfer between servers */
    weft_time_t base_latency_ps;     /* once, before the collective's first transfers */
    guint32 line_bytes, line_data;   /* wire bytes per line_data bytes of data; 0: the data */
    gboolean pxn;
    const WeftGraph *graph; /* node server / rail for ring order and PXN; borrowed */
} WeftCollSpec;

typedef struct {
    guint32 src, dst;     /* node ids */
    guint64 bytes;        /* on the wire: the protocol's lines */
    guint64 data_bytes;   /* of the collective's data */
    guint32 channel;      /* its connection: c, or c + channels for NVLS's and CollNet's second
                             stream */
    weft_time_t delay_ps; /* after its dependencies (or the collective's start) */
} WeftCollXfer;

typedef struct {
    guint32 before, after; /* indices into the transfers array */
} WeftCollDep;

/**
 * weft_collective_expand:
 * Appends @spec's transfers to @xfers (WeftCollXfer) and dependencies to @deps (WeftCollDep,
 * indices relative to the first transfer appended by this call).  Transfers of zero bytes are
 * not emitted.  Errors (WEFT_CONFIG_ERROR_VALUE; nothing is appended): no ranks, a rank
 * listed twice or not in the graph, a root out of range, channels or chunk_bytes 0, the tree
 * algorithm for an op other than all_reduce (alltoall and sendrecv ignore algo), nvls for an
 * op other than all_reduce, reduce_scatter and all_gather or on ranks that are not GPUs of one
 * server with NVLink SHARP switches, collnet_direct for an op other than all_reduce or on
 * ranks without an aggregation switch or with servers of different sizes.
 */
gboolean weft_collective_expand (const WeftCollSpec *spec, GArray *xfers, GArray *deps,
                                 GError **error);

/* Whether weft_collective_expand would accept @spec (its size aside): the same errors. */
gboolean weft_collective_check (const WeftCollSpec *spec, GError **error);

/**
 * weft_collective_tree_parents:
 * NCCL's tree @t (0 or 1) of the double tree over ranks grouped by server (@n_groups groups,
 * group v holding positions group_start[v] .. group_start[v + 1] - 1, in chain order): fills
 * @parent (group_start[n_groups] entries) with each position's parent, G_MAXUINT32 at the
 * root.  See "Tree" above.
 */
void weft_collective_tree_parents (const guint *group_start, guint n_groups, guint t,
                                   guint *parent);

/* The NVLink SHARP switches of @gpu (its NVLink peers that are NVSwitches and endpoints), at
 * most @max of them into @out; returns how many. */
guint weft_collective_nvls_switches (const WeftGraph *g, guint32 gpu, guint32 *out, guint max);

/* The InfiniBand SHARP aggregation switch of @node: the fabric switch cabled to its gateway (a
 * server node's NIC, or a host itself) that is an endpoint; WEFT_GRAPH_NONE if there is none. */
guint32 weft_collective_sharp_switch (const WeftGraph *g, guint32 node);

/* nccl-tests' bus-bandwidth factor: all-reduce 2(n-1)/n, all-gather and reduce-scatter
 * (n-1)/n, all-to-all (n-1)/n, broadcast, reduce and send/recv 1. */
double weft_collective_bus_factor (WeftCollOp op, guint n_ranks);

/* "all_reduce", "all_gather", ... (nccl-tests' binary names without _perf) and back. */
const char *weft_collective_op_name (WeftCollOp op);
gboolean weft_collective_op_from_name (const char *name, WeftCollOp *op);

#endif /* WEFT_WORKLOADS_COLLECTIVE_H */
