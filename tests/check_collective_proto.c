/* tests/check_collective_proto.c - NCCL's protocols run through the network:
 * small-message times come out of the simulation, LL pays for its flags in
 * bytes on the wire, and /collectives says what ran.
 *
 * Checks:
 *  - small-message all-reduce on 32 GPUs (4 x DGX H100, experiments/dgx4.ini)
 * takes a time within the range measured on InfiniBand H100 clusters of 2 and 3
 * nodes (cited at the test), running tree/LL as NCCL would, on one channel;
 *  - a forced LL against a forced Simple, everything else equal: LL carries
 * exactly twice the bytes (16-byte lines of 8 data bytes) and so takes twice as
 * long once bandwidth-bound, on an ideal network (2 % of the analytic time) and
 * on two DGX H100 (the NICs' bytes twice, the bus bandwidth about half); LL128
 * carries 128/120 of the data;
 *  - /collectives records the algorithm and protocol of every row (tree/LL,
 * tree/LL128, ring/Simple when forced, P2P for alltoall), and NCCL's fewer
 * channels for small sizes;
 *  - the keys: explicit chunk, step_latency and base_latency override the
 * protocol's; bad algo, proto, chunk and step_latency values are refused naming
 * the key. Leaves unchecked: the tuning model's numbers
 * (tests/check_nccl_tune.c); the ring/Simple bandwidth bounds
 * (tests/check_collective_run.c).
 */
#include "config.h"
#include <check.h>
#include <string.h>

#include "cli/session.h"
#include "models/port.h"
#include "sim/errors.h"
#include "tests/harness.h"
#include "workloads/collective.h"

static void
run (WeftSession *s, const char *text)
{
    harness_prepare (s, text);
    ck_assert_int_eq (weft_sim_run (s->sim), WEFT_SIM_DONE);
}

static char *
dgx (guint servers, const char *extra)
{
    g_autofree char *dgx4 = harness_srcpath ("experiments/dgx4.ini");
    return g_strdup_printf ("[experiment]\ninclude = %s\n[topology]\nservers = %u\n"
                            "[fabric]\nkind = infiniband\nrouting = static\n%s",
                            dgx4, servers, extra);
}

/* The row of collective @c. */
static WeftTraceCollective
row_of (const WeftSession *s, guint32 c)
{
    WeftTraceCollective row;
    weft_network_collective_row (s->net, c, &row);
    return row;
}

START_TEST (test_collective_proto_small_all_reduce_on_32_gpus)
{
    /* Measured nccl-tests all_reduce_perf times for 8 B to 512 B on H100 clusters
     * with eight 400 Gb/s InfiniBand NICs per node:
     *  - 2 nodes x 8 (16 GPUs): 27.4-30.9 us out of place (NVIDIA/nccl issue
     * #1017, "NCCL allreduce is slow inside the container on H100 cluster", the
     * VM runs; about 1.5x that in containers);
     *  - 3 nodes x 8 (24 GPUs): 61.6-64.2 us (NVIDIA/nccl issue #1453, 8 B to 256
     * B). 32 GPUs on 4 nodes have one more tree level than 2 nodes, so they take
     * at least the 2-node time: the range is 25 to 65 us.  NCCL runs these on the
     * tree with LL, one channel. */
    g_autofree char *text = dgx (4, "[workload.ar]\nkind = nccl-test\nop = all_reduce\n"
                                    "minbytes = 8B\nmaxbytes = 512B\nstepfactor = 8\niters = 2\n"
                                    "warmup_iters = 1\n");
    WeftSession s;
    run (&s, text);
    guint timed = 0;
    for (guint32 c = 0; c < s.net->tp.n_colls; c++) {
        WeftTraceCollective r = row_of (&s, c);
        ck_assert_str_eq (r.algo, "Tree");
        ck_assert_str_eq (r.proto, "LL");
        if (r.warmup)
            continue;
        timed++;
        double us = weft_time_to_s (r.time_ps) * 1e6;
        ck_assert_msg (us >= 25 && us <= 65, "%" G_GUINT64_FORMAT " B: %.2f us", r.bytes, us);
        /* One channel: every flow of it on the same channel (the low byte of its
         * connection). */
        const WeftCollInstance *inst = &s.net->tp.colls[c].spec;
        for (guint32 i = 0; i < inst->n_flows; i++)
            ck_assert_uint_eq (s.net->tp.flows[inst->first_flow + i].spec.conn & 0xff, 0);
    }
    ck_assert_uint_eq (timed, 3 * 2 * 2); /* 8, 64, 512 B; out of place and in place; 2 each */
    weft_session_clear (&s);
}
END_TEST

