/* tests/check_packet.c - the packet pool and FIFOs, and the huge-page arena they and the ports
 * come from (sim/arena.h).
 *
 * Checks: allocation hands out zeroed packets aligned to a line and counts them live; release
 * returns them (the count goes back to 0) and they are reused rather than growing the pool;
 * FIFOs keep order and byte counts.  The arena hands out zeroed blocks at the alignment asked
 * for that never overlap, across regions and for a block larger than a region; huge
 * allocations are aligned to a huge page.  Leaves unchecked: poisoning on double release (it
 * aborts by design), and whether the kernel backs the memory with huge pages (its policy).
 */
#include "config.h"
#include <check.h>
#include <string.h>

#include "sim/arena.h"
#include "sim/packet.h"
#include "tests/harness.h"

START_TEST (test_packet_pool_counts_and_reuses)
{
    WeftPacketPool pool;
    weft_packet_pool_init (&pool);
    WeftPacketFifo f = { 0 };
    for (guint i = 0; i < 10000; i++) {
        WeftPacket *p = weft_packet_alloc (&pool);
        ck_assert_uint_eq (p->seq, 0);
        ck_assert_uint_eq ((guintptr) p % 64, 0);
        p->seq = i;
        p->size = 100 + i % 7;
        weft_fifo_push (&f, p);
    }
    ck_assert_uint_eq (weft_packet_pool_live (&pool), 10000);
    guint64 total = pool.total;
    guint64 bytes = f.bytes;
    for (guint i = 0; i < 10000; i++) {
        WeftPacket *p = weft_fifo_pop (&f);
        ck_assert_uint_eq (p->seq, i);
        bytes -= p->size;
        ck_assert_uint_eq (f.bytes, bytes);
        weft_packet_release (&pool, p);
    }
    ck_assert_ptr_null (weft_fifo_pop (&f));
    ck_assert_uint_eq (weft_packet_pool_live (&pool), 0);
    for (guint i = 0; i < 10000; i++)
        weft_fifo_push (&f, weft_packet_alloc (&pool));
    ck_assert_uint_eq (pool.total, total); /* reused, no growth */
    weft_fifo_release_all (&f, &pool);
    ck_assert_uint_eq (weft_packet_pool_live (&pool), 0);
    weft_packet_pool_clear (&pool);
}
END_TEST

START_TEST (test_huge_alloc_is_aligned_and_zeroed)
{
    gsize bytes = WEFT_HUGE_PAGE + 1000; /* rounds up to two huge pages */
    guint8 *m = weft_huge_alloc (bytes);
    ck_assert_uint_eq ((guintptr) m % WEFT_HUGE_PAGE, 0);
    for (gsize i = 0; i < 2 * WEFT_HUGE_PAGE; i += 4093)
        ck_assert_uint_eq (m[i], 0);
    m[0] = 1;
    m[2 * WEFT_HUGE_PAGE - 1] = 1; /* the whole rounded size is mapped */
    weft_huge_free (m, bytes);
}
END_TEST

typedef struct {
    guint8 *p;
    gsize size;
} Block;

START_TEST (test_arena_blocks_aligned_zeroed_disjoint)
{
    WeftArena a;
    weft_arena_init (&a);
    /* sizes up to 40 KiB (a switch's port array) and one larger than a region */
    enum { N = 400 };
    static const guint8 zero[40960];
    Block b[N + 1];
    gsize total = 0;
    for (guint i = 0; i < N; i++) {
        gsize align = (gsize) 1 << (i % 8); /* 1 .. 128 */
        b[i].size = 1 + (i * 7919u) % 40960;
        b[i].p = weft_arena_alloc0 (&a, b[i].size, align);
        total += b[i].size;
        ck_assert_uint_eq ((guintptr) b[i].p % align, 0);
        ck_assert_int_eq (memcmp (b[i].p, zero, b[i].size), 0);
        memset (b[i].p, (int) (i % 251) + 1, b[i].size);
    }
    b[N].size = 3 * WEFT_HUGE_PAGE;
    b[N].p = weft_arena_alloc0 (&a, b[N].size, 64);
    total += b[N].size;
    memset (b[N].p, 0xee, b[N].size);
    ck_assert_uint_gt (a.regions->len, 2); /* 400 blocks of ~20 KiB span several regions */
    ck_assert_uint_eq (a.bytes, total);
    /* every block still holds its own pattern: none overlapped a later one */
    for (guint i = 0; i < N; i++)
        for (gsize j = 0; j < b[i].size; j += 97)
            ck_assert_uint_eq (b[i].p[j], (i % 251) + 1);
    ck_assert_uint_eq (b[N].p[b[N].size - 1], 0xee);
    weft_arena_clear (&a);
    ck_assert_ptr_null (a.regions);
    weft_arena_clear (&a); /* twice is harmless */
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("packet");
    TCase *tc = tcase_create ("pool");
    tcase_add_test (tc, test_packet_pool_counts_and_reuses);
    suite_add_tcase (s, tc);
    tc = tcase_create ("arena");
    tcase_add_test (tc, test_huge_alloc_is_aligned_and_zeroed);
    tcase_add_test (tc, test_arena_blocks_aligned_zeroed_disjoint);
    suite_add_tcase (s, tc);
    return s;
}
