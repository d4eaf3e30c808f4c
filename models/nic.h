/* models/nic.h - an endpoint's transport engine: both halves of the reliable transport
 * (models/transport.h) for the flows that start or end at one node, over that node's ports.
 *
 * The engine is an agent (WeftNicAgent) that any model with ports can embed: the endpoint
 * model here (WeftNic: hosts and GPUs, which only terminate traffic) and a forwarding node
 * that also terminates flows (a server's NIC as perftest's endpoint: models/switch.h hands it
 * the packets addressed to its own node and keeps forwarding the rest).  The agent borrows
 * its owner's ports, pulls from them and schedules its events as its owner.
 *
 * Models: a flow leaves through the port of its first hop (a plain host has one port; a GPU
 * has an NVLink port and a PCIe port, and the route decides); the flows of a port share it
 * round-robin, one packet at a time, pulled when the transmitter frees (so an endpoint never
 * builds a queue of its own data); ACKs go ahead of data on Ethernet and in their VL's FIFO
 * on InfiniBand.  Memory is not a bottleneck and the endpoint never drops what it sends: a
 * NIC as an endpoint reads and writes host memory at no cost (the DMA over PCIe is left out).
 *
 * The RDMA NIC's own costs ([nic], doc/latency.md), for the flows whose path crosses the
 * fabric (WeftFlow.nic_path; not NVLink or PCIe transfers inside a server):
 *  - send processing: a message posted at t puts its first packet on the wire no earlier than
 *    t + tx_latency.  It is the message's earliest start, not a per-packet delay, so the
 *    packets after the first stream at line rate and the next message's processing overlaps
 *    this one's transmission (pipelining);
 *  - message rate: a port's NIC takes up at most message_rate messages per second, in the order
 *    they are posted: message k's processing starts no earlier than message k - 1's + 1 /
 *    message_rate (a slot per message, given when it is posted, so a waiting message costs
 *    no event), and its first packet goes tx_latency after that;
 *  - receive processing: every packet the NIC receives (data, ACKs, CNPs) reaches the
 *    transport rx_latency after its last bit, through a FIFO whose head alone has an event (the
 *    wire's discipline, models/link.h); its buffer space (InfiniBand credits) is free at once.
 *    On a fabric port without credits the wire itself holds the packet that much longer
 *    (weft_nic_fold_rx), which saves an event per packet and changes nothing else.
 *    The ACK of a data packet is therefore sent rx_latency after the data arrived, and the
 *    sender sees it rx_latency after it arrives.
 * A GPU's transport stands for its NIC here: its flows to other servers pay the NIC's costs at
 * the GPU (one message-rate budget per port, the GPU's PCIe port to its NIC), while the NIC
 * node on the way forwards with no latency of its own.
 * Ignores: host stacks, CPU overheads, the PCIe doorbell and DMA as separate steps (they are
 * inside tx_latency and rx_latency).
 */
#ifndef WEFT_MODELS_NIC_H
#define WEFT_MODELS_NIC_H

#include "models/port.h"
#include "models/transport.h"

struct WeftNicAgent {
    WeftModel *owner;  /* borrowed: the model whose ports it sends through */
    WeftTransport *tp; /* borrowed: the run's flow table */
    guint n_ports;
    WeftPort *ports;                   /* borrowed: the owner's, one per port of the node */
    WeftFlow **ring_head, **ring_tail; /* per port: flows that may send now */
    guint64 misdelivered;              /* packets that reached the wrong host (dropped) */
    weft_time_t *pace_next; /* per port: the earliest start of its next collective packet */
    WeftTimer *pace_wake;   /* per port: the wake-up for when pace_next has passed */
    gint pulling;           /* the port whose pull is running, or -1 */
    GHashTable *conns;      /* (dst, connection) -> its last queued message; NULL until used */
    weft_time_t *msg_next;  /* per port: the earliest the NIC takes up its next message ([nic]
                               message_rate) */
    WeftPacketFifo rx;      /* received packets in the receive pipeline ([nic] rx_latency), in
                               arrival order; each one's arrive_at is when it reaches the
                               transport (owned) */
    gboolean *rx_on_wire;   /* per port: its wire carries the receive pipeline instead
                               (weft_nic_fold_rx), so what arrives is consumed at once */
};

extern const WeftParamSpec weft_nic_params[];

typedef struct {
    WeftModel parent;
    WeftTransport *tp; /* borrowed: set by the builder before init */
    guint n_ports;
    WeftPort *ports; /* one per port of the node; unconnected ones have owner NULL */
    WeftNicAgent agent;
    guint64 lossless_drops; /* InfiniBand: no HCA buffer for an arriving packet (a bug) */
} WeftNic;

extern const WeftModelClass weft_nic_class;

/* Allocates @n_ports ports (the node's port count) before the builder sets them up. */
void weft_nic_setup_ports (WeftNic *nic, guint n_ports);

/** Sets up @agent for @owner's @n_ports @ports (already set up: the connected ones get the
 * agent as their pull source).  Everything is borrowed; weft_nic_agent_clear() frees what
 * the agent allocates. */
void weft_nic_agent_init (WeftNicAgent *agent, WeftModel *owner, WeftTransport *tp, WeftPort *ports,
                          guint n_ports);
void weft_nic_agent_clear (WeftNicAgent *agent);

/* Data packets in @agent's receive pipeline (for accounting checks: they are in flight). */
guint64 weft_nic_agent_inflight_data (const WeftNicAgent *agent);

/** A packet addressed to the agent's node arrived on @in (its credits, on InfiniBand, are
 * already counted): the agent frees its buffer space at once and consumes it, rx_latency later
 * for a flow across the fabric.  (transfer full) */
void weft_nic_agent_receive (WeftNicAgent *agent, WeftPort *in, WeftPacket *pkt);

/** Moves the receive pipeline of @nic's ports onto their incoming wires where it is a pure
 * delay: a port on a fabric link (every packet arriving there crossed the fabric, so pays
 * rx_latency) without InfiniBand credits (the one thing done at a packet's arrival, the credit
 * return, must keep its time).  The wire then hands each packet over rx_latency after its last
 * bit (models/link.h, rx_ps), and one event per packet does what two did: the arrival and the
 * pipeline's end.  Nothing observable moves: the transport sees every packet at the same
 * time, a packet in the pipeline is in flight either way, and the port's receive counters,
 * which count a packet at its arrival, are completed at the end by weft_nic_settle_rx().  Call
 * once the mechanisms have set up the ports and the models are initialized. */
void weft_nic_fold_rx (WeftNic *nic, const WeftGraph *graph);

/* Adds to @nic's receive counters the packets whose last bit has arrived by @now but that
 * still wait out rx_latency on a wire (weft_nic_fold_rx): what the counters would hold had the
 * pipeline been the NIC's.  Once, at the end of the run, before the counters are read. */
void weft_nic_settle_rx (WeftNic *nic, weft_time_t now);

/* Registers @flow with its source's agent and, unless it waits for other flows, schedules its
 * start at its start time. */
void weft_nic_schedule_flow (WeftNicAgent *agent, WeftFlow *flow);

/* Starts @flow at @at (>= now) at its source's agent @sender (WeftTransport's start hook): with
 * the tie key WEFT_KEY_START (sim/event.h) when @keyed, the same on every rank whenever the
 * release is learnt (a collective's gate, a flow another node receives: WeftFlow.start_keyed);
 * else by @sender's counter, in an event of its own node. */
void weft_nic_start_flow_at (WeftNicAgent *sender, WeftFlow *flow, weft_time_t at, gboolean keyed);

#endif /* WEFT_MODELS_NIC_H */
