/* tests/check_experiment.c - invariants: includes merge depth-first with the including file's
 * keys winning, resolved relative to the includer's directory; an include cycle is refused and
 * the chain is named; --set overrides (dotted groups included) win over files and malformed ones
 * are refused; every key remembers its origin, so errors name the included file or "--set";
 * groups list in file order; the resolved text re-parses to the same content without the
 * include key; unknown groups get a suggestion; an unreadable or unparsable file is one line.
 * Unchecked: absolute include paths and symlinked directories (canonicalisation is GLib's).
 */
#include "config.h"

#include <check.h>
#include <glib/gstdio.h>
#include <string.h>

#include "sim/experiment.h"
#include "sim/params.h"
#include "tests/harness.h"

static char *tmp;   /* a fresh directory per test */
static char *saved; /* working directory to restore */

static void
setup (void)
{
    GError *err = NULL;
    tmp = g_dir_make_tmp ("weft-experiment-XXXXXX", &err);
    ck_assert_msg (tmp != NULL, "%s", err ? err->message : "");
    saved = g_get_current_dir ();
    /* Names relative to the working directory are what users type: test with them. */
    ck_assert_int_eq (g_chdir (tmp), 0);
}

static void
remove_tree (const char *dir)
{
    GDir *d = g_dir_open (dir, 0, NULL);
    const char *name;
    while (d && (name = g_dir_read_name (d))) {
        g_autofree char *p = g_build_filename (dir, name, NULL);
        if (g_file_test (p, G_FILE_TEST_IS_DIR))
            remove_tree (p);
        else
            g_unlink (p);
    }
    if (d)
        g_dir_close (d);
    g_rmdir (dir);
}

static void
teardown (void)
{
    ck_assert_int_eq (g_chdir (saved), 0);
    remove_tree (tmp);
    g_free (tmp);
    g_free (saved);
}

static void
write_file (const char *name, const char *text)
{
    g_autofree char *dir = g_path_get_dirname (name);
    g_mkdir_with_parents (dir, 0700);
    GError *err = NULL;
    ck_assert_msg (g_file_set_contents (name, text, -1, &err), "%s", err ? err->message : "");
}

static char *
get (WeftExperiment *exp, const char *group, const char *key)
{
    return g_key_file_get_string (weft_experiment_keyfile (exp), group, key, NULL);
}

static WeftExperiment *
load_ok (const char *path)
{
    g_autoptr (GError) err = NULL;
    WeftExperiment *exp = weft_experiment_load (path, &err);
    ck_assert_msg (exp != NULL, "%s", err ? err->message : "");
    return exp;
}

START_TEST (test_experiment_include_override_order)
{
    write_file ("base.ini", "[experiment]\nname = base\nseed = 1\n[switch]\nbuffer = 1MiB\n"
                            "kind = shared\n");
    write_file ("mid.ini", "[experiment]\ninclude = base.ini\nseed = 2\n[switch]\nbuffer = 2MiB\n");
    write_file ("top.ini", "[experiment]\ninclude = mid.ini\nname = top\n[topology]\nk = 4\n");
    g_autoptr (WeftExperiment) exp = load_ok ("top.ini");
    g_autofree char *name = get (exp, "experiment", "name");
    g_autofree char *seed = get (exp, "experiment", "seed");
    g_autofree char *buffer = get (exp, "switch", "buffer");
    g_autofree char *kind = get (exp, "switch", "kind");
    ck_assert_str_eq (name, "top");
    ck_assert_str_eq (seed, "2");
    ck_assert_str_eq (buffer, "2MiB");
    ck_assert_str_eq (kind, "shared");
    ck_assert (!g_key_file_has_key (weft_experiment_keyfile (exp), "experiment", "include", NULL));
    ck_assert_str_eq (weft_experiment_origin (exp, "experiment", "name"), "top.ini");
    ck_assert_str_eq (weft_experiment_origin (exp, "experiment", "seed"), "mid.ini");
    ck_assert_str_eq (weft_experiment_origin (exp, "switch", "kind"), "base.ini");
    ck_assert_str_eq (weft_experiment_path (exp), "top.ini");

    g_auto (GStrv) groups = weft_experiment_groups (exp);
    ck_assert_uint_eq (g_strv_length (groups), 3);
    ck_assert_str_eq (groups[0], "experiment");
    ck_assert_str_eq (groups[1], "switch");
    ck_assert_str_eq (groups[2], "topology");
}
END_TEST

