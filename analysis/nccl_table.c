/* analysis/nccl_table.c - nccl-tests' output from /collectives rows (analysis/nccl_table.h).
 *
 * The layout is that of the current nccl-tests release, 2.19.6 (NCCL_TESTS_VERSION in
 * src/common.h): the report and table writers of src/util.cu (writeDeviceReport,
 * writeResultHeader, writeBenchmarkLinePreamble, writeBenchmarkLineBody, getFloatStr,
 * writeResultFooter, finalizeFooter, writeErrors) as src/common.cu's run() and TimeTest() call
 * them.  The printf formats below are that release's, so that a diff against a real log shows
 * only the numbers.  The arithmetic is nccl-tests' too: BenchTime() divides the elapsed time by
 * the iterations (here: the mean of the timed rows' time_ps) and each op's GetBw() computes
 * algbw = bytes / 1e9 / seconds and busbw = algbw x factor.
 * Cost: one sort of the distinct sizes and a pass over the rows per size, O(n log n + n s);
 * tables have tens of sizes.  The parameters of a run (weft_nccl_table_info_new) cost the same
 * over its rows, plus one hash lookup per rank.
 */
#include "config.h"
#define G_LOG_DOMAIN "weft-nccl-table"
#include "analysis/nccl_table.h"

#include <string.h>

/* nccl-tests 2.19.6, src/util.cu. */
#define FMT_VERSION "# nccl-tests version %s nccl-headers=%d nccl-library=%d\n"
#define FMT_STARTING "# Collective test starting: %s\n"
#define FMT_ARGS                                                                                   \
    "# nThread %d nGpus %d minBytes %ld maxBytes %ld step: %ld(%s) warmup iters: %d iters: %d "    \
    "agg iters: %d validation: %d graph: %d unalign: %d\n"
#define FMT_DEVICE "#  Rank %2d Group %2d Pid %6d on %10s device %2d [%04x:%02x:%02x] %s\n"
#define FMT_HEAD1                                                                                  \
    "# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          \n"
/* the trailing " %*s" is the timestamp column, width 0 and empty without -S 1 */
#define FMT_HEAD "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s\n"
#define FMT_ROW "%12li  %12li  %8s  %6s  %6s"  /* the root goes through sprintf "%6i" first */
#define FMT_RESULT "  %7s  %6s  %6s  %6g"      /* time, algbw, busbw through getFloatStr */
#define FMT_RESULT_NA "  %7s  %6s  %6s    N/A" /* one short of #wrong's 6, as nccl-tests has it */
#define FMT_FOOTER_D "# %-20s : %d %s\n"
#define FMT_FOOTER_G "# %-20s : %g %s\n"
#define FMT_CONCLUDED "# Collective test concluded: %s\n"
/* A placement that was not run.  nccl-tests' writeBenchMarkLineNullBody() (trace replay only)
 * still prints the 32 blanks of the 2.x group, whose #wrong column was 5 wide; weft prints the
 * 33 of today's group so that the columns after it stay in place. */
#define NULL_BODY "                                 "

static const struct {
    const char *op, *binary;
    int factor; /* 0: 1; 1: (n-1)/n; 2: 2(n-1)/n */
} ops[] = {
    { "all_reduce", "all_reduce_perf", 2 },
    { "all_gather", "all_gather_perf", 1 },
    { "reduce_scatter", "reduce_scatter_perf", 1 },
    { "alltoall", "alltoall_perf", 1 },
    { "broadcast", "broadcast_perf", 0 },
    { "reduce", "reduce_perf", 0 },
    { "sendrecv", "sendrecv_perf", 0 },
};

/* Local GPU d's PCI bus on a DGX H100 (synthetic here; see the header). */
static const guint8 dgx_h100_bus[8] = { 0x18, 0x2a, 0x3a, 0x5d, 0x9a, 0xab, 0xba, 0xdb };

void
weft_nccl_table_info_init (WeftNcclTableInfo *info)
{
    g_return_if_fail (info != NULL);
    memset (info, 0, sizeof *info);
    info->min_bytes = info->max_bytes = 32 * 1024 * 1024;
    info->step_factor = 1;
    info->step_bytes = 1024 * 1024;
    info->warmup_iters = 1;
    info->iters = 20;
    info->agg_iters = 1;
    info->validation = 1;
    info->graph = 0;
    info->unalign = 0;
    info->n_threads = info->n_gpus = 1;
    info->device_name = "NVIDIA H100 80GB HBM3";
    info->nccl_version = WEFT_NCCL_TABLE_NCCL_VERSION;
}

