#!/usr/bin/env python3
"""tests/damaged_check.py - runs both trace readers over a corpus of damaged traces.

Usage: damaged_check.py WEFT READER.py DIR [CLI_EVERY]

DIR holds the files tests/mkdamaged.py wrote and its index.txt.  For every file, `WEFT report`
runs in each mode (summary, --ports, --nccl, --json), and the Python reader READER.py
(analysis/weft_trace.py) runs in this process through its main(); every CLI_EVERY-th file
(default 20) also through its command line, in a process of its own.  Every run must end
without a signal or a time-out (30 s), and:
  - exit 1 or 2 with exactly one line on stderr, for every category but these three:
  - flip, nudge, value: a change the file cannot reveal may leave a readable trace, and a
    hostile value matters only to the mode that uses it, so exit 0 is allowed too, with at
    most one line on stderr (but some run must refuse each hostile value);
  - valid: exit 0.
Prints one line per failure and a count per category; exits 1 if anything failed.  The
limits the runs are under (RLIMIT_AS) are the caller's: tests/e2e/damaged_traces.sh sets them.
"""
import concurrent.futures
import contextlib
import importlib.util
import io
import os
import re
import subprocess
import sys

MODES = [[], ["--ports"], ["--nccl"], ["--json"]]
LENIENT = ("flip", "nudge", "value")


def verdict(category, rc, err):
    """None if (rc, stderr text) is right for a file of category, else what is wrong."""
    # AddressSanitizer (check-sanitize, allocator_may_return_null) says so when it refuses an
    # allocation libhdf5 asked for, then lets malloc fail as usual: its line, not the reader's
    lines = [l for l in err.splitlines()
             if not re.match(r"==\d+==WARNING: AddressSanitizer failed to allocate", l)]
    if rc is None:
        return "timed out"
    if rc < 0:
        return f"killed by signal {-rc}"
    if category == "valid":
        return None if rc == 0 else f"exit {rc} on an undamaged file: {err.strip()}"
    if rc == 0 and category in LENIENT:
        return None if len(lines) <= 1 else f"exit 0 with {len(lines)} lines on stderr"
    if rc not in (1, 2):
        return f"exit {rc}, want 1 or 2"
    if len(lines) != 1:
        shown = " | ".join(lines[:4])
        return f"exit {rc} with {len(lines)} lines on stderr, want 1: {shown}"
    return None


def run(cmd):
    try:
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=30)
    except subprocess.TimeoutExpired:
        return None, ""
    return p.returncode, p.stderr.decode("utf-8", "replace")


def main(argv):
    if len(argv) not in (4, 5):
        print(__doc__.splitlines()[2], file=sys.stderr)
        return 2
    weft, reader, folder = argv[1:4]
    cli_every = int(argv[4]) if len(argv) == 5 else 20
    with open(os.path.join(folder, "index.txt")) as f:
        corpus = [line.split(None, 2) for line in f if line.strip()]
    spec = importlib.util.spec_from_file_location("weft_trace", reader)
    wt = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(wt)

    failures = []
    counts = {}
    refused = set()  # files some run answered with exit 1 or 2

    def note(name, category, what, problem, rc):
        counts.setdefault(category, [0, 0])[problem is not None] += 1
        if problem is not None:
            failures.append(f"FAIL: {what}: {name}: {problem}")
        if rc in (1, 2):
            refused.add(name)

    # weft report in two threads (each waits on its process) while the Python reader runs
    # in this one: three processes for two cores, none idle
    jobs = [(name, category, mode) for name, category, _ in corpus for mode in MODES]
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        results = pool.map(lambda j: run([weft, "report", *j[2], os.path.join(folder, j[0])]),
                           jobs)
        for i, (name, category, _) in enumerate(corpus):
            path = os.path.join(folder, name)
            err = io.StringIO()
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
                rc = wt.main(["weft_trace.py", path])
            note(name, category, "weft_trace.main", verdict(category, rc, err.getvalue()), rc)
            if i % cli_every == 0:
                rc, err = run([sys.executable, reader, path])
                note(name, category, "weft_trace.py", verdict(category, rc, err), rc)
        for (name, category, mode), (rc, err) in zip(jobs, results):
            note(name, category, " ".join(["weft report", *mode]), verdict(category, rc, err),
                 rc)
    for name, category, _ in corpus:
        if category == "value" and name not in refused:
            failures.append(f"FAIL: {name}: no reader refused its hostile value")

    for line in failures:
        print(line)
    for category in sorted(counts):
        ok, bad = counts[category]
        print(f"{category}: {ok} runs right, {bad} wrong")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
