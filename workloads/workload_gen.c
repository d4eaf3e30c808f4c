/* workloads/workload_gen.c - the workload module's generators: which hosts take part, explicit
 * flow lists, fixed and Poisson start times, and the permutation, incast and all-to-all
 * patterns.  workload.c reads the parameters and calls these. */
#include "config.h"
#define G_LOG_DOMAIN "weft-workload"
#include "workloads/workload_private.h"

#include <math.h>
#include <string.h>
#include <gsl/gsl_randist.h>

#include "sim/input.h"
#include "sim/units.h"

/* ---- node names ------------------------------------------------------------------------- */

/* @where: NULL, or a position to name first ("entry 2 'h0>h9 1MiB'", "flows.csv:4"). */
static gboolean
resolve_node (Ctx *x, const char *key, const char *where, const char *name, guint32 *out,
              GError **error)
{
    g_autofree char *at = where ? g_strdup_printf ("%s: ", where) : g_strdup ("");
    guint32 id = weft_graph_lookup (x->g, name);
    if (id == WEFT_GRAPH_NONE) {
        const char *s = weft_suggest (name, (const char *const *) x->endpoint_names->pdata);
        if (s)
            return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_NODE, x->group, key,
                                         "%sunknown node '%s', did you mean '%s'?", at, name, s);
        return weft_experiment_fail (
            x->exp, error, WEFT_CONFIG_ERROR_NODE, x->group, key,
            "%sunknown node '%s': expected an endpoint of the "
            "topology (%u of them, e.g. '%s')",
            at, name, x->endpoint_names->len - 1,
            x->endpoint_names->len > 1 ? (const char *) x->endpoint_names->pdata[0] : "none");
    }
    const WeftNode *n = weft_graph_node (x->g, id);
    if (n->endpoint == WEFT_GRAPH_NONE)
        return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_NODE, x->group, key,
                                     "%s'%s' is a %s, not an endpoint: traffic starts and "
                                     "ends at hosts",
                                     at, name, weft_node_kind_name (n->kind));
    *out = id;
    return TRUE;
}

gboolean
weft_workload_split_index (const char *name, GString *prefix, guint64 *index)
{
    gsize len = strlen (name), i = len;
    while (i > 0 && g_ascii_isdigit (name[i - 1]))
        i--;
    if (i == len || len - i > 9)
        return FALSE;
    g_string_assign (prefix, "");
    g_string_append_len (prefix, name, (gssize) i);
    *index = g_ascii_strtoull (name + i, NULL, 10);
    return TRUE;
}

/* Resolves @name and appends it to @ids, refusing a duplicate. */
static gboolean
add_name (Ctx *x, const char *key, const char *name, GHashTable *seen, GArray *ids, GError **error)
{
    guint32 id;
    if (!resolve_node (x, key, NULL, name, &id, error))
        return FALSE;
    if (g_hash_table_contains (seen, GUINT_TO_POINTER (id)))
        return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_VALUE, x->group, key,
                                     "'%s' is listed twice", name);
    g_hash_table_add (seen, GUINT_TO_POINTER (id));
    g_array_append_val (ids, id);
    return TRUE;
}

/* Appends the node ids named by @items (names or ranges "host0..host7") to @ids, refusing
 * duplicates.  A range is checked against the topology before it is expanded (it cannot name
 * more nodes than there are endpoints), and each name is resolved as it is made, so
 * host1..host99999999 is refused at once, not after building 10^8 names. */
