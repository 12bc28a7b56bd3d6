/* SPDX-License-Identifier: Apache-2.0 */
/* report.h - the report: the JSON file (schema in docs/report-schema.md)
 * and the human summary on stderr (report.c). */
#ifndef FC_REPORT_H
#define FC_REPORT_H

/* Reads the command line and sets up where reports go (constructor). */
void fc_report_init(void);
/* Fork child: it writes a report of its own, never the parent's file. */
void fc_report_after_fork(void);
/* Writes the report atomically (temp file + rename) where destination.c
 * says. status is "complete", "interrupted", "running" (periodic snapshot)
 * or "exec" (before exec replaces the program). Returns 0, or
 * -1 after one flopcount: line. Not reentrant: callers serialize (the top
 * layer's writer lock, signals.c). */
int fc_report_write(const char *status);
/* 1 when this process counted any call (successful, failed, invalid or
 * unresolved). */
int fc_report_counted(void);
/* The exit path's work, once: the file with status ("complete", or
 * "interrupted" after a handled SIGINT/SIGTERM) and the summary. */
void fc_report_at_exit(const char *status);

#endif
