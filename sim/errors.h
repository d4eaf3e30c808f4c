/* sim/errors.h - the GError domains that weft raises at its boundaries.
 *
 * GError is used only where input enters (experiment files, the command line, topology
 * checks, model init) and where files are written; inside the run, broken invariants are
 * bugs and assert.
 */
#ifndef WEFT_SIM_ERRORS_H
#define WEFT_SIM_ERRORS_H

#include <glib.h>

#define WEFT_CONFIG_ERROR (weft_config_error_quark ())
#define WEFT_TRACE_ERROR (weft_trace_error_quark ())
#define WEFT_TOPO_ERROR (weft_topo_error_quark ())

/* Bad input in an experiment file or on the command line: every one exits with status 2. */
typedef enum {
    WEFT_CONFIG_ERROR_FILE,          /* unreadable or unparsable file */
    WEFT_CONFIG_ERROR_INCLUDE_CYCLE, /* include = ... comes back to itself */
    WEFT_CONFIG_ERROR_UNKNOWN_GROUP,
    WEFT_CONFIG_ERROR_UNKNOWN_KEY,
    WEFT_CONFIG_ERROR_MISSING,     /* a required key is absent */
    WEFT_CONFIG_ERROR_UNIT,        /* missing or wrong unit */
    WEFT_CONFIG_ERROR_RANGE,       /* value outside the declared range */
    WEFT_CONFIG_ERROR_VALUE,       /* malformed value, unknown choice */
    WEFT_CONFIG_ERROR_NODE,        /* unknown node name */
    WEFT_CONFIG_ERROR_UNSUPPORTED, /* a feature that is reserved but not implemented yet */
    WEFT_CONFIG_ERROR_OVERRIDE,    /* malformed --set GROUP:KEY=VALUE */
} WeftConfigError;

typedef enum {
    WEFT_TRACE_ERROR_OPEN,  /* cannot create or open the file */
    WEFT_TRACE_ERROR_WRITE, /* a write or flush failed */
    WEFT_TRACE_ERROR_READ,  /* unreadable, not a weft trace, or incomplete */
} WeftTraceError;

typedef enum {
    WEFT_TOPO_ERROR_PARAM, /* parameters that no fabric satisfies */
    WEFT_TOPO_ERROR_FILE,  /* explicit topology or forwarding-table file problems */
} WeftTopoError;

GQuark weft_config_error_quark (void);
GQuark weft_trace_error_quark (void);
GQuark weft_topo_error_quark (void);

/* Process exit statuses (ARCHITECTURE.md, "Invariants"). */
typedef enum {
    WEFT_EXIT_DONE = 0,
    WEFT_EXIT_FAILURE = 1,
    WEFT_EXIT_BAD_INPUT = 2,
    WEFT_EXIT_HANG = 3,
    WEFT_EXIT_INTERRUPTED = 4,
    WEFT_EXIT_SWEEP_FAILED = 5,
    /* The workload failed as the application would see it: an RDMA connection ran out of
     * retries ([transport] rc_retry_cnt) and NCCL would report "transport retry counter
     * exceeded", or a NIC removed during the run put the connections on it in error (NCCL's
     * "communicator encountered a fatal error").  A modelled outcome: the traces are complete,
     * their status workload-failed. */
    WEFT_EXIT_WORKLOAD_FAILED = 6,
} WeftExitStatus;

#endif /* WEFT_SIM_ERRORS_H */
