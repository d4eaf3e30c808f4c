/* analysis/ibdiag.c - ibstat, perfquery and the worst links over a trace's tables
 * (analysis/ibdiag.h). */
#include "config.h"
#define G_LOG_DOMAIN "weft-ibdiag"
#include "analysis/ibdiag.h"
#include "analysis/ibdiag_private.h"

#include <math.h>
#include <string.h>

G_DEFINE_QUARK (weft - ibdiag - error - quark, weft_ibdiag_error)

/* The top 32 bits of every GUID weft derives: "weft" in ASCII. */
#define GUID_BASE G_GUINT64_CONSTANT (0x7765667400000000)
/* PerfMgt ClassPortInfo CapabilityMask: IsExtendedWidthSupported (bit 9) and
 * IsPortXmitWaitSupported (bit 12), the counters printed below; CapabilityMask2 with the
 * additional extended counters.  weft's choice (unverified against a particular HCA). */
#define PM_CAPMASK 0x1200u
#define PM_CAPMASK2 0x0000002u
/* PortInfo CapabilityMask: a fixed value of the shape ConnectX HCAs report on InfiniBand
 * (unverified); on Ethernet (RoCE) ports the IB-only bits are clear. */
#define PORT_CAPMASK_IB 0x2651e848u
#define PORT_CAPMASK_ETH 0x00010000u


static const char *
str_field (const char *s, gsize len, char *buf)
{
    memcpy (buf, s, len);
    buf[len] = '\0';
    return buf;
}

#define FIELD_STR(field, buf) str_field ((field), sizeof (field), (buf))

static gboolean
is_kind (const WeftTraceNode *n, const char *kind)
{
    return strncmp (n->kind, kind, sizeof n->kind) == 0;
}

const char *
weft_ibdiag_node_name (const WeftIbdiag *d, guint32 id)
{
    return id < d->n_nodes && d->node[id].row ? d->node[id].name : "?";
}

static void
port_free (gpointer p)
{
    g_free (p);
}

static int
cmp_port (gconstpointer a, gconstpointer b)
{
    const Port *x = *(Port *const *) a, *y = *(Port *const *) b;
    if (x->row->node != y->row->node)
        return x->row->node < y->row->node ? -1 : 1;
    return (x->row->port > y->row->port) - (x->row->port < y->row->port);
}

WeftIbdiag *
weft_ibdiag_new (GArray *nodes, GArray *links, GArray *ports, guint64 sim_time_ps,
                 const char *firmware)
{
    WeftIbdiag *d = g_new0 (WeftIbdiag, 1);
    d->nodes = nodes;
    d->links = links;
    d->ports = ports;
    d->sim_time_ps = sim_time_ps;
    d->firmware = g_strdup (firmware ? firmware : "");
    /* weft numbers nodes densely from 0; a row whose id is past the table (a damaged file)
     * is left out rather than trusted for an allocation */
    d->n_nodes = nodes->len;
    d->node = g_new0 (Node, MAX (d->n_nodes, 1));
    for (guint i = 0; i < nodes->len; i++) {
        const WeftTraceNode *n = &g_array_index (nodes, WeftTraceNode, i);
        if (n->id >= d->n_nodes)
            continue;
        d->node[n->id].row = n;
        g_free (d->node[n->id].name);
        d->node[n->id].name = g_strndup (n->name, sizeof n->name);
        if (d->node[n->id].ports)
            g_ptr_array_unref (d->node[n->id].ports);
        d->node[n->id].ports = g_ptr_array_new ();
    }
    GHashTable *by_id = g_hash_table_new (NULL, NULL);
    for (guint i = 0; i < links->len; i++) {
        const WeftTraceLink *l = &g_array_index (links, WeftTraceLink, i);
        g_hash_table_insert (by_id, GUINT_TO_POINTER (l->id + 1), (gpointer) l);
    }
    d->all_ports = g_ptr_array_new_with_free_func (port_free);
    for (guint i = 0; i < ports->len; i++) {
        const WeftTracePort *r = &g_array_index (ports, WeftTracePort, i);
        const WeftTraceLink *l = g_hash_table_lookup (by_id, GUINT_TO_POINTER (r->link + 1));
        if (!l || strncmp (l->kind, "fabric", sizeof l->kind) != 0 || r->node >= d->n_nodes ||
            !d->node[r->node].row)
            continue;
        Port *p = g_new0 (Port, 1);
        p->row = r;
        p->link = l;
        gboolean a_end = l->node_a == r->node && l->port_a == r->port;
        p->peer_node = a_end ? l->node_b : l->node_a;
        p->peer_port = a_end ? l->port_b : l->port_a;
        g_ptr_array_add (d->all_ports, p);
    }
    g_hash_table_unref (by_id);
    g_ptr_array_sort (d->all_ports, cmp_port);
    for (guint i = 0; i < d->all_ports->len; i++) {
        Port *p = d->all_ports->pdata[i];
        Node *n = &d->node[p->row->node];
        g_ptr_array_add (n->ports, p);
        p->ib_port = n->ports->len;
    }
    /* LIDs in node order: one per switch, one per CA port; the subnet manager at LID 1. */
    guint lid = 1;
    for (guint32 id = 0; id < d->n_nodes; id++) {
        Node *n = &d->node[id];
        if (!n->row || n->ports->len == 0)
            continue;
        if (is_kind (n->row, "switch")) {
            n->lid = lid++;
            for (guint k = 0; k < n->ports->len; k++)
                ((Port *) n->ports->pdata[k])->lid = n->lid;
        } else if (is_kind (n->row, "nic") || is_kind (n->row, "host")) {
            n->ca = TRUE;
            for (guint k = 0; k < n->ports->len; k++)
                ((Port *) n->ports->pdata[k])->lid = lid++;
        }
    }
    return d;
}

