#include "config.h"
#define G_LOG_DOMAIN "weft-packet"
#include "sim/packet.h"

#define SLAB_PACKETS 4096
#define PACKET_ALIGN 64

void
weft_packet_pool_init (WeftPacketPool *pool)
{
    *pool = (WeftPacketPool){ 0 };
    pool->slabs = g_ptr_array_new_with_free_func (g_free);
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
    /* malloc aligns to 16 bytes only: take a line more and start at a line boundary. */
    char *raw = g_malloc0 (sizeof (WeftPacket) * SLAB_PACKETS + PACKET_ALIGN);
    g_ptr_array_add (pool->slabs, raw);
    guintptr base = ((guintptr) raw + PACKET_ALIGN - 1) & ~(guintptr) (PACKET_ALIGN - 1);
    WeftPacket *slab = (WeftPacket *) base;
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
