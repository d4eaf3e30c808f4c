/* sim/records.h - small text files of whitespace-separated records: forwarding tables,
 * SL-to-VL tables.
 *
 * Blank lines and lines whose first non-blank character is '#' are skipped; every other line
 * is split on spaces and tabs into fields (empty fields dropped) and handed to a callback with
 * its line number, which validates it and reports errors as "PATH:LINE: what is wrong".
 */
#ifndef WEFT_SIM_RECORDS_H
#define WEFT_SIM_RECORDS_H

#include <glib.h>

/* @fields: (transfer none) NULL-terminated, @n of them; FALSE with @error set stops reading. */
typedef gboolean (*WeftRecordFn) (char **fields, guint n, guint line, void *data, GError **error);

/** Reads @path and calls @fn for every record.  An unreadable file is G_FILE_ERROR, left for
 * the caller to put in context; otherwise the first error @fn sets. */
gboolean weft_records_read (const char *path, WeftRecordFn fn, void *data, GError **error);

/* Sets @error to "PATH:LINE: MESSAGE" in @domain / @code; returns FALSE. */
gboolean weft_records_fail (GError **error, GQuark domain, gint code, const char *path, guint line,
                            const char *format, ...) G_GNUC_PRINTF (6, 7);

#endif /* WEFT_SIM_RECORDS_H */
