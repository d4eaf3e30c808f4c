/* tests/check_trace.c - the HDF5 trace writer (sim/trace.c) read back by analysis/trace_reader.c.
 *
 * Invariants checked: every field of every record type (/collectives, /paths, /pfc, /dcqcn
 * included) survives a write and a read (rows at chunk boundaries included, for data sets larger
 * than one chunk); row counts; /meta start and end attributes; a trace reads as incomplete
 * ("running") after creation and a flush, and after weft_trace_abandon(), under PATH.partial
 * with nothing at PATH; closed, it reads as complete for done, duration and hang (renamed to
 * PATH), and as incomplete (rows kept) for interrupted and failed, still at PATH.partial, while
 * a complete trace already at PATH is left as it was;
 * data sets with no rows exist with 0 rows; creating in a missing directory fails with
 * WEFT_TRACE_ERROR_OPEN; a truncated copy and a non-HDF5 file are reported without a crash.
 * Every data set is shuffled, then deflated at WEFT_TRACE_DEFLATE_LEVEL (1).
 * Unchecked here: compression ratios, chunk layout, a file killed by a signal mid-write (the
 * truncated copy stands in for it); byte-level determinism across runs is checked with
 * h5diff by tests/e2e/trace_python.sh.
 */
#include "config.h"

#include <check.h>
#include <glib/gstdio.h>
#include <hdf5.h>
#include <string.h>

#include "analysis/trace_reader.h"
#include "sim/parallel.h"
#include "sim/trace.h"
#include "sim/trace_types.h"
#include "tests/harness.h"

#define N_NODES 6
#define N_LINKS 5
#define N_FLOWS 10000 /* two full 4096-row chunks and a partial one */
#define N_SAMPLES 9000
#define N_PORTS 10
#define N_COLLECTIVES 1500 /* one full 1024-row chunk and a partial one */

static char *tmpdir;

static void
setup (void)
{
    GError *error = NULL;
    tmpdir = g_dir_make_tmp ("check_trace-XXXXXX", &error);
    ck_assert_msg (tmpdir != NULL, "%s", error ? error->message : "?");
}

static void
teardown (void)
{
    GDir *dir = g_dir_open (tmpdir, 0, NULL);
    const char *name;
    while (dir != NULL && (name = g_dir_read_name (dir)) != NULL) {
        char *p = g_build_filename (tmpdir, name, NULL);
        g_unlink (p);
        g_free (p);
    }
    if (dir != NULL)
        g_dir_close (dir);
    g_rmdir (tmpdir);
    g_clear_pointer (&tmpdir, g_free);
}

static char *
tmp_path (const char *name)
{
    return g_build_filename (tmpdir, name, NULL);
}

/* Rows whose every field depends on the index, so a swapped or shifted field shows. */
static WeftTraceNode
make_node (guint i)
{
    WeftTraceNode r;
    memset (&r, 0, sizeof r);
    r.id = i;
    g_snprintf (r.name, sizeof r.name, "node%u", i);
    g_strlcpy (r.kind, i % 2 ? "switch" : "host", sizeof r.kind);
    r.n_ports = 4 + i;
    r.tier = i % 2 ? (gint32) i : -1;
    return r;
}

static WeftTraceLink
make_link (guint i)
{
    WeftTraceLink r;
    memset (&r, 0, sizeof r);
    r.id = i;
    r.node_a = i;
    r.port_a = i + 1;
    r.node_b = i + 2;
    r.port_b = i + 3;
    r.rate_bps = G_GUINT64_CONSTANT (400000000000) + i;
    r.delay_ps = 1000 * (guint64) i + 7;
    g_strlcpy (r.kind, "fabric", sizeof r.kind);
    return r;
}

static WeftTraceFlow
make_flow (guint i)
{
    WeftTraceFlow r;
    memset (&r, 0, sizeof r);
    r.id = i;
    r.src = i % 16;
    r.dst = (i + 5) % 16;
    r.size_bytes = G_GUINT64_CONSTANT (1) << 20 | i;
    r.start_ps = (guint64) i * 1000;
    r.finished = i % 10 != 0;
    r.finish_ps = r.finished ? r.start_ps + 5000 + i : 0;
    r.fct_ps = r.finished ? r.finish_ps - r.start_ps : 0;
    r.ideal_fct_ps = 4000;
    r.slowdown = r.finished ? (double) r.fct_ps / (double) r.ideal_fct_ps : 0.0;
    r.packets = 256 + i;
    r.retransmits = i % 3;
    r.bytes_delivered = r.finished ? r.size_bytes : i;
    /* exactly WEFT_TRACE_KIND_LEN characters: no NUL, as the writer's truncation allows */
    memcpy (r.workload, i % 2 ? "incast0123456789" : "allreduce", i % 2 ? 16 : 9);
    r.ecn_marked = i % 11;
    r.cnps_sent = i % 13;
    r.cnps_received = i % 17;
    r.rate_cuts = i % 19;
    r.min_rate_bps = G_GUINT64_CONSTANT (1000000) * i;
    r.reorder_max = i % 23;
    return r;
}

static WeftTraceLinkSample
make_sample (guint i)
{
    WeftTraceLinkSample r;
    memset (&r, 0, sizeof r);
    r.time_ps = (guint64) (i / 10 + 1) * 1000000;
    r.link = i % 5;
    r.direction = i % 2;
    r.bytes = 100 * (guint64) i;
    r.packets = i;
    r.max_queue_bytes = 3 * (guint64) i;
    r.mean_queue_bytes = i * 1.25;
    r.drops = i % 7;
    r.stall_ps = 11 * (guint64) i + 5;
    r.ecn_marks = 7 * (guint64) i + 3;
    return r;
}

static WeftTracePort
make_port (guint i)
{
    WeftTracePort r;
    memset (&r, 0, sizeof r);
    r.node = i / 2;
    r.port = i % 2 + 1;
    r.link = i / 2;
    r.tx_bytes = 10 * (guint64) i + 1;
    r.rx_bytes = 10 * (guint64) i + 2;
    r.tx_packets = i + 3;
    r.rx_packets = i + 4;
    r.drops = i;
    r.max_queue_bytes = i + 6;
    r.busy_ps = i + 7;
    r.xmit_wait_ps = 1000 * (guint64) i + 8;
    r.lossless_drops = i + 9;
    r.symbol_errors = i + 10;
    r.link_downed = i + 11;
    r.rcv_errors = i + 12;
    r.rate_bps = G_GUINT64_CONSTANT (400000000000) + i;
    r.state = (guint8) (1 + i % 4);
    r.phys_state = (guint8) (2 + i % 4);
    /* exactly WEFT_TRACE_KIND_LEN characters for one row: no NUL */
    memcpy (r.link_layer,
            i % 3 == 0   ? "InfiniBand"
            : i % 3 == 1 ? "Ethernet"
                         : "Ethernet-16chars",
            i % 3 == 0   ? 10
            : i % 3 == 1 ? 8
                         : 16);
    r.ecn_marks = i + 13;
    return r;
}

static WeftTraceCollective
make_collective (guint i)
{
    WeftTraceCollective r;
    memset (&r, 0, sizeof r);
    r.id = i;
    /* exactly WEFT_TRACE_KIND_LEN / WEFT_TRACE_SHORT_LEN characters for some rows: no NUL */
    memcpy (r.workload, i % 2 ? "sweep-0123456789" : "ar", i % 2 ? 16 : 2);
    g_strlcpy (r.op, i % 3 ? "all_reduce" : "reduce_scatter", sizeof r.op);
    r.bytes = (guint64) 8 << (i % 30);
    r.count = r.bytes / 4;
    memcpy (r.type, i % 2 ? "type-0123456789a" : "bfloat16", i % 2 ? 16 : 8);
    g_strlcpy (r.redop, i % 3 ? "sum" : "none", sizeof r.redop);
    r.root = i % 3 ? -1 : (gint32) (i % 7);
    r.n_ranks = 8 + i % 25;
    r.in_place = i % 2;
    r.warmup = i % 5 == 0;
    r.iteration = i % 20;
    r.start_ps = (guint64) i * 1000000 + 3;
    r.time_ps = 5000 + 17 * (guint64) i;
    r.finish_ps = r.start_ps + r.time_ps;
    r.algbw_gbs = (double) r.bytes / (double) r.time_ps * 1e3;
    r.busbw_gbs = r.algbw_gbs * 1.75 + i;
    return r;
}

