#include "config.h"
#define G_LOG_DOMAIN "weft-cli"
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "network/network.h"

/* @text with spaces turned into line breaks so that no line passes @width.  (transfer full) */
static char *
wrap (const char *text, guint width)
{
    g_auto (GStrv) words = g_strsplit (text, " ", -1);
    GString *out = g_string_new (NULL);
    gsize line = 0;
    for (guint i = 0; words[i]; i++) {
        gsize n = strlen (words[i]);
        if (line > 0 && line + 1 + n > width) {
            g_string_append_c (out, '\n');
            line = 0;
        } else if (line > 0) {
            g_string_append_c (out, ' ');
            line++;
        }
        g_string_append (out, words[i]);
        line += n;
    }
    return g_string_free (out, FALSE);
}

int
weft_cli_params (int argc, char **argv)
{
    g_autoptr (GOptionContext) ctx =
        g_option_context_new ("[GROUP] - list parameters, types, defaults and ranges");
    g_autofree char *groups = weft_network_group_list ();
    g_autofree char *text = g_strdup_printf (
        "Without GROUP, lists every experiment-file group and its parameters.  GROUP is a "
        "group name (%s), topology or topology.GENERATOR, workload or workload.KIND.",
        groups);
    g_autofree char *summary = wrap (text, 80);
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
