/* tests/check_collective_run.c - collectives run through the network, compared with the
 * alpha-beta model and with NCCL's known figures.
 *
 * Checks:
 *  - ring all-reduce on an ideal uniform network (one switch, no header, no switch latency)
 *    takes 2(n-1)/n S/B + 2(n-1) alpha within 1 % for n = 2, 4, 8 at sizes large against the
 *    chunk, with alpha = the configured step latency + the two NICs' processing + one chunk's
 *    and one packet's serialization (the network's per-step latency); and exactly
 *    2(n-1)(alpha + 2 packet times) when each step is one packet (no pipelining to hide
 *    anything);
 *  - every other op against its own alpha-beta time (all-gather, reduce-scatter, broadcast,
 *    reduce, all-to-all, send/recv), and the reported algbw and busbw follow nccl-tests'
 *    definitions (algbw = size / time, busbw = algbw x the op's factor);
 *  - one DGX H100 (8 GPUs on NVSwitch), all-reduce at 256 MiB: busbw = 450 GB/s x the 0.8
 *    protocol efficiency within 2 %;
 *  - rail mapping on 4 servers: every inter-server transfer joins GPUs of the same local
 *    index (the same rail), and no byte of data crosses a spine.
 *  - two DGX H100: the ring all-reduce meets the lower of its NVLink and NIC bounds (3 %); the
 *    protocol efficiency applies to NVLink sends only;
 *  - 4 NICs for 8 GPUs: every NIC carries the same bytes, GPU to GPU stays on NVLink, and the
 *    all-reduce runs at the four NICs' rate.
 *  - NICs slower than PCIe (HDR behind Gen5), and one NIC cable at half rate (a topology file
 *    exported and edited): the all-reduce runs at its slowest link's rate, in place as out of
 *    place.
 *  - GPUDirect off: the staging legs through host memory share each PCIe switch's uplink to
 *    the CPU, and the bus bandwidth falls to what half that uplink gives every ring; off from
 *    a group's Nth collective (after = workload.NAME.collective.N), exactly that collective
 *    and the later ones (in the run's numbering, groups generated in turn) are staged.
 *  - the oversubscription lesson: on the 4-SU SuperPOD fabric, an all-to-all spanning the SUs
 *    (PXN off) slows on the 2:1 taper by what the leaves' port counts imply (within 10 %),
 *    while a rail-aligned all-reduce inside one SU runs in the same time on both fabrics.
 * Every check but the tree's runs the ring with the Simple protocol (`algo = ring`, `proto =
 * simple`), its latencies pinned where a bound is checked; NCCL's choice and the other protocols
 * are tests/check_nccl_tune.c's and tests/check_collective_proto.c's.
 *  - two DGX H100: NCCL's tree (a chain per server, the servers joined GPU c to GPU c) meets
 *    its bound, NVLink carrying 1.75 S each way per GPU (3 %), on its rails;
 *  - two DGX H100, 1 MiB all-reduce: ports whose pull source defers the transmitter's look
 *    (pacing, nothing ready) finish every flow at the same picosecond as ports that look at
 *    every packet's end, with fewer events.
 * Leaves unchecked: tree all-reduce timing beyond two servers.
 * The model hides the step latency behind other slices when a step has many of them, so the
 * first check bounds it from above; the one-packet check pins it exactly.
 */
#include "config.h"
#include <check.h>
#include <glib/gstdio.h>
#include <string.h>

#include "cli/session.h"
#include "workloads/collective.h"
#include "models/port.h"
#include "topologies/export.h"
#include "tests/harness.h"


static void
run (WeftSession *s, const char *text)
{
    harness_prepare (s, text);
    ck_assert_int_eq (weft_sim_run (s->sim), WEFT_SIM_DONE);
}

/* The mean time of the timed (non-warm-up) collectives, in seconds. */
static double
mean_time (const WeftSession *s)
{
    double sum = 0;
    guint k = 0;
    for (guint c = 0; c < s->net->tp.n_colls; c++) {
        WeftTraceCollective row;
        weft_network_collective_row (s->net, c, &row);
        if (row.warmup)
            continue;
        /* nccl-tests' definitions, independently of weft's own columns. */
        double t = weft_time_to_s (row.time_ps);
        ck_assert_double_eq_tol (row.algbw_gbs, row.bytes / t / 1e9, 1e-9 * row.algbw_gbs);
        WeftCollOp op;
        ck_assert (weft_collective_op_from_name (row.op, &op));
        ck_assert_double_eq_tol (row.busbw_gbs,
                                 row.algbw_gbs * weft_collective_bus_factor (op, row.n_ranks),
                                 1e-9 * row.busbw_gbs);
        sum += t;
        k++;
    }
    ck_assert_uint_gt (k, 0);
    return sum / k;
}

