#include "config.h"
#define G_LOG_DOMAIN "weft-builder"
#include "models/builder.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <string.h>

#include "models/collective.h"
#include "models/nic.h"
#include "models/routing.h"
#include "models/switch.h"
#include "models/workload.h"
#include "sim/units.h"

static const char *const known_groups[] = { "experiment", "topology",  "server",
                                            "fabric",     "ethernet",  "infiniband",
                                            "ibcc",       "switch",    "transport",
                                            "trace",      "ecn",       "dcqcn",
                                            "pfc",        NULL };
static const char *const known_prefixes[] = { "workload", "fault", NULL };

gboolean
weft_network_check_groups (const WeftExperiment *exp, GError **error)
{
    if (!weft_experiment_check_groups (exp, known_groups, known_prefixes, error))
        return FALSE;
    g_auto (GStrv) faults = weft_experiment_groups_with_prefix (exp, "fault");
    if (faults && faults[0])
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_UNSUPPORTED, faults[0], NULL,
                                     "faults are not implemented yet: remove this group");
    return TRUE;
}

static WeftPort *
port_of (WeftModel *m, guint32 p)
{
    if (m->klass == &weft_switch_class)
        return &((WeftSwitch *) m)->ports[p];
    return &((WeftNic *) m)->ports[p];
}

/* A cut-through switch routes on the first 64 bytes (IB LRH + BTH fit in 20). */
#define CUT_THROUGH_BYTES 64

static guint32
buffer_credits (const WeftNetwork *net, const WeftModel *m, guint32 link_id)
{
    const WeftIbConfig *ib = &net->fabric.ib;
    if (weft_graph_link (net->graph, link_id)->kind != WEFT_LINK_FABRIC)
        return ib->internal_credits; /* NVLink and PCIe */
    if (m->klass == &weft_switch_class && !((const WeftSwitch *) m)->internal)
        return ib->buffer_credits;
    return ib->hca_credits; /* a host's or a server NIC's fabric port */
}

/* InfiniBand: every port advertises its own buffer and may spend its peer's. */
/* [infiniband] sl2vl_file: per-port SL-to-VL tables. */
static gboolean
apply_sl2vl_file (WeftNetwork *net, GError **error)
{
    const WeftIbConfig *ib = &net->fabric.ib;
    for (guint i = 0; ib->sl2vl_ports && i < ib->sl2vl_ports->len; i++) {
        const WeftIbSl2VlEntry *e = &g_array_index (ib->sl2vl_ports, WeftIbSl2VlEntry, i);
        guint32 node = weft_graph_lookup (net->graph, e->node);
        WeftModel *m = node == WEFT_GRAPH_NONE ? NULL : net->node_model[node];
        if (!m) {
            g_set_error (error, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_NODE,
                         "%s:%u: no node named '%s'", ib->sl2vl_path, e->line, e->node);
            return FALSE;
        }
        guint n_ports = weft_graph_node (net->graph, node)->ports->len, set = 0;
        for (guint32 p = 0; p < n_ports; p++) {
            if (e->port && p + 1 != e->port)
                continue;
            if (g_array_index (weft_graph_node (net->graph, node)->ports, guint32, p) ==
                WEFT_GRAPH_NONE)
                continue;
            memcpy (port_of (m, p)->ib->sl2vl, e->sl2vl, sizeof e->sl2vl);
            set++;
        }
        if (set == 0) {
            g_set_error (error, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_VALUE,
                         "%s:%u: %s has no connected port %u", ib->sl2vl_path, e->line, e->node,
                         e->port);
            return FALSE;
        }
    }
    return TRUE;
}

static gboolean
enable_credits (WeftNetwork *net)
{
    for (guint i = 0; i < net->ports->len; i++) {
        WeftPort *p = net->ports->pdata[i];
        p->ib = weft_ib_port_new (&net->fabric.ib,
                                  buffer_credits (net, p->link.peer, p->link.link_id),
                                  buffer_credits (net, p->owner, p->link.link_id));
    }
    for (guint i = 0; i < net->sim->models->len; i++) {
        WeftModel *m = net->sim->models->pdata[i];
        if (m->klass == &weft_switch_class)
            weft_switch_enable_credits ((WeftSwitch *) m);
    }
    return TRUE;
}

