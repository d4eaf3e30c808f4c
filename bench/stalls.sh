#!/bin/sh
# bench/stalls.sh - where a run's CPU time goes against where its instructions go, per function:
# a function whose share of the time is several times its share of the instructions waits on
# memory (a cache or TLB miss on its first loads or stores), which instruction counts cannot show.
#
#   sh bench/stalls.sh FILE.ini [--set ...]
#
# Runs $WEFT (default ./weft) under `perf record -e cpu-clock` (a timer, so it works without
# hardware counters) RUNS times (default 3) at FREQ samples a second (default 999: more perturbs
# the run - at 20,000 a second a 1.3 s run took 6.7 s and its profile shifted), then once under
# `valgrind --tool=callgrind`, and prints the TOP (default 30) functions by samples:
# their share of the samples, their share of the instructions (self, inlined callees included)
# and the ratio.  Needs perf (Debian: apt-get install linux-perf), valgrind and /usr/bin/python3.
# A sampled instruction is the one after the stalled load or store in the function's
# `perf annotate -i DIR/perf.1.data --stdio -s SYMBOL`, which shows the field.
set -eu
[ $# -ge 1 ] || { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
WEFT=${WEFT:-./weft}
RUNS=${RUNS:-3}
FREQ=${FREQ:-999}
TOP=${TOP:-30}
command -v perf > /dev/null || { echo "bench/stalls.sh: apt-get install linux-perf" >&2; exit 1; }
command -v valgrind > /dev/null || { echo "bench/stalls.sh: apt-get install valgrind" >&2; exit 1; }
ini=$1
shift
dir=${STALLS_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/weft-stalls.XXXXXX")}
i=0
while [ "$i" -lt "$RUNS" ]; do
    i=$((i + 1))
    perf record -q -e cpu-clock -F "$FREQ" -o "$dir/perf.$i.data" \
        "$WEFT" run "$ini" --quiet --output "$dir/run.h5" "$@" > /dev/null 2> "$dir/perf.err" ||
        { cat "$dir/perf.err" >&2; exit 1; }
    perf report -i "$dir/perf.$i.data" --no-children --sort symbol --stdio -g none 2> /dev/null \
        > "$dir/perf.$i.txt"
done
valgrind --tool=callgrind --callgrind-out-file="$dir/callgrind.out" \
    "$WEFT" run "$ini" --quiet --output "$dir/run.h5" "$@" > /dev/null 2> "$dir/callgrind.err" ||
    { cat "$dir/callgrind.err" >&2; exit 1; }
callgrind_annotate --threshold=100 "$dir/callgrind.out" > "$dir/callgrind.txt" 2> /dev/null
/usr/bin/python3 - "$dir" "$RUNS" "$TOP" << 'EOF'
import glob, re, sys
d, runs, top = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def base(name):
    # refill.lto_priv.0, try_send.isra.0, table_append.constprop.0: the function's own name
    return re.split(r"[.']", name)[0]
time = {}
for f in glob.glob(d + "/perf.*.txt"):
    for line in open(f):
        m = re.match(r"\s*([\d.]+)%\s+\[(.)\]\s+(\S+)", line)
        if m:
            key = ("[k] " if m.group(2) == "k" else "") + base(m.group(3))
            time[key] = time.get(key, 0.0) + float(m.group(1)) / runs
ir = {}
for line in open(d + "/callgrind.txt"):
    m = re.match(r"\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(\S+?):(\S+)", line)
    if m:
        key = base(m.group(3))
        ir[key] = ir.get(key, 0) + int(m.group(1).replace(",", ""))
total = sum(ir.values()) or 1
print("%-40s %8s %8s %7s" % ("function", "time %", "Ir %", "ratio"))
for key, t in sorted(time.items(), key=lambda kv: -kv[1])[:top]:
    i = 100.0 * ir.get(key, 0) / total
    print("%-40s %8.2f %8.2f %7s" % (key, t, i, "%.1f" % (t / i) if i > 0.005 else "-"))
EOF
echo "bench/stalls.sh: profiles in $dir"