/* Sum of the sizes of the flows of collective @c, and of every NIC's bytes to
 * the fabric. */
static guint64
flow_bytes (const WeftSession *s, guint32 c)
{
    const WeftCollInstance *inst = &s->net->tp.colls[c].spec;
    guint64 sum = 0;
    for (guint32 i = 0; i < inst->n_flows; i++)
        sum += s->net->tp.flows[inst->first_flow + i].spec.size_bytes;
    return sum;
}

static guint64
nic_bytes (const WeftSession *s)
{
    guint64 sum = 0;
    for (guint i = 0; i < s->net->ports->len; i++) {
        const WeftPort *p = s->net->ports->pdata[i];
        const WeftNode *from = weft_graph_node (s->graph, p->owner->node);
        const WeftNode *to = weft_graph_node (s->graph, p->link.peer->node);
        if (from->kind == WEFT_NODE_NIC && to->kind == WEFT_NODE_SWITCH)
            sum += p->tx_bytes;
    }
    return sum;
}

#define B                                                                                          \
    (100e9 / 8) /* bytes per second of every link of the ideal network                             \
                 */

START_TEST (test_collective_proto_ll_pays_in_wire_bytes)
{
    /* Ideal network (one switch, no headers, no latency), 4 hosts, ring
     * all-reduce of 64 MiB in 64 KiB slices, no step or base latency: the
     * protocol is the only difference.  Each host sends 2(n-1)/n x S of data; LL
     * puts it in 16-byte lines of 8 data bytes, so its bytes and its time are
     * twice Simple's (the time within 2 % of 2(n-1)/n x 2S / B). */
    const double S = 64.0 * 1024 * 1024;
    const char *protos[] = { "simple", "ll", "ll128" };
    double t[3];
    guint64 bytes[3];
    for (guint i = 0; i < 3; i++) {
        g_autofree char *text =
            g_strdup_printf ("[topology]\ngenerator = single_switch\nhosts = 4\nlink_rate = "
                             "100Gbps\n"
                             "cable_length = 0m\n[switch]\nlatency = 0ns\n[ethernet]\nheader = "
                             "0B\nack = 1B\n"
                             "[workload.c]\nkind = nccl-test\nop = all_reduce\nminbytes = 64MiB\n"
                             "maxbytes = 64MiB\niters = 1\nwarmup_iters = 0\nchannels = 1\nchunk = "
                             "64KiB\n"
                             "step_latency = 0us\nbase_latency = 0us\nalgo = ring\nproto = %s\n",
                             protos[i]);
        WeftSession s;
        run (&s, text);
        WeftTraceCollective r = row_of (&s, 0);
        ck_assert_str_eq (r.proto, i == 0 ? "Simple" : i == 1 ? "LL" : "LL128");
        t[i] = weft_time_to_s (r.time_ps);
        bytes[i] = flow_bytes (&s, 0);
        weft_session_clear (&s);
    }
    ck_assert_uint_eq (bytes[0], 2 * 3 * (guint64) S);
    ck_assert_uint_eq (bytes[1], 2 * bytes[0]);
    double expect = 2.0 * 3 / 4 * 2 * S / B;
    ck_assert_double_eq_tol (t[1], expect, expect * 0.02);
    ck_assert_double_eq_tol (t[1] / t[0], 2.0, 0.04);
    /* LL128: 64 KiB slices of 546.13 lines of 120 bytes, rounded up to 547 lines
     * of 128. */
    ck_assert_uint_eq (bytes[2], bytes[0] / 65536 * ((65536 + 119) / 120 * 128));
    ck_assert_double_eq_tol (t[2] / t[0], 547.0 * 128 / 65536, 0.02);
}
END_TEST

