/* tests/check_results.c - network/results.c: the text `weft run` prints beyond its summary.
 *
 * Invariants checked, on small runs through the same session code as `weft run`:
 *  - progress: 0 before a run without a duration, 1 once every flow finished; with a
 *    duration, simulated time over it;
 *  - the nccl-tests table of an nccl-test workload names the ranks after the nodes they ran
 *    on, in rank order as the experiment lists them (not node order): a host of its own
 *    ("host2") is device 0, a server's GPU ("dgx-2/gpu3") its server and index with that
 *    index's DGX H100 bus id; the command line comes from the sizes and iterations the
 *    experiment sets; a training workload's collectives print no such table;
 *  - a training workload's steps: one line per step, the configured compute in every line,
 *    exposed = time - compute, and a mean line that is the mean of the lines;
 *  - perftest: the device is the NIC's name within its server, the MTU the fabric's, the
 *    link type InfiniBand's or, on RoCE, Ethernet with GID index 3;
 *  - the summary's first lines answer each workload's question (busbw, step time, bandwidth,
 *    throughput), and FCT figures count the flows of flow workloads only.
 * Unchecked here: the tables' own formats (check_nccl_table, check_perftest_table) and the
 * figures in them (check_collective_run, check_perftest_run, check_training).
 */
#include "config.h"
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "cli/session.h"
#include "network/results.h"
#include "tests/harness.h"

static void
run (WeftSession *s, const char *text)
{
    harness_prepare (s, text);
    ck_assert_int_eq (weft_sim_run (s->sim), WEFT_SIM_DONE);
}

static void
assert_has (const char *text, const char *part)
{
    ck_assert_msg (strstr (text, part) != NULL, "missing [%s] in:\n%s", part, text);
}

#define SWITCH4 "[topology]\ngenerator = single_switch\nhosts = 4\nlink_rate = 100Gbps\n"

#define NCCL4                                                                                      \
    SWITCH4 "[workload.c]\nkind = nccl-test\nop = all_reduce\nminbytes = 1KiB\n"                   \
            "maxbytes = 4KiB\nstepfactor = 4\niters = 2\nwarmup_iters = 1\n"                       \
            "gpus = host2;host0;host3;host1\n"

START_TEST (test_results_progress_and_nccl_hosts)
{
    WeftSession s;
    harness_prepare (&s, NCCL4);
    ck_assert_uint_gt (weft_network_n_flows (s.net), 0);
    ck_assert_double_eq (weft_network_progress (s.net), 0.0);
    ck_assert_int_eq (weft_sim_run (s.sim), WEFT_SIM_DONE);
    ck_assert_double_eq (weft_network_progress (s.net), 1.0);
    GString *out = g_string_new (NULL);
    weft_network_print_nccl_tables (s.net, out);
    ck_assert_msg (g_str_has_prefix (out->str,
                                     "# [workload.c] all_reduce_perf\n"
                                     "# nccl-tests version 2.19.6 nccl-headers=22705 "
                                     "nccl-library=22705\n"
                                     "# Collective test starting: all_reduce_perf\n"
                                     "# nThread 1 nGpus 1 minBytes 1024 maxBytes 4096 step: "
                                     "4(factor) warmup iters: 1 iters: 2 agg iters: 1 "
                                     "validation: 1 graph: 0 unalign: 0\n#\n# Using devices\n"
                                     "#  Rank  0 Group  0 Pid  10000 on      host2 device  0 "
                                     "[0000:18:00] NVIDIA H100 80GB HBM3\n"
                                     "#  Rank  1 Group  0 Pid  10001 on      host0 device  0 "
                                     "[0000:18:00] NVIDIA H100 80GB HBM3\n"
                                     "#  Rank  2 Group  0 Pid  10002 on      host3 device  0 "
                                     "[0000:18:00] NVIDIA H100 80GB HBM3\n"
                                     "#  Rank  3 Group  0 Pid  10003 on      host1 device  0 "
                                     "[0000:18:00] NVIDIA H100 80GB HBM3\n#\n"),
                   "%s", out->str);
    /* one line per size: 1 KiB and 4 KiB, 256 and 1024 floats */
    assert_has (out->str, "\n        1024           256     float     sum      -1 ");
    assert_has (out->str, "\n        4096          1024     float     sum      -1 ");
    ck_assert_ptr_null (strstr (out->str, "\n        2048 "));
    /* no perftest and no training workload here */
    GString *none = g_string_new (NULL);
    weft_network_print_perftest_tables (s.net, s.exp, none);
    weft_network_print_training_steps (s.net, none);
    ck_assert_str_eq (none->str, "");
    g_string_free (none, TRUE);
    g_string_free (out, TRUE);
    weft_session_clear (&s);
}
END_TEST

