/* sim/timer.h - a timer: at most one live event in the queue for one recurring deadline.
 *
 * Models: anything that keeps "one event scheduled at a time" for itself - a port's
 * transmitter-free event, a flow's retransmission timeout, a pacing wake-up, a congestion-control
 * timer, a PFC refresh, the run's watchdog.  A WeftTimer is a plain value embedded in its owner
 * (a zeroed one is idle); it owns no memory and holds neither the handler nor the target, which
 * every call names as weft_sim_schedule_at() does, so a flow with five timers stays small.
 *
 * Cancellation is lazy (ns-3's EventId): a timer's events carry its generation in the low 32
 * bits of their argument, and an event goes stale by the generation moving on (a cancel, or a
 * new event for an earlier deadline); a stale event, when it is popped, fails weft_timer_fire()
 * and its handler returns at once.  Nothing is ever removed from the queue.  The generation does
 * not move when an idle timer is armed: no event of the current one is left in the queue then.
 * The high 32 bits of the argument are the caller's (weft_timer_data: e.g. the priority of a
 * per-priority timer).
 *
 * Moving a deadline (weft_timer_rearm_at): earlier schedules a new event and makes the pending
 * one stale; later keeps the pending event, which fires early, finds the deadline ahead and is
 * scheduled again for it (so a retransmission timer reset on every ACK costs no event per ACK:
 * what the transport's own timer did before this type).  While the deadline is past the live
 * event the timer's generation carries WEFT_TIMER_MOVED, so the live event no longer matches it
 * and an expiry stays a single comparison; the mismatch sends the early fire down the
 * out-of-line path.
 *
 * Cost: arming is one weft_sim_schedule_at() and two stores; an expiry is one comparison and a
 * store; cancelling is two stores; pushing on a deadline already past the live event (every
 * ACK's retransmission timer) is two comparisons and a store.  The rarer paths are out of line
 * in sim/timer.c.  A stale event still costs its pop from the queue.  Every
 * weft_sim_schedule_at() call advances the scheduling object's tie-break counter (sim/event.h),
 * so a timer schedules exactly when the code it replaced did: once per arm, once per move to an
 * earlier deadline, once per early fire - never on a cancel or a move to a later one.
 *
 * Invariants:
 *  - at most one live event per timer: the one whose generation is the timer's, present in the
 *    queue exactly while the timer is pending; any other event of the timer is stale;
 *  - while pending, the live event fires no later than the deadline;
 *  - a handler that goes on after weft_timer_fire() returned TRUE runs once per expiry, at the
 *    deadline, and finds the timer idle (it may arm it again);
 *  - generations are 31 bits: a stale event would be taken for live only after 2^31 cancels of
 *    the same timer while it waits in the queue.
 */

/* The type first: sim/sim.h embeds one (the watchdog) and is included below for
 * weft_sim_schedule_at(). */
#ifndef WEFT_SIM_TIMER_H
#define WEFT_SIM_TIMER_H

#include <glib.h>

#include "sim/event.h"
#include "sim/time.h"

/* In a timer's generation: its deadline moved past its live event (see above). */
#define WEFT_TIMER_MOVED 0x80000000u

typedef struct {
    weft_time_t at;       /* the deadline; meaningful while pending */
    weft_time_t event_at; /* when the live event fires; kept while gen has WEFT_TIMER_MOVED */
    guint32 gen;          /* generation (31 bits) of the live event, the low half of its
                             argument; | WEFT_TIMER_MOVED while the deadline is past it */
    gboolean pending;     /* armed: the live event is in the queue */
} WeftTimer;

#include "sim/sim.h"

/** Whether @t is armed (its live event is in the queue). */
static inline gboolean
weft_timer_pending (const WeftTimer *t)
{
    return t->pending;
}

/** When @t expires, or WEFT_TIME_NEVER when it is not pending. */
static inline weft_time_t
weft_timer_deadline (const WeftTimer *t)
{
    return t->pending ? t->at : WEFT_TIME_NEVER;
}

/** The caller's 32 bits of a timer event's argument (the @data given when it was armed). */
static inline guint32
weft_timer_data (WeftArg arg)
{
    return (guint32) (arg.u >> 32);
}

