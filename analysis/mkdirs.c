/* SPDX-License-Identifier: Apache-2.0 */
/* mkdirs.c - mkdir -p (mkdirs.h). */
#include "mkdirs.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

static int is_dir(const char *p)
{
    struct stat st;
    if (stat(p, &st) != 0)
        return 0;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return 0;
    }
    return 1;
}

int fc_mkdirs(const char *path, char *where, size_t size)
{
    size_t n = strlen(path);
    if (n == 0 || n >= size) {
        errno = n == 0 ? ENOENT : ENAMETOOLONG;
        if (size > 0)
            where[0] = '\0';
        return -1;
    }
    memcpy(where, path, n + 1);
    /* each prefix ending before a '/', then the whole path */
    for (size_t i = 1; i <= n; i++) {
        if (where[i] != '/' && where[i] != '\0')
            continue;
        if (where[i] == '/' && where[i - 1] == '/')
            continue;
        char c = where[i];
        where[i] = '\0';
        if (mkdir(where, 0777) != 0) {
            int e = errno;
            if (e != EEXIST || !is_dir(where)) {
                errno = e == EEXIST ? ENOTDIR : e;
                return -1; /* where holds the part that failed */
            }
        }
        where[i] = c;
    }
    return is_dir(where) ? 0 : -1;
}