#define B (100e9 / 8) /* bytes per second of every link */
/* The NICs' processing ([nic]): every step's transfer is a message, which the sending NIC
 * takes up in NIC_TX and the receiving NIC hands over in NIC_RX. */
#define NIC_TX 250e-9
#define NIC_RX 350e-9

/* The bandwidth bounds are the ring's with the Simple protocol, whose bytes on the wire are the
 * data; its per-step and base latencies (NCCL's 3.4 us per NVLink step, 14 us per network
 * step, 8.4 us once) would add some 20 % at these sizes, so they are pinned low: the bound is
 * what these tests check, tests/check_collective_proto.c the latencies. */
#define BOUND "algo = ring\nproto = simple\nstep_latency = 1us\nbase_latency = 0us\n"

static char *
ideal (guint n, const char *op, guint64 bytes, guint64 chunk, const char *latency)
{
    return g_strdup_printf (
        "[topology]\ngenerator = single_switch\nhosts = %u\nlink_rate = 100Gbps\n"
        "cable_length = 0m\n[switch]\nlatency = 0ns\n[ethernet]\nheader = 0B\nack = 1B\n"
        "[nic]\ntx_latency = 250ns\nrx_latency = 350ns\n"
        "[workload.c]\nkind = nccl-test\nop = %s\nminbytes = %" G_GUINT64_FORMAT "B\n"
        "maxbytes = %" G_GUINT64_FORMAT "B\niters = 2\nwarmup_iters = 1\nchannels = 1\n"
        "chunk = %" G_GUINT64_FORMAT "B\nstep_latency = %s\nalgo = ring\nproto = simple\n"
        "base_latency = 0us\n",
        n, op, bytes, bytes, chunk, latency);
}

START_TEST (test_collective_ring_all_reduce_alpha_beta)
{
    const guint ns[] = { 2, 4, 8 };
    const double S = 64.0 * 1024 * 1024, C = 64 * 1024, a0 = 1e-6;
    for (guint i = 0; i < G_N_ELEMENTS (ns); i++) {
        guint n = ns[i];
        g_autofree char *text = ideal (n, "all_reduce", (guint64) S, (guint64) C, "1us");
        WeftSession s;
        run (&s, text);
        double alpha = a0 + NIC_TX + NIC_RX + C / B + 4096 / B;
        double expect = 2.0 * (n - 1) / n * S / B + 2.0 * (n - 1) * alpha;
        ck_assert_double_eq_tol (mean_time (&s), expect, expect * 0.01);
        weft_session_clear (&s);
    }
    /* One packet per step: nothing to overlap, every step costs alpha (the step latency and
     * both NICs' processing) + two packet times (sender to switch, switch to receiver,
     * store-and-forward). */
    for (guint n = 4; n <= 8; n += 4) {
        g_autofree char *text = ideal (n, "all_reduce", n * 4096, 4096, "10us");
        WeftSession s;
        run (&s, text);
        double expect = 2.0 * (n - 1) * (10e-6 + NIC_TX + NIC_RX + 2 * 4096 / B);
        ck_assert_double_eq_tol (mean_time (&s), expect, expect * 0.001);
        weft_session_clear (&s);
    }
}
END_TEST

START_TEST (test_collective_every_op_alpha_beta)
{
    const guint n = 4;
    const double S = 32.0 * 1024 * 1024;
    const struct {
        const char *op;
        double bytes_per_link; /* the busiest link's load, in units of S */
        double steps;          /* step latencies on the critical path (tolerance only) */
    } ops[] = {
        { "all_gather", (n - 1.0) / n, n - 1 },
        { "reduce_scatter", (n - 1.0) / n, n - 1 },
        { "broadcast", 1, n - 1 },
        { "reduce", 1, n - 1 },
        { "alltoall", (n - 1.0) / n, 1 },
        { "sendrecv", 1, 1 },
    };
    for (guint i = 0; i < G_N_ELEMENTS (ops); i++) {
        g_autofree char *text = ideal (n, ops[i].op, (guint64) S, 64 * 1024, "1us");
        WeftSession s;
        run (&s, text);
        double stream = ops[i].bytes_per_link * S / B;
        double got = mean_time (&s);
        /* At least the busiest link's bytes at line rate; at most that plus the steps. */
        ck_assert_double_ge (got, stream * 0.999);
        double extra = ops[i].steps * (1e-6 + NIC_TX + NIC_RX + 2 * 64 * 1024 / B);
        ck_assert_msg (got <= (stream + extra) * 1.01, "%s: %g s, expected at most %g s", ops[i].op,
                       got, (stream + extra) * 1.01);
        weft_session_clear (&s);
    }
}
END_TEST

static char *
dgx_routed (guint servers, const char *routing, const char *extra)
{
    g_autofree char *dgx4 = harness_srcpath ("experiments/dgx4.ini");
    return g_strdup_printf ("[experiment]\ninclude = %s\n[topology]\nservers = %u\n"
                            "[fabric]\nkind = infiniband\n%s%s%s%s",
                            dgx4, servers, routing ? "routing = " : "", routing ? routing : "",
                            routing ? "\n" : "", extra);
}

