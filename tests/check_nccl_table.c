/* tests/check_nccl_table.c - analysis/nccl_table.c prints nccl-tests' output character for
 * character, in the layout of the current nccl-tests release (2.19.6).
 *
 * Invariants checked: for hand-made /collectives rows, the whole text equals the text
 * nccl-tests' own printf formats give (version and program lines, command line, devices,
 * column headers, one line per size, footer); time is the mean of the timed iterations (warm-up
 * rows and rows of another op are left out); algbw = size / time; busbw = algbw x nccl-tests'
 * factor (all-reduce 2(n-1)/n, all-gather (n-1)/n, broadcast 1); numbers take 2, 1 or 0
 * decimals, whichever first fits their column, then scientific notation (getFloatStr), at
 * each boundary; "N/A" when validation is 0; a placement without rows prints blanks the
 * group's width and stays out of the average; the root column; the NCCL version and unalign
 * fields.
 * The parameters and ranks (weft_nccl_table_info_new and friends), against values worked out
 * by hand from the rows and names: min/max over every row; the step a factor for sizes that
 * grow at least twofold each time (also when rounding to whole elements makes the ratio
 * inexact), bytes for additive sizes, nccl-tests' defaults for one size; iterations and
 * warm-ups of the smallest size, out of place; rank names split at the last '/', the device
 * the number ending the last part, and for names without one (no '/', no digits, no name)
 * nccl-tests' own cudaDev, the local rank on the host; GPU names taken from trace nodes of
 * kind "gpu" in node order; one table per workload in order of first appearance.
 * Unchecked here: reading the rows from a trace (tests/e2e/report_nccl.sh does), and the
 * tables of real runs of every op (tests/e2e/nccl_layout.sh checks their layout).
 *
 * The expected text is derived from nccl-tests 2.19.6 (src/util.cu, src/common.cu), not from
 * weft's output.  Its formats, verbatim:
 *   writeDeviceReport():
 *     "# nccl-tests version %s nccl-headers=%d nccl-library=%d\n"
 *     "# Collective test starting: %s\n"  (the program name)
 *     "# nThread %d nGpus %d minBytes %ld maxBytes %ld step: %ld(%s) warmup iters: %d iters: %d
 *      agg iters: %d validation: %d graph: %d unalign: %d\n"  (one line)
 *     "#\n", "# Using devices\n",
 *     "#  Rank %2d Group %2d Pid %6d on %10s device %2d [%04x:%02x:%02x] %s\n"
 *       (PCI domain, bus, device)
 *   writeResultHeader(), without -C, -S or -I:
 *     "#\n"
 *     "# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place
 *      \n"  (all five empty)
 *     "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s\n", twice:
 *       names "size" "count" "type" "redop" "root" "time" "algbw" "busbw" "#wrong" (and the
 *       last four again), then units "(B)" "(elements)" "" "" "" "(us)" "(GB/s)" "(GB/s)" ""
 *       (and again), each with width 0 and "" for the timestamp column
 *   writeBenchmarkLinePreamble(): sprintf(rootName, "%6i", root);
 *     "%12li  %12li  %8s  %6s  %6s" (size, count, type, redop, rootName)
 *   writeBenchmarkLineBody(): getFloatStr(time, 7), getFloatStr(algbw, 6), getFloatStr(busbw,
 *     6), then "  %7s  %6s  %6s  %6g" (wrong elements as a double) or, without validation,
 *     "  %7s  %6s  %6s    N/A"
 *   getFloatStr(value, width): the first of "%*.2f", "%*.1f", "%*.0f" whose length is at most
 *     width, else "%*.1e" (width >= 7) or "%*.0e"
 *   writeBenchmarkLineTerminator(): "\n"
 *   writeResultFooter(): "# %-20s : %d %s\n" ("Out of bounds values", 0, "OK"),
 *     "# %-20s : %g %s\n" ("Avg bus bandwidth", mean busbw, "" - so a trailing space), "#\n",
 *     "# Collective test concluded: %s\n" (the program name)
 *   finalizeFooter(): "#\n";  writeErrors() with no NCCL error: "\n"
 *   AllReduceGetBw(): algbw = bytes / 1e9 / sec, busbw = algbw * 2(n-1)/n;
 *   AllGatherGetBw(): factor (n-1)/n; BroadcastGetBw(): factor 1.
 */
#include "config.h"

#include <check.h>
#include <string.h>

#include "analysis/nccl_table.h"
#include "tests/harness.h"

#define US(x) ((guint64) ((x) *1000000.0 + 0.5)) /* microseconds to ps */

