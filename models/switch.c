#include "config.h"
#define G_LOG_DOMAIN "weft-switch"
#include "models/switch.h"

#include "models/frn.h"
#include "models/registry.h"
#include "models/routing.h"
#include "sim/rng.h"
#include "sim/units.h"

static const WeftParamSpec switch_params[] = {
    WEFT_PARAM_BYTES ("buffer", WeftSwitch, buffer_bytes, "1MiB", "1KiB", "16GiB",
                      "Ethernet and RoCE without buffer_sharing: egress buffer per port; a packet "
                      "that does not fit is dropped (tail drop; RoCE with PFC: unbounded).  "
                      "InfiniBand buffers are per input port and VL: "
                      "[infiniband] buffer"),
    WEFT_PARAM_STRING ("latency", WeftSwitch, latency_str, "auto",
                       "port-to-port forwarding latency, from arrival (the headers, cut-through; "
                       "the last bit, store-and-forward) to the egress queue, 0ns to 1ms (0ns: "
                       "an ideal crossbar); auto: 130 ns on InfiniBand (NVIDIA Quantum), 300 ns "
                       "on Ethernet and RoCE (NVIDIA Spectrum-2); sources in doc/latency.md"),
    WEFT_PARAM_ENUM ("forwarding", WeftSwitch, forwarding, "auto",
                     "auto|cut-through|store-and-forward",
                     "cut-through forwards once the headers (64 B) are in; store-and-forward "
                     "waits for the last bit; auto: cut-through on InfiniBand, "
                     "store-and-forward on Ethernet"),
    WEFT_PARAM_END,
};

weft_time_t
weft_switch_default_latency (int fabric_kind)
{
    /* Published port-to-port figures of NVIDIA's switch ASICs: Quantum (HDR) for InfiniBand,
     * Spectrum-2 for Ethernet; doc/latency.md says where each comes from and why it stands in
     * for the NDR and Spectrum-4 generations. */
    return fabric_kind == WEFT_FABRIC_INFINIBAND ? WEFT_NS (130) : WEFT_NS (300);
}

/* [switch] latency: auto, or a time from 0 to 1 ms. */
static gboolean
resolve_latency (WeftSwitch *sw, const WeftExperiment *exp, int fabric_kind, GError **error)
{
    if (g_strcmp0 (sw->latency_str, "auto") == 0) {
        sw->latency_ps = weft_switch_default_latency (fabric_kind);
        return TRUE;
    }
    g_autoptr (GError) local = NULL;
    if (!weft_units_parse_time (sw->latency_str, &sw->latency_ps, &local))
        return weft_experiment_fail (exp, error, local->code, "switch", "latency", "%s, or auto",
                                     local->message);
    if (sw->latency_ps > WEFT_MS (1))
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_RANGE, "switch", "latency",
                                     "%s is out of range: expected 0ns to 1ms, or auto",
                                     sw->latency_str);
    return TRUE;
}

gboolean
weft_switch_read_params (WeftSwitch *sw, const WeftExperiment *exp, int fabric_kind, GError **error)
{
    WeftParamBinding b[] = { { switch_params, sw }, { weft_buffer_params, &sw->buffer_cfg } };
    gboolean ok = TRUE;
    if (!exp) {
        weft_params_set_defaults (switch_params, sw);
        weft_params_set_defaults (weft_buffer_params, &sw->buffer_cfg);
    } else {
        ok = weft_params_read (exp, "switch", b, G_N_ELEMENTS (b), error);
    }
    ok = ok && resolve_latency (sw, exp, fabric_kind, error);
    g_clear_pointer (&sw->latency_str, g_free); /* resolved: the switch keeps latency_ps */
    return ok;
}

WeftPort *
weft_model_port (WeftModel *m, guint32 p)
{
    if (m->klass == &weft_switch_class)
        return &((WeftSwitch *) m)->ports[p];
    return &((WeftNic *) m)->ports[p];
}

