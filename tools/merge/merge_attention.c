/* SPDX-License-Identifier: Apache-2.0 */
/* merge_attention.c - counted fused attention over the ranks of a merge
 * (and the processes of a job report, tools/job/): totals.attention_*
 * summed, the "attention" section summed shape by shape (a shape is every
 * field of it: source, direction, dtype, sizes, band, flags, tiles), its
 * by_source by name, and the "uncounted" list by (name, reason). Exact
 * integers throughout; written by tools/render/ (json/json_attention.c in
 * the shim's layout, text/text_attention.c). Hash indexes keep 1,024
 * ranks of many shapes linear in the input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge.h"

typedef struct slots {
    size_t *at; /* 1 + the entry's index, 0: empty */
    size_t n;
} slots;

struct fc_merge_attn_index {
    slots shapes, uncounted;
    size_t cap_shapes, cap_uncounted;
};

static uint64_t fnv(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

/* Every field that tells two shapes apart, as one string. */
static void shape_key(const fc_report_attn_shape *s, char *buf, size_t size)
{
    snprintf(buf, size,
             "%s|%d|%d|%s|%s|%s|%lld|%lld|%lld|%lld|%lld|%lld|%lld|%lld|%lld|%d%d%d%d|%lld|%lld|"
             "%lld|%lld",
             s->source, s->backward, s->overflow, s->dtype, s->mask, s->align, (long long)s->batch,
             (long long)s->heads, (long long)s->kv_heads, (long long)s->seq_q, (long long)s->seq_k,
             (long long)s->head_dim, (long long)s->head_dim_v, (long long)s->window_left,
             (long long)s->window_right, s->bound, s->dropout, s->softcap, s->bias,
             (long long)s->block_m, (long long)s->block_n, (long long)s->head_dim_padded,
             (long long)s->head_dim_v_padded);
}

static void unc_key(const fc_report_uncounted *u, char *buf, size_t size)
{
    snprintf(buf, size, "%s\x1f%s", u->name, u->reason);
}

typedef void (*key_fn)(const void *entry, char *buf, size_t size);

static void key_of_shape(const void *e, char *b, size_t n) { shape_key(e, b, n); }
static void key_of_unc(const void *e, char *b, size_t n) { unc_key(e, b, n); }

#define KEY 512

/* The slot of key: where it is, or the empty one where it belongs. */
static size_t probe(const slots *t, const char *key, const char *base, size_t esize, key_fn kf)
{
    size_t mask = t->n - 1, i = (size_t)fnv(key) & mask;
    char other[KEY];
    while (t->at[i] != 0) {
        kf(base + (t->at[i] - 1) * esize, other, sizeof other);
        if (strcmp(other, key) == 0)
            break;
        i = (i + 1) & mask;
    }
    return i;
}

/* At most half full: rebuilt twice as large from the entries. */
static int grow(slots *t, size_t used, const char *base, size_t esize, key_fn kf)
{
    if (t->n != 0 && (used + 1) * 2 <= t->n)
        return 0;
    slots bigger = {calloc(t->n ? t->n * 2 : 64, sizeof(size_t)), t->n ? t->n * 2 : 64};
    if (bigger.at == NULL)
        return -1;
    char key[KEY];
    for (size_t i = 0; i < used; i++) {
        kf(base + i * esize, key, sizeof key);
        bigger.at[probe(&bigger, key, base, esize, kf)] = i + 1;
    }
    free(t->at);
    *t = bigger;
    return 0;
}

/* The entry of add's key in *arr (appended when new); NULL when out of memory. */
static void *find_or_add(slots *t, void **arr, size_t *n, size_t *cap, const void *add,
                         size_t esize, key_fn kf)
{
    if (grow(t, *n, *arr, esize, kf) != 0)
        return NULL;
    char key[KEY];
    kf(add, key, sizeof key);
    size_t slot = probe(t, key, *arr, esize, kf);
    if (t->at[slot] != 0)
        return (char *)*arr + (t->at[slot] - 1) * esize;
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 16;
        void *bigger = realloc(*arr, c * esize);
        if (bigger == NULL)
            return NULL;
        *arr = bigger;
        *cap = c;
    }
    char *e = (char *)*arr + *n * esize;
    memcpy(e, add, esize);
    t->at[slot] = ++*n;
    return e;
}

