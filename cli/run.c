#include "config.h"
#define G_LOG_DOMAIN "weft-cli"
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_version.h>

#include "cli/cli.h"
#include "analysis/nccl_table.h"
#include "analysis/perftest_table.h"
#include "cli/session.h"
#include "sim/trace.h"
#include "sim/units.h"
#include "weft-gitrev.h"

static volatile sig_atomic_t interrupted;

static void
on_signal (int signum)
{
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
    const WeftNetwork *net = pr->s->net;
    double frac = sim->duration ? (double) sim->now / (double) sim->duration
                  : net->tp.n_flows ? (double) net->tp.flows_done / net->tp.n_flows
                                    : 0;
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
    const WeftNetwork *net = s->net;
    for (guint g = 0; g < net->workload_names->len; g++) {
        g_autoptr (GArray) rows = g_array_new (FALSE, FALSE, sizeof (WeftTraceCollective));
        const WeftCollRun *first = NULL;
        for (guint c = 0; c < net->tp.n_colls; c++) {
            const WeftCollRun *run = &net->tp.colls[c];
            if (run->spec.group != g || !run->finished ||
                run->spec.role != WEFT_COLL_ROLE_BENCH)
                continue;
            if (!first)
                first = run;
            WeftTraceCollective row;
            weft_network_collective_row (net, c, &row);
            g_array_append_val (rows, row);
        }
        if (!first)
            continue;
        WeftNcclTableInfo info;
        weft_nccl_table_info_init (&info);
        const WeftTraceCollective *r = (const WeftTraceCollective *) rows->data;
        info.min_bytes = info.max_bytes = r[0].bytes;
        info.warmup_iters = info.iters = 0;
        for (guint i = 0; i < rows->len; i++) {
            info.min_bytes = MIN (info.min_bytes, r[i].bytes);
            info.max_bytes = MAX (info.max_bytes, r[i].bytes);
            if (r[i].bytes == r[0].bytes) {
                info.warmup_iters += r[i].warmup;
                info.iters += !r[i].warmup && !r[i].in_place;
            }
        }
        for (guint i = 0; i < rows->len; i++)
            if (r[i].bytes > info.min_bytes) {
                info.step_factor = r[i].bytes / info.min_bytes;
                break;
            }
        guint n = first->spec.n_ranks;
        WeftNcclTableRank *ranks = g_new0 (WeftNcclTableRank, n);
        GPtrArray *hosts = g_ptr_array_new_with_free_func (g_free);
        for (guint i = 0; i < n; i++) {
            guint32 node = g_array_index (net->coll_ranks, guint32, first->spec.rank_first + i);
            const char *name = weft_graph_node (s->graph, node)->name;
            const char *slash = strrchr (name, '/');
            char *host = slash ? g_strndup (name, (gsize) (slash - name)) : g_strdup (name);
            g_ptr_array_add (hosts, host);
            ranks[i].host = host;
            const char *digits = name + strlen (name);
            while (digits > name && g_ascii_isdigit (digits[-1]))
                digits--;
            ranks[i].device = (guint) g_ascii_strtoull (digits, NULL, 10);
        }
        info.ranks = ranks;
        info.n_ranks = n;
        g_autoptr (GString) out = g_string_new (NULL);
        weft_nccl_table_print (out, r[0].op, r, rows->len, &info);
        printf ("# [workload.%s] %s\n%s", (const char *) net->workload_names->pdata[g],
                weft_nccl_table_binary (r[0].op), out->str);
        g_free (ranks);
        g_ptr_array_unref (hosts);
    }
}

