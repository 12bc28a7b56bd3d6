# SPDX-License-Identifier: Apache-2.0
"""launch_ranks.py WORLD CMD... - a launcher process, as torchrun's agent is:
starts WORLD copies of CMD as its children with RANK, LOCAL_RANK,
WORLD_SIZE, MASTER_ADDR=127.0.0.1 and MASTER_PORT (a free port) set, waits
for them, and exits with the first non-zero status (0 when all succeed).
Debian's torchrun is broken on Python 3.11; this does what it does for one
node. It runs no GEMM itself."""
import os
import socket
import subprocess
import sys


def main():
    world, cmd = int(sys.argv[1]), sys.argv[2:]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    procs = []
    for r in range(world):
        env = dict(os.environ, RANK=str(r), LOCAL_RANK=str(r), WORLD_SIZE=str(world),
                   MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), OMP_NUM_THREADS="1")
        procs.append(subprocess.Popen(cmd, env=env))
    codes = [p.wait() for p in procs]
    sys.exit(next((c for c in codes if c), 0))


if __name__ == "__main__":
    main()
