/* topologies/export.c - a fabric graph as DOT, JSON or a route listing (topologies/export.h). */
#include "config.h"
#define G_LOG_DOMAIN "weft-topology"
#include "topologies/export.h"

#include "sim/units.h"

/* A DOT identifier: the name quoted, with '"' and '\' escaped.  (transfer full) */
static char *
dot_id (const char *name)
{
    GString *s = g_string_new ("\"");
    for (const char *p = name; *p; p++) {
        if (*p == '"' || *p == '\\')
            g_string_append_c (s, '\\');
        g_string_append_c (s, *p);
    }
    g_string_append_c (s, '"');
    return g_string_free (s, FALSE);
}

void
weft_topo_export_dot (GString *out, const WeftGraph *g)
{
    g_return_if_fail (out != NULL && g != NULL);
    static const char *shape[WEFT_NODE_KIND_COUNT] = {
        "ellipse", "box", "ellipse", "diamond", "hexagon", "octagon", "cylinder",
    };
    g_string_append (out, "graph weft {\n  node [fontsize=10];\n");
    for (guint i = 0; i < weft_graph_n_nodes (g); i++) {
        const WeftNode *n = weft_graph_node (g, i);
        g_autofree char *id = dot_id (n->name);
        g_string_append_printf (out, "  %s [shape=%s];\n", id, shape[n->kind]);
    }
    for (guint i = 0; i < weft_graph_n_links (g); i++) {
        if (weft_graph_link_removed (g, i))
            continue; /* gone (weft topo --faults) */
        const WeftLink *l = weft_graph_link (g, i);
        g_autofree char *a = dot_id (weft_graph_node (g, l->a)->name);
        g_autofree char *b = dot_id (weft_graph_node (g, l->b)->name);
        g_autofree char *rate = weft_units_format_rate (l->rate_bps);
        g_string_append_printf (out, "  %s -- %s [taillabel=%u, headlabel=%u, label=\"%s\"%s];\n",
                                a, b, l->pa + 1, l->pb + 1, rate,
                                l->kind == WEFT_LINK_FABRIC ? "" : ", style=dashed");
    }
    g_string_append (out, "}\n");
}

void
weft_topo_export_json (GString *out, const WeftGraph *g)
{
    g_return_if_fail (out != NULL && g != NULL);
    g_string_append (out, "{\n  \"nodes\": [\n");
    for (guint i = 0; i < weft_graph_n_nodes (g); i++) {
        const WeftNode *n = weft_graph_node (g, i);
        g_autofree char *name = g_strescape (n->name, NULL);
        g_string_append_printf (
            out,
            "    {\"id\": %u, \"name\": \"%s\", \"kind\": \"%s\", \"tier\": %d, \"server\": %d, "
            "\"su\": %d, \"rail\": %d, \"ports\": %u, \"endpoint\": %d}%s\n",
            i, name, weft_node_kind_name (n->kind), n->tier, n->server, n->su, n->rail,
            n->ports->len, n->endpoint == WEFT_GRAPH_NONE ? -1 : (int) n->endpoint,
            i + 1 < weft_graph_n_nodes (g) ? "," : "");
    }
    g_string_append (out, "  ],\n  \"links\": [\n");
    guint last = 0; /* the last link written: removed ones (weft topo --faults) are not */
    for (guint i = 0; i < weft_graph_n_links (g); i++)
        if (!weft_graph_link_removed (g, i))
            last = i;
    for (guint i = 0; i < weft_graph_n_links (g); i++) {
        if (weft_graph_link_removed (g, i))
            continue;
        const WeftLink *l = weft_graph_link (g, i);
        g_string_append_printf (
            out,
            "    {\"id\": %u, \"a\": %u, \"port_a\": %u, \"b\": %u, \"port_b\": %u, "
            "\"rate_bps\": %" G_GUINT64_FORMAT ", \"delay_ps\": %" G_GUINT64_FORMAT
            ", \"length_m\": %g, \"kind\": \"%s\"}%s\n",
            i, l->a, l->pa + 1, l->b, l->pb + 1, l->rate_bps, l->delay_ps, l->length_m,
            weft_link_kind_name (l->kind), i < last ? "," : "");
    }
    g_string_append (out, "  ]\n}\n");
}

