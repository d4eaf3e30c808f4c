#include "config.h"
#define G_LOG_DOMAIN "weft-window"
#include "network/window.h"

#include <string.h>

#include "models/fault.h"
#include "models/nic.h"
#include "sim/event.h"
#include "sim/units.h"

/* A packet crossing to another rank: the slot of its wire (graph link * 2 + direction), then
 * the packet by value (its FIFO link is meaningless there and reset). */
typedef struct {
    guint32 slot;
    guint32 pad;
} RecordHead;

#define RECORD_BYTES (sizeof (RecordHead) + sizeof (WeftPacket))

/* A collective's flows delivered on one rank in one window: how many, and the latest of them
 * by (time, key) (sent in a record's packet bytes). */
typedef struct {
    guint64 count;
    weft_time_t last_at;
    guint64 last_key;
} CollCount;
G_STATIC_ASSERT (sizeof (CollCount) <= sizeof (WeftPacket));

struct _WeftWindow {
    WeftNetwork *net;
    WeftSim *sim;
    const WeftParallel *par;
    const guint32 *rank_of; /* borrowed from the partition */
    weft_time_t lookahead;
    guint n_slots;
    WeftPort **port_of_slot; /* the sending port of every wire, on this rank's copy */
    GByteArray **out;        /* per rank: this window's packets for it */
    GByteArray *in;
    guint64 crossed, crossed_ctl, windows;
    guint64 watchdogs; /* one process's watchdog events (weft_window_run) */
    /* The sender's columns of the /flows rows of flows sent here and received on another
     * rank (cli/run.c): each such flow's row at the start of the window (snap), until the
     * receiver's rank says it finished; then the row at the end of that window, frozen. */
    WeftTraceFlow *snap;
    guint8 *frozen;    /* FROZEN, FROZEN_SENT once gathered (weft_window_sender_rows) */
    GArray *fresh;     /* guint32 ids of the flows frozen since the last gather */
    guint8 *notified;  /* flows received here, sent elsewhere: their finish was posted */
    guint64 seen_done; /* tp->flows_done at the last look */
    guint64 unsure;    /* frozen rows whose sender columns changed in their window */
    /* Flow dependencies and collectives across ranks (cross_setup): per collective, its flows
     * delivered here in this window (mine) and over all ranks (all), and which have any. */
    CollCount *coll_mine, *coll_all;
    GArray *coll_touched, *coll_seen; /* guint32 collective ids */
    /* With a NIC removed during the run (earliest_failure): the flows that waited for others
     * before the run (their start is then their latest release + delay). */
    guint8 *had_preds;
    /* The gather of the rows held so far (weft_window_on_flush), and the run's events (summed
     * over ranks) at the last one. */
    void (*flush) (WeftWindow *win, void *data);
    void *flush_data;
    guint64 flush_bytes;
    guint64 flushed_events;
};

enum { FROZEN = 1, FROZEN_SENT = 2 };

/* A record whose slot is this is a finish notice: the flow's id in pad. */
#define SLOT_FINISHED G_MAXUINT32
/* A release of the flow in pad, which this rank sends, by a flow it waits for, delivered on
 * another rank at the weft_time_t in the packet bytes. */
#define SLOT_RELEASE (G_MAXUINT32 - 1)
/* The collective in pad: a CollCount in the packet bytes. */
#define SLOT_COLL (G_MAXUINT32 - 2)

/* What every rank tells the others at a window's start, and after its first part. */
typedef struct {
    weft_time_t next_at, last_progress, done_at;
    weft_time_t fail_at; /* the earliest time a flow of this rank may fail (earliest_failure) */
    guint64 pending, done_key;
    guint32 interrupted, failed, done;
    guint32 idle;  /* nothing queued here but the next sample, if any */
    guint32 moved; /* an event ran here since the last sample (or none has run yet) */
    guint32 pad;
    guint64 events, held; /* for flush_due */
} RankState;

static void
post (void *data, const WeftLinkTx *link, WeftPacket *pkt)
{
    WeftWindow *win = data;
    guint32 dest = win->rank_of[link->peer->node];
    RecordHead head = { link->link_id * 2 + link->direction, 0 };
    GByteArray *out = win->out[dest];
    g_byte_array_append (out, (const guint8 *) &head, sizeof head);
    g_byte_array_append (out, (const guint8 *) pkt, sizeof *pkt);
    win->crossed++;
    win->crossed_ctl += pkt->kind == WEFT_PKT_CREDIT;
    weft_packet_release (&win->sim->pool, pkt);
}

/* Faults and a subnet manager (doc/parallel.md, "Faults"): every rank runs every fault event
 * and every sweep, with the same keys, and keeps every link end's state and every route table,
 * which the events change alike everywhere; a port's own rank alone sends through it.  A fault
 * that waits for a collective is scheduled on every rank as the collective starts, at a
 * window's end (cross_bound keeps it in a later window); GPUDirect lost for the collectives
 * from a time or a collective on is a layout every rank chooses alike as a collective starts.
 * A NIC removed during the run fails the first flow under way through it at that instant,
 * which runs in lockstep (earliest_failure), each rank judging the flows it sends
 * (weft_transport_device_lost). */

