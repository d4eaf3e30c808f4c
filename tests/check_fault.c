/* tests/check_fault.c - invariants of the fault mechanism's per-packet law (models/fault.h):
 * the packet error rate is 1 - (1 - BER)^bits, computed without cancellation for tiny BERs; a
 * faulty port corrupts data at that rate (drawn from its own stream), never flow-control
 * packets, and counts what it corrupts; a Down port discards everything and counts it.
 * Leaves unchecked: the events and the end-to-end effects (tests/e2e/faults.sh). */
#include "config.h"

#include <check.h>
#include <math.h>

#include "models/fault.h"
#include "sim/rng.h"
#include "tests/harness.h"

START_TEST (test_fault_per_formula)
{
    ck_assert (weft_fault_per (0, 4122) == 0);
    double per = weft_fault_per (1e-6, 4122);
    double direct = 1 - pow (1 - 1e-6, 4122 * 8);
    ck_assert_msg (fabs (per - direct) < 1e-12, "%g vs %g", per, direct);
    /* tiny BER: ~ bits x BER, where the direct form loses everything to cancellation */
    double tiny = weft_fault_per (1e-18, 1000);
    ck_assert_msg (fabs (tiny - 8000e-18) < 1e-24, "%g", tiny);
}
END_TEST

START_TEST (test_fault_corrupts_at_per)
{
    WeftFaultPort f = { .ber = 1e-6, .rng = weft_rng_new (7, 1) };
    WeftPacket data = { .kind = WEFT_PKT_DATA, .size = 4122 };
    WeftPacket fcp = { .kind = WEFT_PKT_CREDIT, .size = 4122 };
    guint n = 50000, bad = 0;
    for (guint i = 0; i < n; i++) {
        bad += weft_fault_port_corrupts (&f, &data);
        ck_assert (!weft_fault_port_corrupts (&f, &fcp));
    }
    ck_assert_uint_eq (f.corrupted, bad);
    double p = weft_fault_per (1e-6, 4122);
    double sigma = sqrt (n * p * (1 - p));
    ck_assert_msg (fabs (bad - n * p) < 4 * sigma, "%u corrupted, expected %.0f", bad, n * p);
    gsl_rng_free (f.rng);
}
END_TEST

START_TEST (test_fault_down_discards)
{
    WeftFaultPort f = { 0 };
    WeftPacket data = { .kind = WEFT_PKT_DATA, .size = 100 };
    ck_assert (!weft_fault_port_discards (&f, &data));
    f.down = TRUE;
    ck_assert (weft_fault_port_discards (&f, &data));
    ck_assert (weft_fault_port_discards (&f, &data));
    ck_assert_uint_eq (f.lost_down, 2);
    WeftPacket fcp = { .kind = WEFT_PKT_CREDIT, .size = 8 };
    ck_assert (!weft_fault_port_discards (&f, &fcp)); /* link-level state crosses */
    ck_assert_uint_eq (f.lost_down, 2);
    ck_assert_str_eq (weft_fault_kind_name (WEFT_FAULT_BIT_ERRORS), "bit-errors");
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("fault");
    TCase *tc = tcase_create ("law");
    tcase_add_test (tc, test_fault_per_formula);
    tcase_add_test (tc, test_fault_corrupts_at_per);
    tcase_add_test (tc, test_fault_down_discards);
    suite_add_tcase (s, tc);
    return s;
}
