/* analysis/headline.c - the answer lines of a summary (analysis/headline.h). */
#include "config.h"
#define G_LOG_DOMAIN "weft-analysis"
#include "analysis/headline.h"

#include <math.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>


gboolean
weft_headline_kind_has_flows (const char *kind)
{
    static const char *const pieces[] = { "nccl-test", "training", "ib_write_bw", "ib_write_lat" };
    if (kind == NULL)
        return FALSE;
    for (guint i = 0; i < G_N_ELEMENTS (pieces); i++)
        if (strcmp (kind, pieces[i]) == 0)
            return FALSE;
    return TRUE;
}

/* @bytes in the largest unit that divides it exactly, decimal first ("256 MB", "4 MiB",
 * "4097 B"), as sizes are given to nccl-tests and weft alike.  (transfer full) */
char *
weft_headline_size_text (guint64 bytes)
{
    static const struct {
        const char *unit;
        guint64 scale;
    } units[] = { { "GB", 1000000000 }, { "GiB", 1 << 30 }, { "MB", 1000000 },
                  { "MiB", 1 << 20 },   { "KB", 1000 },     { "KiB", 1 << 10 } };
    for (guint i = 0; i < G_N_ELEMENTS (units); i++)
        if (bytes >= units[i].scale && bytes % units[i].scale == 0)
            return g_strdup_printf ("%" G_GUINT64_FORMAT " %s", bytes / units[i].scale,
                                    units[i].unit);
    return g_strdup_printf ("%" G_GUINT64_FORMAT " B", bytes);
}

void
weft_headline_quantiles (double *values, gsize n, WeftQuantiles *q)
{
    g_return_if_fail (q != NULL && (values != NULL || n == 0));
    *q = (WeftQuantiles){ .n = n };
    if (n == 0)
        return;
    gsl_sort (values, 1, n);
    q->min = values[0];
    q->p50 = gsl_stats_quantile_from_sorted_data (values, 1, n, 0.5);
    q->p99 = gsl_stats_quantile_from_sorted_data (values, 1, n, 0.99);
    q->p999 = gsl_stats_quantile_from_sorted_data (values, 1, n, 0.999);
    q->max = values[n - 1];
}

static gboolean
listed (const char *const *names, const char *name)
{
    if (names == NULL)
        return TRUE;
    for (guint i = 0; names[i]; i++)
        if (strcmp (names[i], name) == 0)
            return TRUE;
    return FALSE;
}

/* Mean busbw and time of the timed rows of (@workload, @op, @bytes) placed @in_place; FALSE
 * when there is none. */
static gboolean
mean_of (const WeftTraceCollective *rows, guint n, const char *workload, const char *op,
         guint64 bytes, gboolean in_place, double *busbw, double *time_ps)
{
    double b = 0, t = 0;
    guint k = 0;
    for (guint i = 0; i < n; i++) {
        const WeftTraceCollective *r = &rows[i];
        if (r->warmup || r->bytes != bytes || (gboolean) r->in_place != in_place ||
            r->finish_ps == 0 || strcmp (r->workload, workload) != 0 || strcmp (r->op, op) != 0)
            continue;
        b += r->busbw_gbs;
        t += (double) r->time_ps;
        k++;
    }
    if (k == 0)
        return FALSE;
    *busbw = b / k;
    *time_ps = t / k;
    return TRUE;
}

gboolean
weft_headline_busbw (const WeftTraceCollective *rows, guint n, const char *workload, const char *op,
                     guint64 bytes, double *busbw_gbs)
{
    g_return_val_if_fail (busbw_gbs != NULL && (rows != NULL || n == 0), FALSE);
    double t;
    return mean_of (rows, n, workload, op, bytes, FALSE, busbw_gbs, &t) ||
           mean_of (rows, n, workload, op, bytes, TRUE, busbw_gbs, &t);
}

