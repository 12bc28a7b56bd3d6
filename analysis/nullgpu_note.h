/* SPDX-License-Identifier: Apache-2.0 */
/* nullgpu_note.h - what a report of a run on the null GPU (nullgpu/,
 * 'flopcount run --null-gpu') says about itself, in one place for the shim
 * (which writes it) and the command (which prints it). */
#ifndef FC_NULLGPU_NOTE_H
#define FC_NULLGPU_NOTE_H

/* Why the report has no HFU/MFU. */
#define FC_NULL_GPU_NO_UTILIZATION                                                                 \
    "a null-GPU run: its times are the host's, not the device's (no HFU/MFU)"

/* The value-dependence caveat. */
#define FC_NULL_GPU_CAVEAT                                                                         \
    "FLOPs are what the job would launch on that GPU as long as no path depends on values: "     \
    "the null GPU computes nothing (outputs are zeros), so value-dependent work (nonzero, "      \
    "masks, MoE routing, dynamic shapes, early exits) may differ, and kernels picked by "         \
    "timing (autotuning) may differ"

#endif
