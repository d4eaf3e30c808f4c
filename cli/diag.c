/* cli/diag.c - `weft diag TOOL TRACE.h5 ...`: the tools an operator runs on a fabric, over a
 * finished run's trace (analysis/ibdiag.h): ibstat, perfquery and links --worst.  It reads
 * the trace only; an incomplete trace is read as far as it goes and said so (exit 1).
 */
#include "config.h"
#define G_LOG_DOMAIN "weft-cli"
#include <stdio.h>
#include <string.h>

#include "analysis/ibdiag.h"
#include "analysis/trace_reader.h"
#include "cli/cli.h"
#include "sim/errors.h"
#include "sim/units.h"

enum { DIAG_COMPLETE = 0, DIAG_INCOMPLETE = 1, DIAG_BAD_USAGE = 2, DIAG_FOUND = 7 };

static const char diag_description[] =
    "Tools:\n"
    "  ibstat TRACE.h5 [NODE[/CA]]     ibstat of every channel adapter (NIC), or those of\n"
    "                                  one server (dgx-2) or one adapter (dgx-2/mlx5_3);\n"
    "                                  a NIC removed from its server (nic-removed) by the end\n"
    "                                  of the run, or by --at TIME, is not listed\n"
    "  perfquery [-x] TRACE.h5 PORT    perfquery (-x: perfquery -x) of one port, named\n"
    "                                  NODE:PORT as weft topo prints it (su0-rail1-leaf:2),\n"
    "                                  or a NIC alone for its one fabric port\n"
    "  links TRACE.h5 --worst [N]      the N (default 10; 0: all) most abnormal fabric\n"
    "                                  links: errors, rate below nominal, Down, transmit\n"
    "                                  wait, utilisation off the tier's median, in that order\n"
    "  check TRACE.h5 [--threshold NAME=N]...\n"
    "                                  a fabric check in the manner of ibdiagnet: every link\n"
    "                                  whose rate differs from its tier's, every port whose\n"
    "                                  error counters exceed their threshold (SymbolErrorCounter,\n"
    "                                  LinkDownedCounter, PortRcvErrors, PortXmitDiscards;\n"
    "                                  default 0, as ibqueryerrors), every cabled port not\n"
    "                                  Active\n"
    "\n"
    "The layouts are infiniband-diags' (ibstat, perfquery); what weft does not model (LIDs,\n"
    "GUIDs, CA type, capability masks) is derived from the trace, the same every time\n"
    "(doc/faults.md, \"Diagnosis\").  Counters are the ports' at the end of the run, or\n"
    "with --at TIME as sampled then: the data and error counters from the last /links\n"
    "sample at or before TIME (error counters: or the last fault event's, if later), the\n"
    "state and rate as the last fault event at or before TIME left them; the output's first\n"
    "line says which sample.\n"
    "\n"
    "Exit status: 0 the trace is complete (check: and the fabric is clean); 1 it is\n"
    "incomplete or a data set did not read (what could be read is printed, and one line on\n"
    "stderr says why); 2 bad usage, an unknown node or port, or not a weft trace; 7 check\n"
    "found a problem on a complete trace.\n";

static void
usage_error (const char *what)
{
    g_printerr ("weft diag: %s (see weft diag --help)\n", what);
}

/* Reads the three tables a diagnosis needs (and with @at the samples, to set the ports back
 * to that time: *sample_ps is the last /links sample used); NULL (and the message printed) if
 * one does not read. */
