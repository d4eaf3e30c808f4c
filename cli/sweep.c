/* cli/sweep.c - `weft sweep FILE`: the points of a [sweep] group (sim/sweep.h), listed, run
 * as child processes of this same binary (`weft run --set ...`), one at a time from a Slurm
 * job array (--point), or collected into one table (doc/sweeps.md).
 *
 * Every point writes DIR/NAME.h5 (the trace, as NAME.h5.partial until complete), DIR/NAME.json
 * (`weft run --summary-json`, written last and atomically) and DIR/NAME.log (the run's own
 * output); the collection writes DIR/collected.csv and DIR/collected.h5 (sim/trace_table.h).  A
 * point is complete when its summary exists and its trace is complete; --resume (the default) skips
 * those.  Before anything runs, every point is prepared as `weft run` would: an axis naming an
 * unknown group or key is bad input (exit 2); a point whose values are refused is listed as invalid
 * and skipped.  Any invalid or failed point (a run that exits non-zero, a hang among them) makes
 * the sweep exit 5, each named with its index and reason, after the others have finished.
 */
#include "config.h"
#define G_LOG_DOMAIN "weft-cli"
#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analysis/compare.h"
#include "analysis/export.h"
#include "analysis/trace_reader.h"
#include "cli/cli.h"
#include "cli/session.h"
#include "sim/sweep.h"
#include "sim/trace_table.h"

typedef enum {
    POINT_TODO,
    POINT_SKIPPED, /* complete from an earlier invocation */
    POINT_INVALID,
    POINT_RUNNING,
    POINT_DONE,
    POINT_FAILED,
} PointState;

typedef struct {
    const char *file; /* the sweep file, as given */
    WeftSweep *sweep;
    char *dir;         /* output folder */
    PointState *state; /* per point */
    char **reason;     /* per point: why invalid or failed (owned), else NULL */
    GPid *pid;         /* per point while running */
    gint64 *started;   /* monotonic us */
} Sweep;

/* DIR/NAME.EXT  (transfer full) */
static char *
point_path (const Sweep *sw, const WeftSweepPoint *p, const char *ext)
{
    g_autofree char *base = g_strconcat (p->name, ext, NULL);
    return g_build_filename (sw->dir, base, NULL);
}

/* The output folder: --output, else [sweep] output, else NAME-sweep ([experiment] name or
 * the file's base name without .ini) in the working directory.  (transfer full) */
static char *
output_dir (const WeftExperiment *exp, const WeftSweep *sweep, const char *file, const char *option)
{
    if (option)
        return g_strdup (option);
    if (sweep->output)
        return g_strdup (sweep->output);
    g_autofree char *name =
        g_key_file_get_string (weft_experiment_keyfile (exp), "experiment", "name", NULL);
    if (name == NULL || *g_strstrip (name) == '\0') {
        g_free (name);
        name = g_path_get_basename (file);
        if (g_str_has_suffix (name, ".ini"))
            name[strlen (name) - 4] = '\0';
    }
    return g_strconcat (name, "-sweep", NULL);
}

/* Whether @p's outputs are complete: its summary exists and its trace is complete.  *@failed
 * gets the reason when the run ended in a hang or a failed workload (complete traces, but not
 * a result to take), else NULL. */
static gboolean
point_complete (const Sweep *sw, const WeftSweepPoint *p, char **failed)
{
    *failed = NULL;
    g_autofree char *json = point_path (sw, p, ".json");
    g_autofree char *h5 = point_path (sw, p, ".h5");
    if (!g_file_test (json, G_FILE_TEST_IS_REGULAR))
        return FALSE;
    g_autoptr (WeftTraceInfo) info = weft_trace_reader_open (h5, NULL);
    if (info == NULL || !info->complete)
        return FALSE;
    if (info->status == WEFT_TRACE_STATUS_HANG || info->status == WEFT_TRACE_STATUS_WORKLOAD_FAILED)
        *failed = g_strdup_printf ("%s (an earlier run's complete trace; --no-resume runs it "
                                   "again)",
                                   info->status_text);
    return TRUE;
}

/* Prepares @file with @overrides as `weft run` would; FALSE with @error when it refuses. */
static gboolean
prepare (const char *file, char **overrides, GError **error)
{
    WeftSession s;
    gboolean ok = weft_session_prepare (&s, file, overrides, NULL, 0, error);
    weft_session_clear (&s);
    return ok;
}

static gboolean
unknown_name (const GError *e)
{
    return g_error_matches (e, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_UNKNOWN_GROUP) ||
           g_error_matches (e, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_UNKNOWN_KEY);
}

/* Every axis must name a group and key the engine knows (checked with its first value, and
 * bad input if not); then every point is prepared, and the ones refused are marked invalid
 * with the reason.  FALSE (exit 2) for an unknown axis. */
