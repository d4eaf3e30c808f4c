/* cli/topo.c - `weft topo FILE`: build an experiment's topology without simulating, and
 * describe it (summary), export it (--format dot|json) or show routes (--routes SRC DST).
 *
 * Every figure is computed from the generated ports and links, never echoed from the
 * parameters.  Oversubscription of a switch tier is down-bandwidth : up-bandwidth summed over
 * its switches' ports.  The designed ratio counts every port meant for the tier below (the
 * node's down_ports), cabled or not, at the mean rate of the tier's cabled down links; a
 * partial scalable unit leaves server ports empty while its leaves keep all their uplinks, so
 * the populated ratio (cabled ports only) is shown beside it when they differ.
 */
#include "config.h"
#define G_LOG_DOMAIN "weft-cli"
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "sim/experiment.h"
#include "sim/graph.h"
#include "sim/units.h"
#include "topologies/topology.h"

#define MAX_TIER 4

/* tier of a node for counting: switches their tier, everything else 0 */
static gint32
tier_of (const WeftNode *n)
{
    return n->kind == WEFT_NODE_SWITCH ? CLAMP (n->tier, 1, MAX_TIER - 1) : 0;
}

static void
print_rate (const char *label, double bps)
{
    g_autofree char *t = weft_units_format_rate ((guint64) (bps + 0.5));
    printf ("%s%s\n", label, t);
}

/* Switch hops (fabric switches crossed) on the static path between two nodes. */
static guint
switch_hops (const WeftGraph *g, guint32 a, guint32 b, guint *links)
{
    GArray *path = g_array_new (FALSE, FALSE, sizeof (guint32));
    guint h = weft_graph_route_path (g, a, b, path), n = 0;
    for (guint i = 0; i < path->len; i++)
        n += weft_graph_node (g, g_array_index (path, guint32, i))->kind == WEFT_NODE_SWITCH;
    g_array_unref (path);
    if (links)
        *links = h;
    return h == G_MAXUINT ? G_MAXUINT : n;
}

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

static void
print_pair (const WeftGraph *g, const char *label, guint32 a, guint32 b)
{
    if (a == WEFT_GRAPH_NONE || b == WEFT_GRAPH_NONE)
        return;
    guint links, sh = switch_hops (g, a, b, &links);
    if (sh == G_MAXUINT)
        printf ("  %-26s %s -> %s: unreachable\n", label, weft_graph_node (g, a)->name,
                weft_graph_node (g, b)->name);
    else
        printf ("  %-26s %s -> %s: %u switch hops (%u links)\n", label,
                weft_graph_node (g, a)->name, weft_graph_node (g, b)->name, sh, links);
}

/* A ratio x:1 with up to three significant digits ("1:1", "3:1", "0.125:1", "1.94:1"). */
static void
print_ratio (double x)
{
    printf ("%.3g:1", x);
}

/* Per switch tier: ports meant for the tier below (designed) and cabled there, their
 * bandwidth, and the uplink bandwidth; "uniform" while every switch of the tier agrees. */
typedef struct {
    guint64 designed, cabled;
    double down_bps, up_bps;
    guint64 first_designed, first_cabled;
    gboolean uniform, seen;
} TierPorts;

static void
tier_ports_add (const WeftGraph *g, guint32 v, TierPorts *tp)
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
    if (!tp->seen) {
        tp->seen = tp->uniform = TRUE;
        tp->first_designed = designed;
        tp->first_cabled = cabled;
    } else if (designed != tp->first_designed || cabled != tp->first_cabled) {
        tp->uniform = FALSE;
    }
}

