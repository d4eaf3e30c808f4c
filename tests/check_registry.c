/* tests/check_registry.c - the mechanism registry drives `weft params`, the unknown-group check
 * and the run summary; nothing lists mechanisms by hand.
 *
 * Checks:
 *  - every registry group is described by `weft params` (all groups, and the group alone), with
 *    every key of every mechanism that reads it;
 *  - the groups an experiment may contain are exactly the registry's groups plus the engine's
 *    own (experiment, trace, fabric, server, topology; workload.NAME and fault.NAME prefixes):
 *    each of those is accepted, a mechanism's name that is not a group ("vlarb", "buffer") and
 *    near misses are refused, by domain and code;
 *  - a mechanism's group on a fabric none of its readers applies to is refused, naming the
 *    fabrics it is for;
 *  - every mechanism with a summary hook prints its line in the run summary of a small run on
 *    a fabric it applies to (its hook's own output is found in the summary, and the summary
 *    holds no line of a mechanism that does not apply);
 *  - descriptors are well formed: names unique, a group, help, at least one fabric.
 * Leaves unchecked: what the lines say (the mechanisms' own tests check their counters).
 */
#include "config.h"
#include <check.h>
#include <string.h>

#include "models/registry.h"
#include "network/network.h"
#include "tests/harness.h"

static const char *const engine_groups[] = { "experiment", "trace",    "fabric", "parallel",
                                             "server",     "topology", NULL };

static gboolean
is_registry_group (const char *g)
{
    for (const WeftMechanism *const *m = weft_mechanisms; *m; m++)
        if (strcmp ((*m)->group, g) == 0)
            return TRUE;
    return FALSE;
}

START_TEST (test_registry_descriptors_well_formed)
{
    guint n = 0;
    for (const WeftMechanism *const *m = weft_mechanisms; *m; m++, n++) {
        ck_assert_ptr_nonnull ((*m)->name);
        ck_assert_ptr_nonnull ((*m)->group);
        ck_assert (strlen ((*m)->help) > 10);
        ck_assert_uint_ne ((*m)->fabrics, 0);
        for (const WeftMechanism *const *o = weft_mechanisms; o < m; o++)
            ck_assert_str_ne ((*o)->name, (*m)->name);
        /* a group is listed once, so its readers sit together in the array */
        gboolean seen_before = FALSE, gap = FALSE;
        for (const WeftMechanism *const *o = weft_mechanisms; o < m; o++) {
            if (strcmp ((*o)->group, (*m)->group) == 0)
                seen_before = TRUE;
            else if (seen_before)
                gap = TRUE;
        }
        ck_assert_msg (!(seen_before && gap), "%s: readers of [%s] not adjacent", (*m)->name,
                       (*m)->group);
    }
    ck_assert_uint_ge (n, 9); /* ethernet, infiniband, vlarb, ibcc, dcqcn, ecn, pfc, switch,
                                 buffer, transport */
}
END_TEST

START_TEST (test_registry_every_group_in_params)
{
    g_autoptr (GString) all = g_string_new (NULL);
    ck_assert (weft_network_describe_params (NULL, all, NULL));
    for (const WeftMechanism *const *m = weft_mechanisms; *m; m++) {
        g_autofree char *title = g_strdup_printf ("\n[%s]  ", (*m)->group);
        ck_assert_msg (strstr (all->str, title), "[%s] missing from weft params", (*m)->group);
        g_autoptr (GString) one = g_string_new (NULL);
        ck_assert (weft_network_describe_params ((*m)->group, one, NULL));
        for (const WeftParamSpec *p = (*m)->params; p && p->name; p++) {
            g_autofree char *key = g_strdup_printf ("\n  %s ", p->name);
            ck_assert_msg (strstr (one->str, key), "[%s] %s missing from weft params %s",
                           (*m)->group, p->name, (*m)->group);
        }
    }
    for (guint i = 0; engine_groups[i]; i++) {
        g_autoptr (GString) one = g_string_new (NULL);
        ck_assert (weft_network_describe_params (engine_groups[i], one, NULL));
    }
    g_autoptr (GString) none = g_string_new (NULL);
    ck_assert (!weft_network_describe_params ("vlarb", none, NULL));
}
END_TEST

/* An experiment of one extra group @group (empty), on @fabric; the error of preparing it, and
 * in @unused (may be NULL) whether the run lists @group as another fabric's, unused. */
static GError *
prepare_with_group_unused (const char *fabric, const char *group, gboolean *unused)
{
    g_autofree char *text = g_strdup_printf (
        "[topology]\ngenerator = single_switch\nhosts = 2\nlink_rate = 100Gbps\n"
        "[fabric]\nkind = %s\n[workload.w]\nkind = flows\nflows = host0>host1 8KiB\n"
        "%s%s%s",
        fabric, group ? "[" : "", group ? group : "", group ? "]\n" : "");
    WeftSession s;
    GError *error = NULL;
    gboolean ok = harness_try_prepare (&s, text, &error);
    if (unused) {
        *unused = FALSE;
        for (guint i = 0; ok && s.net->env.unused_groups[i]; i++)
            *unused |= strcmp (s.net->env.unused_groups[i], group) == 0;
    }
    weft_session_clear (&s);
    return error;
}

static GError *
prepare_with_group (const char *fabric, const char *group)
{
    return prepare_with_group_unused (fabric, group, NULL);
}

