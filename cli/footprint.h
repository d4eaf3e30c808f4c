/* cli/footprint.h - the memory a run needs, estimated before anything is built, and the memory
 * it may use.
 *
 * A fabric the parameter ranges allow can still be far too large for the machine (a k = 256
 * fat tree needs tens of GiB).  Before building, weft estimates the peak memory of the graph,
 * its route tables, the models and the flows from the topology's parameters (sim/graph.h
 * WeftGraphSize, topologies/topology.h weft_topology_size) and the workload's
 * (weft_workload_estimate_flows), and refuses the run (bad input, exit 2) when the estimate
 * exceeds the smallest of: --max-memory, the address-space limit (RLIMIT_AS, `ulimit -v`), the
 * memory.max of the cgroup it runs in (cgroup v2) and the machine's physical memory.  A topology
 * file's size is only known once read: it is checked then, before its routes are computed.
 * Flows the estimate cannot count before generating (collectives, perftest, CSV files) are
 * bounded as they are generated instead: the memory left once everything else is estimated
 * holds so many (weft_footprint_flow_budget), and more are refused, naming the workload group.
 * The terms of the estimate and how close it comes to measured peaks: doc/scale.md.
 * Not estimated: what grows while the run goes (packets in flight, events, trace buffers).
 */
#ifndef WEFT_CLI_FOOTPRINT_H
#define WEFT_CLI_FOOTPRINT_H

#include "sim/experiment.h"
#include "sim/graph.h"
#include "workloads/workload.h"

typedef struct {
    WeftGraphSize size;
    gboolean known;  /* FALSE: the topology's size is not known before it is built */
    guint64 n_flows; /* estimated (workloads/workload.h) */
    /* estimated bytes */
    guint64 base;   /* the process as it stands (resident, or virtual against RLIMIT_AS) */
    guint64 graph;  /* nodes, names, ports, links */
    guint64 routes; /* route tables, routing engine and forwarding table */
    guint64 models; /* switch, NIC and port models, and the fabric's per-port state */
    guint64 flows;  /* flow state */
    guint64 total;
} WeftFootprint;

/**
 * weft_footprint_estimate:
 * Estimates @exp's peak memory: from the parameters when @g is NULL (fp->known is FALSE for a
 * topology file), from @g's counts otherwise.  @models: count the models and flows too (a run),
 * or only the graph and its routes (`weft topo`).  Errors are @exp's bad [topology] parameters,
 * as weft_topology_build gives them.
 */
gboolean weft_footprint_estimate (const WeftExperiment *exp, const WeftGraph *g, gboolean models,
                                  WeftFootprint *fp, GError **error);

/**
 * weft_footprint_limit:
 * The memory this process may use: the smallest of @max_memory (0: none), RLIMIT_AS, the
 * cgroup's memory.max and physical memory; *@what (may be NULL) gets which one, as a phrase
 * ("--max-memory", "the address-space limit (ulimit -v)", ...).  (transfer full for *@what)
 */
guint64 weft_footprint_limit (guint64 max_memory, char **what);

/**
 * weft_footprint_check:
 * Refuses (FALSE, WEFT_CONFIG_ERROR_RANGE, one line "FILE: [topology] ...: needs about X GiB
 * (graph, routes, models, flows), more than the Y GiB LIMIT allows") an estimate above the
 * limit; TRUE when it fits or is not known yet.
 */
gboolean weft_footprint_check (const WeftExperiment *exp, const WeftFootprint *fp,
                               guint64 max_memory, GError **error);

/**
 * weft_footprint_build_topology:
 * weft_topology_build with the memory checks: refuses @exp (as weft_footprint_check) before
 * generating its graph when the parameters tell its size, and again with the graph's exact
 * counts before computing its routes.  @models: count the models and flows of a run too.
 * (transfer full)
 */
WeftGraph *weft_footprint_build_topology (const WeftExperiment *exp, gboolean models,
                                          guint64 max_memory, GError **error);

/**
 * weft_footprint_flow_budget:
 * The flows @exp's workloads may make on @g (built, with its routes), in *@budget: the memory
 * weft_footprint_limit allows less the process as it stands and the models' estimate
 * (weft_footprint_estimate), over one flow's estimated memory; never fewer than the estimate
 * counted.  It bounds what the estimate cannot count before generating (the collectives' and
 * perftest's flows, CSV files): generation refuses more (weft_workload_generate).  budget->limit is
 * owned by the caller.
 */
void weft_footprint_flow_budget (const WeftExperiment *exp, const WeftGraph *g, guint64 max_memory,
                                 WeftFlowBudget *budget);

/* The bytes of one flow's state a run of @exp allocates: its WeftFlow and the per-fabric
 * congestion-control and Ultra Ethernet state its fabric uses (weft_transport_flow_bytes once
 * built), from the experiment's [fabric], [ibcc], [dcqcn] and [ecn] keys as written. */
gsize weft_footprint_flow_state_bytes (const WeftExperiment *exp);

/* Reads a --max-memory value (a size with a unit, e.g. 8GiB) into *@bytes; FALSE with a
 * message naming the option otherwise. */
gboolean weft_footprint_parse_max (const char *text, guint64 *bytes, GError **error);

/* The --max-memory option entry's help. */
#define WEFT_FOOTPRINT_MAX_HELP                                                                    \
    "refuse the run if its memory estimate exceeds SIZE, or its flows outgrow what is left "       \
    "(e.g. 8GiB; the process's own limits and physical memory apply anyway; doc/scale.md)"

/* The limit of cgroup v2: @self_cgroup is /proc/self/cgroup's text, @root where the cgroup
 * file system is mounted (/sys/fs/cgroup); the smallest memory.max of the process's cgroup and
 * its ancestors, or G_MAXUINT64 when none is set.  For tests. */
guint64 weft_footprint_cgroup_limit (const char *root, const char *self_cgroup);

#endif /* WEFT_CLI_FOOTPRINT_H */