static gboolean
build_models (WeftNetwork *net, const WeftExperiment *exp, GError **error)
{
    const WeftGraph *g = net->graph;
    guint n_nodes = weft_graph_n_nodes (g);
    for (guint32 id = 0; id < n_nodes; id++) {
        const WeftNode *n = weft_graph_node (g, id);
        /* Hosts and GPUs run the transport; everything that forwards is a switch: fabric
         * switches with [switch]'s parameters, and inside a server the NVSwitch, the PCIe
         * switches, the NICs (PCIe to fabric) and the CPU's root complex, cut-through with
         * no latency of their own (the links carry NVLink and PCIe latency).  A NIC that a
         * flow starts or ends at gets a transport agent as well (endpoint_agent). */
        gboolean endpoint = n->kind == WEFT_NODE_HOST || n->kind == WEFT_NODE_GPU;
        const WeftModelClass *klass = endpoint ? &weft_nic_class : &weft_switch_class;
        WeftModel *m = weft_sim_add_model (net->sim, klass, n->name, id);
        net->node_model[id] = m;
        if (klass->params) {
            WeftParamBinding b = { klass->params, m };
            if (n->kind == WEFT_NODE_SWITCH) {
                if (!weft_params_read (exp, klass->name, &b, 1, error))
                    return FALSE;
            } else {
                weft_params_set_defaults (klass->params, m);
            }
        }
        if (klass == &weft_switch_class) {
            WeftSwitch *sw = (WeftSwitch *) m;
            if (n->kind != WEFT_NODE_SWITCH) {
                sw->internal = TRUE;
                sw->latency_ps = 0;
                sw->forwarding = WEFT_FORWARDING_CUT_THROUGH;
            }
            sw->graph = g;
            sw->fabric = &net->fabric;
            sw->hash_seed = weft_routing_seed (net->sim->seed, id);
            sw->n_ports = n->ports->len;
            sw->ports = g_new0 (WeftPort, MAX (sw->n_ports, 1));
            net->node_latency[id] = sw->latency_ps;
        } else {
            WeftNic *nic = (WeftNic *) m;
            nic->tp = &net->tp;
            weft_nic_setup_ports (nic, n->ports->len);
        }
    }
    /* Ports: one per connected link end, sending toward the peer. */
    for (guint32 id = 0; id < n_nodes; id++) {
        const WeftNode *n = weft_graph_node (g, id);
        WeftModel *m = net->node_model[id];
        for (guint32 p = 0; p < n->ports->len; p++) {
            guint32 lid = g_array_index (n->ports, guint32, p);
            if (lid == WEFT_GRAPH_NONE)
                continue;
            const WeftLink *l = weft_graph_link (g, lid);
            guint32 peer, peer_port;
            weft_graph_peer (g, id, p, &peer, &peer_port);
            WeftPort *port = port_of (m, p);
            /* On InfiniBand nothing is tail-dropped: the buffer that matters is the input's. */
            /* With a shared buffer the switch admits packets itself (models/buffer.h). */
            guint64 cap = m->klass == &weft_switch_class && !weft_fabric_lossless (&net->fabric) &&
                                  !weft_fabric_pfc (&net->fabric) && !((WeftSwitch *) m)->internal &&
                                  ((WeftSwitch *) m)->buffer_cfg.sharing == WEFT_BUFFER_NONE
                              ? ((WeftSwitch *) m)->buffer_bytes
                              : G_MAXUINT64;
            weft_port_init (port, m, p, lid, (guint8) weft_graph_direction (g, id, p),
                            net->node_model[peer], (guint16) peer_port, l->rate_bps,
                            l->delay_ps + net->node_latency[peer], cap);
            WeftModel *pm = net->node_model[peer];
            if (pm->klass == &weft_switch_class && weft_switch_cut_through ((WeftSwitch *) pm))
                port->link.cut_bytes = CUT_THROUGH_BYTES;
            if (net->fabric.kind == WEFT_FABRIC_ROCE) {
                /* Headroom for the data this port receives.  A packet is handled a switch's
                 * forwarding latency after it arrives (the PAUSE too, at the other end), so
                 * the round trip is both cable delays plus both latencies. */
                weft_time_t one_way = l->delay_ps + (net->node_latency[id] + net->node_latency[peer]) / 2;
                port->pfc = g_new0 (WeftPfcPort, 1);
                port->pfc->cfg = &net->fabric.pfc;
                port->pfc->rate_bps = l->rate_bps;
                port->pfc->headroom = weft_pfc_headroom (&net->fabric.pfc, l->rate_bps, one_way,
                                                         net->fabric.mtu + net->fabric.header);
            }
            g_ptr_array_add (net->ports, port);
        }
    }
    if (weft_fabric_pfc (&net->fabric))
        for (guint i = 0; i < net->sim->models->len; i++) {
            WeftModel *m = net->sim->models->pdata[i];
            if (m->klass == &weft_switch_class && !((WeftSwitch *) m)->internal)
                weft_switch_enable_pfc ((WeftSwitch *) m);
        }
    if (net->fabric.kind == WEFT_FABRIC_INFINIBAND &&
        (!enable_credits (net) || !apply_sl2vl_file (net, error)))
        return FALSE;
    for (guint i = 0; i < net->sim->models->len; i++) {
        WeftModel *m = net->sim->models->pdata[i];
        if (m->klass->init && !m->klass->init (m, error)) {
            g_prefix_error (error, "%s: [%s] ", weft_experiment_path (exp), m->klass->name);
            return FALSE;
        }
    }
    return TRUE;
}

