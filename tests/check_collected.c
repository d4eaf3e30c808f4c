/* tests/check_collected.c - the collected table's writer (sim/trace_table.c) and reader
 * (analysis/collected.c), and its rows as runs of a comparison (analysis/compare.c).
 *
 * Invariants: what is written reads back - the same columns in order, roles and units, text
 * cells byte for byte (a quote, a semicolon, UTF-8, a long value), numbers bit for bit (NAN
 * as NAN); the file appears under its name only when whole, with /meta complete = 1, and no
 * .partial is left; a table cut short, one whose complete is 0, one without /columns or
 * whose /columns disagrees with /table are refused with one line naming the file, and told
 * apart from files that are no collected table (a trace, a text file); a comparison of the
 * rows has the metrics as figures ("NAME [UNIT]" read back as NAME in UNIT), the axes as
 * the keys that differ (experiment:seed as the seed), complete runs for done points and
 * incomplete ones for missing points, and ratios against a chosen baseline.
 * Unchecked here: that the figures equal the points' own traces' (tests/e2e/sweep.sh
 * compares the two comparisons), arbitrary byte damage (tests/e2e/sweep.sh flips bytes).
 */
#include "config.h"

#include <check.h>
#include <glib/gstdio.h>
#include <hdf5.h>
#include <math.h>
#include <string.h>

#include "analysis/collected.h"
#include "analysis/compare.h"
#include "sim/trace.h"
#include "sim/trace_table.h"
#include "tests/harness.h"

#define ROWS 3

static char long_value[300];

/* A table of three points: index, name, status, two axes, two metrics, trace. */
static void
write_table (const char *path)
{
    memset (long_value, 'x', sizeof long_value - 1);
    static const guint32 index[ROWS] = { 0, 1, 2 };
    static const char *const names[ROWS] = { "a", "b", "c" };
    static const char *const status[ROWS] = { "done", "hang", "missing" };
    const char *const axis[ROWS] = { "it's; \"quoted\"", "caf\xc3\xa9", long_value };
    static const char *const seeds[ROWS] = { "1", "2", "1" };
    static const double fct[ROWS] = { 1.5, 3.0, NAN };
    static const double drops[ROWS] = { 0, 7, NAN };
    static const char *const traces[ROWS] = { "d/a.h5", "d/b.h5", "" };
    const WeftTraceColumn cols[] = {
        { "index", "index", "", WEFT_TRACE_COLUMN_U32, .u32 = index },
        { "name", "name", "", WEFT_TRACE_COLUMN_TEXT, .text = names },
        { "status", "status", "", WEFT_TRACE_COLUMN_TEXT, .text = status },
        { "workload.w:flows", "axis", "", WEFT_TRACE_COLUMN_TEXT, .text = axis },
        { "experiment:seed", "axis", "", WEFT_TRACE_COLUMN_TEXT, .text = seeds },
        { "FCT p99 [us]", "metric", "us", WEFT_TRACE_COLUMN_F64, .f64 = fct },
        { "drops", "metric", "", WEFT_TRACE_COLUMN_F64, .f64 = drops },
        { "trace", "trace", "", WEFT_TRACE_COLUMN_TEXT, .text = traces },
    };
    const char *meta[] = { "sweep_file", "/x/s.ini", NULL };
    g_autoptr (GError) e = NULL;
    ck_assert_msg (weft_trace_table_write (path, meta, cols, G_N_ELEMENTS (cols), ROWS, &e), "%s",
                   e ? e->message : "");
}

static char *
tmp_path (const char *name)
{
    return g_build_filename (harness_tmp, name, NULL);
}

