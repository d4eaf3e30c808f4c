/* workloads/nccl_tune.c - NCCL's tuning model: the latency/bandwidth table of a communicator,
 * the (algorithm, protocol) pick per size, and the chosen protocol's execution parameters.
 *
 * The numbers below are NCCL 2.20.3's (commit b6475625): src/graph/tuning.cc for the latency
 * and bandwidth model, src/enqueue.cc for the pick, the channel count and the chunk sizes,
 * src/include/device.h, src/include/comm.h and src/init.cc for buffer sizes and thread counts,
 * src/graph/search.cc for the search speeds.  They are facts about that release; the code is
 * weft's own.  doc/nccl-protocols.md tabulates them.
 */
#include "config.h"
#define G_LOG_DOMAIN "weft-nccl-tune"
#include "workloads/nccl_tune.h"

#include <math.h>
#include <string.h>

#include "sim/errors.h"

/* ---- constants (NCCL 2.20.3) ---------------------------------------------------------------- */

enum { HW_NVLINK, HW_PCI, HW_NET, N_HW };

/* Latency paid once per collective, us. */
static const double base_lat_us[WEFT_COLL_N_ALGOS][WEFT_NCCL_N_PROTOS] = {
    [WEFT_COLL_TREE] = { 6.8, 14.0, 0 }, [WEFT_COLL_RING] = { 6.6, 14.0, 8.4 },
    [WEFT_COLL_NVLS] = { 0, 0, 0 },      [WEFT_COLL_COLLNET_DIRECT] = { 0, 0, 0 },
    [WEFT_COLL_NVLS_TREE] = { 0, 0, 0 },
};

/* Latency per hop by the hop's hardware, us. */
static const double hw_lat_us[N_HW][WEFT_COLL_N_ALGOS][WEFT_NCCL_N_PROTOS] = {
    [HW_NVLINK] = { [WEFT_COLL_TREE] = { 0.6, 1.25, 28 },
                    [WEFT_COLL_RING] = { 0.6, 1.9, 3.4 },
                    [WEFT_COLL_NVLS] = { 0, 0, 23 },
                    [WEFT_COLL_COLLNET_DIRECT] = { 0, 0, 3.7 },
                    [WEFT_COLL_NVLS_TREE] = { 0, 0, 23 } },
    [HW_PCI] = { [WEFT_COLL_TREE] = { 1.0, 1.9, 28 },
                 [WEFT_COLL_RING] = { 1.0, 2.5, 5.7 },
                 [WEFT_COLL_NVLS] = { 0, 0, 0 },
                 [WEFT_COLL_COLLNET_DIRECT] = { 0, 0, 3.7 },
                 [WEFT_COLL_NVLS_TREE] = { 0, 0, 0 } },
    [HW_NET] = { [WEFT_COLL_TREE] = { 5.0, 8.5, 28 },
                 [WEFT_COLL_RING] = { 2.7, 4.0, 14.0 },
                 [WEFT_COLL_NVLS] = { 0, 0, 18 },
                 [WEFT_COLL_COLLNET_DIRECT] = { 0, 0, 31 },
                 [WEFT_COLL_NVLS_TREE] = { 0, 0, 14 } },
};

/* NVLS converts its bus bandwidth to algorithm bandwidth by 5/6 (tuning.cc); CollNetDirect's
 * all-reduce on Hopper (compute capability 9.0) runs at 0.85 of its graph's, and adds 0.4 us of
 * arity serialization per local GPU beyond the first. */
#define NVLS_ALG_RATIO (5.0 / 6.0)
#define COLLNET_SM90_FACTOR 0.85
#define COLLNET_ARITY_US 0.4
/* NVLS's chunk: at most 128 KiB in one node (enqueue.cc, computeCollChunkInfo). */
#define NVLS_MAX_CHUNK 131072

/* The proxy's cost of posting one network send on an Intel host, us; Simple pays it three times
 * (NCCL: getNetOverhead, and the factor of 3 in ncclTopoTuneModel). */
#define NET_OVERHEAD_US 1.0

/* Bandwidth caps, GB/s, by node count (1, 2, more than 2), for Hopper with an Intel CPU: LL's
 * total (llMaxBws: single node by GPU generation, Hopper; several nodes by CPU vendor, Intel),
 * and per channel: ring LL128, tree LL128, tree. */
static const double ll_max_bw[3] = { 87.7, 39.0, 20.4 };
static const double ring_ll128_max_bw[3] = { 36.7, 36.7, 36.7 };
static const double tree_ll128_max_bw[3] = { 36.7, 36.7, 29.0 };
static const double tree_max_bw[3] = { 38.7, 41.4, 36.0 };

/* Tree bandwidth correction by log2(bytes / 64), 64 B to 256 MiB. */
static const double tree_correction[WEFT_NCCL_N_PROTOS][23] = {
    { 1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7,  .7,  .7,  .6, .5,
      .4,  .4,  .5,  .6,  .7, .8, .9, 1.0, 1.0, 1.0, 1.0 },
    { 1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7,  .6, .6,
      .6,  .6,  .6,  .6,  .8,  .9, .9, .9, .9, 1.0, 1.0 },
    { .9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9 },
};

