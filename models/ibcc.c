#include "config.h"
#define G_LOG_DOMAIN "weft-ibcc"
#include "models/ibcc.h"

#include "models/registry.h"
#include "models/switch.h"

#include <math.h>
#include <string.h>

const WeftParamSpec weft_ibcc_params[] = {
    WEFT_PARAM_BOOL ("enabled", WeftIbcc, enabled, "false",
                     "InfiniBand congestion control (FECN at switches, BECN from receivers, "
                     "CCT pacing at sources); off by default, as on real fabrics"),
    WEFT_PARAM_BYTES ("threshold", WeftIbcc, threshold, "0B", "0B", "1GiB",
                      "bytes queued for a VL at a switch output above which its data packets "
                      "are eligible for FECN (IBA's 4-bit threshold, 0x1 loose to 0xF "
                      "aggressive, as a depth); 0: 4 packets of mtu + header"),
    WEFT_PARAM_UINT ("marking_rate", WeftIbcc, marking_rate, "0", "0", "65535",
                     "eligible packets left unmarked between two FECN marks (OpenSM "
                     "cc_sw_cong_setting_marking_rate): one of every marking_rate + 1 is marked"),
    WEFT_PARAM_BYTES ("packet_size", WeftIbcc, packet_size, "0B", "0B", "16KiB",
                      "data packets smaller than this are never marked (OpenSM "
                      "cc_sw_cong_setting_packet_size, in credits there)"),
    WEFT_PARAM_BOOL ("victim_marking", WeftIbcc, victim_marking, "false",
                     "also mark at outputs out of credits for the VL (victims of congestion "
                     "further on; OpenSM cc_sw_cong_setting_victim_mask, per port there)"),
    WEFT_PARAM_UINT ("ccti_increase", WeftIbcc, ccti_increase, "1", "1", "255",
                     "CCT index increase on each BECN (cc_ca_cong_setting_ccti_increase)"),
    WEFT_PARAM_TIME ("ccti_timer", WeftIbcc, ccti_timer, "10us", "1ns", "1s",
                     "the CCT index drops by one each period while above ccti_min "
                     "(cc_ca_cong_setting_ccti_timer, in 1.024 us units there)"),
    WEFT_PARAM_UINT ("ccti_min", WeftIbcc, ccti_min, "0", "0", "16383",
                     "lowest CCT index: imposes a minimum inter-packet delay "
                     "(cc_ca_cong_setting_ccti_min)"),
    WEFT_PARAM_LIST ("cct", WeftIbcc, cct_text, "",
                     "congestion control table, SHIFT:MULTIPLIER entries (shift 0-3, "
                     "multiplier 0-16383; OpenSM cc_cct), entry i delaying (multiplier << "
                     "shift) x cct_unit; default 128 entries: 0, then 8 units more per entry up "
                     "to entry 63 (504 units), then 7 % more per entry (about 38k units at 127)"),
    WEFT_PARAM_TIME ("cct_unit", WeftIbcc, cct_unit, "1024ps", "1ps", "1us",
                     "time unit of a CCT entry (verify against IBA Annex A10; the default table "
                     "suits 400 Gb/s, where a 4 KiB packet takes about 82 ns)"),
    WEFT_PARAM_END,
};

#define DEFAULT_CCT 128
#define LINEAR_END 63
#define LINEAR_STEP 8
#define GEOMETRIC 1.07
#define MAX_MULTIPLIER 16383u
#define MAX_SHIFT 3u

static gboolean
parse_entry (const char *s, guint64 *shift, guint64 *mult)
{
    char *end;
    if (!g_ascii_isdigit (*s))
        return FALSE;
    *shift = g_ascii_strtoull (s, &end, 10);
    if (*end != ':' || !g_ascii_isdigit (end[1]) || *shift > MAX_SHIFT)
        return FALSE;
    *mult = g_ascii_strtoull (end + 1, &end, 10);
    return *end == '\0' && *mult <= MAX_MULTIPLIER;
}

/* The default table in units: 0, linear steps to entry 63, then geometric; each value is
 * rounded to what a shift:multiplier entry can hold (multiplier < 2^14, shift <= 3). */
static guint64
default_units (guint i)
{
    double u = i <= LINEAR_END ? (double) i * LINEAR_STEP
                               : LINEAR_END * LINEAR_STEP * pow (GEOMETRIC, i - LINEAR_END);
    guint64 m = (guint64) llround (u);
    guint shift = 0;
    while (m > MAX_MULTIPLIER && shift < MAX_SHIFT) {
        m >>= 1;
        shift++;
    }
    return MIN (m, MAX_MULTIPLIER) << shift;
}

