/* models/rccc.h - RCCC, Ultra Ethernet's receiver-credit congestion control ([rccc]): each
 * receiving NIC paces the credit it grants its senders (pulls) at a little under its own link
 * rate, so an incast cannot keep more arriving at the receiver's port than the port sends on.
 *
 * Model (after UEC's htsim, uet-htsim 40ccb05: UecSrc, UecSink, UecPullPacer; the sources and
 * what is unverified are in doc/ultra-ethernet.md).  Credit is counted in full packets on the
 * wire (mtu + header):
 *  - a sender starts with `initial_credit_bdp` x BDP of credit (the network's unloaded RTT x
 *    its NIC rate) and sends on it at once (speculatively); the first word from the receiver (an
 *    ACK, a NACK or a pull) drops what is left of it;
 *  - every data packet spends one packet of credit and carries the sender's credit target: the
 *    cumulative credit it has been granted plus what it still wants (the packets not yet sent
 *    and those due again, at most `max_credit_bdp` x BDP and, with NSCC, its window plus one),
 *    less the credit it holds;
 *  - a sender with packets to send, no credit and a target the receiver has not heard sends a
 *    credit request (a header-only control packet carrying the target); a retransmission
 *    timeout sends it again, and so does an RTO that finds the flow waiting for credit with
 *    nothing out and no pull since the last one (which is no timeout);
 *  - requests and pulls go over the flow's entropy values in turn (htsim sprays its pulls);
 *  - the receiving node keeps one pacer for all flows toward it: the flows whose target lies
 *    above what they have been granted wait in a round-robin queue; the pacer grants the head
 *    flow up to `mtus_per_pull` packets (no more than its target) in a pull, a control packet
 *    carrying the flow's cumulative grant, and sends the next pull once the granted packets
 *    would take, at `pull_rate` x the node's link rate, to cross its link.
 * So, after the speculative start, data reaches a receiver at no more than pull_rate x its link
 * rate, and the queue at its port stays below the senders' initial credit plus what the pulls'
 * granularity and the paths' spread let bunch up (tests/e2e/ue_rccc.sh).
 * Not modelled: htsim's slow pulls (credit handed, while the pacer is idle, to flows that have
 * not asked for it), its sharing of a sender NIC's request among the NIC's active flows, and
 * the 256-byte credit quantum (credit is in whole packets here).
 * Runs with NSCC (a packet needs both window and credit) under RUD only: ROD's go-back-N
 * resends packets no credit was asked for.
 */
#ifndef WEFT_MODELS_RCCC_H
#define WEFT_MODELS_RCCC_H

#include "sim/params.h"
#include "sim/time.h"

typedef struct {
    gboolean enabled;
    guint64 mtus_per_pull;     /* packets of credit a pull grants at most */
    double pull_rate;          /* pulls pace credit at this fraction of the receiver's link rate */
    double initial_credit_bdp; /* a sender's speculative credit at its start, in BDPs */
    double max_credit_bdp;     /* the most credit a sender holds or asks for, in BDPs */
} WeftRccc;

/* One flow's RCCC state (in WeftUetFlow): the sender's half and the receiver's. */
typedef struct {
    /* sender */
    gint64 credit;        /* packets it may send now (never below 0) */
    gint64 cap;           /* the most credit it may hold and ask for (packets, at least 1) */
    guint64 pulled;       /* the cumulative grant of the latest pull it has heard */
    guint64 asked;        /* the highest credit target it has sent */
    guint64 requests;     /* credit requests sent */
    guint64 pulled_seen;  /* `pulled` when its RTO last found it waiting for credit */
    gboolean on;          /* the sender needs credit */
    gboolean speculating; /* its credit is initial credit, until the receiver first answers */
    /* receiver */
    guint64 target;  /* the highest credit target heard from the sender */
    guint64 granted; /* the cumulative credit granted */
    guint32 next;    /* the pacer's queue: the next flow's index + 1 (0: none) */
    gboolean queued; /* in the pacer's queue */
} WeftRcccFlow;

/* A receiving node's pull pacer. */
typedef struct {
    guint32 head, tail;  /* its queue of flows (index + 1; 0: empty) */
    weft_time_t free_at; /* the next pull may not leave before this */
    gboolean busy;       /* a pull event is scheduled */
    guint64 rate_bps;    /* the node's link rate (its NIC's ports together) */
    gpointer agent;      /* the node's NIC agent (set at the first packet it receives) */
    guint64 pulls;       /* pulls sent */
} WeftRcccRx;

/* The pacer's queue reaches its flows' state through this (the flow table's layout is the
 * caller's). */
typedef WeftRcccFlow *(*WeftRcccFlowAt) (gpointer ctx, guint32 id);

extern const WeftParamSpec weft_rccc_params[];

/* Sender: a flow starts with @bdp_bytes of bandwidth-delay product and packets of @wire bytes. */
void weft_rccc_sender_init (const WeftRccc *cfg, WeftRcccFlow *r, double bdp_bytes, double wire);

/* Sender: the credit target to carry when it wants @need more packets (not yet sent or due
 * again; @window_cap packets at most, 0: no window). */
guint64 weft_rccc_target (const WeftRcccFlow *r, guint64 need, guint64 window_cap);

/* Sender: the receiver answered (ACK or NACK): initial credit left is dropped. */
void weft_rccc_stop_speculating (WeftRcccFlow *r);

/* Sender: a pull carrying cumulative grant @pulled arrived; returns the packets of credit it
 * added (credit never exceeds the cap). */
guint64 weft_rccc_on_pull (WeftRcccFlow *r, guint64 pulled);

/* Receiver: flow @id (state @r) carried credit target @target; queues it at the pacer when it
 * wants credit and is not queued.  Returns whether it queued it. */
gboolean weft_rccc_on_target (WeftRcccRx *rx, WeftRcccFlowAt at, gpointer ctx, guint32 id,
                              guint64 target);

/* Receiver: the pacer's turn: pops the head flow (*@id), grants it up to @per_pull packets
 * (never past its target) and queues it again at the tail if it wants more.  Returns the
 * packets granted (0 with *@id G_MAXUINT32 when the queue is empty). */
guint64 weft_rccc_pacer_pull (WeftRcccRx *rx, WeftRcccFlowAt at, gpointer ctx, guint64 per_pull,
                              guint32 *id);

/* The time @pkts packets of @wire bytes take at pull_rate x @rate_bps: the pacer's gap after a
 * pull that granted them. */
weft_time_t weft_rccc_pull_gap (const WeftRccc *cfg, guint64 pkts, guint64 wire, guint64 rate_bps);

#endif /* WEFT_MODELS_RCCC_H */
