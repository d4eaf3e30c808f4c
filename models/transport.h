/* models/transport.h - the reliable message transport shared by the hosts' NICs: the flow
 * table, its parameters, and the path arithmetic done before the run.
 *
 * Models (baseline, replaced per fabric by later issues): a message is segmented into packets
 * of at most `mtu` payload; every data packet is acknowledged with a cumulative ACK; the sender
 * keeps at most `window` packets unacknowledged (no congestion control) - by default one
 * bandwidth-delay product of the flow's own path plus one packet (plus ack_every - 1), so a
 * lone flow runs at line rate; the receiver accepts packets in order only and discards the rest
 * (go-back-N), answering the first out-of-order packet of a gap with a NAK that sends the sender
 * back to the first missing packet (RoCE's sequence-error NAK); a retransmission timeout sends
 * everything from the first unacknowledged packet again.  The timeout depends on the fabric:
 *  - Ethernet: RFC 6298 (SRTT + 4 RTTVAR, Karn's rule, exponential backoff, clamped to
 *    [rto_min, rto_max]);
 *  - InfiniBand and RoCE, whose NICs run RDMA reliable connections (RC): the QP's local ACK
 *    timeout, fixed at 4.096 us x 2^rc_timeout (IBA; ibv_modify_qp's `timeout`) and restarted
 *    by every ACK that makes progress, with a retry counter (`rc_retry_cnt`) that progress
 *    resets; the timeout after the last retry fails the connection, and the workload with it
 *    (weft_transport_flow_failed: NCCL reports "transport retry counter exceeded").  No RTT
 *    estimate, no backoff.  rc_timeout = 0 never times out (as in verbs).  The timer runs only
 *    while a packet is outstanding.  doc/transport.md has the sources and the defaults (NCCL's).
 * With `recovery = selective-repeat` the receiver places packets beyond a gap (as with adaptive
 * routing), NAKs the first missing packet once per gap - on the first arrival beyond it, or as
 * soon as the gap before it heals and placed packets wait beyond the next one - and the sender
 * resends that packet alone; a timeout resends the first unacknowledged packet alone.  ACK
 * coalescing (`ack_every` = N, default 1): the receiver acknowledges every Nth in-order packet
 * and the last packet of a message; an out-of-order or duplicate arrival, and on InfiniBand a
 * packet marked FECN (its ACK carries the BECN, models/ibcc.h), is answered at once.  There is
 * no delayed-ACK timer, so a window must hold at least N packets.
 *
 * Each flow's sender half is touched only by its source's agent (models/nic.h) and its receiver
 * half only by its destination's.
 *
 * Accounting identity, exact at every instant: data transmissions = packets + retransmits, and
 * every transmission is accepted once, dropped at a queue, discarded as out of order, discarded
 * as a duplicate, or still in flight.  Tests check it.
 */
#ifndef WEFT_MODELS_TRANSPORT_H
#define WEFT_MODELS_TRANSPORT_H

#include "models/fabric.h"
#include "models/pathcache.h"
#include "workloads/workload.h"
#include "sim/graph.h"
#include "sim/sim.h"
#include "sim/timer.h"
#include "sim/trace.h"

typedef struct WeftFlow WeftFlow;

/* [transport] recovery. */
typedef enum { WEFT_RECOVERY_GO_BACK_N, WEFT_RECOVERY_SELECTIVE_REPEAT } WeftRecovery;
typedef struct WeftNicAgent WeftNicAgent; /* models/nic.h: an endpoint's transport engine */

/* A flow's receiver state for packets placed out of order, and how far out of order they came
 * (the /flows reorder columns): a side array of WeftTransport (ooo_flows), present only where
 * packets can be placed out of order - adaptive routing, selective repeat, [fabric] spray - or
 * counted as reordered (Ultra Ethernet), so a run on static or ECMP paths with go-back-N pays
 * nothing for it. */