/* ---- flows that wait for other flows, and collectives, across ranks --------------------
 * (doc/parallel.md, "Collectives and flow dependencies").  A flow is released on its sender's
 * rank: by a flow delivered there, at once, or by one delivered on another rank, by a notice
 * at the window's end (release_remote).  A collective completes when its flows delivered over
 * all ranks reach its count: each rank counts its own (coll_flow_done), the counts go to every
 * rank at the window's end, and every rank completes the collectives whose count is reached,
 * in one process's order, at the time and key of the event that delivered the last flow.  Both
 * start flows at least a delay after that event: the window is bounded by it (cross_bound). */

static void
release_remote (WeftFlow *f, weft_time_t at, void *data)
{
    WeftWindow *win = data;
    RecordHead head = { SLOT_RELEASE, f->spec.id };
    WeftPacket body;
    memset (&body, 0, sizeof body);
    memcpy (&body, &at, sizeof at);
    GByteArray *out = win->out[win->rank_of[f->sender->owner->node]];
    g_byte_array_append (out, (const guint8 *) &head, sizeof head);
    g_byte_array_append (out, (const guint8 *) &body, sizeof body);
}

/* Whether flow @f, sent here, is known to have finished on its receiver's rank (its notice came:
 * freeze_sender). */
static gboolean
finished_remote (const WeftFlow *f, void *data)
{
    const WeftWindow *win = data;
    return win->frozen[f->spec.id] != 0;
}

static void
coll_flow_done (WeftCollRun *c, WeftSim *sim, void *data)
{
    WeftWindow *win = data;
    guint32 id = (guint32) (c - win->net->tp.colls);
    CollCount *k = &win->coll_mine[id];
    if (k->count++ == 0)
        g_array_append_val (win->coll_touched, id);
    k->last_at = sim->now; /* events run in (time, key) order: the latest so far */
    k->last_key = sim->now_key;
}

static void
coll_merge (WeftWindow *win, guint32 id, const CollCount *k)
{
    CollCount *a = &win->coll_all[id];
    if (a->count == 0)
        g_array_append_val (win->coll_seen, id);
    a->count += k->count;
    if (weft_event_place (k->last_at, k->last_key) > weft_event_place (a->last_at, a->last_key)) {
        a->last_at = k->last_at;
        a->last_key = k->last_key;
    }
}

/* Before the exchange: this window's counts to every other rank. */
static void
cross_post (WeftWindow *win)
{
    for (guint i = 0; i < win->coll_touched->len; i++) {
        guint32 id = g_array_index (win->coll_touched, guint32, i);
        RecordHead head = { SLOT_COLL, id };
        WeftPacket body;
        memset (&body, 0, sizeof body);
        memcpy (&body, &win->coll_mine[id], sizeof (CollCount));
        for (int r = 0; r < win->par->size; r++)
            if (r != win->par->rank) {
                g_byte_array_append (win->out[r], (const guint8 *) &head, sizeof head);
                g_byte_array_append (win->out[r], (const guint8 *) &body, sizeof body);
            }
        coll_merge (win, id, &win->coll_mine[id]);
    }
}

/* A notice of the exchange (SLOT_RELEASE, SLOT_COLL). */
static void
cross_in (WeftWindow *win, const RecordHead *head, const guint8 *body)
{
    WeftTransport *tp = &win->net->tp;
    if (head->slot == SLOT_RELEASE) {
        weft_time_t at;
        memcpy (&at, body, sizeof at);
        g_assert (head->pad < tp->n_flows);
        weft_transport_release (tp, &tp->flows[head->pad], at);
    } else {
        CollCount k;
        memcpy (&k, body, sizeof k);
        g_assert (head->pad < tp->n_colls);
        coll_merge (win, head->pad, &k);
    }
}

static int
cmp_finish (gconstpointer a, gconstpointer b, gpointer data)
{
    const CollCount *all = data;
    const CollCount *x = &all[*(const guint32 *) a], *y = &all[*(const guint32 *) b];
    if (x->last_at != y->last_at)
        return x->last_at < y->last_at ? -1 : 1;
    return x->last_key < y->last_key ? -1 : x->last_key > y->last_key;
}

/* After the exchange: the collectives whose last flows were delivered in this window complete,
 * on every rank, in one process's order; the rank that delivered the last one records it. */
static void
cross_finish (WeftWindow *win)
{
    WeftTransport *tp = &win->net->tp;
    WeftSim *sim = win->sim;
    g_autoptr (GArray) done = g_array_new (FALSE, FALSE, sizeof (guint32));
    for (guint i = 0; i < win->coll_seen->len; i++) {
        guint32 id = g_array_index (win->coll_seen, guint32, i);
        WeftCollRun *c = &tp->colls[id];
        g_assert (c->remaining >= win->coll_all[id].count);
        c->remaining -= (guint32) win->coll_all[id].count;
        if (c->remaining == 0)
            g_array_append_val (done, id);
    }
    g_array_sort_with_data (done, cmp_finish, win->coll_all);
    weft_time_t now = sim->now;
    guint64 now_key = sim->now_key;
    for (guint i = 0; i < done->len; i++) {
        guint32 id = g_array_index (done, guint32, i);
        const CollCount *a = &win->coll_all[id], *m = &win->coll_mine[id];
        gboolean mine = m->count > 0 && m->last_at == a->last_at && m->last_key == a->last_key;
        /* As in the event that delivered the last flow: its rows carry that event's tag. */
        sim->now = a->last_at;
        sim->now_key = a->last_key;
        weft_transport_collective_finish (tp, &tp->colls[id], a->last_at, sim, mine);
    }
    sim->now = now;
    sim->now_key = now_key;
    for (guint i = 0; i < win->coll_touched->len; i++)
        win->coll_mine[g_array_index (win->coll_touched, guint32, i)] = (CollCount){ 0 };
    for (guint i = 0; i < win->coll_seen->len; i++)
        win->coll_all[g_array_index (win->coll_seen, guint32, i)] = (CollCount){ 0 };
    g_array_set_size (win->coll_touched, 0);
    g_array_set_size (win->coll_seen, 0);
}

