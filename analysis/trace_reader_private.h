/* analysis/trace_reader_private.h - shared by the two files of the trace reader
 * (trace_reader.c: opening and judging a trace, the row readers; trace_reader_check.c: the
 * checks of links, types, layouts, stored bytes and attributes, and the chunked read).  Not
 * for other modules: they use analysis/trace_reader.h.
 *
 * Every function here reports a problem as *why, one line (transfer full), and leaves HDF5's
 * error stack empty.
 */
#ifndef WEFT_ANALYSIS_TRACE_READER_PRIVATE_H
#define WEFT_ANALYSIS_TRACE_READER_PRIVATE_H

#include <hdf5.h>

#include "analysis/trace_reader.h"
#include "sim/trace_types.h"

/* An open trace file. */
typedef struct {
    const char *path; /* borrowed */
    hid_t file;
    guint64 file_bytes; /* its size on disk: nothing stored in it can be larger */
} WeftTraceFile;

/* A data set that passed every check, open for reading. */
typedef struct {
    hid_t dset;
    hsize_t rows;
    hsize_t slab_rows; /* rows per read: whole chunks */
    size_t row_bytes;  /* as stored */
} WeftTraceTable;

typedef enum { WEFT_TRACE_ATTR_ABSENT, WEFT_TRACE_ATTR_READ, WEFT_TRACE_ATTR_BAD } WeftTraceAttr;

/* @s, which comes from the file, as one short printable line.  (transfer full) */
char *weft_trace_reader_printable (const char *s);

/* Whether @name ("/topology/nodes") is an object of type @want (H5I_GROUP, H5I_DATASET)
 * reached through hard links and groups only: 1 yes, 0 it is missing, -1 not (*why). */
int weft_trace_reader_hard_path (hid_t file, const char *name, H5I_type_t want, char **why);

/* Opens @rec's data set of a file of schema @version into @tab after every check; FALSE with
 * *why otherwise, and *missing when the data set is simply not there. */
gboolean weft_trace_reader_table_open (const WeftTraceFile *t, const WeftTraceRecord *rec,
                                       guint version, WeftTraceTable *tab, char **why,
                                       gboolean *missing);

/* Every row of an opened table, a slab at a time, into a zeroed GArray of @rec's struct;
 * NULL with *why if memory runs short or HDF5 fails.  (transfer full) */
GArray *weft_trace_reader_table_read (WeftTraceTable *tab, const WeftTraceRecord *rec, char **why);

void weft_trace_reader_table_close (WeftTraceTable *tab);

/* /meta's attribute @name, one integer (@integer) or float, converted to @mtype into @out. */
WeftTraceAttr weft_trace_reader_attr_number (hid_t meta, const char *name, gboolean integer,
                                             hid_t mtype, void *out, char **why);

/* /meta's attribute @name, one string (variable-length, or fixed-length of at most
 * WEFT_TRACE_READER_MAX_ATTR_BYTES and the file's size), into *out (transfer full). */
WeftTraceAttr weft_trace_reader_attr_string (const WeftTraceFile *t, hid_t meta, const char *name,
                                             char **out, char **why);

#endif /* WEFT_ANALYSIS_TRACE_READER_PRIVATE_H */