/* Keys that would be silently ignored on the chosen fabric are refused. */
static gboolean
check_fabric_keys (const WeftNetwork *net, const WeftExperiment *exp, GError **error)
{
    if (weft_fabric_lossless (&net->fabric) &&
        g_key_file_has_key (weft_experiment_keyfile (exp), "switch", "buffer", NULL))
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_UNKNOWN_KEY, "switch",
                                     "buffer",
                                     "not used on InfiniBand, whose buffers are per input port "
                                     "and VL: set [infiniband] buffer");
    /* Every fabric switch reads the same [switch] group: the first one speaks for all. */
    const WeftSwitch *sw = NULL;
    for (guint i = 0; !sw && i < net->sim->models->len; i++) {
        const WeftModel *m = net->sim->models->pdata[i];
        if (m->klass == &weft_switch_class && !((const WeftSwitch *) m)->internal)
            sw = (const WeftSwitch *) m;
    }
    if (sw && !weft_buffer_check_keys (&sw->buffer_cfg, exp,
                                       net->fabric.kind == WEFT_FABRIC_INFINIBAND, error))
        return FALSE;
    if (weft_fabric_pfc (&net->fabric) && net->fabric.pfc.xoff_dynamic &&
        (!sw || sw->buffer_cfg.sharing == WEFT_BUFFER_NONE))
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_VALUE, "pfc", "xoff",
                                     "dynamic needs a shared buffer: set [switch] "
                                     "buffer_sharing = static or dynamic");
    /* The PFC watchdog must get the chance to break a deadlock before the hang watchdog
     * declares the run hung. */
    const WeftPfcConfig *pfc = &net->fabric.pfc;
    if (weft_fabric_pfc (&net->fabric) && pfc->watchdog != WEFT_PFC_WD_OFF &&
        net->sim->hang_timeout && net->sim->hang_timeout <= pfc->wd_poll * pfc->wd_detect) {
        g_autofree char *hang = weft_units_format_time (net->sim->hang_timeout);
        g_autofree char *detect = weft_units_format_time (pfc->wd_poll * pfc->wd_detect);
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_RANGE, "experiment",
                                     "hang_timeout",
                                     "%s is not longer than the PFC watchdog's detection time "
                                     "(%s = watchdog_poll x watchdog_detect): a deadlock would "
                                     "be called a hang before the watchdog could break it",
                                     hang, detect);
    }
    if (net->fabric.kind != WEFT_FABRIC_INFINIBAND)
        for (guint i = 0; i < net->specs->len; i++) {
            const WeftFlowSpec *s = &g_array_index (net->specs, WeftFlowSpec, i);
            if (s->sl != 0) {
                g_autofree char *group =
                    g_strconcat ("workload.", (char *) net->workload_names->pdata[s->group], NULL);
                return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_UNKNOWN_KEY, group,
                                             "sl", "service levels exist on InfiniBand only");
            }
        }
    return TRUE;
}

/* The transport agent of a flow's endpoint: a host's or GPU's own, or a NIC's, which forwards
 * too (its switch model gets one the first time a flow starts or ends there); NULL for
 * nodes that cannot terminate flows. */
