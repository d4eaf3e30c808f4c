#include "config.h"
#define G_LOG_DOMAIN "weft-lft"
#include "topologies/lft.h"

#include <stdlib.h>

static gboolean
line_fail (GError **error, const char *path, guint line, const char *what, const char *name)
{
    g_set_error (error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_FILE, "%s:%u: %s%s%s%s", path, line, what,
                 name ? " '" : "", name ? name : "", name ? "'" : "");
    return FALSE;
}

gboolean
weft_lft_load (WeftGraph *g, const char *path, GError **error)
{
    g_autofree char *text = NULL;
    GError *local = NULL;
    if (!g_file_get_contents (path, &text, NULL, &local)) {
        g_set_error (error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_FILE,
                     "%s: cannot read forwarding table: %s", path, local->message);
        g_error_free (local);
        return FALSE;
    }
    g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
    for (guint i = 0; lines[i]; i++) {
        g_strstrip (lines[i]);
        if (!lines[i][0] || lines[i][0] == '#')
            continue;
        g_auto (GStrv) f = g_strsplit_set (lines[i], " \t", -1);
        const char *w[3];
        guint n = 0;
        for (guint j = 0; f[j]; j++)
            if (f[j][0]) {
                if (n == 3)
                    return line_fail (error, path, i + 1,
                                      "expected 'SWITCH DESTINATION PORT', got more fields", NULL);
                w[n++] = f[j];
            }
        if (n != 3)
            return line_fail (error, path, i + 1, "expected 'SWITCH DESTINATION PORT'", NULL);
        guint32 sw = weft_graph_lookup (g, w[0]);
        if (sw == WEFT_GRAPH_NONE || !weft_graph_node (g, sw)->forwards)
            return line_fail (error, path, i + 1, "no forwarding node named", w[0]);
        guint32 dst = weft_graph_lookup (g, w[1]);
        if (dst == WEFT_GRAPH_NONE || weft_graph_node (g, dst)->endpoint == WEFT_GRAPH_NONE)
            return line_fail (error, path, i + 1, "no endpoint named", w[1]);
        char *end;
        guint64 port = g_ascii_strtoull (w[2], &end, 10);
        const WeftNode *node = weft_graph_node (g, sw);
        if (*end || port < 1 || port > node->ports->len ||
            g_array_index (node->ports, guint32, port - 1) == WEFT_GRAPH_NONE)
            return line_fail (error, path, i + 1,
                              "port must be a connected port number of the switch (from 1):",
                              w[2]);
        weft_graph_route_set_static (g, sw, weft_graph_node (g, dst)->endpoint,
                                     (guint32) (port - 1));
    }
    return TRUE;
}
