/* network/network.h - the assembly step, above models/ and workloads/: from the fabric graph
 * and the experiment to model instances (one switch model per switch node, one NIC model per
 * host, a port per connected link end), the flow table and the flows' start events
 * (network/build.c); the traces that need to see every model (network/sample.c); the run's
 * results (network/stats.c) and the diagnosis of a hang or a failed workload
 * (network/diagnose.c).
 *
 * Reads [fabric], [switch], [transport], every [workload.NAME] and, through the fault
 * mechanism (models/fault.h), every [fault.NAME].  weft_network_check_groups() checks what an
 * experiment may contain.
 */
#ifndef WEFT_NETWORK_NETWORK_H
#define WEFT_NETWORK_NETWORK_H

#include "models/fabric.h"
#include "models/port.h"
#include "models/registry.h"
#include "models/transport.h"
#include "sim/graph.h"
#include "sim/sim.h"
#include "sim/trace.h"
#include "workloads/workload.h"

typedef struct {
    WeftSim *sim;           /* borrowed */
    const WeftGraph *graph; /* borrowed; must outlive the network */
    WeftFabric fabric;
    WeftTransport tp;
    GArray *specs;      /* WeftFlowSpec as generated; emptied once the transport holds them */
    GArray *deps;       /* WeftFlowDep */
    GArray *colls;      /* WeftCollInstance */
    GArray *coll_ranks; /* guint32 node ids, indexed by the instances' rank_first */
    GArray *coll_gates; /* WeftCollGate: the collectives' further gates */
    GPtrArray *workload_names;
    gboolean *flow_groups;     /* per workload group: whether its flows are what the user asks
                                  about (analysis/headline.h), else pieces of collectives or tests */
    WeftModel **node_model;    /* per node id; NULL for nodes without a model */
    GPtrArray *ports;          /* WeftPort *, borrowed from the models, every connected port */
    weft_time_t *node_latency; /* per node id */
    guint32 *node_cut_bytes; /* per node id: a cut-through switch forwards after this many bytes */
    GPtrArray *switches;     /* WeftSwitch *, every switch model, in model order */
    GPtrArray *nics;         /* WeftNic *, every host or GPU model, in model order */
    WeftMechEnv env;         /* what the mechanisms' hooks see: points at the above */
    WeftTrace *trace;        /* borrowed, may be NULL */
} WeftNetwork;

/** Instantiates models for @graph in @sim and schedules the workload, whose flows @budget
 * bounds (may be NULL: weft_workload_generate).  Errors name the file, group and key
 * (WEFT_CONFIG_ERROR).  (transfer full) */
WeftNetwork *weft_network_build (const WeftExperiment *exp, const WeftGraph *graph, WeftSim *sim,
                                 const WeftFlowBudget *budget, GError **error);
void weft_network_free (WeftNetwork *net);

/* Checks the experiment's groups against everything weft knows: the engine's own groups and
 * every mechanism's. */
gboolean weft_network_check_groups (const WeftExperiment *exp, GError **error);

/* `weft params`: appends to @out the description of group @want (NULL: every group; a
 * group name, "topology", "topology.GENERATOR", "workload" or "workload.KIND") and returns
 * whether anything matched; @names (may be NULL) gets every name @want may take, for
 * suggestions (g_free'd strings). */
gboolean weft_network_describe_params (const char *want, GString *out, GPtrArray *names);

/* The groups `weft params` takes by name, comma-separated (topology and workload, which take
 * a generator or a kind, aside).  (transfer full) */
char *weft_network_group_list (void);

/* `weft report`: appends each mechanism's lines for a trace written with @experiment_text
 * (its /meta copy) from the data sets in @t, in registry order.  FALSE when the text no longer
 * configures (a trace of an older weft, a file it named that is gone): @out then holds what
 * came before. */
gboolean weft_network_report (const char *experiment_text, const WeftTraceTables *t, GString *out,
                              GError **error);

