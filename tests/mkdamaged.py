#!/usr/bin/env python3
"""tests/mkdamaged.py - derives damaged and hostile traces from a good one, deterministically.

Usage: mkdamaged.py [--full] GOOD.h5 OUTDIR

Writes OUTDIR/NNN-CATEGORY-what.h5 for each variant (about 200; with --full, which varies
more of everything, about 430) and OUTDIR/index.txt, one line per file: "FILE CATEGORY
WHAT".  GOOD.h5 is a complete trace of the current schema with
rows in /flows, /ports, /collectives, /topology/* and /links (tests/mktrace writes one).  The
categories:

  cut       truncated copies (an empty file, a partial signature or superblock, then cuts
            spread over the whole file)
  flip      1 to 4 bytes XORed at pseudo-random places, half of them in object headers and
            chunk-index nodes (where HDF5 keeps the structure) and half anywhere; the file has
            no checksums, so a flip in bytes nothing reads, or in a value, leaves a readable
            trace: this is the only category in which a file may still read as complete
  removed   a data set, the /topology group, /meta, or one /meta attribute unlinked
  type      data sets replaced by one of another type, rank, class or layout (members
            dropped, renamed, retyped, resized, variable-length strings, a 2-D or scalar or
            null data space, a group, soft and external links, a foreign filter, external
            storage) and /meta attributes stored as arrays, as another class or as a
            compound; bytes of a data type patched (member offsets, sizes, counts, classes)
  huge      declared sizes far beyond what the file stores: data sets extended to 10^9 rows
            and more (nothing written), dimension bytes patched, chunk dimensions patched,
            fixed-length string sizes patched
  nudge     a data set's row count raised by a little (+256, x2) where the chunks already
            stored still cover it (those rows read as zeros: the file cannot tell), and the
            element size a chunked layout records (which HDF5 does not use): like a flip, may
            still read as complete
  value     hostile values in well-formed data: a collective of 2^32-1 ranks (the nccl-tests
            table lists every rank), an experiment naming an include (a resolved one names
            none; /dev/zero never ends); only what uses the value must refuse it, the rest
            may read as complete
  valid     not damaged at all: layouts and filters weft does not write but HDF5 stores in the
            file itself (contiguous, compact, Fletcher-32 checksums); must read as complete

Same GOOD.h5, same files.  Needs h5py and numpy.  Everything here is hostile on purpose: the
readers must answer each file with one line and exit 1 or 2 (see tests/e2e/damaged_traces.sh).
"""
import os
import random
import shutil
import struct
import sys

import h5py
import numpy as np

DATASETS = ["topology/nodes", "topology/links", "flows", "links", "ports", "collectives",
            "paths", "pfc", "dcqcn", "buffers"]
META_NUMBERS = ["schema_version", "complete", "seed", "sim_time_ps", "wall_time_s", "events"]
META_STRINGS = ["status", "weft_version", "git_revision", "experiment", "experiment_path",
                "message", "glib_version", "hdf5_version", "gsl_version"]


class Corpus:
    def __init__(self, good, outdir, full):
        self.full = full
        self.good = good
        self.outdir = outdir
        self.index = []
        with open(good, "rb") as f:
            self.bytes = f.read()

    def name(self, category, what):
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in what)
        return os.path.join(self.outdir, f"{len(self.index):03d}-{category}-{safe}.h5")

    def add_bytes(self, category, what, data):
        path = self.name(category, what)
        with open(path, "wb") as f:
            f.write(data)
        self.index.append((os.path.basename(path), category, what))

    def add_edit(self, category, what, edit):
        """A copy of the good trace, changed through h5py by edit(file)."""
        path = self.name(category, what)
        shutil.copyfile(self.good, path)
        with h5py.File(path, "r+") as f:
            edit(f)
        self.index.append((os.path.basename(path), category, what))

    def add_patch(self, category, what, edit, patch):
        """A copy changed by edit(file) (or not, if None), then by patch(bytearray, file) on
        its bytes, where the file is the edited copy opened read-only."""
        path = self.name(category, what)
        shutil.copyfile(self.good, path)
        if edit is not None:
            with h5py.File(path, "r+") as f:
                edit(f)
        with open(path, "rb") as f:
            data = bytearray(f.read())
        with h5py.File(path, "r") as f:
            patch(data, f)
        with open(path, "wb") as f:
            f.write(data)
        self.index.append((os.path.basename(path), category, what))

    def write_index(self):
        with open(os.path.join(self.outdir, "index.txt"), "w") as f:
            for name, category, what in self.index:
                f.write(f"{name} {category} {what}\n")


