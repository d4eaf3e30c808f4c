/* analysis/trace_reader_raw.c - what libhdf5 1.10 decodes without checking, checked first in
 * the file's own bytes: /meta's attributes and the data sets' layouts.
 *
 * HDF5 decodes every attribute message of an object header as soon as one attribute is looked
 * up (H5Aexists), copying as many bytes as the message's data type and data space declare,
 * whatever the message holds; and it reads a variable-length string - weft's /meta strings -
 * from a global heap collection by the sizes the collection declares, into a buffer sized by
 * the length the attribute declares.  A byte flipped in either made libhdf5 allocate what it
 * declared (gigabytes) or copy past its buffers (found by fuzzing: a heap overflow in
 * H5HG_read).  The public API cannot see those sizes before HDF5 uses them, so this file
 * parses them: /meta's object header (version 1, as the writer's default format writes it,
 * with its continuation blocks), each attribute message in it (its name, type and space must
 * fit, and the data they declare too), and for each variable-length string the global heap
 * collection it points into: its signature, its size within the file, every object in it
 * laid out inside it as HDF5 walks them, and the string's own object present with the
 * length the attribute declares.  A data set's header gets one check before H5Dopen decodes
 * it: a chunked layout's dimensions are all positive; and a group's, before a link is looked
 * up in it: its local heap of link names lies in the file.  Formats weft never writes (version-2
 * object headers, shared messages, layouts of other versions, strings longer than
 * WEFT_TRACE_READER_MAX_ATTR_BYTES) are refused.  Cost: the headers and /meta's heap
 * collection, a few KiB, read once per open.
 *
 * References: the HDF5 File Format Specification, version 2.0 (sections III.A superblock,
 * IV.A.1.a version-1 object headers, IV.A.2.m attribute message, IV.A.2.b dataspace,
 * IV.A.2.d datatype, III.E global heap), as libhdf5 1.10 implements it.
 */
#include "config.h"
#define G_LOG_DOMAIN "weft-reader"
#include "analysis/trace_reader_private.h"

#include <stdio.h>
#include <string.h>

#define MAX_HEADER_BLOCKS 64               /* continuation blocks of one header */
#define MAX_HEADER_BYTES (4 * 1024 * 1024) /* one header, all its blocks */
#define MAX_STRINGS 64                     /* variable-length strings in one header */

typedef struct {
    FILE *f;
    guint64 base;  /* where HDF5's addresses count from: the superblock */
    guint64 end;   /* the file's size */
    size_t so, sl; /* sizes of offsets and of lengths, in bytes */
    guint strings; /* variable-length strings checked */
} Raw;

