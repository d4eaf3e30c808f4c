/* sim/sim.h - one run's context and its run loop.
 *
 * A WeftSim holds everything mutable of one run: clock, event queue, packet pool, model
 * instances, and the termination state.  There are no globals, so a test can build several.
 *
 * The run ends when (1) the workload completes: every unit of work added with
 * weft_sim_work_add() has been marked done; (2) simulated time reaches `duration`; (3) the
 * watchdog sees no progress for `hang_timeout`, where progress means application bytes
 * delivered or workload steps completed (weft_sim_progress), never mere events, so
 * retransmission timers firing into a dead link do not count; or the event queue runs dry with
 * work pending (nothing can ever happen again: also a hang); (4) an interrupt flag is set
 * (SIGINT / SIGTERM); (5) a model reports that the workload failed as its application would
 * see it (weft_sim_workload_failed: an RDMA connection out of retries), a modelled outcome.  The
 * watchdog is a timer (sim/timer.h), armed for the moment hang_timeout after the last progress, so
 * it costs nothing per packet.
 */

/* Before the guard: sim/timer.h defines WeftTimer (the watchdog below) and then includes this
 * file for the inline functions of its own that schedule. */
#include "sim/timer.h"

#ifndef WEFT_SIM_SIM_H
#define WEFT_SIM_SIM_H

#include <glib.h>
#include <signal.h>

#include "sim/event.h"
#include "sim/model.h"
#include "sim/arena.h"
#include "sim/packet.h"
#include "sim/time.h"

typedef enum {
    WEFT_SIM_RUNNING = 0,
    WEFT_SIM_DONE,            /* workload complete */
    WEFT_SIM_DURATION,        /* reached duration */
    WEFT_SIM_HANG,            /* no progress for hang_timeout, or nothing left to happen */
    WEFT_SIM_INTERRUPTED,     /* interrupt flag seen */
    WEFT_SIM_WORKLOAD_FAILED, /* a model reported the workload failed (weft_sim_workload_failed) */
} WeftSimStatus;

#define WEFT_SIM_STALE_TESTS 4

struct _WeftSim {
    weft_time_t now;
    guint64 now_key; /* the key (sim/event.h) of the event being executed: a model that applies
                        an arrival lazily (models/ib_credit.h) orders it against this event as
                        the arrival's own event would have been */
    WeftEventQueue evq;
    WeftPacketPool pool;
    WeftArena arena; /* the ports and their PFC state, freed with the run (sim/arena.h) */
    guint64 seed;
    guint64 events;        /* events executed */
    GPtrArray *models;     /* WeftModel *, owned, in creation order */
    WeftSched engine;      /* the engine's own scheduling identity (id 0) */
    guint32 next_sched_id; /* last scheduling id handed out */

    weft_time_t duration; /* 0: unlimited */
    weft_time_t
        hang_timeout; /* 0: watchdog off (a dry queue with work pending still ends the run) */
    guint64 work_pending;
    weft_time_t last_progress;
    WeftTimer watchdog; /* pending while the watchdog watches */
    WeftSimStatus status;
    const volatile sig_atomic_t *interrupt; /* borrowed; may be NULL */

    /* Called every `interval` of simulated time while the run goes on (trace sampling): while
     * work is pending and something else can still happen (another event is queued: with
     * hang_timeout > 0, the watchdog), so samples never keep a run whose queue ran dry going. */
    weft_time_t sample_interval;
    void (*sample) (WeftSim *sim, void *data);
    void *sample_data;
    gboolean sample_queued; /* a sample event is in the queue */
    guint64 sample_mark;    /* `events` just after the last sample ran; 0 before the first */

    /* Across MPI ranks (doc/parallel.md): the rank of every node (borrowed; NULL for one
     * process) and this rank.  A rank executes the events of its own nodes' models only;
     * work_pending then counts the flows its own nodes receive, and the run's end, the
     * watchdog and the sampling go by the whole run's numbers, which the windowed loop
     * (network/window.h) sets here between windows. */
    const guint32 *rank_of;
    guint32 rank;
    guint64 global_pending; /* with rank_of: work pending over all ranks at the window's start */
    /* Events that every rank runs alike (a sample, a fault event, a subnet manager's sweep):
     * the run's event count takes them once (cli/run.c). */
    guint64 shared_events;

    /* Called every few thousand events (progress display); may be NULL. */
    void (*poll) (WeftSim *sim, void *data);
    void *poll_data;
    guint trim_polls; /* polls since the event queue's memory was last trimmed (sim/sim.c) */
    /* Handlers whose events a test can find stale (a cancelled timer's), far ahead in the
     * queue: dropped at each trim (weft_sim_add_stale_test, weft_evq_drop_stale). */
    struct {
        WeftHandler fn;
        gboolean (*stale) (void *target, WeftArg arg);
    } stale_tests[WEFT_SIM_STALE_TESTS];
    guint n_stale_tests;
};