static WeftTraceCollective
row (const char *op, guint64 bytes, guint64 count, const char *type, const char *redop, gint32 root,
     guint32 n_ranks, guint8 in_place, guint8 warmup, guint64 time_ps)
{
    WeftTraceCollective r;
    memset (&r, 0, sizeof r);
    g_strlcpy (r.workload, "sweep", sizeof r.workload);
    g_strlcpy (r.op, op, sizeof r.op);
    r.bytes = bytes;
    r.count = count;
    memcpy (r.type, type, MIN (strlen (type), sizeof r.type)); /* "bfloat16" fills it */
    g_strlcpy (r.redop, redop, sizeof r.redop);
    r.root = root;
    r.n_ranks = n_ranks;
    r.in_place = in_place;
    r.warmup = warmup;
    r.time_ps = time_ps;
    r.finish_ps = r.start_ps + time_ps;
    r.algbw_gbs = (double) bytes / (double) time_ps * 1e3;
    return r;
}

static void
assert_text_eq (const char *got, const char *want)
{
    if (strcmp (got, want) != 0) {
        /* the first differing line, for a readable failure */
        char **g = g_strsplit (got, "\n", -1), **w = g_strsplit (want, "\n", -1);
        guint i = 0;
        while (g[i] != NULL && w[i] != NULL && strcmp (g[i], w[i]) == 0)
            i++;
        ck_abort_msg ("line %u differs:\n got: [%s]\nwant: [%s]", i + 1, g[i] ? g[i] : "(end)",
                      w[i] ? w[i] : "(end)");
    }
}

#define HEAD_VERSION "# nccl-tests version 2.19.6 nccl-headers=22705 nccl-library=22705\n"

/* writeResultHeader(): the blank columns are 10, 12, 8, 6 and 6 wide after "# ", two blanks
 * apart; the names line and the units line end in the empty timestamp column's blank. */
#define HEAD_COLUMNS                                                                               \
    "#\n"                                                                                          \
    "#                                                              out-of-place              "    \
    "         in-place          \n"                                                                \
    "#       size         count      type   redop    root     time   algbw   busbw  #wrong     "   \
    "time   algbw   busbw  #wrong \n"                                                              \
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             "   \
    "(us)  (GB/s)  (GB/s)         \n"

#define FOOTER(avg, binary)                                                                        \
    "# Out of bounds values : 0 OK\n"                                                              \
    "# Avg bus bandwidth    : " avg " \n"                                                          \
    "#\n"                                                                                          \
    "# Collective test concluded: " binary "\n"                                                    \
    "#\n"                                                                                          \
    "\n"

