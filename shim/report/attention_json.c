/* SPDX-License-Identifier: Apache-2.0 */
/* attention_json.c - the "attention" section and the "uncounted" list of
 * the report (attention_json.h), read from count/attn_table.h and
 * count/uncounted.h. Shapes are written in first-seen order; nothing
 * allocates (the summary's text goes through a fixed buffer). */
#include "attention_json.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "count/attn_table.h"
#include "count/uncounted.h"
#include "devsizes_json.h"
#include "probe/devsizes.h"
#include "dtype.h"
#include "kernel_class.h"
#include "launch/launch.h"
#include "schema_attention.h"

static void write_shape(const fc_attn_view *v, void *ctx)
{
    fc_jw *w = ctx;
    const fc_attn *a = &v->key;
    fc_jw_obj_begin(w, NULL);
    fc_jw_str(w, "source", fc_attn_source_name(a->source));
    fc_jw_str(w, "direction", a->dir == FC_ATTN_BWD ? "backward" : "forward");
    if (a->b < 0) { /* shapes beyond the table, lumped per source, direction and bound */
        fc_jw_bool(w, "overflow", 1);
        fc_jw_bool(w, "bound", (a->flags & FC_ATTN_BOUND) != 0);
    } else {
        fc_jw_str(w, "dtype", fc_dtype_name(a->dtype));
        fc_jw_i64(w, "batch", a->b);
        fc_jw_i64(w, "heads", a->h);
        fc_jw_i64(w, "kv_heads", a->h_k);
        fc_jw_i64(w, "seq_q", a->s_q);
        fc_jw_i64(w, "seq_k", a->s_k);
        fc_jw_i64(w, "head_dim", a->d);
        fc_jw_i64(w, "head_dim_v", a->d_v);
        fc_jw_str(w, "mask", fc_attn_mask_name(a));
        fc_jw_str(w, "align", a->align == FC_ATTN_BOTTOM_RIGHT ? "bottom_right" : "top_left");
        fc_jw_i64(w, "window_left", a->window_left);
        fc_jw_i64(w, "window_right", a->window_right);
        fc_jw_bool(w, "bound", (a->flags & FC_ATTN_BOUND) != 0);
        fc_jw_bool(w, "dropout", (a->flags & FC_ATTN_DROPOUT) != 0);
        fc_jw_bool(w, "softcap", (a->flags & FC_ATTN_SOFTCAP) != 0);
        fc_jw_bool(w, "bias", (a->flags & FC_ATTN_BIAS) != 0);
        /* which form of the source ran: cuDNN's path, FlashAttention's layout */
        if (a->source == FC_ATTN_SRC_CUDNN && a->variant)
            fc_jw_str(w, "path", a->variant == FC_ATTN_CUDNN_UNIFIED
                                     ? "unified SDPA node"
                                     : "composite graph (matmul nodes)");
        else if (a->source == FC_ATTN_SRC_FLASH && fc_fa2_layout_name(a->variant) != NULL)
            fc_jw_str(w, "layout", fc_fa2_layout_name(a->variant));
        if (a->block_m > 0 && a->block_n > 0) {
            fc_jw_i64(w, "block_m", a->block_m);
            fc_jw_i64(w, "block_n", a->block_n);
            fc_jw_i64(w, "head_dim_padded", a->d_pad);
            fc_jw_i64(w, "head_dim_v_padded", a->d_v_pad);
        } else {
            fc_jw_null(w, "block_m");
            fc_jw_null(w, "block_n");
            fc_jw_null(w, "head_dim_padded");
            fc_jw_null(w, "head_dim_v_padded");
        }
        fc_jw_obj_begin(w, "per_call");
        fc_jw_u128(w, "flops", v->per_call.executed);
        fc_jw_u128(w, "model_flops", v->per_call.model);
        if (v->per_call.tiles)
            fc_jw_u128(w, "tile_flops", v->per_call.tiles);
        else
            fc_jw_null(w, "tile_flops");
        fc_jw_u128(w, "pairs", v->per_call.pairs);
        fc_jw_obj_end(w);
    }
    fc_jw_u64(w, "calls", v->calls);
    fc_jw_u64(w, "failed_calls", v->failed_calls);
    fc_jw_u128(w, "flops", v->executed);
    fc_jw_u128(w, "model_flops", v->model);
    if (a->b >= 0 && v->per_call.tiles)
        fc_jw_u128(w, "tile_flops", v->tiles);
    else
        fc_jw_null(w, "tile_flops");
    fc_jw_obj_end(w);
}

