/* models/registry.c - the one array of mechanisms (models/registry.h says what a descriptor
 * holds).  Order matters and is deliberate: configure runs in this order (ibcc needs
 * infiniband's packet format, ecn's defaults come from dcqcn's preset), and the run summary
 * prints the mechanisms' lines in this order. */
#include "config.h"
#define G_LOG_DOMAIN "weft-registry"
#include "models/registry.h"

#include <string.h>


const WeftMechanism *const weft_mechanisms[] = {
    &weft_ethernet_mechanism,
    &weft_infiniband_mechanism,
    &weft_vlarb_mechanism,
    &weft_ibcc_mechanism,
    &weft_dcqcn_mechanism, /* before ecn: its preset gives ECN's defaults */
    &weft_uet_mechanism,   /* before ecn too: it reads [ecn] with Ultra Ethernet's defaults */
    &weft_nscc_mechanism,
    &weft_rccc_mechanism,
    &weft_ecn_mechanism,
    &weft_pfc_mechanism,
    &weft_switch_mechanism,
    &weft_buffer_mechanism, /* after pfc: the pool sets the ports' headroom aside */
    &weft_nic_mechanism,    /* the NICs' latencies, which the transport's ideal FCTs add */
    &weft_transport_mechanism,
    &weft_fault_mechanism, /* its check schedules events on the built network */
    &weft_sm_mechanism,    /* [routing]: the subnet manager's sweeps after fault events */
    &weft_frn_mechanism,   /* [routing]: fault notifications, after fault's configure */
    NULL,
};

/* The fabric kinds in @fabrics (WEFT_FABRIC_BIT()s), as text: "roce", "ethernet or roce". */
static void
append_fabrics (GString *s, guint fabrics)
{
    gboolean first = TRUE;
    for (int k = 0; k < WEFT_FABRIC_KIND_COUNT; k++) {
        if (!(fabrics & WEFT_FABRIC_BIT (k)))
            continue;
        g_string_append (s, first ? "" : " or ");
        g_string_append (s, weft_fabric_kind_name (k));
        first = FALSE;
    }
}

/* Every fabric some mechanism reads @group on. */
static guint
group_fabrics (const char *group)
{
    guint fabrics = 0;
    for (const WeftMechanism *const *m = weft_mechanisms; *m; m++)
        if (g_strcmp0 ((*m)->group, group) == 0)
            fabrics |= (*m)->fabrics;
    return fabrics;
}

/* A group of another fabric's mechanisms, present in @exp: its keys are read into scratch
 * copies of their tables, so a misspelt key, a bad unit or a value out of range is still an
 * error although nothing uses the values.  (Cross-key checks belong to the mechanisms'
 * configure hooks and do not run.) */
static gboolean
check_unused_group (const WeftExperiment *exp, const char *group, GError **error)
{
    WeftParamBinding b[WEFT_MECHANISMS_MAX] = { { 0 } };
    guint n = 0;
    for (const WeftMechanism *const *m = weft_mechanisms; *m; m++) {
        if (g_strcmp0 ((*m)->group, group) != 0 || !(*m)->params)
            continue;
        gsize size = 0;
        for (const WeftParamSpec *p = (*m)->params; p->name; p++)
            size = MAX (size, p->offset + sizeof (guint64)); /* no field type is wider */
        g_assert (n < G_N_ELEMENTS (b));
        b[n++] = (WeftParamBinding){ (*m)->params, g_malloc0 (size) };
    }
    gboolean ok = weft_params_read (exp, group, b, n, error);
    for (guint i = 0; i < n; i++) {
        weft_params_clear (b[i].spec, b[i].obj);
        g_free (b[i].obj);
    }
    return ok;
}

gboolean
weft_mechanisms_configure (WeftMechEnv *env, const WeftExperiment *exp, GError **error)
{
    int kind = env->fabric->kind;
    guint n = 0, n_unused = 0;
    for (const WeftMechanism *const *m = weft_mechanisms; *m; m++) {
        if (weft_mechanism_applies (*m, kind)) {
            g_assert (n < WEFT_MECHANISMS_MAX);
            env->mechs[n++] = *m;
            continue;
        }
        /* Another fabric's group: accepted, so that one experiment can carry the groups of
         * several fabrics and `--set fabric:kind=...` alone switches between them; listed as
         * unused (once per group) by `weft validate` and the run summary. */
        const char *g = (*m)->group;
        if (!weft_experiment_has_group (exp, g) || (group_fabrics (g) & WEFT_FABRIC_BIT (kind)))
            continue;
        gboolean seen = FALSE;
        for (guint i = 0; i < n_unused; i++)
            seen |= strcmp (env->unused_groups[i], g) == 0;
        if (seen)
            continue;
        if (!check_unused_group (exp, g, error))
            return FALSE;
        g_assert (n_unused < WEFT_MECHANISMS_MAX);
        env->unused_groups[n_unused++] = g;
    }
    env->mechs[n] = NULL;
    env->unused_groups[n_unused] = NULL;
    for (const WeftMechanism *const *m = env->mechs; *m; m++)
        if ((*m)->configure && !(*m)->configure (env, exp, error))
            return FALSE;
    return TRUE;
}

void
weft_mechanisms_unused_line (const WeftMechEnv *env, GString *out)
{
    if (!env->unused_groups[0])
        return;
    g_string_append (out, "  unused       ");
    for (const char *const *g = env->unused_groups; *g; g++) {
        g_string_append_printf (out, "%s[%s] (", g == env->unused_groups ? "" : ", ", *g);
        append_fabrics (out, group_fabrics (*g));
        g_string_append_c (out, ')');
    }
    g_string_append_printf (out, ": not used with [fabric] kind = %s\n",
                            weft_fabric_kind_name (env->fabric->kind));
}

void
weft_mechanisms_clear (WeftMechEnv *env)
{
    for (const WeftMechanism *const *m = env->mechs; *m; m++)
        if ((*m)->clear)
            (*m)->clear (env);
}
