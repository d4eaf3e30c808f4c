#!/bin/sh
# tests/e2e/mpi_identity.sh - one run across 1, 2 and 4 MPI ranks gives one process's results
# (doc/parallel.md).
# Checks, for five point-to-point experiments: a RoCE k = 4 fat tree with PFC pauses, an
# InfiniBand incast on a k = 4 fat tree whose credits run short, Ultra Ethernet packet spraying
# on a k = 4 fat tree (with /uet samples), RoCE with DCQCN on a k = 4 fat tree (an incast and
# a permutation, /dcqcn samples, CNPs crossing ranks), and the 4-server DGX H100 cluster of
# experiments/dgx4.ini (a permutation of 1 MiB, split by the graph): /flows, /links, /ports and
# /paths (and /pfc, /buffers, /dcqcn, /uet where they have rows) are identical (h5diff) to one
# process's under mpirun -np 1, 2 and 4 (4 oversubscribes the cores, and gathers the trace's
# rows to rank 0 between every two windows, [parallel] gather_bytes = 1B, where 1 and 2 ranks
# gather them at the end), and /meta's event count is one process's; every rank reports events
# executed and packets sent to other ranks,
# both non-zero on every rank of 2 and 4; on the PFC and InfiniBand fabrics (and RoCE with
# DCQCN) flow-control packets (PAUSE frames, credits) crossed between ranks, and the one-process
# run really paused (stall time in /links); a run stopped by its duration, unfinished flows and all, is
# the same on 2 ranks, whose rank 0 writes --summary-json; a PFC deadlock is found by the
# watchdog at the same time on 2 and 3 ranks, with the same data sets; faults, a subnet
# manager's sweeps and a failed workload (below, "Faults").
# Collectives and flow dependencies: the flagship experiments/dgx4-allreduce.ini, shrunk to one
# 64 KB size and one iteration, no warm-up (two collectives, out of place then in place, the
# second gated on the first), and four ib_write_lat ping-pongs between servers on two rails
# (every message waits for the one before it), split by the graph with lookahead_floor = 10ns
# so that the servers' 3 m leaf cables can be cut: the same data sets (/collectives too) and
# the same nccl-tests and ib_write_lat tables as one process's on 1, 2 and 4 ranks, with events and packets
# across on every rank; one step of experiments/dgx4-training.ini (collectives gated on compute
# time), split alike: the same data sets and step table on 2 ranks.  The shrunk all-reduce
# again with faults that wait for its collectives and GPUDirect lost from a time and from a
# collective on (arf): the same data sets (/faults too) and table on 1, 2 and 4 ranks; a fault
# that would begin in the event that completes a collective is refused.
# ib_write_bw over all sizes (releases in zero time between two servers, kept on one rank by the
# partitioner) is the same on 2 ranks.
# (What cannot cross ranks, a release in zero time, is refused: tests/e2e/mpi_ranks.sh.)
# Unchecked: speed; interrupts across ranks (stopped at a window's start: doc/parallel.md).
# Skipped (77) only when weft was built without MPI; CI builds with it.
. "$WEFT_SRCDIR/tests/e2e/lib.sh"
[ "${WEFT_MPI:-no}" = yes ] || { echo "weft built without MPI: skipped"; exit 77; }
need mpirun
need h5diff
# Every run's bound: it catches a rank left hanging, not slowness.  Each run takes a few seconds
# alone; 4 oversubscribed ranks on a 2-core machine already busy took over 120 s.
LIMIT=400
{ fattree_k4; cat <<'INI'; } >"$TMP/roce.ini"
[experiment]
seed = 3
[fabric]
kind = roce
routing = ecmp
[pfc]
enabled = true
xoff = 20000B
xon = 12000B
[dcqcn]
enabled = false
[workload.perm]
kind = permutation
pattern = random
flow_size = 200000B
[trace]
interval = 5us
INI
{ fattree_k4; cat <<'INI'; } >"$TMP/ib.ini"
[experiment]
seed = 5
[fabric]
kind = infiniband
routing = static
[infiniband]
buffer = 16KiB
vls = 1
[workload.incast]
kind = incast
senders = 12
receiver = host0
flow_size = 100000B
[trace]
interval = 5us
INI
{ fattree_k4; cat <<'INI'; } >"$TMP/ue.ini"
[experiment]
seed = 7
[fabric]
kind = ultra-ethernet
mtu = 4096B
routing = ecmp
[switch]
buffer = 64KiB
[uet]
load_balance = oblivious
ev_pool = 64
delivery = rud
trimming = true
[workload.perm]
kind = permutation
pattern = random
flow_size = 200000B
[trace]
interval = 5us
INI
{ fattree_k4; cat <<'INI'; } >"$TMP/dcqcn.ini"
[experiment]
seed = 4
[fabric]
kind = roce
routing = ecmp
[pfc]
enabled = true
[dcqcn]
preset = connectx
[workload.incast]
kind = incast
senders = 12
receiver = host0
flow_size = 300000B
[workload.perm]
kind = permutation
pattern = random
flow_size = 200000B
[trace]
interval = 5us
INI
cat >"$TMP/dgx.ini" <<INI
[experiment]
include = $WEFT_SRCDIR/experiments/dgx4.ini
seed = 2
[workload.perm]
kind = permutation
pattern = random
flow_size = 1MiB
[parallel]
partition = graph
[trace]
interval = 5us
INI
cat >"$TMP/ar.ini" <<INI
[experiment]
include = $WEFT_SRCDIR/experiments/dgx4-allreduce.ini
[workload.allreduce]
minbytes = 64KB
maxbytes = 64KB
iters = 1
warmup_iters = 0
[parallel]
partition = graph
lookahead_floor = 10ns
INI
# The same with faults that wait for collectives and GPUDirect lost during the run: a NIC cable
# trained at 100 Gb/s from 2 us after the first all-reduce begins (for 30 us), another at 1x
# from 1 us after the second begins (for 20 us), dgx-3 without GPUDirect from 30 us to 80 us
# (the second all-reduce starts in that span: laid out staged as it starts) and dgx-2 from the
# second collective on.
{
    cat "$TMP/ar.ini"
    cat <<'INI'
[fault.ber]
kind = degraded
link = dgx-1/mlx5_0
rate = 100Gbps
after = workload.allreduce.collective.1 + 2us
until = 30us
[fault.slow]
kind = degraded
link = dgx-2/mlx5_3
width = 1x
after = collective.2 + 1us
until = 20us
[fault.gd3]
kind = gpudirect-off
server = dgx-3
at = 30us
until = 80us
[fault.gd2]
kind = gpudirect-off
server = dgx-2
after = collective.2
INI
} >"$TMP/arf.ini"
cat >"$TMP/train.ini" <<INI
[experiment]
include = $WEFT_SRCDIR/experiments/dgx4-training.ini
[workload.train]
steps = 1
buckets = 2
bucket_size = 256KiB
compute = 100us
[parallel]
partition = graph
lookahead_floor = 10ns
INI
{
    dgx4_ib 1
    # NAME DEVICE PEER SIZE ITERS
    for w in "lat13 dgx-1/mlx5_3 dgx-3/mlx5_3 4KiB 20" "lat24 dgx-2/mlx5_5 dgx-4/mlx5_5 64KiB 20" \
        "lat31 dgx-3/mlx5_0 dgx-1/mlx5_0 4KiB 10" "lat42 dgx-4/mlx5_0 dgx-2/mlx5_0 4KiB 10"; do
        set -- $w
        printf '[workload.%s]\nkind = ib_write_lat\ndevice = %s\npeer = %s\nsize = %s\niters = %s\n' "$@"
    done
    printf '[parallel]\npartition = graph\nlookahead_floor = 10ns\n[trace]\ninterval = 5us\n'
} >"$TMP/lat.ini"