gboolean
weft_ibcc_read (WeftIbcc *cc, guint64 mtu, guint64 header, const WeftExperiment *exp,
                GError **error)
{
    WeftParamBinding b = { weft_ibcc_params, cc };
    if (!weft_params_read (exp, "ibcc", &b, 1, error))
        return FALSE;
    cc->threshold_bytes = cc->threshold ? cc->threshold : 4 * (mtu + header);
    guint n = 0;
    for (guint i = 0; cc->cct_text && cc->cct_text[i]; i++)
        n += *g_strstrip (cc->cct_text[i]) != '\0';
    if (n > WEFT_IBCC_MAX_CCT)
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_RANGE, "ibcc", "cct",
                                     "%u entries: expected at most %d", n, WEFT_IBCC_MAX_CCT);
    cc->n_cct = n ? n : DEFAULT_CCT;
    cc->cct_ps = g_new0 (weft_time_t, cc->n_cct);
    if (n == 0) {
        for (guint i = 0; i < DEFAULT_CCT; i++)
            cc->cct_ps[i] = default_units (i) * cc->cct_unit;
    } else {
        guint k = 0;
        for (guint i = 0; cc->cct_text[i]; i++) {
            const char *item = cc->cct_text[i];
            if (!*item)
                continue;
            guint64 shift, mult;
            if (!parse_entry (item, &shift, &mult))
                return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_VALUE, "ibcc", "cct",
                                             "'%s' is not SHIFT:MULTIPLIER with SHIFT 0..3 and "
                                             "MULTIPLIER 0..16383",
                                             item);
            cc->cct_ps[k++] = (mult << shift) * cc->cct_unit;
        }
    }
    if (cc->ccti_min >= cc->n_cct)
        return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_RANGE, "ibcc", "ccti_min",
                                     "%" G_GUINT64_FORMAT " is past the table's last entry %u",
                                     cc->ccti_min, cc->n_cct - 1);
    return TRUE;
}

void
weft_ibcc_clear (WeftIbcc *cc)
{
    weft_params_clear (weft_ibcc_params, cc);
    g_clear_pointer (&cc->cct_ps, g_free);
    cc->n_cct = 0;
}

gboolean
weft_ibcc_mark (const WeftIbcc *cc, WeftIbccMarker *m, guint64 queued, gboolean has_credits,
                WeftPacket *pkt)
{
    if (pkt->kind != WEFT_PKT_DATA || queued <= cc->threshold_bytes ||
        pkt->size < cc->packet_size || (!has_credits && !cc->victim_marking))
        return FALSE;
    /* Deterministic spacing: marking_rate eligible packets pass, the next is marked. */
    m->eligible++;
    if (m->since[pkt->vl] < cc->marking_rate) {
        m->since[pkt->vl]++;
        return FALSE;
    }
    m->since[pkt->vl] = 0;
    m->marked++;
    pkt->fecn = 1;
    return TRUE;
}

gboolean
weft_ibcc_on_becn (const WeftIbcc *cc, WeftIbccFlow *s)
{
    s->becns++;
    s->ccti = (guint32) MIN ((guint64) s->ccti + cc->ccti_increase, cc->n_cct - 1);
    s->ccti_peak = MAX (s->ccti_peak, s->ccti);
    return !weft_timer_pending (&s->timer) && s->ccti > cc->ccti_min;
}

gboolean
weft_ibcc_on_timer (const WeftIbcc *cc, WeftIbccFlow *s)
{
    if (s->ccti > cc->ccti_min)
        s->ccti--;
    return s->ccti > cc->ccti_min;
}

/* ---- the mechanism (models/registry.h) ------------------------------------------------- */

/* After infiniband's configure: the threshold's default is four of its packets. */
static gboolean
ibcc_configure (WeftMechEnv *env, const WeftExperiment *exp, GError **error)
{
    return weft_ibcc_read (&env->fabric->ibcc, env->fabric->mtu, env->fabric->header, exp, error);
}

/* Only fabric switches mark: a server's internal NVSwitch, PCIe switches and NICs are not part
 * of the subnet's congestion control. */
static gboolean
ibcc_setup (WeftMechEnv *env, const WeftExperiment *exp, GError **error)
{
    for (guint i = 0; env->fabric->ibcc.enabled && i < env->switches->len; i++) {
        WeftSwitch *sw = env->switches->pdata[i];
        if (!sw->internal)
            sw->cc_markers = g_new0 (WeftIbccMarker, MAX (sw->n_ports, 1));
    }
    return TRUE;
}

static void
ibcc_count (const WeftMechEnv *env, WeftNetworkStats *st)
{
    for (guint i = 0; i < env->switches->len; i++)
        st->fecn_marked += ((const WeftSwitch *) env->switches->pdata[i])->fecn_marked;
    for (guint i = 0; i < env->tp->n_flows; i++) {
        const WeftFlow *f = &env->tp->flows[i];
        if (f->cc) {
            st->fecn_received += f->cc->fecn_received;
            st->becn_received += f->cc->becns;
            st->ccti_peak = MAX (st->ccti_peak, f->cc->ccti_peak);
        }
    }
}

static void
ibcc_summary (const WeftMechEnv *env, const WeftNetworkStats *st, GString *out)
{
    if (!env->fabric->ibcc.enabled) {
        g_string_append (out, "  ibcc         off\n");
        return;
    }
    g_string_append_printf (out,
                            "  ibcc         FECN %" G_GUINT64_FORMAT " marked, %" G_GUINT64_FORMAT
                            " received; BECN %" G_GUINT64_FORMAT " received; highest CCTI %u\n",
                            st->fecn_marked, st->fecn_received, st->becn_received, st->ccti_peak);
}

static void
ibcc_clear (WeftMechEnv *env)
{
    weft_ibcc_clear (&env->fabric->ibcc);
}

const WeftMechanism weft_ibcc_mechanism = {
    .name = "ibcc",
    .group = "ibcc",
    .help = "InfiniBand congestion control: FECN, BECN, CCT pacing (off by default)",
    .params = weft_ibcc_params,
    .fabrics = WEFT_FABRIC_BIT (WEFT_FABRIC_INFINIBAND),
    .configure = ibcc_configure,
    .setup = ibcc_setup,
    .count = ibcc_count,
    .summary = ibcc_summary,
    .clear = ibcc_clear,
};
