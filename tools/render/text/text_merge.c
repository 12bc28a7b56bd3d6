/* SPDX-License-Identifier: Apache-2.0 */
/* text_merge.c - the merged job as text for people (json_merge.c writes the
 * JSON). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "merge.h"
#include "render_fmt.h"
#include "render_forms.h"
#include "render_run.h"

/* Above this many ranks the text lists only the ranks worth a look. */
#define LIST_ALL_UP_TO 32

const char *fci_merge_verdict_words(const fc_merge *m)
{
    switch (m->verdict) {
    case FC_FLOPS_SAME:
        return "equal on every rank: data-parallel replicas (or tensor-parallel shards) agree";
    case FC_FLOPS_STAGES:
        return m->stages_contiguous
                   ? "differ in equal groups of contiguous ranks: pipeline stages (legitimate)"
                   : "differ in equal groups of strided ranks: pipeline stages or expert/tensor "
                     "groups doing different work (legitimate)";
    case FC_FLOPS_OUTLIERS:
        return "differ on a few ranks: data-parallel replicas should match (uneven batches? "
               "extra or skipped steps?)";
    default:
        return "differ with no majority: pipeline stages legitimately differ; data-parallel "
               "replicas would not";
    }
}

char *fci_merge_header_words(const fc_merge *m, char *buf, size_t size)
{
    snprintf(
        buf, size, "%zu report%s, world size %ld, %zu rank%s merged on %zu host%s (launcher %s)",
        m->n_ranks, m->n_ranks == 1 ? "" : "s", m->world_size, m->n_used, m->n_used == 1 ? "" : "s",
        m->n_hosts, m->n_hosts == 1 ? "" : "s", m->launcher[0] ? m->launcher : "unknown");
    return buf;
}

static void text_header(const fc_merge *m)
{
    char ranks[256], line[256];
    printf("flopcount merge: %s\n", fci_merge_header_words(m, line, sizeof line));
    if (m->n_missing) {
        fc_rank_ranges(m->missing, m->n_missing, ranks, sizeof ranks);
        printf("  MISSING ranks: %s (%zu of %ld)\n", ranks, m->n_missing, m->world_size);
    }
    for (size_t i = m->n_used; i < m->n_ranks; i++)
        printf("  DUPLICATE rank %ld: %s ignored\n", m->ranks[i].rank, m->ranks[i].path);
    if (m->world_disagrees)
        printf("  WARNING: the reports name different world sizes; the largest is used\n");
    if (m->n_rankless)
        printf("  note: the reports name no rank; numbered in the order given\n");
    if (m->n_not_complete)
        printf("  note: %zu report%s not complete (a snapshot, or the rank was killed)\n",
               m->n_not_complete, m->n_not_complete == 1 ? " is" : "s are");
}

static void text_iterations(const fc_merge *m, const fci_run *run)
{
    char t[32], f1[48], e1[FC_U128_DIGITS], e2[FC_U128_DIGITS];
    if (m->n_with_iterations == 0) {
        printf("  iterations       no iterations found\n");
        return;
    }
    if (m->n_with_iterations < m->n_used) {
        printf("  iterations       found on %zu of %zu ranks only; not aligned\n",
               m->n_with_iterations, m->n_used);
        return;
    }
    printf("  iterations       %zu aligned across %zu ranks (fewest counted by a rank: %llu); "
           "median step %s (slowest rank per step)\n",
           m->n_steps, m->n_used, (unsigned long long)m->iter_count,
           fci_fmt_seconds(m->median_step_seconds, t, sizeof t));
    if (m->n_steps == 0)
        return;
    printf("  per iteration    %s (%s) on all ranks; recompute %s%s\n",
           fc_u128_to_str(m->flops_per_iteration, e1),
           fci_fmt_flop(m->flops_per_iteration, f1, sizeof f1),
           fc_u128_to_str(m->recompute_per_iteration, e2),
           m->n_ambiguous_steps ? " (the split is a guess: see below)" : "");
    if (m->n_ambiguous_steps) {
        char counts[64];
        snprintf(counts, sizeof counts, "%zu of %zu steps", m->n_ambiguous_steps, m->n_steps);
        fci_text_split(run, counts);
    }
}

