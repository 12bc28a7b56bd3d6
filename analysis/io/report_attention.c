/* SPDX-License-Identifier: Apache-2.0 */
/* report_attention.c - the "attention" section, the "uncounted" list and
 * the attention entries of the forward profile, read into the types of
 * report_attention.h with the typed getters of json_get.h. The strings
 * that name a kind (direction, mask, source) are checked where a reader
 * acts on them; FLOP figures are exact (fc_u128). */
#include "report_attention.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "json_get.h"
#include "schema_attention.h"
#include "schema_read.h"

#define MAX_ENTRIES (1u << 20)

static void *alloc_array(fc_jctx *c, size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (p == NULL)
        fc_jfail(c, "out of memory");
    return p;
}

/* A band's name as the shim writes it (attention.h fc_attn_mask_name). */
static void check_mask(fc_jctx *c, const char *sec, const char *mask)
{
    if (mask[0] && strcmp(mask, "none") != 0 && strcmp(mask, "causal") != 0 &&
        strcmp(mask, "window") != 0)
        fc_jfail(c, "%s.mask: expected \"none\", \"causal\" or \"window\", not '%.40s'", sec, mask);
}

static void read_direction(fc_jctx *c, json_object *o, const char *sec, int *backward)
{
    char dir[16] = "";
    fc_jget_str(c, o, sec, "direction", dir, sizeof dir);
    if (strcmp(dir, "backward") == 0)
        *backward = 1;
    else if (strcmp(dir, "forward") != 0 && !c->failed)
        fc_jfail(c, "%s.direction: expected \"forward\" or \"backward\"", sec);
}

/* The per-call figures of one shape ("per_call"): absent for overflow. */
static void read_per_call(fc_jctx *c, json_object *o, fc_report_attn_shape *s)
{
    static const char *const sec = "attention.shapes[].per_call";
    json_object *p = fc_jsection(c, o, "per_call", json_type_object);
    if (p == NULL)
        return;
    fc_jget_u128(c, p, sec, "flops", &s->per_call_flops, 1);
    fc_jget_u128(c, p, sec, "model_flops", &s->per_call_model_flops, 0);
    fc_jget_u128(c, p, sec, "tile_flops", &s->per_call_tile_flops, 0);
    fc_jget_u128(c, p, sec, "pairs", &s->per_call_pairs, 0);
}

static void read_shape(fc_jctx *c, json_object *o, fc_report_attn_shape *s)
{
    static const char *const sec = "attention.shapes[]";
    s->batch = s->heads = s->kv_heads = s->seq_q = s->seq_k = s->head_dim = s->head_dim_v = -1;
    s->window_left = s->window_right = -1;
    s->block_m = s->block_n = s->head_dim_padded = s->head_dim_v_padded = -1;
    fc_jget_str(c, o, sec, "source", s->source, sizeof s->source);
    read_direction(c, o, sec, &s->backward);
    fc_jget_bool(c, o, sec, "overflow", &s->overflow);
    fc_jget_str(c, o, sec, "dtype", s->dtype, sizeof s->dtype);
    fc_jget_i64(c, o, sec, "batch", &s->batch);
    fc_jget_i64(c, o, sec, "heads", &s->heads);
    fc_jget_i64(c, o, sec, "kv_heads", &s->kv_heads);
    fc_jget_i64(c, o, sec, "seq_q", &s->seq_q);
    fc_jget_i64(c, o, sec, "seq_k", &s->seq_k);
    fc_jget_i64(c, o, sec, "head_dim", &s->head_dim);
    fc_jget_i64(c, o, sec, "head_dim_v", &s->head_dim_v);
    fc_jget_str(c, o, sec, "mask", s->mask, sizeof s->mask);
    fc_jget_str(c, o, sec, "path", s->path, sizeof s->path);
    fc_jget_str(c, o, sec, "layout", s->layout, sizeof s->layout);
    check_mask(c, sec, s->mask);
    fc_jget_str(c, o, sec, "align", s->align, sizeof s->align);
    fc_jget_i64(c, o, sec, "window_left", &s->window_left);
    fc_jget_i64(c, o, sec, "window_right", &s->window_right);
    fc_jget_bool(c, o, sec, "bound", &s->bound);
    fc_jget_bool(c, o, sec, "dropout", &s->dropout);
    fc_jget_bool(c, o, sec, "softcap", &s->softcap);
    fc_jget_bool(c, o, sec, "bias", &s->bias);
    fc_jget_i64(c, o, sec, "block_m", &s->block_m);
    fc_jget_i64(c, o, sec, "block_n", &s->block_n);
    fc_jget_i64(c, o, sec, "head_dim_padded", &s->head_dim_padded);
    fc_jget_i64(c, o, sec, "head_dim_v_padded", &s->head_dim_v_padded);
    read_per_call(c, o, s);
    fc_jget_u64(c, o, sec, "calls", &s->calls, 1);
    fc_jget_u64(c, o, sec, "failed_calls", &s->failed_calls, 0);
    fc_jget_u128(c, o, sec, "flops", &s->flops, 1);
    fc_jget_u128(c, o, sec, "model_flops", &s->model_flops, 0);
    json_object *t = fc_jmember(o, "tile_flops");
    s->tiles_known = t != NULL && !json_object_is_type(t, json_type_null);
    fc_jget_u128(c, o, sec, "tile_flops", &s->tile_flops, 0);
    if (!c->failed && !s->overflow &&
        (s->batch < 1 || s->heads < 1 || s->kv_heads < 1 || s->seq_q < 1 || s->seq_k < 1 ||
         s->head_dim < 1 || s->head_dim_v < 1))
        fc_jfail(c, "%s: batch, heads, kv_heads, seq_q, seq_k, head_dim and head_dim_v must be "
                    "positive integers",
                 sec);
}

