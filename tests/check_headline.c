/* tests/check_headline.c - analysis/headline.c: the answer lines of a summary.
 *
 * Invariants, against figures computed here from the rows given:
 *  - collectives: one line per (workload, op) in order of first appearance; the busbw is the
 *    mean over the timed rows at the largest size, out of place (in place added only when it
 *    differs by more than 0.5 %); the time is the mean at the smallest size; warm-up rows,
 *    unfinished rows and workloads not listed are left out;
 *  - flows: the aggregate is the payload over first start to last end; per-flow throughput is
 *    payload / FCT for a finished flow and delivered bytes over the time to the end of the run
 *    for an unfinished one; min, median and max; other workloads' rows are ignored;
 *  - the flow workloads are the kinds whose flows are asked about one by one.
 */
#include "config.h"
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/headline.h"
#include "tests/harness.h"

static WeftTraceCollective
coll (const char *workload, const char *op, guint64 bytes, gboolean in_place, gboolean warmup,
      double busbw, guint64 time_ps)
{
    WeftTraceCollective r = { 0 };
    g_strlcpy (r.workload, workload, sizeof r.workload);
    g_strlcpy (r.op, op, sizeof r.op);
    r.bytes = bytes;
    r.in_place = in_place;
    r.warmup = warmup;
    r.busbw_gbs = busbw;
    r.time_ps = time_ps;
    r.start_ps = 1;
    r.finish_ps = 1 + time_ps;
    r.n_ranks = 16;
    return r;
}

START_TEST (test_headline_collectives)
{
    WeftTraceCollective rows[] = {
        coll ("ar", "all_reduce", 1000000, FALSE, TRUE, 1, 1),          /* warm-up */
        coll ("ar", "all_reduce", 1000000, FALSE, FALSE, 20, 80000000), /* 80 us */
        coll ("ar", "all_reduce", 1000000, FALSE, FALSE, 22, 84000000), /* 84 us */
        coll ("ar", "all_reduce", 1000000, TRUE, FALSE, 21, 82000000),
        coll ("ar", "all_reduce", 256000000, FALSE, FALSE, 350, 1400000000),
        coll ("ar", "all_reduce", 256000000, FALSE, FALSE, 360, 1360000000),
        coll ("ar", "all_reduce", 256000000, TRUE, FALSE, 300, 1600000000), /* differs */
        coll ("ag", "all_gather", 4096, FALSE, FALSE, 1.5, 10000000),       /* one size */
        coll ("skip", "all_reduce", 4096, FALSE, FALSE, 9, 1000000),        /* not listed */
    };
    const char *const listed[] = { "ar", "ag", NULL };
    g_autoptr (GString) out = g_string_new (NULL);
    weft_headline_collectives (out, rows, G_N_ELEMENTS (rows), listed);
    /* largest size: (350 + 360) / 2 = 355 out of place; 300 in place; smallest: (80 + 84) / 2 */
    ck_assert_str_eq (out->str, "  busbw        [ar] all_reduce, 16 ranks: 355.00 GB/s at 256 MB "
                                "(in place 300.00); 82.00 us at 1 MB\n"
                                "  busbw        [ag] all_gather, 16 ranks: 1.50 GB/s at 4 KiB, "
                                "10.00 us\n");
    /* in place within 0.5 %: not shown */
    rows[6].busbw_gbs = 355.5;
    g_string_truncate (out, 0);
    weft_headline_collectives (out, rows, 7, NULL);
    ck_assert_ptr_null (strstr (out->str, "in place"));
}
END_TEST

static WeftTraceFlow
flow (const char *workload, guint64 bytes, guint64 start, guint64 finish, guint64 delivered)
{
    WeftTraceFlow f = { 0 };
    g_strlcpy (f.workload, workload, sizeof f.workload);
    f.size_bytes = bytes;
    f.start_ps = start;
    f.finished = finish > 0;
    f.finish_ps = finish;
    f.fct_ps = finish > 0 ? finish - start : 0;
    f.bytes_delivered = finish > 0 ? bytes : delivered;
    return f;
}

START_TEST (test_headline_flows)
{
    /* 1 MB in 10 us = 800 Gb/s; 1 MB in 20 us = 400; 1 MB in 40 us = 200; an unfinished flow
     * that delivered 0.5 MB between 10 us and the end at 60 us: 80 Gb/s.  Aggregate: 3.5 MB
     * from 0 to 60 us = 466.667 Gb/s. */
    const guint64 us = 1000000;
    WeftTraceFlow rows[] = {
        flow ("p", 1000000, 0, 10 * us, 0),      flow ("p", 1000000, 0, 20 * us, 0),
        flow ("q", 9000000, 0, 1 * us, 0),       flow ("p", 1000000, 5 * us, 45 * us, 0),
        flow ("p", 1000000, 10 * us, 0, 500000),
    };
    g_autoptr (GString) out = g_string_new (NULL);
    weft_headline_flows (out, "p", rows, G_N_ELEMENTS (rows), 60 * us);
    double agg = 3.5e6 * 8 / 60e-6 / 1e9;
    g_autofree char *want = g_strdup_printf (
        "  throughput   [p] %.3f Gb/s aggregate over 4 flows (1 unfinished: as delivered); "
        "per flow min %.1f, median %.1f, max %.1f Gb/s\n",
        agg, 80.0, (200.0 + 400.0) / 2, 800.0);
    ck_assert_str_eq (out->str, want);
    /* nothing ran: no line */
    g_string_truncate (out, 0);
    weft_headline_flows (out, "none", rows, G_N_ELEMENTS (rows), 60 * us);
    ck_assert_str_eq (out->str, "");
}
END_TEST

