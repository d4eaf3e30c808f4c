/* sim/params.h - parameter tables: every parameter declared once, with type, default, range
 * and help.  The same table drives parsing of experiment groups, defaults, validation, and
 * `weft params`.
 *
 * A table is a {NULL}-terminated array of WeftParamSpec describing fields of one C struct (by
 * offset).  Several tables can serve one group (a workload's common keys plus its kind's keys):
 * weft_params_read takes a list of bindings, and a key is unknown only if no table declares it.
 *
 * Ranges and defaults are written as text in the parameter's own units ("1KiB", "10us"), parsed
 * by sim/units.h, so a table reads like the experiment file it documents.
 */
#ifndef WEFT_SIM_PARAMS_H
#define WEFT_SIM_PARAMS_H

#include <glib.h>

#include "sim/experiment.h"
#include "sim/time.h"

typedef enum {
    WEFT_PARAM_TYPE_BOOL,   /* gboolean; "true" / "false" */
    WEFT_PARAM_TYPE_INT,    /* gint64, decimal */
    WEFT_PARAM_TYPE_UINT,   /* guint64, decimal */
    WEFT_PARAM_TYPE_DOUBLE, /* double */
    WEFT_PARAM_TYPE_STRING, /* char *, owned by the struct (g_free in weft_params_clear) */
    WEFT_PARAM_TYPE_ENUM,   /* int: index into the '|'-separated choices */
    WEFT_PARAM_TYPE_TIME,   /* weft_time_t, picoseconds */
    WEFT_PARAM_TYPE_RATE,   /* guint64, bits per second */
    WEFT_PARAM_TYPE_BYTES,  /* guint64, bytes */
    WEFT_PARAM_TYPE_LENGTH, /* double, metres */
    WEFT_PARAM_TYPE_RATIO,  /* double: "3:1" -> 3.0, "1:1" -> 1.0; a bare number is refused */
    WEFT_PARAM_TYPE_LIST,   /* char **, ';'-separated, owned (g_strfreev) */
} WeftParamType;

/* The default of a key whose value the model derives from the fabric when the file does not set
 * it (a target delay from the topology's RTT, say): the field is left zero, an explicit value is
 * still checked against the range, `weft params` shows "derived" and the help says from what. */
#define WEFT_PARAM_DERIVED "derived"

typedef struct {
    const char *name; /* key name in the group */
    WeftParamType type;
    gsize offset;    /* of the field in the struct */
    const char *def; /* default, as file text; NULL: the key is required; WEFT_PARAM_DERIVED */
    const char *min; /* inclusive bounds as file text; NULL: unbounded (not for ENUM etc.) */
    const char *max;
    const char *choices; /* ENUM only: "static|ecmp|adaptive" */
    const char *help;    /* one line, shown by `weft params` */
} WeftParamSpec;