static int add_shape(fc_merge *m, const fc_report_attn_shape *s)
{
    struct fc_merge_attn_index *x = m->attn_index;
    size_t before = m->attn.n_shapes;
    fc_report_attn_shape *t = find_or_add(&x->shapes, (void **)&m->attn.shapes, &m->attn.n_shapes,
                                          &x->cap_shapes, s, sizeof *s, key_of_shape);
    if (t == NULL)
        return -1;
    if (m->attn.n_shapes == before) { /* seen on an earlier rank: add the counts */
        t->calls += s->calls;
        t->failed_calls += s->failed_calls;
        t->flops = fc_u128_sat_add(t->flops, s->flops);
        t->model_flops = fc_u128_sat_add(t->model_flops, s->model_flops);
        t->tile_flops = fc_u128_sat_add(t->tile_flops, s->tile_flops);
        t->tiles_known &= s->tiles_known;
    }
    return 0;
}

static int add_uncounted(fc_merge *m, const fc_report_uncounted *u)
{
    struct fc_merge_attn_index *x = m->attn_index;
    size_t before = m->attn.n_uncounted;
    fc_report_uncounted *t =
        find_or_add(&x->uncounted, (void **)&m->attn.uncounted, &m->attn.n_uncounted,
                    &x->cap_uncounted, u, sizeof *u, key_of_unc);
    if (t == NULL)
        return -1;
    if (m->attn.n_uncounted == before) {
        t->calls += u->calls;
        t->failed_calls += u->failed_calls;
        if (t->detail[0] == '\0') /* the first detail that says something */
            memcpy(t->detail, u->detail, sizeof t->detail);
        if (t->kclass[0] == '\0')
            memcpy(t->kclass, u->kclass, sizeof t->kclass);
    }
    return 0;
}

static int add_source(fc_report_attention *sum, const fc_report_attn_source *s)
{
    size_t i = 0;
    while (i < sum->n_by_source && strcmp(sum->by_source[i].name, s->name) != 0)
        i++;
    if (i == sum->n_by_source) {
        if (i == FC_REPORT_ATTN_SOURCES)
            return 0; /* the reader takes no more than this per report either */
        sum->by_source[sum->n_by_source++] = (fc_report_attn_source){.calls = 0};
        memcpy(sum->by_source[i].name, s->name, sizeof s->name);
    }
    sum->by_source[i].calls += s->calls;
    sum->by_source[i].flops = fc_u128_sat_add(sum->by_source[i].flops, s->flops);
    return 0;
}

int fc_merge_sum_attention(fc_merge *m, const fc_report *r)
{
    const fc_report_attention *a = &r->attn;
    fc_report_attention *s = &m->attn;
    if (!a->has && !a->has_uncounted)
        return 0;
    if (m->attn_index == NULL && (m->attn_index = calloc(1, sizeof *m->attn_index)) == NULL)
        return -1;
    s->has |= a->has;
    s->has_uncounted |= a->has_uncounted;
    s->calls += a->calls;
    s->failed_calls += a->failed_calls;
    s->tile_unknown_calls += a->tile_unknown_calls;
    s->overflow_calls += a->overflow_calls;
    s->flops = fc_u128_sat_add(s->flops, a->flops);
    s->model_flops = fc_u128_sat_add(s->model_flops, a->model_flops);
    s->tile_flops = fc_u128_sat_add(s->tile_flops, a->tile_flops);
    for (size_t i = 0; i < a->n_by_source; i++)
        add_source(s, &a->by_source[i]);
    for (size_t i = 0; i < a->n_shapes; i++)
        if (add_shape(m, &a->shapes[i]) != 0)
            return -1;
    for (size_t i = 0; i < a->n_uncounted; i++)
        if (add_uncounted(m, &a->uncounted[i]) != 0)
            return -1;
    s->distinct_shapes = 0;
    for (size_t i = 0; i < s->n_shapes; i++)
        s->distinct_shapes += !s->shapes[i].overflow;
    return 0;
}

void fc_merge_attention_done(fc_merge *m)
{
    if (m->attn_index == NULL)
        return;
    free(m->attn_index->shapes.at);
    free(m->attn_index->uncounted.at);
    free(m->attn_index);
    m->attn_index = NULL;
}

void fc_merge_attention_free(fc_merge *m)
{
    fc_merge_attention_done(m);
    fc_report_attention_free(&m->attn);
}
