/* topologies/railopt.h - rail-optimised fat trees of DGX-class servers (NVIDIA SuperPOD style).
 *
 * Scalable units (SU) of servers_per_su server slots; NIC r of every server of an SU is cabled
 * to the SU's rail-r leaf (one leaf per SU and rail, rails = [server] nics).  Leaves have
 * `radix` ports: slot k of the SU on port k (empty when the server is missing: partial SUs keep
 * every leaf and all leaf-spine cabling; the leaf's down_ports stays servers_per_su), then the
 * uplinks.  Oversubscription is a ratio of down to up ports: a leaf with D down ports has
 * D / leaf_oversubscription uplinks, which must be a whole number (3:1 with 32 down is refused,
 * naming 2:1 and 4:1).
 *
 * Two tiers: every leaf joins every spine (spine_grouping = full_mesh) with the same number of
 * parallel cables; spines use every port for leaves, so spines = leaves x uplinks / radix
 * (1 SU: 8 leaves, 4 spines, 8 cables per pair; 8 SU: 64 and 32, one cable).
 * Three tiers: leaves are grouped into pods, a pod being one SU (full_mesh) or one rail across
 * all SUs (per_rail: same-rail traffic between SUs then stays at the spines, 3 switch hops
 * instead of 5); spines have D2 down and D2 / spine_oversubscription up ports; spine j of every
 * pod joins the j-th group of cores (16 SU, 1:1: 128 leaves, 128 spines, 64 cores).
 * Names: suS-railR-leaf (tier 1, su S, rail R), spineN (tier 2), coreN (tier 3); servers and
 * their parts as in topologies/server.h.  Leaves are created SU-major (full_mesh) or rail-major
 * (per_rail), so NIC columns are numbered pod by pod and D-mod-k stays balanced.
 *
 * Layout (layout = rail | tor): rail is the above.  tor cables all R NICs of a server to one
 * leaf, a top-of-rack switch per group of S / R server slots (S a multiple of R): leaf t of an
 * SU takes slots t x S / R .. (t + 1) x S / R - 1, NIC r of the server in slot k on port
 * (k mod (S / R)) x R + r.  Everything else is the same - leaf and spine counts, ports,
 * uplinks, cabling above the leaves, the leaves' names (suS-railR-leaf is then the SU's R-th
 * top-of-rack switch), so a fault on a leaf names the same switch position in both layouts
 * and "rail-optimised or not" is one key.  In tor, traffic between two servers of different
 * groups crosses the spines whatever the rails; in rail, traffic on one rail stays on its leaf.
 */
#ifndef WEFT_TOPOLOGIES_RAILOPT_H
#define WEFT_TOPOLOGIES_RAILOPT_H

#include "sim/graph.h"
#include "topologies/server.h"

typedef enum { WEFT_SPINE_FULL_MESH, WEFT_SPINE_PER_RAIL } WeftSpineGrouping;
typedef enum { WEFT_LAYOUT_RAIL, WEFT_LAYOUT_TOR } WeftServerLayout;

typedef struct {
    guint64 sus, servers_per_su, servers, radix, tiers;
    int spine_grouping; /* WeftSpineGrouping */
    int layout;         /* WeftServerLayout */
    double leaf_oversubscription, spine_oversubscription;
    guint64 spine_link_rate_bps, core_link_rate_bps;
    weft_time_t link_delay_ps;
    double leaf_cable_length_m, spine_cable_length_m, core_cable_length_m;
} WeftRailOptParams;

typedef struct {
    guint64 k;
    guint64 link_rate_bps;
    weft_time_t link_delay_ps;
    double cable_length_m;
} WeftFatTreeParams;

/** Rail-optimised two- or three-tier fabric (tiers = 0: the fewest that fit).  Errors:
 * WEFT_TOPO_ERROR_PARAM, "[topology] KEY: ... expected ..." or "[server] KEY: ...". */
WeftGraph *weft_topology_railopt (const WeftRailOptParams *p, const WeftServerParams *server,
                                  GError **error);

/** k-ary fat tree (Al-Fares): k pods of k/2 edge (podP-edgeE) and k/2 aggregation (podP-aggA)
 * switches, (k/2)^2 cores (coreN), k^3/4 hosts host0.. (k/2 per edge switch).  Aggregation
 * switch A of each pod joins cores A*k/2 .. A*k/2 + k/2 - 1.  k = 4: 16 hosts, 20 switches,
 * 48 links. */
WeftGraph *weft_topology_fattree (const WeftFatTreeParams *p, GError **error);

/* The counts of the graph weft_topology_railopt / weft_topology_fattree would build (sim/graph.h
 * WeftGraphSize), from the parameters alone; the same errors. */
gboolean weft_topology_railopt_size (const WeftRailOptParams *p, const WeftServerParams *server,
                                     WeftGraphSize *out, GError **error);
gboolean weft_topology_fattree_size (const WeftFatTreeParams *p, WeftGraphSize *out,
                                     GError **error);

/* Checks that @down ports at ratio @ratio give a whole number of uplinks (stored in *up);
 * otherwise sets an error for "[topology] @key" naming the nearest ratios that fit in @radix. */
gboolean weft_topology_taper (double ratio, guint64 down, guint64 radix, const char *key,
                              guint64 *up, GError **error);

#endif /* WEFT_TOPOLOGIES_RAILOPT_H */
