#!/usr/bin/env python3
"""Read weft trace files (HDF5; schema in doc/hdf5-schema.md). Needs h5py and numpy only.

    import weft_trace
    info = weft_trace.open_trace("run.h5")   # dict: /meta attributes + complete, reason
    flows = weft_trace.flows("run.h5")       # numpy structured array, one row per flow
    coll = weft_trace.collectives("run.h5")  # one row per collective (schema 3; else 0 rows)
    buf = weft_trace.buffer_samples("run.h5")  # shared-buffer occupancy per switch and interval
    fct_us = flows["fct_ps"][flows["finished"] == 1] / 1e6

As a script, `python3 weft_trace.py TRACE.h5` prints a summary and exits 0 for a complete
trace (closed after the whole run: status done, duration, hang or workload-failed), 1 for an
incomplete one (interrupted or failed, still "running", truncated, damaged), 2 if the file is
not a weft trace -- the same statuses as `weft report`.
"""
import sys

import h5py
import numpy as np

SCHEMA_VERSION = 5  # the newest schema this reader knows (sim/trace_schema.h)
# Statuses of a trace closed after the whole run (weft_trace_status_complete()); a hang trace
# is complete data about a hung run, a workload-failed one about a run whose workload failed
# (an RDMA connection out of retries).  "interrupted" and "failed" traces stop short.
COMPLETE_STATUSES = ("done", "duration", "hang", "workload-failed")


class NotATrace(Exception):
    """The file is missing, not HDF5, or has no /meta schema_version."""


def _text(value):
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


def open_trace(path):
    """Return a dict of the /meta attributes plus 'complete' (bool) and 'reason' (str or None).

    A file that is HDF5 but does not open (truncated, killed mid-write) gives
    {'path', 'readable': False, 'complete': False, 'reason'}; anything that is not a weft
    trace raises NotATrace.
    """
    if not h5py.is_hdf5(path):
        raise NotATrace(f"{path}: not a weft trace: not an HDF5 file (or missing)")
    try:
        f = h5py.File(path, "r")
    except OSError as e:
        reason = str(e).splitlines()[0] if str(e) else "cannot open"
        return {"path": path, "readable": False, "complete": False,
                "reason": f"truncated or damaged HDF5 file ({reason})"}
    with f:
        if "meta" not in f or "schema_version" not in f["meta"].attrs:
            raise NotATrace(f"{path}: not a weft trace: no /meta schema_version")
        info = {k: _text(v) for k, v in f["meta"].attrs.items()}
        info["schema_version"] = int(info["schema_version"])
        if info["schema_version"] > SCHEMA_VERSION:
            raise NotATrace(f"{path}: schema version {info['schema_version']} is newer than "
                            f"this reader's ({SCHEMA_VERSION})")
        for name in ("topology/nodes", "topology/links", "flows", "links", "ports", "collectives",
                     "paths", "pfc", "dcqcn", "buffers"):
            info["rows:" + name] = f[name].shape[0] if name in f else None
    info["path"] = path
    info["readable"] = True
    status = info.get("status")
    if status is None:
        info["reason"] = "/meta has no status"
    elif status == "running":
        info["reason"] = 'status is "running": the writer never closed it (killed, or still running)'
    elif status == "interrupted":
        info["reason"] = ("the run was interrupted (SIGINT or SIGTERM); the trace holds it up "
                          "to that point")
    elif status == "failed":
        info["reason"] = "the run ended early (failed); the trace holds it up to that point"
    elif status not in COMPLETE_STATUSES:
        info["reason"] = f'unknown status "{status}"'
    elif int(info.get("complete", 0)) != 1:
        info["reason"] = "/meta complete is not 1: the writer never closed it"
    else:
        info["reason"] = None
    info["complete"] = info["reason"] is None
    return info


# Fields a later schema added, by data set, with their dtypes: an older file's rows get them
# as 0 (b"" for strings), as analysis/trace_reader.c does, so callers see one layout.
# open_trace()["schema_version"] tells "not recorded" from "recorded as 0".
ADDED_FIELDS = {
    "flows": [("ecn_marked", "<u8"), ("cnps_sent", "<u8"), ("cnps_received", "<u8"),
              ("rate_cuts", "<u8"), ("min_rate_bps", "<u8"), ("reorder_max", "<u8")],  # schema 4
    "links": [("stall_ps", "<u8"),  # schema 2
              ("ecn_marks", "<u8")],  # schema 4
    "ports": [("xmit_wait_ps", "<u8"), ("lossless_drops", "<u8"), ("symbol_errors", "<u8"),
              ("link_downed", "<u8"), ("rcv_errors", "<u8"), ("rate_bps", "<u8"),
              ("state", "u1"), ("phys_state", "u1"), ("link_layer", "S16"),  # schema 2
              ("ecn_marks", "<u8")],  # schema 4
    "collectives": [("algo", "S16"), ("proto", "S16")],  # schema 5
}

# /ports state and phys_state as IB numbers them (PortState, PortPhysicalState).
PORT_STATES = {1: "Down", 2: "Init", 3: "Armed", 4: "Active", 5: "ActiveDefer"}
PHYS_STATES = {1: "Sleep", 2: "Polling", 3: "Disabled", 4: "PortConfigurationTraining",
               5: "LinkUp", 6: "LinkErrorRecovery", 7: "PhyTest"}


def _rows(path, name):
    with h5py.File(path, "r") as f:
        rows = f[name][()]
    missing = [(n, t) for n, t in ADDED_FIELDS.get(name, []) if n not in rows.dtype.names]
    if not missing:
        return rows
    out = np.zeros(rows.shape, dtype=rows.dtype.descr + missing)
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


