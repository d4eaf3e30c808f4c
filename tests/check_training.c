/* tests/check_training.c - kind = training: steps of bucketed gradient all-reduces that
 * overlap the backward pass (workloads/workload_train.c), run through the network.
 *
 * Checks, on an ideal uniform network (one switch, no header, no switch latency, as
 * tests/check_collective_run.c builds it), with buckets of one packet per rank so that the
 * alpha-beta time of a bucket's ring all-reduce is exact, T = 2(n-1)(alpha + 2 packet times),
 * alpha the step latency and the two NICs' processing:
 *  - compute long enough to hide every bucket but the last: each step's exposed
 *    communication is exactly the last bucket's measured all-reduce time (it is ready when
 *    the compute ends), and that is T within 0.1 %;
 *  - compute 0: a step is its buckets' all-reduces back to back: the sum of their measured
 *    times exactly, and buckets x T within 0.1 %; no two all-reduces overlap;
 *  - every step takes the same time (the network is empty between steps; determinism);
 *  - tensor parallelism on one DGX: the step is the TP all-reduce, then the compute, then the
 *    last bucket's all-reduce, each measured;
 *  - bad parameters (bucket_size 0, steps 0, tp_size not dividing the ranks) give one
 *    configuration error naming the key.
 * Leaves unchecked: the step report's printing (cli/run.c), TP on multi-server topologies.
 */
#include "config.h"
#include <check.h>
#include <glib/gstdio.h>
#include <string.h>

#include "cli/session.h"
#include "tests/harness.h"


static void
run (WeftSession *s, const char *text)
{
    harness_prepare (s, text);
    ck_assert_int_eq (weft_sim_run (s->sim), WEFT_SIM_DONE);
}

#define B (100e9 / 8) /* bytes per second of every link */
#define N 4           /* ranks */
#define PKT 4096.0    /* the fabric's MTU */
#define S (N * PKT)   /* a bucket: one packet per rank, so one per ring step */
#define CHUNK PKT
#define BUCKETS 4
#define STEPS 3

/* One bucket's ring all-reduce on the ideal network, where check_collective_run pins it
 * exactly: one packet per step leaves nothing to pipeline, so each of the 2(n-1) steps costs
 * the step latency (10 us) + the sending and the receiving NIC's processing ([nic] below:
 * 250 ns + 350 ns) + two packet times (sender to switch, switch to receiver). */
static double
alpha_beta (void)
{
    return 2.0 * (N - 1) * (10e-6 + 250e-9 + 350e-9 + 2 * PKT / B);
}

static char *
ideal (const char *compute, const char *extra)
{
    return g_strdup_printf (
        "[topology]\ngenerator = single_switch\nhosts = %u\nlink_rate = 100Gbps\n"
        "cable_length = 0m\n[switch]\nlatency = 0ns\n[ethernet]\nheader = 0B\nack = 1B\n"
        "[nic]\ntx_latency = 250ns\nrx_latency = 350ns\n"
        "[workload.train]\nkind = training\nsteps = %u\ncompute = %s\nbuckets = %u\n"
        "bucket_size = %" G_GUINT64_FORMAT "B\nchannels = 1\nchunk = %" G_GUINT64_FORMAT "B\n"
        "step_latency = 10us\nalgo = ring\nproto = simple\nbase_latency = 0us\n%s",
        N, STEPS, compute, BUCKETS, (guint64) S, (guint64) CHUNK, extra);
}

static GArray *
steps_of (const WeftSession *s)
{
    GArray *steps = g_array_new (FALSE, FALSE, sizeof (WeftTrainStep));
    weft_network_training_steps (s->net, 0, steps);
    return steps;
}

/* The collective run of bucket @i of step @k (one data-parallel group). */
static const WeftCollRun *
bucket (const WeftSession *s, guint k, guint i)
{
    for (guint c = 0; c < s->net->tp.n_colls; c++) {
        const WeftCollRun *r = &s->net->tp.colls[c];
        if (r->spec.role == WEFT_COLL_ROLE_DP_BUCKET && r->spec.step == k && r->spec.index == i)
            return r;
    }
    ck_abort_msg ("no bucket %u in step %u", i, k);
    return NULL;
}

