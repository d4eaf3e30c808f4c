/* models/fabric.h - the [fabric] group: which link layer, packet format and path choice.
 *
 * Fabrics modelled:
 *   ethernet    a baseline lossy Ethernet: tail-drop queues, no link-level flow control, no
 *               congestion control.  Packet format from [ethernet].
 *   infiniband  credit-based link-level flow control per virtual lane (models/ib_credit.h),
 *               VL arbitration (models/vlarb.h), service levels; lossless by construction.
 *               Packet format and link layer from [infiniband] (models/infiniband.h).
 *   roce        RoCEv2 on Ethernet: the [ethernet] packet format, 802.1p priorities with PFC
 *               ([pfc], models/pfc.h) making the RDMA priority lossless; ECN marking at
 *               switches ([ecn], models/ecn.h) and DCQCN at the NICs ([dcqcn], models/dcqcn.h).
 *   ultra-ethernet  the [ethernet] packet format on lossy switches, with Ultra Ethernet's
 *               transport ([uet], models/uet.h): spraying over entropy values, RUD or ROD
 *               delivery, packet trimming, ECN marking ([ecn]) and NSCC ([nscc]).
 *
 * Packet format: `mtu` is the largest payload; a packet on the wire is payload + the fabric's
 * header bytes.  Ethernet's default header, 82 B, is RoCEv2's per-packet cost: Ethernet 14 +
 * IPv4 20 + UDP 8 + BTH 12 + ICRC 4 + FCS 4 = 62 B of frame, plus 20 B of preamble, start
 * delimiter and inter-frame gap that take wire time (IEEE 802.3; IBA Annex A17).  An Ethernet
 * ACK is a minimum frame: 64 B + 20 B = 84 B.
 *
 * Routing: static (the topology's single route, D-mod-k or a loaded table), ecmp (per-flow
 * hash) or adaptive (per packet, the least-loaded equal-cost port: models/routing.h).
 */
#ifndef WEFT_MODELS_FABRIC_H
#define WEFT_MODELS_FABRIC_H

#include "models/dcqcn.h"
#include "models/ecn.h"
#include "models/ibcc.h"
#include "models/infiniband.h"
#include "models/pfc.h"
#include "models/uet.h"
#include "sim/params.h"

typedef enum {
    WEFT_FABRIC_ETHERNET,
    WEFT_FABRIC_INFINIBAND,
    WEFT_FABRIC_ROCE,
    WEFT_FABRIC_ULTRA_ETHERNET,
    WEFT_FABRIC_KIND_COUNT
} WeftFabricKind;
typedef enum { WEFT_ROUTING_ECMP, WEFT_ROUTING_STATIC, WEFT_ROUTING_ADAPTIVE } WeftRoutingKind;

typedef struct {
    guint64 header;    /* wire bytes added to every data packet */
    guint64 ack_bytes; /* wire bytes of an ACK */
} WeftEthernetConfig;

/* [nic] (models/nic.c): what an RDMA NIC adds to every message that crosses the fabric - its
 * processing latency on the way out and on the way in, and its message rate - resolved for the
 * fabric's kind where a key says auto (doc/latency.md). */
typedef struct {
    char *tx_latency_str, *rx_latency_str, *message_rate_str; /* the keys' text (owned) */
    weft_time_t tx_latency_ps;  /* a message's post to its first packet's first bit */
    weft_time_t rx_latency_ps;  /* a packet's last bit to the transport having it */
    weft_time_t message_gap_ps; /* 1 / message_rate, rounded up; 0: no limit */
} WeftNicConfig;

typedef struct {
    int kind;    /* WeftFabricKind */
    int routing; /* WeftRoutingKind */
    guint64 mtu; /* largest payload, bytes */
    /* Resolved from the fabric's own group: */
    guint64 header;                       /* wire bytes added to every data packet */
    guint64 ack_bytes;                    /* wire bytes of an ACK */
    guint8 data_prio, ack_prio, cnp_prio; /* traffic classes (weft_fabric_data_prio) */
    WeftEthernetConfig eth;
    WeftIbConfig ib;   /* kind == infiniband */
    WeftIbcc ibcc;     /* kind == infiniband: [ibcc] (models/ibcc.h) */
    WeftPfcConfig pfc; /* kind == roce: [pfc] (models/pfc.h) */
    WeftEcn ecn;       /* kind == roce: [ecn] (models/ecn.h); zero (off) elsewhere */
    WeftDcqcn dcqcn;   /* kind == roce: [dcqcn] (models/dcqcn.h); zero (off) elsewhere */
    WeftNicConfig nic; /* [nic] (models/nic.c), every kind */
    WeftUet uet;       /* kind == ultra-ethernet: [uet], [nscc] (models/uet.h); zero elsewhere */
    struct WeftFaults *faults; /* [fault.NAME] groups (models/fault.h); NULL without any */
    struct WeftSm *sm;         /* [routing] sm_reroute (models/sm.h); NULL when off */
    struct WeftFrn *frn;       /* [routing] fault_notifications (models/frn.h); NULL when unused */
    int spray;         /* [fabric] spray on Ethernet and RoCE: WeftUetLoadBalance (ecmp: off) */
    guint64 spray_evs; /* [fabric] spray_evs */
    WeftUet spray_cfg; /* spraying over Ethernet or RoCE: the EV policy alone (ROD, no trims) */
} WeftFabric;

extern const WeftParamSpec weft_fabric_params[];
extern const WeftParamSpec weft_ethernet_params[];

/* Reads [fabric].  The mechanisms' groups
 * ([ethernet], [infiniband], [pfc], ...) are read by their configure hooks
 * (models/registry.h), which fill the rest of WeftFabric. */
gboolean weft_fabric_read (WeftFabric *fabric, const WeftExperiment *exp, GError **error);
void weft_fabric_clear (WeftFabric *fabric);

/* "ethernet", "infiniband", "roce", "ultra-ethernet". */
const char *weft_fabric_kind_name (int kind);

/* RDMA reliable connections (InfiniBand RC, RoCEv2) have no transport window: link credits
 * or PFC pauses pace the sender (with PFC off, losses and go-back-N do). */
static inline gboolean
weft_fabric_rdma (const WeftFabric *fabric)
{
    return fabric->kind == WEFT_FABRIC_INFINIBAND || fabric->kind == WEFT_FABRIC_ROCE;
}

/* RoCE with PFC on: the RDMA priority is lossless (pauses, not tail drop, at the egress). */
static inline gboolean
weft_fabric_pfc (const WeftFabric *fabric)
{
    return fabric->kind == WEFT_FABRIC_ROCE && fabric->pfc.enabled;
}

/* The traffic class (models/port.h) of data, CNPs and ACKs: 1, 0 and 0 unless a mechanism
 * sets them (PFC's configure: the 802.1p priorities, ACKs riding the RDMA priority as on real
 * RoCE, CNPs their own).  Resolved once, read per packet. */
static inline guint8
weft_fabric_data_prio (const WeftFabric *fabric)
{
    return fabric->data_prio;
}

static inline guint8
weft_fabric_cnp_prio (const WeftFabric *fabric)
{
    return fabric->cnp_prio;
}

static inline guint8
weft_fabric_ack_prio (const WeftFabric *fabric)
{
    return fabric->ack_prio;
}

#endif /* WEFT_MODELS_FABRIC_H */
