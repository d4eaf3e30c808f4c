/* analysis/trace_reader_check.c - the trace reader's checks (analysis/trace_reader.h,
 * "Hostile files"): links, types, layouts, filters and stored bytes of data sets, the class
 * and data space of attributes, and the chunked read of rows that passed.
 *
 * libhdf5 converts, allocates and indexes by what a file declares, and a byte flipped in a
 * declared size or a member offset is enough to make it allocate gigabytes or write out of
 * bounds.  So nothing a file says is used before it is checked against the schema (the field
 * lists of sim/trace_schema.h, not a copy).  The checks cost a few header reads per data
 * set, next to the deflate of its chunks.
 */
#include "config.h"
#define G_LOG_DOMAIN "weft-reader"
#include "analysis/trace_reader_private.h"

#include <string.h>

/* Read a data set this many bytes at a time (whole chunks, at least one), converting
 * CONV_BYTES at a time. */
#define SLAB_BYTES (1024 * 1024)
#define CONV_BYTES (64 * 1024)

/* ---- names and text from the file --------------------------------------------------------- */

/* @s, which comes from the file, as one short printable line: control bytes, quotes and
 * bytes outside ASCII escaped, cut after 60 characters.  (transfer full) */
char *
weft_trace_reader_printable (const char *s)
{
    char *cut = g_strndup (s, 60);
    char *esc = g_strescape (cut, NULL);
    char *out = strlen (s) > 60 ? g_strconcat (esc, "...", NULL) : g_strdup (esc);
    g_free (esc);
    g_free (cut);
    return out;
}

/* ---- links -------------------------------------------------------------------------------- */

/* Whether @name (absolute: "/topology/nodes") names an object through hard links only, each
 * folder on the way a group: 1 yes, 0 it is missing, -1 not (*why says what it is instead).
 * Soft links may loop and external links open other files, which no trace has.  Each object's
 * header is checked in the file's bytes (trace_reader_raw.c) before HDF5 opens it. */
int
weft_trace_reader_hard_path (const WeftTraceFile *t, const char *name, H5I_type_t want, char **why)
{
    hid_t file = t->file;
    char **parts = g_strsplit (name + 1, "/", -1);
    GString *at = g_string_new (NULL);
    int found = 1;
    for (guint i = 0; found == 1 && parts[i] != NULL; i++) {
        gboolean last = parts[i + 1] == NULL;
        char *raw = NULL;
        /* the group the link is looked up in: its header first */
        char *parent = g_strdup (i == 0 ? "/" : at->str);
        gboolean parent_ok = weft_trace_reader_raw_group (t, parent, &raw);
        g_string_append_printf (at, "/%s", parts[i]);
        htri_t exists = parent_ok ? H5Lexists (file, at->str, H5P_DEFAULT) : -1;
        H5L_info_t link;
        if (!parent_ok) {
            *why = g_strdup_printf ("%s: %s", parent, raw);
            g_clear_pointer (&raw, g_free);
            found = -1;
        } else if (exists == 0)
            found = 0;
        else if (exists < 0 || H5Lget_info (file, at->str, &link, H5P_DEFAULT) < 0) {
            char *reason = weft_trace_hdf5_reason ();
            *why = g_strdup_printf ("%s: unreadable link (%s)", at->str, reason);
            g_free (reason);
            found = -1;
        } else if (link.type != H5L_TYPE_HARD) {
            *why = g_strdup_printf ("%s is a %s link, not an object of the trace", at->str,
                                    link.type == H5L_TYPE_SOFT       ? "soft"
                                    : link.type == H5L_TYPE_EXTERNAL ? "external"
                                                                     : "user-defined");
            found = -1;
        } else if (!weft_trace_reader_raw_dataset (t, at->str, &raw)) {
            *why = g_strdup_printf ("%s: %s", at->str, raw);
            g_free (raw);
            found = -1;
        } else {
            hid_t obj = H5Oopen (file, at->str, H5P_DEFAULT);
            H5I_type_t type = obj >= 0 ? H5Iget_type (obj) : H5I_BADID;
            H5I_type_t need = last ? want : H5I_GROUP;
            if (obj < 0) {
                char *reason = weft_trace_hdf5_reason ();
                *why = g_strdup_printf ("%s: unreadable object (%s)", at->str, reason);
                g_free (reason);
                found = -1;
            } else if (type != need) {
                *why = g_strdup_printf ("%s is %s, not a %s", at->str,
                                        type == H5I_GROUP     ? "a group"
                                        : type == H5I_DATASET ? "a data set"
                                                              : "a named data type",
                                        need == H5I_GROUP ? "group" : "data set");
                found = -1;
            }
            if (obj >= 0)
                H5Oclose (obj);
        }
        g_free (parent);
    }
    g_string_free (at, TRUE);
    g_strfreev (parts);
    H5Eclear2 (H5E_DEFAULT);
    return found;
}