void
weft_ports_pair_credits (GPtrArray *ports)
{
    for (guint i = 0; i < ports->len; i++) {
        WeftPort *p = ports->pdata[i];
        WeftPort *far = weft_model_port (p->link.peer, p->link.peer_port);
        if (p->ib && far->ib && !p->pfc)
            weft_port_set_far (p, far);
    }
}

const WeftSwitch *
weft_switch_first_fabric (const GPtrArray *switches)
{
    for (guint i = 0; i < switches->len; i++)
        if (!((const WeftSwitch *) switches->pdata[i])->internal)
            return switches->pdata[i];
    return NULL;
}

gboolean
weft_switch_cut_through (const WeftSwitch *sw)
{
    if (sw->forwarding == WEFT_FORWARDING_AUTO)
        return sw->fabric->kind == WEFT_FABRIC_INFINIBAND;
    return sw->forwarding == WEFT_FORWARDING_CUT_THROUGH;
}

/* ECN (models/ecn.h) at egress @port: by the bytes of the packet's class queued there, counted
 * on the port (/links and /ports ecn_marks). */
static void
mark_ce (WeftSwitch *self, WeftPort *port, WeftPacket *pkt)
{
    guint marked =
        weft_ecn_mark (&self->fabric->ecn, self->ecn_rng,
                       port->q[weft_port_class (port, pkt)].bytes, port->link.rate_bps, pkt);
    port->ecn_marks += marked;
    port->s_ecn_marks += marked;
}

/* The shared buffer's queue of a packet waiting at @port: (port, class). */
static inline guint
buffer_queue (const WeftPort *port, const WeftPacket *pkt)
{
    return port->index * WEFT_PORT_CLASSES + weft_port_class (port, pkt);
}

/* Everything a switch does as a packet starts leaving through @port: ECN marking on dequeue
 * (by the bytes of its class left behind it), and freeing the packet's input buffer - its
 * InfiniBand credits, its PFC ingress count, its shared-buffer bytes. */
static void
switch_depart (WeftModel *m, WeftPort *port, WeftPacket *pkt)
{
    WeftSwitch *self = (WeftSwitch *) m;
    if (self->ecn_dequeue)
        mark_ce (self, port, pkt);
    /* Flow control, and what this node's own agent sends (data and ACKs that have crossed no
     * link yet), hold no input buffer. */
    if (pkt->kind == WEFT_PKT_CREDIT || pkt->hop == 0)
        return;
    WeftPort *in = &self->ports[pkt->in_port];
    if (in->ib && weft_ib_release (in->ib, pkt))
        weft_port_queue_fcp (in, pkt->in_vl);
    if (self->buffer) {
        WeftBuffer *buf = self->buffer;
        if (self->pfc_ingress) {
            guint prio = pkt->prio & 7u;
            guint64 h0 = weft_pfc_headroom_used (in->pfc, prio);
            weft_pfc_on_depart (in, pkt);
            buf->headroom_bytes = buf->headroom_bytes - h0 + weft_pfc_headroom_used (in->pfc, prio);
        }
        weft_buffer_release (buf, buffer_queue (port, pkt), pkt->size);
    } else if (self->pfc_ingress) {
        weft_pfc_on_depart (in, pkt);
    }
}

void
weft_switch_install_depart (WeftSwitch *self)
{
    for (guint i = 0; i < self->n_ports; i++)
        if (self->ports[i].owner)
            self->ports[i].on_depart = switch_depart;
}

/* Whether output @p is Down (models/fault.h): the switch knows its own ports' state. */
static inline gboolean
port_down (const WeftPort *p)
{
    return p->fault != NULL && p->fault->down;
}

/* Adaptive routing's tie-breaking generator, made at the first tie rather than with the model:
 * a 64-SU SuperPOD has 38,144 switch models (NICs, PCIe switches and NVSwitches included), of
 * which only the 1,280 fabric switches ever choose between ports, and a Mersenne Twister is
 * 5 KB (190 MB).  Seeded from (seed, this switch), its draws are the same whenever it is made.
 * (ECN, the shared buffer, credits and PFC are switched on by their mechanisms' setup,
 * models/registry.h: a switch has no init of its own.) */
