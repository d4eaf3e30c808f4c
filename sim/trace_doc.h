/* sim/trace_doc.h - the field tables of doc/hdf5-schema.md, from the records of
 * sim/trace_schema.h.
 *
 * The schema page is prose written by hand around one table per record, and each table is
 * generated: it follows a marker line
 *     <!-- fields of /flows: generated from sim/trace_schema.h by `make schema-doc` -->
 * and runs over the lines that start with '|'.  A table has a row per field, in file order:
 * name, type (u8 u32 i32 u64 f64 string[N]), unit and meaning, all from the field's
 * X (KIND, name, unit, doc).  tests/check_trace_doc fails while the page and the code differ;
 * `make schema-doc` (tests/schemadoc) rewrites the tables in place.
 */
#ifndef WEFT_SIM_TRACE_DOC_H
#define WEFT_SIM_TRACE_DOC_H

#include <glib.h>

#include "sim/errors.h"
#include "sim/trace_schema.h"

/* The marker line before @record's table, without its newline.  (transfer full) */
char *weft_trace_doc_marker (const WeftTraceRecord *record);

/* Appends @record's table to @out: a header row, a rule and a row per field, each line
 * ending in a newline. */
void weft_trace_doc_table (GString *out, const WeftTraceRecord *record);

/** @text (a schema page) with the table after each marker replaced by the generated one.
 * Fails with WEFT_TRACE_ERROR_READ if a marker names no record, names one twice, or a record
 * has no marker.  (transfer full) */
char *weft_trace_doc_update (const char *text, GError **error);

#endif /* WEFT_SIM_TRACE_DOC_H */
