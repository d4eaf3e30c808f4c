#include "config.h"
#define G_LOG_DOMAIN "weft-partition"
#include "sim/partition.h"

#include <string.h>

#include "sim/units.h"

const WeftParamSpec weft_partition_params[] = {
    WEFT_PARAM_ENUM ("partition", WeftPartitionConfig, by, "auto", "auto|unit|graph",
                     "how a run across MPI ranks splits the fabric: unit keeps each pod (fat "
                     "tree) or scalable unit (railopt) whole, graph grows balanced connected "
                     "parts, auto is unit when the fabric has units, else graph"),
    WEFT_PARAM_TIME ("lookahead_floor", WeftPartitionConfig, lookahead_floor, "100ns", "1ns", NULL,
                     "a link whose delay is below this is never cut between ranks; the smallest "
                     "delay of a cut link bounds each synchronisation window"),
    WEFT_PARAM_BYTES ("gather_bytes", WeftPartitionConfig, gather_bytes, "16MiB", "1B", NULL,
                      "trace rows held over all ranks that make a run across ranks gather them to "
                      "rank 0 and write them between two windows (also every 8 million events); "
                      "the rest are gathered at the end"),
    WEFT_PARAM_END,
};

gboolean
weft_partition_config_read (const WeftExperiment *exp, WeftPartitionConfig *cfg, GError **error)
{
    WeftParamBinding b = { weft_partition_params, cfg };
    return weft_params_read (exp, "parallel", &b, 1, error);
}

const char *
weft_partition_by_name (WeftPartitionBy by)
{
    switch (by) {
    case WEFT_PARTITION_AUTO:
        return "auto";
    case WEFT_PARTITION_UNIT:
        return "unit";
    case WEFT_PARTITION_GRAPH:
        return "graph";
    }
    return "unknown";
}

/* ---- union-find over nodes: the root of a set is its lowest node id ---------------------- */

