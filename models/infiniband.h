/* models/infiniband.h - the [infiniband] group: InfiniBand's packet format, virtual lanes,
 * service levels, buffers and VL arbitration tables.
 *
 * Packet format (IBA Vol 1 ch. 5-9): a data packet carries LRH 8 + BTH 12 + ICRC 4 + VCRC 2 =
 * 26 bytes around its payload (the RETH of a message's first packet is ignored); an ACK is
 * LRH + BTH + AETH 4 + ICRC + VCRC = 30 bytes; a flow-control packet is 6 bytes (4 + LPCRC 2).
 * Credits count 64-byte blocks by default (IBA 7.9.4), a parameter because newer firmware
 * negotiates it per link: a 4096-byte payload needs ceil(4122 / 64) = 65 credits.
 *
 * Inside a server the NVLink and PCIe links are credit-based too; their ports get
 * `internal_buffer` per VL, by default enough for NVLink's rate times its round trip, so the
 * scale-up network is not slowed by credits it would not run out of in hardware.
 *
 * Virtual lanes: `vls` data VLs (1 to 15; VL15, management, is not modelled).  A flow's
 * service level (its workload's `sl`) maps to a VL through the SL-to-VL table of each output
 * port it leaves by: `sl2vl` for every port, overridden per port by `sl2vl_file` (lines
 * `NODE PORT VL0;VL1;...`, PORT from 1 or `*` for all of the node's ports; IBA keeps a table
 * per input/output pair on switches - one per output port is modelled).  A packet holds its
 * input buffer on the VL it arrived on and leaves on the VL of its output.  Buffers: `buffer` bytes
 * per VL at each switch input port, `hca_buffer` per VL at a host channel adapter; the receiver
 * advertises them as credits.  Arbitration between VLs at every output: models/vlarb.h.
 */
#ifndef WEFT_MODELS_INFINIBAND_H
#define WEFT_MODELS_INFINIBAND_H

#include "sim/params.h"

#define WEFT_IB_MAX_VLS 15
#define WEFT_IB_SLS 16
#define WEFT_IB_ARB_ENTRIES 64

typedef struct {
    guint8 vl;
    guint8 weight; /* in 64-byte units; 0 skips the entry */
} WeftIbArbEntry;

/* One line of an sl2vl_file: the table of a node's output port (port 0: every port). */
typedef struct {
    char *node;
    guint32 port; /* from 1; 0 for '*' */
    guint line;
    guint8 sl2vl[WEFT_IB_SLS];
} WeftIbSl2VlEntry;

typedef struct {
    /* [infiniband] parameters */
    guint64 vls;
    guint64 credit_unit;
    guint64 buffer;          /* per VL per switch input port, bytes */
    guint64 hca_buffer;      /* per VL at an HCA, bytes */
    guint64 internal_buffer; /* per VL on NVLink and PCIe ports, bytes */
    guint64 shared_buffer;   /* per fabric switch, lent to busy input VLs; 0: none */
    guint64 header, ack_bytes, fc_bytes;
    char **sl2vl_text;
    char *sl2vl_file;
    char *sl2vl_path;    /* resolved against the experiment file */
    GArray *sl2vl_ports; /* WeftIbSl2VlEntry, from sl2vl_file */
    char **arb_high_text, **arb_low_text;
    guint64 high_limit; /* 4 KiB units of high-priority data before a low-priority packet; 255:
                           unlimited */
    gboolean sharp;     /* SHARP: the fabric switches aggregate (topologies make them endpoints,
                           weft_topology_route; workloads/collective.h, CollNetDirect) */
    /* Resolved */
    guint8 sl2vl[WEFT_IB_SLS];
    WeftIbArbEntry high[WEFT_IB_ARB_ENTRIES], low[WEFT_IB_ARB_ENTRIES];
    guint n_high, n_low;
    guint32 buffer_credits, hca_credits, internal_credits, shared_credits, max_packet_credits;
} WeftIbConfig;

extern const WeftParamSpec weft_infiniband_params[];

/* Reads and checks [infiniband] for packets of at most @mtu payload (every buffer must hold
 * one whole packet). */
gboolean weft_ib_config_read (WeftIbConfig *ib, guint64 mtu, const WeftExperiment *exp,
                              GError **error);
void weft_ib_config_clear (WeftIbConfig *ib);

/* Credits a packet of @wire_bytes takes. */
static inline guint32
weft_ib_credits (const WeftIbConfig *ib, guint32 wire_bytes)
{
    return (guint32) ((wire_bytes + ib->credit_unit - 1) / ib->credit_unit);
}

#endif /* WEFT_MODELS_INFINIBAND_H */
