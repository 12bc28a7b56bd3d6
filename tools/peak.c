/* peak.c - 'flopcount peak' (being built). */
#include <stdio.h>

#include "tools.h"

int fc_cmd_peak(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "flopcount peak: not built yet\n");
    return 2;
}