static gboolean
cross_refuse (const WeftWindow *win, const WeftExperiment *exp, GError **error, guint group,
              const char *what)
{
    g_autofree char *name =
        g_strconcat ("workload.", (const char *) win->net->workload_names->pdata[group], NULL);
    return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_UNSUPPORTED, name, NULL,
                                 "%s: a run across MPI ranks cannot carry that in zero time "
                                 "(doc/parallel.md); run it as one process",
                                 what);
}

/* The window's bound (at most the cut links' lookahead): the smallest delay after a flow's
 * delivery at which a flow it releases on another rank may start, and the smallest gap plus
 * delay after a collective's completion at which a flow of a collective it gates may start, or
 * a fault that waits for it begins.  Fails when it is 0. */
static gboolean
cross_bound (WeftWindow *win, const WeftExperiment *exp, GError **error)
{
    const WeftTransport *tp = &win->net->tp;
    weft_time_t bound = win->lookahead;
    for (guint i = 0; tp->dep_first && i < tp->n_flows; i++) {
        const WeftFlow *f = &tp->flows[i];
        for (guint32 k = tp->dep_first[i]; k < tp->dep_first[i + 1]; k++) {
            const WeftFlow *d = &tp->flows[tp->dep_list[k]];
            if (win->rank_of[f->spec.dst] == win->rank_of[d->sender->owner->node])
                continue; /* released where it is sent: at once, as in one process */
            if (d->spec.delay_ps == 0) {
                g_autofree char *what = g_strdup_printf (
                    "flow %u waits for flow %u with no delay, and the latter is delivered on "
                    "another rank than the one that sends the former",
                    d->spec.id, f->spec.id);
                return cross_refuse (win, exp, error, d->spec.group, what);
            }
            bound = MIN (bound, d->spec.delay_ps);
        }
    }
    g_autofree weft_time_t *first = g_new (weft_time_t, MAX (tp->n_colls, 1));
    for (guint c = 0; c < tp->n_colls; c++) {
        const WeftCollRun *r = &tp->colls[c];
        first[c] = WEFT_TIME_NEVER;
        for (guint32 i = 0; i < r->spec.n_flows; i++) {
            const WeftFlow *f = &tp->flows[r->spec.first_flow + i];
            if (f->gated)
                first[c] = MIN (first[c], f->spec.delay_ps);
        }
    }
    const WeftFaults *fs = win->net->fabric.faults;
    for (guint c = 0; c < tp->n_colls; c++)
        for (guint32 k = tp->gated_first[c]; k < tp->gated_first[c + 1]; k++) {
            const WeftCollGate *e = &tp->gated[k];
            /* A fault that waits for the gated collective begins at its start + its own delay
             * (models/fault.h); a chain of empty collectives only delays it more. */
            const char *group = NULL;
            weft_time_t after = weft_faults_after_collective (fs, e->after, &group);
            if (after != WEFT_TIME_NEVER) {
                if (e->gap_ps + after == 0)
                    return weft_experiment_fail (
                        exp, error, WEFT_CONFIG_ERROR_UNSUPPORTED, group, "after",
                        "begins as collective.%u starts, in the event that completes "
                        "collective.%u: a run across MPI ranks cannot carry that in zero time "
                        "(doc/parallel.md); add a delay (after = ... + TIME) or run it as one "
                        "process",
                        e->after + 1, c + 1);
                bound = MIN (bound, e->gap_ps + after);
            }
            if (first[e->after] == WEFT_TIME_NEVER)
                continue; /* no flows: it completes at once, and its own gates bound it */
            weft_time_t d = e->gap_ps + first[e->after];
            if (d == 0) {
                g_autofree char *what = g_strdup_printf (
                    "collective %u starts flows with no gap and no latency after collective %u",
                    e->after, c);
                return cross_refuse (win, exp, error, tp->colls[e->after].spec.group, what);
            }
            bound = MIN (bound, d);
        }
    win->lookahead = bound;
    return TRUE;
}

/* Sets up the above on @win; FALSE (with @error) when a run across ranks cannot do it. */
static gboolean
cross_setup (WeftWindow *win, const WeftExperiment *exp, GError **error)
{
    WeftTransport *tp = &win->net->tp;
    if (!cross_bound (win, exp, error))
        return FALSE;
    win->coll_mine = g_new0 (CollCount, MAX (tp->n_colls, 1));
    win->coll_all = g_new0 (CollCount, MAX (tp->n_colls, 1));
    win->coll_touched = g_array_new (FALSE, FALSE, sizeof (guint32));
    win->coll_seen = g_array_new (FALSE, FALSE, sizeof (guint32));
    tp->ready_ps = g_new0 (weft_time_t, MAX (tp->n_flows, 1));
    tp->release_remote = release_remote;
    tp->coll_flow_done = tp->n_colls > 0 ? coll_flow_done : NULL;
    tp->finished_remote = finished_remote;
    tp->cross_data = win;
    return TRUE;
}

