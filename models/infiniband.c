#include "config.h"
#define G_LOG_DOMAIN "weft-infiniband"
#include "models/infiniband.h"

#include "models/registry.h"
#include "models/switch.h"
#include "models/vlarb.h"

#include "sim/records.h"
#include "sim/units.h"

#include <stdlib.h>
#include <string.h>

const WeftParamSpec weft_infiniband_params[] = {
    WEFT_PARAM_UINT ("vls", WeftIbConfig, vls, "1", "1", "15",
                     "data virtual lanes per port (VL15, management, is not modelled)"),
    WEFT_PARAM_BYTES ("credit_unit", WeftIbConfig, credit_unit, "64B", "1B", "4KiB",
                      "bytes per flow-control credit (IBA: 64; newer firmware negotiates it)"),
    WEFT_PARAM_BYTES ("buffer", WeftIbConfig, buffer, "64KiB", "1B", "1GiB",
                      "receive buffer per VL at each switch input port, advertised as credits"),
    WEFT_PARAM_BYTES ("hca_buffer", WeftIbConfig, hca_buffer, "64KiB", "1B", "1GiB",
                      "receive buffer per VL at a host channel adapter"),
    WEFT_PARAM_BYTES ("internal_buffer", WeftIbConfig, internal_buffer, "1MiB", "1B", "1GiB",
                      "receive buffer per VL on NVLink and PCIe ports inside a server (credits "
                      "there too; the default covers NVLink's rate x round trip)"),
    WEFT_PARAM_BYTES ("shared_buffer", WeftIbConfig, shared_buffer, "0B", "0B", "16GiB",
                      "optional pool per fabric switch, lent one packet at a time to an input "
                      "VL that is about to run out of `buffer` and taken back as it drains; "
                      "0: private buffers only"),
    WEFT_PARAM_BYTES ("header", WeftIbConfig, header, "26B", "0B", "1KiB",
                      "wire bytes around each payload: LRH 8 + BTH 12 + ICRC 4 + VCRC 2"),
    WEFT_PARAM_BYTES ("ack", WeftIbConfig, ack_bytes, "30B", "1B", "1KiB",
                      "wire bytes of an ACK: LRH + BTH + AETH 4 + ICRC + VCRC"),
    WEFT_PARAM_BYTES ("fc_packet", WeftIbConfig, fc_bytes, "6B", "1B", "64B",
                      "wire bytes of a flow-control (credit) packet: 4 + LPCRC 2"),
    WEFT_PARAM_LIST ("sl2vl", WeftIbConfig, sl2vl_text, "",
                     "VL of each service level 0..15, ';'-separated (fewer entries: the rest "
                     "follow SL mod vls); default SL mod vls"),
    WEFT_PARAM_STRING ("sl2vl_file", WeftIbConfig, sl2vl_file, "",
                       "per-port SL-to-VL tables: lines 'NODE PORT VL0;VL1;...' (PORT from 1, "
                       "or * for every port), overriding sl2vl; relative to the experiment file"),
    WEFT_PARAM_BOOL ("sharp", WeftIbConfig, sharp, "false",
                     "SHARP (Scalable Hierarchical Aggregation and Reduction Protocol): the "
                     "fabric switches reduce collectives' data in the network, NCCL's "
                     "CollNetDirect (algo = collnetdirect; doc/collectives.md)"),
    WEFT_PARAM_END,
};

static gboolean
parse_uint (const char *s, guint64 max, guint64 *out)
{
    char *end;
    if (!g_ascii_isdigit (*s))
        return FALSE;
    guint64 v = g_ascii_strtoull (s, &end, 10);
    if (*end || v > max)
        return FALSE;
    *out = v;
    return TRUE;
}

