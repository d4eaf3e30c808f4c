#include "config.h"
#define G_LOG_DOMAIN "weft-sim"
#include "sim/sim.h"

#include <sys/mman.h>
#include <unistd.h>

/* How often (in events) the loop looks at the interrupt flag: a volatile read per event would
 * cost little, but this keeps the hot loop free of it. */
#define INTERRUPT_POLL_EVENTS 4096
/* Polls between trims of the event queue's memory (sim/event.h, weft_evq_trim): every 2^20
 * events, by the events executed and not by simulated or wall time, so the same at any
 * trace interval and on any machine. */
#define TRIM_POLLS 256

/* Each bucket's array grows by doubling to the most it ever held and keeps that capacity (no
 * copy and no malloc once the buckets have grown to the run's working set), but the buckets
 * never hold their most at once: at k = 32 they reach 1.54 M records (59 MiB, all of it
 * touched) where at most 219,384 (8.4 MiB) are pending at any time, the whole population
 * passing through each high bucket as the clock crosses a power of two.  A trim gives back
 * the whole pages of each array past its records and past its first WEFT_EVQ_KEEP_BYTES; the
 * capacity and the array stay, and the pages come back zeroed as the bucket grows into them
 * again (page faults, no instructions of weft's own).  Nothing is read beyond a bucket's
 * length, so the order of pops is unchanged. */
void
weft_evq_trim (WeftEventQueue *q)
{
#ifdef MADV_DONTNEED
    const gsize page = (gsize) sysconf (_SC_PAGESIZE);
    for (guint i = 0; i < WEFT_EVQ_BUCKETS; i++) {
        const WeftEvqBucket *b = &q->b[i];
        gsize used = MAX ((gsize) b->len * sizeof *b->v, WEFT_EVQ_KEEP_BYTES);
        gsize held = (gsize) b->cap * sizeof *b->v;
        if (held <= used)
            continue;
        guintptr from = ((guintptr) b->v + used + page - 1) & ~(guintptr) (page - 1);
        guintptr to = ((guintptr) b->v + held) & ~(guintptr) (page - 1);
        if (to > from)
            (void) madvise ((void *) from, to - from, MADV_DONTNEED);
    }
#else
    (void) q;
#endif
}

static void
model_free (gpointer data)
{
    WeftModel *m = data;
    if (m->klass->clear)
        m->klass->clear (m);
    if (m->klass->params)
        weft_params_clear (m->klass->params, m);
    g_free (m->name);
    g_free (m);
}

WeftSim *
weft_sim_new (guint64 seed)
{
    WeftSim *sim = g_new0 (WeftSim, 1);
    sim->seed = seed;
    weft_evq_init (&sim->evq);
    weft_packet_pool_init (&sim->pool);
    weft_arena_init (&sim->arena);
    sim->models = g_ptr_array_new ();
    return sim;
}

guint64
weft_sim_clear_models (WeftSim *sim)
{
    /* Clear in reverse creation order: later models may refer to earlier ones. */
    for (guint i = sim->models->len; i-- > 0;)
        model_free (sim->models->pdata[i]);
    g_ptr_array_set_size (sim->models, 0);
    return weft_packet_pool_live (&sim->pool);
}

void
weft_sim_free (WeftSim *sim)
{
    if (!sim)
        return;
    guint64 live = weft_sim_clear_models (sim);
    if (live != 0)
        g_critical ("%" G_GUINT64_FORMAT " packets were not returned to the pool by the models",
                    live);
    g_ptr_array_unref (sim->models);
    weft_evq_clear (&sim->evq);
    weft_packet_pool_clear (&sim->pool);
    weft_arena_clear (&sim->arena);
    g_free (sim);
}

