/* analysis/collected.c - reading a sweep's collected table (analysis/collected.h).
 *
 * The table's columns are the sweep's own (its axes, the figures its points have), so its
 * compound type is not one of sim/trace_schema.h's records: the members are checked here,
 * one by one, against the three kinds the writer (sim/trace_table.c) stores, and everything
 * else - links, object headers, /meta's bytes and attributes, layout, filters and stored
 * bytes, the child process - is the trace reader's (analysis/trace_reader_private.h).
 */
#include "config.h"
#define G_LOG_DOMAIN "weft-reader"
#include "analysis/collected.h"
#include "analysis/trace_reader_private.h"
#include "sim/trace_table.h"

#include <math.h>
#include <string.h>

/* What crosses the pipe: (read, what it is if not (WeftCollectedProbe), the reason if not
 * read, sweep file, columns: (name, unit, role, text cells, number cells)). */
#define RESULT_TYPE "(bussa(ssyasad))"
#define MAX_MEMBERS 4096

/* One data set's members and rows, read. */
typedef struct {
    guint n_members;
    char **names;    /* n_members */
    gboolean *text;  /* per member: text, else a number */
    GPtrArray **col; /* per text member: the cells (transfer full), else NULL */
    double **num;    /* per number member: the cells, else NULL */
    guint rows;
} Read;

static void
read_clear (Read *r)
{
    for (guint i = 0; i < r->n_members; i++) {
        if (r->col && r->col[i])
            g_ptr_array_unref (r->col[i]);
        if (r->num)
            g_free (r->num[i]);
    }
    g_strfreev (r->names);
    g_free (r->text);
    g_free (r->col);
    g_free (r->num);
    memset (r, 0, sizeof *r);
}

/* Why member @i (@mt) of a stored row is not what the writer stores, or NULL. */
static char *
check_member (hid_t mt, const char *name)
{
    if (H5Tget_class (mt) == H5T_STRING) {
        H5T_cset_t cset = H5Tget_cset (mt);
        size_t size = H5Tget_size (mt);
        if (H5Tis_variable_str (mt) != 0 || (cset != H5T_CSET_ASCII && cset != H5T_CSET_UTF8) ||
            size == 0 || size > WEFT_COLLECTED_MAX_TEXT)
            return g_strdup_printf ("member %s is not a fixed-length string of at most %d bytes",
                                    name, WEFT_COLLECTED_MAX_TEXT);
        return NULL;
    }
    if (H5Tget_class (mt) == H5T_INTEGER && weft_trace_reader_plain_integer (mt) &&
        H5Tget_size (mt) == 4 && H5Tget_sign (mt) == H5T_SGN_NONE)
        return NULL;
    if (weft_trace_reader_plain_float (mt) && H5Tget_size (mt) == 8)
        return NULL;
    return g_strdup_printf ("member %s is neither text, a 32-bit unsigned integer nor a double",
                            name);
}

/* Checks the stored type of a data set (@name, for messages) and builds the memory type: text
 * members as strings of their stored size, numbers as native doubles, packed. */
static char *
check_type (hid_t type, const char *name, Read *r, hid_t *mem, size_t *row_bytes)
{
    *mem = H5I_INVALID_HID;
    if (H5Tget_class (type) != H5T_COMPOUND)
        return g_strdup_printf ("%s: its rows are not compound records", name);
    size_t size = H5Tget_size (type);
    int n = H5Tget_nmembers (type);
    if (size == 0 || size > WEFT_TRACE_READER_MAX_CHUNK_BYTES)
        return g_strdup_printf ("%s: its rows declare %zu bytes each", name, size);
    if (n < 1 || n > MAX_MEMBERS)
        return g_strdup_printf ("%s: its rows have %d members", name, n);
    r->n_members = (guint) n;
    r->names = g_new0 (char *, n + 1);
    r->text = g_new0 (gboolean, n);
    size_t *msize = g_new0 (size_t, n), mem_row = 0, end = 0;
    char *why = NULL;
    for (int i = 0; why == NULL && i < n; i++) {
        char *m = H5Tget_member_name (type, (unsigned) i);
        hid_t mt = H5Tget_member_type (type, (unsigned) i);
        size_t off = H5Tget_member_offset (type, (unsigned) i);
        if (m == NULL || mt < 0) {
            why = g_strdup_printf ("%s: member %d is unreadable", name, i);
        } else {
            r->names[i] = weft_trace_reader_printable (m);
            size_t sz = H5Tget_size (mt);
            why = check_member (mt, r->names[i]);
            if (why == NULL && (off < end || sz > size || off > size - sz))
                why = g_strdup_printf ("%s: member %s lies at bytes %zu-%zu of a %zu-byte row",
                                       name, r->names[i], off, off + sz, size);
            end = off + sz;
            r->text[i] = H5Tget_class (mt) == H5T_STRING;
            msize[i] = r->text[i] ? sz : sizeof (double);
            mem_row += msize[i];
            if (why == NULL && strcmp (r->names[i], m) != 0)
                why = g_strdup_printf ("%s: member %d's name is not printable text", name, i);
        }
        if (m != NULL)
            H5free_memory (m);
        if (mt >= 0)
            H5Tclose (mt);
    }
    if (why == NULL) {
        *mem = H5Tcreate (H5T_COMPOUND, mem_row);
        size_t off = 0;
        for (int i = 0; i < n; i++) {
            /* a text member as stored (HDF5 converts no string between character sets) */
            hid_t mt =
                r->text[i] ? H5Tget_member_type (type, (unsigned) i) : H5Tcopy (H5T_NATIVE_DOUBLE);
            char *m = H5Tget_member_name (type, (unsigned) i);
            H5Tinsert (*mem, m, off, mt);
            H5free_memory (m);
            H5Tclose (mt);
            off += msize[i];
        }
        *row_bytes = size;
    }
    g_free (msize);
    return why;
}