static char *
dgx (guint servers, const char *extra)
{
    return dgx_routed (servers, NULL, extra);
}

START_TEST (test_collective_one_dgx_busbw_is_nvlink_times_efficiency)
{
    g_autofree char *text = dgx (1, "[workload.ar]\nkind = nccl-test\nop = all_reduce\n"
                                    "minbytes = 256MiB\nmaxbytes = 256MiB\niters = 1\n"
                                    "warmup_iters = 0\n" BOUND);
    WeftSession s;
    run (&s, text);
    WeftTraceCollective row;
    weft_network_collective_row (s.net, s.net->tp.n_colls - 1, &row);
    ck_assert_double_eq_tol (row.busbw_gbs, 450 * 0.8, 450 * 0.8 * 0.02);
    weft_session_clear (&s);
}
END_TEST

START_TEST (test_collective_rings_stay_on_their_rails)
{
    g_autofree char *text = dgx (4, "[workload.ar]\nkind = nccl-test\nop = all_reduce\n"
                                    "minbytes = 16MiB\nmaxbytes = 16MiB\niters = 1\n"
                                    "warmup_iters = 0\n");
    WeftSession s;
    run (&s, text);
    guint crossing = 0;
    for (guint i = 0; i < s.net->tp.n_flows; i++) {
        const WeftFlow *f = &s.net->tp.flows[i];
        const WeftNode *a = weft_graph_node (s.graph, f->spec.src);
        const WeftNode *b = weft_graph_node (s.graph, f->spec.dst);
        if (a->server == b->server)
            continue;
        crossing++;
        const char *ga = strrchr (a->name, 'u'), *gb = strrchr (b->name, 'u');
        ck_assert_str_eq (ga, gb); /* "gpuN": the same local GPU, the same rail */
    }
    ck_assert_uint_gt (crossing, 0);
    for (guint i = 0; i < s.net->ports->len; i++) {
        const WeftPort *p = s.net->ports->pdata[i];
        const WeftNode *from = weft_graph_node (s.graph, p->owner->node);
        const WeftNode *to = weft_graph_node (s.graph, p->link.peer->node);
        if ((from->tier == 2 || to->tier == 2) && from->kind == WEFT_NODE_SWITCH &&
            to->kind == WEFT_NODE_SWITCH)
            ck_assert_uint_eq (p->tx_bytes, 0);
    }
    weft_session_clear (&s);
}
END_TEST

START_TEST (test_collective_gpudirect_off_shares_the_pcie_uplink)
{
    /* 2 servers, 16 GPUs, 8 rings, one inter-server hop per ring and server.  With GPUDirect
     * off that hop is staged in host memory: on each server's PCIe switch c, the uplink to the
     * CPU carries the outgoing copy and the incoming DMA up, the outgoing DMA and the incoming
     * copy down - two streams per direction - so a ring's inter-server hop gets half of the
     * 50 GB/s uplink, below the NIC's 50 GB/s: bus bandwidth = 8 rings x 25 GB/s x payload
     * share (4096 / 4122).  With it on, the same hop runs near the NIC's rate. */
    const char *wl = "[workload.ar]\nkind = nccl-test\nop = all_reduce\nminbytes = 128MB\n"
                     "maxbytes = 128MB\niters = 1\nwarmup_iters = 0\n" BOUND;
    double busbw[2];
    for (guint off = 0; off < 2; off++) {
        g_autofree char *extra =
            g_strconcat ("[server]\ngpudirect = ", off ? "false" : "true", "\n", wl, NULL);
        g_autofree char *text = dgx (2, extra);
        WeftSession s;
        run (&s, text);
        WeftTraceCollective row;
        weft_network_collective_row (s.net, s.net->tp.n_colls - 1, &row);
        busbw[off] = row.busbw_gbs;
        weft_session_clear (&s);
    }
    double pcie = 50e9, expect_off = 8 * pcie / 2 * 4096.0 / 4122 / 1e9;
    ck_assert_double_eq_tol (busbw[1], expect_off, expect_off * 0.05);
    ck_assert_double_gt (busbw[0], 1.6 * busbw[1]);
}
END_TEST

/* Which collectives of @text (prepared, not run) stage a transfer through dgx-2's host memory:
 * bit c for collective c. */
static guint64
staged_collectives (const char *text)
{
    WeftSession s;
    harness_prepare (&s, text);
    guint32 cpu = weft_graph_lookup (s.graph, "dgx-2/cpu");
    ck_assert_uint_lt (s.net->tp.n_colls, 64);
    guint64 staged = 0;
    for (guint i = 0; i < s.net->tp.n_flows; i++) {
        const WeftFlowSpec *f = &s.net->tp.flows[i].spec;
        if ((f->src == cpu || f->dst == cpu) && f->coll != G_MAXUINT32)
            staged |= G_GUINT64_CONSTANT (1) << f->coll;
    }
    weft_session_clear (&s);
    return staged;
}