/* Hyndman and Fan's type 7, written out here: h = (n - 1) q, interpolate between ranks. */
static int
cmp_double (const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

static double
type7 (const double *unsorted, guint n, double q)
{
    double v[16];
    ck_assert_uint_le (n, G_N_ELEMENTS (v));
    memcpy (v, unsorted, n * sizeof *v);
    qsort (v, n, sizeof *v, cmp_double);
    double h = (n - 1) * q;
    guint lo = (guint) h;
    return lo + 1 < n ? v[lo] + (h - lo) * (v[lo + 1] - v[lo]) : v[lo];
}

static WeftTraceFlow
finished_flow (const char *workload, guint64 fct_ps, double slowdown)
{
    WeftTraceFlow f = { 0 };
    g_strlcpy (f.workload, workload, sizeof f.workload);
    f.size_bytes = 1000;
    f.start_ps = 100;
    f.finish_ps = 100 + fct_ps;
    f.fct_ps = fct_ps;
    f.slowdown = slowdown;
    f.finished = 1;
    return f;
}

START_TEST (test_headline_quantiles)
{
    const guint64 us = 1000000;
    /* unsorted, with a three-way tie; sorted: 1 2 3 3 3 5 10 us */
    const guint64 fct_us[] = { 5, 1, 3, 10, 3, 2, 3 };
    const double slow[] = { 2.5, 1.0, 1.5, 4.0, 1.5, 1.25, 1.5 };
    WeftTraceFlow rows[G_N_ELEMENTS (fct_us) + 2];
    double fct[G_N_ELEMENTS (fct_us)];
    for (guint i = 0; i < G_N_ELEMENTS (fct_us); i++) {
        rows[i] = finished_flow ("w", fct_us[i] * us, slow[i]);
        fct[i] = (double) (fct_us[i] * us);
    }
    /* neither an unfinished flow nor another workload's counts */
    rows[7] = finished_flow ("w", 0, 0);
    rows[7].finished = 0;
    rows[7].finish_ps = 0;
    rows[8] = finished_flow ("other", 999 * us, 99);
    const char *const w[] = { "w", NULL };
    WeftQuantiles qf, qs;
    ck_assert_uint_eq (weft_headline_fct (rows, G_N_ELEMENTS (rows), w, &qf, &qs), 7);
    ck_assert_uint_eq (qf.n, 7);
    /* by hand: p50 is the 4th of 7 (3 us, a tie); p99 at h = 5.94 between 5 and 10 us */
    ck_assert_double_eq_tol (qf.p50, 3 * us, 1e-6);
    ck_assert_double_eq_tol (qf.p99, 9.7 * us, 1e-3);
    ck_assert_double_eq_tol (qf.p999, 9.97 * us, 1e-3);
    ck_assert_double_eq_tol (qf.p50, type7 (fct, 7, 0.5), 1e-6);
    ck_assert_double_eq_tol (qf.p99, type7 (fct, 7, 0.99), 1e-3);
    ck_assert_double_eq_tol (qf.p999, type7 (fct, 7, 0.999), 1e-3);
    ck_assert_double_eq (qf.min, 1 * us);
    ck_assert_double_eq (qf.max, 10 * us);
    ck_assert_double_eq_tol (qs.p50, type7 (slow, 7, 0.5), 1e-12);
    ck_assert_double_eq_tol (qs.p99, type7 (slow, 7, 0.99), 1e-12);
    ck_assert_double_eq_tol (qs.p99, 2.5 + 0.94 * 1.5, 1e-12);
    /* every row: the other workload's 999 us is the maximum */
    ck_assert_uint_eq (weft_headline_fct (rows, G_N_ELEMENTS (rows), NULL, &qf, &qs), 8);
    ck_assert_double_eq (qf.max, 999 * us);
    ck_assert_double_eq_tol (qf.p50, 3 * us, 1e-6);
    /* all tied: every quantile is the value */
    double ties[] = { 4, 4, 4, 4 };
    weft_headline_quantiles (ties, 4, &qf);
    ck_assert (qf.p50 == 4 && qf.p99 == 4 && qf.p999 == 4 && qf.min == 4 && qf.max == 4);
    /* a single flow: every quantile is its FCT */
    WeftTraceFlow one = finished_flow ("w", 7 * us, 3.0);
    ck_assert_uint_eq (weft_headline_fct (&one, 1, w, &qf, &qs), 1);
    ck_assert (qf.p50 == 7 * us && qf.p99 == 7 * us && qf.p999 == 7 * us && qf.max == 7 * us);
    ck_assert (qs.p50 == 3.0 && qs.p99 == 3.0);
    /* none: n = 0, all 0 */
    ck_assert_uint_eq (weft_headline_fct (rows, 0, w, &qf, &qs), 0);
    ck_assert (qf.n == 0 && qf.p50 == 0 && qf.max == 0);
}
END_TEST

START_TEST (test_headline_kinds)
{
    const char *flows[] = { "permutation", "incast", "all_to_all", "flows" };
    const char *pieces[] = { "nccl-test", "training", "ib_write_bw", "ib_write_lat" };
    for (guint i = 0; i < G_N_ELEMENTS (flows); i++)
        ck_assert (weft_headline_kind_has_flows (flows[i]));
    for (guint i = 0; i < G_N_ELEMENTS (pieces); i++)
        ck_assert (!weft_headline_kind_has_flows (pieces[i]));
    ck_assert (!weft_headline_kind_has_flows (NULL));
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("headline");
    TCase *tc = tcase_create ("lines");
    tcase_add_test (tc, test_headline_collectives);
    tcase_add_test (tc, test_headline_flows);
    tcase_add_test (tc, test_headline_kinds);
    tcase_add_test (tc, test_headline_quantiles);
    suite_add_tcase (s, tc);
    return s;
}