static gboolean
validate (Sweep *sw)
{
    for (guint a = 0; a < sw->sweep->axes->len; a++) {
        const WeftSweepAxis *axis = sw->sweep->axes->pdata[a];
        g_autofree char *set =
            g_strdup_printf ("%s:%s=%s", axis->group, axis->key, axis->values[0]);
        char *sets[] = { set, NULL };
        g_autoptr (GError) e = NULL;
        if (!prepare (sw->file, sets, &e) && unknown_name (e)) {
            g_printerr ("%s: [sweep] %s:%s: the axis names no known parameter: %s\n", sw->file,
                        axis->group, axis->key, e->message);
            return FALSE;
        }
    }
    for (guint i = 0; i < sw->sweep->points->len; i++) {
        const WeftSweepPoint *p = sw->sweep->points->pdata[i];
        g_autoptr (GError) e = NULL;
        if (!prepare (sw->file, p->overrides, &e)) {
            if (unknown_name (e)) {
                g_printerr ("%s: [sweep] point %u: %s\n", sw->file, i, e->message);
                return FALSE;
            }
            sw->state[i] = POINT_INVALID;
            sw->reason[i] = g_strdup_printf ("invalid: %s", e->message);
        }
    }
    return TRUE;
}

/* The output folder exists (created if need be) and takes files. */
static gboolean
check_dir (const Sweep *sw)
{
    if (g_mkdir_with_parents (sw->dir, 0777) != 0 || g_access (sw->dir, W_OK | X_OK) != 0) {
        int err = errno;
        g_printerr ("%s: [sweep] output: %s: cannot write there: %s\n", sw->file, sw->dir,
                    g_strerror (err));
        return FALSE;
    }
    return TRUE;
}

/* The `weft run` arguments of point @p (after the program name).  (transfer full) */
static GPtrArray *
run_args (const Sweep *sw, const WeftSweepPoint *p)
{
    GPtrArray *args = g_ptr_array_new_with_free_func (g_free);
    g_ptr_array_add (args, g_strdup ("run"));
    g_ptr_array_add (args, g_strdup ("--quiet"));
    for (char **o = p->overrides; *o; o++)
        g_ptr_array_add (args, g_strconcat ("--set=", *o, NULL));
    g_autofree char *h5 = point_path (sw, p, ".h5");
    g_ptr_array_add (args, g_strconcat ("--output=", h5, NULL));
    g_autofree char *json = point_path (sw, p, ".json");
    g_ptr_array_add (args, g_strconcat ("--summary-json=", json, NULL));
    g_ptr_array_add (args, g_strdup ("--"));
    g_ptr_array_add (args, g_strdup (sw->file));
    return args;
}

/* This program's own path, so that children run the same binary.  (transfer full) */
static char *
self_path (void)
{
    char *p = g_file_read_link ("/proc/self/exe", NULL);
    return p ? p : g_strdup (g_get_prgname ());
}

static char *
describe_exit (int status, const char *log)
{
    if (WIFSIGNALED (status))
        return g_strdup_printf ("killed by signal %d (see %s)", WTERMSIG (status), log);
    int rc = WEXITSTATUS (status);
    const char *what = rc == WEFT_EXIT_HANG              ? "hang detected"
                       : rc == WEFT_EXIT_WORKLOAD_FAILED ? "workload failed"
                       : rc == WEFT_EXIT_BAD_INPUT       ? "bad input"
                       : rc == WEFT_EXIT_INTERRUPTED     ? "interrupted"
                                                         : "runtime failure";
    return g_strdup_printf ("exit %d, %s (see %s)", rc, what, log);
}

/* Starts point @i: `weft run` with its overrides, output and log in the folder. */
static gboolean
start_point (Sweep *sw, guint i, const char *self)
{
    const WeftSweepPoint *p = sw->sweep->points->pdata[i];
    g_autoptr (GPtrArray) args = run_args (sw, p);
    g_ptr_array_insert (args, 0, g_strdup (self));
    g_ptr_array_add (args, NULL);
    g_autofree char *log = point_path (sw, p, ".log");
    int fd = g_open (log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) {
        sw->state[i] = POINT_FAILED;
        sw->reason[i] = g_strdup_printf ("cannot write %s: %s", log, g_strerror (errno));
        return FALSE;
    }
    g_autoptr (GError) e = NULL;
    gboolean ok =
        g_spawn_async_with_fds (NULL, (char **) args->pdata, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL,
                                NULL, &sw->pid[i], -1, fd, fd, &e);
    close (fd);
    if (!ok) {
        sw->state[i] = POINT_FAILED;
        sw->reason[i] = g_strdup (e->message);
        return FALSE;
    }
    sw->state[i] = POINT_RUNNING;
    sw->started[i] = g_get_monotonic_time ();
    return TRUE;
}

typedef struct {
    guint total, todo, running, done, failed, skipped, invalid;
    double run_s; /* summed wall time of the points that ended */
    guint ended;
} Tally;

static void
tally (const Sweep *sw, Tally *t)
{
    double run_s = t->run_s;
    guint ended = t->ended;
    *t = (Tally){ .total = sw->sweep->points->len, .run_s = run_s, .ended = ended };
    for (guint i = 0; i < t->total; i++) {
        switch (sw->state[i]) {
        case POINT_TODO:
            t->todo++;
            break;
        case POINT_RUNNING:
            t->running++;
            break;
        case POINT_DONE:
            t->done++;
            break;
        case POINT_FAILED:
            t->failed++;
            break;
        case POINT_SKIPPED:
            t->skipped++;
            break;
        case POINT_INVALID:
            t->invalid++;
            break;
        }
    }
}

