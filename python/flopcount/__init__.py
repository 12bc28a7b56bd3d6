# SPDX-License-Identifier: Apache-2.0
"""flopcount - markers and live figures from libflopcount.so, in Python.

Standard library only; imports no framework. Every function is a cheap
no-op when the library is not loaded into this process (the program was not
started under `flopcount run` or LD_PRELOAD=libflopcount.so), so a training
script can keep the calls in production:

    import flopcount
    for step in range(steps):
        loss = train_step()
        flopcount.step()                    # one call per optimizer step
        s = flopcount.snapshot()
        if s["active"] and s["hfu"] is not None:
            print(f"step {step} loss {loss:.4f} HFU {s['hfu']:.1%} MFU {s['mfu']:.1%}")
    with flopcount.eval():                  # GEMMs here are evaluation, not training
        evaluate()

forward(), backward() and `with recompute():` declare the phases, which
makes the forward/backward/recompute split exact (docs/iterations.md):

    flopcount.forward();  loss = model(x)
    flopcount.backward(); loss.backward()

snapshot() reads flopcount_snapshot_get (include/flopcount.h); its figures
are the ones the report gives at exit, computed by the same code.
"""
import ctypes

__all__ = ["active", "step", "eval", "forward", "backward", "recompute", "snapshot", "write_report",
           "version"]

_COUNTING, _DETECTOR, _LAST_TIME, _MEDIANS, _UTILIZATION = 0x1, 0x2, 0x4, 0x8, 0x10
_SPLIT_GUESSED, _MIX = 0x20, 0x40
_MIX_MAX = 8
_DETECTED_BY = {0: "none", 1: "auto", 2: "marker", 3: "nvtx", 4: "optimizer"}


class _Dtype(ctypes.Structure):
    """struct flopcount_snapshot_dtype (version 3)."""
    _fields_ = [("dtype", ctypes.c_char * 16), ("share", ctypes.c_double),
                ("peak_flops", ctypes.c_double)]


class _Snapshot(ctypes.Structure):
    """struct flopcount_snapshot, version 3 (include/flopcount.h)."""
    _fields_ = [
        ("size", ctypes.c_uint32), ("version", ctypes.c_uint32),
        ("gemm_calls", ctypes.c_uint64), ("gemm_flops_lo", ctypes.c_uint64),
        ("gemm_flops_hi", ctypes.c_uint64), ("failed_calls", ctypes.c_uint64),
        ("invalid_calls", ctypes.c_uint64), ("iterations", ctypes.c_uint64),
        # version 2
        ("flags", ctypes.c_uint32), ("detected_by", ctypes.c_uint32),
        ("rank", ctypes.c_int64), ("local_rank", ctypes.c_int64), ("world_size", ctypes.c_int64),
        ("steady_iterations", ctypes.c_uint64),
        ("last_iteration_seconds", ctypes.c_double), ("median_iteration_seconds", ctypes.c_double),
        ("iteration_flops_lo", ctypes.c_uint64), ("iteration_flops_hi", ctypes.c_uint64),
        ("iteration_recompute_flops_lo", ctypes.c_uint64),
        ("iteration_recompute_flops_hi", ctypes.c_uint64),
        ("recompute_flops_lo", ctypes.c_uint64), ("recompute_flops_hi", ctypes.c_uint64),
        ("recompute_fraction", ctypes.c_double),
        ("hfu", ctypes.c_double), ("mfu", ctypes.c_double), ("peak_flops", ctypes.c_double),
        ("peak_source", ctypes.c_char * 24), ("peak_dtype", ctypes.c_char * 16),
        ("eval_passes", ctypes.c_uint64),
        # version 3
        ("hfu_mix", ctypes.c_double), ("mix_count", ctypes.c_uint32),
        ("mix_reserved", ctypes.c_uint32), ("mix_reason", ctypes.c_char * 128),
        ("mix", _Dtype * _MIX_MAX),
    ]


