/* tests/check_derived.c - analysis/derived.c: figures derived from a run's rows.
 *
 * Invariants, against values worked out by hand here:
 *  - max-min: on egresses X (1 Gb/s) and Y (2 Gb/s) with flows f0 on X, f1 on X and Y, f2 on
 *    Y, water-filling freezes f0 and f1 at 0.5 (X fills first) and f2 at the 1.5 left on Y:
 *    2.5 Gb/s in all, scaled by the payload fraction; a flow without a path is left out; a
 *    hop on an unknown link gives NAN; a path that visits an egress twice counts it once;
 *  - a flow's rate is bytes delivered x 8 over its own time, to the end of the run when it
 *    did not finish;
 *  - Jain's index: 1 for equal rates, 1/n for one flow with everything, 9/10 for (1, 2);
 *  - selectors: ids, ranges, workload:NAME and SRC>DST patterns choose the rows they name,
 *    each once, in row order; an item that chooses nothing or does not parse fails with
 *    WEFT_CONFIG_ERROR_VALUE.
 * Not checked here: weft report's use of them (tests/e2e/report_derived.sh, roce_ecmp.sh).
 */
#include "config.h"
#include <check.h>
#include <math.h>
#include <string.h>

#include "analysis/derived.h"
#include "sim/errors.h"
#include "tests/harness.h"

static WeftTraceFlow
flow (guint32 id, guint32 src, guint32 dst, const char *workload)
{
    WeftTraceFlow f = { 0 };
    f.id = id;
    f.src = src;
    f.dst = dst;
    g_strlcpy (f.workload, workload, sizeof f.workload);
    return f;
}

static WeftTracePathHop
hop (guint32 flow_id, guint32 n, guint32 node, guint32 port, guint32 link)
{
    return (
        WeftTracePathHop){ .flow = flow_id, .hop = n, .node = node, .port = port, .link = link };
}

START_TEST (test_derived_maxmin)
{
    WeftTraceFlow flows[] = { flow (10, 0, 1, "a"), flow (11, 0, 1, "a"), flow (12, 0, 1, "a"),
                              flow (13, 0, 1, "a") };
    WeftTraceLink links[] = { { .id = 7, .rate_bps = 1000000000 },
                              { .id = 8, .rate_bps = 2000000000 } };
    /* X = (node 5, port 1) on link 7, Y = (node 6, port 2) on link 8; flow 13 has no path */
    WeftTracePathHop hops[] = { hop (10, 0, 5, 1, 7), hop (11, 0, 5, 1, 7), hop (11, 1, 6, 2, 8),
                                hop (12, 0, 6, 2, 8), hop (12, 1, 6, 2, 8) };
    guint n = 0;
    double total = weft_derived_maxmin_bps (flows, 4, hops, 5, links, 2, 1.0, &n);
    ck_assert_uint_eq (n, 3);
    ck_assert_double_eq_tol (total, 2.5e9, 1e-3);
    total = weft_derived_maxmin_bps (flows, 4, hops, 5, links, 2, 0.5, &n);
    ck_assert_double_eq_tol (total, 1.25e9, 1e-3);
    /* X twice as fast: X offers 1 each to f0, f1; Y offers 1 each to f1, f2: all get 1 */
    links[0].rate_bps = 2000000000;
    total = weft_derived_maxmin_bps (flows, 4, hops, 5, links, 2, 1.0, &n);
    ck_assert_double_eq_tol (total, 3e9, 1e-3);
    /* a hop on a link /topology/links lacks */
    hops[0].link = 99;
    ck_assert (isnan (weft_derived_maxmin_bps (flows, 4, hops, 5, links, 2, 1.0, &n)));
    ck_assert_uint_eq (n, 0);
    ck_assert (isnan (weft_derived_maxmin_bps (flows, 4, hops, 0, links, 2, 1.0, &n)));
}
END_TEST