# ranks NAME NP: runs NAME.ini on NP ranks into NAME-NP.h5, stderr in NAME-NP.err; on 4 ranks
# the rows are gathered between every two windows
ranks() {
    gather=
    [ "$2" = 4 ] && gather="--set parallel:gather_bytes=1B"
    timeout $LIMIT $MPIRUN -np "$2" "$WEFT" run "$TMP/$1.ini" -o "$TMP/$1-$2.h5" --quiet $gather \
        >"$TMP/$1-$2.out" 2>"$TMP/$1-$2.err" || { cat "$TMP/$1-$2.err" >&2; fail "$1: $2 ranks"; }
}

# same_events A.h5 B.h5: /meta events is the same (each sample, fault event and sweep counted
# once, and one process's watchdog events, which no rank runs)
same_events() {
    "$PY" - "$1" "$2" <<'PY'
import sys, h5py
one, many = (int(h5py.File(p, "r")["/meta"].attrs["events"]) for p in sys.argv[1:])
assert one == many, (one, many)
PY
}

# same_table NAME NP SED: the table that sed -n SED cuts from the output, as one process prints it
same_table() {
    sed -n "$3" "$TMP/$1.out" >"$TMP/$1.table"
    [ -s "$TMP/$1.table" ] || fail "$1: one process printed no table"
    sed -n "$3" "$TMP/$1-$2.out" | cmp -s - "$TMP/$1.table" \
        || fail "$1: $2 ranks: another table than one process's"
}

