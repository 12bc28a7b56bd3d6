/* SPDX-License-Identifier: Apache-2.0 */
/* tools.h - the verbs of the flopcount command: run.c, env.c, formula.c, peak.c,
 * and the folders report/ and merge/ (several files each). Each verb takes
 * argv with argv[0] = the verb, returns the process exit status, and prints
 * errors as one "flopcount <verb>: ..." line on stderr (exit 2 for usage). */
#ifndef FC_TOOLS_H
#define FC_TOOLS_H

int fc_cmd_run(int argc, char **argv);
int fc_cmd_report(int argc, char **argv);
int fc_cmd_formula(int argc, char **argv);
int fc_cmd_peak(int argc, char **argv);
int fc_cmd_merge(int argc, char **argv);
int fc_cmd_env(int argc, char **argv);

/* run (run_paths.c): the installed file or directory name (a file, or
 * want_dir) in the library directory next to this executable, as a real
 * path in out; -1 when there is none. */
int fc_run_find_installed(const char *name, int want_dir, char *out, size_t size);
/* run, env: the shim next to this executable (fc_run_find_installed: the
 * install's library directory, then the build tree's lib/); FLOPCOUNT_LIB
 * overrides. -1 when there is none. */
int fc_run_find_shim(char *out, size_t size);
/* run: puts the `flopcount` Python module's directory (LIBDIR/flopcount/
 * python) in front of PYTHONPATH; -1 when there is none. */
int fc_run_python_path(void);

#endif
