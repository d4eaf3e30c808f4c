/* tests/check_vlarb.c - InfiniBand VL arbitration (models/vlarb.c), driven by hand.
 *
 * Checks: the high-priority table wins while its limit allows; after vlarb_high_limit x 4 KiB
 * of high-priority data a waiting low-priority VL gets a packet; 0 means one packet; 255 means
 * no limit; inside a table the turn moves on when an entry's weight is used and resumes where
 * it stopped (never always from VL 0); a VL with nothing eligible is skipped.
 * Leaves unchecked: timing (the port model's tests cover arbitration under load).
 */
#include "config.h"
#include <check.h>

#include "models/vlarb.h"
#include "tests/harness.h"

static WeftIbConfig cfg;

static void
table (WeftIbArbEntry *t, guint *n, const guint8 *vl, const guint8 *w, guint k)
{
    *n = k;
    for (guint i = 0; i < k; i++)
        t[i] = (WeftIbArbEntry){ vl[i], w[i] };
}

/* Sends @n packets of @bytes with every VL in @eligible ready; returns the VLs in order. */
static GString *
run (WeftVlArb *a, guint32 eligible, guint n, guint32 bytes)
{
    GString *s = g_string_new (NULL);
    for (guint i = 0; i < n; i++) {
        gboolean high;
        int v = weft_vlarb_pick (a, eligible, &high);
        ck_assert_int_ge (v, 0);
        g_string_append_printf (s, "%d%s", v, high ? "h" : "");
        weft_vlarb_sent (a, high, bytes);
    }
    return s;
}

START_TEST (test_vlarb_high_limit)
{
    cfg = (WeftIbConfig){ .vls = 2 };
    table (cfg.high, &cfg.n_high, (guint8[]){ 0 }, (guint8[]){ 255 }, 1);
    table (cfg.low, &cfg.n_low, (guint8[]){ 1 }, (guint8[]){ 255 }, 1);
    WeftVlArb a;

    cfg.high_limit = 255; /* no limit: low waits as long as high has data */
    weft_vlarb_init (&a, &cfg);
    g_autoptr (GString) s1 = run (&a, 3, 6, 4096);
    ck_assert_str_eq (s1->str, "0h0h0h0h0h0h");

    cfg.high_limit = 2; /* 8 KiB of high-priority data, then one low-priority packet */
    weft_vlarb_init (&a, &cfg);
    g_autoptr (GString) s2 = run (&a, 3, 6, 4096);
    ck_assert_str_eq (s2->str, "0h0h10h0h1");

    cfg.high_limit = 0; /* one high packet at a time */
    weft_vlarb_init (&a, &cfg);
    g_autoptr (GString) s3 = run (&a, 3, 4, 4096);
    ck_assert_str_eq (s3->str, "0h10h1");

    /* Only low eligible: it goes whatever the limit. */
    g_autoptr (GString) s4 = run (&a, 2, 2, 4096);
    ck_assert_str_eq (s4->str, "11");
}
END_TEST

START_TEST (test_vlarb_weights_round_robin)
{
    /* Low table 0:128, 1:64, 2:64 (64-byte units): 8 KiB for VL 0, then 4 KiB each. */
    cfg = (WeftIbConfig){ .vls = 3, .high_limit = 255 };
    table (cfg.low, &cfg.n_low, (guint8[]){ 0, 1, 2 }, (guint8[]){ 128, 64, 64 }, 3);
    WeftVlArb a;
    weft_vlarb_init (&a, &cfg);
    g_autoptr (GString) s = run (&a, 7, 8, 4096);
    ck_assert_str_eq (s->str, "00120012");
    /* VL 1 has nothing: its turn is skipped, the round resumes where it was. */
    weft_vlarb_init (&a, &cfg);
    g_autoptr (GString) t = run (&a, 5, 6, 4096);
    ck_assert_str_eq (t->str, "002002");
    /* A packet larger than the entry's weight still goes and ends the turn. */
    weft_vlarb_init (&a, &cfg);
    g_autoptr (GString) u = run (&a, 7, 3, 16384);
    ck_assert_str_eq (u->str, "012");
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("vlarb");
    TCase *tc = tcase_create ("tables");
    tcase_add_test (tc, test_vlarb_high_limit);
    tcase_add_test (tc, test_vlarb_weights_round_robin);
    suite_add_tcase (s, tc);
    return s;
}