static WeftNicAgent *
endpoint_agent (WeftNetwork *net, guint32 node)
{
    WeftModel *m = net->node_model[node];
    if (m && m->klass == &weft_nic_class)
        return &((WeftNic *) m)->agent;
    WeftNodeKind k = weft_graph_node (net->graph, node)->kind;
    if (m && (k == WEFT_NODE_NIC || k == WEFT_NODE_CPU)) /* CPU: host memory, for staging */
        return weft_switch_agent ((WeftSwitch *) m, &net->tp);
    return NULL;
}

WeftNetwork *
weft_network_build (const WeftExperiment *exp, const WeftGraph *graph, WeftSim *sim,
                    GError **error)
{
    WeftNetwork *net = g_new0 (WeftNetwork, 1);
    net->sim = sim;
    net->graph = graph;
    net->specs = g_array_new (FALSE, TRUE, sizeof (WeftFlowSpec));
    net->deps = g_array_new (FALSE, FALSE, sizeof (WeftFlowDep));
    net->colls = g_array_new (FALSE, TRUE, sizeof (WeftCollInstance));
    net->coll_ranks = g_array_new (FALSE, FALSE, sizeof (guint32));
    net->coll_gates = g_array_new (FALSE, FALSE, sizeof (WeftCollGate));
    net->workload_names = g_ptr_array_new_with_free_func (g_free);
    net->ports = g_ptr_array_new ();
    guint n_nodes = weft_graph_n_nodes (graph);
    net->node_model = g_new0 (WeftModel *, MAX (n_nodes, 1));
    net->node_latency = g_new0 (weft_time_t, MAX (n_nodes, 1));

    WeftParamBinding tb = { weft_transport_params, &net->tp };
    if (!weft_network_check_groups (exp, error) || !weft_fabric_read (&net->fabric, exp, error) ||
        !weft_params_read (exp, "transport", &tb, 1, error) || !build_models (net, exp, error) ||
        !weft_workload_generate (exp, graph, sim->seed, net->specs, net->deps, net->colls,
                                 net->coll_gates, net->coll_ranks, net->workload_names, error))
        goto fail;
    net->tp.fabric = &net->fabric;
    net->tp.graph = graph;
    net->tp.seed = sim->seed;
    net->tp.accept_ooo = net->fabric.routing == WEFT_ROUTING_ADAPTIVE ||
                         net->tp.recovery == WEFT_RECOVERY_SELECTIVE_REPEAT;
    if (!check_fabric_keys (net, exp, error))
        goto fail;
    net->tp.workload_names = net->workload_names;
    WeftPathEnv env = { net->node_latency };
    net->tp.start_flow = weft_nic_start_flow_at;
    if (!weft_transport_setup (&net->tp, net->specs, net->deps, net->colls, net->coll_gates, &env,
                               exp, error))
        goto fail;
    for (guint i = 0; i < net->tp.n_flows; i++) {
        WeftFlow *f = &net->tp.flows[i];
        f->tx_port = (guint16) weft_transport_first_hop (&net->tp, f, f->spec.src, f->dst_ep);
        f->ack_port = (guint16) weft_transport_first_hop (&net->tp, f, f->spec.dst, f->src_ep);
        WeftNicAgent *sender = endpoint_agent (net, f->spec.src);
        if (!sender || !endpoint_agent (net, f->spec.dst)) {
            g_autofree char *group =
                g_strconcat ("workload.", (char *) net->workload_names->pdata[f->spec.group], NULL);
            guint32 bad = sender ? f->spec.dst : f->spec.src;
            const WeftNode *n = weft_graph_node (graph, bad);
            weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_NODE, group, NULL,
                                  "flow %u: %s is a %s: flows start and end at hosts, GPUs, "
                                  "NICs or host memory (cpu)",
                                  i, n->name, weft_node_kind_name (n->kind));
            goto fail;
        }
        weft_nic_schedule_flow (sender, f);
    }
    weft_transport_start_collectives (&net->tp);
    return net;
fail:
    weft_network_free (net);
    return NULL;
}

void
weft_network_free (WeftNetwork *net)
{
    if (!net)
        return;
    weft_transport_clear (&net->tp);
    weft_params_clear (weft_transport_params, &net->tp);
    weft_fabric_clear (&net->fabric);
    g_array_unref (net->specs);
    g_array_unref (net->deps);
    g_array_unref (net->colls);
    g_array_unref (net->coll_ranks);
    g_array_unref (net->coll_gates);
    g_ptr_array_unref (net->workload_names);
    g_ptr_array_unref (net->ports);
    g_free (net->node_model);
    g_free (net->node_latency);
    g_free (net);
}

