/* sim/time.h - simulated time: a 64-bit count of picoseconds.
 *
 * Models: time as exact integers, so a 4 KiB packet at 800 Gb/s takes an exact 40.96 ns and
 * runs are bit-for-bit repeatable.  2^64 ps is about 213 days of simulated time.
 * Ignores: nothing; floating-point time never enters the event queue.
 */
#ifndef WEFT_SIM_TIME_H
#define WEFT_SIM_TIME_H

#include <glib.h>

typedef guint64 weft_time_t;

#define WEFT_TIME_NEVER G_MAXUINT64
#define WEFT_PS(n) ((weft_time_t) (n))
/* clang-format would read these casts as multiplications. */
/* clang-format off */
#define WEFT_NS(n) ((weft_time_t) (n) * G_GUINT64_CONSTANT (1000))
#define WEFT_US(n) ((weft_time_t) (n) * G_GUINT64_CONSTANT (1000000))
#define WEFT_MS(n) ((weft_time_t) (n) * G_GUINT64_CONSTANT (1000000000))
#define WEFT_S(n) ((weft_time_t) (n) * G_GUINT64_CONSTANT (1000000000000))
/* clang-format on */

/* Picoseconds per second, for rate arithmetic. */
#define WEFT_PS_PER_S G_GUINT64_CONSTANT (1000000000000)

/**
 * weft_time_serialize:
 * Time to put @bytes on a link of @rate_bps, rounded up to the next picosecond, so a packet
 * never finishes earlier than the rate allows.  Exact for every rate that divides 8e12.
 */
static inline weft_time_t
weft_time_serialize (guint64 bytes, guint64 rate_bps)
{
    /* A packet's size: 64-bit arithmetic, the same quotient (below 2^20 bytes and 2^62 b/s,
     * bytes * 8e12 + rate < 2^64) without the 128-bit division (its call and set-up were 1.6 % of
     * the flagship's instructions: bench/README.md). */
    if (G_LIKELY (bytes < (G_GUINT64_CONSTANT (1) << 20) &&
                  rate_bps < (G_GUINT64_CONSTANT (1) << 62)))
        return (bytes * 8u * WEFT_PS_PER_S + rate_bps - 1) / rate_bps;
    /* bytes * 8e12 overflows 64 bits above ~2.3 MB: use 128-bit arithmetic. */
    unsigned __int128 num = (unsigned __int128) bytes * 8u * WEFT_PS_PER_S;
    return (weft_time_t) ((num + rate_bps - 1) / rate_bps);
}

/* Seconds as a double, for printing and statistics only. */
static inline double
weft_time_to_s (weft_time_t t)
{
    return (double) t / 1e12;
}

static inline double
weft_time_to_us (weft_time_t t)
{
    return (double) t / 1e6;
}

#endif /* WEFT_SIM_TIME_H */