/** Arms @t for @at (>= now) unless it is pending (then nothing changes: weft_timer_rearm_at()
 * moves a deadline).  Schedules fn(sim, target, arg) from the scheduling object @from (NULL: the
 * engine), as weft_sim_schedule_at() does, with @t's generation and @data in arg; the handler
 * starts with weft_timer_fire().  Returns whether it armed. */
static inline gboolean
weft_timer_arm_at (WeftSim *sim, WeftTimer *t, WeftSched *from, weft_time_t at, WeftHandler fn,
                   void *target, guint32 data)
{
    if (t->pending)
        return FALSE;
    t->pending = TRUE;
    t->at = at;
    weft_sim_schedule_at (sim, from, at, fn, target,
                          (WeftArg){ .u = (guint64) data << 32 | t->gen });
    return TRUE;
}

/** weft_timer_arm_at() for @delay after now. */
static inline gboolean
weft_timer_arm (WeftSim *sim, WeftTimer *t, WeftSched *from, weft_time_t delay, WeftHandler fn,
                void *target, guint32 data)
{
    return weft_timer_arm_at (sim, t, from, sim->now + delay, fn, target, data);
}

/** weft_timer_rearm_at()'s path, out of line, for all but its common case (a deadline already
 * past the live event moving on, still past it). */
void weft_timer_rearm_other (WeftSim *sim, WeftTimer *t, WeftSched *from, weft_time_t at,
                             WeftHandler fn, void *target, guint32 data);

/** Moves @t's deadline to @at, or arms it there when it is idle.  A deadline no earlier than the
 * pending event keeps that event (it fires early and weft_timer_fire() schedules it again for
 * the deadline); an earlier one schedules a new event and leaves the old one stale.  The
 * arguments are those of weft_timer_arm_at(), and must be the same at every call for @t. */
static inline void
weft_timer_rearm_at (WeftSim *sim, WeftTimer *t, WeftSched *from, weft_time_t at, WeftHandler fn,
                     void *target, guint32 data)
{
    /* The common case, a retransmission timer pushed on by every ACK: a store.  (MOVED is only
     * ever set on a pending timer.) */
    if (G_LIKELY ((t->gen & WEFT_TIMER_MOVED) && t->event_at < at)) {
        t->at = at;
        return;
    }
    weft_timer_rearm_other (sim, t, from, at, fn, target, data);
}

/** Disarms @t: its pending event, if any, becomes stale and its handler returns at once when it
 * is popped.  No event is scheduled or removed; a cancelled timer may be armed again at once. */
static inline void
weft_timer_cancel (WeftTimer *t)
{
    t->gen = (t->gen + 1) & ~WEFT_TIMER_MOVED;
    t->pending = FALSE;
}

/** Whether the event of @t with argument @arg is stale: popped, it would fail
 * weft_timer_fire() and do nothing (not the live event, nor the live one of a deadline moved
 * later).  Reads @t only. */
static inline gboolean
weft_timer_stale (const WeftTimer *t, WeftArg arg)
{
    return (guint32) arg.u != t->gen && ((guint32) arg.u | WEFT_TIMER_MOVED) != t->gen;
}

/** weft_timer_fire()'s path for an event that is not @t's live one as it stands: a stale event
 * (nothing to do), or the live event of a deadline that moved later (scheduled again for it).
 * The handler's own arguments come first, in its order, so its fast path moves nothing. */
void weft_timer_fire_other (WeftSim *sim, void *target, WeftArg arg, WeftTimer *t, WeftSched *from,
                            WeftHandler fn);

/** The first call of @t's handler, with the handler's own @arg and the @from, @fn and @target it
 * was armed with.  TRUE when @t expires now: it is idle again and the handler goes on.  FALSE
 * when the handler must return at once: the event is stale (cancelled or superseded), or the
 * deadline moved later since it was scheduled (it has been scheduled again for it). */
static inline gboolean
weft_timer_fire (WeftSim *sim, WeftTimer *t, WeftSched *from, WeftHandler fn, void *target,
                 WeftArg arg)
{
    if (G_LIKELY ((guint32) arg.u == t->gen)) {
        t->pending = FALSE;
        return TRUE;
    }
    weft_timer_fire_other (sim, target, arg, t, from, fn);
    return FALSE;
}

#endif /* WEFT_SIM_TIMER_H */
