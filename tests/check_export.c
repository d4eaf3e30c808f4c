/* tests/check_export.c - analysis/export.c: the string writers every export shares.
 *
 * Invariants (RFC 8259 for JSON, RFC 4180 for CSV):
 *  - a JSON string escapes the quote and the backslash, writes every control character (C0,
 *    DEL, C1) as \u00XX, passes other UTF-8 through unchanged, replaces bytes that are not
 *    UTF-8 by U+FFFD, and NULL is the literal null;
 *  - a CSV field is quoted exactly when it holds a comma, a quote, CR or LF, with its quotes
 *    doubled; NULL writes nothing.
 */
#include "config.h"
#include <check.h>
#include <stdlib.h>

#include "analysis/export.h"
#include "tests/harness.h"

static char *
json (const char *s)
{
    GString *out = g_string_new (NULL);
    weft_export_json_string (out, s);
    return g_string_free (out, FALSE);
}

static char *
csv (const char *s)
{
    GString *out = g_string_new ("<");
    weft_export_csv_field (out, s);
    g_string_append_c (out, '>');
    return g_string_free (out, FALSE);
}

#define CHECK_JSON(in, expected)                                                                   \
    do {                                                                                           \
        g_autofree char *got_ = json (in);                                                         \
        ck_assert_str_eq (got_, expected);                                                         \
    } while (0)

#define CHECK_CSV(in, expected)                                                                    \
    do {                                                                                           \
        g_autofree char *got_ = csv (in);                                                          \
        ck_assert_str_eq (got_, expected);                                                         \
    } while (0)

START_TEST (test_export_json_string)
{
    CHECK_JSON (NULL, "null");
    CHECK_JSON ("", "\"\"");
    CHECK_JSON ("dgx-2/mlx5_3", "\"dgx-2/mlx5_3\"");
    CHECK_JSON ("say \"hi\" \\ now", "\"say \\\"hi\\\" \\\\ now\"");
    CHECK_JSON ("a\tb\nc\x01", "\"a\\u0009b\\u000ac\\u0001\"");
    CHECK_JSON ("del\x7f", "\"del\\u007f\"");
    /* U+0085 (NEL, a C1 control) is two bytes in UTF-8 and one escape in JSON. */
    CHECK_JSON ("c1\xc2\x85", "\"c1\\u0085\"");
    /* é and a 4-byte character pass through as they are. */
    CHECK_JSON ("caf\xc3\xa9 \xf0\x9f\x98\x80", "\"caf\xc3\xa9 \xf0\x9f\x98\x80\"");
    /* A lone continuation byte and a truncated sequence: one U+FFFD each. */
    CHECK_JSON ("a\x80z", "\"a\xef\xbf\xbdz\"");
    CHECK_JSON ("b\xc3", "\"b\xef\xbf\xbd\"");
}
END_TEST

START_TEST (test_export_csv_field)
{
    CHECK_CSV (NULL, "<>");
    CHECK_CSV ("", "<>");
    CHECK_CSV ("plain text", "<plain text>");
    CHECK_CSV ("a,b", "<\"a,b\">");
    CHECK_CSV ("say \"hi\"", "<\"say \"\"hi\"\"\">");
    CHECK_CSV ("two\r\nlines", "<\"two\r\nlines\">");
    CHECK_CSV ("x\ny", "<\"x\ny\">");
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("export");
    TCase *tc = tcase_create ("strings");
    tcase_add_test (tc, test_export_json_string);
    tcase_add_test (tc, test_export_csv_field);
    suite_add_tcase (s, tc);
    return s;
}
