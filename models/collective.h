/* models/collective.h - NCCL-style collectives expanded into point-to-point transfers with
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
 *   tree  all-reduce on a double binary tree (NCCL 2.4+): half the data reduces up one tree
 *         and broadcasts down, half on the complementary tree, chunk-pipelined.
 *   all-to-all and send/recv: direct transfers, no steps.
 * Ring order: ranks are ordered so that consecutive ranks inside a server are NVLink
 * neighbours and the hop between servers goes from GPU g of one server to GPU g of the next
 * (channel c starts its ring at local GPU c mod gpus-per-server), so inter-server traffic of
 * channel c stays on rail c, as NCCL arranges rings on rail-optimised fabrics.  With PXN on, a
 * transfer between GPUs on different rails of different servers is sent over NVLink to the
 * GPU of the sender's server on the destination's rail first, then across the fabric on that
 * rail (two transfers, the second depending on the first).
 */
#ifndef WEFT_MODELS_COLLECTIVE_H
#define WEFT_MODELS_COLLECTIVE_H

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

typedef enum { WEFT_COLL_RING, WEFT_COLL_TREE } WeftCollAlgo;

typedef struct {
    WeftCollOp op;
    WeftCollAlgo algo;
    guint64 bytes;            /* nccl-tests' size: the per-rank buffer (all-gather: the
                                 output buffer; see weft_collective_bus_factor) */
    guint n_ranks;
    const guint32 *ranks;     /* node ids, in the caller's order (ring order is derived) */
    guint root;               /* broadcast / reduce: index into ranks */
    guint channels;           /* >= 1 */
    guint64 chunk_bytes;      /* pipelining slice, >= 1 */
    weft_time_t step_latency_ps; /* added before every step's transfers start */
    gboolean pxn;
    const WeftGraph *graph;   /* node server / rail for ring order and PXN; borrowed */
} WeftCollSpec;

typedef struct {
    guint32 src, dst;         /* node ids */
    guint64 bytes;
    guint32 channel;
    weft_time_t delay_ps;     /* after its dependencies (or the collective's start) */
} WeftCollXfer;

typedef struct {
    guint32 before, after;    /* indices into the transfers array */
} WeftCollDep;

/**
 * weft_collective_expand:
 * Appends @spec's transfers to @xfers (WeftCollXfer) and dependencies to @deps (WeftCollDep,
 * indices relative to the first transfer appended by this call).  Transfers of zero bytes are
 * not emitted.  Errors (WEFT_CONFIG_ERROR_VALUE): fewer than 2 ranks for a collective that
 * needs them, a root out of range.
 */
gboolean weft_collective_expand (const WeftCollSpec *spec, GArray *xfers, GArray *deps,
                                 GError **error);

/* nccl-tests' bus-bandwidth factor: all-reduce 2(n-1)/n, all-gather and reduce-scatter
 * (n-1)/n, all-to-all (n-1)/n, broadcast, reduce and send/recv 1. */
double weft_collective_bus_factor (WeftCollOp op, guint n_ranks);

/* "all_reduce", "all_gather", ... (nccl-tests' binary names without _perf) and back. */
const char *weft_collective_op_name (WeftCollOp op);
gboolean weft_collective_op_from_name (const char *name, WeftCollOp *op);

#endif /* WEFT_MODELS_COLLECTIVE_H */
