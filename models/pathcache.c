#include "config.h"
#define G_LOG_DOMAIN "weft-pathcache"
#include "models/pathcache.h"

#include "sim/rng.h"

WeftPathCache *
weft_path_cache_new (guint n_flows)
{
    guint64 want = MAX ((guint64) n_flows * 4, 16);
    guint32 n = 16;
    while (n < want && n < WEFT_PATH_CACHE_SLOTS)
        n <<= 1;
    WeftPathCache *pc = g_new0 (WeftPathCache, 1);
    pc->slots = g_new0 (WeftPathEntry, n);
    pc->set_mask = n / WEFT_PATH_CACHE_WAYS - 1;
    return pc;
}

void
weft_path_cache_free (WeftPathCache *pc)
{
    if (pc == NULL)
        return;
    g_free (pc->slots);
    g_free (pc);
}

guint
weft_path_cache_slots (const WeftPathCache *pc)
{
    return pc ? (pc->set_mask + 1) * WEFT_PATH_CACHE_WAYS : 0;
}

gsize
weft_path_cache_bytes (const WeftPathCache *pc)
{
    return pc ? sizeof *pc + (gsize) weft_path_cache_slots (pc) * sizeof (WeftPathEntry) : 0;
}

/* The first slot of the key's set. */
static WeftPathEntry *
set_of (WeftPathCache *pc, guint32 from, guint32 to_ep, WeftPathMode mode)
{
    guint64 h = weft_mix64 (((guint64) from << 32 | to_ep) ^ (guint64) mode << 62);
    return &pc->slots[(h & pc->set_mask) * WEFT_PATH_CACHE_WAYS];
}

static gboolean
entry_is (const WeftPathEntry *e, guint64 gen, guint32 from, guint32 to_ep, WeftPathMode mode)
{
    return e->used && e->gen == gen && e->from == from && e->to_ep == to_ep &&
           e->mode == (guint8) mode;
}

WeftPathEntry *
weft_path_cache_find (WeftPathCache *pc, guint64 gen, guint32 from, guint32 to_ep,
                      WeftPathMode mode)
{
    WeftPathEntry *set = set_of (pc, from, to_ep, mode);
    for (guint w = 0; w < WEFT_PATH_CACHE_WAYS; w++)
        if (entry_is (&set[w], gen, from, to_ep, mode)) {
            set[w].stamp = ++pc->clock;
            return &set[w];
        }
    return NULL;
}

WeftPathEntry *
weft_path_cache_claim (WeftPathCache *pc, guint64 gen, guint32 from, guint32 to_ep,
                       WeftPathMode mode)
{
    WeftPathEntry *set = set_of (pc, from, to_ep, mode);
    WeftPathEntry *e = NULL;
    for (guint w = 0; w < WEFT_PATH_CACHE_WAYS && e == NULL; w++)
        if (!set[w].used || set[w].gen != gen)
            e = &set[w];
    /* The least recently used: the clock wraps after 2^32 uses, when the order is only
     * approximate for a while (an eviction choice, never an answer). */
    for (guint w = 0; w < WEFT_PATH_CACHE_WAYS && e == NULL; w++) {
        WeftPathEntry *lru = &set[0];
        for (guint v = 1; v < WEFT_PATH_CACHE_WAYS; v++)
            if ((gint32) (set[v].stamp - lru->stamp) < 0)
                lru = &set[v];
        e = lru;
    }
    e->gen = gen;
    e->from = from;
    e->to_ep = to_ep;
    e->stamp = ++pc->clock;
    e->used = 1;
    e->mode = (guint8) mode;
    e->by_hash = 0;
    e->n_hops = 0;
    e->sum_next = 0;
    e->sum[0].valid = e->sum[1].valid = FALSE;
    return e;
}