def _find():
    """The library's functions when it is loaded into this process, else None."""
    try:
        lib = ctypes.CDLL(None)  # the program and what it loaded, LD_PRELOAD first
        fns = (lib.flopcount_step, lib.flopcount_eval_begin, lib.flopcount_eval_end,
               lib.flopcount_snapshot_get, lib.flopcount_write_report, lib.flopcount_version)
    except (OSError, AttributeError):
        return None
    for f in fns[:3]:
        f.restype, f.argtypes = None, []
    fns[3].restype, fns[3].argtypes = ctypes.c_int, [ctypes.POINTER(_Snapshot)]
    fns[4].restype, fns[4].argtypes = ctypes.c_int, []
    fns[5].restype, fns[5].argtypes = ctypes.c_char_p, []
    return fns


_fns = _find()


def _find_phases():
    """flopcount_forward_begin & co, or None (a library without them: no-ops)."""
    if _fns is None:
        return None
    try:
        lib = ctypes.CDLL(None)
        fns = (lib.flopcount_forward_begin, lib.flopcount_backward_begin,
               lib.flopcount_recompute_begin, lib.flopcount_recompute_end)
    except (OSError, AttributeError):
        return None
    for f in fns:
        f.restype, f.argtypes = None, []
    return fns


_phases = _find_phases()


def _u128(lo, hi):
    return (hi << 64) | lo


def _read():
    """A filled _Snapshot, or None when the library refused it."""
    s = _Snapshot()
    s.size = ctypes.sizeof(_Snapshot)
    return s if _fns[3](ctypes.byref(s)) == 0 else None


def _counting():
    s = _read()
    return s is not None and (s.version < 2 or bool(s.flags & _COUNTING))


_active = _fns is not None and _counting()


def _noop():
    return None


class _Eval(object):
    """Brackets an evaluation pass: its GEMMs never start or split a training iteration."""
    __slots__ = ()

    def __enter__(self):
        _eval_begin()
        return self

    def __exit__(self, *exc):
        _eval_end()
        return False


_EVAL = _Eval()


class _Recompute(object):
    """Brackets a recomputation (a checkpointed function run again by the backward)."""
    __slots__ = ()

    def __enter__(self):
        _recompute_begin()
        return self

    def __exit__(self, *exc):
        _recompute_end()
        return False


_RECOMPUTE = _Recompute()

if _fns is not None:
    step, _eval_begin, _eval_end = _fns[0], _fns[1], _fns[2]
else:
    step = _eval_begin = _eval_end = _noop
if _phases is not None:
    forward, backward, _recompute_begin, _recompute_end = _phases
else:
    forward = backward = _recompute_begin = _recompute_end = _noop


def active():
    """True when libflopcount.so is loaded into this process and counting."""
    return _active


def eval():  # noqa: A001 - the name users write: `with flopcount.eval():`
    """Context manager around an evaluation pass (flopcount_eval_begin/end)."""
    return _EVAL


def recompute():
    """Context manager around a recomputation (flopcount_recompute_begin/end):
    wrap the function a checkpoint runs again, when it runs in the backward."""
    return _RECOMPUTE


def version():
    """The loaded library's version ("0.1.0"), or None when it is not loaded."""
    return _fns[5]().decode() if _fns is not None else None


def write_report():
    """Writes the JSON report now (FLOPCOUNT_OUTPUT); True on success, False when
    it failed (a flopcount: line says why) or the library is not loaded."""
    return _fns is not None and _fns[4]() == 0


