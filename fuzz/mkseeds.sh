#!/bin/sh
# fuzz/mkseeds.sh - (re)writes the seeds of the trace reader's fuzz corpus.
#
# Usage: fuzz/mkseeds.sh BUILDDIR OUTDIR      (from the source tree; needs h5py)
# BUILDDIR/fuzz/mkseeds (`make fuzz/mkseeds`) writes small traces as weft writes them:
# small.h5, empty.h5 and running.h5.  h5py then derives two more: plain.h5, small.h5 with
# every data set contiguous and unfiltered (deflate hides every value from a mutating
# fuzzer; here sizes, counts and values lie in plain sight), and v1.h5, a schema-1 trace (the
# members schema 1 had, no data set a later schema added).  The seeds are committed in
# fuzz/corpus/trace_reader with what fuzzing found; this script is how they were made.
set -eu
build=$1
out=$2
PY=${PY:-/usr/bin/python3}
mkdir -p "$out"
"$build/fuzz/mkseeds" "$out"
"$PY" - "$out" <<'PYEOF'
import os, sys
import h5py, numpy as np
out = sys.argv[1]
with h5py.File(os.path.join(out, "small.h5"), "r") as f:
    names = []
    f.visit(lambda n: names.append(n) if isinstance(f[n], h5py.Dataset) else None)
    rows = {n: f[n][()] for n in names}
    meta = dict(f["meta"].attrs)
added_later = ("collectives", "paths", "pfc", "dcqcn", "buffers")
first_new = {"links": "stall_ps", "ports": "xmit_wait_ps", "flows": "ecn_marked"}
for variant in ("plain", "v1"):
    with h5py.File(os.path.join(out, variant + ".h5"), "w") as g:
        g.create_group("meta")
        for k, v in meta.items():
            g["meta"].attrs[k] = v
        g.create_group("topology")
        for n, r in rows.items():
            if variant == "v1" and n in added_later:
                continue
            if variant == "v1" and n in first_new:
                keep = list(r.dtype.names)[: r.dtype.names.index(first_new[n])]
                old = np.zeros(r.shape, dtype=[(k, r.dtype[k]) for k in keep])
                for k in keep:
                    old[k] = r[k]
                r = old
            g.create_dataset(n, data=r)
        if variant == "v1":
            g["meta"].attrs["schema_version"] = np.uint32(1)
PYEOF
ls -l "$out"
