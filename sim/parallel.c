#include "config.h"
#define G_LOG_DOMAIN "weft-parallel"
#include "sim/parallel.h"

#include <stdlib.h>
#include <string.h>

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

void
weft_parallel_allgather (const WeftParallel *par, const void *mine, gsize size, void *all)
{
    (void) par; /* only MPI reads it */
#ifdef WEFT_HAVE_MPI
    if (par->active) {
        MPI_Allgather (mine, (int) size, MPI_BYTE, all, (int) size, MPI_BYTE, MPI_COMM_WORLD);
        return;
    }
#endif
    memcpy (all, mine, size);
}

void
weft_parallel_exchange (const WeftParallel *par, GByteArray *const *out, GByteArray *in)
{
    (void) par; /* only MPI reads it */
    g_byte_array_set_size (in, 0);
#ifdef WEFT_HAVE_MPI
    if (par->active) {
        int n = par->size;
        int *scount = g_new (int, n), *rcount = g_new (int, n);
        int *sdispl = g_new (int, n), *rdispl = g_new (int, n);
        GByteArray *send = g_byte_array_new ();
        for (int r = 0; r < n; r++) {
            g_assert (out[r]->len <= G_MAXINT - send->len);
            sdispl[r] = (int) send->len;
            scount[r] = (int) out[r]->len;
            g_byte_array_append (send, out[r]->data, out[r]->len);
        }
        MPI_Alltoall (scount, 1, MPI_INT, rcount, 1, MPI_INT, MPI_COMM_WORLD);
        int total = 0;
        for (int r = 0; r < n; r++) {
            rdispl[r] = total;
            total += rcount[r];
        }
        g_byte_array_set_size (in, (guint) total);
        MPI_Alltoallv (send->data, scount, sdispl, MPI_BYTE, in->data, rcount, rdispl, MPI_BYTE,
                       MPI_COMM_WORLD);
        g_byte_array_unref (send);
        g_free (scount);
        g_free (rcount);
        g_free (sdispl);
        g_free (rdispl);
        return;
    }
#endif
    g_byte_array_append (in, out[0]->data, out[0]->len);
}

GByteArray *
weft_parallel_gather_flat (const WeftParallel *par, const void *data, gsize n, gsize **sizes)
{
    (void) par; /* only MPI reads it */
    *sizes = NULL;
#ifdef WEFT_HAVE_MPI
    if (par->active) {
        g_assert (n <= G_MAXINT);
        int mine = (int) n, *counts = NULL, *displs = NULL, total = 0;
        if (par->rank == 0) {
            counts = g_new (int, par->size);
            displs = g_new (int, par->size);
        }
        MPI_Gather (&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
        GByteArray *all = NULL;
        if (par->rank == 0) {
            *sizes = g_new (gsize, par->size);
            for (int r = 0; r < par->size; r++) {
                displs[r] = total;
                g_assert (counts[r] <= G_MAXINT - total);
                total += counts[r];
                (*sizes)[r] = (gsize) counts[r];
            }
            all = g_byte_array_sized_new ((guint) MAX (total, 1));
            g_byte_array_set_size (all, (guint) total);
        }
        MPI_Gatherv (data, mine, MPI_BYTE, all ? all->data : NULL, counts, displs, MPI_BYTE, 0,
                     MPI_COMM_WORLD);
        g_free (counts);
        g_free (displs);
        return all;
    }
#endif
    *sizes = g_new (gsize, 1);
    (*sizes)[0] = n;
    GByteArray *all = g_byte_array_sized_new ((guint) MAX (n, 1));
    g_byte_array_append (all, data, (guint) n);
    return all;
}