static void read_by_source(fc_jctx *c, json_object *att, fc_report_attention *a)
{
    json_object *g = fc_jsection(c, att, "by_source", json_type_object);
    if (g == NULL)
        return;
    json_object_object_foreach(g, name, v)
    {
        if (c->failed)
            break;
        if (!json_object_is_type(v, json_type_object)) {
            fc_jfail(c, "attention.by_source.%s: expected an object", name);
            break;
        }
        if (a->n_by_source == FC_REPORT_ATTN_SOURCES) {
            fc_jfail(c, "attention.by_source: more than %d sources", FC_REPORT_ATTN_SOURCES);
            break;
        }
        fc_report_attn_source *s = &a->by_source[a->n_by_source++];
        snprintf(s->name, sizeof s->name, "%s", name);
        fc_jget_u64(c, v, "attention.by_source", "calls", &s->calls, 0);
        fc_jget_u128(c, v, "attention.by_source", "flops", &s->flops, 1);
    }
}

static void read_shapes(fc_jctx *c, json_object *att, fc_report_attention *a)
{
    json_object *arr = fc_jsection(c, att, "shapes", json_type_array);
    if (arr == NULL || c->failed)
        return;
    size_t n = json_object_array_length(arr);
    if (n > MAX_ENTRIES) {
        fc_jfail(c, "attention.shapes: more than 2^20 entries");
        return;
    }
    if ((a->shapes = alloc_array(c, n, sizeof *a->shapes)) == NULL)
        return;
    for (size_t i = 0; i < n && !c->failed; i++) {
        json_object *o = json_object_array_get_idx(arr, i);
        if (!json_object_is_type(o, json_type_object)) {
            fc_jfail(c, "attention.shapes[%zu]: expected an object", i);
            break;
        }
        read_shape(c, o, &a->shapes[i]);
        a->n_shapes = i + 1;
    }
}

static void read_uncounted(fc_jctx *c, json_object *root, fc_report_attention *a)
{
    static const char *const sec = "uncounted[]";
    json_object *arr = fc_jsection(c, root, "uncounted", json_type_array);
    if (arr == NULL || c->failed)
        return;
    a->has_uncounted = 1;
    size_t n = json_object_array_length(arr);
    if (n > MAX_ENTRIES) {
        fc_jfail(c, "uncounted: more than 2^20 entries");
        return;
    }
    if ((a->uncounted = alloc_array(c, n, sizeof *a->uncounted)) == NULL)
        return;
    for (size_t i = 0; i < n && !c->failed; i++) {
        json_object *o = json_object_array_get_idx(arr, i);
        fc_report_uncounted *u = &a->uncounted[i];
        if (!json_object_is_type(o, json_type_object)) {
            fc_jfail(c, "uncounted[%zu]: expected an object", i);
            break;
        }
        fc_jget_str(c, o, sec, "name", u->name, sizeof u->name);
        fc_jget_str(c, o, sec, "class", u->kclass, sizeof u->kclass);
        fc_jget_str(c, o, sec, "reason", u->reason, sizeof u->reason);
        fc_jget_str(c, o, sec, "detail", u->detail, sizeof u->detail);
        fc_jget_u64(c, o, sec, "calls", &u->calls, 1);
        fc_jget_u64(c, o, sec, "failed_calls", &u->failed_calls, 0);
        if (!c->failed && u->reason[0] == '\0')
            fc_jfail(c, "uncounted[%zu].reason: missing (what is not counted says why)", i);
        a->n_uncounted = i + 1;
    }
}

