/* tests/check_pathcache.c - the flows' route walks remembered per (source, destination)
 * (models/pathcache.h, weft_transport_cached_walk).
 *
 * Checks, against the uncached walk (weft_transport_walk) of the same graph at that moment:
 *  - every (source host, destination host) pair of a leaf-spine, along minimal paths and along
 *    the configured routing (ECMP, static), for many flow hashes, twice: the answers agree,
 *    and the second pass is answered from the cache (it is used, so this can fail);
 *  - a pair whose walk picks by hash at an ECMP node: only the walk that found it out is
 *    answered (its own hash's path), later ones are left to the caller, and the hashes tried
 *    take at least two paths (so an answer for the wrong hash would be caught);
 *  - a static route changed at the leaf (weft_graph_route_set_static): the next walk takes the
 *    new port, not the remembered one;
 *  - a link of the static route cut and the routes computed again (a subnet manager's
 *    reroute): no walk crosses it afterwards, though the remembered one did;
 *  - a table smaller than the pairs (one flow's 16 slots) evicts and still agrees; the table
 *    never exceeds WEFT_PATH_CACHE_SLOTS, however many flows;
 *  - adaptive routing and spraying get no cache.
 * Leaves unchecked here: the flagship's traces and printed table with and without the cache
 * (identical by h5diff, bench/README.md "Route walks remembered per pair").
 */
#include "config.h"
#include <check.h>

#include "cli/session.h"
#include "models/pathcache.h"
#include "models/transport.h"
#include "sim/graph.h"
#include "tests/harness.h"

#define LEAFSPINE                                                                                  \
    "[topology]\ngenerator = leafspine\nleaves = 4\nspines = 4\nhosts_per_leaf = 4\n"              \
    "link_rate = 100Gbps\nuplink_rate = 100Gbps\n"
#define ONE_FLOW "[workload.w]\nkind = flows\nflows = host0>host15 1MiB\n"
#define PERMUTATION "[workload.p]\nkind = permutation\nflow_size = 64KiB\n"
#define N_HASHES 24u

static void
collect (guint32 node, guint32 port, void *data)
{
    GArray *hops = data;
    g_array_append_val (hops, node);
    g_array_append_val (hops, port);
}

/* The uncached walk's hops (node, port, ...) for a flow of hash @hash, in @hops; its count. */
static guint
uncached (const WeftTransport *tp, guint32 hash, guint32 from, guint32 to_ep, gboolean minimal,
          GArray *hops)
{
    WeftFlow f = tp->flows[0];
    f.hash = hash;
    g_array_set_size (hops, 0);
    return weft_transport_walk (tp, &f, from, to_ep, minimal, collect, hops);
}

/* Asserts that the cached walk, where it answers, gives the uncached one's hops and links;
 * returns the entry, or NULL when the cache leaves the walk to its caller. */
static const WeftPathEntry *
agrees (const WeftTransport *tp, guint32 hash, guint32 from, guint32 to_ep, gboolean minimal)
{
    g_autoptr (GArray) want = g_array_new (FALSE, FALSE, sizeof (guint32));
    guint n = uncached (tp, hash, from, to_ep, minimal, want);
    ck_assert_uint_ne (n, G_MAXUINT);
    const WeftPathEntry *e = weft_transport_cached_walk (tp, hash, from, to_ep, minimal);
    WeftFlow f = tp->flows[0];
    f.hash = hash;
    if (e == NULL) {
        if (!minimal && !weft_graph_node (tp->graph, from)->forwards)
            ck_assert_uint_eq (weft_transport_first_hop (tp, &f, from, to_ep),
                               g_array_index (want, guint32, 1));
        return NULL;
    }
    ck_assert_uint_eq (e->n_hops, n);
    for (guint i = 0; i < n; i++) {
        guint32 node = g_array_index (want, guint32, 2 * i);
        guint32 port = g_array_index (want, guint32, 2 * i + 1);
        ck_assert_uint_eq (e->hops[i].node, node);
        ck_assert_uint_eq (e->hops[i].port, port);
        ck_assert_uint_eq (e->hops[i].link,
                           g_array_index (weft_graph_node (tp->graph, node)->ports, guint32, port));
    }
    /* The sender's first port (weft_transport_first_hop, remembered too) is the walk's. */
    if (!minimal && !weft_graph_node (tp->graph, from)->forwards)
        ck_assert_uint_eq (weft_transport_first_hop (tp, &f, from, to_ep), e->hops[0].port);
    return e;
}

