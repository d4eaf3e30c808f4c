/* sim/partition.h - splitting the fabric graph over MPI ranks (doc/parallel.md).
 *
 * The [parallel] group:
 *   partition        auto | unit | graph: how nodes are grouped before they are spread
 *   lookahead_floor  the smallest delay a link cut between two ranks may have
 *   gather_bytes     the trace rows held over all ranks that are gathered and written during
 *                    the run (network/window.h, weft_window_on_flush)
 *
 * Nodes are first merged into indivisible atoms: every node of one server; a node with a single
 * cabled port with its only neighbour (a plain host stays with its switch); the two ends of every
 * link whose delay is below lookahead_floor (and, with weft_partition_compute_with, the two
 * ends of a release below it); with `unit`, every node of one unit (the graph's
 * `su` field: a fat tree's pods, a rail-optimised fabric's scalable units or pods).  Atoms are
 * ordered by their lowest node id and weighed by their cabled ports (each packet-hop is an event
 * at a port).  `unit` fills ranks with atoms in that order to equal shares of the weight; `graph`
 * grows each rank's part by breadth-first search over the atom graph from the lowest atom not
 * yet placed until it holds its share (the graph-growing start of multilevel partitioners,
 * without refinement); `auto` is `unit` when some node records a unit, else `graph`.
 *
 * Invariants callers rely on: the result depends only on the graph, the configuration and the
 * rank count (so every rank computes the same one); no cut link has a delay below the floor;
 * atoms never split; every rank gets at least one node.  The lookahead is the smallest graph
 * delay of a cut link: a wire's delay adds the receiver's forwarding latency to it, so it is a
 * lower bound of the time any packet takes across a cut.
 */
#ifndef WEFT_SIM_PARTITION_H
#define WEFT_SIM_PARTITION_H

#include <glib.h>

#include "sim/experiment.h"
#include "sim/graph.h"
#include "sim/params.h"

typedef enum {
    WEFT_PARTITION_AUTO,
    WEFT_PARTITION_UNIT,
    WEFT_PARTITION_GRAPH,
} WeftPartitionBy;

typedef struct {
    int by; /* WeftPartitionBy */
    weft_time_t lookahead_floor;
    guint64 gather_bytes;
} WeftPartitionConfig;

extern const WeftParamSpec weft_partition_params[];

/* Reads [parallel] (all keys optional); errors as weft_params_read. */
gboolean weft_partition_config_read (const WeftExperiment *exp, WeftPartitionConfig *cfg,
                                     GError **error);

typedef struct {
    guint n_ranks;
    WeftPartitionBy by;    /* as resolved: never AUTO */
    guint32 *rank_of;      /* per node id (owned) */
    guint n_atoms;         /* indivisible groups of nodes */
    guint joined;          /* releases whose two ends were joined (weft_partition_compute_with) */
    guint32 cut_links;     /* links whose ends lie on two ranks */
    weft_time_t lookahead; /* smallest delay of a cut link; WEFT_TIME_NEVER when none is cut */
    guint64 *weight;       /* per rank: cabled ports of its nodes (owned) */
} WeftPartition;

/**
 * weft_partition_compute:
 * Splits @g over @n_ranks (>= 1).  Errors (WEFT_CONFIG_ERROR, through weft_experiment_fail on
 * @exp, so "FILE: [parallel] partition: ..." naming the key and the reason):
 *  - _VALUE: partition = unit on a fabric that records no units;
 *  - _RANGE: fewer atoms than ranks (the message gives both counts and what merged them).
 * On error *@out is left cleared.
 */
gboolean weft_partition_compute (const WeftGraph *g, const WeftPartitionConfig *cfg, guint n_ranks,
                                 const WeftExperiment *exp, WeftPartition *out, GError **error);
/* The same, with @releases (guint32 node pairs, may be NULL): the node that receives a flow and
 * the node that sends a flow it releases with a delay below lookahead_floor (another node: a
 * release across ranks bounds every window by its delay, doc/parallel.md).  Each pair joins its
 * two ends into one atom, as a link below the floor does, in the order given, while more atoms
 * than ranks are left: pairs that would leave fewer are skipped (they stay cut, and bound the
 * window or are refused, network/window.c). */
gboolean weft_partition_compute_with (const WeftGraph *g, const WeftPartitionConfig *cfg,
                                      guint n_ranks, const GArray *releases,
                                      const WeftExperiment *exp, WeftPartition *out,
                                      GError **error);
void weft_partition_clear (WeftPartition *p);

const char *weft_partition_by_name (WeftPartitionBy by);

#endif /* WEFT_SIM_PARTITION_H */