static WeftIbdiag *
load (const WeftTraceInfo *info, const guint64 *at, guint64 *sample_ps)
{
    GError *error = NULL;
    GArray *nodes = NULL, *links = NULL, *ports = NULL, *samples = NULL, *faults = NULL;
    if ((nodes = weft_trace_reader_nodes (info->path, &error)) == NULL ||
        (links = weft_trace_reader_links (info->path, &error)) == NULL ||
        (ports = weft_trace_reader_ports (info->path, &error)) == NULL ||
        (at && (samples = weft_trace_reader_link_samples (info->path, &error)) == NULL) ||
        (at && (faults = weft_trace_reader_faults (info->path, &error)) == NULL)) {
        g_printerr ("weft diag: %s\n", error->message);
        g_error_free (error);
        if (nodes)
            g_array_free (nodes, TRUE);
        if (links)
            g_array_free (links, TRUE);
        if (ports)
            g_array_free (ports, TRUE);
        if (samples)
            g_array_free (samples, TRUE);
        return NULL;
    }
    guint64 time_ps = info->sim_time_ps;
    if (at) {
        *sample_ps = weft_ibdiag_ports_at (ports, links, samples, faults, *at);
        /* utilisation and wait over the time the counters cover */
        time_ps = *sample_ps ? *sample_ps : *at;
        g_array_free (samples, TRUE);
    } else if ((faults = weft_trace_reader_faults (info->path, &error)) == NULL) {
        g_clear_error (&error); /* the NICs removed are only left out of ibstat: all listed */
    }
    g_autofree char *fw =
        g_strdup_printf ("weft %s", info->weft_version ? info->weft_version : "?");
    WeftIbdiag *d = weft_ibdiag_new (nodes, links, ports, time_ps, fw);
    weft_ibdiag_mark_removed (d, faults, at ? *at : info->sim_time_ps);
    if (faults)
        g_array_free (faults, TRUE);
    return d;
}

