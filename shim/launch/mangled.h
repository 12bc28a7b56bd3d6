/* SPDX-License-Identifier: Apache-2.0 */
/* mangled.h - reading template arguments out of an Itanium-mangled name
 * (mangled.c), the part of the mangling grammar nvcc's kernel names use:
 * nested names, source names, template arguments, literals, builtin and
 * qualified types, substitutions. No allocation, no demangler: the shim
 * links no C++ runtime. */
#ifndef FC_LAUNCH_MANGLED_H
#define FC_LAUNCH_MANGLED_H

#include <stdint.h>

enum { FC_TARG_TYPE = 1, FC_TARG_INT, FC_TARG_BOOL, FC_TARG_OTHER };

typedef struct fc_targ {
    uint8_t kind;      /* FC_TARG_* */
    int64_t value;     /* INT / BOOL literals */
    const char *begin; /* the argument's text in the name */
    const char *end;
} fc_targ;

/* The template arguments that follow the first occurrence of source (a
 * length-prefixed source name such as "16flash_fwd_kernel", immediately
 * followed by 'I') in name, searched in [name, limit) (limit NULL: to the
 * end): up to max of them into out. Their number, or -1 when source is not
 * there, is not followed by 'I', or the arguments do not parse. */
int fc_mangled_targs(const char *name, const char *limit, const char *source, fc_targ *out,
                     int max);

/* 1 when needle occurs in [begin, end). */
int fc_mangled_has(const char *begin, const char *end, const char *needle);

#endif