static void write_uncounted(const fc_uncounted_view *v, void *ctx)
{
    fc_jw *w = ctx;
    fc_jw_obj_begin(w, NULL);
    fc_jw_str(w, "name", v->name);
    fc_jw_str(w, "class", fc_kclass_name(v->kclass));
    fc_jw_str(w, "reason", fc_unc_reason_name(v->reason));
    fc_jw_str(w, "detail", v->detail);
    fc_jw_u64(w, "calls", v->calls);
    fc_jw_u64(w, "failed_calls", v->failed_calls);
    fc_devsizes_json(w, v->id);
    fc_jw_obj_end(w);
}

void fc_attention_section_json(fc_jw *w)
{
    fc_attn_totals t;
    fc_attn_table_totals(&t);
    fc_jw_obj_begin(w, "attention"); /* its counts: analysis/run/schema_attention.h */
    fc_attn_totals_rec rec = {.calls = t.calls,
                              .failed_calls = t.failed_calls,
                              .flops = t.executed,
                              .model_flops = t.model,
                              .tile_flops = t.tiles,
                              .tile_unknown_calls = t.tile_unknown_calls,
                              .distinct_shapes = t.distinct_shapes,
                              .overflow_calls = t.overflow_calls};
    fc_attn_totals_json(w, &rec);
    fc_jw_obj_begin(w, "by_source");
    for (int s = 1; s < FC_ATTN_SRC_COUNT; s++) {
        if (t.calls_by_source[s] == 0 && t.executed_by_source[s] == 0)
            continue;
        fc_jw_obj_begin(w, fc_attn_source_name(s));
        fc_jw_u64(w, "calls", t.calls_by_source[s]);
        fc_jw_u128(w, "flops", t.executed_by_source[s]);
        fc_jw_obj_end(w);
    }
    fc_jw_obj_end(w);
    fc_jw_arr_begin(w, "shapes");
    fc_attn_table_foreach(write_shape, w);
    fc_jw_arr_end(w);
    fc_jw_obj_end(w);
    fc_jw_arr_begin(w, "uncounted");
    fc_devsizes_poll(); /* the reads landed since the drainer's last tick */
    fc_uncounted_foreach(write_uncounted, w);
    fc_jw_arr_end(w);
}

static void say(int fd, const char *line)
{
    ssize_t n = write(fd, line, strlen(line));
    (void)n;
}

struct text_ctx {
    int fd, shown;
    uint64_t more;
};

#define UNCOUNTED_LINES 5

static void uncounted_line(const fc_uncounted_view *v, void *p)
{
    struct text_ctx *c = p;
    if (c->shown >= UNCOUNTED_LINES) {
        c->more++;
        return;
    }
    char line[400];
    snprintf(line, sizeof line, "flopcount:   not counted: %.120s (%s, %s) %llu calls%s%.160s\n",
             v->name, fc_kclass_name(v->kclass), fc_unc_reason_name(v->reason),
             (unsigned long long)(v->calls + v->failed_calls), v->detail[0] ? ": " : "",
             v->detail);
    say(c->fd, line);
    c->shown++;
}

void fc_attention_section_text(int fd)
{
    fc_attn_totals t;
    fc_attn_table_totals(&t);
    char line[400], h[32], m[32], e[FC_U128_DIGITS];
    if (t.calls + t.failed_calls > 0) {
        fc_u128_si(t.executed, "FLOP", h, sizeof h);
        fc_u128_si(t.model, "FLOP", m, sizeof m);
        int n = snprintf(line, sizeof line,
                         "flopcount: attention: %llu calls, %s (%s) executed, %s at the model "
                         "convention; %llu failed",
                         (unsigned long long)t.calls, h, fc_u128_to_str(t.executed, e), m,
                         (unsigned long long)t.failed_calls);
        for (int s = 1; s < FC_ATTN_SRC_COUNT && n > 0 && (size_t)n < sizeof line; s++)
            if (t.calls_by_source[s] > 0)
                n += snprintf(line + n, sizeof line - (size_t)n, "; %s %llu",
                              fc_attn_source_name(s), (unsigned long long)t.calls_by_source[s]);
        if (n > 0 && (size_t)n < sizeof line - 1)
            snprintf(line + n, sizeof line - (size_t)n, "\n");
        say(fd, line);
    }
    struct text_ctx c = {fd, 0, 0};
    fc_uncounted_foreach(uncounted_line, &c);
    if (c.more > 0) {
        snprintf(line, sizeof line, "flopcount:   not counted: %llu more names (the report lists them)\n",
                 (unsigned long long)c.more);
        say(fd, line);
    }
}

static void any_uncounted(const fc_uncounted_view *v, void *p)
{
    (void)v;
    *(int *)p = 1;
}

int fc_report_attention_seen(void)
{
    fc_attn_totals t;
    fc_attn_table_totals(&t);
    int any = t.calls + t.failed_calls > 0;
    if (!any)
        fc_uncounted_foreach(any_uncounted, &any);
    return any;
}
