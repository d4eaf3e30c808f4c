#!/bin/sh
# [fault.NAME] kind = gpudirect-off with at = TIME (and until), doc/faults.md: one server loses
# GPUDirect RDMA for the collectives that start at or after at (and before until), as NCCL
# decides GPUDirect per connection when it sets it up; a collective under way at that time
# keeps its layout.  The run: the fault tests' all-reduce (tests/e2e/lib.sh allreduce_ini) of
# 64 MB with iters = 2, so four collectives one after another (out of place twice, in place
# twice), on the 4 x DGX H100 cluster.  The times come from a healthy run's /collectives
# starts, read here; the bounds from the configured rates, as in tests/e2e/gpudirect_off.sh:
#  - staged bound: 8 rings x min(NIC rate, PCIe rate / 2) / 8 x 4096/4122 (IB headers);
#    GPUDirect-on bound: the same with min(NIC rate, PCIe rate);
#  - at = the third collective's start: collectives 1 and 2 run with GPUDirect (above 1.1 x
#    the staged bound, at most the GPUDirect-on bound) and exactly as in the healthy run
#    (nothing changed before at: same start and finish, static routing); 3 and 4 are staged
#    (within 15 % under the staged bound); /collectives `staged` says so;
#  - at = halfway through the first collective: it keeps GPUDirect, 2 to 4 are staged;
#  - at inside the first collective and until = the third's healthy start: 2 is staged, and 3,
#    4, which start after until, are not;
#  - in every run, staged = (at <= start < until) by each row's own start, every /flows row is
#    a finished flow (the layout a collective did not take leaves none), and only dgx-2's CPU
#    carries data;
#  - bad input: at past the duration, until not after at, at with after, a time that is none:
#    exit 2 naming [fault.gdr] and the key.
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
"$PY" -c 'import h5py, numpy' || fail "python3-h5py is missing"
allreduce_ini "$TMP/healthy.ini" 10ms 64MB
sed -i 's/^iters = 1$/iters = 2/' "$TMP/healthy.ini"
grep -q "^iters = 2$" "$TMP/healthy.ini" || fail "the fixture has no iters = 1 line"
expect_exit 0 "$WEFT" run -q "$TMP/healthy.ini" -o "$TMP/healthy.h5"
starts=$(PYTHONPATH="$WEFT_SRCDIR/analysis" "$PY" -c '
import sys
import weft_trace as wt
rows = sorted(wt.collectives(sys.argv[1]), key=lambda r: int(r["id"]))
assert len(rows) == 4, rows
print(" ".join(str(int(r["start_ps"])) for r in rows))
' "$TMP/healthy.h5") || fail "reading the healthy run's starts"
set -- $starts
s1=$1 s2=$2 s3=$3
half=$(( (s1 + s2) / 2 ))
{ cat "$TMP/healthy.ini"; printf '[fault.gdr]\nkind = gpudirect-off\nserver = dgx-2\n'; } >"$TMP/at.ini"
check() { # check NAME AT UNTIL(0: none)
    PYTHONPATH="$WEFT_SRCDIR/analysis:$WEFT_SRCDIR/tests/e2e" "$PY" - "$TMP/$1.h5" "$TMP/healthy.h5" "$2" "$3" <<'PYEOF'
import sys
import weft_trace as wt
from staging import assert_only_server_staged
path, healthy, at, until = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
until = until or 2**64
nic, pcie = 400e9, 50e9 * 8            # [server] defaults of the dgx-h100 preset, bits/s
hdr = 4096 / 4122
staged_bound = 8 * min(nic, pcie / 2) / 8 / 1e9 * hdr  # GB/s: 8 rings, bits to bytes
on_bound = 8 * min(nic, pcie) / 8 / 1e9 * hdr
rows = sorted(wt.collectives(path), key=lambda r: int(r["id"]))
base = sorted(wt.collectives(healthy), key=lambda r: int(r["id"]))
assert len(rows) == 4, rows
got = []
for r, b in zip(rows, base):
    start, bw = int(r["start_ps"]), float(r["busbw_gbs"])
    want = at <= start < until
    got.append(int(r["staged"]))
    assert int(r["staged"]) == want, (r["id"], start, at, until, r["staged"])
    if want:
        assert 0.85 * staged_bound <= bw <= staged_bound, (r["id"], bw, staged_bound)
    else:
        assert 1.1 * staged_bound < bw <= on_bound, (r["id"], bw, staged_bound, on_bound)
    if start < at:  # nothing changed before at
        assert (start, int(r["finish_ps"])) == (int(b["start_ps"]), int(b["finish_ps"])), (r, b)
print(f"{path}: staged {got}; bounds staged {staged_bound:.1f}, on {on_bound:.1f} GB/s")
flows = wt.flows(path)
assert len(flows) > 0 and all(int(f) == 1 for f in flows["finished"]), "unfinished /flows rows"
assert_only_server_staged(path)
print("".join(map(str, got)))
PYEOF
}
expect_exit 0 "$WEFT" run -q "$TMP/at.ini" -o "$TMP/third.h5" --set "fault.gdr:at=${s3}ps"
[ "$(check third "$s3" 0 | tail -1)" = 0011 ] || fail "at = the third collective's start"
expect_exit 0 "$WEFT" run -q "$TMP/at.ini" -o "$TMP/inside.h5" --set "fault.gdr:at=${half}ps"
[ "$(check inside "$half" 0 | tail -1)" = 0111 ] || fail "at inside the first collective"
expect_exit 0 "$WEFT" run -q "$TMP/at.ini" -o "$TMP/until.h5" --set "fault.gdr:at=${half}ps" \
    --set "fault.gdr:until=${s3}ps"
[ "$(check until "$half" "$s3" | tail -1)" = 0100 ] || fail "at, then until"
# bad input: exit 2, one line naming the group and the key
for bad in "experiment:duration=1ms;fault.gdr:at=2ms|at|past the run's duration" \
    "fault.gdr:at=100us;fault.gdr:until=100us|until|not after at" \
    "fault.gdr:at=100us;fault.gdr:until=50us|until|not after at" \
    "fault.gdr:at=100us;fault.gdr:after=collective.2|after|give at or after, not both" \
    "fault.gdr:after=collective.2;fault.gdr:until=1ms|until|until goes with at" \
    "fault.gdr:at=soon|at|expected a time"; do
    sets=${bad%%|*}; rest=${bad#*|}; key=${rest%%|*}; text=${rest#*|}
    a=${sets%%;*}; b=${sets#*;}
    expect_exit 2 "$WEFT" validate "$TMP/at.ini" --set "$a" --set "$b"
    [ "$(wc -l <"$TMP/err")" -eq 1 ] || { cat "$TMP/err" >&2; fail "--set $sets: not one line"; }
    grep -q "\[fault.gdr\] $key: .*$text" "$TMP/err" ||
        { cat "$TMP/err" >&2; fail "--set $sets: no line naming [fault.gdr] $key"; }
done
# one group per server: a second one on dgx-2 (or [server] gpudirect = false) is refused
for two in "fault.two:after=collective.3" "fault.two:at=1ms"; do
    expect_exit 2 "$WEFT" validate "$TMP/at.ini" --set fault.gdr:at=100us \
        --set fault.two:kind=gpudirect-off --set fault.two:server=dgx-2 --set "$two"
    grep -q "\[fault.two\] server: dgx-2 has no GPUDirect already" "$TMP/err" ||
        { cat "$TMP/err" >&2; fail "--set $two: a second group on dgx-2"; }
done
expect_exit 2 "$WEFT" validate "$TMP/at.ini" --set fault.gdr:at=100us --set server:gpudirect=false
grep -q "\[fault.gdr\] server: dgx-2 has no GPUDirect already" "$TMP/err" ||
    { cat "$TMP/err" >&2; fail "at with [server] gpudirect = false"; }
echo "gpudirect-off at a time: ok"
