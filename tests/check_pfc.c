/* tests/check_pfc.c - RoCE's Priority Flow Control (models/pfc.h) end to end, through the same
 * session code as `weft run`.
 *
 * Invariants checked:
 *  - 16-to-1 incast on one switch with the computed headroom: no drop and no lossless
 *    violation, every byte delivered once, no retransmission; PAUSE frames were sent, each
 *    reached its sender, every pause was followed by a resume, and every sender's egress
 *    recorded pause time on the RDMA priority (3) only; no ingress queue ever held more than
 *    xoff + headroom; the headroom is the documented formula; a port's /links sample
 *    carries its paused time as stall_ps;
 *  - short pauses (quanta = 1000) are refreshed while the ingress stays above xoff, still
 *    without violations;
 *  - with `headroom = 0B` (below the computed need) packets are dropped at the ingress and
 *    counted as lossless violations, and the flows still finish (go-back-N);
 *  - PFC books at every sample of a busy run: each switch's (input port, priority) count
 *    equals the bytes of the packets from that input waiting in its egress queues;
 *  - pause propagation on a two-tier leafspine: an incast behind one leaf pauses the spine's
 *    port toward that leaf and the other leaf's uplink (pause time at both tiers);
 *  - `enabled = false`: the incast tail-drops and retransmits, and no PAUSE exists;
 *  - a ring with every route clockwise deadlocks (the run hangs) and the cycle of paused
 *    ports is found and named, also in the hang report.
 * ECN and DCQCN are off throughout (tests/check_dcqcn.c covers them, with PFC off).
 *  - the PFC watchdog (drop, forward) breaks that deadlock and every flow finishes; a
 *    hang_timeout not longer than its detection time is refused.
 * Leaves unchecked: the watchdog's vendor timing at full scale (200 ms detections are slow).
 */
#include "config.h"
#include <check.h>
#include <string.h>

#include "cli/session.h"
#include "models/nic.h"
#include "models/switch.h"
#include "tests/harness.h"

/* PFC alone: ECN and DCQCN off, so nothing but pauses paces the senders.  The RC timeout is
 * 1.05 ms (rc_timeout = 8), far above the tens of us that queues of up to 16 x (xoff +
 * headroom) take to drain, so no timeout is spurious; the lossy variants (PFC off, no
 * headroom) recover a lost tail with it, where NCCL's 4.3 s would outlast the hang watchdog. */
#define INCAST_WITH(transport)                                                                     \
    "[topology]\ngenerator = single_switch\nhosts = 17\nlink_rate = 400Gbps\n"                     \
    "cable_length = 2m\n[fabric]\nkind = roce\n[ecn]\nenabled = false\n[dcqcn]\nenabled = false\n" \
    "[transport]\nrc_timeout = 8\n" transport                                                      \
    "[workload.in]\nkind = incast\nsenders = 16\nreceiver = host0\nflow_size = 2MiB\n"
#define INCAST INCAST_WITH ("")

#define TOTAL (16u * 2 * 1024 * 1024)

