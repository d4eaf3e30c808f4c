/* sim/trace_table.c - one table in an HDF5 file of its own (sim/trace_table.h).
 *
 * Built from the trace writer's parts: the string type, the file type of a memory compound
 * (sim/trace_types.h: little-endian standard members, packed) and the /meta attribute
 * writers, so a table file is stored as a trace's data sets are and its readers
 * (analysis/collected.c, weft_trace.py) apply the trace reader's checks to it.
 */
#include "config.h"
#define G_LOG_DOMAIN "weft-trace"
#include "sim/trace_table.h"
#include "sim/trace_types.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>

#define CHUNK_ROWS 1024

/* The stored size of column @c: a text column is as long as its longest value (at least 1). */
static size_t
column_size (const WeftTraceColumn *c, guint n_rows)
{
    if (c->kind == WEFT_TRACE_COLUMN_F64)
        return sizeof (double);
    if (c->kind == WEFT_TRACE_COLUMN_U32)
        return sizeof (guint32);
    size_t len = 1;
    for (guint r = 0; r < n_rows; r++)
        len = MAX (len, strlen (c->text[r]));
    return len;
}

/* A compound type with one member per @cols column, at the offsets in @off. */
static hid_t
compound (const WeftTraceColumn *cols, guint n_cols, const size_t *off, const size_t *size,
          size_t row)
{
    hid_t t = H5Tcreate (H5T_COMPOUND, row);
    for (guint c = 0; c < n_cols; c++) {
        hid_t m = cols[c].kind == WEFT_TRACE_COLUMN_F64   ? H5Tcopy (H5T_NATIVE_DOUBLE)
                  : cols[c].kind == WEFT_TRACE_COLUMN_U32 ? H5Tcopy (H5T_NATIVE_UINT32)
                                                          : weft_trace_type_string (size[c]);
        if (cols[c].kind == WEFT_TRACE_COLUMN_TEXT)
            H5Tset_cset (m, H5T_CSET_UTF8);
        H5Tinsert (t, cols[c].name, off[c], m);
        H5Tclose (m);
    }
    return t;
}

