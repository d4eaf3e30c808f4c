#include "config.h"
#define G_LOG_DOMAIN "weft-minhop"
#include "topologies/minhop.h"

void
weft_minhop_route (WeftGraph *g)
{
    guint n_ep = weft_graph_n_endpoints (g);
    for (guint32 sw = 0; sw < weft_graph_n_nodes (g); sw++) {
        const WeftNode *node = weft_graph_node (g, sw);
        if (node->kind != WEFT_NODE_SWITCH)
            continue;
        guint *load = g_new0 (guint, node->ports->len);
        for (guint32 ep = 0; ep < n_ep; ep++) {
            WeftNodeKind k = weft_graph_node (g, weft_graph_endpoint_node (g, ep))->kind;
            if (k != WEFT_NODE_HOST && k != WEFT_NODE_NIC)
                continue;
            guint n;
            const guint32 *set = weft_graph_route_set (g, sw, ep, &n);
            if (n < 2)
                continue;
            guint32 best = set[0];
            for (guint i = 1; i < n; i++)
                if (load[set[i]] < load[best] || (load[set[i]] == load[best] && set[i] < best))
                    best = set[i];
            load[best]++;
            weft_graph_route_set_static (g, sw, ep, best);
        }
        g_free (load);
    }
}
