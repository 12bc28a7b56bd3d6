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

Inside every folder no circle of more than two files (a pair calling each
other is allowed): shim/detect/'s files read records from seg_buf.c, and
shim/cudnn/'s plan_exec.c reads the table's generation rather than the
table calling it back.

Inside shim/cupti/ the files are in sub-layers of their own (the list in
shim/cupti/cupti_internal.h): a file there may call only files of a LOWER
sub-layer, never one of its own sub-layer or above, so the folder has no
circle. A cupti file missing from SUBLAYER fails the check.

OBJDIR is the object directory of the flopcount target (CMake's
CMakeFiles/flopcount.dir); symbols are read with nm. --self-test builds
tiny objects with an upward call, cupti objects with a sideways and an
upward call, and three files of one folder in a circle, and checks that
each is caught, so the check itself can fail.
"""
import os
import subprocess
import sys
import tempfile

from check_tree import circles, symbols

LAYER = {"core": 0, "count": 1, "detect": 1, "probe": 1, "ring": 2, "launch": 3, "cudnn": 3,
         "cupti": 4, "hooks": 5, "report": 5, "": 6}

# Sub-layers inside shim/cupti/, by file (without .c).
SUBLAYER = {"cupti": {"state": 0, "idmap": 0, "hwmetrics": 0, "kernels": 1, "capture": 1, "graph_items": 1,
                      "graphs": 2, "hwflops": 2, "activity": 3, "launches": 4, "callbacks": 5,
                      "lifecycle": 5, "loader": 6, "calls": 7}}


def folder_of(obj, root):
    rel = os.path.relpath(obj, root)
    parts = rel.split(os.sep)
    return parts[0] if len(parts) > 1 else ""


def file_of(obj):
    base = os.path.basename(obj)
    for ext in (".c.o", ".o"):
        if base.endswith(ext):
            return base[: -len(ext)]
    return base


def sublayer_problem(o, d, fo, s, root):
    """A call from object o to object d, both in folder fo: None when it goes
    down a sub-layer (or fo has none), else why not."""
    sub = SUBLAYER.get(fo)
    if sub is None or o == d:
        return None
    a, b = file_of(o), file_of(d)
    if a not in sub:
        return f"{os.path.relpath(o, root)}: file '{a}' has no sub-layer in {fo}/"
    if b not in sub:
        return f"{os.path.relpath(d, root)}: file '{b}' has no sub-layer in {fo}/"
    if sub[b] < sub[a]:
        return None
    return (f"{os.path.relpath(o, root)} (sub-layer {sub[a]}) uses {s} of "
            f"{os.path.relpath(d, root)} (sub-layer {sub[b]})")


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
    bad, edges = [], {}
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
            if d != o:
                edges.setdefault(o, set()).add(d)
            if fd == fo:
                why = sublayer_problem(o, d, fo, s, root)
                if why is not None and why not in bad:
                    bad.append(why)
                continue
            if LAYER.get(fd, 99) < LAYER[fo]:
                continue
            bad.append(f"{os.path.relpath(o, root)} (layer {LAYER[fo]}) uses {s} of "
                       f"{os.path.relpath(d, root)} (layer {LAYER.get(fd)})")
    for comp in circles(edges, objs):
        if len({folder_of(c, root) for c in comp}) == 1 and len(comp) > 2:
            bad.append("a circle of more than two files: " +
                       " ".join(os.path.relpath(c, root) for c in comp))
    return len(objs), bad


def build(t, files):
    for folder, name, src in files:
        os.makedirs(os.path.join(t, folder), exist_ok=True)
        c = os.path.join(t, folder, name + ".c")
        with open(c, "w") as f:
            f.write(src)
        subprocess.run(["cc", "-c", c, "-o", c + ".o"], check=True)


def self_test():
    with tempfile.TemporaryDirectory() as t:
        build(t, [("core", "x", "int fc_low(void); int fc_low(void) { return 1; }\n"
                               "int fc_up(void); int fc_call_up(void) { return fc_up(); }\n"),
                  ("hooks", "x", "int fc_low(void);\nint fc_up(void) { return fc_low(); }\n")])
        _, bad = check(t)
        if len(bad) != 1 or "fc_up" not in bad[0]:
            print("layers self-test: the upward call core -> hooks was not caught:", bad)
            return 1
    # inside cupti/: graphs (2) -> state (0) is fine; hwflops (2) -> graphs
    # (2) is sideways and state (0) -> loader (6) upward: both caught
    with tempfile.TemporaryDirectory() as t:
        build(t, [("cupti", "state", "int fc_t_probe(void);\nint fc_t_base(void) { return 0; }\n"
                                      "int fc_t_up(void) { return fc_t_probe(); }\n"),
                  ("cupti", "graphs", "int fc_t_base(void);\n"
                                       "int fc_t_graph(void) { return fc_t_base(); }\n"),
                  ("cupti", "hwflops", "int fc_t_graph(void);\n"
                                        "int fc_t_hw(void) { return fc_t_graph(); }\n"),
                  ("cupti", "loader", "int fc_t_probe(void) { return 1; }\n")])
        _, bad = check(t)
        side = [b for b in bad if "fc_t_graph" in b and "hwflops" in b]
        up = [b for b in bad if "fc_t_probe" in b and "state" in b]
        if len(bad) != 2 or len(side) != 1 or len(up) != 1:
            print("layers self-test: a sideways or upward call inside cupti/ was not caught:", bad)
            return 1
    # three files of detect/ in a circle: caught; a pair is allowed
    with tempfile.TemporaryDirectory() as t:
        build(t, [("detect", "a", "int fc_t_b(void);\nint fc_t_a(void) { return fc_t_b(); }\n"),
                  ("detect", "b", "int fc_t_c(void);\nint fc_t_b(void) { return fc_t_c(); }\n"),
                  ("detect", "c", "int fc_t_a(void);\nint fc_t_c(void) { return fc_t_a(); }\n"),
                  ("count", "p", "int fc_t_q(void);\nint fc_t_p(void) { return fc_t_q(); }\n"),
                  ("count", "q", "int fc_t_p(void);\nint fc_t_q(void) { return fc_t_p(); }\n")])
        _, bad = check(t)
        if len(bad) != 1 or "more than two files" not in bad[0] or "detect" not in bad[0]:
            print("layers self-test: a circle of three files in detect/ was not caught:", bad)
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
    print(f"layers: {n} objects, no call upward or sideways (cupti/ in sub-layers), "
          "no circle of more than two files")
    return 0


sys.exit(main())