/* The progress line on a terminal: points done / running / failed, and the ETA from the mean
 * wall time of the points that ended so far. */
static void
show_progress (const Tally *t, guint jobs, gint64 start)
{
    double elapsed = (double) (g_get_monotonic_time () - start) / G_USEC_PER_SEC;
    char eta[32] = "?";
    if (t->ended > 0) {
        double left = (t->run_s / t->ended) * (t->todo + t->running) / MAX (jobs, 1u);
        g_snprintf (eta, sizeof eta, "%.0fs", left);
    }
    fprintf (stderr,
             "\r\033[K  sweep: %u/%u done, %u running, %u failed, %u invalid, %u skipped  "
             "%.0fs  ETA %s",
             t->done + t->skipped, t->total, t->running, t->failed, t->invalid, t->skipped, elapsed,
             eta);
}

/* Runs every point still to do, @jobs at a time; returns when all have ended. */
static void
run_points (Sweep *sw, guint jobs, gboolean tty)
{
    g_autofree char *self = self_path ();
    guint n = sw->sweep->points->len, next = 0, running = 0;
    Tally t = { 0 };
    gint64 start = g_get_monotonic_time (), shown = 0;
    for (;;) {
        while (running < jobs && next < n) {
            if (sw->state[next] == POINT_TODO && start_point (sw, next, self))
                running++;
            else if (sw->state[next] == POINT_FAILED && !tty)
                printf ("point %u %s: FAILED: %s\n", next,
                        ((WeftSweepPoint *) sw->sweep->points->pdata[next])->name,
                        sw->reason[next]);
            next++;
        }
        if (running == 0 && next >= n)
            break;
        int status;
        pid_t pid = waitpid (-1, &status, running > 0 ? WNOHANG : 0);
        if (pid > 0) {
            for (guint i = 0; i < n; i++) {
                if (sw->state[i] != POINT_RUNNING || sw->pid[i] != pid)
                    continue;
                const WeftSweepPoint *p = sw->sweep->points->pdata[i];
                g_spawn_close_pid (pid);
                running--;
                t.ended++;
                t.run_s += (double) (g_get_monotonic_time () - sw->started[i]) / G_USEC_PER_SEC;
                if (WIFEXITED (status) && WEXITSTATUS (status) == 0) {
                    sw->state[i] = POINT_DONE;
                } else {
                    g_autofree char *log = point_path (sw, p, ".log");
                    sw->state[i] = POINT_FAILED;
                    sw->reason[i] = describe_exit (status, log);
                }
                if (!tty)
                    printf ("point %u %s: %s%s\n", i, p->name,
                            sw->state[i] == POINT_DONE ? "done" : "FAILED: ",
                            sw->state[i] == POINT_DONE ? "" : sw->reason[i]);
                break;
            }
            fflush (stdout);
        } else if (pid == 0) {
            g_usleep (50 * 1000);
        } else if (errno != EINTR) {
            break; /* no child left: cannot happen while running > 0 */
        }
        if (tty && g_get_monotonic_time () - shown > G_USEC_PER_SEC / 4) {
            tally (sw, &t);
            show_progress (&t, jobs, start);
            shown = g_get_monotonic_time ();
        }
    }
    if (tty) {
        tally (sw, &t);
        show_progress (&t, jobs, start);
        fputc ('\n', stderr);
    }
}

/* ---- --collect ------------------------------------------------------------------------ */

static void
csv_double (GString *out, double v)
{
    if (!isnan (v))
        g_string_append_printf (out, "%.17g", v);
}

/* DIR/collected.h5: the rows and columns of collected.csv, the same numbers (doubles, NAN
 * where the CSV is empty), as one compound data set (sim/trace_table.h); /columns gives each
 * column's role (index, name, status, axis, metric, trace) and unit. */
