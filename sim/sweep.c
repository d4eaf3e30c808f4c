/* sim/sweep.c - the [sweep] group: axes, grid or zip, seeds, point names (sim/sweep.h). */
#include "config.h"
#define G_LOG_DOMAIN "weft-sweep"
#include "sim/sweep.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define MAX_POINTS 1000000u
#define MAX_NAME 120

static void
axis_free (gpointer data)
{
    WeftSweepAxis *a = data;
    g_free (a->group);
    g_free (a->key);
    g_free (a->label);
    g_strfreev (a->values);
    g_free (a);
}

static void
point_free (gpointer data)
{
    WeftSweepPoint *p = data;
    g_strfreev (p->overrides);
    g_free (p->name);
    g_free (p);
}

void
weft_sweep_free (WeftSweep *sweep)
{
    if (!sweep)
        return;
    g_free (sweep->output);
    g_ptr_array_unref (sweep->axes);
    g_ptr_array_unref (sweep->points);
    g_free (sweep);
}

gboolean
weft_sweep_strip (WeftExperiment *exp)
{
    return weft_experiment_remove_group (exp, WEFT_SWEEP_GROUP);
}

const char *
weft_sweep_point_value (const WeftSweepPoint *p, guint axis)
{
    const char *o = p->overrides[axis];
    const char *colon = strchr (o, ':');
    return strchr (colon, '=') + 1;
}

static gboolean fail (const WeftExperiment *exp, GError **error, WeftConfigError code,
                      const char *key, const char *format, ...) G_GNUC_PRINTF (5, 6);

static gboolean
fail (const WeftExperiment *exp, GError **error, WeftConfigError code, const char *key,
      const char *format, ...)
{
    va_list ap;
    va_start (ap, format);
    g_autofree char *msg = g_strdup_vprintf (format, ap);
    va_end (ap);
    return weft_experiment_fail (exp, error, code, WEFT_SWEEP_GROUP, key, "%s", msg);
}

/* A non-negative decimal integer that fits a guint64, nothing else. */
static gboolean
parse_seed (const char *text, guint64 *out)
{
    if (!g_ascii_isdigit (text[0]))
        return FALSE;
    errno = 0;
    char *end;
    *out = g_ascii_strtoull (text, &end, 10);
    return errno == 0 && *end == '\0';
}

/* seeds = A..B (inclusive) or a list of seeds. */
static gboolean
read_seeds (const WeftExperiment *exp, GKeyFile *kf, WeftSweepAxis *axis, GError **error)
{
    g_autofree char *raw = g_key_file_get_string (kf, WEFT_SWEEP_GROUP, "seeds", NULL);
    const char *expected = "expected A..B (A <= B) or a list S1; S2; ... of non-negative integers";
    char *dots = raw ? strstr (raw, "..") : NULL;
    GPtrArray *values = g_ptr_array_new_with_free_func (g_free);
    if (dots) {
        g_autofree char *a = g_strstrip (g_strndup (raw, (gsize) (dots - raw)));
        g_autofree char *b = g_strstrip (g_strdup (dots + 2));
        guint64 lo, hi;
        if (!parse_seed (a, &lo) || !parse_seed (b, &hi) || lo > hi || hi - lo >= MAX_POINTS) {
            g_ptr_array_unref (values);
            return fail (exp, error, WEFT_CONFIG_ERROR_VALUE, "seeds", "'%s': %s (at most %u)", raw,
                         expected, MAX_POINTS);
        }
        for (guint64 s = lo; s <= hi; s++)
            g_ptr_array_add (values, g_strdup_printf ("%" G_GUINT64_FORMAT, s));
    } else {
        g_auto (GStrv) list =
            g_key_file_get_string_list (kf, WEFT_SWEEP_GROUP, "seeds", NULL, NULL);
        for (guint i = 0; list && list[i]; i++) {
            guint64 s;
            g_strstrip (list[i]);
            if (!parse_seed (list[i], &s)) {
                g_ptr_array_unref (values);
                return fail (exp, error, WEFT_CONFIG_ERROR_VALUE, "seeds", "'%s': %s", list[i],
                             expected);
            }
            g_ptr_array_add (values, g_strdup_printf ("%" G_GUINT64_FORMAT, s));
        }
        if (values->len == 0) {
            g_ptr_array_unref (values);
            return fail (exp, error, WEFT_CONFIG_ERROR_VALUE, "seeds", "no seed: %s", expected);
        }
    }
    axis->n_values = values->len;
    g_ptr_array_add (values, NULL);
    axis->values = (char **) g_ptr_array_free (values, FALSE);
    return TRUE;
}

