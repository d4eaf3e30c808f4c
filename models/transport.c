#include "config.h"
#define G_LOG_DOMAIN "weft-transport"
#include "models/transport.h"

#include <string.h>

#include "models/nic.h"
#include "models/registry.h"
#include "models/routing.h"
#include "sim/rng.h"

const WeftParamSpec weft_transport_params[] = {
    WEFT_PARAM_BYTES (
        "window", WeftTransport, window_bytes, "0B", "0B", "1GiB",
        "unacknowledged payload a sender may have out; 0: the flow's own "
        "bandwidth-delay product plus one packet (line rate for a lone flow) on "
        "Ethernet, and no limit on InfiniBand, where link credits pace senders, nor on "
        "RoCE (PFC pauses, or losses and go-back-N, do)"),
    WEFT_PARAM_UINT ("ack_every", WeftTransport, ack_every, "1", "1", "1024",
                     "the receiver acknowledges every Nth in-order packet and a message's last "
                     "packet; out-of-order and duplicate arrivals (and FECN-marked ones on "
                     "InfiniBand) are answered at once"),
    WEFT_PARAM_TIME ("rto_min", WeftTransport, rto_min, "20us", "1us", "10s",
                     "Ethernet: lower clamp of the retransmission timeout (SRTT + 4 RTTVAR, "
                     "RFC 6298); InfiniBand and RoCE time out as RDMA reliable connections do "
                     "(rc_timeout)"),
    WEFT_PARAM_TIME ("rto_initial", WeftTransport, rto_initial, "100us", "1us", "10s",
                     "Ethernet: retransmission timeout before the first RTT sample (at least "
                     "rto_min)"),
    WEFT_PARAM_TIME ("rto_max", WeftTransport, rto_max, "100ms", "1us", "100s",
                     "Ethernet: upper clamp of the timeout after exponential backoff"),
    WEFT_PARAM_UINT ("rc_timeout", WeftTransport, rc_timeout, "20", "0", "31",
                     "InfiniBand and RoCE: the reliable connection's local ACK timeout "
                     "exponent: a QP that hears no ACK for 4.096 us x 2^n resends from its "
                     "first unacknowledged packet (ibv_modify_qp's timeout; NCCL_IB_TIMEOUT, "
                     "20 = 4.29 s since NCCL 2.23, 18 = 1.07 s in 2.14 to 2.22); 0: never "
                     "times out"),
    WEFT_PARAM_UINT ("rc_retry_cnt", WeftTransport, rc_retry_cnt, "7", "0", "7",
                     "InfiniBand and RoCE: timeouts in a row without progress that a QP "
                     "retries; the next one fails the connection with \"transport retry counter "
                     "exceeded\" and the run with exit status 6 (ibv_modify_qp's retry_cnt; "
                     "NCCL_IB_RETRY_CNT, 7)"),
    WEFT_PARAM_ENUM ("recovery", WeftTransport, recovery, "go-back-n", "go-back-n|selective-repeat",
                     "loss recovery: go-back-n discards what arrives after a gap and resends "
                     "everything from the first missing packet (RoCE RC's classic behaviour); "
                     "selective-repeat places packets beyond a gap, NAKs the first missing one "
                     "and the sender resends only that (ConnectX-6 Dx and later, IRN-style)"),
    WEFT_PARAM_END,
};

typedef struct {
    const WeftTransport *tp;
    const WeftPathEnv *env;
    guint32 first_wire;  /* wire bytes of the first packet */
    guint32 to_node;     /* its destination, which takes it whole */
    weft_time_t latency; /* first packet: serialization + propagation + forwarding, all hops */
    guint64 min_rate;
    guint64 feed_rate; /* the slowest link up to and including the first NIC's egress */
    gboolean past_nic; /* that NIC has been passed */
    gboolean fabric;   /* a fabric link on the way (not NVLink or PCIe only) */
} PathAcc;

static guint32
choose_at (const WeftGraph *g, int routing, guint64 run_seed, guint32 node, guint32 to_ep,
           guint32 hash, gboolean *by_hash)
{
    if (routing == WEFT_ROUTING_STATIC)
        return weft_graph_route_static (g, node, to_ep);
    guint n;
    const guint32 *set = weft_graph_route_set (g, node, to_ep, &n);
    if (n > 1)
        *by_hash = TRUE;
    return weft_routing_pick (set, n, n > 1 ? weft_routing_seed (run_seed, node) : 0, hash);
}

static guint32
first_hop (const WeftTransport *tp, guint32 hash, guint32 node, guint32 to_ep, gboolean *by_hash)
{
    const WeftGraph *g = tp->graph;
    guint n;
    weft_graph_route_set (g, node, to_ep, &n);
    if (n > 0) {
        /* Static routing follows the table; otherwise the flow's hash picks among equal
         * first hops (adaptive routing is a switch's decision, per packet). */
        int routing =
            tp->fabric->routing == WEFT_ROUTING_STATIC ? WEFT_ROUTING_STATIC : WEFT_ROUTING_ECMP;
        guint32 p = choose_at (g, routing, tp->seed, node, to_ep, hash, by_hash);
        if (p != WEFT_GRAPH_NONE)
            return p;
    }
    /* No table for this endpoint (a plain host): its one connected port. */
    const WeftNode *nd = weft_graph_node (g, node);
    for (guint p = 0; p < nd->ports->len; p++)
        if (g_array_index (nd->ports, guint32, p) != WEFT_GRAPH_NONE)
            return p;
    return WEFT_GRAPH_NONE;
}


/* weft_transport_walk for flow hash @hash; *@by_hash is set when a node on the way picked its
 * port by the hash. */
