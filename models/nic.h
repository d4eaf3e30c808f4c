/* models/nic.h - an endpoint's transport engine: both halves of the reliable transport
 * (models/transport.h) for the flows that start or end at a host or a GPU, over the
 * endpoint's ports.
 *
 * Models: a flow leaves through the port of its first hop (a plain host has one port; a GPU
 * has an NVLink port and a PCIe port, and the route decides); the flows of a port share it
 * round-robin, one packet at a time, pulled when the transmitter frees (so an endpoint never
 * builds a queue of its own data); ACKs go ahead of data on Ethernet and in their VL's FIFO
 * on InfiniBand.  Memory is not a bottleneck and the endpoint never drops what it sends.
 * Ignores: host stacks, CPU overheads.
 */
#ifndef WEFT_MODELS_NIC_H
#define WEFT_MODELS_NIC_H

#include "models/port.h"
#include "models/transport.h"

typedef struct {
    WeftModel parent;
    WeftTransport *tp;     /* borrowed: the run's flow table */
    guint n_ports;
    WeftPort *ports;       /* one per port of the node; unconnected ones have owner NULL */
    WeftFlow **ring_head, **ring_tail; /* per port: flows that may send now */
    guint64 misdelivered;  /* packets that reached the wrong host (dropped) */
    guint64 lossless_drops; /* InfiniBand: no HCA buffer for an arriving packet (a bug) */
    weft_time_t *pace_next;  /* per port: the earliest start of its next collective packet */
    gboolean *pace_wake;     /* per port: a pacing wake-up event is pending */
    gint pulling;            /* the port whose pull is running, or -1 */
    GHashTable *conns;     /* (dst, connection) -> its last queued message; NULL until used */
} WeftNic;

extern const WeftModelClass weft_nic_class;

/* Allocates @n_ports ports (the node's port count) before the builder sets them up. */
void weft_nic_setup_ports (WeftNic *nic, guint n_ports);

/* Registers @flow with its source NIC and, unless it waits for other flows, schedules its
 * start at its start time. */
void weft_nic_schedule_flow (WeftNic *nic, WeftFlow *flow);

/* Starts @flow at @at (>= now) on its source NIC @sender (WeftTransport's start hook). */
void weft_nic_start_flow_at (WeftModel *sender, WeftFlow *flow, weft_time_t at);

#endif /* WEFT_MODELS_NIC_H */
