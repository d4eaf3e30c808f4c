#!/bin/sh
# experiments/superpod-64su.ini, issue 17's 16,384-GPU fabric, built but not simulated (a run
# takes 17 to 27 s of CPU on a shared machine; doc/scale.md):
#  - `weft topo` gives the switch, server and cable counts worked out here from the file's
#    parameters (three tiers of RADIX-port switches, 1:1; DGX H100 servers: 8 GPUs, 8 NICs,
#    one PCIe switch per NIC, one NVSwitch, one CPU);
#  - `weft validate` accepts it, with one flow per GPU, and prints its memory estimate, which
#    agrees with the peak it measured within the band doc/scale.md reports (the estimate errs
#    high, by up to a fifth; here it may be 10 % low to 30 % high, not under AddressSanitizer,
#    whose shadow memory the estimate does not count);
#  - below that estimate (--max-memory) it is refused before anything is built, and so is an
#    all-to-all of its GPUs, n (n - 1) flows.
# Unchecked: the run itself and its build time (bench/README.md "A 64-SU SuperPOD").
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
ini="$WEFT_SRCDIR/experiments/superpod-64su.ini"
has() { grep -qF -- "$2" "$1" || { cat "$1" >&2; fail "no '$2' in the output"; }; }
key() { sed -n "s/^$1 *= *//p" "$ini"; }

su=$(key sus) S=$(key servers_per_su) K=$(key radix)
[ "$su $S $K" = "64 32 64" ] || fail "superpod-64su.ini: expected 64 SUs of 32 slots, radix 64"
G=8 R=8
servers=$((su * S)) gpus=$((su * S * G))
# leaves: SUs x rails with S ports down, S up (1:1); spines: K / 2 down, K / 2 up; cores: K down
leaves=$((su * R)) spines=$((su * R * S / (K / 2))) cores=$((su * R * S / (K / 2) * (K / 2) / K))
nodes=$((servers * (G + 1 + R + R + 1) + leaves + spines + cores))
links=$((servers * (G + G + R + R + R) + leaves * S + spines * (K / 2)))

"$WEFT" topo "$ini" >"$TMP/topo" || fail "weft topo exited $?"
has "$TMP/topo" "servers $servers, GPUs $gpus, NICs $((servers * R))"
has "$TMP/topo" "switches $((leaves + spines + cores)): $leaves leaves $spines spines $cores cores"
has "$TMP/topo" "cables per tier: endpoint-leaf $((servers * R)) leaf-spine $((leaves * S)) spine-core $((spines * K / 2))"
has "$TMP/topo" "links $links:"

"$WEFT" validate "$ini" >"$TMP/val" 2>"$TMP/err" || { cat "$TMP/err" >&2; fail "validate exited $?"; }
has "$TMP/val" "superpod-64su.ini: valid: $nodes nodes, $links links, $gpus flows"
grep -q "^  memory       .* GiB estimated (.* for $gpus flows), .* GiB peak; limit " "$TMP/val" ||
    { cat "$TMP/val" >&2; fail "no memory line"; }
est=$(sed -n 's/^  memory *\([0-9.]*\) GiB estimated.*/\1/p' "$TMP/val")
peak=$(sed -n 's/.*, \([0-9.]*\) GiB peak;.*/\1/p' "$TMP/val")
if [ -z "${ASAN_OPTIONS:-}" ]; then
    awk -v e="$est" -v p="$peak" 'BEGIN { exit !(p > 0 && e >= 0.9 * p && e <= 1.3 * p) }' ||
        fail "estimate $est GiB against a peak of $peak GiB: expected 0.9 to 1.3 times the peak"
fi

# refused below its estimate, at once (well under the 10 s of CPU that building takes)
bounded() { sh -c 'ulimit -t 10 && exec "$@"' bounded "$@"; }
half=$(awk -v e="$est" 'BEGIN { printf "%dMiB", e * 1024 / 2 }')
expect_exit 2 bounded "$WEFT" validate "$ini" --max-memory "$half"
[ "$(wc -l <"$TMP/err")" -eq 1 ] && grep -q "\[topology\] generator: railopt: $nodes nodes and $links links need about .*--max-memory allows" "$TMP/err" ||
    { cat "$TMP/err" >&2; fail "--max-memory $half: not refused in one line"; }
expect_exit 2 bounded "$WEFT" validate "$ini" --set workload.perm:kind=all_to_all
grep -q "flows [0-9.]* GiB for $((gpus * (gpus - 1))) flows" "$TMP/err" ||
    { cat "$TMP/err" >&2; fail "all-to-all: not refused for its $((gpus * (gpus - 1))) flows"; }
echo "superpod64: ok ($est GiB estimated, $peak GiB peak)"
