#!/bin/sh
# tests/e2e/trace_tables.sh - analysis/weft_trace.py's tables for notebooks: table() and
# tables() name the columns as doc/hdf5-schema.md's field tables give them, with units.
#
# The schema document is parsed here (every "fields of /NAME" table: field and unit), and for
# every data set of weft_trace.DATA_SETS the reader's columns must be exactly the document's
# fields, in order, as "field[unit]" (bare "field" where the unit is empty); a data set the
# document has and the reader lacks, or the other way round, fails.  The values are the
# file's own (h5py, read here) column by column, for a trace with rows in every data set
# tests/mktrace writes and for a RoCE run (/dcqcn, /pfc).  The numpy form is checked always;
# the pandas form (text as str) where pandas imports (CI installs python3-pandas), and
# pandas=False gives the numpy form even then.  The worked example of doc/analysis.md runs
# as printed on a trace of experiments/incast.ini.  Bad input: an unknown data set is one
# TraceError line.
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
: "${WEFT_BUILDDIR:?}"
"$PY" -c 'import h5py, numpy' 2>/dev/null || fail "$PY cannot import h5py and numpy (Debian: python3-h5py)"
"$WEFT_BUILDDIR/tests/mktrace" "$TMP/good.h5" || fail "mktrace"
"$WEFT" run -q "$WEFT_SRCDIR/experiments/fabric-compare-roce.ini" -o "$TMP/roce.h5" >/dev/null \
    || fail "run fabric-compare-roce"
"$WEFT" run -q "$WEFT_SRCDIR/experiments/incast.ini" -o "$TMP/incast.h5" >/dev/null \
    || fail "run incast"
"$PY" - "$WEFT_SRCDIR" "$TMP" <<'PYEOF' || fail "trace tables"
import os, re, sys
import h5py
import numpy as np

SRC, TMP = sys.argv[1:]
sys.path.insert(0, os.path.join(SRC, "analysis"))
import weft_trace

doc = open(os.path.join(SRC, "doc", "hdf5-schema.md"), encoding="utf-8").read()
schema = {}
for m in re.finditer(r"^<!-- fields of /(\S+): generated .*?-->\n\| field \| type \| unit \| "
                     r"meaning \|\n\|---\|---\|---\|---\|\n((?:\|.*\n)+)", doc, re.M):
    cols = []
    for row in m.group(2).splitlines():
        cells = [c.strip() for c in row.strip("|").split("|")]
        cols.append(f"{cells[0].strip('`')}[{cells[2]}]" if cells[2] else cells[0].strip("`"))
    schema[m.group(1)] = cols
assert len(schema) >= 10, f"only {len(schema)} field tables in doc/hdf5-schema.md"
assert set(schema) == set(weft_trace.DATA_SETS), (sorted(schema), weft_trace.DATA_SETS)
assert "fct_ps[ps]" in schema["flows"] and "id" in schema["flows"], schema["flows"]

try:
    import pandas
except ImportError:
    pandas = None
    print("note: pandas is not installed here: the DataFrame form is not checked")

for path in (os.path.join(TMP, "good.h5"), os.path.join(TMP, "roce.h5")):
    every = weft_trace.tables(path, pandas=False)
    assert list(every) == list(weft_trace.DATA_SETS)
    with h5py.File(path, "r") as f:
        for name, cols in schema.items():
            arr = every[name]
            assert list(arr.dtype.names) == cols, (name, arr.dtype.names, cols)
            raw = f[name][()]
            assert len(arr) == len(raw), (path, name)
            for field, col in zip(raw.dtype.names, cols):
                assert np.array_equal(arr[col], raw[field]), (path, name, col)
            if pandas is None:
                continue
            df = weft_trace.table(path, "/" + name)
            assert isinstance(df, pandas.DataFrame) and list(df.columns) == cols, (name, df.columns)
            assert len(df) == len(raw)
            for field, col in zip(raw.dtype.names, cols):
                want = raw[field]
                if want.dtype.kind == "S":
                    want = [v.decode() for v in want]
                assert list(df[col]) == list(want), (path, name, col)
            assert isinstance(weft_trace.table(path, name, pandas=False), np.ndarray)
counted = {n: len(v) for n, v in weft_trace.tables(os.path.join(TMP, "roce.h5"), False).items()}
assert counted["dcqcn"] > 0 and counted["pfc"] > 0 and counted["flows"] == 24, counted

try:
    weft_trace.table(os.path.join(TMP, "good.h5"), "nosuch")
    raise AssertionError("an unknown data set was read")
except weft_trace.TraceError as e:
    assert len(str(e).splitlines()) == 1 and "nosuch" in str(e), e

# the worked example of doc/analysis.md, as printed
page = open(os.path.join(SRC, "doc", "analysis.md"), encoding="utf-8").read()
part = page[page.index("## Traces in a notebook"):]
example = re.search(r"```python\n(.*?)```", part, re.S).group(1)
os.chdir(TMP)
os.symlink(os.path.join(SRC, "analysis"), "analysis")
if pandas is None:  # up to what needs pandas
    example = example[:example.index("# with pandas")]
exec(compile(example, "doc/analysis.md", "exec"), {})
print("trace_tables: columns of", len(schema), "data sets agree with doc/hdf5-schema.md")
PYEOF
echo "trace_tables: ok"