static void
cross_free (WeftWindow *win)
{
    WeftTransport *tp = &win->net->tp;
    tp->release_remote = NULL;
    tp->coll_flow_done = NULL;
    tp->finished_remote = NULL;
    tp->cross_data = NULL;
    g_free (win->coll_mine);
    g_free (win->coll_all);
    if (win->coll_touched)
        g_array_unref (win->coll_touched);
    if (win->coll_seen)
        g_array_unref (win->coll_seen);
}

WeftWindow *
weft_window_new (WeftNetwork *net, const WeftExperiment *exp, const WeftParallel *par,
                 const WeftPartition *part, guint64 sample_interval, GError **error)
{
    (void) exp;
    (void) sample_interval;
    WeftWindow *win = g_new0 (WeftWindow, 1);
    win->net = net;
    win->sim = net->sim;
    win->par = par;
    win->rank_of = part->rank_of;
    win->lookahead = part->lookahead;
    win->n_slots = weft_graph_n_links (net->graph) * 2;
    win->port_of_slot = g_new0 (WeftPort *, MAX (win->n_slots, 1));
    win->out = g_new (GByteArray *, par->size);
    for (int r = 0; r < par->size; r++)
        win->out[r] = g_byte_array_new ();
    win->in = g_byte_array_new ();
    guint n_flows = MAX (net->tp.n_flows, 1);
    win->snap = g_new0 (WeftTraceFlow, n_flows);
    win->frozen = g_new0 (guint8, n_flows);
    win->notified = g_new0 (guint8, n_flows);
    win->fresh = g_array_new (FALSE, FALSE, sizeof (guint32));
    guint32 me = (guint32) par->rank;
    for (guint i = 0; i < net->ports->len; i++) {
        WeftPort *p = net->ports->pdata[i];
        WeftLinkTx *link = &p->link;
        if (!link->owner || !link->peer)
            continue;
        guint slot = link->link_id * 2 + link->direction;
        g_assert (slot < win->n_slots && win->port_of_slot[slot] == NULL);
        win->port_of_slot[slot] = p;
        if (win->rank_of[link->owner->node] == me && win->rank_of[link->peer->node] != me) {
            g_assert (link->delay_ps >= win->lookahead);
            link->post = post;
            link->post_data = win;
        }
    }
    if (weft_faults_nic_removed_live (net->fabric.faults, net->graph)) {
        win->had_preds = g_new0 (guint8, n_flows);
        for (guint i = 0; i < net->tp.n_flows; i++)
            win->had_preds[i] = net->tp.flows[i].waiting > 0;
    }
    if (!cross_setup (win, exp, error)) {
        weft_window_free (win);
        return NULL;
    }
    return win;
}

void
weft_window_free (WeftWindow *win)
{
    if (!win)
        return;
    for (int r = 0; r < win->par->size; r++)
        g_byte_array_unref (win->out[r]);
    g_free (win->out);
    g_byte_array_unref (win->in);
    g_free (win->port_of_slot);
    g_free (win->snap);
    g_free (win->frozen);
    g_free (win->notified);
    g_free (win->had_preds);
    cross_free (win);
    g_array_unref (win->fresh);
    g_free (win);
}

guint64
weft_window_crossed (const WeftWindow *win)
{
    return win->crossed;
}

guint64
weft_window_crossed_ctl (const WeftWindow *win)
{
    return win->crossed_ctl;
}

guint64
weft_window_windows (const WeftWindow *win)
{
    return win->windows;
}

guint64
weft_window_watchdogs (const WeftWindow *win)
{
    return win->watchdogs;
}

weft_time_t
weft_window_lookahead (const WeftWindow *win)
{
    return win->lookahead;
}

static gboolean
mine (const WeftWindow *win, guint32 node)
{
    return win->rank_of[node] == (guint32) win->par->rank;
}

/* A flow sent by this rank and received by another: its sender columns are reported from here. */
static gboolean
sent_across (const WeftWindow *win, const WeftFlow *f)
{
    return f->sender && mine (win, f->sender->owner->node) && !mine (win, f->spec.dst);
}

/* At a window's start: the row of every flow sent from here to another rank and not known to
 * have finished. */
static void
snapshot_senders (WeftWindow *win)
{
    const WeftTransport *tp = &win->net->tp;
    for (guint i = 0; i < tp->n_flows; i++)
        if (!win->frozen[i] && sent_across (win, &tp->flows[i]))
            weft_transport_flow_row (tp, &tp->flows[i], &win->snap[i]);
}

/* Before the exchange: a notice to the sender's rank of every flow received here that finished
 * in this window. */
static void
post_finished (WeftWindow *win)
{
    const WeftTransport *tp = &win->net->tp;
    if (tp->flows_done == win->seen_done)
        return;
    win->seen_done = tp->flows_done;
    for (guint i = 0; i < tp->n_flows; i++) {
        const WeftFlow *f = &tp->flows[i];
        if (!f->finished || win->notified[i] || !f->sender || !mine (win, f->spec.dst) ||
            mine (win, f->sender->owner->node))
            continue;
        win->notified[i] = 1;
        RecordHead head = { SLOT_FINISHED, i };
        WeftPacket blank = { 0 };
        GByteArray *out = win->out[win->rank_of[f->sender->owner->node]];
        g_byte_array_append (out, (const guint8 *) &head, sizeof head);
        g_byte_array_append (out, (const guint8 *) &blank, sizeof blank);
    }
}

/* Flow @i finished, in the window just run, on its receiver's rank: its sender columns are
 * now's, exact unless they changed in this window (before or after the finish: unknown). */
