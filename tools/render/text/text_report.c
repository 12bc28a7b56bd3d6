/* SPDX-License-Identifier: Apache-2.0 */
/* text_report.c - 'flopcount report' for people: what was measured, the
 * formula beside it, and the difference in words and numbers. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "nullgpu_note.h"
#include "rate.h"
#include "render_fmt.h"
#include "render_forms.h"
#include "render_run.h"
#include "report_view.h"

char *fci_report_source_words(const fc_report_view *v, char *buf, size_t size)
{
    const fc_report *r = &v->rep;
    if (r->is_merge)
        snprintf(buf, size, "merged report of %ld ranks (%s); status %s", r->world_size,
                 r->launcher[0] ? r->launcher : "unknown launcher", r->status);
    else if (r->n_procs > 1)
        snprintf(buf, size,
                 "job of %zu processes on %s (iterations, shapes' top: pid %ld; "
                 "totals: all); status %s",
                 r->n_procs, r->hostname, r->pid, r->status);
    else if (r->rank >= 0)
        snprintf(buf, size, "rank %ld of %ld (%s) on %s, pid %ld; status %s", r->rank,
                 r->world_size, r->launcher, r->hostname, r->pid, r->status);
    else
        snprintf(buf, size, "one process on %s, pid %ld; status %s", r->hostname, r->pid,
                 r->status);
    return buf;
}

static void text_source(const fc_report_view *v)
{
    const fc_report *r = &v->rep;
    char line[512];
    printf("flopcount report: %s\n", v->path);
    if (v->rep.null_gpu[0])
        printf("  null GPU       a run on the null GPU (%s): %s\n", v->rep.null_gpu,
               v->rep.null_gpu_caveat[0] ? v->rep.null_gpu_caveat : FC_NULL_GPU_CAVEAT);
    if (r->has_job && r->job.command[0] && r->n_procs > 1)
        printf("  job            %.100s%s: %s; several processes (below)\n", r->job.command,
               strlen(r->job.command) > 100 ? " ..." : "", r->job.ended[0] ? r->job.ended : "?");
    printf("  source         %s\n", fci_report_source_words(v, line, sizeof line));
    if (r->command && r->command[0])
        printf("  command        %.100s%s\n", r->command, strlen(r->command) > 100 ? " ..." : "");
}

/* More than one process: who ran what, how each ended, and which
 * process's iterations the figures below come from. */
static void text_processes(const fc_report_view *v)
{
    const fc_report *r = &v->rep;
    char e[FC_U128_DIGITS], pid[32], ppid[24], rank[24], iters[24];
    if (r->n_procs < 2)
        return;
    size_t gemm = 0;
    for (size_t i = 0; i < r->n_procs; i++)
        gemm += r->procs[i].gemm_calls + r->procs[i].failed_calls > 0;
    printf("  processes      %zu, %zu ran GEMMs; ", r->n_procs, gemm);
    if (r->job.n_iterations_from == 0)
        printf("no process's iterations used\n");
    else {
        printf("iterations from pid");
        for (size_t i = 0; i < r->job.n_iterations_from; i++)
            printf("%s %ld", i ? "," : "", r->job.iterations_from[i]);
        printf(" (*)\n");
    }
    if (r->has_job && r->job.n_incomplete)
        printf("  INCOMPLETE     %zu process%s left no final report (killed, or still running): "
               "their counts stop at their last snapshot\n",
               r->job.n_incomplete, r->job.n_incomplete == 1 ? "" : "es");
    printf("    %-9s %-8s %-5s %-26s %11s %20s %6s  %s\n", "pid", "ppid", "rank", "ended",
           "GEMM calls", "GEMM FLOPs", "iters", "command");
    for (size_t i = 0; i < r->n_procs; i++) {
        const fc_report_proc *p = &r->procs[i];
        snprintf(pid, sizeof pid, "%ld%s", p->pid, p->iterations_used ? " *" : "");
        snprintf(ppid, sizeof ppid, p->ppid >= 0 ? "%ld" : "-", p->ppid);
        snprintf(rank, sizeof rank, p->rank >= 0 ? "%ld" : "-", p->rank);
        snprintf(iters, sizeof iters, p->has_iterations ? "%llu" : "-",
                 (unsigned long long)p->iterations);
        printf("    %-9s %-8s %-5s %-26.26s %11llu %20s %6s  %.60s%s\n", pid, ppid, rank, p->ended,
               (unsigned long long)p->gemm_calls, fc_u128_to_str(p->gemm_flops, e), iters,
               p->command, strlen(p->command) > 60 ? " ..." : "");
    }
}

