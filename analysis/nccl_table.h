/* analysis/nccl_table.h - the output of one nccl-tests run (all_reduce_perf and friends),
 * rebuilt from /collectives rows.
 *
 * The text is nccl-tests' own, character for character, as the current release prints it
 * (nccl-tests 2.19.6, src/util.cu; the formats are quoted in nccl_table.c and, as an
 * independent source, in tests/check_nccl_table.c): the version and program lines, the
 * "# nThread ..." line, "# Using devices" with one "#  Rank ..." line per rank and the bus id
 * as "[%04x:%02x:%02x]", the three header lines, one line per size with an out-of-place and an
 * in-place group, and the footer.  For a 2-rank all_reduce_perf of 8 MiB (lines shortened):
 *
 *   # nccl-tests version 2.19.6 nccl-headers=22705 nccl-library=22705
 *   # Collective test starting: all_reduce_perf
 *   # nThread 1 nGpus 1 minBytes 8388608 maxBytes 8388608 step: 1048576(bytes) ... unalign: 0
 *   #
 *   # Using devices
 *   #  Rank  0 Group  0 Pid  10000 on      dgx-1 device  0 [0000:18:00] NVIDIA H100 80GB HBM3
 *   #  Rank  1 Group  0 Pid  10001 on      dgx-1 device  1 [0000:2a:00] NVIDIA H100 80GB HBM3
 *   #
 *   #                                                              out-of-place        ...
 *   #       size         count      type   redop    root     time   algbw   busbw  #wrong ...
 *   #        (B)    (elements)                               (us)  (GB/s)  (GB/s)         ...
 *        8388608       2097152     float     sum      -1    52.21  160.67  160.67       0 ...
 *   # Out of bounds values : 0 OK
 *   # Avg bus bandwidth    : 160.671
 *   #
 *   # Collective test concluded: all_reduce_perf
 *   #
 *   (an empty line)
 *
 * Column widths, in characters: size 12, count 12, type 8, redop 6, root 6 (two blanks
 * between columns, "# " and widths 10/12/8/6/6 in the header lines); then per placement two
 * blanks before each of time 7, algbw 6, busbw 6 and #wrong 6.  The header lines end in a
 * blank (the empty timestamp column), as does "Avg bus bandwidth" (its empty verdict).
 * Numbers: time, algbw and busbw take the most decimals of 2, 1, 0 that fit their width
 * (weft_nccl_table_format_number()), so the time format changes with its magnitude: 9999.99,
 * 10000.0, 1000000, then 1.0e+07.
 *
 * Figures, as nccl-tests computes them: time is the mean over the timed (non-warm-up)
 * iterations of one size and placement, in microseconds; algbw = size / time in GB/s
 * (10^9 bytes/s); busbw = algbw x the op's bus factor (weft_nccl_table_bus_factor()); "Avg
 * bus bandwidth" is the mean busbw over every printed group (both placements of every
 * size).  #wrong is 0 (weft moves no data to check), or "N/A" when validation is 0 (after
 * four blanks, so that group is one column narrower: nccl-tests' own format).  The
 * size and count columns are the rows' (the workload sizes them as nccl-tests does: count
 * per rank for all_gather, reduce_scatter and alltoall, see workloads/workload_coll.c).
 *
 * Synthetic fields: a simulated run has no processes, no PCI bus and no NCCL.  Each rank is
 * one process (as under MPI, so nThread 1 nGpus 1 by default) whose Pid is
 * WEFT_NCCL_TABLE_PID_BASE + rank; the bus id of local GPU d is a DGX H100's, in PCI domain 0
 * and device 0 (buses 0x18 0x2a 0x3a 0x5d 0x9a 0xab 0xba 0xdb for d = 0..7, repeating for
 * d >= 8); Group is 0.  Host and device are the rank's server name and its GPU index within the
 * server.  nccl-headers and nccl-library print nccl_version (default NCCL 2.27.5, a released
 * NCCL, as its version code 22705).
 *
 * Not printed: the lines of options weft does not model ("# Blocking Enabled", "# Parallel
 * Init Enabled", "# Per-Iteration Report", "# Reducing maxBytes", the timestamp, cputime and
 * per-iteration columns, "# GPU memory usage"), and "# error: ..." (weft's runs end without an
 * NCCL error, for which nccl-tests prints the empty line above).
 */
