#include "config.h"
#define G_LOG_DOMAIN "weft-packet"
#include "sim/packet.h"

#include "sim/arena.h"

/* a slab is one huge page (sim/arena.h): the packets in flight at k = 32 span ~60 MiB */
#define SLAB_PACKETS (WEFT_HUGE_PAGE / sizeof (WeftPacket))

static void
slab_free (gpointer slab)
{
    weft_huge_free (slab, WEFT_HUGE_PAGE);
}

void
weft_packet_pool_init (WeftPacketPool *pool)
{
    *pool = (WeftPacketPool){ 0 };
    pool->slabs = g_ptr_array_new_with_free_func (slab_free);
}

void
weft_packet_pool_clear (WeftPacketPool *pool)
{
    g_clear_pointer (&pool->slabs, g_ptr_array_unref);
    pool->free_list = NULL;
    pool->live = pool->total = 0;
}

void
weft_packet_pool_grow (WeftPacketPool *pool)
{
    /* zeroed, aligned to the huge page and so to a line */
    WeftPacket *slab = weft_huge_alloc (WEFT_HUGE_PAGE);
    g_ptr_array_add (pool->slabs, slab);
    /* Thread the slab so packets are handed out in address order (better locality). */
    for (gsize i = SLAB_PACKETS; i-- > 0;) {
        slab[i].kind = WEFT_PKT_FREED;
        slab[i].next = pool->free_list;
        pool->free_list = &slab[i];
    }
    pool->total += SLAB_PACKETS;
}

void
weft_fifo_release_all (WeftPacketFifo *f, WeftPacketPool *pool)
{
    WeftPacket *p;
    while ((p = weft_fifo_pop (f)))
        weft_packet_release (pool, p);
}
