/* analysis/collected.h - reading a sweep's collected table (collected.h5, written by
 * `weft sweep --collect` through sim/trace_table.h; doc/sweeps.md).
 *
 * The reader takes the trace reader's precautions (analysis/trace_reader.h): it reads in a
 * child process, reaches data sets through hard links only, checks /meta's bytes, each data
 * set's header, layout, filters and stored bytes before libhdf5 reads rows, and accepts
 * only what the writer stores: /table's members fixed-length strings of at most
 * WEFT_COLLECTED_MAX_TEXT bytes, 32-bit unsigned integers or IEEE doubles, and /columns
 * naming each of them, in order, with a known role.  A table whose /meta complete is not 1
 * (an interrupted collection) is refused as incomplete.
 */
#ifndef WEFT_ANALYSIS_COLLECTED_H
#define WEFT_ANALYSIS_COLLECTED_H

#include <glib.h>

#include "sim/errors.h"

#define WEFT_COLLECTED_MAX_TEXT 65536 /* bytes of one text cell */

typedef enum {
    WEFT_COLLECTED_INDEX,  /* the point's index (a number) */
    WEFT_COLLECTED_NAME,   /* the point's name */
    WEFT_COLLECTED_STATUS, /* done, duration, hang, ..., missing, incomplete, invalid */
    WEFT_COLLECTED_AXIS,   /* a varied parameter, GROUP:KEY, its value as text */
    WEFT_COLLECTED_METRIC, /* a figure of weft compare: NAN where the point has none */
    WEFT_COLLECTED_TRACE,  /* the point's trace, "" without one */
} WeftCollectedRole;

typedef struct {
    char *name; /* as the CSV's header: "topology:link_rate", "FCT p99 [us]" */
    char *unit; /* "" for none */
    WeftCollectedRole role;
    char **text;    /* text columns: one per row (NULL-terminated); else NULL */
    double *values; /* number columns (index, metric): one per row; else NULL */
} WeftCollectedColumn;

typedef struct {
    char *path;
    char *sweep_file; /* /meta sweep_file, "" if absent */
    guint n_rows;
    GPtrArray *columns; /* WeftCollectedColumn, in the file's order */
} WeftCollected;

/* What a file that did not read is. */
typedef enum {
    WEFT_COLLECTED_IS_TABLE,  /* a collected table: damaged, incomplete or malformed */
    WEFT_COLLECTED_NOT_TABLE, /* not HDF5, or HDF5 without /meta format "weft collected
                                 table" (a trace, say): try it as something else */
    WEFT_COLLECTED_UNOPENED,  /* HDF5's signature, but it does not open (cut short): a
                                 collected table or a trace, no one can tell */
} WeftCollectedProbe;

/** Reads the collected table at @path.  NULL with WEFT_TRACE_ERROR_READ, one line naming
 * @path, when it is missing, not a table, damaged, truncated, incomplete or malformed;
 * *@what then says which of the above it is.  (transfer full) */
WeftCollected *weft_collected_read (const char *path, WeftCollectedProbe *what, GError **error);

void weft_collected_free (WeftCollected *t);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WeftCollected, weft_collected_free)

/* The column named @name (exactly), or NULL.  (transfer none) */
const WeftCollectedColumn *weft_collected_column (const WeftCollected *t, const char *name);

#endif /* WEFT_ANALYSIS_COLLECTED_H */
