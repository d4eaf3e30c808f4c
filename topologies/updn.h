/* topologies/updn.h - OpenSM's up/down routing engine: static routes that never turn up after
 * going down, so that a fabric with cycles cannot deadlock on its credit loops.
 *
 * Ranks: the fabric switches (kind SWITCH, outside servers) are ranked by breadth-first
 * distance from root switches.  OpenSM picks the roots as the switches farthest from the
 * endpoints; here, when some switch has a tier (tiered generators set WeftNode.tier), the roots
 * are the switches of the top tier, and otherwise they are the switches whose nearest fabric
 * destination is farthest away.  A fabric component without a root is ranked from its lowest
 * switch id.  A hop from switch v to switch w goes up when (rank, id) of w is below that of v
 * (the node id breaks ties between equal ranks, as OpenSM's GUIDs do); a hop into the
 * destination always goes down.  A legal path is up* down*.
 *
 * Routes are destination-based, so a switch cannot tell whether a packet reached it on a down
 * hop.  For the whole table to stay legal, a switch that reaches the destination by down hops
 * alone routes on its shortest down-only paths, and any other switch goes up, toward the
 * switches that have such paths, on its shortest legal paths from there.  (A shorter path that
 * turns up-then-down from a switch with a down-only path is not taken: a packet arriving at that
 * switch on a down hop would then go up.)  Among the first hops so allowed, each switch takes
 * destinations in endpoint order and picks the port that carries the fewest routes so far, the
 * lowest port on ties, as topologies/minhop.h does.  On fat trees every minimal path is up/down
 * and the allowed hops are exactly the minimal ones, so the result equals minhop's.
 *
 * Only static choices change (weft_graph_route_set_static, which may leave the equal-cost set
 * on a fabric with cycles); the equal-cost sets that adaptive routing uses stay minimal.  Only
 * fabric switches and fabric destinations (hosts, NICs) are routed, as in minhop; transit
 * through forwarding nodes other than fabric switches is not considered.  A destination a
 * switch cannot reach legally keeps its previous static choice.
 */
#ifndef WEFT_TOPOLOGIES_UPDN_H
#define WEFT_TOPOLOGIES_UPDN_H

#include "sim/graph.h"

/* Overrides the static routes of @g's fabric switches (after weft_graph_routes_compute). */
void weft_updn_route (WeftGraph *g);

/* The up/down rank of every node (0 at the roots), WEFT_GRAPH_NONE for nodes that are not
 * fabric switches; n_nodes entries.  (transfer full: g_free) */
guint32 *weft_updn_ranks (const WeftGraph *g);

/* TRUE when a hop from fabric switch @from to fabric switch @to goes up under @ranks. */
gboolean weft_updn_is_up (const guint32 *ranks, guint32 from, guint32 to);

#endif /* WEFT_TOPOLOGIES_UPDN_H */
