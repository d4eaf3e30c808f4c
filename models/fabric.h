/* models/fabric.h - the [fabric] group: which link layer, packet format and path choice.
 *
 * This version models one fabric, `ethernet`: a baseline lossy Ethernet with tail-drop queues
 * and no link-level flow control or congestion control, that the InfiniBand, RoCE and Ultra
 * Ethernet fabrics will replace.  Their names are reserved and refused as not implemented yet.
 *
 * Packet format: `mtu` is the largest payload; a packet on the wire is payload + `header`
 * bytes.  The default header, 82 B, is RoCEv2's per-packet cost on Ethernet: Ethernet 14 +
 * IPv4 20 + UDP 8 + BTH 12 + ICRC 4 + FCS 4 = 62 B of frame, plus 20 B of preamble, start
 * delimiter and inter-frame gap that take wire time (IEEE 802.3; IBA Annex A17).  An ACK is a
 * minimum frame: 64 B + 20 B = 84 B.
 */
#ifndef WEFT_MODELS_FABRIC_H
#define WEFT_MODELS_FABRIC_H

#include "sim/params.h"

typedef enum { WEFT_FABRIC_ETHERNET, WEFT_FABRIC_INFINIBAND, WEFT_FABRIC_ROCE, WEFT_FABRIC_UEC } WeftFabricKind;
typedef enum { WEFT_ROUTING_ECMP, WEFT_ROUTING_STATIC } WeftRoutingKind;

typedef struct {
    int kind;          /* WeftFabricKind */
    int routing;       /* WeftRoutingKind */
    guint64 mtu;       /* largest payload, bytes */
    guint64 header;    /* wire bytes added to every data packet */
    guint64 ack_bytes; /* wire bytes of an ACK */
} WeftFabric;

extern const WeftParamSpec weft_fabric_params[];

/* Reads [fabric]; refuses fabrics that are not implemented yet. */
gboolean weft_fabric_read (WeftFabric *fabric, const WeftExperiment *exp, GError **error);

#endif /* WEFT_MODELS_FABRIC_H */
