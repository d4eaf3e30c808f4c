/* sim/trace_doc.c - the field tables of doc/hdf5-schema.md, generated (sim/trace_doc.h).
 *
 * Only tests/schemadoc and the tests use this; the weft binary does not link it.
 */
#include "config.h"
#define G_LOG_DOMAIN "weft-trace"
#include "sim/trace_doc.h"

#include <string.h>

#define MARKER_PREFIX "<!-- fields of "
#define MARKER_SUFFIX ": generated from sim/trace_schema.h by `make schema-doc` -->"

char *
weft_trace_doc_marker (const WeftTraceRecord *record)
{
    return g_strconcat (MARKER_PREFIX, record->dataset, MARKER_SUFFIX, NULL);
}

static char *
type_name (WeftTraceFieldKind kind)
{
    switch (kind) {
    case WEFT_TRACE_FIELD_U8:
        return g_strdup ("u8");
    case WEFT_TRACE_FIELD_U32:
        return g_strdup ("u32");
    case WEFT_TRACE_FIELD_I32:
        return g_strdup ("i32");
    case WEFT_TRACE_FIELD_U64:
        return g_strdup ("u64");
    case WEFT_TRACE_FIELD_F64:
        return g_strdup ("f64");
    case WEFT_TRACE_FIELD_NAME:
        return g_strdup_printf ("string[%d]", WEFT_TRACE_NAME_LEN);
    case WEFT_TRACE_FIELD_KIND:
        return g_strdup_printf ("string[%d]", WEFT_TRACE_KIND_LEN);
    case WEFT_TRACE_FIELD_SHORT:
        return g_strdup_printf ("string[%d]", WEFT_TRACE_SHORT_LEN);
    }
    g_return_val_if_reached (g_strdup ("?"));
}

/* A table cell: '|' would end it early, so it is escaped. */
static void
append_cell (GString *out, const char *text)
{
    g_string_append (out, *text != '\0' ? " " : "");
    for (const char *c = text; *c != '\0'; c++) {
        if (*c == '|')
            g_string_append_c (out, '\\');
        g_string_append_c (out, *c);
    }
    g_string_append (out, " |");
}

void
weft_trace_doc_table (GString *out, const WeftTraceRecord *record)
{
    g_string_append (out, "| field | type | unit | meaning |\n|---|---|---|---|\n");
    for (guint i = 0; i < record->n_fields; i++) {
        const WeftTraceField *f = &record->fields[i];
        char *type = type_name (f->kind);
        g_string_append_printf (out, "| `%s` | %s |", f->name, type);
        append_cell (out, f->unit);
        append_cell (out, f->doc);
        g_string_append_c (out, '\n');
        g_free (type);
    }
}

/* The record whose marker @line is, or NULL; *@marker tells whether it is a marker at all. */
static const WeftTraceRecord *
marked_record (const char *line, gboolean *marker)
{
    *marker = g_str_has_prefix (line, MARKER_PREFIX);
    for (guint i = 0; *marker && weft_trace_records[i] != NULL; i++) {
        char *want = weft_trace_doc_marker (weft_trace_records[i]);
        gboolean match = strcmp (line, want) == 0;
        g_free (want);
        if (match)
            return weft_trace_records[i];
    }
    return NULL;
}

char *
weft_trace_doc_update (const char *text, GError **error)
{
    g_return_val_if_fail (text != NULL, NULL);
    g_return_val_if_fail (error == NULL || *error == NULL, NULL);

    char **lines = g_strsplit (text, "\n", -1);
    guint n_records = 0;
    while (weft_trace_records[n_records] != NULL)
        n_records++;
    gboolean *seen = g_new0 (gboolean, n_records);
    GString *out = g_string_sized_new (strlen (text) + 1024);
    gboolean ok = TRUE;
    for (guint i = 0; ok && lines[i] != NULL; i++) {
        gboolean marker;
        const WeftTraceRecord *rec = marked_record (lines[i], &marker);
        g_string_append (out, lines[i]);
        if (lines[i + 1] != NULL)
            g_string_append_c (out, '\n');
        if (!marker)
            continue;
        guint r = 0;
        while (rec != NULL && weft_trace_records[r] != rec)
            r++;
        if (rec == NULL || seen[r]) {
            g_set_error (error, WEFT_TRACE_ERROR, WEFT_TRACE_ERROR_READ, "line %u: %s: \"%s\"",
                         i + 1,
                         rec == NULL ? "a marker that names no record (or is misspelt)"
                                     : "a second marker for the same record",
                         lines[i]);
            ok = FALSE;
            break;
        }
        seen[r] = TRUE;
        weft_trace_doc_table (out, rec);
        while (lines[i + 1] != NULL && lines[i + 1][0] == '|')
            i++; /* the old table */
    }
    for (guint r = 0; ok && r < n_records; r++)
        if (!seen[r]) {
            char *want = weft_trace_doc_marker (weft_trace_records[r]);
            g_set_error (error, WEFT_TRACE_ERROR, WEFT_TRACE_ERROR_READ,
                         "no table for %s: the page needs a line \"%s\"",
                         weft_trace_records[r]->dataset, want);
            g_free (want);
            ok = FALSE;
        }
    g_free (seen);
    g_strfreev (lines);
    if (!ok) {
        g_string_free (out, TRUE);
        return NULL;
    }
    return g_string_free (out, FALSE);
}
