/* SPDX-License-Identifier: Apache-2.0 */
/* env.c - flopcount env: prints the one line that counts a program without
 * `flopcount run`, LD_PRELOAD=<the shim next to this command>, for a shell
 * (`export "$(flopcount env)"`), a job script or a container's environment.
 * An LD_PRELOAD already set is kept after the shim, as `flopcount run` keeps
 * it. The dynamic loader splits LD_PRELOAD at spaces and colons, so a shim
 * whose path holds one cannot be preloaded: that is an error, not a line
 * that would silently count nothing. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: flopcount env\n\n"
               "Prints LD_PRELOAD=PATH, PATH the libflopcount.so installed with this\n"
               "command (FLOPCOUNT_LIB overrides), followed by any LD_PRELOAD already set:\n"
               "  export \"$(flopcount env)\"; python train.py\n"
               "  env \"$(flopcount env)\" python train.py\n"
               "The program then writes its report to FLOPCOUNT_OUTPUT (default\n"
               "flopcount.json), read with 'flopcount report'. 'flopcount run' does the\n"
               "same and more (children's reports joined, the Python module on PYTHONPATH).\n"
               "Options:\n"
               "  --help             this text\n");
}

/* 1 when the existing LD_PRELOAD list already names the shim. */
static int listed(const char *list, const char *shim)
{
    size_t n = strlen(shim);
    for (const char *p = list; *p != '\0';) {
        size_t len = strcspn(p, ": \t");
        if (len == n && strncmp(p, shim, n) == 0)
            return 1;
        p += len;
        p += strspn(p, ": \t");
    }
    return 0;
}

int fc_cmd_env(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        usage(stdout);
        return 0;
    }
    if (argc != 1) {
        fprintf(stderr, "flopcount env: unexpected argument '%s' (try 'flopcount env --help')\n",
                argv[1]);
        return 2;
    }
    char shim[PATH_MAX];
    if (fc_run_find_shim(shim, sizeof shim) != 0) {
        fprintf(stderr, "flopcount env: cannot find libflopcount.so next to this program "
                        "(set FLOPCOUNT_LIB to its path)\n");
        return 1;
    }
    if (strpbrk(shim, ": \t\n") != NULL) {
        fprintf(stderr,
                "flopcount env: the library's path '%s' holds a space or a colon, which "
                "LD_PRELOAD cannot carry; install it under another path\n",
                shim);
        return 1;
    }
    const char *old = getenv("LD_PRELOAD");
    if (old == NULL || old[0] == '\0' || listed(old, shim))
        printf("LD_PRELOAD=%s\n", old != NULL && old[0] != '\0' ? old : shim);
    else
        printf("LD_PRELOAD=%s:%s\n", shim, old);
    return 0;
}
