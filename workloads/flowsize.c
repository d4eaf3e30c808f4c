#include "config.h"
#define G_LOG_DOMAIN "weft-flowsize"
#include "workloads/flowsize.h"

#include <errno.h>
#include <math.h>
#include <gsl/gsl_randist.h>

#include "sim/errors.h"
#include "sim/input.h"

typedef enum { FS_FIXED, FS_EXPONENTIAL, FS_LOGNORMAL, FS_PARETO, FS_UNIFORM, FS_CDF } FsKind;

struct _WeftFlowsize {
    FsKind kind;
    double a, b; /* fixed: a; exponential: a = mean; lognormal: a = mu, b = sigma;
                    pareto: a = shape, b = scale; uniform: [a, b + 1) floored */
    double mean;
    /* empirical CDF: n points, bytes ascending, pct ascending, pct[n-1] == 100 */
    guint n;
    double *bytes, *pct;
};

/* Sizes above this are clamped: far beyond any simulated flow, and exact in a double. */
#define FS_MAX_BYTES 4611686018427387904.0 /* 2^62 */

static WeftFlowsize *
fs_new (FsKind kind, double a, double b, double mean)
{
    WeftFlowsize *fs = g_new0 (WeftFlowsize, 1);
    fs->kind = kind;
    fs->a = a;
    fs->b = b;
    fs->mean = mean;
    return fs;
}

WeftFlowsize *
weft_flowsize_new_fixed (guint64 bytes)
{
    g_return_val_if_fail (bytes >= 1, NULL);
    return fs_new (FS_FIXED, (double) bytes, 0, (double) bytes);
}

WeftFlowsize *
weft_flowsize_new_exponential (double mean_bytes)
{
    g_return_val_if_fail (mean_bytes > 0, NULL);
    return fs_new (FS_EXPONENTIAL, mean_bytes, 0, mean_bytes);
}

WeftFlowsize *
weft_flowsize_new_lognormal (double mu, double sigma)
{
    g_return_val_if_fail (sigma >= 0, NULL);
    return fs_new (FS_LOGNORMAL, mu, sigma, exp (mu + sigma * sigma / 2));
}

WeftFlowsize *
weft_flowsize_new_pareto (double mean_bytes, double shape)
{
    g_return_val_if_fail (mean_bytes > 0 && shape > 1, NULL);
    /* GSL's Pareto(a, b) has support x >= b and mean a b / (a - 1). */
    return fs_new (FS_PARETO, shape, mean_bytes * (shape - 1) / shape, mean_bytes);
}

WeftFlowsize *
weft_flowsize_new_uniform (guint64 min_bytes, guint64 max_bytes)
{
    g_return_val_if_fail (min_bytes >= 1 && min_bytes <= max_bytes, NULL);
    return fs_new (FS_UNIFORM, (double) min_bytes, (double) max_bytes,
                   ((double) min_bytes + (double) max_bytes) / 2);
}

static WeftFlowsize *
cdf_fail (GError **error, const char *name, guint line, const char *what)
{
    g_set_error (error, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_VALUE, "%s:%u: %s", name, line, what);
    return NULL;
}

/* Parses one non-negative decimal number that fills the whole token. */
static gboolean
parse_number (const char *tok, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = g_ascii_strtod (tok, &end);
    if (end == tok || *end != '\0' || errno != 0 || !isfinite (v) || v < 0)
        return FALSE;
    *out = v;
    return TRUE;
}