START_TEST (test_collective_proto_ll_halves_dgx_bandwidth)
{
    /* Two DGX H100, 64 MiB, the ring with everything but the protocol equal
     * (chunk 256 KiB, 1 us per step, no base latency): LL's flows carry twice the
     * bytes and the NICs put twice the bytes on the fabric (their per-packet
     * headers too, within 1 %), so the bus bandwidth is about half Simple's (0.45
     * to 0.55: the step latencies do not double). */
    const char *wl = "[workload.ar]\nkind = nccl-test\nop = all_reduce\nminbytes = 64MiB\n"
                     "maxbytes = 64MiB\niters = 1\nwarmup_iters = 0\nalgo = ring\n"
                     "chunk = 256KiB\nstep_latency = 1us\nbase_latency = 0us\nproto = ";
    double busbw[2];
    guint64 flows[2], nics[2];
    for (guint ll = 0; ll < 2; ll++) {
        g_autofree char *extra = g_strconcat (wl, ll ? "ll\n" : "simple\n", NULL);
        g_autofree char *text = dgx (2, extra);
        WeftSession s;
        run (&s, text);
        busbw[ll] = row_of (&s, 0).busbw_gbs;
        flows[ll] = flow_bytes (&s, 0) + flow_bytes (&s, 1);
        nics[ll] = nic_bytes (&s);
        weft_session_clear (&s);
    }
    ck_assert_uint_eq (flows[1], 2 * flows[0]);
    ck_assert_double_eq_tol ((double) nics[1] / (double) nics[0], 2.0, 0.02);
    ck_assert_double_ge (busbw[1] / busbw[0], 0.45);
    ck_assert_double_le (busbw[1] / busbw[0], 0.55);
}
END_TEST

START_TEST (test_collective_proto_recorded)
{
    /* 4 DGX H100: 8 B runs tree/LL on one channel, 1 MiB tree/LL128 on all 8;
     * forced, the ring and Simple; alltoall is point-to-point. */
    g_autofree char *text =
        dgx (4, "[workload.a]\nkind = nccl-test\nop = all_reduce\nminbytes = "
                "8B\nmaxbytes = 8B\n"
                "iters = 1\nwarmup_iters = 0\n"
                "[workload.a1]\nkind = nccl-test\nop = all_reduce\nminbytes = 1MiB\n"
                "maxbytes = 1MiB\niters = 1\nwarmup_iters = 0\n"
                "[workload.b]\nkind = nccl-test\nop = all_reduce\nminbytes = 64KiB\n"
                "maxbytes = 64KiB\niters = 1\nwarmup_iters = 0\nalgo = ring\nproto = "
                "simple\n"
                "[workload.c]\nkind = nccl-test\nop = alltoall\nminbytes = "
                "32KiB\nmaxbytes = 32KiB\n"
                "iters = 1\nwarmup_iters = 0\n");
    WeftSession s;
    run (&s, text);
    guint seen = 0;
    for (guint32 c = 0; c < s.net->tp.n_colls; c++) {
        WeftTraceCollective r = row_of (&s, c);
        const WeftCollInstance *inst = &s.net->tp.colls[c].spec;
        GHashTable *channels = g_hash_table_new (NULL, NULL);
        for (guint32 i = 0; i < inst->n_flows; i++)
            g_hash_table_add (channels,
                              GUINT_TO_POINTER (s.net->tp.flows[inst->first_flow + i].spec.conn));
        guint n_channels = g_hash_table_size (channels);
        g_hash_table_unref (channels);
        if (strcmp (r.workload, "a") == 0) {
            ck_assert_uint_eq (r.bytes, 8);
            ck_assert_str_eq (r.algo, "Tree");
            ck_assert_str_eq (r.proto, "LL");
            ck_assert_uint_eq (n_channels, 1);
        } else if (strcmp (r.workload, "a1") == 0) {
            ck_assert_uint_eq (r.bytes, 1 << 20);
            ck_assert_str_eq (r.algo, "Tree");
            ck_assert_str_eq (r.proto, "LL128");
            ck_assert_uint_eq (n_channels, 8);
        } else if (strcmp (r.workload, "b") == 0) {
            ck_assert_str_eq (r.algo, "Ring");
            ck_assert_str_eq (r.proto, "Simple");
        } else {
            ck_assert_str_eq (r.op, "alltoall");
            ck_assert_str_eq (r.algo, "P2P");
            ck_assert_str_eq (r.proto, "Simple");
        }
        seen++;
    }
    ck_assert_uint_eq (seen, 4 * 2);
    weft_session_clear (&s);
}
END_TEST

