/* network/stats.c - the run's results from the models' state: the summary's statistics, the
 * /collectives rows, training steps and perftest figures. */
#include "config.h"
#define G_LOG_DOMAIN "weft-network"
#include "network/network.h"

#include "analysis/headline.h"
#include "models/switch.h"
#include "sim/units.h"
#include "workloads/collective.h"
#include "workloads/nccl_tune.h"
#include "workloads/workload.h"


void
weft_network_stats (const WeftNetwork *net, WeftNetworkStats *st)
{
    *st = (WeftNetworkStats){ 0 };
    const WeftTransport *tp = &net->tp;
    st->n_flows = tp->n_flows - (guint) tp->flows_unused; /* a layout not taken never ran */
    double *fct = g_new (double, MAX (tp->n_flows, 1));
    double *slow = g_new (double, MAX (tp->n_flows, 1));
    double sum = 0, sum2 = 0;
    for (guint i = 0; i < tp->n_flows; i++) {
        const WeftFlow *f = &tp->flows[i];
        if (f->unused)
            continue;
        const WeftFlowLoss *loss = weft_flow_loss_of (f);
        st->retransmits += loss->retransmits;
        st->timeouts += loss->timeouts;
        st->ooo_discards += loss->ooo_discards;
        st->dup_discards += loss->dup_discards;
        st->bytes_delivered += f->delivered;
        st->bytes_offered += f->spec.size_bytes;
        st->acks_sent += f->acks_sent;
        st->finished += f->finished;
        /* FCT, slowdown and fairness are over the flows of flow workloads only: a
         * collective's slices and a perftest's messages are not flows anyone asks about one
         * by one (analysis/headline.h). */
        if (!f->finished || !net->flow_groups || !net->flow_groups[f->spec.group])
            continue;
        weft_time_t t = f->finish_ps - f->start_ps;
        fct[st->fct_flows] = weft_time_to_us (t);
        slow[st->fct_flows] = f->ideal_fct_ps ? (double) t / (double) f->ideal_fct_ps : 0;
        /* Jain's index over per-flow throughput (bytes / FCT). */
        double x = t ? (double) f->spec.size_bytes / (double) t : 0;
        sum += x;
        sum2 += x * x;
        st->fct_flows++;
    }
    guint n = st->fct_flows;
    if (n > 0) {
        /* analysis/headline.h's quantiles, as weft report and weft compare have them */
        WeftQuantiles qf, qs;
        weft_headline_quantiles (fct, n, &qf);
        weft_headline_quantiles (slow, n, &qs);
        st->fct_p50_us = qf.p50;
        st->fct_p99_us = qf.p99;
        st->fct_max_us = qf.max;
        st->slowdown_p99 = qs.p99;
        st->jain = sum2 > 0 ? sum * sum / (n * sum2) : 0;
    }
    g_free (fct);
    g_free (slow);
    for (guint i = 0; i < net->ports->len; i++) {
        const WeftPort *p = net->ports->pdata[i];
        st->drops += p->drops;
        st->data_drops += p->drops_data;
        st->max_queue_bytes = MAX (st->max_queue_bytes, p->max_q);
        st->packet_hops += p->tx_packets;
        st->inflight_data += weft_port_inflight_data (p);
    }
    for (guint i = 0; i < net->switches->len; i++)
        st->unroutable += ((const WeftSwitch *) net->switches->pdata[i])->unroutable;
    for (const WeftMechanism *const *mech = net->env.mechs; *mech; mech++)
        if ((*mech)->count)
            (*mech)->count (&net->env, st);
}

void
weft_network_summary (const WeftNetwork *net, const WeftNetworkStats *st, GString *out)
{
    g_autofree char *maxq = weft_units_format_bytes (st->max_queue_bytes);
    g_string_append_printf (out, "  flows        %u of %u finished\n", st->finished, st->n_flows);
    if (st->fct_flows > 0) {
        g_string_append_printf (out, "  FCT          p50 %.3f us  p99 %.3f us  max %.3f us\n",
                                st->fct_p50_us, st->fct_p99_us, st->fct_max_us);
        g_string_append_printf (out, "  slowdown     p99 %.3f\n", st->slowdown_p99);
        g_string_append_printf (out, "  fairness     Jain's index %.4f over per-flow throughput\n",
                                st->jain);
    }
    g_string_append_printf (out, "  max queue    %s\n", maxq);
    g_string_append_printf (out,
                            "  drops        %" G_GUINT64_FORMAT " (%" G_GUINT64_FORMAT " data)\n",
                            st->drops, st->data_drops);
    g_string_append_printf (
        out, "  retransmits  %" G_GUINT64_FORMAT " (%" G_GUINT64_FORMAT " timeouts)\n",
        st->retransmits, st->timeouts);
    for (const WeftMechanism *const *mech = net->env.mechs; *mech; mech++)
        if ((*mech)->summary)
            (*mech)->summary (&net->env, st, out);
    weft_mechanisms_unused_line (&net->env, out);
    g_string_append_printf (out, "  packets      %" G_GUINT64_FORMAT " hops\n", st->packet_hops);
}