/* 8-rank all-reduce, three sizes, two timed iterations per placement; bus factor 1.75. */
START_TEST (test_nccl_table_all_reduce)
{
    static const WeftNcclTableRank ranks[8] = {
        { "dgx-1", 0 }, { "dgx-1", 1 }, { "dgx-1", 2 }, { "dgx-1", 3 },
        { "dgx-2", 4 }, { "dgx-2", 5 }, { "dgx-2", 6 }, { "dgx-2", 7 },
    };
    WeftNcclTableInfo info;
    weft_nccl_table_info_init (&info);
    info.min_bytes = 1048576;
    info.max_bytes = 268435456;
    info.step_factor = 16;
    info.iters = 2;
    info.ranks = ranks;
    info.n_ranks = 8;
    GArray *rows = g_array_new (FALSE, FALSE, sizeof (WeftTraceCollective));
    static const struct {
        guint64 bytes, count;
        double us[2][2]; /* [placement][iteration] */
    } sizes[] = {
        { 268435456, 67108864, { { 12345.6, 12345.6 }, { 10000, 10000 } } }, /* out of order */
        { 1048576, 262144, { { 40, 60 }, { 39, 41 } } },
        { 16777216, 4194304, { { 250, 251 }, { 240, 260 } } },
    };
    for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
        for (guint8 p = 0; p < 2; p++) {
            /* warm-up rows: far off, so including them would show */
            WeftTraceCollective w = row ("all_reduce", sizes[s].bytes, sizes[s].count, "float",
                                         "sum", -1, 8, p, 1, US (99999));
            g_array_append_val (rows, w);
            for (guint i = 0; i < 2; i++) {
                WeftTraceCollective r = row ("all_reduce", sizes[s].bytes, sizes[s].count, "float",
                                             "sum", -1, 8, p, 0, US (sizes[s].us[p][i]));
                g_array_append_val (rows, r);
            }
        }
    /* another op's row in the same array is not this test's */
    WeftTraceCollective other =
        row ("reduce_scatter", 1048576, 32768, "float", "sum", -1, 8, 0, 0, US (1));
    g_array_append_val (rows, other);

    /* 1 MiB: out-of-place mean (40+60)/2 = 50 us ("%7.2f" fits): algbw 1048576/1e9/50e-6 =
     *   20.97152, busbw x 1.75 = 36.70016; in-place (39+41)/2 = 40 us: 26.2144, 45.8752.
     * 16 MiB: 250.5 us (" 250.50" fits 7): 66.97491, 117.20610 ("117.21" fits 6); 250.0 us:
     *   67.108864, 117.440512.
     * 256 MiB: 12345.6 us ("12345.60" is 8 wide, "%7.1f" 12345.6): 21.74341, 38.05097;
     *   10000 us ("10000.00" too, so 10000.0): 26.84355, 46.97620.
     * Avg bus bandwidth: (36.70016 + 45.8752 + 117.2061 + 117.440512 + 38.05097 + 46.97620) / 6
     *   = 67.0415 ("%g"). */
    const char *want = HEAD_VERSION
        "# Collective test starting: all_reduce_perf\n"
        "# nThread 1 nGpus 1 minBytes 1048576 maxBytes 268435456 step: 16(factor) warmup "
        "iters: 1 iters: 2 agg iters: 1 validation: 1 graph: 0 unalign: 0\n"
        "#\n"
        "# Using devices\n"
        "#  Rank  0 Group  0 Pid  10000 on      dgx-1 device  0 [0000:18:00] "
        "NVIDIA H100 80GB HBM3\n"
        "#  Rank  1 Group  0 Pid  10001 on      dgx-1 device  1 [0000:2a:00] "
        "NVIDIA H100 80GB HBM3\n"
        "#  Rank  2 Group  0 Pid  10002 on      dgx-1 device  2 [0000:3a:00] "
        "NVIDIA H100 80GB HBM3\n"
        "#  Rank  3 Group  0 Pid  10003 on      dgx-1 device  3 [0000:5d:00] "
        "NVIDIA H100 80GB HBM3\n"
        "#  Rank  4 Group  0 Pid  10004 on      dgx-2 device  4 [0000:9a:00] "
        "NVIDIA H100 80GB HBM3\n"
        "#  Rank  5 Group  0 Pid  10005 on      dgx-2 device  5 [0000:ab:00] "
        "NVIDIA H100 80GB HBM3\n"
        "#  Rank  6 Group  0 Pid  10006 on      dgx-2 device  6 [0000:ba:00] "
        "NVIDIA H100 80GB HBM3\n"
        "#  Rank  7 Group  0 Pid  10007 on      dgx-2 device  7 [0000:db:00] "
        "NVIDIA H100 80GB HBM3\n" HEAD_COLUMNS
        "     1048576        262144     float     sum      -1    50.00   20.97   36.70       0"
        "    40.00   26.21   45.88       0\n"
        "    16777216       4194304     float     sum      -1   250.50   66.97  117.21       0"
        "   250.00   67.11  117.44       0\n"
        "   268435456      67108864     float     sum      -1  12345.6   21.74   38.05       0"
        "  10000.0   26.84   46.98       0\n" FOOTER ("67.0415", "all_reduce_perf");
    GString *out = g_string_new (NULL);
    weft_nccl_table_print (out, "all_reduce_perf", (WeftTraceCollective *) rows->data, rows->len,
                           &info);
    assert_text_eq (out->str, want);

    /* binary NULL: the op of the first row and its binary, the same table */
    GString *again = g_string_new (NULL);
    weft_nccl_table_print (again, NULL, (WeftTraceCollective *) rows->data, rows->len, &info);
    assert_text_eq (again->str, want);
    g_string_free (again, TRUE);
    g_string_free (out, TRUE);
    g_array_free (rows, TRUE);
}
END_TEST

/* 4-rank all-gather (factor 0.75), no validation ("N/A"), step in bytes, a size whose
 * in-place group never ran, a type that fills its 8-byte field, and the NCCL version and
 * unalign fields set. */