static guint
walk (const WeftTransport *tp, guint32 hash, guint32 from_node, guint32 to_ep, gboolean minimal,
      void (*visit) (guint32 node, guint32 port, void *data), void *data, gboolean *by_hash)
{
    const WeftGraph *g = tp->graph;
    guint32 node = from_node;
    guint32 to_node = weft_graph_endpoint_node (g, to_ep);
    guint hops = 0;
    while (node != to_node) {
        const WeftNode *n = weft_graph_node (g, node);
        guint32 port;
        if (n->forwards) {
            int routing = minimal ? WEFT_ROUTING_ECMP : tp->fabric->routing;
            port = choose_at (g, routing, tp->seed, node, to_ep, hash, by_hash);
        } else {
            if (hops > 0)
                return G_MAXUINT; /* an endpoint never carries transit traffic */
            port = first_hop (tp, hash, node, to_ep, by_hash);
        }
        guint32 peer, peer_port;
        if (port == WEFT_GRAPH_NONE || !weft_graph_peer (g, node, port, &peer, &peer_port) ||
            hops > weft_graph_n_nodes (g))
            return G_MAXUINT;
        if (visit)
            visit (node, port, data);
        node = peer;
        hops++;
    }
    return hops;
}

guint
weft_transport_walk (const WeftTransport *tp, const WeftFlow *f, guint32 from_node, guint32 to_ep,
                     gboolean minimal, void (*visit) (guint32 node, guint32 port, void *data),
                     void *data)
{
    gboolean by_hash = FALSE;
    return walk (tp, f->hash, from_node, to_ep, minimal, visit, data, &by_hash);
}

/* Collects a walk's hops into a cache entry; more than it holds: overflow. */
typedef struct {
    const WeftGraph *g;
    WeftPathEntry *e;
    gboolean overflow;
} HopCollect;

static void
collect_hop (guint32 node, guint32 port, void *data)
{
    HopCollect *hc = data;
    if (hc->e->n_hops == WEFT_PATH_CACHE_HOPS) {
        hc->overflow = TRUE;
        return;
    }
    const WeftNode *n = weft_graph_node (hc->g, node);
    hc->e->hops[hc->e->n_hops++] =
        (WeftPathHop){ node, port, g_array_index (n->ports, guint32, port) };
}

/* The entry for (@from, @to_ep, @mode), remembered or walked now for a flow of hash @hash; NULL
 * for a walk the cache does not answer (see models/pathcache.h): the caller walks. */
static WeftPathEntry *
cached (const WeftTransport *tp, guint32 hash, guint32 from, guint32 to_ep, WeftPathMode mode)
{
    WeftPathCache *pc = tp->paths;
    if (pc == NULL)
        return NULL;
    guint64 gen = weft_graph_routes_generation (tp->graph);
    WeftPathEntry *e = weft_path_cache_find (pc, gen, from, to_ep, mode);
    if (e != NULL) {
        if (e->by_hash) {
            pc->by_hash++;
            return NULL; /* the pair's walk picks by hash: walk it */
        }
        pc->hits++;
        return e;
    }
    pc->misses++;
    e = weft_path_cache_claim (pc, gen, from, to_ep, mode);
    gboolean by_hash = FALSE;
    if (mode == WEFT_PATH_FIRST_HOP) {
        guint32 port = first_hop (tp, hash, from, to_ep, &by_hash);
        if (port == WEFT_GRAPH_NONE) {
            e->used = 0;
            return NULL;
        }
        const WeftNode *n = weft_graph_node (tp->graph, from);
        e->hops[0] = (WeftPathHop){ from, port, g_array_index (n->ports, guint32, port) };
        e->n_hops = 1;
    } else {
        HopCollect hc = { tp->graph, e, FALSE };
        guint hops =
            walk (tp, hash, from, to_ep, mode == WEFT_PATH_MINIMAL, collect_hop, &hc, &by_hash);
        if (hops == G_MAXUINT || hc.overflow) {
            e->used = 0; /* not cached: the caller walks */
            return NULL;
        }
    }
    /* A walk that picked by hash is this flow's alone: handed over this once, then a marker. */
    e->by_hash = (guint8) by_hash;
    return e;
}

const WeftPathEntry *
weft_transport_cached_walk (const WeftTransport *tp, guint32 hash, guint32 from, guint32 to_ep,
                            gboolean minimal)
{
    return cached (tp, hash, from, to_ep, minimal ? WEFT_PATH_MINIMAL : WEFT_PATH_ROUTED);
}

guint32
weft_transport_first_hop (const WeftTransport *tp, const WeftFlow *f, guint32 node, guint32 to_ep)
{
    const WeftPathEntry *e = cached (tp, f->hash, node, to_ep, WEFT_PATH_FIRST_HOP);
    if (e != NULL)
        return e->hops[0].port;
    gboolean by_hash = FALSE;
    return first_hop (tp, f->hash, node, to_ep, &by_hash);
}

/* Adds hop (@node, @port) to @acc. */
static void
acc_hop (PathAcc *acc, guint32 node, guint32 port, guint32 link)
{
    const WeftGraph *g = acc->tp->graph;
    const WeftNode *n = weft_graph_node (g, node);
    const WeftLink *l = weft_graph_link (g, link);
    guint32 peer, peer_port;
    weft_graph_peer (g, node, port, &peer, &peer_port);
    /* As the wire hands it over (models/link.c, set_arrival): a cut-through switch forwards
     * once its first cut_bytes are in, any other node once the whole packet is. */
    guint32 cut = acc->env->cut_bytes ? acc->env->cut_bytes[peer] : 0;
    guint32 bytes = cut && acc->first_wire > cut && peer != acc->to_node ? cut : acc->first_wire;
    acc->latency +=
        weft_time_serialize (bytes, l->rate_bps) + l->delay_ps + acc->env->node_latency_ps[peer];
    if (l->rate_bps < acc->min_rate)
        acc->min_rate = l->rate_bps;
    if (!acc->past_nic) {
        acc->feed_rate = MIN (acc->feed_rate, l->rate_bps);
        acc->past_nic = n->kind == WEFT_NODE_NIC;
    }
    acc->fabric |= l->kind == WEFT_LINK_FABRIC;
}

static void
acc_visit (guint32 node, guint32 port, void *data)
{
    PathAcc *acc = data;
    const WeftNode *n = weft_graph_node (acc->tp->graph, node);
    acc_hop (acc, node, port, g_array_index (n->ports, guint32, port));
}

