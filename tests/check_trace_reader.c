/* tests/check_trace_reader.c - analysis/trace_reader.c on damaged and hostile traces.
 *
 * Each test writes a good trace with sim/trace.c (every data set with rows, /flows over two
 * chunks), damages one thing in it through HDF5 or its bytes, and checks the reader:
 * weft_trace_reader_open() reports the trace damaged (complete = FALSE, damaged = TRUE, a
 * one-line reason naming what) or not a trace (WEFT_TRACE_ERROR_READ), and the row reader of
 * a damaged data set fails with WEFT_TRACE_ERROR_READ - never a crash, and never an
 * allocation the size of what the file declares (a test that allocated it would abort).
 * Invariants: a /meta attribute stored as an array is refused, not read into one variable;
 * /meta's attribute messages and the global heap objects of its strings are checked in the
 * file's bytes before libhdf5 decodes them;
 * a data set declaring more rows than its stored bytes or chunks hold is refused; a data type
 * whose members do not match sim/trace_schema.h (name, order, class, sign, size, offsets) is
 * refused before HDF5 converts with it; every data set and /meta attribute the schema always
 * writes is required, and a /flows emptied of rows while /ports counts packets is damaged;
 * links other than hard links, external storage and foreign filters are refused; layouts HDF5
 * keeps in the file itself (contiguous, compact, Fletcher-32) still read, as complete; the
 * schema's field docs mark added fields in an order the reader's prefix rule can rely on; the
 * reading runs in a child process, whose death is an error (the test makes it raise a
 * signal), and a chunked layout with a zero dimension is refused before H5Dopen.
 * Unchecked here: the address-space bound as a whole (tests/e2e/damaged_traces.sh runs the
 * readers under RLIMIT_AS), and arbitrary byte damage (the fuzz corpus, tests/check_fuzz).
 */
#include "config.h"

#include <check.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>

#include "analysis/trace_reader.h"
#include "sim/trace.h"
#include "sim/trace_types.h"
#include "tests/harness.h"

#define N_FLOWS 5000 /* one full 4096-row chunk and part of another */
#define N_PORTS 6

static char *
tmp_path (const char *name)
{
    return g_build_filename (harness_tmp, name, NULL);
}

static const WeftTraceMeta good_meta = {
    .weft_version = "0.1.0-test",
    .git_revision = "abc123",
    .experiment_text = "[experiment]\nname = t\nseed = 42\n",
    .experiment_path = "experiments/t.ini",
    .seed = 42,
};

/* A complete trace at @path: rows in every data set. */
static void
write_good (const char *path)
{
    GError *error = NULL;
    WeftTrace *t = weft_trace_create (path, &good_meta, &error);
    ck_assert_msg (t != NULL, "%s", error ? error->message : "?");
    WeftTraceNode nodes[4] = { { 0 } };
    WeftTraceLink links[3] = { { 0 } };
    WeftTracePort ports[N_PORTS] = { { 0 } };
    for (guint i = 0; i < 4; i++) {
        nodes[i].id = i;
        g_snprintf (nodes[i].name, sizeof nodes[i].name, "node%u", i);
    }
    for (guint i = 0; i < 3; i++)
        links[i].id = i;
    for (guint i = 0; i < N_PORTS; i++) {
        ports[i].node = i / 2;
        ports[i].tx_packets = 10 + i;
    }
    weft_trace_write_nodes (t, nodes, 4);
    weft_trace_write_links (t, links, 3);
    weft_trace_write_ports (t, ports, N_PORTS);
    for (guint i = 0; i < N_FLOWS; i++) {
        WeftTraceFlow f = { .id = i, .size_bytes = 1000 + i, .finished = 1 };
        weft_trace_append_flow (t, &f);
    }
    for (guint i = 0; i < 10; i++) {
        WeftTraceLinkSample s = { .time_ps = i };
        WeftTraceCollective c = { .id = i, .n_ranks = 4 };
        WeftTracePathHop h = { .flow = i };
        WeftTracePfcSample p = { .time_ps = i };
        WeftTraceDcqcnSample d = { .time_ps = i };
        WeftTraceBufferSample b = { .time_ps = i };
        weft_trace_append_link_sample (t, &s);
        weft_trace_append_collective (t, &c);
        weft_trace_append_path_hop (t, &h);
        weft_trace_append_pfc_sample (t, &p);
        weft_trace_append_dcqcn_sample (t, &d);
        weft_trace_append_buffer_sample (t, &b);
    }
    WeftTraceEnd end = { .status = WEFT_TRACE_STATUS_DONE, .sim_time_ps = 1000, .events = 5 };
    ck_assert_msg (weft_trace_close (t, &end, &error), "%s", error ? error->message : "?");
}

/* A good trace, reopened read-write for damage. */
static hid_t
good_for_damage (const char *path)
{
    write_good (path);
    hid_t file = H5Fopen (path, H5F_ACC_RDWR, H5P_DEFAULT);
    ck_assert_int_ge (file, 0);
    return file;
}