/* Reads every row of data set @name into @r; *why (transfer full) otherwise. */
static gboolean
read_dataset (const WeftTraceFile *t, const char *name, Read *r, char **why)
{
    memset (r, 0, sizeof *r);
    char *link_why = NULL;
    int found = weft_trace_reader_hard_path (t, name, H5I_DATASET, &link_why);
    if (found <= 0) {
        *why = found == 0 ? g_strdup_printf ("%s is missing", name)
                          : g_strdup_printf ("%s: %s", name, link_why);
        g_free (link_why);
        return FALSE;
    }
    char *raw_why = NULL;
    if (!weft_trace_reader_raw_dataset (t, name, &raw_why)) {
        *why = g_strdup_printf ("%s: %s", name, raw_why);
        g_free (raw_why);
        return FALSE;
    }
    hid_t dset = H5Dopen2 (t->file, name, H5P_DEFAULT);
    if (dset < 0) {
        char *reason = weft_trace_hdf5_reason ();
        *why = g_strdup_printf ("%s is unreadable (%s)", name, reason);
        g_free (reason);
        return FALSE;
    }
    hid_t type = H5Dget_type (dset), space = H5Dget_space (dset), mem = H5I_INVALID_HID;
    size_t row_bytes = 0;
    hsize_t dims[H5S_MAX_RANK], slab = 1;
    *why = type < 0 ? g_strdup_printf ("%s: its type is unreadable", name)
                    : check_type (type, name, r, &mem, &row_bytes);
    if (*why == NULL && (space < 0 || H5Sget_simple_extent_type (space) != H5S_SIMPLE ||
                         H5Sget_simple_extent_ndims (space) != 1 ||
                         H5Sget_simple_extent_dims (space, dims, NULL) != 1))
        *why = g_strdup_printf ("%s is not a one-dimensional list of rows", name);
    if (*why == NULL) {
        char *s = weft_trace_reader_check_storage (t, dset, dims[0], row_bytes, &slab);
        if (s != NULL)
            *why = g_strdup_printf ("%s: %s", name, s);
        g_free (s);
    }
    char *buf = NULL;
    size_t mem_row = mem >= 0 ? H5Tget_size (mem) : 0;
    if (*why == NULL) {
        r->rows = (guint) dims[0];
        r->col = g_new0 (GPtrArray *, r->n_members);
        r->num = g_new0 (double *, r->n_members);
        buf = g_try_malloc (MAX (slab * mem_row, 1));
        if (buf == NULL)
            *why =
                g_strdup_printf ("%s: its rows need more memory than this process may use", name);
        for (guint i = 0; *why == NULL && i < r->n_members; i++) {
            if (r->text[i])
                r->col[i] = g_ptr_array_new_full (r->rows + 1, g_free);
            else if ((r->num[i] = g_try_new (double, MAX (r->rows, 1))) == NULL)
                *why = g_strdup_printf ("%s: its rows need more memory than this process may use",
                                        name);
        }
    }
    for (hsize_t start = 0; *why == NULL && start < dims[0]; start += slab) {
        hsize_t count = MIN (slab, dims[0] - start);
        hid_t fs = H5Dget_space (dset), ms = H5Screate_simple (1, &count, NULL);
        gboolean ok = fs >= 0 && ms >= 0 &&
                      H5Sselect_hyperslab (fs, H5S_SELECT_SET, &start, NULL, &count, NULL) >= 0 &&
                      H5Dread (dset, mem, ms, fs, H5P_DEFAULT, buf) >= 0;
        if (fs >= 0)
            H5Sclose (fs);
        if (ms >= 0)
            H5Sclose (ms);
        if (!ok) {
            char *reason = weft_trace_hdf5_reason ();
            *why = g_strdup_printf ("%s: its rows do not read (%s)", name, reason);
            g_free (reason);
            break;
        }
        for (hsize_t k = 0; k < count; k++) {
            const char *row = buf + k * mem_row;
            size_t off = 0;
            for (guint i = 0; i < r->n_members; i++) {
                hid_t mt = H5Tget_member_type (mem, i);
                size_t sz = H5Tget_size (mt);
                H5Tclose (mt);
                if (r->text[i])
                    g_ptr_array_add (r->col[i], g_strndup (row + off, sz));
                else
                    memcpy (&r->num[i][start + k], row + off, sizeof (double));
                off += sz;
            }
        }
    }
    g_free (buf);
    if (mem >= 0)
        H5Tclose (mem);
    if (type >= 0)
        H5Tclose (type);
    if (space >= 0)
        H5Sclose (space);
    H5Dclose (dset);
    H5Eclear2 (H5E_DEFAULT);
    if (*why != NULL)
        read_clear (r);
    return *why == NULL;
}

