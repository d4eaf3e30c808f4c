/* analysis/trace_reader_private.h - shared by the two files of the trace reader
 * (trace_reader.c: opening and judging a trace, the row readers; trace_reader_check.c: the
 * checks of links, types, layouts, stored bytes and attributes, and the chunked read;
 * trace_reader_raw.c: the checks of /meta's bytes that the API cannot make;
 * trace_reader_child.c: the public functions, which run the others in a child process).  Not
 * for other modules: they use analysis/trace_reader.h (the fuzz target excepted).
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

typedef enum {
    WEFT_TRACE_OPEN_OK,
    WEFT_TRACE_OPEN_NOT_HDF5, /* missing, not a regular file, or no HDF5 signature: not a trace */
    WEFT_TRACE_OPEN_DAMAGED,  /* HDF5's signature, but it does not open */
} WeftTraceOpenResult;

/* Opens @path read-only into @t (its size noted); otherwise *why says why (transfer full). */
WeftTraceOpenResult weft_trace_reader_file_open (WeftTraceFile *t, const char *path, char **why);

/* Closes what weft_trace_reader_file_open() opened (safe when it failed). */
void weft_trace_reader_file_close (WeftTraceFile *t);

/* Why the layout, filters and stored bytes of @dset (@rows of @row_bytes, both checked to be
 * nonzero by the caller) are not a trace's, or NULL; *slab_rows: how many rows to read at a
 * time.  (transfer full) */
char *weft_trace_reader_check_storage (const WeftTraceFile *t, hid_t dset, hsize_t rows,
                                       size_t row_bytes, hsize_t *slab_rows);

/* Runs @work (@path) in a child process, as the public functions do, and returns the GVariant
 * of @type it built (transfer full), or NULL with *why (the child died, or sent nothing of
 * @type in normal form).  Where fork fails, @work runs in this process. */
GVariant *weft_trace_reader_in_child (GVariant *(*work) (const char *path), const char *path,
                                      const GVariantType *type, char **why);

/* Whether a stored type is a little-endian integer of 1, 2, 4 or 8 bytes, every bit used; or
 * a little-endian IEEE 754 single or double, bit for bit (what conversion may trust). */
gboolean weft_trace_reader_plain_integer (hid_t t);
gboolean weft_trace_reader_plain_float (hid_t t);

typedef enum { WEFT_TRACE_ATTR_ABSENT, WEFT_TRACE_ATTR_READ, WEFT_TRACE_ATTR_BAD } WeftTraceAttr;

/* @s, which comes from the file, as one short printable line.  (transfer full) */
char *weft_trace_reader_printable (const char *s);

/* Whether @name ("/topology/nodes") is an object of type @want (H5I_GROUP, H5I_DATASET)
 * reached through hard links and groups only, each header sound (trace_reader_raw.c) before
 * HDF5 opens it: 1 yes, 0 it is missing, -1 not (*why). */
int weft_trace_reader_hard_path (const WeftTraceFile *t, const char *name, H5I_type_t want,
                                 char **why);

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

/* Whether what libhdf5 decodes from /meta without checking is sound, checked in the file's
 * bytes (analysis/trace_reader_raw.c): every attribute message of its object header, and the
 * global heap object of each variable-length string.  FALSE with *why. */
gboolean weft_trace_reader_raw_meta (const WeftTraceFile *t, char **why);

/* The same for data set @name's object header, before H5Dopen decodes it: its layout; and for
 * group @name's, before a link is looked up in it: its local heap. */
gboolean weft_trace_reader_raw_dataset (const WeftTraceFile *t, const char *name, char **why);
gboolean weft_trace_reader_raw_group (const WeftTraceFile *t, const char *name, char **why);

/* weft_trace_reader_open() and the row readers, in the caller's own process: what the public
 * functions run in a child (trace_reader_child.c), and what the fuzz target calls, to see the
 * crashes a child would hide.  The same results and errors. */
WeftTraceInfo *weft_trace_reader_open_direct (const char *path, GError **error);
GArray *weft_trace_reader_read_direct (const char *path, const WeftTraceRecord *rec,
                                       GError **error);

/* weft_trace_reader_read_direct() in a child process: the public row readers. */
GArray *weft_trace_reader_read_record (const char *path, const WeftTraceRecord *rec,
                                       GError **error);

#endif /* WEFT_ANALYSIS_TRACE_READER_PRIVATE_H */