static gsl_rng *
tie_rng (WeftSwitch *self)
{
    if (G_UNLIKELY (self->rng == NULL))
        self->rng = weft_rng_new (self->parent.sim->seed, self->parent.sched.id);
    return self->rng;
}

/* Adaptive routing: the equal-cost port with the least data ahead of this packet - bytes
 * queued at that output, plus on InfiniBand the credits of this VL already spent toward the
 * next hop (data in flight or buffered there) - ties broken uniformly at random.  A Down port
 * is no candidate (the first of the set when every one is Down), nor, with fault
 * notifications, a port that leads to a dead end (models/frn.h). */
static guint32
choose_adaptive (WeftSwitch *self, const guint32 *set, guint n, const WeftPacket *pkt)
{
    guint32 best = set[0];
    guint64 best_load = G_MAXUINT64;
    guint ties = 0;
    WeftFrn *frn = self->fabric->frn;
    guint32 first_up = WEFT_GRAPH_NONE;
    for (guint i = 0; i < n; i++) {
        const WeftPort *p = &self->ports[set[i]];
        if (!p->owner || port_down (p))
            continue;
        /* Fault notifications (models/frn.h): a port whose next switch has lost its way to
         * the destination, as notified by now, is no candidate either. */
        if (G_UNLIKELY (frn && frn->armed)) {
            if (first_up == WEFT_GRAPH_NONE)
                first_up = set[i];
            if (weft_frn_avoid (frn, p, pkt->dst_ep))
                continue;
        }
        guint64 load = p->q_bytes;
        if (p->ib) {
            weft_ib_sync (p->ib, self->parent.sim);
            load += (guint64) (p->ib->limit - p->ib->vl[p->ib->sl2vl[pkt->sl]].avail) *
                    p->ib->cfg->credit_unit;
        }
        if (load < best_load) {
            best_load = load;
            best = set[i];
            ties = 1;
        } else if (load == best_load && gsl_rng_uniform_int (tie_rng (self), ++ties) == 0) {
            best = set[i];
        }
    }
    /* Every Up candidate notified as a dead end: the first Up one, as without notifications. */
    if (best_load == G_MAXUINT64 && first_up != WEFT_GRAPH_NONE)
        return first_up;
    return best;
}

/* The equal-cost set toward @dst_ep: through the switch's flat route table (sim/graph.h),
 * filled again when the route tables changed; a switch outside the fabric region asks the
 * graph. */
static inline const guint32 *
route_set (WeftSwitch *self, guint32 dst_ep, guint *n)
{
    if (G_UNLIKELY (weft_route_view_stale (&self->routes)))
        weft_graph_route_view (self->graph, self->parent.node, &self->routes);
    if (G_LIKELY (self->routes.cells != NULL))
        return weft_route_view_set (&self->routes, dst_ep, n);
    return weft_graph_route_set (self->graph, self->parent.node, dst_ep, n);
}

/* Static routing's answers, remembered per switch: a direct-mapped table by destination
 * endpoint, emptied whenever the graph's route tables change (their generation, which
 * weft_graph_route_set_static bumps too), so a hit returns what weft_graph_route_static would.
 * A lookup walks the graph's tables (find_cell: about 110 instructions); a hit is a few.  A
 * fixed size, allocated at a switch's first static lookup: never switches x destinations. */
static inline guint32
route_static (WeftSwitch *self, guint32 dst_ep)
{
    if (G_UNLIKELY (self->routes.live_gen == NULL))
        weft_graph_route_view (self->graph, self->parent.node, &self->routes);
    WeftSwitchRouteCache *c = self->route_cache;
    guint64 gen = *self->routes.live_gen;
    if (G_UNLIKELY (c == NULL || c->gen != gen)) {
        if (c == NULL)
            c = self->route_cache = g_new (WeftSwitchRouteCache, 1);
        memset (c, 0, sizeof *c);
        c->gen = gen;
    }
    guint i = dst_ep % WEFT_SWITCH_ROUTE_CACHE_SLOTS;
    if (G_LIKELY (c->slot[i].ep1 == dst_ep + 1))
        return c->slot[i].port;
    guint32 out = weft_graph_route_static (self->graph, self->parent.node, dst_ep);
    c->slot[i].ep1 = dst_ep + 1;
    c->slot[i].port = out;
    return out;
}

