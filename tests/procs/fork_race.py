# SPDX-License-Identifier: Apache-2.0
"""fork_race.py - the PyTorch form of fork_race.c: a worker thread makes its
first GEMMs (torch.mm of ever new shapes: the shim resolves sgemm_ and
unwinds each new shape) while the main thread forks FORKS times; each child
runs a GEMM of its own (a new shape: unwound in the child, were it allowed)
and exits. A child still running after TIMEOUT seconds is hung and killed.

usage: /usr/bin/python3 fork_race.py FORKS TIMEOUT
Before the worker starts, the main thread runs torch.ones and a float64
torch.mm (dgemm_; the worker and the children use float32, sgemm_):
PyTorch's own one-time initialisation of those operators is done - a fork
in the middle of it would leave a child waiting on PyTorch, shim or not -
and the worker still makes the first sgemm_ calls. A hung child's stacks
are printed (gdb, when installed) before it is killed.
"""
import os
import shutil
import signal
import subprocess
import sys
import threading
import time

import torch

torch.set_num_threads(1)
forks, timeout = int(sys.argv[1]), float(sys.argv[2])
torch.ones(1)
torch.mm(torch.ones(3, 3, dtype=torch.float64), torch.ones(3, 3, dtype=torch.float64))
stop = False


def worker():
    i = 0
    while not stop:
        m, n, k = 1 + i % 32, 1 + (i // 32) % 32, 1 + (i // 1024) % 32
        torch.mm(torch.ones(m, k), torch.ones(k, n))
        i += 1


t = threading.Thread(target=worker)
t.start()
hung = failed = 0
for i in range(forks):
    time.sleep((i % 7) * 0.0002)
    pid = os.fork()
    if pid == 0:
        d = 33 + i % 8  # never a shape of the worker's
        r = torch.mm(torch.ones(d, d), torch.ones(d, d))
        os._exit(0 if r[0, 0].item() == d else 3)
    t0 = time.time()
    while True:
        p, st = os.waitpid(pid, os.WNOHANG)
        if p == pid:
            failed += st != 0
            break
        if time.time() - t0 > timeout:
            subprocess.run(["gdb", "-p", str(pid), "-batch", "-ex", "thread apply all bt 30"],
                           stdout=sys.stderr, stderr=subprocess.DEVNULL, check=False) \
                if shutil.which("gdb") else None
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            hung += 1
            break
        time.sleep(0.005)
stop = True
t.join()
print(f"children {forks} hung {hung} failed {failed}")
sys.exit(1 if hung or failed else 0)