void
weft_ibdiag_free (WeftIbdiag *d)
{
    if (!d)
        return;
    for (guint i = 0; i < d->n_nodes; i++) {
        if (d->node[i].ports)
            g_ptr_array_unref (d->node[i].ports);
        g_free (d->node[i].name);
    }
    g_free (d->node);
    g_ptr_array_unref (d->all_ports);
    g_array_unref (d->nodes);
    g_array_unref (d->links);
    g_array_unref (d->ports);
    g_free (d->firmware);
    g_free (d);
}

/* ---- ibstat ---------------------------------------------------------------------------- */

/* The server part of a node name ("dgx-2" of "dgx-2/mlx5_3"), into @buf; the whole name for a
 * node without one. */
static const char *
server_of (const char *name, char *buf, gsize size)
{
    const char *slash = strrchr (name, '/');
    gsize len = slash ? (gsize) (slash - name) : strlen (name);
    len = MIN (len, size - 1);
    memcpy (buf, name, len);
    buf[len] = '\0';
    return buf;
}

/* The CA's name as the host knows it: what follows the server's name ("mlx5_3"); a host
 * without NIC nodes has one HCA, mlx5_0. */
static const char *
ca_name (const char *name)
{
    const char *slash = strrchr (name, '/');
    return slash ? slash + 1 : "mlx5_0";
}

static guint64
node_guid (guint32 id)
{
    return GUID_BASE | ((guint64) id << 8);
}

static const char *
ca_type (guint64 nominal_bps)
{
    /* PCI device ids of ConnectX-7, -6 and -5 (unverified): by the nominal rate */
    if (nominal_bps >= G_GUINT64_CONSTANT (400000000000))
        return "MT4129";
    if (nominal_bps >= G_GUINT64_CONSTANT (200000000000))
        return "MT4123";
    return "MT4119";
}

static const char *
state_name (guint state)
{
    static const char *const names[] = { "???", "Down", "Initializing", "Armed", "Active" };
    return state < G_N_ELEMENTS (names) ? names[state] : "???";
}

static const char *
phys_state_name (guint state)
{
    static const char *const names[] = {
        "No state change",           "Sleep",  "Polling",           "Disabled",
        "PortConfigurationTraining", "LinkUp", "LinkErrorRecovery", "PhyTest"
    };
    return state < G_N_ELEMENTS (names) ? names[state] : "???";
}

static void
append_rate (GString *out, guint64 bps)
{
    if (bps == G_GUINT64_CONSTANT (2500000000))
        g_string_append (out, "2.5");
    else if (bps % G_GUINT64_CONSTANT (1000000000) == 0)
        g_string_append_printf (out, "%" G_GUINT64_FORMAT, bps / G_GUINT64_CONSTANT (1000000000));
    else
        g_string_append_printf (out, "%g", (double) bps / 1e9);
}