static const char *const role_names[] = {
    [WEFT_COLLECTED_INDEX] = "index",   [WEFT_COLLECTED_NAME] = "name",
    [WEFT_COLLECTED_STATUS] = "status", [WEFT_COLLECTED_AXIS] = "axis",
    [WEFT_COLLECTED_METRIC] = "metric", [WEFT_COLLECTED_TRACE] = "trace",
};

static int
role_of (const char *s)
{
    for (guint i = 0; i < G_N_ELEMENTS (role_names); i++)
        if (strcmp (s, role_names[i]) == 0)
            return (int) i;
    return -1;
}

static gint
text_member (const Read *r, const char *name)
{
    for (guint i = 0; i < r->n_members; i++)
        if (strcmp (r->names[i], name) == 0 && r->text[i])
            return (gint) i;
    return -1;
}

/* @s as GVariant takes it: valid UTF-8.  (transfer full) */
static char *
utf8 (const char *s)
{
    return g_utf8_make_valid (s ? s : "", -1);
}

/* The columns of /table described by /columns, or *why. */
static GVariant *
columns_variant (const Read *table, const Read *cols, char **why)
{
    gint cn = text_member (cols, "name"), cr = text_member (cols, "role"),
         cu = text_member (cols, "unit");
    if (cn < 0 || cr < 0 || cu < 0) {
        *why = g_strdup ("/columns lacks its name, role or unit text");
        return NULL;
    }
    if (cols->rows != table->n_members) {
        *why = g_strdup_printf ("/columns describes %u columns, /table has %u", cols->rows,
                                table->n_members);
        return NULL;
    }
    GVariantBuilder b;
    g_variant_builder_init (&b, G_VARIANT_TYPE ("a(ssyasad)"));
    for (guint i = 0; *why == NULL && i < cols->rows; i++) {
        const char *name = cols->col[cn]->pdata[i], *role = cols->col[cr]->pdata[i];
        int ro = role_of (role);
        gboolean number = ro == WEFT_COLLECTED_INDEX || ro == WEFT_COLLECTED_METRIC;
        if (strcmp (name, table->names[i]) != 0)
            *why = g_strdup_printf ("/columns row %u names a column /table does not have there", i);
        else if (ro < 0)
            *why = g_strdup_printf ("/columns: column %s has an unknown role", table->names[i]);
        else if (number == table->text[i])
            *why = g_strdup_printf ("/table: column %s is not %s", table->names[i],
                                    number ? "a number" : "text");
        if (*why != NULL)
            break;
        GVariantBuilder t, v;
        g_variant_builder_init (&t, G_VARIANT_TYPE ("as"));
        g_variant_builder_init (&v, G_VARIANT_TYPE ("ad"));
        for (guint k = 0; k < table->rows; k++) {
            if (number) {
                g_variant_builder_add (&v, "d", table->num[i][k]);
            } else {
                g_autofree char *s = utf8 (table->col[i]->pdata[k]);
                g_variant_builder_add (&t, "s", s);
            }
        }
        g_autofree char *n = utf8 (name), *u = utf8 (cols->col[cu]->pdata[i]);
        g_variant_builder_add (&b, "(ssy@as@ad)", n, u, (guchar) ro, g_variant_builder_end (&t),
                               g_variant_builder_end (&v));
    }
    if (*why != NULL) {
        g_variant_builder_clear (&b);
        return NULL;
    }
    return g_variant_builder_end (&b);
}

