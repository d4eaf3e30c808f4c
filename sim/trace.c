/* sim/trace.c - the HDF5 trace writer (doc/hdf5-schema.md).
 *
 * Each data set is a compound type from sim/trace_types.h (built in sim/trace_schema.c, which
 * the readers share): the memory type follows the struct, the file type is the same members
 * in little-endian standard types, packed, so files do not depend on the writer's ABI.
 * Each data set is stored with HDF5's stock shuffle and deflate filters, but the writer does
 * their work itself and hands HDF5 whole chunks (H5Dwrite_chunk, "direct chunk write"): a row
 * appended is copied, as its struct, into the open chunk's rows; when the chunk is written it
 * is put in its file form - the fields packed, numbers little-endian, and byte b of row k at
 * b * chunk_rows + k, the layout the shuffle filter gives a chunk - a block of rows at a time,
 * and deflated with libdeflate (a zlib stream, as the deflate filter writes; several times
 * faster than zlib's deflate at the same level).  A chunk reaches the file when it is full,
 * and the open one, partly filled (the rest zero, HDF5's fill value), at every
 * weft_trace_flush() and at close: it is written again whole as it fills.  Every reader (HDF5,
 * h5py, h5dump, analysis/) reads the chunks through the stock filters.
 *
 * Why the rows wait as structs: shuffling a row as it comes scatters its bytes chunk_rows
 * bytes apart, one cache line and, at 4096 rows, one page per byte; at the flagship's 16 MB
 * all-reduce those stores were a tenth of the CPU time (perf, cpu-clock) for 2 % of the
 * instructions.  Blocked, a chunk's rows are read from the first-level cache and its bytes
 * written in runs.
 *
 * Why flushing matters: HDF5 keeps metadata in a cache, so a file killed between two
 * H5Fflush calls may not open at all; after a flush it opens and its /meta says "running".
 * Object modification times are switched off so identical runs give identical data sets.
 */
#include "config.h"
#define G_LOG_DOMAIN "weft-trace"
#include "sim/trace.h"
#include "sim/event.h"
#include "sim/parallel.h"
#include "sim/trace_types.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <gsl/gsl_version.h>
#include <hdf5.h>
#include <libdeflate.h>
#include <string.h>

/* One extendable data set and its open chunk. */
typedef struct {
    const WeftTraceRecord *record; /* its path, row size, chunk size and fields */
    hid_t mem_type;
    hid_t dset;
    hsize_t rows_on_disk; /* the data set's extent: chunk_start + written */
    gsize file_row;       /* a row's bytes in the file (packed) */
    guint16 *byte_src;    /* per byte of the packed file row: its byte in the struct */
    guint8 *rows;         /* the open chunk's rows, as structs: chunk_rows * row_size (lazy) */
    hsize_t chunk_start;  /* its first row */
    guint fill, written;  /* its rows, and how many of them the file holds */
    GArray *buf;          /* ranked: the rows held for weft_trace_gather */
    GArray *tags;         /* ranked: a RowTag per row of buf */
} Table;

/* Across ranks (doc/parallel.md): the place of a row in one process's order - the (time, key)
 * of the event that appended it, the caller's order within that event (weft_trace_set_order:
 * what puts the rows of an event run on every rank, a sample, in one order), and the count
 * of rows before it with the same three. */
typedef struct {
    guint64 at, key, major;
    guint32 seq, rank;
} RowTag;

/* The tables in the order of WEFT_TRACE_RECORDS (and weft_trace_records[]): TABLE_flow, ... */
#define TABLE_INDEX(one, ...) TABLE_##one,
enum { WEFT_TRACE_RECORDS (TABLE_INDEX) N_TABLES };
#undef TABLE_INDEX

struct _WeftTrace {
    char *path;    /* the final name */
    char *partial; /* the name it is written under until a complete close */
    hid_t file;
    hid_t meta; /* the /meta group */
    Table tables[N_TABLES];
    struct libdeflate_compressor *deflate;
    guint8 *shuffled; /* a chunk in its file form, before deflate */
    gsize shuffled_size;
    guint8 *deflated; /* a deflated chunk */
    gsize deflated_size;
    GError *write_error;    /* the first write failure, returned by weft_trace_close() */
    guint64 flushed_events; /* the run's events executed at the last weft_trace_flush_due() flush */
    guint64 unflushed_bytes; /* row bytes appended since the last flush */
    /* ranked (weft_trace_set_ranked): rows are held and tagged until weft_trace_gather */
    gboolean ranked;
    const weft_time_t *now; /* borrowed: the run's clock and running event's key */
    const guint64 *now_key;
    guint64 major;
};

/* Keeps the first write failure; later ones are consequences. */
static void
write_failed (WeftTrace *trace, const char *what)
{
    char *reason = weft_trace_hdf5_reason ();
    if (trace->write_error == NULL)
        g_set_error (&trace->write_error, WEFT_TRACE_ERROR, WEFT_TRACE_ERROR_WRITE,
                     "%s: cannot write %s: %s", trace->path, what, reason);
    g_free (reason);
}

