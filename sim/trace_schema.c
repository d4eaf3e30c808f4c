/* sim/trace_schema.c - the records of sim/trace_schema.h as field tables and HDF5 types, and
 * the status names.
 *
 * The field tables come from the records' field lists, as the structs do, so the two cannot
 * disagree; the compound types of sim/trace_types.h are built from the tables at run time
 * (once per data set, when a trace is created or read), for the writer and the readers
 * alike.
 */
#include "config.h"
#define G_LOG_DOMAIN "weft-trace"
#include "sim/trace_types.h"

#include <stddef.h>
#include <string.h>

/* The field tables, <one>_fields for each record, from the lists in sim/trace_schema.h.
 * FIELD needs the struct for offsetof, which the lists leave out (each line would have to
 * repeat it), so ROW names it around each table. */
#define FIELD(kind, name, unit, doc)                                                               \
    { #name, offsetof (ROW, name), WEFT_TRACE_FIELD_##kind, unit, doc },

#define ROW WeftTraceNode
static const WeftTraceField node_fields[] = { WEFT_TRACE_NODE_FIELDS (FIELD) };
#undef ROW
#define ROW WeftTraceLink
static const WeftTraceField link_fields[] = { WEFT_TRACE_LINK_FIELDS (FIELD) };
#undef ROW
#define ROW WeftTraceFlow
static const WeftTraceField flow_fields[] = { WEFT_TRACE_FLOW_FIELDS (FIELD) };
#undef ROW
#define ROW WeftTraceLinkSample
static const WeftTraceField link_sample_fields[] = { WEFT_TRACE_LINK_SAMPLE_FIELDS (FIELD) };
#undef ROW
#define ROW WeftTracePort
static const WeftTraceField port_fields[] = { WEFT_TRACE_PORT_FIELDS (FIELD) };
#undef ROW
#define ROW WeftTraceCollective
static const WeftTraceField collective_fields[] = { WEFT_TRACE_COLLECTIVE_FIELDS (FIELD) };
#undef ROW
#define ROW WeftTracePathHop
static const WeftTraceField path_hop_fields[] = { WEFT_TRACE_PATH_HOP_FIELDS (FIELD) };
#undef ROW
#define ROW WeftTracePfcSample
static const WeftTraceField pfc_sample_fields[] = { WEFT_TRACE_PFC_SAMPLE_FIELDS (FIELD) };
#undef ROW
#define ROW WeftTraceDcqcnSample
static const WeftTraceField dcqcn_sample_fields[] = { WEFT_TRACE_DCQCN_SAMPLE_FIELDS (FIELD) };
#undef ROW
#define ROW WeftTraceBufferSample
static const WeftTraceField buffer_sample_fields[] = { WEFT_TRACE_BUFFER_SAMPLE_FIELDS (FIELD) };
#undef ROW
#define ROW WeftTraceFault
static const WeftTraceField fault_fields[] = { WEFT_TRACE_FAULT_FIELDS (FIELD) };
#undef ROW
#define ROW WeftTraceUetSample
static const WeftTraceField uet_sample_fields[] = { WEFT_TRACE_UET_SAMPLE_FIELDS (FIELD) };
#undef ROW
#undef FIELD

/* The initializer reads in the order of WeftTraceRecord's members. */
/* clang-format off */
#define RECORD(one, many, Struct, dataset, chunk_rows, since)                                      \
    const WeftTraceRecord weft_trace_record_##one = {                                              \
        dataset, #Struct, sizeof (Struct), chunk_rows, since,                                      \
        one##_fields, G_N_ELEMENTS (one##_fields),                                                 \
    };
WEFT_TRACE_RECORDS (RECORD)
#undef RECORD
/* clang-format on */

#define RECORD_REF(one, ...) &weft_trace_record_##one,
const WeftTraceRecord *const weft_trace_records[] = { WEFT_TRACE_RECORDS (RECORD_REF) NULL };
#undef RECORD_REF

hid_t
weft_trace_type_string (size_t len)
{
    hid_t t = H5Tcopy (H5T_C_S1);
    H5Tset_size (t, len);
    H5Tset_strpad (t, H5T_STR_NULLPAD);
    return t;
}

hid_t
weft_trace_type_record (const WeftTraceRecord *record)
{
    hid_t t = H5Tcreate (H5T_COMPOUND, record->row_size);
    for (guint i = 0; i < record->n_fields; i++) {
        const WeftTraceField *f = &record->fields[i];
        hid_t member = H5I_INVALID_HID, owned = H5I_INVALID_HID;
        switch (f->kind) {
        case WEFT_TRACE_FIELD_U8:
            member = H5T_NATIVE_UINT8;
            break;
        case WEFT_TRACE_FIELD_U32:
            member = H5T_NATIVE_UINT32;
            break;
        case WEFT_TRACE_FIELD_I32:
            member = H5T_NATIVE_INT32;
            break;
        case WEFT_TRACE_FIELD_U64:
            member = H5T_NATIVE_UINT64;
            break;
        case WEFT_TRACE_FIELD_F64:
            member = H5T_NATIVE_DOUBLE;
            break;
        case WEFT_TRACE_FIELD_NAME:
            member = owned = weft_trace_type_string (WEFT_TRACE_NAME_LEN);
            break;
        case WEFT_TRACE_FIELD_KIND:
            member = owned = weft_trace_type_string (WEFT_TRACE_KIND_LEN);
            break;
        case WEFT_TRACE_FIELD_SHORT:
            member = owned = weft_trace_type_string (WEFT_TRACE_SHORT_LEN);
            break;
        }
        H5Tinsert (t, f->name, f->offset, member);
        if (owned >= 0)
            H5Tclose (owned);
    }
    return t;
}

