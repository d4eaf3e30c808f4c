/* sim/packet.h - packets and the pool they come from.
 *
 * Exactly one owner at a time: a queue, a wire (a link's in-flight FIFO), a model's hands
 * during receive.  Sending, receiving and enqueueing move ownership; whoever drops a packet
 * releases it.  No reference counts.  The pool grows in slabs and never frees mid-run, so a
 * hop costs no malloc; debug builds poison released packets (kind = WEFT_PKT_FREED) so a use
 * after release trips an assertion.  weft_packet_pool_live() counts packets not in the pool;
 * tests assert it is 0 once a run is torn down.
 */
#ifndef WEFT_SIM_PACKET_H
#define WEFT_SIM_PACKET_H

#include <glib.h>

#include "sim/time.h"

typedef enum {
    WEFT_PKT_DATA = 1,
    WEFT_PKT_ACK,
    WEFT_PKT_NACK,
    WEFT_PKT_CREDIT,       /* InfiniBand flow-control packet: seq carries the credits returned */
    WEFT_PKT_CNP,          /* RoCE congestion notification, receiver to sender (models/dcqcn.h) */
    WEFT_PKT_CREDIT_REQ,   /* Ultra Ethernet RCCC credit request, sender to receiver */
    WEFT_PKT_PULL,         /* Ultra Ethernet RCCC credit grant, receiver to sender (rccc.h) */
    WEFT_PKT_FREED = 0xff, /* poison: a released packet */
} WeftPacketKind;

/* Hot fields first: what every hop reads (the wire, the switch's route lookup, the port's
 * queues) lies in the first 64 bytes, and packets are aligned to a cache line (the pool
 * aligns its slabs), so forwarding a packet that has gone cold costs one cache miss, not the
 * two or three of an unaligned 88-byte packet.  The endpoints' fields follow. */
typedef struct WeftPacket {
    _Alignas(64) struct WeftPacket *next; /* intrusive link: the pool free list or one FIFO,
                                             never both */
    weft_time_t arrive_at; /* on a wire: when it is handed to the receiver (its last bit, or
                              its header for a cut-through switch, plus forwarding latency) */
    weft_time_t tail_at;   /* when its last bit has arrived there (cut-through: a switch
                              cannot finish sending it earlier) */
    guint32 size;          /* bytes on the wire: payload + headers */
    guint32 dst_ep;        /* destination endpoint index (route lookups) */
    guint32 hash;          /* flow entropy for ECMP (the 5-tuple's hash) */
    guint32 dst;           /* node id of the destination */
    guint16 in_port;       /* set by the link: port of the receiver it arrives on */
    guint8 kind;
    guint8 prio;           /* traffic class: 0 is served first */
    guint8 retransmit : 1; /* 1 for a retransmitted copy */
    guint8 fecn : 1;       /* InfiniBand DATA: a switch saw congestion (models/ibcc.h) */
    guint8 becn : 1;       /* InfiniBand ACK/NAK: the data it answers carried FECN */
    guint8 ce : 1;         /* DATA: ECN Congestion Experienced (models/ecn.h); an Ultra
                              Ethernet ACK: the echo of its data packet's mark */
    guint8 trimmed : 1;    /* Ultra Ethernet DATA: cut to its header by a switch (models/uet.h) */
    guint8 nic_path : 1;   /* its flow's WeftFlow.nic_path: the receiving NIC's pipeline applies
                              (models/nic.c) - known without loading the flow's record */
    guint8 hop;            /* links crossed so far */
    guint8 vl;             /* InfiniBand virtual lane it travels on now (0 elsewhere) */
    guint8 in_vl;          /* the VL it arrived on at the node holding it (its buffer) */
    guint8 sl;             /* InfiniBand service level of its flow */
    guint32 flow;          /* flow index in the run's flow table: in this line, so that the
                              receiving NIC can start loading the flow's record at once */
    weft_time_t next_at;   /* on a wire: the arrive_at of the packet behind it, set as that one
                              joins the wire, so that this one's arrival schedules the next
                              without loading a packet that has gone cold (models/link.c) */
    /* -- read at the endpoints -- */
    guint32 src;         /* node id of the source */
    guint32 payload;     /* application bytes carried */
    guint64 seq;         /* DATA: packet sequence number; ACK: cumulative next expected */
    weft_time_t sent_at; /* DATA: when the sender's transport emitted it (RTT samples) */
    guint64 sack;        /* Ultra Ethernet RUD ACK or NACK: the data packet it answers */
    guint16 ev;          /* Ultra Ethernet: the entropy value it was sprayed on (echoed back) */
    guint64 credit;      /* RCCC (models/rccc.h): a DATA packet's or credit request's credit
                            target; a pull's cumulative grant (packets) */
} WeftPacket;

G_STATIC_ASSERT (G_STRUCT_OFFSET (WeftPacket, next_at) + sizeof (weft_time_t) <= 64);
G_STATIC_ASSERT (G_STRUCT_OFFSET (WeftPacket, flow) + sizeof (guint32) <= 64);
G_STATIC_ASSERT (sizeof (WeftPacket) == 128); /* two cache lines, the endpoints' in the second */

typedef struct {
    WeftPacket *free_list;
    GPtrArray *slabs;
    guint64 live;  /* allocated and not released */
    guint64 total; /* packets in all slabs */
} WeftPacketPool;

void weft_packet_pool_init (WeftPacketPool *pool);
/* Frees every slab; packets still live become invalid (callers release theirs first). */
void weft_packet_pool_clear (WeftPacketPool *pool);
void weft_packet_pool_grow (WeftPacketPool *pool);

static inline guint64
weft_packet_pool_live (const WeftPacketPool *pool)
{
    return pool->live;
}

/** A zeroed packet from the pool.  (transfer full) */
static inline WeftPacket *
weft_packet_alloc (WeftPacketPool *pool)
{
    if (G_UNLIKELY (pool->free_list == NULL))
        weft_packet_pool_grow (pool);
    WeftPacket *p = pool->free_list;
    pool->free_list = p->next;
    pool->live++;
    *p = (WeftPacket){ 0 };
    return p;
}

/** Returns @p to the pool.  (transfer full) */
static inline void
weft_packet_release (WeftPacketPool *pool, WeftPacket *p)
{
#ifndef G_DISABLE_ASSERT
    g_assert (p->kind != WEFT_PKT_FREED);
    p->kind = WEFT_PKT_FREED;
#endif
    p->next = pool->free_list;
    pool->free_list = p;
    pool->live--;
}

/* A FIFO of packets linked through ->next. */
typedef struct {
    WeftPacket *head, *tail;
    guint32 packets;
    guint64 bytes;
} WeftPacketFifo;

static inline void
weft_fifo_push (WeftPacketFifo *f, WeftPacket *p)
{
    p->next = NULL;
    if (f->tail)
        f->tail->next = p;
    else
        f->head = p;
    f->tail = p;
    f->packets++;
    f->bytes += p->size;
}

static inline WeftPacket *
weft_fifo_pop (WeftPacketFifo *f)
{
    WeftPacket *p = f->head;
    if (p) {
        f->head = p->next;
        if (!f->head)
            f->tail = NULL;
        f->packets--;
        f->bytes -= p->size;
        p->next = NULL;
    }
    return p;
}

/* Releases every packet of @f to @pool. */
void weft_fifo_release_all (WeftPacketFifo *f, WeftPacketPool *pool);

#endif /* WEFT_SIM_PACKET_H */
