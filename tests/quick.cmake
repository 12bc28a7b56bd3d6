# SPDX-License-Identifier: Apache-2.0
# The quick tier, `ctest -L quick` (scripts/test.sh --quick): under two
# minutes on two cores, for the edit-build-test loop; every layer at least
# once. The README's test command still runs everything. A name here that
# is not a test (renamed, or its area not built) is an error at configure.
set(FC_QUICK_TESTS
  # analysis: formulas, inference, peaks, the report reader, launchers
  formula_units infer_units infer_kinds_units peak_table report_read launch_units attention_flops
  fuzz_corpus_report_read
  # the shim: CPU BLAS (Fortran, CBLAS, RTLD_LOCAL, fork, flopcount run), the
  # cuBLAS / cuBLASLt / cuDNN emulations, dlsym, CUPTI, kernel launches,
  # iterations, the live figures and the file layering rule
  core_units core_blas_hooks cublas_gemm cublas_batched cublaslt_emu_counts cudnn_walk dlsym_emu
  cupti_units cupti_graphs_basic launch_dlsym iter_detect iter_signals live_snapshot_abi
  live_prometheus_blas footprint_idle layers_shim
  # the command: report, merge, formula, peak, env, --html; the Python module
  report_exact report_errors merge_aligned merge_errors formula_peer peak_device html_writer
  html_pages_report cli_env tensorboard_events split_pymodule
  # packaging: man pages and completion agree with --help
  package_man_pages package_bash_completion)
foreach(t ${FC_QUICK_TESTS})
  set_property(TEST ${t} APPEND PROPERTY LABELS quick)
endforeach()
