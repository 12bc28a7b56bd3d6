/* SPDX-License-Identifier: Apache-2.0 */
/* main.c - the flopcount command: dispatch to one file per verb. */
#include <stdio.h>
#include <string.h>

#include "../include/flopcount.h"
#include "tools.h"

static const struct {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *what;
} verbs[] = {
    {"run", fc_cmd_run, "run a command under the shim and print its report"},
    {"report", fc_cmd_report, "read a report; compare measured with formula FLOPs"},
    {"formula", fc_cmd_formula, "analytic model and hardware FLOPs of a transformer"},
    {"peak", fc_cmd_peak, "peak FLOP/s of a device and dtype"},
    {"merge", fc_cmd_merge, "merge per-rank reports into one for the job"},
    {"env", fc_cmd_env, "print the LD_PRELOAD line that counts a program without 'run'"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: flopcount <command> [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
        fprintf(f, "  %-8s %s\n", verbs[i].name, verbs[i].what);
    fprintf(f, "\n'flopcount <command> --help' describes each.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("flopcount %s\n", FLOPCOUNT_VERSION_STRING);
        return 0;
    }
    for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
        if (strcmp(argv[1], verbs[i].name) == 0)
            return verbs[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "flopcount: unknown command '%s' (try 'flopcount --help')\n", argv[1]);
    return 2;
}