START_TEST (test_pfc_incast_lossless_with_headroom)
{
    WeftSession s;
    harness_prepare (&s, INCAST);
    ck_assert_int_eq (weft_sim_run (s.sim), WEFT_SIM_DONE);
    WeftNetworkStats st;
    weft_network_stats (s.net, &st);
    ck_assert_uint_eq (st.finished, 16);
    ck_assert_uint_eq (st.drops, 0);
    ck_assert_uint_eq (st.pfc_violations, 0);
    ck_assert_uint_eq (st.retransmits, 0);
    ck_assert_uint_eq (st.bytes_delivered, TOTAL);
    ck_assert_uint_gt (st.pfc_pauses_sent, 0);
    ck_assert_uint_eq (st.pfc_pauses_received, st.pfc_pauses_sent);
    ck_assert_uint_eq (st.pfc_resumes_sent, st.pfc_pauses_sent); /* no refresh needed here */
    ck_assert_uint_gt (st.pfc_paused_ps, 0);
    /* 2 m of cable is 10 ns, plus half the switch's 300 ns ([switch] latency = auto on RoCE,
     * doc/latency.md; the host adds none) on each link; 400 Gb/s is 50 B/ns: 2 x 160 x 50 +
     * 3 x (4096 + 82) frames (the one crossing xoff, one at each end) + 84 B of PAUSE + 905 x
     * 64 of response. */
    const guint64 headroom = 2 * (10 + 300 / 2) * 50 + 3 * 4178 + 84 + 905 * 64;
    guint32 rx = weft_graph_lookup (s.graph, "host0");
    for (guint i = 0; i < s.net->ports->len; i++) {
        const WeftPort *p = s.net->ports->pdata[i];
        ck_assert_ptr_nonnull (p->pfc);
        ck_assert_uint_eq (p->pfc->headroom, headroom);
        for (guint prio = 0; prio < WEFT_PFC_PRIOS; prio++) {
            ck_assert_uint_le (weft_pfc_rx (p->pfc, prio)->max_used, 62400 + headroom);
            guint64 paused = weft_pfc_paused_ps (p->pfc, prio, s.sim->now);
            if (prio != 3)
                ck_assert_uint_eq (paused, 0);
            else if (p->owner->klass == &weft_nic_class && p->owner->node != rx)
                ck_assert_uint_gt (paused, 0); /* every sender was paused */
        }
        if (p->owner->klass == &weft_switch_class && p->link.peer->node != rx)
            ck_assert_uint_gt (p->pfc->n[3].pauses_sent, 0); /* every ingress paused its sender */
    }
    /* Traces: paused time is /links stall_ps (one interval spanning the run here). */
    for (guint i = 0; i < s.net->ports->len; i++) {
        WeftPort *p = s.net->ports->pdata[i];
        guint64 paused = weft_pfc_paused_total (p->pfc, s.sim->now);
        WeftTraceLinkSample row = { 0 };
        gboolean active = weft_port_sample (p, s.sim->now, &row);
        ck_assert_uint_eq (active ? row.stall_ps : 0, paused);
    }
    weft_session_clear (&s);
}
END_TEST

START_TEST (test_pfc_short_pauses_are_refreshed)
{
    /* 1000 quanta are 1.28 us at 400 Gb/s: an ingress held above xoff for longer refreshes
     * its pause every 640 ns, so pauses outnumber resumes, and the senders never run on past
     * a pause that would expire (no violation). */
    g_autofree char *text = g_strconcat (INCAST, "[pfc]\nquanta = 1000\n", NULL);
    WeftSession s;
    harness_prepare (&s, text);
    ck_assert_int_eq (weft_sim_run (s.sim), WEFT_SIM_DONE);
    WeftNetworkStats st;
    weft_network_stats (s.net, &st);
    ck_assert_uint_eq (st.finished, 16);
    ck_assert_uint_eq (st.drops, 0);
    ck_assert_uint_eq (st.pfc_violations, 0);
    ck_assert_uint_eq (st.bytes_delivered, TOTAL);
    ck_assert_uint_gt (st.pfc_resumes_sent, 0);
    ck_assert_uint_gt (st.pfc_pauses_sent, 2 * st.pfc_resumes_sent);
    weft_session_clear (&s);
}
END_TEST

START_TEST (test_pfc_headroom_too_small_counts_violations)
{
    g_autofree char *text = g_strconcat (INCAST, "[pfc]\nheadroom = 0B\n", NULL);
    WeftSession s;
    harness_prepare (&s, text);
    ck_assert_int_eq (weft_sim_run (s.sim), WEFT_SIM_DONE);
    WeftNetworkStats st;
    weft_network_stats (s.net, &st);
    ck_assert_uint_gt (st.pfc_violations, 0);
    ck_assert_uint_gt (st.retransmits, 0);
    ck_assert_uint_eq (st.drops, 0); /* the egress never tail-drops with PFC on */
    ck_assert_uint_eq (st.finished, 16);
    ck_assert_uint_eq (st.bytes_delivered, TOTAL);
    for (guint i = 0; i < s.net->ports->len; i++) {
        const WeftPort *p = s.net->ports->pdata[i];
        ck_assert_uint_eq (p->pfc->headroom, 0);
        ck_assert_uint_le (weft_pfc_rx (p->pfc, 3)->max_used, 62400);
    }
    weft_session_clear (&s);
}
END_TEST

