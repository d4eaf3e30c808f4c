/* network/results.c - the text `weft run` prints beyond its summary (network/results.h).
 *
 * The nccl-tests and perftest formatters live in analysis/, which knows the trace schema only:
 * this file hands them /collectives rows and perftest figures, the same records a trace holds.
 */
#include "config.h"
#define G_LOG_DOMAIN "weft-network"
#include "network/results.h"

#include <math.h>
#include <string.h>

#include "analysis/headline.h"
#include "analysis/nccl_table.h"
#include "analysis/perftest_table.h"
#include "sim/units.h"
#include "topologies/topology.h"
#include "workloads/workload.h"

double
weft_network_progress (const WeftNetwork *net)
{
    const WeftSim *sim = net->sim;
    if (sim->duration)
        return (double) sim->now / (double) sim->duration;
    guint64 n = net->tp.n_flows - net->tp.flows_unused; /* flows of layouts not taken never run */
    return n ? (double) net->tp.flows_done / (double) n : 0;
}

guint
weft_network_n_flows (const WeftNetwork *net)
{
    return net->tp.n_flows;
}

static const char *
workload_name (const WeftNetwork *net, guint group)
{
    return net->workload_names->pdata[group];
}

void
weft_network_print_nccl_tables (const WeftNetwork *net, GString *out)
{
    for (guint g = 0; g < net->workload_names->len; g++) {
        g_autoptr (GArray) rows = g_array_new (FALSE, FALSE, sizeof (WeftTraceCollective));
        const WeftCollRun *first = NULL;
        for (guint c = 0; c < net->tp.n_colls; c++) {
            const WeftCollRun *run = &net->tp.colls[c];
            if (run->spec.group != g || !run->finished || run->spec.role != WEFT_COLL_ROLE_BENCH)
                continue;
            if (!first)
                first = run;
            WeftTraceCollective row;
            weft_network_collective_row (net, c, &row);
            g_array_append_val (rows, row);
        }
        if (!first)
            continue;
        /* the nodes the collective's ranks ran on, in rank order */
        guint n = first->spec.n_ranks;
        const char **names = g_new (const char *, n);
        for (guint i = 0; i < n; i++) {
            guint32 node = g_array_index (net->coll_ranks, guint32, first->spec.rank_first + i);
            names[i] = weft_graph_node (net->graph, node)->name;
        }
        const WeftTraceCollective *r = (const WeftTraceCollective *) rows->data;
        WeftNcclTableInfo *info = weft_nccl_table_info_new (r, rows->len, names, n);
        g_string_append_printf (out, "# [workload.%s] %s\n", workload_name (net, g),
                                weft_nccl_table_binary (r[0].op));
        weft_nccl_table_print (out, NULL, r, rows->len, info);
        weft_nccl_table_info_free (info);
        g_free (names);
    }
}

/* One perftest workload's table from its figures, on the fabric of @graph (kind @fabric_kind,
 * MTU @mtu); appended as text to @out and, when @rows is not NULL, as rows to @rows. */