for name in roce ib ue dcqcn dgx ar arf lat; do
    "$WEFT" run "$TMP/$name.ini" -o "$TMP/$name.h5" --quiet >"$TMP/$name.out" || fail "$name: one process"
    sets=$("$PY" - "$TMP/$name.h5" "$name" <<'PY'
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    assert f["/meta"].attrs["status"] == "done", f["/meta"].attrs["status"]
    assert len(f["/flows"]) > 0 and all(f["/flows"]["finished"])
    # The samples of flows under way, where the fixture is for them (sender's rows).
    name = sys.argv[2]
    assert name != "ue" or len(f["/uet"]) > 0
    assert name != "dcqcn" or (len(f["/dcqcn"]) > 0 and f["/dcqcn"]["rate_cuts"].max() > 0)
    # Both faults after a collective acted (two rate changes each), and the second all-reduce
    # was staged.
    assert name != "arf" or (len(f["/faults"]) == 4 and list(f["/collectives"]["staged"]) == [0, 1])
    print(" ".join(d for d in ("/flows", "/links", "/ports", "/paths", "/pfc", "/buffers",
                               "/collectives", "/faults", "/dcqcn", "/uet")
                   if d in f and len(f[d]) > 0))
PY
    ) || fail "$name: the one-process trace"
    for np in 1 2 4; do
        ranks "$name" "$np"
        for ds in $sets; do
            h5diff "$TMP/$name.h5" "$TMP/$name-$np.h5" "$ds" >/dev/null \
                || fail "$name: $np ranks: $ds differs from one process"
        done
        same_events "$TMP/$name.h5" "$TMP/$name-$np.h5" || fail "$name: $np ranks: another event count"
        # the nccl-tests table and the training steps, as one process prints them
        case $name in
            ar | arf) same_table "$name" "$np" '/^#  *size /,/^# Avg bus/p' ;;
            # the perftest tables, from the first workload's to one process's summary line
            lat) same_table lat "$np" '/^# \[workload\./,/^lat: /{/^lat: /!p;}' ;;
            # the perftest tables, from the first workload's to one process's summary line
            lat) same_table lat "$np" '/^# \[workload\./,/^lat: /{/^lat: /!p;}' ;;
        esac
        [ "$np" = 1 ] && continue
        # Every rank ran events and sent packets to another rank.
        n=$(grep -c "^weft run: rank [0-9]*: [1-9][0-9]* events, [1-9][0-9]* packets crossed" \
            "$TMP/$name-$np.err") || true
        [ "$n" = "$np" ] || { cat "$TMP/$name-$np.err" >&2; fail "$name: $np ranks: a rank ran no events or sent no packet across"; }
        ctl=$(sed -n 's/.*packets crossed to other ranks (\([0-9]*\) flow-control).*/\1/p' \
            "$TMP/$name-$np.err" | awk '{ s += $1 } END { print s + 0 }')
        case $name in
            roce | ib | dcqcn) [ "$ctl" -gt 0 ] || fail "$name: $np ranks: no flow-control packet crossed ranks" ;;
        esac
    done
    echo "$name: identical on 1, 2 and 4 ranks ($sets)"
