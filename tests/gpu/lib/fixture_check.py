# SPDX-License-Identifier: Apache-2.0
"""fixture_check.py - a misbehaving check for the dry run's robustness step
(run.sh): FC_FIXTURE=crash exits 3 without a result; otherwise it starts a
program in a session of its own (as lib/fcgpu.py does, recording its
process group in OUT/pgids and its pid in OUT/program.pid), ignores SIGTERM
and hangs, so only run.sh's timeout, its SIGKILL and the pgids clean-up
can end it."""
import argparse
import os
import signal
import subprocess
import sys
import time

p = argparse.ArgumentParser()
p.add_argument("--out", required=True)
p.add_argument("--prefix")
p.add_argument("--timeout")
a = p.parse_args()
if os.environ.get("FC_FIXTURE") == "crash":
    print("fixture: crashing on purpose", file=sys.stderr)
    sys.exit(3)
signal.signal(signal.SIGTERM, signal.SIG_IGN)
child = subprocess.Popen(["sleep", "300"], start_new_session=True)
with open(os.path.join(a.out, "pgids"), "a") as f:
    f.write("%d\n" % child.pid)
with open(os.path.join(a.out, "program.pid"), "w") as f:
    f.write("%d\n" % child.pid)
while True:
    time.sleep(1)
