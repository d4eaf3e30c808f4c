#include "config.h"
#define G_LOG_DOMAIN "weft-cli"
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gsl/gsl_version.h>

#include "cli/cli.h"
#include "cli/footprint.h"
#include "cli/session.h"
#include "network/results.h"
#include "models/nic.h"
#include "network/window.h"
#include "sim/parallel.h"
#include "sim/partition.h"
#include "sim/trace.h"
#include "sim/units.h"
#include "weft-gitrev.h"

static volatile sig_atomic_t interrupted;
static volatile sig_atomic_t setting_up; /* no trace exists yet: nothing to close */

static void
on_signal (int signum)
{
    if (setting_up) {
        /* Before the trace exists there is nothing to save: stop at once (async-signal-safe:
         * write and _exit only) rather than finish building a fabric no one will run. */
        static const char msg[] = "weft: interrupted before the run started; no trace written\n";
        ssize_t ignored = write (STDERR_FILENO, msg, sizeof msg - 1);
        (void) ignored;
        _exit (WEFT_EXIT_INTERRUPTED);
    }
    interrupted = 1;
}

typedef struct {
    const WeftSession *s;
    gint64 wall_start, last_print;
    gboolean shown;
} Progress;

static void
show_progress (WeftSim *sim, void *data)
{
    Progress *pr = data;
    gint64 t = g_get_monotonic_time ();
    if (t - pr->last_print < G_USEC_PER_SEC)
        return;
    pr->last_print = t;
    double wall = (double) (t - pr->wall_start) / G_USEC_PER_SEC;
    double frac = weft_network_progress (pr->s->net);
    g_autofree char *now = weft_units_format_human_time (sim->now);
    char eta[32] = "?";
    if (frac > 0.001)
        g_snprintf (eta, sizeof eta, "%.0fs", wall / frac - wall);
    fprintf (stderr, "\r  sim %s  %5.1f%%  %.2fM events/s  ETA %s   ", now, 100 * frac,
             sim->events / wall / 1e6, eta);
    pr->shown = TRUE;
}

/* nccl-tests' table for every workload that ran collectives, as nccl-tests prints it. */
static void
print_nccl_tables (const WeftSession *s)
{
    g_autoptr (GString) out = g_string_new (NULL);
    weft_network_print_nccl_tables (s->net, out);
    fputs (out->str, stdout);
}

/* perftest's output for every ib_write_bw / ib_write_lat workload, as perftest prints it. */
static void
print_perftest_tables (const WeftSession *s)
{
    g_autoptr (GString) out = g_string_new (NULL);
    weft_network_print_perftest_tables (s->net, s->exp, out);
    fputs (out->str, stdout);
}

/* kind = training: per step, its time, its compute and the communication the compute did
 * not hide (workloads/workload_train.c). */
static void
print_training_steps (const WeftSession *s)
{
    g_autoptr (GString) out = g_string_new (NULL);
    weft_network_print_training_steps (s->net, out);
    fputs (out->str, stdout);
}

static void
print_summary (const WeftSession *s, WeftSimStatus status, double wall, const char *out)
{
    WeftNetworkStats st;
    weft_network_stats (s->net, &st);
    g_autofree char *now = weft_units_format_human_time (s->sim->now);
    g_autoptr (GString) body = g_string_new (NULL);
    weft_network_print_headline (s->net, s->exp, body);
    weft_network_summary (s->net, &st, body);
    printf ("%s: %s at %s\n%s", s->ec.name, weft_sim_status_name (status), now, body->str);
    printf ("  wall time    %.3f s, %" G_GUINT64_FORMAT " events, %.2fM events/s\n", wall,
            s->sim->events, wall > 0 ? s->sim->events / wall / 1e6 : 0.0);
    printf ("  trace        %s\n", out);
}

