/* analysis/compare.c - several runs side by side (analysis/compare.h). */
#include "config.h"
#define G_LOG_DOMAIN "weft-analysis"
#include "analysis/compare.h"

#include <math.h>
#include <string.h>

#include "analysis/export.h"
#include "analysis/headline.h"
#include "sim/units.h"
#include "workloads/workload.h"

/* What one run's trace gives, while the comparison is built. */
typedef struct {
    GKeyFile *exp;    /* the resolved experiment from /meta, or NULL */
    gboolean partial; /* exp holds a collected table's axes only: other keys are unknown */
    char **flow_workloads;
    char **bench_workloads; /* nccl-test ones; NULL: every workload with collectives */
    char **train_workloads; /* kind = training ones; NULL without @exp */
} Run;

static void
diff_free (gpointer p)
{
    WeftCompareDiff *d = p;
    g_free (d->key);
    g_strfreev (d->values);
    g_free (d);
}

static void
figure_free (gpointer p)
{
    WeftCompareFigure *f = p;
    g_free (f->name);
    g_free (f->unit);
    g_free (f->values);
    g_free (f);
}

void
weft_comparison_free (WeftComparison *c)
{
    if (c == NULL)
        return;
    for (guint i = 0; i < c->n_runs; i++) {
        weft_trace_info_free (c->runs[i]);
        g_free (c->problems[i]);
    }
    g_free (c->runs);
    g_free (c->problems);
    g_free (c->row);
    g_ptr_array_unref (c->differs);
    g_ptr_array_unref (c->figures);
    g_ptr_array_unref (c->missing);
    g_free (c);
}

/* The figure @name of @c, added (absent from every run) if new. */
static WeftCompareFigure *
figure (WeftComparison *c, const char *name, const char *unit, guint since)
{
    for (guint i = 0; i < c->figures->len; i++) {
        WeftCompareFigure *f = c->figures->pdata[i];
        if (strcmp (f->name, name) == 0)
            return f;
    }
    WeftCompareFigure *f = g_new0 (WeftCompareFigure, 1);
    f->name = g_strdup (name);
    f->unit = g_strdup (unit);
    f->since = since;
    f->values = g_new (double, c->n_runs);
    for (guint i = 0; i < c->n_runs; i++)
        f->values[i] = NAN;
    g_ptr_array_add (c->figures, f);
    return f;
}

static void
put (WeftComparison *c, guint run, const char *name, const char *unit, guint since, double v)
{
    figure (c, name, unit, since)->values[run] = v;
}

typedef enum { WORKLOADS_FLOWS, WORKLOADS_BENCH, WORKLOADS_TRAIN } WorkloadClass;

/* The workloads of @exp of class @want (NULL-terminated), or NULL without @exp. */
static char **
workloads_of (GKeyFile *exp, WorkloadClass want)
{
    if (exp == NULL)
        return NULL;
    g_auto (GStrv) groups = g_key_file_get_groups (exp, NULL);
    GPtrArray *names = g_ptr_array_new ();
    for (guint i = 0; groups[i]; i++) {
        if (!g_str_has_prefix (groups[i], "workload."))
            continue;
        g_autofree char *kind = g_key_file_get_string (exp, groups[i], "kind", NULL);
        gboolean is = want == WORKLOADS_FLOWS   ? weft_headline_kind_has_flows (kind)
                      : want == WORKLOADS_BENCH ? g_strcmp0 (kind, "nccl-test") == 0
                                                : g_strcmp0 (kind, "training") == 0;
        if (is)
            g_ptr_array_add (names, g_strdup (groups[i] + strlen ("workload.")));
    }
    g_ptr_array_add (names, NULL);
    return (char **) g_ptr_array_free (names, FALSE);
}

static gboolean
listed (char **names, const char *name)
{
    if (names == NULL)
        return TRUE;
    for (guint i = 0; names[i]; i++)
        if (strcmp (names[i], name) == 0)
            return TRUE;
    return FALSE;
}

/* Notes the first data set of run @i that did not read. */
static void
problem (WeftComparison *c, guint i, GError *error)
{
    if (c->problems[i] == NULL)
        c->problems[i] = g_strdup (error->message);
    g_error_free (error);
}

/* Flow-size buckets for FCT percentiles (doc/analysis.md): pFabric's small (0, 100 KB] and
 * large (10 MB, inf) flows (Alizadeh et al., SIGCOMM 2013), with the medium ones split at
 * 1 MB; decimal units, each bucket's upper edge included. */
static const struct {
    const char *name;
    guint64 max_bytes;
} fct_buckets[] = {
    { "size <=100KB", 100000 },
    { "size 100KB-1MB", 1000000 },
    { "size 1MB-10MB", 10000000 },
    { "size >10MB", G_MAXUINT64 },
};

/* FCT p50, p99 and p99.9 of the finished flows of flow workloads in each size bucket that
 * has any, the same flows and quantiles as the overall FCT figures. */