static gboolean
parse_table (WeftIbConfig *ib, char **text, WeftIbArbEntry *table, guint *n, const char *key,
             const WeftExperiment *exp, GError **error)
{
    *n = 0;
    for (guint i = 0; text && text[i]; i++) {
        g_autofree char *item = g_strstrip (g_strdup (text[i]));
        if (!*item)
            continue;
        char *colon = strchr (item, ':');
        guint64 vl, w;
        if (!colon || (*colon = '\0', !parse_uint (item, ib->vls - 1, &vl)) ||
            !parse_uint (colon + 1, 255, &w))
            return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_VALUE, "infiniband", key,
                                         "'%s' is not VL:WEIGHT with VL 0..%u and WEIGHT 0..255",
                                         text[i], (guint) ib->vls - 1);
        if (*n == WEFT_IB_ARB_ENTRIES)
            return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_RANGE, "infiniband", key,
                                         "more than %d entries", WEFT_IB_ARB_ENTRIES);
        table[(*n)++] = (WeftIbArbEntry){ (guint8) vl, (guint8) w };
    }
    return TRUE;
}

static gboolean load_sl2vl_file (WeftIbConfig *ib, const WeftExperiment *exp, GError **error);

gboolean
weft_ib_config_read (WeftIbConfig *ib, guint64 mtu, const WeftExperiment *exp, GError **error)
{
    /* VL arbitration's keys are [infiniband]'s too (models/vlarb.c); its tables are parsed
     * here, since the SL-to-VL tables must name VLs they serve. */
    WeftParamBinding b[] = { { weft_infiniband_params, ib }, { weft_vlarb_params, ib } };
    if (!weft_params_read (exp, "infiniband", b, G_N_ELEMENTS (b), error))
        return FALSE;
    guint32 max_pkt = weft_ib_credits (ib, (guint32) (mtu + ib->header));
    ib->buffer_credits = (guint32) MIN (ib->buffer / ib->credit_unit, G_MAXUINT32 / 2);
    ib->hca_credits = (guint32) MIN (ib->hca_buffer / ib->credit_unit, G_MAXUINT32 / 2);
    ib->internal_credits = (guint32) MIN (ib->internal_buffer / ib->credit_unit, G_MAXUINT32 / 2);
    ib->shared_credits = (guint32) MIN (ib->shared_buffer / ib->credit_unit, G_MAXUINT32 / 2);
    ib->max_packet_credits = max_pkt;
    if (ib->internal_credits < max_pkt)
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_RANGE, "infiniband",
                                     "internal_buffer",
                                     "holds %u credits, less than one %u-credit packet: expected "
                                     "at least %" G_GUINT64_FORMAT "B",
                                     ib->internal_credits, max_pkt, max_pkt * ib->credit_unit);
    if (ib->buffer_credits < max_pkt)
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_RANGE, "infiniband", "buffer",
                                     "holds %u credits, less than one %u-credit packet (mtu + "
                                     "header): expected at least %" G_GUINT64_FORMAT "B",
                                     ib->buffer_credits, max_pkt, max_pkt * ib->credit_unit);
    if (ib->hca_credits < max_pkt)
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_RANGE, "infiniband",
                                     "hca_buffer",
                                     "holds %u credits, less than one %u-credit packet: expected "
                                     "at least %" G_GUINT64_FORMAT "B",
                                     ib->hca_credits, max_pkt, max_pkt * ib->credit_unit);
    guint n_sl = ib->sl2vl_text ? g_strv_length (ib->sl2vl_text) : 0;
    for (guint sl = 0; sl < WEFT_IB_SLS; sl++) {
        guint64 vl = sl % ib->vls;
        if (sl < n_sl) {
            g_autofree char *item = g_strstrip (g_strdup (ib->sl2vl_text[sl]));
            if (!parse_uint (item, ib->vls - 1, &vl))
                return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_VALUE, "infiniband",
                                             "sl2vl", "entry %u '%s' is not a VL 0..%u", sl,
                                             ib->sl2vl_text[sl], (guint) ib->vls - 1);
        }
        ib->sl2vl[sl] = (guint8) vl;
    }
    if (n_sl > WEFT_IB_SLS)
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_RANGE, "infiniband", "sl2vl",
                                     "%u entries: expected at most 16 (SL 0..15)", n_sl);
    if (!parse_table (ib, ib->arb_high_text, ib->high, &ib->n_high, "vlarb_high", exp, error) ||
        !parse_table (ib, ib->arb_low_text, ib->low, &ib->n_low, "vlarb_low", exp, error))
        return FALSE;
    if (ib->n_low == 0 && ib->n_high == 0)
        for (guint v = 0; v < ib->vls; v++)
            ib->low[ib->n_low++] = (WeftIbArbEntry){ (guint8) v, 64 };
    if (ib->sl2vl_file && *ib->sl2vl_file && !load_sl2vl_file (ib, exp, error))
        return FALSE;
    /* Every VL a service level maps to must be served by some table entry, or it would wait
     * forever: refuse the configuration rather than hang. */
    for (guint sl = 0; sl < WEFT_IB_SLS; sl++) {
        gboolean served = FALSE;
        for (guint i = 0; i < ib->n_high; i++)
            served |= ib->high[i].vl == ib->sl2vl[sl] && ib->high[i].weight > 0;
        for (guint i = 0; i < ib->n_low; i++)
            served |= ib->low[i].vl == ib->sl2vl[sl] && ib->low[i].weight > 0;
        if (!served && sl < MAX (n_sl, 1))
            return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_VALUE, "infiniband",
                                         "vlarb_low",
                                         "VL %u (of SL %u) has no entry with a weight in "
                                         "vlarb_high or vlarb_low: its packets would never leave",
                                         ib->sl2vl[sl], sl);
    }
    return TRUE;
}