/* A new trace at @out with the run's provenance, /topology written and sampling started. */
static WeftTrace *
open_trace (WeftSession *s, const char *out, GError **error)
{
    g_autofree char *text = weft_experiment_to_data (s->exp);
    WeftTraceMeta meta = { .weft_version = PACKAGE_VERSION,
                           .git_revision = WEFT_GIT_REVISION,
                           .experiment_text = text,
                           .experiment_path = weft_experiment_path (s->exp),
                           .seed = s->ec.seed };
    WeftTrace *trace = weft_trace_create (out, &meta, error);
    if (trace)
        weft_network_attach_trace (s->net, trace, s->tc.interval);
    return trace;
}

/* SIGINT and SIGTERM are caught from the first thing weft run does, so they always end it
 * with exit 4, never by the signal: during setup (no trace yet) at once; from the trace's
 * creation on by setting the interrupt flag, so the trace is closed as interrupted. */
typedef struct {
    struct sigaction old_int, old_term;
} Signals;

static void
signals_catch (Signals *saved)
{
    struct sigaction sa = { 0 };
    sa.sa_handler = on_signal;
    sigemptyset (&sa.sa_mask);
    interrupted = 0;
    setting_up = 1;
    sigaction (SIGINT, &sa, &saved->old_int);
    sigaction (SIGTERM, &sa, &saved->old_term);
}

static void
signals_restore (const Signals *saved)
{
    sigaction (SIGINT, &saved->old_int, NULL);
    sigaction (SIGTERM, &saved->old_term, NULL);
}

/* Runs the simulation (a signal already caught stops it before the first event), with the
 * progress line on a terminal; *@wall gets the run's wall time in seconds. */
static WeftSimStatus
run_loop (WeftSession *s, gboolean quiet, double *wall)
{
    if (interrupted) {
        *wall = 0;
        return WEFT_SIM_INTERRUPTED;
    }
    s->sim->interrupt = &interrupted;
    Progress pr = { s, g_get_monotonic_time (), g_get_monotonic_time (), FALSE };
    if (!quiet && isatty (STDERR_FILENO)) {
        s->sim->poll = show_progress;
        s->sim->poll_data = &pr;
    }
    WeftSimStatus status = weft_sim_run (s->sim);
    s->sim->poll = NULL; /* pr lives on this stack */
    *wall = (double) (g_get_monotonic_time () - pr.wall_start) / G_USEC_PER_SEC;
    if (pr.shown)
        fprintf (stderr, "\r\033[K");
    return status;
}

/* Says on stderr why a run that did not finish stopped, writes the end-of-run traces and
 * closes the trace (for @out) with its status; *@where gets where the trace was left (@out,
 * its partial name, or NULL when it could not be written); returns the exit status. */
static int
close_trace (WeftSession *s, WeftTrace *trace, const char *out, WeftSimStatus status, double wall,
             char **where)
{
    g_autofree char *waiting = NULL, *failure = NULL;
    int rc = WEFT_EXIT_DONE;
    WeftTraceStatus ts = WEFT_TRACE_STATUS_DONE;
    if (status == WEFT_SIM_DURATION) {
        ts = WEFT_TRACE_STATUS_DURATION;
    } else if (status == WEFT_SIM_HANG) {
        ts = WEFT_TRACE_STATUS_HANG;
        rc = WEFT_EXIT_HANG;
        waiting = weft_network_describe_waiting (s->net, 20);
        g_autofree char *at = weft_units_format_human_time (s->sim->now);
        g_autofree char *since = weft_units_format_human_time (s->sim->last_progress);
        g_printerr ("weft: hang detected at %s: no progress since %s; waiting flows:\n%s", at,
                    since, waiting);
    } else if (status == WEFT_SIM_WORKLOAD_FAILED) {
        /* As a hang: a modelled outcome, the trace complete, its own status and exit code. */
        ts = WEFT_TRACE_STATUS_WORKLOAD_FAILED;
        rc = WEFT_EXIT_WORKLOAD_FAILED;
        failure = weft_network_describe_failure (s->net);
        g_autofree char *at = weft_units_format_human_time (s->sim->now);
        g_printerr ("weft: workload failed at %s: %s", at, failure);
    } else if (status == WEFT_SIM_INTERRUPTED) {
        ts = WEFT_TRACE_STATUS_INTERRUPTED;
        rc = WEFT_EXIT_INTERRUPTED;
        g_autofree char *partial = weft_trace_partial_path (out);
        g_printerr ("weft: interrupted; the trace is closed, marked incomplete and kept as %s "
                    "(%s is untouched)\n",
                    partial, out);
    }
    weft_network_finish_trace (s->net);
    g_autofree char *msg = waiting   ? g_strdup_printf ("hang: waiting flows:\n%s", waiting)
                           : failure ? g_strdup_printf ("workload failed: %s", failure)
                                     : NULL;
    WeftTraceEnd end = { ts, s->sim->now, wall, s->sim->events, msg };
    g_autoptr (GError) error = NULL;
    *where = weft_trace_status_complete (ts) ? g_strdup (out) : weft_trace_partial_path (out);
    if (!weft_trace_close (trace, &end, &error)) {
        g_printerr ("%s\n", error->message);
        g_clear_pointer (where, g_free);
        rc = WEFT_EXIT_FAILURE;
    }
    return rc;
}

