/* models/nscc.h - NSCC, Ultra Ethernet's sender-based congestion control ([nscc]): a
 * congestion window in bytes driven by two signals that every acknowledgement carries, the ECN
 * mark echoed from the data packet (models/ecn.h marks at the switches) and the queueing delay
 * measured as the packet's RTT minus the flow's base RTT.
 *
 * The control law, per acknowledgement of `bytes` wire bytes with queueing delay d against the
 * target T (`target_delay`), in the spirit of UE 1.0's NSCC and UEC's htsim (doc/ultra-
 * ethernet.md says what is taken from where and which values are unverified):
 *   no mark, d < T   proportional increase: cwnd += pi x mtu_wire x (T - d) / T x bytes / cwnd
 *                    (pi packets per RTT at no queueing delay, the same for every flow), plus
 *                    the fair increase
 *   no mark, d >= T  fair increase: cwnd += fi x mtu_wire x bytes / cwnd (fi packets per RTT,
 *                    the same for every flow: what makes competing flows converge)
 *   mark, d >= T     multiplicative decrease, at most once per base RTT:
 *                    cwnd x= 1 - md_gain x (d - T) / d, never by more than half
 *   mark, d < T      nothing: a mark without delay is a transient on one path
 * Quick adapt: after a base RTT in which the sender heard of a loss (a trim NACK, a timeout),
 * the window drops at once to what was acknowledged in that RTT (at least one packet), rather
 * than waiting for the slow decreases to get there.
 * The window is clamped to [one packet, max_window]; it starts at max_window, as UE's senders
 * start (line rate at once).
 *
 * Derived defaults, from the network as the UE specification's NSCC parameters are defined and
 * as UEC's htsim sets them (UecSrc::initNsccParams): with R the network's unloaded RTT (the
 * largest base RTT among the run's flows: propagation, a data packet's and an ACK's
 * serialization at every hop, the NICs' latencies) and BDP = R x the flow's NIC rate,
 *   target_delay = 0.75 x R with trimming on, R without
 *   fi_packets   = 5 x a, a = BDP / (100 Gb/s x 12 us) (the scaling factor of a reference
 *                  network)
 *   pi_packets   = 4 x a x b, b = target_delay / 12 us
 *   max_window   = 1.5 x BDP, and the first window the same.
 * Ignores: NSCC's delay-only and ECN-only variants, the receiver's pull (RCCC), the
 * per-path state of the load balancer, the delay average of the decrease (the per-packet delay
 * is used), eta (htsim's 0.15 x MSS x a per RTT) and quick adapt on delay alone.
 */
#ifndef WEFT_MODELS_NSCC_H
#define WEFT_MODELS_NSCC_H

#include "sim/params.h"
#include "sim/time.h"

typedef struct {
    gboolean enabled;
    weft_time_t target_delay; /* queueing delay the window aims at; 0: derived */
    double md_gain;
    double pi_packets, fi_packets; /* 0: derived */
    gboolean quick_adapt;
    guint64 max_window; /* bytes; 0: derived */
} WeftNscc;

/* The network a flow's derived parameters come from. */
typedef struct {
    weft_time_t rtt;   /* the network's unloaded RTT */
    double bdp_bytes;  /* rtt x the flow's NIC rate */
    gboolean trimming; /* the switches trim ([uet] trimming) */
} WeftNsccNet;

/* The reference network NSCC's constants are scaled from: 100 Gb/s x 12 us, in bytes. */
#define WEFT_NSCC_REF_BDP 150000.0
#define WEFT_NSCC_REF_RTT WEFT_US (12)
/* The weight of a sample in the delay average (UEC's htsim: _delay_alpha). */
#define WEFT_NSCC_DELAY_ALPHA 0.0125

typedef struct {
    double cwnd;           /* bytes */
    double max_cwnd;       /* bytes */
    double target;         /* ps: target_delay, given or derived */
    double fi;             /* packets per RTT: fi_packets, given or derived */
    double pi;             /* packets per RTT: pi_packets, given or derived */
    double avg_delay;      /* ps: the queueing delay's moving average */
    double mtu_wire;       /* bytes of a full packet on the wire */
    weft_time_t base_rtt;  /* the flow's unloaded RTT */
    weft_time_t last_md;   /* when the last decrease happened */
    weft_time_t epoch_end; /* end of the current quick-adapt epoch (a base RTT) */
    guint64 epoch_acked;   /* bytes acknowledged in the epoch */
    gboolean epoch_loss;   /* a loss was heard of in the epoch */
    guint64 decreases, quick_adapts;
} WeftNsccFlow;

extern const WeftParamSpec weft_nscc_params[];

/* Sets @f's parameters (@cc's, or derived from @net where @cc leaves them 0) and starts its
 * window at max_window (at least one packet of @mtu_wire bytes); @base_rtt is the flow's own. */
void weft_nscc_flow_init (const WeftNscc *cc, WeftNsccFlow *f, const WeftNsccNet *net,
                          double mtu_wire, weft_time_t base_rtt);

/* The derived defaults (above). */
weft_time_t weft_nscc_derived_target (const WeftNsccNet *net);
double weft_nscc_derived_fi (const WeftNsccNet *net);
double weft_nscc_derived_pi (const WeftNsccNet *net, weft_time_t target);
double weft_nscc_derived_max_window (const WeftNsccNet *net);

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
