#include "config.h"
#define G_LOG_DOMAIN "weft-records"
#include "sim/records.h"

#include <stdarg.h>

#include "sim/input.h"

gboolean
weft_records_read (const char *path, WeftRecordFn fn, void *data, GError **error)
{
    g_autofree char *text = NULL;
    GError *local = NULL;
    if (!weft_input_read (path, WEFT_INPUT_MAX_BULK, &text, NULL, &local)) {
        g_set_error (error, local->domain, local->code, "%s: %s", path, local->message);
        g_error_free (local);
        return FALSE;
    }
    g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
    for (guint i = 0; lines[i]; i++) {
        g_strstrip (lines[i]);
        if (!lines[i][0] || lines[i][0] == '#')
            continue;
        g_auto (GStrv) split = g_strsplit_set (lines[i], " \t", -1);
        g_autoptr (GPtrArray) fields = g_ptr_array_new ();
        for (guint j = 0; split[j]; j++)
            if (split[j][0])
                g_ptr_array_add (fields, split[j]);
        guint n = fields->len;
        g_ptr_array_add (fields, NULL);
        if (!fn ((char **) fields->pdata, n, i + 1, data, error))
            return FALSE;
    }
    return TRUE;
}

gboolean
weft_records_fail (GError **error, GQuark domain, gint code, const char *path, guint line,
                   const char *format, ...)
{
    va_list ap;
    va_start (ap, format);
    g_autofree char *msg = g_strdup_vprintf (format, ap);
    va_end (ap);
    g_set_error (error, domain, code, "%s:%u: %s", path, line, msg);
    return FALSE;
}
