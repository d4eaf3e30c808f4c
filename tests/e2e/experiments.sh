#!/bin/sh
# Every shipped experiment file is valid: those with a workload pass `weft validate`, the
# topology-only ones (included by the others) build with `weft topo`.
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
n=0
for f in "$WEFT_SRCDIR"/experiments/*.ini; do
    if grep -q '^\[workload\.' "$f"; then
        expect_exit 0 "$WEFT" validate "$f"
    else
        expect_exit 0 "$WEFT" topo "$f"
    fi
    n=$((n + 1))
done
[ "$n" -ge 10 ] || fail "only $n experiment files found"
echo "experiments: $n ok"
