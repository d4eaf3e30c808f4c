/* topologies/file.h - topologies read from text files (forwarding tables: topologies/lft.h).
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

/** Reads a topology file.  (transfer full) */
WeftGraph *weft_topology_load_file (const char *path, GError **error);

#endif /* WEFT_TOPOLOGIES_FILE_H */