static void
freeze_sender (WeftWindow *win, guint i)
{
    const WeftTransport *tp = &win->net->tp;
    WeftTraceFlow now, a, b;
    weft_transport_flow_row (tp, &tp->flows[i], &now);
    memset (&a, 0, sizeof a);
    memset (&b, 0, sizeof b);
    weft_transport_flow_row_sender (&a, &win->snap[i]);
    weft_transport_flow_row_sender (&b, &now);
    win->unsure += memcmp (&a, &b, sizeof a) != 0;
    win->snap[i] = now;
    win->frozen[i] = FROZEN;
    g_array_append_val (win->fresh, i);
    /* Its sender samples it no more (/dcqcn, /uet): one process took it out of the flows under
     * way at its finish, and the rows sampled here since then are dropped at the gather. */
    weft_transport_leave_active (&win->net->tp, &win->net->tp.flows[i]);
}

void
weft_window_sender_rows (WeftWindow *win, gboolean all, GArray *rows)
{
    const WeftTransport *tp = &win->net->tp;
    for (guint k = 0; k < win->fresh->len; k++) {
        guint32 i = g_array_index (win->fresh, guint32, k);
        g_array_append_val (rows, win->snap[i]);
        win->frozen[i] = FROZEN_SENT;
    }
    g_array_set_size (win->fresh, 0);
    for (guint i = 0; all && i < tp->n_flows; i++)
        if (!win->frozen[i] && sent_across (win, &tp->flows[i])) {
            WeftTraceFlow row;
            weft_transport_flow_row (tp, &tp->flows[i], &row);
            g_array_append_val (rows, row);
        }
}

guint64
weft_window_unsure (const WeftWindow *win)
{
    return win->unsure;
}

/* The window's batches: every rank's packets for this one go on its copies of their wires. */
static void
exchange (WeftWindow *win)
{
    post_finished (win);
    cross_post (win);
    weft_parallel_exchange (win->par, win->out, win->in);
    for (int r = 0; r < win->par->size; r++)
        g_byte_array_set_size (win->out[r], 0);
    for (guint off = 0; off + RECORD_BYTES <= win->in->len; off += RECORD_BYTES) {
        RecordHead head;
        memcpy (&head, win->in->data + off, sizeof head);
        if (head.slot == SLOT_FINISHED) {
            freeze_sender (win, head.pad);
            continue;
        }
        if (head.slot >= SLOT_COLL) {
            cross_in (win, &head, win->in->data + off + sizeof head);
            continue;
        }
        g_assert (head.slot < win->n_slots && win->port_of_slot[head.slot]);
        WeftPort *from = win->port_of_slot[head.slot];
        WeftPacket *pkt = weft_packet_alloc (&win->sim->pool);
        memcpy (pkt, win->in->data + off + sizeof head, sizeof *pkt);
        pkt->next = NULL;
        if (pkt->kind == WEFT_PKT_CREDIT && from->far)
            weft_port_credit_in (from->far, pkt);
        else
            weft_link_put (&from->link, pkt);
    }
    cross_finish (win);
}

/* ---- the exact end of a failed workload ----------------------------------------------------
 * A workload fails at one event of one rank: an RC flow's retransmission timer that expires
 * with its retries used up (models/nic.c, rc_may_retry), on its sender's rank.  One process
 * stops right after it; so must every rank, though none can undo an event.  So no window runs
 * past the earliest time at which any flow may fail, F, computed at the window's start:
 * a flow with r of its rc_retry_cnt retries used and its timer due at D fails no earlier than
 * D + (rc_retry_cnt - r) x rc_timeout (each later timeout is armed a whole timeout after the
 * one before, and progress only gives retries back), and a flow whose timer is not running
 * arms it at the window's start T or later.  Windows end before F; the picosecond F itself
 * runs in lockstep (run_instant): the rank holding the earliest event of that picosecond runs
 * its events up to the next rank's earliest, and all tell each other whether one failed, so
 * every rank stops after exactly the events one process runs. */

/* A NIC removed during the run (models/fault.h, weft_transport_device_lost) fails the first
 * flow under way through it at that instant, and a flow through it not yet under way as it
 * begins, on its sender's rank: both bound F too.  The earliest this rank's flows through a
 * removed NIC may begin: a flow released already at its latest release + its delay (its own
 * start time if it waited for nothing), one still waiting no earlier than now + its delay
 * (its release is an event to come).  Lower bounds: a flow that begins later (a NIC still
 * taking it up) only makes more windows run in lockstep. */
static weft_time_t
earliest_device_loss (const WeftWindow *win)
{
    const WeftTransport *tp = &win->net->tp;
    weft_time_t at = weft_faults_next_nic_removal (win->net->fabric.faults);
    if (!tp->lost_cause || !win->had_preds)
        return at;
    for (guint i = 0; i < tp->n_flows; i++) {
        const WeftFlow *f = &tp->flows[i];
        if (!f->device_lost || f->started || f->failed || f->unused || f->finished ||
            !mine (win, f->sender->owner->node))
            continue;
        weft_time_t begin = f->spec.start_ps;
        if (f->waiting > 0)
            begin = MAX (begin, win->sim->now + f->spec.delay_ps);
        else if (win->had_preds[i])
            begin = MAX (begin, tp->ready_ps[i] + f->spec.delay_ps);
        at = MIN (at, begin);
    }
    return at;
}