int
weft_cli_diag (int argc, char **argv)
{
    gboolean extended = FALSE, worst = FALSE;
    char **rest = NULL, *at_text = NULL, **thresholds = NULL;
    GOptionEntry entries[] = {
        { "at", 0, 0, G_OPTION_ARG_STRING, &at_text,
          "the ports as sampled at TIME of the run (50us, 1.2ms) rather than at its end", "TIME" },
        { "extended", 'x', 0, G_OPTION_ARG_NONE, &extended,
          "perfquery: the extended (64-bit) counters, as perfquery -x", NULL },
        { "worst", 0, 0, G_OPTION_ARG_NONE, &worst,
          "links: rank the fabric links worst first (optionally followed by N)", NULL },
        { "threshold", 0, 0, G_OPTION_ARG_STRING_ARRAY, &thresholds,
          "check: report a port when this counter exceeds N (default 0); repeatable", "NAME=N" },
        { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, &rest, NULL, NULL },
        { NULL, 0, 0, 0, NULL, NULL, NULL },
    };
    GOptionContext *ctx = g_option_context_new (
        "ibstat|perfquery|links|check TRACE.h5 [NODE[/CA] | [-x] NODE:PORT | --worst [N]]");
    g_option_context_set_summary (
        ctx, "An operator's tools over a finished run's trace: ibstat, perfquery, the worst "
             "links, and a fabric check.");
    g_option_context_add_main_entries (ctx, entries, NULL);
    g_option_context_set_description (ctx, diag_description);
    GError *error = NULL;
    gboolean parsed = g_option_context_parse (ctx, &argc, &argv, &error);
    g_option_context_free (ctx);
    if (!parsed) {
        usage_error (error->message);
        g_error_free (error);
        g_strfreev (rest);
        g_strfreev (thresholds);
        g_free (at_text);
        return DIAG_BAD_USAGE;
    }
    guint n_rest = rest ? g_strv_length (rest) : 0;
    if (n_rest < 2) {
        usage_error ("expected a tool (ibstat, perfquery, links, check) and a TRACE.h5");
        g_strfreev (rest);
        g_strfreev (thresholds);
        g_free (at_text);
        return DIAG_BAD_USAGE;
    }
    const char *tool = rest[0], *path = rest[1];
    int status = DIAG_BAD_USAGE;
    guint n_worst = 10;
    WeftIbdiagThresholds limits = { 0 };
    if (thresholds && strcmp (tool, "check") != 0) {
        usage_error ("--threshold is an option of check");
        goto out;
    }
    for (guint i = 0; thresholds && thresholds[i]; i++)
        if (!weft_ibdiag_threshold_set (&limits, thresholds[i], &error)) {
            g_autofree char *m = g_strdup_printf ("--threshold %s", error->message);
            g_clear_error (&error);
            usage_error (m);
            goto out;
        }
    if (strcmp (tool, "ibstat") == 0) {
        if (n_rest > 3 || extended || worst) {
            usage_error ("ibstat takes TRACE.h5 and at most one NODE[/CA]");
            goto out;
        }
    } else if (strcmp (tool, "perfquery") == 0) {
        if (n_rest != 3 || worst) {
            usage_error ("perfquery takes TRACE.h5 and one port, NODE:PORT");
            goto out;
        }
    } else if (strcmp (tool, "links") == 0) {
        if (!worst || extended || n_rest > 3) {
            usage_error ("links takes TRACE.h5 --worst [N]");
            goto out;
        }
        if (n_rest == 3) {
            char *end = NULL;
            guint64 v = g_ascii_strtoull (rest[2], &end, 10);
            if (!rest[2][0] || *end || v > G_MAXUINT) {
                g_autofree char *m =
                    g_strdup_printf ("--worst %s: expected a number of links", rest[2]);
                usage_error (m);
                goto out;
            }
            n_worst = (guint) v;
        }
    } else if (strcmp (tool, "check") == 0) {
        if (n_rest != 2 || extended || worst) {
            usage_error ("check takes TRACE.h5 (and --threshold NAME=N options)");
            goto out;
        }
    } else {
        g_autofree char *m =
            g_strdup_printf ("unknown tool '%s': expected ibstat, perfquery, links or check", tool);
        usage_error (m);
        goto out;
    }

    guint64 at_ps = 0, sample_ps = 0;
    if (at_text && !weft_units_parse_time (g_strstrip (at_text), &at_ps, &error)) {
        g_autofree char *m = g_strdup_printf ("--at %s: %s", at_text, error->message);
        g_clear_error (&error);
        usage_error (m);
        goto out;
    }

    WeftTraceInfo *info = weft_trace_reader_open (path, &error);
    if (!info) {
        g_printerr ("weft diag: %s\n", error->message);
        g_error_free (error);
        goto out;
    }
    if (!info->readable) {
        g_printerr ("weft diag: %s: incomplete trace: %s\n", info->path, info->reason);
        weft_trace_info_free (info);
        status = DIAG_INCOMPLETE;
        goto out;
    }
    if (at_text && at_ps > info->sim_time_ps) {
        g_autofree char *t = weft_units_format_human_time (info->sim_time_ps);
        g_printerr ("weft diag: --at %s: past the end of the run (%s)\n", at_text, t);
        weft_trace_info_free (info);
        goto out;
    }
    WeftIbdiag *d = load (info, at_text ? &at_ps : NULL, &sample_ps);
    if (!d) {
        weft_trace_info_free (info);
        status = DIAG_INCOMPLETE;
        goto out;
    }
    GString *text = g_string_new (NULL);
    if (at_text) {
        g_autofree char *t = weft_units_format_human_time (at_ps);
        g_autofree char *s = weft_units_format_human_time (sample_ps);
        g_autofree char *data =
            sample_ps ? g_strdup_printf ("data and error counters as sampled at %s (the last "
                                         "/links sample at or before it)",
                                         s)
                      : g_strdup ("no /links sample at or before it, data counters 0");
        g_string_append_printf (text,
                                "# at %s: %s; state, rate and any later error counts as of the "
                                "last fault event at or before it\n",
                                t, data);
    }
    gboolean ok = TRUE;
    guint found = 0;
    if (strcmp (tool, "ibstat") == 0)
        ok = weft_ibdiag_ibstat (d, n_rest == 3 ? rest[2] : NULL, text, &error);
    else if (strcmp (tool, "perfquery") == 0)
        ok = weft_ibdiag_perfquery (d, rest[2], extended, text, &error);
    else if (strcmp (tool, "links") == 0)
        weft_ibdiag_links_worst (d, n_worst, text);
    else
        found = weft_ibdiag_check (d, &limits, text);
    fputs (text->str, stdout);
    g_string_free (text, TRUE);
    if (!ok) {
        g_printerr ("weft diag: %s: %s\n", tool, error->message);
        g_error_free (error);
        status = DIAG_BAD_USAGE;
    } else if (!info->complete) {
        g_printerr ("weft diag: %s: %s trace: %s (the counters are as of the last write)\n",
                    info->path, info->damaged ? "damaged" : "incomplete", info->reason);
        status = DIAG_INCOMPLETE;
    } else {
        status = found ? DIAG_FOUND : DIAG_COMPLETE;
    }
    weft_ibdiag_free (d);
    weft_trace_info_free (info);
out:
    g_strfreev (rest);
    g_strfreev (thresholds);
    g_free (at_text);
    return status;
}
