/* sim/arena.h - the run's hot, long-lived objects on transparent huge pages.
 *
 * At k = 32 a packet-hop touches a port, its PFC state and a packet among ~200 MiB of them, in
 * no order the hardware can follow: with 4 KiB pages nearly every last-level miss is a TLB
 * miss too (a second-level TLB of 2,048 entries maps 8 MiB).  2 MiB pages map the same memory
 * with ~100 entries.  Debian's kernels give huge pages only to memory advised MADV_HUGEPAGE
 * (transparent_hugepage=madvise), and malloc does not advise its heap unless told at process
 * start (GLIBC_TUNABLES), so weft takes such memory itself:
 *
 * - weft_huge_alloc: whole 2 MiB-aligned regions from mmap, advised MADV_HUGEPAGE (the packet
 *   pool's slabs).  Where the kernel gives no huge pages the memory is ordinary pages, and the
 *   run the same: nothing depends on an object's address.
 * - WeftArena: a bump allocator over such regions for objects that live as long as the run and
 *   are freed all together with it (the ports, their PFC state).  No per-object free; a request
 *   that does not fit in the current region's rest starts a new region (the rest stays unused:
 *   at most the largest request, a switch's port array, per region).
 *
 * Cost: one mmap per 2 MiB; memory rounded up to 2 MiB per region.  Measured in bench/README.md
 * ("Huge pages for ports, PFC state and packets").  Not for memory written once and read briefly
 * (the flow records): on a virtual machine that reports free memory to its host, a fresh huge
 * page is backed again as the kernel zeroes it, which costs more system time than the TLB saves
 * ("The flow records back on ordinary pages").
 */
#ifndef WEFT_SIM_ARENA_H
#define WEFT_SIM_ARENA_H

#include <glib.h>

#define WEFT_HUGE_PAGE ((gsize) 2 << 20)

/* @bytes rounded up to WEFT_HUGE_PAGE, zeroed, aligned to WEFT_HUGE_PAGE; aborts (g_error) when
 * out of memory, as g_malloc does.  (transfer full: weft_huge_free with the same @bytes) */
void *weft_huge_alloc (gsize bytes);
void weft_huge_free (void *mem, gsize bytes);

typedef struct {
    GArray *regions; /* WeftArenaRegion: owned */
    char *next;      /* the current region's first free byte */
    char *end;       /* the current region's end */
    gsize bytes;     /* handed out, for the memory estimate's tests */
} WeftArena;

void weft_arena_init (WeftArena *arena);
/* Unmaps every region: every object from the arena becomes invalid. */
void weft_arena_clear (WeftArena *arena);
/* @size zeroed bytes aligned to @align (a power of two, at most 4096).  (transfer none: the
 * arena owns it) */
void *weft_arena_alloc0 (WeftArena *arena, gsize size, gsize align);

#endif /* WEFT_SIM_ARENA_H */