static void
print_perftest (const WeftGraph *graph, int fabric_kind, guint64 mtu, const char *workload,
                const WeftPerftestSpec *spec, GArray *res, GString *out, GArray *rows_out)
{
    WeftPerftestTableInfo info;
    weft_perftest_table_info_init (&info, spec->latency);
    const char *dev = weft_graph_node (graph, spec->device)->name;
    info.device = strrchr (dev, '/') ? strrchr (dev, '/') + 1 : dev;
    info.n_qps = (int) spec->qps;
    info.tx_depth = (int) spec->tx_depth;
    info.mtu_bytes = (guint) mtu;
    if (fabric_kind != WEFT_FABRIC_INFINIBAND) {
        info.link_type = "Ethernet";
        info.gid_index = 3; /* RoCE v2 */
    }
    g_autoptr (GArray) rows = g_array_new (FALSE, TRUE,
                                           spec->latency ? sizeof (WeftPerftestTableLatRow)
                                                         : sizeof (WeftPerftestTableBwRow));
    for (guint i = 0; i < res->len; i++) {
        const WeftPerftestResult *r = &g_array_index (res, WeftPerftestResult, i);
        WeftPerftestTableBwRow bw = { r->bytes, r->iterations, r->peak_bps, r->avg_bps,
                                      r->msg_rate_pps };
        WeftPerftestTableLatRow lat = { r->bytes, r->iterations, r->samples_ps, r->n_samples };
        g_array_append_vals (rows, spec->latency ? (gpointer) &lat : (gpointer) &bw, 1);
        if (rows_out == NULL)
            continue;
        WeftPerftestTableRow row = { .workload = g_strdup (workload),
                                     .test = spec->latency ? "ib_write_lat" : "ib_write_bw",
                                     .bytes = r->bytes,
                                     .iterations = r->iterations,
                                     .bw_peak_gbps = NAN,
                                     .bw_avg_gbps = NAN,
                                     .msg_rate_mpps = NAN,
                                     .lat = { NAN, NAN, NAN, NAN, NAN, NAN, NAN } };
        if (spec->latency) {
            weft_perftest_table_lat_stats (&lat, &row.lat);
        } else {
            row.bw_peak_gbps = r->peak_bps / 1e9;
            row.bw_avg_gbps = r->avg_bps / 1e9;
            row.msg_rate_mpps = r->msg_rate_pps / 1e6;
        }
        g_array_append_val (rows_out, row);
    }
    if (spec->latency)
        weft_perftest_table_print_lat (out, (WeftPerftestTableLatRow *) rows->data, rows->len,
                                       &info);
    else
        weft_perftest_table_print_bw (out, (WeftPerftestTableBwRow *) rows->data, rows->len, &info);
}

void
weft_network_print_perftest_tables (const WeftNetwork *net, const WeftExperiment *exp, GString *out)
{
    for (guint g = 0; g < net->workload_names->len; g++) {
        WeftPerftestSpec spec;
        g_autoptr (GArray) res = g_array_new (FALSE, FALSE, sizeof (WeftPerftestResult));
        if (!weft_network_perftest (net, exp, g, &spec, res) || res->len == 0)
            continue;
        g_string_append_printf (out, "# [workload.%s] %s\n", workload_name (net, g),
                                spec.latency ? "ib_write_lat" : "ib_write_bw");
        print_perftest (net->graph, net->fabric.kind, net->fabric.mtu, workload_name (net, g),
                        &spec, res, out, NULL);
        for (guint i = 0; i < res->len; i++)
            weft_workload_perftest_result_clear (&g_array_index (res, WeftPerftestResult, i));
    }
}

/* The flows of [workload.@name] in @flows (the trace's /flows rows, any order), by id: the
 * order they were generated in, which weft_workload_perftest_measure() expects. */
static gint
by_id (gconstpointer a, gconstpointer b)
{
    const WeftTraceFlow *x = *(const WeftTraceFlow *const *) a,
                        *y = *(const WeftTraceFlow *const *) b;
    return x->id < y->id ? -1 : x->id > y->id;
}