START_TEST (test_results_progress_duration)
{
    WeftSession s;
    harness_prepare (&s, "[experiment]\nduration = 1s\n" NCCL4);
    ck_assert_double_eq (weft_network_progress (s.net), 0.0);
    ck_assert_int_eq (weft_sim_run (s.sim), WEFT_SIM_DONE); /* long before 1 s */
    double want = (double) s.sim->now / 1e12;
    ck_assert_double_eq_tol (weft_network_progress (s.net), want, 1e-12);
    ck_assert_double_lt (weft_network_progress (s.net), 1.0);
    weft_session_clear (&s);
}
END_TEST

/* Two servers of the seed cluster, plus @extra. */
static char *
two_dgx (const char *fabric, const char *extra)
{
    g_autofree char *dgx4 = harness_srcpath ("experiments/dgx4.ini");
    return g_strdup_printf ("[experiment]\ninclude = %s\nseed = 1\nhang_timeout = 10ms\n"
                            "[topology]\nservers = 2\n[fabric]\nkind = %s\nmtu = 2048B\n%s",
                            dgx4, fabric, extra);
}

START_TEST (test_results_nccl_dgx_ranks)
{
    g_autofree char *text =
        two_dgx ("infiniband", "[workload.ar]\nkind = nccl-test\nminbytes = 64KiB\n"
                               "maxbytes = 64KiB\niters = 1\nwarmup_iters = 0\n"
                               "gpus = dgx-2/gpu3;dgx-1/gpu0;dgx-1/gpu6\n");
    WeftSession s;
    run (&s, text);
    GString *out = g_string_new (NULL);
    weft_network_print_nccl_tables (s.net, out);
    /* bus ids of a DGX H100's GPUs 3, 0 and 6: 0x5d, 0x18, 0xba */
    assert_has (out->str, "# Using devices\n"
                          "#  Rank  0 Group  0 Pid  10000 on      dgx-2 device  3 [0000:5d:00] "
                          "NVIDIA H100 80GB HBM3\n"
                          "#  Rank  1 Group  0 Pid  10001 on      dgx-1 device  0 [0000:18:00] "
                          "NVIDIA H100 80GB HBM3\n"
                          "#  Rank  2 Group  0 Pid  10002 on      dgx-1 device  6 [0000:ba:00] "
                          "NVIDIA H100 80GB HBM3\n#\n");
    /* one size: nccl-tests' default step, in bytes */
    assert_has (out->str, "minBytes 65536 maxBytes 65536 step: 1048576(bytes) warmup iters: 0 "
                          "iters: 1 ");
    g_string_free (out, TRUE);
    weft_session_clear (&s);
}
END_TEST

START_TEST (test_results_training_steps)
{
    WeftSession s;
    run (&s, SWITCH4 "[workload.train]\nkind = training\nsteps = 3\ncompute = 10us\n"
                     "buckets = 2\nbucket_size = 64KiB\nchannels = 1\n");
    GString *nccl = g_string_new (NULL);
    weft_network_print_nccl_tables (s.net, nccl);
    ck_assert_str_eq (nccl->str, ""); /* training's collectives are not a benchmark */
    g_string_free (nccl, TRUE);
    GString *out = g_string_new (NULL);
    weft_network_print_training_steps (s.net, out);
    char **lines = g_strsplit (out->str, "\n", -1);
    ck_assert_uint_eq (g_strv_length (lines), 1 + 1 + 3 + 1 + 1); /* + the empty tail */
    ck_assert_str_eq (lines[0], "[workload.train] training steps");
    ck_assert_str_eq (lines[1], "    step      time (us)   compute (us)   exposed (us)");
    double sum = 0, exposed_sum = 0;
    for (guint i = 0; i < 3; i++) {
        unsigned step;
        double t, c, e;
        ck_assert_int_eq (sscanf (lines[2 + i], "%u %lf %lf %lf", &step, &t, &c, &e), 4);
        ck_assert_uint_eq (step, i);
        ck_assert_double_eq_tol (c, 10.0, 1e-9);
        ck_assert_double_eq_tol (e, t - c, 2e-3); /* three decimals each */
        sum += t;
        exposed_sum += e;
    }
    double mt, me;
    ck_assert_int_eq (sscanf (lines[5], " mean %lf %lf", &mt, &me), 2);
    ck_assert_double_eq_tol (mt, sum / 3, 2e-3);
    ck_assert_double_eq_tol (me, exposed_sum / 3, 2e-3);
    g_strfreev (lines);
    g_string_free (out, TRUE);
    weft_session_clear (&s);
}
END_TEST

