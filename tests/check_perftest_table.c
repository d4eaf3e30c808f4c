/* tests/check_perftest_table.c - analysis/perftest_table.c prints ib_write_bw's and
 * ib_write_lat's output character for character.
 *
 * Invariants checked: the whole text for hand-made rows equals what perftest's formats give
 * (test parameters, column header, one line per size, closing line); Gb/sec = bits/s / 1e9
 * and MB/sec = bytes/s / 2^20; MsgRate in Mpps; perftest's extra decimals below 0.1 Gb/sec;
 * the latency columns as print_report_lat() computes them (two largest samples dropped,
 * median, population stdev, the ceil(m x 0.99) and ceil(m x 0.999) samples), for m even and
 * odd; RoCE's GID index line.  Unchecked: the address lines weft does not print.
 *
 * The expected text is derived from linux-rdma/perftest, not from weft's output.  Verbatim:
 *   perftest_parameters.h:
 *     RESULT_LINE
 * "---------------------------------------------------------------------------------------\n"
 *     RESULT_FMT_G " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec] MsgRate[Mpps]"
 *     RESULT_FMT   " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec] MsgRate[Mpps]"
 *     RESULT_FMT_LAT " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]
 * t_avg[usec] t_stdev[usec]   99""%"" percentile[usec]   99.9""%"" percentile[usec] "  (one line)
 *     RESULT_EXT "\n", REPORT_EXT "\n"
 *     REPORT_FMT     " %-7lu    %-10lu       %-7.2lf            %-7.2lf\t\t   %-7.6lf"
 *     REPORT_FMT_EXT " %-7lu    %lu           %-7.6lf            %-7.6lf            %-7.6lf"
 *                    (used when bw_avg < 0.1 in Gb/sec)
 *     REPORT_FMT_LAT " %-7lu %d          %-7.2f        %-7.2f      %-7.2f  \t       %-7.2f
 *                    \t%-7.2f\t\t%-7.2f \t\t%-7.2f"  (one line)
 *   perftest_parameters.c ctx_print_test_info(): RESULT_LINE; "                    ";
 *     "%s " (testsStr: "RDMA_Write"); "BW " or "Latency "; "Test\n";
 *     " Dual-port       : %s\t\tDevice         : %s\n"
 *     " Number of qps   : %d\t\tTransport type : %s\n"
 *     " Connection type : %s\t\tUsing SRQ      : %s\n"
 *     " TX depth        : %d\n"            (client)
 *     " CQ Moderation   : %d\n"            (bw only)
 *     " Mtu             : %lu[B]\n"
 *     " Link type       : %s\n"
 *     " GID index       : %d\n"            (gid_index != -1)
 *     " Max inline data : %d[B]\n"
 *     " rdma_cm QPs\t : %s\n"
 *     " Data ex. method : %s", '\n', RESULT_LINE
 *   write_bw.c / write_lat.c main(): the test info, (address lines), RESULT_LINE, the column
 *     header and RESULT_EXT, one report per size, RESULT_LINE.
 */
#include "config.h"

#include <check.h>
#include <string.h>

#include "analysis/perftest_table.h"
#include "tests/harness.h"

#define DASHES                                                                                     \
    "---------------------------------------------------------------------------------------\n"

static void
assert_text_eq (const char *got, const char *want)
{
    if (strcmp (got, want) != 0) {
        char **g = g_strsplit (got, "\n", -1), **w = g_strsplit (want, "\n", -1);
        guint i = 0;
        while (g[i] != NULL && w[i] != NULL && strcmp (g[i], w[i]) == 0)
            i++;
        ck_abort_msg ("line %u differs:\n got: [%s]\nwant: [%s]", i + 1, g[i] ? g[i] : "(end)",
                      w[i] ? w[i] : "(end)");
    }
}

#define BW_INFO                                                                                    \
    DASHES "                    RDMA_Write BW Test\n"                                              \
           " Dual-port       : OFF\t\tDevice         : mlx5_3\n"                                   \
           " Number of qps   : 1\t\tTransport type : IB\n"                                         \
           " Connection type : RC\t\tUsing SRQ      : OFF\n"                                       \
           " TX depth        : 128\n"                                                              \
           " CQ Moderation   : 100\n"                                                              \
           " Mtu             : 4096[B]\n"                                                          \
           " Link type       : IB\n"                                                               \
           " Max inline data : 0[B]\n"                                                             \
           " rdma_cm QPs\t : OFF\n"                                                                \
           " Data ex. method : Ethernet\n" DASHES

