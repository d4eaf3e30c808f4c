/* fuzz/mkseeds.c - the writer's share of the trace reader's seed corpus: small traces.
 *
 * Usage: mkseeds DIR      (fuzz/mkseeds.sh runs it, then derives more with h5py)
 * Writes DIR/small.h5 (a complete trace, a row or two in every data set), DIR/empty.h5 (a
 * complete trace with no rows) and DIR/running.h5 (the rows of small.h5 flushed, then
 * abandoned: what a killed run leaves).  A fuzzer mutates what it is given, so the seeds are
 * kept small (a few KB): every structure of the format, little data.
 */
#include "config.h"
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

#include "sim/trace.h"

static void
fill (WeftTrace *t)
{
    WeftTraceNode nodes[2] = {
        { .id = 0, .name = "host0", .kind = "host", .n_ports = 1 },
        { .id = 1, .name = "sw1", .kind = "switch", .n_ports = 1, .tier = 1 }
    };
    WeftTraceLink link = { .id = 0,
                           .node_a = 0,
                           .port_a = 1,
                           .node_b = 1,
                           .port_b = 1,
                           .rate_bps = 400000000000,
                           .delay_ps = 500000,
                           .kind = "fabric" };
    WeftTracePort ports[2] = { { .node = 0,
                                 .port = 1,
                                 .tx_bytes = 4096,
                                 .tx_packets = 2,
                                 .rate_bps = 400000000000,
                                 .state = 4,
                                 .phys_state = 5,
                                 .link_layer = "InfiniBand" },
                               { .node = 1,
                                 .port = 1,
                                 .rx_bytes = 4096,
                                 .rx_packets = 2,
                                 .rate_bps = 400000000000,
                                 .state = 4,
                                 .phys_state = 5,
                                 .link_layer = "InfiniBand" } };
    weft_trace_write_nodes (t, nodes, 2);
    weft_trace_write_links (t, &link, 1);
    weft_trace_write_ports (t, ports, 2);
    for (guint i = 0; i < 3; i++) {
        WeftTraceFlow f = { .id = i,
                            .src = 0,
                            .dst = 1,
                            .size_bytes = 1024,
                            .start_ps = i,
                            .finish_ps = 1000 + i,
                            .fct_ps = 1000,
                            .ideal_fct_ps = 900,
                            .slowdown = 1000.0 / 900,
                            .packets = 1,
                            .bytes_delivered = 1024,
                            .finished = i != 2,
                            .workload = "incast" };
        WeftTraceLinkSample s = { .time_ps = 1000 * (i + 1),
                                  .link = 0,
                                  .direction = i % 2,
                                  .bytes = 1024,
                                  .packets = 1,
                                  .mean_queue_bytes = 0.5 };
        WeftTraceCollective c = { .id = i,
                                  .workload = "ar",
                                  .op = "all_reduce",
                                  .bytes = 1024,
                                  .count = 256,
                                  .type = "float",
                                  .redop = "sum",
                                  .root = -1,
                                  .n_ranks = 2,
                                  .warmup = i == 0,
                                  .time_ps = 5000,
                                  .algbw_gbs = 0.2,
                                  .busbw_gbs = 0.2 };
        weft_trace_append_flow (t, &f);
        weft_trace_append_link_sample (t, &s);
        weft_trace_append_collective (t, &c);
    }
    WeftTracePathHop hop = { .flow = 0, .node = 0, .port = 1 };
    WeftTracePfcSample pfc = {
        .time_ps = 1000, .node = 1, .port = 1, .priority = 3, .pauses_sent = 1, .paused_ps = 10
    };
    WeftTraceDcqcnSample dcqcn = {
        .time_ps = 1000, .flow = 2, .rate_bps = 1000, .target_bps = 2000, .alpha = 0.5
    };
    WeftTraceBufferSample buf = {
        .time_ps = 1000, .node = 1, .used_bytes = 10, .max_bytes = 20, .total_bytes = 100
    };
    weft_trace_append_path_hop (t, &hop);
    weft_trace_append_pfc_sample (t, &pfc);
    weft_trace_append_dcqcn_sample (t, &dcqcn);
    weft_trace_append_buffer_sample (t, &buf);
}

static gboolean
write_seed (const char *dir, const char *name, gboolean rows, gboolean close)
{
    WeftTraceMeta meta = { .weft_version = PACKAGE_VERSION,
                           .git_revision = "seed",
                           .experiment_text = "[experiment]\nname = seed\nseed = 1\n",
                           .experiment_path = "seed.ini",
                           .seed = 1 };
    char *path = g_build_filename (dir, name, NULL);
    GError *error = NULL;
    WeftTrace *t = weft_trace_create (path, &meta, &error);
    gboolean ok = t != NULL;
    if (ok && rows)
        fill (t);
    if (ok && close) {
        WeftTraceEnd end = { .status = WEFT_TRACE_STATUS_DONE,
                             .sim_time_ps = 10000,
                             .wall_time_s = 0.01,
                             .events = 100 };
        ok = weft_trace_close (t, &end, &error);
    } else if (ok) {
        weft_trace_flush (t);
        weft_trace_abandon (t);
        char *partial = weft_trace_partial_path (path);
        ok = g_rename (partial, path) == 0;
        g_free (partial);
    }
    if (!ok)
        fprintf (stderr, "mkseeds: %s: %s\n", path, error ? error->message : "cannot write");
    g_clear_error (&error);
    g_free (path);
    return ok;
}

int
main (int argc, char **argv)
{
    if (argc != 2) {
        fprintf (stderr, "usage: mkseeds DIR\n");
        return 2;
    }
    gboolean ok = write_seed (argv[1], "small.h5", TRUE, TRUE) &&
                  write_seed (argv[1], "empty.h5", FALSE, TRUE) &&
                  write_seed (argv[1], "running.h5", TRUE, FALSE);
    return ok ? 0 : 1;
}
