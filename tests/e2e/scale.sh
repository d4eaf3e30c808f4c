#!/bin/sh
# Sizes the parameter ranges allow but the machine cannot hold, and settings that would make a
# run endless: refused at once (exit 2, one line naming the group and key, with the estimate or
# the cost), before anything is built; what fits is not refused.
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
check() { # check PATTERN CMD...: exit 2, one line on stderr matching PATTERN
    pat=$1; shift
    expect_exit 2 "$@"
    [ "$(wc -l <"$TMP/err")" -eq 1 ] || { cat "$TMP/err" >&2; fail "'$*': expected one line"; }
    grep -q -- "$pat" "$TMP/err" || { cat "$TMP/err" >&2; fail "'$*': no '$pat' in the message"; }
}
# bounded CMD...: CMD under a CPU-time limit of 10 s (ulimit -t), far above what a refusal
# before building takes (milliseconds) and far below what building these sizes would: a run
# that started building is killed (SIGXCPU) and fails the exit-status check.  CPU time, not
# wall time, so a loaded machine does not fail it.
bounded() { sh -c 'ulimit -t 10 && exec "$@"' bounded "$@"; }

cat >"$TMP/ft.ini" <<'EOF'
[topology]
generator = fattree
k = 4
[workload.perm]
kind = permutation
EOF

# k = 128: 20,480 switches, 8,192 leaves, 524,288 hosts and flows.  The route table alone is
# 20,480 x 8,192 cells of 4 bytes (0.625 GiB); refused under --max-memory 2GiB.
check "ft.ini: \[topology\] generator: fattree: 544768 nodes and 1572864 links need about .* GiB.*more than the 2.00 GiB --max-memory allows" \
    bounded "$WEFT" validate "$TMP/ft.ini" --set topology:k=128 --max-memory 2GiB
est=$(sed 's/.*need about \([0-9.]*\) GiB.*/\1/' "$TMP/err")
routes=$(sed 's/.*routes \([0-9.]*\) GiB.*/\1/' "$TMP/err")
flows=$(sed 's/.*flows [0-9.]* GiB for \([0-9]*\) flows.*/\1/' "$TMP/err")
awk -v e="$est" -v r="$routes" 'BEGIN { exit !(e > 2 && r >= 0.625 && r < 2 * 0.625) }' ||
    fail "k = 128: estimate $est GiB, routes $routes GiB: expected above 2 GiB, routes from 0.625 GiB"
[ "$flows" = 524288 ] || fail "k = 128: $flows flows estimated, expected one per host (524288)"

# k = 256 (inside the range 2..256: 1.37 TB before route tables were grouped): refused at
# once by `weft run` too, leaving no trace behind
check "\[topology\] generator: fattree: 4276224 nodes .*--max-memory" \
    bounded "$WEFT" run -q "$TMP/ft.ini" --set topology:k=256 --max-memory 8GiB -o "$TMP/t.h5"
[ ! -e "$TMP/t.h5" ] && [ ! -e "$TMP/t.h5.partial" ] || fail "k = 256: a trace was left behind"
# and `weft topo`, which counts the graph and its routes only
check "\[topology\] generator: fattree: 4276224 nodes .*routes [0-9.]* GiB;" \
    bounded "$WEFT" topo "$TMP/ft.ini" --set topology:k=256 --max-memory 8GiB

# what fits is not refused
expect_exit 0 "$WEFT" validate "$TMP/ft.ini" --set topology:k=16 --max-memory 1GiB

# the address-space limit the process runs under (not under AddressSanitizer, which reserves
# terabytes of address space for itself)
if [ -z "${ASAN_OPTIONS:-}" ]; then
    expect_exit 2 sh -c "ulimit -v 1048576 && exec \"\$0\" validate \"\$1\" --set topology:k=96" \
        "$WEFT" "$TMP/ft.ini"
    grep -q "more than the 1.00 GiB the address-space limit (ulimit -v) allows" "$TMP/err" ||
        { cat "$TMP/err" >&2; fail "ulimit -v: not refused as over the address-space limit"; }
fi
check "--max-memory lots:" "$WEFT" validate "$TMP/ft.ini" --max-memory lots