static void
summary (const WeftGraph *g, const char *file)
{
    guint kinds[WEFT_NODE_KIND_COUNT] = { 0 }, sw_tier[MAX_TIER] = { 0 };
    guint64 ports_tier[MAX_TIER] = { 0 }, used_tier[MAX_TIER] = { 0 };
    TierPorts tp[MAX_TIER] = { { 0 } };
    guint link_kind[WEFT_LINK_KIND_COUNT] = { 0 }, cables[MAX_TIER][MAX_TIER] = { { 0 } };
    double cross_bps[MAX_TIER] = { 0 };
    gint32 max_server = -1;
    for (guint i = 0; i < weft_graph_n_nodes (g); i++) {
        const WeftNode *n = weft_graph_node (g, i);
        kinds[n->kind]++;
        max_server = MAX (max_server, n->server);
        if (n->kind == WEFT_NODE_SWITCH) {
            gint32 t = tier_of (n);
            sw_tier[t]++;
            ports_tier[t] += n->ports->len;
            for (guint p = 0; p < n->ports->len; p++)
                if (g_array_index (n->ports, guint32, p) != WEFT_GRAPH_NONE)
                    used_tier[t]++;
            tier_ports_add (g, i, &tp[t]);
        }
    }
    for (guint i = 0; i < weft_graph_n_links (g); i++) {
        const WeftLink *l = weft_graph_link (g, i);
        link_kind[l->kind]++;
        if (l->kind != WEFT_LINK_FABRIC)
            continue;
        gint32 ta = tier_of (weft_graph_node (g, l->a)), tb = tier_of (weft_graph_node (g, l->b));
        gint32 lo = MIN (ta, tb), hi = MAX (ta, tb);
        cables[lo][hi]++;
        if (hi == lo + 1)
            cross_bps[lo] += l->rate_bps;
    }
    printf ("%s\n", file);
    if (max_server >= 0)
        printf ("  servers %d, GPUs %u, NICs %u, NVSwitches %u, PCIe switches %u, GPUDirect %s\n",
                max_server + 1, kinds[WEFT_NODE_GPU], kinds[WEFT_NODE_NIC],
                kinds[WEFT_NODE_NVSWITCH], kinds[WEFT_NODE_PCIE_SWITCH],
                weft_graph_gpudirect (g) ? "on" : "off");
    if (kinds[WEFT_NODE_HOST])
        printf ("  hosts %u\n", kinds[WEFT_NODE_HOST]);
    static const char *tier_names[MAX_TIER] = { "endpoint", "leaf", "spine", "core" };
    static const char *plural[MAX_TIER] = { "endpoints", "leaves", "spines", "cores" };
    printf ("  switches %u:", kinds[WEFT_NODE_SWITCH]);
    for (gint32 t = 1; t < MAX_TIER; t++)
        if (sw_tier[t])
            printf (" %u %s", sw_tier[t], sw_tier[t] == 1 ? tier_names[t] : plural[t]);
    printf ("\n  links %u: %u fabric, %u NVLink, %u PCIe\n", weft_graph_n_links (g),
            link_kind[WEFT_LINK_FABRIC], link_kind[WEFT_LINK_NVLINK], link_kind[WEFT_LINK_PCIE]);
    printf ("  cables per tier:");
    for (gint32 a = 0; a < MAX_TIER; a++)
        for (gint32 b = a; b < MAX_TIER; b++)
            if (cables[a][b])
                printf (" %s-%s %u", tier_names[a], tier_names[b], cables[a][b]);
    printf ("\n  radix use:");
    for (gint32 t = 1; t < MAX_TIER; t++)
        if (sw_tier[t])
            printf (" %s %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT " ports (%.0f%%)", tier_names[t],
                    used_tier[t], ports_tier[t], 100.0 * used_tier[t] / MAX (ports_tier[t], 1));
    printf ("\n  oversubscription (down:up bandwidth per tier, as designed, from the ports):");
    const char *sep = " ";
    for (gint32 t = 1; t < MAX_TIER; t++) {
        if (!sw_tier[t])
            continue;
        printf ("%s%s ", sep, tier_names[t]);
        sep = ", ";
        if (tp[t].up_bps <= 0) {
            printf ("top");
            continue;
        }
        /* empty down ports count at the mean rate of the tier's cabled ones */
        double down_rate = tp[t].cabled ? tp[t].down_bps / tp[t].cabled : 0;
        if (tp[t].cabled == 0) {
            printf ("no down ports cabled");
            continue;
        }
        print_ratio (down_rate * tp[t].designed / tp[t].up_bps);
        if (tp[t].cabled == tp[t].designed)
            continue;
        printf (" (populated ");
        print_ratio (tp[t].down_bps / tp[t].up_bps);
        if (tp[t].uniform)
            printf (": %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " down ports used per %s)",
                    tp[t].first_cabled, tp[t].first_designed, tier_names[t]);
        else
            printf (": %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " down ports used on %u %s)",
                    tp[t].cabled, tp[t].designed, sw_tier[t], plural[t]);
    }
    printf ("\n");
    /* Bisection estimate for symmetric trees: half the smallest capacity between tiers. */
    double bis = 0;
    for (gint32 t = 0; t < MAX_TIER; t++)
        if (cross_bps[t] > 0 && (bis == 0 || cross_bps[t] < bis))
            bis = cross_bps[t];
    if (bis > 0)
        print_rate ("  bisection bandwidth (half the narrowest tier boundary, each way): ", bis / 2);
    printf ("  route tables: %.1f MiB\n", weft_graph_routes_bytes (g) / 1048576.0);

    if (kinds[WEFT_NODE_GPU] > 0) {
        printf ("  hops between GPUs (static routes):\n");
        guint32 a = find_gpu (g, 0, 0, WEFT_GRAPH_NONE, -1);
        if (a != WEFT_GRAPH_NONE) {
            guint32 srv = weft_graph_node (g, a)->server;
            guint32 b = find_gpu (g, -1, 1, WEFT_GRAPH_NONE, -1);
            print_pair (g, "same server:", a,
                        b != WEFT_GRAPH_NONE && weft_graph_node (g, b)->server == (gint32) srv
                            ? b
                            : WEFT_GRAPH_NONE);
            print_pair (g, "same rail, same SU:", a, find_gpu (g, 0, 0, srv, -1));
            print_pair (g, "cross rail, same SU:", a, find_gpu (g, 0, 1, srv, -1));
            print_pair (g, "same rail, other SU:", a, find_gpu (g, -1, 0, srv, 0));
            print_pair (g, "cross rail, other SU:", a, find_gpu (g, -1, 1, srv, 0));
        }
    }
}

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

