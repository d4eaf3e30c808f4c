/* tests/check_buffer.c - the shared switch buffer ([switch] buffer_sharing, models/buffer.h).
 *
 * Invariants checked:
 *  - the admission arithmetic against hand-computed cases: static (queue + packet <= limit),
 *    dynamic (queue < alpha x free), the pool's own bound, ties at the boundaries; fed one
 *    queue with no departures, the dynamic rule stops it within a packet above
 *    alpha B / (1 + alpha); the counters (used = sum of queues, peak, drops) as packets are
 *    charged and released;
 *  - end to end on one switch (Ethernet, windows large enough to fill any buffer): one
 *    congested queue peaks at alpha B / (1 + alpha) within two packets for alpha = 1/2, 1, 2;
 *    two congested queues at alpha B / (1 + 2 alpha) each while both fill (the first 6 us,
 *    before go-back-N recovery lets one drain and the other grow); a static threshold caps a queue
 *    at queue_limit (within one packet below); the drops are counted as threshold drops and
 *    as the egress port's drops, and every byte is still delivered;
 *  - at every sample of those runs, and of the RoCE runs: each pool's used counter equals the
 *    sum of its queue counters, equals the bytes of the packets waiting in the switch's
 *    egress queues (PAUSE frames aside), and never exceeds shared_buffer; with PFC, also the
 *    sum of the ingress priority groups' counts;
 *  - RoCE, PFC and a dynamic pool with `xoff = dynamic`: a 16-to-1 incast drops nothing, has
 *    no lossless violation and no retransmission, pauses its senders, and no ingress group
 *    holds more than alpha S / (1 + 16 alpha) + headroom + a packet while all 16 are congested
 *    (the first 50 us), S being the pool less one headroom per port, and the largest holds at
 *    least alpha S / (1 + 16 alpha); the pool's headroom count matches the groups'; without
 * headroom, and an xoff the pool cannot reach, lossless packets are dropped, counted as violations
 * and pool-full drops;
 *  - configuration: keys that the chosen sharing ignores are refused naming [switch] and the
 *    key; `xoff = dynamic` without a pool, sharing on InfiniBand, a malformed xoff and a pool
 *    smaller than the ports' headroom are refused.
 *  - /buffers: every sample within the pool's size, used <= the interval's max, the samples'
 *    peak and drops equal to the pool's own totals;
 * Leaves unchecked: mixes of lossy and lossless traffic (PFC here protects every priority),
 * multi-switch fabrics (the rule is per switch).
 */
#include "config.h"
#include <check.h>
#include <string.h>

#include "analysis/trace_reader.h"
#include "cli/session.h"
#include "models/buffer.h"
#include "models/nic.h"
#include "models/switch.h"
#include "tests/harness.h"

#define PKT 4178u /* 4096 B of payload + 82 B of Ethernet/RoCE headers */

/* ---- the arithmetic ------------------------------------------------------------------- */

START_TEST (test_buffer_static_decisions)
{
    WeftBufferConfig cfg = { .sharing = WEFT_BUFFER_STATIC,
                             .total_bytes = 100000,
                             .queue_limit_bytes = 30000 };
    ck_assert_int_eq (weft_buffer_decide (&cfg, 0, 0, PKT), WEFT_BUFFER_ADMIT);
    ck_assert_int_eq (weft_buffer_decide (&cfg, 26000, 26000, 4000), WEFT_BUFFER_ADMIT);
    ck_assert_int_eq (weft_buffer_decide (&cfg, 26001, 26001, 4000), WEFT_BUFFER_DROP_THRESHOLD);
    /* Other queues' bytes do not matter below the pool's bound ... */
    ck_assert_int_eq (weft_buffer_decide (&cfg, 90000, 0, 10000), WEFT_BUFFER_ADMIT);
    /* ... and the pool's bound holds whatever the queue. */
    ck_assert_int_eq (weft_buffer_decide (&cfg, 90001, 0, 10000), WEFT_BUFFER_DROP_FULL);
    ck_assert_int_eq (weft_buffer_decide (&cfg, 97000, 29000, PKT), WEFT_BUFFER_DROP_FULL);
}
END_TEST

