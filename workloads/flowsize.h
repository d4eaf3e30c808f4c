/* workloads/flowsize.h - flow-size distributions for the workload generators.
 *
 * Models: a fixed size; GSL's exponential, lognormal, Pareto and uniform distributions; an
 * empirical CDF read from a file (`bytes percent` per line, sizes and percentages ascending,
 * the last percentage 100, '#' comments), sampled by inverse transform with linear
 * interpolation between points, as the HPCC and DCTCP traffic generators do.  A first point
 * below 100 % with a non-zero percentage is a point mass at that size.
 *
 * Invariants: every sample is a whole number of bytes, at least 1 (continuous draws are
 * rounded to the nearest byte, and clamped to [1, 2^62]); the same gsl_rng state gives the
 * same samples.  weft_flowsize_mean is the mean of the continuous distribution (before
 * rounding and clamping), which is what a target load is computed from.
 *
 * Ignores: correlation between successive sizes; sizes above 2^62 bytes.
 */
#ifndef WEFT_WORKLOADS_FLOWSIZE_H
#define WEFT_WORKLOADS_FLOWSIZE_H

#include <glib.h>
#include <gsl/gsl_rng.h>

typedef struct _WeftFlowsize WeftFlowsize;

/** A fixed size (@bytes >= 1).  (transfer full) */
WeftFlowsize *weft_flowsize_new_fixed (guint64 bytes);
/** Exponential with mean @mean_bytes > 0.  (transfer full) */
WeftFlowsize *weft_flowsize_new_exponential (double mean_bytes);
/** Lognormal: ln(size) is normal with mean @mu and deviation @sigma >= 0.  (transfer full) */
WeftFlowsize *weft_flowsize_new_lognormal (double mu, double sigma);
/** Pareto with @shape > 1 and the scale that gives mean @mean_bytes.  (transfer full) */
WeftFlowsize *weft_flowsize_new_pareto (double mean_bytes, double shape);
/** Uniform over whole bytes in [@min_bytes, @max_bytes], 1 <= min <= max.  (transfer full) */
WeftFlowsize *weft_flowsize_new_uniform (guint64 min_bytes, guint64 max_bytes);

/**
 * weft_flowsize_new_cdf_from_data:
 * Parses an empirical CDF from @text; @name (a file name) prefixes errors as "NAME:LINE: ...".
 * Errors: WEFT_CONFIG_ERROR_VALUE for a malformed line, a negative value, a percentage above
 * 100, sizes or percentages that go down, or a last point that is not 100; the message says
 * what was expected.  (transfer full)
 */
WeftFlowsize *weft_flowsize_new_cdf_from_data (const char *text, const char *name, GError **error);

/** Reads and parses @path (see above); an unreadable file is WEFT_CONFIG_ERROR_FILE.
 * (transfer full) */
WeftFlowsize *weft_flowsize_new_cdf_load (const char *path, GError **error);

void weft_flowsize_free (WeftFlowsize *fs);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WeftFlowsize, weft_flowsize_free)

/* One size in bytes, >= 1.  Draws from @rng (nothing for a fixed size). */
guint64 weft_flowsize_sample (const WeftFlowsize *fs, gsl_rng *rng);

/* Mean size in bytes of the continuous distribution. */
double weft_flowsize_mean (const WeftFlowsize *fs);

/* For an empirical CDF: the fraction (0..1) of flows of at most @bytes, by the same linear
 * interpolation used for sampling; -1 for other distributions.  For tests and reports. */
double weft_flowsize_cdf_at (const WeftFlowsize *fs, double bytes);

#endif /* WEFT_WORKLOADS_FLOWSIZE_H */
