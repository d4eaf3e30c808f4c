/* sim/rng.h - independent random streams.
 *
 * Every model instance (and every workload generator) draws from its own GSL mt19937 stream
 * seeded from (run seed, stream id), so adding a model or a workload group shifts nobody
 * else's draws, and a partitioned run draws the same numbers as a single process (ROSS's
 * per-LP streams).  The mixing is splitmix64; gsl_rng_env_setup() is never used.
 */
#ifndef WEFT_SIM_RNG_H
#define WEFT_SIM_RNG_H

#include <glib.h>
#include <gsl/gsl_rng.h>

/** A new generator for (@seed, @stream).  (transfer full: gsl_rng_free) */
gsl_rng *weft_rng_new (guint64 seed, guint64 stream);

/* A stable stream id for a name (a workload group), independent of group order. */
guint64 weft_rng_stream_for_name (const char *name);

/* splitmix64 finaliser: a well-mixed 64-bit hash of @x (also used for ECMP hashing). */
static inline guint64
weft_mix64 (guint64 x)
{
    x += G_GUINT64_CONSTANT (0x9e3779b97f4a7c15);
    x = (x ^ (x >> 30)) * G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9);
    x = (x ^ (x >> 27)) * G_GUINT64_CONSTANT (0x94d049bb133111eb);
    return x ^ (x >> 31);
}

#endif /* WEFT_SIM_RNG_H */