char *fci_merge_straggler_words(const fc_merge *m, char *buf, size_t size)
{
    char a[32], b[32];
    if (m->straggler < 0) {
        snprintf(buf, size, "n/a (%s)", m->n_used < 2 ? "one rank" : "ranks lack times");
        return buf;
    }
    double behind = m->straggler_seconds - m->others_seconds;
    double pct = m->others_seconds > 0 ? behind / m->others_seconds * 100.0 : NAN;
    const char *what = m->straggler_by_wall ? "wall time" : "median step";
    if (!fc_merge_is_straggler(m)) {
        snprintf(buf, size, "none: the slowest rank (%ld, %s %s) is within %.0f%% of the others",
                 m->straggler, what, fci_fmt_seconds(m->straggler_seconds, a, sizeof a),
                 FC_STRAGGLER_PCT);
        return buf;
    }
    int n = snprintf(buf, size, "rank %ld: %s %s vs %s for the others (+%.4f s, +%.1f%%)",
                     m->straggler, what, fci_fmt_seconds(m->straggler_seconds, a, sizeof a),
                     fci_fmt_seconds(m->others_seconds, b, sizeof b), behind, pct);
    if (n < 0 || (size_t)n >= size)
        return buf;
    if (!m->straggler_by_wall)
        snprintf(buf + n, size - (size_t)n, "; slowest in %zu of %zu steps",
                 m->straggler_slowest_steps, m->n_steps);
    else
        snprintf(buf + n, size - (size_t)n,
                 " (no iterations: whole-run wall time, startup included)");
    return buf;
}

static void text_straggler(const fc_merge *m)
{
    char line[256];
    printf("  straggler        %s\n", fci_merge_straggler_words(m, line, sizeof line));
}

static void text_consistency(const fc_merge *m)
{
    char e[FC_U128_DIGITS], ranks[200];
    const char *basis = m->flops_basis_iteration ? "per iteration" : "totals: no iterations";
    printf("  FLOPs per rank   %s (compared %s)\n", fci_merge_verdict_words(m), basis);
    if (m->verdict == FC_FLOPS_SAME)
        return;
    double ref = fc_u128_to_double(m->fgroups[0].flops);
    for (size_t g = 0; g < m->n_fgroups && g < 12; g++) {
        const fc_merge_fgroup *fg = &m->fgroups[g];
        fc_rank_ranges(fg->ranks, fg->n_ranks, ranks, sizeof ranks);
        double d = ref > 0 ? (fc_u128_to_double(fg->flops) - ref) / ref * 100.0 : NAN;
        printf("    %s FLOPs: %zu rank%s (%s)", fc_u128_to_str(fg->flops, e), fg->n_ranks,
               fg->n_ranks == 1 ? "" : "s", ranks);
        if (g > 0)
            printf(", %+.2f%% vs the largest group", d);
        printf("\n");
    }
    if (m->n_fgroups > 12)
        printf("    ... %zu groups in all\n", m->n_fgroups);
}

static void text_utilization(const fc_merge *m, const fci_run *run)
{
    char h[16], u[16];
    if (m->peak_flops <= 0)
        printf("  utilization      %s\n", run->no_peak);
    else if (isnan(m->hfu))
        printf("  utilization      needs aligned iterations with times (peak %s)\n", m->peak_desc);
    else
        printf("  utilization      cluster HFU %s, MFU %s (measured: counted FLOPs less "
               "recompute%s%s) on %zu ranks; peak %s\n",
               fci_fmt_pct(m->hfu, h, sizeof h), fci_fmt_pct(m->mfu, u, sizeof u),
               m->xs_per_iteration ? " and the attention excess" : "",
               m->n_ambiguous_steps ? "; an estimate, the split is a guess" : "", m->n_used,
               m->peak_desc);
    /* each dtype's own peak: known even when the ranks' single peaks differ;
     * unknown with its reason whenever the dtypes are */
    if (m->mix.ok || m->mix.n > 0 || (m->peak_flops > 0 && !isnan(m->hfu)))
        fci_text_mix(run);
}

