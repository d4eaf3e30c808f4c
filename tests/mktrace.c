/* tests/mktrace.c - writes a small deterministic trace for the end-to-end tests.
 *
 * Usage: mktrace OUT.h5 [done|running]
 *   done     (default) a closed trace: 4 nodes, 3 links, 5000 flows (every 10th unfinished),
 *            6000 link samples, 6 ports with 1 drop each (6 in all); the ports' other
 *            counters are distinct within a row (so a swapped column shows), their states
 *            are Active/LinkUp, Active/LinkUp, Down/Disabled, Init/LinkUp, Armed/LinkUp,
 *            Down/Polling, and their rates 400, 400, 200, 100, 800 and 53.125 Gb/s
 *            (tests/e2e/report_ports.sh spells out the values); 24 /collectives rows
 *            (tests/e2e/report_nccl.sh spells them out)
 *   running  the same rows flushed, then abandoned: the file says "running" (what a killed
 *            run leaves at OUT.partial, moved to OUT)
 * Same arguments, same data sets (tests/e2e/trace_python.sh checks with h5diff).
 */
#include "config.h"
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

#include "sim/trace.h"

/* One short run's worth of rows for every data set, in schema order: a plain list of records
 * reads best as one function, so it stays long. */
static void
fill (WeftTrace *t)
{
    for (guint i = 0; i < 4; i++) {
        WeftTraceNode n;
        memset (&n, 0, sizeof n);
        n.id = i;
        g_snprintf (n.name, sizeof n.name, i < 2 ? "host%u" : "sw%u", i);
        g_strlcpy (n.kind, i < 2 ? "host" : "switch", sizeof n.kind);
        n.n_ports = i < 2 ? 1 : 2;
        n.tier = i < 2 ? 0 : 1;
        weft_trace_write_nodes (t, &n, 1);
    }
    for (guint i = 0; i < 3; i++) {
        WeftTraceLink l;
        memset (&l, 0, sizeof l);
        l.id = i;
        l.node_a = i;
        l.port_a = 1;
        l.node_b = i + 1;
        l.port_b = 2;
        l.rate_bps = G_GUINT64_CONSTANT (400000000000);
        l.delay_ps = 500000;
        g_strlcpy (l.kind, "fabric", sizeof l.kind);
        weft_trace_write_links (t, &l, 1);
    }
    for (guint i = 0; i < 5000; i++) {
        WeftTraceFlow f;
        memset (&f, 0, sizeof f);
        f.id = i;
        f.src = 0;
        f.dst = 1;
        f.size_bytes = 1 << 20;
        f.start_ps = (guint64) i * 1000000;
        f.finished = i % 10 != 0;
        f.ideal_fct_ps = 21000000;
        if (f.finished) {
            f.fct_ps = f.ideal_fct_ps + (guint64) (i % 100) * 1000000; /* slowdown 1 .. 5.71 */
            f.finish_ps = f.start_ps + f.fct_ps;
            f.slowdown = (double) f.fct_ps / (double) f.ideal_fct_ps;
            f.bytes_delivered = f.size_bytes;
        }
        f.packets = 256;
        g_strlcpy (f.workload, "incast", sizeof f.workload);
        weft_trace_append_flow (t, &f);
    }
    for (guint i = 0; i < 6000; i++) {
        WeftTraceLinkSample s;
        memset (&s, 0, sizeof s);
        s.time_ps = (guint64) (i / 6 + 1) * 1000000;
        s.link = i % 3;
        s.direction = (i / 3) % 2;
        s.bytes = 4096 * (guint64) (i % 50);
        s.packets = i % 50;
        s.max_queue_bytes = 1024 * (guint64) (i % 13);
        s.mean_queue_bytes = 512.0 * (i % 13);
        s.stall_ps = 1000 * (guint64) (i % 17);
        weft_trace_append_link_sample (t, &s);
    }
    static const guint8 state[6] = { 4, 4, 1, 2, 3, 1 };      /* PortState */
    static const guint8 phys_state[6] = { 5, 5, 3, 5, 5, 2 }; /* PortPhysicalState */
    static const guint64 rate_gbps_x1000[6] = { 400000, 400000, 200000, 100000, 800000, 53125 };
    WeftTracePort ports[6];
    memset (ports, 0, sizeof ports);
    for (guint i = 0; i < 6; i++) {
        WeftTracePort *p = &ports[i];
        guint64 k = i;
        p->node = i / 2;
        p->port = i % 2 + 1;
        p->link = i / 2;
        p->tx_bytes = 1000 * k;      /* PortXmitData 250 i */
        p->rx_bytes = 1000 * k + 36; /* PortRcvData 250 i + 9 */
        p->tx_packets = 10 * k + 2;
        p->rx_packets = 10 * k + 3;
        p->drops = 1;
        p->busy_ps = 1000000 * k;
        p->symbol_errors = 100 * k + 4;
        p->link_downed = 100 * k + 5;
        p->rcv_errors = 100 * k + 6;
        p->lossless_drops = 100 * k + 7;
        p->xmit_wait_ps = 1000000 * k + 8;
        p->rate_bps = rate_gbps_x1000[i] * 1000000;
        p->state = state[i];
        p->phys_state = phys_state[i];
        g_strlcpy (p->link_layer, i < 4 ? "InfiniBand" : "Ethernet", sizeof p->link_layer);
    }
    weft_trace_write_ports (t, ports, 6);
    /* /collectives: workload "ar", a 4-rank all-reduce at 1 KiB and 1 MiB, and "bc", a
     * broadcast from root 2 at 4 KiB; per size and placement one warm-up iteration (999 us)
     * and three timed ones of 10, 20 and 30 us (+ 1 us in place) */
    static const struct {
        const char *workload, *op, *redop;
        gint32 root;
        guint64 bytes;
    } coll[] = { { "ar", "all_reduce", "sum", -1, 1024 },
                 { "ar", "all_reduce", "sum", -1, 1048576 },
                 { "bc", "broadcast", "none", 2, 4096 } };
    guint32 id = 0;
    for (guint c = 0; c < G_N_ELEMENTS (coll); c++)
        for (guint8 p = 0; p < 2; p++)
            for (guint it = 0; it < 4; it++) {
                WeftTraceCollective r;
                memset (&r, 0, sizeof r);
                r.id = id++;
                g_strlcpy (r.workload, coll[c].workload, sizeof r.workload);
                g_strlcpy (r.op, coll[c].op, sizeof r.op);
                r.bytes = coll[c].bytes;
                r.count = coll[c].bytes / 4;
                g_strlcpy (r.type, "float", sizeof r.type);
                g_strlcpy (r.redop, coll[c].redop, sizeof r.redop);
                r.root = coll[c].root;
                r.n_ranks = 4;
                r.in_place = p;
                r.warmup = it == 0;
                r.iteration = it == 0 ? 0 : it - 1;
                r.start_ps = (guint64) r.id * 1000000000;
                r.time_ps = it == 0 ? 999000000 : (guint64) (10 * it + p) * 1000000;
                r.finish_ps = r.start_ps + r.time_ps;
                r.algbw_gbs = (double) r.bytes / (double) r.time_ps * 1e3;
                r.busbw_gbs = r.algbw_gbs * (c < 2 ? 1.5 : 1.0);
                weft_trace_append_collective (t, &r);
            }
}

