#include "config.h"
#define G_LOG_DOMAIN "weft-parallel"
#include "sim/parallel.h"

#include <stdlib.h>

#ifdef WEFT_HAVE_MPI
#include <mpi.h>
#endif

gboolean
weft_parallel_built (void)
{
#ifdef WEFT_HAVE_MPI
    return TRUE;
#else
    return FALSE;
#endif
}

/* The launchers' own variables: Open MPI's mpirun and Slurm's srun with PMI-2 give the size;
 * srun with PMIx gives only the rank (the size then comes from MPI itself). */
static gboolean
launched (void)
{
    return g_getenv ("OMPI_COMM_WORLD_SIZE") || g_getenv ("PMI_SIZE") || g_getenv ("PMIX_RANK");
}

int
weft_parallel_launched_size (void)
{
    static const char *const vars[] = { "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS" };
    if (!launched ())
        return 1;
    for (guint i = 0; i < G_N_ELEMENTS (vars); i++) {
        const char *v = g_getenv (vars[i]);
        if (v && *v) {
            long n = strtol (v, NULL, 10);
            if (n >= 1 && n <= G_MAXINT)
                return (int) n;
        }
    }
    return 1;
}

gboolean
weft_parallel_init (WeftParallel *par, char **why)
{
    *par = (WeftParallel){ 0, 1, FALSE };
#ifdef WEFT_HAVE_MPI
    if (!launched ())
        return TRUE;
    if (MPI_Init (NULL, NULL) != MPI_SUCCESS) {
        *why = g_strdup ("MPI_Init failed");
        return FALSE;
    }
    par->active = TRUE;
    MPI_Comm_rank (MPI_COMM_WORLD, &par->rank);
    MPI_Comm_size (MPI_COMM_WORLD, &par->size);
#else
    (void) why;
#endif
    return TRUE;
}

void
weft_parallel_finalize (WeftParallel *par)
{
#ifdef WEFT_HAVE_MPI
    if (par->active)
        MPI_Finalize ();
#endif
    par->active = FALSE;
}

int
weft_parallel_agree (const WeftParallel *par, gboolean ok)
{
    int mine = ok ? par->size : par->rank, lowest = mine;
#ifdef WEFT_HAVE_MPI
    if (par->active)
        MPI_Allreduce (&mine, &lowest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
#endif
    return lowest == par->size ? -1 : lowest;
}
