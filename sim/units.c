/* sim/units.c - exact parsing and formatting of quantities with units.
 *
 * A number is split into its integer digits and its fraction digits and scaled by the unit's
 * multiplier in 128-bit integer arithmetic, so "40.96ns" is exactly 40960 ps and "1.5KiB" is
 * exactly 1536 B; no double ever touches a time, rate or size.  Only lengths are doubles.
 */
#include "config.h"
#define G_LOG_DOMAIN "weft-units"
#include "sim/units.h"

#include <string.h>

#include "sim/errors.h"

typedef struct {
    const char *name;
    guint64 mult; /* base units per one of this unit */
} Unit;

typedef struct {
    const char *what;    /* "time" */
    const char *example; /* "1.5us" */
    const char *base;    /* "picoseconds": for "not a whole number of ..." */
    const Unit *units;   /* {NULL}-terminated, ascending */
} Kind;

static const Unit time_units[] = {
    { "ps", 1 },
    { "ns", G_GUINT64_CONSTANT (1000) },
    { "us", G_GUINT64_CONSTANT (1000000) },
    { "ms", G_GUINT64_CONSTANT (1000000000) },
    { "s", G_GUINT64_CONSTANT (1000000000000) },
    { NULL, 0 },
};

static const Unit rate_units[] = {
    { "bps", 1 },
    { "Kbps", G_GUINT64_CONSTANT (1000) },
    { "Mbps", G_GUINT64_CONSTANT (1000000) },
    { "Gbps", G_GUINT64_CONSTANT (1000000000) },
    { "Tbps", G_GUINT64_CONSTANT (1000000000000) },
    { "MB/s", G_GUINT64_CONSTANT (8000000) },
    { "GB/s", G_GUINT64_CONSTANT (8000000000) },
    { NULL, 0 },
};

static const Unit byte_units[] = {
    { "B", 1 },
    { "KB", G_GUINT64_CONSTANT (1000) },
    { "MB", G_GUINT64_CONSTANT (1000000) },
    { "GB", G_GUINT64_CONSTANT (1000000000) },
    { "TB", G_GUINT64_CONSTANT (1000000000000) },
    { "KiB", G_GUINT64_CONSTANT (1) << 10 },
    { "MiB", G_GUINT64_CONSTANT (1) << 20 },
    { "GiB", G_GUINT64_CONSTANT (1) << 30 },
    { "TiB", G_GUINT64_CONSTANT (1) << 40 },
    { NULL, 0 },
};

static const Unit length_units[] = {
    { "m", 1 },
    { NULL, 0 },
};

static const Kind kind_time = { "time", "1.5us", "picoseconds", time_units };
static const Kind kind_rate = { "rate", "400Gbps", "bits per second", rate_units };
static const Kind kind_bytes = { "size", "64KiB", "bytes", byte_units };
static const Kind kind_length = { "length", "2.5m", "metres", length_units };

static const Kind *const all_kinds[] = { &kind_time, &kind_rate, &kind_bytes, &kind_length, NULL };

/* "expected a time such as 1.5us (ps, ns, us, ms, s)" */
static char *
expected (const Kind *kind)
{
    GString *s = g_string_new (NULL);
    g_string_append_printf (s, "expected a %s such as %s (", kind->what, kind->example);
    for (const Unit *u = kind->units; u->name; u++)
        g_string_append_printf (s, "%s%s", u == kind->units ? "" : ", ", u->name);
    g_string_append_c (s, ')');
    return g_string_free (s, FALSE);
}

static gboolean fail (GError **error, WeftConfigError code, const Kind *kind, const char *format,
                      ...) G_GNUC_PRINTF (4, 5);

static gboolean
fail (GError **error, WeftConfigError code, const Kind *kind, const char *format, ...)
{
    va_list ap;
    va_start (ap, format);
    g_autofree char *what = g_strdup_vprintf (format, ap);
    va_end (ap);
    g_autofree char *exp = expected (kind);
    g_set_error (error, WEFT_CONFIG_ERROR, code, "%s: %s", what, exp);
    return FALSE;
}

static const Unit *
find_unit (const Unit *units, const char *name, gboolean ignore_case)
{
    for (const Unit *u = units; u->name; u++)
        if (ignore_case ? g_ascii_strcasecmp (u->name, name) == 0 : strcmp (u->name, name) == 0)
            return u;
    return NULL;
}

/* The lexical form shared by every kind: [space] digits [. digits] [space] unit [space].
 * On success the digit spans are set and lx->unit is the stripped unit (owned). */
typedef struct {
    const char *int_start;
    gsize n_int;
    const char *frac_start;
    gsize n_frac;
    char *unit; /* stripped, owned */
} Lexed;

