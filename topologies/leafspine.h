/* topologies/leafspine.h - the simple fabrics: one switch, a dumbbell, a two-tier leaf-spine.
 *
 * Pure generators: parameters in, a WeftGraph out (no routes: weft_topology_build computes
 * them).  Hosts are WEFT_NODE_HOST endpoints named host0..hostN-1, numbered so that the hosts of
 * one switch are consecutive (leaf-major, which D-mod-k needs to be balanced).
 *
 * Link delay, everywhere in topologies/: propagation = link_delay + cable_length x 5 ns/m
 * (light in fibre or copper covers about 0.2 m/ns).  link_delay stands for fixed PHY/FEC
 * latency or lets a test pin an exact delay with cable_length = 0m.
 *
 * single_switch: N hosts on switch sw0 (tier 1); host i on sw0 port i.
 * dumbbell:      left_hosts on sw0, right_hosts on sw1 (hosts numbered left first); sw0 and sw1
 *                (tier 1) joined by one bottleneck link on their last ports.
 * leafspine:     leaves leaf0.. (tier 1), spines spine0.. (tier 2); hosts_per_leaf hosts on each
 *                leaf (host i on leaf i / hosts_per_leaf); every leaf joins every spine with
 *                links_per_spine cables.  Leaf ports: hosts first, then uplinks spine-major.
 *                The leaf oversubscription is hosts x link_rate : uplinks x uplink_rate.
 */
#ifndef WEFT_TOPOLOGIES_LEAFSPINE_H
#define WEFT_TOPOLOGIES_LEAFSPINE_H

#include "sim/graph.h"

typedef struct {
    guint64 hosts;
    guint64 link_rate_bps;
    weft_time_t link_delay_ps;
    double cable_length_m;
} WeftSingleSwitchParams;

typedef struct {
    guint64 left_hosts, right_hosts;
    guint64 link_rate_bps;
    weft_time_t link_delay_ps;
    double cable_length_m;
    guint64 bottleneck_rate_bps;
    weft_time_t bottleneck_delay_ps;
    double bottleneck_cable_length_m;
} WeftDumbbellParams;

typedef struct {
    guint64 leaves, spines, hosts_per_leaf, links_per_spine;
    guint64 link_rate_bps, uplink_rate_bps;
    weft_time_t link_delay_ps;
    double cable_length_m, uplink_cable_length_m;
} WeftLeafSpineParams;

/* Propagation delay of a cable: @extra_ps + 5 ns per metre. */
weft_time_t weft_topology_cable_delay (weft_time_t extra_ps, double length_m);

/** Each returns a new graph (transfer full) or NULL with WEFT_TOPO_ERROR_PARAM set, the
 * message starting "[topology] KEY: ". */
WeftGraph *weft_topology_single_switch (const WeftSingleSwitchParams *p, GError **error);
WeftGraph *weft_topology_dumbbell (const WeftDumbbellParams *p, GError **error);
WeftGraph *weft_topology_leafspine (const WeftLeafSpineParams *p, GError **error);

/* The counts of the graph each would build (sim/graph.h WeftGraphSize), from the parameters
 * alone; the same errors. */
gboolean weft_topology_single_switch_size (const WeftSingleSwitchParams *p, WeftGraphSize *out,
                                           GError **error);
gboolean weft_topology_dumbbell_size (const WeftDumbbellParams *p, WeftGraphSize *out,
                                      GError **error);
gboolean weft_topology_leafspine_size (const WeftLeafSpineParams *p, WeftGraphSize *out,
                                       GError **error);

#endif /* WEFT_TOPOLOGIES_LEAFSPINE_H */
