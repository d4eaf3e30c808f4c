#include "config.h"
#define G_LOG_DOMAIN "weft-rng"
#include "sim/rng.h"

gsl_rng *
weft_rng_new (guint64 seed, guint64 stream)
{
    gsl_rng *r = gsl_rng_alloc (gsl_rng_mt19937);
    /* mt19937 takes a 32-bit seed; fold the mixed 64 bits so both halves count.  Seed 0 is
     * mapped by GSL to its default 4357, which is still distinct per stream after mixing. */
    guint64 m = weft_mix64 (seed ^ weft_mix64 (stream + 1));
    gsl_rng_set (r, (unsigned long) ((m ^ (m >> 32)) & G_GUINT64_CONSTANT (0xffffffff)));
    return r;
}

guint64
weft_rng_stream_for_name (const char *name)
{
    /* FNV-1a: stable across GLib versions, unlike g_str_hash's unspecified algorithm. */
    guint64 h = G_GUINT64_CONSTANT (14695981039346656037);
    for (const unsigned char *p = (const unsigned char *) name; *p; p++) {
        h ^= *p;
        h *= G_GUINT64_CONSTANT (1099511628211);
    }
    return weft_mix64 (h);
}
