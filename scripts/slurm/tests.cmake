# scripts/slurm/tests.cmake: the test of the Slurm job-array script (sweep-array.sh) without Slurm:
# its --local run, its per-shard command, failures and --resume, and its submission through a
# stand-in sbatch, every merged table compared byte for byte with one `softmx sweep` (or one run of
# the same command). Needs bash and the softmx command only; about 3 s of CPU. Included by
# python/tests/CMakeLists.txt (labels vectors and slurm).
add_test(NAME test_slurm_sweep_array
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/test-sweep-array.sh $<TARGET_FILE:softmx>
                 ${CMAKE_CURRENT_BINARY_DIR}/slurm-sweep-array-test)
set_tests_properties(test_slurm_sweep_array PROPERTIES LABELS "vectors;slurm" TIMEOUT 600)
