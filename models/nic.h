/* models/nic.h - a host's NIC: one port to the fabric and both halves of the reliable
 * transport (models/transport.h) for the flows that start or end at this host.
 *
 * Models: the NIC's flows share its link round-robin, one packet at a time, pulled when the
 * transmitter frees (so a host never builds a queue of its own data); ACKs go first (class 0).
 * Host memory is not a bottleneck and the NIC never drops what it sends.
 * Ignores: PCIe, host stacks, multiple ports per host (the DGX server model adds them).
 */
#ifndef WEFT_MODELS_NIC_H
#define WEFT_MODELS_NIC_H

#include "models/port.h"
#include "models/transport.h"

typedef struct {
    WeftModel parent;
    WeftTransport *tp;     /* borrowed: the run's flow table */
    WeftPort port;         /* port 0 */
    WeftFlow *ring_head, *ring_tail; /* flows that may send now */
    guint64 misdelivered;  /* packets that reached the wrong host (dropped) */
    guint64 lossless_drops; /* InfiniBand: no HCA buffer for an arriving packet (a bug) */
} WeftNic;

extern const WeftModelClass weft_nic_class;

/* Schedules the start of @flow at its start time; the NIC must be the flow's source. */
void weft_nic_schedule_flow (WeftNic *nic, WeftFlow *flow);

#endif /* WEFT_MODELS_NIC_H */
