#!/bin/sh
# tests/e2e/plot_interrupt.sh - Ctrl-C in weft plot: exit 130 (128 + SIGINT) without a word on
# stderr (no Python traceback) and without a half-written figure.  Two checks: SIGINT sent to
# a running `weft plot` as soon as it catches it (within a millisecond, long before the plot
# can have finished; a run that did finish first is tried again), and the handler itself,
# called in a child Python with a figure marked as being written, which must be removed.
# Skipped (77) when configure found no Python with matplotlib, h5py and numpy.
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
: "${WEFT_BUILDDIR:?}"
PYPLOT=$(sed -n 's/^#define WEFT_PYTHON "\(.*\)"$/\1/p' "$WEFT_BUILDDIR/config.h")
if [ -z "$PYPLOT" ]; then
    echo "SKIP: configure found no Python 3 with matplotlib, h5py and numpy"
    exit 77
fi
"$WEFT_BUILDDIR/tests/mktrace" "$TMP/good.h5" || fail "mktrace"

# The signal goes the moment the handler is seen (SigCgt bit 2 in /proc, polled every
# millisecond by a Python helper: a shell loop forking sed every 50 ms could, on a loaded
# machine, see the handler only after the plot had finished, and a SIGINT after that is no
# interrupt).  SIGINT is ignored in the child until weft_plot.py installs its own handler (as
# for a shell's background job), so the bit is that handler's and not Python's default one.
# A run whose figure is already being written, or its path printed, when the handler is seen
# proves nothing and is tried again (at most 5 times).
rc=$("$PYPLOT" - "$WEFT" "$TMP" <<'PYEOF'
import os, signal, subprocess, sys, time
weft, tmp = sys.argv[1], sys.argv[2]
signal.signal(signal.SIGINT, signal.SIG_IGN)  # inherited through exec
for attempt in range(5):
    with open(os.path.join(tmp, "out"), "wb") as out, open(os.path.join(tmp, "err"), "wb") as err:
        p = subprocess.Popen([weft, "plot", os.path.join(tmp, "good.h5"), "--kind", "link-util",
                              "--out", os.path.join(tmp, "fig")], stdout=out, stderr=err)
    deadline = time.monotonic() + 20
    caught = False
    while p.poll() is None and time.monotonic() < deadline:
        try:
            with open(f"/proc/{p.pid}/status") as f:
                mask = next(l for l in f if l.startswith("SigCgt:")).split()[1]
        except (OSError, StopIteration):
            mask = "0"
        if int(mask, 16) & 0x2:
            caught = True
            break
        time.sleep(0.001)
    if not caught:
        p.kill()
        p.wait()
        print("never-caught" if p.returncode is not None and p.returncode < 0 else "ended-early")
        sys.exit(0)
    finished = (os.path.getsize(os.path.join(tmp, "out")) > 0 or
                os.path.exists(os.path.join(tmp, "fig", "link-util.png")))
    p.send_signal(signal.SIGINT)
    rc = p.wait()
    if not finished:
        print(rc)
        sys.exit(0)
    try:  # the figure of a plot that finished first is not the one checked below
        os.unlink(os.path.join(tmp, "fig", "link-util.png"))
    except FileNotFoundError:
        pass
print("always-finished")
PYEOF
)
case $rc in
    never-caught) fail "weft plot never caught SIGINT" ;;
    ended-early) fail "weft plot ended before it caught SIGINT" ;;
    always-finished) fail "weft plot finished before SIGINT could be sent, 5 times" ;;
esac
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