START_TEST (test_derived_rate_and_jain)
{
    WeftTraceFlow f = flow (1, 0, 1, "a");
    f.start_ps = 2000000;
    f.finish_ps = 10000000; /* 8 us */
    f.finished = 1;
    f.bytes_delivered = 1000000; /* 8e6 bits / 8e-6 s */
    ck_assert_double_eq_tol (weft_derived_rate_bps (&f, 0), 1e12, 1e-3);
    f.finished = 0;
    f.finish_ps = 0;
    ck_assert_double_eq_tol (weft_derived_rate_bps (&f, 18000000), 0.5e12, 1e-3);
    ck_assert_double_eq (weft_derived_rate_bps (&f, 1000000), 0);

    const double equal[] = { 3, 3, 3, 3 }, one[] = { 5, 0, 0, 0 }, two[] = { 1, 2 };
    ck_assert_double_eq_tol (weft_derived_jain (equal, 4), 1.0, 1e-15);
    ck_assert_double_eq_tol (weft_derived_jain (one, 4), 0.25, 1e-15);
    ck_assert_double_eq_tol (weft_derived_jain (two, 2), 0.9, 1e-15);
    ck_assert (isnan (weft_derived_jain (two, 0)));
    ck_assert (isnan (weft_derived_jain (one + 1, 3)));
}
END_TEST

/* The selected rows of @sel as "i,j,k"; NULL with *@error on failure. */
static char *
chosen (const WeftTraceFlow *flows, guint n, const WeftTraceNode *nodes, guint n_nodes,
        const char *sel, GError **error)
{
    g_autoptr (GArray) out = g_array_new (FALSE, FALSE, sizeof (guint));
    if (!weft_derived_select (flows, n, nodes, n_nodes, sel, out, error))
        return NULL;
    GString *s = g_string_new (NULL);
    for (guint i = 0; i < out->len; i++)
        g_string_append_printf (s, i ? ",%u" : "%u", g_array_index (out, guint, i));
    return g_string_free (s, FALSE);
}

START_TEST (test_derived_select)
{
    WeftTraceNode nodes[4] = { { .id = 0 }, { .id = 1 }, { .id = 2 }, { .id = 3 } };
    const char *names[] = { "host0", "host1", "host12", "leaf0" };
    for (guint i = 0; i < 4; i++)
        g_strlcpy (nodes[i].name, names[i], sizeof nodes[i].name);
    /* rows: ids 5, 6, 7, 20; workloads incast, incast, victim, victim */
    WeftTraceFlow flows[] = { flow (5, 0, 1, "incast"), flow (6, 2, 1, "incast"),
                              flow (7, 1, 2, "victim"), flow (20, 0, 2, "victim") };
    struct {
        const char *sel, *want;
    } ok[] = {
        { "6", "1" },
        { "20,5", "0,3" },
        { "5-7", "0,1,2" },
        { "5-7, 6", "0,1,2" },
        { "workload:victim", "2,3" },
        { "host0>host1", "0" },
        { "host1*>host1", "1" },
        { "*>host12", "2,3" },
        { "host?>*", "0,2,3" },
        { "workload:incast,host1>host12", "0,1,2" },
    };
    for (guint i = 0; i < G_N_ELEMENTS (ok); i++) {
        GError *error = NULL;
        g_autofree char *got = chosen (flows, 4, nodes, 4, ok[i].sel, &error);
        ck_assert_msg (got != NULL, "%s: %s", ok[i].sel, error ? error->message : "");
        ck_assert_msg (strcmp (got, ok[i].want) == 0, "%s: %s, expected %s", ok[i].sel, got,
                       ok[i].want);
    }
    const char *bad[] = { "",   "8",      "workload:none", "leaf0>*", "x",        "7-5",
                          "5-", ">host1", "host0>",        "1.5",     "workload:" };
    for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
        GError *error = NULL;
        g_autofree char *got = chosen (flows, 4, nodes, 4, bad[i], &error);
        ck_assert_msg (got == NULL, "%s chose %s", bad[i], got);
        ck_assert_msg (g_error_matches (error, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_VALUE), "%s",
                       bad[i]);
        g_error_free (error);
    }
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("derived");
    TCase *tc = tcase_create ("figures");
    tcase_add_test (tc, test_derived_maxmin);
    tcase_add_test (tc, test_derived_rate_and_jain);
    tcase_add_test (tc, test_derived_select);
    suite_add_tcase (s, tc);
    return s;
}
