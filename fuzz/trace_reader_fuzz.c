/* fuzz/trace_reader_fuzz.c - the trace reader's fuzz target (libFuzzer's entry point).
 *
 * An input is the bytes of a file, handed to analysis/trace_reader.h as weft report does it:
 * written to a scratch file, opened with weft_trace_reader_open() (which checks every data
 * set), then read with the row readers - doing the work in this process (@direct), where the
 * sanitizers and libFuzzer's coverage see it and where libhdf5 crashes on what the checks
 * miss, or through the public functions, which read in a child process and must turn any
 * crash into an error (libFuzzer's entry point: WEFT_FUZZ_PUBLIC=1; a fork per call makes
 * that mode a hundred times slower): all of them when replayed (tests/check_fuzz), one
 * when fuzzing - the record the input's size picks, so that each reader runs on a share of
 * the inputs (each reader opens the file anew, and an open costs more than most checks).  The
 * target checks the reader's promises rather than trusting them: no crash and no sanitizer report
 * (libFuzzer's and the sanitizers' own business), every error in WEFT_TRACE_ERROR with a one-line
 * message, a reason whenever a trace is not complete, and no more rows than the file could hold
 * (WEFT_TRACE_READER_DEFLATE_RATIO times its bytes) - any of those broken aborts, which the fuzzer
 * reports as a crash.
 *
 * Built with clang by `make fuzz` (-fsanitize=fuzzer,address,undefined), which runs it over
 * fuzz/corpus/trace_reader; tests/check_fuzz replays that corpus and fuzz/crashers through
 * the same function with any compiler, so `make check` keeps every input found.
 */
#include "config.h"
#define G_LOG_DOMAIN "weft-fuzz"
#include "fuzz/trace_reader_fuzz.h"

#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/trace_reader_private.h"

/* The scratch file: one name per process, in /dev/shm when there is one (no disk), written
 * for each input and removed after it. */
static char *
scratch_path (void)
{
    static char *path;
    if (path == NULL) {
        const char *dir =
            g_file_test ("/dev/shm", G_FILE_TEST_IS_DIR) && g_access ("/dev/shm", W_OK) == 0
                ? "/dev/shm"
                : g_get_tmp_dir ();
        char *name = g_strdup_printf ("weft-fuzz-%d.h5", (int) getpid ());
        path = g_build_filename (dir, name, NULL);
        g_free (name);
    }
    return path;
}

static void
require (gboolean ok, const char *what)
{
    if (!ok) {
        fprintf (stderr, "trace_reader_fuzz: broken promise: %s\n", what);
        abort ();
    }
}

/* A failure's error, then cleared. */
static void
check_error (GError **error)
{
    require (*error != NULL, "NULL without an error");
    require ((*error)->domain == WEFT_TRACE_ERROR, "an error outside WEFT_TRACE_ERROR");
    require (strchr ((*error)->message, '\n') == NULL, "an error of more than one line");
    g_clear_error (error);
}

int
weft_fuzz_trace_reader (const guint8 *data, gsize size, gboolean every_reader, gboolean direct)
{
    const char *path = scratch_path ();
    if (!g_file_set_contents (path, (const char *) data, (gssize) size, NULL))
        return 0;
    GError *error = NULL;
    WeftTraceInfo *info = direct ? weft_trace_reader_open_direct (path, &error)
                                 : weft_trace_reader_open (path, &error);
    if (info == NULL)
        check_error (&error);
    else {
        require (info->complete || (info->reason != NULL && strchr (info->reason, '\n') == NULL),
                 "an incomplete trace without a one-line reason");
        require (!info->complete || (!info->damaged && info->readable),
                 "a complete trace that is damaged or unreadable");
        weft_trace_info_free (info);
    }
    guint64 most_rows = (guint64) size * WEFT_TRACE_READER_DEFLATE_RATIO;
    guint n = 0;
    while (weft_trace_records[n] != NULL)
        n++;
    guint pick = (guint) (size % n);
    for (guint i = 0; i < n; i++) {
        if (!every_reader && i != pick)
            continue;
        const WeftTraceRecord *rec = weft_trace_records[i];
        GArray *rows = direct ? weft_trace_reader_read_direct (path, rec, &error)
                              : weft_trace_reader_read_record (path, rec, &error);
        if (rows == NULL)
            check_error (&error);
        else {
            require (rows->len <= most_rows, "more rows than the file could hold");
            g_array_free (rows, TRUE);
        }
    }
    g_unlink (path);
    return 0;
}

#ifndef WEFT_FUZZ_NO_ENTRY
int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    static int direct = -1;
    if (direct < 0)
        direct = g_getenv ("WEFT_FUZZ_PUBLIC") == NULL;
    return weft_fuzz_trace_reader (data, size, FALSE, direct);
}
#endif