/* F on this rank (the timers it runs, the NICs removed), or WEFT_TIME_NEVER. */
static weft_time_t
earliest_failure (const WeftWindow *win)
{
    const WeftTransport *tp = &win->net->tp;
    weft_time_t at = earliest_device_loss (win);
    if (!tp->rc || tp->rc_timeout_ps == WEFT_TIME_NEVER)
        return at;
    for (guint i = 0; i < tp->n_flows; i++) {
        const WeftFlow *f = &tp->flows[i];
        /* (A finished flow's sender may still time out: its receiver has every byte, and the
         * ACKs were lost.) */
        if (f->failed || f->unused || !weft_timer_pending (&f->rto_timer))
            continue;
        guint32 used = weft_flow_loss_of (f)->rc_retries;
        guint64 left = tp->rc_retry_cnt > used ? tp->rc_retry_cnt - used : 0;
        weft_time_t d = weft_timer_deadline (&f->rto_timer);
        if (left > 0 && (WEFT_TIME_NEVER - d) / left <= tp->rc_timeout_ps)
            continue; /* past the end of time */
        at = MIN (at, d + left * tp->rc_timeout_ps);
    }
    return at;
}

/* The key of this rank's earliest event at @t, or G_MAXUINT64 when it has none at @t (every
 * event before @t has run). */
static guint64
next_key_at (WeftSim *sim, weft_time_t t)
{
    WeftEvent ev;
    if (!weft_evq_pop_before (&sim->evq, t, G_MAXUINT64, &ev))
        return G_MAXUINT64;
    g_assert (ev.at == t);
    weft_evq_push (&sim->evq, &ev);
    return ev.key;
}

typedef struct {
    guint64 next_key, pending;
    guint32 failed, pad;
} InstantState;

/* Runs every rank's events at @t, the earliest pending over all ranks, in one process's (key)
 * order with respect to a failure and the end of the work: WEFT_SIM_RUNNING when the
 * picosecond is over, else the status the run stops with, on every rank alike. */
static WeftSimStatus
run_instant (WeftWindow *win, weft_time_t t)
{
    WeftSim *sim = win->sim;
    int n = win->par->size;
    InstantState *all = g_new (InstantState, n);
    WeftSimStatus status = WEFT_SIM_RUNNING;
    for (;;) {
        InstantState mine = { .next_key = next_key_at (sim, t),
                              .pending = sim->work_pending,
                              .failed = sim->status == WEFT_SIM_WORKLOAD_FAILED };
        weft_parallel_allgather (win->par, &mine, sizeof mine, all);
        guint64 pending = 0, first = G_MAXUINT64;
        gboolean failed = FALSE;
        for (int r = 0; r < n; r++) {
            pending += all[r].pending;
            failed |= all[r].failed;
            first = MIN (first, all[r].next_key);
        }
        if (failed) {
            status = WEFT_SIM_WORKLOAD_FAILED;
            break;
        }
        if (pending == 0) {
            sim->work_pending = 0;
            status = WEFT_SIM_DONE;
            break;
        }
        if (first == G_MAXUINT64)
            break;
        if (mine.next_key != first)
            continue;
        /* The holder of the earliest key runs up to the other ranks' earliest; a key several
         * ranks hold (an engine event every rank runs, a sample) runs alone on each. */
        guint64 bound = G_MAXUINT64;
        guint holders = 0;
        for (int r = 0; r < n; r++) {
            holders += all[r].next_key == first;
            if (r != win->par->rank)
                bound = MIN (bound, all[r].next_key);
        }
        if (holders > 1)
            bound = first + 1;
        /* An event every rank holds (a fault event, a sample) is a window's edge: the notices
         * of this picosecond so far (flows finished, collectives completed) are exchanged
         * first, so that it finds every rank's state as one process's (a NIC removed now
         * fails the first flow under way through it: weft_transport_device_lost). */
        if (holders == (guint) n)
            exchange (win);
        if (sim->status == WEFT_SIM_DONE)
            sim->status = WEFT_SIM_RUNNING;
        weft_sim_run_window (sim, t, bound);
    }
    g_free (all);
    return status;
}

void
weft_window_on_flush (WeftWindow *win, guint64 bytes, void (*flush) (WeftWindow *win, void *data),
                      void *data)
{
    win->flush_bytes = bytes;
    win->flush = flush;
    win->flush_data = data;
}

/* Between two windows every row held on every rank is final (no event before the next window's
 * start is left to run), so the trace can be gathered and written there: when the rows held
 * over all ranks reach [parallel] gather_bytes (by default one process's flush criterion,
 * sim/trace.h) or the events run since the last gather one process's, read from the states
 * every rank has just shared, so every rank decides alike.  A killed run's file is then about
 * as far behind as one process's. */
static void
flush_due (WeftWindow *win, const RankState *all)
{
    if (!win->flush)
        return;
    guint64 events = 0, held = 0;
    for (int r = 0; r < win->par->size; r++) {
        events += all[r].events;
        held += all[r].held;
    }
    if (events - win->flushed_events < WEFT_TRACE_FLUSH_EVENTS && held < win->flush_bytes)
        return;
    win->flush (win, win->flush_data);
    win->flushed_events = events;
}

