#include "config.h"
#define G_LOG_DOMAIN "weft-cli"
#include <stdio.h>
#include <sys/resource.h>

#include "cli/cli.h"
#include "cli/footprint.h"
#include "cli/session.h"
#include "network/results.h"
#include "sim/units.h"

/* The process's peak resident size so far (getrusage), in bytes. */
static guint64
peak_bytes (void)
{
    struct rusage ru;
    return getrusage (RUSAGE_SELF, &ru) == 0 ? (guint64) ru.ru_maxrss * 1024 : 0;
}

/* The memory line: the estimate of what was built (from the graph's counts, as the check before
 * its routes saw them, with the process as it stood at @base_bytes before reading anything),
 * the peak it measured and the limit (doc/scale.md). */
static void
print_memory (const WeftFootprint *fp, guint64 base_bytes, guint64 max_bytes)
{
    guint64 total = fp->total - fp->base + base_bytes;
    g_autofree char *what = NULL;
    guint64 limit = weft_footprint_limit (max_bytes, &what);
    printf ("  memory       %.3f GiB estimated (graph %.3f, routes %.3f, models %.3f, flows %.3f "
            "for %" G_GUINT64_FORMAT " flows), %.3f GiB peak; limit %.2f GiB (%s)\n",
            weft_units_gib (total), weft_units_gib (fp->graph), weft_units_gib (fp->routes),
            weft_units_gib (fp->models), weft_units_gib (fp->flows), fp->n_flows,
            weft_units_gib (peak_bytes ()), weft_units_gib (limit), what);
}

/* The flows line: the flows made against those the estimate counted before building (a
 * collective's are not counted), and the budget the memory left holds (cli/footprint.h), so that
 * a sweep can be sized before it is refused (doc/scale.md). */
static void
print_flows (const WeftSession *s, const WeftFootprint *fp)
{
    printf ("  flows        %u made, %" G_GUINT64_FORMAT " of them counted by the estimate",
            weft_network_n_flows (s->net), fp->n_flows);
    const WeftFlowBudget *b = &s->budget;
    if (b->max_flows != G_MAXUINT64) /* G_MAXUINT64: the estimate could not be made */
        printf ("; budget %" G_GUINT64_FORMAT " flows (an estimated %" G_GUINT64_FORMAT
                " bytes a flow, in the %.2f GiB that %s leaves once the fabric is built)",
                b->max_flows, b->flow_bytes, weft_units_gib (b->bytes), b->limit);
    putchar ('\n');
}

int
weft_cli_validate (int argc, char **argv)
{
    guint64 base_bytes = peak_bytes ();
    g_auto (GStrv) sets = NULL;
    g_autofree char *max_memory = NULL;
    GOptionEntry entries[] = { { "set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets,
                                 "override a parameter (repeatable)", "GROUP:KEY=VALUE" },
                               { "max-memory", 0, 0, G_OPTION_ARG_STRING, &max_memory,
                                 WEFT_FOOTPRINT_MAX_HELP, "SIZE" },
                               { NULL } };
    g_autoptr (GOptionContext) ctx =
        g_option_context_new ("EXPERIMENT.ini - check an experiment without running it");
    g_option_context_set_summary (
        ctx, "Reads the experiment and its includes, applies overrides, checks every group and\n"
             "key, estimates the memory the run needs (refused above --max-memory or the\n"
             "process's limits), builds the topology, the models and the workload, and stops\n"
             "before simulating; prints the estimate beside the peak memory it measured, and\n"
             "the flows made beside the budget of flows the memory left holds.\n"
             "Exit status: 0 valid, 2 bad input (one line naming file, group, key).");
    g_option_context_add_main_entries (ctx, entries, NULL);
    g_autoptr (GError) error = NULL;
    if (!g_option_context_parse (ctx, &argc, &argv, &error)) {
        g_printerr ("weft validate: %s\n", error->message);
        return WEFT_EXIT_BAD_INPUT;
    }
    if (argc != 2) {
        g_printerr ("weft validate: expected one experiment file (see weft validate --help)\n");
        return WEFT_EXIT_BAD_INPUT;
    }
    guint64 max_bytes = 0;
    if (max_memory && !weft_footprint_parse_max (max_memory, &max_bytes, &error)) {
        g_printerr ("weft validate: %s\n", error->message);
        return WEFT_EXIT_BAD_INPUT;
    }
    WeftSession s;
    gboolean ok = weft_session_prepare (&s, argv[1], sets, NULL, max_bytes, &error);
    if (ok) {
        printf ("%s: valid: %u nodes, %u links, %u flows\n", argv[1], weft_graph_n_nodes (s.graph),
                weft_graph_n_links (s.graph), weft_network_n_flows (s.net));
        /* The estimate of what was built, from the graph's counts (doc/scale.md). */
        WeftFootprint fp;
        if (weft_footprint_estimate (s.exp, s.graph, TRUE, &fp, NULL) && fp.known) {
            print_memory (&fp, base_bytes, max_bytes);
            print_flows (&s, &fp);
        }
        /* Other fabrics' groups, accepted for comparisons, but worth seeing. */
        g_autoptr (GString) unused = g_string_new (NULL);
        weft_mechanisms_unused_line (&s.net->env, unused);
        fputs (unused->str, stdout);
        if (s.sweep_points > 0)
            printf ("%s: a sweep of %u points; this checked its [sweep] group and its base "
                    "point (weft sweep --list checks every point)\n",
                    argv[1], s.sweep_points);
    } else
        g_printerr ("%s\n", error->message);
    weft_session_clear (&s);
    return ok ? WEFT_EXIT_DONE : WEFT_EXIT_BAD_INPUT;
}
