#!/bin/sh
# tests/e2e/damaged_traces.sh - both trace readers on several hundred damaged and hostile traces.
#
# tests/mkdamaged.py derives them from the trace tests/mktrace writes: truncated, bytes
# flipped, data sets and attributes removed, data sets and attributes of the wrong type,
# rank, class or layout, data type bytes patched, and sizes declared far beyond what the file
# stores (10^9 to 2^64 rows, 2^31-row chunks, 2 GiB strings).  `weft report` in every mode
# (summary, --ports, --nccl, --json) and analysis/weft_trace.py (in-process through main(),
# and every 20th file through its command line) must answer each one without a signal or a
# time-out, with exit 1 or 2 and exactly one line on stderr - except where the damage cannot
# show (a flipped byte nothing reads, a row count nudged within the chunks already stored:
# exit 0 allowed) and for the undamaged layouts (contiguous, compact, Fletcher-32: exit 0).
# Everything runs under an address-space limit (RLIMIT_AS) of 256 MiB: the readers bound
# what they allocate by what the file stores (doc/hdf5-schema.md, "Damaged and hostile
# files"), so declared sizes cannot raise it.  Under AddressSanitizer, which reserves
# terabytes of address space, the limit is left out (check-sanitize runs this test too).
# The corpus is the larger one (mkdamaged.py --full: about 430 files), except under
# AddressSanitizer (check-sanitize), where every weft report is several times slower and the
# smaller one (about 200) covers every kind of damage; WEFT_DAMAGED_FULL=0 or 1 chooses.
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
: "${WEFT_BUILDDIR:?}"
MKTRACE="$WEFT_BUILDDIR/tests/mktrace"
test -x "$MKTRACE" || fail "$MKTRACE not built"
"$PY" -c 'import h5py, numpy' 2>/dev/null || fail "$PY cannot import h5py and numpy (Debian: python3-h5py)"

"$MKTRACE" "$TMP/good.h5" || fail "mktrace good.h5"
full=--full
if [ -n "${ASAN_OPTIONS:-}" ]; then full=; fi
case ${WEFT_DAMAGED_FULL:-} in 0) full= ;; 1) full=--full ;; esac
"$PY" "$WEFT_SRCDIR/tests/mkdamaged.py" $full "$TMP/good.h5" "$TMP/corpus" >/dev/null \
    || fail "mkdamaged.py could not derive the corpus"
test "$(wc -l <"$TMP/corpus/index.txt")" -ge 200 || fail "the corpus has under 200 files"

# The limit, once it is known to hold for weft itself.
LIMIT_KB=262144
if (ulimit -v $LIMIT_KB && "$WEFT" --version) >/dev/null 2>&1; then
    limit="ulimit -v $LIMIT_KB"
elif [ -n "${ASAN_OPTIONS:-}" ]; then
    echo "note: AddressSanitizer build: no address-space limit"
    limit=:
else
    fail "weft does not start under ulimit -v $LIMIT_KB"
fi
rc=0
( eval "$limit" && "$PY" "$WEFT_SRCDIR/tests/damaged_check.py" "$WEFT" \
    "$WEFT_SRCDIR/analysis/weft_trace.py" "$TMP/corpus" ) >"$TMP/check.out" 2>&1 || rc=$?
cat "$TMP/check.out"
test $rc -eq 0 || fail "a reader mishandled a damaged trace (FAIL lines above)"
echo "PASS: damaged_traces"