/* --summary-json: the object `weft report --format json` prints for the trace just closed,
 * written to a temporary name beside @json and renamed over it (g_file_set_contents), so
 * that a reader never sees half of it; returns the exit status to keep (@rc, or 1). */
static int
write_summary (const char *trace, const char *json, int rc)
{
    g_autoptr (GError) error = NULL;
    g_autofree char *text = weft_cli_report_summary_json (trace, &error);
    if (text == NULL || !g_file_set_contents (json, text, -1, &error)) {
        g_printerr ("weft run: --summary-json %s: %s\n", json, error->message);
        return WEFT_EXIT_FAILURE;
    }
    return rc;
}

/* Across ranks: the sender's counters of the /flows rows (sim/trace.h, models/transport.h) from
 * the ranks that send the flows, at rank 0: flow id -> its row in the gathered buffer.  Only
 * flows sent and received on two ranks have their sender's columns elsewhere. */
static void
patch_sender (WeftTraceFlow *row, void *data)
{
    const WeftTraceFlow *sender = g_hash_table_lookup (data, GUINT_TO_POINTER (row->id));
    if (sender)
        weft_transport_flow_row_sender (row, sender);
}

/* Gathers the rows every rank holds to rank 0, which writes them, with the sender's columns of
 * the /flows rows of flows sent from one rank and received on another: @all_flows, at the end
 * of the run, every such flow's (finished or not); else those that have finished since the
 * last gather (weft_window_sender_rows).  What rank 0 keeps for them is in the flows of this
 * gather, not every flow of the run. */
static void
gather_rows (const WeftParallel *par, WeftWindow *win, WeftTrace *trace, gboolean all_flows)
{
    GArray *mine = g_array_new (FALSE, FALSE, sizeof (WeftTraceFlow));
    weft_window_sender_rows (win, all_flows, mine);
    gsize *sizes = NULL;
    GByteArray *all =
        weft_parallel_gather_flat (par, mine->data, mine->len * sizeof (WeftTraceFlow), &sizes);
    g_array_free (mine, TRUE);
    if (!all) {
        weft_trace_gather (trace, par, NULL, NULL);
        return;
    }
    GHashTable *by_id = g_hash_table_new (NULL, NULL);
    const WeftTraceFlow *rows = (const WeftTraceFlow *) all->data;
    for (guint k = 0; k < all->len / sizeof (WeftTraceFlow); k++)
        g_hash_table_insert (by_id, GUINT_TO_POINTER (rows[k].id), (gpointer) &rows[k]);
    weft_trace_gather (trace, par, patch_sender, by_id);
    g_hash_table_destroy (by_id);
    g_byte_array_unref (all);
    g_free (sizes);
}

typedef struct {
    guint64 events, crossed, crossed_ctl, windows, unsure, shared;
} RankCounts;

/* A flow's times as its two ranks know them: its start on its sender's, its finish on its
 * receiver's. */
typedef struct {
    weft_time_t start_ps, finish_ps;
    guint64 finished;
} FlowTimes;

