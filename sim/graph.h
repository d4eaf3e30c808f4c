/* sim/graph.h - the fabric graph: nodes, ports, full-duplex links and routes.
 *
 * Topology generators (topologies/) fill it; the assembly step (network/build.c) turns it into
 * model instances.  It knows nothing of events or models.
 *
 * Nodes have ports numbered 0..n_ports-1 internally (users see port numbers from 1, as
 * InfiniBand numbers them); a port may be empty (a partial scalable unit leaves switch ports
 * unconnected).  A link joins (node a, port pa) and (node b, port pb) and has one rate and one
 * propagation delay for both directions.
 *
 * Endpoints are the nodes traffic starts and ends at (hosts, GPUs, host memory, NICs when a
 * workload addresses them); each has a dense endpoint index used by route tables.  Forwarding
 * nodes (switches, NVSwitch, PCIe switches, NICs bridging PCIe and the fabric) carry transit
 * traffic; an endpoint that does not forward never carries transit traffic.
 *
 * Routes: for every forwarding node and destination endpoint, the set of output ports on
 * minimal (equal-cost) paths, and one static choice among them (D-mod-k style for fat trees,
 * or loaded from a forwarding-table file).  weft_graph_routes_compute() fills both by
 * breadth-first search; generators may then override static choices.  Identical port sets are
 * stored once.
 *
 * Route tables (hierarchical, so that a 16k-GPU fabric stays small):
 *  - Nodes with server < 0 form the fabric region; nodes with server = s >= 0 belong to server
 *    s.  A server node with a link to a fabric-region node (a NIC) is "fabric-attached".
 *  - Fabric destinations (hosts and NICs send through all their fabric ports alike) are every
 *    fabric-region endpoint and every fabric-attached server node.  They are numbered
 *    leaf-major (the nodes hanging off each fabric switch, in node order then port order);
 *    that number is the destination key of D-mod-k.
 *  - Destinations cabled to one forwarding fabric node only (hosts under a leaf, the NICs of
 *    one rail leaf) form that node's group: their equal-cost sets are the same at every switch
 *    but that one.  Any other destination (a host cabled to two leaves) is a group of its own.
 *    The fabric table has a row per forwarding fabric-region node (a switch) and a column per
 *    group, plus, per destination, its attachment switch's last hop toward it.  It is filled by
 *    one breadth-first search per group (64 at a time, sim/routes.c).
 *  - Each server has a small table: rows are its nodes, columns its endpoints plus one
 *    "outside" column (toward the nearest fabric-attached nodes of the server).
 *  - A server endpoint's fabric traffic leaves and enters through its gateway
 *    (weft_graph_gateway: by default the nearest fabric-attached node of its server, lowest id
 *    on ties, so GPU g uses the NIC on its own PCIe switch).  A fabric switch routes toward the
 *    destination's gateway; inside the destination server the server table takes over.  So
 *    "minimal" means minimal within this policy: traffic between servers always crosses the
 *    fabric from the source's nearest NIC to the destination's gateway (it never transits
 *    another GPU, since GPUs, CPUs and hosts do not forward).  Links between two different
 *    servers are ignored by routing.
 *  - Static choice (D-mod-k): set[(key / div) % n], where the set is ordered cable-major (by the
 *    port's rank among parallel cables to the same neighbour, then by neighbour id), key is the
 *    destination's fabric number (its endpoint index inside a server), and div is 1 for a
 *    tier-1 switch and, for a tier-t switch, the product of the distinct upward neighbours of
 *    one switch of each lower tier.  With destinations numbered leaf-major this is balanced on
 *    full fat trees: a shift permutation puts at most one flow on every link.
 *  - Static overrides are exact per (switch, destination): a hash while they are few (a
 *    forwarding-table file), a dense array of 2 bytes per (switch, destination) once they are
 *    more than one cell in ten (minhop and updn set nearly every cell).
 * Memory: 4 bytes x fabric switches x groups plus 8 bytes per destination (a k = 128 fat tree:
 * 20,480 switches x 8,192 leaves, 0.7 GB; 16k NICs on 512 rail leaves and 1.3k switches:
 * 2.7 MB), plus about 4 bytes x 30 x 18 per DGX-class server; with minhop or updn, 2 bytes x
 * switches x destinations more.
 */