START_TEST (test_experiment_include_list_later_wins)
{
    write_file ("a.ini", "[x]\nv = a\nonly_a = 1\n");
    write_file ("b.ini", "[x]\nv = b\n");
    write_file ("top.ini", "[experiment]\ninclude = a.ini; b.ini\n");
    g_autoptr (WeftExperiment) exp = load_ok ("top.ini");
    g_autofree char *v = get (exp, "x", "v");
    ck_assert_str_eq (v, "b");
    ck_assert_str_eq (weft_experiment_origin (exp, "x", "only_a"), "a.ini");
}
END_TEST

START_TEST (test_experiment_include_relative_to_includer)
{
    write_file ("conf/common/fabric.ini", "[fabric]\nkind = roce\nflows = flows.csv\n");
    write_file ("conf/run.ini", "[experiment]\ninclude = common/fabric.ini\n");
    /* A decoy with the same name next to the working directory must not be read. */
    write_file ("common/fabric.ini", "[fabric]\nkind = infiniband\n");
    g_autoptr (WeftExperiment) exp = load_ok ("conf/run.ini");
    g_autofree char *kind = get (exp, "fabric", "kind");
    ck_assert_str_eq (kind, "roce");
    ck_assert_str_eq (weft_experiment_origin (exp, "fabric", "kind"), "conf/common/fabric.ini");
    g_autofree char *dir = weft_experiment_dir_for (exp, "fabric", "flows");
    ck_assert_str_eq (dir, "conf/common");
}
END_TEST

START_TEST (test_experiment_include_cycle_names_chain)
{
    write_file ("a.ini", "[experiment]\ninclude = b.ini\n");
    write_file ("b.ini", "[experiment]\ninclude = a.ini\n");
    g_autoptr (GError) err = NULL;
    WeftExperiment *exp = weft_experiment_load ("a.ini", &err);
    ck_assert_ptr_null (exp);
    ck_assert (g_error_matches (err, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_INCLUDE_CYCLE));
    ck_assert_str_eq (err->message,
                      "a.ini: [experiment] include: include cycle: a.ini -> b.ini -> a.ini");

    write_file ("self.ini", "[experiment]\ninclude = ./self.ini\n");
    g_clear_error (&err);
    ck_assert_ptr_null (weft_experiment_load ("self.ini", &err));
    ck_assert (g_error_matches (err, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_INCLUDE_CYCLE));
}
END_TEST

START_TEST (test_experiment_diamond_include_is_not_a_cycle)
{
    write_file ("d.ini", "[x]\nv = d\n");
    write_file ("b.ini", "[experiment]\ninclude = d.ini\n");
    write_file ("c.ini", "[experiment]\ninclude = d.ini\n");
    write_file ("a.ini", "[experiment]\ninclude = b.ini;c.ini\n");
    g_autoptr (WeftExperiment) exp = load_ok ("a.ini");
    g_autofree char *v = get (exp, "x", "v");
    ck_assert_str_eq (v, "d");
}
END_TEST