done
# A run stopped by its duration, with flows unfinished (their rows written at the end): the
# same on 2 ranks, and --summary-json is written by rank 0.
"$WEFT" run "$TMP/roce.ini" -o "$TMP/dur.h5" --quiet --set experiment:duration=30us >/dev/null \
    || fail "duration: one process"
timeout $LIMIT $MPIRUN -np 2 "$WEFT" run "$TMP/roce.ini" -o "$TMP/dur-2.h5" --quiet \
    --set experiment:duration=30us --summary-json "$TMP/dur-2.json" >/dev/null 2>"$TMP/dur-2.err" \
    || { cat "$TMP/dur-2.err" >&2; fail "duration: 2 ranks"; }
for ds in /flows /links /ports /paths /pfc; do
    h5diff "$TMP/dur.h5" "$TMP/dur-2.h5" "$ds" >/dev/null || fail "duration: 2 ranks: $ds differs"
done
same_events "$TMP/dur.h5" "$TMP/dur-2.h5" || fail "duration: 2 ranks: another event count"
"$PY" - "$TMP/dur.h5" "$TMP/dur-2.json" <<'PY' || fail "duration: the fixture or the summary"
import json, sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    assert f["/meta"].attrs["status"] == "duration"
    assert 0 < sum(f["/flows"]["finished"]) < len(f["/flows"])
s = json.load(open(sys.argv[2]))
assert s["status"] == "duration" and s["sim_time_ps"] == 30000000, s
PY
# A hang found by the watchdog: experiments/roce-pfc-deadlock.ini's cyclic PFC deadlock on a
# ring of three switches (its links given 1 us, so that they can be cut) on 2 and 3 ranks,
# one switch each on 3: exit 3 at the same time, with the same data sets, as one process.
sed 's/^\(link .*400Gbps\)$/\1 1us/' "$WEFT_SRCDIR/experiments/topo/ring3.topo" >"$TMP/ring3.topo"
cp "$WEFT_SRCDIR/experiments/topo/ring3-clockwise.lft" "$TMP/"
sed 's|topo/||' "$WEFT_SRCDIR/experiments/roce-pfc-deadlock.ini" >"$TMP/dl.ini"
expect_exit 3 "$WEFT" run "$TMP/dl.ini" -o "$TMP/dl.h5" --quiet
for np in 2 3; do
    expect_exit 3 timeout $LIMIT $MPIRUN -np "$np" "$WEFT" run "$TMP/dl.ini" -o "$TMP/dl-$np.h5" --quiet
    grep -q "^weft: hang at " "$TMP/err" || { cat "$TMP/err" >&2; fail "deadlock: $np ranks: no hang reported"; }
    for ds in /flows /links /ports /paths /pfc; do
        h5diff "$TMP/dl.h5" "$TMP/dl-$np.h5" "$ds" >/dev/null || fail "deadlock: $np ranks: $ds differs"
    done
    same_events "$TMP/dl.h5" "$TMP/dl-$np.h5" || fail "deadlock: $np ranks: another event count"
    "$PY" - "$TMP/dl.h5" "$TMP/dl-$np.h5" <<'PY' || fail "deadlock: $np ranks: not the same hang"
import sys, h5py
one, many = (h5py.File(p, "r")["/meta"].attrs for p in sys.argv[1:])
assert one["status"] == many["status"] == "hang", (one["status"], many["status"])
assert one["sim_time_ps"] == many["sim_time_ps"], (one["sim_time_ps"], many["sim_time_ps"])
PY
done

