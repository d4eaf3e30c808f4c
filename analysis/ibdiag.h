/* analysis/ibdiag.h - the operators' tools over a finished run's trace: ibstat, perfquery and a
 * ranking of the worst links (`weft diag`, doc/faults.md "Diagnosis").
 *
 * Everything comes from three data sets: /topology/nodes, /topology/links (the rate each link
 * was built with: its nominal rate) and /ports (each connected port's final counters and
 * state).  Nothing of the simulation is consulted.
 *
 * Layouts, from infiniband-diags (rdma-core: infiniband-diags/ibstat.c, perfquery.c and
 * libibmad's field table and dump functions, man ibstat(8) and perfquery(8)):
 *
 *   ibstat, per channel adapter (a NIC, or a host's own HCA), tab-indented:
 *       CA 'mlx5_3'
 *       <TAB>CA type: MT4129
 *       <TAB>Number of ports: 1
 *       <TAB>Firmware version: ...
 *       <TAB>Hardware version: 0
 *       <TAB>Node GUID: 0x%016x
 *       <TAB>System image GUID: 0x%016x
 *       <TAB>Port 1:
 *       <TAB><TAB>State: Active            (Down, Initializing, Armed, Active; ??? otherwise)
 *       <TAB><TAB>Physical state: LinkUp   (Sleep, Polling, Disabled, ... LinkUp ...)
 *       <TAB><TAB>Rate: 400                (Gb/s; 2.5 printed as such)
 *       <TAB><TAB>Base lid: N / LMC: 0 / SM lid: N / Capability mask: 0x%08x
 *       <TAB><TAB>Port GUID: 0x%016x / Link layer: InfiniBand
 *   perfquery, one port: "# Port counters: Lid N port N (CapMask: 0x%02X)" then one line per
 *   PortCounters field, "Name:" padded with dots to 33 characters, then the value (hex fields
 *   as 0x and two hex digits per byte); -x: "# Port extended counters: Lid N port N (CapMask:
 *   0x%02X CapMask2: 0x%07X)" and the PortCountersExtended fields.  The basic counters
 *   saturate at their width, as the IB specification says (they stop at all ones): 16 bits
 *   for SymbolErrorCounter, PortRcvErrors and PortXmitDiscards, 8 for LinkDownedCounter, 32
 *   for the data and packet counters.  PortXmitData and PortRcvData count octets divided by 4.
 *
 * Values weft does not model are derived, the same for the same trace: LIDs numbered from 1
 * over switches (one each) and CA ports in node order, the subnet manager at LID 1; GUIDs
 * 0x77656674 ("weft") in the top 32 bits and the node id above the port number below; a CA
 * type from the port's nominal rate (MT4129 ConnectX-7 at 400 Gb/s, MT4123 ConnectX-6 at 200,
 * MT4119 ConnectX-5 at 100 and below); fixed capability masks; PortXmitWait in nanoseconds
 * (IB leaves the tick to the implementation).  A CA port numbers its fabric ports from 1, as
 * the HCA does; weft's NODE:PORT names count the NIC's PCIe port too (dgx-2/mlx5_3:2 is
 * mlx5_3's port 1).
 */
#ifndef WEFT_ANALYSIS_IBDIAG_H
#define WEFT_ANALYSIS_IBDIAG_H

#include <glib.h>

#include "sim/trace_schema.h"

#define WEFT_IBDIAG_ERROR (weft_ibdiag_error_quark ())
GQuark weft_ibdiag_error_quark (void);
typedef enum {
    WEFT_IBDIAG_ERROR_NAME, /* no such node, CA or port in the trace */
} WeftIbdiagError;

typedef struct WeftIbdiag WeftIbdiag;

/* A diagnosis over @nodes (WeftTraceNode), @links (WeftTraceLink) and @ports (WeftTracePort)
 * of one trace, which ran for @sim_time_ps; @firmware is what ibstat prints as the firmware
 * version.  (transfer full of the arrays) */
WeftIbdiag *weft_ibdiag_new (GArray *nodes, GArray *links, GArray *ports, guint64 sim_time_ps,
                             const char *firmware);
void weft_ibdiag_free (WeftIbdiag *d);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WeftIbdiag, weft_ibdiag_free)

/* Marks the NICs a nic-removed fault took out of their servers at or before @at_ps, from the
 * trace's @faults rows (WeftTraceFault; may be NULL): ibstat no longer lists them. */