static void
bucket_figures (WeftComparison *c, guint i, const Run *r, const WeftTraceFlow *rows, guint n)
{
    g_autofree double *fct = g_new (double, MAX (n, 1));
    guint64 lo = 0;
    for (guint b = 0; b < G_N_ELEMENTS (fct_buckets); b++) {
        guint64 hi = fct_buckets[b].max_bytes;
        gsize k = 0;
        for (guint j = 0; j < n; j++)
            if (rows[j].finished && listed (r->flow_workloads, rows[j].workload) &&
                rows[j].size_bytes > lo && rows[j].size_bytes <= hi)
                fct[k++] = (double) rows[j].fct_ps;
        lo = hi;
        if (k == 0)
            continue;
        WeftQuantiles q;
        weft_headline_quantiles (fct, k, &q);
        static const char *const which[] = { "p50", "p99", "p99.9" };
        const double v[] = { q.p50, q.p99, q.p999 };
        for (guint w = 0; w < G_N_ELEMENTS (which); w++) {
            g_autofree char *name = g_strdup_printf ("FCT %s %s", which[w], fct_buckets[b].name);
            put (c, i, name, "us", 1, v[w] / 1e6);
        }
        g_autofree char *count = g_strdup_printf ("flows finished %s", fct_buckets[b].name);
        put (c, i, count, "", 1, (double) k);
    }
}

static void
flow_figures (WeftComparison *c, guint i, const Run *r, GArray *flows)
{
    const WeftTraceFlow *rows = (const WeftTraceFlow *) flows->data;
    const WeftTraceInfo *info = c->runs[i];
    /* per flow workload, in its experiment's order (or the rows' without one) */
    g_autoptr (GPtrArray) names = g_ptr_array_new ();
    for (guint k = 0; r->flow_workloads && r->flow_workloads[k]; k++)
        g_ptr_array_add (names, r->flow_workloads[k]);
    for (guint k = 0; r->flow_workloads == NULL && k < flows->len; k++)
        if (!g_ptr_array_find_with_equal_func (names, rows[k].workload, g_str_equal, NULL))
            g_ptr_array_add (names, (gpointer) rows[k].workload);
    for (guint k = 0; k < names->len; k++) {
        const char *w = names->pdata[k];
        WeftHeadlineRate rate;
        if (!weft_headline_rate (w, rows, flows->len, info->sim_time_ps, &rate))
            continue;
        g_autofree char *tput = g_strdup_printf ("throughput [%s]", w);
        g_autofree char *done = g_strdup_printf ("flows finished [%s]", w);
        put (c, i, tput, "Gb/s", 1, rate.aggregate_bps / 1e9);
        put (c, i, done, "", 1, (double) rate.finished);
    }
    WeftQuantiles fct, slow;
    if (weft_headline_fct (rows, flows->len, (const char *const *) r->flow_workloads, &fct, &slow) >
        0) {
        put (c, i, "FCT p50", "us", 1, fct.p50 / 1e6);
        put (c, i, "FCT p99", "us", 1, fct.p99 / 1e6);
        put (c, i, "FCT p99.9", "us", 1, fct.p999 / 1e6);
        if (slow.max > 0) {
            put (c, i, "slowdown p50", "", 1, slow.p50);
            put (c, i, "slowdown p99", "", 1, slow.p99);
        }
    }
    bucket_figures (c, i, r, rows, flows->len);
    guint64 retx = 0, cnps = 0;
    for (guint k = 0; k < flows->len; k++) {
        retx += rows[k].retransmits;
        cnps += rows[k].cnps_sent;
    }
    put (c, i, "retransmissions", "", 1, (double) retx);
    if (info->schema_version >= 4)
        put (c, i, "CNPs sent", "", 4, (double) cnps);
}

static void
port_figures (WeftComparison *c, guint i, GArray *ports, const char *wait_name)
{
    guint64 drops = 0, lossless = 0, wait = 0, ecn = 0;
    for (guint k = 0; k < ports->len; k++) {
        const WeftTracePort *p = &g_array_index (ports, WeftTracePort, k);
        drops += p->drops;
        lossless += p->lossless_drops;
        wait += p->xmit_wait_ps;
        ecn += p->ecn_marks;
    }
    guint schema = c->runs[i]->schema_version;
    put (c, i, "drops", "", 1, (double) drops);
    if (schema >= 2) {
        put (c, i, "lossless violations", "", 2, (double) lossless);
        put (c, i, wait_name, "us", 2, (double) wait / 1e6);
    }
    if (schema >= 4)
        put (c, i, "ECN marks", "", 4, (double) ecn);
}

