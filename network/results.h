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

/** For every workload whose nccl-tests-style (benchmark) collectives finished: a line
 * "# [workload.NAME] BINARY" and nccl-tests' output from those collectives' /collectives rows
 * (analysis/nccl_table.h), the ranks named after the nodes they ran on. */
void weft_network_print_nccl_tables (const WeftNetwork *net, GString *out);

#endif /* WEFT_NETWORK_RESULTS_H */
