/* SPDX-License-Identifier: Apache-2.0 */
/* run_paths.c - where `flopcount run` and `flopcount env` find what they
 * put into a program's environment, relative to their own executable: the
 * shim (LD_PRELOAD) and the directory of the `flopcount` Python module
 * (PYTHONPATH). Installed, they are in the library directory CMake
 * installed into (FC_BIN_TO_LIB, relative to the bin directory:
 * ../lib/x86_64-linux-gnu for the Debian package, ../lib for another prefix
 * and for the wheel's flopcount/bin and flopcount/lib); in the build tree,
 * in lib/ beside bin/. The installed place is tried first. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools.h"

#ifndef FC_BIN_TO_LIB
#define FC_BIN_TO_LIB "../lib"
#endif

int fc_run_find_installed(const char *name, int want_dir, char *out, size_t size)
{
    char exe[PATH_MAX], path[PATH_MAX + 256];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return -1;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash == NULL)
        return -1;
    *slash = '\0';
    static const char *const libdirs[] = {FC_BIN_TO_LIB, "../lib"};
    for (size_t i = 0; i < sizeof libdirs / sizeof libdirs[0]; i++) {
        if ((size_t)snprintf(path, sizeof path, "%s/%s/%s", exe, libdirs[i], name) >= sizeof path)
            continue;
        char *real = realpath(path, NULL);
        struct stat st;
        int ok = real != NULL && stat(real, &st) == 0 && strlen(real) < size &&
                 (want_dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode));
        if (ok)
            snprintf(out, size, "%s", real);
        free(real);
        if (ok)
            return 0;
    }
    return -1;
}

int fc_run_find_shim(char *out, size_t size)
{
    const char *env = getenv("FLOPCOUNT_LIB");
    if (env != NULL && *env != '\0') {
        if (access(env, R_OK) != 0 || strlen(env) >= size)
            return -1;
        snprintf(out, size, "%s", env);
        return 0;
    }
    return fc_run_find_installed("libflopcount.so", 0, out, size);
}

int fc_run_python_path(void)
{
    char dir[PATH_MAX];
    if (fc_run_find_installed("flopcount/python", 1, dir, sizeof dir) != 0)
        return -1; /* not installed with the module: nothing to add */
    const char *old = getenv("PYTHONPATH");
    size_t size = strlen(dir) + (old ? strlen(old) : 0) + 2;
    char *value = malloc(size);
    if (value == NULL)
        return -1;
    if (old != NULL && *old != '\0')
        snprintf(value, size, "%s:%s", dir, old);
    else
        snprintf(value, size, "%s", dir);
    setenv("PYTHONPATH", value, 1);
    free(value);
    return 0;
}
