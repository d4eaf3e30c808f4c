#!/usr/bin/env python3
"""Read weft trace files (HDF5; schema in doc/hdf5-schema.md). Needs h5py and numpy; pandas
is used where it is installed (table(), tables()).

    import weft_trace
    info = weft_trace.open_trace("run.h5")   # dict: /meta attributes + complete, reason
    df = weft_trace.table("run.h5", "flows")  # pandas DataFrame (numpy array without pandas),
                                              # units in column names: "fct_ps[ps]"
    every = weft_trace.tables("run.h5")      # {"flows": ..., "links": ..., "ports": ...}
    flows = weft_trace.flows("run.h5")       # numpy structured array, one row per flow
    coll = weft_trace.collectives("run.h5")  # one row per collective (schema 3; else 0 rows)
    buf = weft_trace.buffer_samples("run.h5")  # shared-buffer occupancy per switch and interval
    fct_us = flows["fct_ps"][flows["finished"] == 1] / 1e6

As a script, `python3 weft_trace.py TRACE.h5` prints a summary and exits 0 for a complete
trace (closed after the whole run: status done, duration, hang or workload-failed), 1 for an
incomplete or damaged one (interrupted or failed, still "running", truncated, a data set
missing or malformed), 2 if the file is not a weft trace -- the same statuses as `weft
report`, and like it with one line on stderr saying why whenever it does not exit 0.

Damaged and hostile files.  libhdf5 trusts what a file declares, and a damaged file can make
it crash (a signal no Python code can catch) or allocate gigabytes.  So before this module
reads anything, a child process (a fork of this one) opens the file and checks it as
analysis/trace_reader.c does: every data set of its schema reached through hard links only,
compound rows whose members are the schema's, in order, of the schema's classes and sizes,
one-dimensional, stored in the file itself with deflate, shuffle or Fletcher-32 only, chunks
of at most MAX_CHUNK_BYTES, and no more rows than its stored bytes can hold; every /meta
attribute one value of its kind.  The child also reads the rows about to be returned, a slab
at a time.  Only what passed is read here; a crash in the child becomes a TraceError.
Every error is one line: TraceError (NotATrace for a file that is not a trace at all).
Memory: the rows returned, at most about 1032 times the file's size, plus HDF5's buffers
(one chunk, about 1 MiB of cache and conversion buffers); never what a header declares.
"""
import gc
import json
import os
import stat
import subprocess
import sys

import h5py
import numpy as np

SCHEMA_VERSION = 11  # the newest schema this reader knows (sim/trace_schema.h)
# Statuses of a trace closed after the whole run (weft_trace_status_complete()); a hang trace
# is complete data about a hung run, a workload-failed one about a run whose workload failed
# (an RDMA connection out of retries).  "interrupted" and "failed" traces stop short.
COMPLETE_STATUSES = ("done", "duration", "hang", "workload-failed")

# Bounds on what a file may declare, as analysis/trace_reader.h has them.
MAX_ROW_BYTES = 4096
MAX_CHUNK_BYTES = 16 * 1024 * 1024
MAX_ATTR_BYTES = 16 * 1024 * 1024
DEFLATE_RATIO = 1032  # deflate inflates at most this much (258 bytes per 2-bit code)
SLAB_BYTES = 1024 * 1024  # rows are read about this many bytes at a time