/* ---- types ---------------------------------------------------------------------------------- */

/* Whether @t is a little-endian integer (as the schema stores them) of 1, 2, 4 or 8 bytes,
 * every bit used.  A stored type's precision and bit offset come from the file, and
 * conversion trusts them. */
gboolean
weft_trace_reader_plain_integer (hid_t t)
{
    size_t size = H5Tget_size (t);
    return H5Tget_class (t) == H5T_INTEGER && (size == 1 || size == 2 || size == 4 || size == 8) &&
           H5Tget_precision (t) == 8 * size && H5Tget_offset (t) == 0 &&
           H5Tget_order (t) == H5T_ORDER_LE;
}

/* Whether @t is a little-endian IEEE 754 single or double, bit for bit. */
gboolean
weft_trace_reader_plain_float (hid_t t)
{
    size_t size = H5Tget_size (t), spos, epos, esize, mpos, msize;
    if (H5Tget_class (t) != H5T_FLOAT || (size != 4 && size != 8) ||
        H5Tget_order (t) != H5T_ORDER_LE || H5Tget_precision (t) != 8 * size ||
        H5Tget_offset (t) != 0 || H5Tget_fields (t, &spos, &epos, &esize, &mpos, &msize) < 0 ||
        H5Tget_norm (t) != H5T_NORM_IMPLIED)
        return FALSE;
    if (size == 8)
        return spos == 63 && epos == 52 && esize == 11 && mpos == 0 && msize == 52 &&
               H5Tget_ebias (t) == 1023;
    return spos == 31 && epos == 23 && esize == 8 && mpos == 0 && msize == 23 &&
           H5Tget_ebias (t) == 127;
}

/* Whether @t is a fixed-length ASCII or UTF-8 string of @len bytes. */
static gboolean
plain_string (hid_t t, size_t len)
{
    H5T_cset_t cset = H5Tget_cset (t);
    return H5Tget_class (t) == H5T_STRING && H5Tis_variable_str (t) == 0 &&
           H5Tget_size (t) == len && (cset == H5T_CSET_ASCII || cset == H5T_CSET_UTF8);
}

/* What @kind is stored as, for messages. */
static const char *
kind_text (WeftTraceFieldKind kind)
{
    switch (kind) {
    case WEFT_TRACE_FIELD_U8:
        return "an 8-bit unsigned integer";
    case WEFT_TRACE_FIELD_U32:
        return "a 32-bit unsigned integer";
    case WEFT_TRACE_FIELD_I32:
        return "a 32-bit signed integer";
    case WEFT_TRACE_FIELD_U64:
        return "a 64-bit unsigned integer";
    case WEFT_TRACE_FIELD_F64:
        return "a 64-bit IEEE float";
    case WEFT_TRACE_FIELD_NAME:
    case WEFT_TRACE_FIELD_KIND:
    case WEFT_TRACE_FIELD_SHORT:
        return "a fixed-length string";
    }
    return "?";
}

/* Whether the stored member type @t is what the schema says @f is, in a file of schema
 * @version (the /collectives strings were 8 bytes before schema 4). */