static void
assert_collective_eq (const WeftTraceCollective *a, const WeftTraceCollective *b)
{
    ck_assert_uint_eq (a->id, b->id);
    ck_assert_mem_eq (a->workload, b->workload, WEFT_TRACE_KIND_LEN);
    ck_assert_mem_eq (a->op, b->op, WEFT_TRACE_KIND_LEN);
    ck_assert_uint_eq (a->bytes, b->bytes);
    ck_assert_uint_eq (a->count, b->count);
    ck_assert_mem_eq (a->type, b->type, WEFT_TRACE_SHORT_LEN);
    ck_assert_mem_eq (a->redop, b->redop, WEFT_TRACE_SHORT_LEN);
    ck_assert_int_eq (a->root, b->root);
    ck_assert_uint_eq (a->n_ranks, b->n_ranks);
    ck_assert_uint_eq (a->in_place, b->in_place);
    ck_assert_uint_eq (a->warmup, b->warmup);
    ck_assert_uint_eq (a->iteration, b->iteration);
    ck_assert_uint_eq (a->start_ps, b->start_ps);
    ck_assert_uint_eq (a->finish_ps, b->finish_ps);
    ck_assert_uint_eq (a->time_ps, b->time_ps);
    ck_assert (a->algbw_gbs == b->algbw_gbs);
    ck_assert (a->busbw_gbs == b->busbw_gbs);
}

static const WeftTraceMeta test_meta = {
    .weft_version = "0.1.0-test",
    .git_revision = "abc123",
    .experiment_text = "[experiment]\nname = t\nseed = 42\n",
    .experiment_path = "experiments/t.ini",
    .seed = G_GUINT64_CONSTANT (18446744073709551557), /* large: checks the 64-bit path */
};

/* A trace with every data set filled; left open for the caller. */
static WeftTrace *
write_full (const char *path)
{
    GError *error = NULL;
    WeftTrace *t = weft_trace_create (path, &test_meta, &error);
    ck_assert_msg (t != NULL, "%s", error ? error->message : "?");
    WeftTraceNode nodes[N_NODES];
    WeftTraceLink links[N_LINKS];
    WeftTracePort ports[N_PORTS];
    for (guint i = 0; i < N_NODES; i++)
        nodes[i] = make_node (i);
    for (guint i = 0; i < N_LINKS; i++)
        links[i] = make_link (i);
    for (guint i = 0; i < N_PORTS; i++)
        ports[i] = make_port (i);
    weft_trace_write_nodes (t, nodes, N_NODES);
    weft_trace_write_links (t, links, N_LINKS);
    for (guint i = 0; i < N_FLOWS; i++) {
        WeftTraceFlow f = make_flow (i);
        weft_trace_append_flow (t, &f);
    }
    for (guint i = 0; i < N_SAMPLES; i++) {
        WeftTraceLinkSample s = make_sample (i);
        weft_trace_append_link_sample (t, &s);
    }
    weft_trace_write_ports (t, ports, N_PORTS);
    for (guint i = 0; i < N_COLLECTIVES; i++) {
        WeftTraceCollective c = make_collective (i);
        weft_trace_append_collective (t, &c);
    }
    return t;
}

/* A trace with @n flows and nothing else; left open for the caller. */
static WeftTrace *
write_flows (const char *path, guint n)
{
    GError *error = NULL;
    WeftTrace *t = weft_trace_create (path, &test_meta, &error);
    ck_assert_msg (t != NULL, "%s", error ? error->message : "?");
    for (guint i = 0; i < n; i++) {
        WeftTraceFlow f = make_flow (i);
        weft_trace_append_flow (t, &f);
    }
    return t;
}

static void
close_ok (WeftTrace *t, WeftTraceStatus status, const char *message)
{
    GError *error = NULL;
    WeftTraceEnd end = { .status = status,
                         .sim_time_ps = G_GUINT64_CONSTANT (5000000000),
                         .wall_time_s = 1.5,
                         .events = 123456789,
                         .message = message };
    gboolean ok = weft_trace_close (t, &end, &error);
    ck_assert_msg (ok, "%s", error ? error->message : "?");
}

static void
assert_flow_eq (const WeftTraceFlow *a, const WeftTraceFlow *b)
{
    ck_assert_uint_eq (a->id, b->id);
    ck_assert_uint_eq (a->src, b->src);
    ck_assert_uint_eq (a->dst, b->dst);
    ck_assert_uint_eq (a->size_bytes, b->size_bytes);
    ck_assert_uint_eq (a->start_ps, b->start_ps);
    ck_assert_uint_eq (a->finish_ps, b->finish_ps);
    ck_assert_uint_eq (a->fct_ps, b->fct_ps);
    ck_assert_uint_eq (a->ideal_fct_ps, b->ideal_fct_ps);
    ck_assert (a->slowdown == b->slowdown);
    ck_assert_uint_eq (a->packets, b->packets);
    ck_assert_uint_eq (a->retransmits, b->retransmits);
    ck_assert_uint_eq (a->bytes_delivered, b->bytes_delivered);
    ck_assert_uint_eq (a->finished, b->finished);
    ck_assert_mem_eq (a->workload, b->workload, WEFT_TRACE_KIND_LEN);
    ck_assert_uint_eq (a->ecn_marked, b->ecn_marked);
    ck_assert_uint_eq (a->cnps_sent, b->cnps_sent);
    ck_assert_uint_eq (a->cnps_received, b->cnps_received);
    ck_assert_uint_eq (a->rate_cuts, b->rate_cuts);
    ck_assert_uint_eq (a->min_rate_bps, b->min_rate_bps);
    ck_assert_uint_eq (a->reorder_max, b->reorder_max);
}

/* weft_trace_flush_due flushes by the run's work, never the clock: after
 * WEFT_TRACE_FLUSH_EVENTS events since its last flush, or WEFT_TRACE_FLUSH_BYTES of rows since
 * any flush.  Rows still buffered (fewer than a chunk) reach the file only through a flush, so
 * the partial file's row count shows whether one happened. */
static guint64
flows_on_disk (const char *path)
{
    GError *error = NULL;
    g_autofree char *partial = weft_trace_partial_path (path);
    WeftTraceInfo *info = weft_trace_reader_open (partial, &error);
    ck_assert_msg (info != NULL, "%s", error ? error->message : "?");
    guint64 n = info->n_flows;
    weft_trace_info_free (info);
    return n;
}

START_TEST (test_trace_flush_due_by_events_and_rows)
{
    g_autofree char *path = tmp_path ("due.h5");
    GError *error = NULL;
    WeftTrace *t = weft_trace_create (path, &test_meta, &error);
    ck_assert_msg (t != NULL, "%s", error ? error->message : "?");
    guint i = 0;
    for (; i < 3; i++) {
        WeftTraceFlow f = make_flow (i);
        weft_trace_append_flow (t, &f);
    }
    weft_trace_flush_due (t, WEFT_TRACE_FLUSH_EVENTS - 1);
    ck_assert_uint_eq (flows_on_disk (path), 0);
    weft_trace_flush_due (t, WEFT_TRACE_FLUSH_EVENTS);
    ck_assert_uint_eq (flows_on_disk (path), 3);

    /* One event short of the next: no flush, however many rows wait (up to the byte bound). */
    WeftTraceFlow f = make_flow (i++);
    weft_trace_append_flow (t, &f);
    weft_trace_flush_due (t, 2 * WEFT_TRACE_FLUSH_EVENTS - 1);
    ck_assert_uint_eq (flows_on_disk (path), 3);

    /* Rows of WEFT_TRACE_FLUSH_BYTES since the flush: the next call flushes, with no event
     * executed.  The last block stays short of a chunk, so only a flush writes it. */
    guint n = (guint) (WEFT_TRACE_FLUSH_BYTES / sizeof (WeftTraceFlow)) + 1;
    if ((i + n) % 4096 == 0)
        n++;
    for (guint k = 0; k < n; k++, i++) {
        f = make_flow (i);
        weft_trace_append_flow (t, &f);
    }
    weft_trace_flush_due (t, 2 * WEFT_TRACE_FLUSH_EVENTS - 1);
    ck_assert_uint_eq (flows_on_disk (path), i);
    weft_trace_abandon (t);
}
END_TEST

