# SPDX-License-Identifier: Apache-2.0
"""peak_load.py - for check 01: what torch says about GPU 0 (name, SMs,
compute capability), then 6 marker-delimited "iterations" of bf16 matmuls,
so the shim's report has timed iterations and therefore a utilization
section with the peak it chose for the device."""
import argparse
import sys

import torch

import fcmark


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--meta", required=True)
    a = p.parse_args()
    props = torch.cuda.get_device_properties(0)
    x = torch.randn(2048, 2048, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(2048, 2048, device="cuda", dtype=torch.bfloat16)
    for _ in range(6):
        for _ in range(8):
            y = x @ w
        torch.cuda.synchronize()
        fcmark.step()
    fcmark.write_meta(
        a.meta,
        {
            "name": torch.cuda.get_device_name(0),
            "sm_count": props.multi_processor_count,
            "cc": "%d.%d" % (props.major, props.minor),
            "torch": torch.__version__,
            "check": float(y[0, 0]),
        },
    )
    print("peak_load: %s" % torch.cuda.get_device_name(0), file=sys.stderr)


if __name__ == "__main__":
    main()