static gboolean
member_matches (hid_t t, const WeftTraceField *f, guint version)
{
    gboolean sign = H5Tget_class (t) == H5T_INTEGER && H5Tget_sign (t) == H5T_SGN_2;
    switch (f->kind) {
    case WEFT_TRACE_FIELD_U8:
        return weft_trace_reader_plain_integer (t) && H5Tget_size (t) == 1 && !sign;
    case WEFT_TRACE_FIELD_U32:
        return weft_trace_reader_plain_integer (t) && H5Tget_size (t) == 4 && !sign;
    case WEFT_TRACE_FIELD_I32:
        return weft_trace_reader_plain_integer (t) && H5Tget_size (t) == 4 && sign;
    case WEFT_TRACE_FIELD_U64:
        return weft_trace_reader_plain_integer (t) && H5Tget_size (t) == 8 && !sign;
    case WEFT_TRACE_FIELD_F64:
        return weft_trace_reader_plain_float (t) && H5Tget_size (t) == 8;
    case WEFT_TRACE_FIELD_NAME:
        return plain_string (t, WEFT_TRACE_NAME_LEN);
    case WEFT_TRACE_FIELD_KIND:
        return plain_string (t, WEFT_TRACE_KIND_LEN);
    case WEFT_TRACE_FIELD_SHORT:
        return plain_string (t, WEFT_TRACE_SHORT_LEN) || (version < 4 && plain_string (t, 8));
    }
    return FALSE;
}

guint
weft_trace_reader_field_since (const WeftTraceRecord *rec, const WeftTraceField *f)
{
    static const char mark[] = "*(schema ";
    guint64 v = 0;
    if (g_str_has_prefix (f->doc, mark))
        v = g_ascii_strtoull (f->doc + strlen (mark), NULL, 10);
    return v > rec->since ? (guint) v : rec->since;
}

/* How many of @rec's fields a file of schema @version has: the ones that schema had. */
static guint
fields_in_version (const WeftTraceRecord *rec, guint version)
{
    guint n = 0;
    while (n < rec->n_fields && weft_trace_reader_field_since (rec, &rec->fields[n]) <= version)
        n++;
    return n;
}

/* Why the stored type @type of @rec's data set is not the schema's, or NULL.  Its members
 * must be the record's fields in order, at least those its schema @version had (a later
 * schema only ever appends), each of the field's class and size, inside the row without
 * overlapping; the row is at most WEFT_TRACE_READER_MAX_ROW_BYTES.  *row_bytes: the stored
 * row size. */
static char *
check_type (hid_t type, const WeftTraceRecord *rec, guint version, size_t *row_bytes)
{
    if (H5Tget_class (type) != H5T_COMPOUND)
        return g_strdup ("its rows are not compound records");
    size_t size = H5Tget_size (type);
    int n = H5Tget_nmembers (type);
    if (size == 0 || size > WEFT_TRACE_READER_MAX_ROW_BYTES)
        return g_strdup_printf ("its rows declare %zu bytes each", size);
    guint need = fields_in_version (rec, version);
    if (n < 1 || (guint) n < need || (guint) n > rec->n_fields)
        return g_strdup_printf ("its rows have %d members, where schema %u has %u", n, version,
                                need);
    char *why = NULL;
    size_t end = 0; /* of the previous member */
    for (int i = 0; why == NULL && i < n; i++) {
        const WeftTraceField *f = &rec->fields[i];
        char *name = H5Tget_member_name (type, (unsigned) i);
        hid_t mt = H5Tget_member_type (type, (unsigned) i);
        size_t off = H5Tget_member_offset (type, (unsigned) i);
        size_t msize = mt >= 0 ? H5Tget_size (mt) : 0;
        if (name == NULL || mt < 0)
            why = g_strdup_printf ("member %d is unreadable", i);
        else if (strcmp (name, f->name) != 0) {
            char *shown = weft_trace_reader_printable (name);
            why = g_strdup_printf ("member %d is \"%s\", where the schema has \"%s\"", i, shown,
                                   f->name);
            g_free (shown);
        } else if (!member_matches (mt, f, version))
            why = g_strdup_printf ("member %s is not %s of %s", f->name, kind_text (f->kind),
                                   f->kind >= WEFT_TRACE_FIELD_NAME ? "the schema's length"
                                                                    : "the schema's sign");
        else if (off < end || msize > size || off > size - msize)
            why = g_strdup_printf ("member %s lies at bytes %zu-%zu of a %zu-byte row", f->name,
                                   off, off + msize, size);
        end = off + msize;
        if (name != NULL)
            H5free_memory (name);
        if (mt >= 0)
            H5Tclose (mt);
    }
    *row_bytes = size;
    return why;
}

