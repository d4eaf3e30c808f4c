/* sim/trace_table.h - one table in an HDF5 file of its own: what `weft sweep --collect` writes
 * beside its CSV (doc/sweeps.md, doc/hdf5-schema.md "Collected tables").
 *
 * The file holds /meta (attributes: format, format_version, complete, and the caller's
 * strings), /table (a compound data set, one row per table row, one member per column, in
 * column order: text as fixed-length NUL-padded UTF-8 strings as long as the column's longest
 * value, numbers as little-endian IEEE doubles or 32-bit unsigned integers) and /columns (one
 * row per column of /table: name, role, unit), so h5py reads the table as one structured
 * array (pandas.DataFrame(f["table"][()])) and knows each column's role and unit.
 *
 * Completeness as for traces: the file is written as PATH.partial, /meta complete = 1 is the
 * last thing written, and only then is it renamed to PATH, so a file at PATH is whole and an
 * interrupted write leaves nothing that carries the final name.  Not incremental: the whole
 * table is in memory (a sweep's points, thousands of rows at most).
 */
#ifndef WEFT_SIM_TRACE_TABLE_H
#define WEFT_SIM_TRACE_TABLE_H

#include <glib.h>

#include "sim/errors.h"

#define WEFT_TRACE_TABLE_FORMAT "weft collected table"
#define WEFT_TRACE_TABLE_VERSION 1

typedef enum {
    WEFT_TRACE_COLUMN_TEXT, /* text[row]: UTF-8, never NULL ("" for none) */
    WEFT_TRACE_COLUMN_F64,  /* f64[row]: NAN for none */
    WEFT_TRACE_COLUMN_U32,  /* u32[row] */
} WeftTraceColumnKind;

typedef struct {
    const char *name; /* the member's name, as the CSV's column header */
    const char *role; /* free text stored in /columns ("axis", "metric", ...) */
    const char *unit; /* "" for none */
    WeftTraceColumnKind kind;
    const char *const *text; /* borrowed, one per row, by kind */
    const double *f64;
    const guint32 *u32;
} WeftTraceColumn;

/** Writes @n_cols columns of @n_rows rows to @path (through PATH.partial, see above), with
 * the string attributes @meta of /meta (pairs: name, value, ..., NULL).  FALSE with
 * WEFT_TRACE_ERROR_OPEN (cannot create) or _WRITE (a write or the rename failed; nothing is
 * left at PATH.partial then). */
gboolean weft_trace_table_write (const char *path, const char *const *meta,
                                 const WeftTraceColumn *cols, guint n_cols, guint n_rows,
                                 GError **error);

#endif /* WEFT_SIM_TRACE_TABLE_H */
