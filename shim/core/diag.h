/* SPDX-License-Identifier: Apache-2.0 */
/* diag.h - the shim's only output besides the report and the live line:
 * "flopcount: ..." lines on stderr, formatted into a fixed buffer (no
 * allocation, no stdio), at most 20 per process. */
#ifndef FC_DIAG_H
#define FC_DIAG_H

/* One line on fd 2; keeps errno. */
void fc_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Like fc_warn, but only the first time *flag (a static int) is seen. */
void fc_warn_once(int *flag, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
