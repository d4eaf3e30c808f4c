/* analysis/trace_reader.h - reading weft trace files (doc/hdf5-schema.md).
 *
 * Knows the records of sim/trace_schema.h and nothing else of weft.  Opening a trace answers
 * three questions in order:
 *   - is it a weft trace at all?  A missing file, a non-HDF5 file, or an HDF5 file without
 *     /meta schema_version is not: weft_trace_reader_open() fails with WEFT_TRACE_ERROR_READ.
 *   - can it be read?  An HDF5 file that does not open (truncated, or killed mid-write) gives
 *     an info with readable = FALSE, complete = FALSE and a one-line reason.
 *   - is it complete?  Only when the writer closed it after the whole run: /meta complete = 1
 *     and status done, duration or hang (a hang trace is complete data about a hung run).
 *     An interrupted or failed run's trace is closed but incomplete, and so is one still
 *     "running"; then complete = FALSE and reason says why.
 *
 * Row readers return every row of a data set; they are for analysis, not for huge traces
 * (a /links of 10^8 samples would want a chunked reader).
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

typedef struct {
    char *path;
    gboolean readable; /* the HDF5 file opened and /meta was read */
    gboolean complete; /* closed by the writer (see above) */
    char *reason;      /* one line: why not readable or not complete; NULL when complete */
    guint schema_version;
    WeftTraceStatus status; /* WEFT_TRACE_STATUS_RUNNING also for an unknown status text */
    char *status_text;      /* as stored ("running", "done", ...); NULL if unreadable */
    guint64 seed;
    guint64 sim_time_ps;
    double wall_time_s;
    guint64 events;
    char *weft_version, *git_revision, *experiment_path, *experiment_text, *message;
    /* Rows per data set; -1 when the data set is absent or unreadable. */
    gint64 n_nodes, n_links, n_flows, n_link_samples, n_ports;
    gint64 n_collectives; /* schema 3; -1 in an older file, which has no /collectives */
} WeftTraceInfo;

/** Opens @path read-only, reads /meta and counts rows, then closes the file.  Returns NULL
 * with WEFT_TRACE_ERROR_READ ("PATH: not a weft trace: REASON") if @path is missing, is not
 * HDF5, or has no /meta schema_version, or a schema version newer than this reader.
 * (transfer full: free with weft_trace_info_free) */
WeftTraceInfo *weft_trace_reader_open (const char *path, GError **error);

void weft_trace_info_free (WeftTraceInfo *info);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WeftTraceInfo, weft_trace_info_free)

/** Every row of a data set, as a GArray of its record's struct; members the file lacks (an
 * older schema) are 0.  One reader per record of sim/trace_schema.h,
 *     GArray *weft_trace_reader_<many> (const char *path, GError **error);
 * weft_trace_reader_nodes (WeftTraceNode), _links (WeftTraceLink), _flows (WeftTraceFlow),
 * _link_samples (WeftTraceLinkSample), _ports (WeftTracePort), _collectives
 * (WeftTraceCollective), _paths (WeftTracePathHop), _pfc_samples (WeftTracePfcSample),
 * _dcqcn_samples (WeftTraceDcqcnSample), _buffer_samples (WeftTraceBufferSample).
 * A data set a later schema added (/collectives: schema 3; /paths, /pfc, /dcqcn, /buffers:
 * schema 4) reads as 0 rows from a file of an older schema; a file of that schema or newer
 * without it fails like any unreadable data set, with WEFT_TRACE_ERROR_READ
 * ("PATH: cannot read /flows: REASON").  (transfer full) */
#define WEFT_TRACE_DECLARE_READER(one, many, ...)                                                  \
    GArray *weft_trace_reader_##many (const char *path, GError **error);
WEFT_TRACE_RECORDS (WEFT_TRACE_DECLARE_READER)
#undef WEFT_TRACE_DECLARE_READER

#endif /* WEFT_ANALYSIS_TRACE_READER_H */
