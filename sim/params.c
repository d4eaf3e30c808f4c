/* sim/params.c - parameter tables: defaults, parsing from experiment groups, validation and
 * `weft params` descriptions, all driven by one WeftParamSpec array per model.
 *
 * Defaults and bounds are file text parsed with the same code as file values, so a table can
 * never disagree with what a user may write.  They are parsed again on every read: a few
 * microseconds per model, once per run.
 */
#include "config.h"
#define G_LOG_DOMAIN "weft-params"
#include "sim/params.h"

#include <math.h>
#include <string.h>

#include "sim/units.h"

/* One parsed scalar; which member is live depends on the parameter type. */
typedef union {
    gboolean b;
    gint64 i;
    guint64 u;
    double d;
} Value;

const char *
weft_params_type_name (WeftParamType type)
{
    switch (type) {
    case WEFT_PARAM_TYPE_BOOL:
        return "bool";
    case WEFT_PARAM_TYPE_INT:
        return "int";
    case WEFT_PARAM_TYPE_UINT:
        return "uint";
    case WEFT_PARAM_TYPE_DOUBLE:
        return "double";
    case WEFT_PARAM_TYPE_STRING:
        return "string";
    case WEFT_PARAM_TYPE_ENUM:
        return "choice";
    case WEFT_PARAM_TYPE_TIME:
        return "time";
    case WEFT_PARAM_TYPE_RATE:
        return "rate";
    case WEFT_PARAM_TYPE_BYTES:
        return "bytes";
    case WEFT_PARAM_TYPE_LENGTH:
        return "length";
    case WEFT_PARAM_TYPE_RATIO:
        return "ratio";
    case WEFT_PARAM_TYPE_LIST:
        return "list";
    }
    return "unknown";
}

static gboolean value_error (GError **error, const char *format, ...) G_GNUC_PRINTF (2, 3);

static gboolean
value_error (GError **error, const char *format, ...)
{
    va_list ap;
    va_start (ap, format);
    char *msg = g_strdup_vprintf (format, ap);
    va_end (ap);
    g_set_error_literal (error, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_VALUE, msg);
    g_free (msg);
    return FALSE;
}

static gboolean
parse_int (const char *text, gboolean is_signed, Value *v, GError **error)
{
    const char *what = is_signed ? "an integer such as 42 or -3" : "a whole number such as 42";
    if (!is_signed && text[0] == '-')
        return value_error (error, "'%s' is negative: expected %s", text, what);
    /* Digits only (after an optional '-'): g_ascii_string_to_* would also take a '+'. */
    const char *p = text + (text[0] == '-' ? 1 : 0);
    gboolean digits = *p != '\0';
    for (; *p; p++)
        digits = digits && g_ascii_isdigit (*p);
    if (!digits)
        return value_error (error, "'%s' is not a whole decimal number: expected %s", text, what);
    g_autoptr (GError) local = NULL;
    gboolean ok = is_signed
                      ? g_ascii_string_to_signed (text, 10, G_MININT64, G_MAXINT64, &v->i, &local)
                      : g_ascii_string_to_unsigned (text, 10, 0, G_MAXUINT64, &v->u, &local);
    if (!ok)
        return value_error (error, "'%s' is too large: expected %s", text, what);
    return TRUE;
}

static gboolean
parse_double (const char *text, double *out)
{
    char *end = NULL;
    if (text[0] == '\0' || g_ascii_isspace (text[0]))
        return FALSE;
    *out = g_ascii_strtod (text, &end);
    return end && *end == '\0' && isfinite (*out);
}

static gboolean
parse_ratio (const char *text, double *out, GError **error)
{
    const char *colon = strchr (text, ':');
    if (!colon)
        return value_error (error, "'%s' is not a ratio: expected A:B such as 3:1 or 1:1", text);
    g_autofree char *a_text = g_strstrip (g_strndup (text, (gsize) (colon - text)));
    g_autofree char *b_text = g_strstrip (g_strdup (colon + 1));
    double a, b;
    if (!parse_double (a_text, &a) || !parse_double (b_text, &b))
        return value_error (error, "'%s' is not a ratio: expected A:B such as 3:1 or 1:1", text);
    if (!(a > 0) || !(b > 0))
        return value_error (error,
                            "'%s' is not a ratio of positive numbers: expected A:B "
                            "such as 3:1 or 1:1",
                            text);
    *out = a / b;
    return TRUE;
}

