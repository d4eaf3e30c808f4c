/* topologies/summary.c - a fabric counted from its graph (topologies/summary.h). */
#include "config.h"
#define G_LOG_DOMAIN "weft-topology"
#include "topologies/summary.h"

#include "sim/units.h"

static const char *const tier_names[WEFT_TOPO_TIERS] = { "endpoint", "leaf", "spine", "core" };
static const char *const tier_plural[WEFT_TOPO_TIERS] = { "endpoints", "leaves", "spines",
                                                          "cores" };

/* tier of a node for counting: switches their tier, everything else 0 */
static gint32
tier_of (const WeftNode *n)
{
    return n->kind == WEFT_NODE_SWITCH ? CLAMP (n->tier, 1, WEFT_TOPO_TIERS - 1) : 0;
}

/* Switch hops (fabric switches crossed) on the static path between two nodes, and the links
 * in *@links; G_MAXUINT for both when unreachable. */
static guint
switch_hops (const WeftGraph *g, guint32 a, guint32 b, guint *links)
{
    GArray *path = g_array_new (FALSE, FALSE, sizeof (guint32));
    guint h = weft_graph_route_path (g, a, b, path), n = 0;
    for (guint i = 0; i < path->len; i++)
        n += weft_graph_node (g, g_array_index (path, guint32, i))->kind == WEFT_NODE_SWITCH;
    g_array_unref (path);
    *links = h;
    return h == G_MAXUINT ? G_MAXUINT : n;
}

/* The first GPU on @rail (of SU @su, any if < 0) whose server is not @not_server and whose SU
 * is not @not_su (any if < 0); a GPU's SU is its gateway NIC's. */
static guint32
find_gpu (const WeftGraph *g, gint32 su, gint32 rail, guint32 not_server, gint32 not_su)
{
    for (guint i = 0; i < weft_graph_n_nodes (g); i++) {
        const WeftNode *n = weft_graph_node (g, i);
        if (n->kind != WEFT_NODE_GPU || n->rail != rail || (guint32) n->server == not_server)
            continue;
        guint32 nic = weft_graph_gateway (g, i);
        gint32 nsu = nic != WEFT_GRAPH_NONE ? weft_graph_node (g, nic)->su : -1;
        if ((su < 0 || nsu == su) && (not_su < 0 || nsu != not_su))
            return i;
    }
    return WEFT_GRAPH_NONE;
}

/* Adds switch @v's ports toward the tier below and its bandwidth up and down to @tp; @first:
 * @v is the first switch of its tier. */
static void
tier_ports_add (const WeftGraph *g, guint32 v, WeftTopoTier *tp, gboolean first)
{
    const WeftNode *n = weft_graph_node (g, v);
    gint32 t = tier_of (n);
    guint64 cabled = 0;
    for (guint p = 0; p < n->ports->len; p++) {
        guint32 lid = g_array_index (n->ports, guint32, p), u;
        if (lid == WEFT_GRAPH_NONE || weft_graph_link (g, lid)->kind != WEFT_LINK_FABRIC ||
            !weft_graph_peer (g, v, p, &u, NULL))
            continue;
        gint32 tu = tier_of (weft_graph_node (g, u));
        double bps = (double) weft_graph_link (g, lid)->rate_bps;
        if (tu < t) {
            cabled++;
            tp->down_bps += bps;
        } else if (tu > t) {
            tp->up_bps += bps;
        }
    }
    guint64 designed = MAX ((guint64) n->down_ports, cabled);
    tp->designed += designed;
    tp->cabled += cabled;
    if (first) {
        tp->uniform = TRUE;
        tp->first_designed = designed;
        tp->first_cabled = cabled;
    } else if (designed != tp->first_designed || cabled != tp->first_cabled) {
        tp->uniform = FALSE;
    }
}

