#include "config.h"
#define G_LOG_DOMAIN "weft-arena"
#include "sim/arena.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

typedef struct {
    void *mem;
    gsize bytes;
} WeftArenaRegion;

static gsize
round_huge (gsize bytes)
{
    return (MAX (bytes, 1) + WEFT_HUGE_PAGE - 1) & ~(WEFT_HUGE_PAGE - 1);
}

void *
weft_huge_alloc (gsize bytes)
{
    gsize len = round_huge (bytes);
    /* mmap aligns to a page only: map a huge page more and unmap what lies outside the
     * aligned range, so the kernel can back it with whole huge pages. */
    char *raw = mmap (NULL, len + WEFT_HUGE_PAGE, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
        g_error ("weft_huge_alloc: out of memory for %" G_GSIZE_FORMAT " bytes: %s", len,
                 g_strerror (errno));
    char *mem = (char *) (((guintptr) raw + WEFT_HUGE_PAGE - 1) & ~(guintptr) (WEFT_HUGE_PAGE - 1));
    if (mem > raw)
        munmap (raw, (gsize) (mem - raw));
    gsize tail = (gsize) (raw + len + WEFT_HUGE_PAGE - (mem + len));
    if (tail > 0)
        munmap (mem + len, tail);
#ifdef MADV_HUGEPAGE
    /* advice only: without THP (or with its policy "never") the pages are ordinary ones */
    (void) madvise (mem, len, MADV_HUGEPAGE);
#endif
    return mem; /* anonymous memory is zeroed */
}

void
weft_huge_free (void *mem, gsize bytes)
{
    if (mem)
        munmap (mem, round_huge (bytes));
}

void
weft_arena_init (WeftArena *arena)
{
    *arena = (WeftArena){ 0 };
    arena->regions = g_array_new (FALSE, FALSE, sizeof (WeftArenaRegion));
}

void
weft_arena_clear (WeftArena *arena)
{
    if (!arena->regions)
        return;
    for (guint i = 0; i < arena->regions->len; i++) {
        WeftArenaRegion *r = &g_array_index (arena->regions, WeftArenaRegion, i);
        weft_huge_free (r->mem, r->bytes);
    }
    g_array_unref (arena->regions);
    *arena = (WeftArena){ 0 };
}

void *
weft_arena_alloc0 (WeftArena *arena, gsize size, gsize align)
{
    g_assert (align > 0 && (align & (align - 1)) == 0 && align <= 4096);
    size = MAX (size, 1);
    char *p = (char *) (((guintptr) arena->next + align - 1) & ~(guintptr) (align - 1));
    if (arena->next == NULL || p > arena->end || size > (gsize) (arena->end - p)) {
        WeftArenaRegion r = { .bytes = round_huge (size) };
        r.mem = weft_huge_alloc (r.bytes);
        g_array_append_val (arena->regions, r);
        p = r.mem;
        arena->end = p + r.bytes;
    }
    arena->next = p + size;
    arena->bytes += size;
    return p;
}