START_TEST (test_pfc_off_drops_and_retransmits)
{
    g_autofree char *text = g_strconcat (INCAST, "[pfc]\nenabled = false\n", NULL);
    WeftSession s;
    harness_prepare (&s, text);
    ck_assert_int_eq (weft_sim_run (s.sim), WEFT_SIM_DONE);
    WeftNetworkStats st;
    weft_network_stats (s.net, &st);
    ck_assert_uint_gt (st.drops, 0);
    ck_assert_uint_gt (st.retransmits, 0);
    ck_assert_uint_eq (st.pfc_pauses_sent, 0);
    ck_assert_uint_eq (st.pfc_paused_ps, 0);
    ck_assert_uint_eq (st.pfc_violations, 0);
    ck_assert_uint_eq (st.finished, 16);
    ck_assert_uint_eq (st.bytes_delivered, TOTAL);
    weft_session_clear (&s);
}
END_TEST

/* Lossy RoCE (PFC off) with selective repeat: the receiver places what arrives beyond a gap and
 * NAKs the first missing packet, the sender resends that one alone - so every retransmission
 * repairs a loss (retransmits = data drops, nothing discarded at the receiver), where go-back-N
 * resends the whole tail behind each loss (more retransmissions than drops, the surplus
 * discarded out of order or as duplicates).  A single switch keeps each flow's packets in
 * order, so a gap is always a loss. */
START_TEST (test_roce_selective_repeat_resends_only_losses)
{
    WeftNetworkStats gbn, sr;
    WeftNetworkStats *out[] = { &gbn, &sr };
    for (guint k = 0; k < 2; k++) {
        g_autofree char *text =
            g_strdup_printf ("%s[pfc]\nenabled = false\n",
                             k == 0 ? INCAST : INCAST_WITH ("recovery = selective-repeat\n"));
        WeftSession s;
        harness_prepare (&s, text);
        ck_assert_int_eq (weft_sim_run (s.sim), WEFT_SIM_DONE);
        weft_network_stats (s.net, out[k]);
        ck_assert_uint_eq (out[k]->finished, 16);
        ck_assert_uint_eq (out[k]->bytes_delivered, TOTAL);
        ck_assert_uint_gt (out[k]->data_drops, 0);
        /* The accounting identity, exact for both. */
        ck_assert_uint_eq (out[k]->retransmits,
                           out[k]->data_drops + out[k]->ooo_discards + out[k]->dup_discards);
        weft_session_clear (&s);
    }
    fprintf (stderr,
             "incast, PFC off: go-back-N %" G_GUINT64_FORMAT " drops, %" G_GUINT64_FORMAT
             " retransmits; selective repeat %" G_GUINT64_FORMAT " drops, %" G_GUINT64_FORMAT
             " retransmits\n",
             gbn.data_drops, gbn.retransmits, sr.data_drops, sr.retransmits);
    ck_assert_uint_gt (gbn.retransmits, gbn.data_drops);
    ck_assert_uint_gt (gbn.ooo_discards, 0);
    ck_assert_uint_eq (sr.ooo_discards, 0);
    ck_assert_uint_eq (sr.dup_discards, 0);
    ck_assert_uint_eq (sr.retransmits, sr.data_drops);
}
END_TEST

/* PFC books: at every fabric switch, each (input port, priority) counter equals the bytes of
 * the packets that arrived on that port and wait in the switch's egress queues. */
static guint pfc_violations, pfc_samples;

