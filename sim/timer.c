#include "config.h"
#define G_LOG_DOMAIN "weft-timer"
#include "sim/timer.h"

/* Out of line: the paths not taken once per event or per ACK. */

void
weft_timer_rearm_other (WeftSim *sim, WeftTimer *t, WeftSched *from, weft_time_t at, WeftHandler fn,
                        void *target, guint32 data)
{
    if (t->pending) {
        weft_time_t event_at = t->gen & WEFT_TIMER_MOVED ? t->event_at : t->at;
        if (event_at <= at) {
            /* Later (or back to the live event): that event stays, and fires early if the
             * deadline is past it. */
            if (at > event_at) {
                t->event_at = event_at;
                t->gen |= WEFT_TIMER_MOVED;
            } else {
                t->gen &= ~WEFT_TIMER_MOVED;
            }
            t->at = at;
            return;
        }
        weft_timer_cancel (t); /* earlier: a new event, and the pending one goes stale */
    }
    weft_timer_arm_at (sim, t, from, at, fn, target, data);
}

void
weft_timer_fire_other (WeftSim *sim, void *target, WeftArg arg, WeftTimer *t, WeftSched *from,
                       WeftHandler fn)
{
    if (weft_timer_stale (t, arg))
        return;
    /* The live event, early: on to the deadline, in the same generation (this event is gone). */
    t->gen &= ~WEFT_TIMER_MOVED;
    t->pending = FALSE;
    weft_timer_arm_at (sim, t, from, t->at, fn, target, weft_timer_data (arg));
}
