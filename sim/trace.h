/* sim/trace.h - the HDF5 trace writer: one file per run.
 *
 * Layout (doc/hdf5-schema.md): /meta (attributes), and a data set per record of
 * sim/trace_schema.h (WEFT_TRACE_RECORDS): /topology/nodes, /topology/links, /flows, /links,
 * /ports, /collectives, /paths, /pfc, /dcqcn, /buffers.  Data sets are compound, chunked,
 * deflate-compressed and extendable; rows are appended a chunk at a time, and
 * weft_trace_flush() pushes them to disk (H5Fflush), so a killed run leaves a readable file
 * whose /meta status still says "running" - readers report it as incomplete.  That file is
 * PATH.partial: only a complete close renames it to PATH (weft_trace_create()).
 *
 * Ownership: the writer owns its HDF5 handles; no other file calls H5* (but analysis/).
 * Errors: creation and close raise WEFT_TRACE_ERROR; appends inside the run never fail
 * visibly - the first write error is kept and returned by weft_trace_close().
 */
#ifndef WEFT_SIM_TRACE_H
#define WEFT_SIM_TRACE_H

#include <glib.h>

#include "sim/errors.h"
#include "sim/time.h"
#include "sim/trace_schema.h"

typedef struct _WeftTrace WeftTrace;

/** Creates the trace for @path and writes /meta with status "running".  The file is written
 * as weft_trace_partial_path (@path) ("PATH.partial", truncated if it exists) and renamed to
 * @path by a complete close only, so a trace already at @path survives a run that does not
 * finish, and an unfinished trace never carries the final name.  Fails with
 * WEFT_TRACE_ERROR_OPEN "PATH: cannot create trace file: REASON" if the partial path is
 * unwritable or @path exists and is not a regular file; nothing is left behind then.
 * (transfer full) */
WeftTrace *weft_trace_create (const char *path, const WeftTraceMeta *meta, GError **error);

/** The name a trace for @path is written under until it is complete: "@path.partial".
 * (transfer full) */
char *weft_trace_partial_path (const char *path);

const char *weft_trace_path (const WeftTrace *trace);

/* Topology, written once at the start. */
void weft_trace_write_nodes (WeftTrace *trace, const WeftTraceNode *rows, gsize n);
void weft_trace_write_links (WeftTrace *trace, const WeftTraceLink *rows, gsize n);

/* Buffered appends, one per record of sim/trace_schema.h, each
 *     void weft_trace_append_<one> (WeftTrace *trace, const <Struct> *row);
 * weft_trace_append_flow, _link_sample, _buffer_sample, _collective, _path_hop, _pfc_sample,
 * _dcqcn_sample, _uet_sample, and _node, _link, _port (which are usually written whole, with
 * the functions above and below).  Cheap: the row's bytes go into the data set's open chunk,
 * already in its file form (sim/trace.c); a full chunk is deflated and written. */
#define WEFT_TRACE_DECLARE_APPEND(one, many, Struct, ...)                                          \
    void weft_trace_append_##one (WeftTrace *trace, const Struct *row);
WEFT_TRACE_RECORDS (WEFT_TRACE_DECLARE_APPEND)
#undef WEFT_TRACE_DECLARE_APPEND

/* Final per-port counters. */
void weft_trace_write_ports (WeftTrace *trace, const WeftTracePort *rows, gsize n);

/* Appends buffered rows and flushes the file to disk. */
void weft_trace_flush (WeftTrace *trace);

/* weft_trace_flush() if the run has executed WEFT_TRACE_FLUSH_EVENTS events since the last
 * flush made here, or WEFT_TRACE_FLUSH_BYTES of rows have been appended since the last flush:
 * what the run loop calls at every sample, with the run's events executed so far.  A flush
 * costs milliseconds (HDF5 rewrites its metadata, and each data set's partly filled chunk is
 * deflated and written again whole), so flushing every 10 us sample took most of a
 * short run's time (45 % of the instructions of bench/scenarios/roce-fattree-k8.ini).  The
 * criteria are the run's own work, never the wall clock, so the work a run does is the same
 * on any machine and under valgrind; at the 3 to 10 million events a second weft executes on
 * one core, a killed run's file is a few seconds behind at most.  The data sets do not depend
 * on when flushes happen (h5diff sees identical runs as identical). */
