/* tests/check_reroute.c - how routing reacts to a Down link (doc/faults.md "How routing
 * reacts"), through the same session code as `weft run`.
 *
 * Checks, on a two-leaf, two-spine fabric with one host per leaf (host0 on leaf0, host1 on
 * leaf1), every expectation computed here:
 *  - the leaf0 uplink a static route uses dies mid flow: without a subnet-manager sweep the
 *    flow never finishes (a hang: static forwarding keeps sending into the dead port); with
 *    [routing] sm_reroute, the flow finishes, no earlier than failure + sweep delay, and the
 *    sweep's new route from leaf0 leaves through the surviving uplink;
 *  - the sweep's tables: the link's cut is seen by every engine (dmodk, minhop, updn), and a
 *    destination whose only cable is Down becomes unreachable (its leaf has no route to it);
 *  - adaptive routing avoids the Down port: after the failure nothing but the packets queued
 *    there at that moment is discarded at leaf0's dead uplink (static routing loses far more
 *    there), and every byte is delivered;
 *  - ECMP shrinks the group: packets hashed onto a Down member go to the surviving one.
 * And the faults on a switch's links, on a two-SU rail-optimised fabric (16-port switches:
 * four servers per SU, four uplinks per leaf, one to each of four spines):
 *  - uplinks-lost with fraction = 0.5 takes the lowest-numbered half of the leaf's uplinks
 *    Down (ports 5 and 6), `ports` takes the ones named, and nothing else goes Down; a flow
 *    across the SUs that static routing sent through one of them hangs without a sweep and
 *    finishes with one;
 *  - switch-down takes every cabled port of the switch Down, and both ends of each link;
 *  - bad input: each mistake named with its group and key.
 */
#include "config.h"
#include <check.h>
#include <string.h>

#include "cli/session.h"
#include "models/fault.h"
#include "models/switch.h"
#include "tests/harness.h"
#include "topologies/topology.h"

#define FAIL_AT_US 100
#define DELAY_US 200
#define WIRE 4122.0 /* 4096-byte payload + 26 bytes of IB headers */

/* The fabric and the flow, with [fabric] routing = @routing.  (transfer full) */
static char *
base (const char *routing)
{
    return g_strconcat ("[experiment]\nseed = 1\nhang_timeout = 2ms\n"
                        "[topology]\ngenerator = leafspine\nleaves = 2\nspines = 2\n"
                        "hosts_per_leaf = 1\nlink_rate = 100Gbps\nuplink_rate = 100Gbps\n"
                        "[fabric]\nkind = infiniband\nrouting = ",
                        routing, "\n[workload.w]\nkind = flows\nflows = host0>host1 4MiB\n", NULL);
}

/* The uplink port (from 0) leaf0's static route toward host1 takes on a healthy fabric. */
static guint32
static_uplink (const char *routing)
{
    g_autofree char *text = base (routing);
    WeftSession s;
    harness_prepare (&s, text);
    guint32 p = weft_graph_route_static (s.graph, harness_node (&s, "leaf0"),
                                         harness_endpoint (&s, "host1"));
    ck_assert_uint_ne (p, WEFT_GRAPH_NONE);
    weft_session_clear (&s);
    return p;
}

static char *
faulty (const char *routing, guint32 port, gboolean reroute, const char *engine)
{
    g_autofree char *head = base (routing);
    return g_strdup_printf ("%s[fault.up]\nkind = link-down\nlink = leaf0:%u\nat = %uus\n"
                            "[routing]\nsm_reroute = %s\nsm_sweep_delay = %uus\n"
                            "[topology]\nrouting_engine = %s\n",
                            head, port + 1, FAIL_AT_US, reroute ? "true" : "false", DELAY_US,
                            engine);
}

START_TEST (test_reroute_static_hangs_without_sweep)
{
    guint32 up = static_uplink ("static");
    g_autofree char *text = faulty ("static", up, FALSE, "dmodk");
    WeftSession s;
    harness_prepare (&s, text);
    ck_assert_int_eq (weft_sim_run (s.sim), WEFT_SIM_HANG);
    ck_assert (!s.net->tp.flows[0].finished);
    /* The route still leads into the dead port. */
    ck_assert_uint_eq (weft_graph_route_static (s.graph, harness_node (&s, "leaf0"),
                                                harness_endpoint (&s, "host1")),
                       up);
    weft_session_clear (&s);
}
END_TEST

