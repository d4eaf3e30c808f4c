/* workloads/workload.h - workload generators: from [workload.NAME] groups to a list of flows.
 *
 * Generation happens before the run, all at once, so the flows of a run are known up front
 * (and written to the trace as they finish).  Each group draws from its own RNG stream,
 * derived from the run seed and the group's name, so adding a group changes no other group's
 * flows.
 *
 * Kinds (`kind = ...`):
 *   flows        explicit list: inline `flows = SRC>DST SIZE [START]; ...` or `file = x.csv`
 *                (CSV columns src,dst,size[,start] with units, '#' comments, optional header)
 *   permutation  every selected host sends to exactly one other and receives from exactly one
 *                (a random derangement, or `pattern = shift` with `shift = K`)
 *   incast       `senders` hosts (or a list) to one `receiver`
 *   all_to_all   every selected host to every other
 *   nccl-test    an nccl-tests sweep of one collective (workloads/workload_coll.c)
 *   ib_write_bw, ib_write_lat   perftest between a device and a peer (workloads/workload_perf.c)
 *   training     data-parallel training steps: gradient buckets all-reduced while the
 *                backward pass runs, optionally a tensor-parallel all-reduce per server
 *                (workloads/workload_train.c)
 * Sizes: `flow_size = 1MiB` (fixed), or `size_dist = exponential|lognormal|pareto|uniform`
 * with its parameters (size_mean, size_sigma or size_mu, size_shape, size_min/size_max), or
 * `size_cdf = FILE` (an empirical CDF: `bytes percent` per line, linear interpolation between
 * points; workloads/flowsize.h).  Starts: `start = 0us` (all at once, plus optional `jitter`), or
 * `arrival = poisson` at `load` (fraction of each sender's link rate: its fabric link in the
 * graph) from `start`, for `duration` and/or until `count` flows in the group.  With poisson,
 * a permutation sender always sends to its partner, an incast sender to the receiver, and an
 * all_to_all sender to a uniformly random other host per flow.
 *
 * Hosts are the graph's endpoints of kind HOST (or GPU where there are no HOSTs) unless a
 * `hosts = a;b;host0..host7` list narrows them; node names are checked
 * (WEFT_CONFIG_ERROR_NODE, with a suggestion).  A key that the group's kind, size
 * distribution or arrival process does not use is refused (WEFT_CONFIG_ERROR_UNKNOWN_KEY,
 * "[workload.x] receiver: not used by kind = permutation"), never silently ignored.
 * Relative file names (flow-list CSV, size CDF) resolve against the file that set the key.
 */
#ifndef WEFT_WORKLOADS_WORKLOAD_H
#define WEFT_WORKLOADS_WORKLOAD_H

#include <glib.h>

#include "sim/experiment.h"
#include "sim/graph.h"
#include "sim/params.h"
#include "sim/time.h"

typedef struct {
    guint32 id;         /* dense: its index in the output array */
    guint32 src, dst;   /* node ids (endpoints) */
    guint32 group;      /* index into the workload names array */
    guint64 size_bytes; /* application payload, >= 1 */
    weft_time_t start_ps;
    weft_time_t delay_ps; /* after its dependencies are met (collective step latency) */
    double efficiency;    /* 0, or the fraction of its path's bottleneck rate it is paced at */
    guint32 coll;         /* collective instance it belongs to, or G_MAXUINT32 */
    guint32 conn;         /* 0, or a connection: flows of one connection and destination leave
                             their source one after another, in start order (a queue pair's
                             messages; NCCL's slices on a channel) */
    guint16 layout;       /* 0; or, in a collective laid out once per staging epoch (GPUDirect
                             off for a window of time, sim/graph.h), epoch + 1 of its layout:
                             the flow runs only if the collective starts in that epoch */
    guint8 sl;            /* InfiniBand service level (workload key `sl`) */
} WeftFlowSpec;
/* Ordered by size, without padding holes: a spec is kept in every flow record (models/transport.h)
 * and generated for every flow, 2.1 million in the flagship sweep. */
G_STATIC_ASSERT (sizeof (WeftFlowSpec) == 64);