# A collective's flows follow NCCL's choices, so the estimate before building cannot count them
# (doc/scale.md): generation stops where the memory left holds no more.  The flagship makes 2.1
# million flows up to 256 MB (0.73 GiB at peak), 5.6 million up to 4 GiB (1.9 GiB), and tens of
# millions up to 64 GiB, whose arrays once failed to allocate under ulimit -v (a crash) or grew
# past --max-memory unchecked.
flag="$WEFT_SRCDIR/experiments/dgx4-allreduce.ini"
check "dgx4-allreduce.ini: \[workload.allreduce\]: more than [0-9]* flows, whose state (an estimated [0-9]* bytes a flow) needs more than the 0\.[0-9]* GiB that --max-memory leaves" \
    "$WEFT" validate "$flag" --set workload.allreduce:maxbytes=4GiB --max-memory 1GiB
# weft validate prints that budget beside the flows it made, so a sweep can be sized before it
# is refused: the 256 MB sweep fits in 2 GiB (in 1 GiB by 1 %, too little for a sanitizer's
# larger process).  The budget is the limit less what the process held before its flows, which
# its peak bounds, in flows of the stated bytes; the 4 GiB sweep's refusal names the same count.
check "\[workload.allreduce\]: more than [0-9]* flows, .* the 1\.[0-9]* GiB that --max-memory leaves" \
    "$WEFT" validate "$flag" --set workload.allreduce:maxbytes=4GiB --max-memory 2GiB
refused=$(sed -n 's/.*: more than \([0-9]*\) flows, .*/\1/p' "$TMP/err")
expect_exit 0 "$WEFT" validate "$flag" --max-memory 2GiB
made=$(sed -n 's/.*: valid: .* \([0-9]*\) flows$/\1/p' "$TMP/out")
peak=$(sed -n 's/^  memory .*, \([0-9.]*\) GiB peak;.*/\1/p' "$TMP/out")
set -- $(sed -n 's/^  flows        \([0-9]*\) made, 0 of them counted by the estimate; budget \([0-9]*\) flows (an estimated \([0-9]*\) bytes a flow, in the 1\.[0-9]* GiB that --max-memory leaves once the fabric is built)$/\1 \2 \3/p' "$TMP/out")
[ $# -eq 3 ] && [ -n "$made" ] && [ -n "$peak" ] && [ -n "$refused" ] ||
    { cat "$TMP/out" >&2; fail "validate: no flows line with the budget"; }
awk -v made="$made" -v m="$1" -v n="$2" -v b="$3" -v peak="$peak" -v r="$refused" 'BEGIN {
    lim = 2 * 2 ^ 30
    exit !(m == made && n >= made && n * b <= lim && n * b >= lim - peak * 2 ^ 30 &&
           n - r <= 0.01 * r && r - n <= 0.01 * r) }' ||
    { cat "$TMP/out" >&2; fail "validate: budget $2 flows of $3 bytes for $1 made (refused at $refused, peak $peak GiB)"; }
if [ -z "${ASAN_OPTIONS:-}" ]; then
    check "\[workload.allreduce\]: more than [0-9]* flows, .* the address-space limit (ulimit -v) leaves" \
        sh -c "ulimit -v 2097152 && exec \"\$0\" validate \"\$1\" --set workload.allreduce:maxbytes=64GiB" \
        "$WEFT" "$flag"
fi

# a host range longer than the topology's endpoints: refused before it is expanded
check "\[workload.perm\] hosts: range 'host1..host99999999' names 99999999 nodes, more than the topology's 16 endpoints" \
    bounded "$WEFT" validate "$TMP/ft.ini" --set workload.perm:hosts=host1..host99999999

# [trace] interval below one full frame on the fastest link (4096 + 82 B at 400 Gb/s)
incast="$WEFT_SRCDIR/experiments/roce-incast.ini"
frame_ns=$(awk 'BEGIN { printf "%.2f", (4096 + 82) * 8 / 400 }')
check "\[trace\] interval: 1ps is shorter than one 4178 B frame on the fastest link (400Gbps: ${frame_ns}ns).*expected at least ${frame_ns}ns" \
    "$WEFT" validate "$incast" --set trace:interval=1ps
expect_exit 0 "$WEFT" validate "$incast" --set trace:interval=84ns
expect_exit 0 "$WEFT" validate "$incast" --set trace:interval=0s

# [pfc] quanta whose refresh (every quanta / 2 of 64 B) comes before one frame has left
min_quanta=$(((4096 + 82 + 31) / 32))
check "\[pfc\] quanta: 1 is too short.*expected at least $min_quanta" \
    "$WEFT" validate "$incast" --set pfc:quanta=1
check "\[pfc\] quanta: $((min_quanta - 1)) is too short" \
    "$WEFT" validate "$incast" --set pfc:quanta=$((min_quanta - 1))
expect_exit 0 "$WEFT" validate "$incast" --set pfc:quanta=$min_quanta
echo "ok"
