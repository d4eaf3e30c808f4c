/* cli/report.c - `weft report [--ports | --nccl] [--json] TRACE.h5`: a short summary of one
 * trace file, its /ports one line per port, or its nccl-tests tables from /collectives.
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
#include <stdio.h>
#include <string.h>

#include "analysis/headline.h"
#include "analysis/nccl_table.h"
#include "analysis/trace_reader.h"
#include "cli/cli.h"
#include "network/network.h"

enum { REPORT_COMPLETE = 0, REPORT_INCOMPLETE = 1, REPORT_NOT_A_TRACE = 2 };

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
    g_string_append_printf (o, ", \"complete\": %s, \"damaged\": %s, \"reason\": ",
                            info->complete ? "true" : "false", info->damaged ? "true" : "false");
    json_string (o, info->reason);
    g_string_append (o, ", \"message\": ");
    json_string (o, info->message);
    g_string_append_printf (o,
                            ", \"sim_time_ps\": %" G_GUINT64_FORMAT ", \"wall_time_s\": %.6f"
                            ", \"events\": %" G_GUINT64_FORMAT,
                            info->sim_time_ps, info->wall_time_s, info->events);
    if (s->have_flows) {
        g_string_append_printf (o,
                                ", \"flows_finished\": %" G_GUINT64_FORMAT
                                ", \"flows_total\": %" G_GUINT64_FORMAT
                                ", \"fct_flows\": %" G_GUINT64_FORMAT,
                                s->flows_finished, s->flows_total, s->fct_flows);
        if (s->fct_flows > 0)
            g_string_append_printf (o,
                                    ", \"fct_p50_ps\": %.1f, \"fct_p99_ps\": %.1f"
                                    ", \"fct_max_ps\": %.1f, \"slowdown_p99\": %.6g",
                                    s->fct_p50_ps, s->fct_p99_ps, s->fct_max_ps, s->slowdown_p99);
        else
            g_string_append (o, ", \"fct_p50_ps\": null, \"fct_p99_ps\": null"
                                ", \"fct_max_ps\": null, \"slowdown_p99\": null");
    }
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

static void
print_ports_json (const WeftTraceInfo *info, GArray *ports, GArray *nodes, const char *problem)
{
    gboolean v2 = info->schema_version >= 2;
    GString *o = g_string_new ("{\"trace\": ");
    json_string (o, info->path);
    g_string_append_printf (o, ", \"schema_version\": %u, \"status\": ", info->schema_version);
    json_string (o, info->status_text);
    g_string_append_printf (o, ", \"complete\": %s, \"damaged\": %s, \"reason\": ",
                            info->complete ? "true" : "false", info->damaged ? "true" : "false");
    json_string (o, info->reason);
    g_string_append (o, ", \"units\": {\"PortXmitData\": \"4-byte words\", \"PortRcvData\": "
                        "\"4-byte words\", \"PortXmitWait\": \"ps\", \"rate_bps\": \"bit/s\"}"
                        ", \"ports\": ");
    if (ports == NULL)
        g_string_append (o, "null");
    else {
        GHashTable *rows = node_rows (nodes);
        g_string_append_c (o, '[');
        for (guint i = 0; i < ports->len; i++) {
            const WeftTracePort *p = &g_array_index (ports, WeftTracePort, i);
            char *name = node_name (nodes, rows, p->node);
            char *layer = g_strndup (p->link_layer, WEFT_TRACE_KIND_LEN);
            Counter c[N_COUNTERS];
            port_counters (p, v2, c);
            g_string_append_printf (o, "%s{\"node\": %u, \"node_name\": ", i ? ", " : "", p->node);
            json_string (o, name);
            g_string_append_printf (o, ", \"port\": %u, \"link\": %u", p->port, p->link);
            if (v2) {
                g_string_append_printf (o, ", \"state\": %u, \"state_name\": ", p->state);
                json_string (o, port_state_name (p->state));
                g_string_append_printf (
                    o, ", \"phys_state\": %u, \"phys_state_name\": ", p->phys_state);
                json_string (o, phys_state_name (p->phys_state));
                g_string_append_printf (
                    o, ", \"rate_bps\": %" G_GUINT64_FORMAT ", \"link_layer\": ", p->rate_bps);
                json_string (o, layer);
            } else
                g_string_append (o, ", \"state\": null, \"state_name\": null, \"phys_state\": "
                                    "null, \"phys_state_name\": null, \"rate_bps\": null, "
                                    "\"link_layer\": null");
            g_string_append_printf (
                o, ", \"tx_bytes\": %" G_GUINT64_FORMAT ", \"rx_bytes\": %" G_GUINT64_FORMAT,
                p->tx_bytes, p->rx_bytes);
            for (guint k = 0; k < N_COUNTERS; k++)
                if (c[k].recorded)
                    g_string_append_printf (o, ", \"%s\": %" G_GUINT64_FORMAT, c[k].name,
                                            c[k].value);
                else
                    g_string_append_printf (o, ", \"%s\": null", c[k].name);
            g_string_append_c (o, '}');
            g_free (name);
            g_free (layer);
        }
        g_string_append_c (o, ']');
        if (rows != NULL)
            g_hash_table_destroy (rows);
    }
    g_string_append (o, ", \"problem\": ");
    json_string (o, problem);
    g_string_append (o, "}\n");
    fputs (o->str, stdout);
    g_string_free (o, TRUE);
}

/* --ports: returns the problem line if /ports (or /topology/nodes) did not read. */
static char *
report_ports (const WeftTraceInfo *info, gboolean json)
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
    if (json)
        print_ports_json (info, ports, nodes, problem);
    else if (ports != NULL)
        print_ports_text (info, ports, nodes);
    if (ports != NULL)
        g_array_free (ports, TRUE);
    if (nodes != NULL)
        g_array_free (nodes, TRUE);
    return problem;
}

