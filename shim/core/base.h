/* SPDX-License-Identifier: Apache-2.0 */
/* base.h - compiler attributes every file of libflopcount.so uses: what is
 * exported, thread-locals that need no lazy TLS allocation, branch hints.
 * Internal; never installed. */
#ifndef FC_BASE_H
#define FC_BASE_H

#define FC_EXPORT __attribute__((visibility("default")))
/* initial-exec: a TLS access is one load, never a call into the loader
 * (which could take the loader lock inside a hook) */
#define FC_TLS __thread __attribute__((tls_model("initial-exec")))
#define FC_LIKELY(x) __builtin_expect(!!(x), 1)
#define FC_UNLIKELY(x) __builtin_expect(!!(x), 0)
/* Not instrumented by ThreadSanitizer: for code that runs before any
 * constructor, inside a sanitizer runtime's own start-up (signals.c). */
#define FC_NO_TSAN __attribute__((no_sanitize("thread")))
/* Not instrumented by any sanitizer: for code that runs inside a sanitizer
 * runtime's own start-up, before its shadow memory and interceptors are
 * ready (the real dlsym's lookup, core/dlsym_real.c). */
#define FC_NO_SANITIZE __attribute__((no_sanitize("address", "thread", "undefined")))

#endif