START_TEST (test_training_compute_hides_all_but_the_last_bucket)
{
    g_autofree char *text = ideal ("10ms", "");
    WeftSession s;
    run (&s, text);
    ck_assert_uint_eq (s.net->tp.n_colls, STEPS * BUCKETS);
    g_autoptr (GArray) steps = steps_of (&s);
    ck_assert_uint_eq (steps->len, STEPS);
    for (guint k = 0; k < STEPS; k++) {
        const WeftTrainStep *st = &g_array_index (steps, WeftTrainStep, k);
        const WeftCollRun *last = bucket (&s, k, BUCKETS - 1);
        ck_assert_uint_eq (st->step, k);
        ck_assert_uint_eq (st->compute_ps, WEFT_MS (10));
        /* The last bucket is ready when the compute ends, and nothing delays it. */
        ck_assert_uint_eq (last->start_ps, st->start_ps + WEFT_MS (10));
        ck_assert_uint_eq (st->exposed_ps, last->finish_ps - last->start_ps);
        ck_assert_double_eq_tol (weft_time_to_s (st->exposed_ps), alpha_beta (),
                                 alpha_beta () * 0.001);
        /* Every earlier bucket started as soon as its share of the backward pass was done. */
        for (guint i = 0; i < BUCKETS - 1; i++)
            ck_assert_uint_eq (bucket (&s, k, i)->start_ps,
                               st->start_ps + bucket (&s, k, i)->spec.ready_ps);
    }
    weft_session_clear (&s);
}
END_TEST

START_TEST (test_training_no_compute_is_the_sum_of_the_all_reduces)
{
    g_autofree char *text = ideal ("0ps", "");
    WeftSession s;
    run (&s, text);
    g_autoptr (GArray) steps = steps_of (&s);
    ck_assert_uint_eq (steps->len, STEPS);
    for (guint k = 0; k < STEPS; k++) {
        const WeftTrainStep *st = &g_array_index (steps, WeftTrainStep, k);
        weft_time_t sum = 0;
        for (guint i = 0; i < BUCKETS; i++) {
            const WeftCollRun *r = bucket (&s, k, i);
            sum += r->finish_ps - r->start_ps;
            if (i > 0) /* one stream: back to back, never overlapping */
                ck_assert_uint_eq (r->start_ps, bucket (&s, k, i - 1)->finish_ps);
        }
        ck_assert_uint_eq (st->compute_ps, 0);
        ck_assert_uint_eq (st->time_ps, sum);
        ck_assert_uint_eq (st->exposed_ps, st->time_ps);
        ck_assert_double_eq_tol (weft_time_to_s (st->time_ps), BUCKETS * alpha_beta (),
                                 BUCKETS * alpha_beta () * 0.001);
    }
    weft_session_clear (&s);
}
END_TEST

START_TEST (test_training_steps_repeat_with_the_same_time)
{
    const char *computes[] = { "0ps", "1ms", "10ms" };
    for (guint c = 0; c < G_N_ELEMENTS (computes); c++) {
        g_autofree char *text = ideal (computes[c], "");
        WeftSession s;
        run (&s, text);
        g_autoptr (GArray) steps = steps_of (&s);
        ck_assert_uint_eq (steps->len, STEPS);
        const WeftTrainStep *st = (const WeftTrainStep *) steps->data;
        for (guint k = 1; k < STEPS; k++) {
            ck_assert_uint_eq (st[k].time_ps, st[0].time_ps);
            ck_assert_uint_eq (st[k].start_ps, st[k - 1].start_ps + st[k - 1].time_ps);
        }
        weft_session_clear (&s);
    }
}
END_TEST

