/* models/frn.h - fault-routing notifications between switches: [routing] fault_notifications.
 *
 * InfiniBand adaptive routing already leaves a switch's own Down ports out of its choice
 * (models/switch.c): a switch knows its ports' state at once.  A dead link further on is
 * another switch's port: a spine whose only cable down to a leaf is Down has no other way to
 * that leaf, and a leaf that keeps spraying onto that spine loses those packets.  NVIDIA's
 * SHIELD (Self-Healing Interconnect Enhancement for Intelligent Datacenters) adds Fast Link
 * Fault Notification: a switch with no alternative port toward a destination tells its
 * neighbour switches, which then pick another output port for it (NVIDIA, "InfiniBand Cluster
 * Bring-up Procedure", section SHIELD; MLNXSM release notes v5.11-v5.12, pFRN).
 *
 * weft's model: with routing = adaptive and notifications on, a switch leaves out of its
 * equal-cost choice an output port whose next switch cannot reach the destination - every
 * port of that switch toward it is Down, or leads to a switch that cannot reach it in turn
 * (a notification that no alternative exists propagates, as FLFN does) - as of
 * fault_notification_delay ago: a port's change of state becomes known to the other switches
 * that much later, however far they are.  A port that came back Active is avoided until its
 * return is known too.  When every candidate is so avoided, the switch takes the first one
 * that is locally Up (what it would have done without notifications).
 *
 * The far switches' state is read from their ports (WeftFaultPort's down_since and up_since)
 * with the delay, instead of being carried by notification packets: what each switch learns
 * is the same, and no notification costs an event.  (For a run split across MPI ranks this
 * read must become a message; the delay is then the lookahead.)
 */
#ifndef WEFT_MODELS_FRN_H
#define WEFT_MODELS_FRN_H

#include "models/port.h"
#include "sim/params.h"
#include "sim/sim.h"

/* The [routing] keys this module adds. */
typedef struct {
    gboolean fault_notifications;
    weft_time_t fault_notification_delay;
} WeftFrnParams;

typedef struct WeftFrn {
    weft_time_t delay_ps; /* [routing] fault_notification_delay */
    WeftSim *sim;         /* borrowed */
    gboolean armed;       /* a fabric port has changed state: the checks have something to see */
    guint64 avoided;      /* adaptive choices that left out a port for a notification */
} WeftFrn;

/* Their table (the subnet manager, models/sm.h, reads the same group: each reads both
 * tables, so that neither takes the other's keys for unknown ones). */
extern const WeftParamSpec weft_frn_params[];

/* A fabric port changed state now (models/fault.c): the notifications have something to
 * carry from now on.  @frn may be NULL (notifications off). */
static inline void
weft_frn_port_changed (WeftFrn *frn)
{
    if (frn)
        frn->armed = TRUE;
}

/* Whether adaptive routing leaves out @port (a Up output port of a fabric switch) for a
 * packet to endpoint @dst_ep: the switch at its far end cannot reach @dst_ep as far as
 * notifications delivered by now say.  Counts the decision. */
gboolean weft_frn_avoid (WeftFrn *frn, const WeftPort *port, guint32 dst_ep);

#endif /* WEFT_MODELS_FRN_H */
