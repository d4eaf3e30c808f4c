#!/bin/sh
# tests/e2e/mpi_ranks.sh - weft run under mpirun (doc/parallel.md).
# Checks: one rank under mpirun gives the same /flows, /links, /ports and /pfc as one process
# without it (h5diff); an unknown [parallel] partition, and a split that cannot work (more
# ranks than a fat tree's pods and cores, a unit split of a fabric without units), make every
# rank exit 2 within a time limit (no rank left waiting), with one line naming [parallel]
# partition and the reason; what a run across ranks cannot do (a flow that a flow delivered on
# another rank releases with no delay) makes every rank exit 2 with one line naming the group; a
# valid split of a k = 4 fat tree by pods (RoCE, DCQCN and its /dcqcn samples on) runs and
# reports the lookahead computed here from the experiment (1 us links).
# Results across several ranks: tests/e2e/mpi_identity.sh.
# Skipped (77) only when weft was built without MPI; CI builds with it.
. "$WEFT_SRCDIR/tests/e2e/lib.sh"
[ "${WEFT_MPI:-no}" = yes ] || { echo "weft built without MPI: skipped"; exit 77; }
need mpirun
need h5diff
{ fattree_k4; cat <<'INI'; } >"$TMP/ft.ini"
[experiment]
seed = 3
[fabric]
kind = roce
routing = ecmp
[pfc]
enabled = true
xoff = 20000B
xon = 12000B
[workload.perm]
kind = permutation
pattern = random
flow_size = 200000B
[trace]
interval = 5us
INI

"$WEFT" run "$TMP/ft.ini" -o "$TMP/one.h5" --quiet >"$TMP/one.out" || fail "plain run"
timeout 120 $MPIRUN -np 1 "$WEFT" run "$TMP/ft.ini" -o "$TMP/mpi1.h5" --quiet >"$TMP/mpi1.out" \
    || fail "mpirun -np 1"
for ds in /flows /links /ports /pfc; do
    h5diff "$TMP/one.h5" "$TMP/mpi1.h5" "$ds" >/dev/null || fail "mpirun -np 1: $ds differs"
done
# The run really paused on PFC (so the data sets compared hold stalls, not only traffic).
"$PY" - "$TMP/one.h5" <<'PY' || fail "no PFC pauses in the fixture"
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    assert len(f["/flows"]) == 16, len(f["/flows"])
    assert int(f["/links"]["stall_ps"].sum()) > 0
    assert len(f["/pfc"]) > 0
PY
# ranks_exit N ARGS...: runs weft on N ranks, each rank appending "RANK STATUS" to $TMP/rc.
ranks_exit() {
    n=$1; shift
    : >"$TMP/rc"
    set +e
    timeout 120 $MPIRUN -np "$n" sh -c \
        '"$0" "$@" 2>>"'"$TMP"'/err.$OMPI_COMM_WORLD_RANK"; echo "$OMPI_COMM_WORLD_RANK $?" >>"'"$TMP"'/rc"' \
        "$WEFT" "$@" >/dev/null 2>"$TMP/mpirun.err"
    st=$?
    set -e
    [ "$st" != 124 ] || fail "$n ranks: a rank hung"
    [ "$(wc -l <"$TMP/rc")" = "$n" ] || { cat "$TMP/rc" >&2; fail "$n ranks: not every rank ended"; }
}
all_exit() {
    bad=$(awk -v want="$1" '$2 != want' "$TMP/rc")
    [ -z "$bad" ] || fail "expected every rank to exit $1, got: $bad"
}
errors() { cat "$TMP"/err.* 2>/dev/null; }

# k = 4 by pods: 4 pods and 4 cores are 8 parts; 9 ranks cannot be given one each.
rm -f "$TMP"/err.*
ranks_exit 9 run "$TMP/ft.ini" -o "$TMP/x.h5" --quiet --set parallel:partition=unit
all_exit 2
[ "$(errors | grep -c 'parallel\] partition')" = 1 ] || { errors >&2; fail "9 ranks: the reason is not printed once"; }
errors | grep -q "9 ranks but the fabric splits into only 8 indivisible parts" \
    || { errors >&2; fail "9 ranks: wrong reason"; }
[ ! -e "$TMP/x.h5" ] || fail "a refused run left a trace"

# An unknown split: refused while the experiment is read, by every rank, printed once.
rm -f "$TMP"/err.*
ranks_exit 2 run "$TMP/ft.ini" -o "$TMP/x.h5" --quiet --set parallel:partition=pods
all_exit 2
[ "$(errors | grep -c '\[parallel\] partition')" = 1 ] || { errors >&2; fail "partition = pods: not printed once"; }

# A unit split of a leaf-spine (no pods, no scalable units).
cat >"$TMP/ls.ini" <<'INI'
[topology]
generator = leafspine
leaves = 2
spines = 2
hosts_per_leaf = 2
link_delay = 1us
[fabric]
kind = roce
[workload.perm]
kind = permutation
flow_size = 10000B
[parallel]
partition = unit
INI
rm -f "$TMP"/err.*
ranks_exit 2 run "$TMP/ls.ini" -o "$TMP/x.h5" --quiet
all_exit 2
errors | grep -q "ls.ini: \[parallel\] partition: unit: this fabric records no pods or scalable units" \
    || { errors >&2; fail "unit on a leaf-spine: wrong line"; }

# A flow released with no delay by a flow delivered on another node: the partitioner keeps the
# two nodes on one rank while it can (doc/parallel.md, "The partition"), else the run is refused,
# once.  ib_write_bw over all sizes between two hosts of two pods of the k = 4 fat tree: a
# size's first message waits for the last one of the size before, sent the other way.  On 2
# ranks the two pods join (7 parts) and the run completes; on 8 ranks, one per pod and core,
# nothing can join.
{ fattree_k4; cat <<'INI'; } >"$TMP/bw.ini"
[fabric]
kind = infiniband
routing = static
[workload.bw]
kind = ib_write_bw
device = host0
peer = host15
all = true
iters = 5
[parallel]
partition = unit
INI
rm -f "$TMP"/err.*
ranks_exit 8 run "$TMP/bw.ini" -o "$TMP/x.h5" --quiet
all_exit 2
[ "$(errors | grep -c "^$TMP/bw.ini: \[workload.bw\]: flow [0-9]* waits for flow [0-9]* with no delay")" = 1 ] \
    || { errors >&2; fail "a release across ranks in zero time: not refused once"; }
[ ! -e "$TMP/x.h5" ] || fail "a refused run left a trace"
rm -f "$TMP"/err.*
ranks_exit 2 run "$TMP/bw.ini" -o "$TMP/x.h5" --quiet
all_exit 0
errors | grep -q "2 ranks, partition = unit: 7 parts, .*, 1 release below the floor kept on one rank" \
    || { errors >&2; fail "2 ranks: the release's two pods not joined"; }
rm -f "$TMP/x.h5"

# A valid split by pods on 2 ranks runs: the lookahead is the smallest cut delay, 1 us here.
rm -f "$TMP"/err.*
ranks_exit 2 run "$TMP/ft.ini" -o "$TMP/x.h5" --quiet
all_exit 0
errors | grep -q "2 ranks, partition = unit: 8 parts, [1-9][0-9]* links cut, lookahead 1us" \
    || { errors >&2; fail "2 ranks: the split is not reported"; }
[ -f "$TMP/x.h5" ] || fail "2 ranks: no trace"
echo "ok"
