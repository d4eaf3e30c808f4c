#include "config.h"
#define G_LOG_DOMAIN "weft-cli"
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "network/network.h"

int
weft_cli_params (int argc, char **argv)
{
    g_autoptr (GOptionContext) ctx = g_option_context_new ("[GROUP] - list parameters, types, defaults and ranges");
    g_autofree char *groups = weft_network_group_list ();
    g_autofree char *summary = g_strdup_printf (
        "Without GROUP, lists every experiment-file group and its parameters.  GROUP is\n"
        "a group name (%s), topology or\n"
        "topology.GENERATOR, workload or workload.KIND.",
        groups);
    g_option_context_set_summary (ctx, summary);
    g_autoptr (GError) error = NULL;
    if (!g_option_context_parse (ctx, &argc, &argv, &error)) {
        g_printerr ("weft params: %s\n", error->message);
        return WEFT_EXIT_BAD_INPUT;
    }
    if (argc > 2) {
        g_printerr ("weft params: expected at most one GROUP\n");
        return WEFT_EXIT_BAD_INPUT;
    }
    const char *want = argc == 2 ? argv[1] : NULL;
    GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
    GString *out = g_string_new (NULL);
    gboolean found = weft_network_describe_params (want, out, names);
    int rc = WEFT_EXIT_DONE;
    if (found) {
        fputs (out->str, stdout);
    } else {
        g_ptr_array_add (names, NULL);
        const char *s = weft_suggest (want, (const char *const *) names->pdata);
        g_printerr ("weft params: unknown group '%s'%s%s%s\n", want, s ? ", did you mean '" : "",
                    s ? s : "", s ? "'?" : "");
        rc = WEFT_EXIT_BAD_INPUT;
    }
    g_string_free (out, TRUE);
    g_ptr_array_unref (names);
    return rc;
}
