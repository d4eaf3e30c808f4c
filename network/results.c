/* network/results.c - the text `weft run` prints beyond its summary (network/results.h).
 *
 * The nccl-tests and perftest formatters live in analysis/, which knows the trace schema only:
 * this file hands them /collectives rows and perftest figures, the same records a trace holds.
 */
#include "config.h"
#define G_LOG_DOMAIN "weft-network"
#include "network/results.h"

#include <string.h>

#include "analysis/headline.h"
#include "analysis/nccl_table.h"
#include "analysis/perftest_table.h"
#include "sim/units.h"
#include "workloads/workload.h"

double
weft_network_progress (const WeftNetwork *net)
{
    const WeftSim *sim = net->sim;
    if (sim->duration)
        return (double) sim->now / (double) sim->duration;
    return net->tp.n_flows ? (double) net->tp.flows_done / net->tp.n_flows : 0;
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

/* One perftest workload's table from its figures. */
static void
print_perftest (const WeftNetwork *net, const WeftPerftestSpec *spec, GArray *res, GString *out)
{
    WeftPerftestTableInfo info;
    weft_perftest_table_info_init (&info, spec->latency);
    const char *dev = weft_graph_node (net->graph, spec->device)->name;
    info.device = strrchr (dev, '/') ? strrchr (dev, '/') + 1 : dev;
    info.n_qps = (int) spec->qps;
    info.tx_depth = (int) spec->tx_depth;
    info.mtu_bytes = (guint) net->fabric.mtu;
    if (net->fabric.kind != WEFT_FABRIC_INFINIBAND) {
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
        print_perftest (net, &spec, res, out);
        for (guint i = 0; i < res->len; i++)
            weft_workload_perftest_result_clear (&g_array_index (res, WeftPerftestResult, i));
    }
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