static GVariant *
failed (WeftCollectedProbe probe, const char *path, const char *what, char *why)
{
    g_autofree char *m = utf8 (why);
    g_autofree char *message = g_strdup_printf ("%s: %s: %s", path, what, m);
    g_free (why);
    return g_variant_new ("(buss@a(ssyasad))", FALSE, (guint32) probe, message, "",
                          g_variant_new_array (G_VARIANT_TYPE ("(ssyasad)"), NULL, 0));
}

/* Reads the file in this process (the child's work). */
static GVariant *
read_direct (const char *path)
{
    WeftTraceFile t;
    char *why = NULL;
    WeftTraceOpenResult o = weft_trace_reader_file_open (&t, path, &why);
    if (o != WEFT_TRACE_OPEN_OK)
        return failed (
            o == WEFT_TRACE_OPEN_NOT_HDF5 ? WEFT_COLLECTED_NOT_TABLE : WEFT_COLLECTED_UNOPENED,
            path,
            o == WEFT_TRACE_OPEN_NOT_HDF5 ? "not a collected table" : "damaged collected table",
            why);
    GVariant *v = NULL;
    int found = weft_trace_reader_hard_path (&t, "/meta", H5I_GROUP, &why);
    if (found == 0)
        v = failed (WEFT_COLLECTED_NOT_TABLE, path, "not a collected table",
                    g_strdup ("no /meta group"));
    else if (found < 0)
        v = failed (WEFT_COLLECTED_IS_TABLE, path, "damaged collected table", why);
    else if (!weft_trace_reader_raw_meta (&t, &why))
        v = failed (WEFT_COLLECTED_IS_TABLE, path, "damaged collected table", why);
    if (v != NULL) {
        weft_trace_reader_file_close (&t);
        return v;
    }
    hid_t meta = H5Gopen2 (t.file, "/meta", H5P_DEFAULT);
    g_autofree char *format = NULL, *sweep = NULL;
    guint64 version = 0, complete = 0;
    WeftTraceAttr fa = meta >= 0 ? weft_trace_reader_attr_string (&t, meta, "format", &format, &why)
                                 : WEFT_TRACE_ATTR_BAD;
    if (meta < 0)
        why = g_strdup ("/meta is unreadable");
    if (fa == WEFT_TRACE_ATTR_ABSENT ||
        (fa == WEFT_TRACE_ATTR_READ && strcmp (format, WEFT_TRACE_TABLE_FORMAT) != 0))
        v = failed (WEFT_COLLECTED_NOT_TABLE, path, "not a collected table",
                    g_strdup ("/meta format is not \"" WEFT_TRACE_TABLE_FORMAT "\""));
    else if (fa == WEFT_TRACE_ATTR_BAD)
        v = failed (WEFT_COLLECTED_IS_TABLE, path, "damaged collected table", why);
    else if (weft_trace_reader_attr_number (meta, "format_version", TRUE, H5T_NATIVE_UINT64,
                                            &version, &why) != WEFT_TRACE_ATTR_READ ||
             version == 0 || version > WEFT_TRACE_TABLE_VERSION)
        v = failed (WEFT_COLLECTED_IS_TABLE, path, "damaged collected table",
                    why ? why
                        : g_strdup_printf ("/meta format_version %" G_GUINT64_FORMAT
                                           " is not one this reader knows (1 to %d)",
                                           version, WEFT_TRACE_TABLE_VERSION));
    else if (weft_trace_reader_attr_number (meta, "complete", TRUE, H5T_NATIVE_UINT64, &complete,
                                            &why) == WEFT_TRACE_ATTR_BAD)
        v = failed (WEFT_COLLECTED_IS_TABLE, path, "damaged collected table", why);
    else if (complete != 1)
        v = failed (WEFT_COLLECTED_IS_TABLE, path, "incomplete collected table",
                    g_strdup ("/meta complete is not 1 (the collection did not finish)"));
    else if (weft_trace_reader_attr_string (&t, meta, "sweep_file", &sweep, &why) ==
             WEFT_TRACE_ATTR_BAD)
        v = failed (WEFT_COLLECTED_IS_TABLE, path, "damaged collected table", why);
    if (meta >= 0)
        H5Gclose (meta);
    Read table = { 0 }, cols = { 0 };
    if (v == NULL &&
        !(read_dataset (&t, "/table", &table, &why) && read_dataset (&t, "/columns", &cols, &why)))
        v = failed (WEFT_COLLECTED_IS_TABLE, path, "damaged collected table", why);
    if (v == NULL) {
        GVariant *c = columns_variant (&table, &cols, &why);
        g_autofree char *s = utf8 (sweep);
        if (c != NULL) {
            v = g_variant_new ("(buss@a(ssyasad))", TRUE, (guint32) WEFT_COLLECTED_IS_TABLE, "", s,
                               c);
        } else {
            v = failed (WEFT_COLLECTED_IS_TABLE, path, "damaged collected table", why);
        }
    }
    read_clear (&table);
    read_clear (&cols);
    weft_trace_reader_file_close (&t);
    return v;
}

