/* tests/check_units.c - invariants: quantities parse exactly (integer arithmetic, no rounding:
 * 40.96ns is 40960 ps, 1.5KiB is 1536 B, 50GB/s is 400 Gbps); every refusal class (no unit,
 * unknown or wrong-case unit, unit of another kind, negative, malformed, not a whole base unit,
 * overflow) is reported with the right code and says what was expected; formatting round-trips.
 * Unchecked: lengths beyond plain metres, and the exact wording of messages beyond key parts.
 */
#include "config.h"

#include <check.h>
#include <string.h>

#include "sim/units.h"
#include "tests/harness.h"

static guint64
time_ok (const char *text)
{
    weft_time_t ps = 0;
    g_autoptr (GError) err = NULL;
    gboolean ok = weft_units_parse_time (text, &ps, &err);
    ck_assert_msg (ok, "%s: %s", text, err ? err->message : "");
    return ps;
}

static guint64
rate_ok (const char *text)
{
    guint64 v = 0;
    g_autoptr (GError) err = NULL;
    gboolean ok = weft_units_parse_rate (text, &v, &err);
    ck_assert_msg (ok, "%s: %s", text, err ? err->message : "");
    return v;
}

static guint64
bytes_ok (const char *text)
{
    guint64 v = 0;
    g_autoptr (GError) err = NULL;
    gboolean ok = weft_units_parse_bytes (text, &v, &err);
    ck_assert_msg (ok, "%s: %s", text, err ? err->message : "");
    return v;
}

/* Asserts that @text is refused as a time with @code and returns the message (transfer full). */
static char *
time_bad (const char *text, WeftConfigError code)
{
    weft_time_t ps = 12345;
    GError *err = NULL;
    ck_assert_msg (!weft_units_parse_time (text, &ps, &err), "%s was accepted", text);
    ck_assert_msg (g_error_matches (err, WEFT_CONFIG_ERROR, code), "%s: code %d, %s", text,
                   err->code, err->message);
    ck_assert_uint_eq (ps, 12345); /* untouched on error */
    char *msg = g_strdup (err->message);
    g_error_free (err);
    return msg;
}

START_TEST (test_units_time_exact)
{
    ck_assert_uint_eq (time_ok ("40.96ns"), 40960);
    ck_assert_uint_eq (time_ok ("1.5us"), 1500000);
    ck_assert_uint_eq (time_ok ("7ps"), 7);
    ck_assert_uint_eq (time_ok ("5ms"), WEFT_MS (5));
    ck_assert_uint_eq (time_ok ("2s"), WEFT_S (2));
    ck_assert_uint_eq (time_ok ("0.000001s"), WEFT_US (1));
    ck_assert_uint_eq (time_ok (" 10 us "), WEFT_US (10));
    ck_assert_uint_eq (time_ok ("1.50000000000000000000000000000us"), 1500000);
    ck_assert_uint_eq (time_ok ("0ns"), 0);
    ck_assert_uint_eq (time_ok ("18446744073709551615ps"), G_MAXUINT64);
}
END_TEST

START_TEST (test_units_rate_and_bytes_exact)
{
    ck_assert_uint_eq (rate_ok ("400Gbps"), G_GUINT64_CONSTANT (400000000000));
    ck_assert_uint_eq (rate_ok ("50GB/s"), rate_ok ("400Gbps"));
    ck_assert_uint_eq (rate_ok ("12.5MB/s"), 100000000);
    ck_assert_uint_eq (rate_ok ("3.2Tbps"), G_GUINT64_CONSTANT (3200000000000));
    ck_assert_uint_eq (rate_ok ("1Kbps"), 1000);
    ck_assert_uint_eq (bytes_ok ("64MiB"), 64u << 20);
    ck_assert_uint_eq (bytes_ok ("1KB"), 1000);
    ck_assert_uint_eq (bytes_ok ("1KiB"), 1024);
    ck_assert_uint_eq (bytes_ok ("1.5KiB"), 1536);
    ck_assert_uint_eq (bytes_ok ("1.5MB"), 1500000);
    ck_assert_uint_eq (bytes_ok ("2TiB"), G_GUINT64_CONSTANT (2) << 40);
    ck_assert_uint_eq (bytes_ok ("0.0009765625KiB"), 1);

    double m = 0;
    g_autoptr (GError) err = NULL;
    ck_assert (weft_units_parse_length ("2.5m", &m, &err));
    ck_assert_double_eq (m, 2.5);
}
END_TEST