def snapshot():
    """The run's figures so far, as a dict of plain numbers:

    active: False (and nothing else) when the library is not loaded or not counting;
    gemm_calls, gemm_flops, failed_calls, invalid_calls: totals of every GEMM so far;
    iterations, detected_by ("marker", "nvtx", "optimizer", "auto", "none"), steady_iterations
      (the iterations the medians are over: all but the first), eval_passes;
    last_iteration_seconds, median_iteration_seconds: wall time, evaluation left out;
    flops_per_iteration, recompute_flops_per_iteration, model_flops_per_iteration:
      medians of the steady iterations (model = counted less recompute);
    recompute_flops, recompute_fraction: over all finished iterations;
    hfu, mfu, peak_flops, peak_source, peak_dtype: measured utilization and the
      per-device peak it is measured against;
    rank, local_rank, world_size: from the launcher;
    split_guessed: True when the forward/backward/recompute split of some
      iteration is a guess that can move recompute, so the recompute figures
      and mfu are estimates (a guess between forward and backward only
      leaves them standing);
    hfu_mix: HFU at the dtype mix (each dtype's FLOPs at its own peak), equal
      to hfu when one dtype ran; hfu_mix_reason: why it is None while hfu is not
      ("no published fp4_e2m1 peak for H100-SXM");
    flops_share_by_dtype: {"bf16": 0.25, "fp8_e4m3": 0.75, ...}, the training
      FLOPs' shares; peak_flops_by_dtype: the dense peak each dtype is measured
      against (None for a dtype without a published one).
    A figure that is not known yet is None.
    """
    if not _active:
        return {"active": False}
    s = _read()
    if s is None:
        return {"active": False}
    v2 = s.version >= 2
    flags = s.flags if v2 else _COUNTING
    if not flags & _COUNTING:
        return {"active": False}
    d = {
        "active": True,
        "gemm_calls": s.gemm_calls,
        "gemm_flops": _u128(s.gemm_flops_lo, s.gemm_flops_hi),
        "failed_calls": s.failed_calls,
        "invalid_calls": s.invalid_calls,
        "iterations": s.iterations if (not v2 or flags & _DETECTOR) else None,
    }
    det = bool(flags & _DETECTOR)
    med = bool(flags & _MEDIANS)
    util = bool(flags & _UTILIZATION)
    flops = _u128(s.iteration_flops_lo, s.iteration_flops_hi) if med else None
    rec = _u128(s.iteration_recompute_flops_lo, s.iteration_recompute_flops_hi) if med else None
    d.update({
        "detected_by": _DETECTED_BY.get(s.detected_by) if det else None,
        "steady_iterations": s.steady_iterations if det else None,
        "eval_passes": s.eval_passes if det else None,
        "last_iteration_seconds": s.last_iteration_seconds if flags & _LAST_TIME else None,
        "median_iteration_seconds": s.median_iteration_seconds if med else None,
        "flops_per_iteration": flops,
        "recompute_flops_per_iteration": rec,
        "model_flops_per_iteration": flops - rec if med else None,
        "recompute_flops": _u128(s.recompute_flops_lo, s.recompute_flops_hi) if det else None,
        "recompute_fraction": s.recompute_fraction if det else None,
        "hfu": s.hfu if util else None,
        "mfu": s.mfu if util else None,
        "peak_flops": s.peak_flops if util else None,
        "peak_source": s.peak_source.decode() if util else None,
        "peak_dtype": s.peak_dtype.decode() if util else None,
        "rank": s.rank if v2 and s.rank >= 0 else None,
        "local_rank": s.local_rank if v2 and s.local_rank >= 0 else None,
        "world_size": s.world_size if v2 and s.world_size >= 0 else None,
        "split_guessed": bool(flags & _SPLIT_GUESSED) if det else None,
    })
    d.update(_mix(s, det, util))
    return d


def _mix(s, det, util):
    """The version-3 keys: HFU at the dtype mix and the dtypes' shares and peaks."""
    v3 = s.version >= 3
    terms = [s.mix[i] for i in range(min(s.mix_count, _MIX_MAX))] if v3 and det else []
    ok = v3 and util and bool(s.flags & _MIX)
    return {
        "hfu_mix": s.hfu_mix if ok else None,
        "hfu_mix_reason": s.mix_reason.decode() if v3 and util and not ok else None,
        "flops_share_by_dtype": {t.dtype.decode(): t.share for t in terms} if v3 and det else None,
        "peak_flops_by_dtype": ({t.dtype.decode(): (t.peak_flops if t.peak_flops > 0 else None)
                                 for t in terms} if v3 and util else None),
    }