START_TEST (test_buffer_dynamic_decisions)
{
    WeftBufferConfig cfg = { .sharing = WEFT_BUFFER_DYNAMIC, .total_bytes = 1000000, .alpha = 1 };
    /* alpha = 1, alone: free 600000 > 400000. */
    ck_assert_int_eq (weft_buffer_decide (&cfg, 400000, 400000, PKT), WEFT_BUFFER_ADMIT);
    /* 499999 < 500001 admits; 500000 < 500000 does not. */
    ck_assert_int_eq (weft_buffer_decide (&cfg, 499999, 499999, PKT), WEFT_BUFFER_ADMIT);
    ck_assert_int_eq (weft_buffer_decide (&cfg, 500000, 500000, PKT), WEFT_BUFFER_DROP_THRESHOLD);
    /* Other queues shrink the free space: 800000 used, 200000 free. */
    ck_assert_int_eq (weft_buffer_decide (&cfg, 800000, 199999, PKT), WEFT_BUFFER_ADMIT);
    ck_assert_int_eq (weft_buffer_decide (&cfg, 800000, 200000, PKT), WEFT_BUFFER_DROP_THRESHOLD);
    ck_assert_int_eq (weft_buffer_decide (&cfg, 999000, 0, PKT), WEFT_BUFFER_DROP_FULL);
    /* alpha = 2: 2 x 334000 = 668000 > 666000; 2 x 333000 = 666000 < 667000. */
    cfg.alpha = 2;
    ck_assert_int_eq (weft_buffer_decide (&cfg, 666000, 666000, PKT), WEFT_BUFFER_ADMIT);
    ck_assert_int_eq (weft_buffer_decide (&cfg, 667000, 667000, PKT), WEFT_BUFFER_DROP_THRESHOLD);
    /* alpha = 1/2: 0.5 x 666667 = 333333.5 > 333333; 0.5 x 666666 = 333333. */
    cfg.alpha = 0.5;
    ck_assert_int_eq (weft_buffer_decide (&cfg, 333333, 333333, PKT), WEFT_BUFFER_ADMIT);
    ck_assert_int_eq (weft_buffer_decide (&cfg, 333334, 333334, PKT), WEFT_BUFFER_DROP_THRESHOLD);
    ck_assert_uint_eq (weft_buffer_dynamic_limit (1, 12345), 12345);
    ck_assert_uint_eq (weft_buffer_dynamic_limit (0.5, 1001), 500);
    ck_assert_uint_eq (weft_buffer_dynamic_limit (8, 1000), 8000);
    /* Sharing off admits everything (the ports' own caps apply). */
    cfg.sharing = WEFT_BUFFER_NONE;
    ck_assert_int_eq (weft_buffer_decide (&cfg, 0, 500000, PKT), WEFT_BUFFER_ADMIT);
}
END_TEST

/* One queue fed packets with nothing leaving stops growing within a packet above
 * alpha B / (1 + alpha): the fixed point of q = alpha (B - q). */
START_TEST (test_buffer_dynamic_fixed_point)
{
    const double alphas[] = { 0.125, 0.5, 1, 2, 8 };
    for (guint i = 0; i < G_N_ELEMENTS (alphas); i++) {
        WeftBufferConfig cfg = { .sharing = WEFT_BUFFER_DYNAMIC,
                                 .total_bytes = 1 << 20,
                                 .alpha = alphas[i] };
        WeftBuffer buf;
        weft_buffer_init (&buf, &cfg, 4);
        while (weft_buffer_admit (&buf, 2, PKT) == WEFT_BUFFER_ADMIT)
            ;
        double expect = alphas[i] * (1 << 20) / (1 + alphas[i]);
        ck_assert_msg (buf.queue_bytes[2] >= expect && buf.queue_bytes[2] < expect + PKT,
                       "alpha %g: queue %" G_GUINT64_FORMAT ", expected [%.0f, %.0f)", alphas[i],
                       buf.queue_bytes[2], expect, expect + PKT);
        ck_assert_uint_eq (buf.drops_threshold, 1);
        weft_buffer_clear (&buf);
    }
}
END_TEST