static void
sweep_resumes (const char *engine)
{
    guint32 up = static_uplink ("static");
    g_autofree char *text = faulty ("static", up, TRUE, engine);
    WeftSession s;
    harness_prepare (&s, text);
    ck_assert_int_eq (weft_sim_run (s.sim), WEFT_SIM_DONE);
    const WeftFlow *f = &s.net->tp.flows[0];
    ck_assert (f->finished);
    ck_assert_uint_eq (f->delivered, f->spec.size_bytes);
    /* Sending 4 MiB at 100 Gb/s takes 342 us: the flow was still going at the failure, and
     * nothing crossed leaf0 toward host1 between the failure and the sweep. */
    double send_us = 4.0 * 1048576 / 4096 * WIRE * 8 / 100e9 * 1e6;
    ck_assert (send_us > FAIL_AT_US);
    ck_assert_uint_ge (f->finish_ps, WEFT_US (FAIL_AT_US + DELAY_US));
    /* The sweep's route from leaf0 leaves through the other uplink. */
    guint32 now = weft_graph_route_static (s.graph, harness_node (&s, "leaf0"),
                                           harness_endpoint (&s, "host1"));
    ck_assert_uint_ne (now, WEFT_GRAPH_NONE);
    ck_assert_uint_ne (now, up);
    guint32 peer;
    ck_assert (weft_graph_peer (s.graph, harness_node (&s, "leaf0"), now, &peer, NULL));
    ck_assert_int_eq (weft_graph_node (s.graph, peer)->kind, WEFT_NODE_SWITCH);
    ck_assert (weft_graph_link_cut (
        s.graph,
        g_array_index (weft_graph_node (s.graph, harness_node (&s, "leaf0"))->ports, guint32, up)));
    weft_session_clear (&s);
}

START_TEST (test_reroute_sweep_resumes_dmodk)
{
    sweep_resumes ("dmodk");
}
END_TEST

START_TEST (test_reroute_sweep_resumes_minhop)
{
    sweep_resumes ("minhop");
}
END_TEST

START_TEST (test_reroute_sweep_resumes_updn)
{
    sweep_resumes ("updn");
}
END_TEST

START_TEST (test_reroute_cut_host_unreachable)
{
    /* The graph alone: cut host1's only cable, recompute, and leaf0 has no route to it. */
    g_autofree char *text = base ("static");
    WeftSession s;
    harness_prepare (&s, text);
    guint32 h1 = harness_node (&s, "host1");
    guint32 lid = g_array_index (weft_graph_node (s.graph, h1)->ports, guint32, 0);
    weft_graph_set_link_cut (s.graph, lid, TRUE);
    ck_assert (weft_topology_reroute (s.graph, s.exp, NULL));
    guint n;
    weft_graph_route_set (s.graph, harness_node (&s, "leaf1"), harness_endpoint (&s, "host1"), &n);
    ck_assert_uint_eq (n, 0);
    ck_assert_uint_eq (weft_graph_route_static (s.graph, harness_node (&s, "leaf1"),
                                                harness_endpoint (&s, "host1")),
                       WEFT_GRAPH_NONE);
    /* Other switches route toward its leaf (tables per leaf, not per host: sim/graph.h), which
     * has no way on: the path ends there. */
    ck_assert_uint_eq (weft_graph_route_path (s.graph, harness_node (&s, "host0"), h1, NULL),
                       G_MAXUINT);
    /* host0 stays reachable from everywhere, and back with the cable. */
    ck_assert_uint_ne (weft_graph_route_static (s.graph, harness_node (&s, "leaf1"),
                                                harness_endpoint (&s, "host0")),
                       WEFT_GRAPH_NONE);
    weft_graph_set_link_cut (s.graph, lid, FALSE);
    ck_assert (weft_topology_reroute (s.graph, s.exp, NULL));
    weft_graph_route_set (s.graph, harness_node (&s, "leaf1"), harness_endpoint (&s, "host1"), &n);
    ck_assert_uint_eq (n, 1);
    ck_assert_uint_eq (weft_graph_route_path (s.graph, harness_node (&s, "host0"), h1, NULL), 4);
    weft_session_clear (&s);
}
END_TEST

