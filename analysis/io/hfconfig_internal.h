/* SPDX-License-Identifier: Apache-2.0 */
/* hfconfig_internal.h - what the config reader's files share: the reading
 * state (the language model's object, the first error, the keys used),
 * typed getters that name the field they refuse, and the readers of the
 * layer kinds (hfconfig_kinds.c) that hfconfig.c calls. */
#ifndef FC_HFCONFIG_INTERNAL_H
#define FC_HFCONFIG_INTERNAL_H

#include <json-c/json.h>

#include "hfconfig.h"

/* Larger sizes are typos, and keep every product inside 128 bits' reach. */
#define HF_MAX 1000000000000000LL
#define HF_MAX_USED 256

typedef struct fc_hf_rd {
    json_object *o; /* the language model's part of the config */
    char *err;
    size_t n;
    int bad;
    /* Keys a reader took into the model (or knows to cost nothing): a
     * watched key (fc_hf_watch) that none took is refused by name. */
    const char *used[HF_MAX_USED];
    size_t n_used;
    json_object *root; /* the whole file (auto_map lives there) */
    /* fields the file leaves out, read at its configuration class's
     * default: one line each (fc_hf_class_default); NULL: not asked */
    char *notes;
    size_t nn;
} fc_hf_rd;

/* The first error wins; later ones are dropped. fmt has two %s. */
void fc_hf_fail(fc_hf_rd *r, const char *fmt, const char *a, const char *b);
/* Marks key as taken into the model. */
void fc_hf_use(fc_hf_rd *r, const char *key);
/* The member key when present and not null (then marked used), else NULL. */
json_object *fc_hf_get(fc_hf_rd *r, const char *key);
/* The first of keys present with a non-null value, or NULL. */
json_object *fc_hf_lookup(fc_hf_rd *r, const char *const *keys, const char **which);
/* 1 and *out when present, 0 when absent or null, -1 (error set) when not
 * an integer in [min, HF_MAX]. */
int fc_hf_int(fc_hf_rd *r, const char *const *keys, int64_t min, int64_t *out);
/* One key: as fc_hf_int. */
int fc_hf_int1(fc_hf_rd *r, const char *key, int64_t min, int64_t *out);
/* The same, but absent is an error too: "<why> needs <key>". */
int fc_hf_need(fc_hf_rd *r, const char *key, int64_t min, const char *why, int64_t *out);
/* A string value (NULL when absent or null; error when not a string). */
const char *fc_hf_str(fc_hf_rd *r, const char *const *keys);
/* 1/0 for a boolean, -1 when absent or null (error when not a boolean). */
int fc_hf_bool(fc_hf_rd *r, const char *key);
/* A field the file leaves out, read at value, the default of the model
 * type's configuration class cls (class and version): noted in r->notes
 * as "key value: the configuration class's default, absent from the file
 * (cls)". */
void fc_hf_class_default(fc_hf_rd *r, const char *key, long long value, const char *cls);
/* model_type (of the language part), or "". */
const char *fc_hf_model_type(fc_hf_rd *r);

/* hfconfig_kinds.c: multi-latent attention, multi-token prediction and
 * the per-layer kinds (layer_types, full_attention_interval,
 * hybrid_override_pattern / layers_block_type, Jamba's periods, Llama 4's
 * chunks and MoE layers, Qwen's mlp_only_layers / decoder_sparse_step),
 * then the check that no watched field was left unread. Each sets the
 * fields of m it reads and the bits of *found. */
void fc_hf_read_mla(fc_hf_rd *r, fc_model *m, unsigned *found);
void fc_hf_read_mtp(fc_hf_rd *r, fc_model *m, unsigned *found);
void fc_hf_read_kinds(fc_hf_rd *r, fc_model *m, unsigned *found);
void fc_hf_watch(fc_hf_rd *r);

#endif