START_TEST (test_nccl_table_all_gather_na_and_missing_group)
{
    static const WeftNcclTableRank ranks[4] = {
        { "a-long-hostname", 0 },
        { "h", 1 },
        { "h", 2 },
        { "h", 9 },
    };
    WeftNcclTableInfo info;
    weft_nccl_table_info_init (&info);
    info.min_bytes = 1024;
    info.max_bytes = 2048;
    info.step_bytes = 1024;
    info.warmup_iters = 0;
    info.iters = 1;
    info.validation = 0;
    info.unalign = 3;
    info.nccl_version = 22907;
    info.ranks = ranks;
    info.n_ranks = 4;
    info.device_name = "GPU";
    /* count per rank, as nccl-tests prints it for all_gather: 1024 B / 2 B / 4 ranks = 128 */
    WeftTraceCollective rows[] = {
        row ("all_gather", 1024, 128, "bfloat16", "none", -1, 4, 0, 0, US (10)),
        row ("all_gather", 1024, 128, "bfloat16", "none", -1, 4, 1, 0, US (11)),
        row ("all_gather", 2048, 256, "bfloat16", "none", -1, 4, 0, 0, US (12)),
    };
    /* 1024 B / 10 us = 0.1024 GB/s, busbw x 0.75 = 0.0768; 11 us: 0.0930909, 0.0698182;
     * 2048 B / 12 us = 0.1706667, 0.128.  Avg (0.0768 + 0.0698182 + 0.128) / 3 = 0.0915394.
     * Bus id of device 9: 9 mod 8 = 1, 0x2a.  A host longer than %10s is printed whole.  The
     * missing in-place group: 33 blanks (2 + 7 + 2 + 6 + 2 + 6 + 2 + 6).  "N/A" is printed
     * after four blanks, one column short of #wrong's 6 (nccl-tests' format, kept). */
    const char *want =
        "# nccl-tests version 2.19.6 nccl-headers=22907 nccl-library=22907\n"
        "# Collective test starting: all_gather_perf\n"
        "# nThread 1 nGpus 1 minBytes 1024 maxBytes 2048 step: 1024(bytes) warmup iters: 0 "
        "iters: 1 agg iters: 1 validation: 0 graph: 0 unalign: 3\n"
        "#\n"
        "# Using devices\n"
        "#  Rank  0 Group  0 Pid  10000 on a-long-hostname device  0 [0000:18:00] GPU\n"
        "#  Rank  1 Group  0 Pid  10001 on          h device  1 [0000:2a:00] GPU\n"
        "#  Rank  2 Group  0 Pid  10002 on          h device  2 [0000:3a:00] GPU\n"
        "#  Rank  3 Group  0 Pid  10003 on          h device  9 [0000:2a:00] GPU\n" HEAD_COLUMNS
        "        1024           128  bfloat16    none      -1    10.00    0.10    0.08    N/A"
        "    11.00    0.09    0.07    N/A\n"
        "        2048           256  bfloat16    none      -1    12.00    0.17    0.13    N/A"
        "                                 \n" FOOTER ("0.0915394", "all_gather_perf");
    GString *out = g_string_new (NULL);
    weft_nccl_table_print (out, "all_gather_perf", rows, G_N_ELEMENTS (rows), &info);
    assert_text_eq (out->str, want);
    g_string_free (out, TRUE);
}
END_TEST

/* Broadcast: factor 1 (busbw = algbw) and the root column. */
START_TEST (test_nccl_table_broadcast_root)
{
    static const WeftNcclTableRank ranks[2] = { { "n0", 0 }, { "n1", 0 } };
    WeftNcclTableInfo info;
    weft_nccl_table_info_init (&info);
    info.ranks = ranks;
    info.n_ranks = 2;
    WeftTraceCollective rows[] = {
        row ("broadcast", 4096, 1024, "float", "none", 3, 2, 0, 0, US (2)),
        row ("broadcast", 4096, 1024, "float", "none", 3, 2, 1, 0, US (2)),
    };
    GString *out = g_string_new (NULL);
    weft_nccl_table_print (out, "broadcast_perf", rows, G_N_ELEMENTS (rows), &info);
    /* 4096 B / 2 us = 2.048 GB/s for algbw and busbw alike */
    ck_assert_ptr_nonnull (strstr (out->str,
                                   "\n        4096          1024     float    none       3"
                                   "     2.00    2.05    2.05       0     2.00    2.05"
                                   "    2.05       0\n"));
    /* nccl-tests' defaults: -b 32M -e 32M -i 1M -w 1 -n 20 */
    ck_assert_ptr_nonnull (strstr (out->str, "# nThread 1 nGpus 1 minBytes 33554432 maxBytes "
                                             "33554432 step: 1048576(bytes) warmup iters: 1 "
                                             "iters: 20 agg iters: 1"));
    ck_assert_ptr_nonnull (strstr (out->str, "# Avg bus bandwidth    : 2.048 \n#\n"
                                             "# Collective test concluded: broadcast_perf\n"));
    g_string_free (out, TRUE);
}
END_TEST