/* ---- traces --------------------------------------------------------------------------- */

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

/* ---- statistics ----------------------------------------------------------------------- */


void
weft_network_stats (const WeftNetwork *net, WeftNetworkStats *st)
{
    *st = (WeftNetworkStats){ 0 };
    const WeftTransport *tp = &net->tp;
    st->n_flows = tp->n_flows;
    double *fct = g_new (double, MAX (tp->n_flows, 1));
    double *slow = g_new (double, MAX (tp->n_flows, 1));
    double sum = 0, sum2 = 0;
    for (guint i = 0; i < tp->n_flows; i++) {
        const WeftFlow *f = &tp->flows[i];
        st->retransmits += f->retransmits;
        st->timeouts += f->timeouts;
        st->ooo_discards += f->ooo_discards;
        st->dup_discards += f->dup_discards;
        st->bytes_delivered += f->delivered;
        st->bytes_offered += f->spec.size_bytes;
        st->reorder_count += f->reorder_count;
        st->reorder_max = MAX (st->reorder_max, f->reorder_max);
        st->acks_sent += f->acks_sent;
        st->fecn_received += f->fecn_received;
        st->becn_received += f->cc.becns;
        st->ccti_peak = MAX (st->ccti_peak, f->cc.ccti_peak);
        st->ce_received += f->dcqcn.ce_received;
        st->cnps_sent += f->dcqcn.cnps_sent;
        st->cnps_received += f->dcqcn.cnps_received;
        st->dcqcn_cuts += f->dcqcn.cuts;
        if (!f->finished)
            continue;
        weft_time_t t = f->finish_ps - f->start_ps;
        fct[st->finished] = weft_time_to_us (t);
        slow[st->finished] = f->ideal_fct_ps ? (double) t / (double) f->ideal_fct_ps : 0;
        /* Jain's index over per-flow throughput (bytes / FCT). */
        double x = t ? (double) f->spec.size_bytes / (double) t : 0;
        sum += x;
        sum2 += x * x;
        st->finished++;
    }
    if (st->finished > 0) {
        gsl_sort (fct, 1, st->finished);
        gsl_sort (slow, 1, st->finished);
        st->fct_p50_us = gsl_stats_quantile_from_sorted_data (fct, 1, st->finished, 0.5);
        st->fct_p99_us = gsl_stats_quantile_from_sorted_data (fct, 1, st->finished, 0.99);
        st->fct_max_us = fct[st->finished - 1];
        st->slowdown_p99 = gsl_stats_quantile_from_sorted_data (slow, 1, st->finished, 0.99);
        st->jain = sum2 > 0 ? sum * sum / (st->finished * sum2) : 0;
    }
    g_free (fct);
    g_free (slow);
    for (guint i = 0; i < net->ports->len; i++) {
        const WeftPort *p = net->ports->pdata[i];
        st->drops += p->drops;
        st->data_drops += p->drops_data;
        st->max_queue_bytes = MAX (st->max_queue_bytes, p->max_q);
        st->packet_hops += p->tx_packets;
        st->ecn_marked += p->ecn_marks;
        st->inflight_data += weft_port_inflight_data (p);
        if (p->ib)
            st->xmit_wait_ps += p->ib->xmit_wait_ps +
                                (p->ib->stalled ? net->sim->now - p->ib->stall_since : 0);
        if (p->pfc) {
            WeftPfcCounts n = weft_pfc_counts_total (p->pfc);
            st->pfc_pauses_sent += n.pauses_sent;
            st->pfc_resumes_sent += n.resumes_sent;
            st->pfc_pauses_received += n.pauses_received;
            st->pfc_paused_ps += weft_pfc_paused_total (p->pfc, net->sim->now);
            st->pfc_violations += n.violations;
            st->pfc_storms += p->pfc->storms;
            st->pfc_wd_dropped += p->pfc->wd_dropped;
        }
    }
    for (guint i = 0; i < net->sim->models->len; i++) {
        const WeftModel *m = net->sim->models->pdata[i];
        if (m->klass == &weft_switch_class) {
            st->unroutable += ((const WeftSwitch *) m)->unroutable;
            st->lossless_drops += ((const WeftSwitch *) m)->lossless_drops;
            st->fecn_marked += ((const WeftSwitch *) m)->fecn_marked;
            const WeftBuffer *buf = ((const WeftSwitch *) m)->buffer;
            if (buf) {
                st->buffer_drops_threshold += buf->drops_threshold;
                st->buffer_drops_full += buf->drops_full;
                st->buffer_peak_bytes = MAX (st->buffer_peak_bytes, buf->peak_bytes);
            }
        } else {
            st->lossless_drops += ((const WeftNic *) m)->lossless_drops;
        }
    }
}

