/* network/build.c - the assembly step: model instances from the fabric graph, ports, the
 * fabric's mechanisms switched on where configured, the workload's flows and their start
 * events. */
#include "config.h"
#define G_LOG_DOMAIN "weft-network"
#include "network/network.h"

#include <string.h>

#include "models/nic.h"
#include "models/routing.h"
#include "models/switch.h"
#include "sim/units.h"
#include "workloads/collective.h"
#include "workloads/workload.h"

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

WeftPort *
weft_network_model_port (WeftModel *m, guint32 p)
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
            memcpy (weft_network_model_port (m, p)->ib->sl2vl, e->sl2vl, sizeof e->sl2vl);
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
            WeftPort *port = weft_network_model_port (m, p);
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