static gboolean
lex (const char *text, const Kind *kind, Lexed *lx, GError **error)
{
    const char *p = text;
    memset (lx, 0, sizeof *lx);
    while (g_ascii_isspace (*p))
        p++;
    if (*p == '\0')
        return fail (error, WEFT_CONFIG_ERROR_VALUE, kind, "empty value");
    if (*p == '-')
        return fail (error, WEFT_CONFIG_ERROR_VALUE, kind, "'%s' is negative", text);
    lx->int_start = p;
    while (g_ascii_isdigit (*p))
        p++;
    lx->n_int = (gsize) (p - lx->int_start);
    if (*p == '.') {
        p++;
        lx->frac_start = p;
        while (g_ascii_isdigit (*p))
            p++;
        lx->n_frac = (gsize) (p - lx->frac_start);
        if (lx->n_frac == 0)
            return fail (error, WEFT_CONFIG_ERROR_VALUE, kind, "'%s' is not a number", text);
    }
    if (lx->n_int == 0 && lx->n_frac == 0)
        return fail (error, WEFT_CONFIG_ERROR_VALUE, kind, "'%s' does not start with a number",
                     text);
    if (*p == '.' || *p == ',')
        return fail (error, WEFT_CONFIG_ERROR_VALUE, kind, "'%s' is not a number", text);
    while (g_ascii_isspace (*p))
        p++;
    lx->unit = g_strchomp (g_strdup (p));
    if (lx->unit[0] == '\0') {
        g_free (lx->unit);
        lx->unit = NULL;
        return fail (error, WEFT_CONFIG_ERROR_UNIT, kind, "'%s' has no unit", text);
    }
    return TRUE;
}

/* Resolves the unit of @lx in @kind, or explains why not. */
static const Unit *
resolve_unit (const char *text, const Lexed *lx, const Kind *kind, GError **error)
{
    const Unit *u = find_unit (kind->units, lx->unit, FALSE);
    if (u)
        return u;
    u = find_unit (kind->units, lx->unit, TRUE);
    if (u) {
        fail (error, WEFT_CONFIG_ERROR_UNIT, kind,
              "'%s': unknown unit '%s' (units are case-sensitive), did you mean '%s'?", text,
              lx->unit, u->name);
        return NULL;
    }
    for (const Kind *const *k = all_kinds; *k; k++)
        if (*k != kind && find_unit ((*k)->units, lx->unit, FALSE)) {
            fail (error, WEFT_CONFIG_ERROR_UNIT, kind, "'%s' is a %s, not a %s", text, (*k)->what,
                  kind->what);
            return NULL;
        }
    fail (error, WEFT_CONFIG_ERROR_UNIT, kind, "'%s' has unknown unit '%s'", text, lx->unit);
    return NULL;
}

/* At most this many significant fraction digits: 10^24 * 2^44 still fits in 128 bits. */
#define MAX_FRAC_DIGITS 24

static gboolean
parse_exact (const char *text, const Kind *kind, guint64 *out, GError **error)
{
    g_return_val_if_fail (text != NULL, FALSE);
    Lexed lx;
    if (!lex (text, kind, &lx, error))
        return FALSE;
    const Unit *u = resolve_unit (text, &lx, kind, error);
    g_free (lx.unit);
    if (!u)
        return FALSE;

    unsigned __int128 ip = 0;
    for (gsize i = 0; i < lx.n_int; i++) {
        ip = ip * 10 + (unsigned) (lx.int_start[i] - '0');
        if (ip > G_MAXUINT64)
            return fail (error, WEFT_CONFIG_ERROR_VALUE, kind, "'%s' is too large", text);
    }
    gsize n_frac = lx.n_frac;
    while (n_frac > 0 && lx.frac_start[n_frac - 1] == '0')
        n_frac--;
    if (n_frac > MAX_FRAC_DIGITS)
        return fail (error, WEFT_CONFIG_ERROR_VALUE, kind, "'%s' is not a whole number of %s", text,
                     kind->base);
    unsigned __int128 fp = 0, scale = 1;
    for (gsize i = 0; i < n_frac; i++) {
        fp = fp * 10 + (unsigned) (lx.frac_start[i] - '0');
        scale *= 10;
    }
    unsigned __int128 frac_base = fp * u->mult;
    if (frac_base % scale != 0)
        return fail (error, WEFT_CONFIG_ERROR_VALUE, kind, "'%s' is not a whole number of %s", text,
                     kind->base);
    unsigned __int128 total = ip * u->mult + frac_base / scale;
    if (total > G_MAXUINT64)
        return fail (error, WEFT_CONFIG_ERROR_VALUE, kind, "'%s' is too large", text);
    *out = (guint64) total;
    return TRUE;
}

