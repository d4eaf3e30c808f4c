/* models/uet_pds.c - the RUD sender's bookkeeping (models/uet.h): which packets are
 * acknowledged, which are due again, which one's retransmission timer expires first.  Pure
 * state; the NIC (models/nic.c) runs the timer. */
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
    if (uf->rud && cfg->packet_timers)
        uf->sent_at = g_new0 (weft_time_t, MAX (n_pkts, 1));
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
    if (uf->sent_at && weft_uet_bit (uf->lost, seq)) {
        /* Taken for lost (its timer expired) but it arrived after all: not in flight, and no
         * longer due (weft_uet_next_lost finds the bits it counts). */
        weft_uet_bit_clear (uf->lost, seq);
        uf->lost_n--;
    } else if (uf->inflight > 0) {
        uf->inflight--;
    }
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

/* ---- per-packet retransmission timers -------------------------------------------------
 * Each transmission is appended to a ring in the order packets leave, so the ring is ordered
 * by send time, and with one RTO for the flow, by deadline: the oldest transmission still out
 * is the next to expire, and the flow needs one timer, for it.  A transmission is superseded
 * when its packet is acknowledged, known lost (trimmed, or its timer expired) or sent again
 * (sent_at moved on); superseded ones are dropped when they reach the head, so each costs O(1)
 * once.  The ring holds at most the transmissions of one RTO plus the packets still out. */

void
weft_uet_on_sent (WeftUetFlow *uf, guint64 seq, weft_time_t now)
{
    if (uf->tx_n == uf->tx_cap) {
        guint32 cap = MAX (uf->tx_cap * 2, 16);
        WeftUetSent *tx = g_new (WeftUetSent, cap);
        for (guint32 i = 0; i < uf->tx_n; i++)
            tx[i] = uf->tx[(uf->tx_head + i) % uf->tx_cap];
        g_free (uf->tx);
        uf->tx = tx;
        uf->tx_cap = cap;
        uf->tx_head = 0;
    }
    uf->tx[(uf->tx_head + uf->tx_n) % uf->tx_cap] = (WeftUetSent){ .seq = seq, .at = now };
    uf->tx_n++;
    uf->sent_at[seq] = now;
}

static inline gboolean
superseded (const WeftUetFlow *uf, const WeftUetSent *t)
{
    return weft_uet_bit (uf->acked, t->seq) || weft_uet_bit (uf->lost, t->seq) ||
           uf->sent_at[t->seq] != t->at;
}

static inline void
tx_pop (WeftUetFlow *uf)
{
    uf->tx_head = (uf->tx_head + 1) % uf->tx_cap;
    uf->tx_n--;
}

weft_time_t
weft_uet_oldest_out (WeftUetFlow *uf)
{
    while (uf->tx_n > 0) {
        const WeftUetSent *t = &uf->tx[uf->tx_head];
        if (!superseded (uf, t))
            return t->at;
        tx_pop (uf);
    }
    return WEFT_TIME_NEVER;
}

guint64
weft_uet_pop_expired (WeftUetFlow *uf, weft_time_t before)
{
    if (weft_uet_oldest_out (uf) > before)
        return G_MAXUINT64;
    guint64 seq = uf->tx[uf->tx_head].seq;
    tx_pop (uf);
    return seq;
}

void
weft_uet_on_packet_timeout (WeftUetFlow *uf, guint64 seq)
{
    if (mark_lost (uf, seq) && uf->inflight > 0)
        uf->inflight--;
}

guint64
weft_uet_advance (const WeftUetFlow *uf, guint64 snd_una, guint64 n_pkts)
{
    while (snd_una < n_pkts && weft_uet_bit (uf->acked, snd_una))
        snd_una++;
    return snd_una;
}
