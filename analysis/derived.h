/* analysis/derived.h - figures derived from a run's rows that experiments promise in their
 * comments and tests used to compute on their own (`weft report`, doc/analysis.md):
 *
 * - the max-min fair total over the paths the flows took (/paths: ECMP's hashed or static
 *   routes): water-filling, each egress port a resource of its link's rate times the payload
 *   share of a full packet, each flow limited by the egresses on its path; the yardstick for
 *   what a fabric delivers when hash collisions, not the fabric's capacity, set the rates;
 * - a flow's rate: payload delivered over the time it ran (to its finish, or to the end of
 *   the run if it did not finish), as a victim flow's figure;
 * - Jain's fairness index over chosen flows' rates, (sum x)^2 / (n sum x^2) (R. Jain, D. Chiu,
 *   W. Hawe, "A Quantitative Measure of Fairness and Discrimination for Resource Allocation in
 *   Shared Computer Systems", DEC-TR-301, 1984): 1 when all are equal, 1/n when one has it all.
 *
 * Flows are chosen by a selector (weft_derived_select()).  What is left out: the max-min
 * allocation ignores flow sizes and start times (every routed flow is taken as backlogged for
 * the whole run) and the ACKs' share of the reverse direction.
 */
#ifndef WEFT_ANALYSIS_DERIVED_H
#define WEFT_ANALYSIS_DERIVED_H

#include <glib.h>

#include "sim/trace_schema.h"

/** The max-min fair rates (payload, bit/s) of the flows of @flows that have hops in @hops,
 * water-filled over the egresses (node, port) of those hops, each of capacity its link's
 * rate (@links, by id) x @payload_fraction.  Returns their sum and sets *@n_routed to how many
 * flows it is over; NAN (and 0) when no flow has a path or a hop names an unknown link. */
double weft_derived_maxmin_bps (const WeftTraceFlow *flows, guint n_flows,
                                const WeftTracePathHop *hops, guint n_hops,
                                const WeftTraceLink *links, guint n_links, double payload_fraction,
                                guint *n_routed);

/** @f's rate: bytes delivered x 8 over its finish (or @end_ps when unfinished) minus its
 * start; 0 when that time is 0. */
double weft_derived_rate_bps (const WeftTraceFlow *f, guint64 end_ps);

/** Jain's index of @n values (n > 0 and not all 0), else NAN. */
double weft_derived_jain (const double *x, gsize n);

/** The rows of @flows (indices, appended to @out as guint) that @selector chooses: a
 * comma-separated list of items, each a flow id (`17`), a range of ids (`3-9`), `workload:NAME`
 * (the flows of `[workload.NAME]`) or `SRC>DST`, node names or glob patterns (`*`, `?`) of
 * sender and receiver looked up in @nodes (`host3>host7`, `host*>host4`).  A row is chosen
 * once, in row order.  FALSE with WEFT_CONFIG_ERROR_VALUE naming the item when an item does
 * not parse or chooses no flow. */
gboolean weft_derived_select (const WeftTraceFlow *flows, guint n_flows, const WeftTraceNode *nodes,
                              guint n_nodes, const char *selector, GArray *out, GError **error);

#endif /* WEFT_ANALYSIS_DERIVED_H */