START_TEST (test_buffer_counters)
{
    WeftBufferConfig cfg = { .sharing = WEFT_BUFFER_STATIC,
                             .total_bytes = 10000,
                             .queue_limit_bytes = 6000 };
    WeftBuffer buf;
    weft_buffer_init (&buf, &cfg, 3);
    ck_assert_int_eq (weft_buffer_admit (&buf, 0, 5000), WEFT_BUFFER_ADMIT);
    ck_assert_int_eq (weft_buffer_admit (&buf, 0, 2000), WEFT_BUFFER_DROP_THRESHOLD);
    ck_assert_int_eq (weft_buffer_admit (&buf, 1, 4000), WEFT_BUFFER_ADMIT);
    ck_assert_int_eq (weft_buffer_admit (&buf, 2, 2000), WEFT_BUFFER_DROP_FULL);
    weft_buffer_charge (&buf, 2, 1000); /* lossless: no threshold */
    ck_assert_uint_eq (weft_buffer_used (&buf), 10000);
    ck_assert_uint_eq (weft_buffer_free (&buf), 0);
    weft_buffer_release (&buf, 0, 5000);
    ck_assert_uint_eq (weft_buffer_used (&buf), 5000);
    ck_assert_uint_eq (buf.queue_bytes[0] + buf.queue_bytes[1] + buf.queue_bytes[2], 5000);
    ck_assert_uint_eq (buf.peak_bytes, 10000);
    ck_assert_uint_eq (buf.drops_threshold, 1);
    ck_assert_uint_eq (buf.drops_full, 1);
    weft_buffer_clear (&buf);
}
END_TEST

/* ---- the books, at every sample ------------------------------------------------------- */

static guint book_errors, book_samples;
/* Until early_until: each switch port's largest queue and RDMA-priority ingress group seen at a
 * sample (single-switch runs). */
#define MAX_PORTS 32
static weft_time_t early_until;
static guint64 early_q[MAX_PORTS], early_group[MAX_PORTS];

static void
check_books (WeftSim *sim, void *data)
{
    book_samples++;
    for (guint i = 0; i < sim->models->len; i++) {
        const WeftModel *m = sim->models->pdata[i];
        if (m->klass != &weft_switch_class || !((const WeftSwitch *) m)->buffer)
            continue;
        const WeftSwitch *sw = (const WeftSwitch *) m;
        const WeftBuffer *buf = sw->buffer;
        guint64 held = 0, queues = 0, ingress = 0, headroom = 0;
        for (guint o = 0; sim->now <= early_until && o < MIN (sw->n_ports, MAX_PORTS); o++) {
            early_q[o] = MAX (early_q[o], sw->ports[o].q_bytes);
            if (sw->pfc_ingress)
                early_group[o] = MAX (early_group[o], weft_pfc_rx (sw->ports[o].pfc, 3)->used);
        }
        for (guint o = 0; o < sw->n_ports; o++)
            for (guint c = 0; sw->ports[o].owner && c < WEFT_PORT_CLASSES; c++) {
                guint64 q = 0;
                for (const WeftPacket *p = sw->ports[o].q[c].head; p; p = p->next)
                    if (p->kind != WEFT_PKT_CREDIT && p->hop > 0)
                        q += p->size;
                held += q;
                book_errors += q != buf->queue_bytes[o * WEFT_PORT_CLASSES + c];
            }
        for (guint q = 0; q < buf->n_queues; q++)
            queues += buf->queue_bytes[q];
        for (guint in = 0; sw->pfc_ingress && in < sw->n_ports; in++)
            for (guint prio = 0; sw->ports[in].owner && prio < WEFT_PFC_PRIOS; prio++) {
                ingress += weft_pfc_rx (sw->ports[in].pfc, prio)->used;
                headroom += weft_pfc_headroom_used (sw->ports[in].pfc, prio);
            }
        book_errors += held != weft_buffer_used (buf) || queues != weft_buffer_used (buf);
        book_errors += sw->pfc_ingress && ingress != weft_buffer_used (buf);
        book_errors += headroom != buf->headroom_bytes;
        book_errors += weft_buffer_used (buf) > buf->cfg->total_bytes;
        book_errors += buf->peak_bytes > buf->cfg->total_bytes;
    }
}

