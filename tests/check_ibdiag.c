/* tests/check_ibdiag.c - analysis/ibdiag.c prints ibstat and perfquery as infiniband-diags
 * does, and ranks links by the badness it states.
 *
 * Invariants checked, on hand-made /topology and /ports rows (a leaf and two NICs of one
 * server, a third NIC on another): perfquery's "Name:" + dots to column 33 + value lines
 * (the literal lines below are copied from the layout libibmad prints, not from weft), the
 * basic counters saturating at their IB widths (16 bits SymbolErrorCounter, PortRcvErrors,
 * PortXmitDiscards; 8 LinkDownedCounter; 32 the data, packet and wait counters) while -x
 * shows the full values, data counters in 4-byte words; ibstat's State / Physical state
 * names for a Down port and its Rate in Gb/s; the server filter and the "# SERVER" lines;
 * the ranking: errors before rate deficit before Down before transmit wait; unknown names
 * refused; the fabric check's three findings (a link below its tier's rate, with its width;
 * error counters above their thresholds, not at them; ports not Active) and its count of
 * problems, and the thresholds' names; --at's rebuilding of a port from /links samples (its
 * direction sent, the other received, up to the last sample at or before the time) and
 * /faults rows (state, rate, counters as the last event at or before the time left them).
 * Unchecked here: real traces (tests/e2e/diag.sh, diag_at.sh, diag_check.sh run the tools on
 * runs).
 */
#include "config.h"
#include <check.h>
#include <string.h>

#include "analysis/ibdiag.h"
#include "tests/harness.h"

#define G400 G_GUINT64_CONSTANT (400000000000)

static void
add_node (GArray *nodes, guint32 id, const char *name, const char *kind, gint32 tier)
{
    WeftTraceNode n = { .id = id, .tier = tier, .n_ports = 2 };
    g_strlcpy (n.name, name, sizeof n.name);
    g_strlcpy (n.kind, kind, sizeof n.kind);
    g_array_append_val (nodes, n);
}

static void
add_link (GArray *links, guint32 id, guint32 a, guint32 pa, guint32 b, guint32 pb, guint64 rate)
{
    WeftTraceLink l = {
        .id = id, .node_a = a, .port_a = pa, .node_b = b, .port_b = pb, .rate_bps = rate
    };
    g_strlcpy (l.kind, "fabric", sizeof l.kind);
    g_array_append_val (links, l);
}

static WeftTracePort *
add_port (GArray *ports, guint32 node, guint32 port, guint32 link, guint64 rate)
{
    WeftTracePort p = {
        .node = node, .port = port, .link = link, .rate_bps = rate, .state = 4, .phys_state = 5
    };
    g_strlcpy (p.link_layer, "InfiniBand", sizeof p.link_layer);
    g_array_append_val (ports, p);
    return &g_array_index (ports, WeftTracePort, ports->len - 1);
}

/* leaf (0), dgx-1/mlx5_0 (1), dgx-1/mlx5_3 (2), dgx-2/mlx5_0 (3); each NIC's fabric port is
 * its port 2, cabled to leaf ports 1, 2, 3.  @edit changes the /ports rows before use. */
static WeftIbdiag *
fabric (void (*edit) (GArray *ports))
{
    GArray *nodes = g_array_new (FALSE, TRUE, sizeof (WeftTraceNode));
    GArray *links = g_array_new (FALSE, TRUE, sizeof (WeftTraceLink));
    GArray *ports = g_array_new (FALSE, TRUE, sizeof (WeftTracePort));
    add_node (nodes, 0, "leaf", "switch", 1);
    add_node (nodes, 1, "dgx-1/mlx5_0", "nic", 0);
    add_node (nodes, 2, "dgx-1/mlx5_3", "nic", 0);
    add_node (nodes, 3, "dgx-2/mlx5_0", "nic", 0);
    for (guint32 i = 0; i < 3; i++) {
        add_link (links, i, i + 1, 2, 0, i + 1, G400);
        add_port (ports, i + 1, 2, i, G400);
        add_port (ports, 0, i + 1, i, G400);
    }
    if (edit)
        edit (ports);
    return weft_ibdiag_new (nodes, links, ports, 1000000000, "weft test");
}

