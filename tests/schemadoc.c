/* tests/schemadoc.c - rewrites the generated parts of the schema page and of the Python reader
 * from sim/trace_schema.h.
 *
 * Usage: schemadoc DOC.md [READER.py]
 *   (`make schema-doc` runs it on doc/hdf5-schema.md and analysis/weft_trace.py)
 * Replaces the table after each "<!-- fields of /X: generated ... -->" marker of DOC.md with
 * the one the code gives (sim/trace_doc.h), and the record table between the markers of
 * READER.py (analysis/schema_py.h), and leaves every other line alone.  Exits 0 whether or
 * not anything changed, 1 if a file cannot be read, updated or written.
 * tests/check_trace_doc is the check that the files and the code agree; this is the fix.
 */
#include "config.h"
#include <stdio.h>
#include <string.h>

#include "analysis/schema_py.h"
#include "sim/trace_doc.h"

/* Rewrites @path with @update; FALSE after a message on stderr. */
static gboolean
rewrite (const char *path, char *(*update) (const char *, GError **) )
{
    GError *error = NULL;
    char *text = NULL, *updated = NULL;
    if (!g_file_get_contents (path, &text, NULL, &error) ||
        (updated = update (text, &error)) == NULL ||
        (strcmp (text, updated) != 0 && !g_file_set_contents (path, updated, -1, &error))) {
        fprintf (stderr, "schemadoc: %s: %s\n", path, error->message);
        g_error_free (error);
        g_free (text);
        return FALSE;
    }
    printf ("%s: %s\n", path, strcmp (text, updated) == 0 ? "up to date" : "rewritten");
    g_free (text);
    g_free (updated);
    return TRUE;
}

int
main (int argc, char **argv)
{
    if (argc != 2 && argc != 3) {
        fprintf (stderr, "usage: schemadoc DOC.md [READER.py]\n");
        return 2;
    }
    gboolean ok = rewrite (argv[1], weft_trace_doc_update);
    if (argc == 3)
        ok = rewrite (argv[2], weft_schema_py_update) && ok;
    return ok ? 0 : 1;
}
