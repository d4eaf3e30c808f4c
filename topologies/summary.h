/* topologies/summary.h - what a generated fabric is, counted from its nodes, ports and links
 * (never echoed from the generator's parameters): servers, GPUs, NICs, switches and cables
 * per tier, radix use, oversubscription per switch tier, bisection bandwidth, the size of the
 * route tables and the switch hops between typical GPU pairs.  `weft topo` prints it.
 *
 * Tiers: 0 for every node that is not a fabric switch (hosts, GPUs, NICs, ...), a switch's
 * own tier (1 leaf, 2 spine, 3 core) otherwise, clamped to 1..3.
 *
 * Oversubscription of a switch tier is down-bandwidth : up-bandwidth summed over its
 * switches' fabric ports.  The designed ratio counts every port meant for the tier below (the
 * node's down_ports), cabled or not, at the mean rate of the tier's cabled down links; a
 * partial scalable unit leaves server ports empty while its leaves keep all their uplinks, so
 * the populated ratio (cabled ports only) is shown beside it when the two differ.
 *
 * The bisection bandwidth is an estimate for symmetric trees: half the smallest fabric
 * capacity between two adjacent tiers.  Hop counts follow the static routes
 * (weft_graph_route_path), so the graph's routes must have been computed.
 *
 * Cost: one pass over nodes and links, plus one route walk per GPU pair (at most five).
 */
#ifndef WEFT_TOPOLOGIES_SUMMARY_H
#define WEFT_TOPOLOGIES_SUMMARY_H

#include <glib.h>

#include "sim/graph.h"

#define WEFT_TOPO_TIERS 4 /* 0 endpoints, 1 leaves, 2 spines, 3 cores */
#define WEFT_TOPO_HOP_PAIRS 5

/* One switch tier's ports toward the tier below and its bandwidth up and down. */
typedef struct {
    guint64 designed;                     /* ports meant for the tier below, cabled or not */
    guint64 cabled;                       /* of those, cabled */
    double down_bps, up_bps;              /* fabric bandwidth toward the tiers below and above */
    guint64 first_designed, first_cabled; /* the tier's first switch's counts */
    gboolean uniform;                     /* every switch of the tier has the first one's counts */
    /* down:up as designed and as populated; 0 when the tier has no uplinks (the top) or no
     * cabled down port */
    double designed_ratio, populated_ratio;
} WeftTopoTier;

/* The static path between two GPUs of a typical placement. */
typedef struct {
    const char *label; /* "same server:", "same rail, same SU:", ... */
    guint32 a, b;      /* node ids; WEFT_GRAPH_NONE when the fabric has no such pair */
    guint switch_hops; /* fabric switches crossed; G_MAXUINT when unreachable */
    guint links;       /* links crossed */
} WeftTopoHopPair;

typedef struct {
    guint nodes_of_kind[WEFT_NODE_KIND_COUNT];
    guint servers; /* highest server index + 1; 0 without servers */
    gboolean gpudirect;
    guint switches[WEFT_TOPO_TIERS];     /* per tier (0 unused) */
    guint64 ports[WEFT_TOPO_TIERS];      /* the tier's switch ports, empty ones included */
    guint64 ports_used[WEFT_TOPO_TIERS]; /* of those, cabled */
    WeftTopoTier tier[WEFT_TOPO_TIERS];
    guint n_links, links_of_kind[WEFT_LINK_KIND_COUNT];
    guint cables[WEFT_TOPO_TIERS][WEFT_TOPO_TIERS]; /* fabric links between tiers a <= b */
    double cross_bps[WEFT_TOPO_TIERS];              /* fabric bandwidth between tiers t and t + 1 */
    double bisection_bps;                           /* 0 without any tier boundary */
    gsize routes_bytes;
    WeftTopoHopPair pairs[WEFT_TOPO_HOP_PAIRS]; /* meaningful when nodes_of_kind[GPU] > 0 */
} WeftTopoSummary;

/** Fills @s from @g (whose routes are computed).  The pairs' labels are static strings. */
void weft_topo_summary_compute (const WeftGraph *g, WeftTopoSummary *s);

/** Appends to @out the summary of @g as `weft topo` prints it, under the line @title. */
void weft_topo_summary_print (GString *out, const WeftGraph *g, const char *title);

#endif /* WEFT_TOPOLOGIES_SUMMARY_H */
