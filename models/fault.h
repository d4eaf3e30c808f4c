/* models/fault.h - injected faults: [fault.NAME] groups, each one fault on one link at a time
 * of the run (doc/faults.md).
 *
 * Kinds:
 *   link-down   both directions go Down at `at` (and come back at `until`, if given); each end's
 *               LinkDownedCounter counts the transition
 *   link-flap   Down for half of `period`, Active for the other half, from `at` (to `until`)
 *   degraded    the link trains at a lower rate (`rate`, or `width` of a 4x port: 1x at
 *               400 Gb/s is 100 Gb/s), both directions
 *   bit-errors  each packet crossing the link (either way) is corrupted with probability
 *               PER = 1 - (1 - ber)^(bits of the packet) and discarded by the receiver, which
 *               counts it in PortRcvErrors (and SymbolErrorCounter); the transport recovers
 *   switch-down every cabled link of a fabric switch (`switch`) goes Down as with link-down
 *   uplinks-lost the switch's uplinks (ports cabled to a higher tier) named in `ports`, or the
 *               lowest-numbered round(fraction x uplinks) of them, go Down as with link-down
 *   gpudirect-off  one server's GPUs lose GPUDirect RDMA from the start of the run, or from
 *               the run's Nth collective on (after = collective.N), or a group's (after =
 *               workload.NAME.collective.N), or for the collectives that start at or after
 *               at = TIME (and before until): their data to and from
 *               other servers is staged in that server's host memory (the graph's staging
 *               node, applied by weft_faults_apply_graph before the workloads are generated;
 *               with at > 0 or until, each affected collective is laid out both ways and the
 *               transport takes the layout of its start, sim/graph.h)
 *   nic-removed one NIC of a server (`nic = dgx-2/mlx5_3`) is not there from the start of the
 *               run: weft_faults_apply_graph removes its fabric link from routing (sim/graph.h),
 *               so the server's GPUs whose NIC it was reach the network through the nearest
 *               remaining NIC (their gateway), and the collectives put that rail's channels on
 *               it (workloads/collective.c, PXN); the link's ends are Down from time 0 without
 *               a LinkDowned transition.  With at > 0 or after, the NIC vanishes during the
 *               run: its link goes Down (the switch's end counts a LinkDowned transition), its
 *               device's fatal error puts every connection on it in error, and the flows
 *               through it fail, ending the workload (weft_transport_device_lost, exit 6):
 *               NCCL does not move a running communicator to another NIC.
 * A group on a switch's links becomes one fault per link, each with the group's name.
 *
 * What happens to a packet: the transmitter of a Down port still takes the packet off its
 * queue at the link's rate (an InfiniBand switch discards what it cannot send through a port
 * that is not Active; nothing is held back, so no credit or pause spreads upstream), counts it
 * lost and releases it.  A corrupted packet leaves normally (PortXmitData counts it) and never
 * arrives; on InfiniBand its credits are not consumed, which is what the receiver's discard
 * amounts to once its flow-control packets (absolute counts) resynchronise the sender.
 * Flow-control packets (credits, PAUSE) are never corrupted nor discarded (they stand for the
 * link-level state the ends re-establish at link up).  Packets already on the wire when a
 * link goes Down still arrive: the cut is at the transmitter.
 * Routing reacts only as its mechanisms do: static forwarding keeps sending into the dead port
 * until a subnet-manager sweep, if [routing] sm_reroute is on (models/sm.h); adaptive routing
 * and ECMP (spraying too) leave a Down port out of their equal-cost choice (models/switch.c);
 * adaptive routing also avoids a switch that lost its way on, once notified (models/frn.h).
 *
 * State: the WeftFaults of a run (owned by the fabric configuration, fabric->faults) holds the
 * parsed groups, one WeftFaultPort per end of every faulty link (borrowed by WeftPort.fault,
 * NULL on healthy ports: the hot path pays one predictable branch), and a random stream per
 * faulty link end for bit errors, seeded from (run seed, link, direction).
 */
#ifndef WEFT_MODELS_FAULT_H
#define WEFT_MODELS_FAULT_H