# ---- object headers (version 1, as HDF5's default "earliest" format writes them) ----------

def header_messages(data, addr):
    """[(type, offset of the message data, size)] of the version-1 object header at addr,
    following continuation messages."""
    if data[addr] != 1:
        raise ValueError(f"object header at {addr} is not version 1")
    nmsgs = struct.unpack_from("<H", data, addr + 2)[0]
    size = struct.unpack_from("<I", data, addr + 8)[0]
    blocks = [(addr + 16, size)]
    out = []
    while blocks and len(out) < nmsgs:
        start, length = blocks.pop(0)
        p = start
        while p + 8 <= start + length and len(out) < nmsgs:
            mtype, msize = struct.unpack_from("<HH", data, p)
            out.append((mtype, p + 8, msize))
            if mtype == 0x10:  # continuation: offset, length
                blocks.append(struct.unpack_from("<QQ", data, p + 8))
            p += 8 + msize
    return out


def message(data, obj, mtype, nth=0):
    """(offset, size) of the nth message of mtype in obj's header."""
    addr = h5py.h5o.get_info(obj.id).addr
    found = [(o, s) for t, o, s in header_messages(data, addr) if t == mtype]
    return found[nth]


def dataspace_dims_offset(data, dset):
    """Offset of dims[0] in dset's dataspace message (version 1 or 2)."""
    off, _ = message(data, dset, 0x0001)
    return off + (8 if data[off] == 1 else 4)


def layout_chunk_offset(data, dset):
    """Offset of the first chunk dimension in dset's layout message (version 3, chunked)."""
    off, _ = message(data, dset, 0x0008)
    assert data[off] == 3 and data[off + 1] == 2, "not a version-3 chunked layout"
    return off + 3 + 8


def compound_members(data, off):
    """[(offset of the member's byte-offset field, offset of its datatype)] of the version-1
    compound datatype at off, and the compound's size field offset."""
    version = data[off] >> 4
    assert data[off] & 0x0f == 6 and version == 1, "not a version-1 compound"
    n = struct.unpack_from("<H", data, off + 1)[0]
    p = off + 8
    members = []
    for _ in range(n):
        end = data.index(b"\0", p)
        p += (end - p + 1 + 7) // 8 * 8  # name, NUL, padded to 8
        members.append((p, p + 32))
        p += 32
        p += datatype_length(data, p)
    return members


def datatype_length(data, off):
    cls = data[off] & 0x0f
    props = {0: 4, 1: 12, 3: 0, 4: 0, 5: 0, 7: 0, 8: 0}  # fixed, float, string, bitfield...
    if cls == 6:
        members = compound_members(data, off)
        if not members:
            return 8
        last = members[-1][1]
        return last + datatype_length(data, last) - off
    return 8 + props.get(cls, 0)


# ---- the categories ------------------------------------------------------------------------

def truncated(c):
    size = len(c.bytes)
    for n in (0, 4, 8, 40, 100, 511):
        c.add_bytes("cut", f"at{n}", c.bytes[:n])
    parts = 40 if c.full else 10
    for k in range(1, parts):
        n = size * k // parts
        c.add_bytes("cut", f"at{n}", c.bytes[:n])
    c.add_bytes("cut", "last-byte", c.bytes[:-1])