/* Replaces /meta's attribute @name by @n values (a scalar when @n is 0) of @type. */
static void
put_attr (hid_t file, const char *name, hid_t type, const void *values, hsize_t n)
{
    hid_t meta = H5Gopen2 (file, "/meta", H5P_DEFAULT);
    if (H5Aexists (meta, name) > 0)
        ck_assert_int_ge (H5Adelete (meta, name), 0);
    hid_t space = n == 0 ? H5Screate (H5S_SCALAR) : H5Screate_simple (1, &n, NULL);
    hid_t attr = H5Acreate2 (meta, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    ck_assert_msg (H5Awrite (attr, type, values) >= 0, "%s", weft_trace_hdf5_reason ());
    H5Aclose (attr);
    H5Sclose (space);
    H5Gclose (meta);
}

/* @path's bytes with the 4-byte field @at bytes into the first @mark (of @len bytes) set to
 * @value. */
static void
patch_at (const char *path, const char *mark, gsize len, gsize at_offset, guint32 value)
{
    char *bytes = NULL;
    gsize size = 0;
    ck_assert (g_file_get_contents (path, &bytes, &size, NULL));
    char *at = NULL;
    for (gsize i = 0; at == NULL && i + MAX (len, at_offset + 4) <= size; i++)
        if (memcmp (bytes + i, mark, len) == 0)
            at = bytes + i;
    ck_assert_msg (at != NULL, "no such bytes in %s", path);
    guint32 le = GUINT32_TO_LE (value);
    memcpy (at + at_offset, &le, sizeof le);
    ck_assert (g_file_set_contents (path, bytes, (gssize) size, NULL));
    g_free (bytes);
}

/* The trace at @path is damaged, for a reason that contains each of @words (NULL-ended). */
static void
assert_damaged (const char *path, const char *const *words)
{
    GError *error = NULL;
    WeftTraceInfo *info = weft_trace_reader_open (path, &error);
    ck_assert_msg (info != NULL, "%s", error ? error->message : "?");
    ck_assert (info->readable);
    ck_assert_msg (!info->complete, "%s reads as complete", path);
    ck_assert (info->damaged);
    ck_assert_ptr_nonnull (info->reason);
    ck_assert_ptr_null (strchr (info->reason, '\n'));
    for (guint i = 0; words[i] != NULL; i++)
        ck_assert_msg (strstr (info->reason, words[i]) != NULL, "reason \"%s\" lacks \"%s\"",
                       info->reason, words[i]);
    weft_trace_info_free (info);
}

/* A row reader fails on @path, with @word in its one-line message. */
static void
assert_refused (GArray *(*read) (const char *, GError **), const char *path, const char *word)
{
    GError *error = NULL;
    GArray *rows = read (path, &error);
    ck_assert_msg (rows == NULL, "%s read %u rows", path, rows ? rows->len : 0);
    ck_assert (g_error_matches (error, WEFT_TRACE_ERROR, WEFT_TRACE_ERROR_READ));
    ck_assert_ptr_null (strchr (error->message, '\n'));
    ck_assert_msg (strstr (error->message, word) != NULL, "\"%s\" lacks \"%s\"", error->message,
                   word);
    g_error_free (error);
}

START_TEST (test_trace_reader_good_trace_is_complete)
{
    char *path = tmp_path ("good.h5");
    GError *error = NULL;
    write_good (path);
    WeftTraceInfo *info = weft_trace_reader_open (path, &error);
    ck_assert_msg (info != NULL, "%s", error ? error->message : "?");
    ck_assert_msg (info->complete, "%s", info->reason);
    ck_assert (!info->damaged);
    ck_assert_int_eq (info->n_flows, N_FLOWS);
    weft_trace_info_free (info);
    GArray *flows = weft_trace_reader_flows (path, &error);
    ck_assert_msg (flows != NULL, "%s", error ? error->message : "?");
    ck_assert_uint_eq (flows->len, N_FLOWS);
    ck_assert_uint_eq (g_array_index (flows, WeftTraceFlow, 4999).size_bytes, 5999);
    g_array_free (flows, TRUE);
    g_free (path);
}
END_TEST

/* Issue defect 1: an attribute stored as an array was read into one variable on the stack. */
START_TEST (test_trace_reader_meta_array_attributes)
{
    /* complete first: the old reader read it into a guint8 on its stack */
    static const char *const numbers[] = { "complete", "seed", "sim_time_ps", "events" };
    static const char *const strings[] = { "status", "experiment", "message" };
    char *path = tmp_path ("array.h5");
    guint64 four[4] = { 1, 2, 3, 4 };
    for (guint i = 0; i < G_N_ELEMENTS (numbers); i++) {
        hid_t file = good_for_damage (path);
        put_attr (file, numbers[i], H5T_NATIVE_UINT64, four, 4);
        H5Fclose (file);
        const char *words[] = { numbers[i], "4 values", NULL };
        assert_damaged (path, words);
    }
    double twice[2] = { 1.5, 2.5 };
    hid_t file = good_for_damage (path);
    put_attr (file, "wall_time_s", H5T_NATIVE_DOUBLE, twice, 2);
    H5Fclose (file);
    const char *wall[] = { "wall_time_s", "2 values", NULL };
    assert_damaged (path, wall);
    /* variable-length strings: each element is a pointer HDF5 fills in */
    hid_t vl = H5Tcopy (H5T_C_S1);
    H5Tset_size (vl, H5T_VARIABLE);
    const char *texts[5] = { "done", "done", "done", "done", "done" };
    for (guint i = 0; i < G_N_ELEMENTS (strings); i++) {
        file = good_for_damage (path);
        put_attr (file, strings[i], vl, texts, 5);
        H5Fclose (file);
        const char *words[] = { strings[i], "5 values", NULL };
        assert_damaged (path, words);
    }
    H5Tclose (vl);
    /* schema_version itself: not a trace */
    file = good_for_damage (path);
    put_attr (file, "schema_version", H5T_NATIVE_UINT64, four, 4);
    H5Fclose (file);
    GError *error = NULL;
    ck_assert_ptr_null (weft_trace_reader_open (path, &error));
    ck_assert (g_error_matches (error, WEFT_TRACE_ERROR, WEFT_TRACE_ERROR_READ));
    ck_assert_ptr_nonnull (strstr (error->message, "schema_version"));
    g_clear_error (&error);
    g_free (path);
}
END_TEST

/* Attributes of the wrong class, and every /meta attribute the writer writes is required. */
START_TEST (test_trace_reader_meta_attribute_kinds)
{
    char *path = tmp_path ("kinds.h5");
    double d = 4.0;
    hid_t file = good_for_damage (path);
    put_attr (file, "seed", H5T_NATIVE_DOUBLE, &d, 0);
    H5Fclose (file);
    const char *seed[] = { "seed", "not an integer", NULL };
    assert_damaged (path, seed);

    guint32 n = 3;
    file = good_for_damage (path);
    put_attr (file, "status", H5T_NATIVE_UINT32, &n, 0);
    H5Fclose (file);
    const char *status[] = { "status", "not a string", NULL };
    assert_damaged (path, status);

    /* a fixed-length string whose type, patched, declares 2 GiB: in the file, a version-1
     * string type is 0x13, its padding (NULLPAD: 1) and character set in 3 bytes, then its
     * size in 4 */
    hid_t fixed = weft_trace_type_string (11);
    file = good_for_damage (path);
    put_attr (file, "status", fixed, "HUGE_STATUS", 0);
    H5Fclose (file);
    H5Tclose (fixed);
    patch_at (path, "\x13\x01\x00\x00\x0b\x00\x00\x00", 8, 4, 0x7fffffff);
    /* libhdf5 would copy 2 GiB out of the attribute's message when /meta is first looked at:
     * its bytes are checked before that (analysis/trace_reader_raw.c), so /meta is unread */
    GError *error = NULL;
    WeftTraceInfo *info = weft_trace_reader_open (path, &error);
    ck_assert_msg (info != NULL, "%s", error ? error->message : "?");
    ck_assert (info->damaged && !info->readable && !info->complete);
    ck_assert_ptr_nonnull (strstr (info->reason, "/meta is damaged: attribute status"));
    weft_trace_info_free (info);

    static const char *const required[] = { "seed",       "events",      "wall_time_s",
                                            "experiment", "gsl_version", "message" };
    for (guint i = 0; i < G_N_ELEMENTS (required); i++) {
        file = good_for_damage (path);
        hid_t meta = H5Gopen2 (file, "/meta", H5P_DEFAULT);
        ck_assert_int_ge (H5Adelete (meta, required[i]), 0);
        H5Gclose (meta);
        H5Fclose (file);
        const char *words[] = { required[i], "missing", NULL };
        assert_damaged (path, words);
    }
    g_free (path);
}
END_TEST

/* Found by fuzzing: /meta's strings are variable-length, kept in a global heap collection,
 * and libhdf5 1.10 copies a string by the size its heap object declares into a buffer of the
 * length its attribute declares (a heap overflow in H5HG_read when they differ).  In the
 * file, the object of the status "done" is its 16-bit index, reference count, 4 reserved
 * bytes and its 8-byte size (4), then the 4 characters. */
START_TEST (test_trace_reader_meta_heap_damaged)
{
    static const char object[] = "\x04\0\0\0\0\0\0\0done";
    static const guint32 sizes[] = { 0x7fffffff, 5, 3, 0 };
    char *path = tmp_path ("heap.h5");
    for (guint i = 0; i < G_N_ELEMENTS (sizes); i++) {
        write_good (path);
        patch_at (path, object, 12, 0, sizes[i]);
        GError *error = NULL;
        WeftTraceInfo *info = weft_trace_reader_open (path, &error);
        ck_assert_msg (info != NULL, "%s", error ? error->message : "?");
        ck_assert (info->damaged && !info->readable && !info->complete);
        /* the first string found in the damaged collection is named: status, or an earlier one
         * if the walk through the collection breaks before */
        ck_assert_msg (strstr (info->reason, "/meta is damaged: attribute ") != NULL &&
                           strstr (info->reason, "global heap") != NULL,
                       "%s", info->reason);
        weft_trace_info_free (info);
        /* the data sets do not depend on /meta's strings: they still read */
        GArray *flows = weft_trace_reader_flows (path, &error);
        ck_assert_msg (flows != NULL, "%s", error ? error->message : "?");
        ck_assert_uint_eq (flows->len, N_FLOWS);
        g_array_free (flows, TRUE);
    }
    g_free (path);
}
END_TEST

/* A status with a newline and an escape sequence: the reason stays one printable line. */
START_TEST (test_trace_reader_reason_is_one_printable_line)
{
    char *path = tmp_path ("status.h5");
    hid_t vl = H5Tcopy (H5T_C_S1);
    H5Tset_size (vl, H5T_VARIABLE);
    const char *status = "done\n\033[2Jgone";
    hid_t file = good_for_damage (path);
    put_attr (file, "status", vl, &status, 0);
    H5Fclose (file);
    H5Tclose (vl);
    GError *error = NULL;
    WeftTraceInfo *info = weft_trace_reader_open (path, &error);
    ck_assert_msg (info != NULL, "%s", error ? error->message : "?");
    ck_assert (!info->complete);
    ck_assert_ptr_null (strchr (info->reason, '\n'));
    ck_assert_ptr_null (strchr (info->reason, '\033'));
    ck_assert_ptr_nonnull (strstr (info->reason, "unknown status"));
    weft_trace_info_free (info);
    g_free (path);
}
END_TEST

/* Issue defect 2: rows declared beyond what the file stores.  The old reader allocated them
 * (10^9 rows of /flows: 176 GB) and aborted. */
START_TEST (test_trace_reader_huge_declared_rows)
{
    static const struct {
        const char *dataset;
        hsize_t rows;
        GArray *(*read) (const char *, GError **);
    } cases[] = {
        { "/flows", 1000000000, weft_trace_reader_flows },
        { "/flows", N_FLOWS | (1u << 24), weft_trace_reader_flows }, /* one flipped bit */
        { "/ports", N_PORTS | (G_GUINT64_CONSTANT (1) << 40), weft_trace_reader_ports },
        { "/topology/nodes", G_MAXUINT32 + G_GUINT64_CONSTANT (5), weft_trace_reader_nodes },
        { "/collectives", 1u << 30, weft_trace_reader_collectives },
        { "/flows", 8192 + 1, weft_trace_reader_flows }, /* a third chunk never written */
    };
    char *path = tmp_path ("huge.h5");
    for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
        hid_t file = good_for_damage (path);
        hid_t dset = H5Dopen2 (file, cases[i].dataset, H5P_DEFAULT);
        ck_assert_int_ge (H5Dset_extent (dset, &cases[i].rows), 0);
        H5Dclose (dset);
        H5Fclose (file);
        char *rows = g_strdup_printf ("%" G_GUINT64_FORMAT " rows", (guint64) cases[i].rows);
        const char *words[] = { cases[i].dataset, rows, NULL };
        assert_refused (cases[i].read, path, rows);
        assert_damaged (path, words);
        g_free (rows);
    }
    g_free (path);
}
END_TEST