/* The first packet's latency from @from to @to_ep; the path's slowest link into @min_rate, the
 * slowest up to the first NIC's egress (the whole path when there is none) into @feed_rate,
 * and whether it crosses a fabric link into @fabric; each may be NULL.  From the path cache's
 * hops when it has them, summed once per packet size there. */
static weft_time_t
path_latency (const WeftTransport *tp, const WeftPathEnv *env, const WeftFlow *f, guint32 from,
              guint32 to_ep, guint32 wire, guint64 *min_rate, guint64 *feed_rate, gboolean *fabric)
{
    PathAcc acc = { .tp = tp,
                    .env = env,
                    .first_wire = wire,
                    .to_node = weft_graph_endpoint_node (tp->graph, to_ep),
                    .min_rate = G_MAXUINT64,
                    .feed_rate = G_MAXUINT64 };
    WeftPathEntry *e = cached (tp, f->hash, from, to_ep, WEFT_PATH_MINIMAL);
    if (e != NULL) {
        WeftPathSum *s = NULL;
        for (guint k = 0; k < G_N_ELEMENTS (e->sum) && s == NULL; k++)
            if (e->sum[k].valid && e->sum[k].wire == wire &&
                e->sum[k].env_a == (const void *) env->node_latency_ps &&
                e->sum[k].env_b == (const void *) env->cut_bytes)
                s = &e->sum[k];
        if (s == NULL) {
            for (guint i = 0; i < e->n_hops; i++)
                acc_hop (&acc, e->hops[i].node, e->hops[i].port, e->hops[i].link);
            s = &e->sum[e->sum_next];
            e->sum_next = (e->sum_next + 1) % G_N_ELEMENTS (e->sum);
            *s = (WeftPathSum){ .env_a = env->node_latency_ps,
                                .env_b = env->cut_bytes,
                                .wire = wire,
                                .valid = TRUE,
                                .fabric = acc.fabric,
                                .latency = acc.latency,
                                .min_rate = acc.min_rate,
                                .feed_rate = acc.feed_rate };
        }
        acc.latency = s->latency;
        acc.min_rate = s->min_rate;
        acc.feed_rate = s->feed_rate;
        acc.fabric = s->fabric;
    } else if (weft_transport_walk (tp, f, from, to_ep, TRUE, acc_visit, &acc) == G_MAXUINT) {
        return WEFT_TIME_NEVER;
    }
    if (min_rate)
        *min_rate = acc.min_rate;
    if (feed_rate)
        *feed_rate = acc.feed_rate;
    if (fabric)
        *fabric = acc.fabric;
    return acc.latency;
}

/* Dependents of every flow as compressed rows, waiting counts, and the collectives' gates. */
static void
setup_dependencies (WeftTransport *tp, const GArray *deps, const GArray *colls, const GArray *gates)
{
    guint n = tp->n_flows;
    tp->dep_first = g_new0 (guint32, n + 1);
    guint nd = deps ? deps->len : 0;
    tp->dep_list = g_new (guint32, MAX (nd, 1));
    for (guint i = 0; i < nd; i++) {
        const WeftFlowDep *d = &g_array_index (deps, WeftFlowDep, i);
        g_assert (d->before < n && d->after < n);
        tp->dep_first[d->before + 1]++;
        tp->flows[d->after].waiting++;
        /* Released in an event of another node than its sender's: across ranks perhaps on
         * another rank, whose counters its sender's rank cannot know (doc/parallel.md). */
        if (tp->flows[d->before].spec.dst != tp->flows[d->after].spec.src)
            tp->flows[d->after].start_keyed = TRUE;
    }
    for (guint i = 0; i < n; i++)
        tp->dep_first[i + 1] += tp->dep_first[i];
    guint32 *fill = g_new (guint32, n + 1);
    memcpy (fill, tp->dep_first, (n + 1) * sizeof (guint32));
    for (guint i = 0; i < nd; i++) {
        const WeftFlowDep *d = &g_array_index (deps, WeftFlowDep, i);
        tp->dep_list[fill[d->before]++] = d->after;
    }
    g_free (fill);

    tp->n_colls = colls ? colls->len : 0;
    tp->colls = g_new0 (WeftCollRun, MAX (tp->n_colls, 1));
    /* Every gate, the spec's own and the further ones alike, as rows of the gating collective
     * (compressed, like the flows' dependencies): who waits, and how long after. */
    guint ng = gates ? gates->len : 0;
    tp->gated_first = g_new0 (guint32, tp->n_colls + 1);
    tp->gated = g_new (WeftCollGate, MAX (tp->n_colls + ng, 1));
    for (guint c = 0; c < tp->n_colls; c++) {
        WeftCollRun *r = &tp->colls[c];
        r->spec = g_array_index (colls, WeftCollInstance, c);
        r->remaining = r->spec.n_flows;
        if (r->spec.gate != G_MAXUINT32) {
            g_assert (r->spec.gate < tp->n_colls);
            tp->gated_first[r->spec.gate + 1]++;
            r->waiting++;
        } else {
            r->ready_ps = r->spec.gap_ps; /* a floor in time */
        }
    }
    for (guint i = 0; i < ng; i++) {
        const WeftCollGate *e = &g_array_index (gates, WeftCollGate, i);
        g_assert (e->before < tp->n_colls && e->after < tp->n_colls);
        tp->gated_first[e->before + 1]++;
        tp->colls[e->after].waiting++;
    }
    for (guint c = 0; c < tp->n_colls; c++)
        tp->gated_first[c + 1] += tp->gated_first[c];
    guint32 *next = g_new (guint32, tp->n_colls + 1);
    memcpy (next, tp->gated_first, (tp->n_colls + 1) * sizeof (guint32));
    for (guint c = 0; c < tp->n_colls; c++) {
        const WeftCollInstance *sp = &tp->colls[c].spec;
        if (sp->gate != G_MAXUINT32)
            tp->gated[next[sp->gate]++] = (WeftCollGate){ sp->gate, c, sp->gap_ps };
    }
    for (guint i = 0; i < ng; i++) {
        const WeftCollGate *e = &g_array_index (gates, WeftCollGate, i);
        tp->gated[next[e->before]++] = *e;
    }
    g_free (next);
    for (guint c = 0; c < tp->n_colls; c++) {
        WeftCollRun *r = &tp->colls[c];
        /* Flows with no predecessor inside the collective wait for its start instead. */
        for (guint32 i = 0; i < r->spec.n_flows; i++) {
            WeftFlow *f = &tp->flows[r->spec.first_flow + i];
            if (f->waiting == 0) {
                f->gated = TRUE;
                f->waiting = 1;
                f->start_keyed = TRUE; /* a collective completes on any node */
            }
        }
    }
}