/* getFloatStr's rule at each boundary: 2 decimals while they fit, then 1, then 0, then
 * "%.1e" (7 wide) or "%.0e" (6 wide). */
START_TEST (test_nccl_table_number_widths)
{
    static const struct {
        double value;
        int width;
        const char *want;
    } cases[] = {
        { 5.0, 7, "   5.00" },       { 9999.994, 7, "9999.99" },
        { 9999.996, 7, "10000.0" },                              /* "10000.00" is 8 wide */
        { 99999.94, 7, "99999.9" },  { 99999.96, 7, " 100000" }, /* "100000.0" is 8 wide */
        { 9999999.4, 7, "9999999" }, { 12345678, 7, "1.2e+07" },
        { 0.004, 6, "  0.00" },      { 123.456, 6, "123.46" },
        { 1234.56, 6, "1234.6" },    { 12345.4, 6, " 12345" },
        { 1234567, 6, " 1e+06" },
    };
    for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
        char buf[WEFT_NCCL_TABLE_NUMBER_MAX + 1];
        weft_nccl_table_format_number (buf, cases[i].value, cases[i].width);
        ck_assert_msg (strcmp (buf, cases[i].want) == 0, "%.3f in %d: got [%s], want [%s]",
                       cases[i].value, cases[i].width, buf, cases[i].want);
    }
}
END_TEST

START_TEST (test_nccl_table_bus_factors)
{
    ck_assert_double_eq_tol (weft_nccl_table_bus_factor ("all_reduce", 8), 14.0 / 8, 1e-15);
    ck_assert_double_eq_tol (weft_nccl_table_bus_factor ("all_reduce", 32), 62.0 / 32, 1e-15);
    ck_assert_double_eq_tol (weft_nccl_table_bus_factor ("all_gather", 8), 7.0 / 8, 1e-15);
    ck_assert_double_eq_tol (weft_nccl_table_bus_factor ("reduce_scatter", 4), 3.0 / 4, 1e-15);
    ck_assert_double_eq_tol (weft_nccl_table_bus_factor ("alltoall", 16), 15.0 / 16, 1e-15);
    ck_assert_double_eq_tol (weft_nccl_table_bus_factor ("broadcast", 8), 1.0, 1e-15);
    ck_assert_double_eq_tol (weft_nccl_table_bus_factor ("reduce", 8), 1.0, 1e-15);
    ck_assert_double_eq_tol (weft_nccl_table_bus_factor ("sendrecv", 8), 1.0, 1e-15);
    ck_assert_double_eq_tol (weft_nccl_table_bus_factor ("all_reduce", 1), 0.0, 1e-15);
    ck_assert_double_eq (weft_nccl_table_bus_factor ("gossip", 8), 0.0);
    ck_assert_double_eq (weft_nccl_table_bus_factor ("all_reduce", 0), 0.0);
    ck_assert_str_eq (weft_nccl_table_binary ("alltoall"), "alltoall_perf");
    ck_assert_ptr_null (weft_nccl_table_binary ("gossip"));
}
END_TEST

/* ---- parameters and ranks from rows and names ----------------------------------------- */

START_TEST (test_nccl_table_rank_parse)
{
    static const struct {
        const char *name, *host;
        gboolean named;
        guint device;
    } cases[] = {
        { "dgx-1/gpu3", "dgx-1", TRUE, 3 },
        { "dgx-12/gpu15", "dgx-12", TRUE, 15 },
        { "a/b/gpu2", "a/b", TRUE, 2 },
        { "/gpu4", "", TRUE, 4 },
        { "srv/7", "srv", TRUE, 7 },
        { "host7", "host7", FALSE, 0 },
        { "srv/gpu", "srv", FALSE, 0 },
        { "srv/", "srv", FALSE, 0 },
        { "srv/g1x", "srv", FALSE, 0 },
        { "", "", FALSE, 0 },
        { "srv/gpu99999999999", "srv", FALSE, 0 }, /* beyond an int: not a device */
    };
    for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
        char *host = NULL;
        guint device = 12345;
        gboolean named = weft_nccl_table_rank_parse (cases[i].name, &host, &device);
        ck_assert_msg (named == cases[i].named, "%s", cases[i].name);
        ck_assert_str_eq (host, cases[i].host);
        ck_assert_uint_eq (device, cases[i].named ? cases[i].device : 12345);
        g_free (host);
    }
}
END_TEST

