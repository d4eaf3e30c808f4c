/* cli/compare.c - `weft compare TRACE.h5|COLLECTED.h5... [--format text|csv|json]
 * [--baseline I]`: runs side by side, with ratios against the first or run I
 * (analysis/compare.h); a sweep's collected table gives a run per row (analysis/collected.h).
 *
 * An argument may be a trace, a directory (its *.h5 files, by name) or a glob pattern the
 * shell did not expand (quoted).  Exit status as weft report's: 0 every run complete, 1 one
 * is incomplete, damaged or unreadable (printed, marked, with one line on stderr), 2 bad
 * usage or a file that is not a weft trace.
 */
#include "config.h"
#define G_LOG_DOMAIN "weft-cli"
#include <glib.h>
#include <glob.h>
#include <stdio.h>
#include <string.h>

#include "analysis/collected.h"
#include "analysis/compare.h"
#include "cli/cli.h"
#include "sim/errors.h"

enum { COMPARE_COMPLETE = 0, COMPARE_INCOMPLETE = 1, COMPARE_BAD = 2 };

static gint
by_name (gconstpointer a, gconstpointer b, gpointer unused)
{
    (void) unused;
    return strcmp (*(char *const *) a, *(char *const *) b);
}

/* Adds the traces @arg names to @paths; FALSE, with the one line in *@why, when it names
 * none. */
static gboolean
expand (const char *arg, GPtrArray *paths, char **why)
{
    if (g_file_test (arg, G_FILE_TEST_IS_DIR)) {
        GDir *dir = g_dir_open (arg, 0, NULL);
        guint before = paths->len;
        const char *name;
        while (dir && (name = g_dir_read_name (dir)) != NULL)
            if (g_str_has_suffix (name, ".h5"))
                g_ptr_array_add (paths, g_build_filename (arg, name, NULL));
        if (dir)
            g_dir_close (dir);
        if (paths->len == before) {
            *why = g_strdup_printf ("%s: a directory without .h5 files", arg);
            return FALSE;
        }
        g_qsort_with_data (paths->pdata + before, (gint) (paths->len - before), sizeof (gpointer),
                           by_name, NULL);
        return TRUE;
    }
    if (!g_file_test (arg, G_FILE_TEST_EXISTS) && strpbrk (arg, "*?[") != NULL) {
        glob_t g;
        int rc = glob (arg, 0, NULL, &g);
        if (rc != 0) {
            if (rc == GLOB_NOMATCH)
                *why = g_strdup_printf ("%s: no file matches", arg);
            else
                *why = g_strdup_printf ("%s: cannot expand the pattern", arg);
            globfree (&g);
            return FALSE;
        }
        for (size_t i = 0; i < g.gl_pathc; i++) /* glob sorts them */
            g_ptr_array_add (paths, g_strdup (g.gl_pathv[i]));
        globfree (&g);
        return TRUE;
    }
    g_ptr_array_add (paths, g_strdup (arg));
    return TRUE;
}

/* Reads each of @paths that is a collected table into @tables (NULL for the others);
 * COMPARE_COMPLETE, or the exit status after one line on stderr: a collected table that is
 * damaged or incomplete, or a lone file that does not open (a collected table or a trace cut
 * short: there is nothing to compare it with either way), is 1. */
static int
read_tables (GPtrArray *paths, GPtrArray *tables, guint *n_runs)
{
    *n_runs = 0;
    for (guint i = 0; i < paths->len; i++) {
        g_autoptr (GError) e = NULL;
        WeftCollectedProbe what;
        WeftCollected *t = weft_collected_read (paths->pdata[i], &what, &e);
        if (t == NULL && (what == WEFT_COLLECTED_IS_TABLE ||
                          (what == WEFT_COLLECTED_UNOPENED && paths->len == 1))) {
            g_printerr ("weft compare: %s\n", e->message);
            return COMPARE_INCOMPLETE;
        }
        g_ptr_array_add (tables, t);
        *n_runs += t ? t->n_rows : 1;
    }
    return COMPARE_COMPLETE;
}

/* Prints the comparison of @paths (traces and collected tables: two runs or more); returns
 * the exit status. */
static int
compare_paths (GPtrArray *paths, WeftCompareFormat fmt, gint baseline)
{
    GError *error = NULL;
    g_autoptr (GPtrArray) tables =
        g_ptr_array_new_with_free_func ((GDestroyNotify) weft_collected_free);
    guint n_runs = 0;
    int rc = read_tables (paths, tables, &n_runs);
    if (rc != COMPARE_COMPLETE)
        return rc;
    if (n_runs < 2) {
        g_printerr ("weft compare: expected two or more traces, or a collected table of two "
                    "points or more (see weft compare --help)\n");
        return COMPARE_BAD;
    }
    if (baseline >= 0 && (guint) baseline >= n_runs) {
        g_printerr ("weft compare: --baseline %d: expected 0 to %u (the runs, counted from 0)\n",
                    baseline, n_runs - 1);
        return COMPARE_BAD;
    }
    g_ptr_array_add (paths, NULL);
    g_autoptr (WeftComparison) c = weft_compare_new_mixed (
        (const char *const *) paths->pdata, (WeftCollected *const *) tables->pdata, &error);
    if (c == NULL) {
        g_printerr ("weft compare: %s\n", error->message);
        g_error_free (error);
        return COMPARE_BAD;
    }
    if (baseline >= 0)
        weft_compare_set_baseline (c, (guint) baseline);
    g_autoptr (GString) text = g_string_new (NULL);
    weft_compare_format (c, fmt, text);
    fputs (text->str, stdout);
    int status = COMPARE_COMPLETE;
    for (guint i = 0; i < c->n_runs && status == COMPARE_COMPLETE; i++) {
        const WeftTraceInfo *info = c->runs[i];
        if (c->row[i] >= 0 && !info->complete)
            g_printerr ("weft compare: %s: %s\n", info->path, info->reason);
        else if (info->damaged)
            g_printerr ("weft compare: %s: damaged trace: %s\n", info->path, info->reason);
        else if (!info->complete)
            g_printerr ("weft compare: %s: incomplete trace: %s\n", info->path, info->reason);
        else if (c->problems[i] != NULL)
            g_printerr ("weft compare: %s\n", c->problems[i]);
        else
            continue;
        status = COMPARE_INCOMPLETE;
    }
    return status;
}

