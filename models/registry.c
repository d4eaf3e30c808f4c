/* models/registry.c - the one array of mechanisms (models/registry.h says what a descriptor
 * holds).  Order matters and is deliberate: configure runs in this order (ibcc needs
 * infiniband's packet format, ecn's defaults come from dcqcn's preset), and the run summary
 * prints the mechanisms' lines in this order. */
#include "config.h"
#define G_LOG_DOMAIN "weft-registry"
#include "models/registry.h"


const WeftMechanism *const weft_mechanisms[] = {
    &weft_ethernet_mechanism,
    &weft_infiniband_mechanism,
    &weft_vlarb_mechanism,
    &weft_ibcc_mechanism,
    &weft_dcqcn_mechanism, /* before ecn: its preset gives ECN's defaults */
    &weft_uet_mechanism,   /* before ecn too: it reads [ecn] with Ultra Ethernet's defaults */
    &weft_nscc_mechanism,
    &weft_ecn_mechanism,
    &weft_pfc_mechanism,
    &weft_switch_mechanism,
    &weft_buffer_mechanism, /* after pfc: the pool sets the ports' headroom aside */
    &weft_nic_mechanism,    /* the NICs' latencies, which the transport's ideal FCTs add */
    &weft_transport_mechanism,
    &weft_fault_mechanism, /* last: its check schedules events on the built network */
    NULL,
};

/* The fabric kinds @mech applies to, as text: "roce", "ethernet or roce". */
static char *
fabrics_text (const WeftMechanism *mech)
{
    GString *s = g_string_new (NULL);
    for (int k = 0; k < WEFT_FABRIC_KIND_COUNT; k++) {
        if (!weft_mechanism_applies (mech, k))
            continue;
        if (s->len)
            g_string_append (s, " or ");
        g_string_append (s, weft_fabric_kind_name (k));
    }
    return g_string_free (s, FALSE);
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

gboolean
weft_mechanisms_configure (WeftMechEnv *env, const WeftExperiment *exp, GError **error)
{
    int kind = env->fabric->kind;
    guint n = 0;
    for (const WeftMechanism *const *m = weft_mechanisms; *m; m++) {
        if (weft_mechanism_applies (*m, kind)) {
            g_assert (n < WEFT_MECHANISMS_MAX);
            env->mechs[n++] = *m;
        } else if (weft_experiment_has_group (exp, (*m)->group) &&
                   !(group_fabrics ((*m)->group) & WEFT_FABRIC_BIT (kind))) {
            g_autofree char *where = fabrics_text (*m);
            return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_UNKNOWN_GROUP, (*m)->group,
                                         NULL, "not used with [fabric] kind = %s: %s only",
                                         weft_fabric_kind_name (kind), where);
        }
    }
    env->mechs[n] = NULL;
    for (const WeftMechanism *const *m = env->mechs; *m; m++)
        if ((*m)->configure && !(*m)->configure (env, exp, error))
            return FALSE;
    return TRUE;
}

void
weft_mechanisms_clear (WeftMechEnv *env)
{
    for (const WeftMechanism *const *m = env->mechs; *m; m++)
        if ((*m)->clear)
            (*m)->clear (env);
}
