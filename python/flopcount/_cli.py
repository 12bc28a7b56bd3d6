# SPDX-License-Identifier: Apache-2.0
"""The `flopcount` command from the wheel: the console entry point and
`python -m flopcount` run the command bundled in this package
(flopcount/bin/flopcount, with the library in flopcount/lib), replacing this
interpreter (os.execv: same pid, signals and exit status go to the command).

Installed from the Debian package or CMake, the module has no bundled
command; `python -m flopcount` then runs the `flopcount` program on PATH.
"""
import os
import shutil
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))


def command_path():
    """The bundled command's path, or None when this install has none."""
    path = os.path.join(_HERE, "bin", "flopcount")
    return path if os.access(path, os.X_OK) else None


def library_path():
    """The bundled libflopcount.so's path (what `flopcount env` prints), or None."""
    path = os.path.join(_HERE, "lib", "libflopcount.so")
    return path if os.path.isfile(path) else None


def _is_elf(path):
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"\x7fELF"
    except OSError:
        return False


def main(argv=None, fall_back_to_path=False):
    """Runs the command with argv (default sys.argv[1:]); returns only on failure."""
    args = sys.argv[1:] if argv is None else argv
    exe = command_path()
    if exe is None and fall_back_to_path:
        # Only a real program: the wheel's entry point is a Python script
        # named flopcount too, which would run this again.
        found = shutil.which("flopcount")
        exe = found if found and _is_elf(os.path.realpath(found)) else None
    if exe is None:
        sys.stderr.write("flopcount: the flopcount command is not installed with this module "
                         f"({os.path.join(_HERE, 'bin', 'flopcount')} is missing)\n")
        return 127
    try:
        os.execv(exe, ["flopcount", *args])
    except OSError as e:
        sys.stderr.write(f"flopcount: cannot run {exe}: {e.strerror}\n")
        return 126