typedef struct {
    const WeftGraph *g;
    GString *out;
} PathPrint;

static void
print_hop (guint32 node, guint32 port, void *data)
{
    PathPrint *pp = data;
    guint32 peer, peer_port;
    weft_graph_peer (pp->g, node, port, &peer, &peer_port);
    g_string_append_printf (pp->out, " %s:%u->%s", weft_graph_node (pp->g, node)->name, port + 1,
                            weft_graph_node (pp->g, peer)->name);
}

char *
weft_network_describe_waiting (const WeftNetwork *net, guint max)
{
    GString *out = g_string_new (NULL);
    guint shown = 0, waiting = 0;
    for (guint i = 0; i < net->tp.n_flows; i++) {
        const WeftFlow *f = &net->tp.flows[i];
        if (f->finished)
            continue;
        waiting++;
        if (shown >= max)
            continue;
        shown++;
        g_string_append_printf (out, "  flow %u %s -> %s: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
                                " bytes delivered%s; path",
                                f->spec.id, weft_graph_node (net->graph, f->spec.src)->name,
                                weft_graph_node (net->graph, f->spec.dst)->name, f->delivered,
                                f->spec.size_bytes, f->started ? "" : " (not started)");
        PathPrint pp = { net->graph, out };
        if (weft_transport_walk (&net->tp, f, f->spec.src, f->dst_ep, FALSE, print_hop, &pp) ==
            G_MAXUINT)
            g_string_append (out, " (does not reach the destination)");
        g_string_append_c (out, '\n');
    }
    if (waiting > shown)
        g_string_append_printf (out, "  ... and %u more waiting flows\n", waiting - shown);
    if (weft_fabric_pfc (&net->fabric)) {
        g_string_append (out, "  ");
        gsize before = out->len;
        weft_network_pfc_deadlock (net, out);
        if (out->len == before)
            g_string_truncate (out, before - 2);
    }
    return g_string_free (out, FALSE);
}

/* ---- PFC deadlock: a cycle of paused queues ---------------------------------------------- */

/* The paused egress port that port @p's data waits on downstream: at p's peer switch, the
 * first packet of priority @prio that arrived over p's link waits in an egress queue whose
 * port is paused for that priority; NULL if there is none. */
static WeftPort *
paused_successor (const WeftNetwork *net, const WeftPort *p, guint prio, weft_time_t now)
{
    const WeftModel *peer = p->link.peer;
    if (peer->klass != &weft_switch_class || !((const WeftSwitch *) peer)->pfc_ingress)
        return NULL;
    const WeftSwitch *sw = (const WeftSwitch *) peer;
    for (guint o = 0; o < sw->n_ports; o++) {
        WeftPort *q = &sw->ports[o];
        if (!q->owner || !q->pfc || !weft_pfc_paused (q->pfc, prio, now))
            continue;
        for (const WeftPacket *pkt = q->q[8 - prio].head; pkt; pkt = pkt->next)
            if (pkt->in_port == p->link.peer_port && pkt->hop > 0)
                return q;
    }
    return NULL;
}

