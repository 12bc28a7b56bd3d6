/* SPDX-License-Identifier: Apache-2.0 */
/* entry_table.c - every driver entry point the toolkit's libcuda exports,
 * from entry_points.inc (generated): a weak "not supported" stub for each,
 * which the real implementations in the other files override at link time,
 * and the (name, version, per-thread) -> symbol table cuGetProcAddress
 * searches. Built without cuda.h: the stubs have no prototypes to match.
 *
 * A stub logs its name once when FLOPCOUNT_NULLGPU_LOG is set and returns
 * CUDA_ERROR_NOT_SUPPORTED (801) whatever its arguments. */
#include <stddef.h>
#include <string.h>

#define NOT_SUPPORTED 801

void ng_log_unsupported(const char *name, int *once);

#define NG_SYMBOL(sym)                                                                             \
    static int once_##sym;                                                                         \
    static int ng_stub_##sym(void)                                                                 \
    {                                                                                              \
        ng_log_unsupported(#sym, &once_##sym);                                                     \
        return NOT_SUPPORTED;                                                                      \
    }                                                                                              \
    __attribute__((weak, alias("ng_stub_" #sym), visibility("default"))) int sym(void);
#define NG_PROC(name, version, per_thread, sym)
#include "entry_points.inc"
#undef NG_SYMBOL
#undef NG_PROC

typedef struct ng_proc {
    const char *name;
    int version;
    int per_thread;
    void *fn;
    void *stub;
} ng_proc;

#define NG_SYMBOL(sym)
#define NG_PROC(name, version, per_thread, sym) {#name, version, per_thread, (void *)sym, (void *)ng_stub_##sym},
static const ng_proc procs[] = {
#include "entry_points.inc"
};
#undef NG_SYMBOL
#undef NG_PROC

/* The entry for name at the highest version <= version, per-thread form when
 * asked and implemented (else the plain one: this null GPU's per-thread
 * default stream behaves as the legacy one). Returns the function, NULL when
 * the name is unknown; *too_new set when only newer versions exist. */
void *ng_proc_find(const char *name, int version, int per_thread, int *too_new);
void *ng_proc_find(const char *name, int version, int per_thread, int *too_new)
{
    const ng_proc *best = NULL, *best_pt = NULL;
    int known = 0;
    *too_new = 0;
    for (size_t i = 0; i < sizeof procs / sizeof procs[0]; i++) {
        const ng_proc *p = &procs[i];
        if (strcmp(p->name, name) != 0)
            continue;
        known = 1;
        if (p->version > version)
            continue;
        const ng_proc **slot = p->per_thread ? &best_pt : &best;
        if (*slot == NULL || p->version > (*slot)->version)
            *slot = p;
    }
    if (per_thread && best_pt != NULL && best_pt->fn != best_pt->stub)
        return best_pt->fn;
    if (best != NULL)
        return best->fn;
    if (best_pt != NULL)
        return best_pt->fn;
    *too_new = known;
    return NULL;
}

/* 1 when sym resolves to its stub (not implemented) */
int ng_proc_is_stub(void *fn);
int ng_proc_is_stub(void *fn)
{
    for (size_t i = 0; i < sizeof procs / sizeof procs[0]; i++)
        if (procs[i].fn == fn)
            return fn == procs[i].stub;
    return 0;
}
