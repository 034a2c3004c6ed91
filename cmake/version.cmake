# The version results record (git describe --always --dirty; "unknown" outside a git
# checkout), written into OUT from IN at every build: configure_file rewrites OUT only when
# the version changed, so a commit recompiles one file and results never carry a stale one.
# Usage: cmake -DSOURCE_DIR=... -DIN=version.cpp.in -DOUT=version.cpp -P version.cmake
set(POSSIM_VERSION unknown)
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} describe --always --dirty
                  WORKING_DIRECTORY ${SOURCE_DIR}
                  OUTPUT_VARIABLE git_version OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE git_status ERROR_QUIET)
  # Only characters a C string literal takes as they are (a tag could hold anything).
  if(git_status EQUAL 0 AND git_version MATCHES "^[A-Za-z0-9._+-]+$")
    set(POSSIM_VERSION ${git_version})
  endif()
endif()
configure_file(${IN} ${OUT} @ONLY)