static void
ibstat_ca (const WeftIbdiag *d, const Node *n, GString *out)
{
    char buf[WEFT_TRACE_KIND_LEN + 1];
    const Port *first = n->ports->pdata[0];
    guint64 guid = node_guid (n->row->id);
    g_string_append_printf (out, "CA '%s'\n", ca_name (n->name));
    g_string_append_printf (out, "\tCA type: %s\n", ca_type (first->link->rate_bps));
    g_string_append_printf (out, "\tNumber of ports: %u\n", n->ports->len);
    g_string_append_printf (out, "\tFirmware version: %s\n", d->firmware);
    g_string_append (out, "\tHardware version: 0\n");
    g_string_append_printf (out, "\tNode GUID: 0x%016" G_GINT64_MODIFIER "x\n", guid);
    g_string_append_printf (out, "\tSystem image GUID: 0x%016" G_GINT64_MODIFIER "x\n", guid);
    for (guint k = 0; k < n->ports->len; k++) {
        const Port *p = n->ports->pdata[k];
        const char *layer = FIELD_STR (p->row->link_layer, buf);
        gboolean eth = strcmp (layer, "Ethernet") == 0;
        g_string_append_printf (out, "\tPort %u:\n", p->ib_port);
        g_string_append_printf (out, "\t\tState: %s\n", state_name (p->row->state));
        g_string_append_printf (out, "\t\tPhysical state: %s\n",
                                phys_state_name (p->row->phys_state));
        g_string_append (out, "\t\tRate: ");
        append_rate (out, p->row->rate_bps);
        g_string_append_c (out, '\n');
        g_string_append_printf (out, "\t\tBase lid: %u\n", eth ? 0 : p->lid);
        g_string_append (out, "\t\tLMC: 0\n");
        g_string_append_printf (out, "\t\tSM lid: %u\n", eth ? 0 : 1);
        g_string_append_printf (out, "\t\tCapability mask: 0x%08x\n",
                                eth ? PORT_CAPMASK_ETH : PORT_CAPMASK_IB);
        g_string_append_printf (out, "\t\tPort GUID: 0x%016" G_GINT64_MODIFIER "x\n",
                                guid | p->ib_port);
        g_string_append_printf (out, "\t\tLink layer: %s\n", *layer ? layer : "InfiniBand");
    }
}

static gboolean
ca_matches (const Node *n, const char *filter)
{
    if (!filter)
        return TRUE;
    const char *name = n->name;
    gsize len = strlen (filter);
    if (strcmp (name, filter) == 0)
        return TRUE;
    return strncmp (name, filter, len) == 0 && name[len] == '/';
}

void
weft_ibdiag_mark_removed (WeftIbdiag *d, const GArray *faults, guint64 at_ps)
{
    for (guint k = 0; faults && k < faults->len; k++) {
        const WeftTraceFault *f = &g_array_index (faults, WeftTraceFault, k);
        if (f->time_ps > at_ps || strncmp (f->kind, "nic-removed", sizeof f->kind) != 0 ||
            strncmp (f->action, "down", sizeof f->action) != 0)
            continue;
        for (guint i = 0; i < d->links->len; i++) {
            const WeftTraceLink *l = &g_array_index (d->links, WeftTraceLink, i);
            if (l->id != f->link)
                continue;
            const guint32 ends[2] = { l->node_a, l->node_b };
            for (guint e = 0; e < 2; e++) {
                Node *n = ends[e] < d->n_nodes ? &d->node[ends[e]] : NULL;
                if (!n || !n->row || !is_kind (n->row, "nic") || n->removed)
                    continue;
                n->removed = TRUE;
                n->removed_ps = f->time_ps;
                str_field (f->fault, sizeof f->fault, n->removed_by);
            }
        }
    }
}

