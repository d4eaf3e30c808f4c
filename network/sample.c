/* network/sample.c - the network's traces: /topology at the start, /links, /pfc, /dcqcn and
 * /buffers every sample interval, /collectives as they finish, unfinished flows and /ports at
 * the end. */
#include "config.h"
#define G_LOG_DOMAIN "weft-network"
#include "network/network.h"

#include "models/nic.h"


/* Every [trace] interval: /links per port, then each mechanism's records (/pfc, /dcqcn,
 * /buffers). */
static void
sample_traces (WeftSim *sim, void *data)
{
    WeftNetwork *net = data;
    WeftTraceLinkSample row;
    for (guint i = 0; i < net->ports->len; i++) {
        WeftPort *p = net->ports->pdata[i];
        /* Across ranks each rank samples its own ports, in one process's order (sim/trace.h). */
        if (!weft_sim_owns (sim, p->owner->node))
            continue;
        weft_trace_set_order (net->trace, i);
        if (weft_port_sample (p, sim->now, &row))
            weft_trace_append_link_sample (net->trace, &row);
    }
    weft_trace_set_order (net->trace, 0);
    /* /dcqcn and /uet list the flows under way in id order (models/transport.h). */
    if (net->fabric.dcqcn.enabled || net->tp.uet)
        weft_transport_order_active (&net->tp);
    for (const WeftMechanism *const *mech = net->env.mechs; *mech; mech++)
        if ((*mech)->sample)
            (*mech)->sample (&net->env, sim->now);
    weft_trace_set_order (net->trace, 0);
    weft_trace_flush_due (net->trace, sim->events);
}

static void on_collective_done (const WeftCollRun *c, void *data);

void
weft_network_attach_trace (WeftNetwork *net, WeftTrace *trace, weft_time_t interval)
{
    const WeftGraph *g = net->graph;
    net->trace = trace;
    net->env.trace = trace;
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
        nodes[i].rail = n->rail;
    }
    weft_trace_write_nodes (trace, nodes, nn);
    g_free (nodes);
    WeftTraceLink *links = g_new0 (WeftTraceLink, MAX (nl, 1));
    for (guint i = 0; i < nl; i++) {
        const WeftLink *l = weft_graph_link (g, i);
        links[i] = (WeftTraceLink){ .id = i,
                                    .node_a = l->a,
                                    .port_a = l->pa + 1,
                                    .node_b = l->b,
                                    .port_b = l->pb + 1,
                                    .rate_bps = l->rate_bps,
                                    .delay_ps = l->delay_ps };
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
    WeftSim *sim = net->sim;
    /* Across ranks an unfinished flow's row is its receiver's rank's, as a finished one's. */
    for (guint i = 0; i < net->tp.n_flows; i++)
        if (!net->tp.flows[i].finished && !net->tp.flows[i].unused &&
            weft_sim_owns (sim, net->tp.flows[i].spec.dst)) {
            weft_trace_set_order (net->trace, i);
            weft_transport_trace_flow (&net->tp, &net->tp.flows[i]);
        }
    weft_trace_set_order (net->trace, 0);
    if (net->sim->sample)
        sample_traces (net->sim, net);
    for (guint i = 0; i < net->nics->len; i++) {
        WeftNic *nic = net->nics->pdata[i];
        if (weft_sim_owns (sim, nic->parent.node))
            weft_nic_settle_rx (nic, net->sim->now);
    }
    WeftTracePort *rows = g_new0 (WeftTracePort, MAX (net->ports->len, 1));
    for (guint i = 0; i < net->ports->len; i++) {
        const WeftPort *p = net->ports->pdata[i];
        rows[i] = (WeftTracePort){ .node = p->owner->node,
                                   .port = p->index + 1,
                                   .link = p->link.link_id,
                                   .tx_bytes = p->tx_bytes,
                                   .rx_bytes = p->rx_bytes,
                                   .tx_packets = p->tx_packets,
                                   .rx_packets = p->rx_packets,
                                   .drops = p->drops,
                                   .max_queue_bytes = p->max_q,
                                   .busy_ps = p->busy_ps,
                                   .rate_bps = p->link.rate_bps,
                                   .ecn_marks = p->ecn_marks,
                                   /* Up unless a fault says otherwise (port_row). */
                                   .state = 4 /* Active */,
                                   .phys_state = 5 /* LinkUp */ };
        g_strlcpy (rows[i].link_layer, "Ethernet", sizeof rows[i].link_layer);
        for (const WeftMechanism *const *mech = net->env.mechs; *mech; mech++)
            if ((*mech)->port_row)
                (*mech)->port_row (&net->env, p, &rows[i]);
    }
    if (sim->rank_of == NULL) {
        weft_trace_write_ports (net->trace, rows, net->ports->len);
    } else {
        /* Each rank's own ports, merged by their index (sim/trace.h). */
        for (guint i = 0; i < net->ports->len; i++) {
            const WeftPort *p = net->ports->pdata[i];
            if (!weft_sim_owns (sim, p->owner->node))
                continue;
            weft_trace_set_order (net->trace, i);
            weft_trace_append_port (net->trace, &rows[i]);
        }
        weft_trace_set_order (net->trace, 0);
    }
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