START_TEST (test_collected_round_trip)
{
    g_autofree char *path = tmp_path ("c.h5");
    g_autofree char *partial = tmp_path ("c.h5.partial");
    write_table (path);
    ck_assert (!g_file_test (partial, G_FILE_TEST_EXISTS));
    g_autoptr (GError) e = NULL;
    WeftCollectedProbe what;
    g_autoptr (WeftCollected) t = weft_collected_read (path, &what, &e);
    ck_assert_msg (t != NULL, "%s", e ? e->message : "");
    ck_assert_str_eq (t->sweep_file, "/x/s.ini");
    ck_assert_uint_eq (t->n_rows, ROWS);
    ck_assert_uint_eq (t->columns->len, 8);
    const WeftCollectedColumn *axis = weft_collected_column (t, "workload.w:flows");
    ck_assert_ptr_nonnull (axis);
    ck_assert_int_eq (axis->role, WEFT_COLLECTED_AXIS);
    ck_assert_str_eq (axis->text[0], "it's; \"quoted\"");
    ck_assert_str_eq (axis->text[1], "caf\xc3\xa9");
    ck_assert_str_eq (axis->text[2], long_value);
    const WeftCollectedColumn *fct = weft_collected_column (t, "FCT p99 [us]");
    ck_assert_int_eq (fct->role, WEFT_COLLECTED_METRIC);
    ck_assert_str_eq (fct->unit, "us");
    ck_assert (fct->values[0] == 1.5 && fct->values[1] == 3.0 && isnan (fct->values[2]));
    const WeftCollectedColumn *index = t->columns->pdata[0];
    ck_assert_int_eq (index->role, WEFT_COLLECTED_INDEX);
    ck_assert (index->values[2] == 2.0);
    ck_assert_str_eq (((WeftCollectedColumn *) t->columns->pdata[7])->text[2], "");
}
END_TEST

