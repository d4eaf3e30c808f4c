/* analysis/ibdiag_check.c - `weft diag check`: one report of what an ibdiagnet run would flag
 * on the fabric the trace describes (analysis/ibdiag.h).
 *
 * Three checks, each over the fabric links and ports of /topology and /ports: a link whose
 * rate differs from the one its tier was built with (a cable that trained at a lower speed or
 * width), a port whose error counters exceed the thresholds (ibqueryerrors' default of 0:
 * any error), a cabled port that is not Active (every cabled port of weft's fabrics should
 * be).  The lines take ibdiagnet's prefixes: -I- information, -E- a problem.
 */
#include "config.h"
#define G_LOG_DOMAIN "weft-ibdiag"
#include "analysis/ibdiag.h"
#include "analysis/ibdiag_private.h"

#include <string.h>

static const struct {
    const char *name;
    gsize offset;
} counters[] = {
    { "SymbolErrorCounter", G_STRUCT_OFFSET (WeftIbdiagThresholds, symbol_errors) },
    { "LinkDownedCounter", G_STRUCT_OFFSET (WeftIbdiagThresholds, link_downed) },
    { "PortRcvErrors", G_STRUCT_OFFSET (WeftIbdiagThresholds, rcv_errors) },
    { "PortXmitDiscards", G_STRUCT_OFFSET (WeftIbdiagThresholds, xmit_discards) },
};

#define THRESHOLD(t, i) G_STRUCT_MEMBER (guint64, (t), counters[i].offset)

gboolean
weft_ibdiag_threshold_set (WeftIbdiagThresholds *t, const char *text, GError **error)
{
    const char *eq = strchr (text, '=');
    g_autofree char *name = g_strndup (text, eq ? (gsize) (eq - text) : strlen (text));
    for (guint i = 0; i < G_N_ELEMENTS (counters); i++) {
        if (strcmp (name, counters[i].name) != 0)
            continue;
        char *end = NULL;
        guint64 v = eq ? g_ascii_strtoull (eq + 1, &end, 10) : 0;
        if (!eq || !eq[1] || *end || eq[1] == '-') {
            g_set_error (error, WEFT_IBDIAG_ERROR, WEFT_IBDIAG_ERROR_NAME,
                         "'%s': expected %s=N, N a count", text, name);
            return FALSE;
        }
        THRESHOLD (t, i) = v;
        return TRUE;
    }
    g_set_error (error, WEFT_IBDIAG_ERROR, WEFT_IBDIAG_ERROR_NAME,
                 "'%s': unknown counter '%s' (expected SymbolErrorCounter, LinkDownedCounter, "
                 "PortRcvErrors or PortXmitDiscards)",
                 text, name);
    return FALSE;
}

/* A port's counter @i, as /ports has it. */
static guint64
counter (const WeftTracePort *row, guint i)
{
    switch (i) {
    case 0:
        return row->symbol_errors;
    case 1:
        return row->link_downed;
    case 2:
        return row->rcv_errors;
    default:
        return row->drops;
    }
}

static void
port_name (const WeftIbdiag *d, guint32 node, guint32 port, GString *out)
{
    g_string_append_printf (out, "%s:%u", weft_ibdiag_node_name (d, node), port);
}

typedef struct {
    const WeftTraceLink *link;
    const Port *end[2];
    char tier[32];
} CheckLink;

/* The rate most links of @tier were built with (ties: the higher). */
static guint64
tier_rate (const GArray *links, const char *tier)
{
    GHashTable *count = g_hash_table_new (g_int64_hash, g_int64_equal);
    GArray *keys = g_array_new (FALSE, FALSE, sizeof (gint64));
    for (guint i = 0; i < links->len; i++) {
        const CheckLink *c = &g_array_index (links, CheckLink, i);
        if (strcmp (c->tier, tier) != 0)
            continue;
        gint64 r = (gint64) c->link->rate_bps;
        guint n = GPOINTER_TO_UINT (g_hash_table_lookup (count, &r));
        if (n == 0)
            g_array_append_val (keys, r);
        g_hash_table_replace (count, &g_array_index (keys, gint64, keys->len - 1),
                              GUINT_TO_POINTER (n + 1));
    }
    guint64 best = 0;
    guint most = 0;
    for (guint i = 0; i < keys->len; i++) {
        gint64 r = g_array_index (keys, gint64, i);
        guint n = GPOINTER_TO_UINT (g_hash_table_lookup (count, &r));
        if (n > most || (n == most && (guint64) r > best)) {
            most = n;
            best = (guint64) r;
        }
    }
    g_hash_table_unref (count);
    g_array_free (keys, TRUE);
    return best;
}

