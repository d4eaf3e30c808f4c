/* network/build.c - the assembly step: model instances from the fabric graph, ports, the
 * fabric's mechanisms switched on where configured, the workload's flows and their start
 * events. */
#include "config.h"
#define G_LOG_DOMAIN "weft-network"
#include "network/network.h"

#include "analysis/headline.h"
#include "models/nic.h"
#include "models/registry.h"
#include "models/routing.h"
#include "models/sm.h"
#include "models/switch.h"
#include "sim/units.h"
#include "topologies/topology.h"
#include "workloads/collective.h"
#include "workloads/workload.h"

/* A cut-through switch routes on the first 64 bytes (IB LRH + BTH fit in 20). */
#define CUT_THROUGH_BYTES 64

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
        if (klass == &weft_switch_class &&
            !weft_switch_read_params ((WeftSwitch *) m, n->kind == WEFT_NODE_SWITCH ? exp : NULL,
                                      net->fabric.kind, error))
            return FALSE;
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
            sw->ports = weft_port_array_new (&net->sim->arena, sw->n_ports);
            net->node_latency[id] = sw->latency_ps;
            net->node_cut_bytes[id] = weft_switch_cut_through (sw) ? CUT_THROUGH_BYTES : 0;
            g_ptr_array_add (net->switches, sw);
        } else {
            WeftNic *nic = (WeftNic *) m;
            nic->tp = &net->tp;
            weft_nic_setup_ports (nic, n->ports->len);
            g_ptr_array_add (net->nics, nic);
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
            WeftPort *port = weft_model_port (m, p);
            /* Unbounded room: the mechanisms' setup bounds what they bound (the Ethernet
             * port's tail drop, credits, PFC, a shared buffer). */
            weft_port_init (port, m, p, lid, (guint8) weft_graph_direction (g, id, p),
                            net->node_model[peer], (guint16) peer_port, l->rate_bps,
                            l->delay_ps + net->node_latency[peer], G_MAXUINT64);
            port->link.cut_bytes = net->node_cut_bytes[peer];
            g_ptr_array_add (net->ports, port);
        }
    }
    /* Each mechanism of this fabric sets up its per-port and per-switch state. */
    for (const WeftMechanism *const *mech = net->env.mechs; *mech; mech++)
        if ((*mech)->setup && !(*mech)->setup (&net->env, exp, error))
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

/* Cross-mechanism validation once the network and its workload exist. */
static gboolean
check_mechanisms (WeftNetwork *net, const WeftExperiment *exp, GError **error)
{
    net->env.specs = net->specs;
    net->env.workload_names = net->workload_names;
    net->env.colls = net->colls;
    for (const WeftMechanism *const *mech = net->env.mechs; *mech; mech++)
        if ((*mech)->check && !(*mech)->check (&net->env, exp, error))
            return FALSE;
    return TRUE;
}

/* The transport agent of a flow's endpoint: a host's or GPU's own, or that of a forwarding
 * endpoint - a NIC, host memory (staging), a switch that reduces (NVLink SHARP, InfiniBand
 * SHARP) - whose switch model gets one the first time a flow starts or ends there; NULL for
 * nodes that cannot terminate flows. */
static WeftNicAgent *
endpoint_agent (WeftNetwork *net, guint32 node)
{
    WeftModel *m = net->node_model[node];
    if (m && m->klass == &weft_nic_class)
        return &((WeftNic *) m)->agent;
    if (m && weft_graph_node (net->graph, node)->endpoint != WEFT_GRAPH_NONE)
        return weft_switch_agent ((WeftSwitch *) m, &net->tp);
    return NULL;
}

WeftNetwork *
weft_network_build (const WeftExperiment *exp, const WeftGraph *graph, WeftSim *sim,
                    const WeftFlowBudget *budget, GError **error)
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
    net->node_cut_bytes = g_new0 (guint32, MAX (n_nodes, 1));
    net->switches = g_ptr_array_new ();
    net->nics = g_ptr_array_new ();
    net->env = (WeftMechEnv){ .sim = sim,
                              .graph = graph,
                              .fabric = &net->fabric,
                              .tp = &net->tp,
                              .node_model = net->node_model,
                              .node_latency = net->node_latency,
                              .ports = net->ports,
                              .switches = net->switches,
                              .nics = net->nics };

    if (!weft_network_check_groups (exp, error) || !weft_fabric_read (&net->fabric, exp, error) ||
        !weft_mechanisms_configure (&net->env, exp, error) || !build_models (net, exp, error) ||
        !weft_workload_generate (exp, graph, sim->seed, net->specs, net->deps, net->colls,
                                 net->coll_gates, net->coll_ranks, net->workload_names, budget,
                                 error))
        goto fail;
    /* The subnet manager's sweeps rewrite the run's route tables (the graph is the run's own;
     * const to every model, which only reads it between events). */
    if (net->fabric.sm)
        weft_sm_attach (net->fabric.sm, (WeftGraph *) graph, weft_topology_reroute);
    net->flow_groups = g_new0 (gboolean, MAX (net->workload_names->len, 1));
    for (guint gi = 0; gi < net->workload_names->len; gi++) {
        g_autofree char *group =
            g_strconcat ("workload.", (char *) net->workload_names->pdata[gi], NULL);
        g_autofree char *kind =
            g_key_file_get_string (weft_experiment_keyfile (exp), group, "kind", NULL);
        net->flow_groups[gi] = weft_headline_kind_has_flows (kind);
    }
    net->tp.fabric = &net->fabric;
    net->tp.graph = graph;
    net->tp.seed = sim->seed;
    net->tp.accept_ooo = net->fabric.routing == WEFT_ROUTING_ADAPTIVE ||
                         net->tp.recovery == WEFT_RECOVERY_SELECTIVE_REPEAT ||
                         net->fabric.spray != WEFT_UET_LB_ECMP; /* [fabric] spray */
    if (!check_mechanisms (net, exp, error))
        goto fail;
    for (guint i = 0; i < net->nics->len; i++)
        weft_nic_fold_rx (net->nics->pdata[i], graph);
    net->tp.workload_names = net->workload_names;
    WeftPathEnv env = { net->node_latency, net->node_cut_bytes };
    net->tp.start_flow = weft_nic_start_flow_at;
    if (!weft_transport_setup (&net->tp, net->specs, net->deps, net->colls, net->coll_gates, &env,
                               exp, error))
        goto fail;
    /* Each flow holds its spec now (WeftFlow.spec): weft_transport_setup took them out of
     * net->specs (left empty) once the mechanisms' checks, the array's last readers, were done,
     * rather than keep a second copy (64 bytes a flow: 135 MB of the flagship sweep's 2.1
     * million). */
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
    weft_transport_start_collectives (&net->tp, net->sim);
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
    weft_mechanisms_clear (&net->env);
    weft_fabric_clear (&net->fabric);
    g_array_unref (net->specs);
    g_array_unref (net->deps);
    g_array_unref (net->colls);
    g_array_unref (net->coll_ranks);
    g_array_unref (net->coll_gates);
    g_ptr_array_unref (net->workload_names);
    g_free (net->flow_groups);
    g_ptr_array_unref (net->ports);
    g_ptr_array_unref (net->switches);
    g_ptr_array_unref (net->nics);
    g_free (net->node_model);
    g_free (net->node_latency);
    g_free (net->node_cut_bytes);
    g_free (net);
}
