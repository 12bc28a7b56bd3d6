/* SPDX-License-Identifier: Apache-2.0 */
/* step_marker.c - step edges for callgrind, called (ctypes) by
 * bench/nullgpu_step.py --marker before each measured step and once after
 * the last. Run under `valgrind --tool=callgrind --instr-atstart=no`, the
 * first call switches instrumentation on and zeroes the counts (start-up and
 * warm-up ran uninstrumented, several times faster), each later call dumps
 * the instructions every thread executed since the previous one as one
 * profile labelled "step N", and fc_bench_step_stop dumps the last step and
 * switches instrumentation off for the exit. bench/nullgpu_ir.py reads the
 * profiles: a count per step that does not depend on the machine's load,
 * where times do. Outside valgrind the client requests are a few no-op
 * instructions. */
#include <stdint.h>
#include <stdio.h>
#include <valgrind/callgrind.h>

__attribute__((visibility("default"))) void fc_bench_step_marker(int64_t step);
__attribute__((visibility("default"))) void fc_bench_step_stop(int64_t step);

static int fc_bench_started;

static void dump_step(int64_t step)
{
    char label[32];
    snprintf(label, sizeof label, "step %lld", (long long)step);
    CALLGRIND_DUMP_STATS_AT(label);
}

void fc_bench_step_marker(int64_t step)
{
    if (!fc_bench_started) {
        fc_bench_started = 1;
        CALLGRIND_START_INSTRUMENTATION;
        CALLGRIND_ZERO_STATS;
        return;
    }
    dump_step(step - 1);
}

void fc_bench_step_stop(int64_t step)
{
    dump_step(step - 1);
    CALLGRIND_STOP_INSTRUMENTATION;
}