#ifndef WEFT_SIM_GRAPH_H
#define WEFT_SIM_GRAPH_H

#include <glib.h>

#include "sim/errors.h"
#include "sim/time.h"

#define WEFT_GRAPH_NONE G_MAXUINT32

typedef enum {
    WEFT_NODE_HOST,   /* a plain host with one NIC port (non-AI topologies) */
    WEFT_NODE_SWITCH, /* a fabric switch (leaf, spine, core) */
    WEFT_NODE_GPU,
    WEFT_NODE_NIC, /* a server's NIC: PCIe on one side, the fabric on the other */
    WEFT_NODE_PCIE_SWITCH,
    WEFT_NODE_NVSWITCH,
    WEFT_NODE_CPU, /* host memory / root complex */
    WEFT_NODE_KIND_COUNT
} WeftNodeKind;

typedef enum {
    WEFT_LINK_FABRIC,
    WEFT_LINK_NVLINK,
    WEFT_LINK_PCIE,
    WEFT_LINK_KIND_COUNT
} WeftLinkKind;

typedef struct {
    char *name; /* unique, e.g. "host3", "leaf0", "dgx-1/gpu0", "su0-rail3-leaf" */
    WeftNodeKind kind;
    gint32 tier;             /* switches: 1 leaf, 2 spine, 3 core; 0 for the rest */
    gint32 server, su, rail; /* -1 where not meaningful */
    gboolean forwards;       /* carries transit traffic */
    guint32 endpoint;        /* dense endpoint index, or WEFT_GRAPH_NONE */
    GArray *ports;           /* guint32 link id per port, WEFT_GRAPH_NONE when empty */
    guint32 down_ports;      /* switches: ports 0..down_ports-1 are meant for the tier below,
                              * cabled or not (a partial scalable unit leaves some empty), so a
                              * tier's designed oversubscription can be told from its populated
                              * one; 0 when the generator does not say (count the cabled ones) */
} WeftNode;

typedef struct {
    guint32 a, b;   /* node ids */
    guint32 pa, pb; /* port indices (0-based) on a and b */
    guint64 rate_bps;
    weft_time_t delay_ps; /* propagation, each way */
    double length_m;      /* cable length if known, else 0 */
    WeftLinkKind kind;
} WeftLink;

typedef struct _WeftGraph WeftGraph;

WeftGraph *weft_graph_new (void);
void weft_graph_free (WeftGraph *g);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WeftGraph, weft_graph_free)

/* Adds a node with @n_ports empty ports; the name is copied.  Endpoint nodes (HOST, GPU, CPU,
 * and NIC when @endpoint is TRUE for it) get the next endpoint index.  Returns the node id. */
guint32 weft_graph_add_node (WeftGraph *g, const char *name, WeftNodeKind kind, guint n_ports);

/* Marks a node as an endpoint (if not already) and returns its endpoint index. */
guint32 weft_graph_make_endpoint (WeftGraph *g, guint32 node);

/* Connects (a, pa) and (b, pb); both ports must exist and be empty (g_return_val_if_fail).
 * With pa or pb WEFT_GRAPH_NONE, the first empty port is taken, growing the node if it has
 * none.  Returns the link id. */
guint32 weft_graph_connect (WeftGraph *g, guint32 a, guint32 pa, guint32 b, guint32 pb,
                            guint64 rate_bps, weft_time_t delay_ps, WeftLinkKind kind);

guint weft_graph_n_nodes (const WeftGraph *g);
guint weft_graph_n_links (const WeftGraph *g);
guint weft_graph_n_endpoints (const WeftGraph *g);
WeftNode *weft_graph_node (const WeftGraph *g, guint32 id);
WeftLink *weft_graph_link (const WeftGraph *g, guint32 id);
/* Node id of endpoint index @ep. */
guint32 weft_graph_endpoint_node (const WeftGraph *g, guint32 ep);
/* Node id by name, or WEFT_GRAPH_NONE. */
guint32 weft_graph_lookup (const WeftGraph *g, const char *name);

/* The far end of port @port of @node: node id and port index there; FALSE if the port is
 * empty. */
