/* models/dcqcn.h - DCQCN congestion control for RoCE (Zhu et al., SIGCOMM 2015), [dcqcn].
 *
 * On by default on `[fabric] kind = roce`; never elsewhere.  Three parts:
 *  - Congestion point: the switches' ECN marking (models/ecn.h), whose thresholds come from
 *    the preset unless [ecn] sets them.
 *  - Notification point (receiving NIC): a data packet arriving with CE makes the receiver
 *    send a CNP to the sender, at most one per flow per `cnp_interval`.  A CNP is its own
 *    packet kind (WEFT_PKT_CNP), not a flag on an ACK: a RoCE NIC sends it independently of
 *    acknowledgements (which may be coalesced or, for UD and writes, absent), with its own
 *    priority and DSCP, and it must not advance the sender's window.  It travels in the
 *    control class (served before data: the CNP priority, 6 by default on NVIDIA NICs) and
 *    is a 78 B frame + 20 B preamble and gap on the wire (Eth 14, IPv4 20, UDP 8, BTH 12,
 *    16 reserved, ICRC 4, FCS 4).
 *  - Reaction point (sending NIC, per flow = queue pair): a flow starts at line rate and is
 *    inactive until its first CNP.  A cut is
 *        Rt = Rc (always with clamp_target; else only if the timer raised the rate since the
 *                 last cut);   Rc = max (Rc x max (1 - alpha/2, 1 - max_decrease), min_rate)
 *    When cuts happen and how alpha moves depends on `rate_reduce_period`:
 *    - 0 (the paper): every CNP cuts at once, then alpha = (1 - g) alpha + g and alpha's timer
 *      restarts; alpha decays, alpha = (1 - g) alpha, once per `alpha_period` without a CNP.
 *    - > 0 (the NIC firmware, as NVIDIA documents it and HPCC's ns-3 models it): the first
 *      CNP sets alpha = alpha_init and starts two grids.  Every `alpha_period` alpha is
 *      updated, raised ((1 - g) alpha + g) if a CNP arrived in that period and decayed
 *      ((1 - g) alpha) if not; at the end of every `rate_reduce_period` in which a CNP arrived
 *      the rate is cut once, with the alpha of that moment.  A CNP never cuts by itself.
 *    Both are computed lazily at the next CNP or check: exact, and no event per flow per
 *    microsecond.  A cut resets the increase timer (`increase_timer`) and the byte counter
 *    (`byte_counter` bytes sent; 0: none); each expiry of either is a rate-increase event.
 *    With T and BC the expiries of each since the cut, this one included, and F =
 *    `fast_recovery`:
 *        max (T, BC) <= F   fast recovery:   Rc = (Rt + Rc) / 2
 *        min (T, BC) > F    hyper increase:  Rt += (min (T, BC) - F) x rhai; Rc = (Rt + Rc) / 2
 *        otherwise          additive:        Rt += rai; Rc = (Rt + Rc) / 2
 *    so the first F events are fast recovery (QCN's count and HPCC's).  Without a byte
 *    counter the timer alone counts, as in HPCC's model: T <= F fast recovery, T = F + 1
 *    additive, then hyper increase by rhai per event.  Rates are capped at the line rate;
 *    back at line rate the flow is inactive again (no timer).  The rate paces the flow: the
 *    start of its next packet is its previous start + the packet's size at Rc (the NIC's
 *    per-flow pacing, shared with models/ibcc.h).
 * Presets (`preset`, sources named per preset; every other key overrides its preset's value):
 *  - paper: the SIGCOMM 2015 paper and its authors' ns-3 code, 40 GbE: CNP 50 us, alpha
 *    period 55 us, increase timer 55 us, byte counter 10 MB, g = 1/256, F = 5, R_AI 40 Mb/s,
 *    R_HAI 400 Mb/s (10 R_AI: an assumption, the paper gives none), a cut on every CNP with
 *    Rt = Rc, no floor on a cut; ECN Kmin 5 KB, Kmax 200 KB, Pmax 1 %.
 *  - connectx: NVIDIA ConnectX firmware defaults (DOCA "DCQCN CC parameters"; the same values
 *    in mlxconfig dumps of ConnectX-6/7): dce_tcp_g 1019 (alpha gain 5/1024), dce_tcp_rtt
 *    1 us, initial_alpha_value 1023/1024, rpg_min_dec_fac 50 %, rpg_min_rate 1 Mb/s,
 *    rate_reduce_monitor_period 4 us, rpg_time_reset 300 us, rpg_threshold F = 1, rpg_ai_rate
 *    5 Mb/s, rpg_hai_rate 50 Mb/s, min_time_between_cnps 4 us, clamp_tgt_rate 0 with
 *    clamp_tgt_rate_after_time_inc 1 (clamp_target = false).  No byte counter: the firmware's
 *    rpg_byte_reset default, 32767, is the largest value of its 15-bit field and its unit is
 *    not published unambiguously; HPCC's ns-3 model of this algorithm (rdma-hw.cc, "Mlx")
 *    has none, and read as 32767 bytes it would raise the rate every 0.7 us at 400 Gb/s,
 *    faster than any cut, and DCQCN would not hold the queue (measured: 32 MB and drops).
 *    Set byte_counter to try a reading.  The firmware sets no switch thresholds; ECN takes
 *    NVIDIA's switch defaults for RoCE (Cumulus Linux `nv set qos roce`: min 150 KB, max
 *    1.5 MB, probability 100 %).
 *  - hpcc: the HPCC paper's ns-3 DCQCN (run.py "dcqcn", rdma-hw.cc): alpha period 1 us,
 *    rate-decrease interval 4 us, timer 300 us, no byte counter, g = 1/256, alpha 1 at the
 *    first CNP, F = 1, min rate 1 Gb/s, no clamping, R_AI 5 Mb/s and R_HAI 50 Mb/s scaled by
 *    line rate / 25 Gb/s, a CNP for every marked packet (its ACKs carry them), ECN Kmin 100 KB
 *    and Kmax 400 KB scaled by the egress port's rate / 25 Gb/s, Pmax 0.2 (Alibaba's
 *    production values, the maintainer in HPCC issue 21; it assumes a 32 MB shared buffer:
 *    set [switch] buffer).
 * Default: connectx - what a RoCE NIC runs unless someone tunes it, so what a simulated
 * fabric should show first.  Measured (tests/check_dcqcn.c, two flows into one 400 Gb/s
 * link, the second joining at 200 us, PFC off): every 1 ms window gives each flow within
 * 10 % of the fair 196 Gb/s from 0 us (paper), 0.3 ms (connectx) and 2.9 ms (hpcc) after
 * the second flow joins; with 100 us windows from 0.65 ms (connectx), 5.8 ms (hpcc), never
 * for paper (its 55 us timers swing the rates by more than 10 % at that scale).  The queue
 * then averages 9 KB (paper), 33 KB (connectx), 0.7 MB (hpcc) with peaks of 221 KB, 217 KB,
 * 2.2 MB: connectx and hpcc cut hard when the queue first reaches the marking band and then
 * wait for the 300 us timer, so the queue drains to empty and the link idles for a while
 * after each episode; hpcc's queue rises into its deep band (1.6-6.4 MB at 400 Gb/s) about
 * every 1.5 ms.
 * Ignores: the NP's per-port CNP pacing (min_time_between_cnps is per flow here),
 * rate_to_set_on_first_cnp (the first cut starts from line rate), and
 * clamp_tgt_rate_after_time_inc = 0.
 */
