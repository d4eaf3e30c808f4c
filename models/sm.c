/* models/sm.c - [routing]: the subnet manager's re-route after a port changes state
 * (models/sm.h). */
#include "config.h"
#define G_LOG_DOMAIN "weft-sm"
#include "models/sm.h"

#include "models/fault.h"
#include "models/frn.h"
#include "models/registry.h"
#include "sim/units.h"

const WeftParamSpec weft_sm_params[] = {
    WEFT_PARAM_BOOL ("sm_reroute", WeftSmParams, sm_reroute, "false",
                     "after a port goes Down or comes back, the subnet manager computes the "
                     "forwarding tables again over the surviving links with the topology's "
                     "routing engine (off: static routes keep sending into a Down port)"),
    WEFT_PARAM_TIME ("sm_sweep_delay", WeftSmParams, sm_sweep_delay, "10s", "0s", NULL,
                     "from a port's change to the new tables in the switches (default: "
                     "OpenSM's sweep interval; doc/faults.md)"),
    WEFT_PARAM_END,
};

struct WeftSm {
    WeftSmParams p;
    const WeftExperiment *exp; /* borrowed: the run's */
    WeftGraph *graph;          /* borrowed */
    WeftSmRecompute recompute;
    WeftFaults **faults; /* borrowed: the fabric's fault state, once configured */
    WeftSim *sim;
    WeftSched sched;
    gboolean pending;
    GArray *times; /* weft_time_t: when each sweep ran */
};

void
weft_sm_attach (WeftSm *sm, WeftGraph *g, WeftSmRecompute recompute)
{
    sm->graph = g;
    sm->recompute = recompute;
}

guint
weft_sm_sweeps (const WeftSm *sm)
{
    return sm ? sm->times->len : 0;
}

static void
on_sweep (WeftSim *sim, void *target, WeftArg arg)
{
    (void) arg;
    WeftSm *sm = target;
    sim->shared_events++; /* every rank runs every sweep (doc/parallel.md) */
    sm->pending = FALSE;
    g_array_append_val (sm->times, sim->now);
    if (!sm->graph || !sm->recompute)
        return;
    weft_faults_cut_down_links (*sm->faults, sm->graph);
    g_autoptr (GError) local = NULL;
    if (!sm->recompute (sm->graph, sm->exp, &local))
        g_warning ("subnet manager sweep: %s", local->message); /* read once already: never */
}

void
weft_sm_port_changed (WeftSm *sm)
{
    if (!sm || sm->pending)
        return;
    sm->pending = TRUE;
    weft_sim_schedule (sm->sim, &sm->sched, sm->p.sm_sweep_delay, on_sweep, sm, (WeftArg){ 0 });
}

static gboolean
sm_configure (WeftMechEnv *env, const WeftExperiment *exp, GError **error)
{
    WeftSmParams p;
    WeftFrnParams other; /* models/frn.c's keys, read there */
    WeftParamBinding b[] = { { weft_sm_params, &p }, { weft_frn_params, &other } };
    if (!weft_params_read (exp, "routing", b, G_N_ELEMENTS (b), error))
        return FALSE;
    if (!p.sm_reroute || !env->graph)
        return TRUE;
    WeftSm *sm = g_new0 (WeftSm, 1);
    sm->p = p;
    sm->exp = exp;
    sm->sim = env->sim;
    sm->faults = &env->fabric->faults;
    sm->times = g_array_new (FALSE, FALSE, sizeof (weft_time_t));
    env->fabric->sm = sm;
    return TRUE;
}

static gboolean
sm_setup (WeftMechEnv *env, const WeftExperiment *exp, GError **error)
{
    (void) exp;
    (void) error;
    if (env->fabric->sm)
        env->fabric->sm->sched = weft_sim_sched_new (env->sim);
    return TRUE;
}

static void
sm_summary (const WeftMechEnv *env, const WeftNetworkStats *st, GString *out)
{
    (void) st;
    const WeftSm *sm = env->fabric->sm;
    if (!sm)
        return;
    g_autofree char *d = weft_units_format_human_time (sm->p.sm_sweep_delay);
    g_string_append_printf (out, "  sm reroute   %s after a port change, %u sweeps", d,
                            sm->times->len);
    for (guint i = 0; i < sm->times->len && i < 4; i++) {
        g_autofree char *t =
            weft_units_format_human_time (g_array_index (sm->times, weft_time_t, i));
        g_string_append_printf (out, "%s%s", i ? ", " : " (at ", t);
    }
    g_string_append (out, sm->times->len > 4 ? ", ...)\n" : sm->times->len ? ")\n" : "\n");
}

static void
sm_clear (WeftMechEnv *env)
{
    WeftSm *sm = env->fabric->sm;
    if (!sm)
        return;
    g_array_unref (sm->times);
    g_free (sm);
    env->fabric->sm = NULL;
}

const WeftMechanism weft_sm_mechanism = {
    .name = "sm",
    .group = "routing",
    .help = "the subnet manager's re-route: after a port goes Down or comes back, new "
            "forwarding tables over the surviving links after a sweep delay (doc/faults.md)",
    .params = weft_sm_params,
    .fabrics = WEFT_FABRICS_ALL,
    .configure = sm_configure,
    .setup = sm_setup,
    .summary = sm_summary,
    .clear = sm_clear,
};
