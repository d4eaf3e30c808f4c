#!/bin/sh
# Ultra Ethernet's records, read back from the traces (doc/hdf5-schema.md, schema 7), on the
# 32:1 incast of experiments/ue-incast-trimming.ini (512 KiB flows: 128 packets each):
#  - every trimmed header reaches its receiver (headers are never dropped): the trims of
#    /flows, of /ports and of /links (summed over every interval) are one number, above 0;
#  - under RUD the receiver NACKs each trimmed packet at once and nothing else is resent:
#    per flow nacks == trims == retransmits and no timeouts;
#  - reorder statistics: 1 <= reorder_mean <= reorder_max where something was reordered;
#  - EVs used: an oblivious draw per packet over 64 EVs, n draws, covers 64 (1 - (63/64)^n)
#    EVs on average (a standard deviation of about 2 here): each flow within 10 of that; ECMP
#    sends on one;
#  - /uet: at every sample time one row per flow under way (started, not finished by /flows);
#    its counters never fall and never pass the flow's final /flows figures; the NSCC window
#    stays between one full packet on the wire (4096 + 82 B) and [nscc] max_window, and reads
#    0 with NSCC off;
#  - NSCC acts under ROD too: its window moves (decreases, quick adapts, more than one value in
#    /uet) and the incast trims fewer packets than with NSCC off;
#  - `weft report` rebuilds the uet and nscc summary lines from the traces alone (the nscc line
#    under RUD only: a /flows row is written when the flow's last byte is delivered, and under
#    ROD the sender's window may still change on the ACKs that follow).
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
"$PY" -c 'import h5py, numpy' || fail "python3-h5py is missing"
inc="$WEFT_SRCDIR/experiments/ue-incast-trimming.ini"
"$WEFT" run -q "$inc" --set trace:interval=20us --set nscc:max_window=100KB \
    -o "$TMP/trim.h5" >"$TMP/trim" || fail "incast run"
"$WEFT" run -q "$inc" --set uet:load_balance=ecmp --set nscc:enabled=false \
    -o "$TMP/ecmp.h5" >"$TMP/ecmp" || fail "ECMP run"
"$PY" - "$TMP/trim.h5" "$TMP/ecmp.h5" <<'PYEOF' || fail "Ultra Ethernet traces"
import sys, h5py
import numpy as np
with h5py.File(sys.argv[1], "r") as f:
    fl, ports, links, uet = f["flows"][:], f["ports"][:], f["links"][:], f["uet"][:]
assert f"{fl['trims'].sum()}" == f"{ports['trims'].sum()}" == f"{links['trims'].sum()}", \
    (fl["trims"].sum(), ports["trims"].sum(), links["trims"].sum())
assert fl["trims"].sum() > 0, "nothing trimmed"
assert (fl["nacks"] == fl["trims"]).all() and (fl["retransmits"] == fl["nacks"]).all()
assert (fl["timeouts"] == 0).all()
r = fl[fl["reorder_count"] > 0]
assert len(r) > 0, "spraying reordered nothing"
assert (r["reorder_mean"] >= 1).all() and (r["reorder_mean"] <= r["reorder_max"]).all()
assert (fl[fl["reorder_count"] == 0]["reorder_mean"] == 0).all()
n = fl["packets"] + fl["retransmits"]
expect = 64 * (1 - (63 / 64) ** n.astype(float))
assert (abs(fl["evs_used"] - expect) <= 10).all(), (fl["evs_used"], expect)
# /uet: one row per flow under way at each sample time
byid = {int(x["id"]): x for x in fl}
for t in np.unique(uet["time_ps"]):
    rows = {int(i) for i in uet[uet["time_ps"] == t]["flow"]}
    live = {i for i, x in byid.items() if x["start_ps"] <= t < x["finish_ps"]}
    assert rows == live, (t, rows ^ live)
for i, x in byid.items():
    u = uet[uet["flow"] == i]
    u = u[np.argsort(u["time_ps"], kind="stable")]
    for k, final in (("retransmits", "retransmits"), ("nacks", "nacks"), ("acked", "packets"),
                     ("evs_used", "evs_used")):
        assert (np.diff(u[k].astype(np.int64)) >= 0).all(), (i, k)
        assert (u[k] <= x[final]).all(), (i, k)
assert (uet["cwnd_bytes"] >= 4096 + 82).all() and (uet["cwnd_bytes"] <= 100000).all()
assert (uet["credit_bytes"] == 0).all()
with h5py.File(sys.argv[2], "r") as f:
    fl, uet = f["flows"][:], f["uet"][:]
assert (fl["evs_used"] == 1).all() and len(uet) > 0 and (uet["cwnd_bytes"] == 0).all()
PYEOF
"$WEFT" run -q "$inc" --set uet:delivery=rod -o "$TMP/rod.h5" >"$TMP/rod" || fail "ROD run"
"$WEFT" run -q "$inc" --set uet:delivery=rod --set nscc:enabled=false -o "$TMP/rod-off.h5" \
    >/dev/null || fail "ROD run without NSCC"
"$PY" - "$TMP/rod.h5" "$TMP/rod-off.h5" <<'PYEOF' || fail "NSCC under ROD"
import sys, h5py
import numpy as np
with h5py.File(sys.argv[1], "r") as f:
    fl, uet, ports = f["flows"][:], f["uet"][:], f["ports"][:]
with h5py.File(sys.argv[2], "r") as f:
    off = f["ports"][:]["trims"].sum()
assert fl["finished"].all() and (fl["bytes_delivered"] == fl["size_bytes"]).all()
assert fl["window_decreases"].sum() + fl["quick_adapts"].sum() > 0, "NSCC idle under ROD"
assert len(np.unique(uet["cwnd_bytes"])) > 1, "the window never moved"
assert ports["trims"].sum() < off, (ports["trims"].sum(), off)
PYEOF
grep -q "rod; .*nscc on" "$TMP/rod" || fail "ROD summary"
for r in trim ecmp rod; do
    "$WEFT" report "$TMP/$r.h5" >"$TMP/$r.report" || fail "weft report $r"
    lines="uet nscc"
    [ $r = rod ] && lines=uet
    for line in $lines; do
        grep "^  $line " "$TMP/$r" >"$TMP/a" || true
        grep "^  $line " "$TMP/$r.report" >"$TMP/b" || true
        cmp -s "$TMP/a" "$TMP/b" || { cat "$TMP/$r" "$TMP/$r.report" >&2; fail "$r: report's $line line"; }
    done
done
grep -q "^  nscc " "$TMP/trim.report" || fail "no nscc line in the report"
echo "ue_trace: ok"