static void
check_pfc_books (WeftSim *sim, void *data)
{
    pfc_samples++;
    for (guint i = 0; i < sim->models->len; i++) {
        const WeftModel *m = sim->models->pdata[i];
        if (m->klass != &weft_switch_class || !((const WeftSwitch *) m)->pfc_ingress)
            continue;
        const WeftSwitch *sw = (const WeftSwitch *) m;
        guint64 *held = g_new0 (guint64, sw->n_ports * WEFT_PFC_PRIOS);
        for (guint o = 0; o < sw->n_ports; o++)
            for (guint c = 0; sw->ports[o].owner && c < WEFT_PORT_CLASSES; c++)
                for (const WeftPacket *p = sw->ports[o].q[c].head; p; p = p->next)
                    if (p->kind != WEFT_PKT_CREDIT && p->hop > 0)
                        held[p->in_port * WEFT_PFC_PRIOS + p->prio] += p->size;
        for (guint in = 0; in < sw->n_ports; in++)
            for (guint prio = 0; sw->ports[in].owner && prio < WEFT_PFC_PRIOS; prio++)
                if (held[in * WEFT_PFC_PRIOS + prio] != weft_pfc_rx (sw->ports[in].pfc, prio)->used)
                    pfc_violations++;
        g_free (held);
    }
}

/* Paused time of the port of node @from toward node @to, RDMA priority. */
static guint64
paused_toward (const WeftSession *s, const char *from, const char *to)
{
    guint32 a = weft_graph_lookup (s->graph, from), b = weft_graph_lookup (s->graph, to);
    for (guint i = 0; i < s->net->ports->len; i++) {
        const WeftPort *p = s->net->ports->pdata[i];
        if (p->owner->node == a && p->link.peer->node == b)
            return weft_pfc_paused_ps (p->pfc, 3, s->sim->now);
    }
    ck_abort_msg ("no port %s -> %s", from, to);
    return 0;
}

START_TEST (test_pfc_pause_propagates_to_the_spine)
{
    /* host4 on leaf1 receives from host0-3 (behind leaf0, over the spine) and host5-7: the
     * spine-to-leaf1 link carries four flows toward one 400 Gb/s host port. */
    WeftSession s;
    harness_prepare (&s, "[topology]\ngenerator = leafspine\nleaves = 2\nspines = 1\n"
                         "hosts_per_leaf = 4\nlink_rate = 400Gbps\ncable_length = 2m\n"
                         "[fabric]\nkind = roce\nrouting = static\n"
                         "[ecn]\nenabled = false\n[dcqcn]\nenabled = false\n"
                         "[transport]\nrc_timeout = 8\n"
                         "[workload.w]\nkind = flows\nflows = host0>host4 2MiB; host1>host4 2MiB; "
                         "host2>host4 2MiB; host3>host4 2MiB; host5>host4 2MiB; "
                         "host6>host4 2MiB; host7>host4 2MiB\n");
    pfc_violations = pfc_samples = 0;
    s.sim->sample = check_pfc_books;
    s.sim->sample_data = s.net;
    s.sim->sample_interval = WEFT_NS (700); /* an odd period, to land mid-packet */
    ck_assert_int_eq (weft_sim_run (s.sim), WEFT_SIM_DONE);
    ck_assert_uint_gt (pfc_samples, 100);
    ck_assert_uint_eq (pfc_violations, 0);
    WeftNetworkStats st;
    weft_network_stats (s.net, &st);
    ck_assert_uint_eq (st.finished, 7);
    ck_assert_uint_eq (st.drops, 0);
    ck_assert_uint_eq (st.pfc_violations, 0);
    ck_assert_uint_eq (st.retransmits, 0);
    guint64 spine = paused_toward (&s, "spine0", "leaf1");
    guint64 leaf = paused_toward (&s, "leaf0", "spine0");
    guint64 host = paused_toward (&s, "host0", "leaf0");
    fprintf (stderr, "paused: spine0->leaf1 %.1f us, leaf0->spine0 %.1f us, host0->leaf0 %.1f us\n",
             spine / 1e6, leaf / 1e6, host / 1e6);
    ck_assert_uint_gt (spine, 0);
    ck_assert_uint_gt (leaf, 0);
    ck_assert_uint_gt (host, 0);
    /* Nothing pauses the receiver's own leaf-to-host port: host4 consumes at once. */
    ck_assert_uint_eq (paused_toward (&s, "leaf1", "host4"), 0);
    weft_session_clear (&s);
}
END_TEST

/* A ring of three switches, a host on each, every route clockwise (a forwarding-table file):
 * each flow crosses two ring links, so each ring link carries two flows at 400 Gb/s each, all
 * of a switch's ring ingress waits on its ring egress, and the pauses close the ring - a
 * cyclic buffer dependency. */
