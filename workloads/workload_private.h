/* workloads/workload_private.h - shared by the files of the workload module (workload.c: tables,
 * key checks and the driver; workload_gen.c: hosts, flow lists, arrivals and patterns).  Not
 * installed, not for other modules. */
#ifndef WEFT_WORKLOADS_WORKLOAD_PRIVATE_H
#define WEFT_WORKLOADS_WORKLOAD_PRIVATE_H

#include <gsl/gsl_rng.h>

#include "workloads/collective.h"
#include "workloads/flowsize.h"
#include "workloads/nccl_tune.h"
#include "workloads/workload.h"

enum {
    KIND_FLOWS,
    KIND_PERMUTATION,
    KIND_INCAST,
    KIND_ALL_TO_ALL,
    KIND_NCCL_TEST,
    KIND_TRAINING,
    KIND_IB_WRITE_BW,
    KIND_IB_WRITE_LAT,
    N_KINDS
};
#define KIND_CHOICES                                                                               \
    "flows|permutation|incast|all_to_all|nccl-test|training|ib_write_bw|ib_write_lat"

enum { DIST_FIXED, DIST_EXPONENTIAL, DIST_LOGNORMAL, DIST_PARETO, DIST_UNIFORM };
enum { ARRIVAL_FIXED, ARRIVAL_POISSON };
enum { PATTERN_RANDOM, PATTERN_SHIFT };

/* The keys every kind shares (common_params); ENUM fields index the choices above. */
typedef struct {
    int kind;
    guint64 flow_size;
    int size_dist;
    guint64 size_mean;
    double size_sigma, size_mu, size_shape;
    guint64 size_min, size_max;
    char *size_cdf;
    weft_time_t start, jitter;
    int arrival;
    double load;
    guint64 count;
    weft_time_t duration;
    char **hosts;
    guint64 sl;
} Common;

/* Per-kind keys, one struct per kind table. */
typedef struct {
    char **flows;
    char *file;
} FlowsParams;

typedef struct {
    int pattern;
    guint64 shift;
} PermParams;

typedef struct {
    char *receiver;
    char **senders;
} IncastParams;

typedef struct {
    int unused;
} AllToAllParams;

/* kind = nccl-test: an nccl-tests style sweep (workloads/workload_coll.c). */
typedef struct {
    int op;
    guint64 minbytes, maxbytes, stepfactor, iters, warmup_iters;
    char **gpus;
    guint64 channels;
    char *algo, *proto, *chunk, *step_latency, *base_latency; /* "auto" or a value */
    double efficiency, net_efficiency;
    gboolean pxn;
    int type;
    guint64 root;
    /* From the strings above (weft_workload_coll_parse): */
    WeftNcclEnable enable;
    guint64 chunk_bytes; /* 0: the protocol's */
    gboolean step_latency_set, base_latency_set;
    weft_time_t step_latency_ps, base_latency_ps;
} NcclParams;

/* kind = ib_write_bw | ib_write_lat (workloads/workload_perf.c). */
typedef struct {
    char *device, *peer;
    guint64 size;
    gboolean all;
    guint64 iters, tx_depth, qps;
} PerfParams;

/* The keys that describe how one collective runs, shared by kind = nccl-test and kind =
 * training (whose TrainParams embeds an NcclParams as `coll`: pass M = coll.).  One list, so
 * the two kinds parse, default and document them alike. */
