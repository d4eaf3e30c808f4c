/* analysis/trace_reader.h - reading weft trace files (doc/hdf5-schema.md).
 *
 * Knows the records of sim/trace_schema.h and nothing else of weft.  Opening a trace answers
 * four questions in order:
 *   - is it a weft trace at all?  A missing file, a non-HDF5 file, or an HDF5 file without
 *     /meta schema_version (or with one that is not a single number from 1 to this reader's
 *     version) is not: weft_trace_reader_open() fails with WEFT_TRACE_ERROR_READ.
 *   - can it be read?  An HDF5 file that does not open (truncated, or killed mid-write) gives
 *     an info with readable = FALSE, complete = FALSE and a one-line reason.
 *   - is it whole?  Every data set its schema version has must be there and be what the
 *     schema says (below), and every /meta attribute present must be one value of its kind;
 *     otherwise damaged = TRUE, complete = FALSE and reason names the first problem.
 *   - is it complete?  Only when the writer closed it after the whole run: /meta complete = 1
 *     and status done, duration, hang or workload-failed (a hang trace is complete data about
 *     a hung run).  An interrupted or failed run's trace is closed but incomplete, and so is
 *     one still "running"; then complete = FALSE and reason says why.
 *
 * Hostile files.  Nothing a file declares is used before it is checked, since libhdf5 trusts
 * it: before HDF5 reads any rows, a data set must be reached through hard links only (no
 * soft or external links), be a data set, hold compound rows whose members are the first
 * members of its record in sim/trace_schema.h, by name, in order, each of the field's class,
 * sign and size (integers and IEEE floats with every bit in use; fixed-length strings of the
 * schema's length), inside the row and not overlapping; have a one-dimensional data space;
 * be stored in the file itself (contiguous, chunked or compact; no external storage) with no
 * filter but deflate, shuffle and Fletcher-32, and chunks of at most
 * WEFT_TRACE_READER_MAX_CHUNK_BYTES; and declare no more rows than its stored bytes can hold
 * (WEFT_TRACE_READER_DEFLATE_RATIO times them through deflate, once without) nor than its
 * stored chunks cover.  An attribute is read only when it is one value (a scalar, or one
 * element) of the expected class; a fixed-length string attribute only up to
 * WEFT_TRACE_READER_MAX_ATTR_BYTES and the file's size.  What libhdf5 1.10 decodes without
 * checking is checked first in the file's own bytes: /meta's attribute messages and the
 * global heap objects of its strings, each group's local heap, each data set's chunked
 * layout (analysis/trace_reader_raw.c); a file in a format weft does not write (version-2
 * object headers) is refused there.  Text from the file that goes into a reason (a status, a
 * member name) is escaped and cut short, so a reason is one line.
 *
 * Processes.  Every function below does its reading in a child process (a fork) and gets
 * the result through a pipe: if libhdf5 dies on damage nobody checks for, the caller gets a
 * damaged info ("libhdf5 crashed reading it (signal 11, ...)") or WEFT_TRACE_ERROR_READ, not
 * the signal.  A fork costs about a millisecond; the rows cross the pipe once.
 *
 * Memory.  Rows are read a slab of whole chunks (about 1 MiB) at a time into their array;
 * besides that array, a read needs HDF5's buffers (one chunk of at most
 * WEFT_TRACE_READER_MAX_CHUNK_BYTES, its 1 MiB chunk cache and conversion buffer).  The array
 * holds what the file stores, so a file of N bytes costs at most about 1032 N in rows, never
 * what its headers declare.  When the rows do not fit in what the process may allocate
 * (RLIMIT_AS), the reader fails with WEFT_TRACE_ERROR_READ instead of aborting; the child
 * holds the rows too while it sends them, under the same limit.
 *
 * Older schemas: a version-1 trace reads too.  Members a later schema added (schema 2: /links
 * stall_ps; /ports xmit_wait_ps, lossless_drops, symbol_errors, link_downed, rcv_errors,
 * rate_bps, state, phys_state, link_layer) come back 0 (link_layer "") from a file that
 * lacks them; WeftTraceInfo.schema_version tells "not recorded" from "recorded as 0".
 * Schema 3 added the /collectives data set; an older file reads as having none.  Schema 4
 * added /flows ecn_marked, cnps_sent, cnps_received, rate_cuts, min_rate_bps, reorder_max,
 * /links and /ports ecn_marks (0 from an older file), and the /paths, /pfc and /dcqcn data
 * sets (none in an older file).
 */