static gboolean
collect_h5 (const Sweep *sw, const WeftComparison *c, const gint *run_of, GPtrArray *status,
            GPtrArray *paths, GError **error)
{
    guint n = sw->sweep->points->len, n_axes = sw->sweep->axes->len;
    guint n_figs = c ? c->figures->len : 0, n_cols = 4 + n_axes + n_figs;
    WeftTraceColumn *cols = g_new0 (WeftTraceColumn, n_cols);
    g_autoptr (GPtrArray) owned = g_ptr_array_new_with_free_func (g_free);
    guint32 *index = g_new (guint32, MAX (n, 1));
    const char **names = g_new (const char *, MAX (n, 1));
    const char **states = g_new (const char *, MAX (n, 1));
    const char **traces = g_new (const char *, MAX (n, 1));
    for (guint i = 0; i < n; i++) {
        const WeftSweepPoint *p = sw->sweep->points->pdata[i];
        index[i] = i;
        names[i] = p->name;
        states[i] = run_of[i] >= 0 ? c->runs[run_of[i]]->status_text : status->pdata[i];
        traces[i] = run_of[i] >= 0 ? paths->pdata[run_of[i]] : "";
    }
    guint k = 0;
    cols[k++] = (WeftTraceColumn){ "index", "index", "", WEFT_TRACE_COLUMN_U32, .u32 = index };
    cols[k++] = (WeftTraceColumn){ "name", "name", "", WEFT_TRACE_COLUMN_TEXT, .text = names };
    cols[k++] = (WeftTraceColumn){ "status", "status", "", WEFT_TRACE_COLUMN_TEXT, .text = states };
    for (guint a = 0; a < n_axes; a++) {
        const WeftSweepAxis *axis = sw->sweep->axes->pdata[a];
        const char **v = g_new (const char *, MAX (n, 1));
        for (guint i = 0; i < n; i++)
            v[i] = weft_sweep_point_value (sw->sweep->points->pdata[i], a);
        char *name = g_strdup_printf ("%s:%s", axis->group, axis->key);
        g_ptr_array_add (owned, name);
        g_ptr_array_add (owned, v);
        cols[k++] = (WeftTraceColumn){ name, "axis", "", WEFT_TRACE_COLUMN_TEXT, .text = v };
    }
    for (guint f = 0; f < n_figs; f++) {
        const WeftCompareFigure *fig = c->figures->pdata[f];
        double *v = g_new (double, MAX (n, 1));
        for (guint i = 0; i < n; i++)
            v[i] = run_of[i] >= 0 ? fig->values[run_of[i]] : NAN;
        char *name =
            *fig->unit ? g_strdup_printf ("%s [%s]", fig->name, fig->unit) : g_strdup (fig->name);
        g_ptr_array_add (owned, name);
        g_ptr_array_add (owned, v);
        cols[k++] = (WeftTraceColumn){ name, "metric", fig->unit, WEFT_TRACE_COLUMN_F64, .f64 = v };
    }
    cols[k++] = (WeftTraceColumn){ "trace", "trace", "", WEFT_TRACE_COLUMN_TEXT, .text = traces };
    g_autofree char *h5 = g_build_filename (sw->dir, "collected.h5", NULL);
    g_autofree char *file = g_canonicalize_filename (sw->file, NULL);
    const char *mode = sw->sweep->mode == WEFT_SWEEP_GRID ? "grid" : "zip";
    const char *meta[] = {
        "sweep_file", file, "mode", mode, "weft_version", PACKAGE_VERSION, NULL
    };
    gboolean ok = weft_trace_table_write (h5, meta, cols, n_cols, n, error);
    g_free (cols);
    g_free (index);
    g_free (names);
    g_free (states);
    g_free (traces);
    return ok;
}

/* The collected table: one row per point, in point order: index, name, status, the varied
 * parameters (one column per axis, GROUP:KEY), then every figure weft compare computes for
 * any complete point ("NAME [UNIT]", empty where a point lacks it), then the trace.  Written
 * as DIR/collected.csv (RFC 4180), atomically, then as DIR/collected.h5 (collect_h5()).
 * *@incomplete gets the points without a complete result (missing, incomplete, or ended in a hang
 * or a failed workload). */
