# Runs ${BENCH} ${ARGS} (atoll-bench scenes, CSV on stdout) and requires
# exit code 0, at least one row, and "yes" in the plausible column of every
# row: no scene may end with a NaN, a body out of bounds, energy gained or
# a stack fallen.
separate_arguments(args UNIX_COMMAND "${ARGS}")
execute_process(COMMAND ${BENCH} ${args} RESULT_VARIABLE code OUTPUT_VARIABLE out
  ERROR_VARIABLE err)
if(NOT code EQUAL 0)
  message(FATAL_ERROR "exit code ${code}; stderr: ${err}")
endif()
# Reasons may hold ';' (out_of_bounds(x;y)), CMake's list separator.
string(REPLACE ";" "|" out "${out}")
string(REPLACE "\n" ";" lines "${out}")
set(rows 0)
foreach(line IN LISTS lines)
  if(line STREQUAL "" OR line MATCHES "^scene,")
    continue()
  endif()
  math(EXPR rows "${rows} + 1")
  string(REPLACE "," ";" fields "${line}")
  list(GET fields 9 plausible)
  if(NOT plausible STREQUAL "yes")
    message(SEND_ERROR "implausible: ${line}")
  endif()
endforeach()
if(rows EQUAL 0)
  message(FATAL_ERROR "no rows: ${out}")
endif()
message(STATUS "${rows} rows plausible")
