/* sim/experiment.c - experiment files: includes, --set overrides, per-key origins.
 *
 * Each file is parsed by GKeyFile on its own, then merged key by key into one GKeyFile in
 * depth-first include order, so an including file's keys replace its includes' keys in place.
 * Group order and empty groups are kept in our own list because GKeyFile cannot hold an empty
 * group that was created through its API.  The cost is one hash entry per key for the origin,
 * which is nothing next to a run.
 */
#include "config.h"
#define G_LOG_DOMAIN "weft-experiment"
#include "sim/experiment.h"

#include "sim/input.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define SET_ORIGIN "--set"

struct _WeftExperiment {
    char *path;               /* top-level file name as given */
    GKeyFile *kf;             /* merged values (raw, escaped form) */
    GPtrArray *groups;        /* group names in first-seen order (owned) */
    GHashTable *group_origin; /* group -> origin (borrowed from names) */
    GHashTable *key_origin;   /* "group\x1ckey" -> origin (borrowed from names) */
    GPtrArray *names;         /* display names of the files read, in order (owned) */
    GPtrArray *overrides;     /* --set assignments as given (owned) */
};

static char *
origin_key (const char *group, const char *key)
{
    return g_strconcat (group, "\x1c", key, NULL);
}

static WeftExperiment *
experiment_new (const char *path)
{
    WeftExperiment *exp = g_new0 (WeftExperiment, 1);
    exp->path = g_strdup (path);
    exp->kf = g_key_file_new ();
    exp->groups = g_ptr_array_new_with_free_func (g_free);
    exp->group_origin = g_hash_table_new (g_str_hash, g_str_equal);
    exp->key_origin = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
    exp->names = g_ptr_array_new_with_free_func (g_free);
    exp->overrides = g_ptr_array_new_with_free_func (g_free);
    return exp;
}

void
weft_experiment_free (WeftExperiment *exp)
{
    if (!exp)
        return;
    g_free (exp->path);
    g_key_file_free (exp->kf);
    g_hash_table_destroy (exp->group_origin);
    g_hash_table_destroy (exp->key_origin);
    g_ptr_array_free (exp->groups, TRUE);
    g_ptr_array_free (exp->names, TRUE);
    g_ptr_array_free (exp->overrides, TRUE);
    g_free (exp);
}

/* Records @group (first sighting sets its origin and its place in the order). */
static void
note_group (WeftExperiment *exp, const char *group, const char *origin)
{
    if (g_hash_table_contains (exp->group_origin, group))
        return;
    char *name = g_strdup (group);
    g_ptr_array_add (exp->groups, name);
    g_hash_table_insert (exp->group_origin, name, (gpointer) origin);
}

static void
set_raw (WeftExperiment *exp, const char *group, const char *key, const char *raw,
         const char *origin)
{
    note_group (exp, group, origin);
    g_key_file_set_value (exp->kf, group, key, raw);
    g_hash_table_insert (exp->key_origin, origin_key (group, key), (gpointer) origin);
}

/* @text with its control bytes (below 0x20 but tab, and DEL) as "\xNN", so a message that
 * quotes a file cannot drive the terminal it is printed on.  (transfer full) */
static char *
printable (const char *text)
{
    GString *s = g_string_new (NULL);
    for (const char *p = text; *p; p++) {
        guchar c = (guchar) *p;
        if ((c < 0x20 && c != '\t') || c == 0x7f)
            g_string_append_printf (s, "\\x%02x", c);
        else
            g_string_append_c (s, (char) c);
    }
    return g_string_free (s, FALSE);
}

/* Includes resolve against the includer's directory; "." is left out to keep names short. */
static char *
join_relative (const char *dir, const char *name)
{
    if (g_path_is_absolute (name) || strcmp (dir, ".") == 0)
        return g_strdup (name);
    return g_build_filename (dir, name, NULL);
}

/* The include chain, for cycle detection: canonical paths and display names, top first. */
typedef struct {
    GPtrArray *canon;
    GPtrArray *shown;
} Chain;

static gboolean merge_text (WeftExperiment *exp, const char *text, gsize len, const char *shown,
                            const char *base_dir, Chain *chain, GError **error);