#ifndef WEFT_ANALYSIS_NCCL_TABLE_H
#define WEFT_ANALYSIS_NCCL_TABLE_H

#include <glib.h>

#include "sim/trace_schema.h"

#define WEFT_NCCL_TABLE_PID_BASE 10000         /* synthetic: rank r prints Pid 10000 + r */
#define WEFT_NCCL_TABLE_TESTS_VERSION "2.19.6" /* the nccl-tests release whose layout this is */
#define WEFT_NCCL_TABLE_NCCL_VERSION 22705     /* NCCL 2.27.5 as NCCL_VERSION_CODE */
#define WEFT_NCCL_TABLE_NUMBER_MAX 16          /* widest weft_nccl_table_format_number() */

/* One rank of the "# Using devices" block. */
typedef struct {
    const char *host; /* the server's name ("dgx-1"), printed as nccl-tests' hostname (%10s) */
    guint device;     /* the GPU's index within its server (nccl-tests' cudaDev) */
} WeftNcclTableRank;

/* What nccl-tests prints that /collectives rows do not carry: its command line and the
 * devices.  weft_nccl_table_info_init() sets nccl-tests' defaults. */
typedef struct {
    guint64 min_bytes, max_bytes;   /* -b, -e (defaults 32 MiB, 32 MiB) */
    guint64 step_factor;            /* -f; > 1 prints "step: F(factor)" (default 1) */
    guint64 step_bytes;             /* -i; printed "step: N(bytes)" when step_factor <= 1
                                       (default 1 MiB) */
    int warmup_iters, iters;        /* -w, -n (defaults 1, 20): printed only; the rows decide
                                       which iterations are averaged (warmup = 0 ones) */
    int agg_iters;                  /* -m (default 1) */
    int validation;                 /* -c (default 1): 1 prints #wrong 0, 0 prints N/A */
    int graph;                      /* -G (default 0) */
    int unalign;                    /* -u (default 0) */
    int n_threads, n_gpus;          /* -t, -g per process (defaults 1, 1) */
    const WeftNcclTableRank *ranks; /* (transfer none) rank order */
    guint n_ranks;
    const char *device_name; /* default "NVIDIA H100 80GB HBM3" */
    int nccl_version;        /* NCCL_VERSION_CODE printed (default WEFT_NCCL_TABLE_NCCL_VERSION) */
} WeftNcclTableInfo;

/** Fills @info with nccl-tests' defaults and no ranks. */
void weft_nccl_table_info_init (WeftNcclTableInfo *info);

/** Writes @value into @buf (at least @width + 1 bytes, @width 1 to WEFT_NCCL_TABLE_NUMBER_MAX)
 * as nccl-tests' getFloatStr() does: right-aligned in @width characters with 2 decimals, or 1,
 * or 0, whichever first fits; else "%.1e" (@width >= 7) or "%.0e", cut to @width characters. */
void weft_nccl_table_format_number (char *buf, double value, int width);

/** nccl-tests' busbw / algbw for @op over @n_ranks: all_reduce 2(n-1)/n; all_gather,
 * reduce_scatter and alltoall (n-1)/n; broadcast, reduce and sendrecv 1.  0 for an unknown
 * op or n_ranks 0. */
double weft_nccl_table_bus_factor (const char *op, guint n_ranks);

/** nccl-tests' binary for @op ("all_reduce" -> "all_reduce_perf"); NULL if unknown. */
const char *weft_nccl_table_binary (const char *op);

/** Splits the node name of a rank's GPU into its server and its index there, as nccl-tests
 * prints them: "dgx-1/gpu3" -> host "dgx-1", device 3.  The host is the part before the last
 * '/', or the whole name without one (the node is then a host of its own); the device is the
 * number that ends the part after the '/'.  Returns FALSE, leaving *@device alone, when the
 * name gives no device (no '/', or no digits at the end of its last part): the caller then
 * numbers the rank as nccl-tests does.  @host: (out) (transfer full) */