# Hangs whose queue runs dry (doc/parallel.md, "How a hang ends"), where every rank's queue
# empties with work pending: one process still holds its watchdog, or its next sample, and
# ends there.  dry: InfiniBand on the k = 4 fat tree, a link Down at 10 us with no
# retransmission timer (rc_timeout = 0): one flow stops at it, the others finish and the queue
# runs dry.  cdl: the deadlock's ring on InfiniBand (credits run out around the cycle), no
# timer either.  Each, with no samples, on 2 and 4 (cdl: 3) ranks: the hang at the last
# progress + hang_timeout, and a duration that ends before that deadline; dry also without the
# watchdog, at its last event, and with samples and no watchdog, at the first sample after its
# last event (3 us and 5 us apart: the last event in the window of that sample, or before it);
# the PFC deadlock (events still flowing) with a duration before its deadline, and with no
# watchdog (to the duration).  The same exit status, status line, end, event count and data
# sets as one process.
{ fattree_k4; cat <<'INI'; } >"$TMP/dry.ini"
[experiment]
seed = 11
hang_timeout = 200us
[fabric]
kind = infiniband
routing = static
[transport]
rc_timeout = 0
[workload.perm]
kind = permutation
pattern = random
flow_size = 400000B
[fault.up]
kind = link-down
link = pod0-agg0 core1
at = 10us
[trace]
interval = 0s
INI
sed -e 's/^kind = roce$/kind = infiniband/' -e '/^\[ecn\]$/,/^enabled = false$/d' \
    -e '/^\[dcqcn\]$/,/^enabled = false$/d' -e 's/^hang_timeout = .*/hang_timeout = 200us/' \
    "$TMP/dl.ini" >"$TMP/cdl.ini"
printf '[transport]\nrc_timeout = 0\n[trace]\ninterval = 0s\n' >>"$TMP/cdl.ini"
# NAME INI CODE STATUS NPS SETTINGS: the one-process status the fixture is for, its exit
# status, the ranks (joined by _) and --set options; stdin is the list, so no run reads it
while read -r name ini code status nps settings; do
    set -f
    # shellcheck disable=SC2086
    set -- $settings
    set +f
    nps=$(echo "$nps" | tr _ ' ')
    expect_exit "$code" timeout $LIMIT "$WEFT" run "$TMP/$ini.ini" -o "$TMP/$name.h5" --quiet "$@" </dev/null
    cp "$TMP/out" "$TMP/$name.out"
    "$PY" - "$TMP/$name.h5" "$name" "$status" <<'PY' || fail "$name: the one-process trace"
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    a, name = f["/meta"].attrs, sys.argv[2]
    status = a["status"].decode() if isinstance(a["status"], bytes) else a["status"]
    assert status == sys.argv[3], status
    end, fl = int(a["sim_time_ps"]), f["/flows"][:]
    last = int(fl["finish_ps"][fl["finished"] != 0].max(initial=0))
    us = 1000000
    if name.startswith("dry"):
        # one flow stopped at the Down link, the others finished (the last progress)
        assert list(fl["finished"]).count(0) == 1, fl["finished"]
    if name == "dry":
        assert end == last + 200 * us, (end, last)  # the watchdog's deadline
    if name == "cdl":
        assert last == 0 and end > 200 * us, (end, last)  # a deadlock: no flow finished
    if name in ("drydur", "cdldur", "dldur", "dl0"):
        assert end == 100 * us, end
    if name == "drynow":
        assert last < end < last + 10 * us, (end, last)  # the last event, no watchdog
    if name in ("drys3", "drys5"):
        # the first sample after the last event: the last /links row, a whole interval
        every = 3 * us if name == "drys3" else 5 * us
        assert end % every == 0 and last < end < last + 10 * us, (end, last)
        assert int(f["/links"]["time_ps"].max()) == end
PY
    for np in $nps; do
        expect_exit "$code" timeout $LIMIT $MPIRUN -np "$np" "$WEFT" run "$TMP/$ini.ini" \
            -o "$TMP/$name-$np.h5" --quiet "$@" </dev/null
        for ds in /flows /links /ports /paths /pfc; do
            h5diff "$TMP/$name.h5" "$TMP/$name-$np.h5" "$ds" >/dev/null \
                || fail "$name: $np ranks: $ds differs from one process"
        done
        same_events "$TMP/$name.h5" "$TMP/$name-$np.h5" || fail "$name: $np ranks: another event count"
        "$PY" - "$TMP/$name.h5" "$TMP/$name-$np.h5" <<'PY' || fail "$name: $np ranks: another end"
