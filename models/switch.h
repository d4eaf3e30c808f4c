/* models/switch.h - an output-queued, store-and-forward switch.
 *
 * Models: a packet is forwarded once its last bit has arrived (store-and-forward), after a
 * fixed forwarding latency, to one egress port chosen by models/routing.h, where it waits in
 * a finite tail-drop buffer (models/port.h).  The crossbar is ideal: no input contention.
 * Ignores: cut-through, shared buffers, PFC, ECN (the fabric issues add them).
 * Parameters: [switch] buffer (per egress port), latency.
 */
#ifndef WEFT_MODELS_SWITCH_H
#define WEFT_MODELS_SWITCH_H

#include "models/fabric.h"
#include "models/port.h"
#include "sim/graph.h"

typedef struct {
    WeftModel parent;
    guint64 buffer_bytes;     /* [switch] buffer: per egress port */
    weft_time_t latency_ps;   /* [switch] latency: added to every arrival */
    const WeftGraph *graph;   /* borrowed */
    const WeftFabric *fabric; /* borrowed */
    guint64 hash_seed;
    guint n_ports;
    WeftPort *ports;          /* n_ports; unconnected ones have owner NULL */
    guint64 unroutable;       /* packets with no route (dropped) */
} WeftSwitch;

extern const WeftModelClass weft_switch_class;

#endif /* WEFT_MODELS_SWITCH_H */