void
weft_topo_export_file (GString *out, const WeftGraph *g)
{
    g_return_if_fail (out != NULL && g != NULL);
    g_string_append (out, "# weft topology file: every node, then every link with its ports, "
                          "rate (bits/s) and delay (ps)\n");
    for (guint i = 0; i < weft_graph_n_nodes (g); i++) {
        const WeftNode *n = weft_graph_node (g, i);
        g_string_append_printf (out, "node %s %s ports=%u tier=%d", n->name,
                                weft_node_kind_name (n->kind), n->ports->len, MAX (n->tier, 0));
        if (n->server >= 0)
            g_string_append_printf (out, " server=%d", n->server);
        if (n->su >= 0)
            g_string_append_printf (out, " su=%d", n->su);
        if (n->rail >= 0)
            g_string_append_printf (out, " rail=%d", n->rail);
        if (n->endpoint != WEFT_GRAPH_NONE)
            g_string_append (out, " endpoint=1");
        g_string_append_c (out, '\n');
    }
    for (guint i = 0; i < weft_graph_n_links (g); i++) {
        if (weft_graph_link_removed (g, i))
            continue; /* gone (weft topo --faults) */
        const WeftLink *l = weft_graph_link (g, i);
        g_string_append_printf (
            out, "link %s:%u %s:%u %" G_GUINT64_FORMAT "bps %" G_GUINT64_FORMAT "ps kind=%s\n",
            weft_graph_node (g, l->a)->name, l->pa + 1, weft_graph_node (g, l->b)->name, l->pb + 1,
            l->rate_bps, l->delay_ps, weft_link_kind_name (l->kind));
    }
}

void
weft_topo_print_route (GString *out, const WeftGraph *g, guint32 a, guint32 b)
{
    g_return_if_fail (out != NULL && g != NULL);
    guint32 ep = weft_graph_node (g, b)->endpoint;
    g_return_if_fail (ep != WEFT_GRAPH_NONE);
    const char *src = weft_graph_node (g, a)->name, *dst = weft_graph_node (g, b)->name;
    GArray *path = g_array_new (FALSE, FALSE, sizeof (guint32));
    guint hops = weft_graph_route_path (g, a, b, path);
    if (hops == G_MAXUINT) {
        g_string_append_printf (out, "%s -> %s: unreachable\n", src, dst);
        g_array_unref (path);
        return;
    }
    guint sw = 0;
    for (guint i = 0; i < path->len; i++)
        sw += weft_graph_node (g, g_array_index (path, guint32, i))->kind == WEFT_NODE_SWITCH;
    g_string_append_printf (out,
                            "%s -> %s: %u links, %u switch hop%s; static path, with the "
                            "equal-cost choices at each hop:\n",
                            src, dst, hops, sw, sw == 1 ? "" : "s");
    for (guint i = 0; i + 1 < path->len; i++) {
        guint32 v = g_array_index (path, guint32, i);
        guint n;
        const guint32 *set = weft_graph_route_set (g, v, ep, &n);
        guint32 port = weft_graph_route_static (g, v, ep);
        guint32 peer, peer_port;
        weft_graph_peer (g, v, port, &peer, &peer_port);
        /* The cable as operators name it, NODE:PORT at both ends ([fault.NAME] link = ...). */
        g_autofree char *ends =
            g_strdup_printf ("%s:%u -> %s:%u", weft_graph_node (g, v)->name, port + 1,
                             weft_graph_node (g, peer)->name, peer_port + 1);
        g_string_append_printf (out, "  %-28s out port %-3u %s", weft_graph_node (g, v)->name,
                                port + 1, ends);
        if (n > 1) {
            g_string_append_printf (out, "  (%u equal-cost ports:", n);
            for (guint k = 0; k < n && k < 16; k++)
                g_string_append_printf (out, " %u", set[k] + 1);
            g_string_append_printf (out, "%s)", n > 16 ? " ..." : "");
        }
        g_string_append_c (out, '\n');
    }
    g_string_append_printf (out, "  %s\n", dst);
    g_array_unref (path);
}