void
weft_ib_config_clear (WeftIbConfig *ib)
{
    if (ib->sl2vl_ports) {
        for (guint i = 0; i < ib->sl2vl_ports->len; i++)
            g_free (g_array_index (ib->sl2vl_ports, WeftIbSl2VlEntry, i).node);
        g_array_unref (ib->sl2vl_ports);
        ib->sl2vl_ports = NULL;
    }
    g_clear_pointer (&ib->sl2vl_path, g_free);
    weft_params_clear (weft_infiniband_params, ib);
    weft_params_clear (weft_vlarb_params, ib);
}

/* Every VL a table names must be served by the arbitration, or its packets never leave. */
static gboolean
served (const WeftIbConfig *ib, guint vl)
{
    for (guint i = 0; i < ib->n_high; i++)
        if (ib->high[i].vl == vl && ib->high[i].weight > 0)
            return TRUE;
    for (guint i = 0; i < ib->n_low; i++)
        if (ib->low[i].vl == vl && ib->low[i].weight > 0)
            return TRUE;
    return FALSE;
}

static gboolean
sl2vl_line (char **f, guint n, guint line, void *data, GError **error)
{
    WeftIbConfig *ib = data;
#define FAIL(...)                                                                                  \
    weft_records_fail (error, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_VALUE, ib->sl2vl_path, line,    \
                       __VA_ARGS__)
    if (n != 3)
        return FAIL ("expected 'NODE PORT VL0;VL1;...'");
    WeftIbSl2VlEntry e = { .line = line };
    guint64 port = 0;
    if (strcmp (f[1], "*") != 0 && (!parse_uint (f[1], 65535, &port) || port == 0))
        return FAIL ("port '%s': expected a port number from 1, or *", f[1]);
    g_auto (GStrv) vls = g_strsplit_set (f[2], ";,", -1);
    guint k = 0;
    for (; vls[k]; k++) {
        guint64 vl;
        if (k >= WEFT_IB_SLS || !parse_uint (vls[k], ib->vls - 1, &vl) || !served (ib, (guint) vl))
            return FAIL ("'%s': expected at most 16 VLs below [infiniband] vls, each with a "
                         "weight in the VL arbitration tables",
                         f[2]);
        e.sl2vl[k] = (guint8) vl;
    }
#undef FAIL
    for (; k < WEFT_IB_SLS; k++)
        e.sl2vl[k] = ib->sl2vl[k];
    e.node = g_strdup (f[0]);
    e.port = (guint32) port;
    g_array_append_val (ib->sl2vl_ports, e);
    return TRUE;
}

