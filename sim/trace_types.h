/* sim/trace_types.h - the HDF5 types of the records in sim/trace_schema.h, built in one place.
 *
 * The writer (sim/trace.c) and the readers (analysis/) both take their compound types from
 * here, so a record's members are listed once.  A memory type follows its struct (native
 * types, HOFFSET, padding); weft_trace_type_for_file() turns it into the type stored in the
 * file: the same members in little-endian standard types, packed, so a file does not depend
 * on the writer's ABI.  HDF5 converts compound members by name, so a reader keeps working
 * when a later schema adds members.
 *
 * Kept apart from sim/trace_schema.h so that the models, which include the schema for its
 * structs, do not see HDF5.  Only sim/trace*.c and analysis/ include this header.
 */
#ifndef WEFT_SIM_TRACE_TYPES_H
#define WEFT_SIM_TRACE_TYPES_H

#include <glib.h>
#include <hdf5.h>

#include "sim/trace_schema.h"

/* Memory compound types, one per record; the caller closes each with H5Tclose. */
hid_t weft_trace_type_node (void);        /* WeftTraceNode */
hid_t weft_trace_type_link (void);        /* WeftTraceLink */
hid_t weft_trace_type_flow (void);        /* WeftTraceFlow */
hid_t weft_trace_type_link_sample (void); /* WeftTraceLinkSample */
hid_t weft_trace_type_port (void);        /* WeftTracePort */
hid_t weft_trace_type_buffer_sample (void); /* WeftTraceBufferSample */
hid_t weft_trace_type_collective (void);  /* WeftTraceCollective */
hid_t weft_trace_type_path_hop (void);    /* WeftTracePathHop (schema 4) */
hid_t weft_trace_type_pfc_sample (void);  /* WeftTracePfcSample (schema 4) */
hid_t weft_trace_type_dcqcn_sample (void); /* WeftTraceDcqcnSample (schema 4) */

/* The file type for a memory type from above: little-endian standard members, packed.
 * (transfer full: H5Tclose) */
hid_t weft_trace_type_for_file (hid_t mem_type);

/* A fixed-size, NUL-padded string type of @len bytes.  (transfer full: H5Tclose) */
hid_t weft_trace_type_string (size_t len);

/* The innermost description on HDF5's error stack ("HDF5 error" if there is none), and the
 * stack cleared.  (transfer full) */
char *weft_trace_hdf5_reason (void);

#endif /* WEFT_SIM_TRACE_TYPES_H */
