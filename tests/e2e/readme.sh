#!/bin/sh
# tests/e2e/readme.sh - the commands README.md shows are commands weft accepts, and do what the
# README says.  The README is parsed, not copied here, so a command or option added to it (or
# removed from weft) fails this test:
#  - "Using it", the command block: each line is a synopsis (`weft SUB ARG [OPT ARG]...
#    [--a | --b]`, `dot|json` for a choice of values, `...` for repetition, text after two
#    spaces a description, commas between several synopses).  Every option a line shows must
#    be listed by `weft SUB --help`; every form of the line (no optional part, each optional
#    part alone with each of its alternatives, and all of them together) is run with the
#    placeholders filled in (EXPERIMENT.ini: experiments/incast.ini, and dgx4.ini for
#    `weft topo`; TRACE.h5: a trace of such a run) and must exit 0 and print the line that form
#    prints.  `weft --help` must list exactly the subcommands the block shows.
#  - "Using it", the summary block: each of its lines ("..." for any text) is a line, in order,
#    of what `weft run experiments/incast.ini` prints.
#  - "Two commands": .ci/run holds the second command as one of its lines, word for word.
#  - Everywhere: each `--set GROUP:KEY=VALUE` shown validates against the experiment of its
#    table row (experiments/incast.ini outside the table; a "..." value only needs the key in
#    `weft params GROUP`); each `weft SUB ...` with arguments runs (in a table row, on that
#    row's experiment or its trace); "`X.ini` ... prints `TEXT`" holds for `weft topo X.ini`.
# Unchecked: the figures in the tour of experiments/ (the runs take minutes; the experiment
# files say how each is measured) and the prose's claims about models.
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
"$PY" -c 'import re, subprocess' || fail "python3 is missing"
# the runs write their traces in $TMP: make the paths absolute first
case $WEFT in /*) ;; *) WEFT=$(pwd)/$WEFT ;; esac
WEFT_SRCDIR=$(cd "$WEFT_SRCDIR" && pwd)
cd "$TMP"
WEFT="$WEFT" WEFT_SRCDIR="$WEFT_SRCDIR" "$PY" - "$WEFT_SRCDIR/README.md" <<'PYEOF' || fail "README commands"
import os, re, subprocess, sys

WEFT = os.environ["WEFT"]
X = os.path.join(os.environ["WEFT_SRCDIR"], "experiments")
readme = open(sys.argv[1], encoding="utf-8").read()
failures = []
runs = 0


def weft(args, status=0, want=None, what=None):
    """Runs weft with args; checks the exit status and that `want` (a function of the output
    that returns an error string, or a substring, or None) holds.  Returns stdout."""
    global runs
    runs += 1
    p = subprocess.run([WEFT] + args, capture_output=True, text=True)
    cmd = "weft " + " ".join(args)
    if what:
        cmd += " (" + what + ")"
    if p.returncode != status:
        failures.append(f"{cmd}: exit {p.returncode}, expected {status}\n{p.stderr.strip()}")
        return p.stdout
    if isinstance(want, str) and want not in p.stdout:
        failures.append(f"{cmd}: no '{want}' in the output:\n{p.stdout[:2000]}")
    elif callable(want):
        err = want(p.stdout)
        if err:
            failures.append(f"{cmd}: {err}")
    return p.stdout


def section(title):
    m = re.search(r"^## " + re.escape(title) + r"\n(.*?)(?=^## |\Z)", readme, re.M | re.S)
    assert m, f"README.md has no '## {title}' section"
    return m.group(1)


def blocks(text):
    return re.findall(r"^```[a-z]*\n(.*?)^```", text, re.M | re.S)


# --- the two commands: CI (.ci/run) runs the second word for word --------------------------
two = blocks(section("Two commands"))
if len(two) < 2:
    failures.append("README.md: 'Two commands' has fewer than two command blocks")
else:
    ci = open(os.path.join(os.environ["WEFT_SRCDIR"], ".ci", "run"), encoding="utf-8").read()
    if two[1].strip() not in ci.splitlines():
        failures.append(".ci/run does not run the README's second command word for word")

using = section("Using it")
synopses_block, summary_block = blocks(using)[:2]

# --- the subcommands -------------------------------------------------------------------------
top_help = weft(["--help"], want="Usage:")
commands = re.findall(r"^  ([a-z]+) {2,}", top_help.split("Commands:")[1].split("Options:")[0], re.M)
assert commands, top_help

# --- the synopses ----------------------------------------------------------------------------
# One synopsis is a list of items: ("word", text) or ("opt", [alternative, ...], repeated),
# each alternative a list of words.
def parse(text):
    toks = re.findall(r"\[|\]\.\.\.|\]|\||[^\s\[\]|]+(?:\|[^\s\[\]|]+)*", text)
    items, i = [], 0
    while i < len(toks):
        t = toks[i]
        if t == "[":
            alts, cur, i = [], [], i + 1
            while toks[i] not in ("]", "]..."):
                if toks[i] == "|":
                    alts.append(cur)
                    cur = []
                else:
                    assert toks[i] != "[", f"nested brackets in '{text}'"
                    cur.append(toks[i])
                i += 1
            alts.append(cur)
            items.append(("opt", alts, toks[i] == "]..."))
        else:
            assert t not in ("]", "]...", "|"), f"unbalanced '{t}' in '{text}'"
            items.append(("word", t))
        i += 1
    return items


def forms(items):
    """Word lists: without optional parts; each optional part alone, each alternative; all
    optional parts with their first alternative.  A repeated part appears twice."""
    base = [w for it in items if it[0] == "word" for w in [it[1]]]
    out = [base]
    def with_parts(choice):
        words = []
        for k, it in enumerate(items):
            if it[0] == "word":
                words.append(it[1])
            elif k in choice:
                words += choice[k] * (2 if it[2] else 1)
        return words
    opts = [k for k, it in enumerate(items) if it[0] == "opt"]
    for k in opts:
        for alt in items[k][1]:
            out.append(with_parts({k: alt}))
    if len(opts) > 1:
        out.append(with_parts({k: items[k][1][0] for k in opts}))
    # a word with '|' is a choice of values: one form per value
    expanded = []
    for f in out:
        todo = [f]
        while todo:
            g = todo.pop(0)
            k = next((j for j, w in enumerate(g) if "|" in w), None)
            if k is None:
                expanded.append(g)
            else:
                todo += [g[:k] + [v] + g[k + 1:] for v in g[k].split("|")]
    return expanded


# The README's own example override (for experiments/incast.ini), and the trace of a run.
example_set = re.search(r"`--set ([^`\s]+)`", using)
assert example_set, "no `--set GROUP:KEY=VALUE` example in 'Using it'"
example_set = example_set.group(1)
trace = os.path.abspath("trace.h5")
weft(["run", "-q", f"{X}/incast.ini", "-o", trace], want="incast: done at")
# a two-point sweep of the README's example experiment, for `weft sweep`
sweep_ini = os.path.abspath("sweep.ini")
with open(sweep_ini, "w") as f:
    f.write(open(f"{X}/incast.ini").read() + "\n[sweep]\nseeds = 1..2\noutput = "
            + os.path.abspath("sweep-out") + "\n")
nccl_trace = os.path.abspath("allreduce.h5")  # the flagship, cut to one 64 KiB size
weft(["run", "-q", f"{X}/dgx4-allreduce.ini", "-o", nccl_trace,
      "--set", "workload.allreduce:minbytes=64KiB", "--set", "workload.allreduce:maxbytes=64KiB"],
     want="all_reduce_perf")
perftest_trace = os.path.abspath("write_bw.h5")  # ib_write_bw, cut to few iterations
weft(["run", f"{X}/dgx4-ib-write-bw.ini", "-o", perftest_trace, "--set", "workload.bw:iters=20"],
     want="RDMA_Write BW Test")


def concrete(sub, words):
    """Fills in the placeholders of one form of `weft SUB ...`."""
    topo = sub == "topo"
    fill = {
        "EXPERIMENT.ini": f"{X}/dgx4.ini" if topo else f"{X}/incast.ini",
        "GROUP:KEY=VALUE": example_set,
        "N": "7",
        "PATH": os.path.abspath("out.h5"),
        "TRACE.h5": nccl_trace if "--nccl" in words
        else perftest_trace if "--perftest" in words else trace,
        "GROUP": "pfc",
        "SRC": "dgx-1/gpu0",
        "DST": "dgx-4/gpu3",
        "SIZE": "8GiB",
        "NODE": "host0",
        "PORT": "sw0:1",
        "KIND": "queue",
        "DIR": os.path.abspath("plots"),
        "LINKS": "0",
        "FLOWS": "0",
        "SELECTOR": "0",
        "SWEEP.ini": sweep_ini,
        "I": "0",
        "TIME": "1us",
    }
    out = []
    for i, w in enumerate(words):
        if w == "..." and i > 0 and words[i - 1] == "--set":  # `--set ...`: any override
            w = "server:gpudirect=false" if topo else example_set
        elif w in fill:
            w = fill[w]
        elif re.search(r"[A-Z]{2,}", w) or w == "...":
            failures.append(f"the README shows '{w}' in 'weft {sub} ...', which this test "
                            "cannot fill in: teach it in tests/e2e/readme.sh")
            return None
        out.append(w)
    return out


def expected(sub, args):
    """What one form prints: a line (or a substring) to look for."""
    if sub == "run":
        return "incast: done at"
    if sub == "validate":
        return f"{X}/incast.ini: valid: "
    if sub == "params":
        group = next((a for a in args if not a.startswith("-")), None)
        return lambda out: (None if re.search(r"^\[" + re.escape(group or "experiment") + r"\]",
                                              out, re.M) else f"no [{group}] heading")
    if sub == "report":
        json_ = "--json" in args or "json" in args
        if "--nccl" in args and json_:
            return '"rows": [{"workload": "allreduce", "op": "all_reduce", "size_bytes": 65536,'
        if "--nccl" in args and "csv" in args:
            return "\nallreduce,all_reduce,65536,16384,float,sum,-1,out-of-place,"
        if "--nccl" in args:
            return "    65536         16384     float     sum      -1"
        if "--perftest" in args and json_:
            return '"rows": [{"workload": "bw", "test": "ib_write_bw", "bytes": 2,'
        if "--perftest" in args and "csv" in args:
            return "\nbw,ib_write_bw,2,20,"
        if "--perftest" in args:
            return "RDMA_Write BW Test"
        if "--ports" in args and json_:
            return '"ports": [{"node"'
        if "--ports" in args and "csv" in args:
            return "node,node_name,port,link,"
        if "--ports" in args:
            return " PortXmitWait="
        if json_:
            return '"complete": true'
        if "csv" in args:
            return "\ncomplete,true\n"
        return "status:      complete (done)"
    if sub == "compare":
        if "csv" in args:
            return "section,name,unit,run,trace,value,ratio"
        if "json" in args:
            return '"figures": ['
        return "\nfigures:\n"
    if sub == "diag":
        if "check" in args:
            return "-I- Fabric check: "
        if "links" in args:
            return "\n1    "
        if "-x" in args:
            return "# Port extended counters: Lid 1 port 1 "
        if "perfquery" in args:
            return "# Port counters: Lid 1 port 1 "
        return "CA 'mlx5_0'\n\tCA type: "
    if sub == "plot":
        return os.path.join(os.path.abspath("plots"), "queue.svg" if "svg" in args else "queue.png")
    if sub == "sweep":
        return "2 points (grid)" if "--list" in args else None
    if sub == "topo":
        if "--routes" in args:
            return "dgx-1/gpu0 -> dgx-4/gpu3: "
        if "dot" in args:
            return "graph weft {"
        if "json" in args:
            return '"nodes": ['
        if "topo" in args:
            return "\nnode dgx-1/gpu0 gpu ports=2 "
        return "servers 4, GPUs 32, NICs 32"
    return None


shown = set()
lines = [l.strip() for l in synopses_block.splitlines() if l.strip()]
assert lines, "the 'Using it' command block is empty"
for line in lines:
    synopsis = re.split(r"\s{2,}", line)[0]
    for one in synopsis.split(", "):
        items = parse(one)
        assert items and items[0] == ("word", "weft"), f"'{one}' does not start with weft"
        items = items[1:]
        first = items[0][1] if items and items[0][0] == "word" else None
        if first == "COMMAND":
            subs = None  # every subcommand the block shows, filled in below
        elif first and not first.startswith("-"):
            subs = [first]
            items = items[1:]
        else:
            subs = [None]
        if subs is None:
            continue  # `weft COMMAND --help`: after the loop
        for sub in subs:
            if sub is not None:
                shown.add(sub)
                if sub not in commands:
                    failures.append(f"the README shows 'weft {sub}', which weft --help does not list")
                    continue
            helptext = weft(([sub] if sub else []) + ["--help"], want="Usage:")
            for it in items:
                words = [it[1]] if it[0] == "word" else [w for a in it[1] for w in a]
                for w in words:
                    if w.startswith("--") and not re.search(r"(^|[\s,])" + re.escape(w) + r"([=\s]|$)",
                                                            helptext, re.M):
                        failures.append(f"the README shows 'weft {sub or ''} {w}', which "
                                        f"`weft {sub or ''} --help` does not list")
            for f in forms(items):
                args = concrete(sub, f)
                if args is None:
                    continue
                if sub is None:  # weft --help, weft --version
                    weft(args, want="Usage: weft COMMAND" if "--help" in args else
                         lambda out: None if re.match(r"weft \S+ \(\S+\)\n", out) else "no 'weft VERSION (REVISION)'")
                else:
                    # the fabric check finds incast's tail drops at sw0 (exit 7)
                    check = sub == "diag" and "check" in args
                    weft([sub] + args, status=7 if check else 0, want=expected(sub, args))

if "weft COMMAND --help" in synopses_block:
    for sub in sorted(shown):
        weft([sub, "--help"], want=f"weft {sub}")
missing = sorted(set(commands) - shown)
if missing:
    failures.append("weft --help lists commands the README's block does not show: " + ", ".join(missing))

# every group `weft params` lists is a GROUP `weft params GROUP` accepts
for group in re.findall(r"^\[([a-z.]+)\]  ", weft(["params"]), re.M):
    weft(["params", group], want="[" + group + "]")

# --- the summary block -----------------------------------------------------------------------
out = weft(["run", f"{X}/incast.ini"])  # the trace line says incast.h5
pos = 0
out_lines = out.splitlines()
for want in summary_block.splitlines():
    if not want.strip():
        continue
    pat = re.compile(".*?".join(re.escape(p) for p in want.split("...")) + r"$")
    k = next((k for k in range(pos, len(out_lines)) if pat.match(out_lines[k])), None)
    if k is None:
        failures.append(f"the README's summary line '{want}' is not in (this order of) what "
                        f"weft run experiments/incast.ini prints:\n{out}")
        break
    pos = k + 1

# --- examples elsewhere ----------------------------------------------------------------------
prose = re.sub(r"^```.*?^```\n", "", readme, flags=re.M | re.S)
units = []  # (experiment of a table row or None, text): table rows, and paragraphs in one line
for para in re.split(r"\n\s*\n", prose):
    if para.lstrip().startswith("|"):
        for line in para.splitlines():
            row = re.match(r"\| `([\w.-]+\.ini)`", line)
            units.append((row.group(1) if row else None, line))
    else:
        units.append((None, re.sub(r"\s*\n\s*", " ", para)))
checked = 0
for row, text in units:
    ini = f"{X}/{row or 'incast.ini'}"
    for s in re.findall(r"`--set ([^`\s]+)`", text):
        group, _, kv = s.partition(":")
        key, _, value = kv.partition("=")
        if value == "...":
            weft(["params", group], want=lambda out, key=key: None if re.search(
                r"^  " + re.escape(key) + r" ", out, re.M) else f"no key '{key}'")
        else:
            weft(["validate", ini, "--set", s], want=": valid: ")
        checked += 1
    for sub, rest in re.findall(r"`weft ([a-z]+)((?: [^`]+)?)`", text):
        rest = rest.split()
        if not row and all(a.startswith("-") for a in rest):
            # a command (and its options) named in prose: weft must know them
            weft([sub, "--help"], want=lambda out, rest=rest: next(
                (f"no {a}" for a in rest if not re.search(
                    r"(^|[\s,])" + re.escape(a) + r"([=\s]|$)", out, re.M)), None))
            continue
        args = [X + a[len("experiments"):] if a.startswith("experiments/") else a for a in rest]
        if row and sub == "report":
            h5 = os.path.abspath(row.replace(".ini", ".h5"))
            weft(["run", "-q", ini, "-o", h5])
            args.append(h5)
        elif row and not any(a.endswith(".ini") for a in args):
            args.append(ini)
        weft([sub] + args)
        checked += 1
flat = " ".join(text for _, text in units)
for ini, text in re.findall(r"`([\w.-]+\.ini)`[^`]*? prints `([^`]+)`", flat):
    weft(["topo", f"{X}/{ini}"], want=text)
    checked += 1
assert checked >= 8, f"only {checked} examples found in README.md"

print(f"readme: {runs} weft invocations, {checked} examples")
if failures:
    print("\n\n".join(failures), file=sys.stderr)
    sys.exit(1)
PYEOF
echo "readme: ok"