# <generated from sim/trace_schema.h by `make schema-doc`: do not edit>
# Each record's data set: (schema version that added it, [(field, numpy type, schema
# version that added the field), ...] in file order).
RECORDS = {
    "topology/nodes": (1, [
        ("id", "<u4", 1),
        ("name", "S64", 1),
        ("kind", "S16", 1),
        ("n_ports", "<u4", 1),
        ("tier", "<i4", 1),
        ("rail", "<i4", 9),
    ]),
    "topology/links": (1, [
        ("id", "<u4", 1),
        ("node_a", "<u4", 1),
        ("port_a", "<u4", 1),
        ("node_b", "<u4", 1),
        ("port_b", "<u4", 1),
        ("rate_bps", "<u8", 1),
        ("delay_ps", "<u8", 1),
        ("kind", "S16", 1),
    ]),
    "flows": (1, [
        ("id", "<u4", 1),
        ("src", "<u4", 1),
        ("dst", "<u4", 1),
        ("size_bytes", "<u8", 1),
        ("start_ps", "<u8", 1),
        ("finish_ps", "<u8", 1),
        ("fct_ps", "<u8", 1),
        ("ideal_fct_ps", "<u8", 1),
        ("slowdown", "<f8", 1),
        ("packets", "<u8", 1),
        ("retransmits", "<u8", 1),
        ("bytes_delivered", "<u8", 1),
        ("finished", "u1", 1),
        ("workload", "S16", 1),
        ("ecn_marked", "<u8", 4),
        ("cnps_sent", "<u8", 4),
        ("cnps_received", "<u8", 4),
        ("rate_cuts", "<u8", 4),
        ("min_rate_bps", "<u8", 4),
        ("reorder_max", "<u8", 4),
        ("reorder_count", "<u8", 7),
        ("reorder_mean", "<f8", 7),
        ("trims", "<u8", 7),
        ("nacks", "<u8", 7),
        ("timeouts", "<u8", 7),
        ("evs_used", "<u4", 7),
        ("window_decreases", "<u8", 7),
        ("quick_adapts", "<u8", 7),
    ]),
    "links": (1, [
        ("time_ps", "<u8", 1),
        ("link", "<u4", 1),
        ("direction", "u1", 1),
        ("bytes", "<u8", 1),
        ("packets", "<u8", 1),
        ("max_queue_bytes", "<u8", 1),
        ("mean_queue_bytes", "<f8", 1),
        ("drops", "<u8", 1),
        ("stall_ps", "<u8", 2),
        ("ecn_marks", "<u8", 4),
        ("trims", "<u8", 7),
        ("rcv_errors", "<u8", 10),
        ("link_downed", "<u4", 10),
    ]),
    "ports": (1, [
        ("node", "<u4", 1),
        ("port", "<u4", 1),
        ("link", "<u4", 1),
        ("tx_bytes", "<u8", 1),
        ("rx_bytes", "<u8", 1),
        ("tx_packets", "<u8", 1),
        ("rx_packets", "<u8", 1),
        ("drops", "<u8", 1),
        ("max_queue_bytes", "<u8", 1),
        ("busy_ps", "<u8", 1),
        ("xmit_wait_ps", "<u8", 2),
        ("lossless_drops", "<u8", 2),
        ("symbol_errors", "<u8", 2),
        ("link_downed", "<u8", 2),
        ("rcv_errors", "<u8", 2),
        ("rate_bps", "<u8", 2),
        ("state", "u1", 2),
        ("phys_state", "u1", 2),
        ("link_layer", "S16", 2),
        ("ecn_marks", "<u8", 4),
        ("trims", "<u8", 7),
        ("llr_replays", "<u8", 8),
    ]),
    "collectives": (3, [
        ("id", "<u4", 3),
        ("workload", "S16", 3),
        ("op", "S16", 3),
        ("bytes", "<u8", 3),
        ("count", "<u8", 3),
        ("type", "S16", 3),
        ("redop", "S16", 3),
        ("root", "<i4", 3),
        ("n_ranks", "<u4", 3),
        ("in_place", "u1", 3),
        ("warmup", "u1", 3),
        ("iteration", "<u4", 3),
        ("start_ps", "<u8", 3),
        ("finish_ps", "<u8", 3),
        ("time_ps", "<u8", 3),
        ("algbw_gbs", "<f8", 3),
        ("busbw_gbs", "<f8", 3),
        ("algo", "S16", 5),
        ("proto", "S16", 5),
        ("staged", "u1", 11),
    ]),
    "paths": (4, [
        ("flow", "<u4", 4),
        ("hop", "<u4", 4),
        ("node", "<u4", 4),
        ("port", "<u4", 4),
        ("link", "<u4", 4),
    ]),
    "pfc": (4, [
        ("time_ps", "<u8", 4),
        ("node", "<u4", 4),
        ("port", "<u4", 4),
        ("link", "<u4", 4),
        ("priority", "u1", 4),
        ("pauses_sent", "<u8", 4),
        ("resumes_sent", "<u8", 4),
        ("pauses_received", "<u8", 4),
        ("paused_ps", "<u8", 4),
        ("violations", "<u8", 4),
        ("max_ingress_bytes", "<u8", 4),
    ]),
    "dcqcn": (4, [
        ("time_ps", "<u8", 4),
        ("flow", "<u4", 4),
        ("rate_bps", "<u8", 4),
        ("target_bps", "<u8", 4),
        ("alpha", "<f8", 4),
        ("cnps_received", "<u8", 4),
        ("rate_cuts", "<u8", 4),
    ]),
    "buffers": (4, [
        ("time_ps", "<u8", 4),
        ("node", "<u4", 4),
        ("used_bytes", "<u8", 4),
        ("max_bytes", "<u8", 4),
        ("total_bytes", "<u8", 4),
        ("drops", "<u8", 4),
    ]),
    "faults": (6, [
        ("time_ps", "<u8", 6),
        ("fault", "S64", 6),
        ("kind", "S16", 6),
        ("action", "S16", 6),
        ("link", "<u4", 6),
        ("value", "<f8", 6),
        ("a_link_downed", "<u8", 6),
        ("b_link_downed", "<u8", 6),
        ("a_rcv_errors", "<u8", 6),
        ("b_rcv_errors", "<u8", 6),
        ("a_tx_bytes", "<u8", 6),
        ("b_tx_bytes", "<u8", 6),
    ]),
    "uet": (7, [
        ("time_ps", "<u8", 7),
        ("flow", "<u4", 7),
        ("cwnd_bytes", "<u8", 7),
        ("credit_bytes", "<u8", 7),
        ("inflight", "<u8", 7),
        ("acked", "<u8", 7),
        ("retransmits", "<u8", 7),
        ("nacks", "<u8", 7),
        ("evs_used", "<u4", 7),
    ]),
}
# Each record's fields that have a unit: {field: unit}.
UNITS = {
    "topology/nodes": {},
    "topology/links": {
        "rate_bps": "bit/s",
        "delay_ps": "ps",
    },
    "flows": {
        "size_bytes": "B",
        "start_ps": "ps",
        "finish_ps": "ps",
        "fct_ps": "ps",
        "ideal_fct_ps": "ps",
        "slowdown": "ratio",
        "bytes_delivered": "B",
        "min_rate_bps": "bit/s",
        "reorder_max": "packets",
        "reorder_mean": "packets",
    },
    "links": {
        "time_ps": "ps",
        "bytes": "B",
        "max_queue_bytes": "B",
        "mean_queue_bytes": "B",
        "stall_ps": "ps",
    },
    "ports": {
        "tx_bytes": "B",
        "rx_bytes": "B",
        "max_queue_bytes": "B",
        "busy_ps": "ps",
        "xmit_wait_ps": "ps",
        "rate_bps": "bit/s",
    },
    "collectives": {
        "bytes": "B",
        "count": "elements",
        "start_ps": "ps",
        "finish_ps": "ps",
        "time_ps": "ps",
        "algbw_gbs": "GB/s",
        "busbw_gbs": "GB/s",
    },
    "paths": {},
    "pfc": {
        "time_ps": "ps",
        "paused_ps": "ps",
        "max_ingress_bytes": "B",
    },
    "dcqcn": {
        "time_ps": "ps",
        "rate_bps": "bit/s",
        "target_bps": "bit/s",
    },
    "buffers": {
        "time_ps": "ps",
        "used_bytes": "B",
        "max_bytes": "B",
        "total_bytes": "B",
    },
    "faults": {
        "time_ps": "ps",
        "a_tx_bytes": "B",
        "b_tx_bytes": "B",
    },
    "uet": {
        "time_ps": "ps",
        "cwnd_bytes": "B",
        "credit_bytes": "B",
    },
}
# </generated>

