/* analysis/trace_reader.c - reading weft traces.
 *
 * The memory types come from the schema module (sim/trace_types.h), the same ones the writer
 * uses; analysis/ depends on the schema only, not on the writer.  HDF5 converts compound
 * members by name, so a reader keeps working when a later schema adds members; and a member
 * of the memory type that the file lacks (an older schema's file) is left as it was in the
 * buffer, which read_rows() zero-fills, so a schema-1 file reads with the schema-2 members 0.
 */
#include "config.h"
#define G_LOG_DOMAIN "weft-reader"
#include "analysis/trace_reader.h"
#include "sim/trace_types.h"

#include <hdf5.h>
#include <string.h>

/* A string attribute, variable-length or fixed-length; NULL if absent or unreadable. */
static char *
attr_string (hid_t obj, const char *name)
{
    if (H5Aexists (obj, name) <= 0)
        return NULL;
    hid_t attr = H5Aopen (obj, name, H5P_DEFAULT);
    hid_t ftype = attr >= 0 ? H5Aget_type (attr) : H5I_INVALID_HID;
    char *out = NULL;
    if (ftype >= 0 && H5Tget_class (ftype) == H5T_STRING) {
        hid_t mtype = H5Tcopy (H5T_C_S1);
        if (H5Tis_variable_str (ftype) > 0) {
            char *vl = NULL;
            H5Tset_size (mtype, H5T_VARIABLE);
            H5Tset_cset (mtype, H5Tget_cset (ftype));
            if (H5Aread (attr, mtype, &vl) >= 0 && vl != NULL) {
                out = g_strdup (vl);
                H5free_memory (vl);
            }
        } else {
            size_t size = H5Tget_size (ftype);
            char *buf = g_malloc0 (size + 1);
            H5Tset_size (mtype, size);
            H5Tset_cset (mtype, H5Tget_cset (ftype));
            if (H5Aread (attr, mtype, buf) >= 0)
                out = g_strdup (buf); /* stops at the first NUL of NUL-padded text */
            g_free (buf);
        }
        H5Tclose (mtype);
    }
    if (ftype >= 0)
        H5Tclose (ftype);
    if (attr >= 0)
        H5Aclose (attr);
    H5Eclear2 (H5E_DEFAULT);
    return out;
}

/* A numeric attribute converted to @mtype; FALSE if absent or unreadable. */
static gboolean
attr_number (hid_t obj, const char *name, hid_t mtype, void *out)
{
    if (H5Aexists (obj, name) <= 0)
        return FALSE;
    hid_t attr = H5Aopen (obj, name, H5P_DEFAULT);
    gboolean ok = attr >= 0 && H5Aread (attr, mtype, out) >= 0;
    if (attr >= 0)
        H5Aclose (attr);
    H5Eclear2 (H5E_DEFAULT);
    return ok;
}

/* Rows in a one-dimensional data set, or -1. */
static gint64
count_rows (hid_t file, const char *path)
{
    if (H5Lexists (file, path, H5P_DEFAULT) <= 0) { /* also <0 when a parent group is missing */
        H5Eclear2 (H5E_DEFAULT);
        return -1;
    }
    gint64 n = -1;
    hid_t dset = H5Dopen2 (file, path, H5P_DEFAULT);
    hid_t space = dset >= 0 ? H5Dget_space (dset) : H5I_INVALID_HID;
    hsize_t dims[1];
    if (space >= 0 && H5Sget_simple_extent_ndims (space) == 1 &&
        H5Sget_simple_extent_dims (space, dims, NULL) == 1)
        n = (gint64) dims[0];
    if (space >= 0)
        H5Sclose (space);
    if (dset >= 0)
        H5Dclose (dset);
    H5Eclear2 (H5E_DEFAULT);
    return n;
}

void
weft_trace_info_free (WeftTraceInfo *info)
{
    if (info == NULL)
        return;
    g_free (info->path);
    g_free (info->reason);
    g_free (info->status_text);
    g_free (info->weft_version);
    g_free (info->git_revision);
    g_free (info->experiment_path);
    g_free (info->experiment_text);
    g_free (info->message);
    g_free (info);
}

static WeftTraceInfo *
not_a_trace (WeftTraceInfo *info, hid_t file, GError **error, const char *reason)
{
    g_set_error (error, WEFT_TRACE_ERROR, WEFT_TRACE_ERROR_READ, "%s: not a weft trace: %s",
                 info->path, reason);
    if (file >= 0)
        H5Fclose (file);
    weft_trace_info_free (info);
    return NULL;
}