#include <gsl/gsl_rng.h>

#include "sim/experiment.h"
#include "sim/graph.h"
#include "sim/packet.h"
#include "sim/time.h"

typedef enum {
    WEFT_FAULT_LINK_DOWN,
    WEFT_FAULT_LINK_FLAP,
    WEFT_FAULT_DEGRADED,
    WEFT_FAULT_BIT_ERRORS,
    WEFT_FAULT_SWITCH_DOWN,
    WEFT_FAULT_UPLINKS_LOST,
    WEFT_FAULT_NIC_REMOVED,
    WEFT_FAULT_GPUDIRECT_OFF,
} WeftFaultKind;

/* One end of a faulty link: the state its transmitter consults, and its counters. */
typedef struct WeftFaultPort {
    gboolean down;            /* the port is Down (both ends of the link are) */
    double ber;               /* bit-error rate of what this end sends; 0: none */
    gsl_rng *rng;             /* owned by WeftFaults */
    guint64 nominal_rate_bps; /* the rate the link was built with */
    guint64 link_downed;      /* LinkDownedCounter: transitions to Down */
    guint64 lost_down;        /* packets this end discarded while Down */
    guint64 corrupted;        /* packets this end sent that arrived corrupted: the peer's
                                 PortRcvErrors and SymbolErrorCounter */
    weft_time_t down_since;   /* while down */
    weft_time_t up_since;     /* when it last came back Active (models/frn.h) */
    const char *cause;        /* the [fault.NAME] that last changed this end (borrowed) */
} WeftFaultPort;

typedef enum {
    WEFT_FAULT_PASS = 0, /* the packet goes on the wire */
    WEFT_FAULT_LOST_DOWN,
    WEFT_FAULT_CORRUPTED,
} WeftFaultVerdict;

/* What a fault event did, for the trace's /faults rows (network/sample.c) and the diagnosis. */
typedef enum {
    WEFT_FAULT_ACTION_DOWN, /* the link went Down */
    WEFT_FAULT_ACTION_UP,   /* it came back Active */
    WEFT_FAULT_ACTION_RATE, /* its rate changed (value: bits per second) */
    WEFT_FAULT_ACTION_BER,  /* its bit-error rate changed (value) */
} WeftFaultAction;

typedef struct {
    weft_time_t time_ps;
    guint32 fault; /* index of the [fault.NAME] group, in file order */
    guint32 link;  /* graph link id */
    guint8 kind;   /* WeftFaultKind */
    guint8 action; /* WeftFaultAction */
    double value;
    /* Each end's counters at the event (end 0: the link's a side): */
    guint64 link_downed[2], rcv_errors[2], tx_bytes[2];
} WeftFaultEvent;

typedef struct WeftFaults WeftFaults;

/* The run's fault events so far (WeftFaultEvent), or NULL without faults.  (transfer none) */
const GArray *weft_faults_log (const WeftFaults *fs);
/* Marks every link of @fs cut in @g while it is Down, and not cut otherwise (a subnet
 * manager's sweep, models/sm.h). */
void weft_faults_cut_down_links (const WeftFaults *fs, WeftGraph *g);
/* Across MPI ranks (doc/parallel.md) every rank runs every fault event and keeps every link
 * end's state, but only a port's own rank counts what it sends: the /faults rows' rcv_errors and
 * tx_bytes, and each end's corrupted and lost_down packets, are 0 on the other ranks.  At the
 * end of the run weft_faults_rank_counts puts them in @out (NULL: only counts them) and returns
 * how many there are, the same number on every rank; weft_faults_rank_merge takes their sums
 * over the ranks, each the owner's count, and writes the /faults rows, on rank 0 only (until
 * then a run across ranks holds them back). */
gsize weft_faults_rank_counts (const WeftFaults *fs, guint64 *out);
void weft_faults_rank_merge (WeftFaults *fs, const guint64 *sums);
/* The group ("fault.NAME") of the first nic-removed fault that removes its NIC during the run
 * (at > 0 or after), or NULL. */