/* Hash i of the test: spread over 32 bits. */
static guint32
hash_at (guint i)
{
    return (guint32) (i * 2654435761u + 12345u);
}

/* agrees() on every ordered pair of the leaf-spine's 16 hosts, four hashes, both modes. */
static void
agrees_on_every_pair (const WeftSession *s)
{
    for (guint a = 0; a < 16; a++)
        for (guint b = 0; b < 16; b++) {
            if (a == b)
                continue;
            g_autofree char *src = g_strdup_printf ("host%u", a);
            g_autofree char *dst = g_strdup_printf ("host%u", b);
            for (guint h = 0; h < 4; h++)
                for (int minimal = 0; minimal < 2; minimal++)
                    agrees (&s->net->tp, hash_at (h), harness_node (s, src),
                            harness_endpoint (s, dst), minimal);
        }
}

/* The routed walk @from > @to with hash @h1 and then @h2, both answered, the second from the
 * cache; *@first gets the first's entry.  Returns the second's. */
static const WeftPathEntry *
walked_twice (const WeftTransport *tp, guint32 h1, guint32 h2, guint32 from, guint32 to,
              const WeftPathEntry **first)
{
    *first = agrees (tp, h1, from, to, FALSE);
    ck_assert_ptr_nonnull (*first);
    guint64 hits = tp->paths->hits;
    const WeftPathEntry *e = agrees (tp, h2, from, to, FALSE);
    ck_assert_ptr_nonnull (e);
    ck_assert_uint_gt (tp->paths->hits, hits);
    return e;
}

START_TEST (test_pathcache_agrees_with_the_walk_on_every_pair)
{
    const char *routing[] = { "ecmp", "static" };
    for (guint r = 0; r < G_N_ELEMENTS (routing); r++) {
        g_autofree char *text = g_strdup_printf (LEAFSPINE "[fabric]\nrouting = %s\n"
                                                           "[workload.p]\nkind = permutation\n"
                                                           "flow_size = 64KiB\n",
                                                 routing[r]);
        WeftSession s;
        harness_prepare (&s, text);
        const WeftTransport *tp = &s.net->tp;
        ck_assert_ptr_nonnull (tp->paths);
        for (guint pass = 0; pass < 2; pass++) {
            guint64 hits = tp->paths->hits;
            agrees_on_every_pair (&s);
            /* The permutation's 16 flows leave 64 slots: the second pass finds some. */
            if (pass == 1)
                ck_assert_uint_gt (tp->paths->hits, hits);
        }
        weft_session_clear (&s);
    }
}
END_TEST

START_TEST (test_pathcache_never_answers_one_hash_for_another)
{
    WeftSession s;
    harness_prepare (&s, LEAFSPINE "[fabric]\nrouting = ecmp\n" PERMUTATION);
    const WeftTransport *tp = &s.net->tp;
    guint32 from = harness_node (&s, "host0"), to = harness_endpoint (&s, "host15");
    g_autoptr (GHashTable) spines = g_hash_table_new (g_direct_hash, g_direct_equal);
    g_autoptr (GArray) hops = g_array_new (FALSE, FALSE, sizeof (guint32));
    for (int minimal = 0; minimal < 2; minimal++) {
        guint answered = 0;
        for (guint pass = 0; pass < 2; pass++)
            for (guint i = 0; i < N_HASHES; i++) {
                /* host0 > leaf0 > a spine (the hash's choice) > leaf3 > host15 */
                ck_assert_uint_eq (uncached (tp, hash_at (i), from, to, minimal, hops), 4);
                g_hash_table_add (spines, GUINT_TO_POINTER (g_array_index (hops, guint32, 4)));
                answered += agrees (tp, hash_at (i), from, to, minimal) != NULL;
            }
        /* The first walk is handed over; every later one is the caller's. */
        ck_assert_uint_eq (answered, 1);
    }
    /* So that a cache answering one hash's path for another would fail above. */
    ck_assert_uint_ge (g_hash_table_size (spines), 2);
    weft_session_clear (&s);
}
END_TEST