gboolean
weft_ibdiag_ibstat (const WeftIbdiag *d, const char *filter, GString *out, GError **error)
{
    char server[WEFT_TRACE_NAME_LEN + 1], first[WEFT_TRACE_NAME_LEN + 1] = "";
    guint n_servers = 0, n_cas = 0;
    const Node *gone = NULL;
    for (guint32 id = 0; id < d->n_nodes; id++) {
        const Node *n = &d->node[id];
        if (!n->ca || !ca_matches (n, filter))
            continue;
        if (n->removed) {
            gone = gone ? gone : n;
            continue;
        }
        n_cas++;
        server_of (n->name, server, sizeof server);
        if (n_servers == 0 || strcmp (server, first) != 0)
            n_servers++;
        g_strlcpy (first, server, sizeof first);
    }
    if (n_cas == 0 && gone) {
        g_set_error (error, WEFT_IBDIAG_ERROR, WEFT_IBDIAG_ERROR_NAME,
                     "%s was removed from its server at %.3f us ([%s]): ibstat there lists it "
                     "no more",
                     gone->name, (double) gone->removed_ps / 1e6, gone->removed_by);
        return FALSE;
    }
    if (n_cas == 0) {
        g_set_error (error, WEFT_IBDIAG_ERROR, WEFT_IBDIAG_ERROR_NAME,
                     "no channel adapter named '%s' or on a server of that name", filter);
        return FALSE;
    }
    first[0] = '\0';
    for (guint32 id = 0; id < d->n_nodes; id++) {
        const Node *n = &d->node[id];
        if (!n->ca || n->removed || !ca_matches (n, filter))
            continue;
        server_of (n->name, server, sizeof server);
        if (n_servers > 1 && strcmp (server, first) != 0)
            g_string_append_printf (out, "# %s\n", server);
        g_strlcpy (first, server, sizeof first);
        ibstat_ca (d, n, out);
    }
    return TRUE;
}

/* ---- perfquery ------------------------------------------------------------------------- */

void
weft_ibdiag_field (GString *out, const char *name, const char *value)
{
    gsize len = strlen (name);
    g_string_append (out, name);
    g_string_append_c (out, ':');
    for (gsize i = len; i < 32; i++)
        g_string_append_c (out, '.');
    g_string_append (out, value);
    g_string_append_c (out, '\n');
}

static void
field_u64 (GString *out, const char *name, guint64 value)
{
    char buf[32];
    g_snprintf (buf, sizeof buf, "%" G_GUINT64_FORMAT, value);
    weft_ibdiag_field (out, name, buf);
}

/* A counter of @bits saturates at all ones (IBA: the counters stop there). */
static guint64
cap (guint64 value, guint bits)
{
    guint64 max = bits >= 64 ? G_MAXUINT64 : (G_GUINT64_CONSTANT (1) << bits) - 1;
    return MIN (value, max);
}

/* The port @text names: NODE:PORT (weft's numbering), or a node with one fabric port. */
static const Port *
find_port (const WeftIbdiag *d, const char *text, GError **error)
{
    const char *colon = strrchr (text, ':');
    g_autofree char *name = colon ? g_strndup (text, (gsize) (colon - text)) : g_strdup (text);
    const Node *n = NULL;
    for (guint32 id = 0; id < d->n_nodes && !n; id++)
        if (d->node[id].row && strcmp (d->node[id].name, name) == 0)
            n = &d->node[id];
    if (!n) {
        g_set_error (error, WEFT_IBDIAG_ERROR, WEFT_IBDIAG_ERROR_NAME,
                     "unknown node '%s': expected NODE:PORT as weft topo prints it", name);
        return NULL;
    }
    if (!colon) {
        if (n->ports->len == 1)
            return n->ports->pdata[0];
        g_set_error (error, WEFT_IBDIAG_ERROR, WEFT_IBDIAG_ERROR_NAME,
                     "%s has %u fabric ports: expected %s:PORT", name, n->ports->len, name);
        return NULL;
    }
    char *end = NULL;
    guint64 want = g_ascii_strtoull (colon + 1, &end, 10);
    for (guint k = 0; colon[1] && !*end && k < n->ports->len; k++) {
        const Port *p = n->ports->pdata[k];
        if (p->row->port == want)
            return p;
    }
    GString *have = g_string_new (NULL);
    for (guint k = 0; k < n->ports->len; k++)
        g_string_append_printf (have, "%s%u", k ? ", " : "",
                                ((const Port *) n->ports->pdata[k])->row->port);
    g_set_error (error, WEFT_IBDIAG_ERROR, WEFT_IBDIAG_ERROR_NAME,
                 "'%s': %s has no fabric port %s (its fabric ports: %s)", text, name, colon + 1,
                 have->len ? have->str : "none");
    g_string_free (have, TRUE);
    return NULL;
}

