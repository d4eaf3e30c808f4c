/* cli/report.c - `weft report [--json] TRACE.h5`: a short summary of one trace file.
 *
 * Reads the trace through analysis/trace_reader.h; FCT and slowdown quantiles are over the
 * finished flows only (an unfinished flow has no FCT), drops are summed over /ports.
 */
#include "config.h"
#define G_LOG_DOMAIN "weft-cli"
#include <glib.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <stdio.h>

#include "analysis/trace_reader.h"
#include "cli/cli.h"

enum { REPORT_COMPLETE = 0, REPORT_INCOMPLETE = 1, REPORT_NOT_A_TRACE = 2 };

typedef struct {
    gboolean have_flows, have_ports;
    guint64 flows_total, flows_finished;
    double fct_p50_ps, fct_p99_ps, fct_max_ps, slowdown_p99;
    guint64 drops;
    char *problem; /* a data set that failed to read: one line */
} Summary;

static void
summarise_flows (Summary *s, GArray *flows)
{
    double *fct = g_new (double, flows->len + 1), *slow = g_new (double, flows->len + 1);
    gsize n = 0;
    for (guint i = 0; i < flows->len; i++) {
        const WeftTraceFlow *f = &g_array_index (flows, WeftTraceFlow, i);
        if (!f->finished)
            continue;
        fct[n] = (double) f->fct_ps;
        slow[n] = f->slowdown;
        n++;
    }
    s->have_flows = TRUE;
    s->flows_total = flows->len;
    s->flows_finished = n;
    if (n > 0) {
        gsl_sort (fct, 1, n);
        gsl_sort (slow, 1, n);
        s->fct_p50_ps = gsl_stats_quantile_from_sorted_data (fct, 1, n, 0.50);
        s->fct_p99_ps = gsl_stats_quantile_from_sorted_data (fct, 1, n, 0.99);
        s->fct_max_ps = fct[n - 1];
        s->slowdown_p99 = gsl_stats_quantile_from_sorted_data (slow, 1, n, 0.99);
    }
    g_free (fct);
    g_free (slow);
}

static void
summarise (Summary *s, const char *path)
{
    GError *error = NULL;
    GArray *flows = weft_trace_reader_flows (path, &error);
    if (flows != NULL) {
        summarise_flows (s, flows);
        g_array_free (flows, TRUE);
    } else {
        s->problem = g_strdup (error->message);
        g_clear_error (&error);
    }
    GArray *ports = weft_trace_reader_ports (path, &error);
    if (ports != NULL) {
        s->have_ports = TRUE;
        for (guint i = 0; i < ports->len; i++)
            s->drops += g_array_index (ports, WeftTracePort, i).drops;
        g_array_free (ports, TRUE);
    } else {
        if (s->problem == NULL)
            s->problem = g_strdup (error->message);
        g_clear_error (&error);
    }
}

/* "12.345 us": three decimals in the largest unit that keeps the value >= 1. */
static char *
format_ps (double ps)
{
    static const struct {
        const char *unit;
        double ps;
    } units[] = { { "s", 1e12 }, { "ms", 1e9 }, { "us", 1e6 }, { "ns", 1e3 } };
    for (guint i = 0; i < G_N_ELEMENTS (units); i++)
        if (ps >= units[i].ps)
            return g_strdup_printf ("%.3f %s", ps / units[i].ps, units[i].unit);
    return g_strdup_printf ("%.0f ps", ps);
}

static void
json_string (GString *out, const char *s)
{
    if (s == NULL) {
        g_string_append (out, "null");
        return;
    }
    g_string_append_c (out, '"');
    for (const unsigned char *p = (const unsigned char *) s; *p; p++) {
        if (*p == '"' || *p == '\\')
            g_string_append_printf (out, "\\%c", *p);
        else if (*p < 0x20)
            g_string_append_printf (out, "\\u%04x", *p);
        else
            g_string_append_c (out, (char) *p);
    }
    g_string_append_c (out, '"');
}

static void
print_json (const WeftTraceInfo *info, const Summary *s)
{
    GString *o = g_string_new ("{\"trace\": ");
    json_string (o, info->path);
    g_string_append (o, ", \"experiment_path\": ");
    json_string (o, info->experiment_path);
    g_string_append_printf (o, ", \"seed\": %" G_GUINT64_FORMAT ", \"status\": ", info->seed);
    json_string (o, info->status_text);
    g_string_append_printf (o, ", \"complete\": %s, \"reason\": ", info->complete ? "true" : "false");
    json_string (o, info->reason);
    g_string_append (o, ", \"message\": ");
    json_string (o, info->message);
    g_string_append_printf (o, ", \"sim_time_ps\": %" G_GUINT64_FORMAT ", \"wall_time_s\": %.6f"
                            ", \"events\": %" G_GUINT64_FORMAT,
                            info->sim_time_ps, info->wall_time_s, info->events);
    if (s->have_flows && s->flows_finished > 0)
        g_string_append_printf (o, ", \"flows_finished\": %" G_GUINT64_FORMAT
                                ", \"flows_total\": %" G_GUINT64_FORMAT ", \"fct_p50_ps\": %.1f"
                                ", \"fct_p99_ps\": %.1f, \"fct_max_ps\": %.1f, \"slowdown_p99\": %.6g",
                                s->flows_finished, s->flows_total, s->fct_p50_ps, s->fct_p99_ps,
                                s->fct_max_ps, s->slowdown_p99);
    else if (s->have_flows)
        g_string_append_printf (o, ", \"flows_finished\": 0, \"flows_total\": %" G_GUINT64_FORMAT
                                ", \"fct_p50_ps\": null, \"fct_p99_ps\": null, \"fct_max_ps\": null"
                                ", \"slowdown_p99\": null", s->flows_total);
    if (s->have_ports)
        g_string_append_printf (o, ", \"drops\": %" G_GUINT64_FORMAT, s->drops);
    g_string_append (o, ", \"problem\": ");
    json_string (o, s->problem);
    g_string_append (o, "}\n");
    fputs (o->str, stdout);
    g_string_free (o, TRUE);
}