/* Flow @after may start only once flow @before has been delivered (ids index the flows). */
typedef struct {
    guint32 before, after;
} WeftFlowDep;

/* Roles of a collective instance: a benchmark iteration (kind = nccl-test), or part of a
 * training step (kind = training): a data-parallel gradient bucket's all-reduce, or the
 * step's tensor-parallel all-reduce inside one server. */
typedef enum { WEFT_COLL_ROLE_BENCH, WEFT_COLL_ROLE_DP_BUCKET, WEFT_COLL_ROLE_TP } WeftCollRole;

/* One collective operation: its flows are ids [first_flow, first_flow + n_flows).  Its flows
 * without a dependency inside it start once the collective may start: at the latest of
 * @gap_ps after collective @gate has completed (or at @gap_ps, an absolute time, when @gate
 * is G_MAXUINT32) and, for each WeftCollGate naming it, that gate's gap after its collective
 * has completed. */
typedef struct {
    guint32 group;
    int op;       /* WeftCollOp */
    gint8 algo;   /* WeftCollAlgo it ran with; -1: point-to-point (alltoall, sendrecv) */
    guint8 proto; /* WeftNcclProto (workloads/nccl_tune.h) */
    guint64 bytes, count;
    char type[16], redop[16]; /* as nccl-tests names them: "bfloat16" needs 9 bytes */
    gint32 root;
    guint32 n_ranks;
    guint32 rank_first; /* its ranks' node ids: coll_ranks[rank_first .. + n_ranks) */
    guint8 in_place, warmup;
    guint32 iteration;
    double bus_factor;
    guint32 first_flow, n_flows;
    /* With GPUDirect off for a window of time (sim/graph.h), a collective whose layout
     * differs between staging epochs has one layout per epoch among its flows (their
     * spec.layout) and n_layouts = the epochs; otherwise n_layouts is 1.  Bit e of
     * staged_layouts: layout e (bit 0: the only one) stages some transfer through host
     * memory (GPUDirect off on a rank's server). */
    guint16 n_layouts;
    guint64 staged_layouts;
    guint32 gate;
    weft_time_t gap_ps;
    guint8 role; /* WeftCollRole */
    /* Training only (role != BENCH): */
    guint32 step;           /* the step, from 0 (iteration holds it too) */
    guint32 index;          /* a bucket: its number (0 is ready first); TP: its group */
    guint32 dp_group;       /* a bucket: its data-parallel group (the ranks' TP index) */
    weft_time_t compute_ps; /* the step's compute (forward + backward) time */
    weft_time_t ready_ps;   /* a bucket: when its gradients are ready, after the compute
                               starts (TP: 0) */
} WeftCollInstance;

/* A further gate of a collective (besides its own @gate): collective @after may start no
 * sooner than @gap_ps after collective @before has completed.  Many gates make a join (a
 * training step waits for every data-parallel group); a collective may gate many others. */
typedef struct {
    guint32 before, after;
    weft_time_t gap_ps;
} WeftCollGate;

/* The most flows the workloads may make: what the memory left after everything else the run
 * builds would hold (cli/footprint.h), so that a collective whose flows the estimate before
 * generating cannot count (weft_workload_estimate_flows) is refused as it grows past it,
 * before it has taken that memory. */
typedef struct {
    guint64 max_flows;
    guint64 flow_bytes; /* one flow's estimated memory */
    guint64 bytes;      /* the memory left for flows */
    char *limit;        /* which limit, as a phrase ("--max-memory", ...; owned) */
} WeftFlowBudget;

/**
 * weft_workload_generate:
 * Reads every [workload.NAME] group of @exp and appends the flows to @flows (GArray of
 * WeftFlowSpec), sorted by start time, ties in generation order (group order, then each
 * group's own order), with id = index in @flows (dense from 0); collective workloads
 * (kind = nccl-test, training) and perftest's (dependencies only) also append dependencies
 * to @deps (WeftFlowDep), collective instances to @colls (WeftCollInstance), further gates
 * between them to @coll_gates (WeftCollGate) and their ranks' node ids to @coll_ranks
 * (guint32) - with any of the four NULL they are refused; appends each group's NAME
 * (transfer full strings) to @names.  Errors: WEFT_CONFIG_ERROR_* naming file, group and key.
 * An experiment without workload groups is an error (nothing to simulate).  @budget (may be
 * NULL: none): more flows than its max_flows are refused, naming the group.  On error @flows
 * and @names are left as they were.  Same @exp, @g and @seed: the same flows.
 */