/* Buffers (device.h, init.cc): 8 steps per connection.  LL: 8 lines of 16 bytes per thread,
 * 512 threads; LL128: 120 8-byte elements per thread, 640 threads; Simple: 4 MiB. */
#define NCCL_STEPS 8
#define LL_STEP_BYTES (8u * 512u * NCCL_STEPS * 16u / NCCL_STEPS)
#define LL128_STEP_BYTES (120u * 640u * NCCL_STEPS * 8u / NCCL_STEPS)
#define SIMPLE_STEP_BYTES ((4u << 20) / NCCL_STEPS)

/* Wire lines: LL 16 bytes carry 8 (two 4-byte words, each beside a 4-byte flag); LL128 128
 * bytes carry 120 (one 8-byte flag per line). */
static const guint32 line_bytes[WEFT_NCCL_N_PROTOS] = { 16, 128, 1 };
static const guint32 line_data[WEFT_NCCL_N_PROTOS] = { 8, 120, 1 };

/* Threads per channel (maximum) and bytes per thread below which NCCL drops a channel. */
static const guint max_threads[WEFT_NCCL_N_PROTOS] = { 512, 640, 512 };
static const guint thread_threshold[WEFT_NCCL_N_PROTOS] = { 8, 8, 64 };
#define PCI_BW_GBS 12.0 /* NCCL's PCIe Gen3 x16 figure: below it Simple rings get 256 threads */

/* Search speeds for Hopper, GB/s per channel, inside one node and across nodes. */
static const double speeds_intra[] = { 60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 6.0, 3.0 };
static const double speeds_inter[] = { 48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5,
                                       15.0, 12.0, 6.0,  3.0,  2.4,  1.2,  0.24, 0.12 };

#define MAX_CHANNELS 32 /* MAXCHANNELS: a communicator's channels */

/* ---- names and enable lists ------------------------------------------------------------------ */

/* Every algorithm name NCCL_ALGO knows; those weft runs map to a WeftCollAlgo. */
static const struct {
    const char *name;
    gint algo; /* WeftCollAlgo, or -1: not modelled */
    const char *what;
} algo_names[] = {
    { "tree", WEFT_COLL_TREE, NULL },
    { "ring", WEFT_COLL_RING, NULL },
    { "collnetdirect", WEFT_COLL_COLLNET_DIRECT, NULL },
    { "collnetchain", -1, "CollNetChain (in-network reduction along a chain of GPUs)" },
    { "nvls", WEFT_COLL_NVLS, NULL },
    { "nvlstree", WEFT_COLL_NVLS_TREE, NULL },
};

static const char *const proto_names[WEFT_NCCL_N_PROTOS] = { "ll", "ll128", "simple" };
static const char *const proto_display[WEFT_NCCL_N_PROTOS] = { "LL", "LL128", "Simple" };

const char *
weft_nccl_algo_name (WeftCollAlgo algo)
{
    static const char *const names[WEFT_COLL_N_ALGOS] = {
        [WEFT_COLL_RING] = "Ring",          [WEFT_COLL_TREE] = "Tree",
        [WEFT_COLL_NVLS] = "NVLS",          [WEFT_COLL_COLLNET_DIRECT] = "CollNetDirect",
        [WEFT_COLL_NVLS_TREE] = "NVLSTree",
    };
    g_return_val_if_fail ((guint) algo < WEFT_COLL_N_ALGOS, NULL);
    return names[algo];
}

const char *
weft_nccl_proto_name (WeftNcclProto proto)
{
    g_return_val_if_fail ((guint) proto < WEFT_NCCL_N_PROTOS, NULL);
    return proto_display[proto];
}

void
weft_nccl_enable_default (WeftNcclEnable *en)
{
    for (guint a = 0; a < WEFT_COLL_N_ALGOS; a++) {
        en->algo[a] = 1;
        en->named[a] = 0;
    }
    en->proto[WEFT_NCCL_LL] = 1;
    en->proto[WEFT_NCCL_LL128] = 2;
    en->proto[WEFT_NCCL_SIMPLE] = 1;
}

/* Splits @text into its names (lower case, stripped): FALSE for "auto" or empty (the default),
 * TRUE otherwise, with *negate set for a leading '^'. */
static gboolean
split_list (const char *text, gboolean *negate, GPtrArray *names)
{
    g_autofree char *s = g_strstrip (g_ascii_strdown (text ? text : "", -1));
    *negate = s[0] == '^';
    const char *body = *negate ? s + 1 : s;
    if (!*negate && (*body == '\0' || strcmp (body, "auto") == 0))
        return FALSE;
    g_auto (GStrv) tok = g_strsplit (body, ",", -1);
    for (guint i = 0; tok[i]; i++) {
        char *t = g_strstrip (tok[i]);
        if (*t)
            g_ptr_array_add (names, g_strdup (t));
    }
    return TRUE;
}