/* One predecessor of @f (a flow, or its collective's gate) was met at @now.  Across ranks only
 * the rank of @f's sender counts it down (doc/parallel.md); the others skip it. */
static void
release (WeftTransport *tp, WeftFlow *f, weft_time_t now)
{
    const WeftModel *from = f->sender->owner;
    if (!weft_sim_owns (from->sim, from->node))
        return;
    g_assert (f->waiting > 0);
    if (tp->ready_ps) {
        /* Across ranks a predecessor met on another rank is learnt at a window's end, perhaps
         * after a later one met here: the start goes by the latest. */
        tp->ready_ps[f->spec.id] = MAX (tp->ready_ps[f->spec.id], now);
        now = tp->ready_ps[f->spec.id];
    }
    if (--f->waiting == 0)
        tp->start_flow (f->sender, f, MAX (now + f->spec.delay_ps, f->spec.start_ps),
                        f->start_keyed);
}

void
weft_transport_release (WeftTransport *tp, WeftFlow *f, weft_time_t at)
{
    release (tp, f, at);
}

static void collective_start (WeftTransport *tp, WeftCollRun *c, weft_time_t at, WeftSim *sim);

/* The last flow of @c has been delivered at @at (or it had none). */
static void
collective_finish (WeftTransport *tp, WeftCollRun *c, weft_time_t at, WeftSim *sim)
{
    c->finished = TRUE;
    c->finish_ps = at;
    if (!tp->coll_quiet && tp->collective_done)
        tp->collective_done (c, tp->collective_done_data);
    guint id = (guint) (c - tp->colls);
    for (guint32 k = tp->gated_first[id]; k < tp->gated_first[id + 1]; k++) {
        const WeftCollGate *e = &tp->gated[k];
        WeftCollRun *n = &tp->colls[e->after];
        g_assert (n->waiting > 0);
        n->ready_ps = MAX (n->ready_ps, at + e->gap_ps);
        if (--n->waiting == 0)
            collective_start (tp, n, n->ready_ps, sim);
    }
}

void
weft_transport_collective_finish (WeftTransport *tp, WeftCollRun *c, weft_time_t at, WeftSim *sim,
                                  gboolean record)
{
    g_assert (c->remaining == 0 && !c->finished);
    tp->coll_quiet = !record; /* and the collectives it completes in turn (no flows) */
    collective_finish (tp, c, at, sim);
    tp->coll_quiet = FALSE;
}

/* A collective laid out once per staging epoch (GPUDirect off for a window of time) takes the
 * layout of the epoch it starts in at @at, as NCCL decides GPUDirect when it sets a connection
 * up: the other layouts' flows never run. */
static void
choose_layout (WeftTransport *tp, WeftCollRun *c, weft_time_t at, WeftSim *sim)
{
    if (c->spec.n_layouts <= 1)
        return;
    c->layout = (guint16) weft_graph_staging_epoch (tp->graph, at);
    g_assert (c->layout < c->spec.n_layouts);
    for (guint32 i = 0; i < c->spec.n_flows; i++) {
        WeftFlow *f = &tp->flows[c->spec.first_flow + i];
        if (f->spec.layout == 0 || f->spec.layout == c->layout + 1u)
            continue;
        f->unused = TRUE;
        tp->flows_unused++;
        g_assert (c->remaining > 1);
        c->remaining--;
        if (weft_sim_owns (sim, f->spec.dst)) /* its work is its receiver's rank's */
            weft_sim_work_done (sim);
    }
}

/* Collective @c may begin at @at: its gated flows are released then. */
static void
collective_start (WeftTransport *tp, WeftCollRun *c, weft_time_t at, WeftSim *sim)
{
    c->started = TRUE;
    c->start_ps = at;
    if (tp->collective_started)
        tp->collective_started (c, tp->collective_started_data);
    if (c->spec.n_flows == 0) {
        collective_finish (tp, c, at, sim);
        return;
    }
    choose_layout (tp, c, at, sim);
    for (guint32 i = 0; i < c->spec.n_flows; i++) {
        WeftFlow *f = &tp->flows[c->spec.first_flow + i];
        if (f->gated && !f->unused)
            release (tp, f, at);
    }
}

void
weft_transport_start_collectives (WeftTransport *tp, WeftSim *sim)
{
    for (guint c = 0; c < tp->n_colls; c++)
        if (tp->colls[c].waiting == 0 && !tp->colls[c].started)
            collective_start (tp, &tp->colls[c], tp->colls[c].ready_ps, sim);
}

void
weft_transport_leave_active (WeftTransport *tp, WeftFlow *f)
{
    /* The last one takes its slot.  (Across ranks, where the flow finishes at its receiver's
     * rank, the set is its sender's rank's: nothing to do there, the sender's rank calls this
     * when it hears of the finish, network/window.c.) */
    if (f->active_slot < tp->active->len &&
        g_array_index (tp->active, guint32, f->active_slot) == f->spec.id) {
        guint32 last = g_array_index (tp->active, guint32, tp->active->len - 1);
        g_array_index (tp->active, guint32, f->active_slot) = last;
        tp->flows[last].active_slot = f->active_slot;
        g_array_set_size (tp->active, tp->active->len - 1);
    }
}

static int
id_cmp (gconstpointer a, gconstpointer b)
{
    guint32 x = *(const guint32 *) a, y = *(const guint32 *) b;
    return x < y ? -1 : x > y;
}