static void
watch_books (WeftSession *s, weft_time_t early)
{
    book_errors = book_samples = 0;
    early_until = early;
    memset (early_q, 0, sizeof early_q);
    memset (early_group, 0, sizeof early_group);
    s->sim->sample = check_books;
    s->sim->sample_data = s->net;
    s->sim->sample_interval = WEFT_NS (300); /* an odd period, to land mid-packet */
}

/* ---- end to end ----------------------------------------------------------------------- */

/* Ethernet, one switch, 400 Gb/s, windows of 4 MiB: every sender may fill any buffer. */
#define ETH                                                                                        \
    "[topology]\ngenerator = single_switch\nhosts = 18\nlink_rate = 400Gbps\n"                     \
    "cable_length = 2m\n[fabric]\nkind = ethernet\n[transport]\nwindow = 4MiB\n"

/* The switch's port toward @host. */
static const WeftPort *
port_toward (const WeftSession *s, const char *host)
{
    guint32 h = weft_graph_lookup (s->graph, host);
    for (guint i = 0; i < s->net->ports->len; i++) {
        const WeftPort *p = s->net->ports->pdata[i];
        if (p->owner->klass == &weft_switch_class && p->link.peer->node == h)
            return p;
    }
    ck_abort_msg ("no port toward %s", host);
    return NULL;
}

static const WeftBuffer *
pool_of (const WeftSession *s)
{
    for (guint i = 0; i < s->sim->models->len; i++) {
        const WeftModel *m = s->sim->models->pdata[i];
        if (m->klass == &weft_switch_class && ((const WeftSwitch *) m)->buffer)
            return ((const WeftSwitch *) m)->buffer;
    }
    ck_abort_msg ("no switch with a shared buffer");
    return NULL;
}

/* @senders flows of @size into each host of @receivers (host0, host17), from host1... */
static char *
incast (guint receivers, guint senders, const char *size, const char *sw)
{
    GString *t = g_string_new (ETH);
    g_string_append_printf (t, "[switch]\n%s\n[workload.w]\nkind = flows\nflows = ", sw);
    guint h = 1;
    for (guint r = 0; r < receivers; r++)
        for (guint i = 0; i < senders; i++, h++)
            g_string_append_printf (t, "%shost%u>host%u %s", h > 1 ? "; " : "", h, r == 0 ? 0 : 17,
                                    size);
    g_string_append_c (t, '\n');
    return g_string_free (t, FALSE);
}

static void
run_checked (WeftSession *s, guint flows, weft_time_t early)
{
    watch_books (s, early);
    ck_assert_int_eq (weft_sim_run (s->sim), WEFT_SIM_DONE);
    ck_assert_uint_gt (book_samples, 100);
    ck_assert_uint_eq (book_errors, 0);
    WeftNetworkStats st;
    weft_network_stats (s->net, &st);
    ck_assert_uint_eq (st.finished, flows);
    ck_assert_uint_eq (st.bytes_delivered, st.bytes_offered);
    const WeftBuffer *buf = pool_of (s);
    ck_assert_uint_eq (weft_buffer_used (buf), 0);
    ck_assert_uint_le (buf->peak_bytes, buf->cfg->total_bytes);
    /* Threshold and pool-full drops are the switch's port drops (no port has a cap of its own). */
    ck_assert_uint_eq (st.drops, buf->drops_threshold + buf->drops_full);
}

