/* models/registry.h - the mechanism registry: one descriptor per network mechanism, one sorted
 * array of them (models/registry.c), and the hooks through which the assembly step (network/),
 * `weft params`, the unknown-group check, the run summary and the trace sampling reach a
 * mechanism without naming it.
 *
 * A mechanism is something a fabric does that a user switches on or tunes from its own
 * experiment-file group: the baseline Ethernet packet format, InfiniBand's credits and VL
 * arbitration, IB congestion control, ECN, DCQCN, PFC, the shared switch buffer, the NICs'
 * processing costs, the transport.  Its descriptor holds its group and parameter table, the
 * fabrics on which the group is accepted, and optional hooks, each called once per run, never
 * per packet:
 *
 *   configure  reads the group into the fabric's configuration (after [fabric]), with the
 *              cross-key validation that needs no network yet
 *   setup      per-port and per-node state, after the ports exist and before the models'
 *              init; it switches the mechanism on where it applies
 *   check      cross-mechanism validation once the network and its workload are built
 *   sample     its trace records, every [trace] interval and once at the end
 *   port_row   its share of a /ports row (PortXmitWait, lossless drops)
 *   count      its counters, summed into WeftNetworkStats
 *   summary    its lines of the run summary (it says "off" itself when that is worth saying)
 *   report     its lines of `weft report`, from a finished trace's data sets and the fabric
 *              configuration rebuilt from the trace's experiment text
 *   clear      frees what configure allocated (called whether or not configure ran)
 *
 * Teardown: the per-port and per-switch state that setup creates hangs off WeftPort and
 * WeftSwitch (a pointer each: port->ib, port->pfc, sw->buffer, sw->cc_markers, sw->ecn_rng),
 * and the port's and switch's own clear frees it with the model, so a build that fails half
 * way leaks nothing; clear here frees the configuration.
 *
 * Per-packet behaviour stays in direct calls on the hot path (switch.c, port.c, nic.c), gated
 * by the per-port or per-switch state that setup creates (a NULL pointer or a flag), never by
 * the fabric's kind and never through an indirect call per packet.
 *
 * Several descriptors may share a group (VL arbitration reads [infiniband], the shared buffer
 * [switch]); `weft params` lists a group once, with every table that reads it.  Adding a
 * mechanism: its file pair, its descriptor at the end of its .c, one line in registry.c's
 * array (doc/adding-a-mechanism.md walks through one).
 */
#ifndef WEFT_MODELS_REGISTRY_H
#define WEFT_MODELS_REGISTRY_H

#include "models/fabric.h"
#include "models/port.h"
#include "models/transport.h"
#include "sim/graph.h"
#include "sim/sim.h"
#include "sim/trace.h"

/* The counters of a run, summed over the network: the engine's (flows, queues, drops) and each
 * mechanism's, filled by its count hook. */
typedef struct {
    guint n_flows, finished;
    guint fct_flows; /* finished flows of flow workloads: what the FCT figures are over */
    double fct_p50_us, fct_p99_us, fct_max_us, slowdown_p99, jain;
    guint64 max_queue_bytes, drops, data_drops, retransmits, timeouts;
    guint64 ooo_discards, dup_discards, unroutable, inflight_data;
    guint64 bytes_delivered, bytes_offered;
    guint64 reorder_count, reorder_max; /* out-of-order arrivals placed (adaptive routing) */
    guint64 packet_hops; /* packets sent on any link (sum of every port's tx_packets) */
    guint64 acks_sent;   /* ACKs and NAKs the receivers sent ([transport] ack_every) */
    /* InfiniBand credits ([infiniband]) */
    guint64 lossless_drops; /* packets without buffer space (a bug: never expected) */
    guint64 xmit_wait_ps;   /* PortXmitWait summed over every port */
    /* InfiniBand congestion control ([ibcc]) */
    guint64 fecn_marked;   /* data packets switches marked with FECN */
    guint64 fecn_received; /* marked data packets that reached their receivers */
    guint64 becn_received; /* BECNs (ACKs carrying one) that reached their senders */
    guint32 ccti_peak;     /* highest CCT index any flow reached */
    /* RoCE: ECN ([ecn]) and DCQCN ([dcqcn]) */
    guint64 ecn_marked;  /* data packets switches marked CE */
    guint64 ce_received; /* CE-marked data packets that reached their receivers */
    guint64 cnps_sent, cnps_received;
    guint64 dcqcn_cuts; /* rate cuts at the senders */
    /* RoCE PFC ([pfc]), summed over ports and priorities */
    guint64 pfc_pauses_sent;     /* PAUSE frames with a pause time (refreshes included) */
    guint64 pfc_resumes_sent;    /* PAUSE frames with pause time 0 */
    guint64 pfc_pauses_received; /* PAUSE frames with a pause time that reached a sender */
    guint64 pfc_paused_ps;       /* time priorities were paused at their egress */
    guint64 pfc_violations;      /* packets dropped above xoff + headroom (lossless violations) */
    guint64 pfc_storms;          /* PFC watchdog: storms declared (port, priority) */
    guint64 pfc_wd_dropped;      /* PFC watchdog (drop): packets it discarded */
    /* shared switch buffers ([switch] buffer_sharing) */
    guint64 buffer_drops_threshold; /* lossy packets over their queue's threshold */
    guint64 buffer_drops_full;      /* packets that found the pool full */
    guint64 buffer_peak_bytes;      /* the highest occupancy of any switch's pool */
    /* Ultra Ethernet ([uet], [nscc]) */
    guint64 uet_trims;         /* data packets fabric switches trimmed */
    guint64 uet_nacks;         /* trim NACKs that reached the senders */
    guint64 nscc_decreases;    /* NSCC multiplicative decreases */
    guint64 nscc_quick_adapts; /* NSCC quick adapts */
} WeftNetworkStats;