/* 1 when the program marked its steps (flopcount_step or NVTX step
 * ranges), so advising those markers would be advising what is there. */
static int steps_marked(const fc_report *r)
{
    return strcmp(r->iterations.detected_by, "marker") == 0 ||
           strcmp(r->iterations.detected_by, "nvtx") == 0;
}

/* How sure the split is: one line when some iteration's is a guess (and
 * whether the guess can move recompute, so MFU). */
static void text_split(const fc_report_view *v, const fci_run *run)
{
    const fc_report *r = &v->rep;
    char counts[160];
    if (r->iterations.ambiguous_iterations == 0 && v->n_ambiguous_split == 0)
        return;
    snprintf(counts, sizeof counts, "%llu of %llu iterations (%zu of the %zu steady%s)",
             (unsigned long long)r->iterations.ambiguous_iterations,
             (unsigned long long)r->iterations.count, v->n_ambiguous_split, v->n_steady,
             v->n_ambiguous_split && !v->n_ambiguous
                 ? ", between forward and backward only: recompute and MFU stand"
                 : "");
    fci_text_split(run, counts);
}

/* Evaluation passes in the words of the exit summary (shim/report/
 * sections.c): their count, FLOPs, FLOPs each, time and rate. */
static void text_eval(const fc_report *r, int iterations)
{
    char e[FC_U128_DIGITS], each[FC_U128_DIGITS], rate[32], t[32];
    if (!r->has_eval || r->eval_passes.count == 0)
        return;
    double f = fc_u128_to_double(r->eval_passes.flops), s = r->eval_passes.seconds;
    printf("  eval passes    %llu (forward-only: no backward), %s FLOPs, %s each",
           (unsigned long long)r->eval_passes.count, fc_u128_to_str(r->eval_passes.flops, e),
           fc_u128_to_str(r->eval_passes.flops / r->eval_passes.count, each));
    if (s > 0)
        printf(", in %s: %s", fci_fmt_seconds(s, t, sizeof t),
               fc_rate_text(f / s, rate, sizeof rate));
    printf("%s\n", iterations ? " (not in the iterations)" : "");
}

/* The experts' load per iteration (docs/moe.md), when grouped GEMMs with
 * known group sizes ran: the first iterations' largest max-group-work /
 * mean, and the largest over all. */
static void text_grouped_load(const fc_report *r)
{
    size_t shown = 0, with = 0;
    double top = 0;
    char line[256];
    int n = 0;
    for (size_t i = 0; i < r->iterations.n_list; i++) {
        const fc_report_iter *it = &r->iterations.list[i];
        if (it->grouped_calls == 0)
            continue;
        with++;
        if (it->grouped_max > top)
            top = it->grouped_max;
        if (shown < 8 && n >= 0 && (size_t)n < sizeof line)
            n += snprintf(line + n, sizeof line - (size_t)n, "%s%llu: %.3f", shown ? ", " : "",
                          (unsigned long long)it->index, it->grouped_max),
                shown++;
    }
    if (with == 0)
        return;
    printf("  expert load    max group work / mean, per iteration: %s%s (max %.3f over %zu "
           "iteration%s)\n",
           line, with > shown ? ", ..." : "", top, with, with == 1 ? "" : "s");
}