START_TEST (test_collected_refuses_damage)
{
    g_autofree char *path = tmp_path ("c.h5");
    write_table (path);
    g_autofree char *bytes = NULL;
    gsize n = 0;
    ck_assert (g_file_get_contents (path, &bytes, &n, NULL));
    /* cut short */
    g_autofree char *cut = tmp_path ("cut.h5");
    ck_assert (g_file_set_contents (cut, bytes, (gssize) (n / 2), NULL));
    WeftCollectedProbe what;
    GError *e = NULL;
    ck_assert_ptr_null (weft_collected_read (cut, &what, &e));
    ck_assert (g_error_matches (e, WEFT_TRACE_ERROR, WEFT_TRACE_ERROR_READ));
    ck_assert_int_eq (what, WEFT_COLLECTED_UNOPENED);
    ck_assert (strstr (e->message, cut) != NULL && strchr (e->message, '\n') == NULL);
    g_clear_error (&e);
    /* not finished: complete = 0; /columns removed; /columns one row short */
    for (int k = 0; k < 3; k++) {
        g_autofree char *bad = tmp_path ("bad.h5");
        ck_assert (g_file_set_contents (bad, bytes, (gssize) n, NULL));
        hid_t f = H5Fopen (bad, H5F_ACC_RDWR, H5P_DEFAULT);
        ck_assert_int_ge (f, 0);
        if (k == 0) {
            hid_t m = H5Gopen2 (f, "meta", H5P_DEFAULT);
            guint8 zero = 0;
            hid_t a = H5Aopen (m, "complete", H5P_DEFAULT);
            ck_assert_int_ge (H5Awrite (a, H5T_NATIVE_UINT8, &zero), 0);
            H5Aclose (a);
            H5Gclose (m);
        } else if (k == 1) {
            ck_assert_int_ge (H5Ldelete (f, "columns", H5P_DEFAULT), 0);
        } else {
            hid_t d = H5Dopen2 (f, "columns", H5P_DEFAULT);
            hid_t type = H5Dget_type (d);
            g_autofree char *rows = g_malloc (8 * H5Tget_size (type));
            ck_assert_int_ge (H5Dread (d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows), 0);
            H5Dclose (d);
            ck_assert_int_ge (H5Ldelete (f, "columns", H5P_DEFAULT), 0);
            hsize_t dims[1] = { 7 };
            hid_t space = H5Screate_simple (1, dims, NULL);
            d = H5Dcreate2 (f, "columns", type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
            ck_assert_int_ge (d, 0);
            ck_assert_int_ge (H5Dwrite (d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows), 0);
            H5Dclose (d);
            H5Sclose (space);
            H5Tclose (type);
        }
        H5Fclose (f);
        ck_assert_ptr_null (weft_collected_read (bad, &what, &e));
        ck_assert_int_eq (what, WEFT_COLLECTED_IS_TABLE);
        const char *want[] = { "incomplete collected table", "/columns is missing",
                               "/columns describes 7 columns" };
        ck_assert_msg (strstr (e->message, want[k]) != NULL, "%s", e->message);
        g_clear_error (&e);
    }
    /* not tables at all: a text file, a trace */
    g_autofree char *text = tmp_path ("t.txt");
    ck_assert (g_file_set_contents (text, "hello\n", -1, NULL));
    ck_assert_ptr_null (weft_collected_read (text, &what, &e));
    ck_assert_int_eq (what, WEFT_COLLECTED_NOT_TABLE);
    g_clear_error (&e);
    g_autofree char *trace = tmp_path ("t.h5");
    const WeftTraceMeta meta = { .experiment_text = "", .experiment_path = "t.ini", .seed = 1 };
    WeftTrace *tr = weft_trace_create (trace, &meta, NULL);
    const WeftTraceEnd end = { .status = WEFT_TRACE_STATUS_DONE };
    ck_assert (weft_trace_close (tr, &end, NULL));
    ck_assert_ptr_null (weft_collected_read (trace, &what, &e));
    ck_assert_int_eq (what, WEFT_COLLECTED_NOT_TABLE);
    g_clear_error (&e);
}
END_TEST

START_TEST (test_collected_rows_compare)
{
    g_autofree char *path = tmp_path ("c.h5");
    write_table (path);
    WeftCollectedProbe what;
    g_autoptr (WeftCollected) t = weft_collected_read (path, &what, NULL);
    ck_assert_ptr_nonnull (t);
    const char *paths[] = { path, NULL };
    WeftCollected *tables[] = { t };
    g_autoptr (WeftComparison) c = weft_compare_new_mixed (paths, tables, NULL);
    ck_assert_ptr_nonnull (c);
    ck_assert_uint_eq (c->n_runs, ROWS);
    ck_assert (c->runs[0]->complete && c->runs[1]->complete && !c->runs[2]->complete);
    ck_assert (!weft_comparison_complete (c));
    ck_assert_uint_eq (c->runs[1]->seed, 2);
    /* the axes differ (the seed first, as for traces) */
    ck_assert_uint_eq (c->differs->len, 2);
    ck_assert_str_eq (((WeftCompareDiff *) c->differs->pdata[0])->key, "experiment:seed");
    const WeftCompareDiff *d = c->differs->pdata[1];
    ck_assert_str_eq (d->key, "workload.w:flows");
    ck_assert_str_eq (d->values[0], "it's; \"quoted\"");
    /* metrics as figures, the unit split off */
    const WeftCompareFigure *fct = NULL;
    for (guint k = 0; k < c->figures->len; k++)
        if (strcmp (((WeftCompareFigure *) c->figures->pdata[k])->name, "FCT p99") == 0)
            fct = c->figures->pdata[k];
    ck_assert_ptr_nonnull (fct);
    ck_assert_str_eq (fct->unit, "us");
    ck_assert (fct->values[1] == 3.0 && isnan (fct->values[2]));
    /* ratios against row 1 */
    ck_assert (weft_compare_set_baseline (c, 1));
    ck_assert (!weft_compare_set_baseline (c, ROWS));
    g_autoptr (GString) csv = g_string_new (NULL);
    weft_compare_format (c, WEFT_COMPARE_CSV, csv);
    ck_assert_msg (strstr (csv->str, "figure,FCT p99,us,1,") != NULL, "%s", csv->str);
    ck_assert_msg (strstr (csv->str, ",1.5,0.5\r\n") != NULL, "%s", csv->str);
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("collected");
    TCase *tc = tcase_create ("table");
    tcase_add_checked_fixture (tc, harness_tmp_setup, harness_tmp_teardown);
    tcase_add_test (tc, test_collected_round_trip);
    tcase_add_test (tc, test_collected_refuses_damage);
    tcase_add_test (tc, test_collected_rows_compare);
    suite_add_tcase (s, tc);
    return s;
}
