/* SPDX-License-Identifier: Apache-2.0 */
/* dlsym_real.h - the dlsym and dlvsym this process would call without the
 * shim, and the symbol lookups the shim makes itself.
 *
 * libflopcount.so defines dlsym and dlvsym (hooks/dlsym.c), so the shim's
 * own calls to them would come back to the shim, and asking dlsym for the
 * real dlsym is asking ourselves. The real functions are found without any
 * call: in the ELF dynamic symbol table of the first object after ours in
 * the dynamic loader's list that defines them (libc.so.6 from glibc 2.34
 * on, libdl.so.2 before, or another dlsym interposer preloaded after us),
 * walked from _r_debug. Nothing on that path calls the loader or a function
 * a sanitizer runtime intercepts, so it works inside a sanitizer's start-up
 * (its interceptors are set up with dlsym, which is ours) and before any
 * constructor. */
#ifndef FC_DLSYM_REAL_H
#define FC_DLSYM_REAL_H

#include <stddef.h>

#include "base.h"

typedef void *(*fc_dlsym_fn)(void *, const char *);
typedef void *(*fc_dlvsym_fn)(void *, const char *, const char *);

extern fc_dlsym_fn fc_dlsym_real_p;   /* atomic; NULL until found */
extern fc_dlvsym_fn fc_dlvsym_real_p; /* atomic; NULL until found */

/* Looks both up (idempotent; threads racing store the same values). */
void fc_dlsym_real_find(void);

/* The real dlsym / dlvsym, or NULL if the process has none (never seen). */
FC_NO_SANITIZE static inline fc_dlsym_fn fc_dlsym_real(void)
{
    fc_dlsym_fn fn = __atomic_load_n(&fc_dlsym_real_p, __ATOMIC_ACQUIRE);
    if (FC_UNLIKELY(fn == NULL)) {
        fc_dlsym_real_find();
        fn = __atomic_load_n(&fc_dlsym_real_p, __ATOMIC_ACQUIRE);
    }
    return fn;
}

FC_NO_SANITIZE static inline fc_dlvsym_fn fc_dlvsym_real(void)
{
    fc_dlvsym_fn fn = __atomic_load_n(&fc_dlvsym_real_p, __ATOMIC_ACQUIRE);
    if (FC_UNLIKELY(fn == NULL)) {
        fc_dlsym_real_find();
        fn = __atomic_load_n(&fc_dlvsym_real_p, __ATOMIC_ACQUIRE);
    }
    return fn;
}

/* dlsym and dlvsym for the shim's own lookups (RTLD_NEXT then means "after
 * libflopcount.so"). NULL when the real function is missing. */
void *fc_dlsym(void *handle, const char *name);
void *fc_dlvsym(void *handle, const char *name, const char *version);

#endif
