# SPDX-License-Identifier: Apache-2.0
"""fcmark.py - the workload programs' handle on the preloaded shim: markers
(flopcount_step, flopcount_eval_begin/end) and counter snapshots
(flopcount_snapshot_get, include/flopcount.h), all no-ops without it;
write_meta() for the JSON each program leaves for its check."""
import ctypes
import json
import os


class _Snapshot(ctypes.Structure):
    # struct flopcount_snapshot, version 1 (include/flopcount.h)
    _fields_ = [
        ("size", ctypes.c_uint32),
        ("version", ctypes.c_uint32),
        ("gemm_calls", ctypes.c_uint64),
        ("gemm_flops_lo", ctypes.c_uint64),
        ("gemm_flops_hi", ctypes.c_uint64),
        ("failed_calls", ctypes.c_uint64),
        ("invalid_calls", ctypes.c_uint64),
        ("iterations", ctypes.c_uint64),
    ]


_self = ctypes.CDLL(None)


def _fn(name):
    try:
        return getattr(_self, name)
    except AttributeError:
        return None


_step, _eval_begin, _eval_end, _snap = (
    _fn(n) for n in ("flopcount_step", "flopcount_eval_begin", "flopcount_eval_end", "flopcount_snapshot_get")
)
loaded = _snap is not None


def step():
    if _step is not None:
        _step()


def eval_begin():
    if _eval_begin is not None:
        _eval_begin()


def eval_end():
    if _eval_end is not None:
        _eval_end()


def snapshot():
    """{calls, flops, failed, iterations} now, or None without the shim."""
    if _snap is None:
        return None
    s = _Snapshot()
    s.size = ctypes.sizeof(_Snapshot)
    if _snap(ctypes.byref(s)) != 0:
        return None
    return {
        "calls": s.gemm_calls,
        "flops": (s.gemm_flops_hi << 64) | s.gemm_flops_lo,
        "failed": s.failed_calls,
        "iterations": s.iterations,
    }


def write_meta(path, meta):
    meta = dict(meta, pid=os.getpid(), shim_loaded=loaded)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
    os.replace(tmp, path)