gboolean weft_graph_peer (const WeftGraph *g, guint32 node, guint32 port, guint32 *peer_node,
                          guint32 *peer_port);
/* Direction of traffic leaving @node through @port on its link: 0 if @node is the link's a
 * side, 1 if it is the b side. */
guint weft_graph_direction (const WeftGraph *g, guint32 node, guint32 port);

const char *weft_node_kind_name (WeftNodeKind kind);
const char *weft_link_kind_name (WeftLinkKind kind);

/* Fills equal-cost sets and static choices for every (forwarding node, endpoint) pair by
 * breadth-first search from each destination group over forwarding nodes.  The default static
 * choice is D-mod-k (above).  Call after all links are added; call again after changing
 * links. */
void weft_graph_routes_compute (WeftGraph *g);

/* Output ports of @node toward endpoint @dst_ep on minimal paths; *n_out = 0 when unreachable
 * or when @node is the destination.  (transfer none) */
const guint32 *weft_graph_route_set (const WeftGraph *g, guint32 node, guint32 dst_ep,
                                     guint *n_out);
/* A forwarding node's flat route table: what weft_graph_route_set gives at that node, reached
 * in three independent loads and no chain through the node and endpoint records.  The row of
 * the fabric table that belongs to the node is indexed by destination group (the endpoints
 * under one leaf share a group, so the table has switches x groups cells, never switches x
 * endpoints, and it is the fabric table's own row, not a copy); two per-endpoint arrays shared
 * by every node give an endpoint's group and the last hop's set at the group's attachment node;
 * the equal-cost sets are ranges of one array (set_data[set_off[id]] = n, then the ports).
 * It stays valid while the route tables do: a node fills it once, and again when
 * weft_route_view_stale says the tables were recomputed or dropped since. */
typedef struct {
    const guint32 *cells;    /* this node's row: set id per group; NULL: use weft_graph_route_set */
    const guint32 *ep_group; /* per endpoint: its group, or WEFT_GRAPH_NONE when unreachable */
    const guint32 *ep_last;  /* per endpoint: the set id at its group's attachment row */
    const guint32 *grow;     /* per group: its attachment row */
    const guint32 *set_off, *set_data;
    guint32 row;             /* this node's row */
    guint64 gen;             /* the route tables' generation when filled */
    const guint64 *live_gen; /* the graph's current generation; NULL: never filled */
} WeftRouteView;

/* Fills @view for forwarding node @node from the current route tables.  At a node outside the
 * fabric region (a server's switch), at an endpoint, or without route tables, view->cells is
 * NULL and lookups there must go through weft_graph_route_set. */
void weft_graph_route_view (const WeftGraph *g, guint32 node, WeftRouteView *view);

/* TRUE when @view must be filled again (never filled, or the tables changed since). */
static inline gboolean
weft_route_view_stale (const WeftRouteView *view)
{
    return view->live_gen == NULL || *view->live_gen != view->gen;
}

/* The node's output ports toward endpoint @dst_ep, as weft_graph_route_set gives them (same
 * ports, same order); @view->cells must be set. */
static inline const guint32 *
weft_route_view_set (const WeftRouteView *view, guint32 dst_ep, guint *n_out)
{
    guint32 grp = view->ep_group[dst_ep];
    guint32 set = 0;
    if (grp != WEFT_GRAPH_NONE)
        set = view->grow[grp] == view->row ? view->ep_last[dst_ep] : view->cells[grp];
    const guint32 *d = view->set_data + view->set_off[set]; /* set 0: the empty set */
    *n_out = d[0];
    return d + 1;
}

/* The static (single-path) output port, or WEFT_GRAPH_NONE when unreachable. */
guint32 weft_graph_route_static (const WeftGraph *g, guint32 node, guint32 dst_ep);
/* Overrides one static choice (forwarding-table files, D-mod-k variants).  @port need not be in
 * the equal-cost set (a file may route non-minimally). */
void weft_graph_route_set_static (WeftGraph *g, guint32 node, guint32 dst_ep, guint32 port);
/* Hop count (links crossed) between two nodes along minimal paths toward @dst's endpoint;
 * G_MAXUINT when unreachable.  @dst must be an endpoint. */
