/* network/diagnose.c - what a hang report says: the flows that wait and their paths, a cycle
 * of PFC-paused queues, InfiniBand credit conservation; and what a failed workload reports:
 * the connection that ran out of retries. */
#include "config.h"
#define G_LOG_DOMAIN "weft-network"
#include "network/network.h"

#include "models/switch.h"
#include "sim/units.h"


typedef struct {
    const WeftNetwork *net;
    GString *out;
    GString *why; /* where and why the flow stops, if a hop says so */
} PathPrint;

/* Why port @port of @node cannot carry a flow now, or NULL: a Down port (a fault), or an
 * InfiniBand port with data waiting and no credits for it. */
static const char *
stuck_port (const WeftNetwork *net, guint32 node, guint32 port, const WeftPort **out)
{
    WeftModel *m = net->node_model[node];
    if (!m)
        return NULL;
    const WeftPort *p = weft_model_port (m, port);
    *out = p;
    if (p->fault && p->fault->down)
        return "Down";
    if (p->ib && (p->staged || p->q_bytes) && weft_timer_pending (&p->tx_free) == FALSE &&
        p->busy_until <= net->sim->now)
        return "credit-starved";
    return NULL;
}

static void
print_hop (guint32 node, guint32 port, void *data)
{
    PathPrint *pp = data;
    const WeftGraph *g = pp->net->graph;
    guint32 peer, peer_port;
    weft_graph_peer (g, node, port, &peer, &peer_port);
    g_string_append_printf (pp->out, " %s:%u->%s", weft_graph_node (g, node)->name, port + 1,
                            weft_graph_node (g, peer)->name);
    const WeftPort *p = NULL;
    const char *why = stuck_port (pp->net, node, port, &p);
    if (!why)
        return;
    g_string_append_printf (pp->out, " [%s]", why);
    if (pp->why->len)
        return;
    g_string_append_printf (pp->why, "; stops at %s:%u->%s:%u: ", weft_graph_node (g, node)->name,
                            port + 1, weft_graph_node (g, peer)->name, peer_port + 1);
    if (p->fault && p->fault->down) {
        g_autofree char *since = weft_units_format_human_time (p->fault->down_since);
        g_string_append_printf (pp->why, "port Down since %s ([%s])", since, p->fault->cause);
    } else {
        g_string_append (pp->why, "data waiting, no credits from the receiver");
    }
}

/* " path A:1->B B:2->C" (and why it is not a path, when it does not reach the destination;
 * where it stops, when a port on it cannot send). */
static void
append_path (const WeftNetwork *net, const WeftFlow *f, GString *out)
{
    g_string_append (out, "; path");
    g_autoptr (GString) why = g_string_new (NULL);
    PathPrint pp = { net, out, why };
    if (weft_transport_walk (&net->tp, f, f->spec.src, f->dst_ep, FALSE, print_hop, &pp) ==
        G_MAXUINT)
        g_string_append (out, " (does not reach the destination: no route)");
    g_string_append_len (out, why->str, (gssize) why->len);
}

/* One line per faulty link that is Down now (the first thing an operator looks for). */
static void
append_down_links (const WeftNetwork *net, GString *out)
{
    for (guint i = 0; i < net->ports->len; i++) {
        const WeftPort *p = net->ports->pdata[i];
        if (!p->fault || !p->fault->down || p->link.direction != 0)
            continue;
        g_autofree char *since = weft_units_format_human_time (p->fault->down_since);
        g_string_append_printf (out, "  link %s:%u <-> %s:%u is Down since %s ([%s])\n",
                                p->owner->name, p->index + 1, p->link.peer->name,
                                p->link.peer_port + 1, since, p->fault->cause);
    }
}

