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
 *    inactive until its first CNP.  On a CNP (at most one cut per `rate_reduce_period`):
 *        Rt = Rc;  Rc = max (Rc x max (1 - alpha/2, 1 - max_decrease), min_rate);
 *        alpha = (1 - g) alpha + g
 *    alpha decays, alpha = (1 - g) alpha, once per `alpha_period` without a CNP (computed
 *    lazily at the next CNP: exact, and no event per flow per microsecond).  A cut resets
 *    the increase timer (`increase_timer`) and the byte counter (`byte_counter` bytes sent);
 *    each expiry of either is a rate-increase event: with T and BC the expiries of each
 *    since the cut and F = `fast_recovery`,
 *        max (T, BC) < F    fast recovery:   Rc = (Rt + Rc) / 2
 *        min (T, BC) > F    hyper increase:  Rt += (min (T, BC) - F) x rhai; Rc = (Rt + Rc) / 2
 *        otherwise          additive:        Rt += rai; Rc = (Rt + Rc) / 2
 *    rates capped at the line rate; back at line rate the flow is inactive again (no timer).
 *    The rate paces the flow: the start of its next packet is its previous start + the
 *    packet's size at Rc (the NIC's per-flow pacing, shared with models/ibcc.h).
 * Presets (`preset`, FACTS.md; every other key overrides its preset's value):
 *  - paper: the SIGCOMM 2015 paper and its authors' ns-3 code, 40 GbE: CNP 50 us, alpha
 *    period 55 us, increase timer 55 us, byte counter 10 MB, g = 1/256, F = 5, R_AI 40 Mb/s,
 *    R_HAI 400 Mb/s (10 R_AI: an assumption, the paper gives none), no minimum between cuts,
 *    no floor on a cut; ECN Kmin 5 KB, Kmax 200 KB, Pmax 1 %.
 *  - connectx: NVIDIA ConnectX firmware defaults (DOCA "DCQCN CC parameters"): g = 5/1024,
 *    alpha period 1 us, initial alpha 1023/1024, a cut at most halves the rate, min rate
 *    1 Mb/s, rate-reduce period 4 us, increase timer 300 us, byte counter 32767 B, R_AI
 *    5 Mb/s, R_HAI 50 Mb/s, CNP interval 4 us, F = 1 (rpg_threshold; verify); the firmware
 *    publishes no switch thresholds, so ECN keeps the paper's.
 *  - hpcc: the HPCC paper's ns-3 setup (run.py): the ConnectX values with R_AI and R_HAI
 *    scaled by line rate / 25 Gb/s, ECN Kmin 100 KB and Kmax 400 KB scaled by the egress
 *    port's rate / 25 Gb/s, Pmax 0.2 (it assumes a 32 MB shared buffer: set [switch] buffer).
 * Default: connectx - what a RoCE NIC runs unless someone tunes it, so what a simulated
 * fabric should show first.  Measured (tests/check_dcqcn.c, two flows into one 400 Gb/s
 * link, the second joining at 200 us): paper converges to within 10 % of the fair share over
 * 1 ms windows from the start; connectx stays at about 236/152 Gb/s for the 4 ms the flows
 * last (5 Mb/s additive steps barely move a 400 Gb/s split); hpcc swings, one flow starving
 * while the queue reaches 8 MB (a 1.6-6.4 MB marking band and a cut every 4 us).
 * Ignores: the NP's per-QP vs per-port CNP distinction (per flow here), clamp_tgt_rate
 * variants, rate_to_set_on_first_cnp (the first cut starts from line rate).
 */
#ifndef WEFT_MODELS_DCQCN_H
#define WEFT_MODELS_DCQCN_H

#include "models/ecn.h"
#include "sim/params.h"

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
    weft_time_t alpha_at; /* alpha is current as of this time */
    weft_time_t last_cut;
    gboolean active; /* below line rate: timer and byte counter run */
    guint32 t_stage, bc_stage;
    guint64 bytes;             /* sent since the last byte-counter expiry */
    guint32 timer_gen;         /* the increase timer's current generation */
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

/* Reaction point: a CNP arrived at @now.  TRUE when it cut the rate: the caller then starts
 * the increase timer anew (s->timer_gen has advanced). */
gboolean weft_dcqcn_on_cnp (const WeftDcqcn *cc, WeftDcqcnFlow *s, weft_time_t now);

/* The increase timer expired.  TRUE when it must run again. */
gboolean weft_dcqcn_on_timer (const WeftDcqcn *cc, WeftDcqcnFlow *s);

/* The flow sent @bytes (the byte counter). */
void weft_dcqcn_on_sent (const WeftDcqcn *cc, WeftDcqcnFlow *s, guint64 bytes);

#endif /* WEFT_MODELS_DCQCN_H */
