/* SPDX-License-Identifier: Apache-2.0 */
/* dlsym.c - dlsym and dlvsym, interposed so that GEMMs reached through a
 * library handle are counted too (issue 15): XLA's stubs, cuDNN and plugins
 * dlopen libcublas / libcublasLt RTLD_LOCAL and take every entry point with
 * dlsym(handle, name), which searches that library only and never sees the
 * preloaded hooks. cudnn-frontend's dynamic-loading mode (TransformerEngine)
 * and libcudnn.so.9 itself (which forwards the backend API to
 * libcudnn_graph.so.9) reach cuDNN's backend API the same way.
 *
 * A lookup of a name the shim hooks, on a library handle, is answered with
 * a hook that forwards to exactly the function the handle gave: the
 * exported hook when that is the default copy's function (what a linked
 * call reaches: the common case, and as cheap), else the hook bound to the
 * copy slot of the object that defines it (core/copies.h). The answer is
 * the real function, unchanged, when the lookup failed, found one of our
 * own hooks, found a definition outside the library family (a stub in a
 * framework's own library), or when every copy slot of the family is taken
 * (said once on stderr).
 *
 * Everything else passes straight through, as a jump to the real function,
 * never a call, so that it sees the caller's return address: RTLD_NEXT and
 * RTLD_DEFAULT answer relative to the caller's object, and a caller's
 * dependency bookkeeping is the caller's. That covers RTLD_DEFAULT and
 * RTLD_NEXT for hooked names too: RTLD_DEFAULT finds the exported hook
 * anyway (we are first in the global scope), and a caller that RTLD_NEXT
 * takes past us is an interposer behind us, whose calls came through our
 * hooks already. A lookup of a name the shim does not hook costs one
 * comparison of its first character in most cases, three at most. This
 * file is compiled with sibling calls on at every optimisation level
 * (shim/CMakeLists.txt); tests/dlsym's pass-through test fails otherwise.
 *
 * The CUDA runtime's kernel-launch entry points (hooks/launch.c) are
 * answered the same way when the handle gives the very function the launch
 * hook forwards to: a launch taken with dlsym on the runtime is seen.
 *
 * The shim's own lookups go to the real functions (core/dlsym_real.h). */
#include <dlfcn.h>
#include <errno.h>
#include <string.h>

#include "core/diag.h"
#include "core/dlsym_real.h"
#include "hook.h"
#include "launch_hooks.h"

/* The entries FC_HOOK_DEFINE leaves, one per hooked name (hook.h); the
 * linker defines these two for the section. */
extern const fc_hook_entry __start_fc_hook_entries[] __attribute__((visibility("hidden")));
extern const fc_hook_entry __stop_fc_hook_entries[] __attribute__((visibility("hidden")));

/* 1 when name can be one the shim hooks: cublas*, cblas_?gemm, ?gemm_, the
 * CUDA runtime's launch entry points (cuda*, __cuda*) and cuDNN's backend
 * API (cudnn*). */
FC_NO_SANITIZE static inline int maybe_hooked(const char *name)
{
    switch (name[0]) {
    case 'c':
        return name[1] == 'u' ? name[2] == 'b' || name[2] == 'd' : name[1] == 'b' || name[1] == 'g';
    case '_':
        return name[1] == '_' && name[2] == 'c';
    case 's':
    case 'd':
    case 'z':
        return name[1] == 'g';
    default:
        return 0;
    }
}

static const fc_hook_entry *entry_of(const char *name)
{
    for (const fc_hook_entry *e = __start_fc_hook_entries; e < __stop_fc_hook_entries; e++)
        if (strcmp(e->name, name) == 0)
            return e;
    return NULL;
}

/* The hook for found, a real function of e's name that a lookup on a
 * library handle gave; found itself when it is to stay (see above). */
