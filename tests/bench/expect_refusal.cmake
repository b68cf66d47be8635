# Runs ${BENCH} ${ARGS} and requires exit code 2, ${EXPECT} on stderr and
# nothing on stdout (no CSV header: the arguments were checked first).
separate_arguments(args UNIX_COMMAND "${ARGS}")
execute_process(COMMAND ${BENCH} ${args} RESULT_VARIABLE code OUTPUT_VARIABLE out
  ERROR_VARIABLE err)
if(NOT code EQUAL 2)
  message(FATAL_ERROR "exit code ${code}, expected 2; stderr: ${err}")
endif()
string(FIND "${err}" "${EXPECT}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "stderr lacks '${EXPECT}': ${err}")
endif()
if(NOT out STREQUAL "")
  message(FATAL_ERROR "printed before refusing: ${out}")
endif()