/* ECMP (and spraying, whose entropy is the hash) when the hashed member @out is Down: the group
 * shrinks to its members that are up, and the packets hashed onto the Down one are spread
 * over those by the same hash; the flows on live members keep theirs, as resilient hashing
 * does (doc/faults.md).  @out when every member is Down. */
static guint32
ecmp_up (WeftSwitch *self, const WeftPacket *pkt, guint32 out)
{
    guint n, n_up = 0;
    const guint32 *set = weft_graph_route_set (self->graph, self->parent.node, pkt->dst_ep, &n);
    for (guint i = 0; i < n; i++)
        n_up += self->ports[set[i]].owner && !port_down (&self->ports[set[i]]);
    if (n_up == 0)
        return out;
    guint k = (guint) (weft_mix64 (self->hash_seed ^ pkt->hash ^ 0xdeadu) % n_up);
    for (guint i = 0; i < n; i++)
        if (self->ports[set[i]].owner && !port_down (&self->ports[set[i]]) && k-- == 0)
            return set[i];
    return out;
}

static void
drop_at_input (WeftSwitch *self, guint in_port, WeftPacket *pkt)
{
    WeftPort *in = &self->ports[in_port];
    if (in->ib && weft_ib_release (in->ib, pkt))
        weft_port_queue_fcp (in, pkt->in_vl);
    weft_packet_release (&self->parent.sim->pool, pkt);
}

/* Ultra Ethernet trimming (models/uet.h): @pkt is cut to its header and goes in the control
 * class, ahead of data. */
static inline void
trim (WeftSwitch *self, WeftPort *o, WeftPacket *pkt)
{
    pkt->trimmed = 1;
    pkt->size = self->trim_bytes;
    pkt->prio = 0;
    o->trims++;
    o->s_trims++;
}

/* Shared buffer: admits @pkt toward egress port @o and charges it, or drops and counts it.
 * Lossless traffic (PFC on) answers to its ingress priority group's xoff - static, or alpha x
 * the pool's free shared bytes - with headroom on top; lossy traffic to its egress queue's
 * threshold. */
static gboolean
buffer_admit (WeftSwitch *self, WeftPort *in, WeftPort *o, WeftPacket *pkt)
{
    WeftBuffer *buf = self->buffer;
    guint q = buffer_queue (o, pkt);
    if (self->pfc_ingress) {
        const WeftPfcConfig *pfc = &self->fabric->pfc;
        guint64 room = weft_buffer_free (buf), shared = weft_buffer_shared_free (buf);
        guint64 xoff =
            pfc->xoff_dynamic ? weft_buffer_dynamic_limit (pfc->alpha, shared) : pfc->xoff;
        /* Past the end of the shared part a packet needs the group's headroom: the group
         * pauses there at the latest. */
        guint prio = pkt->prio & 7u;
        xoff = MIN (xoff, weft_pfc_rx (in->pfc, prio)->used + shared);
        /* Admitted or not, the group's headroom in use may change (a refused packet may still
         * pause the group): the pool follows it. */
        guint64 h0 = weft_pfc_headroom_used (in->pfc, prio);
        gboolean fits = weft_pfc_admit (in, pkt, xoff, room);
        buf->headroom_bytes = buf->headroom_bytes - h0 + weft_pfc_headroom_used (in->pfc, prio);
        if (fits) {
            weft_buffer_charge (buf, q, pkt->size);
            return TRUE;
        }
        buf->drops_full += pkt->size > room; /* and, either way, a PFC lossless violation */
    } else if (weft_buffer_admit (buf, q, pkt->size) == WEFT_BUFFER_ADMIT) {
        return TRUE;
    } else if (self->trim_bytes && pkt->kind == WEFT_PKT_DATA && !pkt->trimmed &&
               self->trim_bytes <= weft_buffer_free (buf)) {
        /* Ultra Ethernet: the data packet the pool refuses is trimmed; its header joins the
         * control class past the queue's threshold (while the pool holds it). */
        trim (self, o, pkt);
        weft_buffer_charge (buf, buffer_queue (o, pkt), pkt->size);
        return TRUE;
    } else {
        weft_port_count_drop (o, pkt);
    }
    weft_packet_release (&self->parent.sim->pool, pkt);
    return FALSE;
}