static const char compare_description[] =
    "Each argument is a trace, a directory (its .h5 files, by name) or a quoted\n"
    "glob pattern, or a sweep's collected table (collected.h5, weft sweep\n"
    "--collect), whose every row is a run (its metrics the figures, its axes the\n"
    "keys, a point without a complete result an incomplete run; doc/sweeps.md).\n"
    "Prints, for every run, its status (as weft report gives it),\n"
    "schema version and seed; the experiment keys whose values differ between the\n"
    "runs (GROUP:KEY, from the resolved experiment each trace stores in /meta); then\n"
    "each figure the traces hold, one column per run and the ratio of each run's\n"
    "value to the first run's (--baseline I: run I's, counting from 0):\n"
    "  sim time; busbw per nccl-test workload, op and size (GB/s, mean over the\n"
    "  timed iterations, out of place); per flow workload its aggregate\n"
    "  throughput (Gb/s) and finished flows; FCT p50, p99, p99.9 (us) and slowdown\n"
    "  p50, p99 over the finished flows of flow workloads, and FCT p50, p99, p99.9\n"
    "  by flow size (<=100KB, 100KB-1MB, 1MB-10MB, >10MB); per training workload\n"
    "  the mean step time and exposed communication (step time - compute, us);\n"
    "  retransmissions, CNPs\n"
    "  sent, drops, lossless violations, pause / credit-stall time (PortXmitWait\n"
    "  summed over /ports, us), ECN marks, PFC PAUSE frames sent.\n"
    "Percentiles are those of weft run and weft report (doc/analysis.md).  A figure\n"
    "a run lacks (its schema version predates it, or its workloads differ) is \"-\"\n"
    "and named on a \"missing:\" line.\n"
    "\n"
    "--format csv prints one row per run and item (section,name,unit,run,trace,\n"
    "value,ratio), --format json one object (runs, differs, figures with values\n"
    "and ratios, missing), both at full precision.\n"
    "\n"
    "Exit status (with one line on stderr saying why, unless 0):\n"
    "  0  every trace is complete\n"
    "  1  a trace is incomplete, damaged or does not open, or a data set does not\n"
    "     read: the comparison is printed, that run marked\n"
    "     (a collected table that is damaged, cut short or unfinished: one line,\n"
    "     nothing printed)\n"
    "  2  bad usage, or a file is missing or not a weft trace\n";

int
weft_cli_compare (int argc, char **argv)
{
    char *format = NULL;
    char **args = NULL;
    gint baseline = -1;
    GOptionEntry entries[] = {
        { "format", 0, 0, G_OPTION_ARG_STRING, &format, "Output format: text (default), csv, json",
          "text|csv|json" },
        { "baseline", 0, 0, G_OPTION_ARG_INT, &baseline,
          "ratios against run I, counted from 0 (default: the first)", "I" },
        { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &args, NULL, NULL },
        { NULL, 0, 0, 0, NULL, NULL, NULL },
    };
    GOptionContext *ctx =
        g_option_context_new ("TRACE.h5|COLLECTED.h5... [--format text|csv|json] [--baseline I]");
    g_option_context_set_summary (ctx, "Compare weft trace files side by side.");
    g_option_context_add_main_entries (ctx, entries, NULL);
    g_option_context_set_description (ctx, compare_description);
    GError *error = NULL;
    gboolean parsed = g_option_context_parse (ctx, &argc, &argv, &error);
    g_option_context_free (ctx);
    int status = COMPARE_BAD;
    WeftCompareFormat fmt = WEFT_COMPARE_TEXT;
    g_autoptr (GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
    char *why = NULL;
    if (!parsed) {
        g_printerr ("weft compare: %s\n", error->message);
        g_error_free (error);
        goto out;
    }
    if (baseline < -1) {
        g_printerr ("weft compare: --baseline %d: expected a run number from 0\n", baseline);
        goto out;
    }
    if (format == NULL || strcmp (format, "text") == 0)
        fmt = WEFT_COMPARE_TEXT;
    else if (strcmp (format, "csv") == 0)
        fmt = WEFT_COMPARE_CSV;
    else if (strcmp (format, "json") == 0)
        fmt = WEFT_COMPARE_JSON;
    else {
        g_printerr ("weft compare: --format %s: expected text, csv or json\n", format);
        goto out;
    }
    for (guint i = 0; args && args[i]; i++) {
        if (!expand (args[i], paths, &why)) {
            g_printerr ("weft compare: %s\n", why);
            g_free (why);
            goto out;
        }
    }
    if (paths->len < 1) {
        g_printerr ("weft compare: expected two or more traces, or a collected table (see weft "
                    "compare --help)\n");
        goto out;
    }
    status = compare_paths (paths, fmt, baseline);
out:
    g_free (format);
    g_strfreev (args);
    return status;
}
