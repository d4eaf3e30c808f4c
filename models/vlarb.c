#include "config.h"
#define G_LOG_DOMAIN "weft-vlarb"
#include "models/vlarb.h"

void
weft_vlarb_init (WeftVlArb *a, const WeftIbConfig *cfg)
{
    *a = (WeftVlArb){ .cfg = cfg };
    a->hi_left = cfg->n_high ? cfg->high[0].weight : 0;
    a->lo_left = cfg->n_low ? cfg->low[0].weight : 0;
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

static gboolean
table_ready (const WeftIbArbEntry *t, guint n, guint32 eligible)
{
    for (guint i = 0; i < n; i++)
        if (t[i].weight && (eligible & (1u << t[i].vl)))
            return TRUE;
    return FALSE;
}

int
weft_vlarb_pick (WeftVlArb *a, guint32 eligible, gboolean *high)
{
    const WeftIbConfig *c = a->cfg;
    if (!eligible)
        return -1;
    gboolean hi_ready = table_ready (c->high, c->n_high, eligible);
    gboolean lo_ready = table_ready (c->low, c->n_low, eligible);
    gboolean hi_allowed = c->high_limit == 255 || !lo_ready ||
                          (c->high_limit == 0 ? a->hi_sent == 0
                                              : a->hi_sent < c->high_limit * 4096);
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
weft_vlarb_sent (WeftVlArb *a, gboolean high, guint32 bytes)
{
    const WeftIbConfig *c = a->cfg;
    gint64 units = (bytes + 63) / 64;
    if (high) {
        a->hi_sent += bytes;
        if ((a->hi_left -= units) <= 0 && c->n_high) {
            a->hi_idx = (a->hi_idx + 1) % c->n_high;
            a->hi_left = c->high[a->hi_idx].weight;
        }
    } else {
        a->hi_sent = 0;
        if ((a->lo_left -= units) <= 0 && c->n_low) {
            a->lo_idx = (a->lo_idx + 1) % c->n_low;
            a->lo_left = c->low[a->lo_idx].weight;
        }
    }
}