# Data sets a later schema added, as the file stores them (an older trace reads as 0 rows),
# and fields a later schema added (an older file's rows get them as 0, b"" for strings, as
# analysis/trace_reader.c does, so callers see one layout; open_trace()["schema_version"]
# tells "not recorded" from "recorded as 0").
ADDED_SETS = {name: (since, np.dtype([(f, t) for f, t, _ in fields]))
              for name, (since, fields) in RECORDS.items() if since > 1}
ADDED_FIELDS = {name: [(f, t) for f, t, s in fields if s > since]
                for name, (since, fields) in RECORDS.items()
                if any(s > since for _, _, s in fields)}
COLLECTIVE_DTYPE = ADDED_SETS["collectives"][1]

# /meta attributes, every one the writer has always written, and their kinds.
META_ATTRS = [("weft_version", "string"), ("git_revision", "string"), ("experiment", "string"),
              ("experiment_path", "string"), ("seed", "integer"), ("glib_version", "string"),
              ("hdf5_version", "string"), ("gsl_version", "string"), ("status", "string"),
              ("complete", "integer"), ("sim_time_ps", "integer"), ("wall_time_s", "float"),
              ("events", "integer"), ("message", "string")]

# /ports state and phys_state as IB numbers them (PortState, PortPhysicalState).
PORT_STATES = {1: "Down", 2: "Init", 3: "Armed", 4: "Active", 5: "ActiveDefer"}
PHYS_STATES = {1: "Sleep", 2: "Polling", 3: "Disabled", 4: "PortConfigurationTraining",
               5: "LinkUp", 6: "LinkErrorRecovery", 7: "PhyTest"}


class TraceError(Exception):
    """The file cannot be read as a weft trace, or this part of it cannot: one line."""


class NotATrace(TraceError):
    """The file is missing, not HDF5, or has no /meta schema_version."""


def _shown(text):
    """Text from the file, escaped and cut short: one printable line."""
    out = text.encode("unicode_escape", "backslashreplace").decode("ascii").replace('"', '\\"')
    return out[:60] + "..." if len(out) > 60 else out


def _first_line(exc):
    lines = str(exc).splitlines()
    return _shown(lines[0]) if lines else type(exc).__name__


# ---- the checks, run in a child process ----------------------------------------------------

def _plain_integer(t):
    size = t.get_size()
    return (t.get_class() == h5py.h5t.INTEGER and size in (1, 2, 4, 8)
            and t.get_precision() == 8 * size and t.get_offset() == 0
            and t.get_order() == h5py.h5t.ORDER_LE)


def _plain_float(t):
    size = t.get_size()
    if (t.get_class() != h5py.h5t.FLOAT or size not in (4, 8) or t.get_order() != h5py.h5t.ORDER_LE
            or t.get_precision() != 8 * size or t.get_offset() != 0
            or t.get_norm() != h5py.h5t.NORM_IMPLIED):
        return False
    if size == 8:
        return t.get_fields() == (63, 52, 11, 0, 52) and t.get_ebias() == 1023
    return t.get_fields() == (31, 23, 8, 0, 23) and t.get_ebias() == 127


def _plain_string(t, length):
    return (t.get_class() == h5py.h5t.STRING and not t.is_variable_str()
            and t.get_size() == length and t.get_cset() in (h5py.h5t.CSET_ASCII, h5py.h5t.CSET_UTF8))


