#!/bin/sh
# tests/e2e/python_reader.sh - analysis/weft_trace.py's defences: its checks run in a child
# process, and a crash there (libhdf5 can die on a damaged file before Python sees anything)
# becomes a one-line TraceError naming the signal, not a dead interpreter; without fork the
# child is a new interpreter and reads the same; every error the API raises is a TraceError
# (NotATrace for a file that is not a trace) of one line, and the command line prints one
# line on stderr and exits 1 or 2 even on an error nobody foresaw, never a traceback.  The
# corpus of damaged traces is tests/e2e/damaged_traces.sh's; this checks the machinery.
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
: "${WEFT_BUILDDIR:?}"
MKTRACE="$WEFT_BUILDDIR/tests/mktrace"
READER="$WEFT_SRCDIR/analysis/weft_trace.py"
test -x "$MKTRACE" || fail "$MKTRACE not built"
"$PY" -c 'import h5py, numpy' 2>/dev/null || fail "$PY cannot import h5py and numpy (Debian: python3-h5py)"
"$MKTRACE" "$TMP/a.h5" || fail "mktrace a.h5"
echo "[experiment]" >"$TMP/text.h5"
cp "$TMP/a.h5" "$TMP/noflows.h5"
"$PY" -c 'import sys, h5py; f = h5py.File(sys.argv[1], "r+"); del f["flows"]' "$TMP/noflows.h5" \
    || fail "cannot remove /flows from a copy"

"$PY" - "$READER" "$TMP" <<'EOF' || fail "weft_trace.py's API on damaged files"
import contextlib, importlib.util, io, os, signal, sys
spec = importlib.util.spec_from_file_location("weft_trace", sys.argv[1])
wt = importlib.util.module_from_spec(spec); spec.loader.exec_module(wt)
tmp = sys.argv[2]
good, text, noflows = (os.path.join(tmp, n) for n in ("a.h5", "text.h5", "noflows.h5"))

def one_line_error(call, kind, *words):
    try:
        call()
    except kind as e:
        msg = str(e)
        assert "\n" not in msg and all(w in msg for w in words), (msg, words)
        return
    raise AssertionError(f"{call} raised no {kind.__name__}")

# The checks run in a child: a crash there is an error here, naming the signal.
real = wt._inspect
wt._inspect = lambda path, read: os.kill(os.getpid(), signal.SIGSEGV)
wt._checked_cache.clear()
one_line_error(lambda: wt.open_trace(good), wt.TraceError, good, "crashed", "SIGSEGV")
one_line_error(lambda: wt.flows(good), wt.TraceError, "crashed")
err = io.StringIO()
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
    rc = wt.main(["weft_trace.py", good])
assert rc == 1 and len(err.getvalue().splitlines()) == 1, (rc, err.getvalue())
wt._inspect = real

# Without fork, a new interpreter runs the checks: same answers.
fork = os.fork
del os.fork
try:
    wt._checked_cache.clear()
    info = wt.open_trace(good)
    assert info["complete"] and info["schema_version"] == wt.SCHEMA_VERSION, info
    assert len(wt.flows(good)) == 5000
    one_line_error(lambda: wt.open_trace(text), wt.NotATrace, "not an HDF5 file")
finally:
    os.fork = fork

# Damage is one line, from the API and from the command line.
wt._checked_cache.clear()
info = wt.open_trace(noflows)
assert info["damaged"] and not info["complete"] and "/flows is missing" in info["reason"], info
one_line_error(lambda: wt.flows(noflows), wt.TraceError, "cannot read /flows", "missing")
one_line_error(lambda: wt.open_trace(text), wt.NotATrace, "not a weft trace")
one_line_error(lambda: wt.ports(os.path.join(tmp, "nosuch.h5")), wt.NotATrace, "no such file")
assert len(wt.ports(noflows)) == 6  # the rest still reads
for path, want in ((noflows, 1), (text, 2), (good, 0)):
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        rc = wt.main(["weft_trace.py", path])
    lines = err.getvalue().splitlines()
    assert rc == want and len(lines) == (want != 0), (path, rc, lines)

# An error nobody foresaw is still one line and exit 1.
wt.flows = lambda path: (_ for _ in ()).throw(ValueError("first\nsecond"))
err = io.StringIO()
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
    rc = wt.main(["weft_trace.py", good])
lines = err.getvalue().splitlines()
assert rc == 1 and len(lines) == 1 and "ValueError" in lines[0], (rc, lines)
EOF

# The command line, as a user runs it.
expect_exit 1 "$PY" "$READER" "$TMP/noflows.h5"
test "$(wc -l <"$TMP/err")" -eq 1 || fail "noflows.h5: want one line on stderr"
grep -q "damaged trace: /flows is missing" "$TMP/err" || fail "noflows.h5: $(cat "$TMP/err")"
grep -q "DAMAGED" "$TMP/out" || fail "noflows.h5: the summary does not say DAMAGED"
expect_exit 2 "$PY" "$READER" "$TMP/text.h5"
test "$(wc -l <"$TMP/err")" -eq 1 || fail "text.h5: want one line on stderr"
echo "PASS: python_reader"