START_TEST (test_perftest_table_write_bw)
{
    WeftPerftestTableInfo info;
    weft_perftest_table_info_init (&info, FALSE);
    info.device = "mlx5_3";
    const WeftPerftestTableBwRow rows[] = {
        /* 0.0499 Gb/sec < 0.1: REPORT_FMT_EXT, six decimals everywhere */
        { 2, 5000, 0.0512e9, 0.0499e9, 3.118e6 },
        /* 98.76e9 b/s = 98.76 Gb/sec; 0.188331e6 msg/s = 0.188331 Mpps */
        { 65536, 5000, 98.76e9, 98.74e9, 0.188331e6 },
        /* 389.987 -> "389.99" ("%-7.2lf" fills 7 columns: one space less before the tabs);
         * 46487.9 msg/s = 0.0464879 -> "0.046488" */
        { 1048576, 5000, 390.12e9, 389.987e9, 46487.9 },
    };
    const char *want = BW_INFO DASHES
        " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n"
        " 2          5000           0.051200            0.049900            3.118000\n"
        " 65536      5000             98.76              98.74  \t\t   0.188331\n"
        " 1048576    5000             390.12             389.99 \t\t   0.046488\n" DASHES;
    GString *out = g_string_new (NULL);
    weft_perftest_table_print_bw (out, rows, G_N_ELEMENTS (rows), &info);
    assert_text_eq (out->str, want);

    /* MB/sec: bytes/s / 2^20 = 98.76e9 / 8 / 1048576 = 11773.11; 98.74e9 -> 11770.73 */
    info.mb_per_sec = TRUE;
    g_string_truncate (out, 0);
    weft_perftest_table_print_bw (out, &rows[1], 1, &info);
    assert_text_eq (
        out->str, BW_INFO DASHES
        " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n"
        " 65536      5000             11773.11            11770.73\t\t   0.188331\n" DASHES);
    g_string_free (out, TRUE);
}
END_TEST

START_TEST (test_perftest_table_write_lat)
{
    WeftPerftestTableInfo info;
    weft_perftest_table_info_init (&info, TRUE);
    info.device = "mlx5_1";
    info.link_type = "Ethernet";
    info.gid_index = 3;
    /* Size 2: 10 samples (ns, unsorted), sorted 1490 1495 1500 1502 1505 1510 1520 1600 |
     * 5000 9000; m = 8 (even): median (1502 + 1505) / 2 = 1503.5 ns -> "1.50"; t_min 1.49;
     * t_max = sample[8] = 5.00; avg of the 8 = 1.51525 -> "1.52"; population stdev 0.033154
     * -> "0.03"; ceil(8 x 0.99) = ceil(8 x 0.999) = 8 -> 5.00 and 5.00. */
    static const guint64 s2[] = { 1500000, 1510000, 1490000, 1600000, 5000000,
                                  1520000, 9000000, 1505000, 1495000, 1502000 };
    /* Size 65536: 11 samples 2.0 .. 3.0 us by 0.1; m = 9 (odd): median sample[4] = 2.40;
     * t_max sample[9] = 2.90; avg 2.40, stdev sqrt(0.0666..) = 0.258 -> "0.26"; 99% and
     * 99.9%: ceil(8.91) = ceil(8.991) = 9 -> 2.90. */
    static const guint64 s64k[] = { 3000000, 2000000, 2100000, 2200000, 2300000, 2400000,
                                    2500000, 2600000, 2700000, 2800000, 2900000 };
    const WeftPerftestTableLatRow rows[] = {
        { 2, 11, s2, G_N_ELEMENTS (s2) },
        { 65536, 12, s64k, G_N_ELEMENTS (s64k) },
    };
    const char *want =
        DASHES "                    RDMA_Write Latency Test\n"
               " Dual-port       : OFF\t\tDevice         : mlx5_1\n"
               " Number of qps   : 1\t\tTransport type : IB\n"
               " Connection type : RC\t\tUsing SRQ      : OFF\n"
               " TX depth        : 1\n"
               " Mtu             : 4096[B]\n"
               " Link type       : Ethernet\n"
               " GID index       : 3\n"
               " Max inline data : 220[B]\n"
               " rdma_cm QPs\t : OFF\n"
               " Data ex. method : Ethernet\n" DASHES DASHES
               " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]"
               "    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] \n"
               " 2       11          1.49           5.00         1.50     \t       1.52        "
               "\t0.03   \t\t5.00    \t\t5.00   \n"
               " 65536   12          2.00           2.90         2.40     \t       2.40        "
               "\t0.26   \t\t2.90    \t\t2.90   \n" DASHES;
    GString *out = g_string_new (NULL);
    weft_perftest_table_print_lat (out, rows, G_N_ELEMENTS (rows), &info);
    assert_text_eq (out->str, want);
    g_string_free (out, TRUE);
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("perftest_table");
    TCase *tc = tcase_create ("format");
    tcase_add_test (tc, test_perftest_table_write_bw);
    tcase_add_test (tc, test_perftest_table_write_lat);
    suite_add_tcase (s, tc);
    return s;
}