static void
export_dot (const WeftGraph *g)
{
    static const char *shape[WEFT_NODE_KIND_COUNT] = {
        "ellipse", "box", "ellipse", "diamond", "hexagon", "octagon", "cylinder",
    };
    printf ("graph weft {\n  node [fontsize=10];\n");
    for (guint i = 0; i < weft_graph_n_nodes (g); i++) {
        const WeftNode *n = weft_graph_node (g, i);
        g_autofree char *id = dot_id (n->name);
        printf ("  %s [shape=%s];\n", id, shape[n->kind]);
    }
    for (guint i = 0; i < weft_graph_n_links (g); i++) {
        const WeftLink *l = weft_graph_link (g, i);
        g_autofree char *a = dot_id (weft_graph_node (g, l->a)->name);
        g_autofree char *b = dot_id (weft_graph_node (g, l->b)->name);
        g_autofree char *rate = weft_units_format_rate (l->rate_bps);
        printf ("  %s -- %s [taillabel=%u, headlabel=%u, label=\"%s\"%s];\n", a, b, l->pa + 1,
                l->pb + 1, rate, l->kind == WEFT_LINK_FABRIC ? "" : ", style=dashed");
    }
    printf ("}\n");
}

static void
export_json (const WeftGraph *g)
{
    printf ("{\n  \"nodes\": [\n");
    for (guint i = 0; i < weft_graph_n_nodes (g); i++) {
        const WeftNode *n = weft_graph_node (g, i);
        g_autofree char *name = g_strescape (n->name, NULL);
        printf ("    {\"id\": %u, \"name\": \"%s\", \"kind\": \"%s\", \"tier\": %d, \"server\": %d, "
                "\"su\": %d, \"rail\": %d, \"ports\": %u, \"endpoint\": %d}%s\n",
                i, name, weft_node_kind_name (n->kind), n->tier, n->server, n->su, n->rail,
                n->ports->len, n->endpoint == WEFT_GRAPH_NONE ? -1 : (int) n->endpoint,
                i + 1 < weft_graph_n_nodes (g) ? "," : "");
    }
    printf ("  ],\n  \"links\": [\n");
    for (guint i = 0; i < weft_graph_n_links (g); i++) {
        const WeftLink *l = weft_graph_link (g, i);
        printf ("    {\"id\": %u, \"a\": %u, \"port_a\": %u, \"b\": %u, \"port_b\": %u, "
                "\"rate_bps\": %" G_GUINT64_FORMAT ", \"delay_ps\": %" G_GUINT64_FORMAT
                ", \"length_m\": %g, \"kind\": \"%s\"}%s\n",
                i, l->a, l->pa + 1, l->b, l->pb + 1, l->rate_bps, l->delay_ps, l->length_m,
                weft_link_kind_name (l->kind), i + 1 < weft_graph_n_links (g) ? "," : "");
    }
    printf ("  ]\n}\n");
}