typedef struct {
    guint8 *bits; /* packets beyond rcv_nxt already placed (owned; NULL without a gap) */
    guint64 high; /* one past the highest packet placed out of order */
    guint64 reorder_count, reorder_sum, reorder_max; /* out-of-order arrivals, how far ahead */
    guint64 resend_seq; /* the sender's, with selective repeat: the one packet to send again */
} WeftOooFlow;

/* A flow's round-trip estimates (RFC 6298), where its timeout follows them: a side array of
 * WeftTransport by flow id (rtt_flows), absent where the transport is RC (InfiniBand, RoCE),
 * whose timeout is fixed. */
typedef struct {
    weft_time_t srtt, rttvar;
} WeftRttFlow;

/* A flow's loss and recovery counters: made the first time it has one to count (a timeout, a
 * packet sent again, a NAK, a discarded arrival), so a lossless run's flows have none and their
 * records stay small.  Read through weft_flow_loss_of, which gives zeros for a flow without. */
typedef struct {
    guint64 retransmits, timeouts;
    guint64 naks;                       /* NAKs received */
    guint64 ooo_discards, dup_discards; /* at the receiver */
    guint32 rc_retries; /* RC: timeouts since the last progress (the retry counter used up) */
} WeftFlowLoss;

/* A collective at run time.  Gating: it starts once every gate (its spec's `gate` and every
 * WeftCollGate naming it) has completed, at the latest of their finish times plus their gaps,
 * and never before spec.gap_ps when spec.gate is G_MAXUINT32 (a gate on a time: a training
 * step's first bucket is ready at an absolute time).  Without gates it starts at spec.gap_ps. */
typedef struct {
    WeftCollInstance spec;
    guint32 remaining;    /* flows not yet delivered */
    guint32 waiting;      /* gates not yet completed */
    weft_time_t ready_ps; /* the latest start its completed gates (and time floor) allow */
    weft_time_t start_ps, finish_ps;
    gboolean started, finished;
    guint16 layout; /* the layout it runs (spec.n_layouts > 1: its staging epoch), from 0 */
} WeftCollRun;
/* A flow (one message): its spec, its sender half (touched only by its source's agent) and its
 * receiver half (only by its destination's).  Hot fields first: the first three cache lines hold
 * what the NICs read for every packet sent or received (models/nic.c: sendable, pull_next,
 * on_ack, on_data); the spec, set-up results, counters and timers follow.  The per-fabric
 * congestion-control and Ultra Ethernet state is out of line (WeftTransport's side arrays), so
 * a run pays for it only on the fabrics that use it. */
struct WeftFlow {
    /* Sender half, hot. */
    guint64 snd_una, snd_nxt, snd_max;
    guint32 n_pkts;
    guint32 window_pkts;
    guint32 last_payload; /* payload of the last packet */
    guint32 hash;         /* 5-tuple entropy (per-flow UDP source port) */
    WeftFlow *ring_next;
    /* Per-flow pacing (IB CC's inter-packet delay, DCQCN's rate): the next packet may start
     * no earlier than next_ps; a flow that must wait is off the NIC's ring while pace_timer
     * is pending, and its expiry wakes it. */
    weft_time_t pace_next_ps;
    /* The rate its source may feed it at: the slowest link up to and including the first
     * NIC's egress on its path (models/nic.c paces the source's port at it). */
    guint64 feed_bps;
    guint32 src_ep, dst_ep;
    guint16 tx_port;    /* the source's port of the first hop */
    guint16 ack_port;   /* the destination's port toward the source (ACKs) */
    guint8 vl;          /* InfiniBand virtual lane of its service level */
    guint8 unused;      /* of a layout its collective did not take (spec.layout): never runs */
    guint8 start_keyed; /* released by its collective's gate or by a flow another node receives:
                           its start is keyed WEFT_KEY_START (models/nic.h), not by a counter */
    /* Flags, TRUE or FALSE (a byte each: the record is kept for every flow of the run). */
    guint8 started, in_ring;
    guint8 resend;
    guint8 nic_path; /* its path crosses a fabric link: the RDMA NICs' latencies and message
                        rate apply at both ends ([nic]); not over NVLink or PCIe alone */
    /* Per-fabric state, out of line (WeftTransport's side arrays): NULL on the fabrics that
     * never use it, so a flow record stays small (an InfiniBand run without [ibcc] has none). */
    WeftIbccFlow *cc;     /* [ibcc]: CCT index (models/ibcc.h) */
    WeftDcqcnFlow *dcqcn; /* [dcqcn] and [ecn]: rate, alpha, CNPs, CE marks (models/dcqcn.h) */
    WeftUetFlow *uet;     /* Ultra Ethernet, or [fabric] spray: EVs, RUD bitmaps, NSCC window,
                             RCCC credit (models/uet.h) */
    WeftOooFlow *ooo;     /* out-of-order placement and reorder statistics, where packets can
                             be placed out of order (WeftTransport.ooo_flows) */

