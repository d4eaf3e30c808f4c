/* sim/runcfg.h - run-wide settings: the [experiment] and [trace] groups.
 *
 * [experiment]  name, description, seed, duration, hang_timeout (and include, consumed when the
 *               file is read: sim/experiment.h)
 * [trace]       output, interval
 */
#ifndef WEFT_SIM_RUNCFG_H
#define WEFT_SIM_RUNCFG_H

#include "sim/params.h"

typedef struct {
    char *name;
    char *description;
    guint64 seed;
    weft_time_t duration;     /* 0: until the workload completes */
    weft_time_t hang_timeout; /* 0: watchdog off */
} WeftExperimentConfig;

typedef struct {
    char *output;         /* "" : NAME.h5 in the current directory */
    weft_time_t interval; /* /links sample interval; 0: no samples */
} WeftTraceConfig;

extern const WeftParamSpec weft_experiment_params[];
extern const WeftParamSpec weft_trace_params[];

/* Reads both groups; the name defaults to the experiment file's base name without ".ini". */
gboolean weft_runcfg_read (const WeftExperiment *exp, WeftExperimentConfig *ec, WeftTraceConfig *tc,
                           GError **error);
void weft_runcfg_clear (WeftExperimentConfig *ec, WeftTraceConfig *tc);

/* Refuses a [trace] interval shorter than one full data frame (@frame_bytes on the wire) on the
 * fabric's fastest link (@fastest_bps): every sample visits every one of the @n_ports ports,
 * so sampling faster than the fastest port can send a frame costs more than the packets being
 * sampled, and nothing on a link changes by more than a frame between two samples.
 * WEFT_CONFIG_ERROR_RANGE naming [trace] interval, the floor and the cost. */
gboolean weft_runcfg_check_interval (const WeftExperiment *exp, const WeftTraceConfig *tc,
                                     guint64 frame_bytes, guint64 fastest_bps, guint n_ports,
                                     GError **error);

#endif /* WEFT_SIM_RUNCFG_H */