static gboolean
collect (const Sweep *sw, guint *incomplete, GError **error)
{
    guint n = sw->sweep->points->len;
    g_autoptr (GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
    g_autofree gint *run_of = g_new (gint, n); /* the point's run in the comparison, or -1 */
    g_autoptr (GPtrArray) status = g_ptr_array_new_with_free_func (g_free);
    *incomplete = 0;
    for (guint i = 0; i < n; i++) {
        const WeftSweepPoint *p = sw->sweep->points->pdata[i];
        g_autofree char *failed = NULL;
        run_of[i] = -1;
        if (point_complete (sw, p, &failed)) {
            run_of[i] = (gint) paths->len;
            g_ptr_array_add (paths, point_path (sw, p, ".h5"));
            g_ptr_array_add (status, NULL); /* the trace's own, below */
            *incomplete += failed != NULL;
            continue;
        }
        g_autofree char *partial = point_path (sw, p, ".h5.partial");
        gboolean started = g_file_test (partial, G_FILE_TEST_EXISTS);
        g_ptr_array_add (status, g_strdup (sw->state && sw->state[i] == POINT_INVALID ? "invalid"
                                           : started                                  ? "incomplete"
                                                                                      : "missing"));
        (*incomplete)++;
    }
    g_autoptr (WeftComparison) c = NULL;
    if (paths->len > 0) {
        g_ptr_array_add (paths, NULL);
        c = weft_compare_new ((const char *const *) paths->pdata, error);
        if (c == NULL)
            return FALSE;
    }
    GString *out = g_string_new ("index,name,status");
    for (guint a = 0; a < sw->sweep->axes->len; a++) {
        const WeftSweepAxis *axis = sw->sweep->axes->pdata[a];
        g_autofree char *col = g_strdup_printf ("%s:%s", axis->group, axis->key);
        g_string_append_c (out, ',');
        weft_export_csv_field (out, col);
    }
    for (guint f = 0; c && f < c->figures->len; f++) {
        const WeftCompareFigure *fig = c->figures->pdata[f];
        g_autofree char *col =
            *fig->unit ? g_strdup_printf ("%s [%s]", fig->name, fig->unit) : g_strdup (fig->name);
        g_string_append_c (out, ',');
        weft_export_csv_field (out, col);
    }
    g_string_append (out, ",trace\r\n");
    for (guint i = 0; i < n; i++) {
        const WeftSweepPoint *p = sw->sweep->points->pdata[i];
        g_string_append_printf (out, "%u,", i);
        weft_export_csv_field (out, p->name);
        g_string_append_c (out, ',');
        weft_export_csv_field (out,
                               run_of[i] >= 0 ? c->runs[run_of[i]]->status_text : status->pdata[i]);
        for (guint a = 0; a < sw->sweep->axes->len; a++) {
            g_string_append_c (out, ',');
            weft_export_csv_field (out, weft_sweep_point_value (p, a));
        }
        for (guint f = 0; c && f < c->figures->len; f++) {
            const WeftCompareFigure *fig = c->figures->pdata[f];
            g_string_append_c (out, ',');
            if (run_of[i] >= 0)
                csv_double (out, fig->values[run_of[i]]);
        }
        g_string_append_c (out, ',');
        if (run_of[i] >= 0)
            weft_export_csv_field (out, paths->pdata[run_of[i]]);
        g_string_append (out, "\r\n");
    }
    g_autofree char *csv = g_build_filename (sw->dir, "collected.csv", NULL);
    gboolean ok = g_file_set_contents (csv, out->str, (gssize) out->len, error);
    g_string_free (out, TRUE);
    return ok && collect_h5 (sw, c, run_of, status, paths, error);
}

/* ---- --slurm ---------------------------------------------------------------------------- */

/* A value that goes into an #SBATCH line (sbatch reads those itself, no shell): only what
 * such a value needs. */
static gboolean
sbatch_safe (const char *v)
{
    for (const char *p = v; *p; p++)
        if (!g_ascii_isalnum (*p) && !strchr ("-_.:,+/%", *p))
            return FALSE;
    return *v != '\0';
}

typedef struct {
    char *partition, *time, *mem;
    gint array_limit;
    gboolean submit;
} SlurmOptions;

/* DIR/sweep.sbatch (the job array: task i runs point i through `weft sweep --point`) and
 * DIR/collect.sbatch (the collection, submitted with --dependency=afterany on the array).
 * Every path is absolute and shell-quoted; parameter values never reach the script: each task
 * reads them from the sweep file. */
static gboolean
write_slurm (const Sweep *sw, const SlurmOptions *o, char **array_script, char **collect_script)
{
    g_autofree char *self = self_path ();
    g_autofree char *file = g_canonicalize_filename (sw->file, NULL);
    g_autofree char *dir = g_canonicalize_filename (sw->dir, NULL);
    g_autofree char *q_self = g_shell_quote (self);
    g_autofree char *q_file = g_shell_quote (file);
    g_autofree char *q_dir = g_shell_quote (dir);
    guint n = sw->sweep->points->len;
    g_autofree char *job = g_path_get_basename (dir);
    GString *head = g_string_new (NULL);
    if (o->partition)
        g_string_append_printf (head, "#SBATCH --partition=%s\n", o->partition);
    if (o->time)
        g_string_append_printf (head, "#SBATCH --time=%s\n", o->time);
    if (o->mem)
        g_string_append_printf (head, "#SBATCH --mem=%s\n", o->mem);
    /* sbatch reads #SBATCH lines without a shell: a folder outside the plain characters is
     * left to Slurm's default log place (the submission directory) rather than quoted. */
    gboolean plain_dir = sbatch_safe (dir) && sbatch_safe (job);
    GString *a = g_string_new ("#!/bin/sh\n");
    g_string_append_printf (a,
                            "# weft sweep: %u points of %s, one job-array task each.\n"
                            "# Written by `weft sweep --slurm`; submit with sbatch (collect.sbatch "
                            "after it,\n# --dependency=afterany:JOBID) or use --submit.\n",
                            n, file);
    if (plain_dir) {
        g_string_append_printf (a, "#SBATCH --job-name=%s\n", job);
        g_string_append_printf (a, "#SBATCH --output=%s/slurm-%%A_%%a.log\n", dir);
    }
    g_string_append_printf (a, "#SBATCH --array=0-%u", n - 1);
    if (o->array_limit > 0)
        g_string_append_printf (a, "%%%d", o->array_limit);
    g_string_append_printf (a, "\n#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n%s", head->str);
    g_string_append_printf (a, "exec %s sweep --output=%s --point=\"$SLURM_ARRAY_TASK_ID\" -- %s\n",
                            q_self, q_dir, q_file);
    GString *c = g_string_new ("#!/bin/sh\n");
    g_string_append_printf (c,
                            "# weft sweep: collects the %u points of %s into collected.csv\n"
                            "# and collected.h5.\n"
                            "# Submitted after sweep.sbatch with --dependency=afterany:JOBID.\n",
                            n, file);
    if (plain_dir) {
        g_string_append_printf (c, "#SBATCH --job-name=%s-collect\n", job);
        g_string_append_printf (c, "#SBATCH --output=%s/slurm-collect-%%j.log\n", dir);
    }
    g_string_append_printf (c, "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n%s", head->str);
    g_string_append_printf (c, "exec %s sweep --output=%s --collect -- %s\n", q_self, q_dir,
                            q_file);
    *array_script = g_build_filename (sw->dir, "sweep.sbatch", NULL);
    *collect_script = g_build_filename (sw->dir, "collect.sbatch", NULL);
    g_autoptr (GError) e = NULL;
    gboolean ok = g_file_set_contents (*array_script, a->str, -1, &e) &&
                  g_file_set_contents (*collect_script, c->str, -1, &e);
    if (!ok)
        g_printerr ("weft sweep: %s\n", e->message);
    g_string_free (head, TRUE);
    g_string_free (a, TRUE);
    g_string_free (c, TRUE);
    return ok;
}

/* sbatch --parsable SCRIPT [--dependency=...]: the job id on stdout; NULL on failure (said). */
static char *
sbatch (const char *sbatch_path, const char *script, const char *dependency)
{
    const char *argv[] = { sbatch_path, "--parsable", dependency ? dependency : script,
                           dependency ? script : NULL, NULL };
    g_autofree char *out = NULL, *err = NULL;
    int status;
    g_autoptr (GError) e = NULL;
    if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status,
                       &e)) {
        g_printerr ("weft sweep: sbatch: %s\n", e->message);
        return NULL;
    }
    if (!g_spawn_check_exit_status (status, NULL)) {
        g_printerr ("weft sweep: sbatch %s failed: %s", script, err ? err : "\n");
        return NULL;
    }
    g_strstrip (out);
    char *semi = strchr (out, ';'); /* "jobid;cluster" */
    if (semi)
        *semi = '\0';
    return g_strdup (out);
}

