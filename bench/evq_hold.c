/* bench/evq_hold.c - the hold-model micro-benchmark of the event queue (sim/event.c).
 *
 * The classic hold model (Jones, CACM 1986): fill the queue with PENDING events at random
 * times, then repeat OPS times: pop the earliest event and push a new one at (its time + a
 * random increment).  The queue size stays constant, and the time distribution of its contents
 * settles into the steady state a simulator's queue sees.  One hold operation (one pop plus
 * one push) counts as one event, as one simulated event is popped once and scheduled once.
 *
 * Increments are exponential (mean 1 us, in integer picoseconds) from a GSL stream
 * (sim/rng.h), drawn before the clock starts into a table of 2^20 that the timed loop walks
 * round, so the figure is the queue's cost, not mt19937's and log()'s.  A warm-up of
 * 2 x PENDING hold operations runs untimed first.
 *
 * Built twice from this source: bench/evq_hold measures weft's event queue (sim/event.c, a
 * radix heap) and bench/evq_hold_heap (-DEVQ_HEAP) the 4-ary heap it replaced
 * (bench/evq_heap.c), on the same records and the same (time, key) order.
 *
 * Usage: bench/evq_hold [OPS [PENDING [SEED]]]   (defaults 10^7, 10^5, 1)
 */
#include "config.h"

#include <gsl/gsl_randist.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sim/event.h"
#ifdef EVQ_HEAP
#include "bench/evq_heap.h"
typedef EvqHeap Queue;
#define QUEUE_NAME "4-ary heap (baseline)"
#define q_init evq_heap_init
#define q_clear evq_heap_clear
#define q_push evq_heap_push
#define q_pop evq_heap_pop
#define q_len evq_heap_len
#else
typedef WeftEventQueue Queue;
#define QUEUE_NAME "radix heap (sim/event.c)"
#define q_init weft_evq_init
#define q_clear weft_evq_clear
#define q_push weft_evq_push
#define q_pop weft_evq_pop
#define q_len weft_evq_len
#endif
#include "sim/rng.h"

#define N_INCR (1u << 20)
#define MEAN_INCR_PS 1e6

static void
on_nothing (WeftSim *sim, void *target, WeftArg arg)
{
}

static guint64
parse_count (const char *s, const char *what)
{
    char *end = NULL;
    double v = g_ascii_strtod (s, &end); /* accepts 1e7 */
    if (end == s || *end != '\0' || v < 1 || v > 1e12) {
        fprintf (stderr, "evq_hold: %s: expected a positive count, got '%s'\n", what, s);
        exit (2);
    }
    return (guint64) v;
}

/* CPU seconds of this process: on a shared machine, less noisy than wall time (time spent
 * waiting for a core is not counted; cache contention still is). */
static double
cpu_seconds (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static guint64 key_counter;

static void
push_at (Queue *q, weft_time_t at)
{
    /* Distinct keys, as the simulator's (object id << 32 | counter) are. */
    WeftEvent ev = { .at = at, .key = key_counter++, .fn = on_nothing };
    q_push (q, &ev);
}

int
main (int argc, char **argv)
{
    guint64 ops = argc > 1 ? parse_count (argv[1], "OPS") : 10000000;
    guint64 pending = argc > 2 ? parse_count (argv[2], "PENDING") : 100000;
    guint64 seed = argc > 3 ? parse_count (argv[3], "SEED") : 1;
    if (argc > 4) {
        fprintf (stderr, "usage: %s [OPS [PENDING [SEED]]]\n", argv[0]);
        return 2;
    }

    gsl_rng *rng = weft_rng_new (seed, 0);
    weft_time_t *incr = g_new (weft_time_t, N_INCR);
    for (guint i = 0; i < N_INCR; i++)
        incr[i] = (weft_time_t) (gsl_ran_exponential (rng, MEAN_INCR_PS) + 0.5);

    Queue q;
    q_init (&q);
    for (guint64 i = 0; i < pending; i++)
        push_at (&q, incr[i & (N_INCR - 1)]);

    WeftEvent ev;
    guint64 j = pending;
    guint64 warm = 2 * pending;
    for (guint64 i = 0; i < warm; i++, j++) {
        q_pop (&q, &ev);
        push_at (&q, ev.at + incr[j & (N_INCR - 1)]);
    }

    /* The sum of popped times keeps the loop from being optimised away and doubles as a
     * check that both arities pop the same sequence. */
    guint64 check = 0;
    gint64 t0 = g_get_monotonic_time ();
    double c0 = cpu_seconds ();
    for (guint64 i = 0; i < ops; i++, j++) {
        q_pop (&q, &ev);
        check += ev.at;
        push_at (&q, ev.at + incr[j & (N_INCR - 1)]);
    }
    gint64 t1 = g_get_monotonic_time ();
    double cpu = cpu_seconds () - c0;

    double wall = (double) (t1 - t0) / 1e6;
    printf ("evq_hold: %s, %" G_GUINT64_FORMAT " pending, %" G_GUINT64_FORMAT
            " hold ops (1 event = 1 pop + 1 push)\n",
            QUEUE_NAME, (guint64) q_len (&q), ops);
    printf ("  wall time    %.3f s, %.2fM events/s, %.1f ns/event\n", wall,
            wall > 0 ? (double) ops / wall / 1e6 : 0.0, wall > 0 ? wall * 1e9 / (double) ops : 0.0);
    printf ("  cpu time     %.3f s, %.2fM events/s\n", cpu,
            cpu > 0 ? (double) ops / cpu / 1e6 : 0.0);
    printf ("  check        %016" G_GINT64_MODIFIER "x\n", check);

    q_clear (&q);
    g_free (incr);
    gsl_rng_free (rng);
    return 0;
}