gboolean weft_workload_generate (const WeftExperiment *exp, const WeftGraph *g, guint64 seed,
                                 GArray *flows, GArray *deps, GArray *colls, GArray *coll_gates,
                                 GArray *coll_ranks, GPtrArray *names, const WeftFlowBudget *budget,
                                 GError **error);

/**
 * weft_workload_estimate_flows:
 * The flows @exp's workload groups would make on a topology of @n_hosts default hosts (its
 * hosts, else its GPUs) and @n_endpoints endpoints (no list names more), from the parameters
 * alone and without generating them, for a memory
 * estimate made before anything is built: explicit inline lists, permutations (one flow per
 * host), incasts (one per sender) and all-to-all (n(n - 1) with fixed arrivals); Poisson
 * arrivals with a count, that count.  Not counted (0): CSV flow files, Poisson arrivals
 * without a count, and the collectives and perftest kinds.  A group whose keys are wrong
 * counts 0 (generating it will say why).
 */
guint64 weft_workload_estimate_flows (const WeftExperiment *exp, guint64 n_hosts,
                                      guint64 n_endpoints);

/* ---- perftest (kind = ib_write_bw | ib_write_lat; workloads/workload_perf.c) ---------------- */

#define WEFT_PERFTEST_MAX_SIZES 32

/* What a perftest group runs.  Its flows, in generation order (their id order, since they
 * share one start): per size, ib_write_bw's iters x qps messages (message k of QP q at
 * k x qps + q), or ib_write_lat's iters ping-pongs (ping k at 2k, its pong at 2k + 1). */
typedef struct {
    gboolean latency;     /* ib_write_lat; else ib_write_bw */
    guint32 device, peer; /* node ids */
    guint64 iters, tx_depth, qps;
    guint n_sizes;
    guint64 sizes[WEFT_PERFTEST_MAX_SIZES];
} WeftPerftestSpec;

/* One size's figures, as perftest computes them. */
typedef struct {
    guint64 bytes, iterations;
    double peak_bps, avg_bps, msg_rate_pps; /* ib_write_bw */
    guint64 *samples_ps; /* ib_write_lat: one-way latencies (half round trips); owned */
    gsize n_samples;
} WeftPerftestResult;

/** Reads [@group] ("workload.NAME") of @exp: TRUE with @spec filled when it is a perftest
 * kind; FALSE when it is another kind (no error) or its keys are wrong (WEFT_CONFIG_ERROR). */
gboolean weft_workload_perftest_spec (const WeftExperiment *exp, const WeftGraph *g,
                                      const char *group, WeftPerftestSpec *spec, GError **error);
/* Flows the group generates in all. */
guint64 weft_workload_perftest_n_flows (const WeftPerftestSpec *spec);
/** Size @s's figures from the group's flows' start and finish times (arrays in generation
 * order, weft_workload_perftest_n_flows() long); FALSE when one of its flows did not finish.
 * Free @out with weft_workload_perftest_result_clear(). */
gboolean weft_workload_perftest_measure (const WeftPerftestSpec *spec, guint s,
                                         const weft_time_t *start_ps, const weft_time_t *finish_ps,
                                         const gboolean *finished, WeftPerftestResult *out);
void weft_workload_perftest_result_clear (WeftPerftestResult *r);

/* For `weft params`: the kinds and their tables (common keys first).  NULL-terminated. */
typedef struct {
    const char *kind;
    const char *help;
    const WeftParamSpec *spec;
} WeftWorkloadKind;
const WeftWorkloadKind *weft_workload_kinds (void);
const WeftParamSpec *weft_workload_common_params (void);

#endif /* WEFT_WORKLOADS_WORKLOAD_H */