START_TEST (test_collective_gpudirect_off_from_a_groups_collective)
{
    /* Two nccl-test groups of two collectives each (out of place, in place), generated in
     * turn: a's are collectives 0 and 1, b's 2 and 3.  after = workload.b.collective.2 stages
     * b's second only, as after = collective.4 does; workload.a.collective.2 stages a's
     * second and every later one (1, 2, 3); workload.b.collective.1 stages 2 and 3. */
    const char *wl = "[workload.a]\nkind = nccl-test\nop = all_reduce\nminbytes = 1MB\n"
                     "maxbytes = 1MB\niters = 1\nwarmup_iters = 0\n" BOUND
                     "[workload.b]\nkind = nccl-test\nop = all_gather\nminbytes = 1MB\n"
                     "maxbytes = 1MB\niters = 1\nwarmup_iters = 0\n" BOUND;
    static const struct {
        const char *after;
        guint64 staged;
    } cases[] = { { "workload.b.collective.2", 0x8 },
                  { "collective.4", 0x8 },
                  { "workload.a.collective.2", 0xe },
                  { "workload.b.collective.1", 0xc } };
    for (guint k = 0; k < G_N_ELEMENTS (cases); k++) {
        g_autofree char *extra = g_strconcat (
            wl, "[fault.gdr]\nkind = gpudirect-off\nserver = dgx-2\nafter = ", cases[k].after, "\n",
            NULL);
        g_autofree char *text = dgx (2, extra);
        guint64 got = staged_collectives (text);
        ck_assert_msg (got == cases[k].staged, "after = %s: staged 0x%" G_GINT64_MODIFIER "x",
                       cases[k].after, got);
    }
}
END_TEST

START_TEST (test_collective_gpudirect_off_at_a_time)
{
    /* Two nccl-test groups side by side, each out of place then in place (a's collectives 0
     * and 1, b's 2 and 3; both groups start at 0).  With at = 1ps, the rule is "from the
     * first collective that starts at or after at": each group's first collective (started at
     * 0) keeps GPUDirect, each group's second is staged - collectives 1 and 3, which no
     * after = collective.N names (that stages a suffix of the numbering).  Checked against
     * every collective's own start: staged exactly when at <= start < until; with until at
     * the later group's second start, that one is not.  The layout not taken leaves no flow
     * behind: every flow that ran finished, and the staged ones crossed dgx-2's CPU. */
    const char *wl = "[workload.a]\nkind = nccl-test\nop = all_reduce\nminbytes = 1MB\n"
                     "maxbytes = 1MB\niters = 1\nwarmup_iters = 0\n" BOUND
                     "[workload.b]\nkind = nccl-test\nop = all_gather\nminbytes = 1MB\n"
                     "maxbytes = 1MB\niters = 1\nwarmup_iters = 0\n" BOUND;
    weft_time_t until = 0;
    for (guint k = 0; k < 2; k++) {
        g_autofree char *u =
            k ? g_strdup_printf ("until = %" G_GUINT64_FORMAT "ps\n", until) : g_strdup ("");
        g_autofree char *extra = g_strconcat (
            wl, "[fault.gdr]\nkind = gpudirect-off\nserver = dgx-2\nat = 1ps\n", u, NULL);
        g_autofree char *text = dgx (2, extra);
        WeftSession s;
        run (&s, text);
        ck_assert_uint_eq (s.net->tp.n_colls, 4);
        guint32 cpu = weft_graph_lookup (s.graph, "dgx-2/cpu");
        guint staged = 0;
        weft_time_t last_second = 0;
        for (guint c = 0; c < 4; c++) {
            WeftTraceCollective row;
            weft_network_collective_row (s.net, c, &row);
            gboolean want = row.start_ps >= 1 && (k == 0 || row.start_ps < until);
            ck_assert_msg (row.staged == want,
                           "until %d: collective %u at %" G_GUINT64_FORMAT " ps staged %u", k, c,
                           row.start_ps, row.staged);
            staged |= (guint) row.staged << c;
            if (c % 2 == 1)
                last_second = MAX (last_second, row.start_ps);
            /* the flows it ran: all finished; through dgx-2's CPU exactly when staged */
            gboolean via_cpu = FALSE;
            const WeftCollRun *r = &s.net->tp.colls[c];
            for (guint32 i = 0; i < r->spec.n_flows; i++) {
                const WeftFlow *f = &s.net->tp.flows[r->spec.first_flow + i];
                ck_assert (f->finished != f->unused);
                via_cpu |= f->finished && (f->spec.src == cpu || f->spec.dst == cpu);
            }
            ck_assert (via_cpu == want);
        }
        /* until at the later second start: only the earlier second collective is staged */
        ck_assert_msg (k == 0 ? staged == 0xa : staged == 0x2 || staged == 0x8, "staged 0x%x",
                       staged);
        if (k == 0)
            until = last_second; /* the later of the two second collectives' starts */
        weft_session_clear (&s);
    }
}
END_TEST