/* The flows of the perftest workloads (ib_write_bw, ib_write_lat), whose tables rank 0 prints
 * from each message's start and finish (network/stats.c, weft_network_perftest): every rank
 * learns both from the ranks that know them.  Called on every rank. */
static void
share_perftest_flows (WeftSession *s, const WeftParallel *par)
{
    WeftTransport *tp = &s->net->tp;
    GKeyFile *kf = weft_experiment_keyfile (s->exp);
    g_autofree gboolean *perf = g_new0 (gboolean, MAX (s->net->workload_names->len, 1));
    gboolean any = FALSE;
    for (guint g = 0; g < s->net->workload_names->len; g++) {
        g_autofree char *group =
            g_strconcat ("workload.", (const char *) s->net->workload_names->pdata[g], NULL);
        g_autofree char *kind = g_key_file_get_string (kf, group, "kind", NULL);
        if (kind)
            g_strstrip (kind);
        perf[g] = g_strcmp0 (kind, "ib_write_bw") == 0 || g_strcmp0 (kind, "ib_write_lat") == 0;
        any |= perf[g];
    }
    if (!any) /* the same answer on every rank: the same experiment */
        return;
    g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (guint32));
    for (guint32 i = 0; i < tp->n_flows; i++)
        if (perf[tp->flows[i].spec.group])
            g_array_append_val (ids, i);
    guint n = ids->len;
    FlowTimes *mine = g_new0 (FlowTimes, MAX (n, 1));
    FlowTimes *all = g_new0 (FlowTimes, (gsize) MAX (n, 1) * par->size);
    for (guint k = 0; k < n; k++) {
        const WeftFlow *f = &tp->flows[g_array_index (ids, guint32, k)];
        mine[k] = (FlowTimes){ f->start_ps, f->finish_ps, f->finished };
    }
    weft_parallel_allgather (par, mine, n * sizeof *mine, all);
    const guint32 *rank_of = s->part.rank_of;
    for (guint k = 0; k < n; k++) {
        WeftFlow *f = &tp->flows[g_array_index (ids, guint32, k)];
        const FlowTimes *from = &all[(gsize) rank_of[f->sender->owner->node] * n + k];
        const FlowTimes *to = &all[(gsize) rank_of[f->spec.dst] * n + k];
        f->start_ps = from->start_ps;
        f->finish_ps = to->finish_ps;
        f->finished = to->finished != 0;
    }
    g_free (mine);
    g_free (all);
}

/* The end of a run across ranks, phase by phase (G_MESSAGES_DEBUG=weft-cli): each phase's wall
 * and CPU time on this rank, what bench/README.md's "Across MPI ranks" figures come from. */
typedef struct {
    gint64 wall, cpu;
} EndClock;

static gint64
cpu_now (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (gint64) ts.tv_sec * G_USEC_PER_SEC + ts.tv_nsec / 1000;
}

static void
end_clock_start (EndClock *c)
{
    c->wall = g_get_monotonic_time ();
    c->cpu = cpu_now ();
}

static void
end_clock_lap (EndClock *c, const WeftParallel *par, const char *phase)
{
    gint64 wall = g_get_monotonic_time (), cpu = cpu_now ();
    g_debug ("rank %d: %s: %.3f s wall, %.3f s CPU", par->rank, phase,
             (double) (wall - c->wall) / G_USEC_PER_SEC, (double) (cpu - c->cpu) / G_USEC_PER_SEC);
    c->wall = wall;
    c->cpu = cpu;
}

/* Between two windows, when due (weft_window_on_flush): the rows held so far go to the file. */
typedef struct {
    const WeftParallel *par;
    WeftTrace *trace;
    guint gathers;
    gint64 wall, cpu; /* spent in them, on this rank */
} Flush;

static void
flush_rows (WeftWindow *win, void *data)
{
    Flush *fl = data;
    gint64 wall = g_get_monotonic_time (), cpu = cpu_now ();
    gather_rows (fl->par, win, fl->trace, FALSE);
    fl->gathers++;
    fl->wall += g_get_monotonic_time () - wall;
    fl->cpu += cpu_now () - cpu;
}

