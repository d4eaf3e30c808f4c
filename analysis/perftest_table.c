/* analysis/perftest_table.c - perftest's ib_write_bw / ib_write_lat output
 * (analysis/perftest_table.h).
 *
 * The format strings are perftest's, verbatim (src/perftest_parameters.h and the printf()s of
 * ctx_print_test_info() in src/perftest_parameters.c), so a diff against a real log shows
 * only numbers.  The latency statistics follow print_report_lat() step by step; it is the
 * definition of perftest's columns, odd indexing included.
 */
#include "config.h"
#define G_LOG_DOMAIN "weft-perftest-table"
#include "analysis/perftest_table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* src/perftest_parameters.h */
#define RESULT_LINE                                                                                \
    "---------------------------------------------------------------------------------------\n"
#define RESULT_FMT                                                                                 \
    " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]"
#define RESULT_FMT_G                                                                               \
    " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]"
#define RESULT_FMT_LAT                                                                             \
    " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    "        \
    "t_stdev[usec]   99"                                                                           \
    "%"                                                                                            \
    " percentile[usec]   99.9"                                                                     \
    "%"                                                                                            \
    " percentile[usec] "
#define RESULT_EXT "\n"
#define REPORT_FMT " %-7lu    %-10lu       %-7.2lf            %-7.2lf\t\t   %-7.6lf"
#define REPORT_FMT_EXT " %-7lu    %lu           %-7.6lf            %-7.6lf            %-7.6lf"
#define REPORT_FMT_LAT                                                                             \
    " %-7lu %d          %-7.2f        %-7.2f      %-7.2f  \t       %-7.2f     \t%-7.2f\t\t%-7.2f " \
    "\t\t%-7.2f"
#define REPORT_EXT "\n"
#define LAT_MEASURE_TAIL 2

void
weft_perftest_table_info_init (WeftPerftestTableInfo *info, gboolean latency)
{
    g_return_if_fail (info != NULL);
    memset (info, 0, sizeof *info);
    info->device = "mlx5_0";
    info->n_qps = 1;
    info->transport = "IB";
    info->connection = "RC";
    info->tx_depth = latency ? 1 : 128; /* DEF_TX_LAT, DEF_TX_BW */
    info->cq_moderation = 100;          /* DEF_CQ_MOD */
    info->mtu_bytes = 4096;
    info->link_type = "IB";
    info->gid_index = -1;                   /* DEF_GID_INDEX */
    info->inline_bytes = latency ? 220 : 0; /* DEF_INLINE_WRITE for latency; none for bw */
}

/* ctx_print_test_info() for an RDMA write client without events, multicast, dual port,
 * post lists or rdma_cm. */
static void
print_test_info (GString *out, const WeftPerftestTableInfo *info, gboolean bw)
{
    g_string_append (out, RESULT_LINE);
    g_string_append (out, "                    ");
    g_string_append_printf (out, "%s ", "RDMA_Write");
    g_string_append (out, bw ? "BW " : "Latency ");
    g_string_append (out, "Test\n");
    g_string_append_printf (out, " Dual-port       : %s\t\tDevice         : %s\n", "OFF",
                            info->device);
    g_string_append_printf (out, " Number of qps   : %d\t\tTransport type : %s\n", info->n_qps,
                            info->transport);
    g_string_append_printf (out, " Connection type : %s\t\tUsing SRQ      : %s\n", info->connection,
                            info->use_srq ? "ON" : "OFF");
    g_string_append_printf (out, " TX depth        : %d\n", info->tx_depth);
    if (bw)
        g_string_append_printf (out, " CQ Moderation   : %d\n", info->cq_moderation);
    g_string_append_printf (out, " Mtu             : %lu[B]\n", (unsigned long) info->mtu_bytes);
    g_string_append_printf (out, " Link type       : %s\n", info->link_type);
    if (info->gid_index != -1)
        g_string_append_printf (out, " GID index       : %d\n", info->gid_index);
    g_string_append_printf (out, " Max inline data : %d[B]\n", info->inline_bytes);
    g_string_append_printf (out, " rdma_cm QPs\t : %s\n", "OFF");
    g_string_append_printf (out, " Data ex. method : %s", "Ethernet");
    g_string_append_c (out, '\n');
    g_string_append (out, RESULT_LINE);
}

