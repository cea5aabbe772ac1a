# Runs fuzz_loader for SECONDS seconds on a scratch corpus seeded with tests/data/good and
# tests/data/bad; fails when libFuzzer reports a crash, a leak, a hang or a sanitizer error.
# -DFUZZER=<exe>: run that binary. Otherwise -DCLANGXX=<clang++> -DSOURCE=<fuzz dir>: configure and
# build SOURCE as a standalone project in WORK first.
# Always: -DWORK=<scratch dir> -DROOT=<repository> -DSECONDS=<n>.
if(NOT FUZZER)
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE} -B ${WORK} -DCMAKE_CXX_COMPILER=${CLANGXX}
                          -DCMAKE_BUILD_TYPE=
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "configuring the fuzz project with ${CLANGXX} failed")
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK} --target fuzz_loader -j2 RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "building fuzz_loader failed")
  endif()
  set(FUZZER ${WORK}/fuzz_loader)
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