/* The standard little-endian type for a native member; strings are kept as they are. */
static hid_t
file_member (hid_t native)
{
    size_t size = H5Tget_size (native);
    switch (H5Tget_class (native)) {
    case H5T_INTEGER: {
        gboolean sign = H5Tget_sign (native) == H5T_SGN_2;
        switch (size) {
        case 1:
            return H5Tcopy (sign ? H5T_STD_I8LE : H5T_STD_U8LE);
        case 2:
            return H5Tcopy (sign ? H5T_STD_I16LE : H5T_STD_U16LE);
        case 4:
            return H5Tcopy (sign ? H5T_STD_I32LE : H5T_STD_U32LE);
        case 8:
            return H5Tcopy (sign ? H5T_STD_I64LE : H5T_STD_U64LE);
        }
        break;
    }
    case H5T_FLOAT:
        if (size == 8)
            return H5Tcopy (H5T_IEEE_F64LE);
        if (size == 4)
            return H5Tcopy (H5T_IEEE_F32LE);
        break;
    default:
        break;
    }
    return H5Tcopy (native);
}

hid_t
weft_trace_type_for_file (hid_t mem)
{
    int n = H5Tget_nmembers (mem);
    hid_t t = H5Tcreate (H5T_COMPOUND, H5Tget_size (mem));
    for (int i = 0; i < n; i++) {
        char *name = H5Tget_member_name (mem, (unsigned) i);
        hid_t native = H5Tget_member_type (mem, (unsigned) i);
        hid_t member = file_member (native);
        H5Tinsert (t, name, H5Tget_member_offset (mem, (unsigned) i), member);
        H5Tclose (member);
        H5Tclose (native);
        H5free_memory (name);
    }
    H5Tpack (t);
    return t;
}

static herr_t
take_innermost (unsigned n, const H5E_error2_t *err, void *data)
{
    char **out = data;
    if (n == 0 && err->desc != NULL)
        *out = g_strdup (err->desc);
    return 0;
}

char *
weft_trace_hdf5_reason (void)
{
    char *desc = NULL;
    H5Ewalk2 (H5E_DEFAULT, H5E_WALK_UPWARD, take_innermost, &desc);
    H5Eclear2 (H5E_DEFAULT);
    if (desc == NULL)
        return g_strdup ("HDF5 error");
    /* The file driver's own report spans lines (time, file name, descriptor, buffer...); what
     * a user needs of it is the system's reason, "error message = '...'". */
    const char *m = strstr (desc, "error message = '");
    if (m != NULL) {
        m += strlen ("error message = '");
        const char *end = strchr (m, '\'');
        char *reason = g_strndup (m, end ? (gsize) (end - m) : strlen (m));
        g_free (desc);
        desc = reason;
    }
    g_strdelimit (desc, "\r\n", ' ');
    return desc;
}

/* clang-format off */
static const char *const status_names[] = {
    [WEFT_TRACE_STATUS_RUNNING] = "running",
    [WEFT_TRACE_STATUS_DONE] = "done",
    [WEFT_TRACE_STATUS_DURATION] = "duration",
    [WEFT_TRACE_STATUS_HANG] = "hang",
    [WEFT_TRACE_STATUS_INTERRUPTED] = "interrupted",
    [WEFT_TRACE_STATUS_FAILED] = "failed",
    [WEFT_TRACE_STATUS_WORKLOAD_FAILED] = "workload-failed",
};
/* clang-format on */

const char *
weft_trace_status_name (WeftTraceStatus status)
{
    return (guint) status < G_N_ELEMENTS (status_names) ? status_names[status] : "unknown";
}

gboolean
weft_trace_status_complete (WeftTraceStatus status)
{
    return status == WEFT_TRACE_STATUS_DONE || status == WEFT_TRACE_STATUS_DURATION ||
           status == WEFT_TRACE_STATUS_HANG || status == WEFT_TRACE_STATUS_WORKLOAD_FAILED;
}

gboolean
weft_trace_status_from_name (const char *text, WeftTraceStatus *status)
{
    for (guint s = 0; s < G_N_ELEMENTS (status_names); s++)
        if (g_strcmp0 (text, status_names[s]) == 0) {
            *status = (WeftTraceStatus) s;
            return TRUE;
        }
    return FALSE;
}
