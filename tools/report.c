/* report.c - 'flopcount report' (being built). */
#include <stdio.h>

#include "tools.h"

int fc_cmd_report(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "flopcount report: not built yet\n");
    return 2;
}