/* One axis key "GROUP:KEY" and its list of values. */
static WeftSweepAxis *
read_axis (const WeftExperiment *exp, GKeyFile *kf, const char *name, GError **error)
{
    const char *colon = strchr (name, ':');
    if (!colon || colon == name || colon[1] == '\0' || strchr (colon + 1, ':')) {
        fail (exp, error, WEFT_CONFIG_ERROR_UNKNOWN_KEY, name,
              "unknown key: expected mode, seeds, output or an axis GROUP:KEY = V1; V2; ...");
        return NULL;
    }
    g_auto (GStrv) list = g_key_file_get_string_list (kf, WEFT_SWEEP_GROUP, name, NULL, NULL);
    guint n = list ? g_strv_length (list) : 0;
    if (n == 0) {
        fail (exp, error, WEFT_CONFIG_ERROR_VALUE, name, "empty axis: expected V1; V2; ...");
        return NULL;
    }
    for (guint i = 0; i < n; i++)
        if (*g_strstrip (list[i]) == '\0') {
            fail (exp, error, WEFT_CONFIG_ERROR_VALUE, name,
                  "value %u of the axis is empty (a ';' inside a value is written \\;)", i + 1);
            return NULL;
        }
    WeftSweepAxis *a = g_new0 (WeftSweepAxis, 1);
    a->group = g_strndup (name, (gsize) (colon - name));
    a->key = g_strdup (colon + 1);
    a->values = g_steal_pointer (&list);
    a->n_values = n;
    return a;
}

/* @text with ':' as "to" and every byte outside [A-Za-z0-9.+-] as '-'. */
static void
append_safe (GString *out, const char *text)
{
    for (const char *p = text; *p; p++) {
        if (*p == ':')
            g_string_append (out, "to");
        else if (g_ascii_isalnum (*p) || *p == '.' || *p == '+' || *p == '-')
            g_string_append_c (out, *p);
        else
            g_string_append_c (out, '-');
    }
}

static char *
overrides_hash (char **overrides)
{
    g_autoptr (GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA1);
    for (char **o = overrides; *o; o++)
        g_checksum_update (sum, (const guchar *) *o, (gssize) strlen (*o) + 1);
    return g_strndup (g_checksum_get_string (sum), 8);
}

static char *
point_name (const WeftSweep *sweep, char **overrides)
{
    GString *s = g_string_new (NULL);
    for (guint a = 0; a < sweep->axes->len; a++) {
        const WeftSweepAxis *axis = sweep->axes->pdata[a];
        if (a)
            g_string_append_c (s, '_');
        append_safe (s, axis->label);
        g_string_append_c (s, '-');
        append_safe (s, strchr (strchr (overrides[a], ':'), '=') + 1);
    }
    if (s->len > MAX_NAME) {
        g_string_truncate (s, MAX_NAME);
        g_autofree char *h = overrides_hash (overrides);
        g_string_append_printf (s, "-%s", h);
    }
    return g_string_free (s, FALSE);
}

/* Point @index's value index on each axis: grid in row-major order (the first axis slowest,
 * seeds fastest); zip the same index on every axis but seeds, which multiplies. */
