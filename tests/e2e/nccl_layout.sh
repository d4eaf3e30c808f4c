#!/bin/sh
# tests/e2e/nccl_layout.sh - every op's table, printed by `weft run` and again by `weft report
# --nccl`, has the layout of the current nccl-tests release (2.19.6), and the sizes, counts,
# reductions and roots nccl-tests would print for the same command line.
#
# The checker below is written from nccl-tests' format rules, not from weft's output:
#  - the report: "# nccl-tests version V nccl-headers=N nccl-library=N", "# Collective test
#    starting: OP_perf", the "# nThread ..." line (its fields in order, ending "unalign: 0"),
#    "#", "# Using devices", one "#  Rank %2d Group %2d Pid %6d on %10s device %2d
#    [%04x:%02x:%02x] NAME" line per rank (numbers right-aligned in those widths);
#  - the column heads: "#", then three lines of "# " and columns 10, 12, 8, 6, 6 wide, and
#    (after the placement line) 7, 6, 6, 6 twice, two blanks apart, each of the last two lines
#    ending in one more blank (the empty timestamp column);
#  - a row per size: size 12, count 12, type 8, redop 6, root 6, then per placement two blanks
#    before each of time 7, algbw 6, busbw 6 and #wrong 6 (118 characters); numbers
#    right-aligned, each with the most decimals (2, 1, 0) that fit its width (getFloatStr);
#  - the footer: "# " + the label left-aligned in 20 + " : " + value + " " + verdict for "Out of
#    bounds values" (0 OK) and "Avg bus bandwidth" (%g, empty verdict), "#", "# Collective test
#    concluded: OP_perf", "#", and an empty line.
# And the figures, worked out here from the command line: for a requested size s of an element
# of e bytes over n ranks, count = s / e; all_gather, reduce_scatter and alltoall print
# base = (count / n) & ~(16 / e - 1) as the count and base * n * e as the size, the other ops
# count and count * e; redop "sum" for all_reduce, reduce_scatter, reduce and sendrecv, "none"
# for the others; root -1 but for broadcast and reduce; algbw = size / time, busbw = algbw x
# the op's factor (all_reduce 2(n-1)/n; all_gather, reduce_scatter, alltoall (n-1)/n; others 1),
# within what the printed decimals allow; the average is the mean printed busbw.
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
exp="$WEFT_SRCDIR/experiments/dgx4-allreduce.ini"

cat >"$TMP/check.py" <<'PYEOF'
import re, sys

path, op, n, esize, type_name, root, smin, smax, factor = sys.argv[1:10]
n, esize, root, smin, smax, factor = int(n), int(esize), int(root), int(smin), int(smax), int(factor)
binary = op + "_perf"
split = op in ("all_gather", "reduce_scatter", "alltoall")
bus_factor = {"all_reduce": 2 * (n - 1) / n, "all_gather": (n - 1) / n,
              "reduce_scatter": (n - 1) / n, "alltoall": (n - 1) / n}.get(op, 1.0)
redop = "sum" if op in ("all_reduce", "reduce_scatter", "reduce", "sendrecv") else "none"
want_root = root if op in ("broadcast", "reduce") else -1

