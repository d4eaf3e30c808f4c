/* sim/trace_schema.h - the records of a weft trace file (HDF5), defined once.
 *
 * sim/trace.c writes these as compound data sets (chunked, deflate-compressed, extendable,
 * appended and flushed during the run); analysis/ reads them.  Their HDF5 types are built
 * once, in sim/trace_schema.c (declared in sim/trace_types.h), for writer and readers alike.
 * doc/hdf5-schema.md documents every data set, field, unit and type; change them together
 * and bump the version.
 *
 * Units: times in picoseconds (uint64), sizes in bytes, rates in bits per second.
 */
#ifndef WEFT_SIM_TRACE_SCHEMA_H
#define WEFT_SIM_TRACE_SCHEMA_H

#include <glib.h>

#define WEFT_TRACE_SCHEMA_VERSION 4
#define WEFT_TRACE_NAME_LEN 64 /* fixed-size, NUL-padded name fields */
#define WEFT_TRACE_KIND_LEN 16
#define WEFT_TRACE_SHORT_LEN 16 /* /collectives type and redop (8 before schema 4) */

/* /topology/nodes: one row per node. */
typedef struct {
    guint32 id;
    char name[WEFT_TRACE_NAME_LEN];
    char kind[WEFT_TRACE_KIND_LEN]; /* "host", "switch", "gpu", "nic", ... */
    guint32 n_ports;
    gint32 tier;                    /* switches: 1 leaf, 2 spine, 3 core; else 0 */
} WeftTraceNode;

/* /topology/links: one row per full-duplex link. */
typedef struct {
    guint32 id;
    guint32 node_a, port_a; /* port numbers as shown to users: 1-based */
    guint32 node_b, port_b;
    guint64 rate_bps;
    guint64 delay_ps;       /* propagation delay, each way */
    char kind[WEFT_TRACE_KIND_LEN]; /* "fabric", "nvlink", "pcie" */
} WeftTraceLink;

/* /flows: one row per flow, appended as flows finish (and, at the end, for unfinished ones). */
typedef struct {
    guint32 id;
    guint32 src, dst;        /* node ids */
    guint64 size_bytes;      /* application payload */
    guint64 start_ps;        /* first byte handed to the sender's transport */
    guint64 finish_ps;       /* last byte delivered to the receiving application; 0 if unfinished */
    guint64 fct_ps;          /* finish - start; 0 if unfinished */
    guint64 ideal_fct_ps;    /* alone on an idle fabric: wire bytes / bottleneck rate + path latency */
    double slowdown;         /* fct / ideal; 0 if unfinished */
    guint64 packets;         /* data packets of the flow (first transmissions) */
    guint64 retransmits;     /* data packets sent again */
    guint64 bytes_delivered; /* payload delivered in order to the application */
    guint8 finished;         /* 1 finished, 0 still waiting at the end of the run */
    char workload[WEFT_TRACE_KIND_LEN]; /* workload group suffix, truncated */
    /* schema 4: congestion signals (RoCE; 0 elsewhere) and reordering */
    guint64 ecn_marked;      /* data packets that reached the receiver marked CE */
    guint64 cnps_sent;       /* CNPs the receiver sent for this flow (DCQCN notification point) */
    guint64 cnps_received;   /* CNPs that reached the sender (reaction point) */
    guint64 rate_cuts;       /* DCQCN rate decreases */
    guint64 min_rate_bps;    /* lowest DCQCN rate reached; 0 without DCQCN */
    guint64 reorder_max;     /* farthest out-of-order arrival, in packets ahead of the next
                                expected (adaptive routing) */
} WeftTraceFlow;

/* /links: samples per link and direction at [trace] interval; counters are per interval. */
typedef struct {
    guint64 time_ps;        /* end of the interval */
    guint32 link;
    guint8 direction;       /* 0: node_a -> node_b, 1: node_b -> node_a */
    guint64 bytes;          /* wire bytes whose transmission finished in the interval */
    guint64 packets;
    guint64 max_queue_bytes;  /* egress queue depth feeding this direction */
    double mean_queue_bytes;  /* time-weighted over the interval */
    guint64 drops;            /* packets dropped at that egress queue in the interval */
    guint64 stall_ps;         /* time in the interval with data waiting and no credits to send it
                                 (InfiniBand), or the egress paused by PFC, summed over
                                 priorities (RoCE); 0 elsewhere */
    guint64 ecn_marks;        /* schema 4: packets marked CE at that egress in the interval */
} WeftTraceLinkSample;

