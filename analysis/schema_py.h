/* analysis/schema_py.h - the record table of analysis/weft_trace.py, from sim/trace_schema.h.
 *
 * The Python reader checks a file's members against the schema as the C reader does, and
 * cannot read a C header, so it carries the records as a generated block of Python between
 * two marker lines:
 *     # <generated from sim/trace_schema.h by `make schema-doc`: do not edit>
 *     ...
 *     # </generated>
 * The block defines RECORDS: for each record, its data set without the leading '/', the
 * schema version that added it, and its fields in file order, each (name, numpy type, schema
 * version that added it: weft_trace_reader_field_since()).  Types: "u1", "<u4", "<i4",
 * "<u8", "<f8", "S64" and "S16" (the stored types: little-endian, fixed-length strings).
 * tests/check_trace_doc fails while the block and the code differ; `make schema-doc`
 * (tests/schemadoc) rewrites it.  Only tests/schemadoc and the tests use this module.
 */
#ifndef WEFT_ANALYSIS_SCHEMA_PY_H
#define WEFT_ANALYSIS_SCHEMA_PY_H

#include <glib.h>

#include "sim/errors.h"

#define WEFT_SCHEMA_PY_BEGIN                                                                       \
    "# <generated from sim/trace_schema.h by `make schema-doc`: do not edit>"
#define WEFT_SCHEMA_PY_END "# </generated>"

/* Appends the block's lines between the markers (not the markers), each ending in '\n'. */
void weft_schema_py_block (GString *out);

/** @text (a Python source) with the lines between its markers replaced by the generated
 * block.  Fails with WEFT_TRACE_ERROR_READ if the markers are missing, doubled or out of
 * order.  (transfer full) */
char *weft_schema_py_update (const char *text, GError **error);

#endif /* WEFT_ANALYSIS_SCHEMA_PY_H */