static void
collective_figures (WeftComparison *c, guint i, const Run *r, GArray *colls)
{
    const WeftTraceCollective *rows = (const WeftTraceCollective *) colls->data;
    for (guint k = 0; k < colls->len; k++) {
        const WeftTraceCollective *x = &rows[k];
        if (x->warmup || x->finish_ps == 0 || !listed (r->bench_workloads, x->workload))
            continue;
        double busbw;
        if (!weft_headline_busbw (rows, colls->len, x->workload, x->op, x->bytes, &busbw))
            continue;
        g_autofree char *size = weft_headline_size_text (x->bytes);
        g_autofree char *name = g_strdup_printf ("busbw [%s] %s %s", x->workload, x->op, size);
        put (c, i, name, "GB/s", 3, busbw);
    }
}

/* A time key of `[workload.@name]` in @exp, or the training kind's default for it when the
 * stored experiment (which holds no defaults) does not set it; FALSE if neither parses. */
static gboolean
train_time_key (GKeyFile *exp, const char *name, const char *key, weft_time_t *ps)
{
    g_autofree char *group = g_strconcat ("workload.", name, NULL);
    g_autofree char *text = g_key_file_get_value (exp, group, key, NULL);
    const WeftParamSpec *specs[] = { weft_workload_common_params (), NULL };
    for (const WeftWorkloadKind *k = weft_workload_kinds (); k->kind && !specs[1]; k++)
        if (strcmp (k->kind, "training") == 0)
            specs[1] = k->spec;
    for (guint t = 0; t < G_N_ELEMENTS (specs) && text == NULL; t++)
        for (const WeftParamSpec *s = specs[t]; s && s->name && text == NULL; s++)
            if (strcmp (s->name, key) == 0 && s->def)
                text = g_strdup (s->def);
    return text != NULL && weft_units_parse_time (g_strstrip (text), ps, NULL);
}

/* Step time and exposed communication of training workload @name (doc/analysis.md): /collectives
 * rows carry the step in `iteration`; step k ends when its last all-reduce finishes (the last
 * bucket is ready only when the compute ends, so this is never before it) and starts when step
 * k - 1 ended (step 0: at the workload's `start`), since the next step's first bucket waits for
 * the previous step's last all-reduce.  Exposed communication is step time - compute: the
 * communication the compute did not hide.  Means over the steps that finished: all of them in a
 * complete run; in an incomplete one, every step but the last one seen (it may lack rows). */
static void
training_figures (WeftComparison *c, guint i, GKeyFile *exp, const char *name, GArray *colls)
{
    weft_time_t start_ps = 0, compute_ps = 0;
    if (!train_time_key (exp, name, "start", &start_ps) ||
        !train_time_key (exp, name, "compute", &compute_ps))
        return;
    g_autoptr (GArray) end = g_array_new (FALSE, TRUE, sizeof (guint64));
    for (guint k = 0; k < colls->len; k++) {
        const WeftTraceCollective *x = &g_array_index (colls, WeftTraceCollective, k);
        if (x->finish_ps == 0 || strncmp (x->workload, name, sizeof x->workload - 1) != 0)
            continue;
        if (x->iteration >= end->len)
            g_array_set_size (end, x->iteration + 1);
        guint64 *e = &g_array_index (end, guint64, x->iteration);
        *e = MAX (*e, x->finish_ps);
    }
    guint steps = 0;
    while (steps < end->len && g_array_index (end, guint64, steps) != 0)
        steps++;
    if (!c->runs[i]->complete && steps > 0)
        steps--;
    if (steps == 0)
        return;
    double time_ps = 0;
    guint64 prev = start_ps;
    for (guint k = 0; k < steps; k++) {
        guint64 e = g_array_index (end, guint64, k);
        time_ps += (double) (e - prev);
        prev = e;
    }
    double mean_ps = time_ps / steps;
    g_autofree char *st = g_strdup_printf ("step time [%s]", name);
    g_autofree char *ex = g_strdup_printf ("exposed communication [%s]", name);
    g_autofree char *n = g_strdup_printf ("steps finished [%s]", name);
    put (c, i, st, "us", 3, mean_ps / 1e6);
    put (c, i, ex, "us", 3, (mean_ps - (double) compute_ps) / 1e6);
    put (c, i, n, "", 3, (double) steps);
}

static void
pfc_figures (WeftComparison *c, guint i, GArray *pfc)
{
    guint64 pauses = 0;
    for (guint k = 0; k < pfc->len; k++)
        pauses += g_array_index (pfc, WeftTracePfcSample, k).pauses_sent;
    if (pfc->len > 0)
        put (c, i, "PFC PAUSE frames sent", "", 4, (double) pauses);
}