/* The ring experiment with flows of @size, a hang watchdog of @hang and @pfc (the [pfc] group's
 * keys).  (transfer full) */
static char *
ring_experiment (const char *size, const char *hang, const char *pfc)
{
    g_autofree char *topo = g_build_filename (harness_tmp, "ring.topo", NULL);
    g_autofree char *lft = g_build_filename (harness_tmp, "ring.lft", NULL);
    GString *t = g_string_new (NULL), *r = g_string_new (NULL);
    for (guint i = 0; i < 3; i++)
        g_string_append_printf (t, "node sw%u switch\nnode host%u host\nlink host%u sw%u 400Gbps\n",
                                i, i, i, i);
    for (guint i = 0; i < 3; i++)
        g_string_append_printf (t, "link sw%u sw%u 400Gbps\n", i, (i + 1) % 3);
    /* sw0: port 1 host0, 2 to sw1, 3 to sw2; sw1: 1 host1, 2 to sw0, 3 to sw2; sw2: 1 host2,
     * 2 to sw1, 3 to sw0.  Clockwise: sw0 port 2, sw1 port 3, sw2 port 3. */
    const guint cw[3] = { 2, 3, 3 };
    for (guint i = 0; i < 3; i++)
        for (guint d = 0; d < 3; d++)
            if (d != i)
                g_string_append_printf (r, "sw%u host%u %u\n", i, d, cw[i]);
    ck_assert (g_file_set_contents (topo, t->str, -1, NULL));
    ck_assert (g_file_set_contents (lft, r->str, -1, NULL));
    g_string_free (t, TRUE);
    g_string_free (r, TRUE);
    char *text = g_strdup_printf (
        "[experiment]\nhang_timeout = %s\n[topology]\ngenerator = file\nfile = %s\n"
        "forwarding_table = %s\n[fabric]\nkind = roce\nrouting = static\n"
        "[ecn]\nenabled = false\n[dcqcn]\nenabled = false\n"
        "[transport]\nrc_timeout = 8\n"
        "[workload.w]\nkind = flows\nflows = host0>host2 %s; host1>host0 %s; "
        "host2>host1 %s\n[pfc]\n%s",
        hang, topo, lft, size, size, size, pfc);
    return text;
}

START_TEST (test_pfc_deadlock_detected_on_a_cyclic_route_set)
{
    g_autofree char *text = ring_experiment ("64MiB", "1ms", "");
    WeftSession s;
    harness_prepare (&s, text);
    WeftSimStatus status = weft_sim_run (s.sim);
    GString *report = g_string_new (NULL);
    guint len = weft_network_pfc_deadlock (s.net, report);
    fprintf (stderr, "status %d: %s", status, report->str);
    ck_assert_int_eq (status, WEFT_SIM_HANG);
    ck_assert_uint_eq (len, 3);
    ck_assert (strstr (report->str, "sw0:2->sw1") && strstr (report->str, "sw1:3->sw2") &&
               strstr (report->str, "sw2:3->sw0"));
    g_string_free (report, TRUE);
    /* The hang message names the cycle too. */
    g_autofree char *waiting = weft_network_describe_waiting (s.net, 20);
    ck_assert (strstr (waiting, "PFC deadlock on priority 3") != NULL);
    weft_session_clear (&s);
}
END_TEST

/* The PFC watchdog breaks the ring's deadlock (it re-forms; the watchdog breaks it again): with
 * either action every flow finishes.  Drop discards the stormed queues; forward ignores the
 * pauses, so the next switch's full ingress overflows its headroom (lossless violations). */