gboolean
weft_ibdiag_perfquery (const WeftIbdiag *d, const char *port, gboolean extended, GString *out,
                       GError **error)
{
    const Port *p = find_port (d, port, error);
    if (!p)
        return FALSE;
    const WeftTracePort *r = p->row;
    guint ib_port = d->node[r->node].ca ? p->ib_port : r->port;
    guint64 wait_ns = r->xmit_wait_ps / 1000;
    char buf[32];
    if (!extended) {
        g_string_append_printf (out, "# Port counters: Lid %u port %u (CapMask: 0x%02X)\n", p->lid,
                                ib_port, PM_CAPMASK);
        field_u64 (out, "PortSelect", ib_port);
        weft_ibdiag_field (out, "CounterSelect", "0x0000");
        field_u64 (out, "SymbolErrorCounter", cap (r->symbol_errors, 16));
        field_u64 (out, "LinkErrorRecoveryCounter", 0);
        field_u64 (out, "LinkDownedCounter", cap (r->link_downed, 8));
        field_u64 (out, "PortRcvErrors", cap (r->rcv_errors, 16));
        field_u64 (out, "PortRcvRemotePhysicalErrors", 0);
        field_u64 (out, "PortRcvSwitchRelayErrors", 0);
        field_u64 (out, "PortXmitDiscards", cap (r->drops, 16));
        field_u64 (out, "PortXmitConstraintErrors", 0);
        field_u64 (out, "PortRcvConstraintErrors", 0);
        weft_ibdiag_field (out, "CounterSelect2", "0x00");
        field_u64 (out, "LocalLinkIntegrityErrors", 0);
        field_u64 (out, "ExcessiveBufferOverrunErrors", 0);
        field_u64 (out, "QP1Dropped", 0);
        field_u64 (out, "VL15Dropped", 0);
        field_u64 (out, "PortXmitData", cap (r->tx_bytes / 4, 32));
        field_u64 (out, "PortRcvData", cap (r->rx_bytes / 4, 32));
        field_u64 (out, "PortXmitPkts", cap (r->tx_packets, 32));
        field_u64 (out, "PortRcvPkts", cap (r->rx_packets, 32));
        field_u64 (out, "PortXmitWait", cap (wait_ns, 32));
        return TRUE;
    }
    g_string_append_printf (out,
                            "# Port extended counters: Lid %u port %u (CapMask: 0x%02X CapMask2: "
                            "0x%07X)\n",
                            p->lid, ib_port, PM_CAPMASK, PM_CAPMASK2);
    field_u64 (out, "PortSelect", ib_port);
    weft_ibdiag_field (out, "CounterSelect", "0x0000");
    field_u64 (out, "PortXmitData", r->tx_bytes / 4);
    field_u64 (out, "PortRcvData", r->rx_bytes / 4);
    field_u64 (out, "PortXmitPkts", r->tx_packets);
    field_u64 (out, "PortRcvPkts", r->rx_packets);
    /* every packet weft sends is unicast */
    field_u64 (out, "PortUnicastXmitPkts", r->tx_packets);
    field_u64 (out, "PortUnicastRcvPkts", r->rx_packets);
    field_u64 (out, "PortMulticastXmitPkts", 0);
    field_u64 (out, "PortMulticastRcvPkts", 0);
    g_snprintf (buf, sizeof buf, "0x%08x", 0u);
    weft_ibdiag_field (out, "CounterSelect2", buf);
    field_u64 (out, "SymbolErrorCounter", r->symbol_errors);
    field_u64 (out, "LinkErrorRecoveryCounter", 0);
    field_u64 (out, "LinkDownedCounter", r->link_downed);
    field_u64 (out, "PortRcvErrors", r->rcv_errors);
    field_u64 (out, "PortRcvRemotePhysicalErrors", 0);
    field_u64 (out, "PortRcvSwitchRelayErrors", 0);
    field_u64 (out, "PortXmitDiscards", r->drops);
    field_u64 (out, "PortXmitConstraintErrors", 0);
    field_u64 (out, "PortRcvConstraintErrors", 0);
    field_u64 (out, "LocalLinkIntegrityErrors", 0);
    field_u64 (out, "ExcessiveBufferOverrunErrors", 0);
    field_u64 (out, "VL15Dropped", 0);
    field_u64 (out, "PortXmitWait", wait_ns);
    field_u64 (out, "QP1Dropped", 0);
    return TRUE;
}

/* ---- links --worst --------------------------------------------------------------------- */

