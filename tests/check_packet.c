/* tests/check_packet.c - the packet pool and FIFOs.
 *
 * Checks: allocation hands out zeroed packets and counts them live; release returns them (the
 * count goes back to 0) and they are reused rather than growing the pool; FIFOs keep order and
 * byte counts.  Leaves unchecked: poisoning on double release (it aborts by design).
 */
#include "config.h"
#include <check.h>

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

Suite *
test_suite (void)
{
    Suite *s = suite_create ("packet");
    TCase *tc = tcase_create ("pool");
    tcase_add_test (tc, test_packet_pool_counts_and_reuses);
    suite_add_tcase (s, tc);
    return s;
}