/* At the failure, right after the fault's own event (a later scheduling identity at the same
 * time): the bytes queued at leaf0's dead uplink, which it will discard. */
typedef struct {
    const WeftPort *port;
    guint64 queued;
} Snapshot;

static void
snapshot (WeftSim *sim, void *target, WeftArg arg)
{
    (void) sim;
    (void) arg;
    Snapshot *snap = target;
    ck_assert (snap->port->fault && snap->port->fault->down);
    snap->queued = snap->port->q_bytes;
}

static guint64
lost_at_dead_uplink (const char *routing, guint32 up, guint64 *queued, gboolean *finished)
{
    g_autofree char *text = faulty (routing, up, FALSE, "dmodk");
    WeftSession s;
    harness_prepare (&s, text);
    Snapshot snap = { weft_model_port (s.net->node_model[harness_node (&s, "leaf0")], up), 0 };
    WeftSched sched = weft_sim_sched_new (s.sim);
    weft_sim_schedule_at (s.sim, &sched, WEFT_US (FAIL_AT_US), snapshot, &snap, (WeftArg){ 0 });
    WeftSimStatus st = weft_sim_run (s.sim);
    *finished = st == WEFT_SIM_DONE && s.net->tp.flows[0].finished &&
                s.net->tp.flows[0].delivered == s.net->tp.flows[0].spec.size_bytes;
    guint64 lost = snap.port->fault->lost_down;
    *queued = snap.queued;
    weft_session_clear (&s);
    return lost;
}

START_TEST (test_reroute_adaptive_avoids_down_port)
{
    guint32 up = static_uplink ("static");
    guint64 queued, lost;
    gboolean finished;
    lost = lost_at_dead_uplink ("adaptive", up, &queued, &finished);
    /* Data packets only go up from leaf0 (host0 sends, host1 acknowledges). */
    ck_assert_uint_le ((guint64) (lost * WIRE), queued);
    ck_assert (finished);
    /* Static routing, for contrast: everything after the failure dies there. */
    guint64 lost_static = lost_at_dead_uplink ("static", up, &queued, &finished);
    ck_assert (!finished);
    ck_assert_uint_gt ((guint64) (lost_static * WIRE), queued + 100 * (guint64) WIRE);
}
END_TEST

START_TEST (test_reroute_ecmp_shrinks_group)
{
    /* Kill, under ECMP, the uplink leaf0 hashes the flow onto; the flow completes (no sweep)
     * and nothing beyond what was queued at the failure is lost there. */
    g_autofree char *healthy = base ("ecmp");
    WeftSession s;
    harness_prepare (&s, healthy);
    ck_assert_int_eq (weft_sim_run (s.sim), WEFT_SIM_DONE);
    guint32 up = WEFT_GRAPH_NONE;
    guint32 leaf0 = harness_node (&s, "leaf0");
    guint n;
    const guint32 *set = weft_graph_route_set (s.graph, leaf0, harness_endpoint (&s, "host1"), &n);
    ck_assert_uint_eq (n, 2);
    for (guint i = 0; i < n; i++)
        if (weft_model_port (s.net->node_model[leaf0], set[i])->tx_packets > 0)
            up = set[i];
    ck_assert_uint_ne (up, WEFT_GRAPH_NONE);
    weft_session_clear (&s);
    guint64 queued;
    gboolean finished;
    guint64 lost = lost_at_dead_uplink ("ecmp", up, &queued, &finished);
    ck_assert_uint_le ((guint64) (lost * WIRE), queued);
    ck_assert (finished);
}
END_TEST

/* ---- a switch's links ------------------------------------------------------------------ */

static char *
railopt (const char *fault)
{
    return g_strconcat ("[experiment]\nseed = 1\nhang_timeout = 2ms\n"
                        "[topology]\ngenerator = railopt\nsus = 2\nservers_per_su = 4\n"
                        "radix = 16\ntiers = 2\n[fabric]\nkind = infiniband\nrouting = static\n"
                        "[transport]\nrc_timeout = 8\n"
                        "[workload.w]\nkind = flows\nflows = dgx-1/gpu3>dgx-5/gpu3 1MiB\n",
                        fault, NULL);
}