/* --nccl ---------------------------------------------------------------------------------- */

/* --nccl: one nccl-tests table per workload, in order of first appearance; returns the
 * problem line if /collectives did not read. */
static char *
report_nccl (const WeftTraceInfo *info)
{
    GError *error = NULL;
    if (!info->readable)
        return g_strdup (info->reason);
    GArray *rows = weft_trace_reader_collectives (info->path, &error);
    if (rows == NULL) {
        char *problem = g_strdup (error->message);
        g_clear_error (&error);
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
            if (nodes != NULL)
                g_array_free (nodes, TRUE);
            g_array_free (rows, TRUE);
            return problem;
        }
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

/* `weft report --help`: what each mode prints, and the exit status. */
static const char report_description[] =
    "Prints the experiment, seed, completion status (with the run's message: a\n"
    "failure's reason, or a hang's waiting flows), simulated and wall time, events,\n"
    "the answer to each workload's question (busbw of an nccl-tests sweep at its\n"
    "largest size and its time at the smallest; aggregate and per-flow throughput of\n"
    "a flow workload), finished flows, FCT p50/p99/max and slowdown p99 over the\n"
    "flows of flow workloads, and the drops summed over /ports.\n"
    "\n"
    "--ports prints /ports instead, one line per port in the spirit of ibstat and\n"
    "perfquery -x: node name, port number, state and physical state (Active and\n"
    "LinkUp: weft takes no port down yet), rate, link layer, then\n"
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
    "                            always 0: they count link faults, which weft\n"
    "                            does not inject yet (an experiment with a\n"
    "                            [fault.NAME] group is refused)\n"
    "  LosslessDrops             weft's own: packets dropped at the port's ingress\n"
    "                            on a lossless fabric.  InfiniBand: for lack of\n"
    "                            buffer, which should never happen (a bug);\n"
    "                            RoCE: above PFC xoff + headroom ([pfc] headroom\n"
    "                            too small)\n"
    "\"-\" marks a value the trace did not record (schema version 1 traces have no\n"
    "state, rate, link layer or the counters from PortXmitWait on but\n"
    "PortXmitDiscards).  With --json, one object with a \"ports\" array; it also has\n"
    "tx_bytes and rx_bytes, and null for what was not recorded.  /ports also holds\n"
    "each port's busy time, deepest queue and ECN marks, which --ports does not\n"
    "print (analysis/weft_trace.py reads them).\n"
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
    "prints nothing.  --json does not apply.\n"
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
    gboolean json = FALSE, ports = FALSE, nccl = FALSE;
    char **files = NULL;
    GOptionEntry entries[] = {
        { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print one JSON object instead of text", NULL },
        { "ports", 0, 0, G_OPTION_ARG_NONE, &ports,
          "Print one line per port (state, rate, perfquery-style counters) instead of the summary",
          NULL },
        { "nccl", 0, 0, G_OPTION_ARG_NONE, &nccl,
          "Print the nccl-tests output of each workload with collectives, from /collectives",
          NULL },
        { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, NULL },
        { NULL, 0, 0, 0, NULL, NULL, NULL },
    };
    g_set_prgname ("weft report");
    GOptionContext *ctx = g_option_context_new ("[--ports | --nccl] TRACE.h5");
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
    if (nccl && ports) {
        g_printerr ("weft report: --nccl and --ports do not combine\n");
        weft_trace_info_free (info);
        return REPORT_NOT_A_TRACE;
    }
    if (nccl) {
        char *problem = report_nccl (info);
        int status = info->complete && problem == NULL ? REPORT_COMPLETE : REPORT_INCOMPLETE;
        if (status != REPORT_COMPLETE)
            say_why (info, problem);
        g_free (problem);
        weft_trace_info_free (info);
        return status;
    }
    if (ports) {
        char *problem = report_ports (info, json);
        int status = info->complete && problem == NULL ? REPORT_COMPLETE : REPORT_INCOMPLETE;
        if (status != REPORT_COMPLETE)
            say_why (info, problem);
        g_free (problem);
        weft_trace_info_free (info);
        return status;
    }
    Summary s = { 0 };
    if (info->readable)
        summarise (&s, info);
    if (json)
        print_json (info, &s);
    else
        print_text (info, &s);
    int status = info->complete && s.problem == NULL ? REPORT_COMPLETE : REPORT_INCOMPLETE;
    if (status != REPORT_COMPLETE)
        say_why (info, s.problem);
    g_free (s.problem);
    g_free (s.mechanisms);
    g_free (s.headline);
    weft_trace_info_free (info);
    return status;
}