static gboolean
parse_scalar (WeftParamType type, const char *text, Value *v, GError **error)
{
    switch (type) {
    case WEFT_PARAM_TYPE_BOOL:
        /* GKeyFile's own words; "yes", "on" and "1" are refused so files stay uniform. */
        if (strcmp (text, "true") == 0)
            v->b = TRUE;
        else if (strcmp (text, "false") == 0)
            v->b = FALSE;
        else
            return value_error (error, "'%s' is not a boolean: expected true or false", text);
        return TRUE;
    case WEFT_PARAM_TYPE_INT:
        return parse_int (text, TRUE, v, error);
    case WEFT_PARAM_TYPE_UINT:
        return parse_int (text, FALSE, v, error);
    case WEFT_PARAM_TYPE_DOUBLE:
        if (!parse_double (text, &v->d))
            return value_error (error,
                                "'%s' is not a number: expected a decimal number such "
                                "as 0.5",
                                text);
        return TRUE;
    case WEFT_PARAM_TYPE_TIME:
        return weft_units_parse_time (text, &v->u, error);
    case WEFT_PARAM_TYPE_RATE:
        return weft_units_parse_rate (text, &v->u, error);
    case WEFT_PARAM_TYPE_BYTES:
        return weft_units_parse_bytes (text, &v->u, error);
    case WEFT_PARAM_TYPE_LENGTH:
        return weft_units_parse_length (text, &v->d, error);
    case WEFT_PARAM_TYPE_RATIO:
        return parse_ratio (text, &v->d, error);
    case WEFT_PARAM_TYPE_STRING:
    case WEFT_PARAM_TYPE_ENUM:
    case WEFT_PARAM_TYPE_LIST:
        break;
    }
    g_return_val_if_reached (FALSE);
}

static void
store_scalar (WeftParamType type, void *field, const Value *v)
{
    switch (type) {
    case WEFT_PARAM_TYPE_BOOL:
        *(gboolean *) field = v->b;
        break;
    case WEFT_PARAM_TYPE_INT:
        *(gint64 *) field = v->i;
        break;
    case WEFT_PARAM_TYPE_UINT:
    case WEFT_PARAM_TYPE_TIME:
    case WEFT_PARAM_TYPE_RATE:
    case WEFT_PARAM_TYPE_BYTES:
        *(guint64 *) field = v->u;
        break;
    case WEFT_PARAM_TYPE_DOUBLE:
    case WEFT_PARAM_TYPE_LENGTH:
    case WEFT_PARAM_TYPE_RATIO:
        *(double *) field = v->d;
        break;
    case WEFT_PARAM_TYPE_STRING:
    case WEFT_PARAM_TYPE_ENUM:
    case WEFT_PARAM_TYPE_LIST:
        g_assert_not_reached ();
    }
}

gboolean
weft_params_parse_value (WeftParamType type, const char *text, void *out, GError **error)
{
    g_return_val_if_fail (text != NULL && out != NULL, FALSE);
    g_return_val_if_fail (type != WEFT_PARAM_TYPE_STRING && type != WEFT_PARAM_TYPE_ENUM &&
                              type != WEFT_PARAM_TYPE_LIST,
                          FALSE);
    g_autofree char *t = g_strstrip (g_strdup (text));
    Value v;
    if (!parse_scalar (type, t, &v, error))
        return FALSE;
    store_scalar (type, out, &v);
    return TRUE;
}

