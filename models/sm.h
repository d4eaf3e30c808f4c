/* models/sm.h - the subnet manager's reaction to a port changing state: [routing] sm_reroute.
 *
 * Without it (the default) routing never reacts: static forwarding tables keep sending into a
 * Down port, as a fabric does until its subnet manager sweeps.  With sm_reroute = on, a port
 * going Down or coming back Active (models/fault.h) schedules a sweep sm_sweep_delay later;
 * the sweep marks every Down link cut (sim/graph.h weft_graph_set_link_cut), computes the
 * forwarding tables again with the topology's routing engine over the surviving links
 * (topologies/topology.h weft_topology_reroute: D-mod-k, minhop or updn, whichever built
 * them) and swaps them in.  One sweep at a time: a change while a sweep is pending is seen by
 * that sweep.  Packets already queued at a Down port are not moved: the port discards them.
 * A destination whose every cable is Down is unreachable after the sweep (its packets are
 * dropped as unroutable, counted in the summary's `unroutable`).
 *
 * Default delay: 10 s, OpenSM's default sweep interval (opensm(8), `-s`: "Without -s, OpenSM
 * defaults to a sweep interval of 10 seconds"), the latest a periodic sweep finds a change.
 * A port that changes state also sends a trap that starts a heavy sweep at once; how long a
 * heavy sweep and the table upload take on a large fabric (seconds are often reported) is
 * unverified here: set sm_sweep_delay to the figure of the fabric at hand.  doc/faults.md.
 */
#ifndef WEFT_MODELS_SM_H
#define WEFT_MODELS_SM_H

#include "sim/experiment.h"
#include "sim/graph.h"
#include "sim/params.h"
#include "sim/time.h"

typedef struct WeftSm WeftSm;

/* [routing]: the subnet manager's keys (models/frn.h adds the fault notifications' to the
 * group; each reads both tables). */
typedef struct {
    gboolean sm_reroute;
    weft_time_t sm_sweep_delay;
} WeftSmParams;
extern const WeftParamSpec weft_sm_params[];

/* What a sweep runs to compute the routes again (the assembly step passes the topology's
 * weft_topology_reroute: models know nothing of topologies). */
typedef gboolean (*WeftSmRecompute) (WeftGraph *g, const WeftExperiment *exp, GError **error);

/* Gives the subnet manager the run's graph, whose route tables a sweep rewrites (borrowed: the
 * run owns it and no one else writes it while the run goes on), and how to recompute them. */
void weft_sm_attach (WeftSm *sm, WeftGraph *g, WeftSmRecompute recompute);

/* A fabric port changed state now (Down or Active): schedules a sweep unless one is pending. */
void weft_sm_port_changed (WeftSm *sm);

/* Sweeps done so far. */
guint weft_sm_sweeps (const WeftSm *sm);

#endif /* WEFT_MODELS_SM_H */
