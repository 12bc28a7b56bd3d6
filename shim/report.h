/* SPDX-License-Identifier: Apache-2.0 */
/* report.h - the report: JSON file (schema in docs/report-schema.md) and
 * the human summary on stderr. */
#ifndef FC_REPORT_H
#define FC_REPORT_H

void fc_report_init(void);
void fc_report_after_fork(void);
/* Writes FLOPCOUNT_OUTPUT atomically (temp file + rename). status is
 * "complete", "interrupted" or "running" (periodic snapshot). Returns 0, or
 * -1 after one flopcount: line. */
int fc_report_write_status(const char *status);
/* The destructor's work: file and summary, once. */
void fc_report_at_exit(void);
int fc_is_fork_child(void);

#endif
