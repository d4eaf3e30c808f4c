/* analysis/perftest_table.h - the output of perftest's ib_write_bw and ib_write_lat (client
 * side) for a sweep of message sizes, character for character.
 *
 * The formats are perftest's (linux-rdma/perftest: src/perftest_parameters.h RESULT_LINE,
 * RESULT_FMT_G / RESULT_FMT, REPORT_FMT / REPORT_FMT_EXT, RESULT_FMT_LAT, REPORT_FMT_LAT;
 * src/perftest_parameters.c ctx_print_test_info(), print_full_bw_report(),
 * print_report_lat(); src/write_bw.c and write_lat.c main() for the order), quoted in
 * perftest_table.c and, as an independent source, in tests/check_perftest_table.c:
 *
 *   ---------------------------------------------------------------------------------------
 *                       RDMA_Write BW Test
 *    Dual-port       : OFF		Device         : mlx5_3
 *    ...                                            (test parameters, one per line)
 *   ---------------------------------------------------------------------------------------
 *   ---------------------------------------------------------------------------------------
 *    #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]
 *    65536      5000             98.76              98.74  		   0.188331
 *   ---------------------------------------------------------------------------------------
 *
 * Not printed: the " local address: LID ... QPN ... PSN ..." and " remote address: ..." lines
 * perftest prints between the two dashed lines (queue pair numbers, PSNs, keys and virtual
 * addresses that are random per run and model nothing here), so the two dashed lines are
 * adjacent; CPU utilisation, per-port, QoS and duration modes; the server side's output.
 *
 * Latency, as print_report_lat() computes it from the samples of one size: sort them, drop
 * the 2 largest (LAT_MEASURE_TAIL), then over the remaining m: t_min the smallest, t_max the
 * sample at index m (the smaller of the two dropped ones, as perftest indexes it), t_typical
 * the median (mean of the two middle samples, in integer picoseconds, when m is even),
 * t_avg and t_stdev (population) over the m, 99% and 99.9% the samples at ceil(m x 0.99) and
 * ceil(m x 0.999).  Samples are one-way latencies (perftest halves its round trips).
 */
#ifndef WEFT_ANALYSIS_PERFTEST_TABLE_H
#define WEFT_ANALYSIS_PERFTEST_TABLE_H

#include <glib.h>

/* The test parameters perftest prints; weft_perftest_table_info_init() sets what ib_write_bw
 * or ib_write_lat print by default on an InfiniBand ConnectX port. */
typedef struct {
    const char *device;     /* "mlx5_3" (ibv device name) */
    int n_qps;              /* -q: 1 */
    const char *transport;  /* "IB" (ibv transport type) */
    const char *connection; /* -c: "RC" */
    gboolean use_srq;       /* FALSE */
    int tx_depth;           /* -t: 128 for bw, 1 for lat */
    int cq_moderation;      /* -Q: 100 (printed for bw only) */
    guint mtu_bytes;        /* the active MTU: 4096 */
    const char *link_type;  /* "IB" or "Ethernet" */
    int gid_index;          /* -x: -1 is not printed (IB); RoCE sets it, e.g. 3 */
    int inline_bytes;       /* -I: 0 for bw, 220 for lat */
    gboolean mb_per_sec;    /* bw columns in MB/sec (2^20 bytes/s) instead of Gb/sec */
} WeftPerftestTableInfo;

/* One message size of ib_write_bw. */
typedef struct {
    guint64 bytes;       /* -s */
    guint64 iterations;  /* -n: 5000 by default */
    double peak_bps;     /* best short-interval bandwidth, bits per second */
    double avg_bps;      /* bytes x iterations x 8 / elapsed */
    double msg_rate_pps; /* messages per second */
} WeftPerftestTableBwRow;

/* One message size of ib_write_lat. */
typedef struct {
    guint64 bytes;
    guint64 iterations;        /* -n: 1000 by default; printed as given */
    const guint64 *samples_ps; /* (transfer none) one-way latencies, any order; perftest has
                                  iterations - 1 of them */
    gsize n_samples;           /* >= 3 */
} WeftPerftestTableLatRow;

/* What ib_write_lat prints for one size (print_report_lat(), above), in microseconds. */
typedef struct {
    double t_min_us, t_max_us, t_typical_us, t_avg_us, t_stdev_us, p99_us, p999_us;
} WeftPerftestTableLatStats;

/** Computes @row's latency columns as ib_write_lat does; FALSE (a caller bug, critical) for
 * fewer than 3 samples. */
gboolean weft_perftest_table_lat_stats (const WeftPerftestTableLatRow *row,
                                        WeftPerftestTableLatStats *stats);

/* One row of a perftest table as data (weft report --perftest --format csv|json): the figures
 * its text line prints, unrounded; the other kind's figures are NAN. */
typedef struct {
    char *workload;   /* "NAME" of [workload.NAME] (owned) */
    const char *test; /* "ib_write_bw" or "ib_write_lat" (static) */
    guint64 bytes, iterations;
    double bw_peak_gbps, bw_avg_gbps, msg_rate_mpps; /* ib_write_bw: Gb/s = 10^9 bit/s */
    WeftPerftestTableLatStats lat;                   /* ib_write_lat */
} WeftPerftestTableRow;

/** Frees what @row owns (a GArray clear function). */
void weft_perftest_table_row_clear (gpointer row);

/** Fills @info with ib_write_bw's (@latency FALSE) or ib_write_lat's defaults, device
 * "mlx5_0". */
void weft_perftest_table_info_init (WeftPerftestTableInfo *info, gboolean latency);

/** Appends ib_write_bw's output for @rows (one line per size, in the given order). */
void weft_perftest_table_print_bw (GString *out, const WeftPerftestTableBwRow *rows, gsize n,
                                   const WeftPerftestTableInfo *info);

/** Appends ib_write_lat's output for @rows; a row with fewer than 3 samples is a caller bug
 * (critical) and prints nothing. */
void weft_perftest_table_print_lat (GString *out, const WeftPerftestTableLatRow *rows, gsize n,
                                    const WeftPerftestTableInfo *info);

#endif /* WEFT_ANALYSIS_PERFTEST_TABLE_H */
