/* tests/check_params.c - invariants: a parameter table gives every field its default, a file
 * value overrides it, and every bad value is refused with the right code and a one-line
 * message naming file, [group], key and what was expected (unknown key with suggestion,
 * missing required key, range in the parameter's units, enum choice with suggestion, strict
 * booleans and integers, ratios); two bindings share one group; describe lists name, type,
 * default and help; a derived key is zero when absent (the model derives it), range-checked
 * when set, and described as "derived".  Unchecked: the column layout of describe beyond its
 * contents.
 */
#include "config.h"

#include <check.h>
#include <string.h>

#include "sim/params.h"
#include "tests/harness.h"

typedef struct {
    gboolean pfc;
    gint64 offset;
    guint64 senders;
    double pmax;
    char *name;
    int routing;
    weft_time_t delay_ps;
    guint64 rate_bps;
    guint64 buffer_bytes;
    double cable_m;
    double oversub;
    char **hosts;
    char *generator;       /* required */
    weft_time_t target_ps; /* derived */
} All;

static const WeftParamSpec all_params[] = {
    WEFT_PARAM_BOOL ("pfc", All, pfc, "true", "PFC on"),
    WEFT_PARAM_INT ("offset", All, offset, "-3", "-10", "10", "signed offset"),
    WEFT_PARAM_UINT ("senders", All, senders, "15", "1", "1000", "incast senders"),
    WEFT_PARAM_DOUBLE ("pmax", All, pmax, "0.2", "0", "1", "marking probability at kmax"),
    WEFT_PARAM_STRING ("name", All, name, "incast", "run name"),
    WEFT_PARAM_ENUM ("routing", All, routing, "ecmp", "static|ecmp|adaptive", "path choice"),
    WEFT_PARAM_TIME ("delay", All, delay_ps, "1us", "0ps", "1ms", "link latency"),
    WEFT_PARAM_RATE ("link_rate", All, rate_bps, "400Gbps", "1Mbps", "3.2Tbps", "link speed"),
    WEFT_PARAM_BYTES ("buffer", All, buffer_bytes, "12MiB", "1KiB", NULL, "switch buffer"),
    WEFT_PARAM_LENGTH ("cable", All, cable_m, "2.5m", "0m", "100m", "cable length"),
    WEFT_PARAM_RATIO ("oversubscription", All, oversub, "1:1", "1:1", "16:1", "up:down"),
    WEFT_PARAM_LIST ("hosts", All, hosts, "host0;host1", "hosts involved"),
    WEFT_PARAM_STRING ("generator", All, generator, NULL, "topology generator"),
    WEFT_PARAM_TIME ("target", All, target_ps, WEFT_PARAM_DERIVED, "1ns", "1ms",
                     "derived: 0.75 x the base RTT"),
    WEFT_PARAM_END,
};

/* A second table for the same group, sharing the key "senders". */
typedef struct {
    guint64 senders;
    guint64 flow_size;
} Extra;

static const WeftParamSpec extra_params[] = {
    WEFT_PARAM_UINT ("senders", Extra, senders, "2", NULL, NULL, "senders again"),
    WEFT_PARAM_BYTES ("flow_size", Extra, flow_size, "1MiB", "1B", NULL, "bytes per flow"),
    WEFT_PARAM_END,
};

static All all;
static Extra extra;

static void
setup (void)
{
    memset (&all, 0, sizeof all);
    memset (&extra, 0, sizeof extra);
}

static void
teardown (void)
{
    weft_params_clear (all_params, &all);
    weft_params_clear (extra_params, &extra);
}

/* Reads [t] of "t.ini" = "[t]\ngenerator = fattree\n" + @body into `all`. */
static gboolean
read_all (const char *body, GError **error)
{
    g_autofree char *text = g_strdup_printf ("[t]\ngenerator = fattree\n%s", body);
    g_autoptr (WeftExperiment) exp = weft_experiment_new_from_data (text, "t.ini", NULL);
    ck_assert_ptr_nonnull (exp);
    WeftParamBinding b[] = { { all_params, &all } };
    return weft_params_read (exp, "t", b, 1, error);
}

/* Asserts that @body is refused with @code and that the message contains @part. */
static void
assert_refused (const char *body, WeftConfigError code, const char *part)
{
    g_autoptr (GError) err = NULL;
    ck_assert_msg (!read_all (body, &err), "accepted: %s", body);
    ck_assert_msg (g_error_matches (err, WEFT_CONFIG_ERROR, code), "%s: code %d: %s", body,
                   err->code, err->message);
    ck_assert_msg (strstr (err->message, part), "'%s' lacks '%s'", err->message, part);
    ck_assert_msg (!strchr (err->message, '\n'), "two lines: %s", err->message);
    weft_params_clear (all_params, &all);
}

