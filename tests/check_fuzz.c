/* tests/check_fuzz.c - every input in the fuzz corpora and crasher folders, replayed.
 *
 * Invariant checked: each seed of fuzz/corpus/trace_reader and each file of
 * fuzz/crashers/trace_reader goes through the trace reader's fuzz target
 * (fuzz/trace_reader_fuzz.c) twice - the work in this process, then through the public
 * functions, which read in a child - and each input fuzzing grew, in this process, without a
 * sanitizer report (under check-sanitize) or a broken promise of the reader (the target
 * aborts on one).  The files of fuzz/crashers/trace_reader-libhdf5 crash libhdf5 itself,
 * beyond what the reader checks, and go through the public functions only: there they must
 * come out as errors.  Each file is a test of its own, so a failure names it.  This build's
 * compiler runs the target; libFuzzer is only needed to find new inputs (`make fuzz`).
 * Each file of fuzz/corpus/experiment and fuzz/crashers/experiment goes through the experiment
 * front end's target (fuzz/experiment_fuzz.c) likewise: no crash, no GLib warning, and a
 * refusal of one printable line.
 * Unchecked here: inputs nobody has found yet.
 */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fuzz/experiment_fuzz.h"
#include "fuzz/trace_reader_fuzz.h"
#include "tests/harness.h"

/* The inputs, in name order within each folder, and how each trace input is replayed (a
 * bit set of WANT_DIRECT, WANT_PUBLIC): set up by test_suite(). */
enum { WANT_DIRECT = 1, WANT_PUBLIC = 2 };
static GPtrArray *inputs;
static GArray *wants;
static GPtrArray *experiments;

static gint
by_name (gconstpointer a, gconstpointer b)
{
    return g_strcmp0 (*(const char *const *) a, *(const char *const *) b);
}

/* Adds the files of @relative to @to in name order; for trace inputs (@want non-zero) also how
 * each is replayed: @want, but only in this process for what fuzzing grew (the corpus files
 * not named seed-*: they reach the reader's code, and the child's path is the same code behind
 * a fork, which the seeds and the crashers exercise). */
static void
add_folder (GPtrArray *to, const char *relative, guint want)
{
    char *dir = harness_srcpath (relative);
    GDir *d = g_dir_open (dir, 0, NULL);
    GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
    const char *name;
    while (d != NULL && (name = g_dir_read_name (d)) != NULL)
        g_ptr_array_add (names, g_strdup (name));
    g_ptr_array_sort (names, by_name);
    gboolean grown = strstr (relative, "corpus/") != NULL;
    for (guint i = 0; i < names->len; i++) {
        const char *base = names->pdata[i];
        g_ptr_array_add (to, g_build_filename (dir, base, NULL));
        if (want != 0) {
            guint w = grown && !g_str_has_prefix (base, "seed-") ? WANT_DIRECT : want;
            g_array_append_val (wants, w);
        }
    }
    if (d != NULL)
        g_dir_close (d);
    g_ptr_array_free (names, TRUE);
    g_free (dir);
}

START_TEST (test_fuzz_trace_reader_replays)
{
    const char *path = inputs->pdata[_i];
    char *data = NULL;
    gsize size = 0;
    GError *error = NULL;
    ck_assert_msg (g_file_get_contents (path, &data, &size, &error), "%s", error->message);
    /* in this process, where the sanitizers of check-sanitize see everything, and as weft
     * report reads, in a child */
    guint want = g_array_index (wants, guint, _i);
    if (want & WANT_DIRECT)
        ck_assert_int_eq (weft_fuzz_trace_reader ((const guint8 *) data, size, TRUE, TRUE), 0);
    if (want & WANT_PUBLIC)
        ck_assert_int_eq (weft_fuzz_trace_reader ((const guint8 *) data, size, TRUE, FALSE), 0);
    g_free (data);
}
END_TEST

START_TEST (test_fuzz_experiment_replays)
{
    const char *path = experiments->pdata[_i];
    char *data = NULL;
    gsize size = 0;
    GError *error = NULL;
    ck_assert_msg (g_file_get_contents (path, &data, &size, &error), "%s", error->message);
    ck_assert_int_eq (weft_fuzz_experiment ((const guint8 *) data, size), 0);
    g_free (data);
}
END_TEST

/* A process that fuzzed experiments leaves no scratch folder behind: a child runs one input and
 * exits, and its folder (named in the pipe) is gone.  Folders left by every forked case once
 * filled /dev/shm, and a stale one with the same process id broke later runs. */
START_TEST (test_fuzz_experiment_scratch_removed)
{
    int fds[2];
    ck_assert_int_eq (pipe (fds), 0);
    pid_t pid = fork ();
    ck_assert_int_ge (pid, 0);
    if (pid == 0) {
        static const char input[] = "[experiment]\nseed = 1\n";
        int rc = weft_fuzz_experiment ((const guint8 *) input, sizeof input - 1);
        const char *dir = weft_fuzz_experiment_scratch ();
        gboolean there = dir != NULL && g_file_test (dir, G_FILE_TEST_IS_DIR);
        if (dir != NULL && write (fds[1], dir, strlen (dir)) < 0)
            _exit (3);
        exit (rc == 0 && there ? 0 : 4); /* exit, not _exit: the atexit handler runs */
    }
    close (fds[1]);
    char buf[4096] = { 0 };
    ssize_t n = read (fds[0], buf, sizeof buf - 1);
    close (fds[0]);
    int status = 0;
    ck_assert_int_eq (waitpid (pid, &status, 0), pid);
    ck_assert (WIFEXITED (status));
    ck_assert_int_eq (WEXITSTATUS (status), 0);
    ck_assert_int_gt (n, 0);
    ck_assert_msg (strstr (buf, "weft-fuzz-exp-") != NULL, "scratch folder %s", buf);
    ck_assert_msg (!g_file_test (buf, G_FILE_TEST_EXISTS), "%s is left behind", buf);
}
END_TEST

/* The corpus is there: a missing folder would make the replay pass vacuously. */
START_TEST (test_fuzz_corpus_present)
{
    ck_assert_uint_ge (inputs->len, 5);
    ck_assert_uint_ge (experiments->len, 15);
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("fuzz");
    TCase *tc = tcase_create ("trace_reader");
    inputs = g_ptr_array_new_with_free_func (g_free);
    wants = g_array_new (FALSE, FALSE, sizeof (guint));
    add_folder (inputs, "fuzz/corpus/trace_reader", WANT_DIRECT | WANT_PUBLIC);
    add_folder (inputs, "fuzz/crashers/trace_reader", WANT_DIRECT | WANT_PUBLIC);
    add_folder (inputs, "fuzz/crashers/trace_reader-libhdf5", WANT_PUBLIC);
    tcase_set_timeout (tc, 60);
    tcase_add_test (tc, test_fuzz_corpus_present);
    tcase_add_loop_test (tc, test_fuzz_trace_reader_replays, 0, (int) inputs->len);
    suite_add_tcase (s, tc);

    TCase *te = tcase_create ("experiment");
    experiments = g_ptr_array_new_with_free_func (g_free);
    add_folder (experiments, "fuzz/corpus/experiment", 0);
    add_folder (experiments, "fuzz/crashers/experiment", 0);
    tcase_set_timeout (te, 60);
    tcase_add_test (te, test_fuzz_experiment_scratch_removed);
    tcase_add_loop_test (te, test_fuzz_experiment_replays, 0, (int) experiments->len);
    suite_add_tcase (s, te);
    return s;
}