/* /meta's attributes into @info (those missing stay 0 or NULL); returns its complete flag. */
static guint8
read_meta (WeftTraceInfo *info, hid_t meta)
{
    guint8 complete = 0;
    attr_number (meta, "complete", H5T_NATIVE_UINT8, &complete);
    attr_number (meta, "seed", H5T_NATIVE_UINT64, &info->seed);
    attr_number (meta, "sim_time_ps", H5T_NATIVE_UINT64, &info->sim_time_ps);
    attr_number (meta, "wall_time_s", H5T_NATIVE_DOUBLE, &info->wall_time_s);
    attr_number (meta, "events", H5T_NATIVE_UINT64, &info->events);
    info->status_text = attr_string (meta, "status");
    info->weft_version = attr_string (meta, "weft_version");
    info->git_revision = attr_string (meta, "git_revision");
    info->experiment_path = attr_string (meta, "experiment_path");
    info->experiment_text = attr_string (meta, "experiment");
    info->message = attr_string (meta, "message");
    return complete;
}

/* Complete, or why not: from the status /meta holds and its complete flag. */
static void
judge_status (WeftTraceInfo *info, guint8 complete)
{
    gboolean known = weft_trace_status_from_name (info->status_text, &info->status);
    if (info->status_text == NULL)
        info->reason = g_strdup ("/meta has no status");
    else if (!known)
        info->reason = g_strdup_printf ("unknown status \"%s\"", info->status_text);
    else if (info->status == WEFT_TRACE_STATUS_RUNNING)
        info->reason = g_strdup ("status is \"running\": the writer never closed it (killed, "
                                 "or still running)");
    else if (info->status == WEFT_TRACE_STATUS_INTERRUPTED)
        info->reason = g_strdup ("the run was interrupted (SIGINT or SIGTERM); the trace holds "
                                 "it up to that point");
    else if (!weft_trace_status_complete (info->status))
        info->reason = g_strdup_printf ("the run ended early (%s); the trace holds it up to "
                                        "that point",
                                        info->status_text);
    else if (complete != 1)
        info->reason = g_strdup ("/meta complete is not 1: the writer never closed it");
    else
        info->complete = TRUE;
}

WeftTraceInfo *
weft_trace_reader_open (const char *path, GError **error)
{
    g_return_val_if_fail (path != NULL, NULL);
    g_return_val_if_fail (error == NULL || *error == NULL, NULL);

    H5Eset_auto2 (H5E_DEFAULT, NULL, NULL);
    WeftTraceInfo *info = g_new0 (WeftTraceInfo, 1);
    info->path = g_strdup (path);
    info->status = WEFT_TRACE_STATUS_RUNNING;
    info->n_nodes = info->n_links = info->n_flows = info->n_link_samples = info->n_ports = -1;
    info->n_collectives = -1;

    if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
        return not_a_trace (info, H5I_INVALID_HID, error, "no such file");
    if (H5Fis_hdf5 (path) <= 0) {
        H5Eclear2 (H5E_DEFAULT);
        return not_a_trace (info, H5I_INVALID_HID, error, "not an HDF5 file");
    }
    hid_t file = H5Fopen (path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0) {
        /* HDF5's signature is there but the file does not open: cut short while written. */
        char *why = weft_trace_hdf5_reason ();
        info->reason = g_strdup_printf ("truncated or damaged HDF5 file (%s)", why);
        g_free (why);
        return info;
    }
    if (H5Lexists (file, "/meta", H5P_DEFAULT) <= 0) {
        H5Eclear2 (H5E_DEFAULT);
        return not_a_trace (info, file, error, "no /meta group");
    }
    hid_t meta = H5Gopen2 (file, "/meta", H5P_DEFAULT);
    if (meta < 0) {
        char *why = weft_trace_hdf5_reason ();
        info->reason = g_strdup_printf ("/meta is unreadable (%s)", why);
        g_free (why);
        H5Fclose (file);
        return info;
    }
    if (!attr_number (meta, "schema_version", H5T_NATIVE_UINT, &info->schema_version)) {
        H5Gclose (meta);
        return not_a_trace (info, file, error, "no /meta schema_version");
    }
    if (info->schema_version > WEFT_TRACE_SCHEMA_VERSION) {
        char *why = g_strdup_printf ("schema version %u is newer than this reader's (%d)",
                                     info->schema_version, WEFT_TRACE_SCHEMA_VERSION);
        H5Gclose (meta);
        not_a_trace (info, file, error, why);
        g_free (why);
        return NULL;
    }

    info->readable = TRUE;
    guint8 complete = read_meta (info, meta);
    H5Gclose (meta);

    info->n_nodes = count_rows (file, "/topology/nodes");
    info->n_links = count_rows (file, "/topology/links");
    info->n_flows = count_rows (file, "/flows");
    info->n_link_samples = count_rows (file, "/links");
    info->n_ports = count_rows (file, "/ports");
    info->n_collectives = count_rows (file, "/collectives");
    H5Fclose (file);
    H5Eclear2 (H5E_DEFAULT);

    judge_status (info, complete);
    g_debug ("%s: %s", path, info->complete ? "complete" : info->reason);
    return info;
}