WeftModel *
weft_sim_add_model (WeftSim *sim, const WeftModelClass *klass, const char *name, guint32 node)
{
    g_return_val_if_fail (klass->instance_size >= sizeof (WeftModel), NULL);
    WeftModel *m = g_malloc0 (klass->instance_size);
    m->klass = klass;
    m->sim = sim;
    m->sched = weft_sim_sched_new (sim);
    m->node = node;
    m->name = g_strdup (name);
    g_ptr_array_add (sim->models, m);
    return m;
}

static void on_watchdog (WeftSim *sim, void *target, WeftArg arg);

static void
arm_watchdog (WeftSim *sim)
{
    weft_timer_arm_at (sim, &sim->watchdog, NULL, sim->last_progress + sim->hang_timeout,
                       on_watchdog, NULL, 0);
}

static void
on_watchdog (WeftSim *sim, void *target, WeftArg arg)
{
    if (!weft_timer_fire (sim, &sim->watchdog, NULL, on_watchdog, NULL, arg))
        return;
    if (sim->work_pending == 0 || sim->status != WEFT_SIM_RUNNING)
        return;
    if (sim->now >= sim->last_progress + sim->hang_timeout)
        sim->status = WEFT_SIM_HANG;
    else
        arm_watchdog (sim); /* progress since it was armed: look again later */
}

static void on_sample (WeftSim *sim, void *target, WeftArg arg);

static void
schedule_sample (WeftSim *sim)
{
    weft_sim_schedule (sim, NULL, sim->sample_interval, on_sample, NULL, (WeftArg){ 0 });
    sim->sample_queued = TRUE;
}

/* A sample, then the next one while work is pending and something else can still happen: in
 * one process, another event in the queue (with hang_timeout > 0, the watchdog is one).  When
 * the queue holds nothing else, the loop finds it dry next and ends the run as a hang here, as
 * it would without samples, rather than sampling a stopped fabric for ever.  Across ranks a
 * rank's own queue says nothing of the others': the windowed loop looks at every rank's between
 * windows and ends the run at one process's sample (network/window.c). */
static void
on_sample (WeftSim *sim, void *target, WeftArg arg)
{
    sim->sample_queued = FALSE;
    sim->shared_events++;
    sim->sample (sim, sim->sample_data);
    sim->sample_mark = sim->events;
    guint64 pending = sim->rank_of ? sim->global_pending : sim->work_pending;
    gboolean more = sim->rank_of || weft_evq_len (&sim->evq) > 0;
    if (sim->status == WEFT_SIM_RUNNING && pending > 0 && more)
        schedule_sample (sim);
}

void
weft_sim_work_done (WeftSim *sim)
{
    g_assert (sim->work_pending > 0);
    sim->last_progress = sim->now;
    if (--sim->work_pending == 0)
        sim->status = WEFT_SIM_DONE;
}

void
weft_sim_add_stale_test (WeftSim *sim, WeftHandler fn,
                         gboolean (*stale) (void *target, WeftArg arg))
{
    for (guint i = 0; i < sim->n_stale_tests; i++)
        if (sim->stale_tests[i].fn == fn)
            return;
    g_assert (sim->n_stale_tests < WEFT_SIM_STALE_TESTS);
    sim->stale_tests[sim->n_stale_tests].fn = fn;
    sim->stale_tests[sim->n_stale_tests++].stale = stale;
}

static gboolean
event_stale (const WeftEvent *ev, void *data)
{
    const WeftSim *sim = data;
    for (guint i = 0; i < sim->n_stale_tests; i++)
        if (ev->fn == sim->stale_tests[i].fn)
            return sim->stale_tests[i].stale (ev->target, ev->arg);
    return FALSE;
}

/* Out of line: inlined into the run loop's rare trim branch, it moved the loop's code and cost
 * roce-fattree-k16 about 4 % of its CPU time (10 interleaved pairs); out of line, nothing. */
G_GNUC_NO_INLINE gsize
weft_sim_drop_stale (WeftSim *sim)
{
    if (sim->n_stale_tests == 0)
        return 0;
    return weft_evq_drop_stale (&sim->evq, sim->now + WEFT_SIM_STALE_AHEAD, event_stale, sim);
}

