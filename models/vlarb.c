#include "config.h"
#define G_LOG_DOMAIN "weft-vlarb"
#include "models/vlarb.h"

#include "models/registry.h"

/* [infiniband]'s arbitration keys, into WeftIbConfig (parsed by weft_ib_config_read, which
 * reads them with the rest of the group: the SL-to-VL tables must name VLs these serve). */
const WeftParamSpec weft_vlarb_params[] = {
    WEFT_PARAM_LIST ("vlarb_high", WeftIbConfig, arb_high_text, "",
                     "high-priority VL arbitration table: VL:WEIGHT entries (weight 0-255 in "
                     "64-byte units); default empty"),
    WEFT_PARAM_LIST ("vlarb_low", WeftIbConfig, arb_low_text, "",
                     "low-priority table, same form; default every data VL with weight 64"),
    WEFT_PARAM_UINT ("vlarb_high_limit", WeftIbConfig, high_limit, "255", "0", "255",
                     "4 KiB units of high-priority data sent while low-priority data waits "
                     "(255: unlimited; 0: one packet)"),
    WEFT_PARAM_END,
};

const WeftMechanism weft_vlarb_mechanism = {
    .name = "vlarb",
    .group = "infiniband",
    .help = "InfiniBand VL arbitration at every output: high/low weighted tables and a "
            "high-priority limit",
    .params = weft_vlarb_params,
    .fabrics = WEFT_FABRIC_BIT (WEFT_FABRIC_INFINIBAND),
};

void
weft_vlarb_init (WeftVlArb *a, const WeftIbConfig *cfg)
{
    *a = (WeftVlArb){ .cfg = cfg };
    a->hi_left = cfg->n_high ? cfg->high[0].weight : 0;
    a->lo_left = cfg->n_low ? cfg->low[0].weight : 0;
    for (guint i = 0; i < cfg->n_high; i++)
        if (cfg->high[i].weight)
            a->hi_vls |= 1u << cfg->high[i].vl;
    for (guint i = 0; i < cfg->n_low; i++)
        if (cfg->low[i].weight)
            a->lo_vls |= 1u << cfg->low[i].vl;
}

/* From the current entry on, the first entry with weight whose VL is eligible; moves the
 * table's turn there (a fresh entry starts with its full weight). */
static int
scan (const WeftIbArbEntry *t, guint n, guint *idx, gint64 *left, guint32 eligible)
{
    for (guint k = 0; k < n; k++) {
        guint i = (*idx + k) % n;
        if (t[i].weight == 0 || !(eligible & (1u << t[i].vl)))
            continue;
        if (k > 0 || *left <= 0) {
            *idx = i;
            *left = t[i].weight;
        }
        return t[i].vl;
    }
    return -1;
}

int
weft_vlarb_pick_scan (WeftVlArb *a, guint32 eligible, gboolean *high)
{
    const WeftIbConfig *c = a->cfg;
    if (!eligible)
        return -1;
    /* Whether some entry with weight serves an eligible VL. */
    gboolean hi_ready = (a->hi_vls & eligible) != 0;
    gboolean lo_ready = (a->lo_vls & eligible) != 0;
    gboolean hi_allowed =
        c->high_limit == 255 || !lo_ready ||
        (c->high_limit == 0 ? a->hi_sent == 0 : a->hi_sent < c->high_limit * 4096);
    if (hi_ready && hi_allowed) {
        *high = TRUE;
        return scan (c->high, c->n_high, &a->hi_idx, &a->hi_left, eligible);
    }
    if (lo_ready) {
        *high = FALSE;
        return scan (c->low, c->n_low, &a->lo_idx, &a->lo_left, eligible);
    }
    return -1;
}

void
weft_vlarb_sent_high (WeftVlArb *a, guint32 bytes)
{
    const WeftIbConfig *c = a->cfg;
    gint64 units = (bytes + 63) / 64;
    a->hi_sent += bytes;
    if ((a->hi_left -= units) <= 0 && c->n_high) {
        a->hi_idx = (a->hi_idx + 1) % c->n_high;
        a->hi_left = c->high[a->hi_idx].weight;
    }
}