static void text_iterations(const fc_report_view *v, const fci_run *run)
{
    const fc_report *r = &v->rep;
    char t[32];
    if (!v->has_iterations) {
        printf("  iterations     no iterations found%s%s\n", r->utilization_reason[0] ? ": " : "",
               r->utilization_reason);
        text_eval(r, 0);
        return;
    }
    int fwd_only = strcmp(r->iterations.kind, "forward-only") == 0;
    char mixed[48] = "";
    if (strcmp(r->iterations.kind, "mixed") == 0)
        snprintf(mixed, sizeof mixed, "; %llu forward-only",
                 (unsigned long long)r->iterations.forward_only);
    printf("  iterations     %llu%s (%s%s), %zu %s; median %s\n",
           (unsigned long long)r->iterations.count, fwd_only ? " forward-only" : "",
           r->iterations.detected_by[0] ? r->iterations.detected_by : "?", mixed, v->n_steady,
           r->is_merge ? "aligned across ranks" : "steady (no warm-up, no open end)",
           fci_fmt_seconds(v->seconds, t, sizeof t));
    if (fwd_only)
        printf("  an iteration   a marked step whose GEMMs were all forward (no backward): "
               "inference, evaluation or a benchmark loop\n");
    if (strcmp(r->iterations.micro_batch, "may be") == 0)
        printf("  an iteration   one forward and backward: one micro-batch if the program "
               "accumulates gradients (its time, FLOPs and batch are then a micro-batch's)\n");
    text_eval(r, 1);
    text_split(v, run);
    text_grouped_load(r);
}

const char *fci_report_gpus_from(const fc_report_view *v)
{
    static const char *const from[] = {"default", "the report's world size", "--gpus"};
    return from[v->gpus_from];
}

/* Counted fused attention beyond the model convention, in "measured". */
static void text_attention_xs(const fc_report_view *v)
{
    char e[FC_U128_DIGITS];
    if (v->job_xs == 0)
        return;
    printf("  attention xs   %s of them beyond the model convention (the fused backward "
           "recomputes QK^T: 2.5x its forward, the convention counts 2x); left out of MFU\n",
           fc_u128_to_str(v->job_xs, e));
}

static void text_measured(const fc_report_view *v, const fci_run *run)
{
    char e1[FC_U128_DIGITS], e2[FC_U128_DIGITS], t[32], p1[16], p2[16];
    printf("measured, per iteration\n");
    if (!v->has_iterations) {
        if (steps_marked(&v->rep))
            printf("  n/a: no iterations found, though the program marks its steps (%s): every "
                   "GEMM was declared evaluation or outside the marked steps\n",
                   strcmp(v->rep.iterations.detected_by, "marker") == 0 ? "flopcount_step()"
                                                                        : "NVTX step ranges");
        else if (v->rep.has_eval && v->rep.eval_passes.count > 0)
            printf("  n/a: no iterations found: the GEMMs ran as forward-only passes (see eval "
                   "passes; flopcount_step() after each makes them iterations, with HFU)\n");
        else
            printf(
                "  n/a: no iterations found (mark them with flopcount_step() or an NVTX range)\n");
        return;
    }
    if (v->scale > 1)
        printf("  counted FLOPs  %s on this rank; %s for the job (x %ld ranks, assuming "
               "data-parallel replicas: 'flopcount merge' sums the ranks exactly)\n",
               fc_u128_to_str(v->file_flops, e1), fc_u128_to_str(v->job_flops, e2), v->scale);
    else
        printf("  counted FLOPs  %s%s\n", fc_u128_to_str(v->job_flops, e1),
               v->rep.is_merge ? " (all ranks)" : "");
    double jf = fc_u128_to_double(v->job_flops);
    const char *unsure = v->recompute_guessed ? "; the split is a guess (see above)"
                         : v->n_ambiguous     ? "; of the iterations split for sure"
                                              : "";
    text_attention_xs(v);
    printf("  recompute      %s (%s of counted%s)\n", fc_u128_to_str(v->job_recompute, e2),
           fci_fmt_pct(jf > 0 ? fc_u128_to_double(v->job_recompute) / jf : NAN, p1, sizeof p1),
           unsure);
    printf("  time           %s (median%s)\n", fci_fmt_seconds(v->seconds, t, sizeof t),
           v->rep.null_gpu[0] ? ", host time on the null GPU" : "");
    if (v->rep.null_gpu[0]) {
        printf("  HFU, MFU       none: %s\n", FC_NULL_GPU_NO_UTILIZATION);
    } else if (v->peak <= 0) {
        printf("  HFU, MFU       %s\n", run->no_peak);
        /* each dtype's own peak, from the report (a merge of unlike ranks);
         * or why the mix is unknown too, when its dtypes are */
        if (v->mix.ok || v->mix.n > 0)
            fci_text_mix(run);
        return;
    }
    printf("  HFU            %s   all counted FLOPs / (%lld GPU%s [%s] x peak x time); peak %s\n",
           fci_fmt_pct(v->hfu, p1, sizeof p1), (long long)v->gpus, v->gpus == 1 ? "" : "s",
           fci_report_gpus_from(v), v->peak_desc);
    fci_text_mix(run);
    printf("  MFU measured   %s   counted FLOPs less recompute%s%s\n",
           fci_fmt_pct(v->mfu, p2, sizeof p2),
           v->job_xs ? " and attention's backward beyond 2x its forward" : "",
           v->recompute_guessed ? " (an estimate: the recompute it leaves out is a guess)" : "");
}