static WeftTracePort *
row (GArray *ports, guint32 node, guint32 port)
{
    for (guint i = 0; i < ports->len; i++) {
        WeftTracePort *p = &g_array_index (ports, WeftTracePort, i);
        if (p->node == node && p->port == port)
            return p;
    }
    g_assert_not_reached ();
}

/* ---- perfquery ------------------------------------------------------------------------- */

START_TEST (test_ibdiag_field_padding)
{
    /* lines as perfquery prints them (libibmad: "%s:%s" with 32 - strlen(name) dots) */
    GString *out = g_string_new (NULL);
    weft_ibdiag_field (out, "PortSelect", "1");
    weft_ibdiag_field (out, "ExcessiveBufferOverrunErrors", "0");
    weft_ibdiag_field (out, "PortRcvRemotePhysicalErrors", "0");
    ck_assert_str_eq (out->str, "PortSelect:......................1\n"
                                "ExcessiveBufferOverrunErrors:....0\n"
                                "PortRcvRemotePhysicalErrors:.....0\n");
    g_string_free (out, TRUE);
}
END_TEST

static void
big_counters (GArray *ports)
{
    WeftTracePort *p = row (ports, 0, 2);
    p->tx_bytes = 4 * (G_GUINT64_CONSTANT (1) << 32) + 20; /* 2^32 + 5 words */
    p->rx_bytes = 4003;                                    /* 1000 words and 3 bytes */
    p->tx_packets = G_GUINT64_CONSTANT (5000000000);
    p->rx_packets = 7;
    p->symbol_errors = 70000;
    p->rcv_errors = 65535;
    p->link_downed = 300;
    p->drops = 12;
    p->xmit_wait_ps = G_GUINT64_CONSTANT (5000000000000000); /* 5e12 ns */
}

/* The value of field @name in perfquery output @text, or NULL. */
static char *
value_of (const char *text, const char *name)
{
    g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
    for (guint i = 0; lines[i]; i++)
        if (g_str_has_prefix (lines[i], name) && lines[i][strlen (name)] == ':')
            return g_strdup (lines[i] + 33);
    return NULL;
}

static void
assert_field (const char *text, const char *name, guint64 want)
{
    g_autofree char *v = value_of (text, name);
    ck_assert_msg (v != NULL, "no %s in\n%s", name, text);
    g_autofree char *w = g_strdup_printf ("%" G_GUINT64_FORMAT, want);
    ck_assert_msg (strcmp (v, w) == 0, "%s: %s, expected %s", name, v, w);
}

START_TEST (test_ibdiag_perfquery_saturates)
{
    g_autoptr (WeftIbdiag) d = fabric (big_counters);
    GString *out = g_string_new (NULL);
    GError *error = NULL;
    ck_assert (weft_ibdiag_perfquery (d, "leaf:2", FALSE, out, &error));
    /* the switch has LID 1 (first in node order); a switch port keeps its number */
    ck_assert (g_str_has_prefix (out->str, "# Port counters: Lid 1 port 2 (CapMask: 0x"));
    guint64 max32 = G_MAXUINT32, max16 = G_MAXUINT16, max8 = G_MAXUINT8;
    assert_field (out->str, "PortSelect", 2);
    assert_field (out->str, "SymbolErrorCounter", MIN (70000, max16));
    assert_field (out->str, "PortRcvErrors", 65535);
    assert_field (out->str, "LinkDownedCounter", MIN (300, max8));
    assert_field (out->str, "PortXmitDiscards", 12);
    assert_field (out->str, "PortXmitData", max32);
    assert_field (out->str, "PortRcvData", 4003 / 4);
    assert_field (out->str, "PortXmitPkts", max32);
    assert_field (out->str, "PortRcvPkts", 7);
    assert_field (out->str, "PortXmitWait", max32); /* 5e12 ns */
    g_string_truncate (out, 0);
    ck_assert (weft_ibdiag_perfquery (d, "leaf:2", TRUE, out, &error));
    ck_assert (g_str_has_prefix (out->str, "# Port extended counters: Lid 1 port 2 (CapMask: 0x"));
    assert_field (out->str, "PortXmitData", (G_GUINT64_CONSTANT (1) << 32) + 5);
    assert_field (out->str, "PortXmitPkts", G_GUINT64_CONSTANT (5000000000));
    assert_field (out->str, "SymbolErrorCounter", 70000);
    assert_field (out->str, "LinkDownedCounter", 300);
    assert_field (out->str, "PortXmitWait", G_GUINT64_CONSTANT (5000000000000));
    g_string_free (out, TRUE);
}
END_TEST

