/* network/results.c - the text `weft run` prints beyond its summary (network/results.h).
 *
 * The nccl-tests and perftest formatters live in analysis/, which knows the trace schema only:
 * this file hands them /collectives rows and perftest figures, the same records a trace holds.
 */
#include "config.h"
#define G_LOG_DOMAIN "weft-network"
#include "network/results.h"

#include "analysis/nccl_table.h"
#include "workloads/workload.h"

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
