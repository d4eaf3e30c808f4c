#include "config.h"
#include "tests/harness.h"

#include <glib/gstdio.h>
#include <stdlib.h>

#include "cli/session.h"

char *
harness_srcpath (const char *relative)
{
    const char *top = g_getenv ("WEFT_SRCDIR");
    return g_build_filename (top ? top : ".", relative, NULL);
}

char *harness_tmp;

void
harness_tmp_setup (void)
{
    harness_tmp = g_dir_make_tmp ("weft-test-XXXXXX", NULL);
    g_assert (harness_tmp);
}

void
harness_tmp_teardown (void)
{
    g_autoptr (GDir) d = g_dir_open (harness_tmp, 0, NULL);
    const char *n;
    while (d && (n = g_dir_read_name (d))) {
        g_autofree char *p = g_build_filename (harness_tmp, n, NULL);
        g_unlink (p);
    }
    g_rmdir (harness_tmp);
    g_clear_pointer (&harness_tmp, g_free);
}

gboolean
harness_try_prepare (WeftSession *session, const char *text, GError **error)
{
    g_autofree char *path = g_build_filename (harness_tmp, "t.ini", NULL);
    ck_assert (g_file_set_contents (path, text, -1, NULL));
    return weft_session_prepare (session, path, NULL, NULL, 0, error);
}

void
harness_prepare (WeftSession *session, const char *text)
{
    g_autoptr (GError) error = NULL;
    if (!harness_try_prepare (session, text, &error))
        ck_abort_msg ("prepare failed: %s", error->message);
}

guint32
harness_node (const WeftSession *session, const char *name)
{
    guint32 id = weft_graph_lookup (session->graph, name);
    ck_assert_msg (id != WEFT_GRAPH_NONE, "no node named %s", name);
    return id;
}

guint32
harness_endpoint (const WeftSession *session, const char *name)
{
    return weft_graph_node (session->graph, harness_node (session, name))->endpoint;
}

int
main (void)
{
    SRunner *sr = srunner_create (test_suite ());
    srunner_set_tap (sr, "-");
    srunner_run_all (sr, CK_SILENT);
    int failed = srunner_ntests_failed (sr);
    srunner_free (sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