/* Ultra Ethernet trimming with per-port buffers: a data packet that would overflow @o's buffer
 * is trimmed. */
static inline void
trim_if_full (WeftSwitch *self, WeftPort *o, WeftPacket *pkt)
{
    if (pkt->kind != WEFT_PKT_DATA || pkt->trimmed || o->q_bytes + pkt->size <= o->cap_bytes)
        return;
    trim (self, o, pkt);
}

static void
switch_receive (WeftModel *m, guint in_port, WeftPacket *pkt)
{
    WeftSwitch *self = (WeftSwitch *) m;
    WeftPort *in = &self->ports[in_port];
    if (pkt->kind == WEFT_PKT_CREDIT) {
        weft_port_on_flow_control (in, pkt);
        return;
    }
    weft_port_count_rx (in, pkt);
    if (in->ib && !weft_ib_on_arrival (in->ib, pkt)) {
        self->lossless_drops++;
        weft_packet_release (&m->sim->pool, pkt);
        return;
    }
    if (in->ib && in->ib->pool_free && weft_ib_grant (in->ib, pkt->in_vl))
        weft_port_queue_fcp (in, pkt->in_vl);
    if (self->agent && pkt->dst == m->node) {
        weft_nic_agent_receive (self->agent, in, pkt);
        return;
    }
    guint32 out;
    if (self->fabric->routing == WEFT_ROUTING_ADAPTIVE) {
        guint n;
        const guint32 *set = route_set (self, pkt->dst_ep, &n);
        out = n == 0 ? WEFT_GRAPH_NONE : n == 1 ? set[0] : choose_adaptive (self, set, n, pkt);
    } else {
        if (self->fabric->routing == WEFT_ROUTING_STATIC) {
            out = route_static (self, pkt->dst_ep);
        } else {
            guint n;
            const guint32 *set = route_set (self, pkt->dst_ep, &n);
            out = weft_routing_pick (set, n, self->hash_seed, pkt->hash);
        }
        if (G_UNLIKELY (out < self->n_ports && port_down (&self->ports[out])) &&
            self->fabric->routing != WEFT_ROUTING_STATIC)
            out = ecmp_up (self, pkt, out);
    }
    if (G_UNLIKELY (out == WEFT_GRAPH_NONE || out >= self->n_ports || !self->ports[out].owner)) {
        self->unroutable++;
        drop_at_input (self, in_port, pkt);
        return;
    }
    if (G_LIKELY (!self->enqueue_extras)) {
        /* The common case: at most PFC's ingress count. */
        if (self->pfc_ingress && !weft_pfc_on_arrival (in, pkt)) {
            weft_packet_release (&m->sim->pool, pkt); /* counted by PFC: a lossless violation */
            return;
        }
        weft_port_enqueue (&self->ports[out], pkt);
        return;
    }
    if (self->cc_markers) {
        /* IB congestion control: FECN by this output's queue for the VL it leaves on (the
         * output's SL-to-VL table; weft_port_enqueue sets it anyway for every packet). */
        WeftPort *o = &self->ports[out];
        pkt->vl = o->ib->sl2vl[pkt->sl];
        weft_ib_sync (o->ib, m->sim);
        self->fecn_marked +=
            weft_ibcc_mark (&self->fabric->ibcc, &self->cc_markers[out], o->q[1 + pkt->vl].bytes,
                            weft_ib_can_send (o->ib, pkt), pkt);
    }
    if (self->buffer) {
        if (!buffer_admit (self, in, &self->ports[out], pkt))
            return;
    } else if (self->pfc_ingress && !weft_pfc_on_arrival (in, pkt)) {
        weft_packet_release (&m->sim->pool, pkt); /* counted by PFC: a lossless violation */
        return;
    }
    if (self->ecn_rng && self->fabric->ecn.mark_on == WEFT_ECN_ON_ENQUEUE) {
        /* ECN marked as the packet joins its queue: by the bytes of its class ahead of it. */
        mark_ce (self, &self->ports[out], pkt);
    }
    if (self->trim_bytes)
        trim_if_full (self, &self->ports[out], pkt);
    weft_port_enqueue (&self->ports[out], pkt);
}