typedef struct {
    const WeftTraceLink *link;
    const Port *end[2]; /* NULL when /ports lacks that end */
    char tier[32];
    guint64 errors;
    double rate_deficit; /* 1 - rate / nominal */
    gboolean down;
    double wait;     /* PortXmitWait / run time */
    double util;     /* busier direction */
    double util_off; /* |util - tier median| / median */
} Rank;

static gboolean
is_ca (const WeftIbdiag *d, guint32 node)
{
    return node < d->n_nodes && d->node[node].ca;
}

static const char *
tier_name (const WeftIbdiag *d, guint32 node)
{
    const WeftTraceNode *n = node < d->n_nodes ? d->node[node].row : NULL;
    if (!n)
        return "?";
    if (!is_kind (n, "switch"))
        return is_kind (n, "nic") ? "nic" : "host";
    static const char *const tiers[] = { "switch", "leaf", "spine", "core" };
    return n->tier >= 0 && (guint) n->tier < G_N_ELEMENTS (tiers) ? tiers[n->tier] : "switch";
}

void
weft_ibdiag_link_tier (const WeftIbdiag *d, const WeftTraceLink *l, char *buf, gsize size)
{
    const char *ta = tier_name (d, l->node_a), *tb = tier_name (d, l->node_b);
    gboolean swap = is_ca (d, l->node_b) && !is_ca (d, l->node_a);
    g_snprintf (buf, size, "%s-%s", swap ? tb : ta, swap ? ta : tb);
}