static guint64
le (const guint8 *p, size_t n)
{
    guint64 v = 0;
    for (size_t i = n; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

/* @n bytes at HDF5 address @addr, or NULL if they are not all in the file.  (transfer full) */
static guint8 *
read_at (Raw *r, guint64 addr, guint64 n)
{
    if (addr > r->end || n > r->end || r->base > r->end - addr - n || n > G_MAXSIZE)
        return NULL;
    guint8 *buf = g_try_malloc (MAX (n, 1));
    if (buf == NULL || fseeko (r->f, (off_t) (r->base + addr), SEEK_SET) != 0 ||
        fread (buf, 1, (size_t) n, r->f) != n) {
        g_free (buf);
        return NULL;
    }
    return buf;
}

/* A data type's size and whether it is a variable-length string; FALSE if it does not fit in
 * @n bytes, is variable-length but not a string of bytes (those come from the global heap too,
 * and the reader never reads them), or is of a class with names in it. */
static gboolean
datatype (const guint8 *p, gsize n, guint64 *size, gboolean *vlen_string)
{
    if (n < 8)
        return FALSE;
    *size = le (p + 4, 4);
    *vlen_string = (p[0] & 0x0f) == 9;
    /* a string as HDF5 writes one: its padding and character set, the in-memory size of a
     * variable-length element (libhdf5 sizes its conversion by it: a byte changed there made
     * it allocate 1.4 GB), and a base type of 1-byte characters after it */
    if (*vlen_string)
        return (p[1] & 0x0f) == 1 && (p[1] >> 4) <= 2 && p[2] <= 1 && p[3] == 0 && *size == 16 &&
               n >= 20 && (p[8] & 0x0f) == 0 && le (p + 12, 4) == 1 && le (p + 16, 2) == 0 &&
               le (p + 18, 2) == 8;
    /* The classes whose messages hold no names: integers, floats, fixed-length strings, and
     * arrays of integers or floats.  HDF5 copies a compound's or an enum's member names up to
     * their NULs wherever those are (found by fuzzing: a heap overflow in H5MM_xstrdup). */
    guint cls = p[0] & 0x0f, version = p[0] >> 4;
    if (cls == 0 || cls == 1 || cls == 3)
        return TRUE;
    if (cls != 10 || n < 9)
        return FALSE;
    gsize rank = p[8];
    gsize base = version >= 3 ? 9 + 4 * rank : 12 + 8 * rank;
    return rank >= 1 && base + 8 <= n && ((p[base] & 0x0f) == 0 || (p[base] & 0x0f) == 1);
}

/* A data space's element count; FALSE if it does not fit in @n bytes or holds too many. */
static gboolean
dataspace (const Raw *r, const guint8 *p, gsize n, guint64 *points)
{
    if (n < 8)
        return FALSE;
    guint version = p[0], rank = p[1];
    gsize at = version == 1 ? 8 : 4;
    if ((version != 1 && version != 2) || rank > 32 || n < at + (gsize) rank * r->sl)
        return FALSE;
    if (version == 2 && p[3] == 2) { /* null */
        *points = 0;
        return TRUE;
    }
    *points = 1;
    for (guint i = 0; i < rank; i++) {
        guint64 d = le (p + at + (gsize) i * r->sl, r->sl);
        if (d != 0 && *points > G_MAXUINT32 / d)
            return FALSE;
        *points *= d;
    }
    return TRUE;
}

/* Whether the global heap collection at @addr holds object @idx of exactly @len bytes, every
 * object laid out inside the collection as HDF5 walks them. */
static gboolean
heap_object (Raw *r, guint64 addr, guint32 idx, guint64 len)
{
    gsize hdr = 8 + r->sl, objhdr = 8 + r->sl;
    guint8 *head = read_at (r, addr, hdr);
    gboolean ok = head != NULL && memcmp (head, "GCOL", 4) == 0 && head[4] == 1;
    guint64 size = ok ? le (head + 8, r->sl) : 0;
    g_free (head);
    ok = ok && size >= hdr && size <= MAX_HEADER_BYTES;
    guint8 *c = ok ? read_at (r, addr, size) : NULL;
    gboolean found = FALSE;
    for (guint64 p = hdr; c != NULL && p < size && ok;) {
        if (size - p < objhdr)
            break; /* too small for an object: free space, as HDF5 takes it */
        guint32 i = (guint32) le (c + p, 2);
        guint64 osize = le (c + p + 8, r->sl);
        guint64 need = i == 0 ? osize : objhdr + ((osize + 7) & ~G_GUINT64_CONSTANT (7));
        if (osize > size || need < objhdr || need > size - p) {
            ok = FALSE; /* an object reaching past the collection, or one that never ends */
            break;
        }
        if (i == idx) {
            found = TRUE;
            ok = osize == len;
        }
        p += need;
    }
    g_free (c);
    return c != NULL && ok && found;
}

/* Checks one attribute message of @n bytes; FALSE with *why. */
static gboolean
attribute (Raw *r, const guint8 *m, gsize n, char **why)
{
    if (n < 8 || m[0] < 1 || m[0] > 3 || (m[0] >= 2 && (m[1] & 0x03) != 0)) {
        *why = g_strdup ("an attribute message of a format weft does not write");
        return FALSE;
    }
    gsize name = le (m + 2, 2), dt = le (m + 4, 2), ds = le (m + 6, 2);
    gsize pad = m[0] == 1 ? 7 : 0, at = m[0] == 3 ? 9 : 8;
    gsize name_at = at, dt_at = name_at + ((name + pad) & ~pad),
          ds_at = dt_at + ((dt + pad) & ~pad), data_at = ds_at + ((ds + pad) & ~pad);
    guint64 size = 0, points = 0;
    gboolean vlen = FALSE;
    if (name == 0 || data_at > n || data_at < name_at || !datatype (m + dt_at, dt, &size, &vlen) ||
        !dataspace (r, m + ds_at, ds, &points)) {
        *why = g_strdup ("an attribute message whose parts do not fit in it");
        return FALSE;
    }
    /* HDF5 copies the name up to its terminating NUL, wherever that is (found by fuzzing: a
     * heap overflow in H5MM_xstrdup, under H5Aexists) */
    if (memchr (m + name_at, '\0', name) == NULL) {
        *why = g_strdup ("an attribute message whose name has no end");
        return FALSE;
    }
    char *raw_name = g_strndup ((const char *) m + name_at, name);
    char *shown = weft_trace_reader_printable (raw_name);
    g_free (raw_name);
    guint64 elem = vlen ? 4 + r->so + 4 : size;
    if (elem == 0 || points > (n - data_at) / elem) {
        *why = g_strdup_printf ("attribute %s declares more data than its message holds", shown);
        g_free (shown);
        return FALSE;
    }
    for (guint64 i = 0; vlen && i < points; i++) {
        const guint8 *d = m + data_at + i * elem;
        guint64 len = le (d, 4), addr = le (d + 4, r->so);
        guint32 idx = (guint32) le (d + 4 + r->so, 4);
        if (addr == 0)
            continue; /* a null string: HDF5 reads nothing (but it reads an empty one's) */
        if (len > WEFT_TRACE_READER_MAX_ATTR_BYTES || ++r->strings > MAX_STRINGS ||
            !heap_object (r, addr, idx, len)) {
            *why = g_strdup_printf ("attribute %s: its %" G_GUINT64_FORMAT
                                    "-byte string is not where it says in the global heap",
                                    shown, len);
            g_free (shown);
            return FALSE;
        }
    }
    g_free (shown);
    return TRUE;
}

/* Whether a data set's layout message (@n bytes) is sound where HDF5 does not look: a
 * chunked layout's every dimension, the element size last among them, must be positive
 * (libhdf5 1.10 checks the first and divides by the others: fuzzing found the division by
 * zero, in H5Dopen). */
static gboolean
layout (const Raw *r, const guint8 *m, gsize n, char **why)
{
    if (n < 2 || m[0] != 3) {
        *why = g_strdup ("a layout message of a format weft does not write");
        return FALSE;
    }
    if (m[1] != 2)
        return TRUE; /* compact or contiguous: HDF5 checks their sizes itself */
    guint d = n >= 3 ? m[2] : 0;
    gsize at = 3 + r->so;
    if (d < 2 || d > 33 || n < at + 4 * (gsize) d) {
        *why = g_strdup ("a chunked layout message that does not hold its dimensions");
        return FALSE;
    }
    for (guint i = 0; i < d; i++)
        if (le (m + at + 4 * i, 4) == 0) {
            *why = g_strdup_printf ("a chunked layout whose dimension %u is 0", i);
            return FALSE;
        }
    return TRUE;
}

/* Whether a group's symbol table message (@n bytes) points to a local heap - the group's
 * link names - that lies in the file: libhdf5 1.10 allocates the size the heap declares and
 * copies into it unchecked (fuzzing found the copy into a failed allocation, in H5HL_protect
 * under H5Lexists). */
static gboolean
symbol_table (Raw *r, const guint8 *m, gsize n, char **why)
{
    if (n < 2 * r->so) {
        *why = g_strdup ("a symbol table message too short for its contents");
        return FALSE;
    }
    guint64 heap = le (m + r->so, r->so);
    gsize hdr = 8 + 2 * r->sl + r->so;
    guint8 *h = read_at (r, heap, hdr);
    guint64 size = h ? le (h + 8, r->sl) : 0, data = h ? le (h + 8 + 2 * r->sl, r->so) : 0;
    gboolean ok = h != NULL && memcmp (h, "HEAP", 4) == 0 && h[4] == 0 &&
                  size <= MAX_HEADER_BYTES && data <= r->end && size <= r->end - data &&
                  r->base <= r->end - data - size;
    g_free (h);
    if (!ok)
        *why = g_strdup ("a group whose local heap (its link names) is not in the file");
    return ok;
}

/* Checks every message of the version-1 object header at @addr: attribute messages when
 * @attributes (/meta's), layout messages when @layouts (a data set's), symbol table messages
 * always (a group's). */
static gboolean
object_header (Raw *r, guint64 addr, gboolean attributes, gboolean layouts, char **why)
{
    guint8 *prefix = read_at (r, addr, 16);
    if (prefix == NULL || prefix[0] != 1) {
        *why = g_strdup (prefix == NULL ? "its object header is not in the file"
                                        : "its object header is not of the version weft writes");
        g_free (prefix);
        return FALSE;
    }
    guint64 blocks[MAX_HEADER_BLOCKS][2] = { { addr + 16, le (prefix + 8, 4) } };
    guint n_blocks = 1; /* every message of every block, as HDF5 parses them */
    guint64 total = 0;
    g_free (prefix);
    gboolean ok = TRUE;
    for (guint b = 0; ok && b < n_blocks; b++) {
        guint64 len = blocks[b][1];
        total += len;
        guint8 *block = total <= MAX_HEADER_BYTES ? read_at (r, blocks[b][0], len) : NULL;
        if (block == NULL) {
            *why = g_strdup ("its object header runs past the file");
            ok = FALSE;
        }
        for (guint64 p = 0; ok && p + 8 <= len;) {
            guint type = (guint) le (block + p, 2), flags = block[p + 4];
            guint64 size = le (block + p + 2, 2);
            if (size > len - p - 8) {
                *why = g_strdup ("a message of its object header runs past its block");
                ok = FALSE;
            } else if (type == 0x0C && (flags & 0x02)) {
                *why = g_strdup ("a shared attribute message, which weft never writes");
                ok = FALSE;
            } else if (type == 0x10 && size < r->so + r->sl) {
                /* HDF5 would decode the address and length past the message's end */
                *why = g_strdup ("a continuation message too short for its contents");
                ok = FALSE;
            } else if (type == 0x10) {
                if (n_blocks == MAX_HEADER_BLOCKS) {
                    *why = g_strdup ("its object header has too many continuation blocks");
                    ok = FALSE;
                } else {
                    blocks[n_blocks][0] = le (block + p + 8, r->so);
                    blocks[n_blocks][1] = le (block + p + 8 + r->so, r->sl);
                    n_blocks++;
                }
            } else if (type == 0x0C && attributes)
                ok = attribute (r, block + p + 8, (gsize) size, why);
            else if (type == 0x08 && layouts)
                ok = layout (r, block + p + 8, (gsize) size, why);
            else if (type == 0x11)
                ok = symbol_table (r, block + p + 8, (gsize) size, why);
            p += 8 + size;
        }
        g_free (block);
    }
    return ok;
}

/* Sets @r up for @t: the sizes of addresses and lengths, where addresses count from, the file
 * opened; FALSE with *why. */
static gboolean
raw_open (Raw *r, const WeftTraceFile *t, char **why)
{
    static const guint8 signature[8] = { 0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n' };
    memset (r, 0, sizeof *r);
    r->end = t->file_bytes;
    hid_t fcpl = H5Fget_create_plist (t->file);
    hsize_t userblock = 0;
    gboolean ok = fcpl >= 0 && H5Pget_sizes (fcpl, &r->so, &r->sl) >= 0 &&
                  H5Pget_userblock (fcpl, &userblock) >= 0;
    if (fcpl >= 0)
        H5Pclose (fcpl);
    H5Eclear2 (H5E_DEFAULT);
    r->base = userblock;
    if (!ok || (r->so != 4 && r->so != 8) || (r->sl != 4 && r->sl != 8)) {
        *why = g_strdup ("its superblock is not one weft writes");
        return FALSE;
    }
    r->f = fopen (t->path, "rb");
    guint8 sig[8];
    if (r->f == NULL || fseeko (r->f, (off_t) r->base, SEEK_SET) != 0 ||
        fread (sig, 1, sizeof sig, r->f) != sizeof sig || memcmp (sig, signature, 8) != 0) {
        *why = g_strdup ("its superblock is not where HDF5 says");
        if (r->f != NULL)
            fclose (r->f);
        return FALSE;
    }
    return TRUE;
}

/* Checks the object header of @name (reached through hard links: checked before). */
static gboolean
raw_object (const WeftTraceFile *t, const char *name, gboolean attributes, gboolean layouts,
            char **why)
{
    Raw r;
    H5O_info_t oi;
    /* the basic information needs the header, but decodes none of its messages */
    if (H5Oget_info_by_name2 (t->file, name, &oi, H5O_INFO_BASIC, H5P_DEFAULT) < 0) {
        char *reason = weft_trace_hdf5_reason ();
        *why = g_strdup_printf ("its object header is unreadable (%s)", reason);
        g_free (reason);
        return FALSE;
    }
    if (!raw_open (&r, t, why))
        return FALSE;
    gboolean ok = object_header (&r, oi.addr, attributes, layouts, why);
    fclose (r.f);
    return ok;
}

gboolean
weft_trace_reader_raw_meta (const WeftTraceFile *t, char **why)
{
    return raw_object (t, "/meta", TRUE, FALSE, why);
}

gboolean
weft_trace_reader_raw_dataset (const WeftTraceFile *t, const char *name, char **why)
{
    return raw_object (t, name, FALSE, TRUE, why);
}

gboolean
weft_trace_reader_raw_group (const WeftTraceFile *t, const char *name, char **why)
{
    return raw_object (t, name, FALSE, FALSE, why);
}