gboolean
weft_workload_resolve_names (Ctx *x, const char *key, GPtrArray *items, GArray *ids, GError **error)
{
    g_autoptr (GHashTable) seen = g_hash_table_new (NULL, NULL);
    g_autoptr (GString) p0 = g_string_new (NULL);
    g_autoptr (GString) p1 = g_string_new (NULL);
    g_autoptr (GString) name = g_string_new (NULL);
    guint n_ep = weft_graph_n_endpoints (x->g);
    for (guint i = 0; i < items->len; i++) {
        const char *item = items->pdata[i];
        const char *dots = strstr (item, "..");
        if (!dots) {
            if (!add_name (x, key, item, seen, ids, error))
                return FALSE;
            continue;
        }
        g_autofree char *a = g_strstrip (g_strndup (item, (gsize) (dots - item)));
        g_autofree char *b = g_strstrip (g_strdup (dots + 2));
        guint64 lo, hi;
        /* "dgx-1/gpu0..7": the last index alone repeats the first name's prefix. */
        g_autofree char *b_full = NULL;
        const char *last = b;
        if (*b && strspn (b, "0123456789") == strlen (b) && weft_workload_split_index (a, p0, &lo))
            last = b_full = g_strconcat (p0->str, b, NULL);
        if (!weft_workload_split_index (a, p0, &lo) || !weft_workload_split_index (last, p1, &hi) ||
            strcmp (p0->str, p1->str) != 0 || lo > hi)
            return weft_experiment_fail (
                x->exp, error, WEFT_CONFIG_ERROR_VALUE, x->group, key,
                "bad range '%s': expected NAME<first>..NAME<last> or NAME<first>..<last>, "
                "e.g. host0..host7 or dgx-1/gpu0..7",
                item);
        if (hi - lo + 1 > n_ep)
            return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_RANGE, x->group, key,
                                         "range '%s' names %" G_GUINT64_FORMAT
                                         " nodes, more than the topology's %u endpoints",
                                         item, hi - lo + 1, n_ep);
        for (guint64 k = lo; k <= hi; k++) {
            g_string_printf (name, "%s%" G_GUINT64_FORMAT, p0->str, k);
            if (!add_name (x, key, name->str, seen, ids, error))
                return FALSE;
        }
    }
    return TRUE;
}

GArray *
weft_workload_select_hosts (Ctx *x, GError **error)
{
    GArray *ids = g_array_new (FALSE, FALSE, sizeof (guint32));
    g_autoptr (GPtrArray) items = weft_workload_list_items (x->c.hosts);
    if (items->len > 0) {
        if (!weft_workload_resolve_names (x, "hosts", items, ids, error)) {
            g_array_unref (ids);
            return NULL;
        }
        return ids;
    }
    guint n = weft_graph_n_endpoints (x->g);
    for (int pass = 0; pass < 2 && ids->len == 0; pass++) {
        WeftNodeKind want = pass == 0 ? WEFT_NODE_HOST : WEFT_NODE_GPU;
        for (guint32 ep = 0; ep < n; ep++) {
            guint32 id = weft_graph_endpoint_node (x->g, ep);
            if (weft_graph_node (x->g, id)->kind == want)
                g_array_append_val (ids, id);
        }
    }
    return ids;
}

/* ---- flow lists ------------------------------------------------------------------------- */

/* One flow from SRC, DST, SIZE and an optional START (text).  @where prefixes messages
 * ("entry 3 'h0>h1 1MiB'" or "flows.csv:4"). */
static gboolean
list_flow (Ctx *x, const char *key, const char *where, const char *src, const char *dst,
           const char *size, const char *start, GError **error)
{
    guint32 s = 0, d = 0;
    guint64 bytes;
    weft_time_t t = 0;
    GError *local = NULL;
    if (!resolve_node (x, key, where, src, &s, error) ||
        !resolve_node (x, key, where, dst, &d, error))
        return FALSE;
    if (s == d)
        return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_VALUE, x->group, key,
                                     "%s: source and destination are both '%s'", where, src);
    if (!weft_units_parse_bytes (size, &bytes, &local) ||
        (start && !weft_units_parse_time (start, &t, &local))) {
        gboolean r = weft_experiment_fail (x->exp, error, (WeftConfigError) local->code, x->group,
                                           key, "%s: %s", where, local->message);
        g_error_free (local);
        return r;
    }
    if (bytes == 0)
        return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_RANGE, x->group, key,
                                     "%s: a flow needs at least 1B", where);
    return weft_workload_emit (x, s, d, bytes, t, error);
}

static gboolean
gen_inline (Ctx *x, GPtrArray *entries, GError **error)
{
    for (guint i = 0; i < entries->len; i++) {
        const char *e = entries->pdata[i];
        g_autofree char *where = g_strdup_printf ("entry %u '%s'", i + 1, e);
        const char *gt = strchr (e, '>');
        g_autofree char *src = g_strstrip (g_strndup (e, gt ? (gsize) (gt - e) : 0));
        g_auto (GStrv) rest = g_strsplit_set (gt ? gt + 1 : "", " \t", -1);
        const char *f[4] = { NULL, NULL, NULL, NULL };
        guint nf = 0;
        gboolean extra = FALSE;
        for (guint k = 0; rest[k]; k++) {
            if (!*rest[k])
                continue;
            if (nf == 3)
                extra = TRUE;
            else
                f[nf++] = rest[k];
        }
        if (!gt || !*src || nf < 2 || extra)
            return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_VALUE, x->group, "flows",
                                         "%s: expected SRC>DST SIZE [START], e.g. "
                                         "host0>host1 1MiB 10us",
                                         where);
        if (!list_flow (x, "flows", where, src, f[0], f[1], f[2], error))
            return FALSE;
    }
    return TRUE;
}