static gboolean
merge_file (WeftExperiment *exp, const char *shown, const char *includer, Chain *chain,
            GError **error)
{
    g_autofree char *canon = g_canonicalize_filename (shown, NULL);
    for (guint i = 0; i < chain->canon->len; i++) {
        if (strcmp (chain->canon->pdata[i], canon) != 0)
            continue;
        GString *msg = g_string_new (NULL);
        for (guint j = 0; j < chain->shown->len; j++)
            g_string_append_printf (msg, "%s -> ", (char *) chain->shown->pdata[j]);
        g_string_append (msg, shown);
        g_set_error (error, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_INCLUDE_CYCLE,
                     "%s: [experiment] include: include cycle: %s", (char *) chain->shown->pdata[i],
                     msg->str);
        g_string_free (msg, TRUE);
        return FALSE;
    }
    gsize len = 0;
    g_autofree char *text = NULL;
    g_autoptr (GError) why = NULL;
    if (!weft_input_read (shown, WEFT_INPUT_MAX_EXPERIMENT, &text, &len, &why)) {
        /* an include's name may hold what its escapes made (\n, \r) */
        g_autofree char *name = printable (shown);
        if (includer)
            g_set_error (error, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_FILE,
                         "%s: cannot read experiment file (included from %s): %s", name, includer,
                         why->message);
        else
            g_set_error (error, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_FILE,
                         "%s: cannot read experiment file: %s", name, why->message);
        return FALSE;
    }
    g_autofree char *dir = g_path_get_dirname (shown);
    g_ptr_array_add (chain->canon, g_steal_pointer (&canon));
    g_ptr_array_add (chain->shown, g_strdup (shown));
    gboolean ok = merge_text (exp, text, len, shown, dir, chain, error);
    g_ptr_array_set_size (chain->canon, chain->canon->len - 1);
    g_ptr_array_set_size (chain->shown, chain->shown->len - 1);
    return ok;
}

/* The first control byte (below 0x20 but tab, or DEL) in @text, or 0. */
static guchar
control_byte (const char *text)
{
    for (const char *p = text; p && *p; p++) {
        guchar c = (guchar) *p;
        if ((c < 0x20 && c != '\t') || c == 0x7f)
            return c;
    }
    return 0;
}

/* Refuses a key name or a value (as written, before its escapes) holding a control byte:
 * experiment files are text, and such a byte would reach file names and messages. */
static gboolean
check_controls (GKeyFile *kf, const char *origin, GError **error)
{
    g_auto (GStrv) groups = g_key_file_get_groups (kf, NULL);
    for (guint g = 0; groups && groups[g]; g++) {
        g_auto (GStrv) keys = g_key_file_get_keys (kf, groups[g], NULL, NULL);
        for (guint k = 0; keys && keys[k]; k++) {
            g_autofree char *raw = g_key_file_get_value (kf, groups[g], keys[k], NULL);
            guchar c = control_byte (groups[g]);
            c = c ? c : control_byte (keys[k]);
            c = c ? c : control_byte (raw);
            if (c == 0)
                continue;
            g_autofree char *group = printable (groups[g]);
            g_autofree char *key = printable (keys[k]);
            g_autofree char *value = printable (raw ? raw : "");
            g_set_error (error, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_VALUE,
                         "%s: [%s] %s: '%s' holds control byte \\x%02x: experiment files are "
                         "text",
                         origin, group, key, value, c);
            return FALSE;
        }
    }
    return TRUE;
}

/* Parses one file's text, merges its includes (depth-first), then its own keys over them. */
static gboolean
merge_text (WeftExperiment *exp, const char *text, gsize len, const char *shown,
            const char *base_dir, Chain *chain, GError **error)
{
    g_autoptr (GKeyFile) kf = g_key_file_new ();
    g_autoptr (GError) local = NULL;
    if (!g_key_file_load_from_data (kf, text, len, G_KEY_FILE_NONE, &local)) {
        g_autofree char *why = printable (local->message);
        g_set_error (error, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_FILE, "%s: %s", shown, why);
        return FALSE;
    }
    /* The names array owns the display name; origins borrow it for the experiment's life. */
    char *origin = g_strdup (shown);
    g_ptr_array_add (exp->names, origin);
    if (!check_controls (kf, origin, error))
        return FALSE;

    g_auto (GStrv) includes = g_key_file_get_string_list (kf, "experiment", "include", NULL, NULL);
    for (guint i = 0; includes && includes[i]; i++) {
        char *inc = g_strstrip (includes[i]);
        if (*inc == '\0')
            continue;
        g_autofree char *path = join_relative (base_dir, inc);
        if (!merge_file (exp, path, origin, chain, error))
            return FALSE;
    }

    gsize n_groups = 0;
    g_auto (GStrv) groups = g_key_file_get_groups (kf, &n_groups);
    for (gsize g = 0; g < n_groups; g++) {
        note_group (exp, groups[g], origin);
        g_auto (GStrv) keys = g_key_file_get_keys (kf, groups[g], NULL, NULL);
        for (guint k = 0; keys && keys[k]; k++) {
            if (strcmp (groups[g], "experiment") == 0 && strcmp (keys[k], "include") == 0)
                continue;
            g_autofree char *raw = g_key_file_get_value (kf, groups[g], keys[k], NULL);
            /* A key file has no inline comments: "output = run.h5  # test" would name the trace
             * "run.h5  # test".  A '#' after a blank is refused rather than taken in. */
            const char *hash = raw ? strchr (raw, '#') : NULL;
            if (hash && hash > raw && (hash[-1] == ' ' || hash[-1] == '\t')) {
                g_set_error (error, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_VALUE,
                             "%s: [%s] %s: '#' after a blank looks like an inline comment, which "
                             "experiment files do not have: put the comment on a line of its own",
                             origin, groups[g], keys[k]);
                return FALSE;
            }
            set_raw (exp, groups[g], keys[k], raw, origin);
        }
    }
    return TRUE;
}

