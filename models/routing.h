/* models/routing.h - choosing an output port at a forwarding node.
 *
 * static: the topology's single route (D-mod-k or a loaded forwarding table).
 * ecmp:   a hash of the flow's entropy (its 5-tuple hash, fixed per flow, as a queue pair's
 *         UDP source port is) mixed with a per-switch seed, modulo the equal-cost set, so
 *         consecutive tiers do not make correlated choices (hash polarisation).
 * The same function serves the switches and the path walks done before the run (ideal FCT,
 * window sizing, hang reports), so both always agree.
 */
#ifndef WEFT_MODELS_ROUTING_H
#define WEFT_MODELS_ROUTING_H

#include "models/fabric.h"
#include "sim/graph.h"
#include "sim/rng.h"

/* Per-switch hash seed from the run seed and the node id. */
static inline guint64
weft_routing_seed (guint64 run_seed, guint32 node)
{
    return weft_mix64 (run_seed ^ weft_mix64 ((guint64) node + 0x5eed));
}

/* ECMP's member of the equal-cost set @set (@n ports) for flow entropy @hash, or
 * WEFT_GRAPH_NONE when the set is empty. */
static inline guint32
weft_routing_pick (const guint32 *set, guint n, guint64 switch_seed, guint32 hash)
{
    if (n == 0)
        return WEFT_GRAPH_NONE;
    if (n == 1)
        return set[0];
    return set[weft_mix64 (switch_seed ^ hash) % n];
}

/* Output port of @node toward endpoint @dst_ep for a packet of flow entropy @hash, or
 * WEFT_GRAPH_NONE when unreachable. */
static inline guint32
weft_routing_choose (const WeftGraph *g, int routing, guint64 switch_seed, guint32 node,
                     guint32 dst_ep, guint32 hash)
{
    if (routing == WEFT_ROUTING_STATIC)
        return weft_graph_route_static (g, node, dst_ep);
    guint n;
    const guint32 *set = weft_graph_route_set (g, node, dst_ep, &n);
    return weft_routing_pick (set, n, switch_seed, hash);
}

#endif /* WEFT_MODELS_ROUTING_H */