const char *weft_faults_nic_removed_live (const WeftFaults *fs, const WeftGraph *g);
/* Across MPI ranks (doc/parallel.md): the smallest `+ TIME` of a fault that waits for
 * collective @coll to start (after = ...collective.N), or WEFT_TIME_NEVER when none waits for
 * it; @group, if not NULL, gets that fault's group (transfer none).  A collective's start is
 * learnt at a window's end, so the fault's first event must lie at least a window later. */
weft_time_t weft_faults_after_collective (const WeftFaults *fs, guint32 coll, const char **group);
/* The time of the next NIC removal during the run whose time is known (scheduled: a collective
 * it waits for has started), or WEFT_TIME_NEVER: across ranks that instant runs in lockstep,
 * since it may fail the workload (network/window.c). */
weft_time_t weft_faults_next_nic_removal (const WeftFaults *fs);
/* The group name of fault @fault ("fault.cable").  (transfer none) */
const char *weft_faults_group (const WeftFaults *fs, guint32 fault);

/* Whether this end is Down: its transmitter discards @pkt (counted).  Flow-control packets
 * (credits, PAUSE) still cross: they stand for the link-level state both ends re-establish
 * when the link comes back (InfiniBand re-initialises flow control at link up), which weft
 * does not train; without them a flapping link would leak credits for good. */
static inline gboolean
weft_fault_port_discards (WeftFaultPort *f, const WeftPacket *pkt)
{
    if (!f->down || pkt->kind == WEFT_PKT_CREDIT)
        return FALSE;
    f->lost_down++;
    return TRUE;
}

/* Whether @pkt, about to leave this end, arrives corrupted (counted): drawn from this end's
 * stream with PER = 1 - (1 - ber)^(8 x size). */
gboolean weft_fault_port_corrupts (WeftFaultPort *f, const WeftPacket *pkt);

/* The probability that a packet of @bytes on the wire has at least one bit error at @ber. */
double weft_fault_per (double ber, guint64 bytes);

/* Applies the faults that change the fabric graph itself before the network is built:
 * gpudirect-off sets the staging node of each GPU of its server to that server's CPU (host
 * memory), as [server] gpudirect = false does for every server, with after = collective.N only
 * from that collective on (weft_graph_set_staging_from), with at > 0 or until only for the
 * collectives that start in [at, until) (weft_graph_set_staging_window); nic-removed removes the
 * NIC's fabric link from routing (weft_graph_set_link_removed), which drops the route tables: the
 * caller computes them again when weft_graph_routes_ready says so.  Bad input (no server or NIC, an
 * unknown one, a NIC removed twice or a server left without any, a key the kind does not take,
 * an at or until that is no time, until with after, or an after other than collective.N or
 * workload.NAME.collective.N for gpudirect-off (its at past the duration and until not after
 * at are refused where every kind's are, when the fault mechanism reads its groups); a
 * nic-removed group with at > 0 or after leaves the graph alone): FALSE with a
 * WEFT_CONFIG_ERROR naming the group and key. */
gboolean weft_faults_apply_graph (const WeftExperiment *exp, WeftGraph *g, GError **error);

/* `weft topo --faults`: changes @g (built, after weft_faults_apply_graph) as the experiment's
 * fault groups leave the fabric at @at_ps, or with every group in effect when @all: a Down
 * link (link-down, a flap in its Down half, switch-down, uplinks-lost) and a removed NIC's link
 * leave the graph (weft_graph_set_link_removed: the caller computes routes again), a degraded
 * link takes its lower rate; bit errors and gpudirect-off change nothing shown.  A group that
 * begins at an event of the run (after) is in effect only with @all.  One line per group (and
 * per link it changed) goes to @notes.  Bad input (an unknown link, switch or NIC): FALSE with
 * a WEFT_CONFIG_ERROR naming the group and key. */
gboolean weft_faults_apply_topology (const WeftExperiment *exp, WeftGraph *g, gboolean all,
                                     weft_time_t at_ps, GString *notes, GError **error);

/* The kind's name as in the experiment file ("link-down"). */
const char *weft_fault_kind_name (WeftFaultKind kind);

#endif /* WEFT_MODELS_FAULT_H */
