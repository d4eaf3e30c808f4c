/* sim/units.h - quantities with units, as experiment files and the command line write them.
 *
 * Time: ps ns us ms s (result in integer picoseconds).  Rate: bps Kbps Mbps Gbps Tbps and
 * MB/s GB/s (decimal bytes per second, times 8; result in bits per second).  Size: B, KB MB GB
 * TB (powers of 1000) and KiB MiB GiB TiB (powers of 1024).  Length: m (metres; cable lengths).
 *
 * Numbers are decimal with an optional fraction ("1.5us", "40.96ns"); they are converted
 * exactly, with integer arithmetic, never through a double, so "40.96ns" is 40960 ps.  A value
 * that is not a whole number of the base unit (0.5ps, 1.3B) is refused, as is a bare number, a
 * negative number, an unknown unit, or a value that overflows 64 bits.  White space between
 * number and unit is allowed.  Unit names are case-sensitive ("Mbps" and "MB/s" differ by 8x).
 *
 * Errors are WEFT_CONFIG_ERROR_UNIT (unit missing or wrong) or WEFT_CONFIG_ERROR_VALUE
 * (malformed number, not a whole number of the base unit, overflow); the message says what was
 * expected, e.g. "'12' has no unit: expected a time such as 1.5us (ps, ns, us, ms, s)".  It has
 * no file or key prefix: callers add that.
 */
#ifndef WEFT_SIM_UNITS_H
#define WEFT_SIM_UNITS_H

#include <glib.h>

#include "sim/errors.h"
#include "sim/time.h"

gboolean weft_units_parse_time (const char *text, weft_time_t *out_ps, GError **error);
gboolean weft_units_parse_rate (const char *text, guint64 *out_bps, GError **error);
gboolean weft_units_parse_bytes (const char *text, guint64 *out_bytes, GError **error);
/* Length in metres, as a double (it only feeds propagation-delay and headroom arithmetic). */
gboolean weft_units_parse_length (const char *text, double *out_m, GError **error);

/* Human-readable forms: the largest unit in which the value is >= 1 and exact with at most 4
 * decimals ("40.96ns", "1234.567ns", "400Gbps"; rates always in bit units).  Sizes use binary
 * units when a unit above B says it with no more decimals than decimal units ("64MiB",
 * "1.5KiB"), else decimal ("1.5MB", "1KB").  The base unit is always exact, so the result
 * always parses back to the same value.  (transfer full) */
char *weft_units_format_time (weft_time_t ps);
/* Times for people, as run summaries print them: three decimals in the largest of s, ms, us
 * and ns that keeps the number >= 1 ("1.234 us").  (transfer full) */
char *weft_units_format_human_time (weft_time_t ps);
char *weft_units_format_rate (guint64 bps);
char *weft_units_format_bytes (guint64 bytes);
/* @bytes in GiB, for the memory figures printed with a fixed number of decimals. */
static inline double
weft_units_gib (guint64 bytes)
{
    return (double) bytes / (double) (G_GUINT64_CONSTANT (1) << 30);
}

#endif /* WEFT_SIM_UNITS_H */
