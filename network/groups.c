/* network/groups.c - every experiment-file group, listed once: the engine's own (the run,
 * the trace, the fabric's kind, the topology and its servers, the workloads) and each
 * mechanism's, from the registry (models/registry.h).  The unknown-group check and
 * `weft params` both read this list. */
#include "config.h"
#define G_LOG_DOMAIN "weft-network"
#include "network/network.h"

#include <string.h>

#include "sim/partition.h"
#include "sim/runcfg.h"
#include "topologies/server.h"
#include "topologies/topology.h"
#include "workloads/workload.h"

/* The engine's groups that are not a mechanism's, in the order `weft params` lists them:
 * these before the mechanisms' groups, server, topology and workload after. */
typedef struct {
    const char *group;
    const char *help;
    const WeftParamSpec *(*params) (void);
} EngineGroup;

static const WeftParamSpec *
experiment_params (void)
{
    return weft_experiment_params;
}
static const WeftParamSpec *
trace_params (void)
{
    return weft_trace_params;
}
static const WeftParamSpec *
fabric_params (void)
{
    return weft_fabric_params;
}

static const WeftParamSpec *
parallel_params (void)
{
    return weft_partition_params;
}

static const EngineGroup engine_first[] = {
    { "experiment",
      "the run: name, seed, duration, hang watchdog; include = FILE[;FILE] reads other files "
      "first (relative to this one), whose keys later ones override",
      experiment_params },
    { "trace", "the HDF5 trace", trace_params },
    { "fabric", "link layer, packet format and path choice", fabric_params },
    { "parallel", "a run across MPI ranks: how the fabric is split (doc/parallel.md)",
      parallel_params },
};
static const EngineGroup engine_server = { "server", "a DGX-class server (generator = railopt)",
                                           weft_server_params };
/* [topology] and [workload.NAME] complete the list ([fault.NAME] is the fault mechanism's). */

/* Whether @mech is the first in the registry to read its group (a group is listed once). */
static gboolean
first_of_group (const WeftMechanism *const *mech)
{
    for (const WeftMechanism *const *o = weft_mechanisms; o < mech; o++)
        if (strcmp ((*o)->group, (*mech)->group) == 0)
            return FALSE;
    return TRUE;
}

gboolean
weft_network_check_groups (const WeftExperiment *exp, GError **error)
{
    g_autoptr (GPtrArray) known = g_ptr_array_new ();
    for (guint i = 0; i < G_N_ELEMENTS (engine_first); i++)
        g_ptr_array_add (known, (gpointer) engine_first[i].group);
    for (const WeftMechanism *const *mech = weft_mechanisms; *mech; mech++)
        if (first_of_group (mech))
            g_ptr_array_add (known, (gpointer) (*mech)->group);
    g_ptr_array_add (known, (gpointer) engine_server.group);
    g_ptr_array_add (known, (gpointer) "topology");
    g_ptr_array_add (known, NULL);
    static const char *const prefixes[] = { "workload", "fault", NULL };
    return weft_experiment_check_groups (exp, (const char *const *) known->pdata, prefixes, error);
}

/* ---- weft params ------------------------------------------------------------------------ */

static void
describe (GString *out, const char *title, const char *help, const WeftParamSpec *spec)
{
    g_string_append_printf (out, "%s  %s\n", title, help);
    if (spec && spec[0].name)
        weft_params_describe (spec, out);
    else
        g_string_append (out, "  (no parameters)\n");
    g_string_append_c (out, '\n');
}

static gboolean
describe_engine (const EngineGroup *e, const char *want, GString *out, GPtrArray *names)
{
    if (names)
        g_ptr_array_add (names, g_strdup (e->group));
    if (want && strcmp (want, e->group) != 0)
        return FALSE;
    g_autofree char *title = g_strdup_printf ("[%s]", e->group);
    describe (out, title, e->help, e->params ());
    return TRUE;
}

/* A mechanisms' group: the first descriptor's help and table, then each further descriptor
 * that reads the group, under a line naming it. */
static gboolean
describe_mechanism_group (const WeftMechanism *const *first, const char *want, GString *out,
                          GPtrArray *names)
{
    const char *group = (*first)->group;
    if (names)
        g_ptr_array_add (names, g_strdup (group));
    if (want && strcmp (want, group) != 0)
        return FALSE;
    g_string_append_printf (out, "[%s]  %s\n", group, (*first)->help);
    for (const WeftMechanism *const *m = first; *m; m++) {
        if (strcmp ((*m)->group, group) != 0)
            continue;
        if (m != first)
            g_string_append_printf (out, "  -- %s: %s\n", (*m)->name, (*m)->help);
        if ((*m)->params && (*m)->params[0].name)
            weft_params_describe ((*m)->params, out);
    }
    g_string_append_c (out, '\n');
    return TRUE;
}

gboolean
weft_network_describe_params (const char *want, GString *out, GPtrArray *names)
{
    gboolean found = FALSE;
    for (guint i = 0; i < G_N_ELEMENTS (engine_first); i++)
        found |= describe_engine (&engine_first[i], want, out, names);
    for (const WeftMechanism *const *mech = weft_mechanisms; *mech; mech++)
        if (first_of_group (mech))
            found |= describe_mechanism_group (mech, want, out, names);
    found |= describe_engine (&engine_server, want, out, names);
    if (names)
        g_ptr_array_add (names, g_strdup ("topology"));
    if (!want || strcmp (want, "topology") == 0) {
        describe (out, "[topology]", "keys common to every generator",
                  weft_topology_common_params ());
        found = TRUE;
    }
    for (const WeftTopologyGenerator *const *gen = weft_topology_generators (); *gen; gen++) {
        char *name = g_strconcat ("topology.", (*gen)->name, NULL);
        gboolean match = !want || strcmp (want, "topology") == 0 || strcmp (want, name) == 0;
        if (names)
            g_ptr_array_add (names, name);
        else
            g_free (name);
        if (match) {
            g_autofree char *title = g_strdup_printf ("[topology] generator = %s:", (*gen)->name);
            describe (out, title, (*gen)->help, (*gen)->params);
            found = TRUE;
        }
    }
    if (names)
        g_ptr_array_add (names, g_strdup ("workload"));
    if (!want || strcmp (want, "workload") == 0) {
        describe (out, "[workload.NAME]", "keys common to every workload kind",
                  weft_workload_common_params ());
        found = TRUE;
    }
    for (const WeftWorkloadKind *k = weft_workload_kinds (); k->kind; k++) {
        char *name = g_strconcat ("workload.", k->kind, NULL);
        gboolean match = !want || strcmp (want, "workload") == 0 || strcmp (want, name) == 0;
        if (names)
            g_ptr_array_add (names, name);
        else
            g_free (name);
        if (match) {
            g_autofree char *title = g_strdup_printf ("[workload.NAME] kind = %s:", k->kind);
            describe (out, title, k->help, k->spec);
            found = TRUE;
        }
    }
    return found;
}

char *
weft_network_group_list (void)
{
    GString *s = g_string_new (NULL);
    for (guint i = 0; i < G_N_ELEMENTS (engine_first); i++)
        g_string_append_printf (s, "%s, ", engine_first[i].group);
    for (const WeftMechanism *const *mech = weft_mechanisms; *mech; mech++)
        if (first_of_group (mech))
            g_string_append_printf (s, "%s, ", (*mech)->group);
    g_string_append (s, engine_server.group);
    return g_string_free (s, FALSE);
}