void weft_ibdiag_mark_removed (WeftIbdiag *d, const GArray *faults, guint64 at_ps);

/* ibstat for every channel adapter whose node name is @filter, or starts with "@filter/" (a
 * server), or every one when @filter is NULL, but a NIC removed from its server
 * (weft_ibdiag_mark_removed), which ibstat on that server would not see.  With adapters of
 * more than one server, each server's adapters follow a "# SERVER" line (ibstat runs on one
 * host).  FALSE with WEFT_IBDIAG_ERROR_NAME when nothing matches (saying so when @filter names
 * a removed NIC). */
gboolean weft_ibdiag_ibstat (const WeftIbdiag *d, const char *filter, GString *out, GError **error);

/* perfquery (or perfquery -x with @extended) for one port: NODE:PORT in weft's numbering, or
 * a CA's name alone for its one fabric port. */
gboolean weft_ibdiag_perfquery (const WeftIbdiag *d, const char *port, gboolean extended,
                                GString *out, GError **error);

/* The fabric links ranked worst first (at most @n; 0: all), one line each with the reason.
 * Badness, compared in this order, larger first:
 *   1. error counters of both ends: SymbolErrorCounter + PortRcvErrors + LinkDownedCounter
 *   2. rate below nominal: 1 - (the lower end's rate) / (the link's built rate)
 *   3. Down at the end of the run
 *   4. transmit wait: the larger end's PortXmitWait over the run's time
 *   5. utilisation off its peers': |u - median| / median, u the busier direction's bytes over
 *      the nominal rate and the run's time, the median over links of the same tier
 *      (nic-leaf, leaf-spine, ...)
 * then the link id. */
void weft_ibdiag_links_worst (const WeftIbdiag *d, guint n, GString *out);

/* `--at TIME`: rewrites @ports (WeftTracePort rows of the same trace, from /ports) to what
 * they were at @at_ps, from the trace's samples: the data counters (PortXmitData and
 * PortRcvData, packets, PortXmitDiscards, PortXmitWait, ECN marks, trims; the largest queue)
 * summed over the /links intervals (@samples, WeftTraceLinkSample; a port receives what its
 * peer sent) that ended at or before @at_ps, busy time = those bytes at the nominal rate;
 * LinkDownedCounter, PortRcvErrors and SymbolErrorCounter summed the same way (schema 10) or
 * as the last /faults row (@faults, WeftTraceFault) of its link at or before @at_ps left them,
 * whichever is larger (the more recent); state, physical state and rate as that row left
 * them, Active at the nominal rate without one.  Counters no sample carries (lossless drops, LLR
 * replays) read 0.  Returns the last /links sample time at or before @at_ps (0: none). */
guint64 weft_ibdiag_ports_at (GArray *ports, const GArray *links, const GArray *samples,
                              const GArray *faults, guint64 at_ps);

/* `weft diag check`, a fabric check in the manner of ibdiagnet: the error counters a port may
 * show before it is reported (a port is reported when one exceeds its threshold).  The
 * defaults are 0, as ibqueryerrors(8) has them ("The default threshold is zero (0)"). */
typedef struct {
    guint64 symbol_errors; /* SymbolErrorCounter */
    guint64 link_downed;   /* LinkDownedCounter */
    guint64 rcv_errors;    /* PortRcvErrors */
    guint64 xmit_discards; /* PortXmitDiscards */
} WeftIbdiagThresholds;

/* Sets one threshold from "NAME=N", NAME as perfquery prints it (SymbolErrorCounter,
 * LinkDownedCounter, PortRcvErrors, PortXmitDiscards); FALSE with WEFT_IBDIAG_ERROR_NAME for
 * an unknown name or a value that is no number. */
gboolean weft_ibdiag_threshold_set (WeftIbdiagThresholds *t, const char *text, GError **error);

/* The fabric check, one report: every fabric link whose rate (the lower of its ends') differs
 * from its tier's (the rate most links of the same tier were built with: nic-leaf,
 * leaf-spine, ...), every port whose error counters exceed @t, every cabled fabric port not
 * Active (each of them should be).  Returns the number of problems found (0: clean). */
guint weft_ibdiag_check (const WeftIbdiag *d, const WeftIbdiagThresholds *t, GString *out);

/* perfquery's padding: "@name:" and dots to 33 characters, then @value and a newline. */
void weft_ibdiag_field (GString *out, const char *name, const char *value);

#endif /* WEFT_ANALYSIS_IBDIAG_H */