static RankState
local_state (WeftWindow *win, const volatile sig_atomic_t *interrupt, gboolean fail_at)
{
    WeftSim *sim = win->sim;
    return (RankState){ .events = sim->events,
                        .held = win->net->trace ? weft_trace_held_bytes (win->net->trace) : 0,
                        .next_at = weft_evq_peek_at (&sim->evq),
                        .fail_at = fail_at ? earliest_failure (win) : WEFT_TIME_NEVER,
                        .last_progress = sim->last_progress,
                        .pending = sim->work_pending,
                        .interrupted = interrupt && *interrupt,
                        .failed = sim->status == WEFT_SIM_WORKLOAD_FAILED,
                        .done = sim->status == WEFT_SIM_DONE,
                        .idle = weft_evq_len (&sim->evq) == (sim->sample_queued ? 1u : 0u),
                        .moved = sim->sample_mark == 0 || sim->events != sim->sample_mark,
                        .done_at = sim->now,
                        .done_key = sim->now_key };
}

/* Ends the run on every rank at @at. */
static WeftSimStatus
stop (WeftWindow *win, WeftSimStatus status, weft_time_t at)
{
    WeftSim *sim = win->sim;
    sim->status = status;
    sim->now = MAX (sim->now, at);
    sim->now_key = G_MAXUINT64;
    return status;
}

/* At the end of the run: the fault counters only a port's own rank counts, summed over the
 * ranks (models/fault.h), before the /ports and /faults rows are made. */
static void
merge_faults (WeftWindow *win)
{
    WeftFaults *fs = win->net->fabric.faults;
    if (!fs)
        return;
    int size = win->par->size;
    guint64 n = weft_faults_rank_counts (fs, NULL);
    guint64 *ns = g_new (guint64, size);
    weft_parallel_allgather (win->par, &n, sizeof n, ns);
    for (int r = 0; r < size; r++)
        if (ns[r] != n) {
            /* Every rank runs every fault event: never. */
            g_critical ("rank %d logged other fault events than rank %d", r, win->par->rank);
            g_free (ns);
            return;
        }
    g_free (ns);
    guint64 *mine = g_new0 (guint64, MAX (n, 1));
    guint64 *all = g_new0 (guint64, MAX (n, 1) * size);
    weft_faults_rank_counts (fs, mine);
    weft_parallel_allgather (win->par, mine, n * sizeof *mine, all);
    for (guint64 i = 0; i < n; i++) {
        mine[i] = 0;
        for (int r = 0; r < size; r++)
            mine[i] += all[(guint64) r * n + i];
    }
    weft_faults_rank_merge (fs, mine);
    g_free (mine);
    g_free (all);
}

typedef struct {
    guint32 has, flow;
    weft_time_t at;
    guint64 retries, delivered;
} FailNote;

/* After a failed workload: every rank learns the failed flow, one process's (the lowest id
 * over the ranks that failed one: only a NIC removed fails flows on several ranks at once, each
 * rank its own first under way, and one process fails the first of all), its retries (its
 * sender's rank's count) and its bytes delivered (its receiver's). */
void
weft_window_share_failure (WeftWindow *win)
{
    WeftTransport *tp = &win->net->tp;
    int size = win->par->size;
    FailNote own = { 0 }, *all = g_new (FailNote, size);
    if (tp->failed)
        own = (FailNote){ 1, tp->failed->spec.id, tp->failed_ps, 0, 0 };
    weft_parallel_allgather (win->par, &own, sizeof own, all);
    int who = -1;
    for (int r = 0; r < size; r++)
        if (all[r].has && (who < 0 || all[r].flow < all[who].flow))
            who = r;
    if (who < 0) {
        g_free (all);
        return;
    }
    FailNote note = all[who];
    if (own.has && own.flow != note.flow)
        tp->flows[own.flow].failed = FALSE; /* not the failure one process stops at */
    WeftFlow *f = &tp->flows[note.flow];
    own.retries = mine (win, f->sender->owner->node) ? weft_flow_loss_of (f)->rc_retries : 0;
    own.delivered = mine (win, f->spec.dst) ? f->delivered : 0;
    weft_parallel_allgather (win->par, &own, sizeof own, all);
    note.retries = note.delivered = 0;
    for (int r = 0; r < size; r++) {
        note.retries += all[r].retries;
        note.delivered += all[r].delivered;
    }
    tp->failed = f;
    tp->failed_ps = note.at;
    f->failed = TRUE;
    if (note.retries || f->loss)
        weft_flow_loss (f)->rc_retries = note.retries;
    f->delivered = note.delivered;
    g_free (all);
}