START_TEST (test_params_defaults)
{
    weft_params_set_defaults (all_params, &all);
    ck_assert (all.pfc);
    ck_assert_int_eq (all.offset, -3);
    ck_assert_uint_eq (all.senders, 15);
    ck_assert_double_eq (all.pmax, 0.2);
    ck_assert_str_eq (all.name, "incast");
    ck_assert_int_eq (all.routing, 1);
    ck_assert_uint_eq (all.delay_ps, WEFT_US (1));
    ck_assert_uint_eq (all.rate_bps, G_GUINT64_CONSTANT (400000000000));
    ck_assert_uint_eq (all.buffer_bytes, 12u << 20);
    ck_assert_double_eq (all.cable_m, 2.5);
    ck_assert_double_eq (all.oversub, 1.0);
    ck_assert_uint_eq (g_strv_length (all.hosts), 2);
    ck_assert_str_eq (all.hosts[1], "host1");
    ck_assert_ptr_null (all.generator);
    /* Setting defaults again frees the strings it replaces (valgrind checks this). */
    weft_params_set_defaults (all_params, &all);
}
END_TEST

START_TEST (test_params_file_values_override)
{
    g_autoptr (GError) err = NULL;
    gboolean ok = read_all ("pfc = false\noffset = -7\nsenders = 31\npmax = 0.5\nname = big\n"
                            "routing = adaptive\ndelay = 40.96ns\nlink_rate = 50GB/s\n"
                            "buffer = 1.5KiB\ncable = 3m\noversubscription = 3:1\n"
                            "hosts = a; b ;c;\n",
                            &err);
    ck_assert_msg (ok, "%s", err ? err->message : "");
    ck_assert (!all.pfc);
    ck_assert_int_eq (all.offset, -7);
    ck_assert_uint_eq (all.senders, 31);
    ck_assert_double_eq (all.pmax, 0.5);
    ck_assert_str_eq (all.name, "big");
    ck_assert_int_eq (all.routing, 2);
    ck_assert_uint_eq (all.delay_ps, 40960);
    ck_assert_uint_eq (all.rate_bps, G_GUINT64_CONSTANT (400000000000));
    ck_assert_uint_eq (all.buffer_bytes, 1536);
    ck_assert_double_eq (all.cable_m, 3.0);
    ck_assert_double_eq (all.oversub, 3.0);
    ck_assert_uint_eq (g_strv_length (all.hosts), 3);
    ck_assert_str_eq (all.hosts[0], "a");
    ck_assert_str_eq (all.hosts[1], "b");
    ck_assert_str_eq (all.hosts[2], "c");
    ck_assert_str_eq (all.generator, "fattree");
}
END_TEST

START_TEST (test_params_unknown_key_suggests)
{
    assert_refused ("bufer = 1MiB\n", WEFT_CONFIG_ERROR_UNKNOWN_KEY,
                    "t.ini: [t] bufer: unknown key, did you mean 'buffer'?");
    assert_refused ("zzzzzzzzzz = 1\n", WEFT_CONFIG_ERROR_UNKNOWN_KEY, "expected one of: pfc");
}
END_TEST

START_TEST (test_params_missing_required)
{
    g_autoptr (WeftExperiment) exp =
        weft_experiment_new_from_data ("[t]\npfc = true\n", "t.ini", NULL);
    WeftParamBinding b[] = { { all_params, &all } };
    g_autoptr (GError) err = NULL;
    ck_assert (!weft_params_read (exp, "t", b, 1, &err));
    ck_assert (g_error_matches (err, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_MISSING));
    ck_assert_ptr_nonnull (strstr (err->message, "t.ini: [t] generator: required key is missing"));
}
END_TEST

START_TEST (test_params_missing_group_is_empty)
{
    g_autoptr (WeftExperiment) exp = weft_experiment_new_from_data ("[u]\nx = 1\n", "t.ini", NULL);
    WeftParamBinding b[] = { { extra_params, &extra } };
    g_autoptr (GError) err = NULL;
    ck_assert (weft_params_read (exp, "t", b, 1, &err));
    ck_assert_uint_eq (extra.flow_size, 1u << 20);
}
END_TEST