# /collectives (schema 3), as the file stores it: what an older trace, which has no such data
# set, reads as (0 rows).
COLLECTIVE_DTYPE = np.dtype([
    ("id", "<u4"), ("workload", "S16"), ("op", "S16"), ("bytes", "<u8"), ("count", "<u8"),
    ("type", "S16"), ("redop", "S16"), ("root", "<i4"), ("n_ranks", "<u4"), ("in_place", "u1"),
    ("warmup", "u1"), ("iteration", "<u4"), ("start_ps", "<u8"), ("finish_ps", "<u8"),
    ("time_ps", "<u8"), ("algbw_gbs", "<f8"), ("busbw_gbs", "<f8"),
    ("algo", "S16"), ("proto", "S16")])  # schema 5


def collectives(path):
    """/collectives: one row per collective operation (nccl-tests-style runs), as a structured
    array; algbw_gbs and busbw_gbs in GB/s (10^9 bytes/s), times in ps.  A trace older than
    schema 3 has no /collectives and gives 0 rows; algo and proto (the NCCL algorithm and
    protocol each ran with) are b"" before schema 5.

    nccl-tests' table is the mean over the rows with warmup == 0, per (workload, bytes,
    in_place): time = mean(time_ps), algbw = bytes / time, busbw = algbw x the op's factor.
    """
    return _added_set(path, "collectives")


# Data sets a later schema added (the version), as the file stores them: an older trace reads
# as 0 rows.
ADDED_SETS = {
    "collectives": (3, COLLECTIVE_DTYPE),
    "paths": (4, np.dtype([("flow", "<u4"), ("hop", "<u4"), ("node", "<u4"), ("port", "<u4"),
                           ("link", "<u4")])),
    "pfc": (4, np.dtype([("time_ps", "<u8"), ("node", "<u4"), ("port", "<u4"), ("link", "<u4"),
                         ("priority", "u1"), ("pauses_sent", "<u8"), ("resumes_sent", "<u8"),
                         ("pauses_received", "<u8"), ("paused_ps", "<u8"),
                         ("violations", "<u8"), ("max_ingress_bytes", "<u8")])),
    "dcqcn": (4, np.dtype([("time_ps", "<u8"), ("flow", "<u4"), ("rate_bps", "<u8"),
                           ("target_bps", "<u8"), ("alpha", "<f8"), ("cnps_received", "<u8"),
                           ("rate_cuts", "<u8")])),
    "buffers": (4, np.dtype([("time_ps", "<u8"), ("node", "<u4"), ("used_bytes", "<u8"),
                             ("max_bytes", "<u8"), ("total_bytes", "<u8"), ("drops", "<u8")])),
}


def _added_set(path, name):
    since, dtype = ADDED_SETS[name]
    with h5py.File(path, "r") as f:
        if name not in f:
            version = int(f["meta"].attrs.get("schema_version", 0)) if "meta" in f else 0
            if version < since:
                return np.zeros(0, dtype=dtype)
            raise KeyError(f"{path}: schema {version} trace has no /{name}")
    return _rows(path, name)


def paths(path):
    """/paths (schema 4): the hops of each flow's data packets under ecmp or static routing
    (flow, hop from 0 at the sender, node, 1-based port, link); none under adaptive routing."""
    return _added_set(path, "paths")


def pfc_samples(path):
    """/pfc (schema 4): PFC per port and priority per [trace] interval -- pause and resume
    frames sent upstream, pauses received, time paused (ps), lossless violations and the
    deepest ingress bytes; a row only where something happened."""
    return _added_set(path, "pfc")


def dcqcn_samples(path):
    """/dcqcn (schema 4): every flow under way at each [trace] interval when DCQCN is on:
    rate_bps (Rc), target_bps (Rt), alpha, CNPs received and rate cuts so far."""
    return _added_set(path, "dcqcn")


def buffer_samples(path):
    """/buffers (schema 4): per-interval samples of each switch's shared buffer ([switch]
    buffer_sharing), as a structured array: bytes held at the interval's end, the most held in
    it, the pool's size and the packets it refused in it.  Intervals in which a pool stayed
    empty have no row; without shared buffers there are none."""
    return _added_set(path, "buffers")


def main(argv):
    if len(argv) != 2:
        print("usage: weft_trace.py TRACE.h5", file=sys.stderr)
        return 2
    try:
        info = open_trace(argv[1])
    except NotATrace as e:
        print(e, file=sys.stderr)
        return 2
    print(f"trace:      {info['path']}")
    if info["complete"]:
        print(f"status:     complete ({info['status']})")
    elif info.get("status") in ("interrupted", "failed"):
        print(f"status:     incomplete ({info['status']}): {info['reason']}")
    else:
        print(f"status:     INCOMPLETE: {info['reason']}")
    if not info["readable"]:
        return 1
    print(f"experiment: {info.get('experiment_path') or '(none)'}")
    print(f"seed:       {int(info['seed'])}")
    print(f"sim time:   {int(info['sim_time_ps']) / 1e9:.3f} ms")
    f = flows(argv[1])
    done = f[f["finished"] == 1]
    print(f"flows:      {len(done)} finished / {len(f)} total")
    if len(done):
        p50, p99 = np.quantile(done["fct_ps"].astype(float), [0.5, 0.99]) / 1e6
        print(f"FCT:        p50 {p50:.3f} us, p99 {p99:.3f} us, max {done['fct_ps'].max() / 1e6:.3f} us")
        print(f"slowdown:   p99 {np.quantile(done['slowdown'], 0.99):.3f}")
    print(f"drops:      {int(ports(argv[1])['drops'].sum())}")
    return 0 if info["complete"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
