#include "config.h"
#define G_LOG_DOMAIN "weft-ib-credit"
#include "models/ib_credit.h"

#include <string.h>

WeftIbPort *
weft_ib_port_new (WeftArena *arena, const WeftIbConfig *cfg, guint32 limit, guint32 capacity)
{
    WeftIbPort *ib = weft_arena_alloc0 (arena, sizeof (WeftIbPort), _Alignof(WeftIbPort));
    ib->cfg = cfg;
    ib->limit = limit;
    ib->capacity = capacity;
    ib->return_next = G_MAXUINT64;
    memcpy (ib->sl2vl, cfg->sl2vl, sizeof ib->sl2vl);
    for (guint v = 0; v < WEFT_IB_MAX_VLS; v++)
        ib->vl[v].avail = limit;
    weft_vlarb_init (&ib->arb, cfg);
    return ib;
}

void
weft_ib_on_send (WeftIbPort *ib, WeftPacket *pkt)
{
    if (pkt->kind == WEFT_PKT_CREDIT) {
        /* Everything freed so far for this VL rides on this FCP. */
        pkt->seq = weft_ib_fcp_take (ib, pkt->vl);
        return;
    }
    guint32 c = weft_ib_pkt_credits (ib, pkt);
    g_assert (ib->vl[pkt->vl].avail >= c);
    ib->vl[pkt->vl].avail -= c;
}

gboolean
weft_ib_on_arrival (WeftIbPort *ib, WeftPacket *pkt)
{
    guint32 c = weft_ib_pkt_credits (ib, pkt);
    pkt->in_vl = pkt->vl; /* its buffer here is this VL's, whatever VL it leaves on */
    if (G_UNLIKELY (ib->vl[pkt->in_vl].used + c > ib->capacity + ib->vl[pkt->in_vl].granted)) {
        ib->lossless_drops++;
        return FALSE;
    }
    ib->vl[pkt->in_vl].used += c;
    return TRUE;
}

gboolean
weft_ib_release (WeftIbPort *ib, const WeftPacket *pkt)
{
    guint32 c = weft_ib_pkt_credits (ib, pkt);
    guint vl = pkt->in_vl;
    g_assert (ib->vl[vl].used >= c);
    ib->vl[vl].used -= c;
    guint32 back = 0;
    if (ib->vl[vl].granted > 0 && ib->vl[vl].used <= ib->capacity / 2) {
        /* Drained: the loan goes back to the pool instead of upstream. */
        back = MIN (c, ib->vl[vl].granted);
        ib->vl[vl].granted -= back;
        *ib->pool_free += back;
    }
    if (c == back)
        return FALSE;
    ib->vl[vl].pending += c - back;
    if (ib->fcp_queued & (1u << vl))
        return FALSE;
    ib->fcp_queued |= 1u << vl;
    return TRUE;
}

gboolean
weft_ib_grant (WeftIbPort *ib, guint vl)
{
    /* Lend when the VL's buffer is more than half full and one more packet would not fit. */
    if (!ib->pool_free || *ib->pool_free < ib->grant_unit || ib->vl[vl].used <= ib->capacity / 2 ||
        ib->vl[vl].used + ib->grant_unit <= ib->capacity + ib->vl[vl].granted)
        return FALSE;
    ib->vl[vl].granted += ib->grant_unit;
    *ib->pool_free -= ib->grant_unit;
    ib->loans++;
    ib->vl[vl].pending += ib->grant_unit;
    if (ib->fcp_queued & (1u << vl))
        return FALSE;
    ib->fcp_queued |= 1u << vl;
    return TRUE;
}

static inline void
add_credits (WeftIbPort *ib, guint vl, guint32 credits)
{
    ib->vl[vl].avail += credits;
    /* With a shared pool downstream the sender may hold more than the private limit. */
    g_assert (ib->vl[vl].avail <= ib->limit || ib->cfg->shared_credits > 0);
}

void
weft_ib_on_fcp (WeftIbPort *ib, const WeftPacket *fcp)
{
    add_credits (ib, fcp->vl, (guint32) fcp->seq);
}

void
weft_ib_return_grow (WeftIbPort *ib)
{
    /* Twice the records (from 8), the ring unwrapped into the new block's start. */
    guint32 cap = ib->returning ? 2 * (ib->ret_mask + 1) : 8;
    WeftIbReturn *ring = g_new (WeftIbReturn, cap);
    for (guint32 i = 0; i < ib->ret_len; i++)
        ring[i] = *weft_ib_return_at (ib, i);
    g_free (ib->returning);
    ib->returning = ring;
    ib->ret_head = 0;
    ib->ret_mask = cap - 1;
}

void
weft_ib_apply_due (WeftIbPort *ib, weft_time_t now, guint64 now_key)
{
    while (weft_ib_fcp_due (ib, now, now_key)) {
        const WeftIbReturn *r = &ib->returning[ib->ret_head];
        add_credits (ib, r->vl, r->credits);
        ib->ret_head = (ib->ret_head + 1) & ib->ret_mask;
        ib->return_next = --ib->ret_len ? ib->returning[ib->ret_head].arrive_at : G_MAXUINT64;
    }
}

void
weft_ib_port_clear (WeftIbPort *ib)
{
    g_clear_pointer (&ib->returning, g_free);
    ib->ret_head = ib->ret_len = ib->ret_mask = 0;
    ib->return_next = G_MAXUINT64;
}

void
weft_ib_stall_begin (WeftIbPort *ib, weft_time_t now)
{
    if (!ib->stalled) {
        ib->stalled = TRUE;
        ib->stall_since = now;
    }
}

void
weft_ib_stall_end (WeftIbPort *ib, weft_time_t now, weft_time_t sample_start)
{
    if (!ib->stalled)
        return;
    ib->stalled = FALSE;
    ib->xmit_wait_ps += now - ib->stall_since;
    ib->s_stall_ps += now - MAX (ib->stall_since, sample_start);
}

guint64
weft_ib_stall_sample (WeftIbPort *ib, weft_time_t now, weft_time_t start)
{
    guint64 s = ib->s_stall_ps;
    if (ib->stalled)
        s += now - MAX (ib->stall_since, start);
    ib->s_stall_ps = 0;
    return s;
}

WeftPacket *
weft_ib_fcp_new (WeftPacketPool *pool, const WeftIbPort *ib, guint vl)
{
    WeftPacket *fcp = weft_packet_alloc (pool);
    fcp->kind = WEFT_PKT_CREDIT;
    fcp->vl = (guint8) vl;
    fcp->size = (guint32) ib->cfg->fc_bytes;
    return fcp;
}