START_TEST (test_trace_roundtrip_every_field)
{
    char *path = tmp_path ("full.h5");
    GError *error = NULL;
    WeftTrace *t = write_full (path);
    ck_assert_str_eq (weft_trace_path (t), path);
    weft_trace_flush (t);

    /* before close: under PATH.partial (PATH itself not there yet), readable, "running",
     * incomplete */
    g_autofree char *partial = weft_trace_partial_path (path);
    ck_assert (!g_file_test (path, G_FILE_TEST_EXISTS));
    WeftTraceInfo *info = weft_trace_reader_open (partial, &error);
    ck_assert_msg (info != NULL, "%s", error ? error->message : "?");
    ck_assert (info->readable);
    ck_assert (!info->complete);
    ck_assert_int_eq (info->status, WEFT_TRACE_STATUS_RUNNING);
    ck_assert_str_eq (info->status_text, "running");
    ck_assert_ptr_nonnull (strstr (info->reason, "running"));
    ck_assert_int_eq (info->n_flows, N_FLOWS);
    weft_trace_info_free (info);

    close_ok (t, WEFT_TRACE_STATUS_DONE, NULL);
    ck_assert (!g_file_test (partial, G_FILE_TEST_EXISTS)); /* renamed to PATH */
    info = weft_trace_reader_open (path, &error);
    ck_assert_msg (info != NULL, "%s", error ? error->message : "?");
    ck_assert (info->readable);
    ck_assert (info->complete);
    ck_assert_ptr_null (info->reason);
    ck_assert_uint_eq (info->schema_version, WEFT_TRACE_SCHEMA_VERSION);
    ck_assert_int_eq (info->status, WEFT_TRACE_STATUS_DONE);
    ck_assert_str_eq (info->status_text, "done");
    ck_assert_uint_eq (info->seed, test_meta.seed);
    ck_assert_uint_eq (info->sim_time_ps, G_GUINT64_CONSTANT (5000000000));
    ck_assert (info->wall_time_s == 1.5);
    ck_assert_uint_eq (info->events, 123456789);
    ck_assert_str_eq (info->weft_version, "0.1.0-test");
    ck_assert_str_eq (info->git_revision, "abc123");
    ck_assert_str_eq (info->experiment_text, test_meta.experiment_text);
    ck_assert_str_eq (info->experiment_path, "experiments/t.ini");
    ck_assert_str_eq (info->message, "");
    ck_assert_int_eq (info->n_nodes, N_NODES);
    ck_assert_int_eq (info->n_links, N_LINKS);
    ck_assert_int_eq (info->n_flows, N_FLOWS);
    ck_assert_int_eq (info->n_link_samples, N_SAMPLES);
    ck_assert_int_eq (info->n_ports, N_PORTS);
    ck_assert_int_eq (info->n_collectives, N_COLLECTIVES);
    weft_trace_info_free (info);

    GArray *coll = weft_trace_reader_collectives (path, &error);
    ck_assert_msg (coll != NULL, "%s", error ? error->message : "?");
    ck_assert_uint_eq (coll->len, N_COLLECTIVES);
    static const guint crows[] = { 0, 1, 2, 3, 1023, 1024, N_COLLECTIVES - 1 };
    for (guint k = 0; k < G_N_ELEMENTS (crows); k++) {
        WeftTraceCollective want = make_collective (crows[k]);
        assert_collective_eq (&g_array_index (coll, WeftTraceCollective, crows[k]), &want);
    }
    g_array_free (coll, TRUE);

    GArray *flows = weft_trace_reader_flows (path, &error);
    ck_assert_msg (flows != NULL, "%s", error ? error->message : "?");
    ck_assert_uint_eq (flows->len, N_FLOWS);
    static const guint rows[] = { 0, 1, 4095, 4096, 8191, 8192, N_FLOWS - 1 };
    for (guint k = 0; k < G_N_ELEMENTS (rows); k++) {
        WeftTraceFlow want = make_flow (rows[k]);
        assert_flow_eq (&g_array_index (flows, WeftTraceFlow, rows[k]), &want);
    }
    g_array_free (flows, TRUE);

    GArray *nodes = weft_trace_reader_nodes (path, &error);
    ck_assert_msg (nodes != NULL, "%s", error ? error->message : "?");
    ck_assert_uint_eq (nodes->len, N_NODES);
    for (guint i = 0; i < N_NODES; i++) {
        WeftTraceNode want = make_node (i), *got = &g_array_index (nodes, WeftTraceNode, i);
        ck_assert_uint_eq (got->id, want.id);
        ck_assert_str_eq (got->name, want.name);
        ck_assert_str_eq (got->kind, want.kind);
        ck_assert_uint_eq (got->n_ports, want.n_ports);
        ck_assert_int_eq (got->tier, want.tier);
    }
    g_array_free (nodes, TRUE);

    GArray *links = weft_trace_reader_links (path, &error);
    ck_assert_msg (links != NULL, "%s", error ? error->message : "?");
    ck_assert_uint_eq (links->len, N_LINKS);
    for (guint i = 0; i < N_LINKS; i++) {
        WeftTraceLink want = make_link (i), *got = &g_array_index (links, WeftTraceLink, i);
        ck_assert_uint_eq (got->id, want.id);
        ck_assert_uint_eq (got->node_a, want.node_a);
        ck_assert_uint_eq (got->port_a, want.port_a);
        ck_assert_uint_eq (got->node_b, want.node_b);
        ck_assert_uint_eq (got->port_b, want.port_b);
        ck_assert_uint_eq (got->rate_bps, want.rate_bps);
        ck_assert_uint_eq (got->delay_ps, want.delay_ps);
        ck_assert_str_eq (got->kind, want.kind);
    }
    g_array_free (links, TRUE);

    GArray *samples = weft_trace_reader_link_samples (path, &error);
    ck_assert_msg (samples != NULL, "%s", error ? error->message : "?");
    ck_assert_uint_eq (samples->len, N_SAMPLES);
    static const guint srows[] = { 0, 4095, 4096, N_SAMPLES - 1 };
    for (guint k = 0; k < G_N_ELEMENTS (srows); k++) {
        WeftTraceLinkSample want = make_sample (srows[k]);
        WeftTraceLinkSample *got = &g_array_index (samples, WeftTraceLinkSample, srows[k]);
        ck_assert_uint_eq (got->time_ps, want.time_ps);
        ck_assert_uint_eq (got->link, want.link);
        ck_assert_uint_eq (got->direction, want.direction);
        ck_assert_uint_eq (got->bytes, want.bytes);
        ck_assert_uint_eq (got->packets, want.packets);
        ck_assert_uint_eq (got->max_queue_bytes, want.max_queue_bytes);
        ck_assert (got->mean_queue_bytes == want.mean_queue_bytes);
        ck_assert_uint_eq (got->drops, want.drops);
        ck_assert_uint_eq (got->stall_ps, want.stall_ps);
        ck_assert_uint_eq (got->ecn_marks, want.ecn_marks);
    }
    g_array_free (samples, TRUE);

    GArray *ports = weft_trace_reader_ports (path, &error);
    ck_assert_msg (ports != NULL, "%s", error ? error->message : "?");
    ck_assert_uint_eq (ports->len, N_PORTS);
    for (guint i = 0; i < N_PORTS; i++) {
        WeftTracePort want = make_port (i), *got = &g_array_index (ports, WeftTracePort, i);
        ck_assert_uint_eq (got->node, want.node);
        ck_assert_uint_eq (got->port, want.port);
        ck_assert_uint_eq (got->link, want.link);
        ck_assert_uint_eq (got->tx_bytes, want.tx_bytes);
        ck_assert_uint_eq (got->rx_bytes, want.rx_bytes);
        ck_assert_uint_eq (got->tx_packets, want.tx_packets);
        ck_assert_uint_eq (got->rx_packets, want.rx_packets);
        ck_assert_uint_eq (got->drops, want.drops);
        ck_assert_uint_eq (got->max_queue_bytes, want.max_queue_bytes);
        ck_assert_uint_eq (got->busy_ps, want.busy_ps);
        ck_assert_uint_eq (got->xmit_wait_ps, want.xmit_wait_ps);
        ck_assert_uint_eq (got->lossless_drops, want.lossless_drops);
        ck_assert_uint_eq (got->symbol_errors, want.symbol_errors);
        ck_assert_uint_eq (got->link_downed, want.link_downed);
        ck_assert_uint_eq (got->rcv_errors, want.rcv_errors);
        ck_assert_uint_eq (got->rate_bps, want.rate_bps);
        ck_assert_uint_eq (got->state, want.state);
        ck_assert_uint_eq (got->phys_state, want.phys_state);
        ck_assert_mem_eq (got->link_layer, want.link_layer, WEFT_TRACE_KIND_LEN);
        ck_assert_uint_eq (got->ecn_marks, want.ecn_marks);
    }
    g_array_free (ports, TRUE);
    g_free (path);
}
END_TEST

