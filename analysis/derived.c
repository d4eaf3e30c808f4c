/* analysis/derived.c - derived figures: max-min fair total, flow rates, Jain's index, flow
 * selectors (analysis/derived.h). */
#include "config.h"
#define G_LOG_DOMAIN "weft-analysis"
#include "analysis/derived.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/errors.h"

double
weft_derived_maxmin_bps (const WeftTraceFlow *flows, guint n_flows, const WeftTracePathHop *hops,
                         guint n_hops, const WeftTraceLink *links, guint n_links,
                         double payload_fraction, guint *n_routed)
{
    g_return_val_if_fail (n_routed != NULL, NAN);
    *n_routed = 0;
    g_autoptr (GHashTable) link_row = g_hash_table_new (NULL, NULL);
    for (guint i = 0; i < n_links; i++)
        g_hash_table_insert (link_row, GUINT_TO_POINTER (links[i].id), GUINT_TO_POINTER (i + 1));
    g_autoptr (GHashTable) flow_row = g_hash_table_new (NULL, NULL);
    for (guint i = 0; i < n_flows; i++)
        g_hash_table_insert (flow_row, GUINT_TO_POINTER (flows[i].id), GUINT_TO_POINTER (i + 1));
    /* resources: one per egress (node, port) any path uses, with its capacity left */
    g_autoptr (GHashTable) egress =
        g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
    g_autoptr (GArray) left = g_array_new (FALSE, FALSE, sizeof (double));
    /* per flow row, its resources (no repeats): a GArray of guint, or NULL without a path */
    GArray **path = g_new0 (GArray *, MAX (n_flows, 1));
    double total = NAN;
    g_autofree guint *users = NULL;
    g_autofree gboolean *active = NULL;
    for (guint h = 0; h < n_hops; h++) {
        guint frow =
            GPOINTER_TO_UINT (g_hash_table_lookup (flow_row, GUINT_TO_POINTER (hops[h].flow)));
        guint lrow =
            GPOINTER_TO_UINT (g_hash_table_lookup (link_row, GUINT_TO_POINTER (hops[h].link)));
        if (frow == 0)
            continue; /* a path of a flow not in /flows: nothing to allocate */
        if (lrow == 0)
            goto out;
        gint64 key = ((gint64) hops[h].node << 32) | hops[h].port;
        gpointer found = g_hash_table_lookup (egress, &key);
        guint r;
        if (found == NULL) {
            r = left->len;
            double cap = (double) links[lrow - 1].rate_bps * payload_fraction;
            g_array_append_val (left, cap);
            gint64 *k = g_new (gint64, 1);
            *k = key;
            g_hash_table_insert (egress, k, GUINT_TO_POINTER (r + 1));
        } else {
            r = GPOINTER_TO_UINT (found) - 1;
        }
        GArray **p = &path[frow - 1];
        if (*p == NULL)
            *p = g_array_new (FALSE, FALSE, sizeof (guint));
        gboolean dup = FALSE;
        for (guint k = 0; k < (*p)->len && !dup; k++)
            dup = g_array_index (*p, guint, k) == r;
        if (!dup)
            g_array_append_val (*p, r);
    }
    guint n_res = left->len;
    /* water-filling: raise every unfrozen flow's rate together; the resource whose capacity
     * left per unfrozen flow is smallest fills first and freezes its flows at that share */
    users = g_new0 (guint, MAX (n_res, 1));
    active = g_new0 (gboolean, MAX (n_flows, 1));
    guint n_active = 0;
    for (guint f = 0; f < n_flows; f++)
        if (path[f] != NULL) {
            active[f] = TRUE;
            n_active++;
            for (guint k = 0; k < path[f]->len; k++)
                users[g_array_index (path[f], guint, k)]++;
        }
    if (n_active == 0)
        goto out;
    *n_routed = n_active;
    total = 0;
    while (n_active > 0) {
        double best = INFINITY;
        guint bottleneck = 0;
        for (guint r = 0; r < n_res; r++) {
            if (users[r] == 0)
                continue;
            double share = MAX (g_array_index (left, double, r), 0.0) / users[r];
            if (share < best) {
                best = share;
                bottleneck = r;
            }
        }
        for (guint f = 0; f < n_flows; f++) {
            if (!active[f])
                continue;
            gboolean on = FALSE;
            for (guint k = 0; k < path[f]->len && !on; k++)
                on = g_array_index (path[f], guint, k) == bottleneck;
            if (!on)
                continue;
            active[f] = FALSE;
            n_active--;
            total += best;
            for (guint k = 0; k < path[f]->len; k++) {
                guint r = g_array_index (path[f], guint, k);
                g_array_index (left, double, r) -= best;
                users[r]--;
            }
        }
    }
out:
    for (guint f = 0; f < n_flows; f++)
        if (path[f])
            g_array_free (path[f], TRUE);
    g_free (path);
    if (isnan (total))
        *n_routed = 0;
    return total;
}