#ifndef WEFT_ANALYSIS_TRACE_READER_H
#define WEFT_ANALYSIS_TRACE_READER_H

#include <glib.h>

#include "sim/errors.h"
#include "sim/trace_schema.h"

/* The reader's bounds on what a file may declare (see above). */
#define WEFT_TRACE_READER_MAX_ROW_BYTES 4096 /* a stored row (weft's widest: under 200) */
#define WEFT_TRACE_READER_MAX_CHUNK_BYTES (16 * 1024 * 1024) /* a chunk, inflated */
#define WEFT_TRACE_READER_MAX_ATTR_BYTES (16 * 1024 * 1024)  /* a fixed-length string */
#define WEFT_TRACE_READER_DEFLATE_RATIO 1032 /* deflate's most: 258 bytes per 2-bit code */

typedef struct {
    char *path;
    gboolean readable; /* the HDF5 file opened and /meta was read */
    gboolean complete; /* closed by the writer (see above) */
    gboolean damaged;  /* a data set or /meta attribute missing or malformed (see above) */
    char *reason;      /* one line: why not readable, whole or complete; NULL when complete */
    guint schema_version;
    WeftTraceStatus status; /* WEFT_TRACE_STATUS_RUNNING also for an unknown status text */
    char *status_text;      /* as stored ("running", "done", ...); NULL if unreadable */
    guint64 seed;
    guint64 sim_time_ps;
    double wall_time_s;
    guint64 events;
    char *weft_version, *git_revision, *experiment_path, *experiment_text, *message;
    /* Rows per data set; -1 when the data set is absent or damaged. */
    gint64 n_nodes, n_links, n_flows, n_link_samples, n_ports;
    gint64 n_collectives; /* schema 3; -1 in an older file, which has no /collectives */
} WeftTraceInfo;

/** Opens @path read-only, reads /meta and checks every data set (counting rows), then closes
 * the file.  Returns NULL with WEFT_TRACE_ERROR_READ ("PATH: not a weft trace: REASON") if
 * @path is missing, not a regular file, not HDF5, or has no /meta schema_version, or one that
 * is not a number this reader knows.  (transfer full: free with weft_trace_info_free) */
WeftTraceInfo *weft_trace_reader_open (const char *path, GError **error);

void weft_trace_info_free (WeftTraceInfo *info);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WeftTraceInfo, weft_trace_info_free)

/** The schema version that added field @f to @rec: the one its doc opens with
 * ("*(schema 2)* ...", as doc/hdf5-schema.md shows it), or the record's own.  A file of
 * schema V has every field added by V or before. */
guint weft_trace_reader_field_since (const WeftTraceRecord *rec, const WeftTraceField *f);

/** Every row of a data set, as a GArray of its record's struct; members the file lacks (an
 * older schema) are 0.  One reader per record of sim/trace_schema.h,
 *     GArray *weft_trace_reader_<many> (const char *path, GError **error);
 * weft_trace_reader_nodes (WeftTraceNode), _links (WeftTraceLink), _flows (WeftTraceFlow),
 * _link_samples (WeftTraceLinkSample), _ports (WeftTracePort), _collectives
 * (WeftTraceCollective), _paths (WeftTracePathHop), _pfc_samples (WeftTracePfcSample),
 * _dcqcn_samples (WeftTraceDcqcnSample), _buffer_samples (WeftTraceBufferSample),
 * _faults (WeftTraceFault), _uet_samples (WeftTraceUetSample).
 * A data set a later schema added (/collectives: schema 3; /paths, /pfc, /dcqcn, /buffers:
 * schema 4; /faults: schema 6; /uet: schema 7) reads as 0 rows from a file of an older schema; a
 * file of that schema or newer without it fails like any data set that is missing, fails the checks
 * above or does not read, with WEFT_TRACE_ERROR_READ ("PATH: cannot read /flows: REASON", one
 * line). (transfer full) */
#define WEFT_TRACE_DECLARE_READER(one, many, ...)                                                  \
    GArray *weft_trace_reader_##many (const char *path, GError **error);
WEFT_TRACE_RECORDS (WEFT_TRACE_DECLARE_READER)
#undef WEFT_TRACE_DECLARE_READER

#endif /* WEFT_ANALYSIS_TRACE_READER_H */