START_TEST (test_buffer_dynamic_one_congested_queue)
{
    const double alphas[] = { 0.5, 1, 2 };
    const guint64 B = 1 << 20;
    for (guint i = 0; i < G_N_ELEMENTS (alphas); i++) {
        g_autofree char *sw = g_strdup_printf ("buffer_sharing = dynamic\nshared_buffer = 1MiB\n"
                                               "alpha = %g",
                                               alphas[i]);
        g_autofree char *text = incast (1, 8, "512KiB", sw);
        WeftSession s;
        harness_prepare (&s, text);
        run_checked (&s, 8, 0);
        double expect = alphas[i] * B / (1 + alphas[i]);
        guint64 peak = port_toward (&s, "host0")->max_q;
        fprintf (stderr,
                 "# alpha %g: congested queue peak %" G_GUINT64_FORMAT " B, alpha B/(1+alpha) = "
                 "%.0f B\n",
                 alphas[i], peak, expect);
        ck_assert_msg (peak >= expect - 2 * PKT && peak <= expect + 2 * PKT,
                       "alpha %g: peak %" G_GUINT64_FORMAT ", expected %.0f +- 2 packets",
                       alphas[i], peak, expect);
        ck_assert_uint_gt (pool_of (&s)->drops_threshold, 0);
        weft_session_clear (&s);
    }
}
END_TEST

START_TEST (test_buffer_dynamic_two_congested_queues)
{
    const guint64 B = 1 << 20;
    const double alpha = 1;
    g_autofree char *text =
        incast (2, 8, "256KiB", "buffer_sharing = dynamic\nshared_buffer = 1MiB\nalpha = 1");
    WeftSession s;
    harness_prepare (&s, text);
    run_checked (&s, 16, WEFT_US (6));
    double expect = alpha * B / (1 + 2 * alpha);
    const WeftPort *pa = port_toward (&s, "host0"), *pb = port_toward (&s, "host17");
    guint64 a = early_q[pa->index], b = early_q[pb->index];
    fprintf (stderr,
             "# two queues: peaks %" G_GUINT64_FORMAT " and %" G_GUINT64_FORMAT
             " B while both fill (whole run: %" G_GUINT64_FORMAT " and %" G_GUINT64_FORMAT
             " B), alpha B/(1+2 alpha) = %.0f B (one alone: %.0f B)\n",
             a, b, pa->max_q, pb->max_q, expect, alpha * B / (1 + alpha));
    ck_assert (a >= expect - 2 * PKT && a <= expect + 2 * PKT);
    ck_assert (b >= expect - 2 * PKT && b <= expect + 2 * PKT);
    weft_session_clear (&s);
}
END_TEST

START_TEST (test_buffer_static_limit_caps_a_queue)
{
    const guint64 limit = 200000;
    g_autofree char *text = incast (2, 8, "256KiB",
                                    "buffer_sharing = static\nshared_buffer = 1MiB\n"
                                    "queue_limit = 200000B");
    WeftSession s;
    harness_prepare (&s, text);
    run_checked (&s, 16, WEFT_US (6));
    guint64 a = port_toward (&s, "host0")->max_q, b = port_toward (&s, "host17")->max_q;
    fprintf (stderr,
             "# static: peaks %" G_GUINT64_FORMAT " and %" G_GUINT64_FORMAT
             " B, queue_limit %" G_GUINT64_FORMAT " B\n",
             a, b, limit);
    ck_assert_uint_le (a, limit);
    ck_assert_uint_le (b, limit);
    ck_assert_uint_gt (a, limit - PKT);
    ck_assert_uint_gt (b, limit - PKT);
    ck_assert_uint_gt (pool_of (&s)->drops_threshold, 0);
    ck_assert_uint_eq (pool_of (&s)->drops_full, 0); /* 2 x 200000 < 1 MiB */
    weft_session_clear (&s);
}
END_TEST

