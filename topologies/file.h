/* topologies/file.h - topologies and forwarding tables read from text files.
 *
 * Forwarding table (replaying a subnet manager's tables): one route per line,
 *     SWITCH DESTINATION PORT
 * node names as weft names them, ports numbered from 1 (as InfiniBand numbers them); '#'
 * starts a comment line; blank lines are ignored.  Each line overrides the static choice of
 * SWITCH toward endpoint DESTINATION (sim/graph.h: weft_graph_route_set_static); the port need
 * not be on a minimal path, so a table can make loops (the run's watchdog reports them).
 *
 * Topology file ([topology] generator = file, file = PATH): one statement per line,
 *     node NAME KIND [key=value]...     KIND: host switch gpu nic pcie-switch nvswitch cpu;
 *                                       keys: ports=N tier=N server=N su=N rail=N endpoint=1
 *     link A[:PORT] B[:PORT] RATE [DELAY] [kind=fabric|nvlink|pcie]
 * RATE and DELAY take units (400Gbps, 100ns; DELAY defaults to 0ps); ports from 1, or the next
 * free port when omitted.  Errors are WEFT_TOPO_ERROR_FILE, "PATH:LINE: what, expected what".
 */
#ifndef WEFT_TOPOLOGIES_FILE_H
#define WEFT_TOPOLOGIES_FILE_H

#include "sim/graph.h"

/** Applies a forwarding table to @g (routes must be computed). */
gboolean weft_topology_load_forwarding_table (WeftGraph *g, const char *path, GError **error);

/** Reads a topology file.  (transfer full) */
WeftGraph *weft_topology_load_file (const char *path, GError **error);

#endif /* WEFT_TOPOLOGIES_FILE_H */
