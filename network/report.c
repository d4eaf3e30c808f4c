/* network/report.c - the mechanisms' lines of `weft report`: the fabric's configuration is
 * rebuilt from the experiment text the trace carries ([fabric] and each mechanism's configure,
 * as a run does, without building the network), then each mechanism of that fabric with a
 * report hook reads the trace's data sets. */
#include "config.h"
#define G_LOG_DOMAIN "weft-network"
#include "network/network.h"

gboolean
weft_network_report (const char *experiment_text, const WeftTraceTables *t, GString *out,
                     GError **error)
{
    g_autoptr (WeftExperiment) exp =
        weft_experiment_new_from_data (experiment_text, "trace", error);
    if (!exp)
        return FALSE;
    WeftFabric fabric = { 0 };
    WeftTransport tp = { 0 };
    WeftMechEnv env = { .fabric = &fabric, .tp = &tp };
    gboolean ok =
        weft_fabric_read (&fabric, exp, error) && weft_mechanisms_configure (&env, exp, error);
    for (const WeftMechanism *const *mech = env.mechs; ok && *mech; mech++)
        if ((*mech)->report)
            (*mech)->report (&fabric, t, out);
    weft_mechanisms_clear (&env);
    weft_fabric_clear (&fabric);
    return ok;
}

gboolean
weft_network_packet_format (const char *experiment_text, guint64 *mtu_bytes, guint64 *header_bytes,
                            GError **error)
{
    g_autoptr (WeftExperiment) exp =
        weft_experiment_new_from_data (experiment_text, "trace", error);
    if (!exp)
        return FALSE;
    WeftFabric fabric = { 0 };
    WeftTransport tp = { 0 };
    WeftMechEnv env = { .fabric = &fabric, .tp = &tp };
    gboolean ok =
        weft_fabric_read (&fabric, exp, error) && weft_mechanisms_configure (&env, exp, error);
    if (ok) {
        *mtu_bytes = fabric.mtu;
        *header_bytes = fabric.header;
    }
    weft_mechanisms_clear (&env);
    weft_fabric_clear (&fabric);
    return ok;
}