/* RoCE, PFC on, ECN and DCQCN off: nothing but pauses paces the 16 senders.  A 1.05 ms RC
 * timeout (rc_timeout = 8), as in tests/check_pfc.c. */
#define ROCE                                                                                       \
    "[topology]\ngenerator = single_switch\nhosts = 17\nlink_rate = 400Gbps\n"                     \
    "cable_length = 2m\n[fabric]\nkind = roce\n[ecn]\nenabled = false\n[dcqcn]\nenabled = false\n" \
    "[transport]\nrc_timeout = 8\n"                                                                \
    "[workload.in]\nkind = incast\nsenders = 16\nreceiver = host0\nflow_size = 1MiB\n"

START_TEST (test_buffer_pfc_dynamic_xoff_is_lossless)
{
    const guint64 B = 4 << 20;
    const double alpha = 1;
    WeftSession s;
    harness_prepare (&s, ROCE "[switch]\nbuffer_sharing = dynamic\nshared_buffer = 4MiB\n"
                              "[pfc]\nxoff = dynamic\nalpha = 1\n");
    watch_books (&s, WEFT_US (50));
    ck_assert_int_eq (weft_sim_run (s.sim), WEFT_SIM_DONE);
    ck_assert_uint_gt (book_samples, 100);
    ck_assert_uint_eq (book_errors, 0);
    WeftNetworkStats st;
    weft_network_stats (s.net, &st);
    const WeftBuffer *buf = pool_of (&s);
    ck_assert_uint_eq (st.finished, 16);
    ck_assert_uint_eq (st.drops, 0);
    ck_assert_uint_eq (st.pfc_violations, 0);
    ck_assert_uint_eq (st.retransmits, 0);
    ck_assert_uint_eq (st.bytes_delivered, st.bytes_offered);
    ck_assert_uint_gt (st.pfc_pauses_sent, 0);
    ck_assert_uint_eq (st.buffer_drops_full + st.buffer_drops_threshold, 0);
    /* Headroom: 2 x (10 ns + 300 ns / 2 of switch latency) x 50 B/ns + 3 x 4178 + 84 +
     * 905 x 64 (tests/check_pfc.c), one per port (17) set aside; the 16 groups fill together to
     * alpha S / (1 + 16 alpha) of the rest. */
    const guint64 headroom = 2 * (10 + 300 / 2) * 50 + 3 * PKT + 84 + 905 * 64; /* models/pfc.h */
    const guint64 S = B - 17 * headroom;
    ck_assert_uint_eq (buf->reserved_bytes, 17 * headroom);
    double group = alpha * S / (1 + 16 * alpha);
    guint64 most = 0;
    for (guint i = 0; i < s.net->ports->len; i++) {
        const WeftPort *p = s.net->ports->pdata[i];
        if (p->owner->klass == &weft_switch_class)
            most = MAX (most, early_group[p->index]);
    }
    fprintf (stderr,
             "# pfc, xoff = dynamic: pool peak %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
             " B; largest ingress group in the first 50 us %" G_GUINT64_FORMAT " B, alpha S/(1+16 "
             "alpha) = %.0f B, + headroom = %.0f B\n",
             buf->peak_bytes, B, most, group, group + headroom);
    ck_assert_uint_le (buf->peak_bytes, B);
    /* The groups reach their shared threshold, and take no more than the headroom above it. */
    ck_assert (most >= group && most <= group + headroom + PKT);
    weft_session_clear (&s);
}
END_TEST