/* The bus bandwidth of the last collective of a run of @text. */
static double
last_busbw (const char *text)
{
    WeftSession s;
    run (&s, text);
    WeftTraceCollective row;
    weft_network_collective_row (s.net, s.net->tp.n_colls - 1, &row);
    weft_session_clear (&s);
    return row.busbw_gbs;
}

START_TEST (test_collective_two_dgx_ring_bounds)
{
    /* 2 servers x 8 GPUs, 8 x 400 Gb/s NICs, 128 MB.  In a ring every link of a channel
     * carries 2(n-1)/n S / C, so busbw = the slowest per-GPU or per-NIC share in bytes per
     * second.  NIC: one channel per NIC and direction, at 50 GB/s x payload share 4096 / 4122
     * (InfiniBand's 26 B of headers) x net_efficiency (1): 8 x 49.7 = 397.5 GB/s.  NVLink:
     * with PXN (the default, as NCCL's same-NIC rings) the exit GPU's data reaches the entry
     * GPU's NIC over NVLink, so every GPU sends on NVLink in every channel: 450 GB/s x 0.8.
     * Without PXN the rings cross rails at the NIC and a GPU sends on NVLink in 7 of the 8
     * channels: 450 x 0.8 x 8 / 7 = 411 GB/s, and the NICs bind.  The protocol efficiency
     * never touches what goes out through a NIC; net_efficiency does. */
    const char *wl = "[workload.ar]\nkind = nccl-test\nop = all_reduce\nminbytes = 128MB\n"
                     "maxbytes = 128MB\niters = 1\nwarmup_iters = 0\n" BOUND;
    const double nic = 8 * 400e9 / 8 * 4096.0 / (4096 + 26) / 1e9;
    const double nvlink = 450 * 0.8;
    g_autofree char *no_pxn = g_strconcat (wl, "pxn = false\n", NULL);
    /* Static routing: the rail-crossing flows of one ring each take their own spine. */
    g_autofree char *t0 = dgx_routed (2, "static", no_pxn);
    double got = last_busbw (t0);
    ck_assert_double_eq_tol (got, nic, nic * 0.03);
    ck_assert_double_gt (got, nvlink * 1.05);
    /* net_efficiency is the NIC sends' own factor: 0.9 of it, 0.9 of the bound. */
    g_autofree char *net90 = g_strconcat (no_pxn, "net_efficiency = 0.9\n", NULL);
    g_autofree char *t2 = dgx_routed (2, "static", net90);
    got = last_busbw (t2);
    ck_assert_double_eq_tol (got, 0.9 * nic, 0.9 * nic * 0.03);
    g_autofree char *t1 = dgx (2, wl);
    got = last_busbw (t1);
    ck_assert_double_eq_tol (got, MIN (nic, nvlink), MIN (nic, nvlink) * 0.03);
}
END_TEST

START_TEST (test_collective_two_dgx_tree_bounds)
{
    /* NCCL's tree on 2 servers x 8 GPUs, 8 channels, 64 MB, Simple, latencies pinned at 0.
     * Channel c's part P = S / 8 goes half on each tree, where every rank but the root sends
     * its half up once and receives it down once.  Inside a server channel c's chain runs GPU
     * c, c + 1, ..., c - 1: a GPU inside the chain sends up and down on NVLink in both trees
     * (2 P), the chain's two ends P, and each GPU is an end in 2 of the 8 channels: 6 x 2 P +
     * 2 x P = 1.75 S each way on NVLink.  Between the two servers both trees join GPU c to
     * GPU c (the first of each chain), so NIC c carries P each way: S / 8.  busbw = 2 x 15/16
     * x S / max(1.75 S / NVLink, S / 8 / NIC): NVLink binds at 450 GB/s x 0.8 x payload share
     * / 1.75 = 204 GB/s of algbw (the NICs would allow 8 x 49.7).  The ring, by contrast, is
     * held to the NVLink rate itself (test_collective_two_dgx_ring_bounds). */
    const double share = 4096.0 / (4096 + 26), S = 64e6;
    const double nvl = 450e9 * 0.8 * share, nic = 400e9 / 8 * share;
    const double bound = 2.0 * 15 / 16 * S / MAX (1.75 * S / nvl, S / 8 / nic) / 1e9;
    g_autofree char *text = dgx (2, "[workload.ar]\nkind = nccl-test\nop = all_reduce\n"
                                    "minbytes = 64MB\nmaxbytes = 64MB\niters = 1\n"
                                    "warmup_iters = 0\nalgo = tree\nproto = simple\n"
                                    "step_latency = 0us\nbase_latency = 0us\n");
    WeftSession s;
    run (&s, text);
    WeftTraceCollective row;
    weft_network_collective_row (s.net, s.net->tp.n_colls - 1, &row);
    ck_assert_str_eq (row.algo, "Tree");
    ck_assert_msg (row.busbw_gbs <= bound * 1.01 && row.busbw_gbs >= bound * 0.97,
                   "busbw %.1f GB/s, bound %.1f", row.busbw_gbs, bound);
    /* Every inter-server transfer joins the same local GPU: the trees stay on their rails. */
    guint crossing = 0;
    for (guint i = 0; i < s.net->tp.n_flows; i++) {
        const WeftFlow *f = &s.net->tp.flows[i];
        const WeftNode *a = weft_graph_node (s.graph, f->spec.src);
        const WeftNode *b = weft_graph_node (s.graph, f->spec.dst);
        if (a->server == b->server)
            continue;
        crossing++;
        ck_assert_int_eq (a->rail, b->rail);
    }
    ck_assert_uint_gt (crossing, 0);
    weft_session_clear (&s);
}
END_TEST

