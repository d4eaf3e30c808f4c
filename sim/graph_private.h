/* sim/graph_private.h - the graph's representation, shared by the two files of the graph
 * module (graph.c: nodes, links, endpoints; routes.c: the route tables).  Not for other
 * modules: they use sim/graph.h. */
#ifndef WEFT_SIM_GRAPH_PRIVATE_H
#define WEFT_SIM_GRAPH_PRIVATE_H

#include "sim/graph.h"

#define NO_OVERRIDE 0xFFFFu

/* A server's table: a set id per (row, column), dense; it is small (tens of nodes). */
typedef struct {
    guint32 *cells; /* set id per (row, col), rows * cols */
    guint16 *over;  /* static overrides (port), NO_OVERRIDE = none; NULL until the first */
    guint32 n_rows, n_cols;
} Table;

/* Static overrides of fabric cells, keyed by (row * n_cols + col): an open-addressing hash
 * while they are few (a forwarding-table file naming some routes), a dense array of ports once
 * they are many (a routing engine that sets every cell) - whichever is smaller. */
typedef struct {
    guint64 *keys;  /* cell + 1; 0: an empty slot */
    guint16 *ports; /* per slot */
    gsize cap, used;
    guint16 *dense; /* port per cell, NO_OVERRIDE = none; replaces the hash when set */
    gsize n_cells;  /* rows * cols */
} Overrides;

/* The fabric table.  Destinations hanging off one forwarding node (hosts under a leaf, the
 * NICs of one rail leaf) share their routes everywhere but at that node: the cells hold a set
 * per (row, group), and the attachment node's own last hop is a set per column. */
typedef struct {
    guint32 *cells; /* set id per (row, group), n_rows * n_groups */
    guint32 n_rows, n_groups, n_cols;
    guint32 *group; /* per column: its group */
    guint32 *last;  /* per column: set id of the group's attachment row toward it */
    guint32 *grow;  /* per group: the fabric row of its attachment node, or NONE */
    Overrides over;
} Fabric;

typedef struct {
    /* flattened adjacency, built at compute time */
    guint32 *port_off; /* per node: index of its port 0 in peer[] */
    guint32 *peer;     /* peer node per (node, port), NONE when empty */
    guint32 *prank;    /* rank of this port among the node's ports to the same peer */
    guint32 *row;      /* per node: row in its region's table */
    guint32 *col;      /* per node: fabric column (fabric region and fabric-attached nodes) */
    guint32 *scol;     /* per node: column in its server's table (server endpoints) */
    guint32 *gw;       /* per node: fabric-attached node that carries its fabric traffic */
    guint32 *div;      /* per node: D-mod-k divisor */
    guint32 *fports;   /* per node: set id of its fabric ports (fabric-attached server nodes) */
    Fabric fabric;
    Table *servers; /* indexed by server id */
    guint n_servers;
    /* interned port sets: set_off[id] indexes set_data, where set_data[off] = n, then ports */
    GArray *set_off;
    GArray *set_data;
    guint32 *ht; /* open addressing, set ids */
    guint32 ht_cap, ht_used;
    GHashTable *extra_over; /* (node << 32 | dst_ep) -> port + 1, for cells outside tables */
    /* the flat views' per-endpoint arrays (WeftRouteView), built after the fabric table */
    guint32 *ep_group; /* per endpoint: the fabric group of its column, NONE when unreachable */
    guint32 *ep_last;  /* per endpoint: fabric.last of its column (0 when unreachable) */
} Routes;

struct _WeftGraph {
    GArray *nodes;     /* WeftNode */
    GArray *links;     /* WeftLink */
    GArray *endpoints; /* guint32 node id per endpoint index */
    GHashTable *by_name;
    GArray *staging;            /* guint32 per node: staging node, or NONE (the node itself) */
    GHashTable *staging_from;   /* node + 1 -> first collective + 1 it stages from (only the
                                   nodes whose staging begins mid-run; NULL when none) */
    GHashTable *staging_group;  /* node + 1 -> StagingGroup *: staging from a workload group's
                                   Nth collective, not yet numbered (NULL when none) */
    GHashTable *staging_window; /* node + 1 -> StagingWindow *: staging for the collectives that
                                   start in a window of time (NULL when none) */
    GArray *staging_breaks;     /* weft_time_t, sorted, distinct: the windows' ends (epochs) */
    GArray *free_hint;          /* guint32 per node: no empty port below this index */
    gboolean gpudirect;
    Routes *routes;
    guint8 *cut;        /* per link: 1 when routing leaves it out (a Down link); NULL: none is */
    guint8 *removed;    /* per link: 1 when it does not exist for routing (a NIC taken out of its
                         * server before the run); NULL: none is */
    guint64 routes_gen; /* bumped whenever the route tables are computed, changed or dropped */
};

/* Frees the route tables (NULL is fine). */
void weft_graph_routes_free (Routes *r);

#endif /* WEFT_SIM_GRAPH_PRIVATE_H */