/* ---- data sets ----------------------------------------------------------------------------- */

/* Whether @x / @y rounded up is at most @n. */
static gboolean
ceil_div_le (hsize_t x, hsize_t y, hsize_t n)
{
    return x / y + (x % y != 0) <= n;
}

/* Why the layout, filters and storage of @dset (@rows of @row_bytes) are not a trace's, or
 * NULL; *slab_rows: how many rows to read at a time. */
char *
weft_trace_reader_check_storage (const WeftTraceFile *t, hid_t dset, hsize_t rows, size_t row_bytes,
                                 hsize_t *slab_rows)
{
    hid_t dcpl = H5Dget_create_plist (dset);
    if (dcpl < 0)
        return g_strdup ("its creation properties are unreadable");
    char *why = NULL;
    H5D_layout_t layout = H5Pget_layout (dcpl);
    int nfilters = H5Pget_nfilters (dcpl);
    gboolean deflate = FALSE;
    hsize_t chunk = 0;
    if (layout != H5D_CONTIGUOUS && layout != H5D_CHUNKED && layout != H5D_COMPACT)
        why = g_strdup ("its layout is not one HDF5 stores in the file itself");
    else if (H5Pget_external_count (dcpl) != 0)
        why = g_strdup ("its rows are stored in other files");
    else if (nfilters < 0 || nfilters > 8)
        why = g_strdup ("its filter pipeline is unreadable");
    for (int i = 0; why == NULL && i < nfilters; i++) {
        unsigned flags = 0, cd[8];
        size_t ncd = G_N_ELEMENTS (cd);
        H5Z_filter_t id = H5Pget_filter2 (dcpl, (unsigned) i, &flags, &ncd, cd, 0, NULL, NULL);
        if (id == H5Z_FILTER_DEFLATE)
            deflate = TRUE;
        else if (id != H5Z_FILTER_SHUFFLE && id != H5Z_FILTER_FLETCHER32)
            why = g_strdup_printf ("it is stored through filter %d, which weft does not use", id);
    }
    if (why == NULL && layout == H5D_CHUNKED) {
        hsize_t dims[H5S_MAX_RANK];
        int rank = H5Pget_chunk (dcpl, H5S_MAX_RANK, dims);
        chunk = dims[0];
        if (rank != 1 || chunk == 0)
            why = g_strdup ("its chunks are not runs of rows");
        else if (chunk > WEFT_TRACE_READER_MAX_CHUNK_BYTES / row_bytes)
            why = g_strdup_printf ("its chunks declare %" G_GUINT64_FORMAT
                                   " rows each, over the reader's %d MiB a chunk",
                                   (guint64) chunk, WEFT_TRACE_READER_MAX_CHUNK_BYTES >> 20);
    } else if (why == NULL && nfilters > 0)
        why = g_strdup ("it declares filters without chunks");
    H5Pclose (dcpl);
    if (why != NULL)
        return why;

    /* What the file stores for the data set bounds the rows it can hold: deflate inflates at
     * most WEFT_TRACE_READER_DEFLATE_RATIO-fold, the other layouts and filters not at all; and
     * every chunk of the rows must be stored (weft writes them all). */
    hsize_t stored = H5Dget_storage_size (dset);
    guint64 ratio = deflate ? WEFT_TRACE_READER_DEFLATE_RATIO : 1;
    hsize_t nchunks = 0;
    if (stored > t->file_bytes)
        return g_strdup_printf ("it claims %" G_GUINT64_FORMAT
                                " stored bytes in a file of %" G_GUINT64_FORMAT,
                                (guint64) stored, t->file_bytes);
    if (rows > G_MAXUINT || (guint64) rows * row_bytes > (guint64) stored * ratio)
        return g_strdup_printf ("it declares %" G_GUINT64_FORMAT
                                " rows, more than the %" G_GUINT64_FORMAT
                                " bytes it stores can hold",
                                (guint64) rows, (guint64) stored);
    hid_t space = layout == H5D_CHUNKED && rows > 0 ? H5Dget_space (dset) : H5I_INVALID_HID;
    gboolean counted = space >= 0 && H5Dget_num_chunks (dset, space, &nchunks) >= 0;
    if (space >= 0)
        H5Sclose (space);
    if (layout == H5D_CHUNKED && rows > 0 && (!counted || !ceil_div_le (rows, chunk, nchunks)))
        return g_strdup_printf ("it declares %" G_GUINT64_FORMAT
                                " rows, but only %" G_GUINT64_FORMAT " chunks of %" G_GUINT64_FORMAT
                                " are stored",
                                (guint64) rows, (guint64) nchunks, (guint64) chunk);
    if (layout == H5D_CHUNKED)
        *slab_rows = chunk * MAX (1, SLAB_BYTES / (chunk * row_bytes));
    else
        *slab_rows = MAX (1, SLAB_BYTES / row_bytes);
    return NULL;
}