/* The keys whose values differ between the runs that carry an experiment. */
static void
find_differences (WeftComparison *c, const Run *runs)
{
    g_autoptr (GPtrArray) keys = g_ptr_array_new_with_free_func (g_free);
    g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
    for (guint i = 0; i < c->n_runs; i++) {
        if (runs[i].exp == NULL)
            continue;
        g_auto (GStrv) groups = g_key_file_get_groups (runs[i].exp, NULL);
        for (guint g = 0; groups[g]; g++) {
            g_auto (GStrv) ks = g_key_file_get_keys (runs[i].exp, groups[g], NULL, NULL);
            for (guint k = 0; ks && ks[k]; k++) {
                char *key = g_strconcat (groups[g], ":", ks[k], NULL);
                if (g_hash_table_contains (seen, key)) {
                    g_free (key);
                    continue;
                }
                g_hash_table_add (seen, key);
                g_ptr_array_add (keys, key);
            }
        }
    }
    for (guint k = 0; k < keys->len; k++) {
        const char *key = keys->pdata[k];
        if (strcmp (key, "experiment:seed") == 0)
            continue; /* below, from /meta */
        const char *colon = strrchr (key, ':');
        g_autofree char *group = g_strndup (key, (gsize) (colon - key));
        char **values = g_new0 (char *, c->n_runs + 1);
        const char *first = NULL;
        gboolean have_first = FALSE, differ = FALSE;
        for (guint i = 0; i < c->n_runs; i++) {
            if (runs[i].exp == NULL ||
                (runs[i].partial && !g_key_file_has_key (runs[i].exp, group, colon + 1, NULL)))
                continue;
            values[i] = g_key_file_get_value (runs[i].exp, group, colon + 1, NULL);
            if (!have_first) {
                first = values[i];
                have_first = TRUE;
            } else if (g_strcmp0 (first, values[i]) != 0) {
                differ = TRUE;
            }
        }
        if (!differ) {
            for (guint i = 0; i < c->n_runs; i++)
                g_free (values[i]);
            g_free (values);
            continue;
        }
        WeftCompareDiff *d = g_new0 (WeftCompareDiff, 1);
        d->key = g_strdup (key);
        d->values = values;
        g_ptr_array_add (c->differs, d);
    }
}

/* The seed as the runs used it (/meta seed: `weft run --seed` does not show in the stored
 * experiment), listed as experiment:seed when it differs. */
static void
find_seed_difference (WeftComparison *c)
{
    gboolean differ = FALSE;
    for (guint i = 1; i < c->n_runs; i++)
        differ |=
            c->runs[i]->readable && c->runs[0]->readable && c->runs[i]->seed != c->runs[0]->seed;
    if (!differ)
        return;
    WeftCompareDiff *d = g_new0 (WeftCompareDiff, 1);
    d->key = g_strdup ("experiment:seed");
    d->values = g_new0 (char *, c->n_runs + 1);
    for (guint i = 0; i < c->n_runs; i++)
        if (c->runs[i]->readable)
            d->values[i] = g_strdup_printf ("%" G_GUINT64_FORMAT, c->runs[i]->seed);
    g_ptr_array_insert (c->differs, 0, d);
}

/* The name of PortXmitWait summed: what it measures on the runs' fabrics. */
static const char *
wait_name (const Run *runs, guint n)
{
    guint ib = 0, other = 0;
    for (guint i = 0; i < n; i++) {
        if (runs[i].exp == NULL)
            continue;
        g_autofree char *kind = g_key_file_get_string (runs[i].exp, "fabric", "kind", NULL);
        if (g_strcmp0 (kind, "infiniband") == 0)
            ib++;
        else
            other++;
    }
    return ib && !other   ? "credit-stall time"
           : other && !ib ? "pause time"
                          : "pause / credit-stall time";
}

static void
read_run (WeftComparison *c, guint i, const Run *r, const char *wait)
{
    const WeftTraceInfo *info = c->runs[i];
    GError *error = NULL;
    put (c, i, "sim time", "us", 1, (double) info->sim_time_ps / 1e6);
    if (info->schema_version >= 3) {
        GArray *colls = weft_trace_reader_collectives (info->path, &error);
        if (colls) {
            collective_figures (c, i, r, colls);
            for (guint k = 0; r->train_workloads && r->train_workloads[k]; k++)
                training_figures (c, i, r->exp, r->train_workloads[k], colls);
            g_array_free (colls, TRUE);
        } else {
            problem (c, i, error);
            error = NULL;
        }
    }
    GArray *flows = weft_trace_reader_flows (info->path, &error);
    if (flows) {
        flow_figures (c, i, r, flows);
        g_array_free (flows, TRUE);
    } else {
        problem (c, i, error);
        error = NULL;
    }
    GArray *ports = weft_trace_reader_ports (info->path, &error);
    if (ports) {
        port_figures (c, i, ports, wait);
        g_array_free (ports, TRUE);
    } else {
        problem (c, i, error);
        error = NULL;
    }
    if (info->schema_version >= 4) {
        GArray *pfc = weft_trace_reader_pfc_samples (info->path, &error);
        if (pfc) {
            pfc_figures (c, i, pfc);
            g_array_free (pfc, TRUE);
        } else {
            problem (c, i, error);
        }
    }
}

