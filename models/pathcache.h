/* models/pathcache.h - the route walks of a run's flows, remembered per (source, destination).
 *
 * A flow's path is walked hop by hop before the run (its ideal FCT and feed rate, both ways)
 * and again when its /paths rows are written; a collective's chunk transfers repeat the same
 * few (source, destination) pairs millions of times (the flagship sweep: 2.1 million flows).
 * The walk's answer is a function of the source node, the destination endpoint, the walk's
 * mode (minimal paths, or the configured routing), the route tables (their generation,
 * weft_graph_routes_generation: moved on by every recomputation, override or drop, as a
 * subnet manager's reroute after a link failure does) and, only where a node on the way picks
 * among more than one port by the flow's hash, that hash.  The cache keeps the others as its
 * key and answers only walks that do not depend on the hash, so a hit is the walk's own
 * answer:
 *  - an entry holds the hops (node, port, link), at most WEFT_PATH_CACHE_HOPS of them; a longer
 *    walk, or one that fails, is not cached (the caller walks it);
 *  - a walk that consulted the hash (a node on the way picked among several ports by it) is
 *    handed to its caller once and then kept as a marker: the pair's later walks are walked,
 *    not looked up (every flow has its own hash - its own UDP source port - so an entry per
 *    hash would never be found again).  Whether a walk consults the hash does not depend on
 *    the hash: up to the first node that picks by it, the path is the same for every hash;
 *  - memos of the path's first-packet latency for two packet sizes (data, and the ACKs of the
 *    reverse flow) and one WeftPathEnv ride on each entry (models/transport.c, path_latency).
 * Bounded: a table of at most WEFT_PATH_CACHE_SLOTS entries (336 bytes each, so 336 KiB at
 * most, per transport), sized to the run's flows below that, in sets of WEFT_PATH_CACHE_WAYS; a
 * new walk takes the least recently used entry of its set.  Never pairs x hosts.  The transport
 * does not use it where routing is adaptive or packets are sprayed (models/transport.c).
 */
#ifndef WEFT_MODELS_PATHCACHE_H
#define WEFT_MODELS_PATHCACHE_H

#include <glib.h>

#include "sim/time.h"

#define WEFT_PATH_CACHE_HOPS 16
#define WEFT_PATH_CACHE_SLOTS 1024u
#define WEFT_PATH_CACHE_WAYS 4u

/* What is walked: the path the configured routing takes, the minimal paths' (hashed as ECMP
 * would, the ideal FCT's path), or the sending endpoint's first port alone
 * (weft_transport_first_hop). */
typedef enum { WEFT_PATH_ROUTED, WEFT_PATH_MINIMAL, WEFT_PATH_FIRST_HOP } WeftPathMode;

typedef struct {
    guint32 node, port, link; /* the node left, by which port (0-based), over which link */
} WeftPathHop;

/* The first packet's latency along the path and the rates that ride with it (path_latency). */
typedef struct {
    const void *env_a, *env_b; /* the WeftPathEnv arrays it was summed with */
    guint32 wire;              /* wire bytes of that first packet */
    gboolean valid, fabric;
    weft_time_t latency;
    guint64 min_rate, feed_rate;
} WeftPathSum;

typedef struct {
    guint64 gen;    /* the route tables' generation it was walked in */
    guint32 from;   /* source node */
    guint32 to_ep;  /* destination endpoint */
    guint32 stamp;  /* its last use (WeftPathCache.clock) */
    guint8 used;    /* holds an answer */
    guint8 mode;    /* WeftPathMode */
    guint8 by_hash; /* a marker: this pair's walk picks by hash (its hops were one flow's) */
    guint32 n_hops;
    guint32 sum_next;   /* the memo the next new sum replaces */
    WeftPathSum sum[2]; /* a pair's data packets and, the other way, its reverse's ACKs */
    WeftPathHop hops[WEFT_PATH_CACHE_HOPS];
} WeftPathEntry;

typedef struct {
    WeftPathEntry *slots;
    guint32 set_mask;              /* sets - 1 (a power of two); WEFT_PATH_CACHE_WAYS slots a set */
    guint32 clock;                 /* stamps the entries' last use */
    guint64 hits, misses, by_hash; /* answered, walked, left to the caller (markers) */
} WeftPathCache;

/* A cache of a power of two of slots, at least 16, about 4 per flow of @n_flows, at most
 * WEFT_PATH_CACHE_SLOTS. */
WeftPathCache *weft_path_cache_new (guint n_flows);
void weft_path_cache_free (WeftPathCache *pc);
/* Its slots. */
guint weft_path_cache_slots (const WeftPathCache *pc);
/* Bytes it holds. */
gsize weft_path_cache_bytes (const WeftPathCache *pc);

/* The entry holding the answer (or the marker) for this key in the route tables' generation
 * @gen, marked used now; NULL when there is none. */
WeftPathEntry *weft_path_cache_find (WeftPathCache *pc, guint64 gen, guint32 from, guint32 to_ep,
                                     WeftPathMode mode);

/* A slot for this key, emptied and given the key (no hops, no sums, marked used now): in the
 * key's set, one that holds nothing of generation @gen, else the least recently used. */
WeftPathEntry *weft_path_cache_claim (WeftPathCache *pc, guint64 gen, guint32 from, guint32 to_ep,
                                      WeftPathMode mode);

#endif /* WEFT_MODELS_PATHCACHE_H */