void
weft_headline_collectives (GString *out, const WeftTraceCollective *rows, guint n,
                           const char *const *workloads)
{
    g_return_if_fail (out != NULL && (rows != NULL || n == 0));
    for (guint i = 0; i < n; i++) {
        const WeftTraceCollective *r = &rows[i];
        if (r->warmup || r->finish_ps == 0 || !listed (workloads, r->workload))
            continue;
        /* The first timed row of its (workload, op) introduces the line. */
        gboolean seen = FALSE;
        for (guint j = 0; j < i && !seen; j++)
            seen = !rows[j].warmup && rows[j].finish_ps != 0 &&
                   strcmp (rows[j].workload, r->workload) == 0 && strcmp (rows[j].op, r->op) == 0;
        if (seen)
            continue;
        guint64 lo = G_MAXUINT64, hi = 0;
        for (guint j = i; j < n; j++)
            if (!rows[j].warmup && rows[j].finish_ps != 0 &&
                strcmp (rows[j].workload, r->workload) == 0 && strcmp (rows[j].op, r->op) == 0) {
                lo = MIN (lo, rows[j].bytes);
                hi = MAX (hi, rows[j].bytes);
            }
        double bw_out, t_out, bw_in, t_in, bw_lo, t_lo;
        gboolean have_out = mean_of (rows, n, r->workload, r->op, hi, FALSE, &bw_out, &t_out);
        gboolean have_in = mean_of (rows, n, r->workload, r->op, hi, TRUE, &bw_in, &t_in);
        if (!have_out && !have_in)
            continue;
        if (!have_out) {
            bw_out = bw_in;
            t_out = t_in;
        }
        g_autofree char *big = weft_headline_size_text (hi);
        g_string_append_printf (out, "  busbw        [%s] %s, %u ranks: %.2f GB/s at %s",
                                r->workload, r->op, r->n_ranks, bw_out, big);
        if (have_out && have_in && fabs (bw_in - bw_out) > 0.005 * bw_out)
            g_string_append_printf (out, " (in place %.2f)", bw_in);
        if (lo != hi && (mean_of (rows, n, r->workload, r->op, lo, FALSE, &bw_lo, &t_lo) ||
                         mean_of (rows, n, r->workload, r->op, lo, TRUE, &bw_lo, &t_lo))) {
            g_autofree char *small = weft_headline_size_text (lo);
            g_string_append_printf (out, "; %.2f us at %s", t_lo / 1e6, small);
        } else {
            g_string_append_printf (out, ", %.2f us", t_out / 1e6);
        }
        g_string_append_c (out, '\n');
    }
}

gsize
weft_headline_fct (const WeftTraceFlow *rows, guint n, const char *const *workloads,
                   WeftQuantiles *fct_ps, WeftQuantiles *slowdown)
{
    g_return_val_if_fail (fct_ps != NULL && slowdown != NULL && (rows != NULL || n == 0), 0);
    double *fct = g_new (double, MAX (n, 1)), *slow = g_new (double, MAX (n, 1));
    gsize k = 0;
    for (guint i = 0; i < n; i++) {
        if (!rows[i].finished || !listed (workloads, rows[i].workload))
            continue;
        fct[k] = (double) rows[i].fct_ps;
        slow[k++] = rows[i].slowdown;
    }
    weft_headline_quantiles (fct, k, fct_ps);
    weft_headline_quantiles (slow, k, slowdown);
    g_free (fct);
    g_free (slow);
    return k;
}

gboolean
weft_headline_rate (const char *workload, const WeftTraceFlow *rows, guint n, guint64 end_ps,
                    WeftHeadlineRate *rate)
{
    g_return_val_if_fail (rate != NULL && workload != NULL && (rows != NULL || n == 0), FALSE);
    *rate = (WeftHeadlineRate){ 0 };
    double *tput = g_new (double, MAX (n, 1));
    gsize k = 0, done = 0;
    guint64 bytes = 0;
    guint64 first = G_MAXUINT64, last = 0;
    for (guint i = 0; i < n; i++) {
        const WeftTraceFlow *f = &rows[i];
        if (strcmp (f->workload, workload) != 0)
            continue;
        /* A finished flow's throughput is its payload over its FCT; one still running at the
         * end, what it delivered over the time it ran. */
        guint64 end = f->finished ? f->finish_ps : end_ps;
        if (end <= f->start_ps || (!f->finished && f->bytes_delivered == 0 && end_ps == 0))
            continue;
        guint64 b = f->finished ? f->size_bytes : f->bytes_delivered;
        tput[k++] = (double) b * 8 / ((double) (end - f->start_ps) / 1e12) / 1e9;
        done += f->finished;
        bytes += b;
        first = MIN (first, f->start_ps);
        last = MAX (last, end);
    }
    gboolean any = k > 0 && last > first;
    if (any) {
        rate->flows = k;
        rate->finished = done;
        rate->aggregate_bps = (double) bytes * 8 / ((double) (last - first) / 1e12);
        weft_headline_quantiles (tput, k, &rate->flow_gbps);
    }
    g_free (tput);
    return any;
}

void
weft_headline_flows (GString *out, const char *workload, const WeftTraceFlow *rows, guint n,
                     guint64 end_ps)
{
    g_return_if_fail (out != NULL && workload != NULL && (rows != NULL || n == 0));
    WeftHeadlineRate r;
    if (!weft_headline_rate (workload, rows, n, end_ps, &r))
        return;
    double agg = r.aggregate_bps;
    gboolean tera = agg >= 1e12;
    gsize k = r.flows;
    g_string_append_printf (
        out, "  throughput   [%s] %.3f %s aggregate over %" G_GSIZE_FORMAT " flow%s", workload,
        tera ? agg / 1e12 : agg / 1e9, tera ? "Tb/s" : "Gb/s", k, k == 1 ? "" : "s");
    if (r.finished < k)
        g_string_append_printf (out, " (%" G_GSIZE_FORMAT " unfinished: as delivered)",
                                k - r.finished);
    g_string_append_printf (out, "; per flow min %.1f, median %.1f, max %.1f Gb/s\n",
                            r.flow_gbps.min, r.flow_gbps.p50, r.flow_gbps.max);
}
