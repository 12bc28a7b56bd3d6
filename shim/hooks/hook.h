/* SPDX-License-Identifier: Apache-2.0 */
/* hook.h - the one shape of every hook (uftrace-style): resolve the real
 * function, enter the recursion guard, make the real call with exactly the
 * caller's arguments, describe it, count the outermost call on the thread
 * (ring/hotpath.h), leave; the real status is returned and errno is what
 * the real function left.
 *
 * Each hook is written once, as an always-inline body that takes the
 * library copy it forwards to (core/copies.h), and FC_HOOK_DEFINE makes of
 * it the exported hook (copy 0, exactly as cheap as a hook without copies:
 * the copy is a constant) and one hook per other copy slot, which dlsym and
 * dlvsym hand out for lookups on those copies (hooks/dlsym.c). Every hook
 * defined so leaves an entry in the linker section fc_hook_entries, so the
 * list dlsym searches cannot miss one. */
#ifndef FC_HOOK_H
#define FC_HOOK_H

#include <errno.h>

#include "core/api.h"
#include "core/base.h"
#include "core/copies.h"
#include "core/gemm.h"
#include "core/guard.h"
#include "core/options.h"
#include "core/resolve.h"
#include "cupti/cupti_layer.h"
#include "dtype.h"
#include "ring/hotpath.h"
#include "ring/ring.h"

/* The hooks of one interposed name: [0] exported, [i] bound to copy i. */
typedef void (*fc_any_fn)(void);
typedef struct fc_hook_entry {
    const char *name;
    uint16_t sym; /* FC_SYM_OF(api, flags) */
    uint16_t lib; /* enum fc_lib */
    fc_any_fn fn[FC_COPIES];
} fc_hook_entry;
/* retain: nothing names an entry but __start_/__stop_fc_hook_entries, which
 * lld (zig's linker, the wheel) does not count as a reference under
 * --gc-sections; GNU ld keeps such sections anyway. */
#if defined(__has_attribute)
#if __has_attribute(retain)
#define FC_HOOK_RETAIN retain,
#endif
#endif
#ifndef FC_HOOK_RETAIN
#define FC_HOOK_RETAIN
#endif
#define FC_HOOK_ENTRY __attribute__((used, FC_HOOK_RETAIN section("fc_hook_entries"), aligned(8)))
_Static_assert(FC_COPIES == 4, "FC_HOOK_DEFINE makes hooks for copies 1, 2 and 3");

#define FC_UNPAREN(...) __VA_ARGS__

/* Defines from the body FC_HOOK_BODY(RET, sym, PARAMS) { ... }: the
 * exported sym PARAMS on copy 0 of LIB; sym##_any, the body out of line
 * for any copy; sym##_c1..c3, bound to copies 1..3; and sym's entry. SYM
 * is its FC_SYM_OF id; PARAMS and ARGS are parenthesised lists, "(int m,
 * int n)" and "(m, n)"; RETURN is return, or nothing for a void RET. */
#define FC_HOOK_DEFINE(RET, RETURN, sym, LIB, SYM, PARAMS, ARGS)                        \
    FC_EXPORT RET sym PARAMS                                                            \
    {                                                                                   \
        RETURN sym##_body(&fc_copies[LIB][0], FC_UNPAREN ARGS);                         \
    }                                                                                   \
    __attribute__((noinline)) static RET sym##_any(fc_copy *cp, FC_UNPAREN PARAMS)      \
    {                                                                                   \
        RETURN sym##_body(cp, FC_UNPAREN ARGS);                                         \
    }                                                                                   \
    static RET sym##_c1 PARAMS { RETURN sym##_any(&fc_copies[LIB][1], FC_UNPAREN ARGS); } \
    static RET sym##_c2 PARAMS { RETURN sym##_any(&fc_copies[LIB][2], FC_UNPAREN ARGS); } \
    static RET sym##_c3 PARAMS { RETURN sym##_any(&fc_copies[LIB][3], FC_UNPAREN ARGS); } \
    static const fc_hook_entry sym##_entry FC_HOOK_ENTRY = {                            \
        #sym, (SYM), (LIB),                                                             \
        {(fc_any_fn)sym, (fc_any_fn)sym##_c1, (fc_any_fn)sym##_c2, (fc_any_fn)sym##_c3}};

/* The head of a hook body: RET sym##_body(fc_copy *cp, PARAMS...). */
#define FC_HOOK_BODY(RET, sym, PARAMS)                                                  \
    __attribute__((always_inline)) static inline RET sym##_body(fc_copy *cp, FC_UNPAREN PARAMS)

/* In a hook body: fn_##sym, copy cp's function, or NULL. */
#define FC_COPY_REAL(cp, type, sym, SYM) type fn_##sym = (type)fc_copy_fn((cp), (SYM), #sym)

/* The same for the hooked function itself, running MISSING (which must
 * return) when there is none: one test once resolved, as fc_copy_fn. */
#define FC_COPY_REAL_OR(cp, type, sym, SYM, MISSING)                                    \
    type fn_##sym = (type)__atomic_load_n(&(cp)->real[SYM], __ATOMIC_ACQUIRE);          \
    if (FC_UNLIKELY((uintptr_t)fn_##sym <= (uintptr_t)FC_COPY_ABSENT)) {                \
        fn_##sym = (type)fc_copy_resolve((cp), (SYM), #sym);                            \
        if (fn_##sym == NULL) {                                                         \
            MISSING;                                                                    \
        }                                                                               \
    }

/* After fc_hook_begin: what a hook that is not the outermost call forwards
 * to (core/copies.h, fc_copy_nested). */
#define FC_COPY_NESTED(cp, outer, type, sym, SYM)                                       \
    if (FC_UNLIKELY(!(outer)))                                                          \
        fn_##sym = (type)fc_copy_nested((cp), (void *)fn_##sym, (SYM), #sym)

/* 1 for the outermost intercepted call on this thread. */
static inline int fc_hook_begin(void)
{
    return fc_enter();
}

/* Ends a hook: counts the outermost call (errno untouched), leaves. */
static inline void fc_hook_end(int outer, const fc_gemm *g, int ok)
{
    if (outer && FC_LIKELY(fc_is_enabled()))
        fc_ring_count(g, ok);
    fc_leave();
}

/* The GPU (cuBLAS, cuBLASLt) hooks: the same, plus what CUPTI needs around
 * the real call (cupti/cupti_layer.h) - one load and test while nothing of
 * it is on. begin: before forwarding; returns the outer flag, with bit 2
 * set when the cupti layer took part (so the end runs without another
 * load: a capture that begins after this point cannot hold this call). */
static inline int fc_hook_begin_gpu(void)
{
    int outer = fc_enter();
    if (FC_UNLIKELY(fc_cupti_hot_get()) && outer) {
        int saved = errno;
        fc_cupti_call_begin();
        errno = saved;
        return outer | 2;
    }
    return outer;
}

/* After forwarding, when begin involved the cupti layer: 1 when g was
 * issued on a capturing stream and recorded against the capture instead of
 * counted. */
static inline int fc_hook_diverted_gpu(int outer, fc_gemm *g, int ok)
{
    if (FC_LIKELY(!(outer & 2)))
        return 0;
    int saved = errno;
    int d = fc_cupti_call_end(g, ok);
    errno = saved;
    return d;
}

static inline void fc_hook_end_gpu(int outer, fc_gemm *g, int ok)
{
    if (fc_hook_diverted_gpu(outer, g, ok)) {
        fc_leave();
        return;
    }
    fc_hook_end(outer, g, ok);
}

#endif