#ifndef WEFT_MODELS_DCQCN_H
#define WEFT_MODELS_DCQCN_H

#include "models/ecn.h"
#include "sim/params.h"
#include "sim/timer.h"

#define WEFT_DCQCN_CNP_BYTES 98 /* on the wire: 78 B frame + 20 B preamble and gap */

typedef enum { WEFT_DCQCN_PAPER, WEFT_DCQCN_CONNECTX, WEFT_DCQCN_HPCC } WeftDcqcnPreset;

typedef struct {
    gboolean enabled;
    int preset;               /* WeftDcqcnPreset */
    weft_time_t cnp_interval; /* NP: at least this between two CNPs of a flow */
    double g, alpha_init;
    weft_time_t alpha_period;
    weft_time_t rate_reduce_period; /* at least this between two cuts (0: every CNP) */
    double max_decrease;            /* a cut lowers the rate by at most this fraction */
    guint64 min_rate;               /* bits/s */
    gboolean clamp_target;          /* every cut sets Rt = Rc (else only after a timer rise) */
    weft_time_t increase_timer;
    guint64 byte_counter;  /* bytes */
    guint64 fast_recovery; /* F */
    guint64 rai, rhai;     /* bits/s */
    /* Resolved: the line rate R_AI and R_HAI are scaled against (0: not scaled). */
    guint64 scale_ref_bps;
} WeftDcqcn;