/* -1, 0, 1 as a < b, a == b, a > b. */
static int
compare (WeftParamType type, const Value *a, const Value *b)
{
    switch (type) {
    case WEFT_PARAM_TYPE_INT:
        return (a->i > b->i) - (a->i < b->i);
    case WEFT_PARAM_TYPE_DOUBLE:
    case WEFT_PARAM_TYPE_LENGTH:
    case WEFT_PARAM_TYPE_RATIO:
        return (a->d > b->d) - (a->d < b->d);
    default:
        return (a->u > b->u) - (a->u < b->u);
    }
}

static gboolean
has_range (WeftParamType type)
{
    return type != WEFT_PARAM_TYPE_BOOL && type != WEFT_PARAM_TYPE_STRING &&
           type != WEFT_PARAM_TYPE_ENUM && type != WEFT_PARAM_TYPE_LIST;
}

/* A bound in the table that does not parse is a programming error. */
static Value
parse_bound (const WeftParamSpec *p, const char *text)
{
    Value v;
    g_autoptr (GError) err = NULL;
    if (!parse_scalar (p->type, text, &v, &err))
        g_error ("parameter '%s': bound '%s' does not parse: %s", p->name, text, err->message);
    return v;
}

/* NULL when @v is within the spec's bounds, else "X is out of range: expected ..." */
static char *
range_problem (const WeftParamSpec *p, const char *text, const Value *v)
{
    gboolean low = p->min && compare (p->type, v, (Value[]){ parse_bound (p, p->min) }) < 0;
    gboolean high = p->max && compare (p->type, v, (Value[]){ parse_bound (p, p->max) }) > 0;
    if (!low && !high)
        return NULL;
    if (p->min && p->max)
        return g_strdup_printf ("%s is out of range: expected %s to %s", text, p->min, p->max);
    if (p->min)
        return g_strdup_printf ("%s is out of range: expected at least %s", text, p->min);
    return g_strdup_printf ("%s is out of range: expected at most %s", text, p->max);
}

/* Index of @text among the '|'-separated choices, or -1. */
static int
enum_index (const char *choices, const char *text, char ***list_out)
{
    char **list = g_strsplit (choices, "|", -1);
    int found = -1;
    for (int i = 0; list[i]; i++)
        if (strcmp (list[i], text) == 0) {
            found = i;
            break;
        }
    if (list_out)
        *list_out = list;
    else
        g_strfreev (list);
    return found;
}

static char **
split_list (const char *text)
{
    char **parts = g_strsplit (text, ";", -1);
    GPtrArray *out = g_ptr_array_new ();
    for (guint i = 0; parts[i]; i++) {
        g_strstrip (parts[i]);
        if (parts[i][0] != '\0')
            g_ptr_array_add (out, g_strdup (parts[i]));
    }
    g_strfreev (parts);
    g_ptr_array_add (out, NULL);
    return (char **) g_ptr_array_free (out, FALSE);
}

static void
clear_one (const WeftParamSpec *p, void *obj)
{
    void *field = G_STRUCT_MEMBER_P (obj, p->offset);
    if (p->type == WEFT_PARAM_TYPE_STRING)
        g_clear_pointer ((char **) field, g_free);
    else if (p->type == WEFT_PARAM_TYPE_LIST)
        g_clear_pointer ((char ***) field, g_strfreev);
}

void
weft_params_clear (const WeftParamSpec *spec, void *obj)
{
    g_return_if_fail (spec != NULL && obj != NULL);
    for (const WeftParamSpec *p = spec; p->name; p++)
        clear_one (p, obj);
}

