/* cli/cli.h - the subcommands of the weft front end.
 *
 * Each cli/X.c implements one subcommand as `int weft_cli_X (int argc, char **argv)`, where
 * argv[0] is the subcommand name; it parses its own options with GOption (so `weft X --help`
 * works), calls into the other folders, prints (errors with g_printerr, one line), and returns
 * the process exit status (sim/errors.h WeftExitStatus).  cli/main.c dispatches.
 */
#ifndef WEFT_CLI_CLI_H
#define WEFT_CLI_CLI_H

#include <glib.h>

int weft_cli_run (int argc, char **argv);
int weft_cli_validate (int argc, char **argv);
int weft_cli_params (int argc, char **argv);
int weft_cli_topo (int argc, char **argv);
int weft_cli_report (int argc, char **argv);
int weft_cli_compare (int argc, char **argv);
int weft_cli_diag (int argc, char **argv);
int weft_cli_plot (int argc, char **argv);
int weft_cli_sweep (int argc, char **argv);

/** The object `weft report --format json TRACE` prints (one line, newline-terminated), for
 * @path; NULL with WEFT_TRACE_ERROR when the file is not a weft trace.  `weft run
 * --summary-json` writes it, so both have one implementation.  (transfer full) */
char *weft_cli_report_summary_json (const char *path, GError **error);

#endif /* WEFT_CLI_CLI_H */