START_TEST (test_ibdiag_perfquery_names_a_ca_port_from_1)
{
    g_autoptr (WeftIbdiag) d = fabric (NULL);
    GString *out = g_string_new (NULL);
    GError *error = NULL;
    /* LIDs: leaf 1, then one per CA port in node order: dgx-1/mlx5_3 is the third */
    ck_assert (weft_ibdiag_perfquery (d, "dgx-1/mlx5_3", FALSE, out, &error));
    ck_assert (g_str_has_prefix (out->str, "# Port counters: Lid 3 port 1 (CapMask: 0x"));
    g_string_truncate (out, 0);
    ck_assert (weft_ibdiag_perfquery (d, "dgx-1/mlx5_3:2", FALSE, out, &error));
    ck_assert (g_str_has_prefix (out->str, "# Port counters: Lid 3 port 1 "));
    ck_assert (!weft_ibdiag_perfquery (d, "dgx-1/mlx5_3:1", FALSE, out, &error));
    ck_assert (g_error_matches (error, WEFT_IBDIAG_ERROR, WEFT_IBDIAG_ERROR_NAME));
    g_clear_error (&error);
    ck_assert (!weft_ibdiag_perfquery (d, "dgx-9/mlx5_3", FALSE, out, &error));
    g_clear_error (&error);
    ck_assert (!weft_ibdiag_perfquery (d, "leaf", FALSE, out, &error)); /* 3 fabric ports */
    g_clear_error (&error);
    g_string_free (out, TRUE);
}
END_TEST

/* ---- ibstat ---------------------------------------------------------------------------- */

static void
down_and_slow (GArray *ports)
{
    WeftTracePort *ends[2] = { row (ports, 2, 2), row (ports, 0, 2) }; /* link 1 */
    for (guint e = 0; e < 2; e++) {
        ends[e]->state = 1;
        ends[e]->phys_state = 2;
        ends[e]->link_downed = 1;
    }
    row (ports, 3, 2)->rate_bps = G400 / 4; /* 1x */
    row (ports, 0, 3)->rate_bps = G400 / 4;
}

START_TEST (test_ibdiag_ibstat_down_port)
{
    g_autoptr (WeftIbdiag) d = fabric (down_and_slow);
    GString *out = g_string_new (NULL);
    GError *error = NULL;
    ck_assert (weft_ibdiag_ibstat (d, "dgx-1/mlx5_3", out, &error));
    ck_assert_str_eq (out->str, "CA 'mlx5_3'\n"
                                "\tCA type: MT4129\n"
                                "\tNumber of ports: 1\n"
                                "\tFirmware version: weft test\n"
                                "\tHardware version: 0\n"
                                "\tNode GUID: 0x7765667400000200\n"
                                "\tSystem image GUID: 0x7765667400000200\n"
                                "\tPort 1:\n"
                                "\t\tState: Down\n"
                                "\t\tPhysical state: Polling\n"
                                "\t\tRate: 400\n"
                                "\t\tBase lid: 3\n"
                                "\t\tLMC: 0\n"
                                "\t\tSM lid: 1\n"
                                "\t\tCapability mask: 0x2651e848\n"
                                "\t\tPort GUID: 0x7765667400000201\n"
                                "\t\tLink layer: InfiniBand\n");
    /* a server: its two CAs, no server line; every server: one line per server */
    g_string_truncate (out, 0);
    ck_assert (weft_ibdiag_ibstat (d, "dgx-1", out, &error));
    ck_assert (strstr (out->str, "CA 'mlx5_0'") && strstr (out->str, "CA 'mlx5_3'"));
    ck_assert (!strstr (out->str, "# dgx-1"));
    g_string_truncate (out, 0);
    ck_assert (weft_ibdiag_ibstat (d, NULL, out, &error));
    ck_assert (strstr (out->str, "# dgx-1\nCA 'mlx5_0'") && strstr (out->str, "# dgx-2\n"));
    ck_assert (strstr (out->str, "\t\tRate: 100\n")); /* dgx-2/mlx5_0 at 1x */
    ck_assert (!weft_ibdiag_ibstat (d, "dgx-", out, &error));
    ck_assert (g_error_matches (error, WEFT_IBDIAG_ERROR, WEFT_IBDIAG_ERROR_NAME));
    g_clear_error (&error);
    g_string_free (out, TRUE);
}
END_TEST

