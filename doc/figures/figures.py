#!/usr/bin/env python3
"""doc/figures/figures.py - the README's figures, drawn by weft from shipped experiments.

Usage: figures.py WEFT SRCDIR OUTDIR [--quick]

Runs the experiments below with WEFT (the weft program), draws each figure with `weft plot`
into OUTDIR/NAME.png, and writes the data drawn, read back from the figure
(weft_plot.figure()), into OUTDIR/NAME.csv: one row per point, "series,x,y", numbers as
Python's repr (they read back to the same double).  `make figures` runs it into doc/figures.

--quick (tests/e2e/figures.sh): the same runs, except that the flagship's all_reduce sweep
stops at 16 MB; only the CSV files are written.  A deterministic simulator gives the sizes
it does run exactly as the full sweep does (later sizes start after them), so the test
compares them, and the whole fabric comparison, with the committed CSV files.

  fabric-compare-fct-cdf   experiments/fabric-compare-{ib,roce,ue}.ini: FCT CDF per fabric
  dgx4-allreduce-busbw     experiments/dgx4-allreduce.ini: busbw vs size (nccl-tests)
"""
import csv
import os
import shutil
import subprocess
import sys
import tempfile

FIGURES = [
    ("fabric-compare-fct-cdf", "fct-cdf",
     [("fabric-compare-ib.ini", []), ("fabric-compare-roce.ini", []),
      ("fabric-compare-ue.ini", [])]),
    ("dgx4-allreduce-busbw", "busbw", [("dgx4-allreduce.ini", [])]),
]
QUICK = {"dgx4-allreduce.ini": ["--set", "workload.allreduce:maxbytes=16MB"]}


def main(argv):
    if len(argv) not in (4, 5) or (len(argv) == 5 and argv[4] != "--quick"):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    weft, src, out = (os.path.abspath(a) for a in argv[1:4])
    quick = len(argv) == 5
    sys.path.insert(0, os.path.join(src, "analysis"))
    os.environ["WEFT_EXE"] = weft
    import weft_plot
    os.makedirs(out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="weft-figures-")
    try:
        for name, kind, runs in FIGURES:
            paths = []
            for ini, extra in runs:
                trace = os.path.join(work, ini.replace(".ini", ".h5"))
                args = [weft, "run", "-q", os.path.join(src, "experiments", ini), "-o", trace,
                        *extra, *(QUICK.get(ini, []) if quick else [])]
                subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
                paths.append(trace)
            if not quick:
                subprocess.run([weft, "plot", *paths, "--kind", kind, "--out", work],
                               check=True, stdout=subprocess.DEVNULL)
                shutil.copyfile(os.path.join(work, kind + ".png"),
                                os.path.join(out, name + ".png"))
            fig, problems = weft_plot.figure(kind, paths)
            if problems:
                raise SystemExit(f"figures.py: {name}: {problems[0]}")
            with open(os.path.join(out, name + ".csv"), "w", newline="") as f:
                w = csv.writer(f, lineterminator="\n")
                w.writerow(["series", "x", "y"])
                for ax in fig.axes:
                    for line in ax.get_lines():
                        if not (line.get_gid() or "").startswith("weft-"):
                            continue
                        for x, y in zip(line.get_xdata(), line.get_ydata()):
                            w.writerow([line.get_label(), repr(float(x)), repr(float(y))])
            print(os.path.join(out, name + (".csv" if quick else ".png")))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