#define WEFT_TRACE_FLUSH_EVENTS G_GUINT64_CONSTANT (8000000)
/* Every data set is shuffled, then deflated at this level.  Level 1 rather than zlib's default
 * 6 or the 4 weft used before: a collective run writes a /flows row and its /paths rows for
 * every chunk of every transfer (2.1 million flows in the flagship sweep), and at level 4
 * deflate was over a fifth of the flagship's instructions at 1 MB.  Level 1 cuts the whole run's
 * instructions by 12 % there, for files 9 % (the sweep) to 21 % (1 MB) larger
 * (bench/README.md); the data sets are the same values either way.  The writer deflates with
 * libdeflate at this level (sim/trace.c), and it is what the data sets' deflate filter declares. */
#define WEFT_TRACE_DEFLATE_LEVEL 1
#define WEFT_TRACE_FLUSH_BYTES (G_GUINT64_CONSTANT (16) << 20)
void weft_trace_flush_due (WeftTrace *trace, guint64 events);

/** Flushes, writes the end attributes of /meta (status, sim time, wall time, events, message,
 * and complete: 1 for done, duration, hang and workload-failed, 0 for interrupted and
 * failed), closes and frees.  A complete trace is then renamed from PATH.partial to PATH
 * (replacing what was there); an incomplete one stays at PATH.partial, and PATH is untouched.
 * Returns FALSE with WEFT_TRACE_ERROR_WRITE if any write failed during the run or now (the
 * partial file is then removed: nothing that looks like a trace is left) or if the rename
 * failed.  Safe to call from the interrupt path (after the run loop has stopped). */
gboolean weft_trace_close (WeftTrace *trace, const WeftTraceEnd *end, GError **error);

/* Closes and frees without writing the end (the file stays "running", at PATH.partial); for
 * error paths. */
void weft_trace_abandon (WeftTrace *trace);

/* ---- across ranks (doc/parallel.md) -------------------------------------------------------
 * Every rank keeps the rows it would have written, each tagged with the (time, key) of the
 * event that appended it (read through @now and @now_key, the run's clock), and rank 0 merges
 * them in that order: one process's order, since it runs the events in (time, key) order.
 * Only rank 0 has a file; the other ranks' traces are buffers (weft_trace_new_rank). */

/* From now on rows are held and tagged, not written (nor flushed) until weft_trace_gather. */
void weft_trace_set_ranked (WeftTrace *trace, const weft_time_t *now, const guint64 *now_key);
/* The order of the rows appended next within their event, before the count of rows with the
 * same tag: the index of the port or node a sample's row belongs to, so that the rows every
 * rank appends at one sampling event merge in one process's order.  0 otherwise. */
void weft_trace_set_order (WeftTrace *trace, guint64 major);
/* A trace with no file for the ranks other than 0: its rows only go to weft_trace_gather.
 * (transfer full: weft_trace_free_rank) */
WeftTrace *weft_trace_new_rank (void);
void weft_trace_free_rank (WeftTrace *trace);
/* A collective: every rank's held rows go to rank 0, which merges them in one process's order
 * (each rank's rows are already in it, so this is a k-way merge), calls @patch (may be NULL)
 * on every /flows row, writes the rows to the file and flushes it; the other ranks' rows are
 * gone.  The trace stays ranked: rows appended afterwards wait for the next gather, so the run
 * may gather as it goes (at window boundaries, where every row held is final) and once more
 * at the end, after the last append and before weft_trace_close.  A /dcqcn or /uet row
 * whose flow's /flows row in the same gather comes before it is dropped (a sender's rank
 * samples a flow until it hears, at the window's end, that the flow has finished). */
typedef struct WeftParallel WeftParallelRef;
void weft_trace_gather (WeftTrace *trace, const WeftParallelRef *par,
                        void (*patch) (WeftTraceFlow *row, void *data), void *data);

/* The bytes of rows held for the next gather (ranked), or appended since the last flush. */
guint64 weft_trace_held_bytes (const WeftTrace *trace);

#endif /* WEFT_SIM_TRACE_H */