/* Issue defect 3: a compound type whose bytes were damaged crashed libhdf5 in its struct
 * conversion.  In the file, the compound of /flows stores each member's name padded to 8
 * bytes, then its byte offset: "src" is at offset 4 (after the 4-byte id), "dst" at 8. */
START_TEST (test_trace_reader_corrupt_compound)
{
    static const char src[] = "src\0\0\0\0\0\4\0\0\0", dst[] = "dst\0\0\0\0\0\10\0\0\0";
    static const struct {
        const char *mark;
        guint32 offset;
        const char *word;
    } cases[] = {
        { src, 0x7fff0000, "member src" }, /* far past the end of the row */
        { src, 1, "member src" },          /* overlapping the id */
        { dst, 0, "member dst" },          /* on top of the id */
    };
    char *path = tmp_path ("compound.h5");
    for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
        write_good (path);
        patch_at (path, cases[i].mark, 8, 8, cases[i].offset);
        const char *words[] = { "/flows", NULL };
        assert_refused (weft_trace_reader_flows, path, "/flows");
        assert_damaged (path, words);
    }
    g_free (path);
}
END_TEST

/* A data set of /flows's name made from @type and @space (chunked when @chunk, and then
 * extendable), written with @data (zeros if NULL). */
static void
replace_flows (hid_t file, hid_t type, hid_t space, const void *data, hsize_t chunk)
{
    ck_assert_int_ge (H5Ldelete (file, "/flows", H5P_DEFAULT), 0);
    hid_t dcpl = H5Pcreate (H5P_DATASET_CREATE);
    hid_t use = H5Scopy (space);
    if (chunk > 0) {
        hsize_t dims[H5S_MAX_RANK], max[H5S_MAX_RANK];
        int rank = H5Sget_simple_extent_dims (space, dims, NULL);
        for (int i = 0; i < rank; i++)
            max[i] = H5S_UNLIMITED;
        H5Sset_extent_simple (use, rank, dims, max);
        H5Pset_chunk (dcpl, 1, &chunk);
    }
    hid_t dset = H5Dcreate2 (file, "/flows", type, use, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Sclose (use);
    ck_assert_msg (dset >= 0, "%s", weft_trace_hdf5_reason ());
    void *zeros = g_malloc0 ((gsize) H5Sget_simple_extent_npoints (space) * H5Tget_size (type));
    ck_assert_int_ge (
        H5Dwrite (dset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data != NULL ? data : zeros), 0);
    g_free (zeros);
    H5Dclose (dset);
    H5Pclose (dcpl);
}

/* The flows record's file type with member @index renamed or retyped (@type, or its own). */
static hid_t
flows_type_with (guint index, const char *name, hid_t type)
{
    hid_t mem = weft_trace_type_record (&weft_trace_record_flow);
    hid_t file_type = weft_trace_type_for_file (mem);
    hid_t out = H5Tcreate (H5T_COMPOUND, H5Tget_size (file_type) + 8);
    size_t off = 0;
    for (int i = 0; i < H5Tget_nmembers (file_type); i++) {
        char *n = H5Tget_member_name (file_type, (unsigned) i);
        hid_t mt = H5Tget_member_type (file_type, (unsigned) i);
        hid_t use = (guint) i == index && type >= 0 ? type : mt;
        H5Tinsert (out, (guint) i == index && name ? name : n, off, use);
        off += H5Tget_size (use);
        H5Tclose (mt);
        H5free_memory (n);
    }
    H5Tset_size (out, off);
    H5Tclose (file_type);
    H5Tclose (mem);
    return out;
}

/* Data sets of another type, rank or kind of object, and types that differ from the schema. */
START_TEST (test_trace_reader_wrong_types)
{
    char *path = tmp_path ("types.h5");
    hsize_t n = 7, two[2] = { 3, 4 };
    double values[12] = { 0 };
    struct {
        const char *what, *word;
    } cases[] = {
        { "float", "not compound" },
        { "2-d", "one-dimensional" },
        { "group", "a group" },
        { "soft link", "soft link" },
        { "external link", "external link" },
        { "renamed", "\"ID\"" },
        { "big-endian", "member id" },
        { "signed", "member src" },
        { "float member", "member size_bytes" },
        { "n-bit", "filter 5" },
        { "external storage", "other files" },
        { "one member", "1 members" },
    };
    for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
        hid_t file = good_for_damage (path);
        const char *what = cases[i].what;
        hid_t space = H5Screate_simple (1, &n, NULL);
        if (strcmp (what, "float") == 0)
            replace_flows (file, H5T_IEEE_F64LE, space, values, 0);
        else if (strcmp (what, "2-d") == 0) {
            hid_t s2 = H5Screate_simple (2, two, NULL);
            hid_t t = flows_type_with (99, NULL, H5I_INVALID_HID);
            replace_flows (file, t, s2, NULL, 0);
            H5Tclose (t);
            H5Sclose (s2);
        } else if (strcmp (what, "group") == 0) {
            H5Ldelete (file, "/flows", H5P_DEFAULT);
            H5Gclose (H5Gcreate2 (file, "/flows", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        } else if (strcmp (what, "soft link") == 0) {
            H5Ldelete (file, "/flows", H5P_DEFAULT);
            ck_assert_int_ge (H5Lcreate_soft ("/flows", file, "/flows", H5P_DEFAULT, H5P_DEFAULT),
                              0);
        } else if (strcmp (what, "external link") == 0) {
            H5Ldelete (file, "/flows", H5P_DEFAULT);
            ck_assert_int_ge (
                H5Lcreate_external ("/dev/zero", "/x", file, "/flows", H5P_DEFAULT, H5P_DEFAULT),
                0);
        } else if (strcmp (what, "renamed") == 0) {
            hid_t t = flows_type_with (0, "ID", H5I_INVALID_HID);
            replace_flows (file, t, space, NULL, 64);
            H5Tclose (t);
        } else if (strcmp (what, "big-endian") == 0) {
            hid_t t = flows_type_with (0, NULL, H5T_STD_U32BE);
            replace_flows (file, t, space, NULL, 64);
            H5Tclose (t);
        } else if (strcmp (what, "signed") == 0) {
            hid_t t = flows_type_with (1, NULL, H5T_STD_I32LE);
            replace_flows (file, t, space, NULL, 64);
            H5Tclose (t);
        } else if (strcmp (what, "float member") == 0) {
            hid_t t = flows_type_with (3, NULL, H5T_IEEE_F64LE);
            replace_flows (file, t, space, NULL, 64);
            H5Tclose (t);
        } else if (strcmp (what, "n-bit") == 0) {
            /* HDF5's own n-bit filter (5), which weft never uses */
            H5Ldelete (file, "/flows", H5P_DEFAULT);
            hid_t t = flows_type_with (99, NULL, H5I_INVALID_HID);
            hid_t dcpl = H5Pcreate (H5P_DATASET_CREATE);
            hsize_t chunk = 7;
            H5Pset_chunk (dcpl, 1, &chunk);
            H5Pset_nbit (dcpl);
            H5Dclose (H5Dcreate2 (file, "/flows", t, space, H5P_DEFAULT, dcpl, H5P_DEFAULT));
            H5Pclose (dcpl);
            H5Tclose (t);
        } else if (strcmp (what, "external storage") == 0) {
            H5Ldelete (file, "/flows", H5P_DEFAULT);
            hid_t t = flows_type_with (99, NULL, H5I_INVALID_HID);
            hid_t dcpl = H5Pcreate (H5P_DATASET_CREATE);
            H5Pset_external (dcpl, "/dev/zero", 0, H5F_UNLIMITED);
            H5Dclose (H5Dcreate2 (file, "/flows", t, space, H5P_DEFAULT, dcpl, H5P_DEFAULT));
            H5Pclose (dcpl);
            H5Tclose (t);
        } else if (strcmp (what, "one member") == 0) {
            hid_t t = H5Tcreate (H5T_COMPOUND, 4);
            H5Tinsert (t, "id", 0, H5T_STD_U32LE);
            replace_flows (file, t, space, NULL, 64);
            H5Tclose (t);
        }
        H5Sclose (space);
        H5Eclear2 (H5E_DEFAULT);
        H5Fclose (file);
        const char *words[] = { "/flows", cases[i].word, NULL };
        assert_damaged (path, words);
        assert_refused (weft_trace_reader_flows, path, cases[i].word);
    }
    g_free (path);
}
END_TEST

/* Issue defect 4: data sets the schema always writes were not required. */
START_TEST (test_trace_reader_missing_datasets)
{
    char *path = tmp_path ("missing.h5");
    for (guint i = 0; weft_trace_records[i] != NULL; i++) {
        const char *dataset = weft_trace_records[i]->dataset;
        hid_t file = good_for_damage (path);
        ck_assert_int_ge (H5Ldelete (file, dataset, H5P_DEFAULT), 0);
        H5Fclose (file);
        const char *words[] = { dataset, "missing", NULL };
        assert_damaged (path, words);
    }
    hid_t file = good_for_damage (path);
    ck_assert_int_ge (H5Ldelete (file, "/topology", H5P_DEFAULT), 0);
    H5Fclose (file);
    const char *topology[] = { "/topology/nodes", "missing", NULL };
    assert_damaged (path, topology);
    assert_refused (weft_trace_reader_links, path, "missing");

    /* /flows emptied, while /ports counts the packets its flows sent */
    hsize_t zero = 0;
    file = good_for_damage (path);
    hid_t dset = H5Dopen2 (file, "/flows", H5P_DEFAULT);
    ck_assert_int_ge (H5Dset_extent (dset, &zero), 0);
    H5Dclose (dset);
    H5Fclose (file);
    const char *emptied[] = { "/flows has no rows", "/ports counts 75 packets", NULL };
    assert_damaged (path, emptied);
    g_free (path);
}
END_TEST

/* Layouts weft does not write but HDF5 keeps in the file itself read as they are. */
START_TEST (test_trace_reader_other_layouts_read)
{
    char *path = tmp_path ("layouts.h5");
    GError *error = NULL;
    for (guint k = 0; k < 3; k++) {
        hid_t file = good_for_damage (path);
        hid_t mem = weft_trace_type_record (&weft_trace_record_flow);
        hid_t ftype = weft_trace_type_for_file (mem);
        WeftTraceFlow rows[5];
        memset (rows, 0, sizeof rows);
        for (guint i = 0; i < 5; i++)
            rows[i].id = 100 + i;
        hsize_t n = 5, chunk = 2;
        hid_t space = H5Screate_simple (1, &n, NULL);
        hid_t dcpl = H5Pcreate (H5P_DATASET_CREATE);
        if (k == 1)
            H5Pset_layout (dcpl, H5D_COMPACT);
        if (k == 2) {
            H5Pset_chunk (dcpl, 1, &chunk);
            H5Pset_fletcher32 (dcpl);
            H5Pset_shuffle (dcpl);
            H5Pset_deflate (dcpl, 9);
        }
        H5Ldelete (file, "/flows", H5P_DEFAULT);
        hid_t dset = H5Dcreate2 (file, "/flows", ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        ck_assert_int_ge (H5Dwrite (dset, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows), 0);
        H5Dclose (dset);
        H5Pclose (dcpl);
        H5Sclose (space);
        H5Tclose (ftype);
        H5Tclose (mem);
        H5Fclose (file);
        WeftTraceInfo *info = weft_trace_reader_open (path, &error);
        ck_assert_msg (info != NULL, "%s", error ? error->message : "?");
        ck_assert_msg (info->complete, "layout %u: %s", k, info->reason);
        weft_trace_info_free (info);
        GArray *got = weft_trace_reader_flows (path, &error);
        ck_assert_msg (got != NULL, "%s", error ? error->message : "?");
        ck_assert_uint_eq (got->len, 5);
        ck_assert_uint_eq (g_array_index (got, WeftTraceFlow, 4).id, 104);
        g_array_free (got, TRUE);
    }
    g_free (path);
}
END_TEST

/* Chunks the file declares: rows per chunk past the reader's bound are refused before HDF5
 * allocates a chunk's buffer. */
START_TEST (test_trace_reader_huge_chunks)
{
    char *path = tmp_path ("chunks.h5");
    hid_t file = good_for_damage (path);
    hsize_t n = 10, chunk = 1 << 20; /* 1 Mi rows of about 150 bytes: 150 MiB a chunk */
    hid_t t = flows_type_with (99, NULL, H5I_INVALID_HID);
    hid_t space = H5Screate_simple (1, &n, NULL);
    replace_flows (file, t, space, NULL, chunk);
    H5Sclose (space);
    H5Tclose (t);
    H5Fclose (file);
    const char *words[] = { "/flows", "1048576 rows each", NULL };
    assert_damaged (path, words);
    assert_refused (weft_trace_reader_flows, path, "chunks");
    g_free (path);
}
END_TEST

/* The reader requires the members each schema version had, from the "*(schema N)*" that
 * opens an added field's doc: those marks must only grow along each field list (later
 * schemas append), and name a version no older than the record's. */
START_TEST (test_trace_reader_field_versions_only_grow)
{
    for (guint r = 0; weft_trace_records[r] != NULL; r++) {
        const WeftTraceRecord *rec = weft_trace_records[r];
        guint last = rec->since;
        for (guint i = 0; i < rec->n_fields; i++) {
            const char *doc = rec->fields[i].doc;
            guint since = rec->since;
            if (g_str_has_prefix (doc, "*(schema ")) {
                since = (guint) g_ascii_strtoull (doc + strlen ("*(schema "), NULL, 10);
                ck_assert_msg (since > rec->since && since <= WEFT_TRACE_SCHEMA_VERSION,
                               "%s %s: schema %u", rec->dataset, rec->fields[i].name, since);
            }
            ck_assert_msg (since >= last, "%s %s (schema %u) after a schema-%u field", rec->dataset,
                           rec->fields[i].name, since, last);
            last = since;
        }
    }
}
END_TEST

/* A schema-2 file without the schema-4 members still reads; without a schema-2 one, not. */
START_TEST (test_trace_reader_members_by_schema_version)
{
    char *path = tmp_path ("v2.h5");
    GError *error = NULL;
    guint v2 = 2;
    /* /flows as schema 2 wrote it: up to workload */
    hid_t file = good_for_damage (path);
    put_attr (file, "schema_version", H5T_NATIVE_UINT, &v2, 0);
    for (guint i = 0; weft_trace_records[i] != NULL; i++)
        if (weft_trace_records[i]->since > 2)
            H5Ldelete (file, weft_trace_records[i]->dataset, H5P_DEFAULT);
    hid_t full = flows_type_with (99, NULL, H5I_INVALID_HID);
    hid_t old = H5Tcreate (H5T_COMPOUND, H5Tget_size (full));
    size_t off = 0;
    for (unsigned i = 0; i < 14; i++) { /* id .. workload */
        char *n = H5Tget_member_name (full, i);
        hid_t mt = H5Tget_member_type (full, i);
        H5Tinsert (old, n, off, mt);
        off += H5Tget_size (mt);
        H5Tclose (mt);
        H5free_memory (n);
    }
    H5Tset_size (old, off);
    hsize_t n = 3;
    hid_t space = H5Screate_simple (1, &n, NULL);
    replace_flows (file, old, space, NULL, 64);
    H5Fclose (file);
    WeftTraceInfo *info = weft_trace_reader_open (path, &error);
    ck_assert_msg (info != NULL, "%s", error ? error->message : "?");
    ck_assert_msg (info->complete, "%s", info->reason);
    weft_trace_info_free (info);
    GArray *rows = weft_trace_reader_flows (path, &error);
    ck_assert_msg (rows != NULL, "%s", error ? error->message : "?");
    ck_assert_uint_eq (rows->len, 3);
    g_array_free (rows, TRUE);
    /* and as schema 4, the same members are too few */
    guint v4 = 4;
    file = H5Fopen (path, H5F_ACC_RDWR, H5P_DEFAULT);
    put_attr (file, "schema_version", H5T_NATIVE_UINT, &v4, 0);
    H5Fclose (file);
    const char *words[] = { "/flows", "14 members", "schema 4 has 20", NULL };
    assert_damaged (path, words);
    H5Sclose (space);
    H5Tclose (old);
    H5Tclose (full);
    g_free (path);
}
END_TEST

/* The reading runs in a child process: when it dies (here by request: a stand-in for a libhdf5
 * that crashes on damage nobody checks for), the caller gets a one-line error, not a signal. */
START_TEST (test_trace_reader_child_crash_is_an_error)
{
    static const int signals[] = { SIGSEGV, SIGABRT, SIGFPE, SIGKILL };
    char *path = tmp_path ("good.h5");
    write_good (path);
    for (guint i = 0; i < G_N_ELEMENTS (signals); i++) {
        char *n = g_strdup_printf ("%d", signals[i]);
        g_setenv ("WEFT_TRACE_READER_CHILD_RAISE", n, TRUE);
        GError *error = NULL;
        WeftTraceInfo *info = weft_trace_reader_open (path, &error);
        ck_assert_msg (info != NULL, "%s", error ? error->message : "?");
        ck_assert (info->damaged && !info->readable && !info->complete);
        /* Under AddressSanitizer (check-sanitize: abort_on_error) the child's SIGSEGV or SIGFPE
         * is the sanitizer's report, then an abort: the signal seen is SIGABRT. */
        gboolean asan =
            g_getenv ("ASAN_OPTIONS") != NULL && (signals[i] == SIGSEGV || signals[i] == SIGFPE);
        char *abrt = g_strdup_printf ("%d", SIGABRT);
        ck_assert_msg (
            strstr (info->reason, "crashed") != NULL &&
                (strstr (info->reason, n) != NULL || (asan && strstr (info->reason, abrt) != NULL)),
            "%s", info->reason);
        g_free (abrt);
        ck_assert_ptr_null (strchr (info->reason, '\n'));
        weft_trace_info_free (info);
        assert_refused (weft_trace_reader_flows, path, "crashed");
        g_unsetenv ("WEFT_TRACE_READER_CHILD_RAISE");
        g_free (n);
    }
    /* and without the stand-in, the same file reads */
    GError *error = NULL;
    GArray *flows = weft_trace_reader_flows (path, &error);
    ck_assert_msg (flows != NULL, "%s", error ? error->message : "?");
    ck_assert_uint_eq (flows->len, N_FLOWS);
    g_array_free (flows, TRUE);
    g_free (path);
}
END_TEST

/* Found by fuzzing: a chunked layout whose element-size dimension is 0 made H5Dopen divide by
 * zero (SIGFPE) before any API call could look at the layout.  In the file, /flows's layout
 * message holds its chunk of 4096 rows, then the row's stored size (its fields' bytes). */
START_TEST (test_trace_reader_layout_dimension_zero)
{
    char *path = tmp_path ("layout.h5");
    write_good (path);
    /* The chunk's dimensions in its layout message: 4096 rows, then the row's stored size. */
    guint32 row = 0;
    for (guint i = 0; i < weft_trace_record_flow.n_fields; i++) {
        static const guint32 bytes[] = {
            [WEFT_TRACE_FIELD_U8] = 1,    [WEFT_TRACE_FIELD_U32] = 4,
            [WEFT_TRACE_FIELD_I32] = 4,   [WEFT_TRACE_FIELD_U64] = 8,
            [WEFT_TRACE_FIELD_F64] = 8,   [WEFT_TRACE_FIELD_NAME] = 64,
            [WEFT_TRACE_FIELD_KIND] = 16, [WEFT_TRACE_FIELD_SHORT] = 16
        };
        row += bytes[weft_trace_record_flow.fields[i].kind];
    }
    char mark[8] = { 0x00, 0x10, 0x00, 0x00 };
    guint32 le = GUINT32_TO_LE (row);
    memcpy (mark + 4, &le, 4);
    patch_at (path, mark, 8, 4, 0);
    const char *words[] = { "/flows", "dimension 1 is 0", NULL };
    assert_damaged (path, words);
    assert_refused (weft_trace_reader_flows, path, "dimension 1 is 0");
    g_free (path);
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("trace_reader");
    TCase *tc = tcase_create ("damaged");
    tcase_add_checked_fixture (tc, harness_tmp_setup, harness_tmp_teardown);
    tcase_set_timeout (tc, 60);
    tcase_add_test (tc, test_trace_reader_good_trace_is_complete);
    tcase_add_test (tc, test_trace_reader_meta_array_attributes);
    tcase_add_test (tc, test_trace_reader_meta_attribute_kinds);
    tcase_add_test (tc, test_trace_reader_reason_is_one_printable_line);
    tcase_add_test (tc, test_trace_reader_meta_heap_damaged);
    tcase_add_test (tc, test_trace_reader_huge_declared_rows);
    tcase_add_test (tc, test_trace_reader_corrupt_compound);
    tcase_add_test (tc, test_trace_reader_wrong_types);
    tcase_add_test (tc, test_trace_reader_missing_datasets);
    tcase_add_test (tc, test_trace_reader_other_layouts_read);
    tcase_add_test (tc, test_trace_reader_huge_chunks);
    tcase_add_test (tc, test_trace_reader_field_versions_only_grow);
    tcase_add_test (tc, test_trace_reader_members_by_schema_version);
    tcase_add_test (tc, test_trace_reader_child_crash_is_an_error);
    tcase_add_test (tc, test_trace_reader_layout_dimension_zero);
    suite_add_tcase (s, tc);
    return s;
}