/* The bytes of a field of @kind, in memory and in the file. */
static gsize
field_bytes (WeftTraceFieldKind kind)
{
    switch (kind) {
    case WEFT_TRACE_FIELD_U8:
        return 1;
    case WEFT_TRACE_FIELD_U32:
    case WEFT_TRACE_FIELD_I32:
        return 4;
    case WEFT_TRACE_FIELD_U64:
    case WEFT_TRACE_FIELD_F64:
        return 8;
    case WEFT_TRACE_FIELD_NAME:
        return WEFT_TRACE_NAME_LEN;
    case WEFT_TRACE_FIELD_KIND:
        return WEFT_TRACE_KIND_LEN;
    case WEFT_TRACE_FIELD_SHORT:
        return WEFT_TRACE_SHORT_LEN;
    }
    g_assert_not_reached ();
}

static gboolean
table_create (WeftTrace *trace, Table *t, GError **error)
{
    const WeftTraceRecord *rec = t->record;
    hsize_t dims[1] = { 0 }, maxdims[1] = { H5S_UNLIMITED }, chunk[1] = { rec->chunk_rows };
    t->mem_type = weft_trace_type_record (rec);
    hid_t file_type = weft_trace_type_for_file (t->mem_type);
    hid_t space = H5Screate_simple (1, dims, maxdims);
    hid_t dcpl = H5Pcreate (H5P_DATASET_CREATE);
    H5Pset_chunk (dcpl, 1, chunk);
    H5Pset_shuffle (dcpl);
    H5Pset_deflate (dcpl, WEFT_TRACE_DEFLATE_LEVEL);
    H5Pset_obj_track_times (dcpl, FALSE);
    t->dset =
        H5Dcreate2 (trace->file, rec->dataset, file_type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    /* Where each byte of the packed file row comes from in the struct: a field's bytes in
     * order, those of a number least significant first (the file is little-endian). */
    t->file_row = H5Tget_size (file_type);
    t->byte_src = g_new (guint16, t->file_row);
    gsize packed = 0;
    g_assert (rec->row_size <= G_MAXUINT16 && rec->chunk_rows > 1);
    for (guint i = 0; i < rec->n_fields; i++) {
        const WeftTraceField *f = &rec->fields[i];
        int member = H5Tget_member_index (file_type, f->name);
        g_assert (member >= 0);
        gsize at = H5Tget_member_offset (file_type, (unsigned) member), len = field_bytes (f->kind);
        gboolean number = f->kind != WEFT_TRACE_FIELD_NAME && f->kind != WEFT_TRACE_FIELD_KIND &&
                          f->kind != WEFT_TRACE_FIELD_SHORT;
        gboolean reverse = number && G_BYTE_ORDER == G_BIG_ENDIAN;
        for (gsize j = 0; j < len; j++)
            t->byte_src[at + j] = (guint16) (f->offset + (reverse ? len - 1 - j : j));
        packed += len;
    }
    g_assert (packed == t->file_row);
    H5Pclose (dcpl);
    H5Sclose (space);
    H5Tclose (file_type);
    if (t->dset < 0) {
        char *reason = weft_trace_hdf5_reason ();
        g_set_error (error, WEFT_TRACE_ERROR, WEFT_TRACE_ERROR_WRITE,
                     "%s: cannot create data set %s: %s", trace->path, rec->dataset, reason);
        g_free (reason);
        return FALSE;
    }
    return TRUE;
}

/* The rows of a block are read from the first-level cache, whatever the chunk's size. */
#define SHUFFLE_BLOCK_ROWS 64

/* Puts @t's open chunk in its file form in @out (chunk_rows * file_row bytes): byte b of the
 * packed little-endian row k (its struct's byte byte_src[b]) at b * chunk_rows + k, zero past
 * the rows filled - HDF5's fill value, as the shuffle filter would see a partial chunk. */
static void
chunk_shuffle (const Table *t, guint8 *out)
{
    const gsize n = t->record->chunk_rows, row_size = t->record->row_size;
    const guint fill = t->fill;
    for (gsize b = 0; b < t->file_row && fill < n; b++)
        memset (out + b * n + fill, 0, n - fill);
    for (guint k0 = 0; k0 < fill; k0 += SHUFFLE_BLOCK_ROWS) {
        const guint rows = MIN (SHUFFLE_BLOCK_ROWS, fill - k0);
        const guint8 *block = t->rows + (gsize) k0 * row_size;
        for (gsize b = 0; b < t->file_row; b++) {
            const guint8 *src = block + t->byte_src[b];
            guint8 *dst = out + b * n + k0;
            for (guint k = 0; k < rows; k++)
                dst[k] = src[(gsize) k * row_size];
        }
    }
}

/* Writes the open chunk of @t - its rows so far, the rest zero - over its place in the file,
 * the data set extended to its last row: shuffled and deflated here (the filters' work, so the
 * file reads through them).  On failure the error is kept and the rows count as written, so a
 * broken file is not retried at every row. */
static void
chunk_write (WeftTrace *trace, Table *t)
{
    if (t->dset < 0 || t->fill == t->written)
        return;
    gsize bytes = (gsize) t->record->chunk_rows * t->file_row;
    if (trace->shuffled_size < bytes) {
        g_free (trace->shuffled);
        trace->shuffled = g_malloc (bytes);
        trace->shuffled_size = bytes;
    }
    chunk_shuffle (t, trace->shuffled);
    gsize bound = libdeflate_zlib_compress_bound (trace->deflate, bytes);
    if (trace->deflated_size < bound) {
        g_free (trace->deflated);
        trace->deflated = g_malloc (bound);
        trace->deflated_size = bound;
    }
    gsize size = libdeflate_zlib_compress (trace->deflate, trace->shuffled, bytes, trace->deflated,
                                           trace->deflated_size);
    hsize_t end = t->chunk_start + t->fill;
    hsize_t extent[1] = { end }, offset[1] = { t->chunk_start };
    gboolean ok = size > 0 && H5Dset_extent (t->dset, extent) >= 0 &&
                  H5Dwrite_chunk (t->dset, H5P_DEFAULT, 0, offset, size, trace->deflated) >= 0;
    if (ok)
        t->rows_on_disk = end;
    else
        write_failed (trace, t->record->dataset);
    t->written = t->fill;
}

/* Appends @n rows (the record's structs) to @t's data set: into the open chunk, each full chunk
 * written at once.  The last, partly filled chunk waits for the next flush or the close. */
static void
table_put_rows (WeftTrace *trace, Table *t, const void *rows, gsize n)
{
    if (t->dset < 0)
        return;
    const guint chunk_rows = t->record->chunk_rows;
    const gsize row_size = t->record->row_size;
    const guint8 *from = rows;
    while (n > 0) {
        if (t->rows == NULL)
            t->rows = g_malloc ((gsize) chunk_rows * row_size);
        gsize take = MIN (n, (gsize) (chunk_rows - t->fill));
        memcpy (t->rows + (gsize) t->fill * row_size, from, take * row_size);
        t->fill += (guint) take;
        from += take * row_size;
        n -= take;
        if (t->fill == chunk_rows) {
            chunk_write (trace, t);
            t->chunk_start += chunk_rows;
            t->fill = t->written = 0;
        }
    }
}

static void
table_append (WeftTrace *trace, Table *t, const void *rows, gsize n)
{
    trace->unflushed_bytes += (guint64) n * t->record->row_size;
    if (!trace->ranked) {
        table_put_rows (trace, t, rows, n);
        return;
    }
    g_array_append_vals (t->buf, rows, n);
    for (gsize i = 0; i < n; i++) {
        RowTag tag = { *trace->now, *trace->now_key, trace->major, 0, 0 };
        if (t->tags->len > 0) {
            const RowTag *last = &g_array_index (t->tags, RowTag, t->tags->len - 1);
            if (last->at == tag.at && last->key == tag.key && last->major == tag.major)
                tag.seq = last->seq + 1;
        }
        g_array_append_val (t->tags, tag);
    }
    /* held for weft_trace_gather */
}

/* Attributes of /meta.  A scalar attribute is deleted and recreated when it changes, so the
 * same helpers serve creation and the end of the run (and sim/trace_table.c's files). */
gboolean
weft_trace_attr_write (hid_t obj, const char *name, hid_t type, const void *value)
{
    if (H5Aexists (obj, name) > 0 && H5Adelete (obj, name) < 0)
        return FALSE;
    hid_t space = H5Screate (H5S_SCALAR);
    hid_t attr = H5Acreate2 (obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    gboolean ok = attr >= 0 && H5Awrite (attr, type, value) >= 0;
    if (attr >= 0)
        H5Aclose (attr);
    H5Sclose (space);
    return ok;
}

/* Strings are variable-length UTF-8 (h5py reads them as str); NULL is stored as "". */
gboolean
weft_trace_attr_write_string (hid_t obj, const char *name, const char *value)
{
    hid_t type = H5Tcopy (H5T_C_S1);
    H5Tset_size (type, H5T_VARIABLE);
    H5Tset_cset (type, H5T_CSET_UTF8);
    const char *v = value != NULL ? value : "";
    gboolean ok = weft_trace_attr_write (obj, name, type, &v);
    H5Tclose (type);
    return ok;
}

static gboolean
write_meta_start (WeftTrace *trace, const WeftTraceMeta *meta)
{
    guint schema = WEFT_TRACE_SCHEMA_VERSION;
    guint8 complete = 0;
    guint64 zero = 0;
    double zero_s = 0.0;
    unsigned h5_major = 0, h5_minor = 0, h5_release = 0;
    H5get_libversion (&h5_major, &h5_minor, &h5_release);
    char *glib_v =
        g_strdup_printf ("%u.%u.%u", glib_major_version, glib_minor_version, glib_micro_version);
    char *hdf5_v = g_strdup_printf ("%u.%u.%u", h5_major, h5_minor, h5_release);
    hid_t m = trace->meta;
    gboolean ok =
        weft_trace_attr_write (m, "schema_version", H5T_NATIVE_UINT, &schema) &&
        weft_trace_attr_write_string (m, "weft_version",
                                      meta->weft_version ? meta->weft_version : PACKAGE_VERSION) &&
        weft_trace_attr_write_string (m, "git_revision",
                                      meta->git_revision ? meta->git_revision : "unknown") &&
        weft_trace_attr_write_string (m, "experiment", meta->experiment_text) &&
        weft_trace_attr_write_string (m, "experiment_path", meta->experiment_path) &&
        weft_trace_attr_write (m, "seed", H5T_NATIVE_UINT64, &meta->seed) &&
        weft_trace_attr_write_string (m, "glib_version",
                                      meta->glib_version ? meta->glib_version : glib_v) &&
        weft_trace_attr_write_string (m, "hdf5_version",
                                      meta->hdf5_version ? meta->hdf5_version : hdf5_v) &&
        weft_trace_attr_write_string (m, "gsl_version",
                                      meta->gsl_version ? meta->gsl_version : gsl_version) &&
        weft_trace_attr_write_string (m, "status",
                                      weft_trace_status_name (WEFT_TRACE_STATUS_RUNNING)) &&
        weft_trace_attr_write (m, "complete", H5T_NATIVE_UINT8, &complete) &&
        weft_trace_attr_write (m, "sim_time_ps", H5T_NATIVE_UINT64, &zero) &&
        weft_trace_attr_write (m, "wall_time_s", H5T_NATIVE_DOUBLE, &zero_s) &&
        weft_trace_attr_write (m, "events", H5T_NATIVE_UINT64, &zero) &&
        weft_trace_attr_write_string (m, "message", "");
    g_free (glib_v);
    g_free (hdf5_v);
    return ok;
}

static void
trace_free (WeftTrace *trace)
{
    for (int i = 0; i < N_TABLES; i++) {
        Table *t = &trace->tables[i];
        if (t->dset >= 0)
            H5Dclose (t->dset);
        if (t->mem_type >= 0)
            H5Tclose (t->mem_type);
        if (t->buf != NULL)
            g_array_free (t->buf, TRUE);
        if (t->tags != NULL)
            g_array_free (t->tags, TRUE);
        g_free (t->rows);
        g_free (t->byte_src);
    }
    if (trace->deflate != NULL)
        libdeflate_free_compressor (trace->deflate);
    g_free (trace->shuffled);
    g_free (trace->deflated);
    if (trace->meta >= 0)
        H5Gclose (trace->meta);
    g_clear_error (&trace->write_error);
    g_free (trace->path);
    g_free (trace->partial);
    g_free (trace);
}

char *
weft_trace_partial_path (const char *path)
{
    g_return_val_if_fail (path != NULL, NULL);
    return g_strconcat (path, ".partial", NULL);
}

/* Closes the file itself; FALSE (with the HDF5 reason kept) if the final write-out failed. */
static gboolean
close_file (WeftTrace *trace)
{
    if (trace->file < 0)
        return TRUE;
    herr_t rc = H5Fclose (trace->file);
    trace->file = H5I_INVALID_HID;
    if (rc < 0)
        write_failed (trace, "the file at close");
    return rc >= 0;
}

WeftTrace *
weft_trace_create (const char *path, const WeftTraceMeta *meta, GError **error)
{
    g_return_val_if_fail (path != NULL && meta != NULL, NULL);
    g_return_val_if_fail (error == NULL || *error == NULL, NULL);

    /* HDF5's exit-time cleanup tries again to flush a file whose close failed (a full disk)
     * and crashes inside libhdf5 1.10 (H5F__close_cb): weft closes every file it opens, so it
     * turns that cleanup off (effective when this is the process's first HDF5 call). */
    H5dont_atexit ();
    H5Eset_auto2 (H5E_DEFAULT, NULL, NULL); /* failures become GErrors, not stderr dumps */
    WeftTrace *trace = g_new0 (WeftTrace, 1);
    trace->path = g_strdup (path);
    trace->partial = weft_trace_partial_path (path);
    trace->file = trace->meta = H5I_INVALID_HID;
    for (int i = 0; i < N_TABLES; i++) {
        Table *t = &trace->tables[i];
        t->record = weft_trace_records[i];
        t->mem_type = t->dset = H5I_INVALID_HID;
    }

    /* Written under PATH.partial and renamed over PATH only by a complete close: a trace
     * already at PATH survives a run that does not finish (nothing lost), and an unfinished
     * one never carries the final name.  A name that exists but is not a regular file (a
     * folder, a device) is refused before anything is written. */
    if (g_file_test (path, G_FILE_TEST_EXISTS) && !g_file_test (path, G_FILE_TEST_IS_REGULAR)) {
        g_set_error (error, WEFT_TRACE_ERROR, WEFT_TRACE_ERROR_OPEN,
                     "%s: cannot create trace file: it exists and is not a regular file", path);
        trace_free (trace);
        return NULL;
    }
    errno = 0;
    trace->file = H5Fcreate (trace->partial, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (trace->file < 0) {
        int saved = errno;
        char *reason = weft_trace_hdf5_reason ();
        /* No space or an I/O error is the machine's failure (exit 1), not the user's path. */
        gboolean disk = saved == ENOSPC || saved == EIO || saved == EFBIG || saved == EDQUOT;
        g_set_error (error, WEFT_TRACE_ERROR, disk ? WEFT_TRACE_ERROR_WRITE : WEFT_TRACE_ERROR_OPEN,
                     "%s: cannot create trace file: %s", trace->partial,
                     saved != 0 ? g_strerror (saved) : reason);
        g_free (reason);
        trace_free (trace);
        return NULL;
    }

    /* libdeflate's level 1 is zlib's in speed class; a NULL is only out of memory. */
    trace->deflate = libdeflate_alloc_compressor (WEFT_TRACE_DEFLATE_LEVEL);
    if (trace->deflate == NULL)
        g_error ("%s: cannot allocate a deflate compressor", path);

    hid_t gcpl = H5Pcreate (H5P_GROUP_CREATE);
    H5Pset_obj_track_times (gcpl, FALSE);
    trace->meta = H5Gcreate2 (trace->file, "meta", H5P_DEFAULT, gcpl, H5P_DEFAULT);
    hid_t topo = H5Gcreate2 (trace->file, "topology", H5P_DEFAULT, gcpl, H5P_DEFAULT);
    H5Pclose (gcpl);
    gboolean ok = trace->meta >= 0 && topo >= 0;
    if (!ok) {
        char *reason = weft_trace_hdf5_reason ();
        g_set_error (error, WEFT_TRACE_ERROR, WEFT_TRACE_ERROR_WRITE,
                     "%s: cannot create groups: %s", path, reason);
        g_free (reason);
    }
    for (int i = 0; ok && i < N_TABLES; i++)
        ok = table_create (trace, &trace->tables[i], error);
    if (topo >= 0)
        H5Gclose (topo);
    if (ok && !write_meta_start (trace, meta)) {
        char *reason = weft_trace_hdf5_reason ();
        g_set_error (error, WEFT_TRACE_ERROR, WEFT_TRACE_ERROR_WRITE, "%s: cannot write /meta: %s",
                     path, reason);
        g_free (reason);
        ok = FALSE;
    }
    if (ok && H5Fflush (trace->file, H5F_SCOPE_GLOBAL) < 0) {
        char *reason = weft_trace_hdf5_reason ();
        g_set_error (error, WEFT_TRACE_ERROR, WEFT_TRACE_ERROR_WRITE,
                     "%s: cannot flush trace file: %s", path, reason);
        g_free (reason);
        ok = FALSE;
    }
    if (!ok) {
        /* Nothing that looks like a trace is left behind (a disk full at creation). */
        g_autofree char *partial = g_strdup (trace->partial);
        weft_trace_abandon (trace);
        g_unlink (partial);
        return NULL;
    }
    g_debug ("%s: trace created", path);
    return trace;
}

const char *
weft_trace_path (const WeftTrace *trace)
{
    g_return_val_if_fail (trace != NULL, NULL);
    return trace->path;
}

void
weft_trace_write_nodes (WeftTrace *trace, const WeftTraceNode *rows, gsize n)
{
    g_return_if_fail (trace != NULL && (rows != NULL || n == 0));
    table_append (trace, &trace->tables[TABLE_node], rows, n);
    chunk_write (trace, &trace->tables[TABLE_node]);
}

void
weft_trace_write_links (WeftTrace *trace, const WeftTraceLink *rows, gsize n)
{
    g_return_if_fail (trace != NULL && (rows != NULL || n == 0));
    table_append (trace, &trace->tables[TABLE_link], rows, n);
    chunk_write (trace, &trace->tables[TABLE_link]);
}

/* The buffered appends of sim/trace.h, one per record. */
#define DEFINE_APPEND(one, many, Struct, ...)                                                      \
    void weft_trace_append_##one (WeftTrace *trace, const Struct *row)                             \
    {                                                                                              \
        g_return_if_fail (trace != NULL && row != NULL);                                           \
        table_append (trace, &trace->tables[TABLE_##one], row, 1);                                 \
    }
WEFT_TRACE_RECORDS (DEFINE_APPEND)
#undef DEFINE_APPEND

void
weft_trace_write_ports (WeftTrace *trace, const WeftTracePort *rows, gsize n)
{
    g_return_if_fail (trace != NULL && (rows != NULL || n == 0));
    table_append (trace, &trace->tables[TABLE_port], rows, n);
    chunk_write (trace, &trace->tables[TABLE_port]);
}

void
weft_trace_flush (WeftTrace *trace)
{
    g_return_if_fail (trace != NULL);
    if (trace->ranked || trace->file < 0)
        return; /* rows are held until they are gathered at the end */
    for (int i = 0; i < N_TABLES; i++)
        chunk_write (trace, &trace->tables[i]);
    if (H5Fflush (trace->file, H5F_SCOPE_GLOBAL) < 0)
        write_failed (trace, "(flush)");
    trace->unflushed_bytes = 0;
}

void
weft_trace_flush_due (WeftTrace *trace, guint64 events)
{
    g_return_if_fail (trace != NULL);
    if (events - trace->flushed_events >= WEFT_TRACE_FLUSH_EVENTS ||
        trace->unflushed_bytes >= WEFT_TRACE_FLUSH_BYTES) {
        weft_trace_flush (trace);
        trace->flushed_events = events;
    }
}

gboolean
weft_trace_close (WeftTrace *trace, const WeftTraceEnd *end, GError **error)
{
    g_return_val_if_fail (trace != NULL && end != NULL, FALSE);
    g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

    for (int i = 0; i < N_TABLES; i++)
        chunk_write (trace, &trace->tables[i]);
    guint8 complete = weft_trace_status_complete (end->status) ? 1 : 0;
    hid_t m = trace->meta;
    if (!(weft_trace_attr_write_string (m, "status", weft_trace_status_name (end->status)) &&
          weft_trace_attr_write (m, "sim_time_ps", H5T_NATIVE_UINT64, &end->sim_time_ps) &&
          weft_trace_attr_write (m, "wall_time_s", H5T_NATIVE_DOUBLE, &end->wall_time_s) &&
          weft_trace_attr_write (m, "events", H5T_NATIVE_UINT64, &end->events) &&
          weft_trace_attr_write_string (m, "message", end->message) &&
          weft_trace_attr_write (m, "complete", H5T_NATIVE_UINT8, &complete)))
        write_failed (trace, "/meta");
    for (int i = 0; i < N_TABLES; i++) {
        Table *t = &trace->tables[i];
        if (t->dset >= 0)
            H5Dclose (t->dset);
        t->dset = H5I_INVALID_HID;
    }
    H5Gclose (trace->meta);
    trace->meta = H5I_INVALID_HID;
    close_file (trace);

    gboolean ok = trace->write_error == NULL;
    if (!ok) {
        /* A trace that could not be written whole is no result: remove it, so nothing left
         * looks like one (a full disk), and leave whatever was at the final name. */
        g_unlink (trace->partial);
        g_propagate_error (error, g_steal_pointer (&trace->write_error));
    } else if (complete && g_rename (trace->partial, trace->path) != 0) {
        int saved = errno;
        g_set_error (error, WEFT_TRACE_ERROR, WEFT_TRACE_ERROR_WRITE,
                     "%s: cannot rename the finished trace %s to it: %s", trace->path,
                     trace->partial, g_strerror (saved));
        ok = FALSE;
    } else {
        g_debug ("%s: trace closed (%s)", complete ? trace->path : trace->partial,
                 weft_trace_status_name (end->status));
    }
    trace_free (trace);
    return ok;
}

void
weft_trace_abandon (WeftTrace *trace)
{
    if (trace == NULL)
        return;
    for (int i = 0; i < N_TABLES; i++) {
        Table *t = &trace->tables[i];
        if (t->dset >= 0)
            H5Dclose (t->dset);
        t->dset = H5I_INVALID_HID;
    }
    if (trace->meta >= 0)
        H5Gclose (trace->meta);
    trace->meta = H5I_INVALID_HID;
    close_file (trace);
    trace_free (trace);
}

/* ---- across ranks (doc/parallel.md) ------------------------------------------------------ */

WeftTrace *
weft_trace_new_rank (void)
{
    WeftTrace *trace = g_new0 (WeftTrace, 1);
    trace->file = trace->meta = H5I_INVALID_HID;
    for (int i = 0; i < N_TABLES; i++) {
        Table *t = &trace->tables[i];
        t->record = weft_trace_records[i];
        t->mem_type = t->dset = H5I_INVALID_HID;
        t->buf = g_array_new (FALSE, FALSE, t->record->row_size);
    }
    return trace;
}

void
weft_trace_free_rank (WeftTrace *trace)
{
    if (trace)
        trace_free (trace);
}

void
weft_trace_set_ranked (WeftTrace *trace, const weft_time_t *now, const guint64 *now_key)
{
    g_return_if_fail (trace != NULL);
    /* What was appended before (the topology) is rank 0's own: written, or dropped elsewhere. */
    for (int i = 0; i < N_TABLES; i++) {
        Table *t = &trace->tables[i];
        chunk_write (trace, t);
        if (t->buf == NULL)
            t->buf = g_array_new (FALSE, FALSE, t->record->row_size);
        t->tags = g_array_new (FALSE, FALSE, sizeof (RowTag));
    }
    trace->ranked = TRUE;
    trace->now = now;
    trace->now_key = now_key;
}

void
weft_trace_set_order (WeftTrace *trace, guint64 major)
{
    if (trace)
        trace->major = major;
}

static int
tag_order (const RowTag *x, const RowTag *y)
{
    if (x->at != y->at)
        return x->at < y->at ? -1 : 1;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    if (x->major != y->major)
        return x->major < y->major ? -1 : 1;
    if (x->seq != y->seq)
        return x->seq < y->seq ? -1 : 1;
    return x->rank < y->rank ? -1 : x->rank > y->rank ? 1 : 0;
}

static int
tag_cmp (gconstpointer a, gconstpointer b, gpointer data)
{
    const RowTag *tags = data;
    return tag_order (&tags[*(const guint *) a], &tags[*(const guint *) b]);
}

/* What one rank sends at a gather: for every table its count of rows, then, table by table,
 * its rows and their tags, each padded to 8 bytes so that every part stays aligned. */
#define PAD8(n) (((n) + 7) & ~(gsize) 7)

static GByteArray *
pack_held (const WeftTrace *trace)
{
    gsize total = N_TABLES * sizeof (guint64);
    for (int i = 0; i < N_TABLES; i++) {
        const Table *t = &trace->tables[i];
        total += PAD8 ((gsize) t->buf->len * t->record->row_size) +
                 (gsize) t->tags->len * sizeof (RowTag);
    }
    GByteArray *out = g_byte_array_sized_new ((guint) total);
    g_byte_array_set_size (out, (guint) total);
    memset (out->data, 0, total);
    guint8 *at = out->data;
    for (int i = 0; i < N_TABLES; i++, at += sizeof (guint64)) {
        guint64 n = trace->tables[i].buf->len;
        memcpy (at, &n, sizeof n);
    }
    for (int i = 0; i < N_TABLES; i++) {
        const Table *t = &trace->tables[i];
        if (t->buf->len == 0)
            continue; /* an empty GArray's data may be NULL */
        gsize rows = (gsize) t->buf->len * t->record->row_size;
        memcpy (at, t->buf->data, rows);
        at += PAD8 (rows);
        memcpy (at, t->tags->data, (gsize) t->tags->len * sizeof (RowTag));
        at += (gsize) t->tags->len * sizeof (RowTag);
    }
    g_assert (at == out->data + total);
    return out;
}

/* One rank's rows of one table in a gathered buffer: its rows, its tags (rank filled in) and,
 * if they were not appended in tag order (sim/trace.h allows it), the order to read them in. */
typedef struct {
    const guint8 *rows;
    RowTag *tags;
    guint n, next;
    guint *order; /* NULL: in order */
} Run;

static const RowTag *
run_head (const Run *r)
{
    return &r->tags[r->order ? r->order[r->next] : r->next];
}

/* Rows of /dcqcn and /uet, which list the flows under way at a sample, name their flow here. */
static gssize
flow_column (int table)
{
    if (table == TABLE_dcqcn_sample)
        return (gssize) G_STRUCT_OFFSET (WeftTraceDcqcnSample, flow);
    if (table == TABLE_uet_sample)
        return (gssize) G_STRUCT_OFFSET (WeftTraceUetSample, flow);
    return -1;
}

/* Whether a row of a flow sample (@flow_col: its flow column) must go: its flow's /flows row
 * (@finished: flow id -> RowTag) comes before it.  Its sender's rank sampled it before it heard,
 * at the window's end, that the flow had finished on its receiver's rank (doc/parallel.md). */
static gboolean
sampled_after_finish (const guint8 *row, const RowTag *tag, gssize flow_col, GHashTable *finished)
{
    if (flow_col < 0 || finished == NULL)
        return FALSE;
    guint32 flow;
    memcpy (&flow, row + flow_col, sizeof flow);
    const RowTag *done = g_hash_table_lookup (finished, GUINT_TO_POINTER (flow));
    return done && weft_event_place (done->at, done->key) < weft_event_place (tag->at, tag->key);
}

/* Merges the runs of every rank into @out (@out_tags: their tags, if not NULL) in (time, key,
 * order, seq, rank) order: one process's order.  The rows of one rank that come before every
 * other rank's next row are taken at once (a sampling event's rows of one rank's ports, say),
 * each with one memcpy into room reserved for all. */
static void
merge_runs (Run *runs, int n_runs, gsize rs, GArray *out, GArray *out_tags, gssize flow_col,
            GHashTable *finished)
{
    guint total = 0;
    for (int r = 0; r < n_runs; r++)
        total += runs[r].n;
    guint base = out->len, n = 0;
    g_array_set_size (out, base + total);
    for (;;) {
        int best = -1, second = -1;
        for (int r = 0; r < n_runs; r++) {
            if (runs[r].next >= runs[r].n)
                continue;
            if (best < 0 || tag_order (run_head (&runs[r]), run_head (&runs[best])) < 0) {
                second = best;
                best = r;
            } else if (second < 0 ||
                       tag_order (run_head (&runs[r]), run_head (&runs[second])) < 0) {
                second = r;
            }
        }
        if (best < 0)
            break;
        Run *run = &runs[best];
        const RowTag *bound = second >= 0 ? run_head (&runs[second]) : NULL;
        do {
            guint k = run->order ? run->order[run->next] : run->next;
            run->next++;
            const guint8 *row = run->rows + (gsize) k * rs;
            if (sampled_after_finish (row, &run->tags[k], flow_col, finished))
                continue;
            memcpy (out->data + (gsize) (base + n) * rs, row, rs);
            n++;
            if (out_tags)
                g_array_append_vals (out_tags, &run->tags[k], 1);
        } while (run->next < run->n && (!bound || tag_order (run_head (run), bound) < 0));
    }
    g_array_set_size (out, base + n);
}

void
weft_trace_gather (WeftTrace *trace, const WeftParallelRef *par,
                   void (*patch) (WeftTraceFlow *row, void *data), void *data)
{
    g_return_if_fail (trace != NULL && trace->ranked);
    GByteArray *mine = pack_held (trace);
    gsize *sizes = NULL;
    GByteArray *all = weft_parallel_gather_flat (par, mine->data, mine->len, &sizes);
    g_byte_array_unref (mine);
    for (int i = 0; i < N_TABLES; i++) {
        g_array_set_size (trace->tables[i].buf, 0);
        g_array_set_size (trace->tables[i].tags, 0);
    }
    trace->unflushed_bytes = 0;
    if (all == NULL)
        return; /* not rank 0: its rows are on their way to the file */

    /* Every rank's part: its counts, then table by table its rows and tags. */
    int n_ranks = par->size;
    Run *runs = g_new0 (Run, (gsize) n_ranks * N_TABLES);
    gsize off = 0;
    for (int r = 0; r < n_ranks; r++) {
        guint8 *base = all->data + off;
        guint8 *at = base + N_TABLES * sizeof (guint64);
        for (int i = 0; i < N_TABLES; i++) {
            guint64 n;
            memcpy (&n, base + i * sizeof (guint64), sizeof n);
            Run *run = &runs[i * n_ranks + r];
            gsize bytes = (gsize) n * trace->tables[i].record->row_size;
            run->n = (guint) n;
            run->rows = at;
            at += PAD8 (bytes);
            run->tags = (RowTag *) at;
            at += (gsize) n * sizeof (RowTag);
            gboolean sorted = TRUE;
            for (guint k = 0; k < run->n; k++) {
                run->tags[k].rank = (guint32) r;
                if (k > 0 && tag_order (&run->tags[k - 1], &run->tags[k]) > 0)
                    sorted = FALSE;
            }
            if (!sorted) {
                run->order = g_new (guint, run->n);
                for (guint k = 0; k < run->n; k++)
                    run->order[k] = k;
                g_qsort_with_data (run->order, (gint) run->n, sizeof (guint), tag_cmp, run->tags);
            }
        }
        g_assert ((gsize) (at - base) == sizes[r]);
        off += sizes[r];
    }

    /* /flows first (the table order): where each flow's row lies tells the flow samples. */
    GHashTable *finished = NULL;
    GArray *flow_tags = g_array_new (FALSE, FALSE, sizeof (RowTag));
    for (int i = 0; i < N_TABLES; i++) {
        Table *t = &trace->tables[i];
        gboolean flows = i == TABLE_flow;
        merge_runs (&runs[i * n_ranks], n_ranks, t->record->row_size, t->buf,
                    flows ? flow_tags : NULL, flow_column (i), finished);
        if (flows) {
            finished = g_hash_table_new (NULL, NULL);
            for (guint k = 0; k < t->buf->len; k++) {
                WeftTraceFlow *row = &g_array_index (t->buf, WeftTraceFlow, k);
                g_hash_table_insert (finished, GUINT_TO_POINTER (row->id),
                                     &g_array_index (flow_tags, RowTag, k));
                if (patch)
                    patch (row, data);
            }
        }
        table_put_rows (trace, t, t->buf->data, t->buf->len);
        chunk_write (trace, t);
        g_array_set_size (t->buf, 0);
    }
    if (finished)
        g_hash_table_destroy (finished);
    g_array_free (flow_tags, TRUE);
    for (int k = 0; k < n_ranks * N_TABLES; k++)
        g_free (runs[k].order);
    g_free (runs);
    g_free (sizes);
    g_byte_array_unref (all);
    if (trace->file >= 0 && H5Fflush (trace->file, H5F_SCOPE_GLOBAL) < 0)
        write_failed (trace, "(flush)");
}

guint64
weft_trace_held_bytes (const WeftTrace *trace)
{
    g_return_val_if_fail (trace != NULL, 0);
    return trace->unflushed_bytes;
}
