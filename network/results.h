/* network/results.h - what `weft run` prints beyond its summary, as text: the tables of the
 * workloads that mimic a benchmark (nccl-tests, perftest), training steps, and the run's
 * progress for the progress line.
 *
 * The text comes from the finished collectives and flows of a run (network/stats.c turns
 * them into /collectives rows and perftest figures) and the formatters of analysis/, so the
 * front end only prints it; `weft report` prints nccl-tests tables from a trace through the
 * same formatter (analysis/nccl_table.h), which is why both agree.  Each function appends to
 * a GString and prints nothing for a run without such workloads.
 */
#ifndef WEFT_NETWORK_RESULTS_H
#define WEFT_NETWORK_RESULTS_H

#include "network/network.h"

/** The fraction of the run done, 0 to 1: simulated time over [experiment] duration when the
 * run has one, else the fraction of its flows finished (0 with no flows). */
double weft_network_progress (const WeftNetwork *net);

/** Flows in the run's flow table (the workload's, collectives' included). */
guint weft_network_n_flows (const WeftNetwork *net);

/** For every workload whose nccl-tests-style (benchmark) collectives finished: a line
 * "# [workload.NAME] BINARY" and nccl-tests' output from those collectives' /collectives rows
 * (analysis/nccl_table.h), the ranks named after the nodes they ran on. */
void weft_network_print_nccl_tables (const WeftNetwork *net, GString *out);

/** For every ib_write_bw / ib_write_lat workload with a finished size: a line
 * "# [workload.NAME] ib_write_bw" (or _lat) and perftest's output (analysis/perftest_table.h):
 * the device is the NIC's name after its server ("dgx-1/nic3" -> "nic3"), the MTU the
 * fabric's, and on Ethernet fabrics the link type "Ethernet" with GID index 3 (RoCE v2).
 * @exp: the experiment the network was built from. */
void weft_network_print_perftest_tables (const WeftNetwork *net, const WeftExperiment *exp,
                                         GString *out);

/** weft_network_print_perftest_tables() from a trace: the same text, for every ib_write_bw /
 * ib_write_lat workload of @experiment_text (the trace's /meta copy) with a finished size,
 * from its rows of @flows (/flows, any order); and, when @rows is not NULL, each line as a
 * WeftPerftestTableRow appended to @rows (set its clear function to
 * weft_perftest_table_row_clear).  FALSE when the experiment no longer configures (its fabric,
 * topology or perftest keys): WEFT_CONFIG_ERROR or WEFT_TOPO_ERROR, @out then holding the
 * tables before it. */
gboolean weft_network_perftest_tables_from_trace (const char *experiment_text,
                                                  const WeftTraceFlow *flows, guint n_flows,
                                                  GString *out, GArray *rows, GError **error);

/** For every kind = training workload with a finished step: a table of its steps (time,
 * compute, exposed communication, in microseconds) and their means
 * (weft_network_training_steps()). */
void weft_network_print_training_steps (const WeftNetwork *net, GString *out);

/** The summary's first lines: the answer to each workload's question (analysis/headline.h):
 * bus bandwidth per benchmark collective, mean step time and exposed communication per
 * training workload, bandwidth (largest size) or latency (smallest) per perftest workload,
 * aggregate and per-flow throughput per flow workload.  @exp: the experiment the network was
 * built from (perftest's sizes), or NULL to leave perftest out. */
void weft_network_print_headline (const WeftNetwork *net, const WeftExperiment *exp, GString *out);

#endif /* WEFT_NETWORK_RESULTS_H */