static gboolean
gen_csv (Ctx *x, const char *file, GError **error)
{
    g_autofree char *dir = weft_experiment_dir_for (x->exp, x->group, "file");
    g_autofree char *path =
        g_path_is_absolute (file) ? g_strdup (file) : g_build_filename (dir, file, NULL);
    g_autofree char *text = NULL;
    GError *local = NULL;
    if (!weft_input_read (path, WEFT_INPUT_MAX_BULK, &text, NULL, &local)) {
        gboolean r =
            weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_FILE, x->group, "file",
                                  "cannot read the flow list %s: %s", path, local->message);
        g_error_free (local);
        return r;
    }
    g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
    gboolean first = TRUE;
    for (guint i = 0; lines[i]; i++) {
        char *hash = strchr (lines[i], '#');
        if (hash)
            *hash = '\0';
        char *line = g_strstrip (lines[i]);
        if (!*line)
            continue;
        g_auto (GStrv) f = g_strsplit (line, ",", -1);
        guint nf = g_strv_length (f);
        for (guint k = 0; k < nf; k++)
            g_strstrip (f[k]);
        g_autofree char *where = g_strdup_printf ("%s:%u", path, i + 1);
        if (first && g_ascii_strcasecmp (f[0], "src") == 0) {
            first = FALSE; /* a header line */
            continue;
        }
        first = FALSE;
        if (nf < 3 || nf > 4)
            return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_VALUE, x->group, "file",
                                         "%s: expected src,dst,size[,start], e.g. "
                                         "host0,host1,1MiB,10us",
                                         where);
        if (!list_flow (x, "file", where, f[0], f[1], f[2], nf == 4 ? f[3] : NULL, error))
            return FALSE;
    }
    return TRUE;
}

gboolean
weft_workload_gen_flows (Ctx *x, const FlowsParams *p, GError **error)
{
    g_autoptr (GPtrArray) entries = weft_workload_list_items (p->flows);
    gboolean inl = weft_workload_has_key (x, "flows"), csv = str_set (p->file);
    if (inl && csv)
        return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_VALUE, x->group, "file",
                                     "give either flows or file, not both");
    if (csv)
        return gen_csv (x, p->file, error);
    if (entries->len == 0)
        return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_MISSING, x->group, "flows",
                                     "kind = flows needs flows = SRC>DST SIZE [START]; ... or "
                                     "file = FLOWS.csv");
    return gen_inline (x, entries, error);
}

static weft_time_t
fixed_start (Ctx *x)
{
    if (x->c.jitter == 0)
        return x->c.start;
    /* Uniform over the whole picoseconds of [0, jitter]. */
    double j = floor (gsl_rng_uniform (x->rng) * ((double) x->c.jitter + 1));
    return x->c.start + MIN ((weft_time_t) j, x->c.jitter);
}

/* One round of flows, src[i] -> dst[i], in order; the size is drawn before the start. */
static gboolean
gen_fixed (Ctx *x, const guint32 *src, const guint32 *dst, guint n, GError **error)
{
    for (guint i = 0; i < n; i++) {
        guint64 size = weft_flowsize_sample (x->size, x->rng);
        if (!weft_workload_emit (x, src[i], dst[i], size, fixed_start (x), error))
            return FALSE;
    }
    return TRUE;
}

static guint64
host_rate_bps (const WeftGraph *g, guint32 node)
{
    const WeftNode *n = weft_graph_node (g, node);
    guint64 first = 0;
    for (guint p = 0; p < n->ports->len; p++) {
        guint32 lid = g_array_index (n->ports, guint32, p);
        if (lid == WEFT_GRAPH_NONE)
            continue;
        const WeftLink *l = weft_graph_link (g, lid);
        if (l->kind == WEFT_LINK_FABRIC)
            return l->rate_bps;
        if (first == 0)
            first = l->rate_bps;
    }
    return first;
}

typedef struct {
    weft_time_t t;
    guint32 s;
} Arrival;

static gboolean
arrival_before (const Arrival *a, const Arrival *b)
{
    return a->t < b->t || (a->t == b->t && a->s < b->s);
}

