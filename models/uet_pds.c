/* models/uet_pds.c - the RUD sender's bookkeeping (models/uet.h): which packets are
 * acknowledged, which are due again.  Pure state; the NIC (models/nic.c) runs the timers. */
#include "config.h"
#define G_LOG_DOMAIN "weft-uet"
#include "models/uet.h"

void
weft_uet_sender_init (const WeftUet *cfg, WeftUetFlow *uf, guint32 n_pkts)
{
    gsize bytes = ((gsize) n_pkts + 7) / 8;
    uf->rud = cfg->delivery == WEFT_UET_RUD;
    uf->acked = g_new0 (guint8, MAX (bytes, 1));
    uf->lost = g_new0 (guint8, MAX (bytes, 1));
    uf->ev_used = g_new0 (guint8, (cfg->ev_pool + 7) / 8);
    if (cfg->load_balance == WEFT_UET_LB_BITMAP)
        uf->ev_bad = g_new0 (guint8, (cfg->ev_pool + 7) / 8);
    if (cfg->load_balance == WEFT_UET_LB_REPS) {
        uf->reps = g_new0 (guint16, cfg->ev_pool);
        uf->sent_ev = g_new0 (guint16, MAX (n_pkts, 1));
        uf->ev_retired = g_new0 (guint8, (cfg->ev_pool + 7) / 8);
        uf->ev_seen = g_new0 (guint8, (cfg->ev_pool + 7) / 8);
        uf->ev_probe = g_new0 (guint8, (cfg->ev_pool + 7) / 8);
        uf->ev_alive = g_new0 (guint8, (cfg->ev_pool + 7) / 8);
        uf->ev_probed = g_new0 (guint8, (cfg->ev_pool + 7) / 8);
    }
}

guint64
weft_uet_next_lost (WeftUetFlow *uf, guint64 snd_nxt)
{
    while (uf->lost_n > 0) {
        guint64 s = uf->lost_lo;
        while (s < snd_nxt && !weft_uet_bit (uf->lost, s))
            s++;
        g_assert (s < snd_nxt);
        weft_uet_bit_clear (uf->lost, s);
        uf->lost_n--;
        uf->lost_lo = s + 1;
        if (!weft_uet_bit (uf->acked, s))
            return s;
    }
    return G_MAXUINT64;
}

gboolean
weft_uet_on_sack (WeftUetFlow *uf, guint64 seq)
{
    if (weft_uet_bit (uf->acked, seq))
        return FALSE;
    weft_uet_bit_set (uf->acked, seq);
    if (uf->inflight > 0)
        uf->inflight--;
    return TRUE;
}

static gboolean
mark_lost (WeftUetFlow *uf, guint64 seq)
{
    if (weft_uet_bit (uf->acked, seq) || weft_uet_bit (uf->lost, seq))
        return FALSE;
    weft_uet_bit_set (uf->lost, seq);
    uf->lost_n++;
    uf->lost_lo = MIN (uf->lost_lo, seq);
    return TRUE;
}

gboolean
weft_uet_on_nack (WeftUetFlow *uf, guint64 seq)
{
    if (!mark_lost (uf, seq))
        return FALSE;
    if (uf->inflight > 0)
        uf->inflight--;
    return TRUE;
}

void
weft_uet_on_timeout (WeftUetFlow *uf, guint64 snd_una, guint64 snd_nxt)
{
    for (guint64 s = snd_una; s < snd_nxt; s++)
        mark_lost (uf, s);
    uf->inflight = 0;
}

guint64
weft_uet_advance (const WeftUetFlow *uf, guint64 snd_una, guint64 n_pkts)
{
    while (snd_una < n_pkts && weft_uet_bit (uf->acked, snd_una))
        snd_una++;
    return snd_una;
}