/* A run across the ranks of @par (doc/parallel.md): every rank runs its own part of the fabric
 * in windows; rank 0 writes the one trace, gathered from every rank, and prints the summary.
 * Returns the exit status, the same on every rank. */
static int
run_ranks (WeftSession *s, const WeftParallel *par, const char *out, const char *summary_json)
{
    g_autoptr (GError) error = NULL;
    WeftWindow *win = weft_window_new (s->net, s->exp, par, &s->part, s->tc.interval, &error);
    int failed = weft_parallel_agree (par, win != NULL);
    if (failed >= 0) {
        if (par->rank == failed)
            g_printerr ("%s\n", error->message);
        weft_window_free (win);
        return WEFT_EXIT_BAD_INPUT;
    }
    if (par->rank == 0) {
        g_autofree char *look = weft_units_format_time (weft_window_lookahead (win));
        g_autofree char *kept =
            s->part.joined ? g_strdup_printf (", %u release%s below the floor kept on one rank",
                                              s->part.joined, s->part.joined == 1 ? "" : "s")
                           : g_strdup ("");
        g_printerr ("weft run: %d ranks, partition = %s: %u parts, %u links cut, lookahead %s%s\n",
                    par->size, weft_partition_by_name (s->part.by), s->part.n_atoms,
                    s->part.cut_links, look, kept);
    }
    setting_up = 0;
    WeftTrace *trace = par->rank == 0 ? open_trace (s, out, &error) : NULL;
    failed = weft_parallel_agree (par, par->rank != 0 || trace != NULL);
    if (failed >= 0) {
        if (par->rank == 0) {
            g_printerr ("%s\n", error->message);
            weft_trace_abandon (trace);
        }
        weft_window_free (win);
        return par->rank == 0 && g_error_matches (error, WEFT_TRACE_ERROR, WEFT_TRACE_ERROR_WRITE)
                   ? WEFT_EXIT_FAILURE
                   : WEFT_EXIT_BAD_INPUT;
    }
    if (par->rank != 0) {
        trace = weft_trace_new_rank ();
        weft_network_attach_trace (s->net, trace, s->tc.interval);
    }
    weft_trace_set_ranked (trace, &s->sim->now, &s->sim->now_key);
    Flush fl = { par, trace, 0, 0, 0 };
    weft_window_on_flush (win, s->pc.gather_bytes, flush_rows, &fl);

    EndClock clk;
    end_clock_start (&clk);
    gint64 start = g_get_monotonic_time ();
    WeftSimStatus status = weft_window_run (win, &interrupted);
    double wall = (double) (g_get_monotonic_time () - start) / G_USEC_PER_SEC;
    end_clock_lap (&clk, par, "run loop");
    g_debug ("rank %d: %u gathers during the run loop: %.3f s wall, %.3f s CPU", par->rank,
             fl.gathers, (double) fl.wall / G_USEC_PER_SEC, (double) fl.cpu / G_USEC_PER_SEC);

    weft_network_finish_trace (s->net);
    end_clock_lap (&clk, par, "end-of-run rows");
    gather_rows (par, win, trace, TRUE);
    end_clock_lap (&clk, par, "gather, merge and write");
    if (status == WEFT_SIM_WORKLOAD_FAILED)
        weft_window_share_failure (win);
    RankCounts mine = { s->sim->events,
                        weft_window_crossed (win),
                        weft_window_crossed_ctl (win),
                        weft_window_windows (win),
                        weft_window_unsure (win),
                        s->sim->shared_events };
    RankCounts *counts = g_new (RankCounts, par->size);
    weft_parallel_allgather (par, &mine, sizeof mine, counts);
    share_perftest_flows (s, par);
    /* The run's events as one process counts them (/meta, the summary): each rank's own, the
     * events every rank runs (samples, fault events, sweeps) once, and one process's watchdog
     * events, which no rank runs. */
    guint64 events = weft_window_watchdogs (win), unsure = 0;
    weft_window_free (win);
    for (int r = 0; r < par->size; r++) {
        if (counts[r].shared != counts[0].shared)
            g_critical ("rank %d ran %" G_GUINT64_FORMAT
                        " shared events, rank 0 %" G_GUINT64_FORMAT,
                        r, counts[r].shared, counts[0].shared); /* every rank runs them: never */
        events += counts[r].events - (r > 0 ? counts[r].shared : 0);
        unsure += counts[r].unsure;
    }
    if (par->rank == 0 && unsure > 0)
        g_printerr ("weft run: warning: %" G_GUINT64_FORMAT " flows' sender counters changed "
                    "in the window in which they finished: their /flows rows may differ from "
                    "one process's (doc/parallel.md)\n",
                    unsure);
    int rc = WEFT_EXIT_DONE;
    if (par->rank == 0) {
        /* The trace's status and exit code as one process gives them (close_trace). */
        WeftTraceStatus ts = status == WEFT_SIM_DURATION ? WEFT_TRACE_STATUS_DURATION
                             : status == WEFT_SIM_HANG   ? WEFT_TRACE_STATUS_HANG
                             : status == WEFT_SIM_WORKLOAD_FAILED
                                 ? WEFT_TRACE_STATUS_WORKLOAD_FAILED
                             : status == WEFT_SIM_INTERRUPTED ? WEFT_TRACE_STATUS_INTERRUPTED
                                                              : WEFT_TRACE_STATUS_DONE;
        rc = status == WEFT_SIM_HANG              ? WEFT_EXIT_HANG
             : status == WEFT_SIM_WORKLOAD_FAILED ? WEFT_EXIT_WORKLOAD_FAILED
             : status == WEFT_SIM_INTERRUPTED     ? WEFT_EXIT_INTERRUPTED
                                                  : WEFT_EXIT_DONE;
        g_autofree char *at = weft_units_format_human_time (s->sim->now);
        g_autofree char *failure = NULL, *msg = NULL;
        if (status == WEFT_SIM_WORKLOAD_FAILED && s->net->tp.failed) {
            /* As one process says it (close_trace). */
            failure = weft_network_describe_failure (s->net);
            g_printerr ("weft: workload failed at %s: %s", at, failure);
            msg = g_strdup_printf ("workload failed: %s", failure);
        } else if (status == WEFT_SIM_HANG || status == WEFT_SIM_WORKLOAD_FAILED ||
                   status == WEFT_SIM_INTERRUPTED) {
            g_printerr ("weft: %s at %s (run across %d ranks: the details are in the trace)\n",
                        weft_sim_status_name (status), at, par->size);
        }
        WeftTraceEnd end = { ts, s->sim->now, wall, events, msg };
        g_autofree char *where =
            weft_trace_status_complete (ts) ? g_strdup (out) : weft_trace_partial_path (out);
        if (!weft_trace_close (trace, &end, &error)) {
            g_printerr ("%s\n", error->message);
            g_clear_pointer (&where, g_free);
            rc = WEFT_EXIT_FAILURE;
        }
        end_clock_lap (&clk, par, "write and close");
        if (summary_json && where && strcmp (where, out) == 0)
            rc = write_summary (out, summary_json, rc);
        for (int r = 0; r < par->size; r++)
            g_printerr ("weft run: rank %d: %" G_GUINT64_FORMAT " events, %" G_GUINT64_FORMAT
                        " packets crossed to other ranks (%" G_GUINT64_FORMAT
                        " flow-control), %" G_GUINT64_FORMAT " windows\n",
                        r, counts[r].events, counts[r].crossed, counts[r].crossed_ctl,
                        counts[r].windows);
        printf ("%s: %s at %s, across %d ranks\n", s->ec.name, weft_sim_status_name (status), at,
                par->size);
        printf ("  wall time    %.3f s, %" G_GUINT64_FORMAT " events, %.2fM events/s\n", wall,
                events, wall > 0 ? events / wall / 1e6 : 0.0);
        printf ("  trace        %s\n", where ? where : "none (it could not be written)");
        printf ("  figures      weft report on the trace (a run across ranks prints only the "
                "nccl-tests, perftest and training tables)\n");
        /* Every rank completes every collective (doc/parallel.md): rank 0 has their times,
         * and the perftest messages' (share_perftest_flows). */
        print_nccl_tables (s);
        print_perftest_tables (s);
        print_training_steps (s);
    } else {
        weft_trace_free_rank (trace);
    }
    g_free (counts);
    /* Every rank exits as rank 0 does. */
    int *rcs = g_new (int, par->size);
    weft_parallel_allgather (par, &rc, sizeof rc, rcs);
    rc = rcs[0];
    g_free (rcs);
    return rc;
}