/* ---- links --worst --------------------------------------------------------------------- */

static void
one_of_each (GArray *ports)
{
    down_and_slow (ports);             /* link 1 Down (LinkDowned 1 at both ends), link 2 at 1x */
    row (ports, 1, 2)->rcv_errors = 3; /* link 0: errors */
}

static void
slow_and_waiting (GArray *ports)
{
    row (ports, 3, 2)->rate_bps = G400 / 4;
    row (ports, 0, 1)->xmit_wait_ps = 1000;
}

/* The link named on line @i (1-based) of the ranking. */
static char *
ranked (const char *text, guint i)
{
    g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
    g_auto (GStrv) words = g_strsplit_set (lines[i + 1], " ", -1);
    for (guint k = 1; words[k]; k++)
        if (*words[k])
            return g_strdup (words[k]);
    return NULL;
}

START_TEST (test_ibdiag_links_worst_order)
{
    g_autoptr (WeftIbdiag) d = fabric (one_of_each);
    GString *out = g_string_new (NULL);
    weft_ibdiag_links_worst (d, 0, out);
    /* errors: link 0 has 3, link 1 has 2 LinkDowned; then the 1x link */
    g_autofree char *first = ranked (out->str, 1), *second = ranked (out->str, 2),
                    *third = ranked (out->str, 3);
    ck_assert_str_eq (first, "dgx-1/mlx5_0:2");
    ck_assert_str_eq (second, "dgx-1/mlx5_3:2");
    ck_assert_str_eq (third, "dgx-2/mlx5_0:2");
    ck_assert (strstr (out->str, "rate 75% below nominal"));
    g_autoptr (WeftIbdiag) e = fabric (slow_and_waiting);
    g_string_truncate (out, 0);
    weft_ibdiag_links_worst (e, 2, out);
    g_autofree char *a = ranked (out->str, 1), *b = ranked (out->str, 2);
    ck_assert_str_eq (a, "dgx-2/mlx5_0:2"); /* the rate before the wait */
    ck_assert_str_eq (b, "dgx-1/mlx5_0:2");
    g_auto (GStrv) lines = g_strsplit (out->str, "\n", -1);
    ck_assert_uint_eq (g_strv_length (lines), 2 + 2 + 1); /* 2 header lines, 2 links, "" */
    g_string_free (out, TRUE);
}
END_TEST

START_TEST (test_ibdiag_ignores_ids_past_the_table)
{
    /* a damaged file's ids are not trusted for an allocation or an index */
    GArray *nodes = g_array_new (FALSE, TRUE, sizeof (WeftTraceNode));
    GArray *links = g_array_new (FALSE, TRUE, sizeof (WeftTraceLink));
    GArray *ports = g_array_new (FALSE, TRUE, sizeof (WeftTracePort));
    add_node (nodes, 0, "leaf", "switch", 1);
    add_node (nodes, G_MAXUINT32 - 1, "far/mlx5_0", "nic", 0);
    add_link (links, 0, G_MAXUINT32 - 1, 2, 0, 1, G400);
    add_port (ports, 0, 1, 0, G400);
    add_port (ports, G_MAXUINT32 - 1, 2, 0, G400);
    g_autoptr (WeftIbdiag) d = weft_ibdiag_new (nodes, links, ports, 1000, "weft test");
    GString *out = g_string_new (NULL);
    GError *error = NULL;
    ck_assert (!weft_ibdiag_ibstat (d, NULL, out, &error));
    g_clear_error (&error);
    weft_ibdiag_links_worst (d, 0, out);
    ck_assert (strstr (out->str, "leaf:1") != NULL);
    g_string_free (out, TRUE);
}
END_TEST

static void
sick (GArray *ports)
{
    /* dgx-1/mlx5_3's link trained at 1x, dgx-2/mlx5_0's link Down, errors at dgx-1/mlx5_0 */
    row (ports, 2, 2)->rate_bps = G400 / 4;
    row (ports, 0, 2)->rate_bps = G400 / 4;
    row (ports, 3, 2)->state = 1;
    row (ports, 0, 3)->state = 1;
    row (ports, 1, 2)->rcv_errors = 5;
    row (ports, 1, 2)->symbol_errors = 5;
}