/* Every INTERRUPT_POLL_EVENTS events: the caller's poll, then the interrupt flag.  FALSE
 * (status INTERRUPTED) when the run must stop. */
static inline gboolean
poll_interrupt (WeftSim *sim, guint *poll)
{
    *poll = INTERRUPT_POLL_EVENTS;
    if (G_UNLIKELY (++sim->trim_polls == TRIM_POLLS)) {
        sim->trim_polls = 0;
        weft_sim_drop_stale (sim);
        weft_evq_trim (&sim->evq); /* its memory follows what is pending */
    }
    if (sim->poll)
        sim->poll (sim, sim->poll_data);
    if (sim->interrupt && *sim->interrupt) {
        sim->status = WEFT_SIM_INTERRUPTED;
        return FALSE;
    }
    return TRUE;
}

/* Runs the popped event @ev: the clock moves to it (never backwards). */
static inline void
execute (WeftSim *sim, const WeftEvent *ev)
{
    g_assert (ev->at >= sim->now);
    sim->now = ev->at;
    sim->now_key = ev->key;
    sim->events++;
    ev->fn (sim, ev->target, ev->arg);
}

WeftSimStatus
weft_sim_run (WeftSim *sim)
{
    if (sim->work_pending == 0) {
        sim->status = WEFT_SIM_DONE;
        return sim->status;
    }
    sim->status = WEFT_SIM_RUNNING;
    sim->last_progress = sim->now;
    if (sim->hang_timeout > 0 && !weft_timer_pending (&sim->watchdog))
        arm_watchdog (sim);
    weft_sim_start_sampling (sim);

    weft_time_t until = sim->duration ? sim->duration : WEFT_TIME_NEVER;
    guint poll = INTERRUPT_POLL_EVENTS;
    WeftEvent ev;
    while (sim->status == WEFT_SIM_RUNNING) {
        if (G_UNLIKELY (--poll == 0) && !poll_interrupt (sim, &poll))
            break;
        if (G_UNLIKELY (!weft_evq_pop (&sim->evq, &ev))) {
            /* Work is pending and nothing can ever happen again. */
            sim->status = WEFT_SIM_HANG;
            break;
        }
        if (G_UNLIKELY (ev.at > until)) {
            /* Not executed: leave it for a later run, and let events be scheduled from the
             * duration on (a longer duration, a caller's own events) before it. */
            weft_evq_push (&sim->evq, &ev);
            weft_evq_rewind (&sim->evq, until);
            sim->now = until;
            sim->status = WEFT_SIM_DURATION;
            break;
        }
        execute (sim, &ev);
    }
    return sim->status;
}

void
weft_sim_start_sampling (WeftSim *sim)
{
    if (sim->sample && sim->sample_interval > 0)
        schedule_sample (sim);
}

WeftSimStatus
weft_sim_run_window (WeftSim *sim, weft_time_t end_at, guint64 end_key)
{
    guint poll = INTERRUPT_POLL_EVENTS;
    WeftEvent ev;
    while (sim->status == WEFT_SIM_RUNNING) {
        if (G_UNLIKELY (--poll == 0) && !poll_interrupt (sim, &poll))
            break;
        if (!weft_evq_pop_before (&sim->evq, end_at, end_key, &ev))
            break;
        execute (sim, &ev);
    }
    return sim->status;
}

const char *
weft_sim_status_name (WeftSimStatus status)
{
    switch (status) {
    case WEFT_SIM_RUNNING:
        return "running";
    case WEFT_SIM_DONE:
        return "done";
    case WEFT_SIM_DURATION:
        return "duration";
    case WEFT_SIM_HANG:
        return "hang";
    case WEFT_SIM_INTERRUPTED:
        return "interrupted";
    case WEFT_SIM_WORKLOAD_FAILED:
        return "workload-failed";
    }
    return "unknown";
}
