/* network/sample.c - the network's traces: /topology at the start, /links, /pfc, /dcqcn and
 * /buffers every sample interval, /collectives as they finish, unfinished flows and /ports at
 * the end. */
#include "config.h"
#define G_LOG_DOMAIN "weft-network"
#include "network/network.h"

#include "models/switch.h"


/* Every [trace] interval: /links per port, /pfc per port and priority, /dcqcn per flow under
 * way. */
static void
sample_traces (WeftSim *sim, void *data)
{
    WeftNetwork *net = data;
    WeftTraceLinkSample row;
    for (guint i = 0; i < net->ports->len; i++) {
        WeftPort *p = net->ports->pdata[i];
        if (weft_port_sample (p, sim->now, &row))
            weft_trace_append_link_sample (net->trace, &row);
        for (guint prio = 0; p->pfc && prio < WEFT_PFC_PRIOS; prio++) {
            WeftTracePfcSample pr;
            if (!weft_pfc_sample (p->pfc, prio, sim->now, &pr))
                continue;
            pr.node = p->owner->node;
            pr.port = p->index + 1;
            pr.link = p->link.link_id;
            weft_trace_append_pfc_sample (net->trace, &pr);
        }
    }
    if (net->fabric.dcqcn.enabled) {
        for (guint i = 0; i < net->tp.active->len; i++) {
            const WeftFlow *f = &net->tp.flows[g_array_index (net->tp.active, guint32, i)];
            const WeftDcqcnFlow *d = &f->dcqcn;
            WeftTraceDcqcnSample dr = { .time_ps = sim->now, .flow = f->spec.id,
                                        .rate_bps = d->rc_bps, .target_bps = d->rt_bps,
                                        .alpha = d->alpha, .cnps_received = d->cnps_received,
                                        .rate_cuts = d->cuts };
            weft_trace_append_dcqcn_sample (net->trace, &dr);
        }
    }
    WeftTraceBufferSample brow;
    for (guint i = 0; i < sim->models->len; i++) {
        WeftModel *m = sim->models->pdata[i];
        if (m->klass == &weft_switch_class && ((WeftSwitch *) m)->buffer &&
            weft_buffer_sample (((WeftSwitch *) m)->buffer, m->node, sim->now, &brow))
            weft_trace_append_buffer_sample (net->trace, &brow);
    }
    weft_trace_flush_due (net->trace);
}

static void on_collective_done (const WeftCollRun *c, void *data);

void
weft_network_attach_trace (WeftNetwork *net, WeftTrace *trace, weft_time_t interval)
{
    const WeftGraph *g = net->graph;
    net->trace = trace;
    net->tp.trace = trace;
    net->tp.collective_done = on_collective_done;
    net->tp.collective_done_data = net;
    guint nn = weft_graph_n_nodes (g), nl = weft_graph_n_links (g);
    WeftTraceNode *nodes = g_new0 (WeftTraceNode, MAX (nn, 1));
    for (guint i = 0; i < nn; i++) {
        const WeftNode *n = weft_graph_node (g, i);
        nodes[i].id = i;
        g_strlcpy (nodes[i].name, n->name, sizeof nodes[i].name);
        g_strlcpy (nodes[i].kind, weft_node_kind_name (n->kind), sizeof nodes[i].kind);
        nodes[i].n_ports = n->ports->len;
        nodes[i].tier = n->tier;
    }
    weft_trace_write_nodes (trace, nodes, nn);
    g_free (nodes);
    WeftTraceLink *links = g_new0 (WeftTraceLink, MAX (nl, 1));
    for (guint i = 0; i < nl; i++) {
        const WeftLink *l = weft_graph_link (g, i);
        links[i] = (WeftTraceLink){ .id = i, .node_a = l->a, .port_a = l->pa + 1,
                                    .node_b = l->b, .port_b = l->pb + 1,
                                    .rate_bps = l->rate_bps, .delay_ps = l->delay_ps };
        g_strlcpy (links[i].kind, weft_link_kind_name (l->kind), sizeof links[i].kind);
    }
    weft_trace_write_links (trace, links, nl);
    g_free (links);
    if (interval > 0) {
        net->sim->sample_interval = interval;
        net->sim->sample = sample_traces;
        net->sim->sample_data = net;
    }
    weft_trace_flush (trace);
}

void
weft_network_finish_trace (WeftNetwork *net)
{
    if (!net->trace)
        return;
    for (guint i = 0; i < net->tp.n_flows; i++)
        if (!net->tp.flows[i].finished)
            weft_transport_trace_flow (&net->tp, &net->tp.flows[i]);
    if (net->sim->sample)
        sample_traces (net->sim, net);
    WeftTracePort *rows = g_new0 (WeftTracePort, MAX (net->ports->len, 1));
    for (guint i = 0; i < net->ports->len; i++) {
        const WeftPort *p = net->ports->pdata[i];
        rows[i] = (WeftTracePort){ .node = p->owner->node, .port = p->index + 1,
                                   .link = p->link.link_id, .tx_bytes = p->tx_bytes,
                                   .rx_bytes = p->rx_bytes, .tx_packets = p->tx_packets,
                                   .rx_packets = p->rx_packets, .drops = p->drops,
                                   .max_queue_bytes = p->max_q, .busy_ps = p->busy_ps,
                                   .rate_bps = p->link.rate_bps, .ecn_marks = p->ecn_marks,
                                   /* Faults do not exist yet: every port is up. */
                                   .state = 4 /* Active */, .phys_state = 5 /* LinkUp */ };
        g_strlcpy (rows[i].link_layer, p->ib ? "InfiniBand" : "Ethernet",
                   sizeof rows[i].link_layer);
        if (p->ib) {
            rows[i].xmit_wait_ps = p->ib->xmit_wait_ps +
                                   (p->ib->stalled ? net->sim->now - p->ib->stall_since : 0);
            rows[i].lossless_drops = p->ib->lossless_drops;
        } else if (p->pfc) {
            rows[i].xmit_wait_ps = weft_pfc_paused_total (p->pfc, net->sim->now);
            rows[i].lossless_drops = weft_pfc_counts_total (p->pfc).violations;
        }
    }
    weft_trace_write_ports (net->trace, rows, net->ports->len);
    g_free (rows);
    weft_trace_flush (net->trace);
}



static void
on_collective_done (const WeftCollRun *c, void *data)
{
    WeftNetwork *net = data;
    WeftTraceCollective row;
    weft_network_collective_row (net, (guint32) (c - net->tp.colls), &row);
    weft_trace_append_collective (net->trace, &row);
}