START_TEST (test_ibdiag_check_findings)
{
    g_autoptr (WeftIbdiag) healthy = fabric (NULL);
    WeftIbdiagThresholds t = { 0 };
    GString *out = g_string_new (NULL);
    ck_assert_uint_eq (weft_ibdiag_check (healthy, &t, out), 0);
    ck_assert_ptr_null (strstr (out->str, "-E-"));
    g_string_truncate (out, 0);
    g_autoptr (WeftIbdiag) d = fabric (sick);
    /* one link's rate, one port's errors, two ports Down */
    ck_assert_uint_eq (weft_ibdiag_check (d, &t, out), 4);
    ck_assert_ptr_nonnull (
        strstr (out->str, "-E-   dgx-1/mlx5_3:2 <-> leaf:2 (nic-leaf): 100 Gb/s, its tier runs "
                          "at 400 Gb/s (a 4x port at 1x)\n"));
    ck_assert_ptr_nonnull (strstr (out->str, "-E-   dgx-1/mlx5_0:2: SymbolErrorCounter 5 "
                                             "(threshold 0), PortRcvErrors 5 (threshold 0)\n"));
    ck_assert_ptr_nonnull (strstr (out->str, "-E-   leaf:3: Down, should be Active (peer "
                                             "dgx-2/mlx5_0:2)\n"));
    ck_assert_ptr_nonnull (strstr (out->str, "-E-   dgx-2/mlx5_0:2: Down"));
    /* a count at its threshold does not exceed it */
    ck_assert (weft_ibdiag_threshold_set (&t, "PortRcvErrors=5", NULL));
    ck_assert (weft_ibdiag_threshold_set (&t, "SymbolErrorCounter=5", NULL));
    g_string_truncate (out, 0);
    ck_assert_uint_eq (weft_ibdiag_check (d, &t, out), 3);
    ck_assert (weft_ibdiag_threshold_set (&t, "SymbolErrorCounter=4", NULL));
    g_string_truncate (out, 0);
    ck_assert_uint_eq (weft_ibdiag_check (d, &t, out), 4);
    g_string_free (out, TRUE);
}
END_TEST

START_TEST (test_ibdiag_threshold_names)
{
    WeftIbdiagThresholds t = { 0 };
    ck_assert (weft_ibdiag_threshold_set (&t, "LinkDownedCounter=3", NULL));
    ck_assert (weft_ibdiag_threshold_set (&t, "PortXmitDiscards=7", NULL));
    ck_assert_uint_eq (t.link_downed, 3);
    ck_assert_uint_eq (t.xmit_discards, 7);
    static const char *const bad[] = { "PortRcvErrs=1", "PortRcvErrors",
                                       "PortRcvErrors=", "PortRcvErrors=-1", "PortRcvErrors=1x" };
    for (guint i = 0; i < G_N_ELEMENTS (bad); i++) {
        GError *error = NULL;
        ck_assert_msg (!weft_ibdiag_threshold_set (&t, bad[i], &error), "%s", bad[i]);
        ck_assert (g_error_matches (error, WEFT_IBDIAG_ERROR, WEFT_IBDIAG_ERROR_NAME));
        g_error_free (error);
    }
}
END_TEST

static void
add_sample (GArray *samples, guint64 t_us, guint32 link, guint8 dir, guint64 bytes)
{
    WeftTraceLinkSample s = { .time_ps = t_us * 1000000,
                              .link = link,
                              .direction = dir,
                              .bytes = bytes,
                              .packets = 1,
                              .stall_ps = 10 };
    g_array_append_val (samples, s);
}

static void
add_fault (GArray *faults, guint64 t_us, guint32 link, const char *action, double value,
           guint64 downed)
{
    WeftTraceFault f = { .time_ps = t_us * 1000000,
                         .link = link,
                         .value = value,
                         .a_link_downed = downed,
                         .b_link_downed = downed,
                         .b_rcv_errors = 9 };
    g_strlcpy (f.action, action, sizeof f.action);
    g_array_append_val (faults, f);
}