START_TEST (test_collective_shared_nics_all_carry)
{
    /* 4 NICs for 8 GPUs (GPU g on NIC g / 2, two GPUs per PCIe switch).  NCCL's rings enter
     * and leave a server through one NIC; with two GPUs under it, one GPU receives from the
     * NIC and the other sends to it, and the channels spread over all NICs.  So every NIC
     * carries the same bytes (within 2 %), no byte between two GPUs of a server crosses PCIe,
     * and the all-reduce runs at the four NICs' rate: 4 x 50 GB/s x 4096 / 4122. */
    g_autofree char *text = dgx (2, "[server]\nnics = 4\n[workload.ar]\nkind = nccl-test\n"
                                    "op = all_reduce\nminbytes = 128MB\nmaxbytes = 128MB\n"
                                    "iters = 1\nwarmup_iters = 0\n" BOUND);
    WeftSession s;
    run (&s, text);
    WeftTraceCollective row;
    weft_network_collective_row (s.net, s.net->tp.n_colls - 1, &row);
    double bound = 4 * 400e9 / 8 * 4096.0 / (4096 + 26) / 1e9;
    ck_assert_double_eq_tol (row.busbw_gbs, bound, bound * 0.05);
    guint64 lo = G_MAXUINT64, hi = 0;
    guint nics = 0;
    for (guint i = 0; i < s.net->ports->len; i++) {
        const WeftPort *p = s.net->ports->pdata[i];
        const WeftNode *from = weft_graph_node (s.graph, p->owner->node);
        const WeftNode *to = weft_graph_node (s.graph, p->link.peer->node);
        if (from->kind != WEFT_NODE_NIC || to->kind != WEFT_NODE_SWITCH)
            continue;
        nics++;
        lo = MIN (lo, p->tx_bytes);
        hi = MAX (hi, p->tx_bytes);
    }
    ck_assert_uint_eq (nics, 8);
    ck_assert_uint_gt (lo, 0);
    ck_assert_double_le ((double) (hi - lo), 0.02 * (double) hi);
    guint inside = 0;
    for (guint i = 0; i < s.net->tp.n_flows; i++) {
        const WeftFlow *f = &s.net->tp.flows[i];
        const WeftNode *a = weft_graph_node (s.graph, f->spec.src);
        const WeftNode *b = weft_graph_node (s.graph, f->spec.dst);
        if (a->kind != WEFT_NODE_GPU || b->kind != WEFT_NODE_GPU || a->server != b->server)
            continue;
        inside++;
        guint32 peer, pp;
        ck_assert (weft_graph_peer (s.graph, f->spec.src, f->tx_port, &peer, &pp));
        ck_assert_int_eq (weft_graph_node (s.graph, peer)->kind, WEFT_NODE_NVSWITCH);
    }
    ck_assert_uint_gt (inside, 0);
    weft_session_clear (&s);
}
END_TEST

START_TEST (test_collective_slow_nic_does_not_stall_the_gpu)
{
    /* A NIC slower than the GPU's PCIe link (200 Gb/s = 25 GB/s behind 50 GB/s PCIe): the
     * NIC reads the GPU's data at its own rate, so nothing queues inside the server and the
     * GPU's other channels never wait behind it.  2 servers: busbw = 8 NICs x 25 GB/s x
     * 4096 / 4122, within 5 %, in place as out of place. */
    g_autofree char *text = dgx (2, "[server]\nnic_rate = 200Gbps\n[workload.ar]\n"
                                    "kind = nccl-test\nop = all_reduce\nminbytes = 128MB\n"
                                    "maxbytes = 128MB\niters = 1\nwarmup_iters = 0\n" BOUND);
    WeftSession s;
    run (&s, text);
    double bound = 8 * 200e9 / 8 * 4096.0 / (4096 + 26) / 1e9;
    WeftTraceCollective out, in;
    weft_network_collective_row (s.net, 0, &out);
    weft_network_collective_row (s.net, 1, &in);
    ck_assert (!out.in_place && in.in_place);
    ck_assert_double_eq_tol (out.busbw_gbs, bound, bound * 0.05);
    ck_assert_double_eq_tol (in.busbw_gbs, out.busbw_gbs, out.busbw_gbs * 0.01);
    weft_session_clear (&s);
}
END_TEST