/* The five typical GPU pairs, from the first GPU of rail 0 in SU 0. */
static void
hop_pairs (const WeftGraph *g, WeftTopoSummary *s)
{
    static const char *const labels[WEFT_TOPO_HOP_PAIRS] = {
        "same server:",         "same rail, same SU:",   "cross rail, same SU:",
        "same rail, other SU:", "cross rail, other SU:",
    };
    guint32 a = find_gpu (g, 0, 0, WEFT_GRAPH_NONE, -1), b[WEFT_TOPO_HOP_PAIRS];
    for (guint k = 0; k < WEFT_TOPO_HOP_PAIRS; k++)
        b[k] = WEFT_GRAPH_NONE;
    if (a != WEFT_GRAPH_NONE) {
        guint32 srv = weft_graph_node (g, a)->server;
        guint32 other_rail = find_gpu (g, -1, 1, WEFT_GRAPH_NONE, -1);
        if (other_rail != WEFT_GRAPH_NONE &&
            weft_graph_node (g, other_rail)->server == (gint32) srv)
            b[0] = other_rail;
        b[1] = find_gpu (g, 0, 0, srv, -1);
        b[2] = find_gpu (g, 0, 1, srv, -1);
        b[3] = find_gpu (g, -1, 0, srv, 0);
        b[4] = find_gpu (g, -1, 1, srv, 0);
    }
    for (guint k = 0; k < WEFT_TOPO_HOP_PAIRS; k++) {
        WeftTopoHopPair *p = &s->pairs[k];
        *p = (WeftTopoHopPair){ labels[k], a, b[k], G_MAXUINT, G_MAXUINT };
        if (a == WEFT_GRAPH_NONE || b[k] == WEFT_GRAPH_NONE)
            p->a = p->b = WEFT_GRAPH_NONE;
        else
            p->switch_hops = switch_hops (g, a, b[k], &p->links);
    }
}

void
weft_topo_summary_compute (const WeftGraph *g, WeftTopoSummary *s)
{
    g_return_if_fail (g != NULL && s != NULL);
    *s = (WeftTopoSummary){ 0 };
    gint32 max_server = -1;
    for (guint i = 0; i < weft_graph_n_nodes (g); i++) {
        const WeftNode *n = weft_graph_node (g, i);
        s->nodes_of_kind[n->kind]++;
        max_server = MAX (max_server, n->server);
        if (n->kind != WEFT_NODE_SWITCH)
            continue;
        gint32 t = tier_of (n);
        s->switches[t]++;
        s->ports[t] += n->ports->len;
        for (guint p = 0; p < n->ports->len; p++)
            s->ports_used[t] += g_array_index (n->ports, guint32, p) != WEFT_GRAPH_NONE;
        tier_ports_add (g, i, &s->tier[t], s->switches[t] == 1);
    }
    s->servers = (guint) (max_server + 1);
    s->gpudirect = weft_graph_gpudirect (g);
    s->n_links = weft_graph_n_links (g);
    for (guint i = 0; i < weft_graph_n_links (g); i++) {
        if (weft_graph_link_removed (g, i)) {
            s->n_links--; /* gone (weft topo --faults) */
            continue;
        }
        const WeftLink *l = weft_graph_link (g, i);
        s->links_of_kind[l->kind]++;
        if (l->kind != WEFT_LINK_FABRIC)
            continue;
        gint32 ta = tier_of (weft_graph_node (g, l->a)), tb = tier_of (weft_graph_node (g, l->b));
        gint32 lo = MIN (ta, tb), hi = MAX (ta, tb);
        s->cables[lo][hi]++;
        if (hi == lo + 1)
            s->cross_bps[lo] += l->rate_bps;
    }
    for (gint32 t = 1; t < WEFT_TOPO_TIERS; t++) {
        WeftTopoTier *tp = &s->tier[t];
        if (tp->up_bps <= 0 || tp->cabled == 0)
            continue;
        /* empty down ports count at the mean rate of the tier's cabled ones */
        double down_rate = tp->down_bps / tp->cabled;
        tp->designed_ratio = down_rate * tp->designed / tp->up_bps;
        tp->populated_ratio = tp->down_bps / tp->up_bps;
    }
    for (gint32 t = 0; t < WEFT_TOPO_TIERS; t++)
        if (s->cross_bps[t] > 0 && (s->bisection_bps == 0 || s->cross_bps[t] < s->bisection_bps))
            s->bisection_bps = s->cross_bps[t];
    s->bisection_bps /= 2;
    s->routes_bytes = weft_graph_routes_bytes (g);
    if (s->nodes_of_kind[WEFT_NODE_GPU] > 0)
        hop_pairs (g, s);
}