static int
cmp_double (gconstpointer a, gconstpointer b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

static int
cmp_rank (gconstpointer a, gconstpointer b)
{
    const Rank *x = a, *y = b;
    if (x->errors != y->errors)
        return x->errors > y->errors ? -1 : 1;
    if (x->rate_deficit != y->rate_deficit)
        return x->rate_deficit > y->rate_deficit ? -1 : 1;
    if (x->down != y->down)
        return x->down ? -1 : 1;
    if (x->wait != y->wait)
        return x->wait > y->wait ? -1 : 1;
    if (x->util_off != y->util_off)
        return x->util_off > y->util_off ? -1 : 1;
    return (x->link->id > y->link->id) - (x->link->id < y->link->id);
}

static void
end_name (const WeftIbdiag *d, guint32 node, guint32 port, GString *out)
{
    g_string_append_printf (out, "%s:%u", weft_ibdiag_node_name (d, node), port);
}

void
weft_ibdiag_links_worst (const WeftIbdiag *d, guint n, GString *out)
{
    GHashTable *at = g_hash_table_new (NULL, NULL); /* link id + 1 -> index in ranks */
    GArray *ranks = g_array_new (FALSE, TRUE, sizeof (Rank));
    for (guint i = 0; i < d->all_ports->len; i++) {
        const Port *p = d->all_ports->pdata[i];
        gpointer key = GUINT_TO_POINTER (p->link->id + 1), idx;
        if (!g_hash_table_lookup_extended (at, key, NULL, &idx)) {
            Rank r = { .link = p->link };
            weft_ibdiag_link_tier (d, p->link, r.tier, sizeof r.tier);
            g_array_append_val (ranks, r);
            idx = GUINT_TO_POINTER (ranks->len - 1);
            g_hash_table_insert (at, key, idx);
        }
        Rank *r = &g_array_index (ranks, Rank, GPOINTER_TO_UINT (idx));
        gboolean a_end = p->row->node == p->link->node_a && p->row->port == p->link->port_a;
        r->end[a_end ? 0 : 1] = p;
    }
    g_hash_table_unref (at);
    double time = d->sim_time_ps ? (double) d->sim_time_ps : 1;
    for (guint i = 0; i < ranks->len; i++) {
        Rank *r = &g_array_index (ranks, Rank, i);
        double nominal = (double) MAX (r->link->rate_bps, 1);
        guint64 rate = r->link->rate_bps;
        for (guint e = 0; e < 2; e++) {
            const WeftTracePort *row = r->end[e] ? r->end[e]->row : NULL;
            if (!row)
                continue;
            r->errors += row->symbol_errors + row->rcv_errors + row->link_downed;
            if (row->rate_bps)
                rate = MIN (rate, row->rate_bps);
            r->down |= row->state == 1;
            r->wait = MAX (r->wait, (double) row->xmit_wait_ps / time);
            r->util = MAX (r->util, (double) row->tx_bytes * 8 / (nominal * time * 1e-12));
        }
        r->rate_deficit = 1 - (double) rate / nominal;
    }
    /* utilisation against the median of the same tier */
    GHashTable *medians = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
    for (guint i = 0; i < ranks->len; i++) {
        Rank *r = &g_array_index (ranks, Rank, i);
        if (g_hash_table_contains (medians, r->tier))
            continue;
        GArray *u = g_array_new (FALSE, FALSE, sizeof (double));
        for (guint j = 0; j < ranks->len; j++) {
            const Rank *s = &g_array_index (ranks, Rank, j);
            if (strcmp (s->tier, r->tier) == 0)
                g_array_append_val (u, s->util);
        }
        g_array_sort (u, cmp_double);
        double *m = g_new (double, 1);
        guint k = u->len;
        *m = k % 2 ? g_array_index (u, double, k / 2)
                   : (g_array_index (u, double, k / 2 - 1) + g_array_index (u, double, k / 2)) / 2;
        g_hash_table_insert (medians, g_strdup (r->tier), m);
        g_array_free (u, TRUE);
    }
    for (guint i = 0; i < ranks->len; i++) {
        Rank *r = &g_array_index (ranks, Rank, i);
        double m = *(double *) g_hash_table_lookup (medians, r->tier);
        r->util_off = m > 0 ? fabs (r->util - m) / m : 0;
    }
    g_array_sort (ranks, cmp_rank);
    g_string_append (out, "# links ranked worst first: errors (SymbolErrorCounter + "
                          "PortRcvErrors + LinkDownedCounter, both ends), rate below nominal, "
                          "Down, PortXmitWait, utilisation off the tier's median\n");
    g_string_append_printf (out, "%-4s %-44s %-10s %6s %9s %9s %7s %7s %7s  %s\n", "#", "link",
                            "tier", "state", "rate", "nominal", "errors", "wait%", "util%", "why");
    guint shown = n ? MIN (n, ranks->len) : ranks->len;
    for (guint i = 0; i < shown; i++) {
        const Rank *r = &g_array_index (ranks, Rank, i);
        GString *name = g_string_new (NULL);
        end_name (d, r->link->node_a, r->link->port_a, name);
        g_string_append (name, " <-> ");
        end_name (d, r->link->node_b, r->link->port_b, name);
        GString *why = g_string_new (NULL);
        if (r->errors) {
            guint64 sym = 0, rcv = 0, downed = 0;
            for (guint e = 0; e < 2; e++)
                if (r->end[e]) {
                    sym += r->end[e]->row->symbol_errors;
                    rcv += r->end[e]->row->rcv_errors;
                    downed += r->end[e]->row->link_downed;
                }
            g_string_append_printf (why,
                                    "%serrors: SymbolErrorCounter %" G_GUINT64_FORMAT
                                    ", PortRcvErrors %" G_GUINT64_FORMAT
                                    ", LinkDownedCounter %" G_GUINT64_FORMAT,
                                    why->len ? "; " : "", sym, rcv, downed);
        }
        if (r->rate_deficit > 0)
            g_string_append_printf (why, "%srate %.0f%% below nominal", why->len ? "; " : "",
                                    100 * r->rate_deficit);
        if (r->down)
            g_string_append_printf (why, "%sDown", why->len ? "; " : "");
        if (r->wait > 0)
            g_string_append_printf (why, "%sPortXmitWait %.2f%% of the run", why->len ? "; " : "",
                                    100 * r->wait);
        if (!why->len)
            g_string_append (why, "-");
        guint64 rate = r->link->rate_bps;
        for (guint e = 0; e < 2; e++)
            if (r->end[e] && r->end[e]->row->rate_bps)
                rate = MIN (rate, r->end[e]->row->rate_bps);
        g_string_append_printf (
            out, "%-4u %-44s %-10s %6s %9.0f %9.0f %7" G_GUINT64_FORMAT " %7.2f %7.2f  %s\n", i + 1,
            name->str, r->tier, r->down ? "Down" : "Active", (double) rate / 1e9,
            (double) r->link->rate_bps / 1e9, r->errors, 100 * r->wait, 100 * r->util, why->str);
        g_string_free (name, TRUE);
        g_string_free (why, TRUE);
    }
    g_hash_table_unref (medians);
    g_array_free (ranks, TRUE);
}

/* ---- --at TIME: the ports as sampled then ---------------------------------------------- */

guint64
weft_ibdiag_ports_at (GArray *ports, const GArray *links, const GArray *samples,
                      const GArray *faults, guint64 at_ps)
{
    guint64 sample_ps = 0;
    for (guint i = 0; samples && i < samples->len; i++) {
        guint64 t = g_array_index (samples, WeftTraceLinkSample, i).time_ps;
        if (t <= at_ps && t > sample_ps)
            sample_ps = t;
    }
    GHashTable *by_id = g_hash_table_new (NULL, NULL);
    for (guint i = 0; i < links->len; i++) {
        const WeftTraceLink *l = &g_array_index (links, WeftTraceLink, i);
        g_hash_table_insert (by_id, GUINT_TO_POINTER (l->id + 1), (gpointer) l);
    }
    for (guint i = 0; i < ports->len; i++) {
        WeftTracePort *r = &g_array_index (ports, WeftTracePort, i);
        const WeftTraceLink *l = g_hash_table_lookup (by_id, GUINT_TO_POINTER (r->link + 1));
        if (!l)
            continue;
        guint dir = l->node_a == r->node && l->port_a == r->port ? 0 : 1;
        /* Counters the samples carry, summed over the intervals ended by sample_ps. */
        r->tx_bytes = r->rx_bytes = r->tx_packets = r->rx_packets = 0;
        r->drops = r->max_queue_bytes = r->busy_ps = r->xmit_wait_ps = 0;
        r->ecn_marks = r->trims = 0;
        /* Counters no sample carries: unknown before the end, shown as 0. */
        r->lossless_drops = r->llr_replays = 0;
        /* The error counters the samples carry (schema 10; 0 in older traces). */
        guint64 s_downed = 0, s_errors = 0;
        for (guint k = 0; samples && k < samples->len; k++) {
            const WeftTraceLinkSample *s = &g_array_index (samples, WeftTraceLinkSample, k);
            if (s->link != r->link || s->time_ps > sample_ps)
                continue;
            if (s->direction == dir) {
                r->tx_bytes += s->bytes;
                r->tx_packets += s->packets;
                r->drops += s->drops;
                r->max_queue_bytes = MAX (r->max_queue_bytes, s->max_queue_bytes);
                r->xmit_wait_ps += s->stall_ps;
                r->ecn_marks += s->ecn_marks;
                r->trims += s->trims;
                s_downed += s->link_downed;
            } else {
                r->rx_bytes += s->bytes;
                r->rx_packets += s->packets;
                s_errors += s->rcv_errors; /* what the peer sent that arrived corrupted here */
            }
        }
        if (l->rate_bps)
            r->busy_ps = (guint64) ((double) r->tx_bytes * 8e12 / (double) l->rate_bps);
        /* State and rate: as the last fault event at or before @at_ps left them (the /faults
         * rows are in time order).  The error counters: the later of that event's and the
         * samples' (both count up, and either may be the more recent). */
        r->state = 4;      /* Active */
        r->phys_state = 5; /* LinkUp */
        r->rate_bps = l->rate_bps;
        r->link_downed = r->rcv_errors = r->symbol_errors = 0;
        for (guint k = 0; faults && k < faults->len; k++) {
            const WeftTraceFault *f = &g_array_index (faults, WeftTraceFault, k);
            if (f->link != r->link || f->time_ps > at_ps)
                continue;
            if (strncmp (f->action, "down", sizeof f->action) == 0) {
                r->state = 1;      /* Down */
                r->phys_state = 2; /* Polling */
            } else if (strncmp (f->action, "up", sizeof f->action) == 0) {
                r->state = 4;
                r->phys_state = 5;
            } else if (strncmp (f->action, "rate", sizeof f->action) == 0) {
                r->rate_bps = (guint64) f->value;
            }
            r->link_downed = dir == 0 ? f->a_link_downed : f->b_link_downed;
            r->rcv_errors = r->symbol_errors = dir == 0 ? f->a_rcv_errors : f->b_rcv_errors;
        }
        r->link_downed = MAX (r->link_downed, s_downed);
        r->rcv_errors = r->symbol_errors = MAX (r->rcv_errors, s_errors);
    }
    g_hash_table_unref (by_id);
    return sample_ps;
}
