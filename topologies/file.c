/* topologies/file.c - forwarding-table and topology files. */
#include "config.h"
#define G_LOG_DOMAIN "weft-topology"
#include "topologies/file.h"

#include <stdlib.h>
#include <string.h>

#include "sim/input.h"
#include "sim/units.h"

static gboolean ferr (GError **error, const char *path, guint line, const char *fmt, ...)
    G_GNUC_PRINTF (4, 5);

static gboolean
ferr (GError **error, const char *path, guint line, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    g_autofree char *msg = g_strdup_vprintf (fmt, ap);
    va_end (ap);
    g_set_error (error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_FILE, "%s:%u: %s", path, line, msg);
    return FALSE;
}

/* Splits a line into whitespace-separated words; NULL for a comment or blank line. */
static char **
words (const char *line)
{
    const char *p = line;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p == '\0' || *p == '#' || *p == '\r')
        return NULL;
    char **w = g_regex_split_simple ("[ \\t\\r]+", p, 0, 0);
    guint n = 0;
    for (guint i = 0; w[i]; i++)
        if (*w[i])
            w[n++] = w[i];
        else
            g_free (w[i]);
    w[n] = NULL;
    return w;
}

static gboolean
parse_uint (const char *s, guint64 *out)
{
    char *end;
    if (!g_ascii_isdigit (*s))
        return FALSE;
    *out = g_ascii_strtoull (s, &end, 10);
    return *end == '\0';
}

static gboolean
parse_kind (const char *s, WeftNodeKind *out)
{
    for (int k = 0; k < WEFT_NODE_KIND_COUNT; k++)
        if (strcmp (s, weft_node_kind_name (k)) == 0) {
            *out = k;
            return TRUE;
        }
    return FALSE;
}

/* "NAME" or "NAME:PORT" */
static gboolean
parse_end (WeftGraph *g, const char *s, guint32 *node, guint32 *port)
{
    g_autofree char *name = g_strdup (s);
    char *colon = strrchr (name, ':');
    *port = WEFT_GRAPH_NONE;
    guint32 v = weft_graph_lookup (g, name);
    if (v == WEFT_GRAPH_NONE && colon) {
        guint64 p;
        *colon = '\0';
        v = weft_graph_lookup (g, name);
        if (v == WEFT_GRAPH_NONE || !parse_uint (colon + 1, &p) || p < 1 ||
            p > weft_graph_node (g, v)->ports->len)
            return FALSE;
        *port = (guint32) p - 1;
    }
    *node = v;
    return v != WEFT_GRAPH_NONE;
}

/* "node NAME KIND [key=value]...": adds the node, with its tier, server, SU, rail and endpoint. */
static gboolean
parse_node (WeftGraph *g, char **w, guint n, const char *path, guint line, GError **error)
{
    WeftNodeKind kind;
    if (n < 3 || !parse_kind (w[2], &kind))
        return ferr (error, path, line,
                     "expected 'node NAME KIND [key=value]...' with KIND one of host, "
                     "switch, gpu, nic, pcie-switch, nvswitch, cpu");
    if (weft_graph_lookup (g, w[1]) != WEFT_GRAPH_NONE || strchr (w[1], ':'))
        return ferr (error, path, line, "node '%s' is repeated or contains ':'", w[1]);
    guint64 vals[6] = { 0, 0, G_MAXUINT64, G_MAXUINT64, G_MAXUINT64, 0 };
    static const char *keys[] = { "ports", "tier", "server", "su", "rail", "endpoint" };
    for (guint k = 3; k < n; k++) {
        char *eq = strchr (w[k], '=');
        guint j = 0;
        for (; eq && j < G_N_ELEMENTS (keys); j++)
            if (strncmp (w[k], keys[j], eq - w[k]) == 0 && strlen (keys[j]) == (gsize) (eq - w[k]))
                break;
        if (!eq || j == G_N_ELEMENTS (keys) || !parse_uint (eq + 1, &vals[j]))
            return ferr (error, path, line,
                         "'%s': expected ports=N, tier=N, server=N, su=N, rail=N or "
                         "endpoint=1",
                         w[k]);
    }
    guint32 v = weft_graph_add_node (g, w[1], kind, (guint) MIN (vals[0], 4096));
    WeftNode *node = weft_graph_node (g, v);
    node->tier = (gint32) vals[1];
    node->server = vals[2] == G_MAXUINT64 ? -1 : (gint32) vals[2];
    node->su = vals[3] == G_MAXUINT64 ? -1 : (gint32) vals[3];
    node->rail = vals[4] == G_MAXUINT64 ? -1 : (gint32) vals[4];
    if (vals[5])
        weft_graph_make_endpoint (g, v);
    return TRUE;
}

