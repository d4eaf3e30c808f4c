/* models/frn.c - [routing] fault_notifications: what adaptive routing learns of Down ports
 * beyond its own switch (models/frn.h). */
#include "config.h"
#define G_LOG_DOMAIN "weft-frn"
#include "models/frn.h"

#include "models/registry.h"
#include "models/routing.h"
#include "models/sm.h"
#include "models/switch.h"
#include "sim/units.h"

const WeftParamSpec weft_frn_params[] = {
    WEFT_PARAM_BOOL ("fault_notifications", WeftFrnParams, fault_notifications, "true",
                     "with routing = adaptive: a switch that has no way left toward a "
                     "destination tells its neighbour switches, which stop sending that "
                     "destination's packets to it (NVIDIA SHIELD's fault notifications, on by "
                     "default in NVIDIA's subnet manager; off: only a switch's own Down ports "
                     "are avoided; doc/faults.md)"),
    WEFT_PARAM_TIME ("fault_notification_delay", WeftFrnParams, fault_notification_delay, "2ms",
                     "0s", "10s",
                     "from a port's change of state to the other switches acting on it "
                     "(default unverified: 10 s of subnet-manager re-route over the 5000x "
                     "NVIDIA claims for SHIELD; doc/faults.md)"),
    WEFT_PARAM_END,
};

/* Whether @p's state is known Down to the other switches now: Down for at least the delay, or
 * back Active for less than it (its return not known yet). */
static inline gboolean
known_down (const WeftFrn *frn, const WeftPort *p)
{
    const WeftFaultPort *f = p->fault;
    if (!f)
        return FALSE;
    weft_time_t now = frn->sim->now;
    if (f->down)
        return now - f->down_since >= frn->delay_ps;
    return f->link_downed > 0 && now - f->up_since < frn->delay_ps;
}

/* Whether switch @m (or the endpoint @m) can reach @dst_ep as the notifications say: an
 * endpoint, a switch with no route set (its own destination), or one with an output port
 * toward it that is not known Down and leads to a switch that can reach it in turn.  Route
 * sets are minimal, so the walk descends toward the destination; @depth bounds it anyway. */
static gboolean
reaches (const WeftFrn *frn, const WeftModel *m, guint32 dst_ep, guint depth)
{
    if (m->klass != &weft_switch_class || depth > 8)
        return TRUE;
    const WeftSwitch *sw = (const WeftSwitch *) m;
    guint n;
    const guint32 *set = weft_graph_route_set (sw->graph, m->node, dst_ep, &n);
    if (n == 0)
        return TRUE;
    for (guint i = 0; i < n; i++) {
        const WeftPort *q = &sw->ports[set[i]];
        if (q->owner && !known_down (frn, q) && reaches (frn, q->link.peer, dst_ep, depth + 1))
            return TRUE;
    }
    return FALSE;
}

gboolean
weft_frn_avoid (WeftFrn *frn, const WeftPort *port, guint32 dst_ep)
{
    if (reaches (frn, port->link.peer, dst_ep, 0))
        return FALSE;
    frn->avoided++;
    return TRUE;
}

static gboolean
frn_configure (WeftMechEnv *env, const WeftExperiment *exp, GError **error)
{
    WeftFrnParams p;
    WeftSmParams other; /* models/sm.c's keys, read there */
    WeftParamBinding b[] = { { weft_frn_params, &p }, { weft_sm_params, &other } };
    if (!weft_params_read (exp, "routing", b, G_N_ELEMENTS (b), error))
        return FALSE;
    /* Only adaptive routing has another port to take, and only a fault changes a port. */
    if (!p.fault_notifications || env->fabric->routing != WEFT_ROUTING_ADAPTIVE ||
        !env->fabric->faults)
        return TRUE;
    WeftFrn *frn = g_new0 (WeftFrn, 1);
    frn->delay_ps = p.fault_notification_delay;
    frn->sim = env->sim;
    env->fabric->frn = frn;
    return TRUE;
}

static void
frn_summary (const WeftMechEnv *env, const WeftNetworkStats *st, GString *out)
{
    (void) st;
    const WeftFrn *frn = env->fabric->frn;
    if (!frn)
        return;
    g_autofree char *d = weft_units_format_human_time (frn->delay_ps);
    g_string_append_printf (out,
                            "  fault notif. %s after a port change, %" G_GUINT64_FORMAT
                            " adaptive choices steered away\n",
                            d, frn->avoided);
}

static void
frn_clear (WeftMechEnv *env)
{
    g_clear_pointer (&env->fabric->frn, g_free);
}

const WeftMechanism weft_frn_mechanism = {
    .name = "frn",
    .group = "routing",
    .help = "fault-routing notifications: adaptive routing also avoids a port whose next "
            "switch has lost every way to the destination, once notified (doc/faults.md)",
    .params = weft_frn_params,
    .fabrics = WEFT_FABRICS_ALL,
    .configure = frn_configure,
    .summary = frn_summary,
    .clear = frn_clear,
};