/* Rows of one sweep: per size @warmup warm-ups, then @iters timed rows in each placement. */
static GArray *
sweep (const char *workload, const guint64 *sizes, guint n_sizes, guint warmup, guint iters,
       guint32 n_ranks)
{
    GArray *rows = g_array_new (FALSE, FALSE, sizeof (WeftTraceCollective));
    for (guint s = 0; s < n_sizes; s++)
        for (guint k = 0; k < warmup + 2 * iters; k++) {
            WeftTraceCollective r = row ("all_reduce", sizes[s], sizes[s] / 4, "float", "sum", -1,
                                         n_ranks, k >= warmup + iters, k < warmup, US (10));
            g_strlcpy (r.workload, workload, sizeof r.workload);
            g_array_append_val (rows, r);
        }
    return rows;
}

static WeftNcclTableInfo *
info_of (GArray *rows, const char *const *names, guint n_names)
{
    return weft_nccl_table_info_new ((const WeftTraceCollective *) rows->data, rows->len, names,
                                     n_names);
}

START_TEST (test_nccl_table_info_geometric)
{
    /* largest first: the order of the rows does not matter */
    static const guint64 sizes[] = { 16000, 4000, 1000 };
    static const char *const names[] = { "dgx-1/gpu0", "dgx-1/gpu5", "dgx-2/gpu1", "dgx-2/gpu2" };
    GArray *rows = sweep ("w", sizes, 3, 2, 3, 4);
    WeftNcclTableInfo *info = info_of (rows, names, 4);
    ck_assert_uint_eq (info->min_bytes, 1000);
    ck_assert_uint_eq (info->max_bytes, 16000);
    ck_assert_uint_eq (info->step_factor, 4);
    ck_assert_int_eq (info->warmup_iters, 2);
    ck_assert_int_eq (info->iters, 3);
    ck_assert_uint_eq (info->n_ranks, 4);
    static const struct {
        const char *host;
        guint device;
    } want[] = { { "dgx-1", 0 }, { "dgx-1", 5 }, { "dgx-2", 1 }, { "dgx-2", 2 } };
    for (guint r = 0; r < 4; r++) {
        ck_assert_str_eq (info->ranks[r].host, want[r].host);
        ck_assert_uint_eq (info->ranks[r].device, want[r].device);
    }
    /* nccl-tests' defaults for what the rows do not say */
    ck_assert_int_eq (info->agg_iters, 1);
    ck_assert_int_eq (info->validation, 1);
    ck_assert_int_eq (info->n_threads, 1);
    ck_assert_int_eq (info->n_gpus, 1);
    weft_nccl_table_info_free (info);
    g_array_free (rows, TRUE);

    /* all_gather over 3 ranks of float, -b 1000 -f 4: sizes rounded down to 12-byte units,
     * 996, 3996 (333 x 12), 15996 (1333 x 12); 3996 / 996 = 4.01, still factor 4 */
    static const guint64 rounded[] = { 996, 3996, 15996 };
    rows = sweep ("w", rounded, 3, 1, 1, 3);
    info = info_of (rows, NULL, 0);
    ck_assert_uint_eq (info->step_factor, 4);
    ck_assert_uint_eq (info->min_bytes, 996);
    ck_assert_uint_eq (info->max_bytes, 15996);
    weft_nccl_table_info_free (info);
    g_array_free (rows, TRUE);
}
END_TEST