/* Opens @rec's data set into @tab after every check; otherwise *why (transfer full), and
 * *missing when the data set is simply not there. */
gboolean
weft_trace_reader_table_open (const WeftTraceFile *t, const WeftTraceRecord *rec, guint version,
                              WeftTraceTable *tab, char **why, gboolean *missing)
{
    tab->dset = H5I_INVALID_HID;
    tab->rows = 0;
    *missing = FALSE;
    char *link_why = NULL;
    int found = weft_trace_reader_hard_path (t, rec->dataset, H5I_DATASET, &link_why);
    if (found <= 0) {
        *missing = found == 0;
        *why = found == 0 ? g_strdup ("it is missing") : link_why;
        return FALSE;
    }
    tab->dset = H5Dopen2 (t->file, rec->dataset, H5P_DEFAULT);
    if (tab->dset < 0) {
        char *reason = weft_trace_hdf5_reason ();
        *why = g_strdup_printf ("unreadable (%s)", reason);
        g_free (reason);
        return FALSE;
    }
    size_t row_bytes = 0;
    hid_t type = H5Dget_type (tab->dset);
    tab->row_bytes = 0;
    hid_t space = H5Dget_space (tab->dset);
    hsize_t dims[H5S_MAX_RANK];
    *why = type < 0 ? g_strdup ("its type is unreadable")
                    : check_type (type, rec, version, &row_bytes);
    if (*why == NULL && (space < 0 || H5Sget_simple_extent_type (space) != H5S_SIMPLE ||
                         H5Sget_simple_extent_ndims (space) != 1 ||
                         H5Sget_simple_extent_dims (space, dims, NULL) != 1))
        *why = g_strdup ("it is not a one-dimensional list of rows");
    if (*why == NULL) {
        tab->rows = dims[0];
        tab->row_bytes = row_bytes;
        *why =
            weft_trace_reader_check_storage (t, tab->dset, tab->rows, row_bytes, &tab->slab_rows);
    }
    if (type >= 0)
        H5Tclose (type);
    if (space >= 0)
        H5Sclose (space);
    if (*why != NULL) {
        H5Dclose (tab->dset);
        tab->dset = H5I_INVALID_HID;
    }
    H5Eclear2 (H5E_DEFAULT);
    return *why == NULL;
}

/* Every row of an opened table, @slab_rows at a time, into a zeroed GArray of @rec's struct;
 * NULL with *why if memory runs short or HDF5 fails. */