guint
weft_network_pfc_deadlock (const WeftNetwork *net, GString *report)
{
    weft_time_t now = net->sim->now;
    guint n = net->ports->len;
    for (guint prio = 0; prio < WEFT_PFC_PRIOS; prio++) {
        /* Each paused port with queued data has at most one successor by the rule above (the
         * first match): follow the chain from every start; a chain that comes back is a
         * cycle.  mark: 0 unvisited, 1 on the current chain, 2 done. */
        g_autofree guint8 *mark = g_new0 (guint8, MAX (n, 1));
        GHashTable *index = g_hash_table_new (NULL, NULL);
        for (guint i = 0; i < n; i++)
            g_hash_table_insert (index, net->ports->pdata[i], GUINT_TO_POINTER (i + 1));
        for (guint start = 0; start < n; start++) {
            guint i = start;
            while (i != G_MAXUINT && mark[i] == 0) {
                mark[i] = 1;
                const WeftPort *p = net->ports->pdata[i];
                WeftPort *next = p->pfc && weft_pfc_paused (p->pfc, prio, now) && p->q[8 - prio].head
                                     ? paused_successor (net, p, prio, now)
                                     : NULL;
                i = next ? GPOINTER_TO_UINT (g_hash_table_lookup (index, next)) - 1 : G_MAXUINT;
            }
            if (i != G_MAXUINT && mark[i] == 1) {
                /* i is on the chain just walked: the cycle starts there. */
                guint len = 0, j = i;
                if (report)
                    g_string_append_printf (report, "PFC deadlock on priority %u:", prio);
                do {
                    const WeftPort *p = net->ports->pdata[j];
                    if (report)
                        g_string_append_printf (report, " %s:%u->%s", p->owner->name, p->index + 1,
                                                p->link.peer->name);
                    len++;
                    WeftPort *next = paused_successor (net, p, prio, now);
                    j = GPOINTER_TO_UINT (g_hash_table_lookup (index, next)) - 1;
                } while (j != i);
                if (report)
                    g_string_append_c (report, '\n');
                g_hash_table_unref (index);
                return len;
            }
            for (guint k = 0; k < n; k++)
                if (mark[k] == 1)
                    mark[k] = 2;
        }
        g_hash_table_unref (index);
    }
    return 0;
}

/* ---- InfiniBand credit conservation ---------------------------------------------------- */

static WeftPort *
peer_port (const WeftNetwork *net, const WeftPort *p)
{
    return port_of (p->link.peer, p->link.peer_port);
}

guint
weft_network_check_credits (const WeftNetwork *net, GString *report)
{
    guint bad = 0;
    for (guint i = 0; i < net->ports->len; i++) {
        const WeftPort *tx = net->ports->pdata[i];
        const WeftPort *rx = peer_port (net, tx);
        if (!tx->ib || !rx->ib)
            continue;
        const WeftIbConfig *cfg = tx->ib->cfg;
        for (guint v = 0; v < cfg->vls; v++) {
            guint64 wire = 0, buffered = 0, returning = 0;
            for (const WeftPacket *p = tx->link.wire.head; p; p = p->next)
                if (p->kind != WEFT_PKT_CREDIT && p->vl == v)
                    wire += weft_ib_credits (cfg, p->size);
            /* Packets that arrived on rx and wait in any output queue of its node. */
            const WeftModel *m = rx->owner;
            if (m->klass == &weft_switch_class) {
                const WeftSwitch *sw = (const WeftSwitch *) m;
                /* In any VL's queue: it may leave on another VL than it arrived on. */
                for (guint o = 0; o < sw->n_ports; o++)
                    for (guint q = 1; q < WEFT_PORT_CLASSES; q++)
                        for (const WeftPacket *p = sw->ports[o].q[q].head; p; p = p->next)
                            if (p->in_port == rx->index && p->in_vl == v &&
                                p->hop > 0) /* not its agent's own */
                                buffered += weft_ib_credits (cfg, p->size);
            }
            for (const WeftPacket *p = rx->link.wire.head; p; p = p->next)
                if (p->kind == WEFT_PKT_CREDIT && p->vl == v)
                    returning += p->seq;
            guint64 sum = tx->ib->avail[v] + wire + buffered + rx->ib->pending[v] + returning;
            guint64 advertised = (guint64) rx->ib->capacity + rx->ib->granted[v];
            if (sum != advertised || buffered != rx->ib->used[v]) {
                bad++;
                if (report)
                    g_string_append_printf (
                        report,
                        "%s:%u VL %u: avail %u + wire %" G_GUINT64_FORMAT " + buffered %"
                        G_GUINT64_FORMAT " (counted %u) + pending %u + returning %"
                        G_GUINT64_FORMAT " != %" G_GUINT64_FORMAT "\n",
                        tx->owner->name, tx->index + 1, v, tx->ib->avail[v], wire, buffered,
                        rx->ib->used[v], rx->ib->pending[v], returning, advertised);
            }
        }
    }
    return bad;
}

/* ---- collectives ---------------------------------------------------------------------- */