def _member_matches(t, kind, version):
    """Whether stored member type t is the schema's kind ("<u4", "S16", ...)."""
    if kind.startswith("S"):
        # /collectives type and redop were 8 bytes before schema 4
        return _plain_string(t, int(kind[1:])) or (version < 4 and kind == "S16"
                                                     and _plain_string(t, 8))
    want = np.dtype(kind)
    if want.kind == "f":
        return _plain_float(t) and t.get_size() == want.itemsize
    signed = t.get_class() == h5py.h5t.INTEGER and t.get_sign() == h5py.h5t.SGN_2
    return _plain_integer(t) and t.get_size() == want.itemsize and signed == (want.kind == "i")


def _hard_path(f, name, want):
    """None if name ("topology/nodes") is an object of class want (h5py.Group or
    h5py.Dataset) reached through hard links and groups only; "missing" if it is not there;
    else why not."""
    obj = f
    parts = name.split("/")
    for i, part in enumerate(parts):
        at = "/" + "/".join(parts[:i + 1])
        link = obj.get(part, getlink=True)
        if link is None:
            return "missing"
        if not isinstance(link, h5py.HardLink):
            kind = "soft" if isinstance(link, h5py.SoftLink) else "external"
            return f"{at} is a {kind} link, not an object of the trace"
        obj = obj[part]
        need = want if i == len(parts) - 1 else h5py.Group
        if not isinstance(obj, need):
            what = {h5py.Group: "a group", h5py.Dataset: "a data set"}.get(type(obj),
                                                                           "a named data type")
            return f"{at} is {what}, not a {'group' if need is h5py.Group else 'data set'}"
    return None


def _check_type(tid, fields, version):
    """Why a data set's stored type is not its record's, or None; and its row size."""
    if tid.get_class() != h5py.h5t.COMPOUND:
        return "its rows are not compound records", 0
    size = tid.get_size()
    n = tid.get_nmembers()
    need = sum(1 for _, _, since in fields if since <= version)
    if size == 0 or size > MAX_ROW_BYTES:
        return f"its rows declare {size} bytes each", size
    if n < 1 or n < need or n > len(fields):
        return f"its rows have {n} members, where schema {version} has {need}", size
    end = 0
    for i in range(n):
        field, kind, _ = fields[i]
        name = tid.get_member_name(i).decode("utf-8", "replace")
        mt = tid.get_member_type(i)
        off = tid.get_member_offset(i)
        msize = mt.get_size()
        if name != field:
            return f'member {i} is "{_shown(name)}", where the schema has "{field}"', size
        if not _member_matches(mt, kind, version):
            return f"member {field} is not the schema's {kind}", size
        if off < end or msize > size or off > size - msize:
            return f"member {field} lies at bytes {off}-{off + msize} of a {size}-byte row", size
        end = off + msize
    return None, size