void
weft_perftest_table_print_bw (GString *out, const WeftPerftestTableBwRow *rows, gsize n,
                              const WeftPerftestTableInfo *info)
{
    g_return_if_fail (out != NULL && info != NULL && (rows != NULL || n == 0));
    print_test_info (out, info, TRUE);
    g_string_append (out, RESULT_LINE);
    g_string_append (out, info->mb_per_sec ? RESULT_FMT : RESULT_FMT_G);
    g_string_append (out, RESULT_EXT);
    for (gsize i = 0; i < n; i++) {
        const WeftPerftestTableBwRow *r = &rows[i];
        /* print_report_bw(): bytes / format_factor, 125000000 (Gb/s) or 0x100000 (MB/s) */
        double scale = info->mb_per_sec ? 8.0 * 0x100000 : 1e9;
        double peak = r->peak_bps / scale, avg = r->avg_bps / scale;
        gboolean inc_accuracy = avg < 0.1 && !info->mb_per_sec;
        g_string_append_printf (out, inc_accuracy ? REPORT_FMT_EXT : REPORT_FMT,
                                (unsigned long) r->bytes, (unsigned long) r->iterations, peak, avg,
                                r->msg_rate_pps / 1e6);
        g_string_append (out, REPORT_EXT);
    }
    g_string_append (out, RESULT_LINE);
}

static int
cmp_u64 (const void *a, const void *b)
{
    guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;
    return x < y ? -1 : x > y;
}

void
weft_perftest_table_row_clear (gpointer row)
{
    WeftPerftestTableRow *r = row;
    g_clear_pointer (&r->workload, g_free);
}

gboolean
weft_perftest_table_lat_stats (const WeftPerftestTableLatRow *r, WeftPerftestTableLatStats *st)
{
    g_return_val_if_fail (r != NULL && st != NULL, FALSE);
    g_return_val_if_fail (r->samples_ps != NULL && r->n_samples >= 3, FALSE);
    guint64 *delta = g_new (guint64, r->n_samples);
    memcpy (delta, r->samples_ps, r->n_samples * sizeof (guint64));
    qsort (delta, r->n_samples, sizeof *delta, cmp_u64);
    gsize m = r->n_samples - LAT_MEASURE_TAIL;
    /* get_median(): integer mean of the middle two when m is even */
    guint64 median = (m - 1) % 2 ? (delta[m / 2] + delta[m / 2 - 1]) / 2 : delta[m / 2];
    double sum = 0.0, var = 0.0;
    for (gsize k = 0; k < m; k++)
        sum += delta[k] / 1e6;
    double average = sum / m;
    for (gsize k = 0; k < m; k++)
        var += pow (average - delta[k] / 1e6, 2);
    gsize i99 = (gsize) ceil (m * 0.99), i999 = (gsize) ceil (m * 0.999);
    *st = (WeftPerftestTableLatStats){ .t_min_us = delta[0] / 1e6,
                                       .t_max_us = delta[m] / 1e6,
                                       .t_typical_us = median / 1e6,
                                       .t_avg_us = average,
                                       .t_stdev_us = sqrt (var / m),
                                       .p99_us = delta[i99] / 1e6,
                                       .p999_us = delta[i999] / 1e6 };
    g_free (delta);
    return TRUE;
}

void
weft_perftest_table_print_lat (GString *out, const WeftPerftestTableLatRow *rows, gsize n,
                               const WeftPerftestTableInfo *info)
{
    g_return_if_fail (out != NULL && info != NULL && (rows != NULL || n == 0));
    for (gsize i = 0; i < n; i++)
        g_return_if_fail (rows[i].samples_ps != NULL && rows[i].n_samples >= 3);
    print_test_info (out, info, FALSE);
    g_string_append (out, RESULT_LINE);
    g_string_append_printf (out, "%s", RESULT_FMT_LAT);
    g_string_append (out, RESULT_EXT);
    for (gsize i = 0; i < n; i++) {
        const WeftPerftestTableLatRow *r = &rows[i];
        WeftPerftestTableLatStats st;
        weft_perftest_table_lat_stats (r, &st);
        g_string_append_printf (out, REPORT_FMT_LAT, (unsigned long) r->bytes, (int) r->iterations,
                                st.t_min_us, st.t_max_us, st.t_typical_us, st.t_avg_us,
                                st.t_stdev_us, st.p99_us, st.p999_us);
        g_string_append (out, REPORT_EXT);
    }
    g_string_append (out, RESULT_LINE);
}