static WeftExperiment *
load (const char *name, const char *text, gsize len, GError **error)
{
    g_return_val_if_fail (name != NULL, NULL);
    g_return_val_if_fail (error == NULL || *error == NULL, NULL);
    WeftExperiment *exp = experiment_new (name);
    Chain chain = { g_ptr_array_new_with_free_func (g_free),
                    g_ptr_array_new_with_free_func (g_free) };
    gboolean ok;
    if (text) {
        g_ptr_array_add (chain.canon, g_canonicalize_filename (name, NULL));
        g_ptr_array_add (chain.shown, g_strdup (name));
        ok = merge_text (exp, text, len, name, ".", &chain, error);
    } else {
        ok = merge_file (exp, name, NULL, &chain, error);
    }
    g_ptr_array_free (chain.canon, TRUE);
    g_ptr_array_free (chain.shown, TRUE);
    if (!ok) {
        weft_experiment_free (exp);
        return NULL;
    }
    return exp;
}

WeftExperiment *
weft_experiment_load (const char *path, GError **error)
{
    return load (path, NULL, 0, error);
}

WeftExperiment *
weft_experiment_new_from_data (const char *text, const char *name, GError **error)
{
    g_return_val_if_fail (text != NULL, NULL);
    return load (name, text, strlen (text), error);
}

gboolean
weft_experiment_set (WeftExperiment *exp, const char *assignment, GError **error)
{
    g_return_val_if_fail (exp != NULL && assignment != NULL, FALSE);
    guchar c = control_byte (assignment);
    if (c != 0) {
        g_autofree char *shown = printable (assignment);
        g_set_error (error, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_OVERRIDE,
                     SET_ORIGIN " %s: control byte \\x%02x: overrides are text", shown, c);
        return FALSE;
    }
    const char *colon = strchr (assignment, ':');
    const char *eq = colon ? strchr (colon + 1, '=') : NULL;
    g_autofree char *group =
        colon ? g_strstrip (g_strndup (assignment, (gsize) (colon - assignment))) : NULL;
    g_autofree char *key = eq ? g_strstrip (g_strndup (colon + 1, (gsize) (eq - colon - 1))) : NULL;
    if (!colon || !eq || group[0] == '\0' || key[0] == '\0' || strpbrk (group, "=[]\t") ||
        strpbrk (key, "[]\t") || !g_utf8_validate (assignment, -1, NULL)) {
        /* (a tab or bytes that are not UTF-8 make names a key file cannot hold) */
        g_autofree char *shown = g_utf8_make_valid (assignment, -1);
        g_set_error (error, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_OVERRIDE,
                     SET_ORIGIN " %s: expected GROUP:KEY=VALUE, e.g. switch:buffer=12MiB or "
                                "workload.incast:flow_size=2MiB",
                     shown);
        return FALSE;
    }
    if (strcmp (group, "experiment") == 0 && strcmp (key, "include") == 0) {
        /* Includes are resolved while loading; a late one would leave a key nobody reads. */
        g_set_error (error, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_OVERRIDE,
                     SET_ORIGIN " %s: [experiment] include cannot be set from the command line: "
                                "write an experiment file that includes the others",
                     assignment);
        return FALSE;
    }
    g_autofree char *value = g_strstrip (g_strdup (eq + 1));
    note_group (exp, group, SET_ORIGIN);
    g_key_file_set_string (exp->kf, group, key, value);
    g_hash_table_insert (exp->key_origin, origin_key (group, key), (gpointer) SET_ORIGIN);
    g_ptr_array_add (exp->overrides, g_strdup (assignment));
    return TRUE;
}