START_TEST (test_buffer_pfc_without_headroom_overflows_the_pool)
{
    /* No headroom set aside and an xoff the pool cannot reach: the groups pause only when the
     * pool is full, and what is still on the wire is dropped - lossless violations. */
    WeftSession s;
    harness_prepare (&s, ROCE "[switch]\nbuffer_sharing = static\nshared_buffer = 256KiB\n"
                              "[pfc]\nxoff = 1GiB\nheadroom = 0B\n");
    watch_books (&s, 0);
    weft_sim_run (s.sim);
    ck_assert_uint_eq (book_errors, 0);
    WeftNetworkStats st;
    weft_network_stats (s.net, &st);
    ck_assert_uint_gt (st.buffer_drops_full, 0);
    ck_assert_uint_ge (st.pfc_violations, st.buffer_drops_full);
    ck_assert_uint_gt (st.pfc_pauses_sent, 0);
    ck_assert_uint_eq (st.buffer_drops_threshold, 0); /* lossless: no egress threshold */
    ck_assert_uint_le (st.buffer_peak_bytes, 256 * 1024);
    weft_session_clear (&s);
}
END_TEST

/* /buffers: the sampled occupancy of the one pool, within its bounds, with its peak and drops
 * matching the pool's own totals. */
START_TEST (test_buffer_trace_samples)
{
    g_autofree char *text =
        incast (1, 8, "256KiB", "buffer_sharing = dynamic\nshared_buffer = 1MiB\nalpha = 1");
    WeftSession s;
    harness_prepare (&s, text);
    g_autofree char *path = g_build_filename (harness_tmp, "buffers.h5", NULL);
    const WeftTraceMeta meta = { .weft_version = "test",
                                 .git_revision = "test",
                                 .experiment_text = "",
                                 .experiment_path = "t.ini" };
    g_autoptr (GError) error = NULL;
    WeftTrace *trace = weft_trace_create (path, &meta, &error);
    ck_assert_msg (trace != NULL, "%s", error ? error->message : "?");
    weft_network_attach_trace (s.net, trace, WEFT_US (1));
    ck_assert_int_eq (weft_sim_run (s.sim), WEFT_SIM_DONE);
    weft_network_finish_trace (s.net);
    WeftTraceEnd end = { .status = WEFT_TRACE_STATUS_DONE,
                         .sim_time_ps = s.sim->now,
                         .message = "" };
    ck_assert (weft_trace_close (trace, &end, &error));
    const WeftBuffer *buf = pool_of (&s);
    guint32 node = weft_graph_lookup (s.graph, "sw0");
    GArray *rows = weft_trace_reader_buffer_samples (path, &error);
    ck_assert_msg (rows != NULL, "%s", error ? error->message : "?");
    ck_assert_uint_gt (rows->len, 10);
    guint64 peak = 0, drops = 0, last = 0;
    for (guint i = 0; i < rows->len; i++) {
        const WeftTraceBufferSample *r = &g_array_index (rows, WeftTraceBufferSample, i);
        ck_assert_uint_eq (r->node, node);
        ck_assert_uint_eq (r->total_bytes, 1 << 20);
        ck_assert_uint_le (r->used_bytes, r->max_bytes);
        ck_assert_uint_le (r->max_bytes, r->total_bytes);
        ck_assert_uint_gt (r->time_ps, last);
        last = r->time_ps;
        peak = MAX (peak, r->max_bytes);
        drops += r->drops;
    }
    ck_assert_uint_eq (peak, buf->peak_bytes);
    ck_assert_uint_eq (drops, buf->drops_threshold + buf->drops_full);
    ck_assert_uint_gt (drops, 0);
    g_array_unref (rows);
    weft_session_clear (&s);
}
END_TEST

/* ---- configuration -------------------------------------------------------------------- */

static void
refused (const char *text, const char *group, const char *key)
{
    WeftSession s;
    g_autoptr (GError) error = NULL;
    ck_assert (!harness_try_prepare (&s, text, &error));
    g_autofree char *where = g_strdup_printf ("[%s] %s", group, key);
    ck_assert_msg (g_error_matches (error, WEFT_CONFIG_ERROR, error->code) &&
                       strstr (error->message, where) && !strchr (error->message, '\n'),
                   "expected one line naming %s, got: %s", where, error->message);
    weft_session_clear (&s);
}

