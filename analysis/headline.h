/* analysis/headline.h - the first lines of a run's summary: the answer to the question the
 * workload asks, from the run's records (trace rows), so `weft run` and `weft report` agree.
 *
 * - A benchmark collective (kind = nccl-test) asks for bus bandwidth: one line per workload and
 *   op, its busbw at the largest size (out of place, mean over the timed iterations; in place
 *   when it differs by more than 0.5 %) and its time at the smallest size.
 * - A flow workload (permutation, incast, all-to-all, flow lists, generated traffic) asks what
 *   the fabric carries: the aggregate throughput (payload over the time from the first start to
 *   the last finish, or to the end of a run stopped by its duration) and the spread of per-flow
 *   throughput (payload / FCT: min, median, max).
 * The pieces of a collective or a perftest test are not flows a user asks about one by one:
 * their FCT percentiles say nothing, so summaries give FCT only over the flows of flow
 * workloads (weft_headline_kind_has_flows()).
 */
#ifndef WEFT_ANALYSIS_HEADLINE_H
#define WEFT_ANALYSIS_HEADLINE_H

#include <glib.h>

#include "sim/trace_schema.h"

/* Quantiles of a sample: weft's one definition, used by the run summary, `weft report` and
 * `weft compare` (doc/analysis.md).  The q-quantile of n sorted values x[0..n-1] is GSL's
 * gsl_stats_quantile_from_sorted_data: with i = floor ((n - 1) q) and d = (n - 1) q - i,
 * (1 - d) x[i] + d x[i + 1], linear interpolation between the closest ranks (Hyndman and
 * Fan's type 7, numpy's default); one value is every quantile of itself. */
typedef struct {
    gsize n; /* values; the rest is 0 when n = 0 */
    double min, p50, p99, p999, max;
} WeftQuantiles;

/** Sorts @values (@n of them) in place and fills @q. */
void weft_headline_quantiles (double *values, gsize n, WeftQuantiles *q);

/* Whether the flows of `[workload.X] kind = @kind` are what the user asks about (flow
 * workloads); FALSE for nccl-test, training, ib_write_bw and ib_write_lat (and NULL). */
gboolean weft_headline_kind_has_flows (const char *kind);

/** @bytes as nccl-tests and weft write sizes: in the largest unit that divides it exactly,
 * decimal first ("256 MB", "4 MiB", "4097 B").  (transfer full) */
char *weft_headline_size_text (guint64 bytes);

/** The busbw (GB/s) of (@workload, @op) at @bytes as the busbw line gives it: the mean over
 * the timed, finished rows placed out of place, or in place when none is; FALSE when there
 * is neither. */
gboolean weft_headline_busbw (const WeftTraceCollective *rows, guint n, const char *workload,
                              const char *op, guint64 bytes, double *busbw_gbs);

/** Appends "  busbw        [NAME] OP, N ranks: B GB/s at SIZE ...; T us at SIZE\n" for every
 * workload and op among the @n timed (non-warm-up) rows whose workload is in @workloads
 * (NULL-terminated; NULL: every workload), in order of first appearance. */
void weft_headline_collectives (GString *out, const WeftTraceCollective *rows, guint n,
                                const char *const *workloads);

/** The quantiles of FCT (in ps) and slowdown over the finished rows of @rows whose workload
 * is in @workloads (NULL-terminated; NULL: every row): the summary's FCT and slowdown lines,
 * and weft report's and weft compare's.  Returns how many rows that is. */
gsize weft_headline_fct (const WeftTraceFlow *rows, guint n, const char *const *workloads,
                         WeftQuantiles *fct_ps, WeftQuantiles *slowdown);

/* What the throughput line says of one flow workload (weft_headline_flows). */
typedef struct {
    gsize flows, finished;
    double aggregate_bps;
    WeftQuantiles flow_gbps; /* per-flow throughput, Gb/s */
} WeftHeadlineRate;

/** Fills @rate for the rows of @rows whose workload is @workload, as weft_headline_flows()
 * counts them; FALSE (and nothing to say) when no flow ran. */
gboolean weft_headline_rate (const char *workload, const WeftTraceFlow *rows, guint n,
                             guint64 end_ps, WeftHeadlineRate *rate);

/** Appends "  throughput   [NAME] X Tb/s aggregate over K flows; per flow min A, median B,
 * max C Gb/s\n" over the rows of @rows whose workload is @workload: a finished flow counts
 * its payload over its FCT, one unfinished when the run ended at @end_ps what it delivered by
 * then (the line says how many); the aggregate is their bytes over the time from the first
 * start to the last end.  Nothing when no flow ran. */
void weft_headline_flows (GString *out, const char *workload, const WeftTraceFlow *rows, guint n,
                          guint64 end_ps);

#endif /* WEFT_ANALYSIS_HEADLINE_H */