START_TEST (test_collective_proto_overrides)
{
    /* Explicit keys override the protocol's part and nothing else: LL with chunk
     * = 4 KiB slices 4 KiB of data into flows of at most 8 KiB (LL's lines stay);
     * step_latency = 3us delays every step by 3 us, inside a server and across;
     * base_latency = 20us adds 20 us to the first transfers. */
    g_autofree char *text = dgx (2, "[workload.ar]\nkind = nccl-test\nop = all_reduce\n"
                                    "minbytes = 1MiB\nmaxbytes = 1MiB\niters = 1\n"
                                    "warmup_iters = 0\nalgo = ring\nproto = ll\nchunk = 4KiB\n"
                                    "step_latency = 3us\nbase_latency = 20us\npxn = false\n");
    WeftSession s;
    run (&s, text);
    const WeftCollInstance *inst = &s.net->tp.colls[0].spec;
    guint first = 0;
    for (guint32 i = 0; i < inst->n_flows; i++) {
        const WeftFlowSpec *f = &s.net->tp.flows[inst->first_flow + i].spec;
        ck_assert_uint_le (f->size_bytes, 8192);
        ck_assert (f->delay_ps == WEFT_US (3) || f->delay_ps == WEFT_US (23));
        first += f->delay_ps == WEFT_US (23);
    }
    /* The first step: 1 MiB over 8 channels and 16 ranks is 8 KiB a chunk, two 4
     * KiB slices, each of them a first transfer. */
    ck_assert_uint_eq (first, 8 * 16 * 2);
    weft_session_clear (&s);
}
END_TEST

START_TEST (test_collective_proto_bad_keys)
{
    const struct {
        const char *keys, *key;
        int code;
    } cases[] = {
        { "algo = nvls\n", "algo", WEFT_CONFIG_ERROR_VALUE },
        { "algo = ring;tree\n", "algo", WEFT_CONFIG_ERROR_VALUE },
        { "proto = fast\n", "proto", WEFT_CONFIG_ERROR_VALUE },
        { "proto = ^ll,ll128,simple\n", "proto", WEFT_CONFIG_ERROR_VALUE },
        { "chunk = 10B\n", "chunk", WEFT_CONFIG_ERROR_RANGE },
        { "chunk = big\n", "chunk", WEFT_CONFIG_ERROR_UNIT },
        { "step_latency = 2ms\n", "step_latency", WEFT_CONFIG_ERROR_RANGE },
        { "base_latency = 5\n", "base_latency", WEFT_CONFIG_ERROR_UNIT },
        { "op = all_gather\nalgo = tree\n", "algo", WEFT_CONFIG_ERROR_VALUE },
    };
    for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
        g_autofree char *text =
            g_strdup_printf ("[topology]\ngenerator = single_switch\nhosts = 4\nlink_rate = "
                             "100Gbps\n"
                             "[workload.c]\nkind = nccl-test\nminbytes = 1MiB\nmaxbytes = 1MiB\n%s",
                             cases[i].keys);
        WeftSession s;
        g_autoptr (GError) error = NULL;
        ck_assert_msg (!harness_try_prepare (&s, text, &error), "case %u accepted", i);
        ck_assert_msg (g_error_matches (error, WEFT_CONFIG_ERROR, cases[i].code), "case %u: %s", i,
                       error->message);
        /* one line naming the group and the key: "FILE: [workload.c] KEY: ..." */
        g_autofree char *named = g_strdup_printf ("[workload.c] %s:", cases[i].key);
        ck_assert_msg (strstr (error->message, named) != NULL, "case %u: %s", i, error->message);
        ck_assert_ptr_null (strchr (error->message, '\n'));
        weft_session_clear (&s);
    }
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("collective_proto");
    TCase *tc = tcase_create ("proto");
    tcase_add_checked_fixture (tc, harness_tmp_setup, harness_tmp_teardown);
    tcase_set_timeout (tc, 300);
    tcase_add_test (tc, test_collective_proto_small_all_reduce_on_32_gpus);
    tcase_add_test (tc, test_collective_proto_ll_pays_in_wire_bytes);
    tcase_add_test (tc, test_collective_proto_ll_halves_dgx_bandwidth);
    tcase_add_test (tc, test_collective_proto_recorded);
    tcase_add_test (tc, test_collective_proto_overrides);
    tcase_add_test (tc, test_collective_proto_bad_keys);
    suite_add_tcase (s, tc);
    return s;
}