START_TEST (test_params_range_in_units)
{
    assert_refused ("link_rate = 4Tbps\n", WEFT_CONFIG_ERROR_RANGE,
                    "t.ini: [t] link_rate: 4Tbps is out of range: expected 1Mbps to 3.2Tbps");
    assert_refused ("link_rate = 999Kbps\n", WEFT_CONFIG_ERROR_RANGE,
                    "999Kbps is out of range: expected 1Mbps to 3.2Tbps");
    assert_refused ("buffer = 1000B\n", WEFT_CONFIG_ERROR_RANGE, "expected at least 1KiB");
    assert_refused ("offset = -11\n", WEFT_CONFIG_ERROR_RANGE, "expected -10 to 10");
    assert_refused ("pmax = 1.5\n", WEFT_CONFIG_ERROR_RANGE, "expected 0 to 1");
    assert_refused ("oversubscription = 32:1\n", WEFT_CONFIG_ERROR_RANGE, "expected 1:1 to 16:1");
    /* The bounds are inclusive. */
    g_autoptr (GError) err = NULL;
    ck_assert (read_all ("link_rate = 3.2Tbps\nbuffer = 1KiB\noffset = 10\n", &err));
}
END_TEST

START_TEST (test_params_units_errors_carry_context)
{
    assert_refused ("link_rate = 400\n", WEFT_CONFIG_ERROR_UNIT,
                    "t.ini: [t] link_rate: '400' has no unit: expected a rate such as 400Gbps "
                    "(bps, Kbps, Mbps, Gbps, Tbps, MB/s, GB/s)");
    assert_refused ("delay = 0.5ps\n", WEFT_CONFIG_ERROR_VALUE, "[t] delay: '0.5ps'");
}
END_TEST

START_TEST (test_params_enum_suggests)
{
    assert_refused ("routing = ecmpp\n", WEFT_CONFIG_ERROR_VALUE,
                    "[t] routing: 'ecmpp' is not a valid choice, did you mean 'ecmp'?");
    assert_refused ("routing = zzzzzzzz\n", WEFT_CONFIG_ERROR_VALUE,
                    "expected one of: static, ecmp, adaptive");
}
END_TEST

START_TEST (test_params_bools_ints_doubles_ratios_strict)
{
    assert_refused ("pfc = yes\n", WEFT_CONFIG_ERROR_VALUE, "expected true or false");
    assert_refused ("pfc = 1\n", WEFT_CONFIG_ERROR_VALUE, "expected true or false");
    assert_refused ("senders = 1e3\n", WEFT_CONFIG_ERROR_VALUE, "'1e3' is not a whole decimal");
    assert_refused ("senders = 12x\n", WEFT_CONFIG_ERROR_VALUE, "[t] senders:");
    assert_refused ("senders = -1\n", WEFT_CONFIG_ERROR_VALUE, "negative");
    assert_refused ("senders = 99999999999999999999999\n", WEFT_CONFIG_ERROR_VALUE, "too large");
    assert_refused ("offset = +3\n", WEFT_CONFIG_ERROR_VALUE, "not a whole decimal");
    assert_refused ("pmax = half\n", WEFT_CONFIG_ERROR_VALUE, "not a number");
    assert_refused ("oversubscription = 3\n", WEFT_CONFIG_ERROR_VALUE, "expected A:B");
    assert_refused ("oversubscription = 0:1\n", WEFT_CONFIG_ERROR_VALUE, "positive");
    assert_refused ("oversubscription = 1:0\n", WEFT_CONFIG_ERROR_VALUE, "positive");
}
END_TEST

START_TEST (test_params_two_bindings_share_group)
{
    g_autoptr (WeftExperiment) exp = weft_experiment_new_from_data (
        "[t]\ngenerator = x\nsenders = 7\nflow_size = 2MiB\n", "t.ini", NULL);
    WeftParamBinding b[] = { { all_params, &all }, { extra_params, &extra } };
    g_autoptr (GError) err = NULL;
    ck_assert_msg (weft_params_read (exp, "t", b, 2, &err), "%s", err ? err->message : "");
    ck_assert_uint_eq (all.senders, 7);
    ck_assert_uint_eq (extra.senders, 7);
    ck_assert_uint_eq (extra.flow_size, 2u << 20);
    /* With only one binding, the other's key is unknown. */
    WeftParamBinding only[] = { { all_params, &all } };
    ck_assert (!weft_params_read (exp, "t", only, 1, &err));
    ck_assert (g_error_matches (err, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_UNKNOWN_KEY));
    ck_assert_ptr_nonnull (strstr (err->message, "[t] flow_size: unknown key"));
}
END_TEST

