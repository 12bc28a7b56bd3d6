/* SPDX-License-Identifier: Apache-2.0 */
/* real_symbol.h - a library's own definition of a name, read from its ELF
 * dynamic symbol table without calling dlsym or dlvsym.
 *
 * Under the shim, dlsym on a cuBLAS handle answers with a counting hook, so
 * tests that need the real function (to compare statuses, or to prove that a
 * hook forwards to one copy and not another) look it up here instead. It is
 * written independently of the shim's own lookup (shim/ code is never
 * compiled into tests), so a shared mistake cannot hide. */
#ifndef FC_TEST_REAL_SYMBOL_H
#define FC_TEST_REAL_SYMBOL_H

/* The address name has in the object that handle (from dlopen) stands for,
 * or NULL when that object does not define it. version NULL picks the
 * default version (name@@V, or an unversioned definition); otherwise the
 * definition of name@version. Indirect functions (STT_GNU_IFUNC, libm's
 * cos) are resolved as the dynamic linker resolves them. Only the object
 * itself is searched, not its dependencies. */
void *real_symbol(void *handle, const char *name, const char *version);

#endif