/* One line per type reads as a table. */
/* clang-format off */
#define WEFT_PARAM_(nm, ty, T, field, def, min, max, choices, help)                              \
    { nm, WEFT_PARAM_TYPE_##ty, G_STRUCT_OFFSET (T, field), def, min, max, choices, help }
#define WEFT_PARAM_BOOL(nm, T, f, def, help) WEFT_PARAM_ (nm, BOOL, T, f, def, NULL, NULL, NULL, help)
#define WEFT_PARAM_INT(nm, T, f, def, min, max, help) WEFT_PARAM_ (nm, INT, T, f, def, min, max, NULL, help)
#define WEFT_PARAM_UINT(nm, T, f, def, min, max, help) WEFT_PARAM_ (nm, UINT, T, f, def, min, max, NULL, help)
#define WEFT_PARAM_DOUBLE(nm, T, f, def, min, max, help) WEFT_PARAM_ (nm, DOUBLE, T, f, def, min, max, NULL, help)
#define WEFT_PARAM_STRING(nm, T, f, def, help) WEFT_PARAM_ (nm, STRING, T, f, def, NULL, NULL, NULL, help)
#define WEFT_PARAM_ENUM(nm, T, f, def, choices, help) WEFT_PARAM_ (nm, ENUM, T, f, def, NULL, NULL, choices, help)
#define WEFT_PARAM_TIME(nm, T, f, def, min, max, help) WEFT_PARAM_ (nm, TIME, T, f, def, min, max, NULL, help)
#define WEFT_PARAM_RATE(nm, T, f, def, min, max, help) WEFT_PARAM_ (nm, RATE, T, f, def, min, max, NULL, help)
#define WEFT_PARAM_BYTES(nm, T, f, def, min, max, help) WEFT_PARAM_ (nm, BYTES, T, f, def, min, max, NULL, help)
#define WEFT_PARAM_LENGTH(nm, T, f, def, min, max, help) WEFT_PARAM_ (nm, LENGTH, T, f, def, min, max, NULL, help)
#define WEFT_PARAM_RATIO(nm, T, f, def, min, max, help) WEFT_PARAM_ (nm, RATIO, T, f, def, min, max, NULL, help)
#define WEFT_PARAM_LIST(nm, T, f, def, help) WEFT_PARAM_ (nm, LIST, T, f, def, NULL, NULL, NULL, help)
#define WEFT_PARAM_END { NULL, 0, 0, NULL, NULL, NULL, NULL, NULL }
/* clang-format on */

typedef struct {
    const WeftParamSpec *spec; /* {NULL}-terminated */
    void *obj;                 /* the struct the offsets refer to */
} WeftParamBinding;

/**
 * weft_params_read:
 * For each binding, sets every field to its default, then to the value in @group of @exp where
 * the key is present (a missing group is the same as an empty one).  Errors (all through
 * weft_experiment_fail, so "FILE: [group] key: ..."):
 *  - a key that no binding declares: WEFT_CONFIG_ERROR_UNKNOWN_KEY, "unknown key, did you mean
 *    'x'?" when weft_suggest finds one, and the list of valid keys otherwise;
 *  - a required key (def NULL) absent: _MISSING;
 *  - unit problems: _UNIT / _VALUE with the units module's message;
 *  - out of [min, max]: _RANGE, "400Gbps is out of range: expected 1Mbps to 3.2Tbps";
 *  - an ENUM value not among the choices: _VALUE, listing the choices (with a suggestion).
 * A key declared by two bindings is set in both.  On error the objects may be partly set; call
 * weft_params_clear on them anyway.
 */
gboolean weft_params_read (const WeftExperiment *exp, const char *group,
                           const WeftParamBinding *bindings, guint n_bindings, GError **error);

/* Sets every field to its default, for code that builds objects without a file (tests).
 * STRING and LIST fields must be NULL or owned: they are freed first, so reading twice does
 * not leak.  A required key (def NULL) leaves its field zero; a derived one (WEFT_PARAM_DERIVED,
 * scalar types only) sets it to zero, which the model reads as "derive it".  Aborts on a spec whose
 * default does not parse (a programming error). */
void weft_params_set_defaults (const WeftParamSpec *spec, void *obj);

/* Frees STRING and LIST fields and sets them to NULL. */
void weft_params_clear (const WeftParamSpec *spec, void *obj);

/* Appends a human-readable description of @spec to @out, one parameter per line block:
 *   name        type    default   [range or choices]
 *               help text
 * as `weft params MODEL` prints it. */
void weft_params_describe (const WeftParamSpec *spec, GString *out);

/* Type name as shown to users: "time", "rate", "bytes", "length", "ratio", "bool", ... */
const char *weft_params_type_name (WeftParamType type);

/* Parse one value of @type from text (no file context), for callers that handle free-form
 * keys (flow lists).  @out points to storage of the C type listed above.  STRING/LIST/ENUM are
 * not accepted here. */
gboolean weft_params_parse_value (WeftParamType type, const char *text, void *out, GError **error);

#endif /* WEFT_SIM_PARAMS_H */