# nccl-tests' sizes and counts for -b smin -e smax -f factor
want_rows = []
s = smin
while s <= smax:
    count = s // esize
    if split:
        base = (count // n) & ~(16 // esize - 1)
        want_rows.append((base * n * esize, base))
    else:
        want_rows.append((count * esize, count))
    s *= factor

def fail(msg):
    sys.exit("%s (%s): %s" % (op, path, msg))

def number(field, width):
    """getFloatStr's rendering of the value the field shows: it must be the field itself."""
    if len(field) != width or field != field.rjust(width) or " " in field.strip():
        fail("%r is not right-aligned in %d" % (field, width))
    v = float(field)
    for f in ("%*.2f", "%*.1f", "%*.0f"):
        t = f % (width, v)
        if len(t) <= width:
            break
    else:
        t = (("%*.1e" if width >= 7 else "%*.0e") % (width, v))[:width]
    if t != field:
        fail("%r: the rule gives %r" % (field, t))
    return v

def halfulp(field):
    """Half the last printed digit of a number field."""
    f = field.strip()
    if "e" in f:
        mant, exp = f.split("e")
        d = len(mant.split(".")[1]) if "." in mant else 0
        return 0.5 * 10 ** (int(exp) - d)
    return 0.5 * 10 ** -(len(f.split(".")[1]) if "." in f else 0)

def integer(field, width):
    if len(field) < width or field != ("%*d" % (width, int(field))):
        fail("%r is not %%%dd" % (field, width))
    return int(field)

text = open(path).read()
start = text.find("# nccl-tests version ")
if start < 0:
    fail("no table")
lines = text[start:].split("\n")
i = 0
def take():
    global i
    if i >= len(lines):
        fail("the table ends early")
    i += 1
    return lines[i - 1]

m = re.fullmatch(r"# nccl-tests version (\d+\.\d+\.\d+) nccl-headers=(\d+) nccl-library=(\d+)", take())
if not m or m.group(2) != m.group(3):
    fail("version line: %r" % lines[i - 1])
if take() != "# Collective test starting: " + binary:
    fail("starting line: %r" % lines[i - 1])
m = re.fullmatch(r"# nThread 1 nGpus 1 minBytes (\d+) maxBytes (\d+) step: (\d+)\((factor|bytes)\) "
                 r"warmup iters: (\d+) iters: (\d+) agg iters: 1 validation: 1 graph: 0 unalign: 0",
                 take())
if not m:
    fail("nThread line: %r" % lines[i - 1])
# weft prints the sizes it ran (rounded), nccl-tests the -b and -e it was given
if int(m.group(1)) != want_rows[0][0] or int(m.group(2)) != want_rows[-1][0]:
    fail("min/max bytes %s %s, want %d %d" % (m.group(1), m.group(2), want_rows[0][0], want_rows[-1][0]))
if len(want_rows) > 1 and (m.group(4) != "factor" or int(m.group(3)) != factor):
    fail("step %s(%s), want %d(factor)" % (m.group(3), m.group(4), factor))
if take() != "#" or take() != "# Using devices":
    fail("devices heading")
for r in range(n):
    m = re.fullmatch(r"#  Rank (.+) Group (.+) Pid (.+) on (.+) device (.+) "
                     r"\[([0-9a-f]{4}):([0-9a-f]{2}):([0-9a-f]{2})\] (.+)", take())
    if not m:
        fail("device line: %r" % lines[i - 1])
    if integer(m.group(1), 2) != r:
        fail("rank %s, want %d" % (m.group(1), r))
    integer(m.group(2), 2)
    integer(m.group(3), 6)
    if len(m.group(4)) < 10 or m.group(4) != m.group(4).rjust(10):
        fail("host %r is not %%10s" % m.group(4))
    integer(m.group(5), 2)

def head(cols):
    widths = (10, 12, 8, 6, 6, 7, 6, 6, 6, 7, 6, 6, 6)
    return "# " + "  ".join(c.rjust(w) for c, w in zip(cols, widths)) + " "
if take() != "#":
    fail("no '#' before the column heads")
place = take()
if not (place.startswith("#" + " " * 51) and place.split() == ["#", "out-of-place", "in-place"]):
    fail("placement line: %r" % place)
if take() != head(["size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong",
                   "time", "algbw", "busbw", "#wrong"]):
    fail("names line: %r" % lines[i - 1])
if take() != head(["(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "",
                   "(us)", "(GB/s)", "(GB/s)", ""]):
    fail("units line: %r" % lines[i - 1])

busbws = []
for size, count in want_rows:
    row = take()
    if len(row) != 118:
        fail("row of %d characters: %r" % (len(row), row))
    cols = [row[0:12], row[14:26], row[28:36], row[38:44], row[46:52]]
    gaps = [row[12:14], row[26:28], row[36:38], row[44:46]]
    if any(g != "  " for g in gaps):
        fail("columns not two blanks apart: %r" % row)
    if integer(cols[0], 12) != size or integer(cols[1], 12) != count:
        fail("size/count %s %s, want %d %d" % (cols[0].strip(), cols[1].strip(), size, count))
    if cols[2] != type_name.rjust(8) or cols[3] != redop.rjust(6) or integer(cols[4], 6) != want_root:
        fail("type/redop/root: %r" % row)
    for g in (52, 85):
        grp = row[g:g + 33]
        if grp[0:2] != "  " or grp[9:11] != "  " or grp[17:19] != "  " or grp[25:27] != "  ":
            fail("placement group %r" % grp)
        t, a, b, w = grp[2:9], grp[11:17], grp[19:25], grp[27:33]
        t_us, alg, bus = number(t, 7), number(a, 6), number(b, 6)
        if w != "%6g" % 0:
            fail("#wrong %r" % w)
        # algbw = size / time and busbw = algbw x factor, within the printed decimals
        lo = size / 1e9 / ((t_us + halfulp(t)) * 1e-6)
        hi = size / 1e9 / ((t_us - halfulp(t)) * 1e-6) if t_us > halfulp(t) else float("inf")
        if not (lo - halfulp(a) <= alg <= hi + halfulp(a)):
            fail("algbw %s for %d B in %s us" % (a, size, t))
        if abs(bus - alg * bus_factor) > halfulp(b) + halfulp(a) * bus_factor + 1e-9:
            fail("busbw %s, algbw %s x %.4f" % (b, a, bus_factor))
        busbws.append(bus)

label = lambda s: "# " + s.ljust(20) + " : "
if take() != label("Out of bounds values") + "0 OK":
    fail("out of bounds line: %r" % lines[i - 1])
avg = take()
if not avg.startswith(label("Avg bus bandwidth")) or not avg.endswith(" "):
    fail("avg line: %r" % avg)
v = avg[len(label("Avg bus bandwidth")):-1]
if v != "%g" % float(v) or abs(float(v) - sum(busbws) / len(busbws)) > 0.01 + 1e-5 * float(v):
    fail("avg %s, printed busbw mean %.4f" % (v, sum(busbws) / len(busbws)))
for want in ("#", "# Collective test concluded: " + binary, "#", ""):
    if take() != want:
        fail("footer: %r, want %r" % (lines[i - 1], want))
print("%s: %d rows, layout and figures as nccl-tests prints them" % (op, len(want_rows)))
PYEOF

# Three ranks on two servers, so that the 16-byte rounding of the split ops shows: a size of
# 1000 B is a multiple of no 16 x 3.  Four sizes, x4 each: 1000 B to 64000 B.
ranks="dgx-1/gpu0;dgx-1/gpu5;dgx-2/gpu2"
run_op () { # OP TYPE ESIZE ROOT
    op=$1 type=$2 esize=$3 root=$4
    "$WEFT" run -q "$exp" --set topology:servers=2 --set workload.allreduce:op="$op" \
        --set workload.allreduce:gpus="$ranks" --set workload.allreduce:type="$type" \
        --set workload.allreduce:root="$root" --set workload.allreduce:minbytes=1000B \
        --set workload.allreduce:maxbytes=64000B --set workload.allreduce:stepfactor=4 \
        --set workload.allreduce:iters=2 --set workload.allreduce:warmup_iters=1 \
        -o "$TMP/$op.h5" >"$TMP/$op.run" 2>"$TMP/err" || { cat "$TMP/err" >&2; fail "$op: weft run"; }
    "$PY" "$TMP/check.py" "$TMP/$op.run" "$op" 3 "$esize" "$type" "$root" 1000 64000 4 ||
        fail "$op: weft run's table"
    "$WEFT" report --nccl "$TMP/$op.h5" >"$TMP/$op.report" 2>"$TMP/err" ||
        { cat "$TMP/err" >&2; fail "$op: weft report --nccl"; }
    "$PY" "$TMP/check.py" "$TMP/$op.report" "$op" 3 "$esize" "$type" "$root" 1000 64000 4 >/dev/null ||
        fail "$op: weft report's table"
}
run_op all_reduce float 4 0
run_op all_gather half 2 0
run_op reduce_scatter double 8 0
run_op alltoall int8 1 0
run_op broadcast float 4 2
run_op reduce bfloat16 2 1
run_op sendrecv int32 4 0

# The checker fails on what it should: a row one column short, and a busbw off by a factor.
sed "s/^        1000  /       1000  /" "$TMP/all_reduce.run" >"$TMP/bad1"
if "$PY" "$TMP/check.py" "$TMP/bad1" all_reduce 3 4 float 0 1000 64000 4 >/dev/null 2>&1; then
    fail "the checker took a row without its size column's width"
fi
"$PY" - "$TMP/all_reduce.run" "$TMP/bad2" <<'PYEOF'
import sys
lines = open(sys.argv[1]).read().split("\n")
for k, l in enumerate(lines):
    if l.startswith("        1000 "):
        bus = float(l[71:77])
        lines[k] = l[:71] + ("%6.2f" % (bus * 2))[:6] + l[77:]
open(sys.argv[2], "w").write("\n".join(lines))
PYEOF
if "$PY" "$TMP/check.py" "$TMP/bad2" all_reduce 3 4 float 0 1000 64000 4 >/dev/null 2>&1; then
    fail "the checker took a busbw twice what the bus factor gives"
fi
