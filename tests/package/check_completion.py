# SPDX-License-Identifier: Apache-2.0
"""check_completion.py - bash completion (packaging/bash-completion/flopcount)
run in a real bash, as readline would call it, against the program: the
verbs `flopcount --help` lists, each verb's options as its --help prints
them (and --help), option values where they are a fixed list, the command
after `flopcount run --`.

usage: check_completion.py FLOPCOUNT_EXE COMPLETION_FILE
"""
import os
import re
import subprocess
import sys
import tempfile
import unittest

EXE = SCRIPT = None
VERBS = ["run", "report", "formula", "peak", "merge", "env"]
OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")


def complete(*words, cwd=None):
    """COMPREPLY for the command line `flopcount WORDS...` (the last word is
    the one being completed), in cwd."""
    words = [EXE, *words]
    arr = " ".join("'" + w.replace("'", "'\\''") + "'" for w in words)
    script = (f"source '{SCRIPT}'; COMP_WORDS=({arr}); COMP_CWORD={len(words) - 1}; "
              "_flopcount; printf '%s\\n' \"${COMPREPLY[@]}\"")
    p = subprocess.run(["bash", "--norc", "--noprofile", "-c", script], capture_output=True,
                       text=True, timeout=30, cwd=cwd)
    if p.returncode != 0 or p.stderr:
        raise AssertionError(f"completion of {words}: {p.returncode} {p.stderr}")
    return {w for w in p.stdout.split("\n") if w}


def help_options(*args):
    p = subprocess.run([EXE, *args, "--help"], capture_output=True, text=True, timeout=30)
    return set(OPTION.findall(p.stdout)) | {"--help"}


class Completion(unittest.TestCase):
    def test_verbs(self):
        listed = re.findall(r"^  (\w+) ", subprocess.run([EXE, "--help"], capture_output=True,
                                                          text=True).stdout, re.M)
        self.assertEqual(complete("") - {"--help", "--version"}, set(listed))
        self.assertEqual(complete("me"), {"merge"})

    def test_each_verb_offers_what_its_help_prints(self):
        for verb in VERBS:
            with self.subTest(verb=verb):
                offered = {w for w in complete(verb, "--") if w.startswith("--")}
                self.assertEqual(offered, help_options(verb))

    def test_values(self):
        self.assertEqual(complete("formula", "--recompute", ""), {"none", "selective", "full"})
        self.assertEqual(complete("report", "--causal-attention", "h"), {"half"})
        # the list --help prints, over its continuation lines, up to "(fp8, ... for short"
        dtypes = re.search(r"--dtype DTYPE\s+([^(]*)\(", subprocess.run(
            [EXE, "peak", "--help"], capture_output=True, text=True).stdout).group(1).split()
        self.assertEqual(complete("peak", "--dtype", ""), set(dtypes))
        self.assertIn("h100-sxm", complete("peak", "--gpu", "h100"))
        self.assertEqual(complete("run", "--log-every", ""), set())  # a number: nothing offered

    def test_run_completes_the_command(self):
        self.assertIn("bash", complete("run", "--quiet", "--", "bas"))
        self.assertIn("bash", complete("run", "bas"))  # the command without "--"
        self.assertEqual(complete("run", "--", "bash", "--norc", "-c", "--ker") & {"--kernels"}, set())

    def test_run_completes_the_arguments_of_a_command_without_dashes(self):
        # `flopcount run python3 tr<TAB>`: a file, as after "--", not another command;
        # an option's value (-o x.json) is not the command
        with tempfile.TemporaryDirectory() as d:
            open(os.path.join(d, "train_me.py"), "w").close()
            self.assertEqual(complete("run", "python3", "train_", cwd=d), {"train_me.py"})
            self.assertEqual(complete("run", "-o", "x.json", "python3", "train_", cwd=d),
                             {"train_me.py"})
            self.assertEqual(complete("run", "--log-every", "2", "python3", "--ten", cwd=d), set())
            self.assertIn("python3", complete("run", "-o", "x.json", "python", cwd=d))


if __name__ == "__main__":
    EXE, SCRIPT = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    unittest.main(argv=sys.argv[:1], verbosity=2)
