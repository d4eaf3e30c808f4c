#!/bin/sh
# tests/e2e/figures.sh - the README's figures are current: the data drawn in them
# (doc/figures/*.csv, which `make figures` writes beside each PNG) is what weft draws today.
#
# doc/figures/figures.py --quick runs the same shipped experiments (the fabric comparison in
# full; the flagship's all_reduce sweep up to 16 MB, which its sizes up to 16 MB do not
# notice: later sizes start after them) and reads the points back from the figures; every
# point of the FCT CDF (each fabric's series, label and values) must equal the committed
# one, and the busbw points up to 16 MB the committed ones of those sizes.  PNG bytes are not
# compared (matplotlib does not keep them stable).  When this fails after an intended change
# of the model or the plots, `make figures` redraws them.
# Skipped (77) when configure found no Python with matplotlib, h5py and numpy.
. "${WEFT_SRCDIR:-.}/tests/e2e/lib.sh"
: "${WEFT_BUILDDIR:?}"
PYPLOT=$(sed -n 's/^#define WEFT_PYTHON "\(.*\)"$/\1/p' "$WEFT_BUILDDIR/config.h")
if [ -z "$PYPLOT" ]; then
    echo "SKIP: configure found no Python 3 with matplotlib, h5py and numpy"
    exit 77
fi
case $WEFT in /*) ;; *) WEFT=$(pwd)/$WEFT ;; esac
"$PYPLOT" -I "$WEFT_SRCDIR/doc/figures/figures.py" "$WEFT" "$WEFT_SRCDIR" "$TMP/fresh" --quick \
    >/dev/null || fail "figures.py --quick"
"$PYPLOT" -I - "$WEFT_SRCDIR/doc/figures" "$TMP/fresh" <<'PYEOF' || fail "the README's figures are stale (make figures redraws them)"
import csv, os, sys

committed, fresh = sys.argv[1:]


def rows(path):
    with open(path, newline="") as f:
        return [(r["series"], float(r["x"]), float(r["y"])) for r in csv.DictReader(f)]


bad = []
for name in ("fabric-compare-fct-cdf", "dgx4-allreduce-busbw"):
    old = rows(os.path.join(committed, name + ".csv"))
    new = rows(os.path.join(fresh, name + ".csv"))
    if not os.path.exists(os.path.join(committed, name + ".png")):
        bad.append(f"doc/figures/{name}.png is missing")
    if name.endswith("busbw"):
        old = [r for r in old if r[1] <= 16e6]
        if len(new) < 3 or {r[1] for r in new} != {1e6, 4e6, 16e6}:
            bad.append(f"{name}: the quick sweep drew sizes {sorted({r[1] for r in new})}")
    if old != new:
        diff = next((f"{o} != {n}" for o, n in zip(old, new) if o != n),
                    f"{len(old)} points committed, {len(new)} drawn")
        bad.append(f"doc/figures/{name}.csv: {diff}")
    elif len(new) < 3:
        bad.append(f"{name}: only {len(new)} points")
if bad:
    print("\n".join(bad), file=sys.stderr)
    sys.exit(1)
print("figures: the data behind the README's figures is current")
PYEOF
echo "figures: ok"
