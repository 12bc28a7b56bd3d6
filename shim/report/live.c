/* SPDX-License-Identifier: Apache-2.0 */
/* live.c - one line per FLOPCOUNT_LOG_EVERY iterations, on stderr only:
 *   flopcount: step 20 0.412 s 3.10 TFLOP/s HFU 41.2% MFU 38.0% recompute 8.1% formula MFU 38.0%
 * The rate takes the SI prefix that fits it (analysis/rate.c: 3.60 GFLOP/s
 * for a CPU job, 1.20 PFLOP/s for a node). * HFU counts everything executed; MFU leaves the recompute out; formula
 * MFU is the model inferred from the GEMMs (inferred.c), once it fits the
 * count exactly. With --hw-flops the line ends with hwHFU, the
 * hardware-measured FLOPs of the latest iteration whose counter samples are
 * all in ("(step N)" when that is an earlier one: samples arrive up to a
 * second late). An iteration whose recompute is a guess gets " (split
 * unsure)" after the recompute (a doubt between forward and backward only
 * changes nothing the line shows). An iteration of several micro-batches
 * (markers, NVTX ranges or optimizer steps around gradient accumulation)
 * ends with " micro-batches N". Automatic iterations get one line first
 * saying what they are (a micro-batch if the program accumulates
 * gradients: the GEMMs cannot tell). When the training FLOPs ran in more
 * than one dtype, the HFU is followed by the dtype of its peak and the HFU
 * at the dtype mix:
 *   ... HFU 41.2% (fp8_e4m3) mix 52.1% MFU 38.0% ...
 * With counted fused attention MFU also leaves out attention's backward
 * beyond 2x its forward (as figures.c), and " attn N%" gives its share of
 * the iteration (live_attention.c). */
#include "live.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/options.h"
#include "core/rank.h"
#include "cupti/hwflops.h"
#include "inferred.h"
#include "live_attention.h"
#include "detect/segment.h"
#include "detect/steps.h"
#include "dtype.h"
#include "figures.h"
#include "inferred.h"
#include "probe/gputime.h"
#include "probe/peak_choice.h"
#include "rate.h"

static uint64_t printed_up_to; /* iterations of the reported mode already looked at */
static int printed_mode;
static int said_auto; /* the line on what an automatic iteration is was printed */

static void say_line(const char *line, int n, size_t size)
{
    if (n > 0) {
        ssize_t w = write(2, line, (size_t)n < size ? (size_t)n : size - 1);
        (void)w;
    }
}

/* " hwHFU 41.0%" for the latest iteration with hardware FLOPs; empty
 * when they are not measured. */
static void hw_part(uint64_t index, double peak, char *out, size_t size)
{
    fc_hw_view h;
    fc_hwflops_get(&h);
    if (h.state != FC_HWS_ON)
        return;
    double flops = 0, span = 0;
    uint64_t at = fc_hwflops_latest(&flops, &span);
    fc_iteration it;
    if (at == 0 || peak <= 0 || fc_steps_iteration(fc_steps_mode(), at, &it) != 0 ||
        fc_iteration_seconds(&it) <= 0) {
        snprintf(out, size, " hwHFU n/a");
        return;
    }
    double hfu = 100.0 * flops / (peak * fc_iteration_seconds(&it));
    if (at == index)
        snprintf(out, size, " hwHFU %.1f%%", hfu);
    else
        snprintf(out, size, " hwHFU %.1f%% (step %llu)", hfu, (unsigned long long)at);
}

/* " (bf16) mix 38.0%" after the HFU when the training FLOPs ran in more
 * than one dtype: HFU is at the dominant dtype's peak (named), mix at each
 * dtype's own (report/figures.c); " mix n/a" when a dtype has no peak.
 * One dtype: nothing (the mix equals HFU). Below 0.1%, three digits. */
static void mix_part(fc_u128 flops, double secs, int dtype, char *out, size_t size)
{
    static fc_mix m; /* the drain lock serializes callers */
    int ok = fc_figures_mix(flops, secs, __atomic_load_n(&fc_gpu_work_seen, __ATOMIC_RELAXED), 1,
                            &m) == 0;
    if (m.n < 2)
        return;
    double pct = 100.0 * m.hfu;
    if (!ok)
        snprintf(out, size, " (%s) mix n/a", fc_dtype_name(dtype));
    else
        snprintf(out, size, pct >= 0.1 ? " (%s) mix %.1f%%" : " (%s) mix %.3g%%",
                 fc_dtype_name(dtype), pct);
}