static gboolean
load_sl2vl_file (WeftIbConfig *ib, const WeftExperiment *exp, GError **error)
{
    g_autofree char *dir = weft_experiment_dir_for (exp, "infiniband", "sl2vl_file");
    ib->sl2vl_path = g_path_is_absolute (ib->sl2vl_file)
                         ? g_strdup (ib->sl2vl_file)
                         : g_build_filename (dir, ib->sl2vl_file, NULL);
    ib->sl2vl_ports = g_array_new (FALSE, TRUE, sizeof (WeftIbSl2VlEntry));
    GError *local = NULL;
    if (weft_records_read (ib->sl2vl_path, sl2vl_line, ib, &local))
        return TRUE;
    if (local->domain == G_FILE_ERROR)
        weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_FILE, "infiniband", "sl2vl_file", "%s",
                              local->message);
    else
        g_propagate_error (error, g_error_copy (local));
    g_error_free (local);
    return FALSE;
}

/* ---- the mechanism (models/registry.h) ------------------------------------------------- */

/* IBA's MTUs (OpenSM ib_types.h, IB_MTU_LEN_256 to IB_MTU_LEN_4096): a link negotiates one of
 * these, nothing in between. */
static gboolean
infiniband_configure (WeftMechEnv *env, const WeftExperiment *exp, GError **error)
{
    WeftFabric *fab = env->fabric;
    guint64 m = fab->mtu;
    if (m != 256 && m != 512 && m != 1024 && m != 2048 && m != 4096)
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_RANGE, "fabric", "mtu",
                                     "%" G_GUINT64_FORMAT "B is not an InfiniBand MTU: expected "
                                     "256B, 512B, 1024B, 2048B or 4096B",
                                     m);
    if (!weft_ib_config_read (&fab->ib, fab->mtu, exp, error))
        return FALSE;
    fab->header = fab->ib.header;
    fab->ack_bytes = fab->ib.ack_bytes;
    return TRUE;
}

/* The buffer a port advertises: NVLink and PCIe ports inside a server, a fabric switch's
 * input, or a host's or server NIC's fabric port. */
static guint32
buffer_credits (const WeftMechEnv *env, const WeftModel *m, guint32 link_id)
{
    const WeftIbConfig *ib = &env->fabric->ib;
    if (weft_graph_link (env->graph, link_id)->kind != WEFT_LINK_FABRIC)
        return ib->internal_credits;
    if (m->klass == &weft_switch_class && !((const WeftSwitch *) m)->internal)
        return ib->buffer_credits;
    return ib->hca_credits;
}

/* [infiniband] sl2vl_file: per-port SL-to-VL tables. */
static gboolean
apply_sl2vl_file (WeftMechEnv *env, GError **error)
{
    const WeftIbConfig *ib = &env->fabric->ib;
    for (guint i = 0; ib->sl2vl_ports && i < ib->sl2vl_ports->len; i++) {
        const WeftIbSl2VlEntry *e = &g_array_index (ib->sl2vl_ports, WeftIbSl2VlEntry, i);
        guint32 node = weft_graph_lookup (env->graph, e->node);
        WeftModel *m = node == WEFT_GRAPH_NONE ? NULL : env->node_model[node];
        if (!m) {
            g_set_error (error, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_NODE,
                         "%s:%u: no node named '%s'", ib->sl2vl_path, e->line, e->node);
            return FALSE;
        }
        const GArray *ports = weft_graph_node (env->graph, node)->ports;
        guint set = 0;
        for (guint32 p = 0; p < ports->len; p++) {
            if ((e->port && p + 1 != e->port) ||
                g_array_index (ports, guint32, p) == WEFT_GRAPH_NONE)
                continue;
            memcpy (weft_model_port (m, p)->ib->sl2vl, e->sl2vl, sizeof e->sl2vl);
            set++;
        }
        if (set == 0) {
            g_set_error (error, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_VALUE,
                         "%s:%u: %s has no connected port %u", ib->sl2vl_path, e->line, e->node,
                         e->port);
            return FALSE;
        }
    }
    return TRUE;
}

/* Every port advertises its own buffer and may spend its peer's; switches free input credits
 * as packets leave. */
