/* models/pfc.h - Priority Flow Control (IEEE 802.1Qbb) on the RoCE fabric.
 *
 * Priorities: 8 (0-7).  On a RoCE port, class 0 carries PAUSE frames (highest, never
 * paused) and class 1 + (7 - p) priority p, so strict priority serves higher priorities first.
 * RDMA data and its ACKs ride `rdma_priority` (3), CNPs `cnp_priority` (6) (NVIDIA defaults).
 *
 * Receiver side (fabric switches only; hosts consume at once): per (ingress port, priority)
 * the bytes of packets that arrived on the port and have not started leaving (the port's
 * on_depart hook, as InfiniBand's input buffer).  Crossing `xoff` sends a PAUSE upstream on
 * that port (a 64 B frame + 20 B of wire overhead, class 0) with `quanta` pause quanta of 512
 * bit times; while still above xoff the pause is refreshed at half its time; at or below `xon`
 * a resume (quanta 0) goes out.  A packet that would take the queue above xoff + headroom is
 * dropped and counted as a lossless violation.
 *
 * Sender side (every port): a PAUSE takes effect `response` quanta after it arrives (the
 * peer's reaction time, 802.3 Annex 31B's upper bound: 905 quanta at 400 Gb/s) and stops that
 * priority at this egress until it expires (its quanta at this port's rate) or a resume comes.
 *
 * Headroom, unless set: 2 x (cable delay + the switches' forwarding latency, averaged over both
 * ends) x rate / 8 (data in flight both ways while the pause travels) + 3 x largest frame (the
 * one whose arrival crossed xoff - counted whole on arrival, so up to a frame above it - and
 * one being sent at each end) + the PAUSE frame (84 B) + response quanta x 64 B.  The IEEE
 * model's 2 frames assume the crossing is seen as the frame starts to arrive.
 * Deadlock: weft_network_pfc_deadlock (network/network.h) finds a cycle of paused queues; the
 * hang report prints it.
 * Watchdog (`watchdog = drop | forward`, off by default; SONiC's design): every `watchdog_poll`
 * while a port has a priority paused, a priority found paused with data waiting at
 * `watchdog_detect` consecutive polls is declared stormed for `watchdog_restore`: its pauses
 * are ignored (forward: the data goes on, and may overflow the peer) or its queue and
 * what joins it are dropped (drop), then it is restored.
 * Shared buffer ([switch] buffer_sharing, models/buffer.h): the packets a priority group holds
 * also hold bytes of the switch's pool, which sets one headroom per port aside and shares the
 * rest.  `xoff = dynamic` makes the threshold alpha x the free shared bytes at each arrival
 * (SONiC's lossless PG profiles, dynamic_th = log2 alpha); with a static or dynamic xoff, a
 * group also pauses where the shared part runs out.  The threshold a pause was sent at holds,
 * headroom on top, until the resume, which goes out at or below the smaller of xon and that
 * threshold.  A packet that finds no room in the pool is a lossless violation.
 * Ignores: separate ingress pools, reserved per-PG minimums, a shared headroom pool.
 */
#ifndef WEFT_MODELS_PFC_H
#define WEFT_MODELS_PFC_H

#include "sim/arena.h"
#include "sim/packet.h"
#include "sim/params.h"
#include "sim/time.h"
#include "sim/timer.h"
#include "sim/trace_schema.h"

#define WEFT_PFC_PRIOS 8
#define WEFT_PFC_FRAME 84 /* 64 B minimum frame + 20 B preamble and inter-frame gap */

typedef struct {
    gboolean enabled;
    guint64 rdma_priority, cnp_priority;
    guint64 xoff, xon;     /* bytes per (ingress port, priority); xoff unused when dynamic */
    char *xoff_str;        /* a size or "dynamic" */
    gboolean xoff_dynamic; /* xoff = alpha x the switch's free shared buffer */
    double alpha;          /* xoff = dynamic */
    guint64 headroom;      /* bytes above xoff; 0 with headroom_auto: computed per port */
    gboolean headroom_auto;
    char *headroom_str; /* "auto" or a size */
    guint64 quanta;     /* pause time sent, in 512-bit-time quanta */
    guint64 response;   /* sender reaction, quanta */
    int watchdog;       /* WeftPfcWatchdog */
    weft_time_t wd_poll, wd_restore;
    guint64 wd_detect; /* polls */
} WeftPfcConfig;

typedef enum { WEFT_PFC_WD_OFF, WEFT_PFC_WD_DROP, WEFT_PFC_WD_FORWARD } WeftPfcWatchdog;

/* Frame counts of one priority at one port. */
typedef struct {
    guint64 pauses_sent, resumes_sent; /* receiver side: frames this port sent upstream */
    guint64 pauses_received;           /* sender side: PAUSE frames with a pause time */
    guint64 violations;                /* receiver side: headroom overflowed (dropped) */
} WeftPfcCounts;

/* One priority's receiver-side state: what every packet's admission and departure read. */
typedef struct {
    guint64 used;       /* bytes of packets that arrived on the port and have not left */
    guint64 max_used;   /* its peak */
    guint64 s_max_used; /* its peak in the current /pfc sample interval */
    guint64 xoff_at;    /* the threshold the pause in force was sent at */
} WeftPfcRx;

