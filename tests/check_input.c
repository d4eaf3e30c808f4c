/* tests/check_input.c - sim/input.c: input files are read whole, regular files only, within
 * a limit.
 *
 * Invariants: a regular file within the limit reads whole (length and bytes, NUL-terminated,
 * an empty file too); one byte over the limit is refused with the limit named; /dev/zero, a
 * folder and a FIFO with no writer are refused at once as not regular files (none is read,
 * none blocks); a missing file gives the OS's reason.
 */
#include "config.h"
#include <check.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/input.h"
#include "tests/harness.h"

START_TEST (test_input_limits)
{
    g_autofree char *path = g_build_filename (harness_tmp, "f.txt", NULL);
    ck_assert (g_file_set_contents (path, "0123456789", 10, NULL));
    char *text = NULL;
    gsize len = 0;
    GError *error = NULL;
    ck_assert (weft_input_read (path, 10, &text, &len, &error));
    ck_assert_uint_eq (len, 10);
    ck_assert_str_eq (text, "0123456789");
    g_free (text);
    ck_assert (!weft_input_read (path, 9, &text, &len, &error));
    ck_assert_ptr_null (text);
    ck_assert_str_eq (error->message, "larger than the 9B limit for this kind of file");
    g_clear_error (&error);
    ck_assert (g_file_set_contents (path, "", 0, NULL));
    ck_assert (weft_input_read (path, 10, &text, NULL, &error));
    ck_assert_str_eq (text, "");
    g_free (text);

    const char *special[] = { "/dev/zero", harness_tmp };
    for (guint i = 0; i < G_N_ELEMENTS (special); i++) {
        ck_assert (!weft_input_read (special[i], WEFT_INPUT_MAX_BULK, &text, NULL, &error));
        ck_assert_str_eq (error->message, "not a regular file (a FIFO, a device or a folder)");
        g_clear_error (&error);
    }
    g_autofree char *fifo = g_build_filename (harness_tmp, "fifo", NULL);
    ck_assert_int_eq (mkfifo (fifo, 0600), 0);
    ck_assert (!weft_input_read (fifo, WEFT_INPUT_MAX_BULK, &text, NULL, &error));
    ck_assert_str_eq (error->message, "not a regular file (a FIFO, a device or a folder)");
    g_clear_error (&error);
    g_unlink (fifo);

    g_autofree char *missing = g_build_filename (harness_tmp, "missing", NULL);
    ck_assert (!weft_input_read (missing, 10, &text, NULL, &error));
    ck_assert (g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT));
    g_clear_error (&error);
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("input");
    TCase *tc = tcase_create ("read");
    tcase_add_checked_fixture (tc, harness_tmp_setup, harness_tmp_teardown);
    tcase_add_test (tc, test_input_limits);
    suite_add_tcase (s, tc);
    return s;
}
