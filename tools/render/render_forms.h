/* SPDX-License-Identifier: Apache-2.0 */
/* render_forms.h - what is internal to tools/render (fci_, CONTRIBUTING.md):
 * the entry of each form (the verbs go through fc_render, render.h), one
 * run (fc_report_view) or a sum of runs (fc_merge) for each, and the
 * sections and phrases the forms share. */
#ifndef FC_RENDER_FORMS_H
#define FC_RENDER_FORMS_H

#include "html.h"
#include "jsonw.h"
#include "merge.h"
#include "render_run.h"
#include "report_view.h"

struct fc_report_view;
struct fc_merge;

/* text/text_report.c, text/text_merge.c: to stdout. */
void fci_text_report(const struct fc_report_view *v);
void fci_text_merge(const struct fc_merge *m, int all_ranks);
/* json/json_report.c, json/json_merge.c: to stdout, a newline after; -1 on
 * a write error. */
int fci_json_report(const struct fc_report_view *v);
int fci_json_merge(const struct fc_merge *m);
/* A sum's rank whose FLOPs are the largest group's (text/text_merge.c;
 * the rank tables of text and page). */
int fci_in_largest_group(const struct fc_merge *m, long rank);
/* html/report_page.c, html/merge_page.c: -1 out of memory. */
int fci_html_report_page(fc_html *h, const struct fc_report_view *v);
int fci_html_merge_page(fc_html *h, const struct fc_merge *m);

/* The inferred model's block (text/text_infer.c, json/json_infer.c). */
void fci_report_infer_text(const fc_report_view *v);
void fci_report_infer_json(fc_jw *w, const fc_report_view *v);

/* Phrases of the text output, shared with the HTML page (text_report.c):
 * the source ("one process on HOST, pid N; status S"); where the GPU count
 * came from; the model as "l=.. h=.. ... causal full";
 * the difference in one sentence, what explains it ("" when equal), and
 * the recompute comparison. Each returns buf. */
char *fci_report_source_words(const fc_report_view *v, char *buf, size_t size);
const char *fci_report_gpus_from(const fc_report_view *v);
char *fci_report_model_desc(const fc_report_view *v, char *buf, size_t size);
char *fci_report_gap_sentence(const fc_report_view *v, char *buf, size_t size);
char *fci_report_gap_verdict(const fc_report_view *v, char *buf, size_t size);
char *fci_report_recompute_sentence(const fc_report_view *v, char *buf, size_t size);

/* The sections one run and a sum share, from the run view (render_run.h),
 * as text (text/text_run.c): the GEMM totals line; the top shapes; the
 * counted fused attention after them (nothing without attention); the
 * "HFU at mix" line; the split's line ("a guess in COUNTS: reasons") and
 * its advice; the CUPTI sections. */
void fci_text_gemm_totals(const fci_run *r);
void fci_text_top_shapes(const fci_run *r);
void fci_text_attention(const fci_run *r);
void fci_text_mix(const fci_run *r);
void fci_text_split(const fci_run *r, const char *counts);
void fci_text_gpu(const fci_run *r);

/* Counted fused attention of one run (json/json_attention.c): "attention"
 * (null without) and "uncounted" ([] without). */
void fci_report_attention_json(fc_jw *w, const struct fc_report_view *v);

/* JSON in the shim's layout (docs/report-schema.md), shared with merge and
 * the job report: the section's totals and "by_source" (into an open
 * object), one attention shape, one uncounted entry (words: also "why" and
 * "words", the text's phrases). */
void fci_json_attn_totals(fc_jw *w, const fc_report_attention *a);
void fci_json_attn_shape(fc_jw *w, const fc_report_attn_shape *s);
void fci_json_uncounted(fc_jw *w, const fc_report_uncounted *u, int words);

/* Phrases of the text output (text/text_merge.c), shared
 * with the HTML page:
 * "4 reports, world size 4, 4 ranks merged on 1 host (launcher torchrun)";
 * the straggler line ("rank 3: median step ... vs ..."). Return buf. */
char *fci_merge_header_words(const fc_merge *m, char *buf, size_t size);
char *fci_merge_straggler_words(const fc_merge *m, char *buf, size_t size);
/* One sentence on what the FLOP consistency verdict means. */
const char *fci_merge_verdict_words(const fc_merge *m);

#endif