char *
weft_network_describe_waiting (const WeftNetwork *net, guint max)
{
    GString *out = g_string_new (NULL);
    append_down_links (net, out);
    guint shown = 0, waiting = 0;
    /* Flows that started first (they show where the traffic stops), then those that wait for
     * their predecessors. */
    for (guint pass = 0; pass < 2; pass++)
        for (guint i = 0; i < net->tp.n_flows; i++) {
            const WeftFlow *f = &net->tp.flows[i];
            if (f->finished || f->unused || (pass == 0) != (f->started != 0))
                continue;
            waiting++;
            if (shown >= max)
                continue;
            shown++;
            g_string_append_printf (out,
                                    "  flow %u %s -> %s: %" G_GUINT64_FORMAT
                                    " of %" G_GUINT64_FORMAT " bytes delivered%s",
                                    f->spec.id, weft_graph_node (net->graph, f->spec.src)->name,
                                    weft_graph_node (net->graph, f->spec.dst)->name, f->delivered,
                                    f->spec.size_bytes, f->started ? "" : " (not started)");
            append_path (net, f, out);
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

char *
weft_network_describe_failure (const WeftNetwork *net)
{
    const WeftTransport *tp = &net->tp;
    const WeftFlow *f = tp->failed;
    g_return_val_if_fail (f != NULL, NULL);
    GString *out = g_string_new (NULL);
    if (f->device_lost && tp->lost_cause) {
        /* What NCCL prints (net_ib's async event thread, then the next call on the device):
         * the device's fatal event in libibverbs' words (ibv_event_type_str), and the error. */
        const char *name = weft_graph_node (net->graph, tp->lost_nic)->name;
        const char *slash = strrchr (name, '/');
        g_autofree char *when = weft_units_format_human_time (tp->lost_ps);
        g_string_append_printf (out, "NIC %s removed at %s ([%s]): ", name, when, tp->lost_cause);
        /* NCCL's words are its InfiniBand plugin's, which drives InfiniBand and RoCE alike
         * (verbs).  Over plain Ethernet or Ultra Ethernet another plugin runs (sockets,
         * libfabric), whose report weft does not claim to know (doc/faults.md). */
        if (weft_fabric_rdma (&net->fabric))
            g_string_append_printf (out,
                                    "NET/IB : %s:1 async fatal event: local catastrophic error "
                                    "(IBV_EVENT_DEVICE_FATAL); communicator encountered a fatal "
                                    "error (ncclSystemError)",
                                    slash ? slash + 1 : name);
        else
            g_string_append (out, "the device is gone and its connections fail (what NCCL's "
                                  "network plugin for this fabric prints is not modelled)");
        g_string_append_printf (out,
                                "; flow %u %s -> %s, whose connection was on it: %" G_GUINT64_FORMAT
                                " of %" G_GUINT64_FORMAT " bytes delivered",
                                f->spec.id, weft_graph_node (net->graph, f->spec.src)->name,
                                weft_graph_node (net->graph, f->spec.dst)->name, f->delivered,
                                f->spec.size_bytes);
        append_path (net, f, out);
        g_string_append_c (out, '\n');
        return g_string_free (out, FALSE);
    }
    g_autofree char *timeout = weft_units_format_human_time (tp->rc_timeout_ps);
    /* What NCCL reports: the work completion's status (12, IBV_WC_RETRY_EXC_ERR) and libibverbs'
     * text for it (ibv_wc_status_str). */
    g_string_append_printf (
        out,
        "flow %u %s -> %s: transport retry counter exceeded (work completion "
        "status 12, IBV_WC_RETRY_EXC_ERR): %u timeouts of %s in a row without "
        "an acknowledgement (rc_timeout = %" G_GUINT64_FORMAT ", rc_retry_cnt = %" G_GUINT64_FORMAT
        "); %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " bytes delivered",
        f->spec.id, weft_graph_node (net->graph, f->spec.src)->name,
        weft_graph_node (net->graph, f->spec.dst)->name, weft_flow_loss_of (f)->rc_retries + 1,
        timeout, tp->rc_timeout, tp->rc_retry_cnt, f->delivered, f->spec.size_bytes);
    append_path (net, f, out);
    g_string_append_c (out, '\n');
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
        if (!q->owner || !q->pfc || !weft_port_pfc_paused (q, prio, now))
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
                WeftPort *next =
                    p->pfc && weft_port_pfc_paused (p, prio, now) && p->q[8 - prio].head
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
    return weft_model_port (p->link.peer, p->link.peer_port);
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
            /* FCPs on their way back, not yet applied (models/ib_credit.h). */
            for (guint32 r = 0; r < tx->ib->ret_len; r++)
                if (weft_ib_return_at (tx->ib, r)->vl == v)
                    returning += weft_ib_return_at (tx->ib, r)->credits;
            guint64 sum = tx->ib->vl[v].avail + wire + buffered + rx->ib->vl[v].pending + returning;
            guint64 advertised = (guint64) rx->ib->capacity + rx->ib->vl[v].granted;
            if (sum != advertised || buffered != rx->ib->vl[v].used) {
                bad++;
                if (report)
                    g_string_append_printf (
                        report,
                        "%s:%u VL %u: avail %u + wire %" G_GUINT64_FORMAT
                        " + buffered %" G_GUINT64_FORMAT
                        " (counted %u) + pending %u + returning %" G_GUINT64_FORMAT
                        " != %" G_GUINT64_FORMAT "\n",
                        tx->owner->name, tx->index + 1, v, tx->ib->vl[v].avail, wire, buffered,
                        rx->ib->vl[v].used, rx->ib->vl[v].pending, returning, advertised);
            }
        }
    }
    return bad;
}
