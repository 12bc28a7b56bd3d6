# SPDX-License-Identifier: Apache-2.0
"""test_env_verb.py - `flopcount env` and `python -m flopcount` in the build
tree: env prints LD_PRELOAD= the shim next to the command (bin/../lib), keeps
an LD_PRELOAD already set after it, and refuses a path LD_PRELOAD cannot
carry (a space); python -m flopcount runs the command.

usage: python3 test_env_verb.py FLOPCOUNT_EXE SHIM_SO PYTHON_MODULE_DIR WORKDIR
"""
import os
import shutil
import subprocess
import sys
import unittest

EXE = SHIM = PYDIR = WORK = None


def env_verb(extra=None, args=()):
    env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "FLOPCOUNT_LIB")}
    env.update(extra or {})
    return subprocess.run([EXE, "env", *args], env=env, capture_output=True, text=True, timeout=30)


class EnvVerb(unittest.TestCase):
    def test_prints_the_shim_next_to_the_command(self):
        p = env_verb()
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout, "LD_PRELOAD=" + os.path.realpath(SHIM) + "\n")

    def test_keeps_an_existing_preload_after_the_shim(self):
        p = env_verb({"LD_PRELOAD": "libm.so.6"})
        self.assertEqual(p.stdout, "LD_PRELOAD=" + os.path.realpath(SHIM) + ":libm.so.6\n")
        # already listed: unchanged, not twice
        twice = os.path.realpath(SHIM) + ":libm.so.6"
        self.assertEqual(env_verb({"LD_PRELOAD": twice}).stdout, "LD_PRELOAD=" + twice + "\n")

    def test_a_path_with_a_space_is_an_error(self):
        d = os.path.join(WORK, "with space")
        os.makedirs(d, exist_ok=True)
        lib = os.path.join(d, "libflopcount.so")
        shutil.copy(SHIM, lib)
        p = env_verb({"FLOPCOUNT_LIB": lib})
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stdout, "")
        self.assertTrue(p.stderr.startswith("flopcount env: "), p.stderr)

    def test_usage(self):
        self.assertEqual(env_verb(args=("extra",)).returncode, 2)
        p = env_verb(args=("--help",))
        self.assertEqual(p.returncode, 0)
        self.assertIn("usage: flopcount env", p.stdout)

    def test_python_dash_m_runs_the_command(self):
        env = dict(os.environ, PYTHONPATH=PYDIR, PATH=os.path.dirname(EXE) + ":/usr/bin:/bin")
        p = subprocess.run([sys.executable, "-m", "flopcount", "--version"], env=env,
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(p.stdout.startswith("flopcount "), p.stdout)


if __name__ == "__main__":
    EXE, SHIM, PYDIR, WORK = sys.argv[1:5]
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    unittest.main(argv=[sys.argv[0], "-v"])
