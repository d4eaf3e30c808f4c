/* network/window.h - one run across MPI ranks: conservative windows (doc/parallel.md).
 *
 * Every rank builds the whole network and executes the events of its own nodes only
 * (WeftSim.rank_of).  A packet put on a cut link (its far end another rank's) is not put on
 * the wire: it goes, by value, into this window's outbox for that rank, and the far rank puts it
 * on its own copy of the wire after the window (models/link.h, weft_link_put; an InfiniBand
 * FCP joins the far port's credits on their way, weft_port_credit_in).  A window runs the
 * events before T + L, where T is the earliest pending event over all ranks and L the
 * lookahead, the smallest delay of a cut link: nothing sent in a window can arrive in it.
 *
 * The end of the run is found exactly.  A flow is work of the rank that receives it.  Each
 * window first runs every rank up to its own last piece of work, if that lies in the window;
 * when that ends the work of every rank, every rank then runs exactly to the event that ended
 * the last piece, E, and stops there as one process would, else it runs the rest of its window.
 * Nothing a rank does between its own end and E can reach another rank before T + L.
 *
 * A hang is found at the watchdog's deadline, the whole run's last progress + hang_timeout:
 * windows end there.  When every rank's queue runs dry (or holds nothing but the next sample)
 * the run ends where one process's does: at that deadline, the duration, its last event or the
 * next sample (doc/parallel.md, "How a hang ends").  A failed workload is found exactly too: no
 * window runs past the earliest time a flow may run out of retries, and that picosecond runs in
 * lockstep, one rank's run of keys at a time.  An interrupt stops every rank at the start of one
 * window.
 *
 * Faults and a subnet manager: every rank runs every fault event and sweep (same keys) and keeps
 * every link's state and every route table; at the end the fault counters only a port's rank
 * counts are summed over the ranks (models/fault.h) and rank 0 writes /faults.
 */
#ifndef WEFT_NETWORK_WINDOW_H
#define WEFT_NETWORK_WINDOW_H

#include "network/network.h"
#include "sim/parallel.h"
#include "sim/partition.h"

typedef struct _WeftWindow WeftWindow;

/** Prepares @net, already built with @sim->rank_of set from @part, for a run across the ranks
 * of @par: marks the cut links and checks that the experiment has nothing a run across ranks
 * cannot do yet (a NIC removed or GPUDirect lost during the run, a fault that waits for a
 * collective, flows released across ranks or collectives gated with no delay, collectives laid
 * out per staging epoch), failing with an error that names the file and the group.  (transfer
 * full) */
WeftWindow *weft_window_new (WeftNetwork *net, const WeftExperiment *exp, const WeftParallel *par,
                             const WeftPartition *part, guint64 sample_interval, GError **error);
void weft_window_free (WeftWindow *win);

/* Runs the windows until the run ends on every rank; every rank returns the same status, and
 * sim->now is the run's end time on every rank (with sim->now_key above every event's, so
 * the rows written after the run come after the run's in the trace's order).
 * @interrupt: the flag a signal sets (read at every window). */
WeftSimStatus weft_window_run (WeftWindow *win, const volatile sig_atomic_t *interrupt);

/* After a run that ended with a failed workload: every rank learns which flow failed and when
 * (net->tp.failed, failed_ps), with its retries (the sender's rank's count) and bytes delivered
 * (the receiver's rank's), so that rank 0 describes the failure as one process does
 * (weft_network_describe_failure).  A collective: every rank calls it, after the trace rows are
 * made.  A NIC removed during the run is refused across ranks, so the failure is a retry
 * counter's. */
void weft_window_share_failure (WeftWindow *win);

/* Calls @flush (on every rank alike) between two windows when the trace's rows held over all ranks
 * reach @bytes, or the run has executed WEFT_TRACE_FLUSH_EVENTS events since the last call:
 * weft_trace_gather, with weft_window_sender_rows. */
void weft_window_on_flush (WeftWindow *win, guint64 bytes,
                           void (*flush) (WeftWindow *win, void *data), void *data);

/* The sender's columns of the /flows rows (models/transport.h) of the flows this rank sends and
 * another receives, appended to @rows (WeftTraceFlow): those that finished since the last call,
 * as they were when they finished (at the end of the window in which they did), and with @all
 * (the end of the run) also those not finished, as they are now. */
void weft_window_sender_rows (WeftWindow *win, gboolean all, GArray *rows);
/* The flows among those whose sender columns changed in the window in which they finished, so
 * that their values at the finish are not known here (their rows may differ from one
 * process's). */
guint64 weft_window_unsure (const WeftWindow *win);

/* The packets this rank sent to other ranks, the flow-control packets among them (InfiniBand
 * FCPs, PFC PAUSE frames), and the windows run. */
guint64 weft_window_crossed (const WeftWindow *win);
guint64 weft_window_crossed_ctl (const WeftWindow *win);
guint64 weft_window_windows (const WeftWindow *win);
/* The events of one process's hang watchdog in this run, which no rank runs (cli/run.c adds
 * them to the run's event count). */
guint64 weft_window_watchdogs (const WeftWindow *win);
/* The windows' length: the cut links' lookahead, or less when a flow released on another rank
 * or a collective's gate starts flows sooner after the event that caused it (doc/parallel.md). */
weft_time_t weft_window_lookahead (const WeftWindow *win);

#endif /* WEFT_NETWORK_WINDOW_H */