/* clang-format off */
#define WEFT_WORKLOAD_COLL_PARAMS(T, M)                                                            \
    WEFT_PARAM_STRING ("algo", T, M algo, "auto",                                                \
                       "NCCL algorithms to choose from, as NCCL_ALGO: auto (NCCL's choice by "   \
                       "its cost model), ring, tree (a chain in each server, a double binary "   \
                       "tree between servers; all_reduce only), nvls (NVLink SHARP in one "      \
                       "server: all_reduce, reduce_scatter, all_gather), nvlstree (NVLS in each " \
                       "server, a tree between servers: all_reduce), collnetdirect (InfiniBand " \
                       "SHARP, [infiniband] sharp: all_reduce), a comma-separated list, or ^ "   \
                       "and the ones to exclude"),                                               \
    WEFT_PARAM_STRING ("proto", T, M proto, "auto",                                              \
                       "NCCL protocols to choose from, as NCCL_PROTO: auto, ll, ll128, simple, " \
                       "a comma-separated list, or ^ and the ones to exclude "                   \
                       "(doc/nccl-protocols.md)"),                                              \
    WEFT_PARAM_LIST ("gpus", T, M gpus, "",                                                      \
                     "the ranks, in order: names or ranges (dgx-1/gpu0..7); default every GPU, " \
                     "or every host on topologies without GPUs"),                                \
    WEFT_PARAM_UINT ("channels", T, M channels, "0", "0", "64",                                  \
                     "rings (channels) the data is split over; 0: when the ranks span servers, " \
                     "one per GPU with a NIC in a server (spread over its NICs), else 1; fewer " \
                     "for small sizes, as NCCL drops channels"),                                 \
    WEFT_PARAM_STRING ("chunk", T, M chunk, "auto",                                              \
                       "data per pipelined step; auto: the protocol's (LL 32 KiB, LL128 "        \
                       "576000 B, smaller on trees, Simple 512 KiB); a size (1KiB..1GiB) "       \
                       "overrides it"),                                                          \
    WEFT_PARAM_STRING ("step_latency", T, M step_latency, "auto",                                \
                       "overhead before each step; auto: NCCL's per-hop latency for the "        \
                       "protocol, algorithm and hop (NVLink, PCIe or network; alltoall and "     \
                       "sendrecv 1us); a time (0ps..1ms) sets every hop's"),                     \
    WEFT_PARAM_STRING ("base_latency", T, M base_latency, "auto",                                \
                       "latency once per collective, before its first transfers; auto: NCCL's "  \
                       "base latency for the algorithm and protocol (alltoall and sendrecv "     \
                       "0); a time (0ps..1ms) overrides it"),                                    \
    WEFT_PARAM_DOUBLE ("efficiency", T, M efficiency, "0.8", "0.01", "1",                        \
                       "protocol efficiency inside a server: the fraction of NVLink's rate a "   \
                       "collective's transfer gets (NCCL reaches about 80 %: 360 of 450 GB/s), " \
                       "applied once, at the sender"),                                           \
    WEFT_PARAM_DOUBLE ("net_efficiency", T, M net_efficiency, "1", "0.01", "1",                  \
                       "the same for transfers that cross the fabric (1: the packet model's "    \
                       "own headers and ACKs are the only overhead)"),                           \
    WEFT_PARAM_BOOL ("pxn", T, M pxn, "true",                                                    \
                     "PXN (NCCL 2.12+): cross-rail sends go over NVLink to the GPU on the "      \
                     "destination's rail first"),                                                \
    WEFT_PARAM_ENUM ("type", T, M type, "float", "float|half|bfloat16|double|int8|int32|int64",  \
                     "element type (nccl-tests -d)")
/* clang-format on */

/* kind = training (workloads/workload_train.c): the collective keys of nccl-test that apply to
 * one all-reduce (embedded, so the two kinds share them and their parsing), and its own. */
typedef struct {
    NcclParams coll;
    guint64 steps, buckets, bucket_size;
    weft_time_t compute;
    double backward_fraction;
    guint64 tp_size, tp_bytes;
} TrainParams;

/* One group being generated. */
typedef struct {
    const WeftExperiment *exp;
    const WeftGraph *g;
    const char *group; /* "workload.NAME" */
    guint32 group_index;
    gsl_rng *rng;
    GArray *out;        /* WeftFlowSpec: the caller's flows, this run's after the ones it held */
    guint64 *seq;       /* flows generated so far, across groups: the next one's generation index */
    gboolean *unsorted; /* set when a flow starts before the one generated before it */
    GPtrArray *endpoint_names; /* NULL-terminated, for suggestions */
    Common c;
    WeftFlowsize *size;
    GArray *deps;  /* WeftFlowDep by generation index, remapped to ids at the end */
    GArray *colls; /* WeftCollInstance, first_flow in generation order likewise */
    GArray *gates; /* WeftCollGate between this run's instances (indices into colls) */
    GArray *ranks; /* guint32 node ids the instances' rank_first index */
    const WeftFlowBudget *budget; /* borrowed; NULL: no budget */
} Ctx;

/* Total flows are indexed by guint32 ids. */
#define MAX_FLOWS G_MAXUINT32

static inline gboolean
str_set (const char *s)
{
    return s != NULL && *s != '\0';
}

/* workload.c */
gboolean weft_workload_emit (Ctx *x, guint32 src, guint32 dst, guint64 size, weft_time_t start,
                             GError **error);
