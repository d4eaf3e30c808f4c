/* network/report.c - the mechanisms' lines of `weft report`: the fabric's configuration is
 * rebuilt from the experiment text the trace carries ([fabric] and each mechanism's configure,
 * as a run does, without building the network), then each mechanism of that fabric with a
 * report hook reads the trace's data sets. */
#include "config.h"
#define G_LOG_DOMAIN "weft-network"
#include "network/network.h"

/* Rebuilds the fabric's configuration from @experiment_text as a run does (without building
 * the network) and calls @use with it; FALSE with @error when it no longer configures. */
static gboolean
with_fabric (const char *experiment_text, void (*use) (const WeftMechEnv *env, gpointer data),
             gpointer data, GError **error)
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
    if (ok)
        use (&env, data);
    weft_mechanisms_clear (&env);
    weft_fabric_clear (&fabric);
    return ok;
}

typedef struct {
    const WeftTraceTables *t;
    GString *out;
} ReportArgs;

static void
report_lines (const WeftMechEnv *env, gpointer data)
{
    const ReportArgs *a = data;
    for (const WeftMechanism *const *mech = env->mechs; *mech; mech++)
        if ((*mech)->report)
            (*mech)->report (env->fabric, a->t, a->out);
}

gboolean
weft_network_report (const char *experiment_text, const WeftTraceTables *t, GString *out,
                     GError **error)
{
    ReportArgs a = { t, out };
    return with_fabric (experiment_text, report_lines, &a, error);
}

static void
packet_format (const WeftMechEnv *env, gpointer data)
{
    guint64 *format = data;
    format[0] = env->fabric->mtu;
    format[1] = env->fabric->header;
}

gboolean
weft_network_packet_format (const char *experiment_text, guint64 *mtu_bytes, guint64 *header_bytes,
                            GError **error)
{
    guint64 format[2];
    if (!with_fabric (experiment_text, packet_format, format, error))
        return FALSE;
    *mtu_bytes = format[0];
    *header_bytes = format[1];
    return TRUE;
}