GKeyFile *
weft_experiment_keyfile (const WeftExperiment *exp)
{
    g_return_val_if_fail (exp != NULL, NULL);
    return exp->kf;
}

const char *
weft_experiment_path (const WeftExperiment *exp)
{
    g_return_val_if_fail (exp != NULL, NULL);
    return exp->path;
}

const char *
weft_experiment_origin (const WeftExperiment *exp, const char *group, const char *key)
{
    g_return_val_if_fail (exp != NULL, NULL);
    if (group && key) {
        g_autofree char *k = origin_key (group, key);
        const char *o = g_hash_table_lookup (exp->key_origin, k);
        if (o)
            return o;
    }
    const char *o = group ? g_hash_table_lookup (exp->group_origin, group) : NULL;
    return o ? o : exp->path;
}

char *
weft_experiment_dir_for (const WeftExperiment *exp, const char *group, const char *key)
{
    g_return_val_if_fail (exp != NULL, NULL);
    const char *o = weft_experiment_origin (exp, group, key);
    if (strcmp (o, SET_ORIGIN) == 0)
        return g_strdup ("."); /* a path typed on the command line is relative to the shell */
    return g_path_get_dirname (o);
}

gboolean
weft_experiment_has_group (const WeftExperiment *exp, const char *group)
{
    g_return_val_if_fail (exp != NULL && group != NULL, FALSE);
    return g_hash_table_contains (exp->group_origin, group);
}

gboolean
weft_experiment_remove_group (WeftExperiment *exp, const char *group)
{
    g_return_val_if_fail (exp != NULL && group != NULL, FALSE);
    if (!g_hash_table_contains (exp->group_origin, group))
        return FALSE;
    g_key_file_remove_group (exp->kf, group, NULL);
    g_hash_table_remove (exp->group_origin, group);
    for (guint i = 0; i < exp->groups->len; i++)
        if (strcmp (exp->groups->pdata[i], group) == 0) {
            g_ptr_array_remove_index (exp->groups, i); /* frees the name: after the table */
            break;
        }
    return TRUE;
}

char **
weft_experiment_groups (const WeftExperiment *exp)
{
    g_return_val_if_fail (exp != NULL, NULL);
    GPtrArray *out = g_ptr_array_new ();
    for (guint i = 0; i < exp->groups->len; i++)
        g_ptr_array_add (out, g_strdup (exp->groups->pdata[i]));
    g_ptr_array_add (out, NULL);
    return (char **) g_ptr_array_free (out, FALSE);
}

char **
weft_experiment_groups_with_prefix (const WeftExperiment *exp, const char *prefix)
{
    g_return_val_if_fail (exp != NULL && prefix != NULL, NULL);
    gsize n = strlen (prefix);
    GPtrArray *out = g_ptr_array_new ();
    for (guint i = 0; i < exp->groups->len; i++) {
        const char *g = exp->groups->pdata[i];
        if (strncmp (g, prefix, n) == 0 && g[n] == '.' && g[n + 1] != '\0')
            g_ptr_array_add (out, g_strdup (g));
    }
    g_ptr_array_add (out, NULL);
    return (char **) g_ptr_array_free (out, FALSE);
}

/* A header comment line must stay one line. */
static void
append_comment (GString *out, const char *label, const char *text)
{
    g_string_append_printf (out, "# %s", label);
    for (const char *p = text; *p; p++)
        g_string_append_c (out, (*p == '\n' || *p == '\r') ? ' ' : *p);
    g_string_append_c (out, '\n');
}

char *
weft_experiment_to_data (const WeftExperiment *exp)
{
    g_return_val_if_fail (exp != NULL, NULL);
    GString *out = g_string_new (NULL);
    append_comment (out, "weft resolved experiment: ", exp->path);
    for (guint i = 1; i < exp->names->len; i++)
        append_comment (out, "included: ", exp->names->pdata[i]);
    for (guint i = 0; i < exp->overrides->len; i++)
        append_comment (out, SET_ORIGIN " ", exp->overrides->pdata[i]);
    for (guint i = 0; i < exp->groups->len; i++) {
        const char *g = exp->groups->pdata[i];
        g_string_append_printf (out, "\n[%s]\n", g);
        g_auto (GStrv) keys = g_key_file_get_keys (exp->kf, g, NULL, NULL);
        for (guint k = 0; keys && keys[k]; k++) {
            g_autofree char *raw = g_key_file_get_value (exp->kf, g, keys[k], NULL);
            g_string_append_printf (out, "%s = %s\n", keys[k], raw);
        }
    }
    return g_string_free (out, FALSE);
}