def flipped(c, rng):
    data = c.bytes
    with h5py.File(c.good, "r") as f:
        regions = []  # (start, length) of structure: object headers, chunk index entries
        for name in ["meta", "topology"] + DATASETS:
            info = h5py.h5o.get_info(f[name].id)
            regions.append((info.addr, 16 + struct.unpack_from("<I", data, info.addr + 8)[0]))
            for t, o, s in header_messages(data, info.addr):
                if t == 0x10:
                    regions.append(struct.unpack_from("<QQ", data, o))
        for name in ("flows", "links", "ports", "topology/nodes"):
            d = f[name]
            for i in range(d.id.get_num_chunks()):
                ci = d.id.get_chunk_info(i)
                regions.append((ci.byte_offset, min(ci.size, 64)))
    for k in range(100 if c.full else 32):
        out = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            if k % 2 == 0:
                start, length = regions[rng.randrange(len(regions))]
                pos = start + rng.randrange(length)
            else:
                pos = rng.randrange(len(out))
            out[pos] ^= rng.randint(1, 255)
        c.add_bytes("flip", f"n{k}", bytes(out))


def removed(c):
    def unlink(name):
        return lambda f: f.__delitem__(name)
    for name in DATASETS + ["topology", "meta"]:
        c.add_edit("removed", name.replace("/", "_"), unlink(name))
    for attr in META_NUMBERS + META_STRINGS:
        c.add_edit("removed", f"meta_{attr}", lambda f, a=attr: f["meta"].attrs.__delitem__(a))
    # /flows emptied: every row gone, while /ports counts the packets the flows sent
    c.add_edit("removed", "flows_emptied", lambda f: f["flows"].resize((0,)))


def replace(f, name, make):
    """Replaces the data set @name with what make(f, name, its dtype) creates."""
    dtype = f[name].dtype
    del f[name]
    make(f, name, dtype)


def with_fields(dtype, change):
    """A new compound dtype from [(name, type)] changed by change(list)."""
    fields = [(n, dtype.fields[n][0]) for n in dtype.names]
    return np.dtype(change(fields))


def changes_type(f, name, change):
    return with_fields(f[name].dtype, change) != f[name].dtype


def retyped(f, name, change, chunks=True):
    old = f[name][()]
    dtype = with_fields(old.dtype, change)
    new = np.zeros(old.shape, dtype=dtype)
    for n in dtype.names:
        if n in old.dtype.names:
            try:
                new[n] = old[n]
            except (TypeError, ValueError):
                pass
    del f[name]
    kw = {"chunks": (64,), "maxshape": (None,)} if chunks else {}
    f.create_dataset(name, data=new, **kw)