/* Which ports (from 1) of @name are Down at the end of @s's run. */
static char *
down_ports (const WeftSession *s, const char *name)
{
    guint32 id = harness_node (s, name);
    const WeftNode *n = weft_graph_node (s->graph, id);
    GString *out = g_string_new ("");
    for (guint32 p = 0; p < n->ports->len; p++) {
        if (g_array_index (n->ports, guint32, p) == WEFT_GRAPH_NONE)
            continue;
        const WeftPort *port = weft_model_port (s->net->node_model[id], p);
        if (port->fault && port->fault->down) {
            guint32 peer, pp;
            weft_graph_peer (s->graph, id, p, &peer, &pp);
            const WeftPort *far = weft_model_port (s->net->node_model[peer], pp);
            ck_assert (far->fault && far->fault->down);
            g_string_append_printf (out, "%s%u", out->len ? " " : "", p + 1);
        }
    }
    return g_string_free (out, FALSE);
}

static guint
ports_down_anywhere (const WeftSession *s)
{
    guint n = 0;
    for (guint i = 0; i < s->net->ports->len; i++) {
        const WeftPort *p = s->net->ports->pdata[i];
        n += p->fault && p->fault->down;
    }
    return n;
}

static const char *half = "[fault.half]\nkind = uplinks-lost\nswitch = su0-rail3-leaf\n"
                          "fraction = 0.5\nat = 10us\n";

START_TEST (test_reroute_uplinks_lost_fraction)
{
    g_autofree char *text = railopt (half);
    WeftSession s;
    harness_prepare (&s, text);
    /* The flow's static route leaves su0-rail3-leaf through an uplink; D-mod-k here takes one
     * of the lost half (checked, so that the hang below means what it says). */
    guint32 leaf = harness_node (&s, "su0-rail3-leaf");
    guint32 out = weft_graph_route_static (s.graph, leaf, harness_endpoint (&s, "dgx-5/mlx5_5"));
    ck_assert (out == 4 || out == 5);
    ck_assert_int_eq (weft_sim_run (s.sim), WEFT_SIM_HANG);
    g_autofree char *down = down_ports (&s, "su0-rail3-leaf");
    ck_assert_str_eq (down, "5 6");
    ck_assert_uint_eq (ports_down_anywhere (&s), 4); /* two links, both ends */
    weft_session_clear (&s);

    /* With the subnet manager's sweep the flow finishes. */
    g_autofree char *text2 =
        g_strconcat (text, "[routing]\nsm_reroute = true\nsm_sweep_delay = 50us\n", NULL);
    harness_prepare (&s, text2);
    ck_assert_int_eq (weft_sim_run (s.sim), WEFT_SIM_DONE);
    ck_assert (s.net->tp.flows[0].finished);
    ck_assert_uint_ge (s.net->tp.flows[0].finish_ps, WEFT_US (10 + 50));
    guint32 now = weft_graph_route_static (s.graph, leaf, harness_endpoint (&s, "dgx-5/mlx5_5"));
    ck_assert (now == 6 || now == 7);
    weft_session_clear (&s);
}
END_TEST

START_TEST (test_reroute_uplinks_lost_ports)
{
    g_autofree char *text =
        railopt ("[fault.two]\nkind = uplinks-lost\nswitch = su1-rail0-leaf\nports = 8, 6\n"
                 "at = 10us\n");
    WeftSession s;
    harness_prepare (&s, text);
    weft_sim_run (s.sim);
    g_autofree char *down = down_ports (&s, "su1-rail0-leaf");
    ck_assert_str_eq (down, "6 8");
    ck_assert_uint_eq (ports_down_anywhere (&s), 4);
    weft_session_clear (&s);
}
END_TEST

START_TEST (test_reroute_switch_down)
{
    g_autofree char *text =
        railopt ("[fault.dead]\nkind = switch-down\nswitch = spine0\nat = 10us\n");
    WeftSession s;
    harness_prepare (&s, text);
    weft_sim_run (s.sim);
    /* spine0: one cable to each of the 16 leaves, all Down. */
    g_autofree char *down = down_ports (&s, "spine0");
    ck_assert_str_eq (down, "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16");
    ck_assert_uint_eq (ports_down_anywhere (&s), 32);
    weft_session_clear (&s);
}
END_TEST

