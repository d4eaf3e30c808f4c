#include "config.h"
#define G_LOG_DOMAIN "weft-cli"
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "sim/errors.h"
#include "sim/experiment.h"
#include "weft-gitrev.h"

typedef struct {
    const char *name;
    int (*fn) (int argc, char **argv);
    const char *help;
} Command;

static const Command commands[] = {
    { "run", weft_cli_run, "simulate an experiment, write its HDF5 trace, print a summary" },
    { "validate", weft_cli_validate, "check an experiment file without simulating" },
    { "params", weft_cli_params, "list groups and parameters with types, defaults and ranges" },
    { "topo", weft_cli_topo, "build an experiment's topology and describe or export it" },
    { "report", weft_cli_report, "summarise a trace file (and say if it is incomplete)" },
    { "compare", weft_cli_compare, "runs side by side: what differs, figures and ratios" },
    { "diag", weft_cli_diag, "ibstat, perfquery and the worst links, over a run's trace" },
    { "plot", weft_cli_plot, "figures (PNG, SVG) from traces: FCT CDF, busbw, links, rates" },
    { "sweep", weft_cli_sweep, "list, run (here or on Slurm) and collect a parameter sweep" },
};

static void
usage (FILE *to)
{
    fprintf (to, "Usage: weft COMMAND [OPTIONS] ...\n\n"
                 "weft is a packet-level discrete-event simulator of AI training networks.\n\n"
                 "Commands:\n");
    for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
        fprintf (to, "  %-10s %s\n", commands[i].name, commands[i].help);
    fprintf (to, "\nOptions:\n  -h, --help     this text (weft COMMAND --help for a command)\n"
                 "  --version      print the version and git revision\n\n"
                 "Exit status: 0 done, 1 runtime failure, 2 bad input, 3 hang detected,\n"
                 "4 interrupted, 5 a sweep with invalid or failed points, 6 workload failed\n"
                 "(a connection ran out of retries).\n");
}

int
main (int argc, char **argv)
{
    if (argc < 2) {
        usage (stderr);
        return WEFT_EXIT_BAD_INPUT;
    }
    if (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0 ||
        strcmp (argv[1], "help") == 0) {
        usage (stdout);
        return WEFT_EXIT_DONE;
    }
    if (strcmp (argv[1], "--version") == 0) {
        printf ("weft %s (%s)\n", PACKAGE_VERSION, WEFT_GIT_REVISION);
        return WEFT_EXIT_DONE;
    }
    for (guint i = 0; i < G_N_ELEMENTS (commands); i++) {
        if (strcmp (argv[1], commands[i].name) == 0) {
            /* The subcommand sees itself as argv[0], so GOption prints "weft run" etc. */
            g_autofree char *prg = g_strconcat ("weft ", argv[1], NULL);
            g_set_prgname (prg);
            return commands[i].fn (argc - 1, argv + 1);
        }
    }
    const char *names[G_N_ELEMENTS (commands) + 1];
    for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
        names[i] = commands[i].name;
    names[G_N_ELEMENTS (commands)] = NULL;
    const char *guess = weft_suggest (argv[1], names);
    g_printerr ("weft: unknown command '%s'%s%s%s (see weft --help)\n", argv[1],
                guess ? ", did you mean '" : "", guess ? guess : "", guess ? "'?" : "");
    return WEFT_EXIT_BAD_INPUT;
}