/* The most mechanisms one fabric may have (weft_mechanisms_configure asserts it). */
#define WEFT_MECHANISMS_MAX 24

typedef struct WeftMechanism WeftMechanism;

/* What a mechanism's hooks see of the network: filled by the assembly step (network/build.c)
 * as it goes, so configure sees sim, graph, exp, fabric and tp only; setup and later hooks
 * see everything.  Fabric switches are the non-internal WeftSwitch models (models/switch.h). */
typedef struct {
    WeftSim *sim;              /* borrowed */
    const WeftGraph *graph;    /* borrowed */
    WeftFabric *fabric;        /* the run's fabric configuration */
    WeftTransport *tp;         /* the transport and its flows */
    WeftModel **node_model;    /* per graph node; NULL for nodes without a model */
    weft_time_t *node_latency; /* per graph node: its forwarding latency */
    GPtrArray *ports;          /* WeftPort *, every connected port */
    GPtrArray *switches;       /* WeftSwitch *, every switch model (server-internal ones too) */
    GPtrArray *nics;           /* WeftNic *, every host or GPU model */
    const GArray *specs;       /* WeftFlowSpec, the workload's flows (during check only:
                                  emptied once tp.flows hold them) */
    const GPtrArray *workload_names; /* names of the [workload.NAME] groups (from check on) */
    const GArray *colls;             /* WeftCollInstance, the collectives (from check on) */
    WeftTrace *trace;                /* for sample; NULL when the run writes none */
    /* The mechanisms of this fabric, in registry order, NULL-terminated: the ones whose hooks
     * run (weft_mechanisms_configure fills it). */
    const WeftMechanism *mechs[WEFT_MECHANISMS_MAX + 1];
    /* The experiment's groups that only other fabrics' mechanisms read (their keys checked,
     * their values unused), in registry order, NULL-terminated; borrowed from the
     * descriptors. */
    const char *unused_groups[WEFT_MECHANISMS_MAX + 1];
} WeftMechEnv;

/* What `weft report` hands a mechanism of a trace: the data sets it could read (NULL when a
 * data set is absent or unreadable). */
typedef struct {
    const GArray *flows;   /* WeftTraceFlow */
    const GArray *ports;   /* WeftTracePort */
    const GArray *pfc;     /* WeftTracePfcSample */
    const GArray *buffers; /* WeftTraceBufferSample */
} WeftTraceTables;

/* Fabric kinds as bits, for WeftMechanism.fabrics. */
#define WEFT_FABRIC_BIT(kind) (1u << (kind))
#define WEFT_FABRICS_ETHERNET_FAMILY                                                               \
    (WEFT_FABRIC_BIT (WEFT_FABRIC_ETHERNET) | WEFT_FABRIC_BIT (WEFT_FABRIC_ROCE) |                 \
     WEFT_FABRIC_BIT (WEFT_FABRIC_ULTRA_ETHERNET))