gboolean
weft_network_perftest_tables_from_trace (const char *experiment_text, const WeftTraceFlow *flows,
                                         guint n_flows, GString *out, GArray *rows, GError **error)
{
    g_return_val_if_fail (experiment_text != NULL && out != NULL, FALSE);
    g_autoptr (WeftExperiment) exp =
        weft_experiment_new_from_data (experiment_text, "trace", error);
    if (!exp)
        return FALSE;
    g_auto (GStrv) groups = weft_experiment_groups_with_prefix (exp, "workload");
    WeftFabric fabric = { 0 };
    WeftGraph *graph = NULL;
    gboolean ok = TRUE;
    for (guint i = 0; ok && groups && groups[i]; i++) {
        g_autofree char *kind =
            g_key_file_get_string (weft_experiment_keyfile (exp), groups[i], "kind", NULL);
        if (g_strcmp0 (kind, "ib_write_bw") != 0 && g_strcmp0 (kind, "ib_write_lat") != 0)
            continue;
        if (graph == NULL) {
            /* the fabric only when a perftest workload needs its node names and MTU */
            ok = weft_fabric_read (&fabric, exp, error) &&
                 (graph = weft_topology_generate (exp, error)) != NULL;
            if (!ok)
                break;
        }
        WeftPerftestSpec spec;
        if (!(ok = weft_workload_perftest_spec (exp, graph, groups[i], &spec, error)))
            break;
        const char *name = groups[i] + strlen ("workload.");
        g_autoptr (GPtrArray) mine = g_ptr_array_new ();
        for (guint f = 0; f < n_flows; f++)
            if (strncmp (flows[f].workload, name, sizeof flows[f].workload - 1) == 0)
                g_ptr_array_add (mine, (gpointer) &flows[f]);
        g_ptr_array_sort (mine, by_id);
        guint64 n = weft_workload_perftest_n_flows (&spec);
        g_autofree weft_time_t *start = g_new0 (weft_time_t, MAX (n, 1));
        g_autofree weft_time_t *finish = g_new0 (weft_time_t, MAX (n, 1));
        g_autofree gboolean *done = g_new0 (gboolean, MAX (n, 1));
        for (guint k = 0; k < mine->len && k < n; k++) {
            const WeftTraceFlow *f = mine->pdata[k];
            start[k] = f->start_ps;
            finish[k] = f->finish_ps;
            done[k] = f->finished;
        }
        g_autoptr (GArray) res = g_array_new (FALSE, FALSE, sizeof (WeftPerftestResult));
        for (guint s = 0; s < spec.n_sizes; s++) {
            WeftPerftestResult r = { 0 };
            if (!weft_workload_perftest_measure (&spec, s, start, finish, done, &r))
                break; /* perftest stops at the first size that does not complete */
            g_array_append_val (res, r);
        }
        if (res->len > 0) {
            g_string_append_printf (out, "# [%s] %s\n", groups[i],
                                    spec.latency ? "ib_write_lat" : "ib_write_bw");
            print_perftest (graph, fabric.kind, fabric.mtu, name, &spec, res, out, rows);
        }
        for (guint k = 0; k < res->len; k++)
            weft_workload_perftest_result_clear (&g_array_index (res, WeftPerftestResult, k));
    }
    if (graph)
        weft_graph_free (graph);
    weft_fabric_clear (&fabric);
    return ok;
}

void
weft_network_print_training_steps (const WeftNetwork *net, GString *out)
{
    for (guint g = 0; g < net->workload_names->len; g++) {
        g_autoptr (GArray) steps = g_array_new (FALSE, FALSE, sizeof (WeftTrainStep));
        weft_network_training_steps (net, g, steps);
        if (steps->len == 0)
            continue;
        g_string_append_printf (out, "[workload.%s] training steps\n", workload_name (net, g));
        g_string_append_printf (out, "  %6s %14s %14s %14s\n", "step", "time (us)", "compute (us)",
                                "exposed (us)");
        double sum = 0, exposed = 0;
        for (guint i = 0; i < steps->len; i++) {
            const WeftTrainStep *st = &g_array_index (steps, WeftTrainStep, i);
            g_string_append_printf (out, "  %6u %14.3f %14.3f %14.3f\n", st->step,
                                    st->time_ps / 1e6, st->compute_ps / 1e6, st->exposed_ps / 1e6);
            sum += st->time_ps / 1e6;
            exposed += st->exposed_ps / 1e6;
        }
        g_string_append_printf (out, "  %6s %14.3f %14s %14.3f\n", "mean", sum / steps->len, "",
                                exposed / steps->len);
    }
}