def _check_storage(dset, rows, row_bytes, file_bytes):
    """Why a data set's layout, filters and storage are not a trace's, or None; and the rows
    to read at a time."""
    dcpl = dset.id.get_create_plist()
    layout = dcpl.get_layout()
    if layout not in (h5py.h5d.CONTIGUOUS, h5py.h5d.CHUNKED, h5py.h5d.COMPACT):
        return "its layout is not one HDF5 stores in the file itself", 0
    if dcpl.get_external_count() != 0:
        return "its rows are stored in other files", 0
    nfilters = dcpl.get_nfilters()
    if nfilters < 0 or nfilters > 8:
        return "its filter pipeline is unreadable", 0
    deflate = False
    for i in range(nfilters):
        code = dcpl.get_filter(i)[0]
        if code == h5py.h5z.FILTER_DEFLATE:
            deflate = True
        elif code not in (h5py.h5z.FILTER_SHUFFLE, h5py.h5z.FILTER_FLETCHER32):
            return f"it is stored through filter {code}, which weft does not use", 0
    chunk = 0
    if layout == h5py.h5d.CHUNKED:
        dims = dcpl.get_chunk()
        if len(dims) != 1 or dims[0] == 0:
            return "its chunks are not runs of rows", 0
        chunk = dims[0]
        if chunk > MAX_CHUNK_BYTES // row_bytes:
            return (f"its chunks declare {chunk} rows each, over the reader's "
                    f"{MAX_CHUNK_BYTES >> 20} MiB a chunk"), 0
    elif nfilters > 0:
        return "it declares filters without chunks", 0
    stored = dset.id.get_storage_size()
    ratio = DEFLATE_RATIO if deflate else 1
    if stored > file_bytes:
        return f"it claims {stored} stored bytes in a file of {file_bytes}", 0
    if rows > 2 ** 32 - 1 or rows * row_bytes > stored * ratio:
        return f"it declares {rows} rows, more than the {stored} bytes it stores can hold", 0
    if layout == h5py.h5d.CHUNKED and rows > 0:
        nchunks = dset.id.get_num_chunks()
        if (rows + chunk - 1) // chunk > nchunks:
            return (f"it declares {rows} rows, but only {nchunks} chunks of {chunk} "
                    "are stored"), 0
        return None, chunk * max(1, SLAB_BYTES // (chunk * row_bytes))
    return None, max(1, SLAB_BYTES // row_bytes)


def _check_table(f, name, version, file_bytes):
    """(rows, None) for a data set that passes every check, else (None, why)."""
    since, fields = RECORDS[name]
    why = _hard_path(f, name, h5py.Dataset)
    if why == "missing":
        return None, "it is missing"
    if why is not None:
        return None, why
    dset = f[name]
    why, row_bytes = _check_type(dset.id.get_type(), fields, version)
    if why is not None:
        return None, why
    space = dset.id.get_space()
    if space.get_simple_extent_type() != h5py.h5s.SIMPLE or space.get_simple_extent_ndims() != 1:
        return None, "it is not a one-dimensional list of rows"
    rows = space.get_simple_extent_dims()[0]
    why, slab = _check_storage(dset, rows, row_bytes, file_bytes)
    return (None, why) if why is not None else ((rows, slab), None)


def _check_attr(meta, name, kind, file_bytes):
    """(value, None), (None, "missing") or (None, why) for a /meta attribute."""
    if not h5py.h5a.exists(meta.id, name.encode()):
        return None, "missing"
    aid = h5py.h5a.open(meta.id, name.encode())
    space = aid.get_space()
    cls = space.get_simple_extent_type()
    npoints = space.get_simple_extent_npoints()
    if cls != h5py.h5s.SCALAR and not (cls == h5py.h5s.SIMPLE and npoints == 1):
        return None, f"/meta {name} holds {npoints if cls == h5py.h5s.SIMPLE else 0} values, not one"
    t = aid.get_type()
    if kind == "string":
        if t.get_class() != h5py.h5t.STRING or t.get_cset() not in (h5py.h5t.CSET_ASCII,
                                                                    h5py.h5t.CSET_UTF8):
            return None, f"/meta {name} is not a string"
        size = t.get_size()
        if not t.is_variable_str() and (size == 0 or size > MAX_ATTR_BYTES or size > file_bytes):
            return None, f"/meta {name} declares a {size}-byte string in a file of {file_bytes} bytes"
        value = np.asarray(meta.attrs[name]).reshape(-1)[0]
        if isinstance(value, bytes):
            value = value.split(b"\0", 1)[0].decode("utf-8", "replace")
        return str(value), None
    if not (_plain_integer(t) if kind == "integer" else _plain_float(t)):
        return None, f"/meta {name} is not {'an integer' if kind == 'integer' else 'a float'}"
    value = np.asarray(meta.attrs[name]).reshape(-1)[0]
    return (int(value) if kind == "integer" else float(value)), None


def _inspect(path, read):
    """Everything about the file the parent needs, as plain data; and the rows of the data
    sets in read (names) read and thrown away, so that whatever would crash does so here."""
    try:
        st = os.stat(path)
    except OSError:
        return {"kind": "not_a_trace", "why": "no such file"}
    if not stat.S_ISREG(st.st_mode):
        return {"kind": "not_a_trace", "why": "not a regular file"}
    if not h5py.is_hdf5(path):
        return {"kind": "not_a_trace", "why": "not an HDF5 file"}
    try:
        f = h5py.File(path, "r")
    except Exception as e:  # h5py raises OSError, but a damaged file may give anything
        return {"kind": "unreadable", "why": f"truncated or damaged HDF5 file ({_first_line(e)})"}
    with f:
        try:
            why = _hard_path(f, "meta", h5py.Group)
            if why is not None:
                return {"kind": "not_a_trace",
                        "why": "no /meta group" if why == "missing" else why}
            meta = f["meta"]
            version, why = _check_attr(meta, "schema_version", "integer", st.st_size)
        except Exception as e:  # h5py refused it
            return {"kind": "unreadable", "why": f"/meta is unreadable ({_first_line(e)})"}
        if why == "missing":
            return {"kind": "not_a_trace", "why": "no /meta schema_version"}
        if why is not None:
            return {"kind": "not_a_trace", "why": why}
        if not 1 <= version <= SCHEMA_VERSION:
            return {"kind": "not_a_trace",
                    "why": f"schema version {version} is not one this reader knows "
                           f"(1 to {SCHEMA_VERSION})"}
        out = {"kind": "trace", "version": version, "meta": {}, "damage": None, "tables": {},
               "read": {}}

        def damage(why):
            out["damage"] = out["damage"] or why
        for name, kind in META_ATTRS:
            try:
                value, why = _check_attr(meta, name, kind, st.st_size)
            except Exception as e:  # h5py refused it
                value, why = None, f"/meta {name} is unreadable ({_first_line(e)})"
            if why == "missing":
                damage(f"/meta {name} is missing (every trace has it)")
            elif why is not None:
                damage(why)
            else:
                out["meta"][name] = value
        for name, (since, _) in RECORDS.items():
            if since > version and f.get(name, getlink=True) is None:
                out["tables"][name] = {"rows": None, "why": "it is missing", "slab": None,
                                       "old": True}
                continue
            try:
                found, why = _check_table(f, name, version, st.st_size)
            except Exception as e:  # h5py refused it
                found, why = None, f"unreadable ({_first_line(e)})"
            out["tables"][name] = {"rows": found[0] if found else None, "why": why,
                                   "slab": found[1] if found else None, "old": since > version}
            if why is not None and since <= version:
                damage(f"/{name} is missing (every trace of schema {version} has it)"
                       if why == "it is missing" else f"/{name}: {why}")
            if found is not None and name in read:
                try:
                    _read_slabs(f[name], found[0], found[1], None)
                except Exception as e:
                    out["read"][name] = f"unreadable ({_first_line(e)})"
        flows = out["tables"]["flows"]["rows"]
        if (out["damage"] is None and flows == 0
                and out["meta"].get("status") in COMPLETE_STATUSES
                and out["tables"]["ports"]["rows"]):
            ports = out["tables"]["ports"]
            sent = int(_read_slabs(f["ports"], ports["rows"], ports["slab"], "tx_packets").sum())
            if sent > 0:
                damage(f"/flows has no rows, but /ports counts {sent} packets sent: the flows' "
                       "rows are missing")
        return out


def _read_slabs(dset, rows, slab, keep):
    """The rows of dset, slab rows at a time: all of them into one array (keep == "all"),
    only the field keep (a name), or none (keep None: read and thrown away)."""
    buf = np.empty(min(slab, max(rows, 1)), dtype=dset.dtype)
    out = None
    if keep == "all":
        out = np.empty(rows, dtype=dset.dtype)
    elif keep is not None:
        out = np.empty(rows, dtype=dset.dtype[keep])
    for start in range(0, rows, slab):
        n = min(slab, rows - start)
        dest = out if keep == "all" else buf
        at = start if keep == "all" else 0
        dset.read_direct(dest, source_sel=np.s_[start:start + n], dest_sel=np.s_[at:at + n])
        if keep is not None and keep != "all":
            out[start:start + n] = buf[keep][:n]
    return out


def _child_main(path, read):
    """The child's side: the result of _inspect() as JSON on stdout-like fd, or the
    exception that stopped it."""
    try:
        return _inspect(path, read)
    except Exception as e:  # a check that h5py itself refused
        return {"kind": "error", "why": _first_line(e)}


def _isolated(path, read):
    """_inspect(path, read) in a child process: a fork (h5py is already loaded), or a new
    interpreter where there is no fork."""
    if not hasattr(os, "fork"):
        p = subprocess.run([sys.executable, os.path.abspath(__file__), "--inspect", path, *read],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        if p.returncode < 0:
            return {"kind": "crash", "signal": -p.returncode}
        return json.loads(p.stdout) if p.returncode == 0 else {"kind": "error",
                                                               "why": f"exit {p.returncode}"}
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 0
        try:
            gc.disable()  # a collection would write to every object: copies of every page
            os.close(r)
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, 2)  # libhdf5 and glibc may complain before dying
            os.environ["LIBC_FATAL_STDERR_"] = "1"
            data = json.dumps(_child_main(path, read)).encode()
            while data:
                data = data[os.write(w, data):]
        except BaseException:
            code = 70
        finally:
            os._exit(code)
    os.close(w)
    chunks = []
    while True:
        chunk = os.read(r, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(r)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return {"kind": "crash", "signal": os.WTERMSIG(status)}
    try:
        return json.loads(b"".join(chunks))
    except ValueError:
        return {"kind": "error", "why": f"the check exited {os.WEXITSTATUS(status)}"}


# Results of _isolated(), by file (path and what stat says of it), with the data sets whose
# rows the child read.
_checked_cache = {}


def _checked(path, read=()):
    """What the child found in path, its rows of read checked too.  Raises NotATrace, or
    TraceError for a file whose checks crashed the child."""
    try:
        st = os.stat(path)
        key = (path, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    except OSError:
        key = None
    hit = _checked_cache.get(key)
    if hit is None or not set(read) <= hit[1]:
        res = _isolated(path, list(read))
        hit = (res, set(read))
        if key is not None and res.get("kind") == "trace":
            _checked_cache.clear()  # one file at a time: results stay small
            _checked_cache[key] = hit
    res = hit[0]
    kind = res.get("kind")
    if kind == "not_a_trace":
        raise NotATrace(f"{path}: not a weft trace: {res['why']}")
    if kind == "crash":
        import signal
        try:
            name = signal.Signals(res["signal"]).name
        except ValueError:
            name = f"signal {res['signal']}"
        raise TraceError(f"{path}: damaged trace: libhdf5 crashed reading it ({name})")
    if kind == "error":
        raise TraceError(f"{path}: damaged trace: {res['why']}")
    return res


# ---- the API ------------------------------------------------------------------------------

def open_trace(path):
    """Return a dict of the /meta attributes plus 'complete' (bool), 'damaged' (bool) and
    'reason' (str or None), and 'rows:NAME' per data set (None if absent or damaged).

    A file that is HDF5 but does not open (truncated, killed mid-write) gives
    {'path', 'readable': False, 'complete': False, 'damaged': False, 'reason'}; a data set or
    /meta attribute missing or malformed gives 'damaged': True and the first problem as
    'reason'; anything that is not a weft trace raises NotATrace.
    """
    res = _checked(path)
    if res["kind"] == "unreadable":
        return {"path": path, "readable": False, "complete": False, "damaged": False,
                "reason": res["why"]}
    info = dict(res["meta"])
    info["schema_version"] = res["version"]
    for name, t in res["tables"].items():
        info["rows:" + name] = t["rows"]
    info["path"] = path
    info["readable"] = True
    info["damaged"] = res["damage"] is not None
    status = info.get("status")
    if info["damaged"]:
        info["reason"] = res["damage"]
    elif status == "running":
        info["reason"] = 'status is "running": the writer never closed it (killed, or still running)'
    elif status == "interrupted":
        info["reason"] = ("the run was interrupted (SIGINT or SIGTERM); the trace holds it up "
                          "to that point")
    elif status == "failed":
        info["reason"] = "the run ended early (failed); the trace holds it up to that point"
    elif status not in COMPLETE_STATUSES:
        info["reason"] = f'unknown status "{_shown(status)}"'
    elif info.get("complete") != 1:
        info["reason"] = "/meta complete is not 1: the writer never closed it"
    else:
        info["reason"] = None
    info["complete"] = info["reason"] is None
    return info


def _rows(path, name):
    """Every row of data set name, with the fields a later schema added as 0.  TraceError
    (one line) if it cannot be read."""
    res = _checked(path, read=(name,))
    if res["kind"] == "unreadable":
        raise TraceError(f"{path}: cannot read /{name}: {res['why']}")
    since, fields = RECORDS[name]
    t = res["tables"][name]
    if t["why"] == "it is missing" and t["old"]:
        return np.zeros(0, dtype=[(f, k) for f, k, _ in fields])
    if t["why"] is not None or res["read"].get(name):
        raise TraceError(f"{path}: cannot read /{name}: {t['why'] or res['read'][name]}")
    try:
        with h5py.File(path, "r") as f:
            dset = f[name]
            rows = _read_slabs(dset, t["rows"], t["slab"], "all")
    except MemoryError:
        raise TraceError(f"{path}: cannot read /{name}: its {t['rows']} rows need more memory "
                         "than this process may use") from None
    except Exception as e:  # the file changed since the check
        raise TraceError(f"{path}: cannot read /{name}: {_first_line(e)}") from None
    missing = [(f, k) for f, k, _ in fields if f not in rows.dtype.names]
    if not missing:
        return rows
    # rows.dtype.descr would carry h5py's string metadata ('|S64', {...}), which numpy reads
    # as a (type, shape) pair: name each member with its plain type instead
    out = np.zeros(rows.shape, dtype=[(n, rows.dtype[n].str) for n in rows.dtype.names] + missing)
    for n in rows.dtype.names:
        out[n] = rows[n]
    return out


def flows(path):
    """/flows as a numpy structured array (fields as in doc/hdf5-schema.md; times in ps)."""
    return _rows(path, "flows")


def nodes(path):
    """/topology/nodes: id, name, kind, n_ports, tier per node, as a structured array."""
    return _rows(path, "topology/nodes")


def links(path):
    """/topology/links: id, both ends (node, 1-based port), rate, delay and kind per link."""
    return _rows(path, "topology/links")


def link_samples(path):
    """/links: per-interval samples per link and direction, as a structured array
    (stall_ps: 0 in a schema-1 trace)."""
    return _rows(path, "links")


def ports(path):
    """/ports: final counters, state and rate per port, as a structured array.

    perfquery's names follow: PortXmitData = tx_bytes // 4 (IB counts 4-byte words),
    PortXmitWait ~ xmit_wait_ps (IB counts implementation-specific ticks, weft picoseconds),
    PortXmitDiscards = drops; state / phys_state: see PORT_STATES, PHYS_STATES.  The schema-2
    fields are 0 (link_layer b"") in a schema-1 trace.
    """
    return _rows(path, "ports")


def collectives(path):
    """/collectives: one row per collective operation (nccl-tests-style runs), as a structured
    array; algbw_gbs and busbw_gbs in GB/s (10^9 bytes/s), times in ps.  A trace older than
    schema 3 has no /collectives and gives 0 rows; algo and proto (the NCCL algorithm and
    protocol each ran with) are b"" before schema 5.

    nccl-tests' table is the mean over the rows with warmup == 0, per (workload, bytes,
    in_place): time = mean(time_ps), algbw = bytes / time, busbw = algbw x the op's factor.
    """
    return _rows(path, "collectives")


def paths(path):
    """/paths (schema 4): the hops of each flow's data packets under ecmp or static routing
    (flow, hop from 0 at the sender, node, 1-based port, link); none under adaptive routing."""
    return _rows(path, "paths")


def pfc_samples(path):
    """/pfc (schema 4): PFC per port and priority per [trace] interval -- pause and resume
    frames sent upstream, pauses received, time paused (ps), lossless violations and the
    deepest ingress bytes; a row only where something happened."""
    return _rows(path, "pfc")


def dcqcn_samples(path):
    """/dcqcn (schema 4): every flow under way at each [trace] interval when DCQCN is on:
    rate_bps (Rc), target_bps (Rt), alpha, CNPs received and rate cuts so far."""
    return _rows(path, "dcqcn")


def faults(path):
    """/faults (schema 6): one row per fault event ([fault.NAME]: a link Down or up, a rate or
    a bit-error rate changed) with both ends' counters then, as a structured array (0 rows from
    an older trace)."""
    return _rows(path, "faults")


def buffer_samples(path):
    """/buffers (schema 4): per-interval samples of each switch's shared buffer ([switch]
    buffer_sharing), as a structured array: bytes held at the interval's end, the most held in
    it, the pool's size and the packets it refused in it.  Intervals in which a pool stayed
    empty have no row; without shared buffers there are none."""
    return _rows(path, "buffers")


def uet_samples(path):
    """/uet (schema 7): every flow under way at each [trace] interval on the Ultra Ethernet
    fabric: NSCC window (cwnd_bytes), RCCC credit (credit_bytes), packets in flight and
    acknowledged, and retransmits, trim NACKs and entropy values used so far.  0 rows from a
    file older than schema 6."""
    return _rows(path, "uet")


# ---- tables with units, for notebooks -----------------------------------------------------

DATA_SETS = tuple(RECORDS)  # "topology/nodes", "topology/links", "flows", "links", ...


def column_name(name, field):
    """A field's column name with its unit from the schema, as `weft report --table` heads
    it: "fct_ps[ps]", "bytes[B]", "slowdown[ratio]"; a field without a unit (ids, counts,
    names) keeps its name."""
    unit = UNITS[name].get(field)
    return f"{field}[{unit}]" if unit else field


def have_pandas():
    """Whether pandas imports here (table() then returns DataFrames by default)."""
    try:
        import pandas  # noqa: F401
    except ImportError:
        return False
    return True


def table(path, name, pandas=None):
    """Data set name (one of DATA_SETS, "flows" or "/flows") of the trace at path, every row,
    with units in the column names (column_name()): a pandas DataFrame (text columns as
    str) when pandas is installed, else a numpy structured array (text as bytes).
    pandas=False asks for the array, pandas=True for a DataFrame (ImportError without
    pandas).  Fields a later schema added are 0 in an older trace, a data set it added has 0
    rows.  TraceError / NotATrace as flows() and the others raise them."""
    key = name.lstrip("/")
    if key not in RECORDS:
        raise TraceError(f"{path}: no data set /{key} in weft's schema (one of "
                         + ", ".join(DATA_SETS) + ")")
    rows = _rows(path, key)
    names = [column_name(key, f) for f in rows.dtype.names]
    if pandas is None:
        pandas = have_pandas()
    if not pandas:
        out = rows.copy()
        out.dtype.names = names
        return out
    import pandas as pd
    cols = {}
    for field, col in zip(rows.dtype.names, names):
        v = rows[field]
        cols[col] = ([b.decode("utf-8", "replace") for b in v] if v.dtype.kind == "S"
                     else v)
    return pd.DataFrame(cols, columns=names)


def tables(path, pandas=None):
    """Every data set of the trace at path: {name: table(path, name, pandas)}."""
    _checked(path, read=DATA_SETS)  # one child checks them all
    return {name: table(path, name, pandas) for name in DATA_SETS}


def main(argv):
    prog = "weft_trace.py"
    if len(argv) >= 3 and argv[1] == "--inspect":
        print(json.dumps(_child_main(argv[2], argv[3:])))  # the child, where there is no fork
        return 0
    if len(argv) != 2:
        print(f"usage: {prog} TRACE.h5", file=sys.stderr)
        return 2
    path = argv[1]
    try:
        return _summary(path, prog)
    except NotATrace as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2
    except TraceError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 1
    except Exception as e:  # one line, never a traceback
        print(f"{prog}: {path}: {type(e).__name__}: {_first_line(e)}", file=sys.stderr)
        return 1


def _summary(path, prog):
    _checked(path, read=("flows", "ports"))  # one child checks all this summary reads
    info = open_trace(path)
    print(f"trace:      {info['path']}")
    if info["complete"]:
        print(f"status:     complete ({info['status']})")
    elif info["damaged"]:
        print(f"status:     DAMAGED: {info['reason']}")
    elif info.get("status") in ("interrupted", "failed"):
        print(f"status:     incomplete ({info['status']}): {info['reason']}")
    else:
        print(f"status:     INCOMPLETE: {info['reason']}")
    problem = None
    if info["readable"]:
        print(f"experiment: {info.get('experiment_path') or '(none)'}")
        print(f"seed:       {int(info.get('seed', 0))}")
        print(f"sim time:   {int(info.get('sim_time_ps', 0)) / 1e9:.3f} ms")
        try:
            f = flows(path)
            done = f[f["finished"] == 1]
            print(f"flows:      {len(done)} finished / {len(f)} total")
            if len(done):
                p50, p99 = np.quantile(done["fct_ps"].astype(float), [0.5, 0.99]) / 1e6
                print(f"FCT:        p50 {p50:.3f} us, p99 {p99:.3f} us, "
                      f"max {done['fct_ps'].max() / 1e6:.3f} us")
                print(f"slowdown:   p99 {np.quantile(done['slowdown'], 0.99):.3f}")
        except TraceError as e:
            problem = str(e)
        try:
            print(f"drops:      {int(ports(path)['drops'].sum())}")
        except TraceError as e:
            problem = problem or str(e)
    if info["complete"] and problem is None:
        return 0
    if info["damaged"]:
        print(f"{prog}: {path}: damaged trace: {info['reason']}", file=sys.stderr)
    elif not info["readable"] or problem is None:
        print(f"{prog}: {path}: incomplete trace: {info['reason']}", file=sys.stderr)
    else:
        print(f"{prog}: {problem}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
