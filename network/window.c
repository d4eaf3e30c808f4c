#include "config.h"
#define G_LOG_DOMAIN "weft-window"
#include "network/window.h"

#include <string.h>

#include "models/nic.h"

/* A packet crossing to another rank: the slot of its wire (graph link * 2 + direction), then
 * the packet by value (its FIFO link is meaningless there and reset). */
typedef struct {
    guint32 slot;
    guint32 pad;
} RecordHead;

#define RECORD_BYTES (sizeof (RecordHead) + sizeof (WeftPacket))

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
    /* The sender's columns of the /flows rows of flows sent here and received on another
     * rank (cli/run.c): each such flow's row at the start of the window (snap), until the
     * receiver's rank says it finished; then the row at the end of that window, frozen. */
    WeftTraceFlow *snap;
    guint8 *frozen;    /* FROZEN, FROZEN_SENT once gathered (weft_window_sender_rows) */
    GArray *fresh;     /* guint32 ids of the flows frozen since the last gather */
    guint8 *notified;  /* flows received here, sent elsewhere: their finish was posted */
    guint64 seen_done; /* tp->flows_done at the last look */
    guint64 unsure;    /* frozen rows whose sender columns changed in their window */
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

/* What every rank tells the others at a window's start, and after its first part. */
typedef struct {
    weft_time_t next_at, last_progress, done_at;
    guint64 pending, done_key;
    guint32 interrupted, failed, done;
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

/* The bad-input line for what a run across ranks cannot do yet. */
static gboolean
refuse (const WeftExperiment *exp, GError **error, const char *group, const char *key,
        const char *what)
{
    return weft_experiment_fail (exp, error, WEFT_CONFIG_ERROR_UNSUPPORTED, group, key,
                                 "%s: not implemented in a run across MPI ranks yet "
                                 "(doc/parallel.md); run it as one process",
                                 what);
}

static gboolean
check_supported (const WeftNetwork *net, const WeftExperiment *exp, guint64 sample_interval,
                 GError **error)
{
    const WeftTransport *tp = &net->tp;
    GKeyFile *kf = weft_experiment_keyfile (exp);
    g_auto (GStrv) groups = g_key_file_get_groups (kf, NULL);
    for (char **g = groups; *g; g++)
        if (g_str_has_prefix (*g, "fault."))
            return refuse (exp, error, *g, NULL, "faults");
    /* The group that asks for it: "workload.NAME". */
    g_autofree char *group = NULL;
    if (tp->n_colls > 0) {
        group = g_strconcat (
            "workload.", (const char *) net->workload_names->pdata[tp->colls[0].spec.group], NULL);
        return refuse (exp, error, group, NULL, "collectives");
    }
    for (guint i = 0; tp->dep_first && i < tp->n_flows; i++)
        if (tp->dep_first[i + 1] > tp->dep_first[i]) {
            group = g_strconcat ("workload.",
                                 (const char *) net->workload_names->pdata[tp->flows[i].spec.group],
                                 NULL);
            return refuse (exp, error, group, NULL, "flows that wait for other flows");
        }
    if (net->fabric.sm)
        return refuse (exp, error, "fabric", NULL, "a subnet manager's sweeps");
    return TRUE;
}

WeftWindow *
weft_window_new (WeftNetwork *net, const WeftExperiment *exp, const WeftParallel *par,
                 const WeftPartition *part, guint64 sample_interval, GError **error)
{
    if (!check_supported (net, exp, sample_interval, error))
        return NULL;
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
local_state (WeftWindow *win, const volatile sig_atomic_t *interrupt)
{
    WeftSim *sim = win->sim;
    return (RankState){ .events = sim->events,
                        .held = win->net->trace ? weft_trace_held_bytes (win->net->trace) : 0,
                        .next_at = weft_evq_peek_at (&sim->evq),
                        .last_progress = sim->last_progress,
                        .pending = sim->work_pending,
                        .interrupted = interrupt && *interrupt,
                        .failed = sim->status == WEFT_SIM_WORKLOAD_FAILED,
                        .done = sim->status == WEFT_SIM_DONE,
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
    WeftSimStatus status;
    for (;;) {
        RankState mine = local_state (win, interrupt);
        weft_parallel_allgather (win->par, &mine, sizeof mine, all);
        guint64 pending = 0;
        weft_time_t t = WEFT_TIME_NEVER, progress = 0, latest = 0;
        gboolean interrupted = FALSE, failed = FALSE;
        for (int r = 0; r < n; r++) {
            pending += all[r].pending;
            t = MIN (t, all[r].next_at);
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
        if (t == WEFT_TIME_NEVER) {
            status = stop (win, WEFT_SIM_HANG, latest);
            break;
        }
        /* One process's watchdog fires at the last progress + hang_timeout, before every
         * model's event of that picosecond (the engine's id is 0), unless the duration ends
         * the run first: every window ends before that deadline, so the progress known at a
         * window's start is the whole run's. */
        weft_time_t deadline = sim->hang_timeout ? progress + sim->hang_timeout : WEFT_TIME_NEVER;
        if (sim->duration && deadline > sim->duration)
            deadline = WEFT_TIME_NEVER;
        if (t >= deadline) {
            status = stop (win, WEFT_SIM_HANG, deadline);
            break;
        }
        if (sim->duration && t > sim->duration) {
            status = stop (win, WEFT_SIM_DURATION, sim->duration);
            break;
        }
        sim->global_pending = pending;
        weft_time_t end = t + win->lookahead;
        if (sim->duration && end > sim->duration + 1)
            end = sim->duration + 1;
        end = MIN (end, deadline);
        flush_due (win, all);
        win->windows++;
        snapshot_senders (win);
        /* First part: up to this rank's own end of work, if it lies in the window. */
        if (sim->work_pending > 0)
            weft_sim_run_window (sim, end, 0);
        mine = local_state (win, interrupt);
        weft_parallel_allgather (win->par, &mine, sizeof mine, all);
        guint64 left = 0;
        weft_time_t e_at = 0;
        guint64 e_key = 0;
        failed = FALSE;
        for (int r = 0; r < n; r++) {
            left += all[r].pending;
            failed |= all[r].failed;
            if (all[r].done &&
                (all[r].done_at > e_at || (all[r].done_at == e_at && all[r].done_key > e_key))) {
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
    return status;
}
