# Runs fuzz_loader for SECONDS seconds on a scratch corpus seeded with tests/data/good and
# tests/data/bad; fails when libFuzzer reports a crash, a leak, a hang or a sanitizer error.
# -DFUZZER=<exe> (built by the main build) -DWORK=<scratch dir> -DROOT=<repository> -DSECONDS=<n>.
if(NOT EXISTS ${FUZZER})
  message(FATAL_ERROR "${FUZZER} is not built: build the main project first (it builds the fuzzer)")
endif()
file(MAKE_DIRECTORY ${WORK}/corpus ${WORK}/artifacts)
# New inputs go to the first (scratch) corpus directory; the seeds are only read.
execute_process(COMMAND ${FUZZER} -max_total_time=${SECONDS} -max_len=16384 -timeout=10 -rss_limit_mb=2048
                        -dict=${ROOT}/fuzz/fxmem.dict
                        -print_final_stats=1 -artifact_prefix=${WORK}/artifacts/
                        ${WORK}/corpus ${ROOT}/tests/data/good ${ROOT}/tests/data/bad
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "fuzz_loader found a problem (exit ${rc}); the input is in ${WORK}/artifacts/")
endif()
