/* models/vlarb.h - InfiniBand VL arbitration at an output port (IBA Vol 1 7.6.9).
 *
 * Two tables of (VL, weight) entries, weights in 64-byte units.  The high-priority table is
 * served first, but after `vlarb_high_limit` x 4 KiB of high-priority data a waiting
 * low-priority packet gets a turn (255: no limit).  Inside a table the current entry keeps
 * sending while it has weight left and a packet that may go, then the turn moves to the next
 * entry: round-robin that resumes where it stopped, never always from VL 0.  A packet larger
 * than the entry's remaining weight is still sent and ends the entry's turn.
 * Ignores: VL15 (management) and the arbitration of VL15 ahead of everything.
 */
#ifndef WEFT_MODELS_VLARB_H
#define WEFT_MODELS_VLARB_H

#include "models/infiniband.h"

typedef struct {
    const WeftIbConfig *cfg;
    guint hi_idx, lo_idx;
    gint64 hi_left, lo_left; /* 64-byte units left in the current entry */
    guint64 hi_sent;         /* high-priority bytes since a low-priority packet was sent */
    guint32 hi_vls, lo_vls;  /* bit v: the table has an entry with weight for VL v (from cfg
                                at init), so whether a table can serve is one AND */
} WeftVlArb;

/* [infiniband] vlarb_high, vlarb_low, vlarb_high_limit: fields of WeftIbConfig. */
extern const WeftParamSpec weft_vlarb_params[];

void weft_vlarb_init (WeftVlArb *a, const WeftIbConfig *cfg);

/* weft_vlarb_pick's and weft_vlarb_sent's general paths, out of line. */
int weft_vlarb_pick_scan (WeftVlArb *a, guint32 eligible, gboolean *high);
void weft_vlarb_sent_high (WeftVlArb *a, guint32 bytes);

/* The VL to serve next among @eligible (bit v: VL v has a packet that may go now), or -1.
 * *high says which table chose it; pass it to weft_vlarb_sent.
 * Inline for the common case, a port with no high-priority table whose current low entry
 * still has weight and an eligible VL (every packet-hop of a one-VL fabric): the turn stays
 * there, as the table walk would find at its first entry. */
static inline int
weft_vlarb_pick (WeftVlArb *a, guint32 eligible, gboolean *high)
{
    if (G_LIKELY (a->hi_vls == 0 && a->lo_left > 0)) {
        const WeftIbArbEntry *e = &a->cfg->low[a->lo_idx];
        if (e->weight != 0 && (eligible >> e->vl & 1u)) {
            *high = FALSE;
            return e->vl;
        }
    }
    if (eligible == 0)
        return -1;
    return weft_vlarb_pick_scan (a, eligible, high);
}

/* A packet of @bytes was sent from the VL weft_vlarb_pick returned.  (A low-priority packet
 * inline: the table's turn moves on once the entry's weight is spent.) */
static inline void
weft_vlarb_sent (WeftVlArb *a, gboolean high, guint32 bytes)
{
    if (high) {
        weft_vlarb_sent_high (a, bytes);
        return;
    }
    const WeftIbConfig *c = a->cfg;
    a->hi_sent = 0;
    if ((a->lo_left -= (bytes + 63) / 64) <= 0 && c->n_low) {
        /* lo_idx < n_low: the next entry, wrapping */
        a->lo_idx = a->lo_idx + 1 == c->n_low ? 0 : a->lo_idx + 1;
        a->lo_left = c->low[a->lo_idx].weight;
    }
}

#endif /* WEFT_MODELS_VLARB_H */