gboolean
weft_nccl_parse_algos (const char *text, WeftNcclEnable *en, GError **error)
{
    g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
    gboolean negate;
    guint8 on[WEFT_COLL_N_ALGOS];
    if (!split_list (text, &negate, names)) {
        for (guint a = 0; a < WEFT_COLL_N_ALGOS; a++) {
            en->algo[a] = 1;
            en->named[a] = 0;
        }
        return TRUE;
    }
    guint8 named[WEFT_COLL_N_ALGOS] = { 0 };
    for (guint a = 0; a < WEFT_COLL_N_ALGOS; a++)
        on[a] = negate;
    for (guint i = 0; i < names->len; i++) {
        const char *name = names->pdata[i];
        guint k = 0;
        while (k < G_N_ELEMENTS (algo_names) && strcmp (algo_names[k].name, name) != 0)
            k++;
        if (k == G_N_ELEMENTS (algo_names)) {
            g_set_error (error, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_VALUE,
                         "'%s' is not an NCCL algorithm: expected auto, or ring, tree, nvls, "
                         "collnetdirect and nvlstree separated by commas (NCCL_ALGO style, '^' to "
                         "exclude)",
                         name);
            return FALSE;
        }
        if (algo_names[k].algo < 0) {
            if (negate)
                continue; /* excluding what weft never runs changes nothing */
            g_set_error (error, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_VALUE,
                         "%s is NCCL's %s, which weft does not model: expected ring, tree, nvls, "
                         "collnetdirect or nvlstree",
                         name, algo_names[k].what);
            return FALSE;
        }
        on[algo_names[k].algo] = !negate;
        named[algo_names[k].algo] = !negate;
    }
    gboolean any = FALSE;
    for (guint a = 0; a < WEFT_COLL_N_ALGOS; a++)
        any |= on[a];
    if (!any) {
        g_set_error (error, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_VALUE,
                     "'%s' leaves no algorithm weft runs: expected ring, tree, nvls, "
                     "collnetdirect or nvlstree",
                     text);
        return FALSE;
    }
    memcpy (en->algo, on, sizeof on);
    memcpy (en->named, named, sizeof named);
    return TRUE;
}

gboolean
weft_nccl_parse_protos (const char *text, WeftNcclEnable *en, GError **error)
{
    g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
    gboolean negate;
    guint8 on[WEFT_NCCL_N_PROTOS];
    if (!split_list (text, &negate, names)) {
        WeftNcclEnable d;
        weft_nccl_enable_default (&d);
        memcpy (en->proto, d.proto, sizeof d.proto);
        return TRUE;
    }
    /* As NCCL_PROTO: a list, or '^' and the ones to drop, sets every protocol on or off
     * outright (so "^ll" turns LL128 on even where NCCL's default would leave it off). */
    for (guint p = 0; p < WEFT_NCCL_N_PROTOS; p++)
        on[p] = negate;
    for (guint i = 0; i < names->len; i++) {
        const char *name = names->pdata[i];
        guint p = 0;
        while (p < WEFT_NCCL_N_PROTOS && strcmp (proto_names[p], name) != 0)
            p++;
        if (p == WEFT_NCCL_N_PROTOS) {
            g_set_error (error, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_VALUE,
                         "'%s' is not an NCCL protocol: expected auto, or ll, ll128 and simple "
                         "separated by commas (NCCL_PROTO style, '^' to exclude)",
                         name);
            return FALSE;
        }
        on[p] = !negate;
    }
    if (!on[0] && !on[1] && !on[2]) {
        g_set_error (error, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_VALUE,
                     "'%s' leaves no protocol: expected ll, ll128 or simple", text);
        return FALSE;
    }
    memcpy (en->proto, on, sizeof on);
    return TRUE;
}

/* ---- the communicator from the graph ----------------------------------------------------------
 */

static double
gbs (guint64 rate_bps)
{
    return (double) rate_bps / 8e9;
}

/* The summed rate of @node's links of @kind. */
static guint64
link_rate (const WeftGraph *g, guint32 node, WeftLinkKind kind)
{
    const WeftNode *n = weft_graph_node (g, node);
    guint64 sum = 0;
    for (guint p = 0; p < n->ports->len; p++) {
        guint32 l = g_array_index (n->ports, guint32, p);
        if (l != WEFT_GRAPH_NONE && weft_graph_link (g, l)->kind == kind)
            sum += weft_graph_link (g, l)->rate_bps;
    }
    return sum;
}

/* NCCL's search, short: among the speeds (descending) not above @max_bw, the one that fits
 * the most channels x speed, where a channel takes its speed from every GPU's scale-up
 * bandwidth (@total_bw: each GPU is in every channel) and, across nodes, from one NIC (@nics
 * of @nic_bw each); ties go to the faster speed, and the search stops once a speed falls below
 * 0.49 of the best found (search.cc's pass 1).  Then NCCL's channel duplication: a graph whose
 * channels run at 25 GB/s or more is doubled at half the speed, unless (Hopper) it runs below
 * 50 GB/s on more than 4 channels. */
