/* models/rccc.h - RCCC, Ultra Ethernet's receiver-credit congestion control ([rccc]): each
 * receiving NIC hands out credit for the data its senders may have in flight toward it, so an
 * incast cannot queue more at the receiver's port than the receiver has granted.
 *
 * Model (weft's own, in the spirit of UE 1.0's receiver-credit CC; doc/ultra-ethernet.md says
 * what is unverified).  Credit is counted in full packets on the wire:
 *  - the receiver has a pool of `budget` bytes of credit (as packets, at least one);
 *  - a flow may always send its first packet, and `initial_credit` bytes beyond it, without
 *    credit (how the receiver learns of it); every other data packet spends one credit, and
 *    says so (the `credited` flag);
 *  - when a credited packet reaches the receiver (whole or trimmed), its credit returns to the
 *    pool; then the receiver grants the packet's flow, on the ACK, up to its fair share
 *    (the pool over the flows under way toward it) less what it already holds, no more than
 *    the pool, no more than the flow still needs; and at least one packet when the flow holds
 *    none (so a flow is never starved, at the cost of that one packet of overdraft);
 *  - a flow's finish returns what it held; a retransmission timeout lets the sender send one
 *    packet without credit (credit spent on lost packets comes back only with the flow's
 *    finish: without trimming, RCCC recovers by timeouts).
 * So the data in flight toward a receiver, and the queue at its port, stay below
 * (budget packets + the flows under way x (2 + initial_credit packets)) x the packet size.
 * Runs with NSCC (a packet needs both window and credit) under RUD only: ROD's go-back-N
 * resends packets the receiver has not asked for.
 */
#ifndef WEFT_MODELS_RCCC_H
#define WEFT_MODELS_RCCC_H

#include "sim/params.h"

typedef struct {
    gboolean enabled;
    guint64 budget;         /* bytes of credit each receiver hands out */
    guint64 initial_credit; /* bytes a flow may send, beyond its first packet, uncredited */
} WeftRccc;

/* A receiving NIC's credit pool (per node; in packets, may go one per flow below 0). */
typedef struct {
    gint64 pool;
    guint32 active; /* flows under way toward it that it has heard of */
} WeftRcccRx;

extern const WeftParamSpec weft_rccc_params[];

/* The receiver's pool, in packets of @wire bytes (at least one). */
static inline gint64
weft_rccc_budget_pkts (const WeftRccc *cfg, guint64 wire)
{
    return MAX ((gint64) (cfg->budget / wire), 1);
}

/* Receiver: a packet of a flow arrived (@credited: it spent a credit); @held is the flow's
 * credit granted and not yet returned, @want the packets it still needs.  Returns the packets
 * of credit to grant it on the ACK (and counts them in @held and the pool). */
guint32 weft_rccc_on_arrival (WeftRcccRx *rx, gint64 budget_pkts, gint64 *held, gboolean credited,
                              gint64 want);

#endif /* WEFT_MODELS_RCCC_H */