/* A flow's DCQCN state: reaction point at its sender, notification point at its receiver. */
typedef struct {
    guint64 line_bps, rc_bps, rt_bps;
    double alpha;
    weft_time_t alpha_at;     /* start of alpha's current period (paper: its last update) */
    gboolean alpha_cnp;       /* a CNP arrived in alpha's current period */
    weft_time_t first_cnp_at; /* the alpha and rate-reduce grids start here */
    gboolean cut_pending;     /* a CNP arrived since the last rate-reduce check, which will cut
                                 (what the check does, not whether one is scheduled) */
    WeftTimer check;          /* the rate-reduce check; the caller (models/nic.c) arms it */
    weft_time_t last_cut;
    gboolean active; /* below line rate: timer and byte counter run */
    guint32 t_stage, bc_stage;
    guint64 bytes;             /* sent since the last byte-counter expiry */
    WeftTimer increase;        /* the increase timer: a cut cancels it, the caller re-arms it */
    guint64 rai_bps, rhai_bps; /* resolved for this flow's line rate */
    guint64 min_rc_bps;        /* lowest rate reached */
    guint64 cnps_received, cuts;
    /* Notification point. */
    weft_time_t cnp_last;
    guint64 ce_received, cnps_sent;
} WeftDcqcnFlow;

extern const WeftParamSpec weft_dcqcn_params[];

/* Reads [dcqcn] and then [ecn] (whose thresholds default to the preset's). */
gboolean weft_dcqcn_read (WeftDcqcn *cc, WeftEcn *ecn, const WeftExperiment *exp, GError **error);
void weft_dcqcn_clear (WeftDcqcn *cc);

/* A flow sending at @line_bps starts (reaction point state at line rate). */
void weft_dcqcn_flow_init (const WeftDcqcn *cc, WeftDcqcnFlow *s, guint64 line_bps);

/* Notification point: a CE-marked packet arrived at @now; TRUE when a CNP must be sent. */
gboolean weft_dcqcn_np_on_ce (const WeftDcqcn *cc, WeftDcqcnFlow *s, weft_time_t now);

/* What the caller of weft_dcqcn_on_cnp() must do next. */
typedef enum {
    WEFT_DCQCN_NONE,  /* nothing: the rate-reduce check is already pending */
    WEFT_DCQCN_CUT,   /* the rate was cut (s->increase cancelled): arm s->increase anew */
    WEFT_DCQCN_CHECK, /* arm s->check for weft_dcqcn_check_at(), then weft_dcqcn_on_check() */
} WeftDcqcnAction;

/* Reaction point: a CNP arrived at @now. */
WeftDcqcnAction weft_dcqcn_on_cnp (const WeftDcqcn *cc, WeftDcqcnFlow *s, weft_time_t now);

/* The end of the rate-reduce period that contains @now (periods run from the flow's first
 * CNP): when the check that WEFT_DCQCN_CHECK asks for is due. */
weft_time_t weft_dcqcn_check_at (const WeftDcqcn *cc, const WeftDcqcnFlow *s, weft_time_t now);

/* The rate-reduce check expired at @now (s->check is no longer pending).  TRUE when it cut the
 * rate: the caller then arms s->increase anew (the cut cancelled it). */
gboolean weft_dcqcn_on_check (const WeftDcqcn *cc, WeftDcqcnFlow *s, weft_time_t now);

/* The increase timer expired.  TRUE when it must run again. */
gboolean weft_dcqcn_on_timer (const WeftDcqcn *cc, WeftDcqcnFlow *s);

/* The flow sent @bytes (the byte counter). */
void weft_dcqcn_on_sent (const WeftDcqcn *cc, WeftDcqcnFlow *s, guint64 bytes);

#endif /* WEFT_MODELS_DCQCN_H */