START_TEST (test_nccl_table_info_additive_and_single)
{
    /* -b 1024 -e 3072 -i 1024: the second size is twice the first, the third is not */
    static const guint64 additive[] = { 1024, 2048, 3072 };
    GArray *rows = sweep ("w", additive, 3, 1, 2, 2);
    WeftNcclTableInfo *info = info_of (rows, NULL, 0);
    ck_assert_uint_le (info->step_factor, 1);
    ck_assert_uint_eq (info->step_bytes, 1024);
    ck_assert_uint_eq (info->min_bytes, 1024);
    ck_assert_uint_eq (info->max_bytes, 3072);
    weft_nccl_table_info_free (info);
    g_array_free (rows, TRUE);

    static const guint64 two[] = { 1000, 1500 };
    rows = sweep ("w", two, 2, 0, 1, 2);
    info = info_of (rows, NULL, 0);
    ck_assert_uint_le (info->step_factor, 1);
    ck_assert_uint_eq (info->step_bytes, 500);
    ck_assert_int_eq (info->warmup_iters, 0);
    ck_assert_int_eq (info->iters, 1);
    weft_nccl_table_info_free (info);
    g_array_free (rows, TRUE);

    /* one size: nccl-tests' default step (1 MiB in bytes) */
    static const guint64 one[] = { 26214400 };
    rows = sweep ("w", one, 1, 0, 3, 8);
    info = info_of (rows, NULL, 0);
    ck_assert_uint_eq (info->min_bytes, 26214400);
    ck_assert_uint_eq (info->max_bytes, 26214400);
    ck_assert_uint_le (info->step_factor, 1);
    ck_assert_uint_eq (info->step_bytes, 1048576);
    ck_assert_int_eq (info->iters, 3);
    weft_nccl_table_info_free (info);
    g_array_free (rows, TRUE);

    /* in-place rows only (training's collectives): no out-of-place iteration to count */
    WeftTraceCollective inplace[2] = {
        row ("all_reduce", 4096, 1024, "float", "sum", -1, 2, 1, 0, US (1)),
        row ("all_reduce", 4096, 1024, "float", "sum", -1, 2, 1, 0, US (1)),
    };
    info = weft_nccl_table_info_new (inplace, 2, NULL, 0);
    ck_assert_int_eq (info->iters, 0);
    ck_assert_int_eq (info->warmup_iters, 0);
    weft_nccl_table_info_free (info);

    /* no rows at all */
    info = weft_nccl_table_info_new (NULL, 0, NULL, 0);
    ck_assert_uint_eq (info->min_bytes, 0);
    ck_assert_uint_eq (info->max_bytes, 0);
    ck_assert_uint_eq (info->n_ranks, 0);
    weft_nccl_table_info_free (info);
}
END_TEST

/* Names without a device number, and fewer names than ranks: each such rank is numbered by
 * how many lower ranks share its host (host "?" for a missing name). */
START_TEST (test_nccl_table_info_odd_names)
{
    static const char *const names[] = { "hostA",   "hostA",   "hostB", "srv/gpu7",
                                         "srv/gpu", "srv/gpu", NULL };
    static const guint64 size[] = { 64 };
    GArray *rows = sweep ("w", size, 1, 0, 1, 9);
    WeftNcclTableInfo *info = info_of (rows, names, G_N_ELEMENTS (names));
    static const struct {
        const char *host;
        guint device;
    } want[9] = {
        { "hostA", 0 }, { "hostA", 1 }, /* a host of its own: one device per rank */
        { "hostB", 0 }, { "srv", 7 },   /* named */
        { "srv", 1 },   { "srv", 2 },   /* srv/gpu7 is a lower rank on srv */
        { "?", 0 },                     /* a NULL name */
        { "?", 1 },     { "?", 2 },     /* past the names */
    };
    ck_assert_uint_eq (info->n_ranks, 9);
    for (guint r = 0; r < 9; r++) {
        ck_assert_msg (strcmp (info->ranks[r].host, want[r].host) == 0, "rank %u: %s", r,
                       info->ranks[r].host);
        ck_assert_msg (info->ranks[r].device == want[r].device, "rank %u: device %u", r,
                       info->ranks[r].device);
    }
    weft_nccl_table_info_free (info);
    g_array_free (rows, TRUE);
}
END_TEST

static WeftTraceNode
node (guint32 id, const char *name, const char *kind)
{
    WeftTraceNode n;
    memset (&n, 0, sizeof n);
    n.id = id;
    g_strlcpy (n.name, name, sizeof n.name);
    g_strlcpy (n.kind, kind, sizeof n.kind);
    return n;
}

