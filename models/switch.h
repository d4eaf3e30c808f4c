/* models/switch.h - an output-queued, store-and-forward switch.
 *
 * Models: a packet is forwarded once its last bit has arrived (store-and-forward) or once its
 * headers have (cut-through: it still cannot finish leaving before its tail arrives), after a
 * fixed forwarding latency, to one egress port chosen by models/routing.h (static, ECMP, or
 * adaptive: the least-loaded equal-cost port, ties at random).  The crossbar is ideal: no
 * input contention.
 * Ethernet: each egress port has a finite tail-drop buffer (`buffer`), or ([switch]
 * buffer_sharing = static | dynamic) a fabric switch's egress queues share one pool of
 * `shared_buffer` bytes with static or dynamic (alpha) per-queue thresholds (models/buffer.h).
 * InfiniBand: the buffer that matters is at the input, per VL (models/ib_credit.h): a packet
 * holds its input port's credits from arrival until it starts leaving, queued at its output
 * in a per-VL FIFO - in effect virtual output queues, so a blocked output does not block
 * other outputs' traffic inside the switch, while a full input buffer stops the upstream
 * sender for every destination on that VL: head-of-line blocking through credits, as in
 * hardware, and the congestion spreading it causes.
 * With [ibcc] enabled, a fabric switch marks FECN on data packets joining a congested
 * output queue (models/ibcc.h).
 * A forwarding node may also be an endpoint (a server's NIC that perftest runs on): it then
 * embeds a transport agent (models/nic.h) that consumes the packets addressed to its own
 * node - whole, after their last bit, freeing their input credits at once as an HCA does -
 * and sends its flows through the switch's ports, where they queue behind transit packets
 * of their VL.  Forwarding and credits stay this file's, for transit and local traffic alike.
 * On RoCE with [ecn] enabled, a fabric switch marks CE on data packets by their egress
 * queue's depth (models/ecn.h), as they join the queue or as they leave it.
 * RoCE with PFC: fabric switches count each packet toward its (input port, priority) from
 * arrival until it starts leaving (models/pfc.h), pausing the upstream sender at xoff.
 * With a shared buffer and PFC, lossless packets are admitted by their ingress priority group
 * (models/pfc.h) and take pool bytes; egress thresholds apply to lossy traffic only.
 * Latency: every packet a fabric switch forwards waits [switch] latency between its arrival
 * (its headers, cut-through; its last bit, store-and-forward) and its egress queue, a constant
 * that is added to the wire's delay, so it pipelines (no throughput cost); by default the
 * port-to-port figure of the fabric's switch ASIC (doc/latency.md).  A server's internal
 * switches (NVSwitch, PCIe switches, the NIC, the root complex) add none: their links carry it.
 * Parameters: [switch] buffer (Ethernet, per egress port), buffer_sharing, shared_buffer,
 * queue_limit, alpha, latency, forwarding.
 */
#ifndef WEFT_MODELS_SWITCH_H
#define WEFT_MODELS_SWITCH_H

#include "models/fabric.h"
#include <gsl/gsl_rng.h>

#include "models/buffer.h"
#include "models/nic.h"
#include "models/port.h"
#include "sim/graph.h"

/* Static routing's recent answers (models/switch.c): a direct-mapped table by destination
 * endpoint, valid for one generation of the graph's route tables. */
#define WEFT_SWITCH_ROUTE_CACHE_SLOTS 64
typedef struct WeftSwitchRouteCache {
    guint64 gen;
    struct {
        guint32 ep1; /* the destination endpoint + 1; 0: empty */
        guint32 port;
    } slot[WEFT_SWITCH_ROUTE_CACHE_SLOTS];
} WeftSwitchRouteCache;

