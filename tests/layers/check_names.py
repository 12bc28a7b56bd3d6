# SPDX-License-Identifier: Apache-2.0
"""check_names.py BUILDDIR SRCDIR [--self-test]

Names, read from the build (CONTRIBUTING.md, "Names"):

  1. no two headers of one name on one include path: for each target of
     the tree (its flags.make), the headers in its -I folders of SRCDIR;
  2. no two functions of one name: the global symbols the objects of the
     shim, analysis/ and tools/ define (an object built for two targets
     from one source counts once);
  3. fci_ marks what is internal to a folder (analysis/run, tools/render,
     shim/report ...: the first two parts of the path, analysis/ and
     tools/ alone for their own files; tools/render takes its text/, json/
     and html/ in): an fci_ symbol is used by no object outside the
     folder that defines it.

--self-test builds tiny objects with each fault and checks each is caught,
so the check itself can fail.
"""
import os
import re
import sys
import tempfile

from check_tree import symbols, tiny_object  # nm -P; the self-tests' objects

TARGET_DIRS = ["shim/CMakeFiles/flopcount.dir", "analysis/CMakeFiles/fc_analysis.dir",
               "analysis/CMakeFiles/fc_probe.dir", "analysis/CMakeFiles/fc_analysis_io.dir",
               "tools/CMakeFiles/fc_cli.dir", "tools/CMakeFiles/flopcount_cli.dir"]
INTERNAL = "fci_"


def folder_of(src):
    """'tools/render/text/text_report' -> 'tools/render'; 'analysis/u128' -> 'analysis'."""
    parts = src.split("/")
    return "/".join(parts[:2]) if len(parts) > 2 else parts[0]


def objects(root, srcdir):
    """{source path without .c, relative to srcdir: object}, one object a source."""
    out = {}
    for t in TARGET_DIRS:
        top = os.path.join(root, t)
        for d, _, files in os.walk(top):
            for f in files:
                if not f.endswith(".c.o"):
                    continue
                rel = os.path.relpath(os.path.join(d, f), top)[: -len(".c.o")]
                # the object's path mirrors its source's below the target's folder,
                # with __ for '..'
                base = t.split("/CMakeFiles/")[0]
                src = os.path.normpath(os.path.join(base, rel.replace("__", "..")))
                if os.path.exists(os.path.join(srcdir, src + ".c")):
                    out.setdefault(src, os.path.join(d, f))
    return out


def include_dirs(root, srcdir):
    """{target: [its -I folders inside srcdir]}."""
    out = {}
    for t in TARGET_DIRS:
        flags = os.path.join(root, t, "flags.make")
        if not os.path.exists(flags):
            continue
        dirs = []
        for line in open(flags):
            if line.startswith("C_INCLUDES"):
                for d in re.findall(r"-I(\S+)", line):
                    d = os.path.normpath(d)
                    if d.startswith(os.path.abspath(srcdir) + os.sep) and d not in dirs:
                        dirs.append(d)
        out[t] = dirs
    return out


def check_headers(incs, srcdir):
    bad = []
    for t, dirs in sorted(incs.items()):
        seen = {}
        for d in dirs:
            for f in sorted(os.listdir(d)):
                if not f.endswith(".h"):
                    continue
                here = os.path.relpath(os.path.join(d, f), srcdir)
                if f in seen and seen[f] != here:
                    bad.append(f"{t}: two headers named {f} on its include path: {seen[f]}, {here}")
                seen.setdefault(f, here)
    return bad


def check_symbols(objs):
    syms = {s: symbols(o) for s, o in objs.items()}
    bad, owner = [], {}
    for s in sorted(objs):
        for name in sorted(syms[s][0]):
            if name in owner and owner[name] != s:
                bad.append(f"{name} defined twice: {owner[name]}.c and {s}.c")
            owner.setdefault(name, s)
    for s in sorted(objs):
        for name in sorted(syms[s][1]):
            d = owner.get(name)
            if name.startswith(INTERNAL) and d is not None and folder_of(d) != folder_of(s):
                bad.append(f"{s}.c uses {name}, internal to {folder_of(d)}/ ({d}.c)")
    return bad


def self_test():
    with tempfile.TemporaryDirectory() as t:
        def obj(src, code):
            return tiny_object(t, src, code)
        objs = {
            "tools/render/text/a": obj("tools/render/text/a", "int fci_a(void) { return 1; }\n"),
            "tools/render/json/b": obj("tools/render/json/b", "int fci_a(void);\nint t_b(void) { return fci_a(); }\n"),
            "tools/report/c": obj("tools/report/c", "int fci_a(void);\nint t_c(void) { return fci_a(); }\n"),
            "tools/merge/d": obj("tools/merge/d", "int t_c(void) { return 2; }\n"),
        }
        bad = check_symbols(objs)
        want = [("defined twice", "t_c"), ("internal to tools/render", "tools/report/c.c")]
        for what, where in want:
            if not any(what in b and where in b for b in bad):
                print(f"names self-test: {what} ({where}) was not caught:", bad)
                return 1
        if len(bad) != 2:  # json/b uses fci_a inside tools/render: allowed
            print("names self-test: other faults reported:", bad)
            return 1
        for d in ("x", "y"):
            os.makedirs(os.path.join(t, "src", d))
            open(os.path.join(t, "src", d, "same.h"), "w").close()
        bad = check_headers({"t": [os.path.join(t, "src", "x"), os.path.join(t, "src", "y")]},
                            os.path.join(t, "src"))
        if len(bad) != 1 or "same.h" not in bad[0]:
            print("names self-test: two headers of one name not caught:", bad)
            return 1
    return 0


def main():
    root, srcdir = sys.argv[1:3]
    if "--self-test" in sys.argv and self_test() != 0:
        return 1
    objs = objects(root, srcdir)
    if not objs:
        print("names: no objects under", root)
        return 1
    bad = check_headers(include_dirs(root, srcdir), srcdir) + check_symbols(objs)
    for b in bad:
        print("names:", b)
    if bad:
        return 1
    print(f"names: {len(objs)} objects: no header name twice on an include path, no function "
          f"defined twice, {INTERNAL}* used only in its own folder")
    return 0


if __name__ == "__main__":
    sys.exit(main())