/* Schema 4's data sets: /paths, /pfc and /dcqcn, over a chunk boundary (4096 rows). */
#define N_ROWS4 5000

static WeftTracePathHop
make_hop (guint i)
{
    WeftTracePathHop r = {
        .flow = i / 5, .hop = i % 5, .node = 100 + i, .port = 1 + i % 64, .link = 7 * i
    };
    return r;
}

static WeftTracePfcSample
make_pfc (guint i)
{
    WeftTracePfcSample r;
    memset (&r, 0, sizeof r);
    r.time_ps = (guint64) (i / 8 + 1) * 10000000;
    r.node = i / 3;
    r.port = 1 + i % 3;
    r.link = i / 2;
    r.priority = (guint8) (i % 8);
    r.pauses_sent = i + 1;
    r.resumes_sent = i + 2;
    r.pauses_received = i + 3;
    r.paused_ps = 1000 * (guint64) i + 4;
    r.violations = i % 5;
    r.max_ingress_bytes = 62400 + (guint64) i;
    return r;
}

static WeftTraceDcqcnSample
make_dcqcn (guint i)
{
    WeftTraceDcqcnSample r;
    memset (&r, 0, sizeof r);
    r.time_ps = (guint64) (i / 2 + 1) * 10000000;
    r.flow = i % 2;
    r.rate_bps = G_GUINT64_CONSTANT (400000000000) - 1000 * (guint64) i;
    r.target_bps = G_GUINT64_CONSTANT (400000000000) - 999 * (guint64) i;
    r.alpha = 1.0 / (1 + i);
    r.cnps_received = i / 3;
    r.rate_cuts = i / 4;
    return r;
}

START_TEST (test_trace_roundtrip_schema4_sets)
{
    char *path = tmp_path ("s4.h5");
    GError *error = NULL;
    WeftTrace *t = weft_trace_create (path, &test_meta, &error);
    ck_assert_msg (t != NULL, "%s", error ? error->message : "?");
    for (guint i = 0; i < N_ROWS4; i++) {
        WeftTracePathHop h = make_hop (i);
        WeftTracePfcSample p = make_pfc (i);
        WeftTraceDcqcnSample d = make_dcqcn (i);
        weft_trace_append_path_hop (t, &h);
        weft_trace_append_pfc_sample (t, &p);
        weft_trace_append_dcqcn_sample (t, &d);
    }
    close_ok (t, WEFT_TRACE_STATUS_DONE, NULL);

    static const guint rows[] = { 0, 1, 4095, 4096, N_ROWS4 - 1 };
    GArray *hops = weft_trace_reader_paths (path, &error);
    ck_assert_msg (hops != NULL, "%s", error ? error->message : "?");
    ck_assert_uint_eq (hops->len, N_ROWS4);
    GArray *pfc = weft_trace_reader_pfc_samples (path, &error);
    ck_assert_msg (pfc != NULL, "%s", error ? error->message : "?");
    ck_assert_uint_eq (pfc->len, N_ROWS4);
    GArray *dc = weft_trace_reader_dcqcn_samples (path, &error);
    ck_assert_msg (dc != NULL, "%s", error ? error->message : "?");
    ck_assert_uint_eq (dc->len, N_ROWS4);
    for (guint k = 0; k < G_N_ELEMENTS (rows); k++) {
        guint i = rows[k];
        WeftTracePathHop h = make_hop (i), *gh = &g_array_index (hops, WeftTracePathHop, i);
        ck_assert_uint_eq (gh->flow, h.flow);
        ck_assert_uint_eq (gh->hop, h.hop);
        ck_assert_uint_eq (gh->node, h.node);
        ck_assert_uint_eq (gh->port, h.port);
        ck_assert_uint_eq (gh->link, h.link);
        WeftTracePfcSample p = make_pfc (i), *gp = &g_array_index (pfc, WeftTracePfcSample, i);
        ck_assert_uint_eq (gp->time_ps, p.time_ps);
        ck_assert_uint_eq (gp->node, p.node);
        ck_assert_uint_eq (gp->port, p.port);
        ck_assert_uint_eq (gp->link, p.link);
        ck_assert_uint_eq (gp->priority, p.priority);
        ck_assert_uint_eq (gp->pauses_sent, p.pauses_sent);
        ck_assert_uint_eq (gp->resumes_sent, p.resumes_sent);
        ck_assert_uint_eq (gp->pauses_received, p.pauses_received);
        ck_assert_uint_eq (gp->paused_ps, p.paused_ps);
        ck_assert_uint_eq (gp->violations, p.violations);
        ck_assert_uint_eq (gp->max_ingress_bytes, p.max_ingress_bytes);
        WeftTraceDcqcnSample d = make_dcqcn (i);
        WeftTraceDcqcnSample *gd = &g_array_index (dc, WeftTraceDcqcnSample, i);
        ck_assert_uint_eq (gd->time_ps, d.time_ps);
        ck_assert_uint_eq (gd->flow, d.flow);
        ck_assert_uint_eq (gd->rate_bps, d.rate_bps);
        ck_assert_uint_eq (gd->target_bps, d.target_bps);
        ck_assert (gd->alpha == d.alpha);
        ck_assert_uint_eq (gd->cnps_received, d.cnps_received);
        ck_assert_uint_eq (gd->rate_cuts, d.rate_cuts);
    }
    g_array_free (hops, TRUE);
    g_array_free (pfc, TRUE);
    g_array_free (dc, TRUE);
    g_free (path);
}
END_TEST

/* A data set written as schema 1 wrote it: @record's members up to, not including, the first
 * one a later schema added (@first_new; "" for all), in the same file layout (little-endian,
 * packed). */
