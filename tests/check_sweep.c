/* tests/check_sweep.c - invariants of sim/sweep.h: a grid has the product of its axes' lengths
 * as points, the first axis varying slowest and seeds fastest; zip pairs the i-th values and
 * seeds multiply; "\;" keeps a ';' inside a value; names are unique, file-name safe and the
 * same on every read; names that would collide get a hash; [sweep] is removed by strip.
 * Bad input: an empty axis or value, zip axes of different lengths, malformed seeds, a key
 * that is neither an axis nor mode/seeds/output, a missing [sweep] - each with its code and
 * the axis named.  Unchecked here: whether an axis names a parameter the engine knows (that
 * needs the parameter tables: tests/e2e/sweep.sh).
 */
#include "config.h"

#include <check.h>
#include <string.h>

#include "sim/sweep.h"
#include "tests/harness.h"

static WeftSweep *
read_text (const char *text, GError **error)
{
    g_autoptr (WeftExperiment) exp = weft_experiment_new_from_data (text, "s.ini", error);
    ck_assert_ptr_nonnull (exp);
    return weft_sweep_read (exp, error);
}

static const WeftSweepPoint *
point (const WeftSweep *s, guint i)
{
    return s->points->pdata[i];
}

START_TEST (test_sweep_grid_order_and_count)
{
    g_autoptr (GError) e = NULL;
    g_autoptr (WeftSweep) s = read_text ("[sweep]\n"
                                         "fabric:kind = infiniband; roce; ultra-ethernet\n"
                                         "topology:leaf_oversubscription = 1:1; 2:1; 3:1\n"
                                         "seeds = 1..2\n",
                                         &e);
    ck_assert_msg (s != NULL, "%s", e ? e->message : "");
    ck_assert_uint_eq (s->points->len, 3 * 3 * 2);
    ck_assert_uint_eq (s->axes->len, 3);
    /* index = (kind * 3 + oversub) * 2 + seed */
    for (guint k = 0; k < 3; k++)
        for (guint o = 0; o < 3; o++)
            for (guint sd = 0; sd < 2; sd++) {
                const WeftSweepPoint *p = point (s, (k * 3 + o) * 2 + sd);
                const WeftSweepAxis *ak = s->axes->pdata[0], *ao = s->axes->pdata[1];
                ck_assert_str_eq (weft_sweep_point_value (p, 0), ak->values[k]);
                ck_assert_str_eq (weft_sweep_point_value (p, 1), ao->values[o]);
                g_autofree char *seed = g_strdup_printf ("experiment:seed=%u", sd + 1);
                ck_assert_str_eq (p->overrides[2], seed);
            }
    ck_assert_str_eq (point (s, 3)->overrides[0], "fabric:kind=infiniband");
    ck_assert_str_eq (point (s, 3)->name, "kind-infiniband_leaf-oversubscription-2to1_seed-2");
    /* unique, safe */
    g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
    for (guint i = 0; i < s->points->len; i++) {
        const char *n = point (s, i)->name;
        ck_assert_msg (g_hash_table_add (seen, (gpointer) n), "duplicate name %s", n);
        for (const char *c = n; *c; c++)
            ck_assert_msg (g_ascii_isalnum (*c) || strchr ("._+-", *c), "unsafe byte in %s", n);
    }
}
END_TEST

START_TEST (test_sweep_names_are_deterministic)
{
    const char *text = "[sweep]\nswitch:buffer = 1MiB; 2MiB\nseeds = 3; 5\n";
    g_autoptr (WeftSweep) a = read_text (text, NULL);
    g_autoptr (WeftSweep) b = read_text (text, NULL);
    ck_assert_uint_eq (a->points->len, 4);
    for (guint i = 0; i < 4; i++)
        ck_assert_str_eq (point (a, i)->name, point (b, i)->name);
    ck_assert_str_eq (point (a, 1)->overrides[1], "experiment:seed=5");
}
END_TEST

START_TEST (test_sweep_zip_and_seeds)
{
    g_autoptr (GError) e = NULL;
    g_autoptr (WeftSweep) s = read_text ("[sweep]\nmode = zip\n"
                                         "fabric:kind = infiniband; roce\n"
                                         "switch:buffer = 1MiB; 2MiB\nseeds = 7..9\n",
                                         &e);
    ck_assert_msg (s != NULL, "%s", e ? e->message : "");
    ck_assert_uint_eq (s->points->len, 2 * 3);
    ck_assert_str_eq (point (s, 4)->overrides[0], "fabric:kind=roce");
    ck_assert_str_eq (point (s, 4)->overrides[1], "switch:buffer=2MiB");
    ck_assert_str_eq (point (s, 4)->overrides[2], "experiment:seed=8");
}
END_TEST