    /* Receiver half, hot. */
    guint64 rcv_nxt, delivered;
    guint32 unacked;     /* in-order packets since the last ACK (ack_every) */
    guint32 active_slot; /* its index in WeftTransport.active while under way */
    guint8 nak_sent;     /* a NAK for the current gap is out: stay silent until it heals */
    guint8 finished;
    guint8 gated;       /* waits for its collective's gate */
    guint8 failed;      /* RC: the connection gave up (retry counter exceeded) */
    guint8 device_lost; /* its path crosses a NIC removed mid-run (weft_transport_device_lost):
                           its connection is in error, and it fails as it starts */

    WeftFlowSpec spec;
    weft_time_t ideal_fct_ps;
    weft_time_t base_rtt_ps;
    guint32 waiting; /* predecessors (flows, or its collective's gate) not yet met */

    /* Sender half: timers, recovery and counters. */
    WeftNicAgent *sender; /* the source's agent (set when the start is scheduled) */
    weft_time_t rto;      /* RC: the fixed local ACK timeout (or NEVER); else RFC 6298's, from the
                             estimates in WeftTransport.rtt_flows */
    WeftTimer rto_timer;  /* retransmission deadline: pending while data is outstanding */
    WeftTimer pace_timer;
    WeftFlow *conn_next; /* the next message of its connection, waiting for this one */
    WeftFlowLoss *loss;  /* owned; NULL until it has a loss to count (weft_flow_loss) */

    /* Receiver half: counters. */
    guint64 acks_sent;    /* ACKs and NAKs sent */
    weft_time_t start_ps; /* when it actually started (its dependencies may delay it) */
    weft_time_t finish_ps;
};
/* The hot sender and receiver fields in the first three cache lines; 344 bytes in all
 * (cli/footprint.c counts sizeof (WeftFlow) per flow; doc/scale.md). */
G_STATIC_ASSERT (G_STRUCT_OFFSET (WeftFlow, spec) <= 192);
G_STATIC_ASSERT (sizeof (WeftFlow) == 344);

/* @f's loss counters, made at the first count. */
static inline WeftFlowLoss *
weft_flow_loss (WeftFlow *f)
{
    if (G_UNLIKELY (!f->loss))
        f->loss = g_new0 (WeftFlowLoss, 1);
    return f->loss;
}

/* @f's loss counters to read: zeros for a flow that never had any. */
static inline const WeftFlowLoss *
weft_flow_loss_of (const WeftFlow *f)
{
    static const WeftFlowLoss none = { 0 };
    return f->loss ? f->loss : &none;
}

