/* SPDX-License-Identifier: Apache-2.0 */
/* report.h - the report: the JSON file (schema in docs/report-schema.md)
 * and the human summary on stderr (report.c). */
#ifndef FC_REPORT_H
#define FC_REPORT_H

/* Reads the command line (constructor). */
void fc_report_init(void);
/* Writes FLOPCOUNT_OUTPUT atomically (temp file + rename). status is
 * "complete", "interrupted" or "running" (periodic snapshot). Returns 0, or
 * -1 after one flopcount: line. Not reentrant: callers serialize (the top
 * layer's writer lock, signals.c). */
int fc_report_write(const char *status);
/* The exit path's work, once: the file with status ("complete", or
 * "interrupted" after a handled SIGINT/SIGTERM) and the summary. */
void fc_report_at_exit(const char *status);

#endif
