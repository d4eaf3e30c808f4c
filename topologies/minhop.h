/* topologies/minhop.h - OpenSM's min-hop routing engine: static routes on minimal paths, with
 * the destinations spread over a switch's equal-cost ports by load.
 *
 * For every fabric switch, destinations are taken in endpoint order and each is routed out of
 * the equal-cost port that carries the fewest routes so far (ties: the lowest port), as
 * OpenSM's minhop balances its linear forwarding tables.  Only fabric switches and fabric
 * destinations (hosts, NICs) are balanced; a GPU follows its NIC's routes and the links
 * inside a server have one route each.  On fat trees every minimal path is an up/down path,
 * so these routes are also what the updn engine (topologies/updn.h) computes there; on
 * topologies with cycles minhop may turn up after going down, which updn never does.
 */
#ifndef WEFT_TOPOLOGIES_MINHOP_H
#define WEFT_TOPOLOGIES_MINHOP_H

#include "sim/graph.h"

/* Overrides the static routes of @g's fabric switches (after weft_graph_routes_compute). */
void weft_minhop_route (WeftGraph *g);

#endif /* WEFT_TOPOLOGIES_MINHOP_H */