/* Writes @n rows of @row bytes at @data as the compound data set @name of @file. */
static gboolean
write_dataset (hid_t file, const char *name, hid_t mem, const void *data, guint n)
{
    hid_t ftype = weft_trace_type_for_file (mem);
    hsize_t dims[1] = { n }, chunk[1] = { MAX (1, MIN (n, CHUNK_ROWS)) };
    hid_t space = H5Screate_simple (1, dims, NULL);
    hid_t dcpl = H5Pcreate (H5P_DATASET_CREATE);
    H5Pset_chunk (dcpl, 1, chunk);
    H5Pset_shuffle (dcpl);
    H5Pset_deflate (dcpl, 4);
    H5Pset_obj_track_times (dcpl, FALSE);
    hid_t d = H5Dcreate2 (file, name, ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    gboolean ok = d >= 0 && (n == 0 || H5Dwrite (d, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0);
    if (d >= 0)
        ok = H5Dclose (d) >= 0 && ok;
    H5Pclose (dcpl);
    H5Sclose (space);
    H5Tclose (ftype);
    return ok;
}

/* /table: the rows, packed into a buffer of the memory type. */
static gboolean
write_table (hid_t file, const WeftTraceColumn *cols, guint n_cols, guint n_rows)
{
    size_t *off = g_new (size_t, MAX (n_cols, 1)), *size = g_new (size_t, MAX (n_cols, 1));
    size_t row = 0;
    for (guint c = 0; c < n_cols; c++) {
        size[c] = column_size (&cols[c], n_rows);
        off[c] = row;
        row += size[c];
    }
    char *buf = g_malloc0 (MAX (row * n_rows, 1));
    for (guint r = 0; r < n_rows; r++) {
        char *at = buf + (gsize) r * row;
        for (guint c = 0; c < n_cols; c++) {
            if (cols[c].kind == WEFT_TRACE_COLUMN_F64)
                memcpy (at + off[c], &cols[c].f64[r], sizeof (double));
            else if (cols[c].kind == WEFT_TRACE_COLUMN_U32)
                memcpy (at + off[c], &cols[c].u32[r], sizeof (guint32));
            else
                memcpy (at + off[c], cols[c].text[r], strlen (cols[c].text[r]));
        }
    }
    hid_t mem = compound (cols, n_cols, off, size, MAX (row, 1));
    gboolean ok = write_dataset (file, "table", mem, buf, n_rows);
    H5Tclose (mem);
    g_free (buf);
    g_free (off);
    g_free (size);
    return ok;
}

/* /columns: name, role and unit of each column of /table. */
static gboolean
write_columns (hid_t file, const WeftTraceColumn *cols, guint n_cols)
{
    const char **name = g_new (const char *, MAX (n_cols, 1));
    const char **role = g_new (const char *, MAX (n_cols, 1));
    const char **unit = g_new (const char *, MAX (n_cols, 1));
    for (guint c = 0; c < n_cols; c++) {
        name[c] = cols[c].name;
        role[c] = cols[c].role;
        unit[c] = cols[c].unit ? cols[c].unit : "";
    }
    const WeftTraceColumn meta[] = {
        { "name", NULL, NULL, WEFT_TRACE_COLUMN_TEXT, name, NULL, NULL },
        { "role", NULL, NULL, WEFT_TRACE_COLUMN_TEXT, role, NULL, NULL },
        { "unit", NULL, NULL, WEFT_TRACE_COLUMN_TEXT, unit, NULL, NULL },
    };
    size_t off[3], size[3], row = 0;
    for (guint c = 0; c < 3; c++) {
        size[c] = column_size (&meta[c], n_cols);
        off[c] = row;
        row += size[c];
    }
    char *buf = g_malloc0 (row * MAX (n_cols, 1));
    for (guint r = 0; r < n_cols; r++)
        for (guint c = 0; c < 3; c++)
            memcpy (buf + (gsize) r * row + off[c], meta[c].text[r], strlen (meta[c].text[r]));
    hid_t mem = compound (meta, 3, off, size, row);
    gboolean ok = write_dataset (file, "columns", mem, buf, n_cols);
    H5Tclose (mem);
    g_free (buf);
    g_free (name);
    g_free (role);
    g_free (unit);
    return ok;
}

gboolean
weft_trace_table_write (const char *path, const char *const *meta, const WeftTraceColumn *cols,
                        guint n_cols, guint n_rows, GError **error)
{
    g_return_val_if_fail (path != NULL && (cols != NULL || n_cols == 0), FALSE);
    g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
    H5dont_atexit (); /* as sim/trace.c explains */
    H5Eset_auto2 (H5E_DEFAULT, NULL, NULL);
    g_autofree char *partial = g_strconcat (path, ".partial", NULL);
    errno = 0;
    hid_t file = H5Fcreate (partial, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (file < 0) {
        int saved = errno;
        g_autofree char *reason = weft_trace_hdf5_reason ();
        g_set_error (error, WEFT_TRACE_ERROR, WEFT_TRACE_ERROR_OPEN, "%s: cannot create: %s",
                     partial, saved ? g_strerror (saved) : reason);
        return FALSE;
    }
    hid_t gcpl = H5Pcreate (H5P_GROUP_CREATE);
    H5Pset_obj_track_times (gcpl, FALSE);
    hid_t m = H5Gcreate2 (file, "meta", H5P_DEFAULT, gcpl, H5P_DEFAULT);
    H5Pclose (gcpl);
    guint version = WEFT_TRACE_TABLE_VERSION, rows = n_rows;
    guint8 complete = 0;
    gboolean ok = m >= 0 && weft_trace_attr_write_string (m, "format", WEFT_TRACE_TABLE_FORMAT) &&
                  weft_trace_attr_write (m, "format_version", H5T_NATIVE_UINT, &version) &&
                  weft_trace_attr_write (m, "rows", H5T_NATIVE_UINT, &rows) &&
                  weft_trace_attr_write (m, "complete", H5T_NATIVE_UINT8, &complete);
    for (guint i = 0; ok && meta && meta[i] && meta[i + 1]; i += 2)
        ok = weft_trace_attr_write_string (m, meta[i], meta[i + 1]);
    ok = ok && write_table (file, cols, n_cols, n_rows) && write_columns (file, cols, n_cols) &&
         H5Fflush (file, H5F_SCOPE_GLOBAL) >= 0;
    /* complete = 1 only once everything else is on disk */
    complete = 1;
    ok = ok && weft_trace_attr_write (m, "complete", H5T_NATIVE_UINT8, &complete);
    g_autofree char *reason = ok ? NULL : weft_trace_hdf5_reason ();
    if (m >= 0)
        H5Gclose (m);
    if (H5Fclose (file) < 0 && ok) {
        ok = FALSE;
        reason = weft_trace_hdf5_reason ();
    }
    if (!ok) {
        g_set_error (error, WEFT_TRACE_ERROR, WEFT_TRACE_ERROR_WRITE, "%s: cannot write: %s",
                     partial, reason);
        g_unlink (partial);
        return FALSE;
    }
    if (g_rename (partial, path) != 0) {
        int saved = errno;
        g_set_error (error, WEFT_TRACE_ERROR, WEFT_TRACE_ERROR_WRITE,
                     "%s: cannot rename the finished table %s to it: %s", path, partial,
                     g_strerror (saved));
        g_unlink (partial);
        return FALSE;
    }
    return TRUE;
}