START_TEST (test_sweep_escaped_semicolon)
{
    g_autoptr (WeftSweep) s = read_text ("[sweep]\nexperiment:name = it's\\;odd; plain\n", NULL);
    ck_assert_uint_eq (s->points->len, 2);
    ck_assert_str_eq (point (s, 0)->overrides[0], "experiment:name=it's;odd");
    ck_assert_str_eq (weft_sweep_point_value (point (s, 0), 0), "it's;odd");
    ck_assert_str_eq (point (s, 0)->name, "name-it-s-odd");
}
END_TEST

START_TEST (test_sweep_colliding_names_get_a_hash)
{
    g_autoptr (WeftSweep) s = read_text ("[sweep]\nexperiment:name = a b; a/b; ab\n", NULL);
    ck_assert_uint_eq (s->points->len, 3);
    ck_assert_str_ne (point (s, 0)->name, point (s, 1)->name);
    ck_assert (g_str_has_prefix (point (s, 0)->name, "name-a-b-"));
    ck_assert_uint_eq (strlen (point (s, 0)->name), strlen ("name-a-b-") + 8);
    ck_assert_str_eq (point (s, 2)->name, "name-ab");
}
END_TEST

static void
expect_error (const char *text, WeftConfigError code, const char *needle)
{
    g_autoptr (GError) e = NULL;
    WeftSweep *s = read_text (text, &e);
    ck_assert_ptr_null (s);
    ck_assert_msg (g_error_matches (e, WEFT_CONFIG_ERROR, (gint) code), "%s: code %d", e->message,
                   e->code);
    ck_assert_msg (strstr (e->message, needle) != NULL, "'%s' lacks '%s'", e->message, needle);
    ck_assert_msg (strstr (e->message, "s.ini: [sweep]") != NULL, "%s", e->message);
}

START_TEST (test_sweep_bad_input)
{
    expect_error ("[sweep]\nswitch:buffer =\n", WEFT_CONFIG_ERROR_VALUE,
                  "[sweep] switch:buffer: empty axis");
    expect_error ("[sweep]\nswitch:buffer = 1MiB; ; 2MiB\n", WEFT_CONFIG_ERROR_VALUE,
                  "switch:buffer: value 2");
    expect_error ("[sweep]\nmode = zip\nswitch:buffer = 1MiB; 2MiB\nfabric:kind = roce\n",
                  WEFT_CONFIG_ERROR_RANGE, "fabric:kind: mode = zip");
    expect_error ("[sweep]\nseeds = 5..2\n", WEFT_CONFIG_ERROR_VALUE, "seeds");
    expect_error ("[sweep]\nseeds = x\n", WEFT_CONFIG_ERROR_VALUE, "seeds");
    expect_error ("[sweep]\nmode = cube\nseeds = 1\n", WEFT_CONFIG_ERROR_VALUE, "mode");
    expect_error ("[sweep]\nbuffer = 1MiB\n", WEFT_CONFIG_ERROR_UNKNOWN_KEY, "buffer");
    expect_error ("[sweep]\nmode = grid\n", WEFT_CONFIG_ERROR_MISSING, "no axis");
    expect_error ("[sweep]\nseeds = 1\nexperiment:seed = 2; 3\n", WEFT_CONFIG_ERROR_VALUE, "seeds");
    g_autoptr (GError) e = NULL;
    ck_assert_ptr_null (read_text ("[fabric]\nkind = roce\n", &e));
    ck_assert (g_error_matches (e, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_MISSING));
}
END_TEST

START_TEST (test_sweep_strip)
{
    g_autoptr (WeftExperiment) exp = weft_experiment_new_from_data (
        "[fabric]\nkind = roce\n[sweep]\nseeds = 1..2\n", "s.ini", NULL);
    ck_assert (weft_sweep_strip (exp));
    ck_assert (!weft_experiment_has_group (exp, "sweep"));
    ck_assert (!weft_sweep_strip (exp));
    g_autofree char *text = weft_experiment_to_data (exp);
    ck_assert_ptr_null (strstr (text, "[sweep]"));
    ck_assert_ptr_nonnull (strstr (text, "[fabric]"));
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("sweep");
    TCase *tc = tcase_create ("points");
    tcase_add_test (tc, test_sweep_grid_order_and_count);
    tcase_add_test (tc, test_sweep_names_are_deterministic);
    tcase_add_test (tc, test_sweep_zip_and_seeds);
    tcase_add_test (tc, test_sweep_escaped_semicolon);
    tcase_add_test (tc, test_sweep_colliding_names_get_a_hash);
    tcase_add_test (tc, test_sweep_bad_input);
    tcase_add_test (tc, test_sweep_strip);
    suite_add_tcase (s, tc);
    return s;
}
