#include "config.h"
#define G_LOG_DOMAIN "weft-lft"
#include "topologies/lft.h"

#include "sim/records.h"

typedef struct {
    WeftGraph *g;
    const char *path;
} Load;

static gboolean
route_line (char **w, guint n, guint line, void *data, GError **error)
{
    Load *ld = data;
    WeftGraph *g = ld->g;
#define FAIL(...)                                                                                  \
    weft_records_fail (error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_FILE, ld->path, line, __VA_ARGS__)
    if (n != 3)
        return FAIL ("expected 'SWITCH DESTINATION PORT'%s", n > 3 ? ", got more fields" : "");
    guint32 sw = weft_graph_lookup (g, w[0]);
    if (sw == WEFT_GRAPH_NONE || !weft_graph_node (g, sw)->forwards)
        return FAIL ("no forwarding node named '%s'", w[0]);
    guint32 dst = weft_graph_lookup (g, w[1]);
    if (dst == WEFT_GRAPH_NONE || weft_graph_node (g, dst)->endpoint == WEFT_GRAPH_NONE)
        return FAIL ("no endpoint named '%s'", w[1]);
    char *end;
    guint64 port = g_ascii_strtoull (w[2], &end, 10);
    const WeftNode *node = weft_graph_node (g, sw);
    if (*end || port < 1 || port > node->ports->len ||
        g_array_index (node->ports, guint32, port - 1) == WEFT_GRAPH_NONE)
        return FAIL ("port must be a connected port number of the switch (from 1): '%s'", w[2]);
#undef FAIL
    weft_graph_route_set_static (g, sw, weft_graph_node (g, dst)->endpoint, (guint32) (port - 1));
    return TRUE;
}

gboolean
weft_lft_load (WeftGraph *g, const char *path, GError **error)
{
    Load ld = { g, path };
    GError *local = NULL;
    if (weft_records_read (path, route_line, &ld, &local))
        return TRUE;
    if (local->domain == G_FILE_ERROR) {
        g_set_error (error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_FILE,
                     "%s: cannot read forwarding table: %s", path, local->message);
        g_error_free (local);
    } else {
        g_propagate_error (error, local);
    }
    return FALSE;
}