static int
routes (const WeftGraph *g, const char *src, const char *dst)
{
    guint32 a = weft_graph_lookup (g, src), b = weft_graph_lookup (g, dst);
    if (a == WEFT_GRAPH_NONE || b == WEFT_GRAPH_NONE) {
        g_printerr ("weft topo: --routes: unknown node '%s': expected a name such as %s\n",
                    a == WEFT_GRAPH_NONE ? src : dst,
                    weft_graph_node (g, weft_graph_endpoint_node (g, 0))->name);
        return WEFT_EXIT_BAD_INPUT;
    }
    guint32 ep = weft_graph_node (g, b)->endpoint;
    if (ep == WEFT_GRAPH_NONE) {
        g_printerr ("weft topo: --routes: '%s' is not an endpoint (%s)\n", dst,
                    weft_node_kind_name (weft_graph_node (g, b)->kind));
        return WEFT_EXIT_BAD_INPUT;
    }
    GArray *path = g_array_new (FALSE, FALSE, sizeof (guint32));
    guint hops = weft_graph_route_path (g, a, b, path);
    if (hops == G_MAXUINT) {
        printf ("%s -> %s: unreachable\n", src, dst);
        g_array_unref (path);
        return WEFT_EXIT_DONE;
    }
    guint sw = 0;
    for (guint i = 0; i < path->len; i++)
        sw += weft_graph_node (g, g_array_index (path, guint32, i))->kind == WEFT_NODE_SWITCH;
    printf ("%s -> %s: %u links, %u switch hop%s; static path, with the equal-cost choices at "
            "each hop:\n",
            src, dst, hops, sw, sw == 1 ? "" : "s");
    for (guint i = 0; i + 1 < path->len; i++) {
        guint32 v = g_array_index (path, guint32, i);
        guint n;
        const guint32 *set = weft_graph_route_set (g, v, ep, &n);
        guint32 port = weft_graph_route_static (g, v, ep);
        printf ("  %-28s out port %-3u", weft_graph_node (g, v)->name, port + 1);
        if (n > 1) {
            printf ("  (%u equal-cost ports:", n);
            for (guint k = 0; k < n && k < 16; k++)
                printf (" %u", set[k] + 1);
            printf ("%s)", n > 16 ? " ..." : "");
        }
        printf ("\n");
    }
    printf ("  %s\n", dst);
    g_array_unref (path);
    return WEFT_EXIT_DONE;
}

/* `--routes SRC DST` takes two values, which GOption cannot parse: take `--routes` (or `-r`,
 * or `--routes=SRC`) and its node names out of argv before GOption sees it.  The entry in the
 * option table only documents it.  Stops at "--". */
static gboolean
take_routes (int *argc, char **argv, char **src, char **dst)
{
    int out = 1;
    gboolean taken = FALSE, options = TRUE;
    for (int i = 1; i < *argc; i++) {
        const char *a = argv[i];
        if (options && strcmp (a, "--") == 0)
            options = FALSE;
        gboolean eq = options && g_str_has_prefix (a, "--routes=");
        if (!options || (!eq && strcmp (a, "--routes") != 0 && strcmp (a, "-r") != 0)) {
            argv[out++] = argv[i];
            continue;
        }
        if (taken) {
            g_printerr ("weft topo: --routes given twice: expected one --routes SRC DST\n");
            return FALSE;
        }
        taken = TRUE;
        const char *names[2] = { eq ? a + strlen ("--routes=") : NULL, NULL };
        for (int k = eq ? 1 : 0; k < 2; k++)
            names[k] = i + 1 < *argc && argv[i + 1][0] != '-' ? argv[++i] : NULL;
        if (!names[0] || !names[0][0] || !names[1]) {
            g_printerr ("weft topo: --routes: expected two node names, --routes SRC DST "
                        "(e.g. --routes dgx-1/gpu0 dgx-2/gpu0)\n");
            return FALSE;
        }
        *src = g_strdup (names[0]);
        *dst = g_strdup (names[1]);
    }
    argv[out] = NULL;
    *argc = out;
    return TRUE;
}

