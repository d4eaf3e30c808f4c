#include "config.h"
#define G_LOG_DOMAIN "weft-cli"
#include <stdio.h>

#include "cli/cli.h"
#include "cli/footprint.h"
#include "cli/session.h"
#include "network/results.h"

int
weft_cli_validate (int argc, char **argv)
{
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
             "before simulating.  Exit status: 0 valid, 2 bad input (one line naming file,\n"
             "group, key).");
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
