#!/bin/sh
# tests/e2e/plot_interrupt.sh - Ctrl-C in weft plot: exit 130 (128 + SIGINT) without a word on
# stderr (no Python traceback) and without a half-written figure.  Two checks: SIGINT sent to
# a running `weft plot` as soon as it catches it (before matplotlib is even imported, so the
# plot cannot have finished), and the handler itself, called in a child Python with a figure
# marked as being written, which must be removed.
# Skipped (77) when configure found no Python with matplotlib, h5py and numpy.
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
: "${WEFT_BUILDDIR:?}"
PYPLOT=$(sed -n 's/^#define WEFT_PYTHON "\(.*\)"$/\1/p' "$WEFT_BUILDDIR/config.h")
if [ -z "$PYPLOT" ]; then
    echo "SKIP: configure found no Python 3 with matplotlib, h5py and numpy"
    exit 77
fi
"$WEFT_BUILDDIR/tests/mktrace" "$TMP/good.h5" || fail "mktrace"

"$WEFT" plot "$TMP/good.h5" --kind link-util --out "$TMP/fig" >"$TMP/out" 2>"$TMP/err" &
pid=$!
# wait (at most 20 s) until the process catches SIGINT (SigCgt bit 2): weft has exec'd Python
# and weft_plot.py has installed its handler
i=0
while :; do
    m=$(sed -n 's/^SigCgt:[[:space:]]*//p' "/proc/$pid/status" 2>/dev/null) || m=
    if [ -n "$m" ] && [ $(( 0x$m & 0x2 )) -ne 0 ]; then break; fi
    [ -e "/proc/$pid" ] || fail "weft plot ended before it caught SIGINT"
    [ $i -lt 400 ] || fail "weft plot never caught SIGINT"
    sleep 0.05
    i=$((i + 1))
done
kill -INT $pid
set +e
wait $pid
rc=$?
set -e
[ "$rc" = 130 ] || { cat "$TMP/err" >&2; fail "exit $rc after SIGINT, expected 130"; }
[ ! -s "$TMP/err" ] || { cat "$TMP/err" >&2; fail "SIGINT printed on stderr"; }
[ ! -e "$TMP/fig/link-util.png" ] || fail "a figure was left behind"

# the handler: exits 130, silently, removing the figure being written
touch "$TMP/half.png"
set +e
"$PYPLOT" -I - "$WEFT_SRCDIR/analysis" "$TMP/half.png" >"$TMP/out" 2>"$TMP/err" <<'PYEOF'
import signal, sys
sys.path.insert(0, sys.argv[1])
import weft_plot
weft_plot._writing.append(sys.argv[2])
weft_plot.on_sigint(signal.SIGINT, None)
print("on_sigint returned")
PYEOF
rc=$?
set -e
[ "$rc" = 130 ] || { cat "$TMP/err" >&2; fail "handler: exit $rc, expected 130"; }
[ ! -s "$TMP/err" ] && [ ! -s "$TMP/out" ] || fail "handler: printed something"
[ ! -e "$TMP/half.png" ] || fail "handler: the half-written figure is still there"
