/* analysis/trace_reader.c - reading weft traces, damaged and hostile ones included: opening
 * a trace and judging it (/meta, every data set checked), and the row readers.  The checks
 * themselves are in analysis/trace_reader_check.c.
 *
 * The memory types come from the schema module (sim/trace_types.h), the same ones the writer
 * uses; analysis/ depends on the schema only, not on the writer.  HDF5 converts compound
 * members by name, so a reader keeps working when a later schema adds members; and a member
 * of the memory type that the file lacks (an older schema's file) is left as it was in the
 * buffer, which the read zero-fills, so a schema-1 file reads with the schema-2 members 0.
 */
#include "config.h"
#define G_LOG_DOMAIN "weft-reader"
#include "analysis/trace_reader_private.h"

#include <glib/gstdio.h>
#include <string.h>

WeftTraceOpenResult
weft_trace_reader_file_open (WeftTraceFile *t, const char *path, char **why)
{
    H5Eset_auto2 (H5E_DEFAULT, NULL, NULL);
    t->path = path;
    t->file = H5I_INVALID_HID;
    GStatBuf st;
    if (g_stat (path, &st) != 0) {
        *why = g_strdup ("no such file");
        return WEFT_TRACE_OPEN_NOT_HDF5;
    }
    /* HDF5 would block on a FIFO and read a device or /proc file forever */
    if (!S_ISREG (st.st_mode)) {
        *why = g_strdup ("not a regular file");
        return WEFT_TRACE_OPEN_NOT_HDF5;
    }
    t->file_bytes = (guint64) st.st_size;
    if (H5Fis_hdf5 (path) <= 0) {
        H5Eclear2 (H5E_DEFAULT);
        *why = g_strdup ("not an HDF5 file");
        return WEFT_TRACE_OPEN_NOT_HDF5;
    }
    t->file = H5Fopen (path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (t->file < 0) {
        /* HDF5's signature is there but the file does not open: cut short while written. */
        char *reason = weft_trace_hdf5_reason ();
        *why = g_strdup_printf ("truncated or damaged HDF5 file (%s)", reason);
        g_free (reason);
        return WEFT_TRACE_OPEN_DAMAGED;
    }
    return WEFT_TRACE_OPEN_OK;
}

void
weft_trace_reader_file_close (WeftTraceFile *t)
{
    if (t->file >= 0)
        H5Fclose (t->file);
    t->file = H5I_INVALID_HID;
    H5Eclear2 (H5E_DEFAULT);
}

/* /meta schema_version: FALSE with *why if /meta or the attribute is missing or malformed,
 * or the version is 0 or newer than this reader's - and with *damaged too if /meta is there
 * but is no group, or its bytes fail the checks libhdf5 does not make
 * (analysis/trace_reader_raw.c), which come first. */
static gboolean
read_version (const WeftTraceFile *t, guint *version, char **why, gboolean *damaged)
{
    char *link_why = NULL, *raw_why = NULL;
    int found = weft_trace_reader_hard_path (t, "/meta", H5I_GROUP, &link_why);
    *damaged = found < 0; /* there, but not a group reached by a sound header and link */
    if (found <= 0) {
        *why = found == 0 ? g_strdup ("no /meta group") : link_why;
        return FALSE;
    }
    if (!weft_trace_reader_raw_meta (t, &raw_why)) {
        *why = g_strdup_printf ("/meta is damaged: %s", raw_why);
        g_free (raw_why);
        *damaged = TRUE;
        return FALSE;
    }
    hid_t meta = H5Gopen2 (t->file, "/meta", H5P_DEFAULT);
    if (meta < 0) {
        char *reason = weft_trace_hdf5_reason ();
        *why = g_strdup_printf ("/meta is unreadable (%s)", reason);
        g_free (reason);
        return FALSE;
    }
    guint64 v = 0; /* wide enough that a huge stored value does not clip to a valid one */
    WeftTraceAttr r =
        weft_trace_reader_attr_number (meta, "schema_version", TRUE, H5T_NATIVE_UINT64, &v, why);
    H5Gclose (meta);
    H5Eclear2 (H5E_DEFAULT);
    if (r == WEFT_TRACE_ATTR_ABSENT)
        *why = g_strdup ("no /meta schema_version");
    else if (r == WEFT_TRACE_ATTR_READ && (v == 0 || v > WEFT_TRACE_SCHEMA_VERSION))
        *why = g_strdup_printf ("schema version %" G_GUINT64_FORMAT
                                " is not one this reader knows (1 to %d)",
                                v, WEFT_TRACE_SCHEMA_VERSION);
    *version = (guint) v;
    return *why == NULL;
}

/* ---- weft_trace_reader_open ------------------------------------------------------------- */

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
not_a_trace (WeftTraceInfo *info, WeftTraceFile *t, GError **error, char *reason)
{
    g_set_error (error, WEFT_TRACE_ERROR, WEFT_TRACE_ERROR_READ, "%s: not a weft trace: %s",
                 info->path, reason);
    g_free (reason);
    weft_trace_reader_file_close (t);
    weft_trace_info_free (info);
    return NULL;
}

/* Notes the first damage found: the reason a trace is damaged names its first problem. */
static void
damage (WeftTraceInfo *info, char *why)
{
    if (!info->damaged) {
        info->damaged = TRUE;
        info->reason = why;
    } else
        g_free (why);
}

/* /meta's attributes, every one the writer has always written: its kind and where it goes
 * in WeftTraceInfo (-1: checked, not kept). */
typedef enum { META_INTEGER, META_FLOAT, META_STRING } MetaKind;
static const struct {
    const char *name;
    MetaKind kind;
    gssize offset;
} meta_attrs[] = {
    { "weft_version", META_STRING, G_STRUCT_OFFSET (WeftTraceInfo, weft_version) },
    { "git_revision", META_STRING, G_STRUCT_OFFSET (WeftTraceInfo, git_revision) },
    { "experiment", META_STRING, G_STRUCT_OFFSET (WeftTraceInfo, experiment_text) },
    { "experiment_path", META_STRING, G_STRUCT_OFFSET (WeftTraceInfo, experiment_path) },
    { "seed", META_INTEGER, G_STRUCT_OFFSET (WeftTraceInfo, seed) },
    { "glib_version", META_STRING, -1 },
    { "hdf5_version", META_STRING, -1 },
    { "gsl_version", META_STRING, -1 },
    { "status", META_STRING, G_STRUCT_OFFSET (WeftTraceInfo, status_text) },
    { "complete", META_INTEGER, -1 }, /* read apart: 8 bits */
    { "sim_time_ps", META_INTEGER, G_STRUCT_OFFSET (WeftTraceInfo, sim_time_ps) },
    { "wall_time_s", META_FLOAT, G_STRUCT_OFFSET (WeftTraceInfo, wall_time_s) },
    { "events", META_INTEGER, G_STRUCT_OFFSET (WeftTraceInfo, events) },
    { "message", META_STRING, G_STRUCT_OFFSET (WeftTraceInfo, message) },
};

/* /meta's attributes into @info; a missing or malformed one damages the trace (and leaves
 * its field 0 or NULL).  Returns the complete flag. */
static guint8
read_meta (WeftTraceInfo *info, const WeftTraceFile *t)
{
    guint8 complete = 0;
    hid_t meta = H5Gopen2 (t->file, "/meta", H5P_DEFAULT);
    for (guint i = 0; meta >= 0 && i < G_N_ELEMENTS (meta_attrs); i++) {
        const char *name = meta_attrs[i].name;
        gssize at = meta_attrs[i].offset;
        char *why = NULL, *text = NULL;
        guint64 u = 0;
        double d = 0;
        WeftTraceAttr r;
        if (meta_attrs[i].kind == META_STRING) {
            r = weft_trace_reader_attr_string (t, meta, name, &text, &why);
            if (at >= 0)
                G_STRUCT_MEMBER (char *, info, at) = text;
            else
                g_free (text);
        } else if (meta_attrs[i].kind == META_FLOAT) {
            r = weft_trace_reader_attr_number (meta, name, FALSE, H5T_NATIVE_DOUBLE, &d, &why);
            G_STRUCT_MEMBER (double, info, at) = d;
        } else if (strcmp (name, "complete") == 0)
            r = weft_trace_reader_attr_number (meta, name, TRUE, H5T_NATIVE_UINT8, &complete, &why);
        else {
            r = weft_trace_reader_attr_number (meta, name, TRUE, H5T_NATIVE_UINT64, &u, &why);
            G_STRUCT_MEMBER (guint64, info, at) = u;
        }
        if (r == WEFT_TRACE_ATTR_ABSENT)
            why = g_strdup_printf ("/meta %s is missing (every trace has it)", name);
        if (why != NULL)
            damage (info, why);
    }
    if (meta >= 0)
        H5Gclose (meta);
    H5Eclear2 (H5E_DEFAULT);
    return complete;
}

/* Complete, or why not: from the status /meta holds and its complete flag. */
static void
judge_status (WeftTraceInfo *info, guint8 complete)
{
    gboolean known = weft_trace_status_from_name (info->status_text, &info->status);
    if (info->damaged)
        return; /* the reason names the damage */
    if (info->status_text == NULL)
        info->reason = g_strdup ("/meta has no status");
    else if (!known) {
        char *shown = weft_trace_reader_printable (info->status_text);
        info->reason = g_strdup_printf ("unknown status \"%s\"", shown);
        g_free (shown);
    } else if (info->status == WEFT_TRACE_STATUS_RUNNING)
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

/* "/flows: WHY", unless @why already begins with the data set's name (a link or a header on
 * the way to it).  (transfer full) */
static char *
about (const WeftTraceRecord *rec, const char *why)
{
    gsize n = strlen (rec->dataset);
    if (strncmp (why, rec->dataset, n) == 0 && (why[n] == ':' || why[n] == ' '))
        return g_strdup (why);
    return g_strdup_printf ("%s: %s", rec->dataset, why);
}

/* Where weft_trace_reader_open() counts @rec's rows, or NULL (not counted). */
static gint64 *
row_count (WeftTraceInfo *info, const WeftTraceRecord *rec)
{
    if (rec == &weft_trace_record_node)
        return &info->n_nodes;
    if (rec == &weft_trace_record_link)
        return &info->n_links;
    if (rec == &weft_trace_record_flow)
        return &info->n_flows;
    if (rec == &weft_trace_record_link_sample)
        return &info->n_link_samples;
    if (rec == &weft_trace_record_port)
        return &info->n_ports;
    if (rec == &weft_trace_record_collective)
        return &info->n_collectives;
    return NULL;
}

/* Packets /ports counts as sent; 0 if it does not read. */
static guint64
packets_sent (const WeftTraceFile *t, guint version)
{
    WeftTraceTable tab;
    char *why = NULL;
    gboolean missing;
    guint64 sum = 0;
    if (weft_trace_reader_table_open (t, &weft_trace_record_port, version, &tab, &why, &missing)) {
        GArray *ports = weft_trace_reader_table_read (&tab, &weft_trace_record_port, &why);
        for (guint i = 0; ports != NULL && i < ports->len; i++)
            sum += g_array_index (ports, WeftTracePort, i).tx_packets;
        if (ports != NULL)
            g_array_free (ports, TRUE);
        weft_trace_reader_table_close (&tab);
    }
    g_free (why);
    return sum;
}

/* Every data set of the file's schema, checked (not read): a missing or malformed one
 * damages the trace.  And one check across them: a complete trace writes a /flows row for
 * every flow, so packets counted in /ports with no /flows rows means the rows were lost. */
static void
check_tables (WeftTraceInfo *info, const WeftTraceFile *t)
{
    for (guint i = 0; weft_trace_records[i] != NULL; i++) {
        const WeftTraceRecord *rec = weft_trace_records[i];
        WeftTraceTable tab;
        char *why = NULL;
        gboolean missing;
        gint64 *count = row_count (info, rec);
        if (rec->since > info->schema_version)
            continue;
        if (weft_trace_reader_table_open (t, rec, info->schema_version, &tab, &why, &missing)) {
            if (count != NULL)
                *count = (gint64) tab.rows;
            weft_trace_reader_table_close (&tab);
        } else {
            damage (info, missing ? g_strdup_printf ("%s is missing (every trace of schema %u "
                                                     "has it)",
                                                     rec->dataset, info->schema_version)
                                  : about (rec, why));
            g_free (why);
        }
    }
    if (!info->damaged && info->n_flows == 0 && weft_trace_status_complete (info->status)) {
        guint64 sent = packets_sent (t, info->schema_version);
        if (sent > 0)
            damage (info,
                    g_strdup_printf ("/flows has no rows, but /ports counts %" G_GUINT64_FORMAT
                                     " packets sent: the flows' rows are missing",
                                     sent));
    }
}

WeftTraceInfo *
weft_trace_reader_open_direct (const char *path, GError **error)
{
    g_return_val_if_fail (path != NULL, NULL);
    g_return_val_if_fail (error == NULL || *error == NULL, NULL);

    WeftTraceInfo *info = g_new0 (WeftTraceInfo, 1);
    info->path = g_strdup (path);
    info->status = WEFT_TRACE_STATUS_RUNNING;
    info->n_nodes = info->n_links = info->n_flows = info->n_link_samples = info->n_ports = -1;
    info->n_collectives = -1;

    WeftTraceFile t;
    char *why = NULL;
    switch (weft_trace_reader_file_open (&t, path, &why)) {
    case WEFT_TRACE_OPEN_NOT_HDF5:
        return not_a_trace (info, &t, error, why);
    case WEFT_TRACE_OPEN_DAMAGED:
        info->reason = why;
        return info;
    case WEFT_TRACE_OPEN_OK:
        break;
    }
    gboolean damaged_meta = FALSE;
    if (!read_version (&t, &info->schema_version, &why, &damaged_meta)) {
        if (!damaged_meta)
            return not_a_trace (info, &t, error, why);
        info->damaged = TRUE; /* /meta does not read: like a file that does not open */
        info->reason = why;
        weft_trace_reader_file_close (&t);
        return info;
    }

    info->readable = TRUE;
    guint8 complete = read_meta (info, &t);
    weft_trace_status_from_name (info->status_text, &info->status);
    check_tables (info, &t);
    weft_trace_reader_file_close (&t);

    judge_status (info, complete);
    g_debug ("%s: %s", path, info->complete ? "complete" : info->reason);
    return info;
}

/* ---- the row readers -------------------------------------------------------------------- */

/* weft_trace_reader_open() and the readers below run these in a child process
 * (trace_reader_child.c). */

GArray *
weft_trace_reader_read_direct (const char *path, const WeftTraceRecord *rec, GError **error)
{
    g_return_val_if_fail (path != NULL, NULL);
    g_return_val_if_fail (error == NULL || *error == NULL, NULL);

    WeftTraceFile t;
    WeftTraceTable tab;
    char *why = NULL;
    guint version = 0;
    gboolean missing = FALSE;
    GArray *rows = NULL;
    WeftTraceOpenResult opened = weft_trace_reader_file_open (&t, path, &why);
    if (opened == WEFT_TRACE_OPEN_OK) {
        /* a file without a readable version is read as the current schema */
        char *version_why = NULL;
        gboolean damaged_meta;
        if (!read_version (&t, &version, &version_why, &damaged_meta))
            version = WEFT_TRACE_SCHEMA_VERSION;
        g_free (version_why);
        if (weft_trace_reader_table_open (&t, rec, version, &tab, &why, &missing)) {
            rows = weft_trace_reader_table_read (&tab, rec, &why);
            weft_trace_reader_table_close (&tab);
        } else if (missing && version < rec->since) {
            g_clear_pointer (&why, g_free);
            rows = g_array_new (FALSE, TRUE, rec->row_size);
        }
    }
    weft_trace_reader_file_close (&t);
    if (rows == NULL) {
        char *what = about (rec, why);
        g_set_error (error, WEFT_TRACE_ERROR, WEFT_TRACE_ERROR_READ, "%s: cannot read %s", path,
                     what);
        g_free (what);
        g_free (why);
    }
    return rows;
}

/* The readers of analysis/trace_reader.h, one per record. */
#define DEFINE_READER(one, many, ...)                                                              \
    GArray *weft_trace_reader_##many (const char *path, GError **error)                            \
    {                                                                                              \
        return weft_trace_reader_read_record (path, &weft_trace_record_##one, error);              \
    }
WEFT_TRACE_RECORDS (DEFINE_READER)
#undef DEFINE_READER
