#!/bin/sh
# weft sweep --slurm --submit on a real single-node Slurm (Debian's slurmctld, slurmd and
# munge; proctrack/linuxproc, task/none, no accounting), started here as root from a scratch
# folder and stopped by process id on exit.  A four-point sweep (an experiment name holding a
# quote, a double quote and a semicolon, times two seeds), written to a folder whose name
# holds a space, a quote and a semicolon, runs as a job array of four tasks; the dependent
# collection job writes the table.  Checked: every task's summary is complete and carries the
# name exactly as written; the table has one done row per point, with a 4-host permutation's
# 4 finished flows; its HDF5 copy (collected.h5, read with h5py) is complete and holds the same
# rows, the name intact, and figures matching each point's own weft report.  Skips (77) only
# when not run as root.
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
[ "$(id -u)" = 0 ] || { echo "not root: a Slurm of its own cannot start"; exit 77; }
for p in /usr/sbin/munged /usr/sbin/slurmctld /usr/sbin/slurmd sbatch squeue; do
    command -v "$p" >/dev/null 2>&1 || fail "$p is missing (the README's test command installs slurm-wlm and munge)"
done
S="$TMP/slurm"
mkdir -p "$S/state" "$S/spool" "$S/munge" "$S/work"
chmod 700 "$S" "$S/munge"
pids=
stop() {
    for f in "$S/slurmd.pid" "$S/slurmctld.pid" "$S/munge/munged.pid"; do
        [ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null || true
    done
    sleep 1
    for f in "$S/slurmd.pid" "$S/slurmctld.pid" "$S/munge/munged.pid"; do
        [ -s "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null || true
    done
    rm -rf "$TMP"
}
trap stop EXIT
evidence() { # the daemons' logs, for a report when Slurm does not come up
    for f in "$S/munge/munged.log" "$S/slurmctld.log" "$S/slurmd.log"; do
        [ -f "$f" ] && { echo "== $f" >&2; tail -20 "$f" >&2; }
    done
    fail "$*"
}
dd if=/dev/urandom of="$S/munge/munge.key" bs=1024 count=1 2>/dev/null
chmod 600 "$S/munge/munge.key"
/usr/sbin/munged --force --socket="$S/munge/munge.sock" --key-file="$S/munge/munge.key" \
    --log-file="$S/munge/munged.log" --pid-file="$S/munge/munged.pid" \
    --seed-file="$S/munge/munged.seed" || evidence "munged did not start"
# ports of their own, so that another Slurm on the machine is not disturbed
port=$((20000 + ($$ % 2000) * 2))
host=$(hostname)
cat >"$S/slurm.conf" <<CONF
ClusterName=weft
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$S/munge/munge.sock
SlurmctldPort=$port
SlurmdPort=$((port + 1))
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/slurmctld.log
SlurmdLogFile=$S/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=weft Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
SLURM_CONF="$S/slurm.conf"; export SLURM_CONF
/usr/sbin/slurmctld -f "$S/slurm.conf" -i || evidence "slurmctld did not start"
/usr/sbin/slurmd -f "$S/slurm.conf" || evidence "slurmd did not start"
i=0
until sinfo -h -o %t 2>/dev/null | grep -q idle; do
    i=$((i + 1)); [ $i -lt 60 ] || evidence "the node did not come up in 30 s"; sleep 0.5
done

cd "$S/work"
cat >s.ini <<'INI'
[topology]
generator = single_switch
hosts = 4
link_rate = 100Gbps
[workload.p]
kind = permutation
flow_size = 16KiB
[sweep]
experiment:name = it's\;odd"x; plain
seeds = 1..2
INI
dir="res 'q;x"
expect_exit 0 "$WEFT" sweep s.ini --slurm --submit --array-limit 2 --time 5 -o "$dir"
grep -q "^submitted: job array [0-9]*, collection [0-9]*" "$TMP/out" || { cat "$TMP/out" >&2; fail "submit"; }
grep -q '^#SBATCH --array=0-3%2$' "$dir/sweep.sbatch" || fail "--array line"
grep -q '^#SBATCH --time=5$' "$dir/sweep.sbatch" || fail "--time line"
collect=$(sed -n 's/^submitted: job array [0-9]*, collection \([0-9]*\)$/\1/p' "$TMP/out")
i=0
while squeue -h -o %i 2>/dev/null | grep -q .; do
    i=$((i + 1)); [ $i -lt 240 ] || { squeue >&2; evidence "the jobs did not finish in 120 s"; }
    sleep 0.5
done
[ -f "$dir/collected.csv" ] || { ls -la . "$dir" >&2; cat slurm-*.out >&2 || true; evidence "no collected table"; }
"$PY" - "$dir" <<'PYEOF' || fail "Slurm results"
import csv, json, os, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(d, "collected.csv"), newline="")))
assert len(rows) == 4, rows
names = []
for r in rows:
    assert r["status"] == "done", r
    assert int(r["flows finished [p]"]) == 4, r
    s = json.load(open(os.path.join(d, r["name"] + ".json")))
    assert s["complete"] is True, s
    assert s["param:experiment:seed"] == r["experiment:seed"], (s, r)
    names.append(s["param:experiment:name"])
assert names == ["it's;odd\"x", "it's;odd\"x", "plain", "plain"], names
PYEOF
# the collection job's HDF5 copy: complete, the CSV's rows, and each point's own weft report
[ -f "$dir/collected.h5" ] || evidence "no collected.h5"
for j in "$dir"/*.json; do
    "$WEFT" report --format json "${j%.json}.h5" >"${j%.json}.report" || fail "weft report ${j%.json}.h5"
done
"$PY" - "$dir" <<'PYEOF' || fail "Slurm collected.h5"
import csv, json, math, os, sys
import h5py
d = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(d, "collected.csv"), newline="")))
with h5py.File(os.path.join(d, "collected.h5"), "r") as f:
    assert f["meta"].attrs["complete"] == 1
    t = f["table"][()]
    roles = {c["name"].decode(): c["role"].decode() for c in f["columns"][()]}
assert len(t) == len(rows) == 4 and "experiment:name" in [n for n, r in roles.items() if r == "axis"]
for row, r in zip(t, rows):
    assert row["experiment:name"].decode() == r["experiment:name"], (row, r)  # quote and ; intact
    rep = json.load(open(os.path.join(d, row["name"].decode() + ".report")))
    assert row["status"].decode() == "done" and row["flows finished [p]"] == rep["flows_finished"]
    assert abs(row["sim time [us]"] * 1e6 - rep["sim_time_ps"]) <= 1e-6 * rep["sim_time_ps"]
    assert abs(row["FCT p99 [us]"] * 1e6 - rep["fct_p99_ps"]) <= 1e-6 * rep["fct_p99_ps"]
    assert row["drops"] == rep["drops"]
PYEOF
echo "slurm: ok (collection job $collect)"