/* perftest's output for every ib_write_bw / ib_write_lat workload, as perftest prints it. */
static void
print_perftest_tables (const WeftSession *s)
{
    for (guint g = 0; g < s->net->workload_names->len; g++) {
        WeftPerftestSpec spec;
        g_autoptr (GArray) res = g_array_new (FALSE, FALSE, sizeof (WeftPerftestResult));
        if (!weft_network_perftest (s->net, s->exp, g, &spec, res) || res->len == 0)
            continue;
        WeftPerftestTableInfo info;
        weft_perftest_table_info_init (&info, spec.latency);
        const char *dev = weft_graph_node (s->graph, spec.device)->name;
        info.device = strrchr (dev, '/') ? strrchr (dev, '/') + 1 : dev;
        info.n_qps = (int) spec.qps;
        info.tx_depth = (int) spec.tx_depth;
        info.mtu_bytes = (guint) s->net->fabric.mtu;
        if (s->net->fabric.kind != WEFT_FABRIC_INFINIBAND) {
            info.link_type = "Ethernet";
            info.gid_index = 3; /* RoCE v2 */
        }
        g_autoptr (GString) out = g_string_new (NULL);
        g_autoptr (GArray) rows = g_array_new (FALSE, TRUE, spec.latency
                                                              ? sizeof (WeftPerftestTableLatRow)
                                                              : sizeof (WeftPerftestTableBwRow));
        for (guint i = 0; i < res->len; i++) {
            const WeftPerftestResult *r = &g_array_index (res, WeftPerftestResult, i);
            WeftPerftestTableBwRow bw = { r->bytes, r->iterations, r->peak_bps, r->avg_bps,
                                          r->msg_rate_pps };
            WeftPerftestTableLatRow lat = { r->bytes, r->iterations, r->samples_ps, r->n_samples };
            g_array_append_vals (rows, spec.latency ? (gpointer) &lat : (gpointer) &bw, 1);
        }
        if (spec.latency)
            weft_perftest_table_print_lat (out, (WeftPerftestTableLatRow *) rows->data, rows->len,
                                           &info);
        else
            weft_perftest_table_print_bw (out, (WeftPerftestTableBwRow *) rows->data, rows->len,
                                          &info);
        printf ("# [workload.%s] %s\n%s", (const char *) s->net->workload_names->pdata[g],
                spec.latency ? "ib_write_lat" : "ib_write_bw", out->str);
        for (guint i = 0; i < res->len; i++)
            weft_workload_perftest_result_clear (&g_array_index (res, WeftPerftestResult, i));
    }
}

/* kind = training: per step, its time, its compute and the communication the compute did
 * not hide (workloads/workload_train.c). */
static void
print_training_steps (const WeftSession *s)
{
    const WeftNetwork *net = s->net;
    for (guint g = 0; g < net->workload_names->len; g++) {
        g_autoptr (GArray) steps = g_array_new (FALSE, FALSE, sizeof (WeftTrainStep));
        weft_network_training_steps (net, g, steps);
        if (steps->len == 0)
            continue;
        printf ("[workload.%s] training steps\n", (const char *) net->workload_names->pdata[g]);
        printf ("  %6s %14s %14s %14s\n", "step", "time (us)", "compute (us)", "exposed (us)");
        double sum = 0, exposed = 0;
        for (guint i = 0; i < steps->len; i++) {
            const WeftTrainStep *st = &g_array_index (steps, WeftTrainStep, i);
            printf ("  %6u %14.3f %14.3f %14.3f\n", st->step, st->time_ps / 1e6,
                    st->compute_ps / 1e6, st->exposed_ps / 1e6);
            sum += st->time_ps / 1e6;
            exposed += st->exposed_ps / 1e6;
        }
        printf ("  %6s %14.3f %14s %14.3f\n", "mean", sum / steps->len, "",
                exposed / steps->len);
    }
}

static void
print_summary (const WeftSession *s, WeftSimStatus status, double wall, const char *out)
{
    WeftNetworkStats st;
    weft_network_stats (s->net, &st);
    g_autofree char *now = weft_units_format_human_time (s->sim->now);
    g_autoptr (GString) body = g_string_new (NULL);
    weft_network_summary (s->net, &st, body);
    printf ("%s: %s at %s\n%s", s->ec.name, weft_sim_status_name (status), now, body->str);
    printf ("  wall time    %.3f s, %" G_GUINT64_FORMAT " events, %.2fM events/s\n", wall,
            s->sim->events, wall > 0 ? s->sim->events / wall / 1e6 : 0.0);
    printf ("  trace        %s\n", out);
}