void
weft_transport_order_active (WeftTransport *tp)
{
    g_array_sort (tp->active, id_cmp);
    for (guint k = 0; k < tp->active->len; k++)
        tp->flows[g_array_index (tp->active, guint32, k)].active_slot = k;
}

void
weft_transport_flow_finished (WeftTransport *tp, WeftFlow *f, WeftSim *sim)
{
    f->finished = TRUE;
    f->finish_ps = sim->now;
    tp->flows_done++;
    weft_transport_leave_active (tp, f);
    weft_transport_trace_flow (tp, f);
    for (guint32 k = tp->dep_first[f->spec.id]; k < tp->dep_first[f->spec.id + 1]; k++) {
        WeftFlow *d = &tp->flows[tp->dep_list[k]];
        if (tp->release_remote && !weft_sim_owns (sim, d->sender->owner->node))
            tp->release_remote (d, sim->now, tp->cross_data);
        else
            release (tp, d, sim->now);
    }
    if (f->spec.coll != G_MAXUINT32) {
        WeftCollRun *c = &tp->colls[f->spec.coll];
        if (tp->coll_flow_done)
            tp->coll_flow_done (c, sim, tp->cross_data);
        else if (--c->remaining == 0)
            collective_finish (tp, c, sim->now, sim);
    }
    weft_sim_work_done (sim);
}

void
weft_transport_flow_failed (WeftTransport *tp, WeftFlow *f, WeftSim *sim)
{
    f->failed = TRUE;
    if (!tp->failed) {
        tp->failed = f;
        tp->failed_ps = sim->now;
    }
    weft_sim_workload_failed (sim);
}

typedef struct {
    const WeftGraph *g;
    guint32 link;
    gboolean crosses;
} CrossVisit;

static void
cross_visit (guint32 node, guint32 port, void *data)
{
    CrossVisit *cv = data;
    cv->crosses |= g_array_index (weft_graph_node (cv->g, node)->ports, guint32, port) == cv->link;
}

guint
weft_transport_device_lost (WeftTransport *tp, guint32 link, guint32 nic, const char *cause,
                            WeftSim *sim)
{
    tp->lost_nic = nic;
    tp->lost_cause = cause;
    tp->lost_ps = sim->now;
    WeftFlow *first = NULL;
    guint crossing = 0;
    for (guint i = 0; i < tp->n_flows; i++) {
        WeftFlow *f = &tp->flows[i];
        if (f->finished || f->failed || f->unused ||
            (tp->finished_remote && tp->finished_remote (f, tp->cross_data)))
            continue;
        CrossVisit cv = { tp->graph, link, FALSE };
        weft_transport_walk (tp, f, f->spec.src, f->dst_ep, FALSE, cross_visit, &cv);
        if (!cv.crosses)
            continue;
        f->device_lost = TRUE;
        crossing++;
        /* Across ranks: whether it is under way is its sender's rank's to say (it alone knows
         * whether it started, and hears of its finish on another rank). */
        if (!weft_sim_owns (sim, f->sender->owner->node))
            continue;
        /* Under way: its own data is, or its collective has begun, whose later steps NCCL's
         * proxy has already posted receives for and is polling (ncclIbTest), so the error is
         * seen at once. */
        gboolean busy =
            f->started || (f->spec.coll != G_MAXUINT32 && tp->colls[f->spec.coll].started &&
                           !tp->colls[f->spec.coll].finished);
        if (busy && !first)
            first = f;
    }
    if (first)
        weft_transport_flow_failed (tp, first, sim);
    return crossing;
}

weft_time_t
weft_transport_rc_timeout_ps (guint exponent)
{
    g_return_val_if_fail (exponent < 32, WEFT_TIME_NEVER);
    return exponent == 0 ? WEFT_TIME_NEVER : WEFT_NS (4096) << exponent;
}

void
weft_transport_flow_started (WeftTransport *tp, WeftFlow *f, weft_time_t now)
{
    f->started = TRUE;
    f->start_ps = now;
    f->active_slot = tp->active->len;
    g_array_append_val (tp->active, f->spec.id);
}

/* The flow records and their side arrays, zeroed, for @n flows of @size bytes: ordinary pages
 * from the heap (glibc maps a large block fresh and does not clear it again).  Not huge pages:
 * each record is written at setup and read for a few microseconds of the run, so 2 MiB pages
 * spare no measurable TLB misses, and on virtual machines that hand free memory back to the host
 * (free page reporting, which works on the large free blocks huge pages are cut from) a fresh
 * huge page is backed again page by page as the kernel zeroes it: the flagship sweep spent
 * 1.3 s more system time on its 728 MB of records, and its setup's system time varied from 0.3
 * to 2.1 s (bench/README.md, "The flow records back on ordinary pages").  No result depends on
 * a record's address. */
static void *
flow_array_new (guint n, gsize size)
{
    return g_malloc0_n (MAX (n, 1), size);
}

/* Every flow's spec into its record, the last first: the specs' block shrinks behind the copy
 * a mebibyte at a time (glibc returns the tail of a large block to the system), so the process
 * never holds all specs and all records at once; @specs is left empty. */
#define SPECS_SHRINK_STEP (1u << 14)
static void
take_specs (WeftTransport *tp, GArray *specs)
{
    gsize n = 0;
    WeftFlowSpec *block = (WeftFlowSpec *) g_array_steal (specs, &n);
    for (gsize i = n; i-- > 0;) {
        tp->flows[i].spec = block[i];
        if (i % SPECS_SHRINK_STEP == 0 && i > 0)
            block = g_realloc (block, i * sizeof *block);
    }
    g_free (block);
}