double
weft_nccl_table_bus_factor (const char *op, guint n_ranks)
{
    if (op == NULL || n_ranks == 0)
        return 0.0;
    for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
        if (strcmp (op, ops[i].op) == 0) {
            double n = n_ranks;
            return ops[i].factor == 2 ? 2.0 * (n - 1) / n : ops[i].factor == 1 ? (n - 1) / n : 1.0;
        }
    return 0.0;
}

const char *
weft_nccl_table_binary (const char *op)
{
    for (guint i = 0; op != NULL && i < G_N_ELEMENTS (ops); i++)
        if (strcmp (op, ops[i].op) == 0)
            return ops[i].binary;
    return NULL;
}

/* The op a binary runs: "all_reduce_perf" -> "all_reduce", else the name less "_perf". */
static char *
op_of_binary (const char *binary)
{
    for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
        if (strcmp (binary, ops[i].binary) == 0)
            return g_strdup (ops[i].op);
    return g_str_has_suffix (binary, "_perf") ? g_strndup (binary, strlen (binary) - 5)
                                              : g_strdup (binary);
}

static gboolean
same_op (const WeftTraceCollective *r, const char *op)
{
    return strncmp (r->op, op, WEFT_TRACE_KIND_LEN) == 0 &&
           (strlen (op) >= WEFT_TRACE_KIND_LEN || r->op[strlen (op)] == '\0');
}

static int
cmp_u64 (gconstpointer a, gconstpointer b)
{
    guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;
    return x < y ? -1 : x > y;
}

void
weft_nccl_table_format_number (char *buf, double value, int width)
{
    g_return_if_fail (buf != NULL && width >= 1 && width <= WEFT_NCCL_TABLE_NUMBER_MAX);
    /* nccl-tests' getFloatStr(): the first of "%.2f", "%.1f", "%.0f" that fits in @width
     * characters, else scientific notation, cut to @width as its snprintf cuts it */
    gsize size = (gsize) width + 1;
    if (g_snprintf (buf, size, "%*.2f", width, value) <= (gint) width)
        return;
    if (g_snprintf (buf, size, "%*.1f", width, value) <= (gint) width)
        return;
    if (g_snprintf (buf, size, "%*.0f", width, value) <= (gint) width)
        return;
    if (width >= 7)
        g_snprintf (buf, size, "%*.1e", width, value);
    else
        g_snprintf (buf, size, "%*.0e", width, value);
}

gboolean
weft_nccl_table_group (const WeftTraceCollective *rows, gsize n, const char *op, guint64 bytes,
                       guint8 in_place, double *time_us, double *algbw_gbs, double *busbw_gbs)
{
    g_return_val_if_fail (op != NULL && (rows != NULL || n == 0), FALSE);
    double sum_ps = 0.0, ratio_sum = 0.0;
    gsize k = 0;
    guint n_ranks = 0;
    for (gsize i = 0; i < n; i++) {
        const WeftTraceCollective *r = &rows[i];
        if (r->warmup || r->bytes != bytes || r->in_place != in_place || !same_op (r, op))
            continue;
        sum_ps += (double) r->time_ps;
        ratio_sum += r->algbw_gbs > 0 ? r->busbw_gbs / r->algbw_gbs : 1.0;
        k++;
    }
    if (k == 0)
        return FALSE;
    /* the factor of the size's first timed row, of either placement, as the table's row */
    for (gsize i = 0; i < n; i++)
        if (!rows[i].warmup && rows[i].bytes == bytes && same_op (&rows[i], op)) {
            n_ranks = rows[i].n_ranks;
            break;
        }
    double factor = weft_nccl_table_bus_factor (op, n_ranks);
    double sec = sum_ps / (double) k * 1e-12;
    double alg = sec > 0 ? (double) bytes / 1.0E9 / sec : 0.0;
    *time_us = sec * 1.0E6;
    *algbw_gbs = alg;
    *busbw_gbs = alg * (factor > 0 ? factor : ratio_sum / (double) k);
    return TRUE;
}

