/* models/nscc.h - NSCC, Ultra Ethernet's sender-based congestion control ([nscc]): a
 * congestion window in bytes driven by two signals that every acknowledgement carries, the ECN
 * mark echoed from the data packet (models/ecn.h marks at the switches) and the queueing delay
 * measured as the packet's RTT minus the flow's base RTT.
 *
 * The control law, per acknowledgement of `bytes` wire bytes with queueing delay d against the
 * target T (`target_delay`), in the spirit of UE 1.0's NSCC and UEC's htsim (doc/ultra-
 * ethernet.md says what is taken from where and which values are unverified):
 *   no mark, d < T   proportional increase: cwnd += pi_gain x bytes x (T - d) / T, plus the
 *                    fair increase
 *   no mark, d >= T  fair increase: cwnd += fi x mtu_wire x bytes / cwnd (fi packets per RTT,
 *                    the same for every flow: what makes competing flows converge)
 *   mark, d >= T     multiplicative decrease, at most once per base RTT:
 *                    cwnd x= 1 - md_gain x (d - T) / d, never by more than half
 *   mark, d < T      nothing: a mark without delay is a transient on one path
 * Quick adapt: after a base RTT in which the sender heard of a loss (a trim NACK, a timeout),
 * the window drops at once to what was acknowledged in that RTT (at least one packet), rather
 * than waiting for the slow decreases to get there.
 * The window is clamped to [one packet, max_window]; it starts at one bandwidth-delay product
 * of the flow's path (line rate at once, as UE's senders start).
 * Ignores: NSCC's delay-only and ECN-only variants, the receiver's pull (RCCC), the
 * per-path state of the load balancer.
 */
#ifndef WEFT_MODELS_NSCC_H
#define WEFT_MODELS_NSCC_H

#include "sim/params.h"
#include "sim/time.h"

typedef struct {
    gboolean enabled;
    weft_time_t target_delay; /* queueing delay the window aims at */
    double md_gain, pi_gain, fi_packets;
    gboolean quick_adapt;
    guint64 max_window; /* bytes; 0: 4 x the flow's BDP */
} WeftNscc;

typedef struct {
    double cwnd;           /* bytes */
    double max_cwnd;       /* bytes */
    double mtu_wire;       /* bytes of a full packet on the wire */
    weft_time_t base_rtt;  /* the flow's unloaded RTT */
    weft_time_t last_md;   /* when the last decrease happened */
    weft_time_t epoch_end; /* end of the current quick-adapt epoch (a base RTT) */
    guint64 epoch_acked;   /* bytes acknowledged in the epoch */
    gboolean epoch_loss;   /* a loss was heard of in the epoch */
    guint64 decreases, quick_adapts;
} WeftNsccFlow;

extern const WeftParamSpec weft_nscc_params[];

/* Starts @f's window at @bdp_bytes (at least one packet of @mtu_wire bytes). */
void weft_nscc_flow_init (const WeftNscc *cc, WeftNsccFlow *f, double bdp_bytes, double mtu_wire,
                          weft_time_t base_rtt);

/* An acknowledgement of @bytes wire bytes whose packet took @rtt (0: no sample, a
 * retransmission) and came back with the CE mark @ce, at @now. */
void weft_nscc_on_ack (const WeftNscc *cc, WeftNsccFlow *f, guint64 bytes, weft_time_t rtt,
                       gboolean ce, weft_time_t now);

/* A loss signal (trim NACK, timeout) at @now: quick adapt acts at the end of the epoch. */
void weft_nscc_on_loss (const WeftNscc *cc, WeftNsccFlow *f, weft_time_t now);

/* The window in whole packets (at least 1). */
static inline guint32
weft_nscc_window_pkts (const WeftNsccFlow *f)
{
    double p = f->cwnd / f->mtu_wire;
    return p < 1 ? 1 : (guint32) p;
}

#endif /* WEFT_MODELS_NSCC_H */
