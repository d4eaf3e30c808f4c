/* cli/main.c - the weft front end: dispatches `weft NAME ...` to the subcommand NAME.
 *
 * Subcommands live in one static table (cli/cli.h declares their functions); adding one is a
 * new cli/X.c and a row here.  Each parses its own options, so `weft NAME --help` works.
 */
#include "config.h"
#define G_LOG_DOMAIN "weft-cli"
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

typedef struct {
    const char *name;
    int (*run) (int argc, char **argv); /* argv[0] is the subcommand name */
    const char *summary;                /* one line for `weft --help` */
} Subcommand;

static const Subcommand subcommands[] = {
    { "report", weft_cli_report, "summarise a trace file (HDF5); exit 0 complete, 1 incomplete" },
};

static void
usage (FILE *out)
{
    fprintf (out, "Usage: weft COMMAND [OPTIONS...]\n\nCommands:\n");
    for (gsize i = 0; i < G_N_ELEMENTS (subcommands); i++)
        fprintf (out, "  %-10s %s\n", subcommands[i].name, subcommands[i].summary);
    fprintf (out, "\n`weft COMMAND --help` describes a command; `weft --version` prints the version.\n");
}

int
main (int argc, char **argv)
{
    if (argc < 2) {
        usage (stderr);
        return 2;
    }
    if (strcmp (argv[1], "--version") == 0) {
        printf ("weft %s\n", PACKAGE_VERSION);
        return 0;
    }
    if (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0
        || strcmp (argv[1], "help") == 0) {
        usage (stdout);
        return 0;
    }
    for (gsize i = 0; i < G_N_ELEMENTS (subcommands); i++)
        if (strcmp (argv[1], subcommands[i].name) == 0)
            return subcommands[i].run (argc - 1, argv + 1);
    g_printerr ("weft: unknown command \"%s\" (see weft --help)\n", argv[1]);
    return 2;
}