/* One line for each figure a run lacks that another has. */
static void
find_missing (WeftComparison *c)
{
    for (guint k = 0; k < c->figures->len; k++) {
        const WeftCompareFigure *f = c->figures->pdata[k];
        for (guint i = 0; i < c->n_runs; i++) {
            const WeftTraceInfo *info = c->runs[i];
            if (!isnan (f->values[i]))
                continue;
            if (!info->readable)
                continue; /* its status says why it has nothing */
            if (info->schema_version < f->since)
                g_ptr_array_add (c->missing,
                                 g_strdup_printf ("%s: no %s (schema %u has none; schema %u "
                                                  "added it)",
                                                  info->path, f->name, info->schema_version,
                                                  f->since));
            else
                g_ptr_array_add (c->missing, g_strdup_printf ("%s: no %s", info->path, f->name));
        }
    }
}

/* ---- runs from a collected table ---------------------------------------------------------- */

/* The run of row @r of @t: its status as a trace's would be (complete for a point that
 * ended done, duration, hang or workload-failed), its seed from an experiment:seed axis. */
static WeftTraceInfo *
row_info (const WeftCollected *t, guint r)
{
    WeftTraceInfo *info = g_new0 (WeftTraceInfo, 1);
    const WeftCollectedColumn *name = NULL, *status = NULL, *seed = NULL;
    for (guint k = 0; k < t->columns->len; k++) {
        const WeftCollectedColumn *col = t->columns->pdata[k];
        if (col->role == WEFT_COLLECTED_NAME)
            name = col;
        else if (col->role == WEFT_COLLECTED_STATUS)
            status = col;
        else if (col->role == WEFT_COLLECTED_AXIS && strcmp (col->name, "experiment:seed") == 0)
            seed = col;
    }
    info->path = g_strdup_printf ("%s:%s", t->path, name ? name->text[r] : "?");
    info->status_text = g_strdup (status ? status->text[r] : "unknown");
    WeftTraceStatus st = WEFT_TRACE_STATUS_RUNNING;
    gboolean known = weft_trace_status_from_name (info->status_text, &st);
    info->status = st;
    info->complete = known && weft_trace_status_complete (st);
    info->readable = known; /* missing, invalid, incomplete points have no figures */
    if (!info->complete)
        info->reason =
            g_strdup_printf ("the point's status in the collected table is %s", info->status_text);
    info->schema_version = WEFT_TRACE_SCHEMA_VERSION;
    if (seed != NULL)
        info->seed = g_ascii_strtoull (seed->text[r], NULL, 10);
    info->n_nodes = info->n_links = info->n_flows = info->n_link_samples = info->n_ports = -1;
    info->n_collectives = -1;
    return info;
}

/* The axes of row @r of @t, as a key file holding only them (experiment:seed is the run's
 * seed instead, as for traces). */
static GKeyFile *
row_axes (const WeftCollected *t, guint r)
{
    GKeyFile *k = g_key_file_new ();
    for (guint i = 0; i < t->columns->len; i++) {
        const WeftCollectedColumn *col = t->columns->pdata[i];
        const char *colon = strrchr (col->name, ':');
        if (col->role != WEFT_COLLECTED_AXIS || colon == NULL ||
            strcmp (col->name, "experiment:seed") == 0)
            continue;
        g_autofree char *group = g_strndup (col->name, (gsize) (colon - col->name));
        g_key_file_set_value (k, group, colon + 1, col->text[r]);
    }
    return k;
}

/* The figures of row @r of @t, run @i: every metric column, "NAME [UNIT]" read back as the
 * figure NAME in UNIT. */
static void
row_figures (WeftComparison *c, guint i, const WeftCollected *t, guint r)
{
    for (guint k = 0; k < t->columns->len; k++) {
        const WeftCollectedColumn *col = t->columns->pdata[k];
        if (col->role != WEFT_COLLECTED_METRIC || isnan (col->values[r]))
            continue;
        g_autofree char *suffix = g_strdup_printf (" [%s]", col->unit);
        g_autofree char *name = g_strdup (col->name);
        if (*col->unit && g_str_has_suffix (name, suffix))
            name[strlen (name) - strlen (suffix)] = '\0';
        put (c, i, name, col->unit, 1, col->values[r]);
    }
}

WeftComparison *
weft_compare_new (const char *const *paths, GError **error)
{
    return weft_compare_new_mixed (paths, NULL, error);
}