#define FLOW "[workload.w]\nkind = flows\nflows = host0>host1 1MiB\n"
#define TWO "[topology]\ngenerator = single_switch\nhosts = 2\n"

START_TEST (test_buffer_keys_checked)
{
    refused (TWO "[switch]\nbuffer_sharing = dynamic\nbuffer = 1MiB\n" FLOW, "switch", "buffer");
    refused (TWO "[switch]\nbuffer_sharing = static\nalpha = 2\n" FLOW, "switch", "alpha");
    refused (TWO "[switch]\nbuffer_sharing = dynamic\nqueue_limit = 1MiB\n" FLOW, "switch",
             "queue_limit");
    refused (TWO "[switch]\nshared_buffer = 1MiB\n" FLOW, "switch", "shared_buffer");
    refused (TWO "[switch]\nbuffer_sharing = shared\n" FLOW, "switch", "buffer_sharing");
    refused (TWO "[switch]\nbuffer_sharing = dynamic\nalpha = 0\n" FLOW, "switch", "alpha");
    refused (TWO "[fabric]\nkind = infiniband\n[switch]\nbuffer_sharing = dynamic\n" FLOW, "switch",
             "buffer_sharing");
    refused (TWO "[fabric]\nkind = roce\n[pfc]\nxoff = dynamic\n" FLOW, "pfc", "xoff");
    refused (TWO "[fabric]\nkind = roce\n[pfc]\nxoff = lots\n" FLOW, "pfc", "xoff");
    refused (TWO "[fabric]\nkind = roce\n[pfc]\nalpha = 2\n" FLOW, "pfc", "alpha");
    /* Two ports' headroom (2 x 71538 B at 400 Gb/s, 2 m) leave nothing of 128 KiB. */
    refused (TWO "[topology]\nlink_rate = 400Gbps\ncable_length = 2m\n[fabric]\nkind = roce\n"
                 "[switch]\nbuffer_sharing = dynamic\nshared_buffer = 128KiB\n" FLOW,
             "switch", "shared_buffer");
    /* And the accepted forms. */
    WeftSession s;
    harness_prepare (&s, TWO "[fabric]\nkind = roce\n[switch]\nbuffer_sharing = static\n"
                             "shared_buffer = 2MiB\nqueue_limit = 256KiB\n"
                             "[pfc]\nxoff = dynamic\nalpha = 0.5\n" FLOW);
    ck_assert (s.net->fabric.pfc.xoff_dynamic);
    ck_assert_uint_eq (pool_of (&s)->cfg->total_bytes, 2 << 20);
    weft_session_clear (&s);
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("buffer");
    TCase *tc = tcase_create ("arithmetic");
    tcase_add_test (tc, test_buffer_static_decisions);
    tcase_add_test (tc, test_buffer_dynamic_decisions);
    tcase_add_test (tc, test_buffer_dynamic_fixed_point);
    tcase_add_test (tc, test_buffer_counters);
    suite_add_tcase (s, tc);
    tc = tcase_create ("runs");
    tcase_add_checked_fixture (tc, harness_tmp_setup, harness_tmp_teardown);
    tcase_set_timeout (tc, 300);
    tcase_add_test (tc, test_buffer_dynamic_one_congested_queue);
    tcase_add_test (tc, test_buffer_dynamic_two_congested_queues);
    tcase_add_test (tc, test_buffer_static_limit_caps_a_queue);
    tcase_add_test (tc, test_buffer_pfc_dynamic_xoff_is_lossless);
    tcase_add_test (tc, test_buffer_pfc_without_headroom_overflows_the_pool);
    tcase_add_test (tc, test_buffer_trace_samples);
    tcase_add_test (tc, test_buffer_keys_checked);
    suite_add_tcase (s, tc);
    return s;
}