GArray *
weft_trace_reader_table_read (WeftTraceTable *tab, const WeftTraceRecord *rec, char **why)
{
    /* The rows were bounded by what the file stores; whether this process may hold them is
     * asked before GArray's allocator, which aborts, is. */
    gsize bytes = (gsize) tab->rows * rec->row_size;
    gpointer probe = bytes > 0 ? g_try_malloc (bytes) : NULL;
    if (bytes > 0 && probe == NULL) {
        *why = g_strdup_printf ("its %" G_GUINT64_FORMAT " rows need %" G_GSIZE_FORMAT
                                " MiB, more memory than this process may use",
                                (guint64) tab->rows, bytes >> 20);
        return NULL;
    }
    g_free (probe);
    /* zeroed (clear_ = TRUE): HDF5 leaves members absent from the file untouched */
    GArray *rows = g_array_sized_new (FALSE, TRUE, rec->row_size, (guint) tab->rows);
    g_array_set_size (rows, (guint) tab->rows);
    hid_t mtype = weft_trace_type_record (rec);
    hid_t fspace = H5Dget_space (tab->dset);
    /* HDF5's conversion buffers, allocated once and small (HDF5 converts a slab in strips
     * that fit): by default each H5Dread allocates and zeroes 1 MiB of its own, which costs
     * more than the conversion itself */
    gsize conv_bytes = MAX (CONV_BYTES, MAX (rec->row_size, tab->row_bytes));
    void *tconv = g_try_malloc (conv_bytes), *bkg = g_try_malloc (conv_bytes);
    hid_t dxpl = H5Pcreate (H5P_DATASET_XFER);
    gboolean ok = mtype >= 0 && fspace >= 0 && dxpl >= 0 && tconv != NULL && bkg != NULL &&
                  H5Pset_buffer (dxpl, conv_bytes, tconv, bkg) >= 0;
    for (hsize_t start = 0; ok && start < tab->rows; start += tab->slab_rows) {
        hsize_t count = MIN (tab->slab_rows, tab->rows - start);
        hid_t mspace = H5Screate_simple (1, &count, NULL);
        ok = mspace >= 0 &&
             H5Sselect_hyperslab (fspace, H5S_SELECT_SET, &start, NULL, &count, NULL) >= 0 &&
             H5Dread (tab->dset, mtype, mspace, fspace, dxpl, rows->data + start * rec->row_size) >=
                 0;
        if (mspace >= 0)
            H5Sclose (mspace);
    }
    if (dxpl >= 0)
        H5Pclose (dxpl);
    g_free (tconv);
    g_free (bkg);
    if (!ok) {
        char *reason = weft_trace_hdf5_reason ();
        *why = g_strdup_printf ("unreadable (%s)", reason);
        g_free (reason);
        g_array_free (rows, TRUE);
        rows = NULL;
    }
    if (fspace >= 0)
        H5Sclose (fspace);
    if (mtype >= 0)
        H5Tclose (mtype);
    H5Eclear2 (H5E_DEFAULT);
    return rows;
}

void
weft_trace_reader_table_close (WeftTraceTable *tab)
{
    if (tab->dset >= 0)
        H5Dclose (tab->dset);
    tab->dset = H5I_INVALID_HID;
}

/* ---- /meta attributes ------------------------------------------------------------------- */

/* Opens /meta's attribute @name when it holds one value: WEFT_TRACE_ATTR_ABSENT if there is none,
 * WEFT_TRACE_ATTR_BAD (with *why) if it is unreadable, or holds no value or several (reading an
 * array into one variable writes past it). */
static WeftTraceAttr
attr_open (hid_t meta, const char *name, hid_t *attr, hid_t *ftype, char **why)
{
    *attr = *ftype = H5I_INVALID_HID;
    htri_t exists = H5Aexists (meta, name);
    if (exists == 0)
        return WEFT_TRACE_ATTR_ABSENT;
    *attr = exists > 0 ? H5Aopen (meta, name, H5P_DEFAULT) : H5I_INVALID_HID;
    hid_t space = *attr >= 0 ? H5Aget_space (*attr) : H5I_INVALID_HID;
    *ftype = *attr >= 0 ? H5Aget_type (*attr) : H5I_INVALID_HID;
    if (space < 0 || *ftype < 0) {
        char *reason = weft_trace_hdf5_reason ();
        *why = g_strdup_printf ("/meta %s is unreadable (%s)", name, reason);
        g_free (reason);
    } else {
        H5S_class_t cls = H5Sget_simple_extent_type (space);
        hssize_t n = H5Sget_simple_extent_npoints (space);
        if (cls != H5S_SCALAR && !(cls == H5S_SIMPLE && n == 1))
            *why = g_strdup_printf ("/meta %s holds %" G_GINT64_FORMAT " values, not one", name,
                                    cls == H5S_SIMPLE ? (gint64) n : 0);
    }
    if (space >= 0)
        H5Sclose (space);
    return *why == NULL ? WEFT_TRACE_ATTR_READ : WEFT_TRACE_ATTR_BAD;
}

