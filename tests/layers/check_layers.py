# SPDX-License-Identifier: Apache-2.0
"""check_layers.py OBJDIR [--self-test]

libflopcount.so is built in layers (README, "How it is built"); a file may
call functions (and use variables) defined in its own folder or in a folder
of a LOWER layer, never one of its own layer's other folders or above:

  0  shim/core/                    diagnostics, guard, options, rank, clock,
                                   symbol resolution, API table, GEMM FLOPs
  1  shim/count/ shim/detect/      the shape table; the iteration detector;
     shim/probe/                   call sites, GPU events, peak choice
  2  shim/ring/                    the hot path, slow path and drainer
  3  shim/launch/ shim/cudnn/      kernel identities and launch decoders
                                   (fused attention); the cuDNN backend
                                   descriptor table and plan walk
  4  shim/cupti/                   CUPTI at run time: CUDA graphs, kernel
                                   activity, launch callbacks, hardware
                                   FLOP counters
  5  shim/hooks/ shim/report/      the interposed entry points (GEMMs,
                                   kernel launches, cuDNN); the report, its
                                   sections, the live line
  6  shim/*.c                      lifecycle (init), signals, public exports

OBJDIR is the object directory of the flopcount target (CMake's
CMakeFiles/flopcount.dir); symbols are read with nm. --self-test builds two
tiny objects with an upward call and checks that it is caught, so the
check itself can fail.
"""
import os
import subprocess
import sys
import tempfile

LAYER = {"core": 0, "count": 1, "detect": 1, "probe": 1, "ring": 2, "launch": 3, "cudnn": 3,
         "cupti": 4, "hooks": 5, "report": 5, "": 6}


def folder_of(obj, root):
    rel = os.path.relpath(obj, root)
    parts = rel.split(os.sep)
    return parts[0] if len(parts) > 1 else ""


def symbols(obj):
    out = subprocess.run(["nm", "-P", obj], capture_output=True, text=True, check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) < 2:
            continue
        name, kind = f[0], f[1]
        if kind == "U":
            undefined.add(name)
        elif kind in "TDBRCGSVW":  # global definitions (local ones cannot be called from outside)
            defined.add(name)
    return defined, undefined


def check(root):
    objs = []
    for d, _, files in os.walk(root):
        objs += [os.path.join(d, f) for f in files if f.endswith(".o")]
    if not objs:
        return None, ["no object files under " + root]
    syms = {o: symbols(o) for o in objs}
    owner = {}
    for o in objs:
        for s in syms[o][0]:
            owner[s] = o
    bad = []
    for o in objs:
        fo = folder_of(o, root)
        if fo not in LAYER:
            bad.append(f"{os.path.relpath(o, root)}: folder '{fo}' has no layer")
            continue
        for s in sorted(syms[o][1]):
            d = owner.get(s)
            if d is None:
                continue  # libc, libunwind, fc_analysis: below every layer
            fd = folder_of(d, root)
            if fd == fo or LAYER.get(fd, 99) < LAYER[fo]:
                continue
            bad.append(f"{os.path.relpath(o, root)} (layer {LAYER[fo]}) uses {s} of "
                       f"{os.path.relpath(d, root)} (layer {LAYER.get(fd)})")
    return len(objs), bad


def self_test():
    with tempfile.TemporaryDirectory() as t:
        for folder, src in [("core", "int fc_low(void); int fc_low(void) { return 1; }\n"
                                     "int fc_up(void); int fc_call_up(void) { return fc_up(); }\n"),
                            ("hooks", "int fc_low(void);\nint fc_up(void) { return fc_low(); }\n")]:
            os.makedirs(os.path.join(t, folder))
            c = os.path.join(t, folder, "x.c")
            with open(c, "w") as f:
                f.write(src)
            subprocess.run(["cc", "-c", c, "-o", c + ".o"], check=True)
        _, bad = check(t)
        if len(bad) != 1 or "fc_up" not in bad[0]:
            print("layers self-test: the upward call core -> hooks was not caught:", bad)
            return 1
    return 0


def main():
    root = sys.argv[1]
    if "--self-test" in sys.argv and self_test() != 0:
        return 1
    n, bad = check(root)
    for b in bad:
        print("layers:", b)
    if bad:
        return 1
    print(f"layers: {n} objects, no call upward or sideways")
    return 0


sys.exit(main())
