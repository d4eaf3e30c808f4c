/* analysis/compare.h - several runs side by side (`weft compare`, doc/analysis.md).
 *
 * A comparison reads each trace through analysis/trace_reader.h and holds, per run, its
 * status and the figures of analysis/headline.h; between the runs, the experiment keys
 * whose values differ (read from the resolved experiment each trace stores in /meta, named
 * GROUP:KEY; experiment:seed from /meta seed, which `weft run --seed` sets) and, for every
 * figure, its ratio to the first run's.
 *
 * Figures, each where the trace holds it: the simulated time; busbw per nccl-test workload,
 * op and size; per flow workload its aggregate throughput and finished flows; FCT p50, p99,
 * p99.9 and slowdown p50, p99 over the finished flows of flow workloads, and FCT p50, p99,
 * p99.9 per flow-size bucket (<=100KB, 100KB-1MB, 1MB-10MB, >10MB); per training workload its
 * mean step time and exposed communication (step time - compute); retransmissions,
 * drops, lossless violations, pause / credit-stall time (PortXmitWait summed over /ports),
 * ECN marks, CNPs sent and PFC PAUSE frames sent.  A figure a run's schema version predates
 * is absent from that run (NAN), and the comparison names it in @missing; so is one from a
 * data set that did not read (the run's problem says which).
 */
#ifndef WEFT_ANALYSIS_COMPARE_H
#define WEFT_ANALYSIS_COMPARE_H

#include <glib.h>

#include "analysis/collected.h"
#include "analysis/trace_reader.h"

typedef enum { WEFT_COMPARE_TEXT, WEFT_COMPARE_CSV, WEFT_COMPARE_JSON } WeftCompareFormat;

typedef struct {
    char *key;     /* "GROUP:KEY" */
    char **values; /* one per run; NULL where the run's experiment does not set it */
} WeftCompareDiff;

typedef struct {
    char *name;     /* "FCT p99", "busbw [ar] all_reduce 256 MB" */
    char *unit;     /* "us", "Gb/s", "GB/s", "" (a count) */
    double *values; /* one per run; NAN where the run does not have it */
    guint since;    /* the schema version that added what it is computed from */
} WeftCompareFigure;

typedef struct {
    guint n_runs;
    WeftTraceInfo **runs;
    char **problems;    /* per run: the first data set that did not read (one line), or NULL */
    GPtrArray *differs; /* WeftCompareDiff, in order of first appearance */
    GPtrArray *figures; /* WeftCompareFigure, in order of first appearance */
    GPtrArray *missing; /* one line each: what a run lacks that another has */
    gint *row;          /* per run: its row in a collected table, or -1 for a trace */
    guint baseline;     /* the run ratios are taken against (0 unless set) */
} WeftComparison;

/** Reads every trace of @paths (NULL-terminated).  Fails with WEFT_TRACE_ERROR_READ, the
 * message naming the file, if one is not a weft trace (weft_trace_reader_open()); a trace
 * that is incomplete, damaged or does not open is compared on what it holds.
 * (transfer full) */
WeftComparison *weft_compare_new (const char *const *paths, GError **error);

/** As weft_compare_new(), where @tables (one per path, or NULL) holds, for a path that is a
 * collected table (analysis/collected.h), the table read: each of its rows is a run, in row
 * order.  Such a run is named "PATH:POINT-NAME"; it is complete when the point's status is a
 * complete trace's (done, duration, hang, workload-failed), has the table's metrics as its
 * figures ("NAME [UNIT]" read as NAME in UNIT; an empty cell is absent), its axes as its
 * experiment keys (experiment:seed as its seed) and no other key: a key a trace sets that
 * the table does not name is not compared with it.  (transfer full) */
WeftComparison *weft_compare_new_mixed (const char *const *paths, WeftCollected *const *tables,
                                        GError **error);

/** Takes ratios against run @run (counted from 0) instead of the first; FALSE if there is no
 * such run. */
gboolean weft_compare_set_baseline (WeftComparison *c, guint run);

void weft_comparison_free (WeftComparison *c);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WeftComparison, weft_comparison_free)

/** Whether every run is complete and read whole (else `weft compare` exits 1). */
gboolean weft_comparison_complete (const WeftComparison *c);

/** Appends @c in @format: text (tables for people), CSV (one row per run and item:
 * section,name,unit,run,trace,value,ratio) or JSON (one object: runs, differs, figures with
 * values and ratios, missing).  A ratio is a run's value over the baseline run's (the
 * first's unless weft_compare_set_baseline()); empty (null) when either is absent or the
 * baseline's is 0. */
void weft_compare_format (const WeftComparison *c, WeftCompareFormat format, GString *out);

#endif /* WEFT_ANALYSIS_COMPARE_H */