START_TEST (test_nccl_table_gpu_names_and_workloads)
{
    WeftTraceNode nodes[] = {
        node (0, "leaf0", "switch"),   node (1, "dgx-1/gpu1", "gpu"), node (2, "dgx-1/nic1", "nic"),
        node (3, "dgx-1/gpu0", "gpu"), node (4, "dgx-2/gpu", "gpu"),
    };
    char **gpus = weft_nccl_table_gpu_names (nodes, G_N_ELEMENTS (nodes));
    ck_assert_uint_eq (g_strv_length (gpus), 3);
    ck_assert_str_eq (gpus[0], "dgx-1/gpu1"); /* node order, not name order */
    ck_assert_str_eq (gpus[1], "dgx-1/gpu0");
    ck_assert_str_eq (gpus[2], "dgx-2/gpu");
    g_strfreev (gpus);
    gpus = weft_nccl_table_gpu_names (NULL, 0);
    ck_assert_uint_eq (g_strv_length (gpus), 0);
    g_strfreev (gpus);

    /* workload "b" first, then "a", rows interleaved: tables in order of first appearance */
    static const guint64 bsizes[] = { 2048 }, asizes[] = { 1024, 4096 };
    GArray *b = sweep ("b", bsizes, 1, 1, 1, 4), *a = sweep ("a", asizes, 2, 0, 2, 3);
    GArray *rows = g_array_new (FALSE, FALSE, sizeof (WeftTraceCollective));
    for (guint i = 0; i < MAX (a->len, b->len); i++) {
        if (i < b->len)
            g_array_append_val (rows, g_array_index (b, WeftTraceCollective, i));
        if (i < a->len)
            g_array_append_val (rows, g_array_index (a, WeftTraceCollective, i));
    }
    GString *out = g_string_new (NULL);
    weft_nccl_table_print_workloads (out, (const WeftTraceCollective *) rows->data, rows->len,
                                     nodes, G_N_ELEMENTS (nodes));
    const char *tb = strstr (out->str, "# weft workload b\n" HEAD_VERSION
                                       "# Collective test starting: all_reduce_perf\n"
                                       "# nThread 1 nGpus 1 minBytes 2048 maxBytes 2048 step: "
                                       "1048576(bytes) warmup iters: 1 iters: 1 ");
    /* each table ends with nccl-tests' empty line, which separates it from the next */
    const char *ta = strstr (out->str, "# Collective test concluded: all_reduce_perf\n#\n\n"
                                       "# weft workload a\n" HEAD_VERSION
                                       "# Collective test starting: all_reduce_perf\n"
                                       "# nThread 1 nGpus 1 minBytes 1024 maxBytes 4096 step: "
                                       "4(factor) warmup iters: 0 iters: 2 ");
    ck_assert_msg (tb == out->str, "%s", out->str);
    ck_assert_msg (ta != NULL && ta > tb, "%s", out->str);
    /* b's 4 ranks: the three GPUs, then "?"; device by name, else the local rank */
    ck_assert_ptr_nonnull (strstr (tb, "#  Rank  0 Group  0 Pid  10000 on      dgx-1 device  1 "
                                       "[0000:2a:00] NVIDIA H100 80GB HBM3\n"
                                       "#  Rank  1 Group  0 Pid  10001 on      dgx-1 device  0 "
                                       "[0000:18:00] NVIDIA H100 80GB HBM3\n"
                                       "#  Rank  2 Group  0 Pid  10002 on      dgx-2 device  0 "
                                       "[0000:18:00] NVIDIA H100 80GB HBM3\n"
                                       "#  Rank  3 Group  0 Pid  10003 on          ? device  0 "
                                       "[0000:18:00] NVIDIA H100 80GB HBM3\n#\n"));
    ck_assert_ptr_null (strstr (ta, "Rank  3 "));
    g_string_free (out, TRUE);

    /* one workload: no "# weft workload" line */
    out = g_string_new (NULL);
    weft_nccl_table_print_workloads (out, (const WeftTraceCollective *) a->data, a->len, NULL, 0);
    ck_assert (g_str_has_prefix (out->str, HEAD_VERSION));
    ck_assert (g_str_has_suffix (out->str, "# Collective test concluded: all_reduce_perf\n#\n\n"));
    ck_assert_ptr_null (strstr (out->str, "# weft workload"));
    ck_assert_ptr_nonnull (strstr (out->str, " on          ? device  2 [0000:3a:00] "));
    g_string_free (out, TRUE);
    g_array_free (rows, TRUE);
    g_array_free (a, TRUE);
    g_array_free (b, TRUE);
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("nccl_table");
    TCase *tc = tcase_create ("format");
    tcase_add_test (tc, test_nccl_table_all_reduce);
    tcase_add_test (tc, test_nccl_table_all_gather_na_and_missing_group);
    tcase_add_test (tc, test_nccl_table_broadcast_root);
    tcase_add_test (tc, test_nccl_table_number_widths);
    tcase_add_test (tc, test_nccl_table_bus_factors);
    suite_add_tcase (s, tc);
    tc = tcase_create ("info");
    tcase_add_test (tc, test_nccl_table_rank_parse);
    tcase_add_test (tc, test_nccl_table_info_geometric);
    tcase_add_test (tc, test_nccl_table_info_additive_and_single);
    tcase_add_test (tc, test_nccl_table_info_odd_names);
    tcase_add_test (tc, test_nccl_table_gpu_names_and_workloads);
    suite_add_tcase (s, tc);
    return s;
}