static void print_line(uint64_t index, const fc_iteration *it)
{
    double secs = fc_iteration_seconds(it);
    double hw = fc_u128_to_double(fc_u128_sat_add(it->fwd, fc_u128_sat_add(it->bwd, it->rec)));
    double rec = fc_u128_to_double(it->rec);
    char line[400], who[48] = "", util[128] = "", formula[48] = "", mix[48] = "", attn[32];
    if (fc_rank.rank >= 0 && fc_opt.log_all_ranks)
        snprintf(who, sizeof who, "rank %ld ", fc_rank.rank);
    fc_peak_choice pc;
    int pc_ok = fc_peak_choose(fc_steps_dominant_dtype(), __atomic_load_n(&fc_gpu_work_seen, __ATOMIC_RELAXED), 1, &pc) == 0;
    if (secs > 0 && pc_ok) {
        mix_part(fc_u128_sat_add(it->fwd, fc_u128_sat_add(it->bwd, it->rec)), secs, pc.dtype, mix,
                 sizeof mix);
        char hfu[24], mfu[24];
        double h, m; /* the run's expression (run_figures.h), of this iteration */
        fc_fig_utilization(fc_u128_sat_add(it->fwd, fc_u128_sat_add(it->bwd, it->rec)), it->rec,
                           it->xs, secs, 1, pc.flops, &h, &m);
        fc_figures_pct(100.0 * h, hfu, sizeof hfu);
        fc_figures_pct(100.0 * m, mfu, sizeof mfu);
        snprintf(util, sizeof util, " HFU %s%s MFU %s", hfu, mix, mfu);
        fc_inferred_live(it, secs, pc.flops, formula, sizeof formula);
    } else {
        snprintf(util, sizeof util, " HFU n/a MFU n/a");
    }
    char hwl[64] = "", micro[40] = "";
    hw_part(index, pc_ok ? pc.flops : 0, hwl, sizeof hwl);
    fc_live_attention(it, attn, sizeof attn);
    char rate[32];
    fc_rate_text(secs > 0 ? hw / secs : 0.0, rate, sizeof rate);
    if (it->micro > 1)
        snprintf(micro, sizeof micro, it->fwd_only ? " forward passes %u" : " micro-batches %u",
                 (unsigned)it->micro);
    const char *unsure = (it->unsure & FC_UNSURE_MFU) ? " (split unsure)" : "";
    /* milliseconds and up with 3 decimals; a shorter iteration (a CPU loop)
     * with 3 significant digits, never "0.000 s" beside its rate */
    int decimals = 3;
    for (double x = secs; secs < 0.01 && x > 0 && x < 0.1 && decimals < 9; x *= 10)
        decimals++;
    /* a marked step with no backward: forward-only, no recompute to speak of */
    char kind[32] = " forward-only";
    if (!it->fwd_only)
        snprintf(kind, sizeof kind, " recompute %.1f%%", hw > 0 ? 100.0 * rec / hw : 0.0);
    int n = snprintf(line, sizeof line, "flopcount: %sstep %llu %.*f s %s%s%s%s%s%s%s%s\n", who,
                     (unsigned long long)index, decimals, secs, rate, util, kind, unsure, attn,
                     formula, hwl, micro);
    say_line(line, n, sizeof line);
}

void fc_live_poll(void)
{
    if (fc_opt.log_every == 0 || (!fc_opt.log_all_ranks && !fc_rank_is_leader()))
        return;
    int mode = fc_steps_mode();
    fc_steps_view v;
    fc_steps_get(mode, &v);
    if (mode != printed_mode) { /* markers took over from automatic detection */
        printed_mode = mode;
        printed_up_to = 0;
    }
    uint64_t first = printed_up_to + 1;
    if (v.count > printed_up_to + 64) /* more finished than are kept: skip ahead */
        first = v.count - 63;
    for (uint64_t i = first; i <= v.count; i++) {
        fc_iteration it;
        if (i % fc_opt.log_every != 0 || fc_steps_iteration(mode, i, &it) != 0)
            continue;
        if (mode == FC_MODE_AUTO && !said_auto) {
            static const char note[] =
                "flopcount: the live lines count automatic iterations: one forward and backward "
                "each, one micro-batch if the program accumulates gradients (flopcount_step() "
                "after optimizer.step() makes them optimizer steps)\n";
            say_line(note, (int)sizeof note - 1, sizeof note);
            said_auto = 1;
        }
        print_line(i, &it);
    }
    printed_up_to = v.count;
}

void fc_live_reset(void)
{
    printed_up_to = 0;
    printed_mode = 0;
    said_auto = 0;
}