/* /buffers: samples of each switch's shared buffer ([switch] buffer_sharing) at [trace]
 * interval; none for switches without one. */
typedef struct {
    guint64 time_ps;        /* end of the interval */
    guint32 node;
    guint64 used_bytes;     /* held at the end of the interval */
    guint64 max_bytes;      /* the most held during the interval */
    guint64 total_bytes;    /* shared_buffer */
    guint64 drops;          /* packets refused in the interval (threshold or pool full) */
} WeftTraceBufferSample;

/* /ports: final 64-bit counters per connected port, written at the end. */
typedef struct {
    guint32 node;
    guint32 port;           /* 1-based */
    guint32 link;
    guint64 tx_bytes, rx_bytes; /* wire bytes */
    guint64 tx_packets, rx_packets;
    guint64 drops;          /* tail drops at this port's egress queue */
    guint64 max_queue_bytes;
    guint64 busy_ps;        /* time the transmitter was sending */
    /* In the spirit of perfquery -x (64-bit) and ibstat; the perfquery names follow from these:
     * PortXmitData / PortRcvData = tx_bytes / rx_bytes divided by 4 (IB counts 4-byte words),
     * PortXmitPkts / PortRcvPkts = tx_packets / rx_packets, PortXmitDiscards = drops. */
    guint64 xmit_wait_ps;   /* PortXmitWait: time with data to send and no credits for it
                               (InfiniBand); RoCE: time paused by PFC, summed over priorities */
    guint64 lossless_drops; /* dropped for lack of buffer on a lossless fabric: a bug on
                               InfiniBand; on RoCE, PFC lossless violations at this ingress
                               (headroom too small) */
    guint64 symbol_errors;  /* SymbolErrorCounter (moved only by injected faults) */
    guint64 link_downed;    /* LinkDownedCounter (faults only) */
    guint64 rcv_errors;     /* PortRcvErrors (faults only) */
    guint64 rate_bps;       /* the link's rate */
    guint8 state;           /* PortState as IB numbers it: 1 Down, 2 Init, 3 Armed, 4 Active */
    guint8 phys_state;      /* PortPhysicalState: 2 Polling, 3 Disabled, 5 LinkUp */
    char link_layer[WEFT_TRACE_KIND_LEN]; /* "InfiniBand" or "Ethernet" */
    guint64 ecn_marks;      /* schema 4: packets marked CE at this egress */
} WeftTracePort;

/* /paths (schema 4): the hops of each flow's data packets, written with the flow's /flows row,
 * when routing decides per flow (ecmp or static; under adaptive routing each packet chooses
 * and no rows are written).  Hop 0 leaves the sender. */
typedef struct {
    guint32 flow;
    guint32 hop;
    guint32 node;           /* the node the packet leaves */
    guint32 port;           /* through this port, 1-based */
    guint32 link;           /* onto this link */
} WeftTracePathHop;

/* /pfc (schema 4): PFC per port and priority at [trace] interval; a row for each (port,
 * priority) with anything to report in the interval.  Counters are per interval. */
typedef struct {
    guint64 time_ps;        /* end of the interval */
    guint32 node;
    guint32 port;           /* 1-based */
    guint32 link;
    guint8 priority;        /* 0-7 */
    guint64 pauses_sent;    /* PAUSE frames this port sent upstream (its ingress crossed xoff,
                               or a refresh) */
    guint64 resumes_sent;   /* resume frames (pause time 0) sent upstream */
    guint64 pauses_received;  /* PAUSE frames that reached this port (its egress obeys) */
    guint64 paused_ps;      /* time this port's egress was paused at this priority */
    guint64 violations;     /* lossless violations at this ingress (headroom overflowed) */
    guint64 max_ingress_bytes; /* deepest ingress accounting of this (port, priority) */
} WeftTracePfcSample;