WeftComparison *
weft_compare_new_mixed (const char *const *paths, WeftCollected *const *tables, GError **error)
{
    g_return_val_if_fail (paths != NULL, NULL);
    guint n_paths = g_strv_length ((char **) paths), n = 0;
    for (guint p = 0; p < n_paths; p++)
        n += tables && tables[p] ? tables[p]->n_rows : 1;
    WeftComparison *c = g_new0 (WeftComparison, 1);
    c->runs = g_new0 (WeftTraceInfo *, MAX (n, 1));
    c->problems = g_new0 (char *, MAX (n, 1));
    c->row = g_new (gint, MAX (n, 1));
    c->differs = g_ptr_array_new_with_free_func (diff_free);
    c->figures = g_ptr_array_new_with_free_func (figure_free);
    c->missing = g_ptr_array_new_with_free_func (g_free);
    Run *runs = g_new0 (Run, MAX (n, 1));
    const WeftCollected **table_of = g_new0 (const WeftCollected *, MAX (n, 1));
    for (guint p = 0, i = 0; p < n_paths; p++) {
        const WeftCollected *t = tables ? tables[p] : NULL;
        for (guint r = 0; t && r < t->n_rows; r++, i++) {
            c->runs[i] = row_info (t, r);
            c->row[i] = (gint) r;
            table_of[i] = t;
            runs[i].exp = row_axes (t, r);
            runs[i].partial = TRUE;
            c->n_runs = i + 1;
        }
        if (t)
            continue;
        c->row[i] = -1;
        c->runs[i] = weft_trace_reader_open (paths[p], error);
        if (c->runs[i] == NULL) {
            for (guint k = 0; k < i; k++)
                if (runs[k].exp)
                    g_key_file_free (runs[k].exp);
            g_free (runs);
            g_free (table_of);
            weft_comparison_free (c);
            return NULL;
        }
        c->n_runs = ++i;
    }
    for (guint i = 0; i < n; i++) {
        const WeftTraceInfo *info = c->runs[i];
        if (c->row[i] >= 0 || !info->readable || info->experiment_text == NULL)
            continue;
        runs[i].exp = g_key_file_new ();
        if (!g_key_file_load_from_data (runs[i].exp, info->experiment_text, (gsize) -1,
                                        G_KEY_FILE_NONE, NULL)) {
            g_key_file_free (runs[i].exp);
            runs[i].exp = NULL;
            continue;
        }
        runs[i].flow_workloads = workloads_of (runs[i].exp, WORKLOADS_FLOWS);
        runs[i].bench_workloads = workloads_of (runs[i].exp, WORKLOADS_BENCH);
        runs[i].train_workloads = workloads_of (runs[i].exp, WORKLOADS_TRAIN);
    }
    find_differences (c, runs);
    find_seed_difference (c);
    const char *wait = wait_name (runs, n);
    for (guint i = 0; i < n; i++)
        if (c->row[i] >= 0)
            row_figures (c, i, table_of[i], (guint) c->row[i]);
        else if (c->runs[i]->readable)
            read_run (c, i, &runs[i], wait);
    g_free (table_of);
    find_missing (c);
    for (guint i = 0; i < n; i++) {
        if (runs[i].exp)
            g_key_file_free (runs[i].exp);
        g_strfreev (runs[i].flow_workloads);
        g_strfreev (runs[i].bench_workloads);
        g_strfreev (runs[i].train_workloads);
    }
    g_free (runs);
    return c;
}

gboolean
weft_comparison_complete (const WeftComparison *c)
{
    for (guint i = 0; i < c->n_runs; i++)
        if (!c->runs[i]->complete || c->problems[i] != NULL)
            return FALSE;
    return TRUE;
}

/* ---- output ----------------------------------------------------------------------------- */

/* "complete (done)", "INCOMPLETE: why", "DAMAGED: why", as weft report says it. */
static char *
status_text (const WeftTraceInfo *info)
{
    if (info->complete)
        return g_strdup_printf ("complete (%s)", info->status_text);
    if (info->damaged)
        return g_strdup_printf ("DAMAGED: %s", info->reason);
    if (info->readable && info->status_text != NULL && info->status != WEFT_TRACE_STATUS_RUNNING)
        return g_strdup_printf ("incomplete (%s): %s", info->status_text, info->reason);
    return g_strdup_printf ("INCOMPLETE: %s", info->reason);
}

gboolean
weft_compare_set_baseline (WeftComparison *c, guint run)
{
    g_return_val_if_fail (c != NULL, FALSE);
    if (run >= c->n_runs)
        return FALSE;
    c->baseline = run;
    return TRUE;
}

static double
ratio (const WeftComparison *c, const WeftCompareFigure *f, guint i)
{
    double a = f->values[c->baseline], b = f->values[i];
    return isnan (a) || isnan (b) || a == 0 ? NAN : b / a;
}

/* A value as text: a count whole, else six significant digits; "-" when absent. */
static char *
value_text (const WeftCompareFigure *f, guint i, gboolean exact)
{
    double v = f->values[i];
    if (isnan (v))
        return g_strdup (exact ? "" : "-");
    if (*f->unit == '\0' && v == floor (v) && fabs (v) < 1e15)
        return g_strdup_printf ("%.0f", v);
    return g_strdup_printf (exact ? "%.9g" : "%.6g", v);
}

