/* SPDX-License-Identifier: Apache-2.0 */
/* live.c - one line per FLOPCOUNT_LOG_EVERY iterations, on stderr only:
 *   flopcount: step 20 0.412 s 3.10 TFLOP/s HFU 41.2% MFU 38.0% recompute 8.1%
 * HFU counts everything executed; MFU leaves the recompute out. */
#include "live.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "options.h"
#include "peak_choice.h"
#include "rank.h"

_Atomic int fc_live_gpu_work;

void fc_live_iteration(uint64_t index, const fc_iteration *it)
{
    if (fc_opt.log_every == 0 || index % fc_opt.log_every != 0)
        return;
    if (!fc_opt.log_all_ranks && !fc_rank_is_leader())
        return;
    double secs = fc_iteration_seconds(it);
    double hw = fc_u128_to_double(fc_u128_sat_add(it->fwd, fc_u128_sat_add(it->bwd, it->rec)));
    double rec = fc_u128_to_double(it->rec);
    char line[320], who[48] = "", util[96] = "";
    if (fc_rank.rank >= 0 && fc_opt.log_all_ranks)
        snprintf(who, sizeof who, "rank %ld ", fc_rank.rank);
    fc_peak_choice pc;
    if (secs > 0 && fc_peak_choose(fc_steps_dominant_dtype(), atomic_load_explicit(&fc_live_gpu_work, memory_order_relaxed), 1, &pc) == 0)
        snprintf(util, sizeof util, " HFU %.1f%% MFU %.1f%%", 100.0 * hw / (secs * pc.flops),
                 100.0 * (hw - rec) / (secs * pc.flops));
    else
        snprintf(util, sizeof util, " HFU n/a MFU n/a");
    int n = snprintf(line, sizeof line, "flopcount: %sstep %llu %.3f s %.2f TFLOP/s%s recompute %.1f%%\n",
                     who, (unsigned long long)index, secs, secs > 0 ? hw / secs / 1e12 : 0.0, util,
                     hw > 0 ? 100.0 * rec / hw : 0.0);
    if (n > 0) {
        ssize_t w = write(2, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
        (void)w;
    }
}