/* After every mechanism's setup (network/build.c): whether a packet's forwarding has more to do
 * than PFC's ingress count, so that switch_receive tests the rare mechanisms once. */
static gboolean
switch_init (WeftModel *m, GError **error)
{
    WeftSwitch *self = (WeftSwitch *) m;
    self->enqueue_extras = self->cc_markers || self->buffer ||
                           (self->ecn_rng && self->fabric->ecn.mark_on == WEFT_ECN_ON_ENQUEUE) ||
                           self->trim_bytes;
    return TRUE;
}

void
weft_switch_enable_credits (WeftSwitch *self)
{
    const WeftIbConfig *ib = &self->fabric->ib;
    self->pool_free = self->internal ? 0 : ib->shared_credits;
    for (guint i = 0; i < self->n_ports; i++) {
        WeftPort *p = &self->ports[i];
        if (!p->owner)
            continue;
        /* The shared pool serves the fabric ports of a fabric switch. */
        if (self->pool_free > 0 && p->ib &&
            weft_graph_link (self->graph, p->link.link_id)->kind == WEFT_LINK_FABRIC) {
            p->ib->pool_free = &self->pool_free;
            p->ib->grant_unit = ib->max_packet_credits;
        }
    }
    weft_switch_install_depart (self);
}


void
weft_switch_enable_pfc (WeftSwitch *self)
{
    self->pfc_ingress = TRUE;
    weft_switch_install_depart (self);
}

WeftNicAgent *
weft_switch_agent (WeftSwitch *self, WeftTransport *tp)
{
    if (!self->agent) {
        self->agent = g_new0 (WeftNicAgent, 1);
        weft_nic_agent_init (self->agent, &self->parent, tp, self->ports, self->n_ports);
    }
    return self->agent;
}

static void
switch_clear (WeftModel *m)
{
    WeftSwitch *self = (WeftSwitch *) m;
    if (self->agent) {
        weft_nic_agent_clear (self->agent);
        g_free (self->agent);
    }
    for (guint i = 0; i < self->n_ports; i++)
        weft_port_clear (&self->ports[i]);
    g_free (self->cc_markers);
    g_free (self->route_cache);
    if (self->buffer) {
        weft_buffer_clear (self->buffer);
        g_free (self->buffer);
    }
    if (self->rng)
        gsl_rng_free (self->rng);
    if (self->ecn_rng)
        gsl_rng_free (self->ecn_rng);
}

/* The switch's own keys: its forwarding, its latency and the per-port tail-drop buffer of the
 * baseline Ethernet port (the shared buffer's keys, in the same group, are models/buffer.c's). */
const WeftMechanism weft_switch_mechanism = {
    .name = "switch",
    .group = "switch",
    .help = "output-queued switch: store-and-forward or cut-through, tail-drop egress buffers "
            "per port or one shared buffer with static or dynamic thresholds (Ethernet, RoCE), "
            "or per-input, per-VL credit buffers (InfiniBand)",
    .params = switch_params,
    .fabrics = WEFT_FABRICS_ALL,
};

const WeftModelClass weft_switch_class = {
    .name = "switch",
    .help = "output-queued switch: store-and-forward or cut-through, tail-drop egress buffers "
            "per port or one shared buffer with static or dynamic thresholds (Ethernet, RoCE), "
            "or per-input, per-VL credit buffers (InfiniBand)",
    .instance_size = sizeof (WeftSwitch),
    .params = switch_params,
    .init = switch_init,
    .receive = switch_receive,
    .clear = switch_clear,
};