char *fci_report_model_desc(const fc_report_view *v, char *buf, size_t size)
{
    const fc_model *m = &v->model;
    char attn[96], moe[128] = "";
    if (v->has_inferred && !v->inf.heads_known) /* fused attention: the widths only */
        snprintf(attn, sizeof attn, "a*d=%lld g*d=%lld", (long long)(m->heads * m->head_dim),
                 (long long)(fc_model_kv_heads(m) * m->head_dim));
    else
        snprintf(attn, sizeof attn, "a=%lld kv=%lld", (long long)m->heads,
                 (long long)fc_model_kv_heads(m));
    if (m->experts > 0)
        snprintf(moe, sizeof moe, " E=%lld top-%lld moe_ffn=%lld", (long long)m->experts,
                 (long long)m->topk, (long long)fc_model_moe_ffn(m));
    snprintf(buf, size,
             "l=%lld h=%lld %s ffn=%lld%s%s V=%lld s=%lld B=%lld all GPUs; "
             "recompute %s, causal %s",
             (long long)m->layers, (long long)m->hidden, attn, (long long)fc_model_ffn(m),
             m->swiglu ? " swiglu" : "", moe, (long long)m->vocab, (long long)m->seq,
             (long long)m->batch, fc_recompute_name(m->recompute), fc_causal_name(m->causal));
    return buf;
}

static void text_formula(const fc_report_view *v)
{
    char e[FC_U128_DIGITS], p[16], d[256];
    printf("formula (%s; from %s)\n", fci_report_model_desc(v, d, sizeof d), v->model_from);
    printf("  model FLOPs    %s\n", fc_u128_to_str(v->f.model_flops_per_iteration, e));
    printf("  hardware FLOPs %s\n", fc_u128_to_str(v->f.hardware_flops_per_iteration, e));
    if (v->peak > 0 && !isnan(v->formula_mfu))
        printf("  MFU formula    %s   model FLOPs / (%lld GPU%s x peak x measured time)\n",
               fci_fmt_pct(v->formula_mfu, p, sizeof p), (long long)v->gpus,
               v->gpus == 1 ? "" : "s");
    /* a model read off the stream alone that does not give back the counted
     * forward is a reading, not the model: say so beside its figure */
    if (v->has_inferred && v->inf.complete && !v->inf.fits &&
        strcmp(v->model_from, "the stream") == 0)
        printf("  %-14s the model read off the stream does not give back the counted forward "
               "(check, above): its values and this MFU are doubtful; give the model's flags\n",
               "caution");
}

static void text_terms(const fc_gap *g)
{
    char e[FC_U128_DIGITS];
    for (int t = 0; t < FC_GAP_COUNT; t++)
        if (g->explained & (1u << t))
            printf("    %c %s: %s FLOPs; %s\n", g->sign > 0 ? '+' : '-', fc_gap_term_name(t),
                   fc_u128_to_str(g->term[t], e), fc_gap_term_why(t));
    for (int t = 0; t < FC_GAP_COUNT; t++)
        if (!(g->explained & (1u << t)) && (g->offered & (1u << t)))
            printf("    (checked, not part of it: %s, %s FLOPs)\n", fc_gap_term_name(t),
                   fc_u128_to_str(g->term[t], e));
}

