/* sim/trace_schema.c - the records of sim/trace_schema.h as HDF5 types, and the status names.
 *
 * Each record is a table of its members below; the compound types of sim/trace_types.h are
 * built from these tables, for the writer and the readers alike.  tests/check_trace.c
 * writes and reads back every field, which catches a member listed wrongly here.
 */
#include "config.h"
#define G_LOG_DOMAIN "weft-trace"
#include "sim/trace_types.h"

/* Member kinds of the record structs. */
typedef enum { F_U8, F_U32, F_I32, F_U64, F_F64, F_STR_NAME, F_STR_KIND, F_STR_SHORT } FieldKind;

typedef struct {
    const char *name;
    size_t offset;
    FieldKind kind;
} Field;

#define FIELD(type, member, kind) { #member, HOFFSET (type, member), kind }

static const Field node_fields[] = {
    FIELD (WeftTraceNode, id, F_U32),
    FIELD (WeftTraceNode, name, F_STR_NAME),
    FIELD (WeftTraceNode, kind, F_STR_KIND),
    FIELD (WeftTraceNode, n_ports, F_U32),
    FIELD (WeftTraceNode, tier, F_I32),
    { NULL, 0, 0 },
};

static const Field link_fields[] = {
    FIELD (WeftTraceLink, id, F_U32),
    FIELD (WeftTraceLink, node_a, F_U32),
    FIELD (WeftTraceLink, port_a, F_U32),
    FIELD (WeftTraceLink, node_b, F_U32),
    FIELD (WeftTraceLink, port_b, F_U32),
    FIELD (WeftTraceLink, rate_bps, F_U64),
    FIELD (WeftTraceLink, delay_ps, F_U64),
    FIELD (WeftTraceLink, kind, F_STR_KIND),
    { NULL, 0, 0 },
};

static const Field flow_fields[] = {
    FIELD (WeftTraceFlow, id, F_U32),
    FIELD (WeftTraceFlow, src, F_U32),
    FIELD (WeftTraceFlow, dst, F_U32),
    FIELD (WeftTraceFlow, size_bytes, F_U64),
    FIELD (WeftTraceFlow, start_ps, F_U64),
    FIELD (WeftTraceFlow, finish_ps, F_U64),
    FIELD (WeftTraceFlow, fct_ps, F_U64),
    FIELD (WeftTraceFlow, ideal_fct_ps, F_U64),
    FIELD (WeftTraceFlow, slowdown, F_F64),
    FIELD (WeftTraceFlow, packets, F_U64),
    FIELD (WeftTraceFlow, retransmits, F_U64),
    FIELD (WeftTraceFlow, bytes_delivered, F_U64),
    FIELD (WeftTraceFlow, finished, F_U8),
    FIELD (WeftTraceFlow, workload, F_STR_KIND),
    /* schema 4 */
    FIELD (WeftTraceFlow, ecn_marked, F_U64),
    FIELD (WeftTraceFlow, cnps_sent, F_U64),
    FIELD (WeftTraceFlow, cnps_received, F_U64),
    FIELD (WeftTraceFlow, rate_cuts, F_U64),
    FIELD (WeftTraceFlow, min_rate_bps, F_U64),
    FIELD (WeftTraceFlow, reorder_max, F_U64),
    { NULL, 0, 0 },
};

static const Field sample_fields[] = {
    FIELD (WeftTraceLinkSample, time_ps, F_U64),
    FIELD (WeftTraceLinkSample, link, F_U32),
    FIELD (WeftTraceLinkSample, direction, F_U8),
    FIELD (WeftTraceLinkSample, bytes, F_U64),
    FIELD (WeftTraceLinkSample, packets, F_U64),
    FIELD (WeftTraceLinkSample, max_queue_bytes, F_U64),
    FIELD (WeftTraceLinkSample, mean_queue_bytes, F_F64),
    FIELD (WeftTraceLinkSample, drops, F_U64),
    FIELD (WeftTraceLinkSample, stall_ps, F_U64), /* schema 2 */
    FIELD (WeftTraceLinkSample, ecn_marks, F_U64), /* schema 4 */
    { NULL, 0, 0 },
};

static const Field buffer_fields[] = {
    FIELD (WeftTraceBufferSample, time_ps, F_U64),
    FIELD (WeftTraceBufferSample, node, F_U32),
    FIELD (WeftTraceBufferSample, used_bytes, F_U64),
    FIELD (WeftTraceBufferSample, max_bytes, F_U64),
    FIELD (WeftTraceBufferSample, total_bytes, F_U64),
    FIELD (WeftTraceBufferSample, drops, F_U64),
    { NULL, 0, 0 },
};

