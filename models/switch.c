#include "config.h"
#define G_LOG_DOMAIN "weft-switch"
#include "models/switch.h"

#include "models/routing.h"

static const WeftParamSpec switch_params[] = {
    WEFT_PARAM_BYTES ("buffer", WeftSwitch, buffer_bytes, "1MiB", "1KiB", "16GiB",
                      "egress buffer per port; a packet that does not fit is dropped (tail drop)"),
    WEFT_PARAM_TIME ("latency", WeftSwitch, latency_ps, "0ns", "0ns", "1ms",
                     "forwarding latency from last bit in to egress queue (0: ideal crossbar; "
                     "Ethernet ASICs take a few hundred ns)"),
    WEFT_PARAM_END,
};

static gboolean
switch_init (WeftModel *m, GError **error)
{
    return TRUE;
}

static void
switch_receive (WeftModel *m, guint in_port, WeftPacket *pkt)
{
    WeftSwitch *self = (WeftSwitch *) m;
    weft_port_count_rx (&self->ports[in_port], pkt);
    guint32 out = weft_routing_choose (self->graph, self->fabric->routing, self->hash_seed,
                                       m->node, pkt->dst_ep, pkt->hash);
    if (G_UNLIKELY (out == WEFT_GRAPH_NONE || out >= self->n_ports ||
                    !self->ports[out].owner)) {
        self->unroutable++;
        weft_packet_release (&m->sim->pool, pkt);
        return;
    }
    weft_port_enqueue (&self->ports[out], pkt);
}

static void
switch_clear (WeftModel *m)
{
    WeftSwitch *self = (WeftSwitch *) m;
    for (guint i = 0; i < self->n_ports; i++)
        weft_port_clear (&self->ports[i]);
    g_free (self->ports);
}

const WeftModelClass weft_switch_class = {
    .name = "switch",
    .help = "output-queued store-and-forward switch with tail-drop egress buffers",
    .instance_size = sizeof (WeftSwitch),
    .params = switch_params,
    .init = switch_init,
    .receive = switch_receive,
    .clear = switch_clear,
};