START_TEST (test_units_no_unit_says_what_was_expected)
{
    g_autofree char *msg = time_bad ("12", WEFT_CONFIG_ERROR_UNIT);
    ck_assert_str_eq (msg, "'12' has no unit: expected a time such as 1.5us (ps, ns, us, ms, s)");

    guint64 v;
    g_autoptr (GError) err = NULL;
    ck_assert (!weft_units_parse_rate ("400", &v, &err));
    ck_assert (g_error_matches (err, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_UNIT));
    ck_assert_str_eq (err->message, "'400' has no unit: expected a rate such as 400Gbps (bps, "
                                    "Kbps, Mbps, Gbps, Tbps, MB/s, GB/s)");
}
END_TEST

START_TEST (test_units_wrong_case_suggests_unit)
{
    guint64 v;
    g_autoptr (GError) err = NULL;
    ck_assert (!weft_units_parse_rate ("100gbps", &v, &err));
    ck_assert (g_error_matches (err, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_UNIT));
    ck_assert_ptr_nonnull (strstr (err->message, "did you mean 'Gbps'?"));
    g_clear_error (&err);
    ck_assert (!weft_units_parse_bytes ("4kib", &v, &err));
    ck_assert_ptr_nonnull (strstr (err->message, "did you mean 'KiB'?"));
}
END_TEST

START_TEST (test_units_unknown_and_foreign_units)
{
    g_autofree char *unknown = time_bad ("3 fortnights", WEFT_CONFIG_ERROR_UNIT);
    ck_assert_ptr_nonnull (strstr (unknown, "unknown unit 'fortnights'"));
    ck_assert_ptr_nonnull (strstr (unknown, "expected a time"));
    g_autofree char *foreign = time_bad ("3MB", WEFT_CONFIG_ERROR_UNIT);
    ck_assert_ptr_nonnull (strstr (foreign, "is a size, not a time"));
    g_autofree char *exp = time_bad ("1e3ns", WEFT_CONFIG_ERROR_UNIT);
    ck_assert_ptr_nonnull (strstr (exp, "unknown unit 'e3ns'"));
}
END_TEST

START_TEST (test_units_malformed_negative_fractional_overflow)
{
    g_autofree char *neg = time_bad ("-5ns", WEFT_CONFIG_ERROR_VALUE);
    ck_assert_ptr_nonnull (strstr (neg, "negative"));
    g_autofree char *empty = time_bad ("", WEFT_CONFIG_ERROR_VALUE);
    g_autofree char *words = time_bad ("ns", WEFT_CONFIG_ERROR_VALUE);
    g_autofree char *dots = time_bad ("1.2.3ns", WEFT_CONFIG_ERROR_VALUE);
    g_autofree char *trail = time_bad ("1.ns", WEFT_CONFIG_ERROR_VALUE);
    g_autofree char *half = time_bad ("0.5ps", WEFT_CONFIG_ERROR_VALUE);
    ck_assert_ptr_nonnull (strstr (half, "not a whole number of picoseconds"));
    g_autofree char *big = time_bad ("18446744073709551616ps", WEFT_CONFIG_ERROR_VALUE);
    ck_assert_ptr_nonnull (strstr (big, "too large"));
    g_autofree char *big2 = time_bad ("18446744.073709551616s", WEFT_CONFIG_ERROR_VALUE);
    g_autofree char *huge = time_bad ("99999999999999999999999999999s", WEFT_CONFIG_ERROR_VALUE);

    guint64 v;
    g_autoptr (GError) err = NULL;
    ck_assert (!weft_units_parse_bytes ("1.3B", &v, &err));
    ck_assert (g_error_matches (err, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_VALUE));
    ck_assert_ptr_nonnull (strstr (err->message, "not a whole number of bytes"));
}
END_TEST