void
weft_network_collective_row (const WeftNetwork *net, guint32 id, WeftTraceCollective *row)
{
    const WeftCollRun *c = &net->tp.colls[id];
    const WeftCollInstance *s = &c->spec;
    *row = (WeftTraceCollective){ 0 };
    row->id = id;
    g_strlcpy (row->workload, net->workload_names->pdata[s->group], sizeof row->workload);
    g_strlcpy (row->op, weft_collective_op_name (s->op), sizeof row->op);
    row->bytes = s->bytes;
    row->count = s->count;
    g_strlcpy (row->type, s->type, sizeof row->type);
    g_strlcpy (row->redop, s->redop, sizeof row->redop);
    row->root = s->root;
    row->n_ranks = s->n_ranks;
    row->in_place = s->in_place;
    row->warmup = s->warmup;
    row->iteration = s->iteration;
    row->start_ps = c->start_ps;
    row->finish_ps = c->finish_ps;
    row->time_ps = c->finish_ps - c->start_ps;
    row->algbw_gbs = row->time_ps ? (double) s->bytes / weft_time_to_s (row->time_ps) / 1e9 : 0;
    row->busbw_gbs = row->algbw_gbs * s->bus_factor;
}

void
weft_network_training_steps (const WeftNetwork *net, guint group, GArray *steps)
{
    const WeftTransport *tp = &net->tp;
    /* Instances are generated step after step, so one pass gathers each step in turn. */
    WeftTrainStep cur = { 0 };
    weft_time_t tp_end = 0, end = 0;
    gboolean open = FALSE, complete = TRUE, has_tp = FALSE;
    for (guint c = 0; c <= tp->n_colls; c++) {
        const WeftCollRun *r = c < tp->n_colls ? &tp->colls[c] : NULL;
        if (r && (r->spec.group != group || r->spec.role == WEFT_COLL_ROLE_BENCH))
            continue;
        if (open && (!r || r->spec.step != cur.step)) {
            if (!complete)
                break; /* a later step cannot have finished either */
            weft_time_t compute_end = (has_tp ? tp_end : cur.start_ps) + cur.compute_ps;
            cur.time_ps = MAX (end, compute_end) - cur.start_ps;
            cur.exposed_ps = cur.time_ps - cur.compute_ps;
            g_array_append_val (steps, cur);
            open = FALSE;
        }
        if (!r)
            break;
        if (!open) {
            cur = (WeftTrainStep){ .step = r->spec.step,
                                   .start_ps = WEFT_TIME_NEVER,
                                   .compute_ps = r->spec.compute_ps };
            tp_end = end = 0;
            open = TRUE;
            has_tp = FALSE;
        }
        if (!r->finished) {
            complete = FALSE;
            continue;
        }
        cur.start_ps = MIN (cur.start_ps, r->start_ps - r->spec.ready_ps);
        end = MAX (end, r->finish_ps);
        if (r->spec.role == WEFT_COLL_ROLE_TP) {
            has_tp = TRUE;
            tp_end = MAX (tp_end, r->finish_ps);
        }
    }
}

static void
on_collective_done (const WeftCollRun *c, void *data)
{
    WeftNetwork *net = data;
    WeftTraceCollective row;
    weft_network_collective_row (net, (guint32) (c - net->tp.colls), &row);
    weft_trace_append_collective (net->trace, &row);
}

/* ---- perftest --------------------------------------------------------------------------- */

gboolean
weft_network_perftest (const WeftNetwork *net, const WeftExperiment *exp, guint group,
                       WeftPerftestSpec *spec, GArray *results)
{
    g_autofree char *name = g_strconcat ("workload.", (char *) net->workload_names->pdata[group],
                                         NULL);
    if (!weft_workload_perftest_spec (exp, net->graph, name, spec, NULL))
        return FALSE;
    /* The group's flows share one start, so id order is their generation order. */
    guint64 n = weft_workload_perftest_n_flows (spec);
    g_autofree weft_time_t *start = g_new (weft_time_t, MAX (n, 1));
    g_autofree weft_time_t *finish = g_new (weft_time_t, MAX (n, 1));
    g_autofree gboolean *done = g_new (gboolean, MAX (n, 1));
    guint64 k = 0;
    for (guint i = 0; i < net->tp.n_flows && k < n; i++) {
        const WeftFlow *f = &net->tp.flows[i];
        if (f->spec.group != group)
            continue;
        start[k] = f->start_ps;
        finish[k] = f->finish_ps;
        done[k++] = f->finished;
    }
    g_assert (k == n);
    for (guint s = 0; s < spec->n_sizes; s++) {
        WeftPerftestResult r;
        if (!weft_workload_perftest_measure (spec, s, start, finish, done, &r))
            break;
        g_array_append_val (results, r);
    }
    return TRUE;
}