START_TEST (test_experiment_set_overrides)
{
    write_file ("run.ini", "[workload.incast]\nflow_size = 1MiB\n[switch]\nbuffer = 1MiB\n");
    g_autoptr (WeftExperiment) exp = load_ok ("run.ini");
    g_autoptr (GError) err = NULL;
    ck_assert (weft_experiment_set (exp, "workload.incast:flow_size=2MiB", &err));
    ck_assert (weft_experiment_set (exp, "topology:oversubscription = 3:1", &err));
    ck_assert (weft_experiment_set (exp, "trace:flows=a.csv", &err));
    g_autofree char *fs = get (exp, "workload.incast", "flow_size");
    g_autofree char *os = get (exp, "topology", "oversubscription");
    ck_assert_str_eq (fs, "2MiB");
    ck_assert_str_eq (os, "3:1");
    ck_assert_str_eq (weft_experiment_origin (exp, "workload.incast", "flow_size"), "--set");
    ck_assert_str_eq (weft_experiment_origin (exp, "switch", "buffer"), "run.ini");
    ck_assert (weft_experiment_has_group (exp, "topology"));
    g_autofree char *dir = weft_experiment_dir_for (exp, "trace", "flows");
    ck_assert_str_eq (dir, ".");

    g_clear_error (&err);
    ck_assert (!weft_experiment_set (exp, "experiment:include=x.ini", &err));
    ck_assert (g_error_matches (err, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_OVERRIDE));

    /* a tab in a name is no group or key a key file can hold (GLib would warn and drop it) */
    const char *bad[] = {
        "foo=bar",           "switch:buffer",        ":k=v", "switch:=v", "a=b:c=d",
        "sw\titch:buffer=1", "switch:buf\tfer=1MiB", NULL
    };
    for (guint i = 0; bad[i]; i++) {
        g_clear_error (&err);
        ck_assert_msg (!weft_experiment_set (exp, bad[i], &err), "accepted %s", bad[i]);
        ck_assert (g_error_matches (err, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_OVERRIDE));
        ck_assert_ptr_nonnull (strstr (err->message, "GROUP:KEY=VALUE"));
        ck_assert_ptr_nonnull (strstr (err->message, bad[i]));
    }
    /* bytes that are not UTF-8: refused, and shown as valid text */
    g_clear_error (&err);
    ck_assert (!weft_experiment_set (exp, "switch:buffer=1\xffMiB", &err));
    ck_assert (g_error_matches (err, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_OVERRIDE));
    ck_assert (g_utf8_validate (err->message, -1, NULL));
}
END_TEST

typedef struct {
    guint64 buffer_bytes;
    guint64 senders;
} Sw;

static const WeftParamSpec sw_params[] = {
    WEFT_PARAM_BYTES ("buffer", Sw, buffer_bytes, "1MiB", "1KiB", NULL, "buffer"),
    WEFT_PARAM_UINT ("senders", Sw, senders, "1", "1", "100", "senders"),
    WEFT_PARAM_END,
};

START_TEST (test_experiment_errors_name_the_origin)
{
    write_file ("inc/base.ini", "[switch]\nbuffer = 12\nsenders = 3\n");
    write_file ("run.ini", "[experiment]\ninclude = inc/base.ini\n");
    g_autoptr (WeftExperiment) exp = load_ok ("run.ini");
    Sw sw;
    WeftParamBinding b[] = { { sw_params, &sw } };
    g_autoptr (GError) err = NULL;
    ck_assert (!weft_params_read (exp, "switch", b, 1, &err));
    ck_assert (g_error_matches (err, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_UNIT));
    ck_assert_msg (g_str_has_prefix (err->message, "inc/base.ini: [switch] buffer: '12' has no "
                                                   "unit"),
                   "%s", err->message);

    ck_assert (weft_experiment_set (exp, "switch:buffer=1MiB", NULL));
    ck_assert (weft_experiment_set (exp, "switch:senders=1000", NULL));
    g_clear_error (&err);
    ck_assert (!weft_params_read (exp, "switch", b, 1, &err));
    ck_assert (g_error_matches (err, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_RANGE));
    ck_assert_msg (g_str_has_prefix (err->message, "--set: [switch] senders: 1000 is out of range"),
                   "%s", err->message);

    /* weft_experiment_fail without a key names the group's first file. */
    g_clear_error (&err);
    ck_assert (
        !weft_experiment_fail (exp, &err, WEFT_CONFIG_ERROR_VALUE, "switch", NULL, "odd %d", 3));
    ck_assert_str_eq (err->message, "inc/base.ini: [switch]: odd 3");
}
END_TEST