static char *
ratio_text (const WeftComparison *c, const WeftCompareFigure *f, guint i, gboolean exact)
{
    double r = ratio (c, f, i);
    if (isnan (r))
        return g_strdup (exact ? "" : "-");
    return g_strdup_printf (exact ? "%.9g" : "%.4f", r);
}

static void
pad (GString *out, const char *s, guint width)
{
    g_string_append (out, s);
    for (guint k = (guint) g_utf8_strlen (s, -1); k < width; k++)
        g_string_append_c (out, ' ');
}

static void
format_text (const WeftComparison *c, GString *out)
{
    g_string_append (out, "runs:\n");
    for (guint i = 0; i < c->n_runs; i++) {
        const WeftTraceInfo *info = c->runs[i];
        g_autofree char *st = status_text (info);
        g_string_append_printf (out, "  [%u] %s: %s", i + 1, info->path, st);
        if (c->row[i] >= 0)
            g_string_append_printf (out, ", collected row %d", c->row[i]);
        else if (info->readable)
            g_string_append_printf (out, ", schema %u, seed %" G_GUINT64_FORMAT,
                                    info->schema_version, info->seed);
        g_string_append_c (out, '\n');
        if (c->problems[i])
            g_string_append_printf (out, "      problem: %s\n", c->problems[i]);
    }
    /* one column per run, then one ratio column per run after the first */
    guint name_w = strlen ("figure");
    for (guint k = 0; k < c->differs->len; k++)
        name_w = MAX (name_w, strlen (((WeftCompareDiff *) c->differs->pdata[k])->key));
    for (guint k = 0; k < c->figures->len; k++) {
        const WeftCompareFigure *f = c->figures->pdata[k];
        name_w = MAX (name_w, strlen (f->name) + (*f->unit ? strlen (f->unit) + 3 : 0));
    }
    guint col_w = 12;
    for (guint k = 0; k < c->differs->len; k++) {
        const WeftCompareDiff *d = c->differs->pdata[k];
        for (guint i = 0; i < c->n_runs; i++)
            col_w = MAX (col_w, d->values[i] ? strlen (d->values[i]) + 2 : 0);
    }
    g_string_append (out, "differs:\n");
    if (c->differs->len == 0)
        g_string_append (out, "  (no experiment key differs)\n");
    for (guint k = 0; k < c->differs->len; k++) {
        const WeftCompareDiff *d = c->differs->pdata[k];
        g_string_append (out, "  ");
        pad (out, d->key, name_w + 2);
        for (guint i = 0; i < c->n_runs; i++)
            pad (out, d->values[i] ? d->values[i] : "-", col_w);
        g_string_truncate (out, out->len - 1);
        while (out->len && out->str[out->len - 1] == ' ')
            g_string_truncate (out, out->len - 1);
        g_string_append_c (out, '\n');
    }
    g_string_append (out, "figures:\n  ");
    pad (out, "", name_w + 2);
    for (guint i = 0; i < c->n_runs; i++) {
        g_autofree char *h = g_strdup_printf ("[%u]", i + 1);
        pad (out, h, col_w);
    }
    for (guint i = 0; i < c->n_runs; i++) {
        if (i == c->baseline)
            continue;
        g_autofree char *h = g_strdup_printf ("[%u]/[%u]", i + 1, c->baseline + 1);
        pad (out, h, col_w);
    }
    while (out->len && out->str[out->len - 1] == ' ')
        g_string_truncate (out, out->len - 1);
    g_string_append_c (out, '\n');
    for (guint k = 0; k < c->figures->len; k++) {
        const WeftCompareFigure *f = c->figures->pdata[k];
        g_autofree char *name =
            *f->unit ? g_strdup_printf ("%s (%s)", f->name, f->unit) : g_strdup (f->name);
        g_string_append (out, "  ");
        pad (out, name, name_w + 2);
        for (guint i = 0; i < c->n_runs; i++) {
            g_autofree char *v = value_text (f, i, FALSE);
            pad (out, v, col_w);
        }
        for (guint i = 0; i < c->n_runs; i++) {
            if (i == c->baseline)
                continue;
            g_autofree char *r = ratio_text (c, f, i, FALSE);
            pad (out, r, col_w);
        }
        while (out->len && out->str[out->len - 1] == ' ')
            g_string_truncate (out, out->len - 1);
        g_string_append_c (out, '\n');
    }
    for (guint k = 0; k < c->missing->len; k++)
        g_string_append_printf (out, "missing: %s\n", (const char *) c->missing->pdata[k]);
}

