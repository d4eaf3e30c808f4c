/* cli/report.c - `weft report [--ports | --nccl | --perftest | --flows SELECTOR] [--format
 * text|csv|json] TRACE.h5`: a short summary of one trace file (with the derived figures of
 * analysis/derived.h), its /ports one line per port, its nccl-tests tables from /collectives
 * or its perftest tables from /flows; as text, or as CSV or JSON with the same fields and rows.
 *
 * Reads the trace through analysis/trace_reader.h.  The summary leads with the answer lines
 * of analysis/headline.h (busbw of nccl-test workloads from /collectives, throughput of flow
 * workloads from /flows); FCT and slowdown quantiles are over the finished flows of flow
 * workloads only (an unfinished flow has no FCT; a collective's slices are not flows anyone
 * asks about), drops are summed over /ports.
 * --ports prints each port's state and counters in the spirit of ibstat and perfquery -x,
 * under perfquery's counter names (doc/hdf5-schema.md, "/ports", gives the mapping).
 */
#include "config.h"
#define G_LOG_DOMAIN "weft-cli"
#include <glib.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "analysis/compare.h"
#include "analysis/derived.h"
#include "analysis/export.h"
#include "analysis/headline.h"
#include "analysis/nccl_table.h"
#include "analysis/perftest_table.h"
#include "analysis/trace_reader.h"
#include "cli/cli.h"
#include "network/network.h"
#include "network/results.h"

enum { REPORT_COMPLETE = 0, REPORT_INCOMPLETE = 1, REPORT_NOT_A_TRACE = 2 };

typedef enum { REPORT_TEXT, REPORT_CSV, REPORT_JSON } ReportFormat;

/* --nccl without /topology/nodes: the most ranks a table may list (a million GPUs) */
#define MAX_RANKS_WITHOUT_NODES (1u << 20)

typedef struct {
    gboolean have_flows, have_ports;
    guint64 flows_total, flows_finished, fct_flows;
    double fct_p50_ps, fct_p99_ps, fct_max_ps, slowdown_p99;
    guint64 drops;
    char *headline;   /* analysis/headline.h's lines, or NULL */
    char *mechanisms; /* each mechanism's lines (registry order), or NULL */
    char *problem;    /* a data set that failed to read: one line */
    /* derived figures (analysis/derived.h) */
    gboolean have_maxmin; /* /paths has rows and the fabric's packet format reads */
    guint maxmin_flows;
    double maxmin_bps, maxmin_delivered_bps;
    const char *selector; /* --flows, or NULL (borrowed) */
    guint n_selected;
    double sel_min_bps, sel_mean_bps, sel_max_bps, jain;
    GError *sel_error; /* the selector chooses nothing or does not parse */
} Summary;

/* The experiment text the trace carries, if weft report may parse it: a run stores it with
 * its includes resolved, so it names none, and one in a trace is not followed - a damaged or
 * hostile trace could name any file (/dev/zero never ends).  NULL, with *@problem set (if
 * unset), for such a text; NULL without one. */
static const char *
trace_experiment (const WeftTraceInfo *info, char **problem)
{
    if (info->experiment_text == NULL)
        return NULL;
    GKeyFile *kf = g_key_file_new ();
    gboolean include =
        g_key_file_load_from_data (kf, info->experiment_text, (gsize) -1, G_KEY_FILE_NONE, NULL) &&
        g_key_file_has_key (kf, "experiment", "include", NULL);
    g_key_file_free (kf);
    if (!include)
        return info->experiment_text;
    if (*problem == NULL)
        *problem = g_strdup_printf ("%s: /meta experiment names an include, which a run "
                                    "resolves: not followed",
                                    info->path);
    return NULL;
}

/* The end of a table's JSON object: its problem line (null when none) and the brace. */
static void
json_close (GString *o, const char *problem)
{
    g_string_append (o, ", \"problem\": ");
    weft_export_json_string (o, problem);
    g_string_append (o, "}\n");
}

/* The workloads of @experiment whose flows are asked about one by one (analysis/headline.h),
 * NULL-terminated; NULL without a readable experiment. */
static char **
flow_workloads (const char *experiment)
{
    if (!experiment)
        return NULL;
    g_autoptr (WeftExperiment) exp = weft_experiment_new_from_data (experiment, "trace", NULL);
    if (!exp)
        return NULL;
    g_auto (GStrv) groups = weft_experiment_groups_with_prefix (exp, "workload");
    GPtrArray *names = g_ptr_array_new ();
    for (guint i = 0; groups && groups[i]; i++) {
        g_autofree char *kind =
            g_key_file_get_string (weft_experiment_keyfile (exp), groups[i], "kind", NULL);
        if (weft_headline_kind_has_flows (kind))
            g_ptr_array_add (names, g_strdup (groups[i] + strlen ("workload.")));
    }
    g_ptr_array_add (names, NULL);
    return (char **) g_ptr_array_free (names, FALSE);
}

static void
summarise_flows (Summary *s, GArray *flows, char **counted)
{
    gsize finished = 0;
    for (guint i = 0; i < flows->len; i++)
        finished += g_array_index (flows, WeftTraceFlow, i).finished != 0;
    s->have_flows = TRUE;
    s->flows_total = flows->len;
    s->flows_finished = finished;
    /* analysis/headline.h's quantiles, as the run's summary has them */
    WeftQuantiles fct, slow;
    s->fct_flows = weft_headline_fct ((const WeftTraceFlow *) flows->data, flows->len,
                                      (const char *const *) counted, &fct, &slow);
    s->fct_p50_ps = fct.p50;
    s->fct_p99_ps = fct.p99;
    s->fct_max_ps = fct.max;
    s->slowdown_p99 = slow.p99;
}

/* A data set the schema added later, or that only some fabrics write: NULL when absent. */
static GArray *
optional (GArray *(*read) (const char *, GError **), const char *path)
{
    GError *error = NULL;
    GArray *rows = read (path, &error);
    g_clear_error (&error);
    return rows;
}

/* The payload share of a full data packet on the wire, mtu / (mtu + header), of the fabric
 * @experiment describes; FALSE when it no longer configures. */
static gboolean
payload_fraction (const char *experiment, double *fraction)
{
    guint64 mtu = 0, header = 0;
    if (experiment == NULL || !weft_network_packet_format (experiment, &mtu, &header, NULL) ||
        mtu == 0)
        return FALSE;
    *fraction = (double) mtu / (double) (mtu + header);
    return TRUE;
}

/* The max-min fair total over the paths of the flows of @counted's workloads (those asked
 * about one by one: a collective's or a training step's flows follow one another, so a total
 * over all of them as if they ran at once means nothing) and what those flows delivered; the
 * rates of the flows --flows chooses and their Jain index. */