gboolean
weft_transport_setup (WeftTransport *tp, GArray *specs, const GArray *deps, const GArray *colls,
                      const GArray *gates, const WeftPathEnv *env, const WeftExperiment *exp,
                      GError **error)
{
    const WeftGraph *g = tp->graph;
    guint64 mtu = tp->fabric->mtu, hdr = tp->fabric->header;
    tp->n_flows = specs->len;
    tp->active = g_array_new (FALSE, FALSE, sizeof (guint32));
    tp->flows = flow_array_new (tp->n_flows, sizeof (WeftFlow));
    take_specs (tp, specs);
    /* The walks' answers, remembered per pair (models/pathcache.h); not where routing is
     * adaptive or packets are sprayed, where no walk is the packets' path. */
    weft_path_cache_free (tp->paths);
    tp->paths = tp->fabric->routing != WEFT_ROUTING_ADAPTIVE && tp->spray == NULL
                    ? weft_path_cache_new (tp->n_flows)
                    : NULL;
    /* Per-fabric state only where it can be touched: IB CC's where it is on, DCQCN's where CNPs or
     * CE marks can arrive, Ultra Ethernet's (EVs, RUD, NSCC, RCCC) where packets are sprayed or UE
     * runs. */
    if (tp->fabric->ibcc.enabled)
        tp->ibcc_flows = flow_array_new (tp->n_flows, sizeof (WeftIbccFlow));
    if (tp->fabric->dcqcn.enabled || tp->fabric->ecn.enabled)
        tp->dcqcn_flows = flow_array_new (tp->n_flows, sizeof (WeftDcqcnFlow));
    if (tp->uet || tp->spray)
        tp->uet_flows = flow_array_new (tp->n_flows, sizeof (WeftUetFlow));
    /* Out-of-order placement where packets are placed out of order (adaptive routing, selective
     * repeat, spraying) and reordering counted (Ultra Ethernet's RUD). */
    if (tp->accept_ooo || tp->uet)
        tp->ooo_flows = flow_array_new (tp->n_flows, sizeof (WeftOooFlow));
    if (!tp->rc) /* RFC 6298's timeout (models/nic.c, rtt_sample) */
        tp->rtt_flows = flow_array_new (tp->n_flows, sizeof (WeftRttFlow));
    for (guint i = 0; i < tp->n_flows; i++) {
        WeftFlow *f = &tp->flows[i];
        f->cc = tp->ibcc_flows ? &tp->ibcc_flows[i] : NULL;
        f->dcqcn = tp->dcqcn_flows ? &tp->dcqcn_flows[i] : NULL;
        f->uet = tp->uet_flows ? &tp->uet_flows[i] : NULL;
        f->ooo = tp->ooo_flows ? &tp->ooo_flows[i] : NULL;
        g_assert (f->spec.id == i);
        f->src_ep = weft_graph_node (g, f->spec.src)->endpoint;
        f->dst_ep = weft_graph_node (g, f->spec.dst)->endpoint;
        /* Each flow is its own queue pair with its own UDP source port (RoCEv2 entropy). */
        guint64 sport = 49152 + weft_mix64 (tp->seed ^ (0xf10 + (guint64) i)) % 16384;
        guint64 tuple = ((guint64) f->spec.src << 32 | f->spec.dst) ^ (sport << 16);
        f->hash = (guint32) weft_mix64 (tuple);
        guint64 n = (f->spec.size_bytes + mtu - 1) / mtu;
        if (n > G_MAXUINT32)
            return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_RANGE, "fabric", "mtu",
                                         "flow %u needs more than 2^32 packets", i);
        f->n_pkts = (guint32) n;
        f->last_payload = (guint32) (f->spec.size_bytes - (n - 1) * mtu);

        guint32 first_wire = (guint32) (MIN (mtu, f->spec.size_bytes) + hdr);
        guint64 min_rate = G_MAXUINT64;
        gboolean nic_path = FALSE;
        weft_time_t fwd = path_latency (tp, env, f, f->spec.src, f->dst_ep, first_wire, &min_rate,
                                        &f->feed_bps, &nic_path);
        f->nic_path = (guint8) nic_path;
        weft_time_t back = path_latency (tp, env, f, f->spec.dst, f->src_ep,
                                         (guint32) tp->fabric->ack_bytes, NULL, NULL, NULL);
        if (fwd == WEFT_TIME_NEVER || back == WEFT_TIME_NEVER)
            return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_NODE, "topology", NULL,
                                         "flow %u from %s to %s has no route in one direction", i,
                                         weft_graph_node (g, f->spec.src)->name,
                                         weft_graph_node (g, f->spec.dst)->name);
        /* Ideal: the first packet crosses every hop, the rest stream at the bottleneck. */
        guint64 wire_total = f->spec.size_bytes + n * hdr;
        if (f->spec.efficiency > 0) /* paced where it leaves (models/nic.c) */
            min_rate = (guint64) (f->spec.efficiency * (double) min_rate);
        /* Across the fabric the NICs add their processing (models/nic.h): the sender's once
         * per message, the receiver's to every packet - the data and, back at the sender, its
         * ACK. */
        const WeftNicConfig *nic = &tp->fabric->nic;
        weft_time_t tx = f->nic_path ? nic->tx_latency_ps : 0;
        weft_time_t rx = f->nic_path ? nic->rx_latency_ps : 0;
        f->ideal_fct_ps = tx + fwd + weft_time_serialize (wire_total - first_wire, min_rate) + rx;
        f->base_rtt_ps = fwd + back + 2 * rx;
        tp->net_rtt_ps = MAX (tp->net_rtt_ps, f->base_rtt_ps);
        guint64 full_wire = mtu + hdr;
        if (tp->window_bytes > 0) {
            f->window_pkts = (guint32) MAX (1, (tp->window_bytes + mtu - 1) / mtu);
            /* No delayed-ACK timer: with fewer than ack_every packets out, the receiver
             * would wait for packets the sender may not send. */
            if (f->window_pkts < tp->ack_every && f->n_pkts > f->window_pkts)
                return weft_experiment_fail (
                    exp, error, WEFT_CONFIG_ERROR_RANGE, "transport", "window",
                    "holds %u packets, fewer than ack_every = %" G_GUINT64_FORMAT
                    ": the receiver would wait for packets the sender may not send",
                    f->window_pkts, tp->ack_every);
        } else if (weft_fabric_rdma (tp->fabric)) {
            f->window_pkts = G_MAXUINT32;
        } else {
            /* Packets the bottleneck sends in one base RTT, plus one. */
            unsigned __int128 bits = (unsigned __int128) f->base_rtt_ps * min_rate;
            guint64 bdp_bytes = (guint64) (bits / (8 * WEFT_PS_PER_S));
            /* Coalesced ACKs come up to ack_every - 1 packets later. */
            f->window_pkts =
                (guint32) MIN (G_MAXUINT32, bdp_bytes / full_wire + 2 + (tp->ack_every - 1));
        }
        f->rto = tp->rc ? tp->rc_timeout_ps : MAX (tp->rto_initial, tp->rto_min);
        if (f->cc)
            f->cc->ccti = (guint32) tp->fabric->ibcc.ccti_min;
        f->vl = tp->fabric->kind == WEFT_FABRIC_INFINIBAND ? tp->fabric->ib.sl2vl[f->spec.sl] : 0;
    }
    setup_dependencies (tp, deps, colls, gates);
    return TRUE;
}