/* Prepares, runs and reports one experiment; returns the exit status. */
static int
run_experiment (const char *path, char **sets, gint64 seed, const char *output, gboolean quiet,
                guint64 max_memory, const char *summary_json, const WeftParallel *par)
{
    WeftSession s;
    g_autoptr (GError) error = NULL;
    guint64 useed = (guint64) seed;
    gboolean ok = weft_session_prepare_ranks (&s, path, sets, seed >= 0 ? &useed : NULL, max_memory,
                                              (guint) par->size, (guint) par->rank, &error);
    int failed = weft_parallel_agree (par, ok);
    if (failed >= 0) {
        /* Printed once, by the lowest rank that failed; every rank exits 2. */
        if (par->rank == failed)
            g_printerr ("%s\n", error->message);
        weft_session_clear (&s);
        return WEFT_EXIT_BAD_INPUT;
    }
    if (s.sweep_points > 0 && !quiet && par->rank == 0)
        g_printerr ("weft run: %s is a sweep of %u points: running its base point, without "
                    "[sweep] (weft sweep runs the points)\n",
                    path, s.sweep_points);
    g_autofree char *out = output         ? g_strdup (output)
                           : *s.tc.output ? g_strdup (s.tc.output)
                                          : g_strconcat (s.ec.name, ".h5", NULL);
    if (par->size > 1) {
        int rc = run_ranks (&s, par, out, summary_json);
        weft_session_clear (&s);
        return rc;
    }
    /* From here on a signal is noted and the run closes its trace as interrupted. */
    setting_up = 0;
    WeftTrace *trace = open_trace (&s, out, &error);
    if (!trace) {
        /* A path that cannot be created is bad input; a disk that fails under it is not. */
        g_printerr ("%s\n", error->message);
        weft_session_clear (&s);
        return g_error_matches (error, WEFT_TRACE_ERROR, WEFT_TRACE_ERROR_WRITE)
                   ? WEFT_EXIT_FAILURE
                   : WEFT_EXIT_BAD_INPUT;
    }
    double wall;
    WeftSimStatus status = run_loop (&s, quiet, &wall);
    g_autofree char *where = NULL;
    int rc = close_trace (&s, trace, out, status, wall, &where);
    /* Only a complete trace (at @out, not its partial name) gets a summary: a run that did
     * not finish leaves none, so no one takes it for a result. */
    if (summary_json && where && strcmp (where, out) == 0)
        rc = write_summary (out, summary_json, rc);
    print_nccl_tables (&s);
    print_perftest_tables (&s);
    print_summary (&s, status, wall, where ? where : "none (it could not be written)");
    print_training_steps (&s);
    weft_session_clear (&s);
    return rc;
}

