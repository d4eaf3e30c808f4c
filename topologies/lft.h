/* topologies/lft.h - forwarding tables loaded from a file, so a user can replay a subnet
 * manager's linear forwarding tables (or build a deliberately odd route set).
 *
 * Format: one route per line, `SWITCH DESTINATION PORT`: node names as weft names them and the
 * output port numbered from 1 (as InfiniBand numbers ports); blank lines and lines starting
 * with '#' are ignored.  Each line overrides the static route of SWITCH toward DESTINATION
 * (an endpoint); routes not listed keep the topology's own static choice.  A port need not be
 * on a minimal path.  Only static routing (`[fabric] routing = static`) follows these routes.
 */
#ifndef WEFT_TOPOLOGIES_LFT_H
#define WEFT_TOPOLOGIES_LFT_H

#include "sim/graph.h"

/** Applies the routes of @path to @g.  Errors: WEFT_TOPO_ERROR_FILE "PATH:LINE: what is wrong"
 * (unreadable file, malformed line, unknown or non-forwarding switch, unknown or non-endpoint
 * destination, port out of range or unconnected). */
gboolean weft_lft_load (WeftGraph *g, const char *path, GError **error);

#endif /* WEFT_TOPOLOGIES_LFT_H */