void
weft_transport_clear (WeftTransport *tp)
{
    for (guint i = 0; i < tp->n_flows; i++) {
        g_free (tp->flows[i].loss);
        if (tp->flows[i].ooo)
            g_free (tp->flows[i].ooo->bits);
        if (tp->flows[i].uet)
            weft_uet_flow_clear (tp->flows[i].uet);
    }
    g_clear_pointer (&tp->flows, g_free);
    g_clear_pointer (&tp->ibcc_flows, g_free);
    g_clear_pointer (&tp->dcqcn_flows, g_free);
    g_clear_pointer (&tp->uet_flows, g_free);
    g_clear_pointer (&tp->ooo_flows, g_free);
    g_clear_pointer (&tp->rtt_flows, g_free);
    g_clear_pointer (&tp->active, g_array_unref);
    g_clear_pointer (&tp->dep_first, g_free);
    g_clear_pointer (&tp->dep_list, g_free);
    g_clear_pointer (&tp->ready_ps, g_free);
    g_clear_pointer (&tp->colls, g_free);
    g_clear_pointer (&tp->gated_first, g_free);
    g_clear_pointer (&tp->gated, g_free);
    if (tp->paths)
        g_debug ("path cache: %" G_GUINT64_FORMAT " hits, %" G_GUINT64_FORMAT
                 " walks, %" G_GUINT64_FORMAT
                 " left to the caller (by hash), %u slots of %" G_GSIZE_FORMAT " bytes",
                 tp->paths->hits, tp->paths->misses, tp->paths->by_hash,
                 weft_path_cache_slots (tp->paths), sizeof (WeftPathEntry));
    g_clear_pointer (&tp->paths, weft_path_cache_free);
    tp->n_colls = 0;
    tp->n_flows = 0;
}

gsize
weft_transport_flow_bytes (const WeftTransport *tp)
{
    return sizeof (WeftFlow) + (tp->ibcc_flows ? sizeof (WeftIbccFlow) : 0) +
           (tp->dcqcn_flows ? sizeof (WeftDcqcnFlow) : 0) +
           (tp->uet_flows ? sizeof (WeftUetFlow) : 0) + (tp->ooo_flows ? sizeof (WeftOooFlow) : 0) +
           (tp->rtt_flows ? sizeof (WeftRttFlow) : 0);
}

typedef struct {
    WeftTransport *tp;
    guint32 flow, hop;
} TraceHop;

static void
trace_hop (guint32 node, guint32 port, void *data)
{
    TraceHop *th = data;
    const WeftNode *n = weft_graph_node (th->tp->graph, node);
    WeftTracePathHop row = { .flow = th->flow,
                             .hop = th->hop++,
                             .node = node,
                             .port = port + 1,
                             .link = g_array_index (n->ports, guint32, port) };
    weft_trace_append_path_hop (th->tp->trace, &row);
}

void
weft_transport_trace_flow (WeftTransport *tp, const WeftFlow *f)
{
    if (!tp->trace)
        return;
    WeftTraceFlow row;
    weft_transport_flow_row (tp, f, &row);
    weft_trace_append_flow (tp->trace, &row);
    /* Its path, when the flow has one: ECMP and static tables pick per flow. */
    if (tp->fabric->routing != WEFT_ROUTING_ADAPTIVE &&
        !(tp->spray && tp->spray->load_balance != WEFT_UET_LB_ECMP)) {
        const WeftPathEntry *e =
            weft_transport_cached_walk (tp, f->hash, f->spec.src, f->dst_ep, FALSE);
        if (e == NULL) {
            TraceHop th = { tp, f->spec.id, 0 };
            weft_transport_walk (tp, f, f->spec.src, f->dst_ep, FALSE, trace_hop, &th);
            return;
        }
        for (guint i = 0; i < e->n_hops; i++) {
            WeftTracePathHop hop = { .flow = f->spec.id,
                                     .hop = i,
                                     .node = e->hops[i].node,
                                     .port = e->hops[i].port + 1,
                                     .link = e->hops[i].link };
            weft_trace_append_path_hop (tp->trace, &hop);
        }
    }
}

void
weft_transport_flow_row_sender (WeftTraceFlow *row, const WeftTraceFlow *sender)
{
    row->start_ps = sender->start_ps;
    /* less the part of tx_latency the sender's NIC spent before the start (models/nic.c) */
    row->ideal_fct_ps = sender->ideal_fct_ps;
    row->retransmits = sender->retransmits;
    row->timeouts = sender->timeouts;
    row->cnps_received = sender->cnps_received;
    row->rate_cuts = sender->rate_cuts;
    row->min_rate_bps = sender->min_rate_bps;
    row->nacks = sender->nacks;
    row->evs_used = sender->evs_used;
    row->window_decreases = sender->window_decreases;
    row->quick_adapts = sender->quick_adapts;
    if (row->finished) {
        row->fct_ps = row->finish_ps - row->start_ps;
        row->slowdown = row->ideal_fct_ps ? (double) row->fct_ps / (double) row->ideal_fct_ps : 0;
    }
}

