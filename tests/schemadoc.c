/* tests/schemadoc.c - rewrites the field tables of the schema page from sim/trace_schema.h.
 *
 * Usage: schemadoc DOC.md     (`make schema-doc` runs it on doc/hdf5-schema.md)
 * Replaces the table after each "<!-- fields of /X: generated ... -->" marker with the one
 * the code gives (sim/trace_doc.h) and leaves every other line alone.  Exits 0 whether or not
 * anything changed, 1 if the page cannot be read, updated or written.  tests/check_trace_doc
 * is the check that the page and the code agree; this is the fix.
 */
#include "config.h"
#include <stdio.h>
#include <string.h>

#include "sim/trace_doc.h"

int
main (int argc, char **argv)
{
    if (argc != 2) {
        fprintf (stderr, "usage: schemadoc DOC.md\n");
        return 2;
    }
    GError *error = NULL;
    char *text = NULL, *updated = NULL;
    if (!g_file_get_contents (argv[1], &text, NULL, &error) ||
        (updated = weft_trace_doc_update (text, &error)) == NULL ||
        (strcmp (text, updated) != 0 && !g_file_set_contents (argv[1], updated, -1, &error))) {
        fprintf (stderr, "schemadoc: %s: %s\n", argv[1], error->message);
        g_error_free (error);
        g_free (text);
        return 1;
    }
    printf ("%s: %s\n", argv[1], strcmp (text, updated) == 0 ? "up to date" : "tables rewritten");
    g_free (text);
    g_free (updated);
    return 0;
}