/* The packet format of the fabric @experiment_text configures, as a run resolves it: the
 * largest payload and the wire bytes each data packet adds.  FALSE as weft_network_report(). */
gboolean weft_network_packet_format (const char *experiment_text, guint64 *mtu_bytes,
                                     guint64 *header_bytes, GError **error);

/* The run summary's body, from @st (weft_network_stats): the engine's lines (flows, FCT,
 * queues, drops, retransmits), then each mechanism's of this fabric in registry order, then
 * the packet count. */
void weft_network_summary (const WeftNetwork *net, const WeftNetworkStats *st, GString *out);

/* Writes /topology, and starts /links sampling every @interval (0: none). */
void weft_network_attach_trace (WeftNetwork *net, WeftTrace *trace, weft_time_t interval);

/* After the run: rows for unfinished flows, a last link sample, and /ports. */
void weft_network_finish_trace (WeftNetwork *net);


void weft_network_stats (const WeftNetwork *net, WeftNetworkStats *st);

/* InfiniBand: checks, for every link direction and VL, that the sender's available credits +
 * credits of its packets on the wire + credits of packets buffered at the receiver (counted
 * from the packets themselves) + the receiver's pending credits + credits in FCPs on the way
 * back = the receiver's advertised buffer, and that the receiver's own count of buffered
 * credits matches the packets.  Returns the number of violations, described in @report (may
 * be NULL). */
guint weft_network_check_credits (const WeftNetwork *net, GString *report);

/* RoCE: looks for a cycle of PFC-paused egress ports, each holding data of one priority that
 * waits, at the next switch, behind the next paused port.  Returns the number of ports in the
 * first cycle found (0: none) and describes it in @report (may be NULL). */
guint weft_network_pfc_deadlock (const WeftNetwork *net, GString *report);

/* The /collectives row of collective instance @id (finished). */
void weft_network_collective_row (const WeftNetwork *net, guint32 id, WeftTraceCollective *row);

/** Workload @group's perftest figures, when it is a perftest kind (ib_write_bw,
 * ib_write_lat): fills @spec and appends one WeftPerftestResult per size to @results, up to the
 * first size whose flows did not all finish (free each with
 * weft_workload_perftest_result_clear()).  FALSE for other kinds.  @exp: the experiment the
 * network was built from. */
gboolean weft_network_perftest (const WeftNetwork *net, const WeftExperiment *exp, guint group,
                                WeftPerftestSpec *spec, GArray *results);
/* One training step of a kind = training workload, from its finished collectives. */
typedef struct {
    guint32 step;
    weft_time_t start_ps;   /* the earliest (start - ready) of its collectives */
    weft_time_t time_ps;    /* to the later of its last collective's finish and the compute's end */
    weft_time_t compute_ps; /* configured forward + backward time */
    weft_time_t exposed_ps; /* communication not hidden by the compute: time - compute */
} WeftTrainStep;

/* Appends to @steps (WeftTrainStep) the steps of workload group @group whose collectives all
 * finished, in order; none for a group that is not kind = training.  (workloads/workload_train.c
 * says how a step is bounded.) */
void weft_network_training_steps (const WeftNetwork *net, guint group, GArray *steps);

/* One line per unfinished flow (at most @max lines, then a count of the rest): endpoints,
 * bytes delivered, and the links of its path.  (transfer full) */
char *weft_network_describe_waiting (const WeftNetwork *net, guint max);

/* After a run that stopped with WEFT_SIM_WORKLOAD_FAILED: one line on the connection that ran
 * out of retries (net->tp.failed) - the completion error NCCL reports ("transport retry
 * counter exceeded", status 12), the flow, its timeouts, its progress and its path; or, when a
 * NIC removed mid-run failed it, that NIC, its fatal event as NCCL prints it, and the flow.
 * (transfer full) */
char *weft_network_describe_failure (const WeftNetwork *net);

#endif /* WEFT_NETWORK_NETWORK_H */