START_TEST (test_params_parse_value_free_form)
{
    guint64 u = 0;
    double d = 0;
    gboolean b = FALSE;
    g_autoptr (GError) err = NULL;
    ck_assert (weft_params_parse_value (WEFT_PARAM_TYPE_BYTES, "64MiB", &u, &err));
    ck_assert_uint_eq (u, 64u << 20);
    ck_assert (weft_params_parse_value (WEFT_PARAM_TYPE_RATIO, "1:1", &d, &err));
    ck_assert_double_eq (d, 1.0);
    ck_assert (weft_params_parse_value (WEFT_PARAM_TYPE_BOOL, " true ", &b, &err));
    ck_assert (b);
    ck_assert (!weft_params_parse_value (WEFT_PARAM_TYPE_TIME, "12", &u, &err));
    ck_assert (g_error_matches (err, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_UNIT));
    ck_assert_str_eq (err->message,
                      "'12' has no unit: expected a time such as 1.5us (ps, ns, us, ms, s)");
}
END_TEST

START_TEST (test_params_describe_and_type_names)
{
    g_autoptr (GString) out = g_string_new (NULL);
    weft_params_describe (all_params, out);
    ck_assert_ptr_nonnull (strstr (out->str, "link_rate"));
    ck_assert_ptr_nonnull (strstr (out->str, "400Gbps"));
    ck_assert_ptr_nonnull (strstr (out->str, "[1Mbps .. 3.2Tbps]"));
    ck_assert_ptr_nonnull (strstr (out->str, "link speed"));
    ck_assert_ptr_nonnull (strstr (out->str, "static|ecmp|adaptive"));
    ck_assert_ptr_nonnull (strstr (out->str, "(required)"));
    ck_assert_ptr_nonnull (strstr (out->str, "[>= 1KiB]"));
    ck_assert_ptr_null (strstr (out->str, " \n"));
    ck_assert_str_eq (weft_params_type_name (WEFT_PARAM_TYPE_TIME), "time");
    ck_assert_str_eq (weft_params_type_name (WEFT_PARAM_TYPE_RATE), "rate");
    ck_assert_str_eq (weft_params_type_name (WEFT_PARAM_TYPE_BYTES), "bytes");
    ck_assert_str_eq (weft_params_type_name (WEFT_PARAM_TYPE_RATIO), "ratio");
    ck_assert_str_eq (weft_params_type_name (WEFT_PARAM_TYPE_BOOL), "bool");
}
END_TEST

START_TEST (test_params_derived)
{
    all.target_ps = 123;
    weft_params_set_defaults (all_params, &all);
    ck_assert_uint_eq (all.target_ps, 0);
    all.target_ps = 123;
    g_autoptr (GError) err = NULL;
    ck_assert (read_all ("", &err));
    ck_assert_uint_eq (all.target_ps, 0);
    ck_assert (read_all ("target = 3us\n", &err));
    ck_assert_uint_eq (all.target_ps, WEFT_US (3));
    assert_refused ("target = 0ns\n", WEFT_CONFIG_ERROR_RANGE, "[t] target: ");
    g_autoptr (GString) out = g_string_new (NULL);
    weft_params_describe (all_params, out);
    ck_assert_ptr_nonnull (strstr (out->str, "target               time    derived"));
    ck_assert_ptr_nonnull (strstr (out->str, "derived: 0.75 x the base RTT"));
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("params");
    TCase *tc = tcase_create ("read");
    tcase_add_checked_fixture (tc, setup, teardown);
    tcase_add_test (tc, test_params_defaults);
    tcase_add_test (tc, test_params_file_values_override);
    tcase_add_test (tc, test_params_unknown_key_suggests);
    tcase_add_test (tc, test_params_missing_required);
    tcase_add_test (tc, test_params_missing_group_is_empty);
    tcase_add_test (tc, test_params_range_in_units);
    tcase_add_test (tc, test_params_units_errors_carry_context);
    tcase_add_test (tc, test_params_enum_suggests);
    tcase_add_test (tc, test_params_bools_ints_doubles_ratios_strict);
    tcase_add_test (tc, test_params_two_bindings_share_group);
    tcase_add_test (tc, test_params_parse_value_free_form);
    tcase_add_test (tc, test_params_describe_and_type_names);
    tcase_add_test (tc, test_params_derived);
    suite_add_tcase (s, tc);
    return s;
}