static void
csv_row (GString *out, const char *section, const char *name, const char *unit, guint run,
         const char *trace, const char *value, const char *ratio_s)
{
    const char *fields[] = { section, name, unit };
    for (guint k = 0; k < G_N_ELEMENTS (fields); k++) {
        weft_export_csv_field (out, fields[k]);
        g_string_append_c (out, ',');
    }
    g_string_append_printf (out, "%u,", run);
    weft_export_csv_field (out, trace);
    g_string_append_c (out, ',');
    weft_export_csv_field (out, value);
    g_string_append_c (out, ',');
    weft_export_csv_field (out, ratio_s);
    g_string_append (out, "\r\n");
}

static void
format_csv (const WeftComparison *c, GString *out)
{
    g_string_append (out, "section,name,unit,run,trace,value,ratio\r\n");
    for (guint i = 0; i < c->n_runs; i++) {
        const WeftTraceInfo *info = c->runs[i];
        g_autofree char *st = status_text (info);
        csv_row (out, "run", "status", "", i + 1, info->path, st, NULL);
        if (c->problems[i])
            csv_row (out, "run", "problem", "", i + 1, info->path, c->problems[i], NULL);
    }
    for (guint k = 0; k < c->differs->len; k++) {
        const WeftCompareDiff *d = c->differs->pdata[k];
        for (guint i = 0; i < c->n_runs; i++)
            csv_row (out, "differs", d->key, "", i + 1, c->runs[i]->path, d->values[i], NULL);
    }
    for (guint k = 0; k < c->figures->len; k++) {
        const WeftCompareFigure *f = c->figures->pdata[k];
        for (guint i = 0; i < c->n_runs; i++) {
            g_autofree char *v = value_text (f, i, TRUE);
            g_autofree char *r = ratio_text (c, f, i, TRUE);
            csv_row (out, "figure", f->name, f->unit, i + 1, c->runs[i]->path, v, r);
        }
    }
    for (guint k = 0; k < c->missing->len; k++)
        csv_row (out, "missing", c->missing->pdata[k], "", 0, NULL, NULL, NULL);
}

static void
format_json (const WeftComparison *c, GString *out)
{
    g_string_append (out, "{\"runs\": [");
    for (guint i = 0; i < c->n_runs; i++) {
        const WeftTraceInfo *info = c->runs[i];
        g_autofree char *st = status_text (info);
        g_string_append (out, i ? ", {\"trace\": " : "{\"trace\": ");
        weft_export_json_string (out, info->path);
        g_string_append (out, ", \"status\": ");
        weft_export_json_string (out, st);
        g_string_append_printf (out,
                                ", \"complete\": %s, \"schema_version\": %u, \"seed\": "
                                "%" G_GUINT64_FORMAT ", \"problem\": ",
                                info->complete ? "true" : "false", info->schema_version,
                                info->seed);
        weft_export_json_string (out, c->problems[i]);
        g_string_append_c (out, '}');
    }
    g_string_append (out, "], \"differs\": [");
    for (guint k = 0; k < c->differs->len; k++) {
        const WeftCompareDiff *d = c->differs->pdata[k];
        g_string_append (out, k ? ", {\"key\": " : "{\"key\": ");
        weft_export_json_string (out, d->key);
        g_string_append (out, ", \"values\": [");
        for (guint i = 0; i < c->n_runs; i++) {
            if (i)
                g_string_append (out, ", ");
            weft_export_json_string (out, d->values[i]);
        }
        g_string_append (out, "]}");
    }
    g_string_append (out, "], \"figures\": [");
    for (guint k = 0; k < c->figures->len; k++) {
        const WeftCompareFigure *f = c->figures->pdata[k];
        g_string_append (out, k ? ", {\"name\": " : "{\"name\": ");
        weft_export_json_string (out, f->name);
        g_string_append (out, ", \"unit\": ");
        weft_export_json_string (out, f->unit);
        for (guint pass = 0; pass < 2; pass++) {
            g_string_append (out, pass ? ", \"ratios\": [" : ", \"values\": [");
            for (guint i = 0; i < c->n_runs; i++) {
                g_autofree char *v = pass ? ratio_text (c, f, i, TRUE) : value_text (f, i, TRUE);
                if (i)
                    g_string_append (out, ", ");
                g_string_append (out, *v ? v : "null");
            }
            g_string_append_c (out, ']');
        }
        g_string_append_c (out, '}');
    }
    g_string_append (out, "], \"missing\": [");
    for (guint k = 0; k < c->missing->len; k++) {
        if (k)
            g_string_append (out, ", ");
        weft_export_json_string (out, c->missing->pdata[k]);
    }
    g_string_append (out, "]}\n");
}

void
weft_compare_format (const WeftComparison *c, WeftCompareFormat format, GString *out)
{
    g_return_if_fail (c != NULL && out != NULL);
    switch (format) {
    case WEFT_COMPARE_CSV:
        format_csv (c, out);
        break;
    case WEFT_COMPARE_JSON:
        format_json (c, out);
        break;
    case WEFT_COMPARE_TEXT:
    default:
        format_text (c, out);
        break;
    }
}