WeftFlowsize *
weft_flowsize_new_cdf_from_data (const char *text, const char *name, GError **error)
{
    g_return_val_if_fail (text != NULL && name != NULL, NULL);
    g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
    g_autoptr (GArray) bytes = g_array_new (FALSE, FALSE, sizeof (double));
    g_autoptr (GArray) pct = g_array_new (FALSE, FALSE, sizeof (double));
    guint last_line = 0;

    for (guint i = 0; lines[i]; i++) {
        guint line = i + 1;
        char *hash = strchr (lines[i], '#');
        if (hash)
            *hash = '\0';
        g_auto (GStrv) tok = g_strsplit_set (g_strstrip (lines[i]), " \t\r", -1);
        const char *t[3] = { NULL, NULL, NULL };
        guint nt = 0;
        for (guint k = 0; tok[k]; k++) {
            if (*tok[k] == '\0')
                continue;
            if (nt == 2)
                return cdf_fail (error, name, line,
                                 "too many fields: expected 'bytes percent' (e.g. '10000 15')");
            t[nt++] = tok[k];
        }
        if (nt == 0)
            continue;
        double b, p;
        if (nt != 2 || !parse_number (t[0], &b) || !parse_number (t[1], &p))
            return cdf_fail (error, name, line,
                             "expected 'bytes percent' with two non-negative numbers "
                             "(e.g. '10000 15')");
        if (p > 100)
            return cdf_fail (error, name, line, "percentage above 100");
        if (bytes->len > 0) {
            double pb = g_array_index (bytes, double, bytes->len - 1);
            double pp = g_array_index (pct, double, pct->len - 1);
            if (b < pb) {
                g_autofree char *m =
                    g_strdup_printf ("size %g is below the previous %g: sizes must ascend", b, pb);
                return cdf_fail (error, name, line, m);
            }
            if (p < pp) {
                g_autofree char *m = g_strdup_printf (
                    "percentage %g is below the previous %g: the CDF must not decrease", p, pp);
                return cdf_fail (error, name, line, m);
            }
        }
        g_array_append_val (bytes, b);
        g_array_append_val (pct, p);
        last_line = line;
    }
    if (bytes->len == 0)
        return cdf_fail (error, name, 1, "no points: expected lines of 'bytes percent'");
    if (g_array_index (pct, double, pct->len - 1) != 100) {
        g_autofree char *m = g_strdup_printf ("the last point is at %g %%: the CDF must end at 100",
                                              g_array_index (pct, double, pct->len - 1));
        return cdf_fail (error, name, last_line, m);
    }
    if (g_array_index (bytes, double, bytes->len - 1) < 1)
        return cdf_fail (error, name, last_line, "every size is below 1 byte");

    WeftFlowsize *fs = fs_new (FS_CDF, 0, 0, 0);
    fs->n = bytes->len;
    fs->bytes = (double *) g_array_free (g_steal_pointer (&bytes), FALSE);
    fs->pct = (double *) g_array_free (g_steal_pointer (&pct), FALSE);
    /* Mean of the piecewise-linear CDF: a point mass pct[0] at bytes[0], then each segment
     * uniform between its ends. */
    double mean = fs->bytes[0] * fs->pct[0] / 100;
    for (guint i = 1; i < fs->n; i++)
        mean += (fs->pct[i] - fs->pct[i - 1]) / 100 * (fs->bytes[i - 1] + fs->bytes[i]) / 2;
    fs->mean = mean;
    return fs;
}

WeftFlowsize *
weft_flowsize_new_cdf_load (const char *path, GError **error)
{
    g_autofree char *text = NULL;
    GError *local = NULL;
    if (!weft_input_read (path, WEFT_INPUT_MAX_TABLE, &text, NULL, &local)) {
        g_set_error (error, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_FILE,
                     "cannot read the size CDF %s: %s", path, local->message);
        g_error_free (local);
        return NULL;
    }
    return weft_flowsize_new_cdf_from_data (text, path, error);
}

void
weft_flowsize_free (WeftFlowsize *fs)
{
    if (!fs)
        return;
    g_free (fs->bytes);
    g_free (fs->pct);
    g_free (fs);
}

static guint64
to_bytes (double x)
{
    if (!(x >= 1)) /* also catches NaN */
        return 1;
    if (x >= FS_MAX_BYTES)
        return (guint64) FS_MAX_BYTES;
    return (guint64) llround (x);
}

static double
cdf_sample (const WeftFlowsize *fs, gsl_rng *rng)
{
    double u = gsl_rng_uniform (rng) * 100; /* [0, 100) */
    /* First point whose percentage exceeds u (exists: the last is 100). */
    guint lo = 0, hi = fs->n - 1;
    while (lo < hi) {
        guint mid = (lo + hi) / 2;
        if (fs->pct[mid] > u)
            hi = mid;
        else
            lo = mid + 1;
    }
    if (lo == 0)
        return fs->bytes[0];
    double p0 = fs->pct[lo - 1], p1 = fs->pct[lo];
    return fs->bytes[lo - 1] + (u - p0) / (p1 - p0) * (fs->bytes[lo] - fs->bytes[lo - 1]);
}

guint64
weft_flowsize_sample (const WeftFlowsize *fs, gsl_rng *rng)
{
    switch (fs->kind) {
    case FS_FIXED:
        return (guint64) fs->a;
    case FS_EXPONENTIAL:
        return to_bytes (gsl_ran_exponential (rng, fs->a));
    case FS_LOGNORMAL:
        return to_bytes (gsl_ran_lognormal (rng, fs->a, fs->b));
    case FS_PARETO:
        return to_bytes (gsl_ran_pareto (rng, fs->a, fs->b));
    case FS_UNIFORM: {
        /* Whole bytes, each equally likely: floor of a flat draw on [min, max + 1). */
        double x = floor (gsl_ran_flat (rng, fs->a, fs->b + 1));
        return (guint64) MIN (x, fs->b);
    }
    case FS_CDF:
        return to_bytes (cdf_sample (fs, rng));
    }
    g_assert_not_reached ();
}

double
weft_flowsize_mean (const WeftFlowsize *fs)
{
    return fs->mean;
}

double
weft_flowsize_cdf_at (const WeftFlowsize *fs, double bytes)
{
    if (fs->kind != FS_CDF)
        return -1;
    if (bytes < fs->bytes[0])
        return 0;
    for (guint i = 1; i < fs->n; i++) {
        if (bytes < fs->bytes[i]) {
            double f = (bytes - fs->bytes[i - 1]) / (fs->bytes[i] - fs->bytes[i - 1]);
            return (fs->pct[i - 1] + f * (fs->pct[i] - fs->pct[i - 1])) / 100;
        }
    }
    return 1;
}