static void
search (const double *speeds, guint n_speeds, double max_bw, double total_bw, gboolean inter,
        guint nics, double nic_bw, guint max_channels, guint *ch_out, double *bw_out)
{
    guint best_ch = 0;
    double best_bw = 0;
    for (guint i = 0; i < n_speeds; i++) {
        double s = speeds[i];
        if (s > max_bw * (1 + 1e-9))
            continue;
        if (best_ch > 0 && s / best_bw <= 0.49)
            break;
        double fit = floor (total_bw / s + 1e-9);
        if (inter)
            fit = MIN (fit, nics * floor (nic_bw / s + 1e-9));
        guint c = (guint) MIN (fit, (double) max_channels);
        if (c > 0 && c * s > best_ch * best_bw * (1 + 1e-9)) {
            best_ch = c;
            best_bw = s;
        }
    }
    if (best_ch == 0) { /* slower than every speed NCCL tries: one channel at what there is */
        best_ch = 1;
        best_bw = MIN (max_bw, total_bw);
    }
    if (best_bw >= 25.0 && !(best_bw < 50.0 && best_ch > 4)) {
        guint dup = MIN (2 * best_ch, max_channels);
        best_bw /= (dup + best_ch - 1) / best_ch;
        best_ch = dup;
    }
    *ch_out = best_ch;
    *bw_out = best_bw;
}

void
weft_nccl_comm_from_graph (WeftNcclComm *comm, const WeftGraph *g, const guint32 *ranks, guint n,
                           double nvlink_efficiency, guint max_channels)
{
    g_return_if_fail (comm != NULL && g != NULL && ranks != NULL && n >= 1);
    max_channels = CLAMP (max_channels, 1, MAX_CHANNELS / 2);
    *comm = (WeftNcclComm){ .n_ranks = n, .nvlink = TRUE };

    /* Nodes: the servers of the ranks; a rank outside any server is a node of its own. */
    g_autoptr (GHashTable) servers = g_hash_table_new (NULL, NULL);
    guint loose = 0;
    double total = G_MAXDOUBLE, max_bw = G_MAXDOUBLE;
    for (guint i = 0; i < n; i++) {
        const WeftNode *r = weft_graph_node (g, ranks[i]);
        if (r->server >= 0)
            g_hash_table_add (servers, GINT_TO_POINTER (r->server + 1));
        else
            loose++;
        guint64 nvl = link_rate (g, ranks[i], WEFT_LINK_NVLINK);
        guint64 pci = link_rate (g, ranks[i], WEFT_LINK_PCIE);
        guint64 net = link_rate (g, ranks[i], WEFT_LINK_FABRIC);
        comm->nvlink &= nvl > 0;
        /* What one GPU can put into all its channels at once (NCCL's totalBw), and the most a
         * channel can get out of the node: the GPU's PCIe link toward its NIC, or a host's own
         * fabric link. */
        total = MIN (total, nvl > 0 ? gbs (nvl) * nvlink_efficiency : gbs (pci ? pci : net));
        if (pci || net)
            max_bw = MIN (max_bw, gbs (pci ? pci : net));
    }
    comm->n_nodes = g_hash_table_size (servers) + loose;

    /* NICs per node, and their rate: the fabric links of a server's NICs (min over servers),
     * or a loose rank's own. */
    guint nics = G_MAXUINT;
    double nic_bw = G_MAXDOUBLE;
    if (loose > 0) {
        nics = 1;
        for (guint i = 0; i < n; i++)
            if (weft_graph_node (g, ranks[i])->server < 0) {
                guint64 r = link_rate (g, ranks[i], WEFT_LINK_FABRIC);
                if (r)
                    nic_bw = MIN (nic_bw, gbs (r));
            }
    }
    if (g_hash_table_size (servers) > 0) {
        g_autoptr (GHashTable) count = g_hash_table_new (NULL, NULL);
        for (guint32 id = 0; id < weft_graph_n_nodes (g); id++) {
            const WeftNode *m = weft_graph_node (g, id);
            gpointer key = GINT_TO_POINTER (m->server + 1);
            if (m->kind != WEFT_NODE_NIC || !g_hash_table_contains (servers, key))
                continue;
            guint64 r = link_rate (g, id, WEFT_LINK_FABRIC);
            if (!r)
                continue;
            nic_bw = MIN (nic_bw, gbs (r));
            guint k = GPOINTER_TO_UINT (g_hash_table_lookup (count, key));
            g_hash_table_insert (count, key, GUINT_TO_POINTER (k + 1));
        }
        GHashTableIter it;
        gpointer key;
        g_hash_table_iter_init (&it, servers);
        while (g_hash_table_iter_next (&it, &key, NULL))
            nics = MIN (nics, GPOINTER_TO_UINT (g_hash_table_lookup (count, key)));
    }
    gboolean inter = comm->n_nodes > 1;
    if (!inter || nics == 0 || nic_bw == G_MAXDOUBLE) {
        nics = MAX (nics == G_MAXUINT ? 1 : nics, 1);
        nic_bw = nic_bw == G_MAXDOUBLE ? total : nic_bw;
    }
    if (total == G_MAXDOUBLE)
        total = nic_bw;
    /* The most a channel gets: across nodes, the GPU-to-NIC path; inside one, the GPU's own
     * scale-up link. */
    max_bw = inter ? MIN (max_bw == G_MAXDOUBLE ? nic_bw : max_bw, nic_bw) : total;

    const double *speeds = inter ? speeds_inter : speeds_intra;
    guint n_speeds = inter ? G_N_ELEMENTS (speeds_inter) : G_N_ELEMENTS (speeds_intra);
    search (speeds, n_speeds, max_bw, total, inter, nics, nic_bw, max_channels,
            &comm->ring_channels, &comm->ring_bw_gbs);
    /* The tree graph (NCCL's balanced pattern, as weft's trees are built): a chain through the
     * node's GPUs, whose last GPU sends nothing onward inside it, so NCCL allows the tree
     * ppn / (ppn - 1) of the GPU's bandwidth.  One speed serves inside and across nodes; NCCL's
     * second pass may raise the intra-node speed of a tree on two nodes up to twice the
     * inter-node one while NVLink still fits its channels, which on an H100 it does not
     * (8 x 48 GB/s already exceeds 360). */
    double ppn = (double) n / comm->n_nodes;
    double tree_total = ppn > 1 ? total * ppn / (ppn - 1) : G_MAXDOUBLE / 2;
    search (speeds, n_speeds, max_bw, tree_total, inter, nics, nic_bw, max_channels,
            &comm->tree_channels, &comm->tree_bw_gbs);
    comm->comm_channels = MIN (2 * comm->ring_channels, MAX_CHANNELS);
    /* NVLS (search.cc, ncclTopoSearchTryNvls): one channel per GPU of the node, each the head
     * of 1/ppn of the data; a head's own NVLink carries its channel's bandwidth twice (what
     * it sends to reduce and what it stores) and every other GPU's once, so a GPU's link
     * carries (ppn + 1) x the channel's bandwidth: the fastest speed that fits. */
    guint heads = (guint) MAX (1.0, ppn);
    comm->nvls_channels = heads;
    comm->nvls_bw_gbs = 0;
    for (guint i = 0; i < G_N_ELEMENTS (speeds_intra) && comm->nvls_bw_gbs == 0; i++)
        if ((heads + 1) * speeds_intra[i] <= total * (1 + 1e-9))
            comm->nvls_bw_gbs = speeds_intra[i];
    /* Across nodes the NVLS graph pairs each head with a NIC (search.cc: at most one head per
     * NIC), at the fastest inter-node speed one NIC carries. */
    comm->nvls_tree_channels = MIN (heads, nics);
    comm->nvls_inter_bw_gbs = 0;
    for (guint i = 0; i < G_N_ELEMENTS (speeds_inter) && comm->nvls_inter_bw_gbs == 0; i++)
        if (speeds_inter[i] <= nic_bw * (1 + 1e-9))
            comm->nvls_inter_bw_gbs = speeds_inter[i];
    comm->gpudirect = weft_graph_gpudirect (g);
    g_debug ("nccl comm: %u ranks, %u nodes, %s; ring %u x %.1f GB/s, tree %u x %.1f GB/s, "
             "nvls %u x %.1f GB/s (across nodes %u x %.1f)",
             comm->n_ranks, comm->n_nodes, comm->nvlink ? "NVLink" : "PCIe", comm->ring_channels,
             comm->ring_bw_gbs, comm->tree_channels, comm->tree_bw_gbs, comm->nvls_channels,
             comm->nvls_bw_gbs, comm->nvls_tree_channels, comm->nvls_inter_bw_gbs);
}