static void
expand (WeftSweep *sweep, guint n_points, gboolean has_seeds)
{
    guint n_axes = sweep->axes->len;
    for (guint idx = 0; idx < n_points; idx++) {
        guint *at = g_newa (guint, n_axes);
        guint rest = idx;
        if (sweep->mode == WEFT_SWEEP_GRID) {
            for (guint a = n_axes; a-- > 0;) {
                const WeftSweepAxis *axis = sweep->axes->pdata[a];
                at[a] = rest % axis->n_values;
                rest /= axis->n_values;
            }
        } else {
            guint n_seeds =
                has_seeds ? ((const WeftSweepAxis *) sweep->axes->pdata[n_axes - 1])->n_values : 1;
            for (guint a = 0; a < n_axes; a++)
                at[a] = rest / n_seeds;
            if (has_seeds)
                at[n_axes - 1] = rest % n_seeds;
        }
        WeftSweepPoint *p = g_new0 (WeftSweepPoint, 1);
        p->index = idx;
        p->overrides = g_new0 (char *, n_axes + 1);
        for (guint a = 0; a < n_axes; a++) {
            const WeftSweepAxis *axis = sweep->axes->pdata[a];
            p->overrides[a] =
                g_strdup_printf ("%s:%s=%s", axis->group, axis->key, axis->values[at[a]]);
        }
        p->name = point_name (sweep, p->overrides);
        g_ptr_array_add (sweep->points, p);
    }
    /* Names that collide (values that differ only in bytes a file name cannot hold) get the
     * hash of their overrides, which differs since the overrides do. */
    g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
    g_autoptr (GHashTable) clash = g_hash_table_new (g_str_hash, g_str_equal);
    for (guint i = 0; i < sweep->points->len; i++) {
        const WeftSweepPoint *p = sweep->points->pdata[i];
        if (!g_hash_table_add (seen, p->name))
            g_hash_table_add (clash, p->name);
    }
    g_autoptr (GPtrArray) renamed = g_ptr_array_new ();
    for (guint i = 0; i < sweep->points->len; i++) {
        WeftSweepPoint *p = sweep->points->pdata[i];
        if (g_hash_table_contains (clash, p->name))
            g_ptr_array_add (renamed, p);
    }
    for (guint i = 0; i < renamed->len; i++) {
        WeftSweepPoint *p = renamed->pdata[i];
        g_autofree char *h = overrides_hash (p->overrides);
        char *name = g_strdup_printf ("%s-%s", p->name, h);
        g_free (p->name);
        p->name = name;
    }
}

/* Labels: the key, or GROUP.KEY where two axes share a key. */
static void
label_axes (WeftSweep *sweep)
{
    for (guint a = 0; a < sweep->axes->len; a++) {
        WeftSweepAxis *axis = sweep->axes->pdata[a];
        gboolean shared = FALSE;
        for (guint b = 0; b < sweep->axes->len; b++) {
            const WeftSweepAxis *o = sweep->axes->pdata[b];
            shared |= b != a && strcmp (o->key, axis->key) == 0;
        }
        axis->label =
            shared ? g_strdup_printf ("%s.%s", axis->group, axis->key) : g_strdup (axis->key);
    }
}

