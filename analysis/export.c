/* analysis/export.c - a data set's rows as a table (analysis/export.h). */
#include "config.h"
#define G_LOG_DOMAIN "weft-analysis"
#include "analysis/export.h"

#include <string.h>

#include "analysis/trace_reader.h"

typedef GArray *(*Reader) (const char *path, GError **error);

static const struct {
    const WeftTraceRecord *record;
    Reader read;
} tables[] = {
#define WEFT_EXPORT_TABLE(one, many, ...) { &weft_trace_record_##one, weft_trace_reader_##many },
    WEFT_TRACE_RECORDS (WEFT_EXPORT_TABLE)
#undef WEFT_EXPORT_TABLE
};

const WeftTraceRecord *
weft_export_record (const char *name)
{
    g_return_val_if_fail (name != NULL, NULL);
    for (guint i = 0; i < G_N_ELEMENTS (tables); i++)
        if (strcmp (tables[i].record->dataset + 1, name) == 0)
            return tables[i].record;
    return NULL;
}

char *
weft_export_record_names (void)
{
    GString *s = g_string_new (NULL);
    for (guint i = 0; i < G_N_ELEMENTS (tables); i++)
        g_string_append_printf (s, "%s%s", i ? ", " : "", tables[i].record->dataset + 1);
    return g_string_free (s, FALSE);
}

GArray *
weft_export_read (const WeftTraceRecord *rec, const char *path, GError **error)
{
    for (guint i = 0; i < G_N_ELEMENTS (tables); i++)
        if (tables[i].record == rec)
            return tables[i].read (path, error);
    g_return_val_if_reached (NULL);
}

const WeftTraceField **
weft_export_columns (const WeftTraceRecord *rec, const char *columns, char **unknown)
{
    g_return_val_if_fail (rec != NULL && unknown != NULL, NULL);
    GPtrArray *out = g_ptr_array_new ();
    if (columns == NULL || *columns == '\0') {
        for (guint i = 0; i < rec->n_fields; i++)
            g_ptr_array_add (out, (gpointer) &rec->fields[i]);
    } else {
        g_auto (GStrv) names = g_strsplit (columns, ",", -1);
        for (guint k = 0; names[k]; k++) {
            const char *name = g_strstrip (names[k]);
            const WeftTraceField *f = NULL;
            for (guint i = 0; i < rec->n_fields && f == NULL; i++)
                if (strcmp (rec->fields[i].name, name) == 0)
                    f = &rec->fields[i];
            if (f == NULL) {
                *unknown = g_strdup (name);
                g_ptr_array_free (out, TRUE);
                return NULL;
            }
            g_ptr_array_add (out, (gpointer) f);
        }
    }
    g_ptr_array_add (out, NULL);
    return (const WeftTraceField **) g_ptr_array_free (out, FALSE);
}

/* One value as text; *@quoted: a string (quoted in JSON).  (transfer full) */
static char *
value_text (const WeftTraceField *f, const guint8 *row, gboolean *quoted)
{
    const void *p = row + f->offset;
    *quoted = FALSE;
    switch (f->kind) {
    case WEFT_TRACE_FIELD_U8:
        return g_strdup_printf ("%u", *(const guint8 *) p);
    case WEFT_TRACE_FIELD_U32:
        return g_strdup_printf ("%u", *(const guint32 *) p);
    case WEFT_TRACE_FIELD_I32:
        return g_strdup_printf ("%d", *(const gint32 *) p);
    case WEFT_TRACE_FIELD_U64:
        return g_strdup_printf ("%" G_GUINT64_FORMAT, *(const guint64 *) p);
    case WEFT_TRACE_FIELD_F64:
        return g_strdup_printf ("%.17g", *(const double *) p);
    case WEFT_TRACE_FIELD_NAME:
        *quoted = TRUE;
        return g_strndup (p, WEFT_TRACE_NAME_LEN);
    case WEFT_TRACE_FIELD_KIND:
        *quoted = TRUE;
        return g_strndup (p, WEFT_TRACE_KIND_LEN);
    case WEFT_TRACE_FIELD_SHORT:
    default:
        *quoted = TRUE;
        return g_strndup (p, WEFT_TRACE_SHORT_LEN);
    }
}

void
weft_export_json_string (GString *out, const char *s)
{
    if (s == NULL) {
        g_string_append (out, "null");
        return;
    }
    /* Bytes that are not UTF-8 (a damaged trace's string) become U+FFFD, so the document
     * stays valid JSON whatever the file held. */
    g_autofree char *valid = g_utf8_make_valid (s, -1);
    g_string_append_c (out, '"');
    for (const char *p = valid; *p; p = g_utf8_next_char (p)) {
        gunichar c = g_utf8_get_char (p);
        if (c == '"' || c == '\\')
            g_string_append_printf (out, "\\%c", (char) c);
        else if (c < 0x20 || (c >= 0x7f && c <= 0x9f))
            g_string_append_printf (out, "\\u%04x", (unsigned) c);
        else
            g_string_append_len (out, p, g_utf8_next_char (p) - p);
    }
    g_string_append_c (out, '"');
}