int
weft_cli_topo (int argc, char **argv)
{
    g_auto (GStrv) sets = NULL;
    g_autofree char *format = NULL, *src = NULL, *dst = NULL;
    gboolean routes_doc = FALSE;
    GOptionEntry entries[] = {
        { "set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets, "override a parameter (repeatable)",
          "GROUP:KEY=VALUE" },
        { "format", 'f', 0, G_OPTION_ARG_STRING, &format, "export the graph: dot or json",
          "FORMAT" },
        { "routes", 'r', 0, G_OPTION_ARG_NONE, &routes_doc,
          "SRC DST: print the path from node SRC to endpoint DST, with the equal-cost ports",
          NULL },
        { NULL }
    };
    g_autoptr (GOptionContext) ctx =
        g_option_context_new ("EXPERIMENT.ini - build a topology and describe it");
    g_option_context_set_summary (
        ctx, "Builds the [topology] of an experiment without simulating and prints servers,\n"
             "GPUs, NICs, switches and cables per tier, radix use, oversubscription computed\n"
             "from the ports, bisection bandwidth and GPU-to-GPU hop counts.\n"
             "\n"
             "Oversubscription of a switch tier is its down-bandwidth : up-bandwidth. The\n"
             "designed ratio counts every port meant for the tier below, cabled or not, at the\n"
             "rate of the tier's cabled down links. A partial scalable unit leaves server ports\n"
             "empty but keeps every leaf uplink, so the populated ratio (cabled ports only)\n"
             "follows when the two differ: dgx4.ini (4 servers in a 32-slot SU) prints\n"
             "\"leaf 1:1 (populated 0.125:1: 4 of 32 down ports used per leaf)\". The top tier\n"
             "has no uplinks and prints \"top\".\n"
             "\n"
             "Examples:  weft topo experiments/dgx4.ini\n"
             "           weft topo --format dot experiments/dgx4.ini | dot -Tsvg > dgx4.svg\n"
             "           weft topo --format json experiments/dgx4.ini\n"
             "           weft topo --routes dgx-1/gpu0 dgx-4/gpu3 experiments/dgx4.ini");
    g_option_context_add_main_entries (ctx, entries, NULL);
    g_autoptr (GError) error = NULL;
    if (!take_routes (&argc, argv, &src, &dst))
        return WEFT_EXIT_BAD_INPUT;
    if (!g_option_context_parse (ctx, &argc, &argv, &error)) {
        g_printerr ("weft topo: %s\n", error->message);
        return WEFT_EXIT_BAD_INPUT;
    }
    if (argc != 2 && src) {
        g_printerr ("weft topo: expected one experiment file besides --routes SRC DST (%s "
                    "and %s were taken as the nodes)\n",
                    src, dst);
        return WEFT_EXIT_BAD_INPUT;
    }
    if (argc != 2) {
        g_printerr ("weft topo: expected one experiment file (see weft topo --help)\n");
        return WEFT_EXIT_BAD_INPUT;
    }
    if (format && strcmp (format, "dot") != 0 && strcmp (format, "json") != 0) {
        g_printerr ("weft topo: --format %s: expected dot or json\n", format);
        return WEFT_EXIT_BAD_INPUT;
    }
    if (src && format) {
        g_printerr ("weft topo: --routes and --format: expected one of them\n");
        return WEFT_EXIT_BAD_INPUT;
    }
    g_autoptr (WeftExperiment) exp = weft_experiment_load (argv[1], &error);
    for (guint i = 0; exp && sets && sets[i]; i++)
        if (!weft_experiment_set (exp, sets[i], &error))
            break;
    g_autoptr (WeftGraph) g = error ? NULL : weft_topology_build (exp, &error);
    if (g == NULL) {
        g_printerr ("%s\n", error->message);
        return WEFT_EXIT_BAD_INPUT;
    }
    if (src)
        return routes (g, src, dst);
    if (format && strcmp (format, "dot") == 0)
        export_dot (g);
    else if (format)
        export_json (g);
    else
        summary (g, argv[1]);
    return WEFT_EXIT_DONE;
}
