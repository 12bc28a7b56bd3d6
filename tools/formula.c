/* formula.c - 'flopcount formula' (being built). */
#include <stdio.h>

#include "tools.h"

int fc_cmd_formula(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "flopcount formula: not built yet\n");
    return 2;
}