START_TEST (test_registry_groups_accepted_are_registry_or_engine)
{
    static const char *const fabrics[] = { "ethernet", "infiniband", "roce", "ultra-ethernet" };
    /* every registry group is accepted on every fabric: used where a reader applies, listed
     * as unused elsewhere (an experiment may carry several fabrics' groups) */
    for (const WeftMechanism *const *m = weft_mechanisms; *m; m++) {
        if (strcmp ((*m)->group, "fault") == 0)
            continue; /* its groups are [fault.NAME]: checked below */
        for (int k = 0; k < 4; k++) {
            guint readers = 0;
            for (const WeftMechanism *const *o = weft_mechanisms; *o; o++)
                if (strcmp ((*o)->group, (*m)->group) == 0)
                    readers |= (*o)->fabrics;
            gboolean unused = FALSE;
            g_autoptr (GError) e = prepare_with_group_unused (fabrics[k], (*m)->group, &unused);
            ck_assert_msg (e == NULL, "[%s] on %s: %s", (*m)->group, fabrics[k],
                           e ? e->message : "");
            ck_assert_msg (unused == !(readers & WEFT_FABRIC_BIT (k)), "[%s] on %s: unused %d",
                           (*m)->group, fabrics[k], unused);
        }
    }
    /* the engine's groups and the two prefixes are known everywhere (a generator without
     * servers refuses [server], and an empty fault group lacks its kind: both are other
     * errors than an unknown group) */
    for (guint i = 0; engine_groups[i]; i++) {
        if (strcmp (engine_groups[i], "topology") == 0 || strcmp (engine_groups[i], "fabric") == 0)
            continue; /* the experiment has them already */
        g_autoptr (GError) e = prepare_with_group ("ethernet", engine_groups[i]);
        ck_assert_msg (!e || !strstr (e->message, "unknown group"), "[%s]: %s", engine_groups[i],
                       e->message);
    }
    g_autoptr (GError) wl = prepare_with_group ("ethernet", "workload.idle");
    ck_assert (!g_error_matches (wl, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_UNKNOWN_GROUP));
    g_autoptr (GError) fault = prepare_with_group ("ethernet", "fault.x");
    ck_assert (g_error_matches (fault, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_MISSING));
    /* anything else is unknown: mechanism names that are not groups, near misses */
    static const char *const unknown[] = { "vlarb",      "buffer",    "pfcs",
                                           "transports", "mechanism", NULL };
    for (guint i = 0; unknown[i]; i++) {
        ck_assert (!is_registry_group (unknown[i]));
        g_autoptr (GError) e = prepare_with_group ("roce", unknown[i]);
        ck_assert_msg (g_error_matches (e, WEFT_CONFIG_ERROR, WEFT_CONFIG_ERROR_UNKNOWN_GROUP),
                       "[%s] accepted", unknown[i]);
    }
}
END_TEST

/* A small run on each fabric: each applicable mechanism's summary hook output is part of the
 * summary, and no other mechanism's. */
START_TEST (test_registry_summary_lines_from_hooks)
{
    static const char *const fabrics[] = { "ethernet", "infiniband", "roce" };
    guint printed = 0;
    for (int k = 0; k < 3; k++) {
        g_autofree char *text = g_strdup_printf (
            "[topology]\ngenerator = single_switch\nhosts = 3\nlink_rate = 100Gbps\n"
            "[fabric]\nkind = %s\nrouting = adaptive\n"
            "[workload.w]\nkind = flows\nflows = host0>host2 256KiB; host1>host2 256KiB\n",
            fabrics[k]);
        WeftSession s;
        harness_prepare (&s, text);
        ck_assert_int_eq (weft_sim_run (s.sim), WEFT_SIM_DONE);
        WeftNetworkStats st;
        weft_network_stats (s.net, &st);
        g_autoptr (GString) summary = g_string_new (NULL);
        weft_network_summary (s.net, &st, summary);
        for (const WeftMechanism *const *m = weft_mechanisms; *m; m++) {
            if (!(*m)->summary)
                continue;
            g_autoptr (GString) own = g_string_new (NULL);
            (*m)->summary (&s.net->env, &st, own);
            if (!weft_mechanism_applies (*m, k))
                continue;
            if (own->len) {
                ck_assert_msg (strstr (summary->str, own->str), "%s's line missing on %s",
                               (*m)->name, fabrics[k]);
                printed++;
            }
        }
        /* the lines of mechanisms of other fabrics are absent */
        ck_assert ((strstr (summary->str, "credits      ") != NULL) == (k == 1));
        ck_assert ((strstr (summary->str, "pfc          ") != NULL) == (k == 2));
        ck_assert ((strstr (summary->str, "ecn/dcqcn    ") != NULL) == (k == 2));
        weft_session_clear (&s);
    }
    /* infiniband (credits), ibcc, dcqcn, pfc at least */
    ck_assert_uint_ge (printed, 4);
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("registry");
    TCase *tc = tcase_create ("registry");
    tcase_add_checked_fixture (tc, harness_tmp_setup, harness_tmp_teardown);
    tcase_add_test (tc, test_registry_descriptors_well_formed);
    tcase_add_test (tc, test_registry_every_group_in_params);
    tcase_add_test (tc, test_registry_groups_accepted_are_registry_or_engine);
    tcase_add_test (tc, test_registry_summary_lines_from_hooks);
    suite_add_tcase (s, tc);
    return s;
}