/* ---- the table --------------------------------------------------------------------------------
 */

static guint
log2i (guint64 v)
{
    guint l = 0;
    while (v >>= 1)
        l++;
    return l;
}

/* Index of the node-count columns of the caps: 1, 2, more. */
static guint
nodes_index (guint n_nodes)
{
    return n_nodes <= 2 ? n_nodes - 1 : 2;
}

static gboolean
tuned_op (WeftCollOp op)
{
    return op != WEFT_COLL_ALL_TO_ALL && op != WEFT_COLL_SEND_RECV;
}

/* NVLS, NVLSTree and CollNetDirect's entries (tuning.cc): Simple only; NVLS for all_reduce,
 * reduce_scatter and all_gather in one node, NVLSTree for all_reduce across nodes (NCCL turns it
 * off in one node), CollNetDirect for all_reduce. */
static void
in_switch (WeftNcclTune *t, const WeftNcclEnable *en, guint op, guint a)
{
    const WeftNcclComm *comm = &t->comm;
    guint p = WEFT_NCCL_SIMPLE;
    double ppn = (double) comm->n_ranks / comm->n_nodes, bus, lat;
    gboolean avail;
    if (a == WEFT_COLL_NVLS) {
        avail = comm->nvls && comm->n_nodes == 1 &&
                (op == WEFT_COLL_ALL_REDUCE || op == WEFT_COLL_REDUCE_SCATTER ||
                 op == WEFT_COLL_ALL_GATHER);
        bus = comm->nvls_channels * comm->nvls_bw_gbs * NVLS_ALG_RATIO;
        lat = hw_lat_us[comm->nvlink ? HW_NVLINK : HW_PCI][a][p];
    } else if (a == WEFT_COLL_NVLS_TREE) {
        avail = comm->nvls_tree && comm->n_nodes > 1 && op == WEFT_COLL_ALL_REDUCE;
        /* The NVLS graph's intra speed, or its inter speed (halved beyond two nodes, where a
         * head has two children to feed): the slower of the two per channel. */
        double inter = comm->n_nodes <= 2 ? comm->nvls_inter_bw_gbs : comm->nvls_inter_bw_gbs / 2;
        bus = comm->nvls_tree_channels * MIN (comm->nvls_bw_gbs, inter) * NVLS_ALG_RATIO;
        lat = base_lat_us[a][p] + hw_lat_us[comm->nvlink ? HW_NVLINK : HW_PCI][a][p] +
              2 * log2i (comm->n_nodes) * hw_lat_us[HW_NET][a][p];
    } else {
        avail = comm->collnet && op == WEFT_COLL_ALL_REDUCE;
        /* The CollNet graph has the ring graph's channels (init.cc); weft takes its speed
         * too.  A GPU without a NIC of its own slows it (the GPU/NIC ratio, halfway). */
        double factor = ppn / comm->ring_channels;
        factor -= (factor - 1) / 2;
        bus = comm->ring_channels * comm->ring_bw_gbs / factor * COLLNET_SM90_FACTOR * 0.5;
        lat = base_lat_us[a][p] +
              2 * (MIN (1.0, ppn - 1) * hw_lat_us[HW_NVLINK][a][p] + (ppn - 1) * COLLNET_ARITY_US) +
              hw_lat_us[HW_NET][a][p];
    }
    t->lat_us[op][a][p] = lat;
    t->bw_gbs[op][a][p] = avail && en->algo[a] && en->proto[p] ? bus : 0;
}

