/* sim/trace_types.h - the HDF5 types of the records in sim/trace_schema.h, built in one place.
 *
 * The writer (sim/trace.c) and the readers (analysis/) both take their compound types from
 * here, built from the records' field tables, so a record's members are listed once.  A
 * memory type follows its struct (native types, offsetof, padding);
 * weft_trace_type_for_file() turns it into the type stored in the file: the same members in
 * little-endian standard types, packed, so a file does not depend on the writer's ABI.  HDF5
 * converts compound members by name, so a reader keeps working when a later schema adds
 * members.
 *
 * Kept apart from sim/trace_schema.h so that the models, which include the schema for its
 * structs, do not see HDF5.  Only sim/trace*.c and analysis/ include this header.
 */
#ifndef WEFT_SIM_TRACE_TYPES_H
#define WEFT_SIM_TRACE_TYPES_H

#include <glib.h>
#include <hdf5.h>

#include "sim/trace_schema.h"

/* The memory compound type of @record (weft_trace_record_flow, ...): its fields at their
 * struct offsets, in native types.  (transfer full: H5Tclose) */
hid_t weft_trace_type_record (const WeftTraceRecord *record);

/* The file type for a memory type from above: little-endian standard members, packed.
 * (transfer full: H5Tclose) */
hid_t weft_trace_type_for_file (hid_t mem_type);

/* A fixed-size, NUL-padded string type of @len bytes.  (transfer full: H5Tclose) */
hid_t weft_trace_type_string (size_t len);

/* The innermost description on HDF5's error stack ("HDF5 error" if there is none), and the
 * stack cleared.  (transfer full) */
char *weft_trace_hdf5_reason (void);

/* Writes the scalar attribute @name of @obj (a group or data set) as one @type value at @value,
 * replacing one that exists; FALSE on an HDF5 failure (its reason on HDF5's error stack). */
gboolean weft_trace_attr_write (hid_t obj, const char *name, hid_t type, const void *value);

/* The same for a string: variable-length UTF-8 (h5py reads it as str); NULL is stored as "". */
gboolean weft_trace_attr_write_string (hid_t obj, const char *name, const char *value);

#endif /* WEFT_SIM_TRACE_TYPES_H */
