/* topologies/topology.h - the topology generators and the one entry point that builds the
 * fabric graph of an experiment.
 *
 * [topology] generator = NAME picks a generator; every generator's keys live in [topology] too,
 * declared in its parameter table (plus the common keys below), so `weft params topology.NAME`
 * can list them and an unknown key is an error.  Generators are pure functions from a params
 * struct to a WeftGraph; weft_topology_build reads the parameters, runs the generator, computes
 * the route tables (sim/graph.h) and applies an optional forwarding-table file.  Every
 * generator but the file one also gives the size of its graph from the parameters alone
 * (weft_topology_size), so that a run can be refused before a fabric too large is built.
 *
 * Common keys (every generator):
 *   generator          the generator name (required)
 *   routing_engine     dmodk (default), minhop (topologies/minhop.h) or updn
 *                      (topologies/updn.h): static route choice
 *   forwarding_table   optional file of static routes to replay (topologies/lft.h format)
 * Generators that build servers also read the [server] group (topologies/server.h).
 */
#ifndef WEFT_TOPOLOGIES_TOPOLOGY_H
#define WEFT_TOPOLOGIES_TOPOLOGY_H

#include "sim/experiment.h"
#include "sim/graph.h"
#include "sim/params.h"

typedef struct {
    const char *name;            /* the value of [topology] generator */
    const char *help;            /* one line for `weft params` */
    const WeftParamSpec *params; /* its [topology] keys, {NULL}-terminated (not the common ones) */
    gsize params_size;           /* sizeof its params struct */
    gboolean uses_server;        /* also reads [server] */
    /* @params: the struct @spec describes; @server: the [server] struct or NULL.  Returns a
     * graph without routes, or NULL with an error (WEFT_TOPO_ERROR_PARAM, message starting
     * "[group] key: "). */
    WeftGraph *(*generate) (const void *params, const void *server, const char *exp_dir,
                            GError **error);
    /* The counts of the graph generate would make, without building it (the same errors); NULL
     * when they cannot be known before (a topology file). */
    gboolean (*size) (const void *params, const void *server, WeftGraphSize *out, GError **error);
} WeftTopologyGenerator;

/* NULL-terminated, sorted by name.  (transfer none) */
const WeftTopologyGenerator *const *weft_topology_generators (void);
/* By name, or NULL.  (transfer none) */
const WeftTopologyGenerator *weft_topology_generator_lookup (const char *name);
/* The keys every generator accepts in [topology] (generator, forwarding_table). */
const WeftParamSpec *weft_topology_common_params (void);

/**
 * weft_topology_build:
 * Builds the fabric of @exp: reads [topology] (and [server] when the generator uses it),
 * generates, computes routes, and loads the forwarding table if one is named.  Errors:
 * WEFT_CONFIG_ERROR_* for missing, unknown or malformed keys (from sim/params.h), and
 * WEFT_TOPO_ERROR_* for parameters no fabric satisfies or bad topology/forwarding files; every
 * message is "FILE: [group] key: what is wrong, what would fit".  Both mean bad input (exit 2).
 * (transfer full)
 */
WeftGraph *weft_topology_build (const WeftExperiment *exp, GError **error);

/* weft_topology_build in two steps, so that the graph can be measured before its routes are
 * computed: the generator's graph without routes, then the routes, routing engine and
 * forwarding table.  The same errors.  (transfer full) */
WeftGraph *weft_topology_generate (const WeftExperiment *exp, GError **error);
gboolean weft_topology_route (WeftGraph *g, const WeftExperiment *exp, GError **error);

/* A subnet manager's sweep (models/sm.h): the routes of @g computed again by @exp's routing
 * engine, around the links cut in @g (weft_graph_set_link_cut); a forwarding_table file is not
 * replayed (the subnet manager writes its own tables).  The route tables are freed before the
 * new ones are built, so a sweep needs no more memory than the first computation.  The errors
 * of weft_topology_build's [topology] reading (none once that has succeeded). */
gboolean weft_topology_reroute (WeftGraph *g, const WeftExperiment *exp, GError **error);

/**
 * weft_topology_size:
 * The counts of the graph @exp's [topology] would build, from the parameters alone, as
 * weft_graph_measure would count them: TRUE with *@known FALSE when the generator cannot tell
 * before building (a topology file), FALSE on bad parameters (the errors of
 * weft_topology_build).
 */
gboolean weft_topology_size (const WeftExperiment *exp, WeftGraphSize *out, gboolean *known,
                             GError **error);

/* Bytes the routing engine and the forwarding table of @exp add to the route tables of a graph
 * of size @s: minhop and updn override nearly every (switch, destination) route (2 bytes each,
 * and updn keeps 8 bytes per (switch, group) of hop counts); a forwarding table file, about
 * twice its size in hashed overrides.  0 with D-mod-k and no file. */
guint64 weft_topology_engine_bytes (const WeftExperiment *exp, const WeftGraphSize *s);

#endif /* WEFT_TOPOLOGIES_TOPOLOGY_H */
