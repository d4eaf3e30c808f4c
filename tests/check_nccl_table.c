/* tests/check_nccl_table.c - analysis/nccl_table.c prints nccl-tests' output character for
 * character.
 *
 * Invariants checked: for hand-made /collectives rows, the whole text equals the text
 * nccl-tests' own printf formats give (header, devices, column headers, one line per size,
 * footer); time is the mean of the timed iterations (warm-up rows and rows of another op are
 * left out); algbw = size / time; busbw = algbw x nccl-tests' factor (all-reduce 2(n-1)/n,
 * all-gather (n-1)/n, broadcast 1); the three time styles; "N/A" when validation is 0; a
 * placement without rows prints blanks and stays out of the average; the root column.
 * Unchecked here: reading the rows from a trace (tests/e2e/report_nccl.sh does).
 *
 * The expected text is derived from nccl-tests' src/common.cu (2.x), not from weft's output.
 * Its formats, verbatim:
 *   run():       "# nThread %d nGpus %d minBytes %ld maxBytes %ld step: %ld(%s) warmup iters:
 *                 %d iters: %d agg iters: %d validation: %d graph: %d\n"  (one line)
 *                "#\n", "# Using devices\n",
 *                "#  Rank %2d Group %2d Pid %6d on %10s device %2d [0x%02x] %s\n"
 *                "#\n"
 *                "# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          \n"
 *                "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s %6s  %7s  %6s  %6s %6s\n"
 *                "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %5s  %7s  %6s  %6s  %5s\n"
 *   TimeTest():  sprintf(rootName, "%6i", root); "%12li  %12li  %8s  %6s  %6s", then "\n"
 *   BenchTime(): time "%7.0f" if >= 10000 us, "%7.1f" if >= 100, else "%7.2f";
 *                "  %7s  %6.2f  %6.2f  %5g" (wrong elements, as double) or, without
 *                validation, "  %7s  %6.2f  %6.2f  %5s" with "N/A"
 *   footer:      "# Out of bounds values : %d %s\n" (0, "OK"),
 *                "# Avg bus bandwidth    : %g %s\n" (mean busbw, "" - so a trailing space),
 *                "#\n"
 *   AllReduceGetBw(): algbw = bytes / 1e9 / sec, busbw = algbw * 2(n-1)/n;
 *   AllGatherGetBw(): factor (n-1)/n; BroadcastGetBw(): factor 1.
 */
#include "config.h"

#include <check.h>
#include <string.h>

#include "analysis/nccl_table.h"
#include "tests/harness.h"

#define US(x) ((guint64) ((x) * 1000000.0 + 0.5)) /* microseconds to ps */

static WeftTraceCollective
row (const char *op, guint64 bytes, guint64 count, const char *type, const char *redop,
     gint32 root, guint32 n_ranks, guint8 in_place, guint8 warmup, guint64 time_ps)
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

#define HEAD_COLUMNS                                                                           \
    "#                                                              out-of-place              " \
    "         in-place          \n"                                                            \
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     " \
    "time   algbw   busbw #wrong\n"                                                            \
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            " \
    "(us)  (GB/s)  (GB/s)       \n"

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
                WeftTraceCollective r = row ("all_reduce", sizes[s].bytes, sizes[s].count,
                                             "float", "sum", -1, 8, p, 0, US (sizes[s].us[p][i]));
                g_array_append_val (rows, r);
            }
        }
    /* another op's row in the same array is not this test's */
    WeftTraceCollective other = row ("reduce_scatter", 1048576, 32768, "float", "sum", -1, 8, 0,
                                     0, US (1));
    g_array_append_val (rows, other);

    /* 1 MiB: out-of-place mean (40+60)/2 = 50 us: algbw 1048576/1e9/50e-6 = 20.97152,
     *   busbw x 1.75 = 36.70016; in-place (39+41)/2 = 40 us: 26.2144, 45.8752.
     * 16 MiB: 250.5 us ("%7.1f"): 66.97491, 117.20610; 250.0 us: 67.108864, 117.440512.
     * 256 MiB: 12345.6 us ("%7.0f" -> 12346): 21.74341, 38.05097; 10000 us: 26.84355, 46.97620.
     * Avg bus bandwidth: (36.70016 + 45.8752 + 117.2061 + 117.440512 + 38.05097 + 46.97620) / 6
     *   = 67.0415 ("%g"). */
    const char *want
        = "# nThread 1 nGpus 1 minBytes 1048576 maxBytes 268435456 step: 16(factor) warmup "
          "iters: 5 iters: 2 agg iters: 1 validation: 1 graph: 0\n"
          "#\n"
          "# Using devices\n"
          "#  Rank  0 Group  0 Pid  10000 on      dgx-1 device  0 [0x18] NVIDIA H100 80GB HBM3\n"
          "#  Rank  1 Group  0 Pid  10001 on      dgx-1 device  1 [0x2a] NVIDIA H100 80GB HBM3\n"
          "#  Rank  2 Group  0 Pid  10002 on      dgx-1 device  2 [0x3a] NVIDIA H100 80GB HBM3\n"
          "#  Rank  3 Group  0 Pid  10003 on      dgx-1 device  3 [0x5d] NVIDIA H100 80GB HBM3\n"
          "#  Rank  4 Group  0 Pid  10004 on      dgx-2 device  4 [0x9a] NVIDIA H100 80GB HBM3\n"
          "#  Rank  5 Group  0 Pid  10005 on      dgx-2 device  5 [0xab] NVIDIA H100 80GB HBM3\n"
          "#  Rank  6 Group  0 Pid  10006 on      dgx-2 device  6 [0xba] NVIDIA H100 80GB HBM3\n"
          "#  Rank  7 Group  0 Pid  10007 on      dgx-2 device  7 [0xdb] NVIDIA H100 80GB HBM3\n"
          "#\n" HEAD_COLUMNS
          "     1048576        262144     float     sum      -1    50.00   20.97   36.70      0"
          "    40.00   26.21   45.88      0\n"
          "    16777216       4194304     float     sum      -1    250.5   66.97  117.21      0"
          "    250.0   67.11  117.44      0\n"
          "   268435456      67108864     float     sum      -1    12346   21.74   38.05      0"
          "    10000   26.84   46.98      0\n"
          "# Out of bounds values : 0 OK\n"
          "# Avg bus bandwidth    : 67.0415 \n"
          "#\n";
    GString *out = g_string_new (NULL);
    weft_nccl_table_print (out, "all_reduce_perf", (WeftTraceCollective *) rows->data, rows->len,
                           &info);
    assert_text_eq (out->str, want);

    /* binary NULL: the op of the first row, the same table */
    GString *again = g_string_new (NULL);
    weft_nccl_table_print (again, NULL, (WeftTraceCollective *) rows->data, rows->len, &info);
    assert_text_eq (again->str, want);
    g_string_free (again, TRUE);
    g_string_free (out, TRUE);
    g_array_free (rows, TRUE);
}
END_TEST

