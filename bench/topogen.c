/* bench/topogen.c - generation time and peak memory of large rail-optimised fabrics.
 *
 * Usage: bench/topogen [SUS]...   (default: 16 64).  For each size: a three-tier SuperPOD of
 * SUS scalable units (32 DGX H100 servers each, radix 64, 1:1, full-mesh spines), generated
 * and routed; prints wall time of generation and of route computation, route-table bytes, and
 * the process's peak RSS so far (getrusage; sizes run in increasing order, so it is the
 * largest one's).  Not a test: issue 3's target is the 16-SU fabric in < 2 s and < 1 GiB.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "sim/graph.h"
#include "sim/params.h"
#include "topologies/railopt.h"
#include "topologies/server.h"

int
main (int argc, char **argv)
{
    static const char *const defaults[] = { "16", "64" };
    const char *const *sizes = argc > 1 ? (const char *const *) argv + 1 : defaults;
    int n = argc > 1 ? argc - 1 : 2;
    WeftServerParams server;
    weft_params_set_defaults (weft_server_params (), &server);
    printf ("%-6s %8s %8s %8s %8s %10s %10s %12s\n", "SUs", "GPUs", "switches", "links", "gen_s",
            "routes_s", "tables_MiB", "peak_RSS_MiB");
    for (int i = 0; i < n; i++) {
        WeftRailOptParams p = { .sus = strtoull (sizes[i], NULL, 10),
                                .servers_per_su = 32,
                                .radix = 64,
                                .tiers = 0,
                                .leaf_oversubscription = 1,
                                .spine_oversubscription = 1,
                                .spine_link_rate_bps = 400000000000ull,
                                .core_link_rate_bps = 400000000000ull,
                                .leaf_cable_length_m = 3,
                                .spine_cable_length_m = 20,
                                .core_cable_length_m = 50 };
        GError *err = NULL;
        gint64 t0 = g_get_monotonic_time ();
        WeftGraph *g = weft_topology_railopt (&p, &server, &err);
        if (g == NULL) {
            fprintf (stderr, "%s SUs: %s\n", sizes[i], err->message);
            g_error_free (err);
            return 1;
        }
        gint64 t1 = g_get_monotonic_time ();
        weft_graph_routes_compute (g);
        gint64 t2 = g_get_monotonic_time ();
        guint sw = 0, gpus = 0;
        for (guint v = 0; v < weft_graph_n_nodes (g); v++) {
            sw += weft_graph_node (g, v)->kind == WEFT_NODE_SWITCH;
            gpus += weft_graph_node (g, v)->kind == WEFT_NODE_GPU;
        }
        struct rusage ru;
        getrusage (RUSAGE_SELF, &ru);
        printf ("%-6s %8u %8u %8u %8.3f %10.3f %10.1f %12.1f\n", sizes[i], gpus, sw,
                weft_graph_n_links (g), (t1 - t0) / 1e6, (t2 - t1) / 1e6,
                weft_graph_routes_bytes (g) / 1048576.0, ru.ru_maxrss / 1024.0);
        weft_graph_free (g);
    }
    weft_params_clear (weft_server_params (), &server);
    return 0;
}