START_TEST (test_pfc_watchdog_breaks_the_deadlock)
{
    const char *actions[] = { "drop", "forward" };
    for (guint a = 0; a < 2; a++) {
        g_autofree char *keys = g_strdup_printf ("watchdog = %s\nwatchdog_poll = 20us\n"
                                                 "watchdog_restore = 50us\n",
                                                 actions[a]);
        g_autofree char *text = ring_experiment ("1MiB", "10ms", keys);
        WeftSession s;
        harness_prepare (&s, text);
        ck_assert_int_eq (weft_sim_run (s.sim), WEFT_SIM_DONE);
        WeftNetworkStats st;
        weft_network_stats (s.net, &st);
        fprintf (stderr,
                 "watchdog %s: done at %.1f us, %" G_GUINT64_FORMAT " storms, %" G_GUINT64_FORMAT
                 " dropped, %" G_GUINT64_FORMAT " violations\n",
                 actions[a], s.sim->now / 1e6, st.pfc_storms, st.pfc_wd_dropped, st.pfc_violations);
        ck_assert_uint_eq (st.finished, 3);
        ck_assert_uint_eq (st.bytes_delivered, 3u * 1024 * 1024);
        ck_assert_uint_gt (st.pfc_storms, 0);
        if (a == 0)
            ck_assert_uint_gt (st.pfc_wd_dropped, 0);
        else
            ck_assert_uint_eq (st.pfc_wd_dropped, 0);
        weft_session_clear (&s);
    }
}
END_TEST

START_TEST (test_pfc_watchdog_needs_a_longer_hang_timeout)
{
    /* Detection takes 2 polls of 100 ms: a 10 ms hang watchdog would fire first. */
    g_autofree char *text = ring_experiment ("1MiB", "10ms", "watchdog = drop\n");
    WeftSession s;
    g_autoptr (GError) error = NULL;
    ck_assert (!harness_try_prepare (&s, text, &error));
    ck_assert (strstr (error->message, "hang_timeout") && strstr (error->message, "watchdog"));
    weft_session_clear (&s);
}
END_TEST

START_TEST (test_pfc_group_only_on_roce)
{
    WeftSession s;
    g_autoptr (GError) error = NULL;
    /* on another fabric [pfc] is accepted, unused (listed as such), its keys still checked */
    ck_assert (harness_try_prepare (&s,
                                    "[topology]\ngenerator = single_switch\nhosts = 2\n"
                                    "[pfc]\nxoff = 10KiB\n"
                                    "[workload.w]\nkind = flows\nflows = host0>host1 1MiB\n",
                                    &error));
    ck_assert_str_eq (s.net->env.unused_groups[0], "pfc");
    ck_assert_ptr_null (s.net->env.unused_groups[1]);
    ck_assert (s.net->fabric.pfc.enabled == FALSE);
    weft_session_clear (&s);
    ck_assert (!harness_try_prepare (&s,
                                     "[topology]\ngenerator = single_switch\nhosts = 2\n"
                                     "[pfc]\nxof = 10KiB\n"
                                     "[workload.w]\nkind = flows\nflows = host0>host1 1MiB\n",
                                     &error));
    ck_assert (strstr (error->message, "[pfc] xof") != NULL);
    g_clear_error (&error);
    ck_assert (!harness_try_prepare (&s,
                                     "[topology]\ngenerator = single_switch\nhosts = 2\n"
                                     "[fabric]\nkind = roce\n[pfc]\nxoff = 10KiB\nxon = 20KiB\n"
                                     "[workload.w]\nkind = flows\nflows = host0>host1 1MiB\n",
                                     &error));
    ck_assert (strstr (error->message, "xon") != NULL);
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("pfc");
    TCase *tc = tcase_create ("pfc");
    tcase_add_checked_fixture (tc, harness_tmp_setup, harness_tmp_teardown);
    tcase_set_timeout (tc, 300);
    tcase_add_test (tc, test_pfc_incast_lossless_with_headroom);
    tcase_add_test (tc, test_pfc_short_pauses_are_refreshed);
    tcase_add_test (tc, test_pfc_headroom_too_small_counts_violations);
    tcase_add_test (tc, test_pfc_off_drops_and_retransmits);
    tcase_add_test (tc, test_roce_selective_repeat_resends_only_losses);
    tcase_add_test (tc, test_pfc_pause_propagates_to_the_spine);
    tcase_add_test (tc, test_pfc_deadlock_detected_on_a_cyclic_route_set);
    tcase_add_test (tc, test_pfc_watchdog_breaks_the_deadlock);
    tcase_add_test (tc, test_pfc_watchdog_needs_a_longer_hang_timeout);
    tcase_add_test (tc, test_pfc_group_only_on_roce);
    suite_add_tcase (s, tc);
    return s;
}