int
weft_cli_run (int argc, char **argv)
{
    g_auto (GStrv) sets = NULL;
    gint64 seed = -1;
    g_autofree char *output = NULL;
    gboolean quiet = FALSE;
    GOptionEntry entries[] = {
        { "set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets,
          "override a parameter (repeatable); GROUP may contain dots", "GROUP:KEY=VALUE" },
        { "seed", 0, 0, G_OPTION_ARG_INT64, &seed, "run seed (overrides [experiment] seed)", "N" },
        { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
          "trace file (default: [trace] output, else NAME.h5)", "PATH" },
        { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "no progress line on stderr", NULL },
        { NULL }
    };
    g_autoptr (GOptionContext) ctx = g_option_context_new ("EXPERIMENT.ini - simulate one experiment");
    g_option_context_set_summary (
        ctx, "Reads the experiment, builds the fabric, simulates every packet, writes an HDF5\n"
             "trace and prints a summary.\n\n"
             "Exit status: 0 done (workload complete or duration reached), 1 runtime failure,\n"
             "2 bad input, 3 hang (no progress for [experiment] hang_timeout: the waiting\n"
             "flows and their paths are printed), 4 interrupted (SIGINT/SIGTERM; the trace is\n"
             "closed and marked incomplete).");
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

    WeftSession s;
    guint64 useed = (guint64) seed;
    if (!weft_session_prepare (&s, argv[1], sets, seed >= 0 ? &useed : NULL, &error)) {
        g_printerr ("%s\n", error->message);
        weft_session_clear (&s);
        return WEFT_EXIT_BAD_INPUT;
    }
    g_autofree char *out = output ? g_strdup (output)
                           : *s.tc.output ? g_strdup (s.tc.output)
                                          : g_strconcat (s.ec.name, ".h5", NULL);
    g_autofree char *text = weft_experiment_to_data (s.exp);
    WeftTraceMeta meta = { .weft_version = PACKAGE_VERSION,
                           .git_revision = WEFT_GIT_REVISION,
                           .experiment_text = text,
                           .experiment_path = weft_experiment_path (s.exp),
                           .seed = s.ec.seed };
    WeftTrace *trace = weft_trace_create (out, &meta, &error);
    if (!trace) {
        g_printerr ("%s\n", error->message);
        weft_session_clear (&s);
        return WEFT_EXIT_BAD_INPUT;
    }
    weft_network_attach_trace (s.net, trace, s.tc.interval);

    struct sigaction sa = { 0 }, old_int, old_term;
    sa.sa_handler = on_signal;
    sigemptyset (&sa.sa_mask);
    sigaction (SIGINT, &sa, &old_int);
    sigaction (SIGTERM, &sa, &old_term);
    s.sim->interrupt = &interrupted;
    Progress pr = { &s, g_get_monotonic_time (), g_get_monotonic_time (), FALSE };
    if (!quiet && isatty (STDERR_FILENO)) {
        s.sim->poll = show_progress;
        s.sim->poll_data = &pr;
    }

    WeftSimStatus status = weft_sim_run (s.sim);
    double wall = (double) (g_get_monotonic_time () - pr.wall_start) / G_USEC_PER_SEC;
    if (pr.shown)
        fprintf (stderr, "\r\033[K");
    sigaction (SIGINT, &old_int, NULL);
    sigaction (SIGTERM, &old_term, NULL);

    g_autofree char *waiting = NULL;
    int rc = WEFT_EXIT_DONE;
    WeftTraceStatus ts = WEFT_TRACE_STATUS_DONE;
    if (status == WEFT_SIM_DURATION) {
        ts = WEFT_TRACE_STATUS_DURATION;
    } else if (status == WEFT_SIM_HANG) {
        ts = WEFT_TRACE_STATUS_HANG;
        rc = WEFT_EXIT_HANG;
        waiting = weft_network_describe_waiting (s.net, 20);
        g_autofree char *at = weft_units_format_human_time (s.sim->now);
        g_autofree char *since = weft_units_format_human_time (s.sim->last_progress);
        g_printerr ("weft: hang detected at %s: no progress since %s; waiting flows:\n%s", at,
                    since, waiting);
    } else if (status == WEFT_SIM_INTERRUPTED) {
        ts = WEFT_TRACE_STATUS_INTERRUPTED;
        rc = WEFT_EXIT_INTERRUPTED;
        g_printerr ("weft: interrupted; trace closed and marked incomplete\n");
    }
    weft_network_finish_trace (s.net);
    g_autofree char *msg = waiting ? g_strdup_printf ("hang: waiting flows:\n%s", waiting) : NULL;
    WeftTraceEnd end = { ts, s.sim->now, wall, s.sim->events, msg };
    if (!weft_trace_close (trace, &end, &error)) {
        g_printerr ("%s\n", error->message);
        rc = WEFT_EXIT_FAILURE;
    }
    print_nccl_tables (&s);
    print_perftest_tables (&s);
    print_summary (&s, status, wall, out);
    print_training_steps (&s);
    weft_session_clear (&s);
    return rc;
}