static void *hook_for(const fc_hook_entry *e, void *found)
{
    for (int i = 0; i < FC_COPIES; i++)
        if (found == (void *)e->fn[i])
            return found;
    Dl_info info;
    if (!dladdr(found, &info) || !fc_resolve_in_family(e->lib, info.dli_fname))
        return found;
    if (fc_copy_fn(&fc_copies[e->lib][0], e->sym, e->name) == found)
        return (void *)e->fn[0];
    fc_resolve_pin(info.dli_fname); /* the copy slot outlives any dlclose */
    fc_copy *cp = fc_copy_claim(e->lib, info.dli_fbase);
    if (cp == NULL) {
        static int warned;
        fc_warn_once(&warned,
                     "more than %d loaded copies of one library (%s): GEMMs looked up with "
                     "dlsym on it are not counted",
                     FC_COPIES, info.dli_fname);
        return found;
    }
    if (!fc_copy_bind(cp, e->sym, found)) {
        static int warned;
        fc_warn_once(&warned,
                     "%s has two definitions of %s (symbol versions): calls through the "
                     "second one are not counted",
                     info.dli_fname, e->name);
        return found;
    }
    return (void *)e->fn[fc_copy_index(cp)];
}

/* The answer to a lookup of a possibly hooked name on a library handle;
 * found is what the real function gave. */
static void *answer(const char *name, void *found)
{
    if (found == NULL)
        return found;
    const fc_hook_entry *e = entry_of(name);
    if (e == NULL && name[0] != '_' && (name[0] != 'c' || name[2] != 'd'))
        return found;
    int saved = errno;
    void *out = e != NULL ? hook_for(e, found) : fc_launch_dlsym_answer(name, found);
    /* The lookup succeeded: leave no error of our own lookups behind. */
    (void)dlerror();
    errno = saved;
    return out;
}

/* The lookups themselves, given the real functions: always inline, so that
 * each pass-through below is a jump from the exported function. */
__attribute__((always_inline)) FC_NO_SANITIZE static inline void *
lookup(fc_dlsym_fn real, void *handle, const char *name)
{
    if (FC_LIKELY(!maybe_hooked(name)) || handle == RTLD_DEFAULT || handle == RTLD_NEXT)
        return real(handle, name); /* a jump: the caller stays the caller */
    return answer(name, real(handle, name));
}

__attribute__((always_inline)) FC_NO_SANITIZE static inline void *
vlookup(fc_dlvsym_fn real, void *handle, const char *name, const char *version)
{
    if (FC_LIKELY(!maybe_hooked(name)) || handle == RTLD_DEFAULT || handle == RTLD_NEXT)
        return real(handle, name, version);
    return answer(name, real(handle, name, version));
}

/* The first call of the process, out of line so that the others save no
 * registers: finds the real functions first. */
__attribute__((noinline)) FC_NO_SANITIZE static void *dlsym_first(void *handle, const char *name)
{
    fc_dlsym_fn real = fc_dlsym_real();
    return real != NULL ? lookup(real, handle, name) : NULL;
}

__attribute__((noinline)) FC_NO_SANITIZE static void *dlvsym_first(void *handle, const char *name,
                                                                   const char *version)
{
    fc_dlvsym_fn real = fc_dlvsym_real();
    return real != NULL ? vlookup(real, handle, name, version) : NULL;
}

FC_EXPORT FC_NO_SANITIZE void *dlsym(void *handle, const char *name)
{
    fc_dlsym_fn real = __atomic_load_n(&fc_dlsym_real_p, __ATOMIC_ACQUIRE);
    if (FC_UNLIKELY(real == NULL))
        return dlsym_first(handle, name);
    return lookup(real, handle, name);
}

FC_EXPORT FC_NO_SANITIZE void *dlvsym(void *handle, const char *name, const char *version)
{
    fc_dlvsym_fn real = __atomic_load_n(&fc_dlvsym_real_p, __ATOMIC_ACQUIRE);
    if (FC_UNLIKELY(real == NULL))
        return dlvsym_first(handle, name, version);
    return vlookup(real, handle, name, version);
}
