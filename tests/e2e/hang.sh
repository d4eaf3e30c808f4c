#!/bin/sh
# A forwarding table that sends host1's packets back to host0: nothing is ever delivered,
# retransmission timers keep firing (events, not progress), and the watchdog reports a hang:
# exit 3, the waiting flow and its path named, the trace written and readable.
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
cat >"$TMP/lft.txt" <<'LFT'
# switch destination port (ports from 1): host1's traffic leaves by host0's port
sw0 host1 1
LFT
cat >"$TMP/hang.ini" <<INI
[experiment]
hang_timeout = 2ms
[topology]
generator = single_switch
hosts = 2
link_rate = 100Gbps
forwarding_table = lft.txt
[fabric]
routing = static
[workload.w]
kind = flows
flows = host0>host1 1MiB
INI
expect_exit 3 "$WEFT" run -q "$TMP/hang.ini" -o "$TMP/hang.h5"
grep -q "hang detected" "$TMP/err" || fail "no hang report"
grep -q "flow 0 host0 -> host1" "$TMP/err" || fail "the waiting flow is not named"
grep -q "sw0:1->host0" "$TMP/err" || fail "the link it waits on is not named"
expect_exit 0 "$WEFT" report "$TMP/hang.h5"
grep -q "complete (hang)" "$TMP/out" || fail "the trace is not a complete record of the hang"
echo "hang: ok"