char *fci_report_gap_sentence(const fc_report_view *v, char *buf, size_t size)
{
    const fc_gap *g = &v->gap;
    char e1[FC_U128_DIGITS], e2[FC_U128_DIGITS];
    fc_u128 counted = fc_report_counted_model(v);
    const char *xs = v->job_xs ? " and the attention excess" : "";
    if (g->sign == 0)
        snprintf(buf, size,
                 "counted FLOPs less recompute%s (%s) equal the formula's model FLOPs exactly", xs,
                 fc_u128_to_str(counted, e1));
    else
        snprintf(buf, size, "counted FLOPs less recompute%s %s are %s %s the formula's (%+.2f%%)",
                 xs, fc_u128_to_str(counted, e1), fc_u128_to_str(g->abs, e2),
                 g->sign < 0 ? "below" : "above", g->fraction * 100.0);
    return buf;
}

char *fci_report_gap_verdict(const fc_report_view *v, char *buf, size_t size)
{
    const fc_gap *g = &v->gap;
    char e[FC_U128_DIGITS];
    if (g->sign == 0)
        buf[0] = '\0';
    else if (g->sign > 0 && !g->explained)
        snprintf(buf, size,
                 "GEMMs the formula does not model ran (adapters, extra projections, "
                 "optimizer or evaluation GEMMs inside the iteration)%s",
                 v->model.causal == FC_CAUSAL_HALF
                     ? ", or the kernels computed the full QK^T the halved causal "
                       "convention leaves out"
                     : "");
    else if (g->explained && g->residual == 0)
        snprintf(buf, size, "explained exactly by:");
    else if (g->explained)
        snprintf(buf, size, "nearest known terms (leaving %s FLOPs unexplained):",
                 fc_u128_to_str(g->residual, e));
    else
        snprintf(buf, size, "no known term comes near it");
    return buf;
}

char *fci_report_recompute_sentence(const fc_report_view *v, char *buf, size_t size)
{
    const fc_gap *g = &v->gap;
    char p[16], q[16];
    snprintf(buf, size,
             "measured %s of the formula's model FLOPs; the formula with recompute %s adds %s",
             fci_fmt_pct(g->recompute_of_model, p, sizeof p), fc_recompute_name(v->model.recompute),
             fci_fmt_pct(g->formula_recompute_of_model, q, sizeof q));
    return buf;
}

/* Counted fused attention against the formula's term, in "difference". */
static void text_attention_gap(const fc_report_view *v)
{
    char line[700];
    if (!v->attn_cmp.counted)
        return;
    printf("  attention      %s\n", fc_report_attention_cmp_words(v, line, sizeof line));
}

static void text_gap(const fc_report_view *v)
{
    const fc_gap *g = &v->gap;
    char line[512];
    printf("difference\n");
    if (!v->has_iterations) {
        printf("  n/a: no iterations found to compare per iteration\n");
        return;
    }
    printf("  %s\n", fci_report_gap_sentence(v, line, sizeof line));
    if (g->sign != 0)
        printf("%s%s\n", g->sign > 0 ? "    " : "  ", fci_report_gap_verdict(v, line, sizeof line));
    if (g->sign < 0 || g->explained)
        text_terms(g);
    text_attention_gap(v);
    printf("  recompute      %s%s\n", fci_report_recompute_sentence(v, line, sizeof line),
           v->recompute_guessed ? " (the measured recompute rests on a guessed split)" : "");
}

void fci_text_report(const fc_report_view *v)
{
    fci_run run;
    fci_run_of_report(v, &run);
    text_source(v);
    fci_text_gemm_totals(&run);
    fci_text_top_shapes(&run);
    fci_text_attention(&run);
    text_processes(v);
    text_iterations(v, &run);
    text_measured(v, &run);
    if (v->has_inferred)
        fci_report_infer_text(v);
    if (v->has_inferred && v->moe.found) {
        static char moe[2048];
        fc_moe_grouped_text(&v->moe, moe, sizeof moe);
        fputs(moe, stdout);
    }
    if (v->has_model) {
        text_formula(v);
        text_gap(v);
    }
    fci_text_gpu(&run);
}
