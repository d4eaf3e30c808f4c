/* sim/parallel.h - the MPI ranks of one run (doc/parallel.md).
 *
 * weft initialises MPI only when a launcher started it: mpirun or mpiexec (Open MPI sets
 * OMPI_COMM_WORLD_SIZE), or srun (PMI_SIZE or PMIX_RANK).  Started any other way it is one
 * rank and never touches MPI, so an ordinary run is exactly what it was before MPI support.
 * Built without MPI (configure --with-mpi=no, or none found), every function acts as one rank,
 * and weft_parallel_launched_size tells a run started by a launcher that it cannot take part.
 *
 * Agreement: a step that may fail on some ranks and not others (reading the experiment on a
 * node that cannot see it) is followed by weft_parallel_agree, so that every rank stops with
 * the same exit status and none is left waiting in a collective for one that has exited.
 */
#ifndef WEFT_SIM_PARALLEL_H
#define WEFT_SIM_PARALLEL_H

#include <glib.h>

typedef struct WeftParallel {
    int rank, size;  /* 0 and 1 for one process */
    gboolean active; /* MPI was initialised here, and must be finalised */
} WeftParallel;

/* TRUE when weft was built with MPI. */
gboolean weft_parallel_built (void);

/* The number of processes the launcher started, read from its environment (1 when none). */
int weft_parallel_launched_size (void);

/* Initialises MPI when a launcher started this process and weft was built with it; otherwise
 * fills in one rank.  Returns FALSE (with a message in *@why, transfer full) when MPI could not
 * be initialised. */
gboolean weft_parallel_init (WeftParallel *par, char **why);

/* Finalises MPI if weft_parallel_init initialised it. */
void weft_parallel_finalize (WeftParallel *par);

/* Every rank passes whether its own step succeeded; returns the lowest rank that failed, or -1
 * when none did (one rank: -1 or 0 from @ok alone).  A collective: every rank must call it. */
int weft_parallel_agree (const WeftParallel *par, gboolean ok);

/* The collectives of a run across ranks (doc/parallel.md).  Every rank must call each, in the
 * same order; with one rank they copy.  Sizes are bytes. */

/* @all gets every rank's @size bytes of @mine, in rank order (@size * par->size bytes). */
void weft_parallel_allgather (const WeftParallel *par, const void *mine, gsize size, void *all);

/* Sends out[r] to rank r (out has par->size arrays; out[par->rank] is copied); @in gets what
 * every rank sent this one, in rank order. */
void weft_parallel_exchange (const WeftParallel *par, GByteArray *const *out, GByteArray *in);

/* Gathers every rank's @n bytes at rank 0 in one buffer, without a copy per rank: at rank 0
 * every rank's bytes one after the other, in rank order, and *@sizes (transfer full) each
 * rank's count; NULL on the other ranks.  (transfer full) */
GByteArray *weft_parallel_gather_flat (const WeftParallel *par, const void *data, gsize n,
                                       gsize **sizes);

#endif /* WEFT_SIM_PARALLEL_H */