START_TEST (test_pathcache_follows_a_changed_static_route)
{
    WeftSession s;
    harness_prepare (&s, LEAFSPINE "[fabric]\nrouting = static\n" ONE_FLOW);
    const WeftTransport *tp = &s.net->tp;
    guint32 from = harness_node (&s, "host0"), to = harness_endpoint (&s, "host15");
    const WeftPathEntry *e;
    walked_twice (tp, 7, 7, from, to, &e); /* remembered */
    guint32 leaf = e->hops[1].node, old_port = e->hops[1].port;
    /* Another uplink of the leaf toward host15. */
    guint n;
    const guint32 *set = weft_graph_route_set (s.graph, leaf, to, &n);
    ck_assert_uint_ge (n, 2);
    guint32 new_port = set[0] == old_port ? set[1] : set[0];
    weft_graph_route_set_static (s.graph, leaf, to, new_port);
    e = agrees (tp, 7, from, to, FALSE);
    ck_assert_ptr_nonnull (e);
    ck_assert_uint_eq (e->hops[1].node, leaf);
    ck_assert_uint_eq (e->hops[1].port, new_port);
    weft_session_clear (&s);
}
END_TEST

START_TEST (test_pathcache_avoids_a_cut_link_after_the_reroute)
{
    WeftSession s;
    harness_prepare (&s, LEAFSPINE "[fabric]\nrouting = static\n" PERMUTATION);
    const WeftTransport *tp = &s.net->tp;
    guint32 from = harness_node (&s, "host0"), to = harness_endpoint (&s, "host15");
    /* The leaf's uplink of the static route, remembered as the link is cut. */
    const WeftPathEntry *e;
    const WeftPathEntry *again = walked_twice (tp, 1, 2, from, to, &e);
    guint32 cut = e->hops[1].link;
    ck_assert_uint_eq (again->hops[1].link, cut);
    weft_graph_set_link_cut (s.graph, cut, TRUE);
    weft_graph_routes_compute (s.graph);
    for (guint i = 0; i < 4; i++)
        for (int minimal = 0; minimal < 2; minimal++) {
            e = agrees (tp, hash_at (i), from, to, minimal);
            for (guint h = 0; e && h < e->n_hops; h++)
                ck_assert_uint_ne (e->hops[h].link, cut);
        }
    ck_assert_ptr_nonnull (agrees (tp, 3, from, to, FALSE));
    weft_session_clear (&s);
}
END_TEST

START_TEST (test_pathcache_is_bounded_and_evicts)
{
    WeftPathCache *big = weft_path_cache_new (G_MAXUINT);
    ck_assert_uint_eq (weft_path_cache_slots (big), WEFT_PATH_CACHE_SLOTS);
    ck_assert_uint_le (weft_path_cache_bytes (big),
                       sizeof *big + WEFT_PATH_CACHE_SLOTS * sizeof (WeftPathEntry));
    weft_path_cache_free (big);
    /* One flow: 16 slots for 240 pairs x 2 modes x 4 hashes. */
    WeftSession s;
    harness_prepare (&s, LEAFSPINE "[fabric]\nrouting = ecmp\n" ONE_FLOW);
    const WeftTransport *tp = &s.net->tp;
    ck_assert_uint_eq (weft_path_cache_slots (tp->paths), 16);
    for (guint pass = 0; pass < 2; pass++)
        agrees_on_every_pair (&s);
    weft_session_clear (&s);
}
END_TEST

START_TEST (test_pathcache_not_used_by_adaptive_routing)
{
    WeftSession s;
    harness_prepare (&s, LEAFSPINE "[fabric]\nrouting = adaptive\n" ONE_FLOW);
    ck_assert_ptr_null (s.net->tp.paths);
    ck_assert_ptr_null (weft_transport_cached_walk (&s.net->tp, 1, harness_node (&s, "host0"),
                                                    harness_endpoint (&s, "host15"), TRUE));
    weft_session_clear (&s);
    harness_prepare (&s, LEAFSPINE "[fabric]\nkind = roce\nspray = oblivious\n" ONE_FLOW);
    ck_assert_ptr_null (s.net->tp.paths);
    weft_session_clear (&s);
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("pathcache");
    TCase *tc = tcase_create ("walks");
    tcase_add_checked_fixture (tc, harness_tmp_setup, harness_tmp_teardown);
    tcase_set_timeout (tc, 60);
    tcase_add_test (tc, test_pathcache_agrees_with_the_walk_on_every_pair);
    tcase_add_test (tc, test_pathcache_never_answers_one_hash_for_another);
    tcase_add_test (tc, test_pathcache_follows_a_changed_static_route);
    tcase_add_test (tc, test_pathcache_avoids_a_cut_link_after_the_reroute);
    tcase_add_test (tc, test_pathcache_is_bounded_and_evicts);
    tcase_add_test (tc, test_pathcache_not_used_by_adaptive_routing);
    suite_add_tcase (s, tc);
    return s;
}