static int
slurm (const Sweep *sw, const SlurmOptions *o)
{
    g_autofree char *array = NULL, *coll = NULL;
    if (!write_slurm (sw, o, &array, &coll))
        return WEFT_EXIT_FAILURE;
    printf ("%s: job array of %u points\n%s: collection, after the array (afterany)\n", array,
            sw->sweep->points->len, coll);
    if (!o->submit)
        return WEFT_EXIT_DONE;
    g_autofree char *path = g_find_program_in_path ("sbatch");
    if (path == NULL) {
        g_printerr ("weft sweep: --submit: sbatch is not on PATH (the scripts are written)\n");
        return WEFT_EXIT_FAILURE;
    }
    g_autofree char *id = sbatch (path, array, NULL);
    if (id == NULL)
        return WEFT_EXIT_FAILURE;
    g_autofree char *dep = g_strconcat ("--dependency=afterany:", id, NULL);
    g_autofree char *cid = sbatch (path, coll, dep);
    if (cid == NULL)
        return WEFT_EXIT_FAILURE;
    printf ("submitted: job array %s, collection %s\n", id, cid);
    return WEFT_EXIT_DONE;
}

/* ---- the command ------------------------------------------------------------------------ */

static void
list (const Sweep *sw)
{
    const char *mode = sw->sweep->mode == WEFT_SWEEP_GRID ? "grid" : "zip";
    printf ("# %s: %u points (%s), output folder %s\n", sw->file, sw->sweep->points->len, mode,
            sw->dir);
    for (guint i = 0; i < sw->sweep->points->len; i++) {
        const WeftSweepPoint *p = sw->sweep->points->pdata[i];
        g_autofree char *h5 = point_path (sw, p, ".h5");
        GString *sets = g_string_new (NULL);
        for (char **o = p->overrides; *o; o++) {
            g_autofree char *q = g_shell_quote (*o);
            g_string_append_printf (sets, " --set %s", q);
        }
        g_autofree char *failed = NULL;
        const char *state = sw->state[i] == POINT_INVALID     ? sw->reason[i]
                            : point_complete (sw, p, &failed) ? (failed ? "failed" : "complete")
                                                              : "to run";
        printf ("%u\t%s\t%s\t%s\n", i, h5, state, sets->str + 1);
        g_string_free (sets, TRUE);
    }
}

typedef struct {
    gboolean list, collect, slurm, no_resume;
    gint jobs, point;
} Mode;

