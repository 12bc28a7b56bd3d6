# SPDX-License-Identifier: Apache-2.0
"""check_tree.py BUILDDIR SRCDIR [--self-test]

The layers of analysis/ and tools/ (what check_layers.py is for shim/),
read from the built objects with nm. Bottom to top:

  0  base utilities   analysis/ u128 decimal stats jsonw parse dtype rate
                      spans kernel_class launcher mkdirs dirlock
  1  model maths      analysis/ formula* infer_* attention peak cpupeak
                      utilization
  2  run              analysis/run/   (a run's figures, once)
  3  io, probe        analysis/io/ (the JSON readers), analysis/probe/
                      (what looks at the machine: dlopen is allowed here
                      and nowhere else below the verbs)
  4  render, sums     tools/render/ (text/ json/ html/: render.h the door) tools/report/
                      tools/merge/ tools/job/
                      tools/model_flags.c
  5  verbs            tools/main.c env.c run*.c peak.c formula.c,
                      tools/report/report_cmd.c, tools/merge/merge.c,
                      tools/merge/merge_parts.c

A file may use what its own layer or a lower one defines, never a higher
layer's; dlopen/dlsym only in probe/ (and the verbs); a verb reaches
tools/render/ only through its door (fc_render, and fc_html_open for the
page it opens before any output): it chooses the form, never writes one;
and no circle of
files may span two folders or more than two files (a pair that calls each
other is allowed, as a header's two halves). --self-test builds tiny
objects with an upward call, a circle across folders and a circle of
three files, and checks each is caught, so the check itself can fail.
Objects whose source is no longer in SRCDIR (left by a file moved since
the build directory was made) are passed over.
"""
import os
import subprocess
import sys
import tempfile

TARGETS = ["analysis/CMakeFiles/fc_analysis.dir", "analysis/CMakeFiles/fc_probe.dir",
           "analysis/CMakeFiles/fc_analysis_io.dir", "tools/CMakeFiles/fc_cli.dir",
           "tools/CMakeFiles/flopcount_cli.dir"]
BASE = {"u128", "decimal", "stats", "jsonw", "parse", "dtype", "rate", "spans", "kernel_class", "launcher",
        "mkdirs", "dirlock"}
VERBS = {"tools/main", "tools/env", "tools/run", "tools/run_paths", "tools/run_wait", "tools/peak",
         "tools/formula", "tools/report/report_cmd", "tools/merge/merge",
         "tools/merge/merge_parts"}
NAMES = ["base utilities", "model maths", "run", "io/probe", "render/sums", "verbs"]
DL = {"dlopen", "dlsym", "dlvsym", "dlmopen"}
RENDER_DOOR = {"fc_render", "fc_html_open"}


def layer_of(src):
    """src: 'analysis/run/run_figures' (no .c). The layer, or None."""
    if src in VERBS:
        return 5
    parts = src.split("/")
    if parts[0] == "analysis":
        if len(parts) == 2:
            return 0 if parts[1] in BASE else 1
        return {"run": 2, "io": 3, "probe": 3}.get(parts[1])
    if parts[0] == "tools":
        return 4
    return None


def symbols(obj):
    out = subprocess.run(["nm", "-P", obj], capture_output=True, text=True, check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) < 2:
            continue
        if f[1] == "U":
            undefined.add(f[0])
        elif f[1] in "TDBRCGSVW":
            defined.add(f[0])
    return defined, undefined


def objects(root, targets, srcdir):
    """{source path without .c: object path} for the targets' objects whose
    source is in srcdir."""
    out = {}
    for t in targets:
        top = os.path.join(root, t)
        src_dir = t.split("/CMakeFiles/")[0]
        for d, _, files in os.walk(top):
            for f in files:
                if f.endswith(".c.o"):
                    rel = os.path.relpath(os.path.join(d, f), top)[: -len(".c.o")]
                    src = os.path.normpath(os.path.join(src_dir, rel))
                    if os.path.exists(os.path.join(srcdir, src + ".c")):
                        out[src] = os.path.join(d, f)
    return out