WeftSim *weft_sim_new (guint64 seed);
/* Calls every model's clear hook, frees the models, the queue and the pool.  A packet not
 * returned to the pool by then is a model bug, reported with g_critical. */
void weft_sim_free (WeftSim *sim);

/* Clears and frees every model (as weft_sim_free does first); returns the packets still live,
 * which must be 0: every queue, wire and model hands its packets back when cleared. */
guint64 weft_sim_clear_models (WeftSim *sim);

/** Allocates a model instance of @klass (zeroed, instance_size bytes), gives it the next id and
 * adds it to the run.  Its parameters are the caller's to set; init is not called here.
 * (transfer none: the sim owns it) */
WeftModel *weft_sim_add_model (WeftSim *sim, const WeftModelClass *klass, const char *name,
                               guint32 node);

/* A fresh scheduling identity (ids are handed out in creation order, from 1). */
static inline WeftSched
weft_sim_sched_new (WeftSim *sim)
{
    return (WeftSched){ ++sim->next_sched_id, 0 };
}

/* Schedules fn(sim, target, arg) @delay after now (or at absolute time @at), keyed by the
 * scheduling object @from (NULL: the engine). */
static inline void
weft_sim_schedule_at (WeftSim *sim, WeftSched *from, weft_time_t at, WeftHandler fn, void *target,
                      WeftArg arg)
{
    if (!from)
        from = &sim->engine;
    weft_evq_schedule (&sim->evq, at, ((guint64) from->id << 32) | from->counter++, fn, target,
                       arg);
}

/* Schedules fn(sim, target, arg) at @at with the tie key @key given whole: for the events whose
 * key is not a scheduling object's running counter (a wire's arrivals, models/link.h). */
static inline void
weft_sim_schedule_keyed (WeftSim *sim, weft_time_t at, guint64 key, WeftHandler fn, void *target,
                         WeftArg arg)
{
    weft_evq_schedule (&sim->evq, at, key, fn, target, arg);
}

static inline void
weft_sim_schedule (WeftSim *sim, WeftSched *from, weft_time_t delay, WeftHandler fn, void *target,
                   WeftArg arg)
{
    weft_sim_schedule_at (sim, from, sim->now + delay, fn, target, arg);
}

/* Whether this process executes the events of node @node's models (always, in one process). */
static inline gboolean
weft_sim_owns (const WeftSim *sim, guint32 node)
{
    return sim->rank_of == NULL || sim->rank_of[node] == sim->rank;
}

/* Work accounting: the run is done when all work added is done. */
static inline void
weft_sim_work_add (WeftSim *sim, guint64 n)
{
    sim->work_pending += n;
}

static inline void
weft_sim_progress (WeftSim *sim)
{
    sim->last_progress = sim->now;
}

void weft_sim_work_done (WeftSim *sim);

/* Events of handler @fn for which @stale is TRUE can do nothing when popped (they fail their
 * timer's weft_timer_fire(): weft_timer_stale): the run loop's periodic trim drops those that
 * lie more than WEFT_SIM_STALE_AHEAD after the clock (sim/event.h, weft_evq_drop_stale), so a
 * lazily cancelled timer far ahead - a retransmission timeout seconds away, cancelled as its
 * flow finishes - holds no memory once its flow is done.  Registering @fn again does nothing. */
void weft_sim_add_stale_test (WeftSim *sim, WeftHandler fn,
                              gboolean (*stale) (void *target, WeftArg arg));
#define WEFT_SIM_STALE_AHEAD WEFT_MS (1)
/* Drops them now (the run loop does every 2^20 events); returns how many went. */
gsize weft_sim_drop_stale (WeftSim *sim);

/* The workload has failed as its application would see it (a connection gave up): the run
 * stops after the current event, with status WEFT_SIM_WORKLOAD_FAILED.  The model that calls
 * it keeps what the report needs (which flow, why). */
static inline void
weft_sim_workload_failed (WeftSim *sim)
{
    if (sim->status == WEFT_SIM_RUNNING)
        sim->status = WEFT_SIM_WORKLOAD_FAILED;
}

/* Runs until one of the ending conditions; returns (and stores) why it stopped. */
WeftSimStatus weft_sim_run (WeftSim *sim);

/* One window of a run across ranks: executes the events before (@end_at, @end_key) in (time,
 * key) order, and stops early when the status leaves WEFT_SIM_RUNNING (this rank's own work
 * done, an interrupt, a failed workload).  No watchdog: the windowed loop watches the whole
 * run.  Returns the status (WEFT_SIM_RUNNING when the window was run through). */
WeftSimStatus weft_sim_run_window (WeftSim *sim, weft_time_t end_at, guint64 end_key);

/* Starts the sampling events of a windowed run (weft_sim_run does it for one process). */
void weft_sim_start_sampling (WeftSim *sim);

const char *weft_sim_status_name (WeftSimStatus status);

#endif /* WEFT_SIM_SIM_H */