import sys, h5py
one, many = (h5py.File(p, "r")["/meta"].attrs for p in sys.argv[1:])
assert one["status"] == many["status"], (one["status"], many["status"])
assert one["sim_time_ps"] == many["sim_time_ps"], (one["sim_time_ps"], many["sim_time_ps"])
PY
        [ "$(head -n1 "$TMP/out" | sed 's/, across [0-9]* ranks$//')" = "$(head -n1 "$TMP/$name.out")" ] \
            || fail "$name: $np ranks: status line '$(head -n1 "$TMP/out")'"
    done
    echo "$name: the same end on $nps ranks as one process ($status)"
done <<'CASES'
dry dry 3 hang 2_4
drydur dry 0 duration 2_4 --set experiment:duration=100us
drynow dry 3 hang 2 --set experiment:hang_timeout=0s
drys3 dry 3 hang 2_4 --set experiment:hang_timeout=0s --set trace:interval=3us
drys5 dry 3 hang 2 --set experiment:hang_timeout=0s --set trace:interval=5us
cdl cdl 3 hang 2_3
cdldur cdl 0 duration 2_3 --set experiment:duration=100us
dldur dl 0 duration 2_3 --set experiment:duration=100us
dl0 dl 0 duration 2 --set experiment:hang_timeout=0s --set experiment:duration=100us
CASES

# Faults and a subnet manager (doc/parallel.md, "Faults"), on the k = 4 fat tree, each fault on
# a link between an aggregation switch and a core, cut between two ranks on 4 ranks (all but
# the flapping one on 2): the same /flows, /links, /ports, /paths, /faults (and /pfc), exit
# status, end time and stdout's status line as one process on 1, 2 and 4 ranks:
# - sm: a link Down from 10 us to 60 us under static InfiniBand routing, rerouted by the
#   subnet manager's sweep 20 us later; the flows recover and finish;
# - mixed: on RoCE with ECMP, a link trained at 25 Gb/s for a while, a flapping link, bit
#   errors on a third (corrupted packets, counted at the far end: /ports rcv_errors) and a
#   fourth Down from the start;
# - fail: a dead link with no reroute and a short retry span (rc_timeout = 1, rc_retry_cnt = 2):
#   a connection runs out of retries, exit 6, the run stopped at that very event on every rank
#   (stderr's "weft: workload failed at" line is one process's, word for word);
# - hang: the same dead link with the default retry span: the watchdog stops it (exit 3);
# - nicat, nicafter, nicflows: a NIC removed during the run (below), exit 6 at one process's
#   event with its failure line.
{ fattree_k4; cat <<'INI'; } >"$TMP/sm.ini"
[experiment]
seed = 11
[fabric]
kind = infiniband
routing = static
[routing]
sm_reroute = true
sm_sweep_delay = 20us
[transport]
rc_timeout = 2
[workload.perm]
kind = permutation
pattern = random
flow_size = 400000B
[fault.up]
kind = link-down
link = pod0-agg0 core0
at = 10us
until = 60us
[trace]
interval = 5us
INI
{ fattree_k4; cat <<'INI'; } >"$TMP/mixed.ini"
[experiment]
seed = 17
[fabric]
kind = roce
routing = ecmp
[pfc]
enabled = true
[transport]
rc_timeout = 3
[dcqcn]
enabled = false
[workload.perm]
kind = permutation
pattern = random
flow_size = 300000B
[fault.slow]
kind = degraded
link = pod1-agg1 core2
rate = 25Gbps
at = 5us
until = 40us
[fault.flap]
kind = link-flap
link = pod2-agg0 core0
period = 10us
at = 3us
until = 50us
[fault.ber]
kind = bit-errors
link = pod0-agg0 core0
ber = 1e-5
at = 0s
[fault.gone]
kind = link-down
link = pod0-agg1 core2
at = 0s
[trace]
interval = 5us
INI
{ fattree_k4; cat <<'INI'; } >"$TMP/fail.ini"
[experiment]
seed = 11
[fabric]
kind = infiniband
routing = static
[transport]
rc_timeout = 1
rc_retry_cnt = 2
[workload.perm]
kind = permutation
pattern = random
flow_size = 400000B
[fault.up]
kind = link-down
link = pod0-agg0 core1
at = 10us
[trace]
interval = 5us
INI
sed -e '/^rc_timeout\|^rc_retry_cnt/d' -e 's/^seed = 11$/seed = 11\nhang_timeout = 200us/' \
    "$TMP/fail.ini" >"$TMP/hang.ini"