static gboolean
infiniband_setup (WeftMechEnv *env, const WeftExperiment *exp, GError **error)
{
    for (guint i = 0; i < env->ports->len; i++) {
        WeftPort *p = env->ports->pdata[i];
        p->ib = weft_ib_port_new (&p->owner->sim->arena, &env->fabric->ib,
                                  buffer_credits (env, p->link.peer, p->link.link_id),
                                  buffer_credits (env, p->owner, p->link.link_id));
    }
    weft_ports_pair_credits (env->ports);
    for (guint i = 0; i < env->switches->len; i++)
        weft_switch_enable_credits (env->switches->pdata[i]);
    return apply_sl2vl_file (env, error);
}

/* Buffers are per input port and VL here: [switch]'s Ethernet buffer keys would be ignored. */
static gboolean
infiniband_check (const WeftMechEnv *env, const WeftExperiment *exp, GError **error)
{
    if (g_key_file_has_key (weft_experiment_keyfile (exp), "switch", "buffer", NULL))
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_UNKNOWN_KEY, "switch", "buffer",
                                     "not used on InfiniBand, whose buffers are per input port "
                                     "and VL: set [infiniband] buffer");
    const WeftSwitch *sw = weft_switch_first_fabric (env->switches);
    return !sw || weft_buffer_check_keys (&sw->buffer_cfg, exp, TRUE, error);
}

/* /ports: time with data to send and no credits (a stall still open counts to now). */
static guint64
xmit_wait (const WeftMechEnv *env, const WeftPort *p)
{
    return p->ib->xmit_wait_ps + (p->ib->stalled ? env->sim->now - p->ib->stall_since : 0);
}

static void
infiniband_port_row (const WeftMechEnv *env, const WeftPort *p, WeftTracePort *row)
{
    g_strlcpy (row->link_layer, "InfiniBand", sizeof row->link_layer);
    row->xmit_wait_ps = xmit_wait (env, p);
    row->lossless_drops = p->ib->lossless_drops;
}

static void
infiniband_count (const WeftMechEnv *env, WeftNetworkStats *st)
{
    for (guint i = 0; i < env->ports->len; i++)
        st->xmit_wait_ps += xmit_wait (env, env->ports->pdata[i]);
    for (guint i = 0; i < env->switches->len; i++)
        st->lossless_drops += ((const WeftSwitch *) env->switches->pdata[i])->lossless_drops;
    for (guint i = 0; i < env->nics->len; i++)
        st->lossless_drops += ((const WeftNic *) env->nics->pdata[i])->lossless_drops;
}

static void
credits_line (const WeftNetworkStats *st, GString *out)
{
    g_autofree char *wait = weft_units_format_human_time (st->xmit_wait_ps);
    g_string_append_printf (out,
                            "  credits      PortXmitWait %s summed over ports; lossless drops "
                            "%" G_GUINT64_FORMAT "%s\n",
                            wait, st->lossless_drops,
                            st->lossless_drops ? " (A BUG: please report it)" : "");
}

static void
infiniband_summary (const WeftMechEnv *env, const WeftNetworkStats *st, GString *out)
{
    credits_line (st, out);
}

/* From /ports: the same sums the run summary prints. */
static void
infiniband_report (const WeftFabric *fabric, const WeftTraceTables *t, GString *out)
{
    if (!t->ports)
        return;
    WeftNetworkStats st = { 0 };
    for (guint i = 0; i < t->ports->len; i++) {
        const WeftTracePort *p = &g_array_index (t->ports, WeftTracePort, i);
        st.xmit_wait_ps += p->xmit_wait_ps;
        st.lossless_drops += p->lossless_drops;
    }
    credits_line (&st, out);
}

static void
infiniband_clear (WeftMechEnv *env)
{
    weft_ib_config_clear (&env->fabric->ib);
}

const WeftMechanism weft_infiniband_mechanism = {
    .name = "infiniband",
    .group = "infiniband",
    .help = "InfiniBand link layer: VLs, credits, buffers, SL-to-VL tables",
    .params = weft_infiniband_params,
    .fabrics = WEFT_FABRIC_BIT (WEFT_FABRIC_INFINIBAND),
    .configure = infiniband_configure,
    .setup = infiniband_setup,
    .check = infiniband_check,
    .port_row = infiniband_port_row,
    .count = infiniband_count,
    .summary = infiniband_summary,
    .report = infiniband_report,
    .clear = infiniband_clear,
};