void
weft_collected_free (WeftCollected *t)
{
    if (t == NULL)
        return;
    for (guint i = 0; t->columns && i < t->columns->len; i++) {
        WeftCollectedColumn *c = t->columns->pdata[i];
        g_free (c->name);
        g_free (c->unit);
        g_strfreev (c->text);
        g_free (c->values);
        g_free (c);
    }
    if (t->columns)
        g_ptr_array_unref (t->columns);
    g_free (t->path);
    g_free (t->sweep_file);
    g_free (t);
}

WeftCollected *
weft_collected_read (const char *path, WeftCollectedProbe *what, GError **error)
{
    g_return_val_if_fail (path != NULL && what != NULL, NULL);
    *what = WEFT_COLLECTED_IS_TABLE;
    char *died = NULL;
    GVariant *v =
        weft_trace_reader_in_child (read_direct, path, G_VARIANT_TYPE (RESULT_TYPE), &died);
    if (v == NULL) {
        g_set_error (error, WEFT_TRACE_ERROR, WEFT_TRACE_ERROR_READ,
                     "%s: damaged collected table: %s", path, died);
        g_free (died);
        return NULL;
    }
    gboolean ok;
    guint32 probe;
    const char *message, *sweep;
    GVariantIter *it;
    g_variant_get (v, "(bu&s&sa(ssyasad))", &ok, &probe, &message, &sweep, &it);
    WeftCollected *t = NULL;
    if (!ok) {
        *what =
            probe <= WEFT_COLLECTED_UNOPENED ? (WeftCollectedProbe) probe : WEFT_COLLECTED_IS_TABLE;
        g_set_error (error, WEFT_TRACE_ERROR, WEFT_TRACE_ERROR_READ, "%s", message);
    } else {
        t = g_new0 (WeftCollected, 1);
        t->path = g_strdup (path);
        t->sweep_file = g_strdup (sweep);
        t->columns = g_ptr_array_new ();
        const char *name, *unit;
        guchar role;
        GVariant *texts, *values;
        gboolean first = TRUE;
        while (g_variant_iter_next (it, "(&s&sy@as@ad)", &name, &unit, &role, &texts, &values)) {
            WeftCollectedColumn *c = g_new0 (WeftCollectedColumn, 1);
            c->name = g_strdup (name);
            c->unit = g_strdup (unit);
            c->role = (WeftCollectedRole) role;
            gsize n;
            if (role == WEFT_COLLECTED_INDEX || role == WEFT_COLLECTED_METRIC) {
                const double *d = g_variant_get_fixed_array (values, &n, sizeof (double));
                c->values = g_new (double, MAX (n, 1));
                if (n > 0)
                    memcpy (c->values, d, n * sizeof (double));
            } else {
                c->text = g_variant_dup_strv (texts, &n);
            }
            if (first)
                t->n_rows = (guint) n;
            first = FALSE;
            g_variant_unref (texts);
            g_variant_unref (values);
            g_ptr_array_add (t->columns, c);
        }
    }
    g_variant_iter_free (it);
    g_variant_unref (v);
    return t;
}

const WeftCollectedColumn *
weft_collected_column (const WeftCollected *t, const char *name)
{
    for (guint i = 0; i < t->columns->len; i++) {
        const WeftCollectedColumn *c = t->columns->pdata[i];
        if (strcmp (c->name, name) == 0)
            return c;
    }
    return NULL;
}
