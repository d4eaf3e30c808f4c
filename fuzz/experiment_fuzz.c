/* fuzz/experiment_fuzz.c - the experiment front end's fuzz target (libFuzzer's entry point).
 *
 * An input is written to `input.ini` in a scratch folder that holds, as links, everything in
 * the source tree's experiments/ folder (WEFT_SRCDIR, else the source folder this was built
 * from), so that the shipped experiments' `include`, `[topology] file` and `size_cdf` keys find
 * what they name and the corpus can start from them.  Lines `#set GROUP:KEY=VALUE` become
 * overrides, as `--set` gives them.  The input then goes through weft_session_prepare(), with
 * WEFT_FUZZ_EXPERIMENT_MAX_MEMORY as --max-memory.
 *
 * The promises checked, beyond no crash and no sanitizer report (libFuzzer's and the
 * sanitizers' business) and no time-out (libFuzzer's -timeout): no GLib warning or critical
 * (an abort here, as G_DEBUG=fatal-warnings would stop: a warning is a bug such as a GError set
 * twice or a key GLib drops); a refusal is an error of one line without control bytes but tab (it
 * reaches a terminal); an accepted experiment has a topology, a network and a simulator.  Any of
 * those broken aborts, which the fuzzer reports as a crash.
 *
 * Built with clang by `make fuzz`, which runs it over fuzz/corpus/experiment; tests/check_fuzz
 * replays that corpus and fuzz/crashers/experiment through the same function with any
 * compiler, so `make check` keeps every input found.
 */
#include "config.h"
#define G_LOG_DOMAIN "weft-fuzz"
#include "fuzz/experiment_fuzz.h"

#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/session.h"

#ifndef WEFT_FUZZ_SRCDIR
#define WEFT_FUZZ_SRCDIR "."
#endif

static void
require (gboolean ok, const char *what, const char *message)
{
    if (!ok) {
        fprintf (stderr, "experiment_fuzz: broken promise: %s%s%s\n", what, message ? ": " : "",
                 message ? message : "");
        abort ();
    }
}

/* GLib's log writer, but a warning or a critical aborts: SIGABRT, which libFuzzer catches and
 * saves the input for (GLib's own fatal path stops on a breakpoint trap, which it does not). */
static GLogWriterOutput
abort_on_warning (GLogLevelFlags level, const GLogField *fields, gsize n_fields, gpointer data)
{
    GLogWriterOutput out = g_log_writer_default (level, fields, n_fields, data);
    if (level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING))
        require (FALSE, "a GLib warning or critical", NULL);
    return out;
}

static char *scratch; /* the scratch folder of this process, NULL before it is made */

/* Removes the scratch folder and what it holds (the links and the last input) at exit, so that
 * neither libFuzzer's runs nor tests/check_fuzz's forked cases (one process each) leave a
 * folder behind. */
static void
remove_scratch (void)
{
    if (scratch == NULL)
        return;
    GDir *d = g_dir_open (scratch, 0, NULL);
    const char *entry;
    while (d != NULL && (entry = g_dir_read_name (d)) != NULL) {
        char *path = g_build_filename (scratch, entry, NULL);
        g_unlink (path);
        g_free (path);
    }
    if (d != NULL)
        g_dir_close (d);
    g_rmdir (scratch);
}

/* The scratch folder, made once per process under a fresh name (a folder left by a process
 * that crashed, with the same id, is never reused): links to every entry of experiments/. */
static const char *
scratch_dir (void)
{
    if (scratch != NULL)
        return scratch;
    const char *base =
        g_file_test ("/dev/shm", G_FILE_TEST_IS_DIR) && g_access ("/dev/shm", W_OK) == 0
            ? "/dev/shm"
            : g_get_tmp_dir ();
    char *dir = g_build_filename (base, "weft-fuzz-exp-XXXXXX", NULL);
    if (g_mkdtemp (dir) == NULL)
        require (FALSE, "cannot make the scratch folder", dir);
    scratch = dir;
    atexit (remove_scratch);
    const char *top = g_getenv ("WEFT_SRCDIR");
    char *exps = g_build_filename (top && *top ? top : WEFT_FUZZ_SRCDIR, "experiments", NULL);
    GDir *d = g_dir_open (exps, 0, NULL);
    const char *entry;
    while (d != NULL && (entry = g_dir_read_name (d)) != NULL) {
        char *target = g_build_filename (exps, entry, NULL);
        char *link = g_build_filename (dir, entry, NULL);
        if (symlink (target, link) != 0)
            require (FALSE, "cannot link the experiments folder", link);
        g_free (target);
        g_free (link);
    }
    if (d != NULL)
        g_dir_close (d);
    g_free (exps);
    return dir;
}

const char *
weft_fuzz_experiment_scratch (void)
{
    return scratch;
}

/* The `#set ` comment lines of @text, as overrides. */
static char **
overrides_of (const char *text)
{
    GPtrArray *sets = g_ptr_array_new ();
    char **lines = g_strsplit (text, "\n", -1);
    for (char **l = lines; *l; l++)
        if (g_str_has_prefix (*l, "#set "))
            g_ptr_array_add (sets, g_strdup (*l + 5));
    g_strfreev (lines);
    g_ptr_array_add (sets, NULL);
    return (char **) g_ptr_array_free (sets, FALSE);
}

int
weft_fuzz_experiment (const guint8 *data, gsize size)
{
    static gboolean fatal;
    if (!fatal) {
        g_log_set_writer_func (abort_on_warning, NULL, NULL);
        fatal = TRUE;
    }
    char *path = g_build_filename (scratch_dir (), "input.ini", NULL);
    if (!g_file_set_contents (path, (const char *) data, (gssize) size, NULL)) {
        g_free (path);
        return 0;
    }
    char *text = g_strndup ((const char *) data, size);
    char **sets = overrides_of (text);
    g_free (text);

    WeftSession s;
    GError *error = NULL;
    gboolean ok =
        weft_session_prepare (&s, path, sets, NULL, WEFT_FUZZ_EXPERIMENT_MAX_MEMORY, &error);
    if (ok) {
        require (error == NULL, "an error set on success", error ? error->message : NULL);
        require (s.graph != NULL && s.net != NULL && s.sim != NULL,
                 "an accepted experiment without a topology, network or simulator", NULL);
    } else {
        require (error != NULL, "a refusal without an error", NULL);
        const char *m = error->message;
        require (*m != '\0', "an empty error message", NULL);
        for (const char *c = m; *c; c++)
            require (((guchar) *c >= 0x20 || *c == '\t') && *c != 0x7f,
                     "a control byte in an error message", m);
        g_clear_error (&error);
    }
    weft_session_clear (&s);
    g_strfreev (sets);
    g_unlink (path);
    g_free (path);
    return 0;
}

#ifndef WEFT_FUZZ_NO_ENTRY
int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    return weft_fuzz_experiment (data, size);
}
#endif
