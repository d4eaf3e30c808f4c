#include "config.h"
#define G_LOG_DOMAIN "weft-runcfg"
#include "sim/runcfg.h"

#include <string.h>

#include "sim/units.h"

const WeftParamSpec weft_experiment_params[] = {
    WEFT_PARAM_STRING ("name", WeftExperimentConfig, name, "",
                       "experiment name; default: the file name without .ini"),
    WEFT_PARAM_STRING ("description", WeftExperimentConfig, description, "",
                       "free text, stored in the trace with the rest of the experiment"),
    WEFT_PARAM_UINT ("seed", WeftExperimentConfig, seed, "1", "0", NULL,
                     "run seed: every model and workload derives its own stream from it"),
    WEFT_PARAM_TIME ("duration", WeftExperimentConfig, duration, "0s", "0s", NULL,
                     "stop at this simulated time (0: when the workload completes)"),
    WEFT_PARAM_TIME ("hang_timeout", WeftExperimentConfig, hang_timeout, "10ms", "0s", NULL,
                     "report a hang (exit 3) after this long without application progress; 0: off"),
    WEFT_PARAM_END,
};

const WeftParamSpec weft_trace_params[] = {
    WEFT_PARAM_STRING ("output", WeftTraceConfig, output, "",
                       "HDF5 trace file; default NAME.h5 in the current directory (weft run "
                       "--output overrides)"),
    WEFT_PARAM_TIME ("interval", WeftTraceConfig, interval, "10us", "0s", NULL,
                     "sample interval of /links, /pfc, /dcqcn and /buffers; 0: no samples.  At "
                     "least one full data frame's time on the fastest link (83.56ns for 4178 B "
                     "at 400 Gb/s): a sample visits every port, so a shorter interval costs "
                     "more than the packets it samples and shows nothing a frame time would "
                     "not"),
    WEFT_PARAM_END,
};

gboolean
weft_runcfg_read (const WeftExperiment *exp, WeftExperimentConfig *ec, WeftTraceConfig *tc,
                  GError **error)
{
    WeftParamBinding eb = { weft_experiment_params, ec };
    WeftParamBinding tb = { weft_trace_params, tc };
    if (!weft_params_read (exp, "experiment", &eb, 1, error) ||
        !weft_params_read (exp, "trace", &tb, 1, error))
        return FALSE;
    if (!ec->name || !*ec->name) {
        g_free (ec->name);
        char *base = g_path_get_basename (weft_experiment_path (exp));
        if (g_str_has_suffix (base, ".ini"))
            base[strlen (base) - 4] = '\0';
        ec->name = base;
    }
    return TRUE;
}

void
weft_runcfg_clear (WeftExperimentConfig *ec, WeftTraceConfig *tc)
{
    weft_params_clear (weft_experiment_params, ec);
    weft_params_clear (weft_trace_params, tc);
}

gboolean
weft_runcfg_check_interval (const WeftExperiment *exp, const WeftTraceConfig *tc,
                            guint64 frame_bytes, guint64 fastest_bps, guint n_ports, GError **error)
{
    if (tc->interval == 0 || fastest_bps == 0)
        return TRUE;
    weft_time_t floor_ps = weft_time_serialize (frame_bytes, fastest_bps);
    if (tc->interval >= floor_ps)
        return TRUE;
    g_autofree char *have = weft_units_format_time (tc->interval);
    g_autofree char *want = weft_units_format_time (floor_ps);
    g_autofree char *rate = weft_units_format_rate (fastest_bps);
    double per_s = 1e12 / (double) tc->interval * n_ports;
    return weft_experiment_fail (
        exp, error, WEFT_CONFIG_ERROR_RANGE, "trace", "interval",
        "%s is shorter than one %" G_GUINT64_FORMAT " B frame on the fastest link (%s: %s): "
        "every sample visits all %u ports (%.3g port samples per simulated second), more than "
        "the packets they would describe; expected at least %s, or 0 for no samples",
        have, frame_bytes, rate, want, n_ports, per_s, want);
}