WeftSimStatus
weft_window_run (WeftWindow *win, const volatile sig_atomic_t *interrupt)
{
    WeftSim *sim = win->sim;
    int n = win->par->size;
    RankState *all = g_new (RankState, n);
    sim->interrupt = NULL; /* read here, between windows, so that every rank stops alike */
    sim->last_progress = sim->now;
    sim->status = WEFT_SIM_RUNNING;
    weft_sim_start_sampling (sim);
    /* One process's watchdog (sim/sim.c) is an engine event at the last progress +
     * hang_timeout, armed again from there when it finds progress: no rank runs it, but the
     * run's event count is one process's (cli/run.c), so each of its events is counted here.
     * Windows end at its next one, whose last progress is then the one known at the next
     * window's start. */
    weft_time_t watchdog_at = sim->hang_timeout ? sim->now + sim->hang_timeout : WEFT_TIME_NEVER;
    WeftSimStatus status;
    for (;;) {
        RankState mine = local_state (win, interrupt, TRUE);
        weft_parallel_allgather (win->par, &mine, sizeof mine, all);
        guint64 pending = 0;
        weft_time_t t = WEFT_TIME_NEVER, progress = 0, latest = 0, fail_at = WEFT_TIME_NEVER;
        gboolean interrupted = FALSE, failed = FALSE, idle = TRUE, moved = FALSE;
        for (int r = 0; r < n; r++) {
            idle &= all[r].idle != 0;
            moved |= all[r].moved != 0;
            pending += all[r].pending;
            t = MIN (t, all[r].next_at);
            fail_at = MIN (fail_at, all[r].fail_at);
            progress = MAX (progress, all[r].last_progress);
            latest = MAX (latest, all[r].done_at);
            interrupted |= all[r].interrupted;
            failed |= all[r].failed;
        }
        if (failed) {
            status = stop (win, WEFT_SIM_WORKLOAD_FAILED, latest);
            break;
        }
        if (interrupted) {
            status = stop (win, WEFT_SIM_INTERRUPTED, latest);
            break;
        }
        if (pending == 0) {
            status = stop (win, WEFT_SIM_DONE, latest);
            break;
        }
        while (sim->hang_timeout && watchdog_at <= t &&
               (!sim->duration || watchdog_at <= sim->duration)) {
            win->watchdogs++;
            if (watchdog_at >= progress + sim->hang_timeout)
                break; /* the hang, stopped at this deadline below */
            watchdog_at = progress + sim->hang_timeout;
        }
        /* Every queue dry with work pending and no watchdog: one process's queue ran dry, a
         * hang at its last event. */
        if (t == WEFT_TIME_NEVER && !sim->hang_timeout) {
            status = stop (win, WEFT_SIM_HANG, latest);
            break;
        }
        /* One process's watchdog fires at the last progress + hang_timeout, before every
         * model's event of that picosecond (the engine's id is 0), unless the duration ends
         * the run first: every window ends before that deadline, so the progress known at a
         * window's start is the whole run's.  It is still in one process's queue when every
         * other event is gone, so a dry queue (t never) ends there too, or at the duration. */
        weft_time_t deadline = sim->hang_timeout ? progress + sim->hang_timeout : WEFT_TIME_NEVER;
        if (sim->duration && deadline > sim->duration)
            deadline = WEFT_TIME_NEVER;
        if (deadline != WEFT_TIME_NEVER && t >= deadline) {
            status = stop (win, WEFT_SIM_HANG, deadline);
            break;
        }
        if (sim->duration && t > sim->duration) {
            status = stop (win, WEFT_SIM_DURATION, sim->duration);
            break;
        }
        /* No watchdog, and nothing queued on any rank but the next sample, at t: one process's
         * queue held nothing but a sample when the first sample after the last event ran
         * (sim/sim.c, on_sample), and the run ended there, as a hang.  That is the last sample
         * if no event ran after it on any rank, else the one at t, which every rank runs now. */
        if (idle && !sim->hang_timeout) {
            if (moved) {
                weft_sim_run_window (sim, t, G_MAXUINT64);
                latest = t;
            }
            status = stop (win, WEFT_SIM_HANG, latest);
            break;
        }
        sim->global_pending = pending;
        weft_time_t end = t + win->lookahead;
        if (sim->duration && end > sim->duration + 1)
            end = sim->duration + 1;
        end = MIN (end, deadline);
        end = MIN (end, watchdog_at);
        flush_due (win, all);
        /* A flow may fail in this window (above): the window ends before F, and F itself runs
         * in lockstep. */
        const WeftTransport *tp = &win->net->tp;
        if (tp->rc && tp->rc_timeout_ps != WEFT_TIME_NEVER)
            fail_at = MIN (fail_at, t + tp->rc_timeout_ps);
        fail_at = MAX (fail_at, t); /* a timer is never due before its event: t at the earliest */
        if (fail_at < end && fail_at == t) {
            win->windows++;
            snapshot_senders (win);
            WeftSimStatus st = run_instant (win, t);
            exchange (win);
            if (st != WEFT_SIM_RUNNING) {
                status = stop (win, st, t);
                break;
            }
            continue;
        }
        end = MIN (end, fail_at);
        win->windows++;
        snapshot_senders (win);
        /* First part: up to this rank's own end of work, if it lies in the window. */
        if (sim->work_pending > 0)
            weft_sim_run_window (sim, end, 0);
        mine = local_state (win, interrupt, FALSE);
        weft_parallel_allgather (win->par, &mine, sizeof mine, all);
        guint64 left = 0;
        weft_time_t e_at = 0;
        guint64 e_key = 0;
        failed = FALSE;
        for (int r = 0; r < n; r++) {
            left += all[r].pending;
            failed |= all[r].failed;
            if (all[r].done && weft_event_place (all[r].done_at, all[r].done_key) >
                                   weft_event_place (e_at, e_key)) {
                e_at = all[r].done_at;
                e_key = all[r].done_key;
            }
        }
        if (failed)
            continue; /* stopped at the next window's start, on every rank alike */
        if (sim->status == WEFT_SIM_DONE)
            sim->status = WEFT_SIM_RUNNING;
        if (left == 0) {
            /* The run ends at E, the event that ended the last piece of work. */
            weft_sim_run_window (sim, e_at, e_key + 1);
            exchange (win);
            sim->work_pending = 0;
            status = stop (win, WEFT_SIM_DONE, e_at);
            break;
        }
        weft_sim_run_window (sim, end, 0);
        exchange (win);
    }
    g_free (all);
    sim->interrupt = interrupt;
    merge_faults (win);
    return status;
}
