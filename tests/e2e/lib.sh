# tests/e2e/lib.sh - shared by the end-to-end shell tests (sourced, not run).
# The Makefile sets WEFT (the binary), WEFT_SRCDIR and WEFT_BUILDDIR.
set -eu
: "${WEFT:=./weft}"
: "${WEFT_SRCDIR:=.}"
PY=/usr/bin/python3
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# handlers_up PID: wait (at most 20 s) until process PID catches SIGINT and SIGTERM (SigCgt in
# /proc), so a signal sent next meets weft's handler rather than a process still being loaded:
# on a loaded machine exec and the dynamic loader alone can take longer than a fixed sleep.
handlers_up() {
    i=0
    while [ $i -lt 400 ]; do
        m=$(sed -n 's/^SigCgt:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null) || m=
        if [ -n "$m" ] && [ $(( 0x$m & 0x4002 )) -eq $(( 0x4002 )) ]; then return 0; fi
        [ -e "/proc/$1" ] || return 0
        sleep 0.05
        i=$((i + 1))
    done
    fail "process $1 never caught SIGINT and SIGTERM"
}
need() { command -v "$1" >/dev/null 2>&1 || fail "$1 is missing (the test command installs it)"; }
# dgx4_ib [SEED]: the head of an experiment on the 4-server cluster of experiments/dgx4.ini on
# InfiniBand with static routing (with SEED, its seed); a test adds its workload.
dgx4_ib() {
    printf '[experiment]\ninclude = %s/experiments/dgx4.ini\n' "$WEFT_SRCDIR"
    [ -z "${1:-}" ] || printf 'seed = %s\n' "$1"
    printf '[fabric]\nkind = infiniband\nrouting = static\n'
}

# allreduce_ini FILE HANG_TIMEOUT SIZE [WHEN]: writes FILE, the fault tests' experiment: one
# nccl-tests ring all-reduce (Simple protocol) of SIZE, out of place then in place, over the
# 4-server cluster of experiments/dgx4.ini on InfiniBand with static routing, seed 1 and the
# given hang_timeout; with WHEN ("at = 40us", "after = EVENT"), dgx-2/mlx5_3's cable dies then
# ([fault.cable] kind = link-down).  A test appends what else it needs.
allreduce_ini() {
    cat >"$1" <<INI
[experiment]
include = $WEFT_SRCDIR/experiments/dgx4.ini
seed = 1
hang_timeout = $2
[fabric]
kind = infiniband
routing = static
[workload.allreduce]
kind = nccl-test
op = all_reduce
minbytes = $3
maxbytes = $3
iters = 1
warmup_iters = 0
algo = ring
proto = simple
INI
    if [ -n "${4:-}" ]; then
        printf '[fault.cable]\nkind = link-down\nlink = dgx-2/mlx5_3\n%s\n' "$4" >>"$1"
    fi
}
# expect_exit CODE CMD...: runs CMD, captures stderr in $TMP/err, checks the status.
expect_exit() {
    want=$1; shift
    set +e; "$@" >"$TMP/out" 2>"$TMP/err"; got=$?; set -e
    [ "$got" = "$want" ] || { cat "$TMP/err" >&2; fail "'$*' exited $got, expected $want"; }
}

# The MPI tests (mpi_ranks.sh, mpi_identity.sh): Open MPI as root, 4 ranks on 2 cores.
MPIRUN="mpirun --allow-run-as-root --oversubscribe"

# Their fabric: a k = 4 fat tree of 100 Gb/s links of 1 us, so every cut link's lookahead is
# 1 us (doc/parallel.md).
fattree_k4() {
    cat <<'INI'
[topology]
generator = fattree
k = 4
link_rate = 100Gbps
cable_length = 0m
link_delay = 1us
INI
}