void
weft_export_csv_field (GString *out, const char *s)
{
    if (s == NULL)
        return;
    if (strpbrk (s, ",\"\r\n") == NULL) {
        g_string_append (out, s);
        return;
    }
    g_string_append_c (out, '"');
    for (const char *p = s; *p; p++) {
        if (*p == '"')
            g_string_append_c (out, '"');
        g_string_append_c (out, *p);
    }
    g_string_append_c (out, '"');
}

/* Text: a value without blanks, so that columns split on white space ("-" when empty). */
static char *
text_value (char *v)
{
    if (*v == '\0') {
        g_free (v);
        return g_strdup ("-");
    }
    for (char *p = v; *p; p++)
        if (g_ascii_isspace (*p) || (guchar) *p < 0x20)
            *p = '_';
    return v;
}

void
weft_export_rows (GString *out, const WeftTraceRecord *rec, const WeftTraceField **fields,
                  const void *rows, guint n, WeftCompareFormat format)
{
    g_return_if_fail (out != NULL && rec != NULL && fields != NULL && (rows != NULL || n == 0));
    guint nf = 0;
    while (fields[nf])
        nf++;
    const guint8 *base = rows;
    if (format == WEFT_COMPARE_JSON) {
        g_string_append (out, "{\"data_set\": ");
        weft_export_json_string (out, rec->dataset);
        g_string_append (out, ", \"units\": {");
        for (guint k = 0; k < nf; k++) {
            g_string_append (out, k ? ", " : "");
            weft_export_json_string (out, fields[k]->name);
            g_string_append (out, ": ");
            weft_export_json_string (out, fields[k]->unit);
        }
        g_string_append (out, "}, \"rows\": [");
        for (guint i = 0; i < n; i++) {
            g_string_append (out, i ? ", {" : "{");
            for (guint k = 0; k < nf; k++) {
                gboolean quoted;
                g_autofree char *v =
                    value_text (fields[k], base + (gsize) i * rec->row_size, &quoted);
                g_string_append (out, k ? ", " : "");
                weft_export_json_string (out, fields[k]->name);
                g_string_append (out, ": ");
                if (quoted)
                    weft_export_json_string (out, v);
                else
                    g_string_append (out, v);
            }
            g_string_append_c (out, '}');
        }
        g_string_append (out, "]}\n");
        return;
    }
    if (format == WEFT_COMPARE_CSV) {
        for (guint k = 0; k < nf; k++) {
            g_string_append (out, k ? "," : "");
            weft_export_csv_field (out, fields[k]->name);
        }
        g_string_append (out, "\r\n");
        for (guint i = 0; i < n; i++) {
            for (guint k = 0; k < nf; k++) {
                gboolean quoted;
                g_autofree char *v =
                    value_text (fields[k], base + (gsize) i * rec->row_size, &quoted);
                g_string_append (out, k ? "," : "");
                weft_export_csv_field (out, v);
            }
            g_string_append (out, "\r\n");
        }
        return;
    }
    /* text: widths first */
    char **cells = g_new0 (char *, (gsize) (n + 1) * nf + 1);
    guint *width = g_new0 (guint, MAX (nf, 1));
    for (guint k = 0; k < nf; k++) {
        cells[k] = *fields[k]->unit ? g_strdup_printf ("%s[%s]", fields[k]->name, fields[k]->unit)
                                    : g_strdup (fields[k]->name);
        width[k] = strlen (cells[k]) + (k == 0 ? 2 : 0);
    }
    for (guint i = 0; i < n; i++)
        for (guint k = 0; k < nf; k++) {
            gboolean quoted;
            char *v =
                text_value (value_text (fields[k], base + (gsize) i * rec->row_size, &quoted));
            cells[(gsize) (i + 1) * nf + k] = v;
            width[k] = MAX (width[k], (guint) strlen (v));
        }
    for (guint i = 0; i <= n; i++) {
        GString *line = g_string_new (i == 0 ? "# " : "");
        for (guint k = 0; k < nf; k++) {
            const char *v = cells[(gsize) i * nf + k];
            guint w = width[k] - (i == 0 && k == 0 ? 2 : 0);
            if (k)
                g_string_append (line, "  ");
            g_string_append_printf (line, "%-*s", (int) w, v);
        }
        while (line->len && line->str[line->len - 1] == ' ')
            g_string_truncate (line, line->len - 1);
        g_string_append_printf (out, "%s\n", line->str);
        g_string_free (line, TRUE);
    }
    for (gsize c = 0; c < (gsize) (n + 1) * nf; c++)
        g_free (cells[c]);
    g_free (cells);
    g_free (width);
}
