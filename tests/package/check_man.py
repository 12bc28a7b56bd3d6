# SPDX-License-Identifier: Apache-2.0
"""check_man.py - the man pages (docs/man/) cannot drift from the program:

- every option a verb's --help prints is an item of its page's OPTIONS
  section, and every item there is an option its --help prints (or --help
  itself); flopcount(1) lists the verbs `flopcount --help` lists;
- libflopcount(7) names every FLOPCOUNT_* variable the library reads (the
  table of shim/core/options.c and every getenv("FLOPCOUNT_...") in shim/
  and analysis/), and only those;
- each page renders with `groff -ww -z -man` without a warning.

usage: check_man.py FLOPCOUNT_EXE SOURCE_DIR
"""
import glob
import os
import re
import subprocess
import sys
import unittest

EXE = SRC = None
VERBS = ["run", "report", "formula", "peak", "merge", "env"]
OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
MAN_OPTION = re.compile(r"\\-\\-([a-z][a-z0-9\\-]*)")


def help_text(*args):
    p = subprocess.run([EXE, *args, "--help"], capture_output=True, text=True, timeout=30)
    if p.returncode != 0:
        raise AssertionError(f"flopcount {' '.join(args)} --help exited {p.returncode}: {p.stderr}")
    return p.stdout


def page(name):
    with open(os.path.join(SRC, "docs", "man", name)) as f:
        return f.read()


def section(text, title):
    """The lines of one .SH section (until the next .SH)."""
    out, inside = [], False
    for line in text.splitlines():
        if line.startswith(".SH"):
            inside = line.split(None, 1)[1].strip().strip('"') == title if " " in line else False
            continue
        if inside:
            out.append(line)
    return out


def item_options(lines):
    """The options named in the tags of .TP items (the line after .TP, and
    after .TQ: a further tag of the same item)."""
    opts = set()
    for i, line in enumerate(lines):
        if line.strip() in (".TP", ".TQ") and i + 1 < len(lines):
            opts |= {"--" + m.replace("\\-", "-") for m in MAN_OPTION.findall(lines[i + 1])}
    return opts


class Pages(unittest.TestCase):
    def test_each_verb_page_has_exactly_its_options(self):
        for verb in VERBS:
            with self.subTest(verb=verb):
                printed = set(OPTION.findall(help_text(verb)))
                documented = item_options(section(page(f"flopcount-{verb}.1"), "OPTIONS"))
                self.assertTrue(printed, "no option found in --help")
                self.assertEqual(printed - documented, set(), "in --help, not in the page")
                self.assertEqual(documented - printed - {"--help"}, set(), "in the page, not in --help")

    def test_top_page_lists_the_verbs(self):
        listed = re.findall(r"^  (\w+) ", help_text(), re.M)
        self.assertEqual(sorted(listed), sorted(VERBS))
        commands = section(page("flopcount.1"), "COMMANDS")
        tags = {commands[i + 1].split()[1] for i, l in enumerate(commands) if l.strip() == ".TP"}
        self.assertEqual(tags, set(VERBS))
        for verb in VERBS:
            self.assertIn(f"flopcount\\-{verb} (1)", page("flopcount.1"))

    def test_environment_page_has_every_variable(self):
        with open(os.path.join(SRC, "shim", "core", "options.c")) as f:
            read = set(re.findall(r'\{"(FLOPCOUNT_[A-Z0-9_]+)"', f.read()))
        self.assertGreater(len(read), 10)
        for path in glob.glob(os.path.join(SRC, "shim", "**", "*.c"), recursive=True) + \
                glob.glob(os.path.join(SRC, "analysis", "**", "*.c"), recursive=True):
            with open(path) as f:
                text = f.read()
            read |= set(re.findall(r'getenv\("(FLOPCOUNT_[A-Z0-9_]+)"\)', text))
            # tables of names passed to getenv (prometheus.c's job id sources)
            read |= set(re.findall(r'\{\s*"(FLOPCOUNT_[A-Z0-9_]+)"\s*,\s*"[A-Z]', text))
        env = section(page("libflopcount.7"), "ENVIRONMENT")
        named = set()
        for i, line in enumerate(env):
            if line.strip() == ".TP":
                named |= set(re.findall(r"FLOPCOUNT_[A-Z0-9_]+", env[i + 1].replace("\\", "")))
        self.assertEqual(read - named, set(), "read by the library, not in libflopcount(7)")
        self.assertEqual(named - read, set(), "in libflopcount(7), not read by the library")

    def test_groff_renders_without_warnings(self):
        pages = sorted(glob.glob(os.path.join(SRC, "docs", "man", "*.[17]")))
        self.assertEqual(len(pages), 8)
        for p in pages:
            with self.subTest(page=os.path.basename(p)):
                r = subprocess.run(["groff", "-ww", "-z", "-man", p], capture_output=True, text=True)
                self.assertEqual((r.returncode, r.stderr), (0, ""))


if __name__ == "__main__":
    EXE, SRC = sys.argv[1], os.path.abspath(sys.argv[2])
    unittest.main(argv=sys.argv[:1], verbosity=2)