void
weft_nccl_tune_init (WeftNcclTune *t, const WeftNcclComm *comm, const WeftNcclEnable *en)
{
    g_return_if_fail (t != NULL && comm != NULL && en != NULL && comm->n_nodes >= 1);
    memset (t, 0, sizeof *t);
    t->comm = *comm;
    guint n = comm->n_ranks, nodes = comm->n_nodes, ni = nodes_index (nodes);
    double ppn = (double) n / nodes;
    int intra = comm->nvlink ? HW_NVLINK : HW_PCI;
    /* LL128 by default only where NCCL enables it: GPUs of a node on NVLink (or one per node),
     * and, across nodes, a NIC reached without going through the CPU (GPUDirect). */
    gboolean ll128 = (comm->nvlink || ppn < 2) && (nodes == 1 || comm->gpudirect);

    for (guint op = 0; op < WEFT_COLL_N_OPS; op++) {
        if (!tuned_op (op) || n < 2)
            continue;
        guint steps = op == WEFT_COLL_ALL_REDUCE                                     ? 2 * (n - 1)
                      : op == WEFT_COLL_ALL_GATHER || op == WEFT_COLL_REDUCE_SCATTER ? n - 1
                                                                                     : n;
        guint inter_steps = op == WEFT_COLL_ALL_REDUCE ? (nodes > 1 ? 2 * nodes : 0)
                            : op == WEFT_COLL_ALL_GATHER || op == WEFT_COLL_REDUCE_SCATTER
                                ? nodes - 1
                                : nodes;
        for (guint a = 0; a < WEFT_COLL_N_ALGOS; a++) {
            if (a == WEFT_COLL_TREE && op != WEFT_COLL_ALL_REDUCE)
                continue;
            if (a == WEFT_COLL_NVLS || a == WEFT_COLL_COLLNET_DIRECT || a == WEFT_COLL_NVLS_TREE) {
                in_switch (t, en, op, a);
                continue;
            }
            guint ch = a == WEFT_COLL_TREE ? comm->tree_channels : comm->ring_channels;
            double per_ch = a == WEFT_COLL_TREE ? comm->tree_bw_gbs : comm->ring_bw_gbs;
            for (guint p = 0; p < WEFT_NCCL_N_PROTOS; p++) {
                double bus = ch * per_ch;
                if (a == WEFT_COLL_RING && p == WEFT_NCCL_LL)
                    bus = MIN (ll_max_bw[ni], bus * (nodes > 1 || op == WEFT_COLL_ALL_REDUCE ||
                                                             op == WEFT_COLL_REDUCE
                                                         ? 1.0 / 4.0
                                                         : 1.0 / 3.0));
                if (a == WEFT_COLL_RING && p == WEFT_NCCL_LL128)
                    bus = MIN (bus * (ppn < 2 ? 0.7 : 0.92), ch * ring_ll128_max_bw[ni]);
                if (a == WEFT_COLL_TREE) {
                    /* (No 0.85: that is for NCCL's plain tree pattern, all of a node's
                     * network traffic on one GPU; weft's trees are the balanced pattern.) */
                    bus = MIN (bus * 0.92, ch * tree_max_bw[ni]);
                    if (p == WEFT_NCCL_LL)
                        bus = MIN (bus / 3.8, ll_max_bw[ni]);
                    if (p == WEFT_NCCL_LL128)
                        bus = MIN (bus * (nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0),
                                   ch * tree_ll128_max_bw[ni]);
                }
                /* Bus bandwidth to algorithm bandwidth. */
                bus *= a == WEFT_COLL_RING ? (double) n / steps : 0.5;

                double lat = base_lat_us[a][p];
                double intra_lat = hw_lat_us[intra][a][p];
                double inter_lat = hw_lat_us[HW_NET][a][p]; /* + the NIC's latency: 0 for IB */
                if (a == WEFT_COLL_RING) {
                    int hw = nodes == 1 ? intra : HW_NET;
                    if (op == WEFT_COLL_BROADCAST || op == WEFT_COLL_REDUCE) {
                        /* weft's channels take different rings (NCCL's sameChannels = 0) */
                        double l = p == WEFT_NCCL_SIMPLE ? hw_lat_us[hw][WEFT_COLL_TREE][p]
                                                         : hw_lat_us[hw][a][p];
                        lat += steps * l;
                    } else {
                        double ov =
                            nodes > 1 ? NET_OVERHEAD_US * (p == WEFT_NCCL_SIMPLE ? 3 : 1) : 0;
                        lat +=
                            (steps - inter_steps) * MAX (intra_lat, ov) + inter_steps * inter_lat;
                    }
                } else {
                    lat += 2 * ((n / nodes - 1) * intra_lat + log2i (nodes) * inter_lat);
                }
                gboolean on = en->algo[a] && (en->proto[p] == 1 ||
                                              (en->proto[p] == 2 && p == WEFT_NCCL_LL128 && ll128));
                t->lat_us[op][a][p] = lat;
                t->bw_gbs[op][a][p] = on ? bus : 0;
            }
        }
    }
}