START_TEST (test_training_tensor_parallel_precedes_the_compute)
{
    g_autofree char *dgx4 = harness_srcpath ("experiments/dgx4.ini");
    g_autofree char *text = g_strdup_printf (
        "[experiment]\ninclude = %s\n[topology]\nservers = 1\n[fabric]\nkind = infiniband\n"
        "[workload.train]\nkind = training\nsteps = 2\ncompute = 1ms\nbuckets = 2\n"
        "bucket_size = 1MiB\ntp_size = 4\ntp_bytes = 2MiB\n",
        dgx4);
    WeftSession s;
    run (&s, text);
    /* Per step: 2 TP groups (GPUs 0-3, 4-7), then 2 buckets x 4 data-parallel groups. */
    ck_assert_uint_eq (s.net->tp.n_colls, 2 * (2 + 2 * 4));
    g_autoptr (GArray) steps = steps_of (&s);
    ck_assert_uint_eq (steps->len, 2);
    for (guint k = 0; k < 2; k++) {
        const WeftTrainStep *st = &g_array_index (steps, WeftTrainStep, k);
        weft_time_t tp_end = 0, last_end = 0, last_start = 0;
        for (guint c = 0; c < s.net->tp.n_colls; c++) {
            const WeftCollRun *r = &s.net->tp.colls[c];
            if (r->spec.step != k)
                continue;
            if (r->spec.role == WEFT_COLL_ROLE_TP) {
                ck_assert_uint_eq (r->start_ps, st->start_ps);
                ck_assert_uint_eq (r->spec.n_ranks, 4);
                tp_end = MAX (tp_end, r->finish_ps);
            } else if (r->spec.index == 1) {
                ck_assert_uint_eq (r->spec.n_ranks, 2);
                last_start = MAX (last_start, r->start_ps);
                last_end = MAX (last_end, r->finish_ps);
            }
        }
        ck_assert_uint_gt (tp_end, st->start_ps);
        ck_assert_uint_eq (last_start, tp_end + WEFT_MS (1));
        ck_assert_uint_eq (st->start_ps + st->time_ps, last_end);
        ck_assert_uint_eq (st->exposed_ps, (tp_end - st->start_ps) + (last_end - last_start));
    }
    weft_session_clear (&s);
}
END_TEST

START_TEST (test_training_bad_parameters_name_the_key)
{
    const struct {
        const char *extra, *key;
    } bad[] = {
        { "bucket_size = 0B\n", "bucket_size" },
        { "steps = 0\n", "steps" },
        { "tp_size = 3\ntp_bytes = 1MiB\n", "tp_size" },
        { "tp_bytes = 1MiB\n", "tp_bytes" },
        { "minbytes = 1MiB\n", "minbytes" },
    };
    for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
        g_autofree char *text =
            g_strdup_printf ("[topology]\ngenerator = single_switch\nhosts = 4\n[workload.train]\n"
                             "kind = training\n%s",
                             bad[i].extra);
        WeftSession s;
        g_autoptr (GError) error = NULL;
        ck_assert (!harness_try_prepare (&s, text, &error));
        ck_assert (error != NULL && error->domain == WEFT_CONFIG_ERROR);
        g_autofree char *needle = g_strdup_printf ("] %s:", bad[i].key);
        ck_assert_msg (strstr (error->message, needle) != NULL, "%s: %s", bad[i].key,
                       error->message);
        weft_session_clear (&s);
    }
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("training");
    TCase *tc = tcase_create ("steps");
    tcase_add_checked_fixture (tc, harness_tmp_setup, harness_tmp_teardown);
    tcase_set_timeout (tc, 300);
    tcase_add_test (tc, test_training_compute_hides_all_but_the_last_bucket);
    tcase_add_test (tc, test_training_no_compute_is_the_sum_of_the_all_reduces);
    tcase_add_test (tc, test_training_steps_repeat_with_the_same_time);
    tcase_add_test (tc, test_training_tensor_parallel_precedes_the_compute);
    tcase_add_test (tc, test_training_bad_parameters_name_the_key);
    suite_add_tcase (s, tc);
    return s;
}