gboolean
weft_experiment_fail (const WeftExperiment *exp, GError **error, WeftConfigError code,
                      const char *group, const char *key, const char *format, ...)
{
    va_list ap;
    va_start (ap, format);
    g_autofree char *msg = g_strdup_vprintf (format, ap);
    va_end (ap);
    const char *origin = exp ? weft_experiment_origin (exp, group, key) : "(no file)";
    g_autofree char *line = !group ? g_strdup_printf ("%s: %s", origin, msg)
                            : key  ? g_strdup_printf ("%s: [%s] %s: %s", origin, group, key, msg)
                                   : g_strdup_printf ("%s: [%s]: %s", origin, group, msg);
    g_autofree char *shown = printable (line);
    g_set_error_literal (error, WEFT_CONFIG_ERROR, code, shown);
    return FALSE;
}

static gboolean
in_list (const char *word, const char *const *list)
{
    for (guint i = 0; list && list[i]; i++)
        if (strcmp (word, list[i]) == 0)
            return TRUE;
    return FALSE;
}

gboolean
weft_experiment_check_groups (const WeftExperiment *exp, const char *const *known,
                              const char *const *known_prefixes, GError **error)
{
    g_return_val_if_fail (exp != NULL, FALSE);
    for (guint i = 0; i < exp->groups->len; i++) {
        const char *g = exp->groups->pdata[i];
        const char *dot = strchr (g, '.');
        g_autofree char *head = dot ? g_strndup (g, (gsize) (dot - g)) : g_strdup (g);
        if (in_list (g, known) || (dot && dot[1] != '\0' && in_list (head, known_prefixes)))
            continue;

        GString *all = g_string_new (NULL);
        for (guint k = 0; known && known[k]; k++)
            g_string_append_printf (all, "%s[%s]", all->len ? ", " : "", known[k]);
        for (guint k = 0; known_prefixes && known_prefixes[k]; k++)
            g_string_append_printf (all, "%s[%s.NAME]", all->len ? ", " : "", known_prefixes[k]);

        g_autofree char *hint = NULL;
        const char *s = weft_suggest (g, known);
        if (s)
            hint = g_strdup_printf ("[%s]", s);
        else if (in_list (head, known_prefixes))
            hint = g_strdup_printf ("[%s.NAME]", head);
        else if ((s = weft_suggest (head, known_prefixes)))
            hint = g_strdup_printf ("[%s.%s]", s, dot && dot[1] ? dot + 1 : "NAME");
        if (hint)
            weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_UNKNOWN_GROUP, g, NULL,
                                  "unknown group, did you mean %s? expected one of: %s", hint,
                                  all->str);
        else
            weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_UNKNOWN_GROUP, g, NULL,
                                  "unknown group: expected one of: %s", all->str);
        g_string_free (all, TRUE);
        return FALSE;
    }
    return TRUE;
}

/* Levenshtein distance with one row of length |b|+1. */
static gsize
edit_distance (const char *a, const char *b)
{
    gsize la = strlen (a), lb = strlen (b);
    gsize *row = g_new (gsize, lb + 1);
    for (gsize j = 0; j <= lb; j++)
        row[j] = j;
    for (gsize i = 1; i <= la; i++) {
        gsize diag = row[0];
        row[0] = i;
        for (gsize j = 1; j <= lb; j++) {
            gsize up = row[j];
            gsize best = diag + (a[i - 1] == b[j - 1] ? 0 : 1);
            best = MIN (best, up + 1);
            best = MIN (best, row[j - 1] + 1);
            row[j] = best;
            diag = up;
        }
    }
    gsize d = row[lb];
    g_free (row);
    return d;
}

const char *
weft_suggest (const char *word, const char *const *candidates)
{
    g_return_val_if_fail (word != NULL, NULL);
    gsize limit = MAX (2, strlen (word) / 3);
    const char *best = NULL;
    gsize best_d = G_MAXSIZE;
    for (guint i = 0; candidates && candidates[i]; i++) {
        gsize d = edit_distance (word, candidates[i]);
        if (d <= limit && d < best_d) {
            best = candidates[i];
            best_d = d;
        }
    }
    return best;
}