static void
write_v1_dataset (hid_t file, const char *name, const WeftTraceRecord *record,
                  const char *first_new, const void *rows, hsize_t n)
{
    hid_t full = weft_trace_type_record (record);
    hid_t v1 = H5Tcreate (H5T_COMPOUND, H5Tget_size (full));
    for (unsigned i = 0; i < (unsigned) H5Tget_nmembers (full); i++) {
        char *member = H5Tget_member_name (full, i);
        gboolean stop = strcmp (member, first_new) == 0;
        if (!stop) {
            hid_t mt = H5Tget_member_type (full, i);
            H5Tinsert (v1, member, H5Tget_member_offset (full, i), mt);
            H5Tclose (mt);
        }
        H5free_memory (member);
        if (stop)
            break;
    }
    hid_t ftype = weft_trace_type_for_file (v1);
    hid_t space = H5Screate_simple (1, &n, NULL);
    hid_t dset = H5Dcreate2 (file, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    ck_assert_int_ge (dset, 0);
    ck_assert (n == 0 || H5Dwrite (dset, v1, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) >= 0);
    H5Dclose (dset);
    H5Sclose (space);
    H5Tclose (ftype);
    H5Tclose (v1);
    H5Tclose (full);
}

static void
write_attr (hid_t obj, const char *name, hid_t type, const void *value)
{
    hid_t space = H5Screate (H5S_SCALAR);
    hid_t attr = H5Acreate2 (obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    ck_assert_int_ge (H5Awrite (attr, type, value), 0);
    H5Aclose (attr);
    H5Sclose (space);
}

/* A schema-1 trace still reads: the old members as written, the schema-2 members 0.  It has
 * what every trace has: each /meta attribute (strings here of fixed length, which readers
 * accept too), and the schema-1 data sets (those not written below, empty). */
START_TEST (test_trace_reads_schema_1)
{
    static const char *const strings[] = { "weft_version",    "git_revision", "experiment",
                                           "experiment_path", "glib_version", "hdf5_version",
                                           "gsl_version",     "message" };
    static const char *const numbers[] = { "seed", "sim_time_ps", "events" };
    char *path = tmp_path ("v1.h5");
    GError *error = NULL;
    hid_t file = H5Fcreate (path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    ck_assert_int_ge (file, 0);
    hid_t meta = H5Gcreate2 (file, "/meta", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    guint version = 1;
    guint8 complete = 1;
    guint64 zero = 0;
    double wall = 0.5;
    char status[8] = "done";
    hid_t status_type = weft_trace_type_string (sizeof status);
    write_attr (meta, "schema_version", H5T_NATIVE_UINT, &version);
    write_attr (meta, "complete", H5T_NATIVE_UINT8, &complete);
    write_attr (meta, "status", status_type, status);
    char v1[sizeof status] = "v1"; /* as long as the type, which HDF5 copies whole */
    for (guint i = 0; i < G_N_ELEMENTS (strings); i++)
        write_attr (meta, strings[i], status_type, v1);
    for (guint i = 0; i < G_N_ELEMENTS (numbers); i++)
        write_attr (meta, numbers[i], H5T_NATIVE_UINT64, &zero);
    write_attr (meta, "wall_time_s", H5T_NATIVE_DOUBLE, &wall);
    H5Tclose (status_type);
    H5Gclose (meta);
    H5Gclose (H5Gcreate2 (file, "/topology", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    write_v1_dataset (file, "/topology/nodes", &weft_trace_record_node, "", NULL, 0);
    write_v1_dataset (file, "/topology/links", &weft_trace_record_link, "", NULL, 0);
    WeftTraceFlow flows[N_PORTS]; /* the ports' packets came from flows */
    for (guint i = 0; i < N_PORTS; i++)
        flows[i] = make_flow (i);
    write_v1_dataset (file, "/flows", &weft_trace_record_flow, "ecn_marked", flows, N_PORTS);
    WeftTracePort ports[N_PORTS];
    WeftTraceLinkSample samples[N_PORTS];
    for (guint i = 0; i < N_PORTS; i++) {
        ports[i] = make_port (i);
        samples[i] = make_sample (i);
    }
    write_v1_dataset (file, "/ports", &weft_trace_record_port, "xmit_wait_ps", ports, N_PORTS);
    write_v1_dataset (file, "/links", &weft_trace_record_link_sample, "stall_ps", samples, N_PORTS);
    H5Fclose (file);

    WeftTraceInfo *info = weft_trace_reader_open (path, &error);
    ck_assert_msg (info != NULL, "%s", error ? error->message : "?");
    ck_assert (info->readable);
    ck_assert_msg (info->complete, "%s", info->reason);
    ck_assert_uint_eq (info->schema_version, 1);
    ck_assert_int_eq (info->n_ports, N_PORTS);
    ck_assert_int_eq (info->n_collectives, -1);
    weft_trace_info_free (info);

    GArray *coll = weft_trace_reader_collectives (path, &error);
    ck_assert_msg (coll != NULL, "%s", error ? error->message : "?");
    ck_assert_uint_eq (coll->len, 0);
    g_array_free (coll, TRUE);

    GArray *got = weft_trace_reader_ports (path, &error);
    ck_assert_msg (got != NULL, "%s", error ? error->message : "?");
    ck_assert_uint_eq (got->len, N_PORTS);
    for (guint i = 0; i < N_PORTS; i++) {
        const WeftTracePort *p = &g_array_index (got, WeftTracePort, i);
        ck_assert_uint_eq (p->node, ports[i].node);
        ck_assert_uint_eq (p->port, ports[i].port);
        ck_assert_uint_eq (p->tx_bytes, ports[i].tx_bytes);
        ck_assert_uint_eq (p->drops, ports[i].drops);
        ck_assert_uint_eq (p->busy_ps, ports[i].busy_ps);
        ck_assert_uint_eq (p->xmit_wait_ps, 0);
        ck_assert_uint_eq (p->lossless_drops, 0);
        ck_assert_uint_eq (p->symbol_errors, 0);
        ck_assert_uint_eq (p->link_downed, 0);
        ck_assert_uint_eq (p->rcv_errors, 0);
        ck_assert_uint_eq (p->rate_bps, 0);
        ck_assert_uint_eq (p->state, 0);
        ck_assert_uint_eq (p->phys_state, 0);
        ck_assert_str_eq (p->link_layer, "");
    }
    g_array_free (got, TRUE);
    got = weft_trace_reader_link_samples (path, &error);
    ck_assert_msg (got != NULL, "%s", error ? error->message : "?");
    ck_assert_uint_eq (got->len, N_PORTS);
    for (guint i = 0; i < N_PORTS; i++) {
        const WeftTraceLinkSample *r = &g_array_index (got, WeftTraceLinkSample, i);
        ck_assert_uint_eq (r->time_ps, samples[i].time_ps);
        ck_assert_uint_eq (r->drops, samples[i].drops);
        ck_assert_uint_eq (r->stall_ps, 0);
    }
    g_array_free (got, TRUE);
    g_free (path);
}
END_TEST

START_TEST (test_trace_end_status_and_message)
{
    char *path = tmp_path ("hang.h5");
    GError *error = NULL;
    WeftTrace *t = weft_trace_create (path, &test_meta, &error);
    ck_assert_msg (t != NULL, "%s", error ? error->message : "?");
    close_ok (t, WEFT_TRACE_STATUS_HANG, "flow 3 waits on link 7");
    WeftTraceInfo *info = weft_trace_reader_open (path, &error);
    ck_assert_msg (info != NULL, "%s", error ? error->message : "?");
    ck_assert (info->complete); /* closed: a complete record of a run that hung */
    ck_assert_int_eq (info->status, WEFT_TRACE_STATUS_HANG);
    ck_assert_str_eq (info->message, "flow 3 waits on link 7");
    weft_trace_info_free (info);
    g_free (path);
}
END_TEST

/* An interrupted or failed run's trace is closed with every row so far, but is incomplete. */
START_TEST (test_trace_cut_short_is_incomplete)
{
    static const WeftTraceStatus cut_short[] = { WEFT_TRACE_STATUS_INTERRUPTED,
                                                 WEFT_TRACE_STATUS_FAILED };
    for (guint k = 0; k < G_N_ELEMENTS (cut_short); k++) {
        WeftTraceStatus status = cut_short[k];
        const char *name = weft_trace_status_name (status);
        char *file = g_strconcat (name, ".h5", NULL), *path = tmp_path (file);
        GError *error = NULL;
        /* A complete trace already at PATH survives; the cut-short one stays at PATH.partial. */
        close_ok (write_flows (path, 3), WEFT_TRACE_STATUS_DONE, NULL);
        close_ok (write_flows (path, 100), status, NULL);
        WeftTraceInfo *old = weft_trace_reader_open (path, &error);
        ck_assert_msg (old != NULL, "%s", error ? error->message : "?");
        ck_assert (old->complete);
        ck_assert_int_eq (old->n_flows, 3);
        weft_trace_info_free (old);
        g_autofree char *partial = weft_trace_partial_path (path);
        WeftTraceInfo *info = weft_trace_reader_open (partial, &error);
        ck_assert_msg (info != NULL, "%s", error ? error->message : "?");
        ck_assert (info->readable);
        ck_assert_msg (!info->complete, "%s trace reads as complete", name);
        ck_assert_int_eq (info->status, status);
        ck_assert_str_eq (info->status_text, name);
        ck_assert_ptr_nonnull (strstr (info->reason, name));
        ck_assert_int_eq (info->n_flows, 100);
        ck_assert_uint_eq (info->events, 123456789);
        weft_trace_info_free (info);
        g_free (path);
        g_free (file);
    }
    ck_assert (weft_trace_status_complete (WEFT_TRACE_STATUS_DONE));
    ck_assert (weft_trace_status_complete (WEFT_TRACE_STATUS_DURATION));
    ck_assert (weft_trace_status_complete (WEFT_TRACE_STATUS_HANG));
    ck_assert (weft_trace_status_complete (WEFT_TRACE_STATUS_WORKLOAD_FAILED));
    WeftTraceStatus back;
    ck_assert (weft_trace_status_from_name ("workload-failed", &back));
    ck_assert_int_eq (back, WEFT_TRACE_STATUS_WORKLOAD_FAILED);
    ck_assert (!weft_trace_status_complete (WEFT_TRACE_STATUS_RUNNING));
    ck_assert (!weft_trace_status_complete (WEFT_TRACE_STATUS_INTERRUPTED));
    ck_assert (!weft_trace_status_complete (WEFT_TRACE_STATUS_FAILED));
}
END_TEST

/* A trace with /meta only, of schema @version. */
static void
write_meta_only (const char *path, guint version)
{
    hid_t file = H5Fcreate (path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    ck_assert_int_ge (file, 0);
    hid_t meta = H5Gcreate2 (file, "/meta", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    write_attr (meta, "schema_version", H5T_NATIVE_UINT, &version);
    H5Gclose (meta);
    H5Fclose (file);
}

/* /collectives came with schema 3: a version-2 file without it reads as 0 rows, while a
 * version-3 file without it is damaged and says so. */
START_TEST (test_trace_collectives_absent_before_schema_3)
{
    char *path = tmp_path ("v2.h5");
    GError *error = NULL;
    write_meta_only (path, 2);
    GArray *coll = weft_trace_reader_collectives (path, &error);
    ck_assert_msg (coll != NULL, "%s", error ? error->message : "?");
    ck_assert_uint_eq (coll->len, 0);
    g_array_free (coll, TRUE);

    write_meta_only (path, 3);
    coll = weft_trace_reader_collectives (path, &error);
    ck_assert_ptr_null (coll);
    ck_assert (g_error_matches (error, WEFT_TRACE_ERROR, WEFT_TRACE_ERROR_READ));
    ck_assert_ptr_nonnull (strstr (error->message, "/collectives"));
    g_clear_error (&error);
    g_free (path);
}
END_TEST

/* /paths, /pfc and /dcqcn came with schema 4: likewise. */
START_TEST (test_trace_schema4_sets_absent_before_schema_4)
{
    char *path = tmp_path ("v3.h5");
    GError *error = NULL;
    GArray *(*readers[]) (const char *, GError **) = { weft_trace_reader_paths,
                                                       weft_trace_reader_pfc_samples,
                                                       weft_trace_reader_dcqcn_samples };
    static const char *names[] = { "/paths", "/pfc", "/dcqcn" };
    for (guint k = 0; k < G_N_ELEMENTS (readers); k++) {
        write_meta_only (path, 3);
        GArray *rows = readers[k](path, &error);
        ck_assert_msg (rows != NULL, "%s", error ? error->message : "?");
        ck_assert_uint_eq (rows->len, 0);
        g_array_free (rows, TRUE);
        write_meta_only (path, 4);
        rows = readers[k](path, &error);
        ck_assert_ptr_null (rows);
        ck_assert (g_error_matches (error, WEFT_TRACE_ERROR, WEFT_TRACE_ERROR_READ));
        ck_assert_ptr_nonnull (strstr (error->message, names[k]));
        g_clear_error (&error);
    }
    g_free (path);
}
END_TEST

START_TEST (test_trace_empty_datasets_exist)
{
    char *path = tmp_path ("empty.h5");
    GError *error = NULL;
    WeftTrace *t = weft_trace_create (path, &test_meta, &error);
    ck_assert_msg (t != NULL, "%s", error ? error->message : "?");
    close_ok (t, WEFT_TRACE_STATUS_DURATION, NULL);
    WeftTraceInfo *info = weft_trace_reader_open (path, &error);
    ck_assert_msg (info != NULL, "%s", error ? error->message : "?");
    ck_assert (info->complete);
    ck_assert_int_eq (info->n_nodes, 0);
    ck_assert_int_eq (info->n_links, 0);
    ck_assert_int_eq (info->n_flows, 0);
    ck_assert_int_eq (info->n_link_samples, 0);
    ck_assert_int_eq (info->n_ports, 0);
    ck_assert_int_eq (info->n_collectives, 0);
    weft_trace_info_free (info);
    GArray *flows = weft_trace_reader_flows (path, &error);
    ck_assert_msg (flows != NULL, "%s", error ? error->message : "?");
    ck_assert_uint_eq (flows->len, 0);
    g_array_free (flows, TRUE);
    g_free (path);
}
END_TEST

/* The storage the writer promises (doc/hdf5-schema.md): every data set shuffled, then deflated
 * at WEFT_TRACE_DEFLATE_LEVEL, the fastest level. */
START_TEST (test_trace_datasets_shuffled_then_deflated_fast)
{
    char *path = tmp_path ("filters.h5");
    GError *error = NULL;
    WeftTrace *t = weft_trace_create (path, &test_meta, &error);
    ck_assert_msg (t != NULL, "%s", error ? error->message : "?");
    close_ok (t, WEFT_TRACE_STATUS_DURATION, NULL);
    hid_t file = H5Fopen (path, H5F_ACC_RDONLY, H5P_DEFAULT);
    ck_assert_int_ge (file, 0);
    const char *sets[] = { "/flows", "/paths", "/links", "/ports", "/collectives" };
    for (guint i = 0; i < G_N_ELEMENTS (sets); i++) {
        hid_t d = H5Dopen2 (file, sets[i], H5P_DEFAULT);
        ck_assert_int_ge (d, 0);
        hid_t dcpl = H5Dget_create_plist (d);
        ck_assert_int_eq (H5Pget_nfilters (dcpl), 2);
        unsigned flags, cd[4];
        size_t n_cd = G_N_ELEMENTS (cd);
        ck_assert_int_eq (H5Pget_filter2 (dcpl, 0, &flags, &n_cd, cd, 0, NULL, NULL),
                          H5Z_FILTER_SHUFFLE);
        n_cd = G_N_ELEMENTS (cd);
        ck_assert_int_eq (H5Pget_filter2 (dcpl, 1, &flags, &n_cd, cd, 0, NULL, NULL),
                          H5Z_FILTER_DEFLATE);
        ck_assert_uint_eq (n_cd, 1);
        ck_assert_uint_eq (cd[0], 1);
        ck_assert_uint_eq (cd[0], WEFT_TRACE_DEFLATE_LEVEL);
        H5Pclose (dcpl);
        H5Dclose (d);
    }
    H5Fclose (file);
    g_free (path);
}
END_TEST

/* Reads all of @dataset of the closed trace at @path through HDF5's stock filters, in
 * @record's memory type; its row count into @n.  (transfer full) */
static void *
read_rows (const char *path, const char *dataset, const WeftTraceRecord *record, hsize_t *n)
{
    hid_t file = H5Fopen (path, H5F_ACC_RDONLY, H5P_DEFAULT);
    ck_assert_int_ge (file, 0);
    hid_t d = H5Dopen2 (file, dataset, H5P_DEFAULT);
    ck_assert_int_ge (d, 0);
    hid_t space = H5Dget_space (d);
    ck_assert_int_eq (H5Sget_simple_extent_dims (space, n, NULL), 1);
    hid_t type = weft_trace_type_record (record);
    void *rows = g_malloc0 (MAX (*n, 1) * record->row_size);
    ck_assert_int_ge (H5Dread (d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows), 0);
    H5Tclose (type);
    H5Sclose (space);
    H5Dclose (d);
    H5Fclose (file);
    return rows;
}

/* The writer shuffles and deflates whole chunks itself (H5Dwrite_chunk): every row written
 * reads back equal through HDF5's own shuffle and deflate filters - across a flush in the middle
 * of a chunk (that chunk written partly filled, then again whole), a chunk filled after a flush,
 * and a partly filled last chunk at close; in /flows (4096-row chunks) and in /collectives
 * (1024-row chunks, with strings, signed and floating-point members). */
START_TEST (test_trace_direct_chunks_read_back_across_flushes)
{
    g_autofree char *path = tmp_path ("direct.h5");
    GError *error = NULL;
    WeftTrace *t = weft_trace_create (path, &test_meta, &error);
    ck_assert_msg (t != NULL, "%s", error ? error->message : "?");
    const guint flows_at[] = { 4096 + 100, 8192 + 4, 8192 + 14 }; /* a flush after each */
    const guint colls_at[] = { 700, 1024 + 1, 1500 };
    guint nf = 0, nc = 0;
    for (guint step = 0; step < G_N_ELEMENTS (flows_at); step++) {
        for (; nf < flows_at[step]; nf++) {
            WeftTraceFlow f = make_flow (nf);
            weft_trace_append_flow (t, &f);
        }
        for (; nc < colls_at[step]; nc++) {
            WeftTraceCollective c = make_collective (nc);
            weft_trace_append_collective (t, &c);
        }
        if (step + 1 < G_N_ELEMENTS (flows_at)) {
            weft_trace_flush (t);
            ck_assert_uint_eq (flows_on_disk (path), nf);
        }
    }
    close_ok (t, WEFT_TRACE_STATUS_DONE, NULL);

    hsize_t n = 0;
    WeftTraceFlow *flows = read_rows (path, "/flows", &weft_trace_record_flow, &n);
    ck_assert_uint_eq (n, nf);
    for (guint i = 0; i < nf; i++) {
        WeftTraceFlow want = make_flow (i);
        assert_flow_eq (&flows[i], &want);
    }
    g_free (flows);
    WeftTraceCollective *colls =
        read_rows (path, "/collectives", &weft_trace_record_collective, &n);
    ck_assert_uint_eq (n, nc);
    for (guint i = 0; i < nc; i++) {
        WeftTraceCollective want = make_collective (i);
        assert_collective_eq (&colls[i], &want);
    }
    g_free (colls);
}
END_TEST

START_TEST (test_trace_create_in_missing_directory_fails)
{
    char *path = g_build_filename (tmpdir, "no", "such", "dir", "t.h5", NULL);
    GError *error = NULL;
    WeftTrace *t = weft_trace_create (path, &test_meta, &error);
    ck_assert_ptr_null (t);
    ck_assert (g_error_matches (error, WEFT_TRACE_ERROR, WEFT_TRACE_ERROR_OPEN));
    ck_assert_ptr_nonnull (strstr (error->message, path));
    ck_assert_ptr_null (strchr (error->message, '\n'));
    g_error_free (error);
    g_free (path);
}
END_TEST

START_TEST (test_trace_abandoned_is_incomplete)
{
    char *path = tmp_path ("abandoned.h5");
    GError *error = NULL;
    WeftTrace *t = write_flows (path, 100);
    weft_trace_flush (t);
    weft_trace_abandon (t);
    ck_assert (!g_file_test (path, G_FILE_TEST_EXISTS));
    g_autofree char *partial = weft_trace_partial_path (path);
    WeftTraceInfo *info = weft_trace_reader_open (partial, &error);
    ck_assert_msg (info != NULL, "%s", error ? error->message : "?");
    ck_assert (info->readable);
    ck_assert (!info->complete);
    ck_assert_int_eq (info->status, WEFT_TRACE_STATUS_RUNNING);
    ck_assert_ptr_nonnull (strstr (info->reason, "running"));
    ck_assert_int_eq (info->n_flows, 100);
    weft_trace_info_free (info);
    g_free (path);
}
END_TEST

START_TEST (test_trace_truncated_copy_is_not_complete)
{
    char *path = tmp_path ("whole.h5"), *cut = tmp_path ("cut.h5");
    GError *error = NULL;
    close_ok (write_full (path), WEFT_TRACE_STATUS_DONE, NULL);
    char *bytes = NULL;
    gsize len = 0;
    ck_assert (g_file_get_contents (path, &bytes, &len, NULL));
    ck_assert (g_file_set_contents (cut, bytes, len / 2, NULL));
    g_free (bytes);

    WeftTraceInfo *info = weft_trace_reader_open (cut, &error);
    if (info != NULL) {
        ck_assert (!info->complete);
        ck_assert (!info->readable);
        ck_assert_ptr_nonnull (info->reason);
        ck_assert_ptr_null (strchr (info->reason, '\n'));
        weft_trace_info_free (info);
    } else {
        ck_assert (g_error_matches (error, WEFT_TRACE_ERROR, WEFT_TRACE_ERROR_READ));
        g_clear_error (&error);
    }
    GArray *flows = weft_trace_reader_flows (cut, &error);
    ck_assert_ptr_null (flows);
    ck_assert (g_error_matches (error, WEFT_TRACE_ERROR, WEFT_TRACE_ERROR_READ));
    ck_assert_ptr_nonnull (strstr (error->message, "/flows"));
    g_clear_error (&error);
    g_free (path);
    g_free (cut);
}
END_TEST

START_TEST (test_trace_not_a_trace)
{
    char *text = tmp_path ("text.h5"), *missing = tmp_path ("missing.h5");
    GError *error = NULL;
    ck_assert (g_file_set_contents (text, "[experiment]\n", -1, NULL));
    ck_assert_ptr_null (weft_trace_reader_open (text, &error));
    ck_assert (g_error_matches (error, WEFT_TRACE_ERROR, WEFT_TRACE_ERROR_READ));
    ck_assert_ptr_nonnull (strstr (error->message, "not an HDF5 file"));
    g_clear_error (&error);
    ck_assert_ptr_null (weft_trace_reader_open (missing, &error));
    ck_assert (g_error_matches (error, WEFT_TRACE_ERROR, WEFT_TRACE_ERROR_READ));
    g_clear_error (&error);
    g_free (text);
    g_free (missing);
}
END_TEST

/* Across ranks (sim/trace.h): rows appended out of event order come out of the gather in
 * (time, key) order, rows of one event in the order they were appended, and the rows every
 * rank appends at one sampling event by the order each was given; rows are held, never
 * written early, however many there are (more than a chunk here); the topology written
 * before stays.  One rank: the gather is the merge alone. */
START_TEST (test_trace_ranked_rows_merge_in_event_order)
{
    char *path = tmp_path ("ranked.h5");
    GError *error = NULL;
    WeftTrace *t = weft_trace_create (path, &test_meta, &error);
    ck_assert_msg (t != NULL, "%s", error ? error->message : "?");
    WeftTraceNode nodes[N_NODES];
    for (guint i = 0; i < N_NODES; i++)
        nodes[i] = make_node (i);
    weft_trace_write_nodes (t, nodes, N_NODES);
    weft_time_t now = 0;
    guint64 key = 0;
    weft_trace_set_ranked (t, &now, &key);
    /* 3000 events, appended latest first, each one flow row: ids come out reversed. */
    enum { N = 3000 };
    for (guint i = 0; i < N; i++) {
        now = (weft_time_t) (N - i) * 1000;
        key = 7;
        WeftTraceFlow f = make_flow (i);
        weft_trace_append_flow (t, &f);
    }
    /* one event at 500 ps with two rows, and before it (same time, lower key) one more */
    now = 500;
    key = G_GUINT64_CONSTANT (9) << 32;
    WeftTraceFlow a = make_flow (N), b = make_flow (N + 1), c = make_flow (N + 2);
    weft_trace_append_flow (t, &a);
    weft_trace_append_flow (t, &b);
    key = G_GUINT64_CONSTANT (2) << 32;
    weft_trace_append_flow (t, &c);
    /* a sampling event: the row of port 5 appended before that of port 2 */
    now = 700;
    key = 1;
    WeftTraceLinkSample s5 = make_sample (5), s2 = make_sample (2);
    weft_trace_set_order (t, 5);
    weft_trace_append_link_sample (t, &s5);
    weft_trace_set_order (t, 2);
    weft_trace_append_link_sample (t, &s2);
    weft_trace_set_order (t, 0);
    WeftParallel one = { 0, 1, FALSE };
    weft_trace_gather (t, &one, NULL, NULL);
    close_ok (t, WEFT_TRACE_STATUS_DONE, NULL);

    WeftTraceInfo *info = weft_trace_reader_open (path, &error);
    ck_assert_msg (info != NULL, "%s", error ? error->message : "?");
    ck_assert_int_eq (info->n_nodes, N_NODES);
    weft_trace_info_free (info);
    GArray *flows = weft_trace_reader_flows (path, &error);
    ck_assert_msg (flows != NULL, "%s", error ? error->message : "?");
    ck_assert_uint_eq (flows->len, N + 3);
    ck_assert_uint_eq (g_array_index (flows, WeftTraceFlow, 0).id, N + 2);
    ck_assert_uint_eq (g_array_index (flows, WeftTraceFlow, 1).id, N);
    ck_assert_uint_eq (g_array_index (flows, WeftTraceFlow, 2).id, N + 1);
    for (guint k = 0; k < N; k++)
        ck_assert_uint_eq (g_array_index (flows, WeftTraceFlow, 3 + k).id, N - 1 - k);
    g_array_free (flows, TRUE);
    GArray *samples = weft_trace_reader_link_samples (path, &error);
    ck_assert_msg (samples != NULL, "%s", error ? error->message : "?");
    ck_assert_uint_eq (samples->len, 2);
    ck_assert_uint_eq (g_array_index (samples, WeftTraceLinkSample, 0).packets, 2);
    ck_assert_uint_eq (g_array_index (samples, WeftTraceLinkSample, 1).packets, 5);
    g_array_free (samples, TRUE);
    g_free (path);
}
END_TEST

/* Across ranks, a sender's rank samples a flow (/dcqcn, /uet) until it hears, at the window's
 * end, that the flow finished on its receiver's rank: the gather drops every such row whose
 * flow's /flows row comes before it, keeps the rows before the finish and those of flows not
 * finished, and gives each /flows row to the patch (the sender's columns). */
static void
patch_retransmits (WeftTraceFlow *row, void *data)
{
    row->retransmits = GPOINTER_TO_UINT (data) + row->id;
}

START_TEST (test_trace_ranked_drops_samples_after_finish)
{
    char *path = tmp_path ("ranked-drop.h5");
    GError *error = NULL;
    WeftTrace *t = weft_trace_create (path, &test_meta, &error);
    ck_assert_msg (t != NULL, "%s", error ? error->message : "?");
    weft_time_t now = 0;
    guint64 key = 0;
    weft_trace_set_ranked (t, &now, &key);
    /* samples at 50 ps of flows 7 and 8, then flow 7 finishes at 100 ps, then samples at 200 ps
     * of both (flow 7's is stale), then at 100 ps, a later key, a sample of flow 7 (stale) */
    guint32 flows[] = { 7, 8 };
    for (guint at = 50; at <= 200; at += 150)
        for (guint k = 0; k < 2; k++) {
            now = at;
            key = 3;
            weft_trace_set_order (t, flows[k]);
            WeftTraceDcqcnSample d = { .time_ps = at, .flow = flows[k] };
            WeftTraceUetSample u = { .time_ps = at, .flow = flows[k] };
            weft_trace_append_dcqcn_sample (t, &d);
            weft_trace_append_uet_sample (t, &u);
            weft_trace_set_order (t, 0);
            if (at == 50 && k == 1) {
                now = 100;
                key = 2;
                WeftTraceFlow f = make_flow (7);
                weft_trace_append_flow (t, &f);
            }
        }
    now = 100;
    key = 2;
    WeftTraceDcqcnSample late = { .time_ps = 100, .flow = 7 };
    weft_trace_set_order (t, 7);
    weft_trace_append_dcqcn_sample (t, &late); /* same (time, key) as the finish: kept */
    key = 4;
    late.time_ps = 101;
    weft_trace_append_dcqcn_sample (t, &late); /* after it: dropped */
    weft_trace_set_order (t, 0);
    WeftParallel one = { 0, 1, FALSE };
    weft_trace_gather (t, &one, patch_retransmits, GUINT_TO_POINTER (1000));
    close_ok (t, WEFT_TRACE_STATUS_DONE, NULL);

    GArray *fl = weft_trace_reader_flows (path, &error);
    ck_assert_msg (fl != NULL, "%s", error ? error->message : "?");
    ck_assert_uint_eq (fl->len, 1);
    ck_assert_uint_eq (g_array_index (fl, WeftTraceFlow, 0).retransmits, 1007);
    g_array_free (fl, TRUE);
    GArray *dc = weft_trace_reader_dcqcn_samples (path, &error);
    ck_assert_msg (dc != NULL, "%s", error ? error->message : "?");
    guint64 want_t[] = { 50, 50, 100, 200 };
    guint32 want_f[] = { 7, 8, 7, 8 };
    ck_assert_uint_eq (dc->len, G_N_ELEMENTS (want_t));
    for (guint k = 0; k < dc->len; k++) {
        ck_assert_uint_eq (g_array_index (dc, WeftTraceDcqcnSample, k).time_ps, want_t[k]);
        ck_assert_uint_eq (g_array_index (dc, WeftTraceDcqcnSample, k).flow, want_f[k]);
    }
    g_array_free (dc, TRUE);
    GArray *ue = weft_trace_reader_uet_samples (path, &error);
    ck_assert_msg (ue != NULL, "%s", error ? error->message : "?");
    ck_assert_uint_eq (ue->len, 3);
    ck_assert_uint_eq (g_array_index (ue, WeftTraceUetSample, 2).time_ps, 200);
    ck_assert_uint_eq (g_array_index (ue, WeftTraceUetSample, 2).flow, 8);
    g_array_free (ue, TRUE);
    g_free (path);
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("trace");
    TCase *tc = tcase_create ("write-read");
    tcase_add_checked_fixture (tc, setup, teardown);
    tcase_set_timeout (tc, 60);
    tcase_add_test (tc, test_trace_roundtrip_every_field);
    tcase_add_test (tc, test_trace_flush_due_by_events_and_rows);
    tcase_add_test (tc, test_trace_reads_schema_1);
    tcase_add_test (tc, test_trace_collectives_absent_before_schema_3);
    tcase_add_test (tc, test_trace_schema4_sets_absent_before_schema_4);
    tcase_add_test (tc, test_trace_roundtrip_schema4_sets);
    tcase_add_test (tc, test_trace_end_status_and_message);
    tcase_add_test (tc, test_trace_cut_short_is_incomplete);
    tcase_add_test (tc, test_trace_empty_datasets_exist);
    tcase_add_test (tc, test_trace_datasets_shuffled_then_deflated_fast);
    tcase_add_test (tc, test_trace_direct_chunks_read_back_across_flushes);
    tcase_add_test (tc, test_trace_create_in_missing_directory_fails);
    tcase_add_test (tc, test_trace_abandoned_is_incomplete);
    tcase_add_test (tc, test_trace_truncated_copy_is_not_complete);
    tcase_add_test (tc, test_trace_not_a_trace);
    tcase_add_test (tc, test_trace_ranked_rows_merge_in_event_order);
    tcase_add_test (tc, test_trace_ranked_drops_samples_after_finish);
    suite_add_tcase (s, tc);
    return s;
}
