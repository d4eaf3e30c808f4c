/* analysis/ibdiag_private.h - what analysis/ibdiag.c and analysis/ibdiag_check.c share of a
 * diagnosis: its tables, indexed by node and port (analysis/ibdiag.h). */
#ifndef WEFT_ANALYSIS_IBDIAG_PRIVATE_H
#define WEFT_ANALYSIS_IBDIAG_PRIVATE_H

#include "analysis/ibdiag.h"

typedef struct {
    const WeftTracePort *row;
    const WeftTraceLink *link;
    guint32 peer_node, peer_port; /* the other end */
    guint ib_port;                /* 1-based among the node's fabric ports */
    guint lid;
} Port;

typedef struct {
    const WeftTraceNode *row;
    char *name;       /* row->name, NUL-terminated */
    GPtrArray *ports; /* Port *, the fabric ports, in port order */
    gboolean ca;      /* a channel adapter: a NIC, or a host with its own fabric link */
    guint lid;        /* a switch's */
    gboolean removed; /* a NIC taken out of its server (nic-removed) by the time diagnosed */
    guint64 removed_ps;
    char removed_by[WEFT_TRACE_NAME_LEN + 1]; /* its [fault.NAME] */
} Node;

struct WeftIbdiag {
    GArray *nodes, *links, *ports; /* owned rows */
    Node *node;                    /* per node id (n_nodes) */
    guint n_nodes;
    GPtrArray *all_ports; /* Port *, owned, fabric ports in node and port order */
    guint64 sim_time_ps;
    char *firmware;
};

/* The node's name, or "?" for an id the trace lacks.  (transfer none) */
const char *weft_ibdiag_node_name (const WeftIbdiag *d, guint32 id);
/* The tier of link @l into @buf: its ends' tiers, the channel adapter's first ("nic-leaf",
 * "leaf-spine"), as links --worst compares them. */
void weft_ibdiag_link_tier (const WeftIbdiag *d, const WeftTraceLink *l, char *buf, gsize size);

#endif /* WEFT_ANALYSIS_IBDIAG_PRIVATE_H */