START_TEST (test_collective_one_slow_cable_sets_the_pace)
{
    /* 4 servers, one NIC cable (dgx-2's rail-1 NIC to its leaf) at half rate, from the
     * topology exported as a file with that one link edited.  The ring through that cable
     * carries the same share as every other, so the all-reduce goes at the rate of its
     * slowest link: 8 channels x 25 GB/s x 4096 / 4122, within 5 %; in place as out of
     * place. */
    const char *ar = "[workload.ar]\nkind = nccl-test\nop = all_reduce\nminbytes = 128MB\n"
                     "maxbytes = 128MB\niters = 1\nwarmup_iters = 0\n" BOUND;
    g_autofree char *gen = dgx (4, ar);
    WeftSession s;
    harness_prepare (&s, gen);
    g_autoptr (GString) topo = g_string_new (NULL);
    weft_topo_export_file (topo, s.graph);
    weft_session_clear (&s);
    const char *cable = "link dgx-2/mlx5_3:2 su0-rail1-leaf:2 400000000000bps";
    char *at = strstr (topo->str, cable);
    ck_assert_ptr_nonnull (at);
    ck_assert_ptr_null (strstr (at + 1, cable));
    at[strlen (cable) - strlen ("400000000000bps")] = '2'; /* 400 Gb/s -> 200 Gb/s */
    g_autofree char *path = g_build_filename (harness_tmp, "slow.topo", NULL);
    ck_assert (g_file_set_contents (path, topo->str, -1, NULL));
    g_autofree char *text =
        g_strdup_printf ("[topology]\ngenerator = file\nfile = %s\n[fabric]\nkind = infiniband\n"
                         "routing = static\n%s",
                         path, ar);
    run (&s, text);
    double bound = 8 * 200e9 / 8 * 4096.0 / (4096 + 26) / 1e9;
    WeftTraceCollective out, in;
    weft_network_collective_row (s.net, 0, &out);
    weft_network_collective_row (s.net, 1, &in);
    ck_assert_double_eq_tol (out.busbw_gbs, bound, bound * 0.05);
    ck_assert_double_eq_tol (in.busbw_gbs, out.busbw_gbs, out.busbw_gbs * 0.01);
    weft_session_clear (&s);
}
END_TEST

/* The uplinks of a leaf (links to tier-2 switches) and the NICs on it, counted in the graph. */
static void
leaf_ports (const WeftGraph *g, guint32 leaf, guint *up, guint *nics)
{
    *up = *nics = 0;
    const WeftNode *n = weft_graph_node (g, leaf);
    for (guint p = 0; p < n->ports->len; p++) {
        guint32 peer, pp;
        if (!weft_graph_peer (g, leaf, p, &peer, &pp))
            continue;
        const WeftNode *m = weft_graph_node (g, peer);
        *up += m->kind == WEFT_NODE_SWITCH && m->tier == 2;
        *nics += m->kind == WEFT_NODE_NIC;
    }
}