static void text_inferred(const fc_merge *m)
{
    const fc_merge_model *mm = &m->model;
    char line[600], e[FC_U128_DIGITS], p[16];
    if (mm->state == FC_MERGE_MODEL_NONE) {
        printf("  inferred model   none: %s\n",
               mm->why[0] ? mm->why : "no rank has a forward profile");
        return;
    }
    const fc_inferred *in = &mm->inf;
    if (mm->state == FC_MERGE_MODEL_PARTIAL) {
        printf("  inferred model   incomplete: %s\n", in->f.ok ? in->missing : in->f.why);
        printf("                   %s\n", fc_merge_layout_words(m, line, sizeof line));
        return;
    }
    const fc_model *md = &in->model;
    printf(
        "  inferred model   l=%lld h=%lld a=%lld kv=%lld d=%lld ffn=%lld%s V=%lld s=%lld B=%lld%s, "
        "recompute %s\n",
        (long long)md->layers, (long long)md->hidden, (long long)md->heads,
        (long long)fc_model_kv_heads(md), (long long)md->head_dim, (long long)fc_model_ffn(md),
        md->swiglu ? " gated" : "", (long long)md->vocab, (long long)md->seq, (long long)md->batch,
        md->experts ? " MoE" : "", fc_recompute_name(md->recompute));
    printf("                   %s\n", fc_merge_layout_words(m, line, sizeof line));
    printf("                   formula model FLOPs %s per iteration%s; formula MFU %s\n",
           fc_u128_to_str(mm->f.model_flops_per_iteration, e),
           in->fits_iteration && in->f.attn_layers
               ? "; the count fits it with its core at the band the calls ran"
           : in->fits_iteration ? " = counted less recompute"
           : in->fits           ? ""
                                : " (the formula does not fit the count exactly)",
           fci_fmt_pct(mm->formula_mfu, p, sizeof p));
}

/* 1 when the rank's FLOPs are the largest group's: the rank tables (text
 * and page) mark the others. */
int fci_in_largest_group(const fc_merge *m, long rank)
{
    const fc_merge_fgroup *g = &m->fgroups[0];
    for (size_t i = 0; i < g->n_ranks; i++)
        if (g->ranks[i] == rank)
            return 1;
    return 0;
}

static void text_rank_row(const fc_merge *m, const fc_merge_rank *s)
{
    char e1[FC_U128_DIGITS], e2[FC_U128_DIGITS], t[32], h[16];
    double hfu = fc_merge_rank_hfu(m, s);
    printf("  %5ld  %-16.16s %-9.9s %24s %8llu %11s %22s %7s\n", s->rank, s->host, s->status,
           fc_u128_to_str(s->gemm_flops, e1), (unsigned long long)s->iter_count,
           fci_fmt_seconds(s->median_seconds, t, sizeof t),
           s->has_iterations ? fc_u128_to_str(s->flops_per_iteration, e2) : "-",
           fci_fmt_pct(hfu, h, sizeof h));
}

static void text_ranks(const fc_merge *m, int all)
{
    printf("\n  %5s  %-16s %-9s %24s %8s %11s %22s %7s\n", "rank", "host", "status", "GEMM FLOPs",
           "iters", "median step", "FLOPs/iteration", "HFU");
    size_t shown = 0;
    int every = all || m->n_used <= LIST_ALL_UP_TO;
    for (size_t i = 0; i < m->n_used; i++) {
        const fc_merge_rank *s = &m->ranks[i];
        int worth = i == 0 || s->rank == m->straggler ||
                    (m->verdict != FC_FLOPS_SAME && !fci_in_largest_group(m, s->rank));
        if (every || (worth && shown < LIST_ALL_UP_TO)) {
            text_rank_row(m, s);
            shown++;
        }
    }
    if (shown < m->n_used)
        printf("  (%zu of %zu ranks shown: rank 0, the straggler and differing ranks; "
               "--all-ranks lists every one)\n",
               shown, m->n_used);
}

void fci_text_merge(const fc_merge *m, int all_ranks)
{
    fci_run run;
    fci_run_of_merge(m, &run);
    text_header(m);
    fci_text_gemm_totals(&run);
    fci_text_top_shapes(&run);
    fci_text_attention(&run);
    text_iterations(m, &run);
    text_straggler(m);
    if (m->n_used > 1)
        text_consistency(m);
    text_utilization(m, &run);
    text_inferred(m);
    if (m->n_used > 0)
        text_ranks(m, all_ranks);
    fci_text_gpu(&run);
}