static void
attr_close (hid_t attr, hid_t ftype)
{
    if (ftype >= 0)
        H5Tclose (ftype);
    if (attr >= 0)
        H5Aclose (attr);
    H5Eclear2 (H5E_DEFAULT);
}

/* A numeric attribute of /meta, an integer (@integer) or a float, converted to @mtype. */
WeftTraceAttr
weft_trace_reader_attr_number (hid_t meta, const char *name, gboolean integer, hid_t mtype,
                               void *out, char **why)
{
    hid_t attr, ftype;
    WeftTraceAttr r = attr_open (meta, name, &attr, &ftype, why);
    if (r == WEFT_TRACE_ATTR_READ && !(integer ? weft_trace_reader_plain_integer (ftype)
                                               : weft_trace_reader_plain_float (ftype))) {
        *why = g_strdup_printf ("/meta %s is not %s", name, integer ? "an integer" : "a float");
        r = WEFT_TRACE_ATTR_BAD;
    } else if (r == WEFT_TRACE_ATTR_READ && H5Aread (attr, mtype, out) < 0) {
        char *reason = weft_trace_hdf5_reason ();
        *why = g_strdup_printf ("/meta %s is unreadable (%s)", name, reason);
        g_free (reason);
        r = WEFT_TRACE_ATTR_BAD;
    }
    attr_close (attr, ftype);
    return r;
}

/* A string attribute of /meta, variable-length or fixed-length (of at most
 * WEFT_TRACE_READER_MAX_ATTR_BYTES and the file's size). */
WeftTraceAttr
weft_trace_reader_attr_string (const WeftTraceFile *t, hid_t meta, const char *name, char **out,
                               char **why)
{
    hid_t attr, ftype;
    WeftTraceAttr r = attr_open (meta, name, &attr, &ftype, why);
    *out = NULL;
    if (r != WEFT_TRACE_ATTR_READ) {
        attr_close (attr, ftype);
        return r;
    }
    H5T_cset_t cset = H5Tget_cset (ftype);
    size_t size = H5Tget_size (ftype);
    if (H5Tget_class (ftype) != H5T_STRING || (cset != H5T_CSET_ASCII && cset != H5T_CSET_UTF8))
        *why = g_strdup_printf ("/meta %s is not a string", name);
    else if (H5Tis_variable_str (ftype) > 0) {
        hid_t mtype = H5Tcopy (H5T_C_S1);
        char *vl = NULL;
        H5Tset_size (mtype, H5T_VARIABLE);
        H5Tset_cset (mtype, cset);
        if (H5Aread (attr, mtype, &vl) >= 0)
            *out = g_strdup (vl != NULL ? vl : "");
        if (vl != NULL)
            H5free_memory (vl);
        H5Tclose (mtype);
    } else if (size == 0 || size > WEFT_TRACE_READER_MAX_ATTR_BYTES || size > t->file_bytes)
        *why = g_strdup_printf (
            "/meta %s declares a %zu-byte string in a file of %" G_GUINT64_FORMAT " bytes", name,
            size, t->file_bytes);
    else {
        hid_t mtype = H5Tcopy (H5T_C_S1);
        char *buf = g_try_malloc0 (size + 1);
        H5Tset_size (mtype, size);
        H5Tset_cset (mtype, cset);
        if (buf != NULL && H5Aread (attr, mtype, buf) >= 0)
            *out = g_strdup (buf); /* stops at the first NUL of NUL-padded text */
        g_free (buf);
        H5Tclose (mtype);
    }
    if (*why == NULL && *out == NULL) {
        char *reason = weft_trace_hdf5_reason ();
        *why = g_strdup_printf ("/meta %s is unreadable (%s)", name, reason);
        g_free (reason);
    }
    attr_close (attr, ftype);
    return *why == NULL ? WEFT_TRACE_ATTR_READ : WEFT_TRACE_ATTR_BAD;
}