double
weft_nccl_tune_time_us (const WeftNcclTune *t, WeftCollOp op, guint64 bytes, WeftCollAlgo algo,
                        WeftNcclProto proto)
{
    g_return_val_if_fail (t != NULL && (guint) op < WEFT_COLL_N_OPS, -1);
    g_return_val_if_fail ((guint) algo < WEFT_COLL_N_ALGOS, -1);
    g_return_val_if_fail ((guint) proto < WEFT_NCCL_N_PROTOS, -1);
    double bw = t->bw_gbs[op][algo][proto], lat = t->lat_us[op][algo][proto];
    if (bw <= 0)
        return -1;
    guint ls = log2i (bytes >> 6);
    if (algo == WEFT_COLL_TREE && ls < 23)
        bw *= tree_correction[proto][ls];
    /* The ring's plateau: Simple all-reduce across nodes once a channel's share per rank is
     * 64 bytes or more. */
    if (algo == WEFT_COLL_RING && proto == WEFT_NCCL_SIMPLE && t->comm.n_nodes > 1 &&
        op == WEFT_COLL_ALL_REDUCE &&
        bytes / ((guint64) t->comm.comm_channels * t->comm.n_ranks) >= 64)
        lat *= 1.4;
    return lat + (double) bytes / (1000.0 * bw);
}

gboolean
weft_nccl_tune_pick (const WeftNcclTune *t, WeftCollOp op, guint64 bytes, WeftCollAlgo *algo,
                     WeftNcclProto *proto)
{
    g_return_val_if_fail (t != NULL && algo != NULL && proto != NULL, FALSE);
    if (!tuned_op (op)) {
        *algo = WEFT_COLL_RING;
        *proto = WEFT_NCCL_SIMPLE;
        return TRUE;
    }
    static const WeftCollAlgo order[] = { WEFT_COLL_TREE, WEFT_COLL_RING, WEFT_COLL_COLLNET_DIRECT,
                                          WEFT_COLL_NVLS, WEFT_COLL_NVLS_TREE };
    double best = -1;
    for (guint i = 0; i < G_N_ELEMENTS (order); i++) {
        for (guint p = 0; p < WEFT_NCCL_N_PROTOS; p++) {
            double tm = weft_nccl_tune_time_us (t, op, bytes, order[i], p);
            if (tm >= 0 && (best < 0 || tm < best)) {
                best = tm;
                *algo = order[i];
                *proto = p;
            }
        }
    }
    return best >= 0;
}

/* ---- execution --------------------------------------------------------------------------------
 */

static guint
threads (const WeftNcclTune *t, WeftCollAlgo algo, WeftNcclProto proto)
{
    if (proto == WEFT_NCCL_SIMPLE && algo == WEFT_COLL_RING &&
        t->comm.ring_bw_gbs * t->comm.ring_channels <= PCI_BW_GBS)
        return 256;
    return max_threads[proto];
}

guint
weft_nccl_tune_channels (const WeftNcclTune *t, WeftCollAlgo algo, WeftNcclProto proto,
                         guint64 bytes, guint max_channels)
{
    g_return_val_if_fail (t != NULL && (guint) proto < WEFT_NCCL_N_PROTOS, 1);
    guint64 per_thread = thread_threshold[proto];
    if (algo == WEFT_COLL_RING && proto == WEFT_NCCL_LL)
        per_thread *= t->comm.n_ranks;
    guint64 nt = threads (t, algo, proto);
    guint nc = MAX (max_channels, 1);
    while (nc >= 2 && bytes < nc * nt * per_thread)
        nc--;
    return nc;
}

static weft_time_t
us_to_ps (double us)
{
    return (weft_time_t) llround (us * 1e6);
}

