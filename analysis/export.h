/* analysis/export.h - the rows of any trace data set as a table: text, CSV or JSON, with the
 * columns chosen by name (`weft report --table DATA_SET --columns ...`, doc/analysis.md).
 *
 * Columns are the record's fields (sim/trace_schema.h, doc/hdf5-schema.md), in file order by
 * default.  Every format prints the same rows and the same value text: integers as they are,
 * doubles with 17 significant digits (they read back to the same double), strings as stored
 * (up to the field's length).  Text: a header line "# name[unit] ..." then one line per row,
 * columns separated by two spaces and aligned; CSV (RFC 4180): a header of the names then one
 * line per row; JSON: one object, {"data_set": ..., "units": {...}, "rows": [{...}, ...]}.
 */
#ifndef WEFT_ANALYSIS_EXPORT_H
#define WEFT_ANALYSIS_EXPORT_H

#include <glib.h>

#include "analysis/compare.h"
#include "sim/trace_schema.h"

/** The record whose data set is @name: its path without the leading '/' ("flows", "links",
 * "topology/nodes"); NULL if none. */
const WeftTraceRecord *weft_export_record (const char *name);

/** The data set names weft_export_record() knows, ", "-separated.  (transfer full) */
char *weft_export_record_names (void);

/** The fields of @rec that @columns (a comma-separated list of field names; NULL or "": all)
 * names, in that order, NULL-terminated.  NULL with *@unknown set to the first name that is
 * not a field.  (transfer container) */
const WeftTraceField **weft_export_columns (const WeftTraceRecord *rec, const char *columns,
                                            char **unknown);

/** Reads @rec's rows from @path through analysis/trace_reader.h.  (transfer full) */
GArray *weft_export_read (const WeftTraceRecord *rec, const char *path, GError **error);

/** Appends @n rows of @rec (structs of rec->row_size bytes) as a table of @fields. */
void weft_export_rows (GString *out, const WeftTraceRecord *rec, const WeftTraceField **fields,
                       const void *rows, guint n, WeftCompareFormat format);

/* Appends @s to @out as one CSV field (RFC 4180): quoted when it holds a comma, a quote or a
 * line break, its quotes doubled; nothing for NULL.  weft report's and weft compare's CSV too. */
void weft_export_csv_field (GString *out, const char *s);

/* Appends @s to @out as one JSON string: quotes and backslashes escaped, control characters
 * (C0, DEL and C1) as \\u00XX, other characters as UTF-8, bytes that are not UTF-8 as U+FFFD;
 * "null" for NULL.  Every JSON weft report and weft compare print goes through it. */
void weft_export_json_string (GString *out, const char *s);

#endif /* WEFT_ANALYSIS_EXPORT_H */
