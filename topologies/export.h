/* topologies/export.h - a fabric graph as text for other tools and for people: Graphviz DOT,
 * JSON (nodes and links with every attribute), and the static route between two nodes with
 * the equal-cost choices at each hop.  `weft topo --format dot|json` and `--routes` print them.
 *
 * Ports are numbered from 1 in all three, as InfiniBand numbers them (the graph counts from 0).
 */
#ifndef WEFT_TOPOLOGIES_EXPORT_H
#define WEFT_TOPOLOGIES_EXPORT_H

#include <glib.h>

#include "sim/graph.h"

/** Appends @g as an undirected Graphviz graph: one node per graph node (its shape by kind),
 * one edge per link labelled with its rate and its port numbers at both ends, dashed when the
 * link is not a fabric link (NVLink, PCIe). */
void weft_topo_export_dot (GString *out, const WeftGraph *g);

/** Appends @g as one JSON object {"nodes": [...], "links": [...]}: per node its id, name,
 * kind, tier, server, su, rail, port count and endpoint index (-1 if none); per link its id,
 * ends, ports, rate, delay, cable length and kind. */
void weft_topo_export_json (GString *out, const WeftGraph *g);

/** Appends @g as a topology file (topologies/file.h) that loads back to the same graph: every
 * node with its kind, port count, tier, server, SU, rail and endpoint flag, then every link
 * with both ports, its rate in bits/s, its delay in ps and its kind (cable lengths are not
 * kept: the delay already includes them).  Edit it to degrade one cable, say, and load it with
 * [topology] generator = file. */
void weft_topo_export_file (GString *out, const WeftGraph *g);
/** Appends the static path from node @a to endpoint node @b ("A -> B: N links, S switch hops;
 * static path, ...", then one line per forwarding node with its output port and, when there
 * are several, its equal-cost ports, the first 16 of them), or "A -> B: unreachable".  @b must
 * be an endpoint (weft_graph_node (g, b)->endpoint != WEFT_GRAPH_NONE); the routes must have
 * been computed. */
void weft_topo_print_route (GString *out, const WeftGraph *g, guint32 a, guint32 b);

#endif /* WEFT_TOPOLOGIES_EXPORT_H */