void
weft_nccl_tune_exec (const WeftNcclTune *t, WeftCollAlgo algo, WeftNcclProto proto, guint64 bytes,
                     guint channels, WeftNcclExec *e)
{
    g_return_if_fail (t != NULL && e != NULL && (guint) proto < WEFT_NCCL_N_PROTOS);
    g_return_if_fail ((guint) algo < WEFT_COLL_N_ALGOS);
    const WeftNcclComm *c = &t->comm;
    static const guint32 step_data[WEFT_NCCL_N_PROTOS] = {
        LL_STEP_BYTES / 2,
        LL128_STEP_BYTES / 128 * 120,
        SIMPLE_STEP_BYTES,
    };
    guint64 chunk = step_data[proto];
    if (algo == WEFT_COLL_TREE && proto == WEFT_NCCL_LL128) {
        /* Smaller chunks for a tree that would otherwise have too few in flight per channel
         * (computeCollChunkInfo): the depth it allows for is 1 + log2(nodes) + ppn / 10. */
        double ppn = (double) c->n_ranks / c->n_nodes;
        double depth = 1 + log2i (c->n_nodes) + 0.1 * ppn;
        guint64 nc = MAX (channels, 1);
        while ((double) (bytes / (nc * chunk)) < depth * 64 / ppn && chunk > 131072)
            chunk /= 2;
        while ((double) (bytes / (nc * chunk)) < depth * 16 / ppn && chunk > 32768)
            chunk /= 2;
    }
    if (algo == WEFT_COLL_NVLS_TREE) {
        /* Simple's step, at most 64 KiB from 4 nodes on, cut down while the size gives every
         * head of every channel too few chunks (computeCollChunkInfo).  NCCL's latency is the
         * NVLS part once plus one network latency per tree level each way: the base and the
         * network steps here, the switch's reduction again no step a GPU waits on. */
        guint64 ops = (guint64) MAX (channels, 1) * MAX (c->nvls_tree_channels, 1);
        if (c->n_nodes >= 4)
            chunk = MIN (chunk, 65536);
        if (bytes < 32 * ops * chunk && chunk > 262144)
            chunk = 262144;
        if (bytes < 16 * ops * chunk && chunk > 131072)
            chunk = 131072;
        if (bytes < 4 * ops * chunk && chunk > 65536)
            chunk = 65536;
        if (bytes < ops * chunk && chunk > 32768)
            chunk = 32768;
        int intra = c->nvlink ? HW_NVLINK : HW_PCI;
        *e = (WeftNcclExec){ .chunk_bytes = chunk,
                             .line_bytes = line_bytes[proto],
                             .line_data = line_data[proto],
                             .net_step_ps = us_to_ps (hw_lat_us[HW_NET][algo][proto]),
                             .base_ps = us_to_ps (base_lat_us[algo][proto] +
                                                  hw_lat_us[intra][algo][proto]) };
        return;
    }
    if (algo == WEFT_COLL_NVLS || algo == WEFT_COLL_COLLNET_DIRECT) {
        /* Simple's chunk, cut down for sizes too small to keep every head's pipeline full
         * (computeCollChunkInfo); NCCL's whole latency once, nothing per step: the switch's
         * reduction is not a step a GPU waits on. */
        double ppn = (double) c->n_ranks / c->n_nodes;
        guint64 ops = (guint64) MAX (channels, 1) * (guint64) MAX (1.0, ppn);
        if (algo == WEFT_COLL_NVLS) {
            chunk = MIN (chunk, NVLS_MAX_CHUNK);
            if (bytes < 64 * ops * chunk && chunk > 65536)
                chunk = 65536;
            if (bytes < 8 * ops * chunk && chunk > 32768)
                chunk = 32768;
            if (bytes < 2 * ops * chunk && chunk > 16384)
                chunk = 16384;
        } else {
            guint64 depth = ppn > 1 ? 2 : 1; /* connect.cc: 1 without GPUs up or down */
            while (bytes / (ops * chunk) < depth * 64 && chunk > 131072)
                chunk /= 2;
            while (bytes / (ops * chunk) < depth * 8 && chunk > 65536)
                chunk /= 2;
            while (bytes / (ops * chunk) < depth * 8 && chunk > 32768)
                chunk /= 2;
        }
        *e = (WeftNcclExec){ .chunk_bytes = chunk,
                             .line_bytes = line_bytes[proto],
                             .line_data = line_data[proto],
                             .base_ps = us_to_ps (t->lat_us[WEFT_COLL_ALL_REDUCE][algo][proto]) };
        return;
    }
    int intra = c->nvlink ? HW_NVLINK : HW_PCI;
    double intra_us = hw_lat_us[intra][algo][proto];
    if (algo == WEFT_COLL_RING && c->n_nodes > 1)
        intra_us = MAX (intra_us, NET_OVERHEAD_US * (proto == WEFT_NCCL_SIMPLE ? 3 : 1));
    *e = (WeftNcclExec){
        .chunk_bytes = chunk,
        .line_bytes = line_bytes[proto],
        .line_data = line_data[proto],
        .intra_step_ps = us_to_ps (intra_us),
        .net_step_ps = us_to_ps (hw_lat_us[HW_NET][algo][proto]),
        .base_ps = us_to_ps (base_lat_us[algo][proto]),
    };
}
