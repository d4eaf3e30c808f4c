/* models/ecn.h - RED-style ECN marking at switch egress queues, the [ecn] group (RoCE only).
 *
 * A data packet at an egress queue holding q bytes of its class is marked Congestion
 * Experienced (pkt->ce) with probability
 *     p(q) = 0                                   q <= kmin
 *            pmax x (q - kmin) / (kmax - kmin)   kmin < q <= kmax
 *            1                                   q > kmax
 * (the RED profile of the DCQCN paper: Zhu et al., SIGCOMM 2015).  The queue is the packet's
 * class at that output (per queue, not per port).  `mark_on = enqueue` decides as the packet joins
 * the queue, with the bytes already waiting ahead of it; `dequeue` decides as it starts leaving,
 * with the bytes left behind it - the newer signal, which reaches the receiver a queueing delay
 * sooner.  Each fabric switch draws from its own GSL stream (sim/rng.h), so a run is
 * deterministic for a seed whatever the other switches do.  ACKs, NAKs and CNPs are not
 * ECN-capable and are never marked.  Hosts' and servers' internal nodes do not mark.
 * The thresholds default to those of the [dcqcn] preset (models/dcqcn.h); a key given here
 * overrides it.
 */
#ifndef WEFT_MODELS_ECN_H
#define WEFT_MODELS_ECN_H

#include <gsl/gsl_rng.h>

#include "sim/packet.h"
#include "sim/params.h"

typedef enum { WEFT_ECN_ON_ENQUEUE, WEFT_ECN_ON_DEQUEUE } WeftEcnMarkOn;

typedef struct {
    gboolean enabled;
    guint64 kmin, kmax; /* bytes */
    double pmax;
    int mark_on; /* WeftEcnMarkOn */
    /* Resolved: the thresholds scale with the egress rate / this (0: not scaled; the hpcc
     * preset's). */
    guint64 scale_ref_bps;
} WeftEcn;

extern const WeftParamSpec weft_ecn_params[];

/* Reads [ecn]; the thresholds a file leaves out come from @kmin, @kmax and @pmax (the DCQCN
 * preset's).  Refuses kmax < kmin. */
gboolean weft_ecn_read (WeftEcn *ecn, guint64 kmin, guint64 kmax, double pmax,
                        const WeftExperiment *exp, GError **error);
void weft_ecn_clear (WeftEcn *ecn);

/* The marking probability at a queue of @queued bytes of an egress at @rate_bps. */
double weft_ecn_probability (const WeftEcn *ecn, guint64 queued, guint64 rate_bps);

/* Decides for @pkt at a queue of @queued bytes of an egress at @rate_bps, drawing from @rng;
 * sets pkt->ce and returns TRUE when it marks (data packets only; a packet already marked
 * stays marked, uncounted). */
gboolean weft_ecn_mark (const WeftEcn *ecn, gsl_rng *rng, guint64 queued, guint64 rate_bps,
                        WeftPacket *pkt);

#endif /* WEFT_MODELS_ECN_H */