static void
summarise_derived (Summary *s, const WeftTraceInfo *info, GArray *flows, char **counted,
                   const char *experiment)
{
    const WeftTraceFlow *rows = (const WeftTraceFlow *) flows->data;
    GArray *paths = optional (weft_trace_reader_paths, info->path);
    GArray *links = optional (weft_trace_reader_links, info->path);
    g_autoptr (GArray) mine = g_array_new (FALSE, FALSE, sizeof (WeftTraceFlow));
    for (guint f = 0; counted && f < flows->len; f++)
        if (g_strv_contains ((const char *const *) counted, rows[f].workload))
            g_array_append_val (mine, rows[f]);
    double fraction;
    if (paths && links && paths->len > 0 && mine->len > 0 &&
        payload_fraction (experiment, &fraction)) {
        const WeftTracePathHop *hops = (const WeftTracePathHop *) paths->data;
        const WeftTraceFlow *chosen = (const WeftTraceFlow *) mine->data;
        s->maxmin_bps = weft_derived_maxmin_bps (chosen, mine->len, hops, paths->len,
                                                 (const WeftTraceLink *) links->data, links->len,
                                                 fraction, &s->maxmin_flows);
        s->have_maxmin = !isnan (s->maxmin_bps) && s->maxmin_flows > 0;
        g_autoptr (GHashTable) routed = g_hash_table_new (NULL, NULL);
        for (guint h = 0; h < paths->len; h++)
            g_hash_table_add (routed, GUINT_TO_POINTER (hops[h].flow));
        for (guint f = 0; f < mine->len; f++)
            if (g_hash_table_contains (routed, GUINT_TO_POINTER (chosen[f].id)))
                s->maxmin_delivered_bps += weft_derived_rate_bps (&chosen[f], info->sim_time_ps);
    }
    if (paths)
        g_array_free (paths, TRUE);
    if (links)
        g_array_free (links, TRUE);
    if (s->selector == NULL)
        return;
    GArray *nodes = optional (weft_trace_reader_nodes, info->path);
    g_autoptr (GArray) chosen = g_array_new (FALSE, FALSE, sizeof (guint));
    gboolean ok =
        weft_derived_select (rows, flows->len, nodes ? (const WeftTraceNode *) nodes->data : NULL,
                             nodes ? nodes->len : 0, s->selector, chosen, &s->sel_error);
    if (nodes)
        g_array_free (nodes, TRUE);
    if (!ok)
        return;
    g_autofree double *rate = g_new (double, MAX (chosen->len, 1));
    double sum = 0;
    s->sel_min_bps = INFINITY;
    s->sel_max_bps = 0;
    for (guint k = 0; k < chosen->len; k++) {
        rate[k] =
            weft_derived_rate_bps (&rows[g_array_index (chosen, guint, k)], info->sim_time_ps);
        sum += rate[k];
        s->sel_min_bps = MIN (s->sel_min_bps, rate[k]);
        s->sel_max_bps = MAX (s->sel_max_bps, rate[k]);
    }
    s->n_selected = chosen->len;
    s->sel_mean_bps = sum / chosen->len;
    s->jain = weft_derived_jain (rate, chosen->len);
}