def circles(edges, nodes):
    """Strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def check(objs):
    syms = {s: symbols(o) for s, o in objs.items()}
    owner = {}
    for s in objs:
        for name in syms[s][0]:
            owner[name] = s
    bad, edges = [], {}
    for s in sorted(objs):
        ls = layer_of(s)
        if ls is None:
            bad.append(f"{s}.c: no layer")
            continue
        for name in sorted(syms[s][1]):
            if name in DL and ls < 5 and not s.startswith("analysis/probe/"):
                bad.append(f"{s}.c ({NAMES[ls]}) calls {name}: only analysis/probe/ looks at the machine")
            d = owner.get(name)
            if d is None or d == s:
                continue
            edges.setdefault(s, set()).add(d)
            ld = layer_of(d)
            if ls == 5 and d.startswith("tools/render/") and name not in RENDER_DOOR:
                bad.append(f"{s}.c (verbs) uses {name} of {d}.c: a verb goes through fc_render")
            if ld is not None and ld > ls:
                bad.append(f"{s}.c ({NAMES[ls]}) uses {name} of {d}.c ({NAMES[ld]}): upward")
    for comp in circles(edges, objs.keys()):
        folders = {os.path.dirname(c) for c in comp}
        if len(folders) > 1:
            bad.append("a circle across folders: " + " ".join(c + ".c" for c in comp))
        elif len(comp) > 2:
            bad.append("a circle of more than two files: " + " ".join(c + ".c" for c in comp))
    return bad


def tiny_object(top, src, code):
    """Compiles code as top/src/SRC.c into top/obj/SRC.c.o (for the self-tests)."""
    c = os.path.join(top, "src", src + ".c")
    os.makedirs(os.path.dirname(c), exist_ok=True)
    with open(c, "w") as f:
        f.write(code)
    o = os.path.join(top, "obj", src + ".c.o")
    os.makedirs(os.path.dirname(o), exist_ok=True)
    subprocess.run(["cc", "-c", c, "-o", o], check=True)
    return o


def self_test():
    with tempfile.TemporaryDirectory() as t:
        def obj(src, code):
            return tiny_object(t, src, code)
        objs = {
            # upward: base utility -> run
            "analysis/u128": obj("analysis/u128", "int t_run(void);\nint t_u(void) { return t_run(); }\n"),
            "analysis/run/run_figures": obj("analysis/run/run_figures", "int t_run(void) { return 0; }\n"),
            # a circle across folders: tools/job/a <-> tools/merge/b
            "tools/job/a": obj("tools/job/a", "int t_b(void);\nint t_a(void) { return t_b(); }\n"),
            "tools/merge/b": obj("tools/merge/b", "int t_a(void);\nint t_b(void) { return t_a(); }\n"),
            # three files in a circle inside one folder
            "analysis/io/x": obj("analysis/io/x", "int t_y(void);\nint t_x(void) { return t_y(); }\n"),
            "analysis/io/y": obj("analysis/io/y", "int t_z(void);\nint t_y(void) { return t_z(); }\n"),
            "analysis/io/z": obj("analysis/io/z", "int t_x(void);\nint t_z(void) { return t_x(); }\n"),
            # a verb writing a form itself, not through fc_render
            "tools/render/text/w": obj("tools/render/text/w", "int t_w(void) { return 0; }\n"),
            "tools/merge/merge": obj("tools/merge/merge", "int t_w(void);\nint t_m(void) { return t_w(); }\n"),
        }
        bad = check(objs)
        want = [("upward", "analysis/u128.c"), ("across folders", "tools/job/a.c"),
                ("more than two files", "analysis/io/x.c"), ("through fc_render", "tools/merge/merge.c")]
        for what, where in want:
            if not any(what in b and where in b for b in bad):
                print(f"layers self-test: {what} ({where}) was not caught:", bad)
                return 1
        if len(bad) != 4:
            print("layers self-test: other than the four faults reported:", bad)
            return 1
    return 0


def main():
    root, srcdir = sys.argv[1:3]
    if "--self-test" in sys.argv and self_test() != 0:
        return 1
    objs = objects(root, TARGETS, srcdir)
    if not objs:
        print("layers: no objects under", root)
        return 1
    bad = check(objs)
    for b in bad:
        print("layers:", b)
    if bad:
        return 1
    print(f"layers: analysis/ and tools/: {len(objs)} objects, nothing upward, no circle across "
          "folders or of more than two files, dlopen only in probe/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