static const Field port_fields[] = {
    FIELD (WeftTracePort, node, F_U32),
    FIELD (WeftTracePort, port, F_U32),
    FIELD (WeftTracePort, link, F_U32),
    FIELD (WeftTracePort, tx_bytes, F_U64),
    FIELD (WeftTracePort, rx_bytes, F_U64),
    FIELD (WeftTracePort, tx_packets, F_U64),
    FIELD (WeftTracePort, rx_packets, F_U64),
    FIELD (WeftTracePort, drops, F_U64),
    FIELD (WeftTracePort, max_queue_bytes, F_U64),
    FIELD (WeftTracePort, busy_ps, F_U64),
    /* schema 2 */
    FIELD (WeftTracePort, xmit_wait_ps, F_U64),
    FIELD (WeftTracePort, lossless_drops, F_U64),
    FIELD (WeftTracePort, symbol_errors, F_U64),
    FIELD (WeftTracePort, link_downed, F_U64),
    FIELD (WeftTracePort, rcv_errors, F_U64),
    FIELD (WeftTracePort, rate_bps, F_U64),
    FIELD (WeftTracePort, state, F_U8),
    FIELD (WeftTracePort, phys_state, F_U8),
    FIELD (WeftTracePort, link_layer, F_STR_KIND),
    FIELD (WeftTracePort, ecn_marks, F_U64), /* schema 4 */
    { NULL, 0, 0 },
};

/* schema 4 */
static const Field path_fields[] = {
    FIELD (WeftTracePathHop, flow, F_U32),
    FIELD (WeftTracePathHop, hop, F_U32),
    FIELD (WeftTracePathHop, node, F_U32),
    FIELD (WeftTracePathHop, port, F_U32),
    FIELD (WeftTracePathHop, link, F_U32),
    { NULL, 0, 0 },
};

static const Field pfc_fields[] = {
    FIELD (WeftTracePfcSample, time_ps, F_U64),
    FIELD (WeftTracePfcSample, node, F_U32),
    FIELD (WeftTracePfcSample, port, F_U32),
    FIELD (WeftTracePfcSample, link, F_U32),
    FIELD (WeftTracePfcSample, priority, F_U8),
    FIELD (WeftTracePfcSample, pauses_sent, F_U64),
    FIELD (WeftTracePfcSample, resumes_sent, F_U64),
    FIELD (WeftTracePfcSample, pauses_received, F_U64),
    FIELD (WeftTracePfcSample, paused_ps, F_U64),
    FIELD (WeftTracePfcSample, violations, F_U64),
    FIELD (WeftTracePfcSample, max_ingress_bytes, F_U64),
    { NULL, 0, 0 },
};

static const Field dcqcn_fields[] = {
    FIELD (WeftTraceDcqcnSample, time_ps, F_U64),
    FIELD (WeftTraceDcqcnSample, flow, F_U32),
    FIELD (WeftTraceDcqcnSample, rate_bps, F_U64),
    FIELD (WeftTraceDcqcnSample, target_bps, F_U64),
    FIELD (WeftTraceDcqcnSample, alpha, F_F64),
    FIELD (WeftTraceDcqcnSample, cnps_received, F_U64),
    FIELD (WeftTraceDcqcnSample, rate_cuts, F_U64),
    { NULL, 0, 0 },
};

/* /collectives (schema 3) */
static const Field collective_fields[] = {
    FIELD (WeftTraceCollective, id, F_U32),
    FIELD (WeftTraceCollective, workload, F_STR_KIND),
    FIELD (WeftTraceCollective, op, F_STR_KIND),
    FIELD (WeftTraceCollective, bytes, F_U64),
    FIELD (WeftTraceCollective, count, F_U64),
    FIELD (WeftTraceCollective, type, F_STR_SHORT),
    FIELD (WeftTraceCollective, redop, F_STR_SHORT),
    FIELD (WeftTraceCollective, root, F_I32),
    FIELD (WeftTraceCollective, n_ranks, F_U32),
    FIELD (WeftTraceCollective, in_place, F_U8),
    FIELD (WeftTraceCollective, warmup, F_U8),
    FIELD (WeftTraceCollective, iteration, F_U32),
    FIELD (WeftTraceCollective, start_ps, F_U64),
    FIELD (WeftTraceCollective, finish_ps, F_U64),
    FIELD (WeftTraceCollective, time_ps, F_U64),
    FIELD (WeftTraceCollective, algbw_gbs, F_F64),
    FIELD (WeftTraceCollective, busbw_gbs, F_F64),
    { NULL, 0, 0 },
};