guint weft_graph_route_hops (const WeftGraph *g, guint32 src, guint32 dst);

/* Added by the topology module. */

/* TRUE once weft_graph_routes_compute has run (and no node or link was added since). */
gboolean weft_graph_routes_ready (const WeftGraph *g);
/* The route tables' generation: it moves on whenever they are computed, changed (a static
 * choice overridden) or dropped, so an answer remembered with it is still the graph's answer
 * while the two are equal (models/pathcache.h). */
guint64 weft_graph_routes_generation (const WeftGraph *g);

/* Walks the static routes from @src to endpoint node @dst, appending every node visited
 * (@src first, @dst last) to @nodes_out (a GArray of guint32; may be NULL).  Returns the number
 * of links crossed, or G_MAXUINT when unreachable or looping (a forwarding-table file can make
 * a loop). */
guint weft_graph_route_path (const WeftGraph *g, guint32 src, guint32 dst, GArray *nodes_out);

/* Links left out of routing: a subnet manager that has seen a link Down routes around it
 * (models/sm.h).  The fabric search of weft_graph_routes_compute does not cross a cut link and
 * a destination whose every last hop is cut is unreachable; the adjacency, the destination
 * numbering (D-mod-k keys) and the server tables stay as built.  No link is cut until one is
 * set; weft_graph_routes_compute must run again for a change to take effect. */
void weft_graph_set_link_cut (WeftGraph *g, guint32 link, gboolean cut);
gboolean weft_graph_link_cut (const WeftGraph *g, guint32 link);

/* Links that do not exist for routing: a NIC taken out of its server before the run
 * ([fault.NAME] kind = nic-removed, models/fault.h).  Unlike a cut link, a removed one leaves
 * the adjacency the route tables see: its ports count as empty, so its NIC is no longer
 * fabric-attached, no fabric destination, and no server endpoint's gateway (the server's
 * endpoints take their nearest remaining NIC).  The link, its ports and its models stay (a
 * trace shows it idle).  Setting one drops the route tables: compute them again. */
void weft_graph_set_link_removed (WeftGraph *g, guint32 link);
gboolean weft_graph_link_removed (const WeftGraph *g, guint32 link);

/* Approximate bytes held by the route tables (for benchmarks and `weft topo`). */
gsize weft_graph_routes_bytes (const WeftGraph *g);

/* The counts that decide how much memory a graph and its route tables take: measured from a
 * graph (weft_graph_measure, routes or not), or computed from a generator's parameters before
 * anything is built (topologies/topology.h), so that a fabric too large for the machine is
 * refused before it is built. */
typedef struct {
    guint64 nodes, links, endpoints;
    guint64 ports;        /* every port of every node, cabled or not */
    guint64 switches;     /* forwarding fabric-region nodes: the fabric table's rows */
    guint64 destinations; /* fabric destinations (hosts, NICs) */
    guint64 groups;       /* destination groups: the fabric table's columns */
    guint64 server_cells; /* cells of the server tables, summed over servers */
    guint64 hosts, gpus;  /* nodes of kind host and gpu (a workload's default hosts) */
} WeftGraphSize;

/* Counts @g's sizes (its fabric table's rows, groups and destinations as
 * weft_graph_routes_compute would make them). */
void weft_graph_measure (const WeftGraph *g, WeftGraphSize *out);

/* Estimated peak bytes of a graph of size @s (*@graph_bytes: nodes, names, ports, links) and of
 * its route tables while they are computed (*@routes_bytes: the tables, the adjacency and the
 * search's scratch arrays), default D-mod-k routes without overrides.  The terms are listed in
 * doc/scale.md, with how close they come to measured peaks. */
void weft_graph_size_bytes (const WeftGraphSize *s, guint64 *graph_bytes, guint64 *routes_bytes);

/* Gateway of a server node: the fabric-attached node (NIC) its fabric traffic leaves and enters
 * through, the nearest fabric-attached node of the server.  Fabric-region nodes are their own
 * gateway.  Before routes are computed a server node's gateway is NONE; after, the resolved
 * value (NONE for a server with no NIC). */
guint32 weft_graph_gateway (const WeftGraph *g, guint32 node);