double
weft_derived_rate_bps (const WeftTraceFlow *f, guint64 end_ps)
{
    g_return_val_if_fail (f != NULL, NAN);
    guint64 end = f->finished ? f->finish_ps : end_ps;
    if (end <= f->start_ps)
        return 0;
    return (double) f->bytes_delivered * 8 / ((double) (end - f->start_ps) / 1e12);
}

double
weft_derived_jain (const double *x, gsize n)
{
    double sum = 0, sq = 0;
    for (gsize i = 0; i < n; i++) {
        sum += x[i];
        sq += x[i] * x[i];
    }
    return n == 0 || sq == 0 ? NAN : sum * sum / ((double) n * sq);
}

/* Whether @text is a whole unsigned 32-bit number, into *@v. */
static gboolean
parse_id (const char *text, guint32 *v)
{
    if (*text < '0' || *text > '9')
        return FALSE;
    char *end;
    guint64 u = g_ascii_strtoull (text, &end, 10);
    if (*end != '\0' || u > G_MAXUINT32)
        return FALSE;
    *v = (guint32) u;
    return TRUE;
}

/* The name of node @id (NULL if none). */
static const char *
node_name (const WeftTraceNode *nodes, guint n_nodes, guint32 id)
{
    for (guint i = 0; i < n_nodes; i++)
        if (nodes[i].id == id)
            return nodes[i].name;
    return NULL;
}

static gboolean
item_fail (GError **error, const char *item, const char *why)
{
    g_set_error (error, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_VALUE, "--flows %s: %s", item, why);
    return FALSE;
}

gboolean
weft_derived_select (const WeftTraceFlow *flows, guint n_flows, const WeftTraceNode *nodes,
                     guint n_nodes, const char *selector, GArray *out, GError **error)
{
    g_return_val_if_fail (selector != NULL && out != NULL, FALSE);
    g_autofree gboolean *chosen = g_new0 (gboolean, MAX (n_flows, 1));
    g_auto (GStrv) items = g_strsplit (selector, ",", -1);
    if (items[0] == NULL)
        return item_fail (error, "\"\"", "expected flow ids, workload:NAME or SRC>DST");
    for (guint i = 0; items[i]; i++) {
        g_autofree char *item = g_strstrip (g_strdup (items[i]));
        guint32 lo = 0, hi = 0;
        const char *dash = strchr (item, '-'), *gt = strchr (item, '>');
        g_autofree char *a = NULL, *b = NULL;
        enum { IDS, WORKLOAD, ENDS } how;
        if (g_str_has_prefix (item, "workload:") && item[strlen ("workload:")] != '\0') {
            how = WORKLOAD;
        } else if (gt != NULL) {
            how = ENDS;
            a = g_strstrip (g_strndup (item, (gsize) (gt - item)));
            b = g_strstrip (g_strdup (gt + 1));
            if (*a == '\0' || *b == '\0')
                return item_fail (error, item, "expected SRC>DST (node names or patterns)");
        } else if (parse_id (item, &lo)) {
            how = IDS;
            hi = lo;
        } else if (dash != NULL) {
            a = g_strndup (item, (gsize) (dash - item));
            if (!parse_id (a, &lo) || !parse_id (dash + 1, &hi) || hi < lo)
                return item_fail (error, item, "expected a range of flow ids, LOW-HIGH");
            how = IDS;
        } else {
            return item_fail (error, item,
                              "expected a flow id, LOW-HIGH, workload:NAME or SRC>DST");
        }
        guint hits = 0;
        for (guint f = 0; f < n_flows; f++) {
            const WeftTraceFlow *r = &flows[f];
            gboolean yes;
            if (how == IDS) {
                yes = r->id >= lo && r->id <= hi;
            } else if (how == WORKLOAD) {
                yes =
                    strncmp (r->workload, item + strlen ("workload:"), sizeof r->workload - 1) == 0;
            } else {
                const char *s = node_name (nodes, n_nodes, r->src);
                const char *d = node_name (nodes, n_nodes, r->dst);
                yes = s && d && g_pattern_match_simple (a, s) && g_pattern_match_simple (b, d);
            }
            if (yes) {
                hits++;
                chosen[f] = TRUE;
            }
        }
        if (hits == 0)
            return item_fail (error, item, "no flow in the trace matches");
    }
    for (guint f = 0; f < n_flows; f++)
        if (chosen[f])
            g_array_append_val (out, f);
    return TRUE;
}
