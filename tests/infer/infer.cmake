# SPDX-License-Identifier: Apache-2.0
# The model read off the GEMM stream (analysis/infer*.c, shim/detect/profile.c,
# tools/report/report_infer.c): docs/formula.md, "The model from the stream".
set(FC_INFER_WORK ${CMAKE_CURRENT_BINARY_DIR}/work-infer)
file(MAKE_DIRECTORY ${FC_INFER_WORK})

# Real PyTorch (CPU) trainings of models of our own: every inferred value
# against the trained model, the formula from the stream against the
# formula from flags; and the cases that cannot be inferred.
foreach(case plain gqa_swiglu gqa_fused q_kv ckpt_full ckpt_some selective accum_markers accum_auto
        per_head moe moe_every moe_first_dense one_layer fused_attention one_layer_fused mlp_only)
  add_test(NAME infer_torch_${case}
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/test_infer_torch.py
                   ${FC_PRELOAD} $<TARGET_FILE:flopcount_cli> ${FC_INFER_WORK} ${case})
  set_tests_properties(infer_torch_${case} PROPERTIES LABELS torch TIMEOUT 600)
endforeach()

# The 2025-26 layer kinds (issue 27): multi-latent attention, MLA + MoE +
# multi-token prediction, a hybrid of every kind, trained on the CPU
# (fixture_kinds.py): counted forward = the formula's, every value read.
foreach(case mla mla_moe_mtp hybrid)
  add_test(NAME infer_kinds_${case}
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/test_infer_kinds.py
                   ${FC_PRELOAD} $<TARGET_FILE:flopcount_cli> ${FC_INFER_WORK} ${case})
  set_tests_properties(infer_kinds_${case} PROPERTIES LABELS torch TIMEOUT 600)
endforeach()

# A stream the reader gets wrong (a Mamba-2 layer of expand 1) is never
# shown as the model without a caution (test_infer_doubtful.py).
add_test(NAME infer_kinds_doubtful
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/test_infer_doubtful.py
                 ${FC_PRELOAD} $<TARGET_FILE:flopcount_cli> ${FC_INFER_WORK})
set_tests_properties(infer_kinds_doubtful PROPERTIES LABELS torch TIMEOUT 600)

# analysis/infer*.c on forward profiles written by hand (dense, GQA, MoE,
# fused attention, flags given, iterations, what cannot be inferred).
add_executable(test_infer_units ${CMAKE_CURRENT_LIST_DIR}/test_infer_units.c)
target_link_libraries(test_infer_units PRIVATE cmocka fc_analysis)
add_test(NAME infer_units COMMAND test_infer_units)
add_executable(test_infer_kinds_units ${CMAKE_CURRENT_LIST_DIR}/test_infer_kinds_units.c)
target_link_libraries(test_infer_kinds_units PRIVATE cmocka fc_analysis)
add_test(NAME infer_kinds_units COMMAND test_infer_kinds_units)

# 'flopcount merge': the job's model from its ranks' forwards, data-parallel
# replicas, pipeline stages over data-parallel replicas, and a job's report
# from 'flopcount run' around a launcher of ranks.
foreach(layout dp pp run)
  add_test(NAME infer_merge_${layout}
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_LIST_DIR}/test_infer_merge.py
                   ${FC_PRELOAD} $<TARGET_FILE:flopcount_cli> ${FC_INFER_WORK} ${layout})
  set_tests_properties(infer_merge_${layout} PROPERTIES LABELS torch TIMEOUT 600)
endforeach()

# The model read off fused-attention calls in the forward profile
# (analysis/infer_attn.c): exact heads, kv heads, head dim, sequence and
# batch; the formula's forward with its core at the band that ran; the
# contradictions with the GEMMs reported.
add_executable(test_infer_attn ${CMAKE_CURRENT_LIST_DIR}/test_infer_attn.c)
target_link_libraries(test_infer_attn PRIVATE cmocka fc_analysis)
add_test(NAME infer_attn COMMAND test_infer_attn)