typedef struct {
    guint64 window_bytes; /* [transport] window; 0: automatic */
    guint64 ack_every;    /* [transport] ack_every: ACK every Nth in-order packet */
    weft_time_t rto_min, rto_initial, rto_max; /* Ethernet: RFC 6298 */
    guint64 rc_timeout;   /* InfiniBand, RoCE: local ACK timeout exponent (0: none) */
    guint64 rc_retry_cnt; /* InfiniBand, RoCE: retries after a timeout before the QP fails */
    int recovery;         /* WeftRecovery: [transport] recovery */

    gboolean rc;               /* the RC timeout model (InfiniBand, RoCE) rather than RFC 6298 */
    weft_time_t rc_timeout_ps; /* 4.096 us x 2^rc_timeout; WEFT_TIME_NEVER for 0 */
    const WeftFlow *failed;    /* the first flow whose connection failed, or NULL */
    weft_time_t failed_ps;     /* when it failed */
    /* A NIC removed mid-run (weft_transport_device_lost): the failure is that device's fatal
     * error rather than a retry counter. */
    guint32 lost_nic;       /* its graph node (valid while lost_cause is set) */
    const char *lost_cause; /* the [fault.NAME] group that removed it (borrowed), or NULL */
    weft_time_t lost_ps;    /* when it was removed */

    const WeftFabric *fabric; /* borrowed */
    const WeftGraph *graph;   /* borrowed */
    guint64 seed;
    WeftFlow *flows;
    guint n_flows;
    /* The flows' per-fabric state, one entry per flow (WeftFlow.cc, .dcqcn, .uet, .ooo point into
     * them), allocated by weft_transport_setup only where the fabric uses it (owned; NULL
     * otherwise): InfiniBand CC's with [ibcc] enabled, DCQCN's with [dcqcn] or ECN marking, Ultra
     * Ethernet's with [uet] or [fabric] spray. */
    WeftIbccFlow *ibcc_flows;
    WeftDcqcnFlow *dcqcn_flows;
    WeftUetFlow *uet_flows;
    WeftOooFlow *ooo_flows;    /* where packets can be placed out of order, or with Ultra Ethernet
                                  (WeftFlow.ooo; owned, NULL otherwise) */
    WeftRttFlow *rtt_flows;    /* RFC 6298's estimates by flow id where the transport is not RC
                                  (owned; NULL on InfiniBand and RoCE) */
    GPtrArray *workload_names; /* borrowed */
    WeftTrace *trace;          /* borrowed; may be NULL */
    guint64 flows_done;
    guint64 flows_unused;   /* flows of layouts their collectives did not take (never run) */
    GArray *active;         /* guint32 ids of the flows under way (started, not finished),
                               in no particular order: what per-interval samples visit */
    gboolean accept_ooo;    /* receivers place out-of-order packets (adaptive routing) */
    weft_time_t net_rtt_ps; /* the largest base RTT among the flows: the network's unloaded
                               RTT, which NSCC derives its parameters from (models/nscc.h) */
    const WeftUet *uet;     /* Ultra Ethernet's transport (models/uet.h); NULL on other fabrics */
    const WeftUet *spray;   /* the EV policy of every data packet (models/uet.h): Ultra Ethernet's
                               [uet], or [fabric] spray on Ethernet and RoCE; NULL without */
    WeftRcccRx *rccc_rx;    /* RCCC: each node's receive credit pool (owned; NULL without RCCC) */

    /* Dependencies: the flows waiting for flow i are dep_list[dep_first[i] .. dep_first[i+1]). */
    guint32 *dep_first, *dep_list;
    /* Collectives, and their run-time state.  The collectives gated on collective c (with
     * their gaps) are gated[gated_first[c] .. gated_first[c+1]). */
    WeftCollRun *colls;
    guint n_colls;
    guint32 *gated_first;
    WeftCollGate *gated;
    /* Starts a flow whose predecessors are met (set by the builder: weft_nic_start_flow_at). */
    void (*start_flow) (WeftNicAgent *sender, WeftFlow *f, weft_time_t at, gboolean keyed);
    void (*collective_done) (const WeftCollRun *c, void *data); /* may be NULL */
    void *collective_done_data;
    /* Collective @c begins its first step at c->start_ps (not earlier than now): the fault
     * groups that wait for it (`after =`, models/fault.c) are scheduled then.  May be NULL. */
    void (*collective_started) (const WeftCollRun *c, void *data);
    void *collective_started_data;
    /* Across ranks (network/window.c, doc/parallel.md; all NULL in one process): a flow that
     * waits for flow f and is sent by another rank is released there, by a notice
     * (release_remote, with f's finish time); a collective's flows finish on many ranks, so
     * its completion is counted at the window's end (coll_flow_done, called for every flow
     * of a collective delivered here, instead of counting down `remaining`); ready_ps (owned),
     * per flow, the latest time one of its predecessors was met; finished_remote, whether a
     * flow sent here and received on another rank is known to have finished there. */
    void (*release_remote) (WeftFlow *f, weft_time_t at, void *data);
    void (*coll_flow_done) (WeftCollRun *c, WeftSim *sim, void *data);
    gboolean (*finished_remote) (const WeftFlow *f, void *data);
    void *cross_data;
    weft_time_t *ready_ps;
    gboolean coll_quiet; /* completing collectives another rank records */
    /* The flows' route walks per (source, destination), made by weft_transport_setup (owned;
     * NULL where routing is adaptive or packets are sprayed; models/pathcache.h). */
    WeftPathCache *paths;
} WeftTransport;

