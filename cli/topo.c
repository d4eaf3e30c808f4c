/* cli/topo.c - `weft topo FILE`: build an experiment's topology without simulating, and
 * describe it (topologies/summary.h), export it (--format dot|json|topo) or show routes
 * (--routes SRC DST) (topologies/export.h).
 */
#include "config.h"
#define G_LOG_DOMAIN "weft-cli"
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/footprint.h"
#include "models/fault.h"
#include "sim/experiment.h"
#include "sim/graph.h"
#include "sim/units.h"
#include "topologies/export.h"
#include "topologies/summary.h"
#include "topologies/topology.h"

/* --routes: checks the two names, then prints the path. */
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
    if (weft_graph_node (g, b)->endpoint == WEFT_GRAPH_NONE) {
        g_printerr ("weft topo: --routes: '%s' is not an endpoint (%s)\n", dst,
                    weft_node_kind_name (weft_graph_node (g, b)->kind));
        return WEFT_EXIT_BAD_INPUT;
    }
    g_autoptr (GString) out = g_string_new (NULL);
    weft_topo_print_route (out, g, a, b);
    fputs (out->str, stdout);
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
    g_autofree char *format = NULL, *src = NULL, *dst = NULL, *max_memory = NULL, *at = NULL;
    gboolean routes_doc = FALSE, faults = FALSE;
    GOptionEntry entries[] = {
        { "set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets, "override a parameter (repeatable)",
          "GROUP:KEY=VALUE" },
        { "format", 'f', 0, G_OPTION_ARG_STRING, &format,
          "export the graph: dot, json or topo (a topology file)", "FORMAT" },
        { "routes", 'r', 0, G_OPTION_ARG_NONE, &routes_doc,
          "SRC DST: print the path from node SRC to endpoint DST, with the equal-cost ports",
          NULL },
        { "faults", 0, 0, G_OPTION_ARG_NONE, &faults,
          "apply the experiment's [fault.NAME] groups: Down links and removed NICs left out, "
          "degraded links at their lower rate (every group in effect, or as at --at TIME)",
          NULL },
        { "at", 0, 0, G_OPTION_ARG_STRING, &at,
          "with --faults (implied): the fabric as the groups leave it at TIME of the run", "TIME" },
        { "max-memory", 0, 0, G_OPTION_ARG_STRING, &max_memory,
          "refuse a topology whose graph and routes would exceed SIZE (e.g. 8GiB; the "
          "process's own limits apply anyway)",
          "SIZE" },
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
             "Faults are not applied unless asked: --faults applies every [fault.NAME] group as\n"
             "if in effect at once; --at TIME (implies --faults) only those in effect at that\n"
             "time of the run (a link-flap in its Down half; a group with after = EVENT depends\n"
             "on the run and is not applied).  A Down link (link-down, link-flap, switch-down,\n"
             "uplinks-lost) and a removed NIC's link are left out of the description, the\n"
             "exports and the routes (recomputed, as a subnet manager would); a degraded link\n"
             "shows its lower rate.  What was applied is listed first (on stderr with\n"
             "--format).\n"
             "\n"
             "Examples:  weft topo experiments/dgx4.ini\n"
             "           weft topo --format dot experiments/dgx4.ini | dot -Tsvg > dgx4.svg\n"
             "           weft topo --format json experiments/dgx4.ini\n"
             "           weft topo --format topo experiments/dgx4.ini > my.topo  (edit, then\n"
             "             [topology] generator = file, file = my.topo)\n"
             "           weft topo --routes dgx-1/gpu0 dgx-4/gpu3 experiments/dgx4.ini\n"
             "           weft topo --faults --at 150us experiments/dead-link.ini");
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
    if (format && strcmp (format, "dot") != 0 && strcmp (format, "json") != 0 &&
        strcmp (format, "topo") != 0) {
        g_printerr ("weft topo: --format %s: expected dot, json or topo\n", format);
        return WEFT_EXIT_BAD_INPUT;
    }
    if (src && format) {
        g_printerr ("weft topo: --routes and --format: expected one of them\n");
        return WEFT_EXIT_BAD_INPUT;
    }
    guint64 at_ps = 0;
    if (at && !weft_units_parse_time (g_strstrip (at), &at_ps, &error)) {
        g_printerr ("weft topo: --at %s: %s\n", at, error->message);
        return WEFT_EXIT_BAD_INPUT;
    }
    faults |= at != NULL;
    guint64 max_bytes = 0;
    if (max_memory && !weft_footprint_parse_max (max_memory, &max_bytes, &error)) {
        g_printerr ("weft topo: %s\n", error->message);
        return WEFT_EXIT_BAD_INPUT;
    }
    g_autoptr (WeftExperiment) exp = weft_experiment_load (argv[1], &error);
    for (guint i = 0; exp && sets && sets[i]; i++)
        if (!weft_experiment_set (exp, sets[i], &error))
            break;
    g_autoptr (WeftGraph) g =
        error ? NULL : weft_footprint_build_topology (exp, FALSE, max_bytes, &error);
    if (g == NULL) {
        g_printerr ("%s\n", error->message);
        return WEFT_EXIT_BAD_INPUT;
    }
    g_autoptr (GString) out = g_string_new (NULL);
    if (faults) {
        g_autoptr (GString) notes = g_string_new (NULL);
        if (!weft_faults_apply_graph (exp, g, &error) ||
            !weft_faults_apply_topology (exp, g, at == NULL, at_ps, notes, &error) ||
            (!weft_graph_routes_ready (g) && !weft_topology_reroute (g, exp, &error))) {
            g_printerr ("%s\n", error->message);
            return WEFT_EXIT_BAD_INPUT;
        }
        g_autofree char *when = at ? weft_units_format_human_time (at_ps) : NULL;
        GString *to = format ? g_string_new (NULL) : out;
        g_string_append_printf (to, "Faults (%s%s):\n%s%s", when ? "at " : "every group in effect",
                                when ? when : "", notes->len ? notes->str : "  none\n",
                                format ? "" : "\n");
        if (format) {
            g_printerr ("%s", to->str);
            g_string_free (to, TRUE);
        }
    }
    if (src) {
        fputs (out->str, stdout);
        return routes (g, src, dst);
    }
    if (format && strcmp (format, "dot") == 0)
        weft_topo_export_dot (out, g);
    else if (format && strcmp (format, "json") == 0)
        weft_topo_export_json (out, g);
    else if (format)
        weft_topo_export_file (out, g);
    else
        weft_topo_summary_print (out, g, argv[1]);
    fputs (out->str, stdout);
    return WEFT_EXIT_DONE;
}