void
weft_params_set_defaults (const WeftParamSpec *spec, void *obj)
{
    g_return_if_fail (spec != NULL && obj != NULL);
    for (const WeftParamSpec *p = spec; p->name; p++) {
        void *field = G_STRUCT_MEMBER_P (obj, p->offset);
        clear_one (p, obj);
        if (!p->def)
            continue; /* required: left zero until the file sets it */
        if (strcmp (p->def, WEFT_PARAM_DERIVED) == 0) {
            g_assert (p->type != WEFT_PARAM_TYPE_STRING && p->type != WEFT_PARAM_TYPE_LIST &&
                      p->type != WEFT_PARAM_TYPE_ENUM);
            Value zero = { 0 };
            store_scalar (p->type, field, &zero); /* the model derives it */
            continue;
        }
        switch (p->type) {
        case WEFT_PARAM_TYPE_STRING:
            *(char **) field = g_strdup (p->def);
            break;
        case WEFT_PARAM_TYPE_LIST:
            *(char ***) field = split_list (p->def);
            break;
        case WEFT_PARAM_TYPE_ENUM: {
            int i = enum_index (p->choices, p->def, NULL);
            if (i < 0)
                g_error ("parameter '%s': default '%s' is not among '%s'", p->name, p->def,
                         p->choices);
            *(int *) field = i;
            break;
        }
        default: {
            Value v = parse_bound (p, p->def);
            store_scalar (p->type, field, &v);
            break;
        }
        }
    }
}

static const WeftParamSpec *
find_spec (const WeftParamSpec *spec, const char *name)
{
    for (const WeftParamSpec *p = spec; p->name; p++)
        if (strcmp (p->name, name) == 0)
            return p;
    return NULL;
}

/* Parses @text into the field of @p in @obj, or fails with the file context. */
static gboolean
read_one (const WeftExperiment *exp, const char *group, const WeftParamSpec *p, void *obj,
          GError **error)
{
    GKeyFile *kf = weft_experiment_keyfile (exp);
    void *field = G_STRUCT_MEMBER_P (obj, p->offset);
    g_autoptr (GError) local = NULL;
    g_autofree char *raw = g_key_file_get_string (kf, group, p->name, &local);
    /* GLib may return the value and still report a bad escape ("10\0us", "a\qb"): the value
     * is refused either way, not taken half-decoded. */
    if (!raw || local)
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_VALUE, group, p->name,
                                     "the value has an invalid escape or is not UTF-8 (a key "
                                     "file's escapes are \\s \\n \\t \\r and \\\\)");
    char *text = g_strstrip (raw);

    switch (p->type) {
    case WEFT_PARAM_TYPE_STRING:
        g_free (*(char **) field);
        *(char **) field = g_strdup (text);
        return TRUE;
    case WEFT_PARAM_TYPE_LIST:
        g_strfreev (*(char ***) field);
        *(char ***) field = split_list (text);
        return TRUE;
    case WEFT_PARAM_TYPE_ENUM: {
        g_auto (GStrv) choices = NULL;
        int i = enum_index (p->choices, text, &choices);
        if (i >= 0) {
            *(int *) field = i;
            return TRUE;
        }
        g_autofree char *all = g_strjoinv (", ", choices);
        const char *s = weft_suggest (text, (const char *const *) choices);
        if (s)
            return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_VALUE, group, p->name,
                                         "'%s' is not a valid choice, did you mean '%s'? "
                                         "expected one of: %s",
                                         text, s, all);
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_VALUE, group, p->name,
                                     "'%s' is not a valid choice: expected one of: %s", text, all);
    }
    default:
        break;
    }

    Value v;
    if (!parse_scalar (p->type, text, &v, &local))
        return weft_experiment_fail (exp, error, (WeftConfigError) local->code, group, p->name,
                                     "%s", local->message);
    g_autofree char *problem = range_problem (p, text, &v);
    if (problem)
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_RANGE, group, p->name, "%s",
                                     problem);
    store_scalar (p->type, field, &v);
    return TRUE;
}

