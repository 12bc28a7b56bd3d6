# SPDX-License-Identifier: Apache-2.0
"""jax_chain.py - for check 05: a jitted chain of 4 bf16 matmuls, 4096^3
each, called REPS times after a first call that compiles (and autotunes:
XLA runs candidate GEMMs then). The shim's counters
(flopcount_snapshot_get) are read around the REPS calls only, so what XLA
does while compiling does not enter the comparison. XLA_FLAGS from the
environment choose cuBLAS or Triton GEMMs (the check runs both)."""
import argparse
import os
import sys

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

import fcmark  # noqa: E402

N, LINKS, REPS = 4096, 4, 10


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--meta", required=True)
    a = p.parse_args()
    keys = jax.random.split(jax.random.PRNGKey(0), LINKS + 1)
    x = jax.random.normal(keys[0], (N, N), dtype=jnp.bfloat16)
    ws = [jax.random.normal(k, (N, N), dtype=jnp.bfloat16) / 64 for k in keys[1:]]

    @jax.jit
    def chain(x, ws):
        for w in ws:
            x = x @ w
        return x

    chain(x, ws).block_until_ready()
    before = fcmark.snapshot()
    for _ in range(REPS):
        y = chain(x, ws)
    y.block_until_ready()
    after = fcmark.snapshot()
    dev = jax.devices()[0]
    fcmark.write_meta(
        a.meta,
        {
            "n": N,
            "links": LINKS,
            "reps": REPS,
            "before": before,
            "after": after,
            "jax": jax.__version__,
            "device": str(getattr(dev, "device_kind", dev)),
            "platform": dev.platform,
            "xla_flags": os.environ.get("XLA_FLAGS", ""),
        },
    )
    print("jax_chain: %s on %s" % (jax.__version__, dev), file=sys.stderr)


if __name__ == "__main__":
    main()
