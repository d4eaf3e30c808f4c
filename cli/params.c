#include "config.h"
#define G_LOG_DOMAIN "weft-cli"
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "network/network.h"
#include "models/dcqcn.h"
#include "models/ecn.h"
#include "models/nic.h"
#include "models/switch.h"
#include "workloads/workload.h"
#include "sim/runcfg.h"
#include "topologies/server.h"
#include "topologies/topology.h"

typedef struct {
    const char *group;
    const char *help;
    const WeftParamSpec *spec;
} Group;

static void
describe (GString *out, const char *group, const char *help, const WeftParamSpec *spec)
{
    g_string_append_printf (out, "%s  %s\n", group, help);
    if (spec && spec[0].name)
        weft_params_describe (spec, out);
    else
        g_string_append (out, "  (no parameters)\n");
    g_string_append_c (out, '\n');
}

int
weft_cli_params (int argc, char **argv)
{
    g_autoptr (GOptionContext) ctx = g_option_context_new ("[GROUP] - list parameters, types, defaults and ranges");
    g_option_context_set_summary (
        ctx, "Without GROUP, lists every experiment-file group and its parameters.  GROUP is\n"
             "a group name (experiment, trace, fabric, ethernet, infiniband, ibcc, switch,\n"
             "transport), topology or\n"
             "topology.GENERATOR, workload or workload.KIND.");
    g_autoptr (GError) error = NULL;
    if (!g_option_context_parse (ctx, &argc, &argv, &error)) {
        g_printerr ("weft params: %s\n", error->message);
        return WEFT_EXIT_BAD_INPUT;
    }
    if (argc > 2) {
        g_printerr ("weft params: expected at most one GROUP\n");
        return WEFT_EXIT_BAD_INPUT;
    }
    const char *want = argc == 2 ? argv[1] : NULL;
    const Group fixed[] = {
        { "experiment", "the run: name, seed, duration, hang watchdog", weft_experiment_params },
        { "trace", "the HDF5 trace", weft_trace_params },
        { "fabric", "link layer, packet format and path choice", weft_fabric_params },
        { "ethernet", "the Ethernet fabric's packet format", weft_ethernet_params },
        { "infiniband", "InfiniBand link layer: VLs, credits, buffers, VL arbitration",
          weft_infiniband_params },
        { "ibcc", "InfiniBand congestion control: FECN, BECN, CCT pacing (off by default)",
          weft_ibcc_params },
        { "pfc", "RoCE Priority Flow Control (802.1Qbb): priorities, xoff/xon, headroom, pause "
                 "quanta",
          weft_pfc_params },
        { "ecn", "RoCE ECN marking at switch egress queues (RED: kmin, kmax, pmax)",
          weft_ecn_params },
        { "dcqcn", "RoCE DCQCN at the NICs: CNPs, rate cuts and recovery, presets",
          weft_dcqcn_params },
        { "switch", weft_switch_class.help, weft_switch_class.params },
        { "transport", "reliable transport at the hosts' NICs", weft_transport_params },
        { "server", "a DGX-class server (generator = railopt)", NULL },
    };
    GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
    GString *out = g_string_new (NULL);
    gboolean found = FALSE;
    for (guint i = 0; i < G_N_ELEMENTS (fixed); i++) {
        const WeftParamSpec *spec = fixed[i].spec ? fixed[i].spec : weft_server_params ();
        g_ptr_array_add (names, g_strdup (fixed[i].group));
        if (!want || strcmp (want, fixed[i].group) == 0) {
            g_autofree char *title = g_strdup_printf ("[%s]", fixed[i].group);
            describe (out, title, fixed[i].help, spec);
            found = TRUE;
        }
    }
    g_ptr_array_add (names, g_strdup ("topology"));
    if (!want || strcmp (want, "topology") == 0) {
        describe (out, "[topology]", "keys common to every generator", weft_topology_common_params ());
        found = TRUE;
    }
    for (const WeftTopologyGenerator *const *gen = weft_topology_generators (); *gen; gen++) {
        char *name = g_strconcat ("topology.", (*gen)->name, NULL);
        g_ptr_array_add (names, name);
        if (!want || strcmp (want, "topology") == 0 || strcmp (want, name) == 0) {
            g_autofree char *title = g_strdup_printf ("[topology] generator = %s:", (*gen)->name);
            describe (out, title, (*gen)->help, (*gen)->params);
            found = TRUE;
        }
    }
    g_ptr_array_add (names, g_strdup ("workload"));
    if (!want || strcmp (want, "workload") == 0) {
        describe (out, "[workload.NAME]", "keys common to every workload kind",
                  weft_workload_common_params ());
        found = TRUE;
    }
    for (const WeftWorkloadKind *k = weft_workload_kinds (); k->kind; k++) {
        char *name = g_strconcat ("workload.", k->kind, NULL);
        g_ptr_array_add (names, name);
        if (!want || strcmp (want, "workload") == 0 || strcmp (want, name) == 0) {
            g_autofree char *title = g_strdup_printf ("[workload.NAME] kind = %s:", k->kind);
            describe (out, title, k->help, k->spec);
            found = TRUE;
        }
    }
    int rc = WEFT_EXIT_DONE;
    if (found) {
        fputs (out->str, stdout);
    } else {
        g_ptr_array_add (names, NULL);
        const char *s = weft_suggest (want, (const char *const *) names->pdata);
        g_printerr ("weft params: unknown group '%s'%s%s%s\n", want, s ? ", did you mean '" : "",
                    s ? s : "", s ? "'?" : "");
        rc = WEFT_EXIT_BAD_INPUT;
    }
    g_string_free (out, TRUE);
    g_ptr_array_unref (names);
    return rc;
}
