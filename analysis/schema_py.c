/* analysis/schema_py.c - the record table of analysis/weft_trace.py (analysis/schema_py.h). */
#include "config.h"
#define G_LOG_DOMAIN "weft-schema-py"
#include "analysis/schema_py.h"
#include "analysis/trace_reader.h"

#include <string.h>

/* The numpy type a field is stored as. */
static char *
numpy_type (WeftTraceFieldKind kind)
{
    switch (kind) {
    case WEFT_TRACE_FIELD_U8:
        return g_strdup ("u1");
    case WEFT_TRACE_FIELD_U32:
        return g_strdup ("<u4");
    case WEFT_TRACE_FIELD_I32:
        return g_strdup ("<i4");
    case WEFT_TRACE_FIELD_U64:
        return g_strdup ("<u8");
    case WEFT_TRACE_FIELD_F64:
        return g_strdup ("<f8");
    case WEFT_TRACE_FIELD_NAME:
        return g_strdup_printf ("S%d", WEFT_TRACE_NAME_LEN);
    case WEFT_TRACE_FIELD_KIND:
        return g_strdup_printf ("S%d", WEFT_TRACE_KIND_LEN);
    case WEFT_TRACE_FIELD_SHORT:
        return g_strdup_printf ("S%d", WEFT_TRACE_SHORT_LEN);
    }
    g_return_val_if_reached (g_strdup ("?"));
}

void
weft_schema_py_block (GString *out)
{
    g_string_append (out, "# Each record's data set: (schema version that added it, [(field, numpy "
                          "type, schema\n"
                          "# version that added the field), ...] in file order).\n"
                          "RECORDS = {\n");
    for (guint r = 0; weft_trace_records[r] != NULL; r++) {
        const WeftTraceRecord *rec = weft_trace_records[r];
        g_string_append_printf (out, "    \"%s\": (%u, [\n", rec->dataset + 1, rec->since);
        for (guint i = 0; i < rec->n_fields; i++) {
            char *type = numpy_type (rec->fields[i].kind);
            g_string_append_printf (out, "        (\"%s\", \"%s\", %u),\n", rec->fields[i].name,
                                    type, weft_trace_reader_field_since (rec, &rec->fields[i]));
            g_free (type);
        }
        g_string_append (out, "    ]),\n");
    }
    g_string_append (out, "}\n");
    /* The units of the fields that have one, for the reader's column names (fct_ps[ps]). */
    g_string_append (out, "# Each record's fields that have a unit: {field: unit}.\n"
                          "UNITS = {\n");
    for (guint r = 0; weft_trace_records[r] != NULL; r++) {
        const WeftTraceRecord *rec = weft_trace_records[r];
        g_string_append_printf (out, "    \"%s\": {", rec->dataset + 1);
        const char *sep = "";
        for (guint i = 0; i < rec->n_fields; i++) {
            if (rec->fields[i].unit[0] == '\0')
                continue;
            g_string_append_printf (out, "%s\n        \"%s\": \"%s\"", sep, rec->fields[i].name,
                                    rec->fields[i].unit);
            sep = ",";
        }
        g_string_append (out, *sep ? ",\n    },\n" : "},\n");
    }
    g_string_append (out, "}\n");
}

char *
weft_schema_py_update (const char *text, GError **error)
{
    g_return_val_if_fail (text != NULL, NULL);
    g_return_val_if_fail (error == NULL || *error == NULL, NULL);

    const char *begin = strstr (text, WEFT_SCHEMA_PY_BEGIN "\n");
    const char *end = begin ? strstr (begin, "\n" WEFT_SCHEMA_PY_END) : NULL;
    const char *again = begin ? strstr (begin + 1, WEFT_SCHEMA_PY_BEGIN) : NULL;
    if (begin == NULL || end == NULL || (again != NULL && again < end) ||
        strstr (end + 1, "\n" WEFT_SCHEMA_PY_END) != NULL) {
        g_set_error (error, WEFT_TRACE_ERROR, WEFT_TRACE_ERROR_READ,
                     "the source needs one line \"%s\", and after it one line \"%s\"",
                     WEFT_SCHEMA_PY_BEGIN, WEFT_SCHEMA_PY_END);
        return NULL;
    }
    GString *out = g_string_new_len (text, begin - text);
    g_string_append (out, WEFT_SCHEMA_PY_BEGIN "\n");
    weft_schema_py_block (out);
    g_string_append (out, end + 1);
    return g_string_free (out, FALSE);
}
