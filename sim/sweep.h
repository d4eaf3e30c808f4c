/* sim/sweep.h - a parameter sweep: the [sweep] group of an experiment file, expanded into
 * points (doc/sweeps.md).
 *
 * [sweep] holds axes, one key each, written as `GROUP:KEY = v1; v2; v3` (the form of
 * `weft run --set`; a value that holds ';' writes it "\;", as GLib key-file lists escape it),
 * `mode = grid | zip` (grid: every combination, the first axis varying slowest; zip: the i-th
 * value of every axis together, so all axes have the same length), `seeds = A..B` or
 * `seeds = S1; S2; ...` (a shorthand axis on experiment:seed that multiplies every point in
 * either mode, varying fastest), and `output = DIR` (the folder the points write to).
 *
 * Each point is the base experiment (the file without [sweep]) with one override per axis.
 * Its name, a file-name-safe stem, encodes the varied values in axis order: LABEL-VALUE joined
 * by '_', LABEL the key (GROUP.KEY when two axes share a key), ':' in a value written "to"
 * (2:1 -> 2to1) and every byte outside [A-Za-z0-9.+-] as '-'; names longer than 120 bytes are
 * cut and, like names that would otherwise collide, end in '-' and 8 hex digits of the SHA-1
 * of the point's overrides.  Names depend only on the sweep, never on the order points run.
 *
 * What this module does not check: whether an axis names a group and key the engine knows,
 * or whether a value is valid for its key - that needs the parameter tables (cli/sweep.c
 * prepares every point as a run would).
 */
#ifndef WEFT_SIM_SWEEP_H
#define WEFT_SIM_SWEEP_H

#include <glib.h>

#include "sim/experiment.h"

#define WEFT_SWEEP_GROUP "sweep"

typedef enum { WEFT_SWEEP_GRID, WEFT_SWEEP_ZIP } WeftSweepMode;

typedef struct {
    char *group, *key; /* owned; the seeds axis is experiment:seed */
    char *label;       /* owned: the key, or GROUP.KEY when another axis has the same key */
    char **values;     /* owned, NULL-terminated, unescaped and stripped */
    guint n_values;
} WeftSweepAxis;

typedef struct {
    guint index;
    char **overrides; /* owned, NULL-terminated "GROUP:KEY=VALUE", one per axis */
    char *name;       /* owned: the file-name-safe stem */
} WeftSweepPoint;

typedef struct {
    WeftSweepMode mode;
    char *output;    /* owned: [sweep] output, or NULL when the file does not set it */
    GPtrArray *axes; /* WeftSweepAxis, file order, the seeds axis last */
    GPtrArray *points;
} WeftSweep;

/** Reads @exp's [sweep] group and expands its points.  Errors (WEFT_CONFIG_ERROR, naming the
 * file, [sweep] and the axis): no [sweep] group or no axis (_MISSING), an axis key that is not
 * GROUP:KEY, an axis with no value or an empty value, seeds that are not A..B with A <= B or a
 * list of integers, an axis set twice (_VALUE), zip axes of different lengths (_RANGE), an
 * unknown mode or key (_VALUE, _UNKNOWN_KEY), more than 1,000,000 points (_RANGE).
 * (transfer full) */
WeftSweep *weft_sweep_read (const WeftExperiment *exp, GError **error);

void weft_sweep_free (WeftSweep *sweep);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WeftSweep, weft_sweep_free)

/** Removes [sweep] from @exp, so that what remains is the base point; whether it had one. */
gboolean weft_sweep_strip (WeftExperiment *exp);

/* The point's value on axis @axis.  (transfer none) */
const char *weft_sweep_point_value (const WeftSweepPoint *p, guint axis);

#endif /* WEFT_SIM_SWEEP_H */