/* /dcqcn (schema 4): the DCQCN state of every flow under way (started, not finished) at each
 * [trace] interval, when DCQCN is on. */
typedef struct {
    guint64 time_ps;
    guint32 flow;
    guint64 rate_bps;       /* current rate Rc */
    guint64 target_bps;     /* target rate Rt */
    double alpha;           /* as of the flow's last alpha update */
    guint64 cnps_received;  /* since the flow started */
    guint64 rate_cuts;      /* since the flow started */
} WeftTraceDcqcnSample;

/* /collectives (schema 3): one row per collective operation, appended as each finishes. */
typedef struct {
    guint32 id;             /* collective instance, dense in start order */
    char workload[WEFT_TRACE_KIND_LEN]; /* workload group suffix, truncated */
    char op[WEFT_TRACE_KIND_LEN];       /* nccl-tests names: all_reduce, all_gather,
                                           reduce_scatter, broadcast, reduce, alltoall,
                                           sendrecv */
    guint64 bytes;          /* nccl-tests' size column */
    guint64 count;          /* elements of `type` */
    char type[WEFT_TRACE_SHORT_LEN];  /* "float", "half", ... */
    char redop[WEFT_TRACE_SHORT_LEN]; /* "sum", ... or "none" */
    gint32 root;            /* broadcast / reduce root rank, else -1 */
    guint32 n_ranks;
    guint8 in_place;        /* 0 out-of-place, 1 in-place */
    guint8 warmup;          /* 1 for warm-up iterations (not in nccl-tests' averages) */
    guint32 iteration;      /* within its size and placement */
    guint64 start_ps, finish_ps;
    guint64 time_ps;        /* finish - start */
    double algbw_gbs;       /* bytes / time, in GB/s (10^9 bytes per second), as nccl-tests */
    double busbw_gbs;       /* algbw x the op's bus factor */
} WeftTraceCollective;

/* /meta attributes written when the file is opened. */
typedef struct {
    const char *weft_version;
    const char *git_revision;
    const char *experiment_text; /* resolved experiment (includes, overrides) */
    const char *experiment_path;
    guint64 seed;
    const char *glib_version, *hdf5_version, *gsl_version; /* filled by trace.c when NULL */
} WeftTraceMeta;

/* /meta attributes written at the end (and by the interrupt path).  Whether the closed trace
 * is complete follows from the status: see weft_trace_status_complete(). */
typedef enum {
    WEFT_TRACE_STATUS_RUNNING = 0,   /* on disk while the run goes on; a file still saying this was killed */
    WEFT_TRACE_STATUS_DONE = 1,      /* workload completed */
    WEFT_TRACE_STATUS_DURATION = 2,  /* stopped at [experiment] duration */
    WEFT_TRACE_STATUS_HANG = 3,      /* watchdog saw no progress for hang_timeout */
    WEFT_TRACE_STATUS_INTERRUPTED = 4, /* SIGINT / SIGTERM */
    WEFT_TRACE_STATUS_FAILED = 5,    /* runtime failure */
} WeftTraceStatus;

typedef struct {
    WeftTraceStatus status;
    guint64 sim_time_ps;
    double wall_time_s;
    guint64 events;
    const char *message; /* failure reason (one line) or hang report (a line per waiting flow
                            and deadlock cycle); may be NULL */
} WeftTraceEnd;

/* The /meta status text of a status ("running", "done", ...; "unknown" if out of range),
 * and back; FALSE for a text that names no status.  HDF5 types: sim/trace_types.h. */
const char *weft_trace_status_name (WeftTraceStatus status);
gboolean weft_trace_status_from_name (const char *text, WeftTraceStatus *status);

/* Whether a trace closed with @status holds the whole run (/meta complete = 1): done,
 * duration and hang do - a hang trace is complete data about a hung run; interrupted and
 * failed stop short, and running was never closed. */
gboolean weft_trace_status_complete (WeftTraceStatus status);

#endif /* WEFT_SIM_TRACE_SCHEMA_H */