void
weft_transport_flow_row (const WeftTransport *tp, const WeftFlow *f, WeftTraceFlow *out)
{
    WeftTraceFlow row = { 0 };
    row.id = f->spec.id;
    row.src = f->spec.src;
    row.dst = f->spec.dst;
    row.size_bytes = f->spec.size_bytes;
    row.start_ps = f->started ? f->start_ps : f->spec.start_ps;
    row.ideal_fct_ps = f->ideal_fct_ps;
    row.packets = f->n_pkts;
    row.retransmits = weft_flow_loss_of (f)->retransmits;
    row.bytes_delivered = f->delivered;
    row.finished = f->finished;
    if (f->finished) {
        row.finish_ps = f->finish_ps;
        row.fct_ps = f->finish_ps - f->start_ps;
        row.slowdown = f->ideal_fct_ps ? (double) row.fct_ps / (double) f->ideal_fct_ps : 0;
    }
    if (tp->workload_names && f->spec.group < tp->workload_names->len)
        g_strlcpy (row.workload, tp->workload_names->pdata[f->spec.group], sizeof row.workload);
    if (f->dcqcn) {
        row.ecn_marked = f->dcqcn->ce_received;
        row.cnps_sent = f->dcqcn->cnps_sent;
        row.cnps_received = f->dcqcn->cnps_received;
        row.rate_cuts = f->dcqcn->cuts;
        row.min_rate_bps = tp->fabric->dcqcn.enabled ? f->dcqcn->min_rc_bps : 0;
    }
    if (f->ooo) {
        const WeftOooFlow *o = f->ooo;
        row.reorder_max = o->reorder_max;
        row.reorder_count = o->reorder_count;
        row.reorder_mean =
            o->reorder_count ? (double) o->reorder_sum / (double) o->reorder_count : 0;
    }
    row.timeouts = weft_flow_loss_of (f)->timeouts;
    if (tp->uet)
        weft_uet_trace_flow (f->uet, &row);
    *out = row;
}

/* ---- the mechanism (models/registry.h) ------------------------------------------------- */

/* The timeout keys of the fabric's transport: the other kind's would be silently ignored. */
static gboolean
refuse_other_timeout_keys (const WeftTransport *tp, const WeftFabric *fabric,
                           const WeftExperiment *exp, GError **error)
{
    static const char *const rfc6298[] = { "rto_min", "rto_initial", "rto_max", NULL };
    static const char *const rc[] = { "rc_timeout", "rc_retry_cnt", NULL };
    GKeyFile *kf = weft_experiment_keyfile (exp);
    for (const char *const *k = tp->rc ? rfc6298 : rc; *k; k++) {
        if (!g_key_file_has_key (kf, "transport", *k, NULL))
            continue;
        if (tp->rc)
            return weft_experiment_fail (
                exp, error, WEFT_CONFIG_ERROR_UNKNOWN_KEY, "transport", *k,
                "not used with [fabric] kind = %s: its reliable connections time out after "
                "4.096 us x 2^rc_timeout and give up after rc_retry_cnt retries",
                weft_fabric_kind_name (fabric->kind));
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_UNKNOWN_KEY, "transport", *k,
                                     "used only on InfiniBand and RoCE: Ethernet's transport "
                                     "times out as RFC 6298 has it (rto_min, rto_initial, "
                                     "rto_max)");
    }
    return TRUE;
}

static gboolean
transport_configure (WeftMechEnv *env, const WeftExperiment *exp, GError **error)
{
    WeftTransport *tp = env->tp;
    WeftParamBinding b = { weft_transport_params, tp };
    if (!weft_params_read (exp, "transport", &b, 1, error))
        return FALSE;
    /* RDMA NICs (InfiniBand HCAs, RoCE NICs) run reliable connections with the hardware's
     * timer; the Ethernet baseline is a TCP-like transport. */
    tp->rc = weft_fabric_rdma (env->fabric);
    tp->rc_timeout_ps = weft_transport_rc_timeout_ps ((guint) tp->rc_timeout);
    return refuse_other_timeout_keys (tp, env->fabric, exp, error);
}

/* Out-of-order placement (adaptive routing, selective repeat): said only when it happened. */
static void
transport_count (const WeftMechEnv *env, WeftNetworkStats *st)
{
    for (guint i = 0; env->tp->ooo_flows && i < env->tp->n_flows; i++) {
        const WeftOooFlow *o = &env->tp->ooo_flows[i];
        st->reorder_count += o->reorder_count;
        st->reorder_max = MAX (st->reorder_max, o->reorder_max);
    }
}

static void
transport_summary (const WeftMechEnv *env, const WeftNetworkStats *st, GString *out)
{
    if (st->reorder_count)
        g_string_append_printf (out,
                                "  reordering   %" G_GUINT64_FORMAT " packets placed out of "
                                "order, at most %" G_GUINT64_FORMAT " ahead\n",
                                st->reorder_count, st->reorder_max);
}

/* /flows keeps each flow's farthest out-of-order arrival (not the count). */
static void
transport_report (const WeftFabric *fabric, const WeftTraceTables *t, GString *out)
{
    guint64 max = 0;
    for (guint i = 0; t->flows && i < t->flows->len; i++)
        max = MAX (max, g_array_index (t->flows, WeftTraceFlow, i).reorder_max);
    if (max)
        g_string_append_printf (
            out,
            "  reordering   packets placed out of order, at most %" G_GUINT64_FORMAT " ahead\n",
            max);
}

static void
transport_clear (WeftMechEnv *env)
{
    weft_params_clear (weft_transport_params, env->tp);
}

const WeftMechanism weft_transport_mechanism = {
    .name = "transport",
    .group = "transport",
    .help = "reliable transport at the hosts' NICs",
    .params = weft_transport_params,
    .fabrics = WEFT_FABRICS_ALL,
    .configure = transport_configure,
    .count = transport_count,
    .summary = transport_summary,
    .report = transport_report,
    .clear = transport_clear,
};