/* What the options ask of a sweep already read; returns the exit status. */
static int
dispatch (Sweep *sw, const Mode *m, const SlurmOptions *so)
{
    guint n = sw->sweep->points->len;
    g_autoptr (GError) error = NULL;
    gint point = m->point, jobs = m->jobs;
    gboolean no_resume = m->no_resume, do_collect = m->collect, do_list = m->list,
             do_slurm = m->slurm;
    if (point >= 0) {
        if ((guint) point >= n) {
            g_printerr ("%s: [sweep]: --point %d: expected 0 to %u\n", sw->file, point, n - 1);
            return WEFT_EXIT_BAD_INPUT;
        }
        const WeftSweepPoint *p = sw->sweep->points->pdata[point];
        g_autofree char *failed = NULL;
        if (!check_dir (sw))
            return WEFT_EXIT_BAD_INPUT;
        if (!no_resume && point_complete (sw, p, &failed)) {
            printf ("point %d %s: complete already%s%s\n", point, p->name, failed ? ": " : "",
                    failed ? failed : "");
            return failed ? WEFT_EXIT_SWEEP_FAILED : WEFT_EXIT_DONE;
        }
        g_autoptr (GPtrArray) args = run_args (sw, p);
        /* GOption reorders the vector it parses: give it a copy of the pointers */
        g_autofree char **v = g_new0 (char *, args->len + 1);
        memcpy (v, args->pdata, args->len * sizeof *v);
        fflush (stdout);
        return weft_cli_run ((int) args->len, v);
    }
    if (do_collect) {
        guint incomplete = 0;
        if (!collect (sw, &incomplete, &error)) {
            g_printerr ("weft sweep: %s\n", error->message);
            return WEFT_EXIT_FAILURE;
        }
        g_autofree char *csv = g_build_filename (sw->dir, "collected.csv", NULL);
        printf ("%s: %u points, %u without a complete result\n", csv, n, incomplete);
        return incomplete ? WEFT_EXIT_SWEEP_FAILED : WEFT_EXIT_DONE;
    }
    if (!validate (sw))
        return WEFT_EXIT_BAD_INPUT;
    if (do_list) {
        list (sw);
        return WEFT_EXIT_DONE;
    }
    if (!check_dir (sw))
        return WEFT_EXIT_BAD_INPUT;
    if (do_slurm) {
        return slurm (sw, so);
    }
    for (guint i = 0; i < n; i++) {
        g_autofree char *failed = NULL;
        if (sw->state[i] == POINT_TODO && !no_resume &&
            point_complete (sw, sw->sweep->points->pdata[i], &failed)) {
            sw->state[i] = failed ? POINT_FAILED : POINT_SKIPPED;
            sw->reason[i] = g_steal_pointer (&failed);
        }
    }
    if (jobs == 0)
        jobs = (gint) MAX (g_get_num_processors (), 1u);
    gboolean tty = isatty (STDERR_FILENO);
    run_points (sw, (guint) jobs, tty);
    Tally t = { 0 };
    tally (sw, &t);
    printf ("%s: %u points: %u run, %u complete already, %u failed, %u invalid\n", sw->file, n,
            t.done, t.skipped, t.failed, t.invalid);
    for (guint i = 0; i < n; i++)
        if (sw->reason[i])
            g_printerr ("weft sweep: point %u (%s): %s\n", i,
                        ((WeftSweepPoint *) sw->sweep->points->pdata[i])->name, sw->reason[i]);
    guint incomplete = 0;
    if (!collect (sw, &incomplete, &error)) {
        g_printerr ("weft sweep: %s\n", error->message);
        return WEFT_EXIT_FAILURE;
    }
    g_autofree char *csv = g_build_filename (sw->dir, "collected.csv", NULL);
    printf ("collected: %s\n", csv);
    return t.failed || t.invalid ? WEFT_EXIT_SWEEP_FAILED : WEFT_EXIT_DONE;
}

static const char sweep_description[] =
    "A sweep file is an experiment file (or one that includes a base) with a [sweep]\n"
    "group:\n"
    "  [sweep]\n"
    "  fabric:kind = infiniband; roce       an axis: GROUP:KEY = V1; V2; ... (\\; for ;)\n"
    "  topology:leaf_oversubscription = 1:1; 2:1\n"
    "  mode = grid                          grid (every combination) or zip (i-th values)\n"
    "  seeds = 1..2                         A..B or S1; S2: every point once per seed\n"
    "  output = DIR                         default NAME-sweep (--output overrides)\n"
    "Point i writes DIR/NAME.h5, DIR/NAME.json (weft run --summary-json) and\n"
    "DIR/NAME.log, NAME encoding the varied values (--list shows them).  Before\n"
    "anything runs every point is checked as weft run would; an axis that names no\n"
    "known parameter, an empty axis, zip axes of different lengths, an index out of\n"
    "range or an output folder that cannot be written are bad input.  A point whose\n"
    "values are refused is listed as invalid and skipped; the others run.\n"
    "\n"
    "Without --list, --point, --collect or --slurm, the points run here, -j at a\n"
    "time, each as `weft run --set ...` in a process of its own, then the results\n"
    "are collected into DIR/collected.csv (one row per point: index, name, status,\n"
    "the varied parameters, the figures weft compare computes, the trace) and\n"
    "DIR/collected.h5 (the same rows, columns and numbers as one HDF5 compound data\n"
    "set, /table; /columns gives each column's role and unit; doc/sweeps.md), which\n"
    "weft compare and weft plot --kind sweep read.\n"
    "\n"
    "Exit status: 0 every point complete, 2 bad input, 5 some point invalid,\n"
    "failed, hung or (with --collect) without a complete result: each is listed on\n"
    "stderr with its index and reason.  --point exits as weft run does.";