guint
weft_ibdiag_check (const WeftIbdiag *d, const WeftIbdiagThresholds *t, GString *out)
{
    /* The fabric links, with their ends' rows (ports in node and port order). */
    GArray *links = g_array_new (FALSE, TRUE, sizeof (CheckLink));
    GHashTable *at = g_hash_table_new (NULL, NULL); /* link id + 1 -> index + 1 */
    for (guint i = 0; i < d->all_ports->len; i++) {
        const Port *p = d->all_ports->pdata[i];
        gpointer key = GUINT_TO_POINTER (p->link->id + 1);
        guint idx = GPOINTER_TO_UINT (g_hash_table_lookup (at, key));
        if (!idx) {
            CheckLink c = { .link = p->link };
            weft_ibdiag_link_tier (d, p->link, c.tier, sizeof c.tier);
            g_array_append_val (links, c);
            idx = links->len;
            g_hash_table_insert (at, key, GUINT_TO_POINTER (idx));
        }
        CheckLink *c = &g_array_index (links, CheckLink, idx - 1);
        gboolean a_end = p->row->node == p->link->node_a && p->row->port == p->link->port_a;
        c->end[a_end ? 0 : 1] = p;
    }
    g_hash_table_unref (at);
    guint problems = 0;
    g_string_append_printf (out,
                            "-I- Fabric check: %u fabric links, %u ports (weft diag check, in "
                            "the manner of ibdiagnet)\n",
                            links->len, d->all_ports->len);

    /* 1. Speed and width against the tier's. */
    GString *lines = g_string_new (NULL);
    guint n = 0;
    for (guint i = 0; i < links->len; i++) {
        const CheckLink *c = &g_array_index (links, CheckLink, i);
        guint64 want = tier_rate (links, c->tier), rate = c->link->rate_bps;
        for (guint e = 0; e < 2; e++)
            if (c->end[e] && c->end[e]->row->rate_bps)
                rate = MIN (rate, c->end[e]->row->rate_bps);
        if (rate == want)
            continue;
        n++;
        g_string_append (lines, "-E-   ");
        port_name (d, c->link->node_a, c->link->port_a, lines);
        g_string_append (lines, " <-> ");
        port_name (d, c->link->node_b, c->link->port_b, lines);
        g_string_append_printf (lines, " (%s): %g Gb/s, its tier runs at %g Gb/s", c->tier,
                                (double) rate / 1e9, (double) want / 1e9);
        if (rate < want && want % rate == 0 && (want / rate == 2 || want / rate == 4))
            g_string_append_printf (lines, " (a 4x port at %ux)", (guint) (4 / (want / rate)));
        g_string_append_c (lines, '\n');
    }
    if (n)
        g_string_append_printf (out, "-E- Speed/width: %u %s from %s tier's rate\n%s", n,
                                n == 1 ? "link differs" : "links differ", n == 1 ? "its" : "their",
                                lines->str);
    else
        g_string_append (out, "-I- Speed/width: every link runs at its tier's rate\n");
    problems += n;

    /* 2. Error counters above the thresholds. */
    g_string_truncate (lines, 0);
    n = 0;
    for (guint i = 0; i < d->all_ports->len; i++) {
        const Port *p = d->all_ports->pdata[i];
        GString *why = g_string_new (NULL);
        for (guint k = 0; k < G_N_ELEMENTS (counters); k++) {
            guint64 v = counter (p->row, k), limit = THRESHOLD (t, k);
            if (v > limit)
                g_string_append_printf (
                    why, "%s%s %" G_GUINT64_FORMAT " (threshold %" G_GUINT64_FORMAT ")",
                    why->len ? ", " : "", counters[k].name, v, limit);
        }
        if (why->len) {
            n++;
            g_string_append (lines, "-E-   ");
            port_name (d, p->row->node, p->row->port, lines);
            g_string_append_printf (lines, ": %s\n", why->str);
        }
        g_string_free (why, TRUE);
    }
    g_string_append_printf (out, "%s Port counters: %u %s the thresholds (", n ? "-E-" : "-I-", n,
                            n == 1 ? "port exceeds" : "ports exceed");
    for (guint k = 0; k < G_N_ELEMENTS (counters); k++)
        g_string_append_printf (out, "%s%s > %" G_GUINT64_FORMAT, k ? ", " : "", counters[k].name,
                                THRESHOLD (t, k));
    g_string_append_printf (out, ")\n%s", lines->str);
    problems += n;

    /* 3. Cabled ports that are not Active. */
    g_string_truncate (lines, 0);
    n = 0;
    static const char *const states[] = { "?", "Down", "Initializing", "Armed", "Active" };
    for (guint i = 0; i < d->all_ports->len; i++) {
        const Port *p = d->all_ports->pdata[i];
        guint s = p->row->state;
        if (s == 0 || s == 4) /* not recorded (an old trace), or Active */
            continue;
        n++;
        g_string_append (lines, "-E-   ");
        port_name (d, p->row->node, p->row->port, lines);
        g_string_append_printf (lines, ": %s, should be Active (peer ",
                                s < G_N_ELEMENTS (states) ? states[s] : "?");
        port_name (d, p->peer_node, p->peer_port, lines);
        g_string_append (lines, ")\n");
    }
    if (n)
        g_string_append_printf (out, "-E- Port state: %u %s not Active that should be\n%s", n,
                                n == 1 ? "port" : "ports", lines->str);
    else
        g_string_append (out, "-I- Port state: every cabled port is Active\n");
    problems += n;
    g_string_free (lines, TRUE);
    g_array_free (links, TRUE);
    g_string_append_printf (out, "-I- Summary: %u problem%s\n", problems, problems == 1 ? "" : "s");
    return problems;
}