gboolean weft_workload_has_key (const Ctx *x, const char *key);
/* Non-empty entries of a LIST value, stripped.  (transfer full: g_ptr_array_unref) */
GPtrArray *weft_workload_list_items (char **list);

/* workload_perf.c */
extern const WeftParamSpec weft_workload_perf_bw_params[];
extern const WeftParamSpec weft_workload_perf_lat_params[];
gboolean weft_workload_perf_spec (Ctx *x, const PerfParams *p, gboolean latency,
                                  WeftPerftestSpec *spec, GError **error);
gboolean weft_workload_gen_perf (Ctx *x, const PerfParams *p, gboolean latency, GError **error);

/* workload_gen.c */
/* The hosts taking part: the `hosts` list, or every HOST endpoint (GPUs when there are none),
 * in endpoint order.  (transfer full) */
gboolean weft_workload_gen_nccl (Ctx *x, NcclParams *p, GError **error);
extern const WeftParamSpec weft_workload_nccl_params[];
/* workload_coll.c, for workload_train.c: the ranks of `gpus` (or every host), at least 2, and
 * the collective spec the NcclParams describe (ranks borrowed from @ranks); and one instance
 * of it appended (its flows, their dependencies, the instance). */
gboolean weft_workload_coll_ranks (Ctx *x, const NcclParams *p, GArray *ranks, GError **error);
/* Parses @p's algo, proto, chunk, step_latency and base_latency (for p->op) into its derived
 * fields; errors name the key. */
gboolean weft_workload_coll_parse (Ctx *x, NcclParams *p, GError **error);
guint64 weft_workload_coll_type_bytes (int type); /* element size of `type` (its index) */
/* One communicator: the collective's spec for @ranks (bytes 0 until planned), its channels
 * before NCCL drops any for small sizes, and NCCL's tuning table for it. */
typedef struct {
    WeftCollSpec spec;
    guint channels;
    WeftNcclTune tune;
} CollComm;
void weft_workload_coll_spec (Ctx *x, const NcclParams *p, const GArray *ranks, CollComm *cc);
/* Refuses (naming `algo`) an in-switch algorithm the list names that @cc's ranks cannot run
 * (NVLS without NVLink SHARP or across servers, CollNetDirect without InfiniBand SHARP), and a
 * list that leaves nothing to run @p's op. */
gboolean weft_workload_coll_check (Ctx *x, const NcclParams *p, const CollComm *cc, GError **error);
/* Sets cc->spec for one operation of @bytes: algorithm and protocol (NCCL's choice within the
 * enabled ones), channels, chunk, latencies and wire lines; @proto gets the protocol. */
void weft_workload_coll_plan (const NcclParams *p, CollComm *cc, guint64 bytes,
                              WeftNcclProto *proto);
void weft_workload_coll_instance (Ctx *x, const NcclParams *p, guint64 bytes, guint32 n_ranks,
                                  guint32 rank_first, WeftCollInstance *inst);
/* Records in @inst how @cc's planned operation runs (what /collectives shows). */
void weft_workload_coll_ran (const CollComm *cc, WeftNcclProto proto, WeftCollInstance *inst);
gboolean weft_workload_emit_collective (Ctx *x, const WeftCollSpec *spec, WeftCollInstance *inst,
                                        double efficiency, double net_efficiency, GError **error);
/* workload_train.c */
gboolean weft_workload_gen_training (Ctx *x, const TrainParams *p, GError **error);
extern const WeftParamSpec weft_workload_train_params[];
/* Splits "host12" into ("host", 12); FALSE without a numeric suffix (of at most 9 digits). */
gboolean weft_workload_split_index (const char *name, GString *prefix, guint64 *index);
gboolean weft_workload_resolve_names (Ctx *x, const char *key, GPtrArray *items, GArray *ids,
                                      GError **error);
GArray *weft_workload_select_hosts (Ctx *x, GError **error);
gboolean weft_workload_gen_flows (Ctx *x, const FlowsParams *p, GError **error);
gboolean weft_workload_gen_permutation (Ctx *x, const PermParams *p, GArray *hosts, GError **error);
gboolean weft_workload_gen_incast (Ctx *x, const IncastParams *p, GArray *hosts, GError **error);
gboolean weft_workload_gen_all_to_all (Ctx *x, GArray *hosts, GError **error);

#endif /* WEFT_WORKLOADS_WORKLOAD_PRIVATE_H */