/* "such as 400Gbps" for a missing key: the example the units module would give. */
static const char *
type_example (WeftParamType type)
{
    switch (type) {
    case WEFT_PARAM_TYPE_BOOL:
        return "true or false";
    case WEFT_PARAM_TYPE_TIME:
        return "a time such as 1.5us";
    case WEFT_PARAM_TYPE_RATE:
        return "a rate such as 400Gbps";
    case WEFT_PARAM_TYPE_BYTES:
        return "a size such as 64KiB";
    case WEFT_PARAM_TYPE_LENGTH:
        return "a length such as 2.5m";
    case WEFT_PARAM_TYPE_RATIO:
        return "a ratio such as 3:1";
    case WEFT_PARAM_TYPE_LIST:
        return "a ';'-separated list";
    case WEFT_PARAM_TYPE_INT:
    case WEFT_PARAM_TYPE_UINT:
        return "a whole number";
    case WEFT_PARAM_TYPE_DOUBLE:
        return "a number";
    case WEFT_PARAM_TYPE_STRING:
        return "a string";
    case WEFT_PARAM_TYPE_ENUM:
        return "one of the choices";
    }
    return "a value";
}

gboolean
weft_params_read (const WeftExperiment *exp, const char *group, const WeftParamBinding *bindings,
                  guint n_bindings, GError **error)
{
    g_return_val_if_fail (exp != NULL && group != NULL, FALSE);
    g_return_val_if_fail (bindings != NULL || n_bindings == 0, FALSE);
    for (guint b = 0; b < n_bindings; b++)
        weft_params_set_defaults (bindings[b].spec, bindings[b].obj);

    GKeyFile *kf = weft_experiment_keyfile (exp);
    g_auto (GStrv) keys = g_key_file_get_keys (kf, group, NULL, NULL);

    /* Unknown keys first: a misspelt key should be reported as such, not as the required key
     * it failed to set. */
    for (guint k = 0; keys && keys[k]; k++) {
        gboolean known = FALSE;
        for (guint b = 0; b < n_bindings && !known; b++)
            known = find_spec (bindings[b].spec, keys[k]) != NULL;
        if (known)
            continue;
        g_autoptr (GPtrArray) names = g_ptr_array_new ();
        for (guint b = 0; b < n_bindings; b++)
            for (const WeftParamSpec *p = bindings[b].spec; p->name; p++)
                g_ptr_array_add (names, (gpointer) p->name);
        g_ptr_array_add (names, NULL);
        const char *const *cands = (const char *const *) names->pdata;
        const char *s = weft_suggest (keys[k], cands);
        if (s)
            return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_UNKNOWN_KEY, group, keys[k],
                                         "unknown key, did you mean '%s'?", s);
        g_autofree char *all = g_strjoinv (", ", (char **) names->pdata);
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_UNKNOWN_KEY, group, keys[k],
                                     "unknown key: expected one of: %s",
                                     all[0] ? all : "(none: this group takes no keys)");
    }

    for (guint b = 0; b < n_bindings; b++) {
        for (const WeftParamSpec *p = bindings[b].spec; p->name; p++) {
            if (g_key_file_has_key (kf, group, p->name, NULL)) {
                if (!read_one (exp, group, p, bindings[b].obj, error))
                    return FALSE;
            } else if (!p->def) {
                return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_MISSING, group, p->name,
                                             "required key is missing: expected %s (%s)",
                                             type_example (p->type), p->help);
            }
        }
    }
    return TRUE;
}

void
weft_params_describe (const WeftParamSpec *spec, GString *out)
{
    g_return_if_fail (spec != NULL && out != NULL);
    for (const WeftParamSpec *p = spec; p->name; p++) {
        g_autofree char *extra = NULL;
        if (p->type == WEFT_PARAM_TYPE_ENUM)
            extra = g_strdup_printf ("[%s]", p->choices);
        else if (has_range (p->type) && p->min && p->max)
            extra = g_strdup_printf ("[%s .. %s]", p->min, p->max);
        else if (has_range (p->type) && p->min)
            extra = g_strdup_printf ("[>= %s]", p->min);
        else if (has_range (p->type) && p->max)
            extra = g_strdup_printf ("[<= %s]", p->max);
        g_autofree char *line =
            g_strdup_printf ("  %-20s %-7s %-12s %s", p->name, weft_params_type_name (p->type),
                             p->def ? p->def : "(required)", extra ? extra : "");
        g_string_append_printf (out, "%s\n  %-20s %s\n", g_strchomp (line), "",
                                p->help ? p->help : "");
    }
}