static GArray *
read_rows (const char *path, const WeftTraceRecord *rec, GError **error)
{
    g_return_val_if_fail (path != NULL, NULL);
    g_return_val_if_fail (error == NULL || *error == NULL, NULL);

    H5Eset_auto2 (H5E_DEFAULT, NULL, NULL);
    GArray *rows = NULL;
    hid_t mtype = H5I_INVALID_HID, dset = H5I_INVALID_HID, space = H5I_INVALID_HID;
    gboolean is_hdf5 = H5Fis_hdf5 (path) > 0;
    hid_t file = is_hdf5 ? H5Fopen (path, H5F_ACC_RDONLY, H5P_DEFAULT) : H5I_INVALID_HID;
    hsize_t dims[1] = { 0 };
    gboolean ok = file >= 0 && (dset = H5Dopen2 (file, rec->dataset, H5P_DEFAULT)) >= 0 &&
                  (space = H5Dget_space (dset)) >= 0 && H5Sget_simple_extent_ndims (space) == 1 &&
                  H5Sget_simple_extent_dims (space, dims, NULL) == 1;
    if (ok) {
        mtype = weft_trace_type_record (rec);
        /* zeroed (clear_ = TRUE): HDF5 leaves members absent from the file untouched */
        rows = g_array_sized_new (FALSE, TRUE, rec->row_size, (guint) dims[0]);
        g_array_set_size (rows, (guint) dims[0]);
        ok = dims[0] == 0 || H5Dread (dset, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows->data) >= 0;
    }
    if (!ok) {
        char *why = is_hdf5 ? weft_trace_hdf5_reason () : g_strdup ("not an HDF5 file");
        g_set_error (error, WEFT_TRACE_ERROR, WEFT_TRACE_ERROR_READ, "%s: cannot read %s: %s", path,
                     rec->dataset, why);
        g_free (why);
        if (rows != NULL)
            g_array_free (rows, TRUE);
        rows = NULL;
    }
    if (mtype >= 0)
        H5Tclose (mtype);
    if (space >= 0)
        H5Sclose (space);
    if (dset >= 0)
        H5Dclose (dset);
    if (file >= 0)
        H5Fclose (file);
    H5Eclear2 (H5E_DEFAULT);
    return rows;
}

/* Whether @path is a trace older than schema @since, without the data set @name that schema
 * added: that reads as 0 rows. */
static gboolean
predates (const char *path, const char *name, guint since)
{
    H5Eset_auto2 (H5E_DEFAULT, NULL, NULL);
    if (H5Fis_hdf5 (path) <= 0) {
        H5Eclear2 (H5E_DEFAULT);
        return FALSE;
    }
    hid_t file = H5Fopen (path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0) {
        H5Eclear2 (H5E_DEFAULT);
        return FALSE;
    }
    guint version = 0;
    gboolean old = FALSE;
    if (H5Lexists (file, name, H5P_DEFAULT) <= 0 && H5Lexists (file, "/meta", H5P_DEFAULT) > 0) {
        hid_t meta = H5Gopen2 (file, "/meta", H5P_DEFAULT);
        old = meta >= 0 && attr_number (meta, "schema_version", H5T_NATIVE_UINT, &version) &&
              version < since;
        if (meta >= 0)
            H5Gclose (meta);
    }
    H5Fclose (file);
    H5Eclear2 (H5E_DEFAULT);
    return old;
}

/* Every row of @rec's data set; none from a file older than the schema that added it. */
static GArray *
read_record (const char *path, const WeftTraceRecord *rec, GError **error)
{
    g_return_val_if_fail (path != NULL, NULL);
    if (rec->since > 1 && predates (path, rec->dataset, rec->since))
        return g_array_new (FALSE, TRUE, rec->row_size);
    return read_rows (path, rec, error);
}

/* The readers of analysis/trace_reader.h, one per record. */
#define DEFINE_READER(one, many, ...)                                                              \
    GArray *weft_trace_reader_##many (const char *path, GError **error)                            \
    {                                                                                              \
        return read_record (path, &weft_trace_record_##one, error);                                \
    }
WEFT_TRACE_RECORDS (DEFINE_READER)
#undef DEFINE_READER