static guint32
find (guint32 *parent, guint32 x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

static void
unite (guint32 *parent, guint32 a, guint32 b)
{
    a = find (parent, a);
    b = find (parent, b);
    if (a < b)
        parent[b] = a;
    else if (b < a)
        parent[a] = b;
}

static guint
cabled_ports (const WeftNode *n)
{
    guint c = 0;
    for (guint p = 0; p < n->ports->len; p++)
        if (g_array_index (n->ports, guint32, p) != WEFT_GRAPH_NONE)
            c++;
    return c;
}

/* Joins @node to the first node seen with key @k (a server or a unit). */
static void
unite_by_key (GHashTable *first, guint32 *parent, gint32 k, guint32 node)
{
    gpointer v;
    if (g_hash_table_lookup_extended (first, GINT_TO_POINTER (k), NULL, &v))
        unite (parent, GPOINTER_TO_UINT (v), node);
    else
        g_hash_table_insert (first, GINT_TO_POINTER (k), GUINT_TO_POINTER (node));
}

/* Ranks in atom order, each filled to its share of the weight: atom i goes to the rank its
 * weight's midpoint falls in, never back, never skipping one, and the last atoms are spread so
 * that every rank gets one. */
static void
assign_in_order (const guint64 *aw, guint n_atoms, guint n_ranks, guint64 total, guint32 *atom_rank)
{
    guint64 cum = 0;
    guint prev = 0;
    for (guint i = 0; i < n_atoms; i++) {
        guint r;
        guint64 want = ((cum * 2 + aw[i]) * n_ranks) / (total * 2);
        if (i == 0)
            r = 0;
        else if (n_atoms - i == n_ranks - 1 - prev)
            r = prev + 1; /* as many atoms left as ranks still empty */
        else if (want > prev && prev + 1 < n_ranks)
            r = prev + 1;
        else
            r = prev;
        atom_rank[i] = r;
        prev = r;
        cum += aw[i];
    }
}

/* Each rank's part grown by breadth-first search over the atom graph (@adj: sorted neighbour
 * lists) from the lowest atom not yet placed, until it holds its share of what is left. */
static void
assign_by_growth (const guint64 *aw, GArray **adj, guint n_atoms, guint n_ranks, guint64 total,
                  guint32 *atom_rank)
{
    for (guint i = 0; i < n_atoms; i++)
        atom_rank[i] = G_MAXUINT32;
    guint placed = 0, next_seed = 0;
    guint64 left = total;
    guint32 *queue = g_new (guint32, n_atoms);
    guint8 *queued = g_new0 (guint8, n_atoms);
    for (guint r = 0; r < n_ranks; r++) {
        guint64 share = left / (n_ranks - r), have = 0;
        guint qh = 0, qt = 0;
        memset (queued, 0, n_atoms);
        for (;;) {
            if (r + 1 == n_ranks) {
                /* The last rank takes every atom left. */
                for (guint i = 0; i < n_atoms; i++)
                    if (atom_rank[i] == G_MAXUINT32) {
                        atom_rank[i] = r;
                        placed++;
                    }
                break;
            }
            /* Keep at least one atom for each rank after this one. */
            if (n_atoms - placed <= n_ranks - 1 - r)
                break;
            if (qh == qt) {
                while (next_seed < n_atoms && atom_rank[next_seed] != G_MAXUINT32)
                    next_seed++;
                if (next_seed == n_atoms)
                    break;
                queue[qt++] = next_seed;
                queued[next_seed] = 1;
            }
            guint32 a = queue[qh++];
            if (atom_rank[a] != G_MAXUINT32)
                continue;
            if (have > 0 && (have * 2 + aw[a]) > share * 2)
                break;
            atom_rank[a] = r;
            placed++;
            have += aw[a];
            const GArray *nb = adj[a];
            for (guint k = 0; k < nb->len; k++) {
                guint32 b = g_array_index (nb, guint32, k);
                if (!queued[b] && atom_rank[b] == G_MAXUINT32) {
                    queued[b] = 1;
                    queue[qt++] = b;
                }
            }
        }
        left -= MIN (left, have);
    }
    g_free (queue);
    g_free (queued);
}

static gint
cmp_u32 (gconstpointer a, gconstpointer b)
{
    guint32 x = *(const guint32 *) a, y = *(const guint32 *) b;
    return x < y ? -1 : x > y;
}

gboolean
weft_partition_compute (const WeftGraph *g, const WeftPartitionConfig *cfg, guint n_ranks,
                        const WeftExperiment *exp, WeftPartition *out, GError **error)
{
    return weft_partition_compute_with (g, cfg, n_ranks, NULL, exp, out, error);
}

gboolean
weft_partition_compute_with (const WeftGraph *g, const WeftPartitionConfig *cfg, guint n_ranks,
                             const GArray *releases, const WeftExperiment *exp, WeftPartition *out,
                             GError **error)
{
    g_return_val_if_fail (n_ranks >= 1, FALSE);
    *out = (WeftPartition){ 0 };
    guint n = weft_graph_n_nodes (g), nl = weft_graph_n_links (g);
    gboolean has_units = FALSE;
    for (guint32 v = 0; v < n && !has_units; v++)
        has_units = weft_graph_node (g, v)->su >= 0;
    WeftPartitionBy by = cfg->by;
    if (by == WEFT_PARTITION_AUTO)
        by = has_units ? WEFT_PARTITION_UNIT : WEFT_PARTITION_GRAPH;
    if (by == WEFT_PARTITION_UNIT && !has_units)
        return weft_experiment_fail (
            exp, error, WEFT_CONFIG_ERROR_VALUE, "parallel", "partition",
            "unit: this fabric records no pods or scalable units (only the fattree and railopt "
            "generators do); expected graph or auto");

    guint32 *parent = g_new (guint32, n);
    for (guint32 v = 0; v < n; v++)
        parent[v] = v;
    g_autoptr (GHashTable) servers = g_hash_table_new (g_direct_hash, g_direct_equal);
    g_autoptr (GHashTable) units = g_hash_table_new (g_direct_hash, g_direct_equal);
    guint below_floor = 0;
    for (guint32 v = 0; v < n; v++) {
        const WeftNode *node = weft_graph_node (g, v);
        if (node->server >= 0)
            unite_by_key (servers, parent, node->server, v);
        if (by == WEFT_PARTITION_UNIT && node->su >= 0)
            unite_by_key (units, parent, node->su, v);
        if (cabled_ports (node) == 1)
            for (guint p = 0; p < node->ports->len; p++) {
                guint32 peer, pp;
                if (weft_graph_peer (g, v, p, &peer, &pp))
                    unite (parent, v, peer);
            }
    }
    for (guint32 l = 0; l < nl; l++) {
        const WeftLink *link = weft_graph_link (g, l);
        if (link->delay_ps < cfg->lookahead_floor) {
            unite (parent, link->a, link->b);
            below_floor++;
        }
    }

    /* The two ends of a release below the floor, while atoms are left for every rank (in the
     * order given: the flows' dependency order). */
    guint joined = 0;
    if (releases && releases->len > 0) {
        guint left = 0;
        for (guint32 v = 0; v < n; v++)
            left += find (parent, v) == v;
        for (guint i = 0; i + 1 < releases->len && left > n_ranks; i += 2) {
            guint32 a = g_array_index (releases, guint32, i);
            guint32 b = g_array_index (releases, guint32, i + 1);
            if (a >= n || b >= n || find (parent, a) == find (parent, b))
                continue;
            unite (parent, a, b);
            left--;
            joined++;
        }
    }

    /* Atoms numbered by their lowest node (the root), in node order. */
    guint32 *atom_of = g_new (guint32, n);
    guint n_atoms = 0;
    for (guint32 v = 0; v < n; v++)
        if (find (parent, v) == v)
            atom_of[v] = n_atoms++;
    for (guint32 v = 0; v < n; v++)
        atom_of[v] = atom_of[find (parent, v)];
    g_free (parent);

    if (n_atoms < n_ranks) {
        g_autofree char *floor = weft_units_format_time (cfg->lookahead_floor);
        g_free (atom_of);
        return weft_experiment_fail (
            exp, error, WEFT_CONFIG_ERROR_RANGE, "parallel", "partition",
            "%s: %u ranks but the fabric splits into only %u indivisible part%s (servers, %s%u "
            "link%s below lookahead_floor = %s merged); expected at most %u rank%s%s",
            weft_partition_by_name (by), n_ranks, n_atoms, n_atoms == 1 ? "" : "s",
            by == WEFT_PARTITION_UNIT ? "units, " : "", below_floor, below_floor == 1 ? "" : "s",
            floor, n_atoms, n_atoms == 1 ? "" : "s",
            by == WEFT_PARTITION_UNIT ? ", or partition = graph" : "");
    }

    guint64 *aw = g_new0 (guint64, n_atoms), total = 0;
    for (guint32 v = 0; v < n; v++) {
        guint w = MAX (1u, cabled_ports (weft_graph_node (g, v)));
        aw[atom_of[v]] += w;
        total += w;
    }
    guint32 *atom_rank = g_new (guint32, n_atoms);
    if (by == WEFT_PARTITION_UNIT) {
        assign_in_order (aw, n_atoms, n_ranks, total, atom_rank);
    } else {
        GArray **adj = g_new (GArray *, n_atoms);
        for (guint i = 0; i < n_atoms; i++)
            adj[i] = g_array_new (FALSE, FALSE, sizeof (guint32));
        for (guint32 l = 0; l < nl; l++) {
            const WeftLink *link = weft_graph_link (g, l);
            guint32 a = atom_of[link->a], b = atom_of[link->b];
            if (a != b) {
                g_array_append_val (adj[a], b);
                g_array_append_val (adj[b], a);
            }
        }
        for (guint i = 0; i < n_atoms; i++)
            g_array_sort (adj[i], cmp_u32);
        assign_by_growth (aw, adj, n_atoms, n_ranks, total, atom_rank);
        for (guint i = 0; i < n_atoms; i++)
            g_array_free (adj[i], TRUE);
        g_free (adj);
    }

    out->n_ranks = n_ranks;
    out->by = by;
    out->n_atoms = n_atoms;
    out->joined = joined;
    out->rank_of = g_new (guint32, MAX (n, 1u));
    out->weight = g_new0 (guint64, n_ranks);
    for (guint32 v = 0; v < n; v++) {
        out->rank_of[v] = atom_rank[atom_of[v]];
        out->weight[out->rank_of[v]] += MAX (1u, cabled_ports (weft_graph_node (g, v)));
    }
    out->lookahead = WEFT_TIME_NEVER;
    for (guint32 l = 0; l < nl; l++) {
        const WeftLink *link = weft_graph_link (g, l);
        if (out->rank_of[link->a] != out->rank_of[link->b]) {
            out->cut_links++;
            out->lookahead = MIN (out->lookahead, link->delay_ps);
        }
    }
    g_free (atom_rank);
    g_free (aw);
    g_free (atom_of);
    return TRUE;
}

void
weft_partition_clear (WeftPartition *p)
{
    g_free (p->rank_of);
    g_free (p->weight);
    *p = (WeftPartition){ 0 };
}