WeftSweep *
weft_sweep_read (const WeftExperiment *exp, GError **error)
{
    g_return_val_if_fail (exp != NULL, NULL);
    GKeyFile *kf = weft_experiment_keyfile (exp);
    if (!g_key_file_has_group (kf, WEFT_SWEEP_GROUP)) {
        weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_MISSING, NULL, NULL,
                              "no [sweep] group: a sweep file lists its axes there "
                              "(GROUP:KEY = V1; V2; ...)");
        return NULL;
    }
    g_autoptr (WeftSweep) sweep = g_new0 (WeftSweep, 1);
    sweep->axes = g_ptr_array_new_with_free_func (axis_free);
    sweep->points = g_ptr_array_new_with_free_func (point_free);
    g_auto (GStrv) keys = g_key_file_get_keys (kf, WEFT_SWEEP_GROUP, NULL, NULL);
    for (guint k = 0; keys && keys[k]; k++) {
        const char *key = keys[k];
        if (strcmp (key, "mode") == 0) {
            g_autofree char *m = g_key_file_get_string (kf, WEFT_SWEEP_GROUP, key, NULL);
            if (m && strcmp (g_strstrip (m), "grid") == 0)
                sweep->mode = WEFT_SWEEP_GRID;
            else if (m && strcmp (m, "zip") == 0)
                sweep->mode = WEFT_SWEEP_ZIP;
            else {
                fail (exp, error, WEFT_CONFIG_ERROR_VALUE, key, "'%s': expected grid or zip",
                      m ? m : "");
                return NULL;
            }
        } else if (strcmp (key, "output") == 0) {
            sweep->output = g_key_file_get_string (kf, WEFT_SWEEP_GROUP, key, NULL);
            if (!sweep->output || *g_strstrip (sweep->output) == '\0') {
                fail (exp, error, WEFT_CONFIG_ERROR_VALUE, key, "expected a folder");
                return NULL;
            }
        } else if (strcmp (key, "seeds") != 0) {
            WeftSweepAxis *axis = read_axis (exp, kf, key, error);
            if (!axis)
                return NULL;
            for (guint a = 0; a < sweep->axes->len; a++) {
                const WeftSweepAxis *o = sweep->axes->pdata[a];
                if (strcmp (o->group, axis->group) == 0 && strcmp (o->key, axis->key) == 0) {
                    axis_free (axis);
                    fail (exp, error, WEFT_CONFIG_ERROR_VALUE, key,
                          "the same parameter as axis %s:%s", o->group, o->key);
                    return NULL;
                }
            }
            g_ptr_array_add (sweep->axes, axis);
        }
    }
    gboolean has_seeds = g_key_file_has_key (kf, WEFT_SWEEP_GROUP, "seeds", NULL);
    if (has_seeds) {
        for (guint a = 0; a < sweep->axes->len; a++) {
            const WeftSweepAxis *o = sweep->axes->pdata[a];
            if (strcmp (o->group, "experiment") == 0 && strcmp (o->key, "seed") == 0) {
                fail (exp, error, WEFT_CONFIG_ERROR_VALUE, "seeds",
                      "seeds and the axis experiment:seed both set the seed: keep one");
                return NULL;
            }
        }
        WeftSweepAxis *axis = g_new0 (WeftSweepAxis, 1);
        axis->group = g_strdup ("experiment");
        axis->key = g_strdup ("seed");
        g_ptr_array_add (sweep->axes, axis);
        if (!read_seeds (exp, kf, axis, error))
            return NULL;
    }
    guint n_plain = sweep->axes->len - (has_seeds ? 1 : 0);
    if (sweep->axes->len == 0) {
        fail (exp, error, WEFT_CONFIG_ERROR_MISSING, NULL,
              "no axis: expected GROUP:KEY = V1; V2; ... or seeds = A..B");
        return NULL;
    }
    guint64 n_points = 1;
    if (sweep->mode == WEFT_SWEEP_GRID) {
        for (guint a = 0; a < sweep->axes->len; a++) {
            n_points *= ((const WeftSweepAxis *) sweep->axes->pdata[a])->n_values;
            if (n_points > MAX_POINTS)
                break;
        }
    } else {
        const WeftSweepAxis *first = sweep->axes->pdata[0];
        for (guint a = 1; a < n_plain; a++) {
            const WeftSweepAxis *o = sweep->axes->pdata[a];
            if (o->n_values != first->n_values) {
                g_autofree char *name = g_strdup_printf ("%s:%s", o->group, o->key);
                fail (exp, error, WEFT_CONFIG_ERROR_RANGE, name,
                      "mode = zip: %u values, but axis %s:%s has %u (zip axes have the same "
                      "length)",
                      o->n_values, first->group, first->key, first->n_values);
                return NULL;
            }
        }
        n_points =
            (guint64) (n_plain ? first->n_values : 1) *
            (has_seeds ? ((const WeftSweepAxis *) sweep->axes->pdata[n_plain])->n_values : 1);
    }
    if (n_points > MAX_POINTS) {
        fail (exp, error, WEFT_CONFIG_ERROR_RANGE, NULL, "more than %u points", MAX_POINTS);
        return NULL;
    }
    label_axes (sweep);
    expand (sweep, (guint) n_points, has_seeds);
    return g_steal_pointer (&sweep);
}