/* "link A[:PORT] B[:PORT] RATE [DELAY] [kind=...]": checks both ends and cables them. */
static gboolean
parse_link (WeftGraph *g, char **w, guint n, const char *path, guint line, GError **error)
{
    GError *local = NULL;
    guint32 a, pa, b, pb;
    guint64 rate = 0;
    weft_time_t delay = 0;
    WeftLinkKind kind = WEFT_LINK_FABRIC;
    if (n < 4)
        return ferr (error, path, line,
                     "expected 'link A[:PORT] B[:PORT] RATE [DELAY] [kind=...]'");
    if (!parse_end (g, w[1], &a, &pa) || !parse_end (g, w[2], &b, &pb) || a == b)
        return ferr (error, path, line,
                     "'%s' or '%s' is not a declared node (or a port out of range, or "
                     "both ends the same): declare nodes before their links",
                     w[1], w[2]);
    if (!weft_units_parse_rate (w[3], &rate, &local)) {
        ferr (error, path, line, "rate: %s", local->message);
        g_error_free (local);
        return FALSE;
    }
    for (guint k = 4; k < n; k++) {
        if (g_str_has_prefix (w[k], "kind=")) {
            const char *kn = w[k] + 5;
            if (strcmp (kn, "fabric") == 0)
                kind = WEFT_LINK_FABRIC;
            else if (strcmp (kn, "nvlink") == 0)
                kind = WEFT_LINK_NVLINK;
            else if (strcmp (kn, "pcie") == 0)
                kind = WEFT_LINK_PCIE;
            else
                return ferr (error, path, line, "'%s': expected fabric, nvlink or pcie", kn);
        } else if (!weft_units_parse_time (w[k], &delay, &local)) {
            ferr (error, path, line, "delay: %s", local->message);
            g_error_free (local);
            return FALSE;
        }
    }
    WeftNode *na = weft_graph_node (g, a), *nb = weft_graph_node (g, b);
    if ((pa != WEFT_GRAPH_NONE && g_array_index (na->ports, guint32, pa) != WEFT_GRAPH_NONE) ||
        (pb != WEFT_GRAPH_NONE && g_array_index (nb->ports, guint32, pb) != WEFT_GRAPH_NONE))
        return ferr (error, path, line, "a port of this link is already cabled");
    weft_graph_connect (g, a, pa, b, pb, rate, delay, kind);
    return TRUE;
}

WeftGraph *
weft_topology_load_file (const char *path, GError **error)
{
    g_autofree char *text = NULL;
    GError *local = NULL;
    if (!weft_input_read (path, WEFT_INPUT_MAX_BULK, &text, NULL, &local)) {
        g_set_error (error, WEFT_TOPO_ERROR, WEFT_TOPO_ERROR_FILE, "%s: %s", path, local->message);
        g_error_free (local);
        return NULL;
    }
    g_autoptr (WeftGraph) g = weft_graph_new ();
    g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
    for (guint i = 0; lines[i]; i++) {
        g_auto (GStrv) w = words (lines[i]);
        if (w == NULL)
            continue;
        guint n = g_strv_length (w);
        if (strcmp (w[0], "node") == 0) {
            if (!parse_node (g, w, n, path, i + 1, error))
                return NULL;
        } else if (strcmp (w[0], "link") == 0) {
            if (!parse_link (g, w, n, path, i + 1, error))
                return NULL;
        } else {
            return ferr (error, path, i + 1, "'%s': expected 'node' or 'link'", w[0]), NULL;
        }
    }
    if (weft_graph_n_nodes (g) == 0)
        return ferr (error, path, 1, "no nodes: expected 'node NAME KIND' lines"), NULL;
    return g_steal_pointer (&g);
}