/* One placement's group; adds its busbw to the running average. */
static void
print_group (GString *out, const WeftTraceCollective *rows, gsize n, const char *op, guint64 bytes,
             guint8 in_place, const WeftNcclTableInfo *info, double *bw_sum, int *bw_count)
{
    double time_us, alg, bus;
    if (!weft_nccl_table_group (rows, n, op, bytes, in_place, &time_us, &alg, &bus)) {
        g_string_append (out, NULL_BODY);
        return;
    }
    char time_str[8], alg_str[7], bus_str[7];
    weft_nccl_table_format_number (time_str, time_us, 7);
    weft_nccl_table_format_number (alg_str, alg, 6);
    weft_nccl_table_format_number (bus_str, bus, 6);
    if (info->validation)
        g_string_append_printf (out, FMT_RESULT, time_str, alg_str, bus_str, 0.0);
    else
        g_string_append_printf (out, FMT_RESULT_NA, time_str, alg_str, bus_str);
    *bw_sum += bus;
    (*bw_count)++;
}

/* writeDeviceReport(): the version, the binary, the command line and the devices. */
static void
print_report (GString *out, const char *binary, const WeftNcclTableInfo *info)
{
    gboolean by_factor = info->step_factor > 1;
    g_string_append_printf (out, FMT_VERSION, WEFT_NCCL_TABLE_TESTS_VERSION, info->nccl_version,
                            info->nccl_version);
    g_string_append_printf (out, FMT_STARTING, binary);
    g_string_append_printf (out, FMT_ARGS, info->n_threads, info->n_gpus, (long) info->min_bytes,
                            (long) info->max_bytes,
                            (long) (by_factor ? info->step_factor : info->step_bytes),
                            by_factor ? "factor" : "bytes", info->warmup_iters, info->iters,
                            info->agg_iters, info->validation, info->graph, info->unalign);
    g_string_append (out, "#\n");
    g_string_append (out, "# Using devices\n");
    for (guint r = 0; r < info->n_ranks; r++) {
        const WeftNcclTableRank *rank = &info->ranks[r];
        g_string_append_printf (out, FMT_DEVICE, (int) r, 0, WEFT_NCCL_TABLE_PID_BASE + (int) r,
                                rank->host != NULL ? rank->host : "", (int) rank->device, 0u,
                                (unsigned) dgx_h100_bus[rank->device % G_N_ELEMENTS (dgx_h100_bus)],
                                0u, info->device_name != NULL ? info->device_name : "");
    }
}