gboolean weft_nccl_table_rank_parse (const char *name, char **host, guint *device);

/** The parameters nccl-tests would have printed for the run that gave @rows (one workload's
 * /collectives rows, warm-ups included), with nccl-tests' defaults for the rest:
 *  - min_bytes, max_bytes: the smallest and largest size (0 and 0 without rows);
 *  - the step: a factor when the sizes grow geometrically (each at least twice the one before
 *    it, as with -f >= 2), second size / smallest rounded down (sizes rounded to whole
 *    elements can make the ratio inexact); otherwise the difference of the two smallest
 *    sizes in bytes (-i); the defaults with one size;
 *  - iters: the timed out-of-place rows of the smallest size; warmup_iters: its out-of-place
 *    warm-up rows (weft warms up before every size; nccl-tests at the ends of the range);
 *  - one rank per rank of the rows (their largest n_ranks): rank r is @rank_names[r] split by
 *    weft_nccl_table_rank_parse() when r < @n_names and the name is not NULL, else host "?".
 *    A rank whose name gives no device gets nccl-tests' own numbering, its local rank: the
 *    number of lower ranks on the same host.
 * Free with weft_nccl_table_info_free().  (transfer full) */
WeftNcclTableInfo *weft_nccl_table_info_new (const WeftTraceCollective *rows, gsize n,
                                             const char *const *rank_names, guint n_names);
void weft_nccl_table_info_free (WeftNcclTableInfo *info);

/** The names of the GPU nodes (kind "gpu") of /topology/nodes, in node order: a trace does
 * not record which GPU each rank ran on, so weft report takes rank r to be the r-th GPU.
 * @nodes may be NULL (n 0).  (transfer full) NULL-terminated */
char **weft_nccl_table_gpu_names (const WeftTraceNode *nodes, gsize n);

/** One group (placement) of one line of weft_nccl_table_print(): over the timed rows of @op
 * at @bytes placed @in_place, the mean time (us), algbw = size / time (GB/s) and busbw =
 * algbw x the op's bus factor for the n_ranks of the size's first timed row (for an op
 * without a known factor, the mean busbw_gbs / algbw_gbs of the rows).  FALSE when there is
 * no such row (the table prints blanks).  weft report's CSV and JSON tables use it too. */
gboolean weft_nccl_table_group (const WeftTraceCollective *rows, gsize n, const char *op,
                                guint64 bytes, guint8 in_place, double *time_us, double *algbw_gbs,
                                double *busbw_gbs);

/** Appends to @out one table per workload of @rows (a trace's /collectives), in order of
 * first appearance, each built by weft_nccl_table_info_new() over the workload's rows and
 * the GPU names of @nodes (may be NULL); each table ends with nccl-tests' empty line.  With
 * several workloads each table is preceded by "# weft workload NAME" (not nccl-tests output). */
void weft_nccl_table_print_workloads (GString *out, const WeftTraceCollective *rows, gsize n,
                                      const WeftTraceNode *nodes, gsize n_nodes);

/** Appends to @out the output of one nccl-tests run of @binary ("all_reduce_perf"; NULL
 * takes the op of rows[0], and that op's binary for the program lines) over @rows, the
 * /collectives rows of that run: rows of another op are skipped, as are warm-up rows.  Sizes
 * are printed in increasing order; a size with only one placement prints blanks for the other
 * (33, the group's width), as nccl-tests does for a placement it does not run, and the blank
 * group is not in the average.  With no timed row the table has no lines and the average is
 * printed as 0.  An op without a known bus factor takes the ratio busbw_gbs / algbw_gbs of
 * its rows. */
void weft_nccl_table_print (GString *out, const char *binary, const WeftTraceCollective *rows,
                            gsize n, const WeftNcclTableInfo *info);

#endif /* WEFT_ANALYSIS_NCCL_TABLE_H */
