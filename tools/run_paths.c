/* SPDX-License-Identifier: Apache-2.0 */
/* run_pythonpath.c - what `flopcount run` adds to the child's environment
 * for Python: the directory of the `flopcount` module, BIN/../lib/
 * flopcount/python next to this executable (the build tree and an
 * installed prefix have the same layout), in front of PYTHONPATH. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools.h"

int fc_run_python_path(void)
{
    char exe[PATH_MAX], dir[PATH_MAX + 64];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return -1;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash == NULL)
        return -1;
    *slash = '\0';
    snprintf(dir, sizeof dir, "%s/../lib/flopcount/python", exe);
    char *real = realpath(dir, NULL);
    struct stat st;
    if (real == NULL || stat(real, &st) != 0 || !S_ISDIR(st.st_mode)) {
        free(real);
        return -1; /* not installed with the module: nothing to add */
    }
    const char *old = getenv("PYTHONPATH");
    size_t size = strlen(real) + (old ? strlen(old) : 0) + 2;
    char *value = malloc(size);
    if (value == NULL) {
        free(real);
        return -1;
    }
    if (old != NULL && *old != '\0')
        snprintf(value, size, "%s:%s", real, old);
    else
        snprintf(value, size, "%s", real);
    setenv("PYTHONPATH", value, 1);
    free(value);
    free(real);
    return 0;
}