static char *
perftest_text (const char *fabric)
{
    return two_dgx (fabric, "[workload.bw]\nkind = ib_write_bw\ndevice = dgx-1/mlx5_3\n"
                            "peer = dgx-2/mlx5_3\nsize = 4KiB\niters = 5\n");
}

START_TEST (test_results_perftest)
{
    g_autofree char *ib = perftest_text ("infiniband");
    WeftSession s;
    run (&s, ib);
    GString *out = g_string_new (NULL);
    weft_network_print_perftest_tables (s.net, s.exp, out);
    ck_assert (g_str_has_prefix (out->str, "# [workload.bw] ib_write_bw\n"));
    assert_has (out->str, "Device         : mlx5_3\n");
    assert_has (out->str, " Mtu             : 2048[B]\n");
    assert_has (out->str, " Link type       : IB\n");
    ck_assert_ptr_null (strstr (out->str, "GID index"));
    g_string_free (out, TRUE);
    weft_session_clear (&s);

    g_autofree char *roce = perftest_text ("roce");
    run (&s, roce);
    out = g_string_new (NULL);
    weft_network_print_perftest_tables (s.net, s.exp, out);
    assert_has (out->str, " Link type       : Ethernet\n");
    assert_has (out->str, " GID index       : 3\n");
    g_string_free (out, TRUE);
    weft_session_clear (&s);
}
END_TEST

START_TEST (test_results_headline)
{
    /* A collective sweep leads with busbw (the row's own, from /collectives), a training run
     * with its step time, a perftest with its bandwidth, a permutation with its throughput;
     * FCT figures count only the flows of flow workloads. */
    WeftSession s;
    run (&s, NCCL4 "[workload.perm]\nkind = permutation\nflow_size = 64KiB\n");
    GString *out = g_string_new (NULL);
    weft_network_print_headline (s.net, s.exp, out);
    WeftTraceCollective row;
    weft_network_collective_row (s.net, s.net->tp.n_colls - 1, &row); /* 4 KiB, in place */
    ck_assert (g_str_has_prefix (out->str, "  busbw        [c] all_reduce, 4 ranks: "));
    assert_has (out->str, " GB/s at 4 KiB");
    assert_has (out->str, " us at 1 KiB\n");
    assert_has (out->str, "  throughput   [perm] ");
    assert_has (out->str, " aggregate over 4 flows; per flow min ");
    WeftNetworkStats st;
    weft_network_stats (s.net, &st);
    ck_assert_uint_eq (st.fct_flows, 4); /* the permutation's, not the collective's slices */
    ck_assert_uint_gt (st.finished, 4);
    g_string_free (out, TRUE);
    weft_session_clear (&s);

    run (&s, SWITCH4 "[workload.train]\nkind = training\nsteps = 2\ncompute = 10us\n"
                     "buckets = 2\nbucket_size = 64KiB\nchannels = 1\n");
    out = g_string_new (NULL);
    weft_network_print_headline (s.net, s.exp, out);
    assert_has (out->str, "  step time    [train] ");
    assert_has (out->str, " us mean over 2 steps, exposed communication ");
    weft_network_stats (s.net, &st);
    ck_assert_uint_eq (st.fct_flows, 0);
    g_string_free (out, TRUE);
    weft_session_clear (&s);

    g_autofree char *bw = perftest_text ("infiniband");
    run (&s, bw);
    out = g_string_new (NULL);
    weft_network_print_headline (s.net, s.exp, out);
    ck_assert (g_str_has_prefix (out->str, "  bandwidth    [bw] BW average "));
    assert_has (out->str, " Gb/s at 4KiB, ");
    g_string_free (out, TRUE);
    weft_session_clear (&s);
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("results");
    TCase *tc = tcase_create ("runs");
    tcase_add_checked_fixture (tc, harness_tmp_setup, harness_tmp_teardown);
    tcase_set_timeout (tc, 60);
    tcase_add_test (tc, test_results_progress_and_nccl_hosts);
    tcase_add_test (tc, test_results_progress_duration);
    tcase_add_test (tc, test_results_nccl_dgx_ranks);
    tcase_add_test (tc, test_results_training_steps);
    tcase_add_test (tc, test_results_perftest);
    tcase_add_test (tc, test_results_headline);
    suite_add_tcase (s, tc);
    return s;
}