extern const WeftParamSpec weft_transport_params[];

/* What the path's nodes add to a packet's latency, indexed by node id: the forwarding latency
 * added on arrival (switch latency), and the bytes after which a cut-through switch forwards
 * (models/link.h `cut_bytes`; 0: the whole packet, store-and-forward). */
typedef struct {
    const weft_time_t *node_latency_ps;
    const guint32 *cut_bytes;
} WeftPathEnv;

/** Fills @tp->flows from @specs: entropy, packet counts, ideal FCT and base RTT along the path
 * the routing will choose, and windows; and the dependency tables from @deps (WeftFlowDep),
 * @colls (WeftCollInstance) and @gates (WeftCollGate), each may be NULL.  @tp's parameters,
 * fabric, graph and seed must be set.  Fails (WEFT_CONFIG_ERROR_NODE) when a flow's
 * destination is unreachable.  Each flow takes its spec out of @specs, which is left empty
 * (success or not): its memory is released while the records fill, so the two arrays never
 * stand whole side by side (the specs are 64 bytes a flow, 135 MB of the flagship sweep). */
gboolean weft_transport_setup (WeftTransport *tp, GArray *specs, const GArray *deps,
                               const GArray *colls, const GArray *gates, const WeftPathEnv *env,
                               const WeftExperiment *exp, GError **error);

/* Releases the collectives that wait for no other, at their spec.gap_ps (call once all flows
 * are registered with their senders, before the run).  A collective laid out once per staging
 * epoch (WeftCollInstance.n_layouts) takes, as it starts, the layout of the epoch its start
 * falls in (weft_graph_staging_epoch); the other layouts' flows are marked unused and their
 * work in @sim done. */
void weft_transport_start_collectives (WeftTransport *tp, WeftSim *sim);

/* Flow @f has been delivered in full at the receiver: records it, releases the flows that
 * waited for it and, when it completes a collective, the collective gated on that one. */
void weft_transport_flow_finished (WeftTransport *tp, WeftFlow *f, WeftSim *sim);

/* Across ranks (doc/parallel.md): one predecessor of @f, which this rank sends, was met at @at
 * on another rank; and collective @c, whose last flow (over all ranks) was delivered at @at,
 * completes: its gated collectives start (each rank releases the flows it sends), and its
 * /collectives row is written when @record (by the rank that delivered that flow). */
void weft_transport_release (WeftTransport *tp, WeftFlow *f, weft_time_t at);
void weft_transport_collective_finish (WeftTransport *tp, WeftCollRun *c, weft_time_t at,
                                       WeftSim *sim, gboolean record);
void weft_transport_clear (WeftTransport *tp);

/* The bytes weft_transport_setup allocated per flow: its WeftFlow and the per-fabric state of
 * the side arrays present (cli/footprint.c estimates the same before the run is built). */
gsize weft_transport_flow_bytes (const WeftTransport *tp);

/* Appends the /flows row of @f (finished or not) to the trace, if any. */
void weft_transport_trace_flow (WeftTransport *tp, const WeftFlow *f);

/* The /flows row of @f as this process sees it. */
void weft_transport_flow_row (const WeftTransport *tp, const WeftFlow *f, WeftTraceFlow *row);