int
weft_cli_sweep (int argc, char **argv)
{
    gboolean do_list = FALSE, do_collect = FALSE, do_slurm = FALSE, no_resume = FALSE;
    gboolean resume = FALSE;
    gint jobs = 0, point = -1;
    SlurmOptions so = { 0 };
    g_autofree char *output = NULL;
    GOptionEntry entries[] = {
        { "list", 'l', 0, G_OPTION_ARG_NONE, &do_list,
          "print every point: index, trace path, state, its --set overrides", NULL },
        { "jobs", 'j', 0, G_OPTION_ARG_INT, &jobs, "points run at once (default: the cores)", "N" },
        { "resume", 0, 0, G_OPTION_ARG_NONE, &resume,
          "skip points whose outputs are complete (the default)", NULL },
        { "no-resume", 0, 0, G_OPTION_ARG_NONE, &no_resume,
          "run every point again, replacing complete results as each run completes", NULL },
        { "point", 0, 0, G_OPTION_ARG_INT, &point,
          "run point I only, in this process (a Slurm array task)", "I" },
        { "collect", 0, 0, G_OPTION_ARG_NONE, &do_collect,
          "gather every point's result into DIR/collected.csv and DIR/collected.h5", NULL },
        { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
          "output folder (default: [sweep] output, else NAME-sweep)", "DIR" },
        { "slurm", 0, 0, G_OPTION_ARG_NONE, &do_slurm,
          "write DIR/sweep.sbatch (a job array) and DIR/collect.sbatch", NULL },
        { "partition", 0, 0, G_OPTION_ARG_STRING, &so.partition, "with --slurm: sbatch --partition",
          "P" },
        { "time", 0, 0, G_OPTION_ARG_STRING, &so.time, "with --slurm: sbatch --time per task",
          "T" },
        { "mem", 0, 0, G_OPTION_ARG_STRING, &so.mem, "with --slurm: sbatch --mem per task", "M" },
        { "array-limit", 0, 0, G_OPTION_ARG_INT, &so.array_limit,
          "with --slurm: at most K tasks at once (--array=0-(N-1)%K)", "K" },
        { "submit", 0, 0, G_OPTION_ARG_NONE, &so.submit,
          "with --slurm: submit both scripts with sbatch", NULL },
        { NULL }
    };
    g_autoptr (GOptionContext) ctx =
        g_option_context_new ("SWEEP.ini - run the points of a parameter sweep");
    g_option_context_set_summary (ctx, "Lists, runs (here or on Slurm) and collects the points "
                                       "of an experiment file's [sweep] group.");
    g_option_context_set_description (ctx, sweep_description);
    g_option_context_add_main_entries (ctx, entries, NULL);
    g_autoptr (GError) error = NULL;
    gboolean parsed = g_option_context_parse (ctx, &argc, &argv, &error);
    int rc = WEFT_EXIT_BAD_INPUT;
    Sweep sw = { 0 };
    g_autoptr (WeftExperiment) exp = NULL;
    if (!parsed) {
        g_printerr ("weft sweep: %s\n", error->message);
        goto out;
    }
    if (argc != 2) {
        g_printerr ("weft sweep: expected one sweep file (see weft sweep --help)\n");
        goto out;
    }
    if ((do_list + do_collect + do_slurm + (point >= 0)) > 1) {
        g_printerr ("weft sweep: --list, --point, --collect and --slurm do not combine\n");
        goto out;
    }
    if ((so.partition || so.time || so.mem || so.array_limit || so.submit) && !do_slurm) {
        g_printerr ("weft sweep: --partition, --time, --mem, --array-limit and --submit go with "
                    "--slurm\n");
        goto out;
    }
    const char *bad = so.partition && !sbatch_safe (so.partition) ? "--partition"
                      : so.time && !sbatch_safe (so.time)         ? "--time"
                      : so.mem && !sbatch_safe (so.mem)           ? "--mem"
                                                                  : NULL;
    if (bad) {
        g_printerr ("weft sweep: %s: expected letters, digits and - _ . : , + / %% only\n", bad);
        goto out;
    }
    if (jobs < 0 || so.array_limit < 0 || (resume && no_resume) || point < -1) {
        g_printerr ("weft sweep: -j, --array-limit and --point take non-negative numbers; "
                    "--resume and --no-resume exclude each other\n");
        goto out;
    }
    sw.file = argv[1];
    exp = weft_experiment_load (sw.file, &error);
    if (exp)
        sw.sweep = weft_sweep_read (exp, &error);
    if (sw.sweep == NULL) {
        g_printerr ("%s\n", error->message);
        goto out;
    }
    guint n = sw.sweep->points->len;
    sw.dir = output_dir (exp, sw.sweep, sw.file, output);
    sw.state = g_new0 (PointState, n);
    sw.reason = g_new0 (char *, n + 1);
    sw.pid = g_new0 (GPid, n);
    sw.started = g_new0 (gint64, n);
    Mode m = { do_list, do_collect, do_slurm, no_resume, jobs, point };
    rc = dispatch (&sw, &m, &so);
out:
    weft_sweep_free (sw.sweep);
    g_free (sw.dir);
    g_free (sw.state);
    g_strfreev (sw.reason);
    g_free (sw.pid);
    g_free (sw.started);
    g_free (so.partition);
    g_free (so.time);
    g_free (so.mem);
    return rc;
}
