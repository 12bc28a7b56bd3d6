/* SPDX-License-Identifier: Apache-2.0 */
/* attention_view.h - counted fused attention in 'flopcount report'
 * (attention_view.c): what it adds to the counted FLOPs and from which
 * source, its shapes, what is not counted and why, the attention FLOPs
 * beyond the model convention that measured MFU leaves out, and the
 * comparison with the formula's attention term in its causal convention.
 * Phrases shared with the HTML page. */
#ifndef FC_REPORT_ATTENTION_VIEW_H
#define FC_REPORT_ATTENTION_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "attention.h"
#include "jsonw.h"
#include "report_read.h"
#include "u128.h"

/* The comparison with the formula (fc_report_attention_compare). */
typedef struct fc_report_attn_cmp {
    int counted;          /* the report counted attention calls */
    int band_known;       /* the forward calls ran one band (band, band_words) */
    fc_attn band;         /* its windows and alignment (shape fields unused) */
    const char *mask;     /* "none", "causal", "window"; "mixed" when not one band */
    int bound;            /* some counted shape is an upper bound */
    /* per iteration (the job's), model convention: forward + 2 x forward */
    int measured;         /* measured_model is known */
    fc_u128 measured_model;
    /* with a model: the formula's term (3 x its core, its convention) and
     * the model's core at the band that ran, counted exactly (3 x) */
    int have_terms;
    fc_u128 formula_term, exact_term;
} fc_report_attn_cmp;

struct fc_report_view;

/* Fills v->attn_cmp (after the measured figures and the model). */
void fc_report_attention_compare(struct fc_report_view *v);

/* Phrases. A shape: "flash forward 2 x 4 (kv 4) 32 x 32 d 16 causal"
 * (with "<=" before the lengths of a bound); the uncounted reason in
 * words; the comparison in one sentence. Each returns buf or a literal. */
char *fc_report_attn_shape_words(const fc_report_attn_shape *s, char *buf, size_t size);
/* The band of a shape in words: "none", "causal", "window (left L, right
 * R)", then its alignment when s_q != s_k makes it matter ("bottom-right":
 * the diagonal ends at the last key, FlashAttention's; "top-left"), then
 * the flags that change no products ("dropout", "softcap", "bias"). */
char *fc_report_attn_mask_words(const fc_report_attn_shape *s, char *buf, size_t size);
const char *fc_report_uncounted_why(const char *reason);
char *fc_report_uncounted_words(const fc_report_uncounted *u, char *buf, size_t size);
char *fc_report_attention_cmp_words(const struct fc_report_view *v, char *buf, size_t size);
/* The shapes' order for display: indices into a->shapes, most executed
 * FLOPs first (at most n; returns how many). */
size_t fc_report_attn_top(const fc_report_attention *a, size_t *idx, size_t n);
/* Calls and executed FLOPs of the shapes whose lengths are maxima. */
void fc_report_attn_bound(const fc_report_attention *a, uint64_t *calls, fc_u128 *flops);
/* The failed calls of the listed shapes and what they would have run:
 * executed and model-convention FLOPs (failed calls x each shape's per-call
 * figures; the overflow buckets have none). */
void fc_report_attn_failed(const fc_report_attention *a, uint64_t *calls, fc_u128 *executed,
                           fc_u128 *model);

#endif