/* 4-rank all-gather (factor 0.75), no validation ("N/A"), step in bytes, a size whose
 * in-place group never ran, and a type that fills its 8-byte field. */
START_TEST (test_nccl_table_all_gather_na_and_missing_group)
{
    static const WeftNcclTableRank ranks[4] = {
        { "a-long-hostname", 0 }, { "h", 1 }, { "h", 2 }, { "h", 9 },
    };
    WeftNcclTableInfo info;
    weft_nccl_table_info_init (&info);
    info.min_bytes = 1024;
    info.max_bytes = 2048;
    info.step_bytes = 1024;
    info.warmup_iters = 0;
    info.iters = 1;
    info.validation = 0;
    info.ranks = ranks;
    info.n_ranks = 4;
    info.device_name = "GPU";
    WeftTraceCollective rows[] = {
        row ("all_gather", 1024, 64, "bfloat16", "none", -1, 4, 0, 0, US (10)),
        row ("all_gather", 1024, 64, "bfloat16", "none", -1, 4, 1, 0, US (11)),
        row ("all_gather", 2048, 128, "bfloat16", "none", -1, 4, 0, 0, US (12)),
    };
    /* 1024 B / 10 us = 0.1024 GB/s, busbw x 0.75 = 0.0768; 11 us: 0.0930909, 0.0698182;
     * 2048 B / 12 us = 0.1706667, 0.128.  Avg (0.0768 + 0.0698182 + 0.128) / 3 = 0.0915394.
     * Bus id of device 9: 9 mod 8 = 1, 0x2a.  A host longer than %10s is printed whole. */
    const char *want
        = "# nThread 1 nGpus 1 minBytes 1024 maxBytes 2048 step: 1024(bytes) warmup iters: 0 "
          "iters: 1 agg iters: 1 validation: 0 graph: 0\n"
          "#\n"
          "# Using devices\n"
          "#  Rank  0 Group  0 Pid  10000 on a-long-hostname device  0 [0x18] GPU\n"
          "#  Rank  1 Group  0 Pid  10001 on          h device  1 [0x2a] GPU\n"
          "#  Rank  2 Group  0 Pid  10002 on          h device  2 [0x3a] GPU\n"
          "#  Rank  3 Group  0 Pid  10003 on          h device  9 [0x2a] GPU\n"
          "#\n" HEAD_COLUMNS
          "        1024            64  bfloat16    none      -1    10.00    0.10    0.08    N/A"
          "    11.00    0.09    0.07    N/A\n"
          "        2048           128  bfloat16    none      -1    12.00    0.17    0.13    N/A"
          "                                \n"
          "# Out of bounds values : 0 OK\n"
          "# Avg bus bandwidth    : 0.0915394 \n"
          "#\n";
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
    ck_assert_ptr_nonnull (strstr (out->str, "\n        4096          1024     float    none       3"
                                             "     2.00    2.05    2.05      0     2.00    2.05"
                                             "    2.05      0\n"));
    ck_assert_ptr_nonnull (strstr (out->str, "# nThread 1 nGpus 1 minBytes 33554432 maxBytes "
                                             "33554432 step: 1048576(bytes) warmup iters: 5 "
                                             "iters: 20 agg iters: 1"));
    ck_assert_ptr_nonnull (strstr (out->str, "# Avg bus bandwidth    : 2.048 \n#\n"));
    g_string_free (out, TRUE);
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

Suite *
test_suite (void)
{
    Suite *s = suite_create ("nccl_table");
    TCase *tc = tcase_create ("format");
    tcase_add_test (tc, test_nccl_table_all_reduce);
    tcase_add_test (tc, test_nccl_table_all_gather_na_and_missing_group);
    tcase_add_test (tc, test_nccl_table_broadcast_root);
    tcase_add_test (tc, test_nccl_table_bus_factors);
    suite_add_tcase (s, tc);
    return s;
}