static void
summarise (Summary *s, const WeftTraceInfo *info)
{
    const char *path = info->path;
    GError *error = NULL;
    const char *experiment = trace_experiment (info, &s->problem);
    GArray *flows = weft_trace_reader_flows (path, &error);
    g_auto (GStrv) counted = flow_workloads (experiment);
    GString *head = g_string_new (NULL);
    GArray *colls = optional (weft_trace_reader_collectives, path);
    if (colls) {
        /* the benchmark ones: every workload that is not a flow workload or training */
        g_autoptr (GPtrArray) bench = g_ptr_array_new_with_free_func (g_free);
        g_autoptr (WeftExperiment) exp =
            experiment ? weft_experiment_new_from_data (experiment, "trace", NULL) : NULL;
        for (guint i = 0; exp && i < colls->len; i++) {
            const char *w = g_array_index (colls, WeftTraceCollective, i).workload;
            g_autofree char *group = g_strconcat ("workload.", w, NULL);
            g_autofree char *kind =
                g_key_file_get_string (weft_experiment_keyfile (exp), group, "kind", NULL);
            if (kind && strcmp (kind, "nccl-test") == 0 &&
                !g_ptr_array_find_with_equal_func (bench, w, g_str_equal, NULL))
                g_ptr_array_add (bench, g_strdup (w));
        }
        g_ptr_array_add (bench, NULL);
        weft_headline_collectives (head, (const WeftTraceCollective *) colls->data, colls->len,
                                   (const char *const *) bench->pdata);
        g_array_free (colls, TRUE);
    }
    if (flows != NULL) {
        summarise_flows (s, flows, counted);
        summarise_derived (s, info, flows, counted, experiment);
        for (guint i = 0; counted && counted[i]; i++)
            weft_headline_flows (head, counted[i], (const WeftTraceFlow *) flows->data, flows->len,
                                 info->sim_time_ps);
    } else {
        if (s->problem == NULL)
            s->problem = g_strdup (error->message);
        g_clear_error (&error);
    }
    GArray *ports = weft_trace_reader_ports (path, &error);
    if (ports != NULL) {
        s->have_ports = TRUE;
        for (guint i = 0; i < ports->len; i++)
            s->drops += g_array_index (ports, WeftTracePort, i).drops;
    } else {
        if (s->problem == NULL)
            s->problem = g_strdup (error->message);
        g_clear_error (&error);
    }
    /* Each mechanism's lines, from the registry (network/report.c). */
    GArray *pfc = optional (weft_trace_reader_pfc_samples, path);
    GArray *buffers = optional (weft_trace_reader_buffer_samples, path);
    WeftTraceTables t = { flows, ports, pfc, buffers };
    GString *lines = g_string_new (NULL);
    if (experiment && !weft_network_report (experiment, &t, lines, &error)) {
        g_string_append_printf (lines, "  (the mechanisms' lines: %s)\n", error->message);
        g_clear_error (&error);
    }
    s->mechanisms = g_string_free (lines, FALSE);
    s->headline = g_string_free (head, FALSE);
    GArray *read[] = { flows, ports, pfc, buffers };
    for (guint i = 0; i < G_N_ELEMENTS (read); i++)
        if (read[i])
            g_array_free (read[i], TRUE);
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

/* One record of an export: keys with values, printed as a JSON object or as CSV fields, so
 * that both forms carry the same fields with the same numbers.  A value is JSON text (a
 * number, true, false) or a string (quoted in JSON), or null (empty in CSV). */
typedef struct {
    GPtrArray *keys, *values; /* owned; values: NULL for null */
    GArray *quoted;           /* gboolean per value: a string */
} Record;

static void
record_init (Record *r)
{
    r->keys = g_ptr_array_new_with_free_func (g_free);
    r->values = g_ptr_array_new_with_free_func (g_free);
    r->quoted = g_array_new (FALSE, FALSE, sizeof (gboolean));
}

static void
record_clear (Record *r)
{
    g_ptr_array_unref (r->keys);
    g_ptr_array_unref (r->values);
    g_array_unref (r->quoted);
}

/* @value (transfer full) may be NULL. */
static void
record_take (Record *r, const char *key, char *value, gboolean quoted)
{
    g_ptr_array_add (r->keys, g_strdup (key));
    g_ptr_array_add (r->values, value);
    g_array_append_val (r->quoted, quoted);
}

static void
record_str (Record *r, const char *key, const char *value)
{
    record_take (r, key, g_strdup (value), TRUE);
}

static void G_GNUC_PRINTF (3, 4) record_num (Record *r, const char *key, const char *format, ...)
{
    va_list ap;
    va_start (ap, format);
    record_take (r, key, g_strdup_vprintf (format, ap), FALSE);
    va_end (ap);
}

static void
record_null (Record *r, const char *key)
{
    record_take (r, key, NULL, FALSE);
}

static void
record_bool (Record *r, const char *key, gboolean value)
{
    record_take (r, key, g_strdup (value ? "true" : "false"), FALSE);
}

/* The fields of @r, from the @from-th on, as "\"key\": value, ..." (no braces). */
static void
record_json (GString *o, const Record *r, guint from)
{
    for (guint i = from; i < r->keys->len; i++) {
        if (i > from)
            g_string_append (o, ", ");
        weft_export_json_string (o, r->keys->pdata[i]);
        g_string_append (o, ": ");
        const char *v = r->values->pdata[i];
        if (v != NULL && g_array_index (r->quoted, gboolean, i))
            weft_export_json_string (o, v);
        else
            g_string_append (o, v ? v : "null");
    }
}

/* One CSV line of @r's keys (@values FALSE) or values. */
static void
record_csv (GString *o, const Record *r, gboolean values)
{
    for (guint i = 0; i < r->keys->len; i++) {
        if (i)
            g_string_append_c (o, ',');
        weft_export_csv_field (o, values ? r->values->pdata[i] : r->keys->pdata[i]);
    }
    g_string_append (o, "\r\n");
}

/* The resolved experiment the trace carries, one field per key: "param:GROUP:KEY", the
 * value as the file text has it (unescaped), in file order: what a sweep's collection or a
 * script needs to tell runs apart without parsing the experiment text itself. */
static void
record_parameters (Record *r, const WeftTraceInfo *info)
{
    char *problem = NULL;
    const char *text = trace_experiment (info, &problem);
    g_free (problem);
    if (text == NULL)
        return;
    g_autoptr (GKeyFile) kf = g_key_file_new ();
    if (!g_key_file_load_from_data (kf, text, (gsize) -1, G_KEY_FILE_NONE, NULL))
        return;
    g_auto (GStrv) groups = g_key_file_get_groups (kf, NULL);
    for (guint g = 0; groups[g]; g++) {
        g_auto (GStrv) keys = g_key_file_get_keys (kf, groups[g], NULL, NULL);
        for (guint k = 0; keys && keys[k]; k++) {
            char *v = g_key_file_get_string (kf, groups[g], keys[k], NULL);
            if (v == NULL)
                v = g_key_file_get_value (kf, groups[g], keys[k], NULL);
            g_autofree char *name = g_strdup_printf ("param:%s:%s", groups[g], keys[k]);
            record_take (r, name, v, TRUE);
        }
    }
}

/* The figures `weft compare` computes for this one run (analysis/compare.h), one field each:
 * "figure:NAME [UNIT]" (no brackets for a count), null where the trace lacks it. */
static void
record_figures (Record *r, const WeftTraceInfo *info)
{
    const char *paths[] = { info->path, NULL };
    g_autoptr (WeftComparison) c = weft_compare_new (paths, NULL);
    for (guint i = 0; c && i < c->figures->len; i++) {
        const WeftCompareFigure *f = c->figures->pdata[i];
        g_autofree char *name = *f->unit ? g_strdup_printf ("figure:%s [%s]", f->name, f->unit)
                                         : g_strdup_printf ("figure:%s", f->name);
        if (isnan (f->values[0]))
            record_null (r, name);
        else
            record_take (r, name, g_strdup_printf ("%.17g", f->values[0]), FALSE);
    }
}

/* The summary as one record: JSON's fields, or CSV's "field,value" rows. */
static void
summary_record (Record *r, const WeftTraceInfo *info, const Summary *s)
{
    record_str (r, "trace", info->path);
    record_str (r, "experiment_path", info->experiment_path);
    record_num (r, "seed", "%" G_GUINT64_FORMAT, info->seed);
    record_str (r, "status", info->status_text);
    record_bool (r, "complete", info->complete);
    record_bool (r, "damaged", info->damaged);
    record_str (r, "reason", info->reason);
    record_str (r, "message", info->message);
    record_num (r, "sim_time_ps", "%" G_GUINT64_FORMAT, info->sim_time_ps);
    record_num (r, "wall_time_s", "%.6f", info->wall_time_s);
    record_num (r, "events", "%" G_GUINT64_FORMAT, info->events);
    if (s->have_flows) {
        record_num (r, "flows_finished", "%" G_GUINT64_FORMAT, s->flows_finished);
        record_num (r, "flows_total", "%" G_GUINT64_FORMAT, s->flows_total);
        record_num (r, "fct_flows", "%" G_GUINT64_FORMAT, s->fct_flows);
        if (s->fct_flows > 0) {
            record_num (r, "fct_p50_ps", "%.1f", s->fct_p50_ps);
            record_num (r, "fct_p99_ps", "%.1f", s->fct_p99_ps);
            record_num (r, "fct_max_ps", "%.1f", s->fct_max_ps);
            record_num (r, "slowdown_p99", "%.6g", s->slowdown_p99);
        } else {
            record_null (r, "fct_p50_ps");
            record_null (r, "fct_p99_ps");
            record_null (r, "fct_max_ps");
            record_null (r, "slowdown_p99");
        }
    }
    if (s->have_ports)
        record_num (r, "drops", "%" G_GUINT64_FORMAT, s->drops);
    if (s->have_maxmin) {
        record_num (r, "maxmin_fair_total_bps", "%.17g", s->maxmin_bps);
        record_num (r, "maxmin_flows", "%u", s->maxmin_flows);
        record_num (r, "maxmin_delivered_bps", "%.17g", s->maxmin_delivered_bps);
    }
    if (s->n_selected > 0) {
        record_str (r, "selection", s->selector);
        record_num (r, "selected_flows", "%u", s->n_selected);
        record_num (r, "selected_rate_min_bps", "%.17g", s->sel_min_bps);
        record_num (r, "selected_rate_mean_bps", "%.17g", s->sel_mean_bps);
        record_num (r, "selected_rate_max_bps", "%.17g", s->sel_max_bps);
        if (isnan (s->jain))
            record_null (r, "jain_index");
        else
            record_num (r, "jain_index", "%.17g", s->jain);
    }
    record_str (r, "problem", s->problem);
    record_parameters (r, info);
    record_figures (r, info);
}

static void
format_export (GString *o, const WeftTraceInfo *info, const Summary *s, ReportFormat format)
{
    Record r;
    record_init (&r);
    summary_record (&r, info, s);
    if (format == REPORT_JSON) {
        g_string_append_c (o, '{');
        record_json (o, &r, 0);
        g_string_append (o, "}\n");
    } else {
        g_string_append (o, "field,value\r\n");
        for (guint i = 0; i < r.keys->len; i++) {
            weft_export_csv_field (o, r.keys->pdata[i]);
            g_string_append_c (o, ',');
            weft_export_csv_field (o, r.values->pdata[i]);
            g_string_append (o, "\r\n");
        }
    }
    record_clear (&r);
}

static void
print_export (const WeftTraceInfo *info, const Summary *s, ReportFormat format)
{
    GString *o = g_string_new (NULL);
    format_export (o, info, s, format);
    fputs (o->str, stdout);
    g_string_free (o, TRUE);
}

char *
weft_cli_report_summary_json (const char *path, GError **error)
{
    WeftTraceInfo *info = weft_trace_reader_open (path, error);
    if (info == NULL)
        return NULL;
    Summary s = { 0 };
    if (info->readable)
        summarise (&s, info);
    GString *o = g_string_new (NULL);
    format_export (o, info, &s, REPORT_JSON);
    g_free (s.problem);
    g_free (s.mechanisms);
    g_free (s.headline);
    weft_trace_info_free (info);
    return g_string_free (o, FALSE);
}

static void
print_text (const WeftTraceInfo *info, const Summary *s)
{
    printf ("trace:       %s\n", info->path);
    if (info->readable) {
        printf ("experiment:  %s\n",
                info->experiment_path && *info->experiment_path ? info->experiment_path : "(none)");
        printf ("seed:        %" G_GUINT64_FORMAT "\n", info->seed);
    }
    if (info->complete)
        printf ("status:      complete (%s)\n", info->status_text);
    else if (info->damaged)
        printf ("status:      DAMAGED: %s\n", info->reason);
    else if (info->readable && info->status_text != NULL &&
             info->status != WEFT_TRACE_STATUS_RUNNING)
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
    if (s->headline && *s->headline) {
        /* the same lines as the run's summary, under this command's own labels */
        g_auto (GStrv) lines = g_strsplit (s->headline, "\n", -1);
        for (guint i = 0; lines[i] && *lines[i]; i++) {
            g_autofree char *t = g_strstrip (g_strdup (lines[i]));
            char *sp = strchr (t, ' ');
            if (sp) {
                *sp = '\0';
                g_autofree char *label = g_strconcat (t, ":", NULL);
                printf ("%-12s %s\n", label, g_strchug (sp + 1));
            }
        }
    }
    if (s->have_flows) {
        printf ("flows:       %" G_GUINT64_FORMAT " finished / %" G_GUINT64_FORMAT " total\n",
                s->flows_finished, s->flows_total);
        if (s->fct_flows > 0) {
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
    if (s->have_maxmin)
        printf ("max-min:     %.3f Gb/s fair total over the paths of %u flows; they delivered "
                "%.3f Gb/s (%.1f %%)\n",
                s->maxmin_bps / 1e9, s->maxmin_flows, s->maxmin_delivered_bps / 1e9,
                s->maxmin_bps > 0 ? 100 * s->maxmin_delivered_bps / s->maxmin_bps : 0.0);
    if (s->n_selected > 0) {
        printf ("selected:    %u flow%s (%s): rate min %.3f, mean %.3f, max %.3f Gb/s",
                s->n_selected, s->n_selected == 1 ? "" : "s", s->selector, s->sel_min_bps / 1e9,
                s->sel_mean_bps / 1e9, s->sel_max_bps / 1e9);
        if (!isnan (s->jain))
            printf ("; Jain's index %.4f", s->jain);
        printf ("\n");
    }
    if (s->mechanisms && *s->mechanisms)
        printf ("mechanisms:\n%s", s->mechanisms);
    if (s->problem != NULL)
        printf ("problem:     %s\n", s->problem);
}

/* --ports -------------------------------------------------------------------------------- */

/* PortState and PortPhysicalState as IB names them; NULL for 0 (not recorded) or unknown. */
static const char *
port_state_name (guint8 state)
{
    static const char *const names[] = { NULL, "Down", "Init", "Armed", "Active", "ActiveDefer" };
    return state < G_N_ELEMENTS (names) ? names[state] : NULL;
}

static const char *
phys_state_name (guint8 phys)
{
    static const char *const names[] = { NULL,
                                         "Sleep",
                                         "Polling",
                                         "Disabled",
                                         "PortConfigurationTraining",
                                         "LinkUp",
                                         "LinkErrorRecovery",
                                         "PhyTest" };
    return phys < G_N_ELEMENTS (names) ? names[phys] : NULL;
}

/* "400 Gb/s", "53.125 Gb/s", "100 Mb/s"; "-" for 0 (not recorded). */
static char *
format_rate (guint64 bps)
{
    if (bps == 0)
        return g_strdup ("-");
    if (bps >= G_GUINT64_CONSTANT (1000000000))
        return g_strdup_printf ("%.6g Gb/s", (double) bps / 1e9);
    if (bps >= 1000000)
        return g_strdup_printf ("%.6g Mb/s", (double) bps / 1e6);
    return g_strdup_printf ("%" G_GUINT64_FORMAT " b/s", bps);
}

/* Each node id's row in /topology/nodes (ids are row numbers there, but look, not index),
 * the first row that has it: looked up once, so that a trace whose ids are not row numbers
 * costs one pass, not one per port.  (transfer full; NULL without @nodes) */
static GHashTable *
node_rows (GArray *nodes)
{
    if (nodes == NULL)
        return NULL;
    GHashTable *rows = g_hash_table_new (NULL, NULL);
    for (guint i = nodes->len; i-- > 0;)
        g_hash_table_insert (rows, GUINT_TO_POINTER (g_array_index (nodes, WeftTraceNode, i).id),
                             GUINT_TO_POINTER (i + 1));
    return rows;
}

/* The node's name from /topology/nodes (@rows: node_rows()), or "node<id>" if the node is
 * missing.  (transfer full) */
static char *
node_name (GArray *nodes, GHashTable *rows, guint32 id)
{
    guint row = rows ? GPOINTER_TO_UINT (g_hash_table_lookup (rows, GUINT_TO_POINTER (id))) : 0;
    if (row > 0)
        return g_strndup (g_array_index (nodes, WeftTraceNode, row - 1).name, WEFT_TRACE_NAME_LEN);
    return g_strdup_printf ("node%u", id);
}

/* The perfquery-named counters of one port, in print order.  Those added by schema 2 are
 * NULL-valued (printed "-", JSON null) in an older trace, which did not record them. */
typedef struct {
    const char *name;
    guint64 value;
    gboolean recorded;
} Counter;

enum { N_COUNTERS = 10 };

static void
port_counters (const WeftTracePort *p, gboolean v2, Counter out[N_COUNTERS])
{
    const Counter c[N_COUNTERS] = {
        { "PortXmitData", p->tx_bytes / 4, TRUE }, /* IB counts 4-byte words */
        { "PortRcvData", p->rx_bytes / 4, TRUE },
        { "PortXmitPkts", p->tx_packets, TRUE },
        { "PortRcvPkts", p->rx_packets, TRUE },
        { "PortXmitWait", p->xmit_wait_ps, v2 }, /* weft: ps; IB: implementation ticks */
        { "PortXmitDiscards", p->drops, TRUE },
        { "SymbolErrorCounter", p->symbol_errors, v2 },
        { "LinkDownedCounter", p->link_downed, v2 },
        { "PortRcvErrors", p->rcv_errors, v2 },
        { "LosslessDrops", p->lossless_drops, v2 }, /* weft's own */
    };
    memcpy (out, c, sizeof c);
}

#define PORTS_UNITS                                                                                \
    "PortXmitData/PortRcvData in 4-byte words (bytes / 4, as IB counts); PortXmitWait in ps "      \
    "(IB counts implementation-specific ticks)"

static void
print_ports_text (const WeftTraceInfo *info, GArray *ports, GArray *nodes)
{
    gboolean v2 = info->schema_version >= 2;
    char **names = g_new0 (char *, ports->len + 1);
    int width = 6; /* "# node" */
    GHashTable *rows = node_rows (nodes);
    for (guint i = 0; i < ports->len; i++) {
        names[i] = node_name (nodes, rows, g_array_index (ports, WeftTracePort, i).node);
        width = MAX (width, (int) strlen (names[i]));
    }
    if (rows != NULL)
        g_hash_table_destroy (rows);
    printf ("# %s: %u ports; " PORTS_UNITS "\n", info->path, ports->len);
    if (!v2)
        printf ("# schema version %u: port state, rate, link layer, PortXmitWait, "
                "SymbolErrorCounter, LinkDownedCounter, PortRcvErrors and LosslessDrops "
                "were not recorded (-)\n",
                info->schema_version);
    printf ("# %-*s %4s %-6s %-8s %-11s %-10s counters\n", width - 2, "node", "port", "state",
            "phys", "rate", "link_layer");
    for (guint i = 0; i < ports->len; i++) {
        const WeftTracePort *p = &g_array_index (ports, WeftTracePort, i);
        const char *state = port_state_name (p->state), *phys = phys_state_name (p->phys_state);
        char *rate = format_rate (p->rate_bps);
        char *layer = g_strndup (p->link_layer, WEFT_TRACE_KIND_LEN);
        Counter c[N_COUNTERS];
        port_counters (p, v2, c);
        printf ("%-*s %4u %-6s %-8s %-11s %-10s", width, names[i], p->port, state ? state : "-",
                phys ? phys : "-", rate, *layer ? layer : "-");
        for (guint k = 0; k < N_COUNTERS; k++)
            if (c[k].recorded)
                printf (" %s=%" G_GUINT64_FORMAT, c[k].name, c[k].value);
            else
                printf (" %s=-", c[k].name);
        putchar ('\n');
        g_free (rate);
        g_free (layer);
    }
    g_strfreev (names);
}

/* One port's record: the same fields in JSON and CSV. */
static void
port_record (Record *r, const WeftTraceInfo *info, const WeftTracePort *p, const char *name)
{
    gboolean v2 = info->schema_version >= 2;
    g_autofree char *layer = g_strndup (p->link_layer, WEFT_TRACE_KIND_LEN);
    Counter c[N_COUNTERS];
    port_counters (p, v2, c);
    record_num (r, "node", "%u", p->node);
    record_str (r, "node_name", name);
    record_num (r, "port", "%u", p->port);
    record_num (r, "link", "%u", p->link);
    if (v2) {
        record_num (r, "state", "%u", p->state);
        record_str (r, "state_name", port_state_name (p->state));
        record_num (r, "phys_state", "%u", p->phys_state);
        record_str (r, "phys_state_name", phys_state_name (p->phys_state));
        record_num (r, "rate_bps", "%" G_GUINT64_FORMAT, p->rate_bps);
        record_str (r, "link_layer", layer);
    } else {
        const char *none[] = { "state",           "state_name", "phys_state",
                               "phys_state_name", "rate_bps",   "link_layer" };
        for (guint k = 0; k < G_N_ELEMENTS (none); k++)
            record_null (r, none[k]);
    }
    record_num (r, "tx_bytes", "%" G_GUINT64_FORMAT, p->tx_bytes);
    record_num (r, "rx_bytes", "%" G_GUINT64_FORMAT, p->rx_bytes);
    for (guint k = 0; k < N_COUNTERS; k++)
        if (c[k].recorded)
            record_num (r, c[k].name, "%" G_GUINT64_FORMAT, c[k].value);
        else
            record_null (r, c[k].name);
}

/* --ports as JSON (one object, its "ports" an array) or CSV (one line per port). */
static void
print_ports_export (const WeftTraceInfo *info, GArray *ports, GArray *nodes, const char *problem,
                    ReportFormat format)
{
    GString *o = g_string_new (NULL);
    Record head;
    record_init (&head);
    record_str (&head, "trace", info->path);
    record_num (&head, "schema_version", "%u", info->schema_version);
    record_str (&head, "status", info->status_text);
    record_bool (&head, "complete", info->complete);
    record_bool (&head, "damaged", info->damaged);
    record_str (&head, "reason", info->reason);
    if (format == REPORT_JSON) {
        g_string_append_c (o, '{');
        record_json (o, &head, 0);
        g_string_append (o, ", \"units\": {\"PortXmitData\": \"4-byte words\", "
                            "\"PortRcvData\": \"4-byte words\", \"PortXmitWait\": \"ps\", "
                            "\"rate_bps\": \"bit/s\"}, \"ports\": ");
        if (ports == NULL)
            g_string_append (o, "null");
    }
    record_clear (&head);
    GHashTable *rows = node_rows (nodes);
    for (guint i = 0; ports && i < ports->len; i++) {
        const WeftTracePort *p = &g_array_index (ports, WeftTracePort, i);
        g_autofree char *name = node_name (nodes, rows, p->node);
        Record r;
        record_init (&r);
        port_record (&r, info, p, name);
        if (format == REPORT_JSON) {
            g_string_append (o, i ? ", {" : "[{");
            record_json (o, &r, 0);
            g_string_append_c (o, '}');
        } else {
            if (i == 0)
                record_csv (o, &r, FALSE);
            record_csv (o, &r, TRUE);
        }
        record_clear (&r);
    }
    if (rows != NULL)
        g_hash_table_destroy (rows);
    if (format == REPORT_JSON) {
        if (ports != NULL)
            g_string_append (o, ports->len ? "]" : "[]");
        json_close (o, problem);
    }
    fputs (o->str, stdout);
    g_string_free (o, TRUE);
}

/* --ports: returns the problem line if /ports (or /topology/nodes) did not read. */
static char *
report_ports (const WeftTraceInfo *info, ReportFormat format)
{
    GError *error = NULL;
    char *problem = NULL;
    GArray *ports = NULL, *nodes = NULL;
    if (!info->readable)
        problem = g_strdup (info->reason);
    else if ((ports = weft_trace_reader_ports (info->path, &error)) == NULL) {
        problem = g_strdup (error->message);
        g_clear_error (&error);
    } else if ((nodes = weft_trace_reader_nodes (info->path, &error)) == NULL) {
        /* the counters are still worth printing, under node ids */
        problem = g_strdup (error->message);
        g_clear_error (&error);
    }
    if (format != REPORT_TEXT)
        print_ports_export (info, ports, nodes, problem, format);
    else if (ports != NULL)
        print_ports_text (info, ports, nodes);
    if (ports != NULL)
        g_array_free (ports, TRUE);
    if (nodes != NULL)
        g_array_free (nodes, TRUE);
    return problem;
}

/* --nccl ---------------------------------------------------------------------------------- */

static int
cmp_u64 (gconstpointer a, gconstpointer b)
{
    guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;
    return (x > y) - (x < y);
}

/* The rows of the nccl-tests tables as records: per workload and op (in order of first
 * appearance), per size with a timed row (increasing), per placement that has one; the
 * figures of analysis/nccl_table.h's groups, unrounded.  NULL-free array of Record *. */
static GPtrArray *
nccl_records (GArray *colls)
{
    const WeftTraceCollective *rows = (const WeftTraceCollective *) colls->data;
    GPtrArray *out = g_ptr_array_new ();
    for (guint i = 0; i < colls->len; i++) {
        const WeftTraceCollective *r = &rows[i];
        if (r->warmup)
            continue;
        gboolean seen = FALSE;
        for (guint j = 0; j < i && !seen; j++)
            seen = !rows[j].warmup && strcmp (rows[j].workload, r->workload) == 0 &&
                   strcmp (rows[j].op, r->op) == 0;
        if (seen)
            continue;
        GArray *sizes = g_array_new (FALSE, FALSE, sizeof (guint64));
        for (guint j = i; j < colls->len; j++) {
            const WeftTraceCollective *x = &rows[j];
            if (x->warmup || strcmp (x->workload, r->workload) != 0 || strcmp (x->op, r->op) != 0)
                continue;
            gboolean have = FALSE;
            for (guint k = 0; k < sizes->len && !have; k++)
                have = g_array_index (sizes, guint64, k) == x->bytes;
            if (!have)
                g_array_append_val (sizes, x->bytes);
        }
        g_array_sort (sizes, cmp_u64);
        /* the workload's rows: a table is one workload's (weft_nccl_table_print_workloads) */
        GArray *mine = g_array_new (FALSE, FALSE, sizeof (WeftTraceCollective));
        for (guint j = i; j < colls->len; j++)
            if (strcmp (rows[j].workload, r->workload) == 0)
                g_array_append_val (mine, rows[j]);
        for (guint k = 0; k < sizes->len; k++) {
            guint64 bytes = g_array_index (sizes, guint64, k);
            const WeftTraceCollective *first = NULL;
            for (guint j = i; j < colls->len && first == NULL; j++)
                if (!rows[j].warmup && rows[j].bytes == bytes &&
                    strcmp (rows[j].workload, r->workload) == 0 && strcmp (rows[j].op, r->op) == 0)
                    first = &rows[j];
            for (guint8 in_place = 0; in_place <= 1; in_place++) {
                double time_us, alg, bus;
                g_autofree char *op = g_strndup (r->op, WEFT_TRACE_KIND_LEN);
                if (!weft_nccl_table_group ((const WeftTraceCollective *) mine->data, mine->len, op,
                                            bytes, in_place, &time_us, &alg, &bus))
                    continue;
                Record *rec = g_new (Record, 1);
                record_init (rec);
                g_autofree char *w = g_strndup (r->workload, WEFT_TRACE_KIND_LEN);
                g_autofree char *type = g_strndup (first->type, WEFT_TRACE_SHORT_LEN);
                g_autofree char *redop = g_strndup (first->redop, WEFT_TRACE_SHORT_LEN);
                record_str (rec, "workload", w);
                record_str (rec, "op", op);
                record_num (rec, "size_bytes", "%" G_GUINT64_FORMAT, bytes);
                record_num (rec, "count", "%" G_GUINT64_FORMAT, (guint64) first->count);
                record_str (rec, "type", type);
                record_str (rec, "redop", redop);
                record_num (rec, "root", "%d", (int) first->root);
                record_str (rec, "placement", in_place ? "in-place" : "out-of-place");
                record_num (rec, "time_us", "%.9g", time_us);
                record_num (rec, "algbw_gbs", "%.9g", alg);
                record_num (rec, "busbw_gbs", "%.9g", bus);
                g_ptr_array_add (out, rec);
            }
        }
        g_array_free (mine, TRUE);
        g_array_free (sizes, TRUE);
    }
    return out;
}

/* --nccl as JSON (one object, its "rows" an array) or CSV (one line per row). */
static void
print_nccl_export (const WeftTraceInfo *info, GArray *colls, const char *problem,
                   ReportFormat format)
{
    GPtrArray *recs = colls ? nccl_records (colls) : g_ptr_array_new ();
    GString *o = g_string_new (NULL);
    if (format == REPORT_JSON) {
        Record head;
        record_init (&head);
        record_str (&head, "trace", info->path);
        record_num (&head, "schema_version", "%u", info->schema_version);
        record_str (&head, "status", info->status_text);
        record_bool (&head, "complete", info->complete);
        g_string_append_c (o, '{');
        record_json (o, &head, 0);
        record_clear (&head);
        g_string_append (o, ", \"units\": {\"time_us\": \"us\", \"algbw_gbs\": \"GB/s\", "
                            "\"busbw_gbs\": \"GB/s\"}, \"rows\": ");
        if (colls == NULL)
            g_string_append (o, "null");
        else
            g_string_append_c (o, '[');
    }
    for (guint i = 0; i < recs->len; i++) {
        const Record *r = recs->pdata[i];
        if (format == REPORT_JSON) {
            g_string_append (o, i ? ", {" : "{");
            record_json (o, r, 0);
            g_string_append_c (o, '}');
        } else {
            if (i == 0)
                record_csv (o, r, FALSE);
            record_csv (o, r, TRUE);
        }
        record_clear (recs->pdata[i]);
        g_free (recs->pdata[i]);
    }
    if (format == REPORT_JSON) {
        if (colls != NULL)
            g_string_append_c (o, ']');
        json_close (o, problem);
    } else if (recs->len == 0) {
        g_string_append (o, "workload,op,size_bytes,count,type,redop,root,placement,time_us,"
                            "algbw_gbs,busbw_gbs\r\n");
    }
    g_ptr_array_unref (recs);
    fputs (o->str, stdout);
    g_string_free (o, TRUE);
}

/* --nccl: one nccl-tests table per workload, in order of first appearance; returns the
 * problem line if /collectives did not read. */
static char *
report_nccl (const WeftTraceInfo *info, ReportFormat format)
{
    GError *error = NULL;
    if (!info->readable) {
        if (format != REPORT_TEXT)
            print_nccl_export (info, NULL, info->reason, format);
        return g_strdup (info->reason);
    }
    GArray *rows = weft_trace_reader_collectives (info->path, &error);
    if (rows == NULL) {
        char *problem = g_strdup (error->message);
        g_clear_error (&error);
        if (format != REPORT_TEXT)
            print_nccl_export (info, NULL, problem, format);
        return problem;
    }
    GArray *nodes = weft_trace_reader_nodes (info->path, NULL);
    /* A table lists each rank: a rank count beyond the nodes the trace has (each rank is a
     * node of its own) is damage, and would cost a line and an allocation per rank. */
    guint max_ranks = nodes ? nodes->len : MAX_RANKS_WITHOUT_NODES;
    for (guint i = 0; i < rows->len; i++) {
        guint n = g_array_index (rows, WeftTraceCollective, i).n_ranks;
        if (n > max_ranks) {
            char *problem = g_strdup_printf ("%s: cannot read /collectives: row %u has %u ranks, "
                                             "more than the trace's %u nodes",
                                             info->path, i, n, max_ranks);
            if (format != REPORT_TEXT)
                print_nccl_export (info, NULL, problem, format);
            if (nodes != NULL)
                g_array_free (nodes, TRUE);
            g_array_free (rows, TRUE);
            return problem;
        }
    }
    if (format != REPORT_TEXT) {
        print_nccl_export (info, rows, NULL, format);
        if (nodes != NULL)
            g_array_free (nodes, TRUE);
        g_array_free (rows, TRUE);
        return NULL;
    }
    GString *out = g_string_new (NULL);
    weft_nccl_table_print_workloads (out, (const WeftTraceCollective *) rows->data, rows->len,
                                     nodes ? (const WeftTraceNode *) nodes->data : NULL,
                                     nodes ? nodes->len : 0);
    fputs (out->str, stdout);
    if (rows->len == 0 && info->complete) /* else say_why() explains exit status 1 */
        g_printerr ("weft report: %s: no collectives in this trace\n", info->path);
    g_string_free (out, TRUE);
    if (nodes != NULL)
        g_array_free (nodes, TRUE);
    g_array_free (rows, TRUE);
    return NULL;
}

/* --perftest -------------------------------------------------------------------------------- */

static const char *const perftest_columns[] = {
    "workload",    "test",          "bytes",    "iterations", "bw_peak_gbps",
    "bw_avg_gbps", "msg_rate_mpps", "t_min_us", "t_max_us",   "t_typical_us",
    "t_avg_us",    "t_stdev_us",    "p99_us",   "p999_us",
};

/* One perftest row as a record of perftest_columns (null where the other test has it). */
static void
perftest_record (Record *r, const WeftPerftestTableRow *row)
{
    const double v[] = { row->bw_peak_gbps, row->bw_avg_gbps,    row->msg_rate_mpps,
                         row->lat.t_min_us, row->lat.t_max_us,   row->lat.t_typical_us,
                         row->lat.t_avg_us, row->lat.t_stdev_us, row->lat.p99_us,
                         row->lat.p999_us };
    record_str (r, "workload", row->workload);
    record_str (r, "test", row->test);
    record_num (r, "bytes", "%" G_GUINT64_FORMAT, row->bytes);
    record_num (r, "iterations", "%" G_GUINT64_FORMAT, row->iterations);
    for (guint k = 0; k < G_N_ELEMENTS (v); k++) {
        if (isnan (v[k]))
            record_null (r, perftest_columns[4 + k]);
        else
            record_num (r, perftest_columns[4 + k], "%.9g", v[k]);
    }
}

/* --perftest as JSON (one object, its "rows" an array; null when the tables could not be
 * computed) or CSV (one line per row). */
static void
print_perftest_export (const WeftTraceInfo *info, GArray *rows, const char *problem,
                       ReportFormat format)
{
    GString *o = g_string_new (NULL);
    if (format == REPORT_JSON) {
        Record head;
        record_init (&head);
        record_str (&head, "trace", info->path);
        record_num (&head, "schema_version", "%u", info->schema_version);
        record_str (&head, "status", info->status_text);
        record_bool (&head, "complete", info->complete);
        g_string_append_c (o, '{');
        record_json (o, &head, 0);
        record_clear (&head);
        g_string_append (o, ", \"units\": {\"bytes\": \"B\", \"bw_peak_gbps\": \"Gb/s\", "
                            "\"bw_avg_gbps\": \"Gb/s\", \"msg_rate_mpps\": \"Mpps\", "
                            "\"t_min_us\": \"us\", \"t_max_us\": \"us\", \"t_typical_us\": "
                            "\"us\", \"t_avg_us\": \"us\", \"t_stdev_us\": \"us\", \"p99_us\": "
                            "\"us\", \"p999_us\": \"us\"}, \"rows\": ");
        g_string_append (o, rows == NULL ? "null" : "[");
    } else {
        for (guint k = 0; k < G_N_ELEMENTS (perftest_columns); k++)
            g_string_append_printf (o, k ? ",%s" : "%s", perftest_columns[k]);
        g_string_append (o, "\r\n");
    }
    for (guint i = 0; rows && i < rows->len; i++) {
        Record r;
        record_init (&r);
        perftest_record (&r, &g_array_index (rows, WeftPerftestTableRow, i));
        if (format == REPORT_JSON) {
            g_string_append (o, i ? ", {" : "{");
            record_json (o, &r, 0);
            g_string_append_c (o, '}');
        } else {
            record_csv (o, &r, TRUE);
        }
        record_clear (&r);
    }
    if (format == REPORT_JSON) {
        if (rows != NULL)
            g_string_append_c (o, ']');
        json_close (o, problem);
    }
    fputs (o->str, stdout);
    g_string_free (o, TRUE);
}

/* --perftest: ib_write_bw / ib_write_lat's output of each perftest workload, recomputed from
 * /flows and the stored experiment as weft run computes it; returns the problem line if
 * /flows did not read or the experiment no longer configures. */
static char *
report_perftest (const WeftTraceInfo *info, ReportFormat format)
{
    char *problem = NULL;
    const char *experiment = info->readable ? trace_experiment (info, &problem) : NULL;
    GArray *flows = NULL;
    GError *error = NULL;
    if (!info->readable)
        problem = g_strdup (info->reason);
    else if (experiment == NULL && problem == NULL)
        problem = g_strdup_printf ("%s: /meta holds no experiment to read the perftest "
                                   "workloads from",
                                   info->path);
    else if (problem == NULL && (flows = weft_trace_reader_flows (info->path, &error)) == NULL) {
        problem = g_strdup (error->message);
        g_clear_error (&error);
    }
    GArray *rows = NULL;
    GString *text = g_string_new (NULL);
    if (flows != NULL) {
        rows = g_array_new (FALSE, TRUE, sizeof (WeftPerftestTableRow));
        g_array_set_clear_func (rows, weft_perftest_table_row_clear);
        if (!weft_network_perftest_tables_from_trace (
                experiment, (const WeftTraceFlow *) flows->data, flows->len, text, rows, &error)) {
            problem = g_strdup_printf ("%s: the perftest tables: %s", info->path, error->message);
            g_clear_error (&error);
            g_array_free (rows, TRUE);
            rows = NULL;
        }
        g_array_free (flows, TRUE);
    }
    if (format != REPORT_TEXT) {
        print_perftest_export (info, rows, problem, format);
    } else {
        fputs (text->str, stdout);
        if (rows != NULL && rows->len == 0 && info->complete)
            g_printerr ("weft report: %s: no perftest workload finished a size in this trace\n",
                        info->path);
    }
    g_string_free (text, TRUE);
    if (rows)
        g_array_free (rows, TRUE);
    return problem;
}

/* The one line on stderr that goes with exit status 1 (complete and no @problem: 0): why the
 * trace is damaged, or does not open, or the data set that did not read, or why the trace
 * is incomplete.  Every reason the reader gives is one line. */
static void
say_why (const WeftTraceInfo *info, const char *problem)
{
    if (info->damaged)
        g_printerr ("weft report: %s: damaged trace: %s\n", info->path, info->reason);
    else if (!info->readable || (problem == NULL && !info->complete))
        g_printerr ("weft report: %s: incomplete trace: %s\n", info->path, info->reason);
    else if (problem != NULL)
        g_printerr ("weft report: %s\n", problem);
}

/* --table: the rows of one data set; returns the exit status. */
static int
report_table (const WeftTraceInfo *info, const char *table, const char *columns,
              ReportFormat format)
{
    if (table == NULL) {
        g_printerr ("weft report: --columns needs --table\n");
        return REPORT_NOT_A_TRACE;
    }
    const WeftTraceRecord *rec = weft_export_record (table);
    if (rec == NULL) {
        g_autofree char *names = weft_export_record_names ();
        g_printerr ("weft report: --table %s: expected one of %s\n", table, names);
        return REPORT_NOT_A_TRACE;
    }
    char *unknown = NULL;
    const WeftTraceField **fields = weft_export_columns (rec, columns, &unknown);
    if (fields == NULL) {
        g_printerr ("weft report: --columns: %s has no column '%s' (see doc/hdf5-schema.md)\n",
                    rec->dataset, unknown);
        g_free (unknown);
        return REPORT_NOT_A_TRACE;
    }
    char *problem = NULL;
    GError *error = NULL;
    GArray *rows = NULL;
    if (!info->readable)
        problem = g_strdup (info->reason);
    else if ((rows = weft_export_read (rec, info->path, &error)) == NULL) {
        problem = g_strdup (error->message);
        g_clear_error (&error);
    }
    if (rows != NULL) {
        GString *out = g_string_new (NULL);
        weft_export_rows (out, rec, fields, rows->data, rows->len,
                          format == REPORT_JSON  ? WEFT_COMPARE_JSON
                          : format == REPORT_CSV ? WEFT_COMPARE_CSV
                                                 : WEFT_COMPARE_TEXT);
        fputs (out->str, stdout);
        g_string_free (out, TRUE);
        g_array_free (rows, TRUE);
    }
    g_free (fields);
    int status = info->complete && problem == NULL ? REPORT_COMPLETE : REPORT_INCOMPLETE;
    if (status != REPORT_COMPLETE)
        say_why (info, problem);
    g_free (problem);
    return status;
}

/* `weft report --help`: what each mode prints, and the exit status. */
static const char report_description[] =
    "Prints the experiment, seed, completion status (with the run's message: a\n"
    "failure's reason, or a hang's waiting flows), simulated and wall time, events,\n"
    "the answer to each workload's question (busbw of an nccl-tests sweep at its\n"
    "largest size and its time at the smallest; aggregate and per-flow throughput of\n"
    "a flow workload), finished flows, FCT p50/p99/max and slowdown p99 over the\n"
    "flows of flow workloads, and the drops summed over /ports.  When the trace has\n"
    "/paths (per-flow routing: ecmp or static), the max-min fair total over those\n"
    "paths (water-filling, each egress its link rate x the payload share of a full\n"
    "packet) and what those flows delivered.\n"
    "\n"
    "--flows SELECTOR adds the rates (bytes delivered x 8 over each flow's own time,\n"
    "to the end of the run if unfinished) of the flows it chooses, min, mean and\n"
    "max, and their Jain fairness index (sum x)^2 / (n sum x^2): a victim flow's\n"
    "rate, or how fairly flows share.  SELECTOR is comma-separated items: a flow id\n"
    "(17), a range (3-9), workload:NAME, or SRC>DST with node names or glob\n"
    "patterns (host3>host7, host*>host4).  An item that chooses no flow is bad\n"
    "usage (exit 2).\n"
    "\n"
    "--ports prints /ports instead, one line per port in the spirit of ibstat and\n"
    "perfquery -x: node name, port number, state and physical state (Active and\n"
    "LinkUp, or Down and Polling where a [fault.NAME] group took the link down),\n"
    "rate (at the end of the run: lower on a link a fault trained lower), link\n"
    "layer, then\n"
    "  PortXmitData PortRcvData  data in 4-byte words (bytes / 4, rounded down),\n"
    "                            as InfiniBand counts it\n"
    "  PortXmitPkts PortRcvPkts  packets\n"
    "  PortXmitWait              InfiniBand: time with data to send and no\n"
    "                            credits; RoCE with PFC: time the port's egress\n"
    "                            was paused, summed over priorities; else 0.  In\n"
    "                            picoseconds (InfiniBand counts\n"
    "                            implementation-specific ticks instead)\n"
    "  PortXmitDiscards          packets dropped at the port's egress: queue or\n"
    "                            shared buffer full, or the PFC watchdog's drops\n"
    "  SymbolErrorCounter, LinkDownedCounter, PortRcvErrors\n"
    "                            link faults of [fault.NAME] groups (doc/faults.md):\n"
    "                            a link going Down, and packets a bit-error link\n"
    "                            corrupted (one symbol error and one receive\n"
    "                            error each); 0 without faults\n"
    "  LosslessDrops             weft's own: packets dropped at the port's ingress\n"
    "                            on a lossless fabric.  InfiniBand: for lack of\n"
    "                            buffer, which should never happen (a bug);\n"
    "                            RoCE: above PFC xoff + headroom ([pfc] headroom\n"
    "                            too small)\n"
    "\"-\" marks a value the trace did not record (schema version 1 traces have no\n"
    "state, rate, link layer or the counters from PortXmitWait on but\n"
    "PortXmitDiscards).  With --format json, one object with a \"ports\" array; it\n"
    "also has tx_bytes and rx_bytes, and null for what was not recorded; --format csv\n"
    "prints the same fields, one line per port (empty for null).  /ports also holds\n"
    "each port's busy time, deepest queue and ECN marks, which --ports does not\n"
    "print (analysis/weft_trace.py reads them).\n"
    "\n"
    "--perftest prints, for each ib_write_bw / ib_write_lat workload, perftest's\n"
    "output as weft run printed it, recomputed from /flows and the experiment the\n"
    "trace stores.  --format csv|json: one row per size (workload, test, bytes,\n"
    "iterations, bw_peak_gbps, bw_avg_gbps, msg_rate_mpps for ib_write_bw;\n"
    "t_min_us, t_max_us, t_typical_us, t_avg_us, t_stdev_us, p99_us, p999_us for\n"
    "ib_write_lat; the other test's columns empty or null), unrounded.\n"
    "\n"
    "--nccl prints, for each workload with rows in /collectives (nccl-test\n"
    "workloads, and the collectives of training workloads; in order of first\n"
    "appearance), the output nccl-tests (all_reduce_perf, ...) would have printed,\n"
    "character for character: time is the mean over the timed iterations, algbw =\n"
    "size / time, busbw = algbw x the op's factor (all_reduce 2(n-1)/n; all_gather,\n"
    "reduce_scatter, alltoall (n-1)/n; broadcast, reduce, sendrecv 1).  From the\n"
    "rows: minBytes and maxBytes; the step, a factor when each size is at least\n"
    "twice the one before, else in bytes; the iterations and warm-ups of the\n"
    "smallest size.  Synthetic, since a trace has none: Pid 10000 + rank, DGX H100\n"
    "bus ids; rank r is listed as the r-th GPU node of the trace (the rank-to-GPU\n"
    "mapping is not recorded), on the host its name starts with (dgx-1/gpu3: dgx-1,\n"
    "device 3; a name without a number at its end: the rank's place among the\n"
    "ranks of its host).  With several workloads each table is preceded by\n"
    "\"# weft workload NAME\".  A trace older than schema 3 has no /collectives and\n"
    "prints nothing.  --format json prints one object whose \"rows\" hold one row\n"
    "per workload, op, size and placement (workload, op, size_bytes, count, type,\n"
    "redop, root, placement, time_us, algbw_gbs, busbw_gbs, unrounded); --format\n"
    "csv the same rows, one line each.\n"
    "\n"
    "--table DATA_SET prints every row of one data set of the trace (flows, links,\n"
    "ports, collectives, topology/nodes, topology/links, paths, pfc, dcqcn,\n"
    "buffers), its columns the record's fields as doc/hdf5-schema.md lists them,\n"
    "or those --columns names, in that order; the same rows and values in text,\n"
    "CSV and JSON (doubles to 17 digits).  An unknown data set or column is bad\n"
    "usage (exit 2).\n"
    "\n"
    "--format json prints the summary as one object, --format csv as field,value\n"
    "lines with the same fields (FCT in ps, empty for null); --json is --format\n"
    "json.  CSV is RFC 4180 (CRLF line ends, fields quoted when they need it).\n"
    "\n"
    "A damaged trace (status DAMAGED) lacks a data set or /meta attribute that\n"
    "every trace of its schema has, or holds one that is not what the schema says:\n"
    "another type or layout, or more rows than the file stores.  The reader checks\n"
    "all of this before reading (doc/hdf5-schema.md, \"Damaged and hostile files\"),\n"
    "prints what still reads, and names the first problem.\n"
    "\n"
    "Exit status (with one line on stderr saying why, unless 0):\n"
    "  0  the trace is complete: closed by weft after the whole run (status done,\n"
    "     duration, hang or workload-failed: a hung run's trace is complete data\n"
    "     about the hang)\n"
    "  1  the trace is incomplete: the run was interrupted or failed (the trace\n"
    "     stops there), or the file still says \"running\", or is truncated or\n"
    "     damaged, or a data set it needs does not read\n"
    "  2  bad usage, or the file is missing, not HDF5 or not a weft trace\n";

int
weft_cli_report (int argc, char **argv)
{
    gboolean json = FALSE, ports = FALSE, nccl = FALSE, perftest = FALSE;
    char **files = NULL, *format_name = NULL, *table = NULL, *columns = NULL, *select = NULL;
    GOptionEntry entries[] = {
        { "flows", 0, 0, G_OPTION_ARG_STRING, &select,
          "With the summary: the rates of these flows and their Jain index (ids, LOW-HIGH, "
          "workload:NAME or SRC>DST, comma-separated)",
          "SELECTOR" },
        { "table", 0, 0, G_OPTION_ARG_STRING, &table,
          "Print the rows of a data set (flows, links, ports, collectives, ...) instead of the "
          "summary",
          "DATA_SET" },
        { "columns", 0, 0, G_OPTION_ARG_STRING, &columns,
          "With --table: the fields to print, comma-separated (default: all)", "A,B,..." },
        { "format", 0, 0, G_OPTION_ARG_STRING, &format_name,
          "Output format: text (default), csv, json (same rows in each)", "text|csv|json" },
        { "json", 0, 0, G_OPTION_ARG_NONE, &json, "The same as --format json", NULL },
        { "ports", 0, 0, G_OPTION_ARG_NONE, &ports,
          "Print one line per port (state, rate, perfquery-style counters) instead of the summary",
          NULL },
        { "nccl", 0, 0, G_OPTION_ARG_NONE, &nccl,
          "Print the nccl-tests output of each workload with collectives, from /collectives",
          NULL },
        { "perftest", 0, 0, G_OPTION_ARG_NONE, &perftest,
          "Print the ib_write_bw / ib_write_lat output of each perftest workload, from /flows",
          NULL },
        { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, NULL },
        { NULL, 0, 0, 0, NULL, NULL, NULL },
    };
    g_set_prgname ("weft report");
    GOptionContext *ctx = g_option_context_new (
        "[--ports | --nccl | --perftest | --flows SELECTOR] [--format text|csv|json] TRACE.h5");
    g_option_context_set_summary (ctx, "Summarise one weft trace file (HDF5).");
    g_option_context_add_main_entries (ctx, entries, NULL);
    g_option_context_set_description (ctx, report_description);
    GError *error = NULL;
    gboolean parsed = g_option_context_parse (ctx, &argc, &argv, &error);
    g_option_context_free (ctx);
    if (!parsed) {
        g_printerr ("weft report: %s\n", error->message);
        g_error_free (error);
        g_strfreev (files);
        return REPORT_NOT_A_TRACE;
    }
    ReportFormat format = json ? REPORT_JSON : REPORT_TEXT;
    if (format_name != NULL) {
        ReportFormat named = strcmp (format_name, "text") == 0   ? REPORT_TEXT
                             : strcmp (format_name, "csv") == 0  ? REPORT_CSV
                             : strcmp (format_name, "json") == 0 ? REPORT_JSON
                                                                 : (ReportFormat) -1;
        if ((int) named < 0 || (json && named != REPORT_JSON)) {
            g_printerr ("weft report: --format %s: expected text, csv or json%s\n", format_name,
                        (int) named < 0 ? "" : " (and --json is --format json)");
            g_free (format_name);
            g_strfreev (files);
            return REPORT_NOT_A_TRACE;
        }
        format = named;
        g_free (format_name);
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
    if ((nccl + ports + perftest + (table != NULL) + (select != NULL)) > 1) {
        g_printerr ("weft report: --nccl, --ports, --perftest, --table and --flows do not "
                    "combine\n");
        g_free (select);
        weft_trace_info_free (info);
        g_free (table);
        g_free (columns);
        return REPORT_NOT_A_TRACE;
    }
    if (table || columns) {
        int status = report_table (info, table, columns, format);
        weft_trace_info_free (info);
        g_free (table);
        g_free (columns);
        return status;
    }
    if (nccl) {
        char *problem = report_nccl (info, format);
        int status = info->complete && problem == NULL ? REPORT_COMPLETE : REPORT_INCOMPLETE;
        if (status != REPORT_COMPLETE)
            say_why (info, problem);
        g_free (problem);
        weft_trace_info_free (info);
        return status;
    }
    if (perftest) {
        char *problem = report_perftest (info, format);
        int status = info->complete && problem == NULL ? REPORT_COMPLETE : REPORT_INCOMPLETE;
        if (status != REPORT_COMPLETE)
            say_why (info, problem);
        g_free (problem);
        weft_trace_info_free (info);
        return status;
    }
    if (ports) {
        char *problem = report_ports (info, format);
        int status = info->complete && problem == NULL ? REPORT_COMPLETE : REPORT_INCOMPLETE;
        if (status != REPORT_COMPLETE)
            say_why (info, problem);
        g_free (problem);
        weft_trace_info_free (info);
        return status;
    }
    Summary s = { .selector = select };
    if (info->readable)
        summarise (&s, info);
    if (select && s.sel_error == NULL && s.n_selected == 0)
        g_set_error (&s.sel_error, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_VALUE,
                     "--flows %s: the trace has no flows to choose from", select);
    if (s.sel_error != NULL) {
        g_printerr ("weft report: %s\n", s.sel_error->message);
        g_error_free (s.sel_error);
        g_free (select);
        g_free (s.problem);
        g_free (s.mechanisms);
        g_free (s.headline);
        weft_trace_info_free (info);
        return REPORT_NOT_A_TRACE;
    }
    if (format != REPORT_TEXT)
        print_export (info, &s, format);
    else
        print_text (info, &s);
    int status = info->complete && s.problem == NULL ? REPORT_COMPLETE : REPORT_INCOMPLETE;
    if (status != REPORT_COMPLETE)
        say_why (info, s.problem);
    g_free (select);
    g_free (s.problem);
    g_free (s.mechanisms);
    g_free (s.headline);
    weft_trace_info_free (info);
    return status;
}
