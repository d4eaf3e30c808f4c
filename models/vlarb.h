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

/* The VL to serve next among @eligible (bit v: VL v has a packet that may go now), or -1.
 * *high says which table chose it; pass it to weft_vlarb_sent. */
int weft_vlarb_pick (WeftVlArb *a, guint32 eligible, gboolean *high);

/* A packet of @bytes was sent from the VL weft_vlarb_pick returned. */
void weft_vlarb_sent (WeftVlArb *a, gboolean high, guint32 bytes);

#endif /* WEFT_MODELS_VLARB_H */