static void
heap_down (Arrival *h, guint n, guint i)
{
    for (;;) {
        guint l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && arrival_before (&h[l], &h[m]))
            m = l;
        if (r < n && arrival_before (&h[r], &h[m]))
            m = r;
        if (m == i)
            return;
        Arrival tmp = h[i];
        h[i] = h[m];
        h[m] = tmp;
        i = m;
    }
}

/*
 * Poisson arrivals, one process per sender at rate load x link rate / (mean size x 8 bits),
 * merged in time order, until `count` flows or `start + duration`.  dst[s] is the sender's
 * fixed destination, or WEFT_GRAPH_NONE for a uniformly random other sender (all_to_all).
 * Cost: O(log senders) per flow.
 */
static gboolean
gen_poisson (Ctx *x, const guint32 *src, const guint32 *dst, guint n, GError **error)
{
    const Common *c = &x->c;
    if (c->count == 0 && c->duration == 0)
        return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_MISSING, x->group, NULL,
                                     "arrival = poisson needs count = N or duration = TIME "
                                     "(or both) to end");
    g_autofree double *gap_ps = g_new (double, n);
    g_autofree Arrival *h = g_new (Arrival, n);
    double mean_bits = weft_flowsize_mean (x->size) * 8;
    for (guint s = 0; s < n; s++) {
        guint64 rate = host_rate_bps (x->g, src[s]);
        if (rate == 0)
            return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_NODE, x->group, "load",
                                         "'%s' has no link, so no rate to load",
                                         weft_graph_node (x->g, src[s])->name);
        gap_ps[s] = mean_bits / (c->load * (double) rate) * (double) WEFT_PS_PER_S;
    }
    /* Far beyond any run; keeps start + gaps clear of 64-bit overflow. */
    const double horizon = (double) WEFT_S (3600) * 24 * 30;
    for (guint s = 0; s < n; s++)
        h[s] =
            (Arrival){ c->start + (weft_time_t) llround (gsl_ran_exponential (x->rng, gap_ps[s])),
                       s };
    for (guint i = n / 2; i-- > 0;)
        heap_down (h, n, i);
    weft_time_t stop = c->duration ? c->start + c->duration : WEFT_TIME_NEVER;
    guint64 made = 0;
    while (h[0].t < stop && (c->count == 0 || made < c->count)) {
        guint s = h[0].s;
        guint32 d = dst[s];
        if (d == WEFT_GRAPH_NONE) {
            gulong k = gsl_rng_uniform_int (x->rng, n - 1);
            d = src[k >= s ? k + 1 : k];
        }
        guint64 size = weft_flowsize_sample (x->size, x->rng);
        if (!weft_workload_emit (x, src[s], d, size, h[0].t, error))
            return FALSE;
        made++;
        double next = (double) h[0].t + round (gsl_ran_exponential (x->rng, gap_ps[s]));
        if (next > horizon)
            return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_RANGE, x->group, "count",
                                         "arrivals run past 30 days of simulated time: lower "
                                         "count or set duration");
        h[0].t = (weft_time_t) next;
        heap_down (h, n, 0);
    }
    return TRUE;
}

static gboolean
gen_round (Ctx *x, const guint32 *src, const guint32 *dst, guint n, GError **error)
{
    return x->c.arrival == ARRIVAL_POISSON ? gen_poisson (x, src, dst, n, error)
                                           : gen_fixed (x, src, dst, n, error);
}

/* ---- patterns --------------------------------------------------------------------------- */

gboolean
weft_workload_gen_permutation (Ctx *x, const PermParams *p, GArray *hosts, GError **error)
{
    guint n = hosts->len;
    const guint32 *src = (const guint32 *) hosts->data;
    if (n < 2)
        return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_RANGE, x->group, "hosts",
                                     "a permutation needs at least 2 hosts, found %u", n);
    g_autofree guint32 *dst = g_new (guint32, n);
    if (p->pattern == PATTERN_SHIFT) {
        guint64 k = p->shift % n;
        if (k == 0)
            return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_RANGE, x->group, "shift",
                                         "shift = %" G_GUINT64_FORMAT
                                         " is a multiple of the %u hosts: every host would "
                                         "send to itself",
                                         p->shift, n);
        for (guint i = 0; i < n; i++)
            dst[i] = src[(i + k) % n];
    } else {
        /* A uniformly random derangement by rejection: a shuffle has no fixed point with
         * probability about 1/e, so this takes e shuffles on average. */
        g_autofree guint32 *idx = g_new (guint32, n);
        gboolean fixed_point;
        do {
            for (guint i = 0; i < n; i++)
                idx[i] = i;
            gsl_ran_shuffle (x->rng, idx, n, sizeof (guint32));
            fixed_point = FALSE;
            for (guint i = 0; i < n && !fixed_point; i++)
                fixed_point = idx[i] == i;
        } while (fixed_point);
        for (guint i = 0; i < n; i++)
            dst[i] = src[idx[i]];
    }
    return gen_round (x, src, dst, n, error);
}