START_TEST (test_units_format_examples)
{
    struct {
        char *(*fmt) (guint64);
        guint64 v;
        const char *want;
    } cases[] = {
        { weft_units_format_time, 40960, "40.96ns" },
        { weft_units_format_time, 1500000, "1.5us" },
        { weft_units_format_time, 0, "0ps" },
        { weft_units_format_time, WEFT_S (3), "3s" },
        { weft_units_format_time, 1234567, "1234.567ns" },
        { weft_units_format_rate, G_GUINT64_CONSTANT (400000000000), "400Gbps" },
        { weft_units_format_rate, G_GUINT64_CONSTANT (3200000000000), "3.2Tbps" },
        { weft_units_format_bytes, 64u << 20, "64MiB" },
        { weft_units_format_bytes, 1536, "1.5KiB" },
        { weft_units_format_bytes, 1500000, "1.5MB" },
        { weft_units_format_bytes, 1000, "1KB" },
        { weft_units_format_bytes, 1500, "1.5KB" },
        { weft_units_format_bytes, 1000000, "1MB" },
        { weft_units_format_bytes, 17, "17B" },
    };
    for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
        g_autofree char *s = cases[i].fmt (cases[i].v);
        ck_assert_str_eq (s, cases[i].want);
    }
}
END_TEST

START_TEST (test_units_format_parse_round_trip)
{
    guint64 samples[] = { 0,
                          1,
                          7,
                          999,
                          1000,
                          1023,
                          1024,
                          1536,
                          40960,
                          123456789,
                          G_GUINT64_CONSTANT (400000000000),
                          G_GUINT64_CONSTANT (1) << 40,
                          G_GUINT64_CONSTANT (18446744073709551615) };
    for (guint i = 0; i < G_N_ELEMENTS (samples); i++) {
        guint64 v = samples[i];
        g_autofree char *t = weft_units_format_time (v);
        g_autofree char *r = weft_units_format_rate (v);
        g_autofree char *b = weft_units_format_bytes (v);
        ck_assert_uint_eq (time_ok (t), v);
        ck_assert_uint_eq (rate_ok (r), v);
        ck_assert_uint_eq (bytes_ok (b), v);
    }
}
END_TEST

/* weft_time_serialize's 64-bit path (a packet's size) and its 128-bit one agree with the
 * definition, ceil (bytes x 8e12 / rate), on both sides of the boundary between them: the
 * expectation is computed here in 128 bits, and checked against the analytic 4 KiB at
 * 400 Gb/s = 81.92 ns. */
START_TEST (test_units_serialize_paths_agree)
{
    ck_assert_uint_eq (weft_time_serialize (4096, G_GUINT64_CONSTANT (400000000000)), 81920);
    guint64 sizes[] = { 0, 1, 64, 4096, 4160, 1048575, 1048576, 1048577, 3000000, 1u << 30 };
    guint64 rates[] = { 1,
                        3,
                        G_GUINT64_CONSTANT (25000000000),
                        G_GUINT64_CONSTANT (400000000000),
                        G_GUINT64_CONSTANT (3600000000000),
                        G_GUINT64_CONSTANT (7777777777777),
                        (G_GUINT64_CONSTANT (1) << 62) - 1,
                        G_GUINT64_CONSTANT (1) << 62,
                        G_MAXUINT64 };
    for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
        for (guint j = 0; j < G_N_ELEMENTS (rates); j++) {
            unsigned __int128 num = (unsigned __int128) sizes[i] * 8u * WEFT_PS_PER_S;
            unsigned __int128 want = (num + rates[j] - 1) / rates[j];
            if (want > G_MAXUINT64)
                continue; /* beyond weft_time_t */
            ck_assert_uint_eq (weft_time_serialize (sizes[i], rates[j]), (guint64) want);
        }
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("units");
    TCase *tc = tcase_create ("parse");
    tcase_add_test (tc, test_units_time_exact);
    tcase_add_test (tc, test_units_rate_and_bytes_exact);
    tcase_add_test (tc, test_units_no_unit_says_what_was_expected);
    tcase_add_test (tc, test_units_wrong_case_suggests_unit);
    tcase_add_test (tc, test_units_unknown_and_foreign_units);
    tcase_add_test (tc, test_units_malformed_negative_fractional_overflow);
    suite_add_tcase (s, tc);
    tc = tcase_create ("format");
    tcase_add_test (tc, test_units_format_examples);
    tcase_add_test (tc, test_units_format_parse_round_trip);
    suite_add_tcase (s, tc);
    tc = tcase_create ("serialize");
    tcase_add_test (tc, test_units_serialize_paths_agree);
    suite_add_tcase (s, tc);
    return s;
}
