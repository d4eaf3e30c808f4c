# tests/e2e/lib.sh - shared by the end-to-end shell tests (sourced, not run).
# The Makefile sets WEFT (the binary), WEFT_SRCDIR and WEFT_BUILDDIR.
set -eu
: "${WEFT:=./weft}"
: "${WEFT_SRCDIR:=.}"
PY=/usr/bin/python3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
need() { command -v "$1" >/dev/null 2>&1 || fail "$1 is missing (the test command installs it)"; }
# expect_exit CODE CMD...: runs CMD, captures stderr in $TMP/err, checks the status.
expect_exit() {
    want=$1; shift
    set +e; "$@" >"$TMP/out" 2>"$TMP/err"; got=$?; set -e
    [ "$got" = "$want" ] || { cat "$TMP/err" >&2; fail "'$*' exited $got, expected $want"; }
}