int
weft_cli_run (int argc, char **argv)
{
    g_auto (GStrv) sets = NULL;
    gint64 seed = -1;
    g_autofree char *output = NULL, *max_memory = NULL, *summary_json = NULL;
    gboolean quiet = FALSE;
    GOptionEntry entries[] = {
        { "set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets,
          "override a parameter (repeatable); GROUP may contain dots", "GROUP:KEY=VALUE" },
        { "seed", 0, 0, G_OPTION_ARG_INT64, &seed, "run seed (overrides [experiment] seed)", "N" },
        { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
          "trace file (default: [trace] output, else NAME.h5)", "PATH" },
        { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "no progress line on stderr", NULL },
        { "max-memory", 0, 0, G_OPTION_ARG_STRING, &max_memory, WEFT_FOOTPRINT_MAX_HELP, "SIZE" },
        { "summary-json", 0, 0, G_OPTION_ARG_FILENAME, &summary_json,
          "once the trace is complete, write what `weft report --format json` prints for it "
          "(parameters, figures, status) to PATH, atomically",
          "PATH" },
        { NULL }
    };
    g_autoptr (GOptionContext) ctx =
        g_option_context_new ("EXPERIMENT.ini - simulate one experiment");
    g_option_context_set_summary (
        ctx, "Reads the experiment, builds the fabric, simulates every packet, writes an HDF5\n"
             "trace and prints a summary.  The trace is written as PATH.partial and renamed\n"
             "to PATH once complete: a finished trace already at PATH is never destroyed by a\n"
             "run that does not finish.  --summary-json PATH writes, once the trace is\n"
             "complete (also after a hang or a failed workload, whose traces are), the object\n"
             "`weft report --format json` prints for it; a run that does not finish writes\n"
             "none.\n\n"
             "Under mpirun (weft built with MPI) one rank is the ordinary run; on more ranks\n"
             "the fabric is split by [parallel] and rank 0 writes one trace with one process's\n"
             "data sets, and prints each rank's events and packets sent across; a fault that\n"
             "would begin in the event that completes a collective, and a flow that another\n"
             "rank's flow releases with no delay (the split keeps both nodes on one rank\n"
             "while it can), are refused (exit 2) there (doc/parallel.md).\n\n"
             "Exit status: 0 done (workload complete or duration reached), 1 runtime failure,\n"
             "2 bad input (also a memory estimate above --max-memory or the process's limits,\n"
             "refused before anything is built, and a workload whose flows outgrow what is\n"
             "left, refused as they are made), 3 hang (no progress for [experiment]\n"
             "hang_timeout: the waiting flows and their paths are printed), 4 interrupted\n"
             "(SIGINT/SIGTERM; the trace is closed, marked incomplete and kept as\n"
             "PATH.partial), 6 workload failed (on InfiniBand or RoCE a connection ran out of\n"
             "retries, [transport] rc_retry_cnt: \"transport retry counter exceeded\", as NCCL\n"
             "reports it, or a NIC removed during the run, [fault.NAME] kind = nic-removed,\n"
             "failed the connections on it; the trace is complete).");
    g_option_context_add_main_entries (ctx, entries, NULL);
    g_autoptr (GError) error = NULL;
    if (!g_option_context_parse (ctx, &argc, &argv, &error)) {
        g_printerr ("weft run: %s\n", error->message);
        return WEFT_EXIT_BAD_INPUT;
    }
    if (argc != 2) {
        g_printerr ("weft run: expected one experiment file (see weft run --help)\n");
        return WEFT_EXIT_BAD_INPUT;
    }
    if (seed < -1) {
        g_printerr ("weft run: --seed: expected a non-negative integer\n");
        return WEFT_EXIT_BAD_INPUT;
    }
    guint64 max_bytes = 0;
    if (max_memory && !weft_footprint_parse_max (max_memory, &max_bytes, &error)) {
        g_printerr ("weft run: %s\n", error->message);
        return WEFT_EXIT_BAD_INPUT;
    }

    int launched = weft_parallel_launched_size ();
    if (launched > 1 && !weft_parallel_built ()) {
        g_printerr ("weft run: started as one of %d processes by an MPI launcher, but this weft "
                    "was built without MPI (configure --with-mpi; doc/parallel.md)\n",
                    launched);
        return WEFT_EXIT_BAD_INPUT;
    }
    WeftParallel par;
    g_autofree char *why = NULL;
    if (!weft_parallel_init (&par, &why)) {
        g_printerr ("weft run: %s\n", why);
        return WEFT_EXIT_FAILURE;
    }
    Signals saved;
    signals_catch (&saved);
    int rc = run_experiment (argv[1], sets, seed, output, quiet, max_bytes, summary_json, &par);
    signals_restore (&saved);
    weft_parallel_finalize (&par);
    return rc;
}