START_TEST (test_collective_oversubscription_lesson)
{
    /* An all-to-all among GPU 0 of all 127 servers of 4 SUs (PXN off: every rank on rail 0),
     * then a rail-aligned all-reduce inside SU 0, on the 1:1 fabric and on the 2:1 taper.  A
     * leaf with n of the N ranks sends n (N - n) / (N - 1) NICs' worth across its uplinks; where
     * that exceeds its uplinks u, the all-to-all slows by demand / u.  The all-reduce never
     * leaves its rail's leaf, so the taper cannot touch it. */
    GString *gpus = g_string_new (NULL);
    for (guint i = 1; i <= 127; i++)
        g_string_append_printf (gpus, "%sdgx-%u/gpu0", i > 1 ? ";" : "", i);
    const char *fabrics[] = { "superpod-4su.ini", "superpod-4su-oversub-2to1.ini" };
    double a2a[2], ar[2], slow[2];
    for (guint k = 0; k < 2; k++) {
        g_autofree char *rel = g_strconcat ("experiments/", fabrics[k], NULL);
        g_autofree char *path = harness_srcpath (rel);
        g_autofree char *text = g_strdup_printf (
            "[experiment]\ninclude = %s\n[fabric]\nkind = infiniband\nrouting = static\n"
            "[workload.a2a]\nkind = nccl-test\nop = alltoall\nminbytes = 16MiB\n"
            "maxbytes = 16MiB\niters = 1\nwarmup_iters = 0\npxn = false\ngpus = %s\n",
            path, gpus->str);
        WeftSession s;
        run (&s, text);
        a2a[k] = mean_time (&s);
        slow[k] = 1;
        const guint N = 127;
        for (guint32 id = 0; id < weft_graph_n_nodes (s.graph); id++) {
            const WeftNode *n = weft_graph_node (s.graph, id);
            if (n->kind != WEFT_NODE_SWITCH || n->tier != 1 || n->rail != 0)
                continue;
            guint up, nics;
            leaf_ports (s.graph, id, &up, &nics);
            double demand = (double) nics * (N - nics) / (N - 1);
            slow[k] = MAX (slow[k], demand / up);
        }
        weft_session_clear (&s);

        g_autofree char *text2 = g_strdup_printf (
            "[experiment]\ninclude = %s\n[fabric]\nkind = infiniband\nrouting = static\n"
            "[workload.ar]\nkind = nccl-test\nop = all_reduce\nminbytes = 32MiB\n"
            "maxbytes = 32MiB\niters = 1\nwarmup_iters = 0\ngpus = dgx-1/gpu0..7;"
            "dgx-2/gpu0..7;dgx-3/gpu0..7;dgx-4/gpu0..7\n",
            path);
        run (&s, text2);
        ar[k] = mean_time (&s);
        weft_session_clear (&s);
    }
    g_string_free (gpus, TRUE);
    ck_assert_double_eq_tol (slow[0], 1.0, 1e-9); /* 1:1 does not bind */
    ck_assert_double_gt (slow[1], 1.2);
    double expect = slow[1] / slow[0];
    ck_assert_double_eq_tol (a2a[1] / a2a[0], expect, expect * 0.10);
    ck_assert_double_eq_tol (ar[1], ar[0], ar[0] * 0.01);
}
END_TEST

/* A port whose pull source is pacing it or has nothing ready takes no "transmitter free"
 * event (models/port.h, pull_defer): the same run with every port looking again at each packet's
 * end, as before, finishes every flow at the same picosecond with more events. */
START_TEST (test_collective_deferred_transmitter_looks_change_nothing)
{
    g_autofree char *text = dgx (2, "[workload.ar]\nkind = nccl-test\nop = all_reduce\n"
                                    "minbytes = 1MiB\nmaxbytes = 1MiB\niters = 1\n"
                                    "warmup_iters = 0\n");
    WeftSession a, b;
    run (&a, text);
    harness_prepare (&b, text);
    for (guint i = 0; i < b.net->ports->len; i++)
        ((WeftPort *) b.net->ports->pdata[i])->pull_defer = NULL;
    ck_assert_int_eq (weft_sim_run (b.sim), WEFT_SIM_DONE);
    ck_assert_uint_eq (a.net->tp.n_flows, b.net->tp.n_flows);
    ck_assert_uint_gt (a.net->tp.n_flows, 0);
    for (guint f = 0; f < a.net->tp.n_flows; f++)
        ck_assert_uint_eq (a.net->tp.flows[f].finish_ps, b.net->tp.flows[f].finish_ps);
    ck_assert_uint_eq (a.sim->now, b.sim->now);
    ck_assert_uint_lt (a.sim->events, b.sim->events);
    weft_session_clear (&a);
    weft_session_clear (&b);
}
END_TEST

Suite *
test_suite (void)
{
    Suite *s = suite_create ("collective_run");
    TCase *tc = tcase_create ("run");
    tcase_add_checked_fixture (tc, harness_tmp_setup, harness_tmp_teardown);
    tcase_set_timeout (tc, 300);
    tcase_add_test (tc, test_collective_ring_all_reduce_alpha_beta);
    tcase_add_test (tc, test_collective_every_op_alpha_beta);
    tcase_add_test (tc, test_collective_one_dgx_busbw_is_nvlink_times_efficiency);
    tcase_add_test (tc, test_collective_rings_stay_on_their_rails);
    tcase_add_test (tc, test_collective_two_dgx_ring_bounds);
    tcase_add_test (tc, test_collective_two_dgx_tree_bounds);
    tcase_add_test (tc, test_collective_shared_nics_all_carry);
    tcase_add_test (tc, test_collective_slow_nic_does_not_stall_the_gpu);
    tcase_add_test (tc, test_collective_one_slow_cable_sets_the_pace);
    tcase_add_test (tc, test_collective_gpudirect_off_shares_the_pcie_uplink);
    tcase_add_test (tc, test_collective_gpudirect_off_from_a_groups_collective);
    tcase_add_test (tc, test_collective_gpudirect_off_at_a_time);
    tcase_add_test (tc, test_collective_oversubscription_lesson);
    tcase_add_test (tc, test_collective_deferred_transmitter_looks_change_nothing);
    suite_add_tcase (s, tc);
    return s;
}