# A NIC removed during the run (dgx-2/mlx5_3, on the shrunk all-reduce split as above): at
# 20 us, under the first collective (the first flow under way through it fails then, the
# lowest id over the ranks that send such flows); 10 us after the second collective begins
# (scheduled as it starts); and between two flows, the one through it failing as it starts
# at 100 us.
{ cat "$TMP/ar.ini"; printf '[fault.nic]\nkind = nic-removed\nnic = dgx-2/mlx5_3\nat = 20us\n'; } \
    >"$TMP/nicat.ini"
{ cat "$TMP/ar.ini"; printf '[fault.nic]\nkind = nic-removed\nserver = dgx-2\nnic = mlx5_3\nafter = collective.2 + 10us\n'; } \
    >"$TMP/nicafter.ini"
{
    dgx4_ib 1
    cat <<'INI'
[workload.early]
kind = flows
flows = dgx-1/gpu0>dgx-3/gpu0 4MB 0us
[workload.late]
kind = flows
flows = dgx-1/gpu1>dgx-2/gpu1 1MB 100us
[fault.nic]
kind = nic-removed
nic = dgx-2/mlx5_3
at = 50us
[parallel]
partition = graph
lookahead_floor = 10ns
INI
} >"$TMP/nicflows.ini"
for name in sm:0 mixed:0 fail:6 hang:3 nicat:6 nicafter:6 nicflows:6; do
    code=${name#*:} name=${name%:*}
    expect_exit "$code" "$WEFT" run "$TMP/$name.ini" -o "$TMP/$name.h5" --quiet
    cp "$TMP/out" "$TMP/$name.out"
    cp "$TMP/err" "$TMP/$name.err"
    "$PY" - "$TMP/$name.h5" "$name" <<'PY' || fail "$name: the one-process trace"
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    status = {"sm": "done", "mixed": "done", "hang": "hang"}.get(sys.argv[2], "workload-failed")
    assert f["/meta"].attrs["status"] == status, f["/meta"].attrs["status"]
    assert len(f["/faults"]) > 0 and int(f["/ports"]["link_downed"].sum()) > 0
    if sys.argv[2] == "mixed":
        assert int(f["/ports"]["rcv_errors"].sum()) > 0, "no packet corrupted"
        assert set(f["/faults"]["action"]) >= {b"down", b"up", b"rate", b"ber"}
PY
    for np in 1 2 4; do
        expect_exit "$code" timeout $LIMIT $MPIRUN -np "$np" "$WEFT" run "$TMP/$name.ini" \
            -o "$TMP/$name-$np.h5" --quiet
        for ds in /flows /links /ports /paths /faults /pfc; do
            h5diff "$TMP/$name.h5" "$TMP/$name-$np.h5" "$ds" >/dev/null \
                || fail "$name: $np ranks: $ds differs from one process"
        done
        same_events "$TMP/$name.h5" "$TMP/$name-$np.h5" || fail "$name: $np ranks: another event count"
        "$PY" - "$TMP/$name.h5" "$TMP/$name-$np.h5" <<'PY' || fail "$name: $np ranks: another end"
import sys, h5py
one, many = (h5py.File(p, "r")["/meta"].attrs for p in sys.argv[1:])
assert one["status"] == many["status"], (one["status"], many["status"])
assert one["sim_time_ps"] == many["sim_time_ps"], (one["sim_time_ps"], many["sim_time_ps"])
PY
        # stdout's status line: "NAME: STATUS at TIME" (", across N ranks" on more than one;
        # one process prints a finished collective's nccl-tests table before it)
        [ "$(grep -m1 "^$name: " "$TMP/out" | sed 's/, across [0-9]* ranks$//')" = \
            "$(grep -m1 "^$name: " "$TMP/$name.out")" ] \
            || fail "$name: $np ranks: status line '$(grep -m1 "^$name: " "$TMP/out")'"
        if [ "$code" = 6 ]; then
            grep '^weft: workload failed at ' "$TMP/$name.err" >"$TMP/want"
            [ -s "$TMP/want" ] && grep -qxF -f "$TMP/want" "$TMP/err" \
                || { cat "$TMP/err" >&2; fail "$name: $np ranks: not one process's failure line"; }
        fi
        [ "$np" = 1 ] || grep -q "links cut" "$TMP/err" || fail "$name: $np ranks: no split"
    done
    echo "$name: identical on 1, 2 and 4 ranks, exit $code"
done
# A fault that begins in the very event that starts its collective (the second all-reduce,
# gated on the first with no gap): refused on 2 ranks, group and key named.
sed 's/^after = collective.2 + 1us$/after = collective.2/' "$TMP/arf.ini" >"$TMP/zero.ini"
expect_exit 2 timeout $LIMIT $MPIRUN -np 2 "$WEFT" run "$TMP/zero.ini" -o "$TMP/zero.h5" --quiet
grep -q "zero.ini: \[fault.slow\] after: begins as collective.2 starts" "$TMP/err" \
    || { cat "$TMP/err" >&2; fail "a fault in zero time after a collective: not refused"; }

# One training step (its collectives gated on compute time) on 2 ranks: the same data sets and
# step table.  (On 4 ranks one rank holds no part of its rings.)
"$WEFT" run "$TMP/train.ini" -o "$TMP/train.h5" --quiet >"$TMP/train.out" || fail "train: one process"
ranks train 2
for ds in /flows /links /ports /paths /collectives; do
    h5diff "$TMP/train.h5" "$TMP/train-2.h5" "$ds" >/dev/null || fail "train: 2 ranks: $ds differs"
done
same_events "$TMP/train.h5" "$TMP/train-2.h5" || fail "train: 2 ranks: another event count"
same_table train 2 '/training steps$/,/^ *mean /p'
echo "train: identical on 2 ranks"
# ib_write_bw over all sizes between two servers on 2 ranks: a size's first message waits with no
# delay for the last of the size before, sent the other way, so the partitioner keeps the two
# servers on one rank (doc/parallel.md, "The partition"): the same data sets and perftest table.
{
    dgx4_ib
    printf '[workload.bw]\nkind = ib_write_bw\ndevice = dgx-1/mlx5_3\npeer = dgx-3/mlx5_3\nall = true\niters = 5\n'
    printf '[parallel]\npartition = graph\nlookahead_floor = 10ns\n'
} >"$TMP/bw.ini"
"$WEFT" run "$TMP/bw.ini" -o "$TMP/bw.h5" --quiet >"$TMP/bw.out" || fail "bw: one process"
ranks bw 2
grep -q "1 release below the floor kept on one rank" "$TMP/bw-2.err" \
    || { cat "$TMP/bw-2.err" >&2; fail "bw: 2 ranks: the release's servers not joined"; }
for ds in /flows /links /ports /paths; do
    h5diff "$TMP/bw.h5" "$TMP/bw-2.h5" "$ds" >/dev/null || fail "bw: 2 ranks: $ds differs"
done
same_events "$TMP/bw.h5" "$TMP/bw-2.h5" || fail "bw: 2 ranks: another event count"
same_table bw 2 '/^# \[workload\./,/^bw: /{/^bw: /!p;}'
echo "bw: identical on 2 ranks"
# The collective runs had their collectives: two on the flagship's shrunk sweep, the second
# started as the first finished.
"$PY" - "$TMP/ar.h5" <<'PY' || fail "ar: not two collectives, one after the other"
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    c = f["/collectives"][:]
    assert len(c) == 2, len(c)
    assert c["start_ps"][1] == c["finish_ps"][0] > 0, c
PY
# The fixtures exercise what they are for: PFC and credits stalled transmitters.
"$PY" - "$TMP/roce.h5" "$TMP/ib.h5" <<'PY' || fail "the fixtures did not stall"
import sys, h5py
for path in sys.argv[1:]:
    with h5py.File(path, "r") as f:
        assert int(f["/links"]["stall_ps"].sum()) > 0, path
PY
echo "ok"