/* GPUDirect RDMA.  The links are the same either way: a GPU's PCIe switch joins GPU, NIC and
 * the uplink to the CPU (host memory).  What differs is where a NIC reads and writes the data
 * of an endpoint: weft_graph_staging (g, gpu) is the GPU itself when GPUDirect is on, and the
 * server's CPU node when it is off, so a transfer GPU->remote GPU becomes GPU->CPU (PCIe,
 * crossing the uplink), CPU->NIC (the uplink again), fabric, NIC->CPU, CPU->GPU.  The models
 * (transport, NIC) implement the staging; the graph records it.  Non-GPU nodes stage at
 * themselves. */
void weft_graph_set_gpudirect (WeftGraph *g, gboolean on);
gboolean weft_graph_gpudirect (const WeftGraph *g);
void weft_graph_set_staging (WeftGraph *g, guint32 node, guint32 staging);
guint32 weft_graph_staging (const WeftGraph *g, guint32 node);
/* GPUDirect lost mid-run: @node stages at @staging from collective instance @first_coll on
 * (as the workloads number them, from 0: [fault.NAME] kind = gpudirect-off with after =
 * collective.N); weft_graph_staging_for (g, node, coll) is the node itself for an earlier
 * collective, and weft_graph_staging (g, node) otherwise. */
void weft_graph_set_staging_from (WeftGraph *g, guint32 node, guint32 staging, guint32 first_coll);
/* The same from the @nth collective (from 0) of the workload group @group ("workload.NAME",
 * after = workload.NAME.collective.N), whose run-wide number is known only as the workloads
 * are generated: until weft_graph_staging_number_group names the group's first collective, no
 * collective is staged (the groups generate in turn, so the collectives numbered so far all
 * come before it). */
void weft_graph_set_staging_from_group (WeftGraph *g, guint32 node, guint32 staging,
                                        const char *group, guint32 nth);
/* The workload generator is about to generate @group, whose first collective will be number
 * @coll_base: the staging rules of weft_graph_set_staging_from_group on @group take their
 * run-wide numbers.  Changes only those rules (the graph is otherwise untouched). */
void weft_graph_staging_number_group (const WeftGraph *g, const char *group, guint32 coll_base);
guint32 weft_graph_staging_for (const WeftGraph *g, guint32 node, guint32 coll);
/* GPUDirect lost for a window of time ([fault.NAME] kind = gpudirect-off with at = TIME > 0,
 * or until): @node stages at @staging in the collectives that start in [@from_ps, @until_ps)
 * (@until_ps WEFT_TIME_NEVER: to the end), as NCCL decides GPUDirect per connection when it
 * sets it up; a collective under way at @from_ps keeps its layout.  A collective's start is
 * known only during the run, so the workloads lay out each affected collective once per
 * staging epoch and the transport takes the layout of the epoch it starts in.  The epochs
 * are the intervals between the windows' ends, every window's together: epoch 0 begins at
 * time 0, epoch e at the e-th distinct end (weft_graph_staging_epoch_start); within an epoch
 * no node's staging changes. */
void weft_graph_set_staging_window (WeftGraph *g, guint32 node, guint32 staging,
                                    weft_time_t from_ps, weft_time_t until_ps);
/* The number of epochs: 1 without windows. */
guint weft_graph_staging_n_epochs (const WeftGraph *g);
/* The epoch a collective starting at @t belongs to: the windows' ends at or before @t. */
guint weft_graph_staging_epoch (const WeftGraph *g, weft_time_t t);
weft_time_t weft_graph_staging_epoch_start (const WeftGraph *g, guint epoch);
/* @node's staging node for collective @coll when it starts in epoch @epoch: as
 * weft_graph_staging_for, and the node itself where a window leaves that epoch out.
 * weft_graph_staging_for (g, node, coll) is the epoch 0 answer. */
guint32 weft_graph_staging_in (const WeftGraph *g, guint32 node, guint32 coll, guint epoch);
/* Whether @node's staging depends on the collective or its start (a rule of
 * weft_graph_set_staging_from, _from_group or _window). */
gboolean weft_graph_staging_timed (const WeftGraph *g, guint32 node);

#endif /* WEFT_SIM_GRAPH_H */