static void
refused (const char *fault, const char *set_key, const char *want)
{
    g_autofree char *text = railopt (fault);
    WeftSession s;
    GError *error = NULL;
    ck_assert (!harness_try_prepare (&s, text, &error));
    ck_assert_msg (strstr (error->message, set_key) && strstr (error->message, want), "%s: %s",
                   want, error->message);
    g_error_free (error);
}

START_TEST (test_reroute_switch_faults_bad_input)
{
    refused ("[fault.a]\nkind = uplinks-lost\nswitch = su0-rail3-lef\nfraction = 0.5\nat = 0s\n",
             "[fault.a] switch", "did you mean 'su0-rail3-leaf'");
    refused ("[fault.a]\nkind = switch-down\nswitch = dgx-1/gpu0\nat = 0s\n", "[fault.a] switch",
             "no fabric switch");
    refused ("[fault.a]\nkind = uplinks-lost\nswitch = su0-rail3-leaf\nfraction = 1.5\nat = 0s\n",
             "[fault.a] fraction", "outside (0, 1]");
    refused ("[fault.a]\nkind = uplinks-lost\nswitch = su0-rail3-leaf\nfraction = 0.1\nat = 0s\n",
             "[fault.a] fraction", "is none");
    refused ("[fault.a]\nkind = uplinks-lost\nswitch = su0-rail3-leaf\nat = 0s\n",
             "[fault.a] ports", "one of them");
    refused ("[fault.a]\nkind = uplinks-lost\nswitch = su0-rail3-leaf\nports = 5\nfraction = "
             "0.5\nat = 0s\n",
             "[fault.a] ports", "one of them");
    refused ("[fault.a]\nkind = uplinks-lost\nswitch = su0-rail3-leaf\nports = 2\nat = 0s\n",
             "[fault.a] ports", "uplinks are ports 5 to 8");
    refused ("[fault.a]\nkind = uplinks-lost\nswitch = su0-rail3-leaf\nports = 5 5\nat = 0s\n",
             "[fault.a] ports", "given twice");
    refused ("[fault.a]\nkind = uplinks-lost\nswitch = spine0\nfraction = 1\nat = 0s\n",
             "[fault.a] switch", "has no uplinks");
    refused ("[fault.a]\nkind = switch-down\nswitch = spine0\nlink = spine0:1\nat = 0s\n",
             "[fault.a] link", "not used by kind = switch-down");
    refused ("[fault.a]\nkind = switch-down\nswitch = spine0\nfraction = 1\nat = 0s\n",
             "[fault.a] fraction", "not used by kind = switch-down");
    refused ("[fault.a]\nkind = link-down\nlink = spine0:1\nswitch = spine0\nat = 0s\n",
             "[fault.a] switch", "not used by kind = link-down");
    /* Two faults on one link at once: the switch's and a link's. */
    refused ("[fault.a]\nkind = switch-down\nswitch = spine0\nat = 0s\n"
             "[fault.b]\nkind = link-down\nlink = spine0:3\nat = 5us\n",
             "[fault.b] at", "contradicts [fault.a]");
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("reroute");
    TCase *tc = tcase_create ("routing reaction");
    tcase_add_checked_fixture (tc, harness_tmp_setup, harness_tmp_teardown);
    tcase_set_timeout (tc, 120);
    tcase_add_test (tc, test_reroute_static_hangs_without_sweep);
    tcase_add_test (tc, test_reroute_sweep_resumes_dmodk);
    tcase_add_test (tc, test_reroute_sweep_resumes_minhop);
    tcase_add_test (tc, test_reroute_sweep_resumes_updn);
    tcase_add_test (tc, test_reroute_cut_host_unreachable);
    tcase_add_test (tc, test_reroute_adaptive_avoids_down_port);
    tcase_add_test (tc, test_reroute_ecmp_shrinks_group);
    tcase_add_test (tc, test_reroute_uplinks_lost_fraction);
    tcase_add_test (tc, test_reroute_uplinks_lost_ports);
    tcase_add_test (tc, test_reroute_switch_down);
    tcase_add_test (tc, test_reroute_switch_faults_bad_input);
    suite_add_tcase (s, tc);
    return s;
}