/* Layout: a packet's admission at a switch's input and its departure read the first line
 * only (cfg, headroom, xoff, and the receiver state of the port's RDMA priority, which carries
 * RoCE's data and ACKs: rx_hot).  The other priorities' receiver state (CNPs, traffic of other
 * classes) and everything else follow.  The sender side's flags (which priorities a PAUSE has
 * stopped, which the watchdog has stormed) are the port's own (WeftPort pfc_paused and
 * pfc_storm, models/port.h), so an egress's dequeue reads none of this unless a PAUSE is in
 * force.  Allocated aligned to a line (weft_pfc_port_new).  Read the receiver state through
 * weft_pfc_rx. */
typedef struct {
    _Alignas(64) const WeftPfcConfig *cfg;
    guint64 headroom;             /* resolved for this port */
    guint8 xoff[WEFT_PFC_PRIOS];  /* receiver side: a pause is in force upstream */
    guint8 hot_prio;              /* the priority whose receiver state is rx_hot */
    WeftPfcRx rx_hot;             /* receiver side: priority hot_prio, in the first line */
    WeftPfcRx rx[WEFT_PFC_PRIOS]; /* receiver side: the other priorities (rx[hot_prio] unused) */
    guint64 rate_bps;
    /* sender side */
    weft_time_t until[WEFT_PFC_PRIOS], since[WEFT_PFC_PRIOS];
    guint64 paused_ps[WEFT_PFC_PRIOS]; /* closed pause intervals */
    /* receiver side, rare */
    WeftTimer refresh[WEFT_PFC_PRIOS]; /* a pause's refresh: pending while xoff */
    WeftPfcCounts n[WEFT_PFC_PRIOS];   /* frames and violations, both sides */
    /* watchdog (sender side) */
    WeftTimer wd_poll;            /* the next poll; pending while a priority is paused */
    guint8 stuck[WEFT_PFC_PRIOS]; /* consecutive polls paused with data waiting */
    weft_time_t storm_until[WEFT_PFC_PRIOS];
    guint64 storms, wd_dropped;
    guint64 s_paused_base; /* paused time (all priorities) at the sample start */
    /* /pfc samples: the counts and paused time at the sample start */
    WeftPfcCounts s_n[WEFT_PFC_PRIOS];
    guint64 s_paused[WEFT_PFC_PRIOS];
} WeftPfcPort;

G_STATIC_ASSERT (sizeof (WeftPfcRx) == 32);
G_STATIC_ASSERT (G_STRUCT_OFFSET (WeftPfcPort, rx_hot) + sizeof (WeftPfcRx) <= 64);

/* A zeroed port state aligned to a cache line, from @arena (sim/arena.h), freed with the run.
 * (transfer none) */
WeftPfcPort *weft_pfc_port_new (WeftArena *arena);

extern const WeftParamSpec weft_pfc_params[];

gboolean weft_pfc_config_read (WeftPfcConfig *cfg, const WeftExperiment *exp, GError **error);
void weft_pfc_config_clear (WeftPfcConfig *cfg);

/* Headroom for a port sending at @rate_bps over @delay_ps with frames up to @frame bytes. */
guint64 weft_pfc_headroom (const WeftPfcConfig *cfg, guint64 rate_bps, weft_time_t delay_ps,
                           guint64 frame);

/* Pause time of @quanta at @rate_bps. */
static inline weft_time_t
weft_pfc_quanta_ps (guint64 quanta, guint64 rate_bps)
{
    return weft_time_serialize (quanta * 64, rate_bps); /* 512 bits = 64 B */
}

/* The receiver state of @prio (0-7) at @pfc (transfer none). */
static inline WeftPfcRx *
weft_pfc_rx (const WeftPfcPort *pfc, guint prio)
{
    return (WeftPfcRx *) (prio == pfc->hot_prio ? &pfc->rx_hot : &pfc->rx[prio]);
}


/* Bytes of @prio's group above the threshold its pause in force was sent at: its headroom in
 * use (0 when not paused). */
static inline guint64
weft_pfc_headroom_used (const WeftPfcPort *pfc, guint prio)
{
    const WeftPfcRx *rx = weft_pfc_rx (pfc, prio);
    return pfc->xoff[prio] && rx->used > rx->xoff_at ? rx->used - rx->xoff_at : 0;
}

/* Paused time of @prio up to @now. */
guint64 weft_pfc_paused_ps (const WeftPfcPort *pfc, guint prio, weft_time_t now);
guint64 weft_pfc_paused_total (const WeftPfcPort *pfc, weft_time_t now);

/* The counts of every priority added up. */
WeftPfcCounts weft_pfc_counts_total (const WeftPfcPort *pfc);

/* The /pfc row of @prio for the interval ending at @now (counts since the previous call;
 * the caller names the node, port and link); FALSE when nothing happened at that priority
 * (no frame sent or received, no time paused, no violation: ingress data alone is no news).  Starts
 * the next interval either way. */
gboolean weft_pfc_sample (WeftPfcPort *pfc, guint prio, weft_time_t now, WeftTracePfcSample *row);

#endif /* WEFT_MODELS_PFC_H */
