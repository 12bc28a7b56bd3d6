# SPDX-License-Identifier: Apache-2.0
"""python -m flopcount ARGS: the same as the `flopcount` command (_cli.py)."""
import sys

from flopcount._cli import main

sys.exit(main(fall_back_to_path=True))
