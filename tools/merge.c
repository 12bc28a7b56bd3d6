/* merge.c - 'flopcount merge' (being built). */
#include <stdio.h>

#include "tools.h"

int fc_cmd_merge(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "flopcount merge: not built yet\n");
    return 2;
}