/* The nodes, switches, links, cables and radix lines. */
static void
print_counts (GString *out, const WeftTopoSummary *s)
{
    const guint *kinds = s->nodes_of_kind;
    if (s->servers > 0)
        g_string_append_printf (
            out, "  servers %d, GPUs %u, NICs %u, NVSwitches %u, PCIe switches %u, GPUDirect %s\n",
            (int) s->servers, kinds[WEFT_NODE_GPU], kinds[WEFT_NODE_NIC], kinds[WEFT_NODE_NVSWITCH],
            kinds[WEFT_NODE_PCIE_SWITCH], s->gpudirect ? "on" : "off");
    if (kinds[WEFT_NODE_HOST])
        g_string_append_printf (out, "  hosts %u\n", kinds[WEFT_NODE_HOST]);
    g_string_append_printf (out, "  switches %u:", kinds[WEFT_NODE_SWITCH]);
    for (gint32 t = 1; t < WEFT_TOPO_TIERS; t++)
        if (s->switches[t])
            g_string_append_printf (out, " %u %s", s->switches[t],
                                    s->switches[t] == 1 ? tier_names[t] : tier_plural[t]);
    g_string_append_printf (out, "\n  links %u: %u fabric, %u NVLink, %u PCIe\n", s->n_links,
                            s->links_of_kind[WEFT_LINK_FABRIC], s->links_of_kind[WEFT_LINK_NVLINK],
                            s->links_of_kind[WEFT_LINK_PCIE]);
    g_string_append (out, "  cables per tier:");
    for (gint32 a = 0; a < WEFT_TOPO_TIERS; a++)
        for (gint32 b = a; b < WEFT_TOPO_TIERS; b++)
            if (s->cables[a][b])
                g_string_append_printf (out, " %s-%s %u", tier_names[a], tier_names[b],
                                        s->cables[a][b]);
    g_string_append (out, "\n  radix use:");
    for (gint32 t = 1; t < WEFT_TOPO_TIERS; t++)
        if (s->switches[t])
            g_string_append_printf (
                out, " %s %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT " ports (%.0f%%)",
                tier_names[t], s->ports_used[t], s->ports[t],
                100.0 * s->ports_used[t] / MAX (s->ports[t], 1));
    g_string_append_c (out, '\n');
}

/* The oversubscription line: per tier "top", "no down ports cabled" or the designed ratio,
 * then the populated one when they differ.  Ratios x:1 with up to three significant digits
 * ("1:1", "3:1", "0.125:1", "1.94:1"). */
static void
print_oversubscription (GString *out, const WeftTopoSummary *s)
{
    g_string_append (
        out, "  oversubscription (down:up bandwidth per tier, as designed, from the ports):");
    const char *sep = " ";
    for (gint32 t = 1; t < WEFT_TOPO_TIERS; t++) {
        const WeftTopoTier *tp = &s->tier[t];
        if (!s->switches[t])
            continue;
        g_string_append_printf (out, "%s%s ", sep, tier_names[t]);
        sep = ", ";
        if (tp->up_bps <= 0) {
            g_string_append (out, "top");
            continue;
        }
        if (tp->cabled == 0) {
            g_string_append (out, "no down ports cabled");
            continue;
        }
        g_string_append_printf (out, "%.3g:1", tp->designed_ratio);
        if (tp->cabled == tp->designed)
            continue;
        g_string_append_printf (out, " (populated %.3g:1", tp->populated_ratio);
        if (tp->uniform)
            g_string_append_printf (
                out, ": %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " down ports used per %s)",
                tp->first_cabled, tp->first_designed, tier_names[t]);
        else
            g_string_append_printf (
                out, ": %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " down ports used on %u %s)",
                tp->cabled, tp->designed, s->switches[t], tier_plural[t]);
    }
    g_string_append_c (out, '\n');
}

void
weft_topo_summary_print (GString *out, const WeftGraph *g, const char *title)
{
    g_return_if_fail (out != NULL && g != NULL && title != NULL);
    WeftTopoSummary s;
    weft_topo_summary_compute (g, &s);
    g_string_append_printf (out, "%s\n", title);
    print_counts (out, &s);
    print_oversubscription (out, &s);
    if (s.bisection_bps > 0) {
        g_autofree char *rate = weft_units_format_rate ((guint64) (s.bisection_bps + 0.5));
        g_string_append_printf (
            out, "  bisection bandwidth (half the narrowest tier boundary, each way): %s\n", rate);
    }
    g_string_append_printf (out, "  route tables: %.1f MiB\n", s.routes_bytes / 1048576.0);
    if (s.nodes_of_kind[WEFT_NODE_GPU] == 0)
        return;
    g_string_append (out, "  hops between GPUs (static routes):\n");
    for (guint k = 0; k < WEFT_TOPO_HOP_PAIRS; k++) {
        const WeftTopoHopPair *p = &s.pairs[k];
        if (p->a == WEFT_GRAPH_NONE)
            continue;
        const char *a = weft_graph_node (g, p->a)->name, *b = weft_graph_node (g, p->b)->name;
        if (p->switch_hops == G_MAXUINT)
            g_string_append_printf (out, "  %-26s %s -> %s: unreachable\n", p->label, a, b);
        else
            g_string_append_printf (out, "  %-26s %s -> %s: %u switch hops (%u links)\n", p->label,
                                    a, b, p->switch_hops, p->links);
    }
}
