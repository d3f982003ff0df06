# RunCheck.cmake - runs a command and checks its exit code, output and time.
#
#   cmake -DCMD=<;-list> [-DEXPECT_EXIT=0|2|nonzero] [-DEXPECT=<;-list of
#         regexes the output must match>] [-DREJECT=<;-list of regexes it must
#         not match>] [-DCOUNT_REGEX=<regex> -DCOUNT=<n>] [-DMAX_SECONDS=<s>]
#         [-DTIMEOUT=<s>] [-DCLEAN=<;-list of paths removed before the
#         run>] -P RunCheck.cmake
#
# Output is stdout and stderr together. The elapsed time is printed, so the
# ctest log records it (the failure tests measure how fast a dead or hung
# rank brings the job down).
if(NOT DEFINED EXPECT_EXIT)
  set(EXPECT_EXIT 0)
endif()
if(NOT DEFINED TIMEOUT)
  set(TIMEOUT 120)
endif()
string(REPLACE "|" ";" CMD "${CMD}")
if(DEFINED CLEAN)
  string(REPLACE "|" ";" CLEAN "${CLEAN}")
  foreach(path IN LISTS CLEAN)
    file(REMOVE_RECURSE "${path}")
  endforeach()
endif()
string(TIMESTAMP start "%s%f" UTC)
execute_process(COMMAND ${CMD}
  RESULT_VARIABLE result
  OUTPUT_VARIABLE out
  ERROR_VARIABLE out
  TIMEOUT ${TIMEOUT})
string(TIMESTAMP end "%s%f" UTC)
math(EXPR elapsed_ms "(${end} - ${start}) / 1000")
message("---- output ----\n${out}---- exit: ${result}, elapsed: ${elapsed_ms} ms")

set(failed "")
if(EXPECT_EXIT STREQUAL "nonzero")
  if(result STREQUAL "0" OR NOT result MATCHES "^[0-9]+$")
    string(APPEND failed "expected a non-zero exit code, got '${result}'\n")
  endif()
elseif(NOT result STREQUAL EXPECT_EXIT)
  string(APPEND failed "expected exit code ${EXPECT_EXIT}, got '${result}'\n")
endif()
string(REPLACE "|" ";" EXPECT "${EXPECT}")
foreach(regex IN LISTS EXPECT)
  if(NOT out MATCHES "${regex}")
    string(APPEND failed "output does not match: ${regex}\n")
  endif()
endforeach()
string(REPLACE "|" ";" REJECT "${REJECT}")
foreach(regex IN LISTS REJECT)
  if(out MATCHES "${regex}")
    string(APPEND failed "output matches the rejected: ${regex}\n")
  endif()
endforeach()
if(DEFINED COUNT_REGEX)
  string(REGEX MATCHALL "${COUNT_REGEX}" matches "${out}")
  list(LENGTH matches found)
  if(NOT found EQUAL COUNT)
    string(APPEND failed "expected ${COUNT} lines matching ${COUNT_REGEX}, found ${found}\n")
  endif()
endif()
if(DEFINED MAX_SECONDS)
  math(EXPR limit_ms "${MAX_SECONDS} * 1000")
  if(elapsed_ms GREATER limit_ms)
    string(APPEND failed "took ${elapsed_ms} ms, more than ${MAX_SECONDS} s\n")
  endif()
endif()
if(failed)
  message(FATAL_ERROR "${failed}")
endif()