def types(c):
    # every data set: another class, rank or kind of object in its place
    plain = [
        ("float", lambda f, n, t: f.create_dataset(n, data=np.arange(7, dtype="<f8"))),
        ("rows2d", lambda f, n, t: f.create_dataset(n, data=np.zeros((3, 4), dtype=t))),
        ("scalar", lambda f, n, t: f.create_dataset(n, data=np.zeros((), dtype=t))),
        ("null", lambda f, n, t: f.create_dataset(n, data=h5py.Empty(t))),
        ("group", lambda f, n, t: f.create_group(n)),
        ("softloop", lambda f, n, t: f.__setitem__(n, h5py.SoftLink("/" + n))),
        ("external", lambda f, n, t: f.__setitem__(n, h5py.ExternalLink("/dev/zero", "/x"))),
    ]
    for name in DATASETS:
        for what, make in plain:
            if c.full:
                wanted = name in ("flows", "ports", "collectives", "topology/nodes") or \
                    what in ("float", "group", "external")
            else:
                wanted = name in ("flows", "ports") or \
                    what in (("float", "group", "null") if name in ("collectives", "topology/nodes")
                             else ("group",))
            if not wanted:
                continue
            c.add_edit("type", f"{name.replace('/', '_')}-{what}",
                       lambda f, n=name, m=make: replace(f, n, m))
    # compound members changed, for the data sets weft report reads
    member_changes = [
        ("drop-second", lambda fl: fl[:1] + fl[2:]),
        ("rename-first", lambda fl: [("ID", fl[0][1])] + fl[1:]),
        ("swap-first-two", lambda fl: [fl[1], fl[0]] + fl[2:]),
        ("extra-member", lambda fl: fl + [("bogus", np.dtype("<u8"))]),
        ("first-as-float", lambda fl: [(fl[0][0], np.dtype("<f4"))] + fl[1:]),
        ("first-as-u64", lambda fl: [(fl[0][0], np.dtype("<u8"))] + fl[1:]),
        ("first-as-i8", lambda fl: [(fl[0][0], np.dtype("i1"))] + fl[1:]),
        ("strings-wider", lambda fl: [(n, np.dtype("S200") if t.kind == "S" else t)
                                      for n, t in fl]),
        ("strings-vlen", lambda fl: [(n, h5py.string_dtype() if t.kind == "S" else t)
                                     for n, t in fl]),
        ("floats-as-f4", lambda fl: [(n, np.dtype("<f4") if t.kind == "f" else t)
                                     for n, t in fl]),
        ("ints-big-endian", lambda fl: [(n, t.newbyteorder(">") if t.kind in "ui" else t)
                                        for n, t in fl]),
        ("member-array", lambda fl: [(fl[0][0], np.dtype((fl[0][1], (3,))))] + fl[1:]),
        ("only-one", lambda fl: fl[:1]),
    ]
    with h5py.File(c.good, "r") as good:
        for name in ("flows", "ports", "collectives", "topology/nodes"):
            for k, (what, change) in enumerate(member_changes):
                if name != "flows" and not c.full and k % 3 != 0:
                    continue
                if changes_type(good, name, change):
                    c.add_edit("type", f"{name.replace('/', '_')}-{what}",
                               lambda f, n=name, ch=change: retyped(f, n, ch))
    c.add_edit("type", "flows-external-storage", lambda f: external_storage(f))
    c.add_edit("type", "flows-lzf-filter", lambda f: lzf_filter(f, "flows"))
    c.add_edit("valid", "flows-contiguous",
               lambda f: retyped(f, "flows", lambda fl: fl, chunks=False))
    c.add_edit("valid", "ports-compact", lambda f: compact_copy(f, "ports"))
    c.add_edit("valid", "flows-fletcher32", lambda f: fletcher(f, "flows"))
    # /meta attributes: arrays, other classes, compounds
    number_variants = [
        ("array", lambda f, a: set_attr(f, a, np.array([1, 2, 3, 4], dtype="<u8"))),
        ("string", lambda f, a: set_attr(f, a, "seven")),
        ("compound", lambda f, a: set_attr(f, a, np.zeros((), dtype=[("a", "<u4"), ("b", "<f8")]))),
    ]
    string_variants = [
        ("array", lambda f, a: set_attr(f, a, np.array([b"done", b"done", b"x"], dtype="S8"))),
        ("vlen-array", lambda f, a: set_attr(f, a, np.array(["done"] * 5, dtype=h5py.string_dtype()))),
        ("number", lambda f, a: set_attr(f, a, 3)),
    ]
    for attrs, variants in ((META_NUMBERS, number_variants), (META_STRINGS, string_variants)):
        for i, attr in enumerate(attrs):
            for k, (what, make) in enumerate(variants):
                if c.full or k == 0 or (i % 2 == 0 and k == 1 + i // 2 % 2):
                    c.add_edit("type", f"meta_{attr}-{what}", lambda f, a=attr, m=make: m(f, a))
    c.add_edit("type", "meta_status-empty-array",
               lambda f: set_attr(f, "status", np.zeros((0,), dtype="S8")))
    c.add_edit("type", "meta_seed-2d", lambda f: set_attr(f, "seed", np.ones((2, 2), dtype="<u8")))
    c.add_edit("type", "meta_schema_version-float", lambda f: set_attr(f, "schema_version", 4.0))
    c.add_edit("type", "meta_schema_version-nan",
               lambda f: set_attr(f, "schema_version", float("nan")))
    c.add_edit("type", "meta_schema_version-negative",
               lambda f: set_attr(f, "schema_version", np.int64(-1)))
    c.add_edit("type", "meta_schema_version-huge",
               lambda f: set_attr(f, "schema_version", np.uint64(2 ** 63)))
    c.add_edit("type", "meta-is-dataset",
               lambda f: (f.__delitem__("meta"), f.create_dataset("meta", data=[4])))
    # data type bytes patched in place (the compound of /flows and /ports)
    for name in ("flows", "ports") if c.full else ("flows",):
        for k, (what, patch) in enumerate(dtype_patches()):
            if not c.full and k % 2 == 1:
                continue
            c.add_patch("type", f"{name}-bytes-{what}", None,
                        lambda data, f, n=name, p=patch: p(data, message(data, f[n], 0x0003)[0]))


def set_attr(f, name, value):
    f["meta"].attrs[name] = value


def compact_copy(f, name):
    rows = f[name][()]
    del f[name]
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_layout(h5py.h5d.COMPACT)
    space = h5py.h5s.create_simple(rows.shape)
    tid = h5py.h5t.py_create(rows.dtype)
    dset = h5py.h5d.create(f.id, name.encode(), tid, space, dcpl=dcpl)
    dset.write(h5py.h5s.ALL, h5py.h5s.ALL, rows)


def external_storage(f):
    rows = f["flows"][:10]
    del f["flows"]
    f.create_dataset("flows", data=rows, external=[("/dev/zero", 0, h5py.h5f.UNLIMITED)])


def lzf_filter(f, name):
    rows = f[name][()]
    del f[name]
    f.create_dataset(name, data=rows, chunks=(4096,), maxshape=(None,), compression="lzf")


def fletcher(f, name):
    rows = f[name][()]
    del f[name]
    f.create_dataset(name, data=rows, chunks=(4096,), maxshape=(None,), fletcher32=True)


def dtype_patches():
    def put(fmt, where, value):
        def patch(data, off):
            struct.pack_into(fmt, data, where(data, off), value)
        return patch

    def member(i, field):
        def where(data, off):
            m = compound_members(data, off)[i]
            return m[0] if field == "offset" else m[1] + {"class": 0, "size": 4}[field]
        return where

    def nmembers(data, off):
        return off + 1

    def size(data, off):
        return off + 4

    def class_byte(value):
        def patch(data, off):
            t = member(1, "class")(data, off)
            data[t] = (data[t] & 0xf0) | value
        return patch

    return [
        ("size-half", lambda data, off: struct.pack_into(
            "<I", data, off + 4, struct.unpack_from("<I", data, off + 4)[0] // 2)),
        ("size-0", put("<I", size, 0)),
        ("size-huge", put("<I", size, 0xfffffff0)),
        ("nmembers-0", put("<H", nmembers, 0)),
        ("nmembers-1", put("<H", nmembers, 1)),
        ("nmembers-huge", put("<H", nmembers, 0xffff)),
        ("member1-offset-past-end", put("<I", member(1, "offset"), 0x7fff0000)),
        ("member1-offset-overlaps", put("<I", member(1, "offset"), 1)),
        ("member2-offset-0", put("<I", member(2, "offset"), 0)),
        ("member1-size-0", put("<I", member(1, "size"), 0)),
        ("member1-size-huge", put("<I", member(1, "size"), 0x7ffffff0)),
        ("member1-size-3", put("<I", member(1, "size"), 3)),
        ("member1-class-float", class_byte(1)),
        ("member1-class-string", class_byte(3)),
        ("member1-class-compound", class_byte(6)),
        ("member1-class-vlen", class_byte(9)),
        ("member1-class-reference", class_byte(7)),
        ("member1-class-15", class_byte(15)),
    ]


def huge(c):
    for name in DATASETS:
        c.add_edit("huge", f"{name.replace('/', '_')}-1e9-rows",
                   lambda f, n=name: f[n].resize((10 ** 9,)))
    for name in ("flows", "ports", "collectives", "topology/nodes") if c.full else ("flows",):
        for rows in (2 ** 32 + 5, 2 ** 62):
            c.add_edit("huge", f"{name.replace('/', '_')}-{rows}-rows",
                       lambda f, n=name, r=rows: f[n].resize((r,)))
    # dimension bytes patched: current dims and max dims are 8-byte fields
    for name in ("flows", "ports", "collectives", "topology/nodes", "links") if c.full else \
            ("flows", "ports", "links"):
        for what, change in [("plus-256", lambda v: v + 256), ("times-2", lambda v: v * 2),
                             ("bit-24", lambda v: v | 1 << 24), ("bit-40", lambda v: v | 1 << 40),
                             ("all-ones", lambda v: 2 ** 64 - 1), ("bit-63", lambda v: v | 1 << 63)]:
            def patch(data, f, n=name, ch=change):
                off = dataspace_dims_offset(data, f[n])
                struct.pack_into("<Q", data, off, ch(struct.unpack_from("<Q", data, off)[0]))
            category = "nudge" if what in ("plus-256", "times-2") else "huge"
            c.add_patch(category, f"{name.replace('/', '_')}-dims-{what}", None, patch)
    for name in ("flows", "ports", "topology/nodes") if c.full else ("flows", "ports"):
        for what, value in [("chunk-2^31", 2 ** 31), ("chunk-0", 0), ("chunk-1", 1),
                            ("chunk-2^20", 2 ** 20)]:
            def patch(data, f, n=name, v=value):
                struct.pack_into("<I", data, layout_chunk_offset(data, f[n]), v)
            c.add_patch("huge", f"{name.replace('/', '_')}-{what}", None, patch)
    # the element size the layout records, against the type's
    def elem_size(data, f):
        off, _ = message(data, f["flows"], 0x0008)
        struct.pack_into("<I", data, off + 3 + 8 + 4, 0xffffff00)
    c.add_patch("nudge", "flows-layout-element-size", None, elem_size)

    def elem_size_zero(data, f):  # libhdf5 1.10 divides by it in H5Dopen
        off, _ = message(data, f["flows"], 0x0008)
        struct.pack_into("<I", data, off + 3 + 8 + 4, 0)
    c.add_patch("huge", "flows-layout-element-size-0", None, elem_size_zero)
    # a fixed-length string attribute whose declared size dwarfs the file
    for what, size in [("2^31", 2 ** 31 - 1), ("2^24", 2 ** 24)]:
        def attr_size(data, f, s=size):
            mark = data.index(b"HUGE_STATUS")  # the attribute's value, after its type
            dt = data.rindex(bytes([0x13]), 0, mark)  # class 3 (string), version 1
            struct.pack_into("<I", data, dt + 4, s)
        c.add_patch("huge", f"meta_status-string-size-{what}",
                    lambda f: set_attr(f, "status", np.bytes_(b"HUGE_STATUS")), attr_size)


def values(c):
    def ranks(f):
        rows = f["collectives"][()]
        rows["n_ranks"] = 2 ** 32 - 1
        f["collectives"][...] = rows
    c.add_edit("value", "collectives-ranks-2^32", ranks)
    c.add_edit("value", "meta_experiment-include", lambda f: set_attr(
        f, "experiment", "[experiment]\ninclude = /dev/zero\nname = x\n"))


def main(argv):
    full = len(argv) > 1 and argv[1] == "--full"
    argv = [argv[0]] + argv[1 + full:]
    if len(argv) != 3:
        print("usage: mkdamaged.py [--full] GOOD.h5 OUTDIR", file=sys.stderr)
        return 2
    os.makedirs(argv[2], exist_ok=True)
    c = Corpus(argv[1], argv[2], full)
    rng = random.Random(20240611)
    truncated(c)
    flipped(c, rng)
    removed(c)
    types(c)
    huge(c)
    values(c)
    c.write_index()
    print(f"{argv[2]}: {len(c.index)} damaged traces")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
