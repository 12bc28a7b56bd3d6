/* SPDX-License-Identifier: Apache-2.0 */
/* hfconfig.h - read a Hugging Face config.json into an fc_model (json-c).
 *
 * Reads the architecture only (sizes, heads, experts, activation, tied
 * embeddings, multi-latent attention, multi-token prediction, the layer
 * kinds of hybrid families); the sequence length and batch are training
 * choices and stay
 * with the caller. Fields the file does not name are left untouched, so
 * the caller decides what a flag overrides. */
#ifndef FC_HFCONFIG_H
#define FC_HFCONFIG_H

#include <stddef.h>

#include "formula.h"

/* Bits of fc_hfconfig_read's *found: which fc_model fields the file set. */
enum {
    FC_HF_LAYERS = 1u << 0,
    FC_HF_HIDDEN = 1u << 1,
    FC_HF_HEADS = 1u << 2,
    FC_HF_KV_HEADS = 1u << 3,
    FC_HF_FFN = 1u << 4,
    FC_HF_HEAD_DIM = 1u << 5,
    FC_HF_VOCAB = 1u << 6,
    FC_HF_SWIGLU = 1u << 7,
    FC_HF_EXPERTS = 1u << 8,
    FC_HF_TOPK = 1u << 9,
    FC_HF_MOE_FFN = 1u << 10,
    FC_HF_SHARED = 1u << 11,
    FC_HF_SHARED_FFN = 1u << 12,
    FC_HF_MOE_EVERY = 1u << 13,
    FC_HF_FIRST_DENSE = 1u << 14,
    FC_HF_UNTIED = 1u << 15,
    FC_HF_WINDOW = 1u << 16, /* window and window_layers */
    FC_HF_MLA = 1u << 17,    /* multi-latent attention ranks and widths */
    FC_HF_MTP = 1u << 18,    /* multi-token prediction depths (and block) */
    FC_HF_KINDS = 1u << 19,  /* per-layer mixer and/or MLP patterns */
    FC_HF_CHUNK = 1u << 20,  /* chunked attention */
    FC_HF_GDN = 1u << 21,    /* gated delta-net sizes */
    FC_HF_MAMBA = 1u << 22,  /* Mamba sizes */
    FC_HF_GATE = 1u << 23,   /* attention output gate */
    FC_HF_MIXERS = 1u << 24, /* the per-layer mixer pattern (FC_HF_KINDS too) */
    /* read from text_config: the language model of a multimodal config,
     * whose other towers (vision, audio) are not read */
    FC_HF_TEXT_PART = 1u << 25,
    /* the config has a vision or audio tower (vision_config, audio_config,
     * speech_config), nested or beside a flat language model (Qwen2.5-VL):
     * not read, not counted */
    FC_HF_TOWERS = 1u << 26,
};

/* Parses JSON text (len bytes). 0 on success; -1 with a one-line reason in
 * err (no prefix) for malformed JSON, a wrong-typed, negative or missing
 * field, or an architecture the formula does not model (a layer kind it
 * does not know, a family outside its kinds, or a field that changes the
 * FLOPs and that no reader takes: refused by name, never ignored).
 * found may be NULL. */
int fc_hfconfig_parse(const char *text, size_t len, fc_model *m, unsigned *found, char *err,
                      size_t errlen);
/* The same for a file; the reason names the path. */
int fc_hfconfig_read(const char *path, fc_model *m, unsigned *found, char *err, size_t errlen);
/* As those, and in notes (notes_len bytes, "" when none) one line per field
 * the file leaves out and that was read at the default of the model type's
 * configuration class, as transformers loads it: "chunk_size 128: the
 * configuration class's default, absent from the file (transformers
 * NemotronHConfig, ...)". */
int fc_hfconfig_parse_noted(const char *text, size_t len, fc_model *m, unsigned *found,
                            char *notes, size_t notes_len, char *err, size_t errlen);
int fc_hfconfig_read_noted(const char *path, fc_model *m, unsigned *found, char *notes,
                           size_t notes_len, char *err, size_t errlen);

#endif