START_TEST (test_ibdiag_ports_at)
{
    g_autoptr (GArray) links = g_array_new (FALSE, TRUE, sizeof (WeftTraceLink));
    g_autoptr (GArray) ports = g_array_new (FALSE, TRUE, sizeof (WeftTracePort));
    g_autoptr (GArray) samples = g_array_new (FALSE, TRUE, sizeof (WeftTraceLinkSample));
    g_autoptr (GArray) faults = g_array_new (FALSE, TRUE, sizeof (WeftTraceFault));
    add_link (links, 0, 1, 2, 0, 1, G400); /* a: node 1 port 2; b: node 0 port 1 */
    add_link (links, 1, 2, 2, 0, 2, G400);
    for (guint i = 0; i < 2; i++) {
        add_port (ports, i + 1, 2, i, G400)->tx_bytes = 999999; /* the end's: replaced */
        add_port (ports, 0, i + 1, i, G400)->tx_bytes = 999999;
    }
    add_sample (samples, 10, 0, 0, 100);
    add_sample (samples, 10, 0, 1, 7);
    add_sample (samples, 20, 0, 0, 50);
    add_sample (samples, 30, 0, 0, 25);
    add_fault (faults, 15, 0, "rate", 1e11, 0);
    add_fault (faults, 20, 0, "down", 0, 1);
    add_fault (faults, 25, 0, "up", 0, 1);
    static const struct {
        guint64 at_us, sample_us, tx, rx, rate;
        guint state, downed;
    } want[] = {
        { 5, 0, 0, 0, G400, 4, 0 },         { 10, 10, 100, 7, G400, 4, 0 },
        { 15, 10, 100, 7, G400 / 4, 4, 0 }, { 20, 20, 150, 7, G400 / 4, 1, 1 },
        { 29, 20, 150, 7, G400 / 4, 4, 1 }, { 40, 30, 175, 7, G400 / 4, 4, 1 },
    };
    for (guint i = 0; i < G_N_ELEMENTS (want); i++) {
        GArray *p = g_array_copy (ports);
        guint64 s = weft_ibdiag_ports_at (p, links, samples, faults, want[i].at_us * 1000000);
        ck_assert_uint_eq (s, want[i].sample_us * 1000000);
        const WeftTracePort *a = &g_array_index (p, WeftTracePort, 0);
        const WeftTracePort *b = &g_array_index (p, WeftTracePort, 1);
        ck_assert_uint_eq (a->tx_bytes, want[i].tx);
        ck_assert_uint_eq (a->rx_bytes, want[i].rx);
        ck_assert_uint_eq (b->rx_bytes, want[i].tx);
        ck_assert_uint_eq (b->tx_bytes, want[i].rx);
        ck_assert_uint_eq (a->rate_bps, want[i].rate);
        ck_assert_uint_eq (a->state, want[i].state);
        ck_assert_uint_eq (b->state, want[i].state);
        ck_assert_uint_eq (a->link_downed, want[i].downed);
        ck_assert_uint_eq (b->rcv_errors, want[i].at_us >= 15 ? 9 : 0);
        ck_assert_uint_eq (a->rcv_errors, 0);
        /* the other link: no sample, no fault */
        const WeftTracePort *c = &g_array_index (p, WeftTracePort, 2);
        ck_assert_uint_eq (c->tx_bytes, 0);
        ck_assert_uint_eq (c->state, 4);
        ck_assert_uint_eq (c->rate_bps, G400);
        g_array_unref (p);
    }
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("ibdiag");
    TCase *tc = tcase_create ("tools");
    tcase_add_test (tc, test_ibdiag_field_padding);
    tcase_add_test (tc, test_ibdiag_perfquery_saturates);
    tcase_add_test (tc, test_ibdiag_perfquery_names_a_ca_port_from_1);
    tcase_add_test (tc, test_ibdiag_ibstat_down_port);
    tcase_add_test (tc, test_ibdiag_links_worst_order);
    tcase_add_test (tc, test_ibdiag_ignores_ids_past_the_table);
    tcase_add_test (tc, test_ibdiag_check_findings);
    tcase_add_test (tc, test_ibdiag_threshold_names);
    tcase_add_test (tc, test_ibdiag_ports_at);
    suite_add_tcase (s, tc);
    return s;
}
