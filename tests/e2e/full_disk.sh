#!/bin/sh
# A disk that fills up (a file-size limit, prlimit --fsize, stands in for it: SIGXFSZ ignored,
# so writes fail with EFBIG) at the trace's creation and in the middle of the run: exit 1, one
# line on stderr
# naming the trace and the system's reason (no HDF5 error stack, no crash), no file left that
# looks like a trace, and a complete trace already at the output path untouched.
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
X="$WEFT_SRCDIR/experiments/incast.ini"
"$WEFT" run -q "$X" -o "$TMP/t.h5" >/dev/null || fail "the first run"
cp "$TMP/t.h5" "$TMP/first.h5"
need prlimit
# 8 KiB: full at creation; 32 KiB: full mid-run (the first run's trace is larger)
for bytes in 8192 32768; do
    set +e
    (trap '' XFSZ; exec prlimit --fsize=$bytes "$WEFT" run -q "$X" -o "$TMP/t.h5") \
        >"$TMP/out" 2>"$TMP/err"
    rc=$?
    set -e
    [ "$rc" = 1 ] || { cat "$TMP/err" >&2; fail "limit $bytes: exit $rc, expected 1"; }
    [ "$(wc -l <"$TMP/err")" = 1 ] || { cat "$TMP/err" >&2; fail "limit $bytes: not one line"; }
    grep -q "^$TMP/t.h5: .*File too large$" "$TMP/err" \
        || { cat "$TMP/err" >&2; fail "limit $bytes: the line names neither path nor reason"; }
    [ ! -e "$TMP/t.h5.partial" ] || fail "limit $bytes: a partial trace was left"
    cmp -s "$TMP/t.h5" "$TMP/first.h5" || fail "limit $bytes: the complete trace was touched"
done
echo "full_disk: ok"