/* writeResultHeader() without -C, -S or -I: "#", the placements, the names, the units. */
static void
print_column_heads (GString *out)
{
    g_string_append (out, "#\n");
    g_string_append_printf (out, FMT_HEAD1, "", "", "", "", "");
    g_string_append_printf (out, FMT_HEAD, "size", "count", "type", "redop", "root", "time",
                            "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong", 0, "");
    g_string_append_printf (out, FMT_HEAD, "(B)", "(elements)", "", "", "", "(us)", "(GB/s)",
                            "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "", 0, "");
}

void
weft_nccl_table_print (GString *out, const char *binary, const WeftTraceCollective *rows, gsize n,
                       const WeftNcclTableInfo *info)
{
    g_return_if_fail (out != NULL && info != NULL && (rows != NULL || n == 0));
    g_return_if_fail (info->ranks != NULL || info->n_ranks == 0);

    char *op = NULL;
    if (binary != NULL)
        op = op_of_binary (binary);
    else if (n > 0)
        op = g_strndup (rows[0].op, WEFT_TRACE_KIND_LEN);
    else
        op = g_strdup ("");
    char *program;
    if (binary != NULL)
        program = g_strdup (binary);
    else if (weft_nccl_table_binary (op) != NULL)
        program = g_strdup (weft_nccl_table_binary (op));
    else
        program = g_strconcat (op, "_perf", NULL);

    print_report (out, program, info);
    print_column_heads (out);

    /* the distinct sizes with a timed row */
    GArray *sizes = g_array_new (FALSE, FALSE, sizeof (guint64));
    for (gsize i = 0; i < n; i++) {
        if (rows[i].warmup || !same_op (&rows[i], op))
            continue;
        gboolean seen = FALSE;
        for (guint k = 0; k < sizes->len && !seen; k++)
            seen = g_array_index (sizes, guint64, k) == rows[i].bytes;
        if (!seen)
            g_array_append_val (sizes, rows[i].bytes);
    }
    g_array_sort (sizes, cmp_u64);

    double bw_sum = 0.0;
    int bw_count = 0;
    for (guint k = 0; k < sizes->len; k++) {
        guint64 bytes = g_array_index (sizes, guint64, k);
        const WeftTraceCollective *first = NULL;
        for (gsize i = 0; i < n && first == NULL; i++)
            if (!rows[i].warmup && rows[i].bytes == bytes && same_op (&rows[i], op))
                first = &rows[i];
        char type[WEFT_TRACE_SHORT_LEN + 1], redop[WEFT_TRACE_SHORT_LEN + 1], root[32];
        memcpy (type, first->type, WEFT_TRACE_SHORT_LEN); /* may fill the field: no NUL */
        type[WEFT_TRACE_SHORT_LEN] = '\0';
        memcpy (redop, first->redop, WEFT_TRACE_SHORT_LEN);
        redop[WEFT_TRACE_SHORT_LEN] = '\0';
        g_snprintf (root, sizeof root, "%6i", (int) first->root);
        g_string_append_printf (out, FMT_ROW, (long) bytes, (long) first->count, type, redop, root);
        for (guint8 in_place = 0; in_place <= 1; in_place++)
            print_group (out, rows, n, op, bytes, in_place, info, &bw_sum, &bw_count);
        g_string_append (out, "\n");
    }
    g_array_free (sizes, TRUE);

    /* writeResultFooter() (no NCCL_TESTS_MIN_BW: an empty verdict), finalizeFooter(), and
     * writeErrors()'s empty line for a run without an NCCL error */
    g_string_append_printf (out, FMT_FOOTER_D, "Out of bounds values", 0, "OK");
    g_string_append_printf (out, FMT_FOOTER_G, "Avg bus bandwidth",
                            bw_count > 0 ? bw_sum / bw_count : 0.0, "");
    g_string_append (out, "#\n");
    g_string_append_printf (out, FMT_CONCLUDED, program);
    g_string_append (out, "#\n");
    g_string_append (out, "\n");
    g_free (program);
    g_free (op);
}

/* ---- the parameters and ranks of a run, from its rows ---------------------------------- */

gboolean
weft_nccl_table_rank_parse (const char *name, char **host, guint *device)
{
    g_return_val_if_fail (name != NULL && host != NULL && device != NULL, FALSE);
    const char *slash = strrchr (name, '/');
    if (slash == NULL) {
        *host = g_strdup (name);
        return FALSE;
    }
    *host = g_strndup (name, (gsize) (slash - name));
    const char *end = slash + 1 + strlen (slash + 1), *digits = end;
    while (digits > slash + 1 && g_ascii_isdigit (digits[-1]))
        digits--;
    guint64 d = g_ascii_strtoull (digits, NULL, 10);
    if (digits == end || d > G_MAXINT) /* printed as an int */
        return FALSE;
    *device = (guint) d;
    return TRUE;
}

/* What weft_nccl_table_info_new() hands out: the info first, so that its address is the
 * block's, and the storage its ranks point into. */
typedef struct {
    WeftNcclTableInfo info;
    WeftNcclTableRank *ranks;
    char **hosts;
} OwnedInfo;

/* Sizes, step and iterations (see the header). */
static void
info_from_rows (WeftNcclTableInfo *info, const WeftTraceCollective *rows, gsize n)
{
    GArray *sizes = g_array_new (FALSE, FALSE, sizeof (guint64));
    for (gsize i = 0; i < n; i++) {
        info->n_ranks = MAX (info->n_ranks, rows[i].n_ranks);
        gboolean seen = FALSE;
        for (guint k = 0; k < sizes->len && !seen; k++)
            seen = g_array_index (sizes, guint64, k) == rows[i].bytes;
        if (!seen)
            g_array_append_val (sizes, rows[i].bytes);
    }
    g_array_sort (sizes, cmp_u64);
    const guint64 *s = (const guint64 *) sizes->data;
    info->min_bytes = sizes->len > 0 ? s[0] : 0;
    info->max_bytes = sizes->len > 0 ? s[sizes->len - 1] : 0;
    gboolean geometric = sizes->len > 1 && s[0] > 0;
    for (guint k = 1; k < sizes->len && geometric; k++)
        geometric = s[k] / 2 >= s[k - 1];
    if (geometric)
        info->step_factor = s[1] / s[0];
    else if (sizes->len > 1)
        info->step_bytes = s[1] - s[0];
    info->iters = info->warmup_iters = 0;
    for (gsize i = 0; i < n; i++)
        if (rows[i].bytes == info->min_bytes && !rows[i].in_place) {
            if (rows[i].warmup)
                info->warmup_iters++;
            else
                info->iters++;
        }
    g_array_free (sizes, TRUE);
}

WeftNcclTableInfo *
weft_nccl_table_info_new (const WeftTraceCollective *rows, gsize n, const char *const *rank_names,
                          guint n_names)
{
    g_return_val_if_fail (rows != NULL || n == 0, NULL);
    g_return_val_if_fail (rank_names != NULL || n_names == 0, NULL);
    OwnedInfo *o = g_new0 (OwnedInfo, 1);
    weft_nccl_table_info_init (&o->info);
    info_from_rows (&o->info, rows, n);
    guint n_ranks = o->info.n_ranks;
    o->ranks = g_new0 (WeftNcclTableRank, MAX (n_ranks, 1));
    o->hosts = g_new0 (char *, n_ranks + 1);
    GHashTable *on_host = g_hash_table_new (g_str_hash, g_str_equal); /* host -> ranks so far */
    for (guint r = 0; r < n_ranks; r++) {
        const char *name = r < n_names ? rank_names[r] : NULL;
        gboolean named = FALSE;
        if (name != NULL)
            named = weft_nccl_table_rank_parse (name, &o->hosts[r], &o->ranks[r].device);
        else
            o->hosts[r] = g_strdup ("?");
        o->ranks[r].host = o->hosts[r];
        guint local = GPOINTER_TO_UINT (g_hash_table_lookup (on_host, o->hosts[r]));
        g_hash_table_insert (on_host, o->hosts[r], GUINT_TO_POINTER (local + 1));
        /* nccl-tests' cudaDev without NCCL_TESTS_DEVICE: the local rank on this host */
        if (!named)
            o->ranks[r].device = local;
    }
    g_hash_table_destroy (on_host);
    o->info.ranks = o->ranks;
    return &o->info;
}

void
weft_nccl_table_info_free (WeftNcclTableInfo *info)
{
    if (info == NULL)
        return;
    OwnedInfo *o = (OwnedInfo *) info;
    g_free (o->ranks);
    g_strfreev (o->hosts);
    g_free (o);
}

char **
weft_nccl_table_gpu_names (const WeftTraceNode *nodes, gsize n)
{
    g_return_val_if_fail (nodes != NULL || n == 0, NULL);
    GPtrArray *names = g_ptr_array_new ();
    for (gsize i = 0; i < n; i++)
        if (strncmp (nodes[i].kind, "gpu", WEFT_TRACE_KIND_LEN) == 0)
            g_ptr_array_add (names, g_strndup (nodes[i].name, WEFT_TRACE_NAME_LEN));
    g_ptr_array_add (names, NULL);
    return (char **) g_ptr_array_free (names, FALSE);
}

void
weft_nccl_table_print_workloads (GString *out, const WeftTraceCollective *rows, gsize n,
                                 const WeftTraceNode *nodes, gsize n_nodes)
{
    g_return_if_fail (out != NULL && (rows != NULL || n == 0));
    GPtrArray *workloads = g_ptr_array_new_with_free_func (g_free);
    for (gsize i = 0; i < n; i++) {
        char *w = g_strndup (rows[i].workload, WEFT_TRACE_KIND_LEN);
        gboolean seen = FALSE;
        for (guint k = 0; k < workloads->len && !seen; k++)
            seen = strcmp (g_ptr_array_index (workloads, k), w) == 0;
        if (seen)
            g_free (w);
        else
            g_ptr_array_add (workloads, w);
    }
    char **gpus = weft_nccl_table_gpu_names (nodes, nodes != NULL ? n_nodes : 0);
    GArray *subset = g_array_new (FALSE, FALSE, sizeof (WeftTraceCollective));
    for (guint k = 0; k < workloads->len; k++) {
        const char *w = g_ptr_array_index (workloads, k);
        g_array_set_size (subset, 0);
        for (gsize i = 0; i < n; i++)
            if (strncmp (rows[i].workload, w, WEFT_TRACE_KIND_LEN) == 0)
                g_array_append_val (subset, rows[i]);
        if (workloads->len > 1)
            g_string_append_printf (out, "# weft workload %s\n", w);
        const WeftTraceCollective *sub = (const WeftTraceCollective *) subset->data;
        WeftNcclTableInfo *info = weft_nccl_table_info_new (
            sub, subset->len, (const char *const *) gpus, g_strv_length (gpus));
        weft_nccl_table_print (out, NULL, sub, subset->len, info);
        weft_nccl_table_info_free (info);
    }
    g_array_free (subset, TRUE);
    g_strfreev (gpus);
    g_ptr_array_free (workloads, TRUE);
}
