/* SPDX-License-Identifier: Apache-2.0 */
/* job.h - one report for a job made of several processes.
 *
 * Every process of a job that loads the shim and runs GEMMs writes its own
 * report (a "part"): into the per-run directory 'flopcount run' creates, or,
 * with LD_PRELOAD and one FLOPCOUNT_OUTPUT, next to that file (FILE.parts/).
 * The job report is one of those parts, verbatim, when one process ran
 * GEMMs; 'flopcount merge' of the ranks when several ranks did; else the
 * part of the process that trained, with the totals, by_api, by_dtype,
 * shapes, attention and uncounted summed over every process. Either way it
 * gains a "processes" list and a "job" section (docs/report-schema.md).
 * Internal to the flopcount command (run.c, report/, merge/). */
#ifndef FC_JOB_H
#define FC_JOB_H

#include <stddef.h>
#include <stdint.h>

#include "report_read.h"

enum fc_job_role {
    FC_JOB_NONE = 0, /* ran no GEMM: listed only */
    FC_JOB_BASE,     /* its report is the job report's body */
    FC_JOB_RANK,     /* one rank of the merged body */
    FC_JOB_EXTRA,    /* ran GEMMs: in the sums, not in the iterations */
};

typedef struct fc_job_member {
    char *path;       /* the part file */
    char *text;       /* its JSON, as written */
    size_t len;
    fc_report rep;
    int64_t mtime_ns; /* last written */
    int ran_gemm;     /* any call counted (successful, failed, invalid, unresolved) */
    int role;         /* enum fc_job_role, set by fc_job_build */
} fc_job_member;

/* What 'flopcount run' knows of the command it started. */
typedef struct fc_job_child {
    long pid;
    char command[512];
    int wait_status;      /* from waitpid */
    int exit_code;        /* what 'flopcount run' exits with */
    int forwarded_signal; /* last signal passed on to it, 0 none */
    double wall_seconds;
    char hostname[256];
} fc_job_child;

typedef struct fc_job {
    fc_job_member *members;
    size_t n, cap;
    size_t stale_ignored;   /* parts of another run left out */
    size_t unreadable;      /* parts that could not be read (said on stderr) */
    char parts[512];        /* where the parts were read from ("" none) */
    const fc_job_child *child; /* NULL when assembled from files after the run */
    const char *who;        /* "flopcount run", ...: prefix of stderr lines */
} fc_job;

/* Adds one report file. -1 on out of memory; an unreadable file is one
 * "WHO: PATH: reason" line on stderr, counted, and 0. */
int fc_job_add_file(fc_job *j, const char *path);
/* Adds every part in dir (*.json, not temporary files), oldest first. With
 * anchor (a report of the run, LD_PRELOAD use), parts of another run are
 * counted in stale_ignored and left out. -1 when dir cannot be read. */
int fc_job_add_dir(fc_job *j, const char *dir, const fc_job_member *anchor);
/* The parts of path's run in path.parts/ (LD_PRELOAD use with one output
 * file): adds path itself and those parts. Returns the number of parts
 * added besides path (0: none, path alone), or -1 on error. */
int fc_job_add_with_parts(fc_job *j, const char *path);
/* 1 when part b belongs to the run of a: the same run id, or two runs that
 * overlapped in time (a launcher that was not preloaded started both). */
int fc_job_same_run(const fc_job_member *a, const fc_job_member *b);
/* The job report as JSON text (malloc'd, *len bytes, NUL-terminated), or
 * NULL with one "WHO: ..." line on stderr. Sets each member's role. */
char *fc_job_build(fc_job *j, size_t *len);
void fc_job_free(fc_job *j);

/* Replaces base's top-level members by patch's members of the same key and
 * appends patch's other members, keeping every other byte of base (exact
 * integers stay exact). Both must be JSON objects. Returns malloc'd text,
 * or NULL when either is not an object or out of memory. */
char *fc_json_patch_top(const char *base, size_t base_len, const char *patch, size_t patch_len,
                        size_t *out_len);

/* Writes text to path atomically (a temporary file beside it, fsync,
 * rename; never through a symbolic link). 0, or -1 after one "WHO: ..."
 * line on stderr. */
int fc_job_write_file(const char *path, const char *text, size_t len, const char *who);
/* `flopcount run --join-parts FILE PART` (job_join.c), what the library
 * runs at a process's last write under LD_PRELOAD with one
 * FLOPCOUNT_OUTPUT=FILE: FILE becomes the report of every process of PART's
 * run in FILE.parts/, the first writer's own report kept there. Under
 * flock(2) on FILE's directory. 0, or -1 after one line on stderr. */
int fc_job_join_parts(const char *file, const char *part);

/* "SIGTERM" for 15, "signal 42" otherwise. */
const char *fc_signal_name(int sig, char *buf, size_t size);

#endif