typedef struct {
    WeftModel parent;
    guint64 buffer_bytes;        /* [switch] buffer: per egress port (no sharing) */
    WeftBufferConfig buffer_cfg; /* [switch] buffer_sharing, shared_buffer, queue_limit, alpha */
    WeftBuffer *buffer;          /* owned: the shared pool of a fabric switch with buffer_sharing
                                    on Ethernet or RoCE; NULL otherwise */
    char *latency_str;           /* [switch] latency as read; NULL once resolved */
    weft_time_t latency_ps;      /* [switch] latency (auto resolved): added to every arrival */
    int forwarding;              /* auto | cut-through | store-and-forward */
    gboolean internal;           /* inside a server (NVSwitch, PCIe switch, NIC, CPU): lossless
                                    on every fabric, no latency of its own */
    gsl_rng *rng;                /* adaptive routing's tie-breaks, made at the first tie; NULL
                                    until then */
    const WeftGraph *graph;      /* borrowed */
    WeftRouteView routes;        /* this switch's flat route table into graph's (refilled when
                                    the tables change) */
    WeftSwitchRouteCache *route_cache; /* owned: static routing's recent answers (switch.c);
                                          NULL until the switch's first static lookup */
    const WeftFabric *fabric;          /* borrowed */
    guint64 hash_seed;
    guint n_ports;
    WeftPort *ports;            /* n_ports; unconnected ones have owner NULL */
    guint64 unroutable;         /* packets with no route (dropped) */
    guint64 lossless_drops;     /* InfiniBand: no input buffer for an arriving packet (a bug) */
    guint32 pool_free;          /* InfiniBand: credits left in the shared pool ([infiniband]
                                   shared_buffer), lent to its input ports' VLs */
    WeftIbccMarker *cc_markers; /* per port when [ibcc] is on (fabric switches only); else NULL */
    guint64 fecn_marked;        /* data packets this switch marked with FECN */
    gboolean pfc_ingress;       /* RoCE: PFC ingress accounting on this switch's ports */
    gboolean ecn_dequeue;       /* ECN marks as packets leave (else as they are queued) */
    gsl_rng *ecn_rng;           /* RoCE with [ecn] on (fabric switches only): marking draws */
    guint32 trim_bytes;         /* Ultra Ethernet trimming ([uet] trimming, fabric switches):
                                   a trimmed packet's size; 0: no trimming */
    gboolean enqueue_extras;    /* any of cc_markers, buffer, ECN marked on enqueue, trim_bytes:
                                   a forwarded packet's steps before its queue beyond PFC's
                                   ingress count (set by the model's init, after every
                                   mechanism's setup) */
    WeftNicAgent *agent;        /* owned: the transport of flows starting or ending here; NULL
                                   unless a workload addresses this node */
} WeftSwitch;

typedef enum {
    WEFT_FORWARDING_AUTO,
    WEFT_FORWARDING_CUT_THROUGH,
    WEFT_FORWARDING_STORE
} WeftForwarding;

extern const WeftModelClass weft_switch_class;

/* Whether this switch forwards cut-through (auto: on InfiniBand). */
gboolean weft_switch_cut_through (const WeftSwitch *sw);

/* InfiniBand: every port frees its input credits as packets leave (after the ports have
 * their WeftIbPort). */
void weft_switch_enable_credits (WeftSwitch *self);

/* Puts the departure hook (ECN dequeue marking, input-buffer release) on every connected port:
 * each mechanism that has a duty as packets leave calls it from its setup. */
void weft_switch_install_depart (WeftSwitch *self);

/* Port @p of a switch or NIC model.  (transfer none) */
WeftPort *weft_model_port (WeftModel *m, guint32 p);

/* Credit-gated links (InfiniBand, Ultra Ethernet's link credits): pairs every port of @ports
 * (WeftPort *) that has credits with the port at its link's other end (weft_port_set_far). */
void weft_ports_pair_credits (GPtrArray *ports);

/* The first fabric switch (not inside a server) of @switches (WeftSwitch *), or NULL: every
 * fabric switch reads the same [switch] group, so it speaks for all.  (transfer none) */
const WeftSwitch *weft_switch_first_fabric (const GPtrArray *switches);

/* Reads [switch] into @sw: its own keys and the shared buffer's (models/buffer.h); @exp NULL:
 * the defaults (a server's internal switches).  latency = auto takes the default of the
 * fabric @fabric_kind (WeftFabricKind).  Errors: WEFT_CONFIG_ERROR, naming the key. */
gboolean weft_switch_read_params (WeftSwitch *sw, const WeftExperiment *exp, int fabric_kind,
                                  GError **error);

/* [switch] latency = auto on the fabric @fabric_kind: a fabric switch's port-to-port latency
 * (doc/latency.md). */
weft_time_t weft_switch_default_latency (int fabric_kind);

/* RoCE with PFC (fabric switches): per (input port, priority) accounting, released as packets
 * start leaving. */
void weft_switch_enable_pfc (WeftSwitch *self);

/** Makes the switch an endpoint too (once; after its ports are set up): returns its transport
 * agent, created on the first call.  (transfer none) */
WeftNicAgent *weft_switch_agent (WeftSwitch *self, WeftTransport *tp);

#endif /* WEFT_MODELS_SWITCH_H */