void
weft_network_print_headline (const WeftNetwork *net, const WeftExperiment *exp, GString *out)
{
    /* Benchmark collectives: bus bandwidth per op. */
    g_autoptr (GArray) rows = g_array_new (FALSE, FALSE, sizeof (WeftTraceCollective));
    for (guint c = 0; c < net->tp.n_colls; c++)
        if (net->tp.colls[c].finished && net->tp.colls[c].spec.role == WEFT_COLL_ROLE_BENCH) {
            WeftTraceCollective row;
            weft_network_collective_row (net, c, &row);
            g_array_append_val (rows, row);
        }
    weft_headline_collectives (out, (const WeftTraceCollective *) rows->data, rows->len, NULL);
    for (guint g = 0; g < net->workload_names->len; g++) {
        /* Training: step time and the communication compute did not hide. */
        g_autoptr (GArray) steps = g_array_new (FALSE, FALSE, sizeof (WeftTrainStep));
        weft_network_training_steps (net, g, steps);
        if (steps->len > 0) {
            double time = 0, exposed = 0;
            for (guint i = 0; i < steps->len; i++) {
                time += (double) g_array_index (steps, WeftTrainStep, i).time_ps;
                exposed += (double) g_array_index (steps, WeftTrainStep, i).exposed_ps;
            }
            g_string_append_printf (out,
                                    "  step time    [%s] %.3f us mean over %u step%s, exposed "
                                    "communication %.3f us (%.1f %%)\n",
                                    workload_name (net, g), time / steps->len / 1e6, steps->len,
                                    steps->len == 1 ? "" : "s", exposed / steps->len / 1e6,
                                    time > 0 ? 100 * exposed / time : 0.0);
        }
        /* perftest: bandwidth at the largest size, or latency at the smallest. */
        WeftPerftestSpec spec;
        g_autoptr (GArray) res = g_array_new (FALSE, FALSE, sizeof (WeftPerftestResult));
        if (exp && weft_network_perftest (net, exp, g, &spec, res) && res->len > 0) {
            if (spec.latency) {
                WeftPerftestResult *r = &g_array_index (res, WeftPerftestResult, 0);
                guint64 lo = G_MAXUINT64;
                for (gsize i = 0; i < r->n_samples; i++)
                    lo = MIN (lo, r->samples_ps[i]);
                g_autofree char *size = weft_units_format_bytes (r->bytes);
                g_string_append_printf (out, "  latency      [%s] t_min %.2f us at %s\n",
                                        workload_name (net, g), lo / 1e6, size);
            } else {
                WeftPerftestResult *r = &g_array_index (res, WeftPerftestResult, res->len - 1);
                g_autofree char *size = weft_units_format_bytes (r->bytes);
                g_string_append_printf (out,
                                        "  bandwidth    [%s] BW average %.2f Gb/s at %s, "
                                        "%.3f Mpps\n",
                                        workload_name (net, g), r->avg_bps / 1e9, size,
                                        r->msg_rate_pps / 1e6);
            }
            for (guint i = 0; i < res->len; i++)
                weft_workload_perftest_result_clear (&g_array_index (res, WeftPerftestResult, i));
        }
        /* Flow workloads: what the fabric carried, and how evenly. */
        if (net->flow_groups[g]) {
            g_autoptr (GArray) flows = g_array_new (FALSE, TRUE, sizeof (WeftTraceFlow));
            for (guint i = 0; i < net->tp.n_flows; i++) {
                const WeftFlow *f = &net->tp.flows[i];
                if (f->spec.group != g || !f->started)
                    continue;
                WeftTraceFlow row = { .size_bytes = f->spec.size_bytes,
                                      .start_ps = f->start_ps,
                                      .finish_ps = f->finished ? f->finish_ps : 0,
                                      .fct_ps = f->finished ? f->finish_ps - f->start_ps : 0,
                                      .bytes_delivered = f->delivered,
                                      .finished = f->finished };
                g_strlcpy (row.workload, workload_name (net, g), sizeof row.workload);
                g_array_append_val (flows, row);
            }
            weft_headline_flows (out, workload_name (net, g), (const WeftTraceFlow *) flows->data,
                                 flows->len, net->sim->now);
        }
    }
}