#define WEFT_FABRICS_ALL 0xFFu

struct WeftMechanism {
    const char *name;            /* the mechanism: "pfc", "vlarb" */
    const char *group;           /* the experiment-file group it reads: "pfc", "infiniband" */
    const char *help;            /* one line for `weft params` */
    const WeftParamSpec *params; /* {NULL}-terminated, or NULL: the keys it adds to its group */
    guint fabrics;               /* WEFT_FABRIC_BIT()s on which its group may appear */
    gboolean (*configure) (WeftMechEnv *env, const WeftExperiment *exp, GError **error);
    gboolean (*setup) (WeftMechEnv *env, const WeftExperiment *exp, GError **error);
    gboolean (*check) (const WeftMechEnv *env, const WeftExperiment *exp, GError **error);
    void (*sample) (const WeftMechEnv *env, weft_time_t now);
    void (*port_row) (const WeftMechEnv *env, const WeftPort *port, WeftTracePort *row);
    void (*count) (const WeftMechEnv *env, WeftNetworkStats *st);
    void (*summary) (const WeftMechEnv *env, const WeftNetworkStats *st, GString *out);
    void (*report) (const WeftFabric *fabric, const WeftTraceTables *t, GString *out);
    void (*clear) (WeftMechEnv *env);
};

/* The descriptors, each defined at the end of its mechanism's .c. */
extern const WeftMechanism weft_ethernet_mechanism;   /* models/fabric.c */
extern const WeftMechanism weft_infiniband_mechanism; /* models/infiniband.c: credits */
extern const WeftMechanism weft_vlarb_mechanism;      /* models/vlarb.c */
extern const WeftMechanism weft_ibcc_mechanism;       /* models/ibcc.c */
extern const WeftMechanism weft_dcqcn_mechanism;      /* models/dcqcn.c */
extern const WeftMechanism weft_uet_mechanism;        /* models/uet.c */
extern const WeftMechanism weft_nscc_mechanism;       /* models/nscc.c */
extern const WeftMechanism weft_rccc_mechanism;       /* models/rccc.c */
extern const WeftMechanism weft_ecn_mechanism;        /* models/ecn.c */
extern const WeftMechanism weft_pfc_mechanism;        /* models/pfc.c */
extern const WeftMechanism weft_switch_mechanism;     /* models/switch.c */
extern const WeftMechanism weft_buffer_mechanism;     /* models/buffer.c */
extern const WeftMechanism weft_nic_mechanism;        /* models/nic.c: [nic] */
extern const WeftMechanism weft_transport_mechanism;  /* models/transport.c */
extern const WeftMechanism weft_sm_mechanism;         /* models/sm.c: [routing] */
extern const WeftMechanism weft_fault_mechanism;      /* models/fault.c: [fault.NAME] */
extern const WeftMechanism weft_frn_mechanism;        /* models/frn.c: [routing] */

/* Every mechanism, in the order their hooks run and their summary lines print; NULL-terminated. */
extern const WeftMechanism *const weft_mechanisms[];

/* Whether @mech's group is accepted on the fabric @kind (its hooks run only there). */
static inline gboolean
weft_mechanism_applies (const WeftMechanism *mech, int kind)
{
    return (mech->fabrics & WEFT_FABRIC_BIT (kind)) != 0;
}

/* For the fabric env->fabric->kind (read from [fabric]): fills env->mechs and runs their
 * configure hooks in order.  A group that only other fabrics' mechanisms read is accepted, so
 * that one experiment may carry the groups of several fabrics (a comparison switched by
 * `--set fabric:kind=...`): its keys are still checked against those mechanisms' tables, and
 * it is listed in env->unused_groups.  Errors name the file, group and key
 * (WEFT_CONFIG_ERROR). */
gboolean weft_mechanisms_configure (WeftMechEnv *env, const WeftExperiment *exp, GError **error);

/* Appends "  unused       [pfc] [dcqcn] (not used with [fabric] kind = ...)" to @out when the
 * experiment carried other fabrics' groups (env->unused_groups); nothing otherwise. */
void weft_mechanisms_unused_line (const WeftMechEnv *env, GString *out);

/* Runs the clear hooks of env->mechs (whether or not their configure ran, or succeeded). */
void weft_mechanisms_clear (WeftMechEnv *env);


#endif /* WEFT_MODELS_REGISTRY_H */
