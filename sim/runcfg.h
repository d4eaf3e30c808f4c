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

#endif /* WEFT_SIM_RUNCFG_H */