gboolean
weft_units_parse_time (const char *text, weft_time_t *out_ps, GError **error)
{
    return parse_exact (text, &kind_time, out_ps, error);
}

gboolean
weft_units_parse_rate (const char *text, guint64 *out_bps, GError **error)
{
    return parse_exact (text, &kind_rate, out_bps, error);
}

gboolean
weft_units_parse_bytes (const char *text, guint64 *out_bytes, GError **error)
{
    return parse_exact (text, &kind_bytes, out_bytes, error);
}

gboolean
weft_units_parse_length (const char *text, double *out_m, GError **error)
{
    g_return_val_if_fail (text != NULL, FALSE);
    Lexed lx;
    if (!lex (text, &kind_length, &lx, error))
        return FALSE;
    const Unit *u = resolve_unit (text, &lx, &kind_length, error);
    g_free (lx.unit);
    if (!u)
        return FALSE;
    /* The lexer has checked the digits, so strtod reads exactly the number part. */
    const char *end = lx.n_frac ? lx.frac_start + lx.n_frac : lx.int_start + lx.n_int;
    g_autofree char *num = g_strndup (lx.int_start, (gsize) (end - lx.int_start));
    *out_m = g_ascii_strtod (num, NULL) * (double) u->mult;
    return TRUE;
}

/* Formatting: the largest unit (of @units, ascending, @n of them) in which @v is exact with at
 * most four decimals; the base unit always is.  Returns the number of decimals used and sets
 * *unit_index to the unit chosen. */
static guint
format_in (GString *out, guint64 v, const Unit *units, guint n, guint *unit_index)
{
    for (guint i = n; i-- > 0;) {
        guint64 m = units[i].mult;
        if (v < m && i > 0)
            continue;
        if (((unsigned __int128) v * 10000) % m != 0)
            continue;
        guint64 whole = v / m;
        guint64 frac = (guint64) (((unsigned __int128) (v % m) * 10000) / m);
        guint decimals = 4;
        while (decimals > 0 && frac % 10 == 0) {
            frac /= 10;
            decimals--;
        }
        g_string_append_printf (out, "%" G_GUINT64_FORMAT, whole);
        if (decimals > 0)
            g_string_append_printf (out, ".%0*" G_GUINT64_FORMAT, (int) decimals, frac);
        g_string_append (out, units[i].name);
        *unit_index = i;
        return decimals;
    }
    g_assert_not_reached ();
}

char *
weft_units_format_time (weft_time_t ps)
{
    GString *s = g_string_new (NULL);
    guint unit;
    format_in (s, ps, time_units, 5, &unit);
    return g_string_free (s, FALSE);
}

char *
weft_units_format_rate (guint64 bps)
{
    GString *s = g_string_new (NULL);
    guint unit;
    format_in (s, bps, rate_units, 5, &unit); /* the bit units only: "400Gbps", never "50GB/s" */
    return g_string_free (s, FALSE);
}

char *
weft_units_format_bytes (guint64 bytes)
{
    /* Binary when a binary unit above B says it with no more decimals than decimal units do:
     * 64MiB, 1.5KiB; else decimal: 1.5MB, 1KB. */
    static const Unit binary[] = { { "B", 1 },
                                   { "KiB", G_GUINT64_CONSTANT (1) << 10 },
                                   { "MiB", G_GUINT64_CONSTANT (1) << 20 },
                                   { "GiB", G_GUINT64_CONSTANT (1) << 30 },
                                   { "TiB", G_GUINT64_CONSTANT (1) << 40 } };
    GString *bin = g_string_new (NULL);
    GString *dec = g_string_new (NULL);
    guint bin_unit, dec_unit;
    guint bin_decimals = format_in (bin, bytes, binary, 5, &bin_unit);
    guint dec_decimals = format_in (dec, bytes, byte_units, 5, &dec_unit);
    gboolean use_bin = bin_unit > 0 && bin_decimals <= dec_decimals;
    g_string_free (use_bin ? dec : bin, TRUE);
    return g_string_free (use_bin ? bin : dec, FALSE);
}

char *
weft_units_format_human_time (weft_time_t ps)
{
    if (ps >= WEFT_S (1))
        return g_strdup_printf ("%.3f s", ps / 1e12);
    if (ps >= WEFT_MS (1))
        return g_strdup_printf ("%.3f ms", ps / 1e9);
    if (ps >= WEFT_US (1))
        return g_strdup_printf ("%.3f us", ps / 1e6);
    return g_strdup_printf ("%.3f ns", ps / 1e3);
}