/* Every group, key and value of @a is in @b with the same value, and the counts agree. */
static void
assert_same_content (GKeyFile *a, GKeyFile *b)
{
    gsize na, nb;
    g_auto (GStrv) ga = g_key_file_get_groups (a, &na);
    g_auto (GStrv) gb = g_key_file_get_groups (b, &nb);
    ck_assert_uint_eq (na, nb);
    for (gsize i = 0; i < na; i++) {
        ck_assert_str_eq (ga[i], gb[i]);
        gsize ka, kb;
        g_auto (GStrv) keys = g_key_file_get_keys (a, ga[i], &ka, NULL);
        g_auto (GStrv) keys_b = g_key_file_get_keys (b, ga[i], &kb, NULL);
        ck_assert_uint_eq (ka, kb);
        for (gsize k = 0; k < ka; k++) {
            g_autofree char *va = g_key_file_get_value (a, ga[i], keys[k], NULL);
            g_autofree char *vb = g_key_file_get_value (b, ga[i], keys[k], NULL);
            ck_assert_msg (vb && strcmp (va, vb) == 0, "[%s] %s: '%s' vs '%s'", ga[i], keys[k], va,
                           vb);
        }
    }
}

START_TEST (test_experiment_to_data_round_trip)
{
    write_file ("base.ini", "# a comment\n[topology]\nk = 4\nlink_rate = 100Gbps\n"
                            "[empty]\n[workload.incast]\nnote = \\sleading space\n");
    write_file ("run.ini", "[experiment]\ninclude = base.ini\nname = r\n[topology]\nk = 8\n");
    g_autoptr (WeftExperiment) exp = load_ok ("run.ini");
    ck_assert (weft_experiment_set (exp, "workload.incast:hosts=h0;h1", NULL));
    g_autofree char *text = weft_experiment_to_data (exp);
    ck_assert_msg (g_str_has_prefix (text, "#"), "%s", text);
    ck_assert_ptr_nonnull (strstr (text, "run.ini"));
    ck_assert_ptr_nonnull (strstr (text, "base.ini"));
    ck_assert_ptr_nonnull (strstr (text, "--set workload.incast:hosts=h0;h1"));
    ck_assert_ptr_null (strstr (text, "\ninclude"));

    g_autoptr (GError) err = NULL;
    g_autoptr (WeftExperiment) again = weft_experiment_new_from_data (text, "resolved.ini", &err);
    ck_assert_msg (again != NULL, "%s\n%s", err ? err->message : "", text);
    assert_same_content (weft_experiment_keyfile (exp), weft_experiment_keyfile (again));
    assert_same_content (weft_experiment_keyfile (again), weft_experiment_keyfile (exp));
    ck_assert (
        !g_key_file_has_key (weft_experiment_keyfile (again), "experiment", "include", NULL));
    g_auto (GStrv) g1 = weft_experiment_groups (exp);
    g_auto (GStrv) g2 = weft_experiment_groups (again);
    ck_assert (g_strv_equal ((const char *const *) g1, (const char *const *) g2));
    ck_assert (weft_experiment_has_group (again, "empty"));
    g_autofree char *note = get (again, "workload.incast", "note");
    ck_assert_str_eq (note, " leading space");
}
END_TEST

START_TEST (test_experiment_groups_with_prefix)
{
    g_autoptr (WeftExperiment) exp = weft_experiment_new_from_data (
        "[workload.b]\nx=1\n[fault.l1]\n[workload.a]\n[workload]\n[workloads.c]\n", "p.ini", NULL);
    g_auto (GStrv) w = weft_experiment_groups_with_prefix (exp, "workload");
    ck_assert_uint_eq (g_strv_length (w), 2);
    ck_assert_str_eq (w[0], "workload.b");
    ck_assert_str_eq (w[1], "workload.a");
}
END_TEST