/* TRUE if @s is a whole decimal number (an incast sender count). */
static gboolean
is_count (const char *s)
{
    if (!*s)
        return FALSE;
    for (; *s; s++)
        if (!g_ascii_isdigit (*s))
            return FALSE;
    return TRUE;
}

gboolean
weft_workload_gen_incast (Ctx *x, const IncastParams *p, GArray *hosts, GError **error)
{
    guint32 rcv;
    if (!str_set (p->receiver))
        return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_MISSING, x->group, "receiver",
                                     "kind = incast needs receiver = NODE");
    g_autofree char *rname = g_strstrip (g_strdup (p->receiver));
    if (!resolve_node (x, "receiver", NULL, rname, &rcv, error))
        return FALSE;
    g_autoptr (GPtrArray) items = weft_workload_list_items (p->senders);
    g_autoptr (GArray) pool = g_array_new (FALSE, FALSE, sizeof (guint32));
    for (guint i = 0; i < hosts->len; i++)
        if (g_array_index (hosts, guint32, i) != rcv)
            g_array_append_val (pool, g_array_index (hosts, guint32, i));
    g_autoptr (GArray) snd = g_array_new (FALSE, FALSE, sizeof (guint32));

    if (items->len == 1 && is_count (items->pdata[0])) {
        guint64 want = g_ascii_strtoull (items->pdata[0], NULL, 10);
        if (want == 0 || want > pool->len)
            return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_RANGE, x->group,
                                         "senders",
                                         "%s senders: expected 1 to %u (the hosts other than "
                                         "the receiver)",
                                         (const char *) items->pdata[0], pool->len);
        g_array_set_size (snd, (guint) want);
        /* gsl_ran_choose keeps the pool's order: senders stay in endpoint order. */
        gsl_ran_choose (x->rng, snd->data, (size_t) want, pool->data, pool->len, sizeof (guint32));
    } else if (items->len > 0) {
        if (weft_workload_has_key (x, "hosts"))
            return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_UNKNOWN_KEY, x->group,
                                         "hosts",
                                         "not used when senders lists names (it narrows the "
                                         "pool a sender count draws from)");
        if (!weft_workload_resolve_names (x, "senders", items, snd, error))
            return FALSE;
        for (guint i = 0; i < snd->len; i++)
            if (g_array_index (snd, guint32, i) == rcv)
                return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_VALUE, x->group,
                                             "senders", "the receiver '%s' is also a sender",
                                             rname);
    } else {
        g_array_append_vals (snd, pool->data, pool->len);
    }
    if (snd->len == 0)
        return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_RANGE, x->group, "senders",
                                     "no host other than the receiver to send");
    g_autofree guint32 *dst = g_new (guint32, snd->len);
    for (guint i = 0; i < snd->len; i++)
        dst[i] = rcv;
    return gen_round (x, (const guint32 *) snd->data, dst, snd->len, error);
}

gboolean
weft_workload_gen_all_to_all (Ctx *x, GArray *hosts, GError **error)
{
    guint n = hosts->len;
    const guint32 *h = (const guint32 *) hosts->data;
    if (n < 2)
        return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_RANGE, x->group, "hosts",
                                     "all_to_all needs at least 2 hosts, found %u", n);
    if (x->c.arrival == ARRIVAL_POISSON) {
        g_autofree guint32 *dst = g_new (guint32, n);
        for (guint i = 0; i < n; i++)
            dst[i] = WEFT_GRAPH_NONE;
        return gen_poisson (x, h, dst, n, error);
    }
    if ((guint64) n * (n - 1) > MAX_FLOWS)
        return weft_experiment_fail (x->exp, error, WEFT_CONFIG_ERROR_RANGE, x->group, "hosts",
                                     "%u hosts make %" G_GUINT64_FORMAT
                                     " all-to-all flows, more than %u",
                                     n, (guint64) n * (n - 1), MAX_FLOWS);
    for (guint i = 0; i < n; i++)
        for (guint j = 0; j < n; j++)
            if (i != j && !gen_fixed (x, &h[i], &h[j], 1, error))
                return FALSE;
    return TRUE;
}