hid_t
weft_trace_type_string (size_t len)
{
    hid_t t = H5Tcopy (H5T_C_S1);
    H5Tset_size (t, len);
    H5Tset_strpad (t, H5T_STR_NULLPAD);
    return t;
}

/* The native (struct layout) compound type of a member table. */
static hid_t
mem_type (const Field *fields, gsize row_size)
{
    hid_t t = H5Tcreate (H5T_COMPOUND, row_size);
    for (const Field *f = fields; f->name != NULL; f++) {
        hid_t member = H5I_INVALID_HID, owned = H5I_INVALID_HID;
        switch (f->kind) {
        case F_U8: member = H5T_NATIVE_UINT8; break;
        case F_U32: member = H5T_NATIVE_UINT32; break;
        case F_I32: member = H5T_NATIVE_INT32; break;
        case F_U64: member = H5T_NATIVE_UINT64; break;
        case F_F64: member = H5T_NATIVE_DOUBLE; break;
        case F_STR_NAME: member = owned = weft_trace_type_string (WEFT_TRACE_NAME_LEN); break;
        case F_STR_KIND: member = owned = weft_trace_type_string (WEFT_TRACE_KIND_LEN); break;
        case F_STR_SHORT: member = owned = weft_trace_type_string (WEFT_TRACE_SHORT_LEN); break;
        }
        H5Tinsert (t, f->name, f->offset, member);
        if (owned >= 0)
            H5Tclose (owned);
    }
    return t;
}

/* The memory types of sim/trace_types.h, one per record. */
#define DEFINE_TYPE(fn, fields, Type)                                                          \
    hid_t fn (void)                                                                            \
    {                                                                                          \
        return mem_type (fields, sizeof (Type));                                               \
    }

DEFINE_TYPE (weft_trace_type_node, node_fields, WeftTraceNode)
DEFINE_TYPE (weft_trace_type_link, link_fields, WeftTraceLink)
DEFINE_TYPE (weft_trace_type_flow, flow_fields, WeftTraceFlow)
DEFINE_TYPE (weft_trace_type_link_sample, sample_fields, WeftTraceLinkSample)
DEFINE_TYPE (weft_trace_type_buffer_sample, buffer_fields, WeftTraceBufferSample)
DEFINE_TYPE (weft_trace_type_port, port_fields, WeftTracePort)
DEFINE_TYPE (weft_trace_type_collective, collective_fields, WeftTraceCollective)
DEFINE_TYPE (weft_trace_type_path_hop, path_fields, WeftTracePathHop)
DEFINE_TYPE (weft_trace_type_pfc_sample, pfc_fields, WeftTracePfcSample)
DEFINE_TYPE (weft_trace_type_dcqcn_sample, dcqcn_fields, WeftTraceDcqcnSample)

/* The standard little-endian type for a native member; strings are kept as they are. */
static hid_t
file_member (hid_t native)
{
    size_t size = H5Tget_size (native);
    switch (H5Tget_class (native)) {
    case H5T_INTEGER: {
        gboolean sign = H5Tget_sign (native) == H5T_SGN_2;
        switch (size) {
        case 1: return H5Tcopy (sign ? H5T_STD_I8LE : H5T_STD_U8LE);
        case 2: return H5Tcopy (sign ? H5T_STD_I16LE : H5T_STD_U16LE);
        case 4: return H5Tcopy (sign ? H5T_STD_I32LE : H5T_STD_U32LE);
        case 8: return H5Tcopy (sign ? H5T_STD_I64LE : H5T_STD_U64LE);
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
    return desc != NULL ? desc : g_strdup ("HDF5 error");
}

static const char *const status_names[] = {
    [WEFT_TRACE_STATUS_RUNNING] = "running",
    [WEFT_TRACE_STATUS_DONE] = "done",
    [WEFT_TRACE_STATUS_DURATION] = "duration",
    [WEFT_TRACE_STATUS_HANG] = "hang",
    [WEFT_TRACE_STATUS_INTERRUPTED] = "interrupted",
    [WEFT_TRACE_STATUS_FAILED] = "failed",
};

const char *
weft_trace_status_name (WeftTraceStatus status)
{
    return (guint) status < G_N_ELEMENTS (status_names) ? status_names[status] : "unknown";
}

gboolean
weft_trace_status_complete (WeftTraceStatus status)
{
    return status == WEFT_TRACE_STATUS_DONE || status == WEFT_TRACE_STATUS_DURATION
           || status == WEFT_TRACE_STATUS_HANG;
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
