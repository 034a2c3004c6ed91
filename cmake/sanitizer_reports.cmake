# The sanitizer build's report files (see POSSIM_SANITIZE in CMakeLists.txt).
#   cmake -DDIR=<folder> -DMODE=clear -P sanitizer_reports.cmake   empty the folder
#   cmake -DDIR=<folder> -DMODE=check -P sanitizer_reports.cmake   print every report, fail if any
#
# One warning is not a report: SimGrid runs actors on stacks of its own (malloc'd, switched
# by hand), and an exception thrown on one makes ASan say, once per process, that it ignores
# that stack and that "false positive error reports may follow". Any such report would still
# be in the file and fail the check. (Threads as SimGrid contexts would avoid the warning,
# but that setting is read only from the engine's command line, which possim does not take.)
if(MODE STREQUAL "clear")
  file(REMOVE_RECURSE "${DIR}")
  file(MAKE_DIRECTORY "${DIR}")
elseif(MODE STREQUAL "check")
  file(GLOB files "${DIR}/*")
  set(reports 0)
  set(stack_warnings 0)
  foreach(f IN LISTS files)
    file(READ "${f}" text)
    string(REGEX REPLACE
           "==[0-9]+==WARNING: ASan is ignoring requested __asan_handle_no_return: [^\n]*\nFalse positive error reports may follow\nFor details see https://github.com/google/sanitizers/issues/189\n"
           "" rest "${text}")
    if(NOT rest STREQUAL text)
      math(EXPR stack_warnings "${stack_warnings} + 1")
    endif()
    string(STRIP "${rest}" rest)
    if(NOT rest STREQUAL "")
      math(EXPR reports "${reports} + 1")
      message("==== ${f}\n${text}")
    endif()
  endforeach()
  message("${stack_warnings} process(es) warned about SimGrid's actor stacks (not a report)")
  if(reports GREATER 0)
    message(FATAL_ERROR "${reports} sanitizer report(s) in ${DIR}")
  endif()
  message("no sanitizer reports in ${DIR}")
else()
  message(FATAL_ERROR "MODE must be clear or check")
endif()