static void
print_text (const WeftTraceInfo *info, const Summary *s)
{
    printf ("trace:       %s\n", info->path);
    if (info->readable) {
        printf ("experiment:  %s\n", info->experiment_path && *info->experiment_path
                                         ? info->experiment_path : "(none)");
        printf ("seed:        %" G_GUINT64_FORMAT "\n", info->seed);
    }
    if (info->complete)
        printf ("status:      complete (%s)\n", info->status_text);
    else if (info->readable && info->status_text != NULL
             && info->status != WEFT_TRACE_STATUS_RUNNING)
        printf ("status:      incomplete (%s): %s\n", info->status_text, info->reason);
    else
        printf ("status:      INCOMPLETE: %s\n", info->reason);
    if (info->message != NULL && *info->message)
        printf ("message:     %s\n", info->message);
    if (!info->readable)
        return;
    char *sim = format_ps ((double) info->sim_time_ps);
    printf ("sim time:    %s\n", sim);
    g_free (sim);
    printf ("wall time:   %.3f s\n", info->wall_time_s);
    printf ("events:      %" G_GUINT64_FORMAT "\n", info->events);
    if (s->have_flows) {
        printf ("flows:       %" G_GUINT64_FORMAT " finished / %" G_GUINT64_FORMAT " total\n",
                s->flows_finished, s->flows_total);
        if (s->flows_finished > 0) {
            char *p50 = format_ps (s->fct_p50_ps), *p99 = format_ps (s->fct_p99_ps);
            char *max = format_ps (s->fct_max_ps);
            printf ("FCT:         p50 %s, p99 %s, max %s\n", p50, p99, max);
            printf ("slowdown:    p99 %.3f\n", s->slowdown_p99);
            g_free (p50);
            g_free (p99);
            g_free (max);
        }
    }
    if (s->have_ports)
        printf ("drops:       %" G_GUINT64_FORMAT "\n", s->drops);
    if (s->problem != NULL)
        printf ("problem:     %s\n", s->problem);
}

int
weft_cli_report (int argc, char **argv)
{
    gboolean json = FALSE;
    char **files = NULL;
    GOptionEntry entries[] = {
        { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print one JSON object instead of text", NULL },
        { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, NULL },
        { NULL, 0, 0, 0, NULL, NULL, NULL },
    };
    g_set_prgname ("weft report");
    GOptionContext *ctx = g_option_context_new ("TRACE.h5");
    g_option_context_set_summary (ctx, "Summarise one weft trace file (HDF5).");
    g_option_context_add_main_entries (ctx, entries, NULL);
    g_option_context_set_description (
        ctx, "Prints the experiment, seed, completion status, simulated and wall time, events,\n"
             "finished flows, FCT p50/p99/max, slowdown p99 and the drops summed over /ports.\n"
             "\n"
             "Exit status:\n"
             "  0  the trace is complete: closed by weft after the whole run (status done,\n"
             "     duration, or hang: a hung run's trace is complete data about the hang)\n"
             "  1  the trace is incomplete: the run was interrupted or failed (the trace\n"
             "     stops there), or the file still says \"running\", or is truncated or damaged\n"
             "  2  bad usage, or the file is missing, not HDF5 or not a weft trace\n");
    GError *error = NULL;
    gboolean parsed = g_option_context_parse (ctx, &argc, &argv, &error);
    g_option_context_free (ctx);
    if (!parsed) {
        g_printerr ("weft report: %s\n", error->message);
        g_error_free (error);
        g_strfreev (files);
        return REPORT_NOT_A_TRACE;
    }
    if (files == NULL || files[0] == NULL || files[1] != NULL) {
        g_printerr ("weft report: expected one TRACE.h5 (see weft report --help)\n");
        g_strfreev (files);
        return REPORT_NOT_A_TRACE;
    }

    WeftTraceInfo *info = weft_trace_reader_open (files[0], &error);
    g_strfreev (files);
    if (info == NULL) {
        g_printerr ("weft report: %s\n", error->message);
        g_error_free (error);
        return REPORT_NOT_A_TRACE;
    }
    Summary s = { 0 };
    if (info->readable)
        summarise (&s, info->path);
    if (json)
        print_json (info, &s);
    else
        print_text (info, &s);
    int status = info->complete && s.problem == NULL ? REPORT_COMPLETE : REPORT_INCOMPLETE;
    g_free (s.problem);
    weft_trace_info_free (info);
    return status;
}