/* ---- collectives ---------------------------------------------------------------------- */

void
weft_network_collective_row (const WeftNetwork *net, guint32 id, WeftTraceCollective *row)
{
    const WeftCollRun *c = &net->tp.colls[id];
    const WeftCollInstance *s = &c->spec;
    *row = (WeftTraceCollective){ 0 };
    row->id = id;
    g_strlcpy (row->workload, net->workload_names->pdata[s->group], sizeof row->workload);
    g_strlcpy (row->op, weft_collective_op_name (s->op), sizeof row->op);
    row->bytes = s->bytes;
    row->count = s->count;
    g_strlcpy (row->type, s->type, sizeof row->type);
    g_strlcpy (row->redop, s->redop, sizeof row->redop);
    row->root = s->root;
    row->n_ranks = s->n_ranks;
    row->in_place = s->in_place;
    row->warmup = s->warmup;
    row->iteration = s->iteration;
    row->start_ps = c->start_ps;
    row->finish_ps = c->finish_ps;
    row->time_ps = c->finish_ps - c->start_ps;
    row->algbw_gbs = row->time_ps ? (double) s->bytes / weft_time_to_s (row->time_ps) / 1e9 : 0;
    row->busbw_gbs = row->algbw_gbs * s->bus_factor;
    g_strlcpy (row->algo, s->algo < 0 ? "P2P" : weft_nccl_algo_name (s->algo), sizeof row->algo);
    g_strlcpy (row->proto, weft_nccl_proto_name (s->proto), sizeof row->proto);
    row->staged = (s->staged_layouts >> c->layout) & 1;
}

void
weft_network_training_steps (const WeftNetwork *net, guint group, GArray *steps)
{
    const WeftTransport *tp = &net->tp;
    /* Instances are generated step after step, so one pass gathers each step in turn. */
    WeftTrainStep cur = { 0 };
    weft_time_t tp_end = 0, end = 0;
    gboolean open = FALSE, complete = TRUE, has_tp = FALSE;
    for (guint c = 0; c <= tp->n_colls; c++) {
        const WeftCollRun *r = c < tp->n_colls ? &tp->colls[c] : NULL;
        if (r && (r->spec.group != group || r->spec.role == WEFT_COLL_ROLE_BENCH))
            continue;
        if (open && (!r || r->spec.step != cur.step)) {
            if (!complete)
                break; /* a later step cannot have finished either */
            weft_time_t compute_end = (has_tp ? tp_end : cur.start_ps) + cur.compute_ps;
            cur.time_ps = MAX (end, compute_end) - cur.start_ps;
            cur.exposed_ps = cur.time_ps - cur.compute_ps;
            g_array_append_val (steps, cur);
            open = FALSE;
        }
        if (!r)
            break;
        if (!open) {
            cur = (WeftTrainStep){ .step = r->spec.step,
                                   .start_ps = WEFT_TIME_NEVER,
                                   .compute_ps = r->spec.compute_ps };
            tp_end = end = 0;
            open = TRUE;
            has_tp = FALSE;
        }
        if (!r->finished) {
            complete = FALSE;
            continue;
        }
        cur.start_ps = MIN (cur.start_ps, r->start_ps - r->spec.ready_ps);
        end = MAX (end, r->finish_ps);
        if (r->spec.role == WEFT_COLL_ROLE_TP) {
            has_tp = TRUE;
            tp_end = MAX (tp_end, r->finish_ps);
        }
    }
}


/* ---- perftest --------------------------------------------------------------------------- */

gboolean
weft_network_perftest (const WeftNetwork *net, const WeftExperiment *exp, guint group,
                       WeftPerftestSpec *spec, GArray *results)
{
    g_autofree char *name =
        g_strconcat ("workload.", (char *) net->workload_names->pdata[group], NULL);
    if (!weft_workload_perftest_spec (exp, net->graph, name, spec, NULL))
        return FALSE;
    /* The group's flows share one start, so id order is their generation order. */
    guint64 n = weft_workload_perftest_n_flows (spec);
    g_autofree weft_time_t *start = g_new (weft_time_t, MAX (n, 1));
    g_autofree weft_time_t *finish = g_new (weft_time_t, MAX (n, 1));
    g_autofree gboolean *done = g_new (gboolean, MAX (n, 1));
    guint64 k = 0;
    for (guint i = 0; i < net->tp.n_flows && k < n; i++) {
        const WeftFlow *f = &net->tp.flows[i];
        if (f->spec.group != group)
            continue;
        start[k] = f->start_ps;
        finish[k] = f->finish_ps;
        done[k++] = f->finished;
    }
    g_assert (k == n);
    for (guint s = 0; s < spec->n_sizes; s++) {
        WeftPerftestResult r;
        if (!weft_workload_perftest_measure (spec, s, start, finish, done, &r))
            break;
        g_array_append_val (results, r);
    }
    return TRUE;
}
