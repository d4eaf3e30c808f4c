/* sim/experiment.h - an experiment file, resolved: includes merged, --set overrides applied.
 *
 * Format: GKeyFile INI (own-line '#' comments; "v  # x" would be all value, so a '#' after a
 * blank in a value is refused as an inline comment).  Error messages show control bytes of
 * the file (ESC, CR, ...) as \xNN escapes, so a file cannot drive the terminal.  In [experiment],
 * `include = other.ini` (or a ';'-separated list) names files relative to the including file;
 * they are read first, depth-first, and the including file's own keys then override theirs
 * (later keys override earlier ones).  The `include` key itself is consumed and does not appear
 * in the resolved text.  An include cycle is an error naming the chain.
 *
 * Every key remembers the file it came from (or "--set" for command-line overrides), so errors
 * name the right file: "FILE: [group] key: what is wrong, what was expected".
 *
 * Invariants: the resolved text (weft_experiment_to_data) re-parses to the same groups, keys and
 * values, with no include key; it is what goes into the trace's /meta.
 */
#ifndef WEFT_SIM_EXPERIMENT_H
#define WEFT_SIM_EXPERIMENT_H

#include <glib.h>

#include "sim/errors.h"

typedef struct _WeftExperiment WeftExperiment;

/** Reads @path and its includes.  Errors: WEFT_CONFIG_ERROR_FILE (unreadable, not INI; the
 * message names the file and GKeyFile's reason), _INCLUDE_CYCLE.  (transfer full) */
WeftExperiment *weft_experiment_load (const char *path, GError **error);

/** Parses in-memory text as if it were a file called @name (includes resolve against the
 * current directory).  For tests and the harness.  (transfer full) */
WeftExperiment *weft_experiment_new_from_data (const char *text, const char *name, GError **error);

void weft_experiment_free (WeftExperiment *exp);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WeftExperiment, weft_experiment_free)

/** Applies one command-line override "GROUP:KEY=VALUE" (the group may contain dots; the
 * first ':' ends it, the first '=' after it ends the key).  Malformed text is
 * WEFT_CONFIG_ERROR_OVERRIDE naming what was expected, as is [experiment] include (includes
 * are resolved while loading).  The value is not checked here: it goes
 * through the same validation as file values when models read it.  Its origin is "--set". */
gboolean weft_experiment_set (WeftExperiment *exp, const char *assignment, GError **error);

/* The merged key file.  (transfer none) */
GKeyFile *weft_experiment_keyfile (const WeftExperiment *exp);

/* The top-level file name as given (or @name for from_data).  (transfer none) */
const char *weft_experiment_path (const WeftExperiment *exp);

/* Directory of the file that set group/key (as weft_experiment_origin finds it), for resolving
 * relative paths such as a flow-list CSV or a CDF file; "." for a --set value, since a path
 * typed on the command line is relative to the working directory.  (transfer full) */
char *weft_experiment_dir_for (const WeftExperiment *exp, const char *group, const char *key);

/* File that set group/key ("--set" for overrides); with key NULL or a key nobody set, the first
 * file that had the group; the top file when the group is unknown too.  (transfer none) */
const char *weft_experiment_origin (const WeftExperiment *exp, const char *group, const char *key);

gboolean weft_experiment_has_group (const WeftExperiment *exp, const char *group);

/* Removes @group and its keys (a sweep file's [sweep], which is not the run's); whether it
 * was there. */
gboolean weft_experiment_remove_group (WeftExperiment *exp, const char *group);

/* Group names in file order.  (transfer full: g_strfreev) */
char **weft_experiment_groups (const WeftExperiment *exp);

/* Groups whose name starts with @prefix followed by a dot ("workload" -> "workload.incast"),
 * in file order.  (transfer full: g_strfreev) */
char **weft_experiment_groups_with_prefix (const WeftExperiment *exp, const char *prefix);

/** The resolved experiment as INI text, with a header comment naming the source file(s) and
 * overrides.  (transfer full) */
char *weft_experiment_to_data (const WeftExperiment *exp);

/**
 * weft_experiment_fail:
 * Sets @error (domain WEFT_CONFIG_ERROR, @code) to "ORIGIN: [group] key: MESSAGE", where ORIGIN
 * is weft_experiment_origin (exp, group, key); with @key NULL the form is "ORIGIN: [group]:
 * MESSAGE", and with @group NULL too "ORIGIN: MESSAGE" (the top file).  Returns FALSE so callers
 * can `return weft_experiment_fail (...)`.
 */
gboolean weft_experiment_fail (const WeftExperiment *exp, GError **error, WeftConfigError code,
                               const char *group, const char *key, const char *format, ...)
    G_GNUC_PRINTF (6, 7);

/**
 * weft_experiment_check_groups:
 * Every group must be one of @known (NULL-terminated exact names) or "PREFIX.NAME" for a
 * PREFIX in @known_prefixes (NULL-terminated; NAME non-empty).  The first other group is
 * WEFT_CONFIG_ERROR_UNKNOWN_GROUP: "FILE: [grp]: unknown group, did you mean [group]?"
 * (the suggestion when one is close by edit distance) "expected one of: ...".
 */
gboolean weft_experiment_check_groups (const WeftExperiment *exp, const char *const *known,
                                       const char *const *known_prefixes, GError **error);

/* Closest of @candidates (NULL-terminated) to @word by Levenshtein distance, if the distance is
 * at most max(2, strlen/3); else NULL.  (transfer none: points into @candidates) */
const char *weft_suggest (const char *word, const char *const *candidates);

#endif /* WEFT_SIM_EXPERIMENT_H */