int
main (int argc, char **argv)
{
    if (argc < 2 || argc > 3 ||
        (argc == 3 && strcmp (argv[2], "done") != 0 && strcmp (argv[2], "running") != 0)) {
        fprintf (stderr, "usage: mktrace OUT.h5 [done|running]\n");
        return 2;
    }
    WeftTraceMeta meta = { .weft_version = PACKAGE_VERSION,
                           .git_revision = "test",
                           .experiment_text = "[experiment]\nname = mktrace\nseed = 7\n",
                           .experiment_path = "experiments/mktrace.ini",
                           .seed = 7 };
    GError *error = NULL;
    WeftTrace *t = weft_trace_create (argv[1], &meta, &error);
    if (t == NULL) {
        fprintf (stderr, "mktrace: %s\n", error->message);
        g_error_free (error);
        return 1;
    }
    fill (t);
    if (argc == 3 && strcmp (argv[2], "running") == 0) {
        /* What a killed run leaves (under OUT.partial), moved to OUT for the tests. */
        weft_trace_flush (t);
        weft_trace_abandon (t);
        char *partial = weft_trace_partial_path (argv[1]);
        int rc = g_rename (partial, argv[1]);
        g_free (partial);
        return rc == 0 ? 0 : 1;
    }
    WeftTraceEnd end = { .status = WEFT_TRACE_STATUS_DONE,
                         .sim_time_ps = G_GUINT64_CONSTANT (5100000000),
                         .wall_time_s = 0.25,
                         .events = 1000000,
                         .message = NULL };
    if (!weft_trace_close (t, &end, &error)) {
        fprintf (stderr, "mktrace: %s\n", error->message);
        g_error_free (error);
        return 1;
    }
    return 0;
}