void fc_report_read_attention(fc_jctx *c, json_object *root, fc_report_attention *a)
{
    static const char *const sec = "attention";
    json_object *att = fc_jsection(c, root, "attention", json_type_object);
    if (att != NULL && !c->failed) {
        a->has = 1;
        /* the counts, by the section's table (analysis/run/schema_attention.h) */
        fc_attn_totals_rec t = {0};
        fc_schema_read(c, att, sec, fc_attn_totals_fields, 0, FC_ATTN_TOTALS_N, &t);
#define FC_X(P, name, type, req, unit, meaning) a->name = t.name;
        FC_ATTN_TOTALS_FIELDS(FC_X, _)
#undef FC_X
        read_by_source(c, att, a);
        read_shapes(c, att, a);
    }
    if (!c->failed)
        read_uncounted(c, root, a);
    json_object *launch = c->failed ? NULL : fc_jsection(c, root, "launch", json_type_object);
    if (launch != NULL)
        fc_jget_str(c, launch, "launch", "note", a->launch_note, sizeof a->launch_note);
}

/* The enum of a source name (attention.h); FC_ATTN_SRC_UNKNOWN when not known. */
static int source_of(const char *name)
{
    for (int s = 1; s < FC_ATTN_SRC_COUNT; s++)
        if (strcmp(name, fc_attn_source_name(s)) == 0)
            return s;
    return FC_ATTN_SRC_UNKNOWN;
}

void fc_report_read_profile_attention(fc_jctx *c, json_object *o, fc_fwd_gemm *g)
{
    static const char *const sec = "forward_profile.gemms[]";
    fc_attn *a = &g->attn;
    int unresolved = 0, bound = 0;
    char source[16] = "", mask[16] = "", dtype[24] = "";
    memset(a, 0, sizeof *a);
    g->attention = 1;
    g->m = g->n = g->k = g->batch = -1;
    g->transa = g->transb = '?';
    g->weight = 0;
    fc_jget_bool(c, o, sec, "unresolved", &unresolved);
    fc_jget_u64(c, o, sec, "count", &g->count, 1);
    fc_jget_u128(c, o, sec, "flops", &g->flops, 1);
    a->b = -1;
    if (unresolved || c->failed)
        return;
    a->window_left = a->window_right = -1;
    fc_jget_str(c, o, sec, "source", source, sizeof source);
    fc_jget_i64(c, o, sec, "batch", &a->b);
    fc_jget_i64(c, o, sec, "heads", &a->h);
    fc_jget_i64(c, o, sec, "kv_heads", &a->h_k);
    fc_jget_i64(c, o, sec, "seq_q", &a->s_q);
    fc_jget_i64(c, o, sec, "seq_k", &a->s_k);
    fc_jget_i64(c, o, sec, "head_dim", &a->d);
    fc_jget_i64(c, o, sec, "head_dim_v", &a->d_v);
    fc_jget_str(c, o, sec, "mask", mask, sizeof mask);
    check_mask(c, sec, mask);
    fc_jget_i64(c, o, sec, "window_left", &a->window_left);
    fc_jget_i64(c, o, sec, "window_right", &a->window_right);
    fc_jget_bool(c, o, sec, "bound", &bound);
    fc_jget_str(c, o, sec, "dtype", dtype, sizeof dtype);
    if (c->failed)
        return;
    if (a->b < 1 || a->h < 1 || a->h_k < 1 || a->s_q < 1 || a->s_k < 1 || a->d < 1) {
        fc_jfail(c, "%s: an attention entry needs positive batch, heads, kv_heads, seq_q, seq_k "
                    "and head_dim",
                 sec);
        return;
    }
    if (a->d_v < 1)
        a->d_v = a->d;
    a->source = (uint8_t)source_of(source);
    a->dtype = (uint8_t)fc_dtype_from_name(dtype);
    a->flags = bound ? FC_ATTN_BOUND : 0;
    a->dir = FC_ATTN_FWD;
    /* the profile does not say how a causal band is aligned; with s_q = s_k
     * (a training forward) both alignments are the same band */
    a->align = FC_ATTN_BOTTOM_RIGHT;
}

void fc_report_attention_free(fc_report_attention *a)
{
    if (a == NULL)
        return;
    free(a->shapes);
    free(a->uncounted);
    memset(a, 0, sizeof *a);
}

int fc_report_attention_any(const fc_report_attention *a)
{
    return a->calls + a->failed_calls > 0 || a->n_uncounted > 0;
}

const fc_report_attn_source *fc_report_attn_source_of(const fc_report_attention *a,
                                                      const char *name)
{
    for (size_t i = 0; i < a->n_by_source; i++)
        if (strcmp(a->by_source[i].name, name) == 0)
            return &a->by_source[i];
    return NULL;
}