/* Across ranks (doc/parallel.md) a flow's row is written where it finishes, its receiver's
 * rank, and the sender's counters are another rank's: copies them (start, ideal FCT,
 * retransmissions, timeouts, CNPs received, rate cuts, minimum rate, NACKs, EVs, window decreases,
 * quick adapts) from @sender, the row the sender's rank made at the end of the run, into @row. */
void weft_transport_flow_row_sender (WeftTraceFlow *row, const WeftTraceFlow *sender);

/* RC: @f's connection has used up its retries (the timeout after the last one expired): it
 * fails, and with it the workload, as NCCL aborts on the completion error.  Records the first
 * failure in tp->failed and stops the run (weft_sim_workload_failed). */
void weft_transport_flow_failed (WeftTransport *tp, WeftFlow *f, WeftSim *sim);

/* NIC @nic has been removed from its server mid-run (a nic-removed fault, models/fault.c): its
 * device reports a fatal error and every connection (queue pair) on it is in error.  Each flow
 * whose path crosses @link (the NIC's fabric link) and that is under way (started, or of a
 * collective that has begun) fails now, the first of them (lowest id) ending the workload
 * (weft_transport_flow_failed); one not under way is marked and fails as it starts (NCCL fails
 * the next operation on that device).  Across ranks (doc/parallel.md) a flow is under way as
 * its sender's rank knows it, and only that rank fails it: the lowest id over the ranks is
 * one process's (network/window.c, weft_window_share_failure).  @cause is
 * borrowed for the report.  Returns how many unfinished flows cross the link. */
guint weft_transport_device_lost (WeftTransport *tp, guint32 link, guint32 nic, const char *cause,
                                  WeftSim *sim);

/* The local ACK timeout of exponent @exponent: 4.096 us x 2^exponent (exact in picoseconds),
 * or WEFT_TIME_NEVER for 0 ("wait forever", as ibv_modify_qp has it). */
weft_time_t weft_transport_rc_timeout_ps (guint exponent);

/* @f's sender starts it: it joins tp->active (weft_transport_flow_finished takes it out). */
void weft_transport_flow_started (WeftTransport *tp, WeftFlow *f, weft_time_t now);
/* Takes @f out of tp->active, if it is there. */
void weft_transport_leave_active (WeftTransport *tp, WeftFlow *f);
/* Sorts tp->active by flow id: the order in which a sample (/dcqcn, /uet) lists the flows under
 * way, the same on one process and across ranks, whatever order they started and finished in. */
void weft_transport_order_active (WeftTransport *tp);

/* The port an endpoint @node sends @f's packets toward endpoint @to_ep through: its route (a
 * GPU chooses between NVLink and PCIe this way), or its one connected port. */
guint32 weft_transport_first_hop (const WeftTransport *tp, const WeftFlow *f, guint32 node,
                                  guint32 to_ep);

/* Walks the route of flow @f from @from_node toward endpoint @to_ep, calling @visit for each
 * link crossed (node and port it leaves by); returns the hop count, or G_MAXUINT if the walk
 * reaches a node without a route or an endpoint that is not the destination.  @minimal: along
 * the equal-cost (minimal) paths, hashed as ECMP would, whatever the configured routing - the
 * path an ideal FCT is measured on; otherwise the path the switches will actually take. */
guint weft_transport_walk (const WeftTransport *tp, const WeftFlow *f, guint32 from_node,
                           guint32 to_ep, gboolean minimal,
                           void (*visit) (guint32 node, guint32 port, void *data), void *data);

/* The hops weft_transport_walk visits for a flow of hash @hash from @from toward @to_ep, from
 * tp->paths, walked and remembered there on a miss (models/pathcache.h); NULL without a cache,
 * or for a walk it does not hold (no route, more than WEFT_PATH_CACHE_HOPS hops): walk then.
 * The entry is valid until the next call. */
const WeftPathEntry *weft_transport_cached_walk (const WeftTransport *tp, guint32 hash,
                                                 guint32 from, guint32 to_ep, gboolean minimal);

#endif /* WEFT_MODELS_TRANSPORT_H */