START_TEST (test_experiment_check_groups_suggests)
{
    const char *known[] = { "experiment", "topology", "switch", NULL };
    const char *prefixes[] = { "workload", "fault", NULL };
    g_autoptr (GError) err = NULL;
    g_autoptr (WeftExperiment) good = weft_experiment_new_from_data (
        "[experiment]\n[switch]\n[workload.incast]\n[fault.link.a]\n", "g.ini", NULL);
    ck_assert (weft_experiment_check_groups (good, known, prefixes, &err));

    g_autoptr (WeftExperiment) typo = weft_experiment_new_from_data (
        "[experiment]\nname = x\n[topolgy]\nk = 4\n", "typo.ini", NULL);
    ck_assert (!weft_experiment_check_groups (typo, known, prefixes, &err));
    ck_assert (g_error_matches (err, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_UNKNOWN_GROUP));
    ck_assert_msg (
        g_str_has_prefix (err->message,
                          "typo.ini: [topolgy]: unknown group, did you mean [topology]?"),
        "%s", err->message);

    g_autoptr (WeftExperiment) pre =
        weft_experiment_new_from_data ("[worklaod.incast]\n", "w.ini", NULL);
    g_clear_error (&err);
    ck_assert (!weft_experiment_check_groups (pre, known, prefixes, &err));
    ck_assert_ptr_nonnull (strstr (err->message, "did you mean [workload.incast]?"));

    g_autoptr (WeftExperiment) bare = weft_experiment_new_from_data ("[workload]\n", "w.ini", NULL);
    g_clear_error (&err);
    ck_assert (!weft_experiment_check_groups (bare, known, prefixes, &err));
    ck_assert_ptr_nonnull (strstr (err->message, "[workload.NAME]"));
}
END_TEST

START_TEST (test_experiment_unreadable_and_unparsable)
{
    g_autoptr (GError) err = NULL;
    ck_assert_ptr_null (weft_experiment_load ("missing.ini", &err));
    ck_assert (g_error_matches (err, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_FILE));
    ck_assert_str_eq (err->message,
                      "missing.ini: cannot read experiment file: No such file or directory");

    write_file ("broken.ini", "[a]\nthis is not a key value pair\n");
    g_clear_error (&err);
    ck_assert_ptr_null (weft_experiment_load ("broken.ini", &err));
    ck_assert (g_error_matches (err, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_FILE));
    ck_assert (g_str_has_prefix (err->message, "broken.ini: "));
    ck_assert_ptr_null (strchr (err->message, '\n'));

    write_file ("inc.ini", "[experiment]\ninclude = nothere.ini\n");
    g_clear_error (&err);
    ck_assert_ptr_null (weft_experiment_load ("inc.ini", &err));
    ck_assert (g_error_matches (err, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_FILE));
    ck_assert_ptr_nonnull (strstr (err->message, "nothere.ini: cannot read experiment file"));
    ck_assert_ptr_nonnull (strstr (err->message, "inc.ini"));
}
END_TEST

START_TEST (test_experiment_suggest)
{
    const char *words[] = { "buffer", "kmin", "kmax", "link_rate", NULL };
    ck_assert_str_eq (weft_suggest ("bufer", words), "buffer");
    ck_assert_str_eq (weft_suggest ("kmix", words), "kmin");
    ck_assert_str_eq (weft_suggest ("linkrate", words), "link_rate");
    ck_assert_ptr_null (weft_suggest ("completely_different", words));
    ck_assert_ptr_null (weft_suggest ("x", (const char *[]){ NULL }));
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("experiment");
    TCase *tc = tcase_create ("files");
    tcase_add_checked_fixture (tc, setup, teardown);
    tcase_add_test (tc, test_experiment_include_override_order);
    tcase_add_test (tc, test_experiment_include_list_later_wins);
    tcase_add_test (tc, test_experiment_include_relative_to_includer);
    tcase_add_test (tc, test_experiment_include_cycle_names_chain);
    tcase_add_test (tc, test_experiment_diamond_include_is_not_a_cycle);
    tcase_add_test (tc, test_experiment_set_overrides);
    tcase_add_test (tc, test_experiment_errors_name_the_origin);
    tcase_add_test (tc, test_experiment_to_data_round_trip);
    tcase_add_test (tc, test_experiment_unreadable_and_unparsable);
    suite_add_tcase (s, tc);
    tc = tcase_create ("groups");
    tcase_add_test (tc, test_experiment_groups_with_prefix);
    tcase_add_test (tc, test_experiment_check_groups_suggests);
    tcase_add_test (tc, test_experiment_suggest);
    suite_add_tcase (s, tc);
    return s;
}
