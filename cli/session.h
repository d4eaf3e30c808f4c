/* cli/session.h - one run from an experiment file: the glue that sees every folder.
 *
 * load (includes, --set overrides) -> [experiment]/[trace] -> memory estimate -> topology ->
 * models -> trace -> run -> summary.  `weft run` and `weft validate` both go through
 * weft_session_prepare, so validation is exactly what a run would check before simulating.
 */
#ifndef WEFT_CLI_SESSION_H
#define WEFT_CLI_SESSION_H

#include "network/network.h"
#include "sim/experiment.h"
#include "sim/graph.h"
#include "sim/partition.h"
#include "sim/runcfg.h"
#include "sim/sim.h"

typedef struct {
    WeftExperiment *exp;
    WeftExperimentConfig ec;
    WeftTraceConfig tc;
    WeftPartitionConfig pc; /* [parallel]: read (and checked) by every run, used across ranks */
    WeftGraph *graph;
    WeftSim *sim;
    WeftNetwork *net;
    guint sweep_points;    /* a sweep file's points ([sweep], left out of this run); else 0 */
    WeftPartition part;    /* across ranks: the split (n_ranks 0 for one process) */
    WeftFlowBudget budget; /* the flows the memory left holds (cli/footprint.h) */
} WeftSession;

/* Everything up to (not including) opening the trace.  @overrides: NULL-terminated
 * "GROUP:KEY=VALUE" strings; @seed_override: when non-NULL replaces [experiment] seed;
 * @max_memory: bytes the run may use (0: only the process's own limits, cli/footprint.h):
 * an experiment whose estimate exceeds them is refused before its fabric is built.
 * A [sweep] group (sim/sweep.h) is read and checked, then removed: what is prepared is the
 * sweep's base point.  Errors are bad input (exit 2). */
gboolean weft_session_prepare (WeftSession *s, const char *path, char **overrides,
                               const guint64 *seed_override, guint64 max_memory, GError **error);
/* weft_session_prepare for rank @rank of a run across @n_ranks MPI ranks (doc/parallel.md):
 * the fabric is split (s->part) before the network is built, so that each rank starts its own
 * nodes' flows only.  With @n_ranks 1 it is weft_session_prepare. */
gboolean weft_session_prepare_ranks (WeftSession *s, const char *path, char **overrides,
                                     const guint64 *seed_override, guint64 max_memory,
                                     guint n_ranks, guint rank, GError **error);
void weft_session_clear (WeftSession *s);

#endif /* WEFT_CLI_SESSION_H */
