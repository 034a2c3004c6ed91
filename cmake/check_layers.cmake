# The folders' dependencies, enforced: `cmake -DSOURCE_DIR=... -P cmake/check_layers.cmake`
# (a ctest) fails when a source file includes a header from a folder its own may not
# depend on. Each folder lists what it may include (its layer and those below); the
# exceptions are today's back-arrows, each with what removes it (docs/ARCHITECTURE.md,
# "Not yet as designed"). A new back-arrow fails the tests; removing one means deleting
# its line here.
cmake_minimum_required(VERSION 3.20)
if(NOT SOURCE_DIR)
  message(FATAL_ERROR "usage: cmake -DSOURCE_DIR=<possim checkout> -P check_layers.cmake")
endif()

set(model_all model/input model/workload model/plan model/strategies model/analytic model/run model/trace model/planning)
set(allowed_model/input "")
set(allowed_model/workload model/input)
set(allowed_model/plan model/input model/workload)
set(allowed_model/strategies model/input model/workload model/plan)
set(allowed_model/run model/input model/workload model/plan model/strategies)
set(allowed_model/analytic model/input model/workload model/plan model/strategies model/run)
set(allowed_model/trace model/input model/workload model/plan model/strategies model/run)
set(allowed_model/planning ${model_all})
set(allowed_net "")
set(allowed_sim ${model_all})
set(allowed_calibrate ${model_all} net)
set(allowed_live ${model_all} net)
set(allowed_engines ${model_all} sim live)
set(allowed_report ${model_all})
set(allowed_cli ${model_all} sim net calibrate live engines report)

# Today's back-arrows: FROM>TO, and what removes each.
set(exceptions
  "model/input>model/plan"        # Scenario holds a Cluster and a Consistency: move them below input
  "model/input>model/workload"    # the scenario resolves its model in the zoo
  "model/input>model/strategies"  # the scenario checks strategy names against the registry
  "model/workload>model/plan"     # network.cpp uses the Cluster
  "live>calibrate"                # real-kernel compute uses the kernel backends: a kernels/ library
)

set(folders ${model_all} net sim calibrate live engines report cli)
set(violations "")
set(files 0)
foreach(folder IN LISTS folders)
  file(GLOB_RECURSE sources RELATIVE ${SOURCE_DIR} ${SOURCE_DIR}/${folder}/*.cpp ${SOURCE_DIR}/${folder}/*.hpp)
  foreach(src IN LISTS sources)
    # A file belongs to the deepest listed folder it sits in (model/run, not model).
    math(EXPR files "${files} + 1")
    file(STRINGS ${SOURCE_DIR}/${src} includes REGEX "^#include \"[a-z_]+/")
    foreach(line IN LISTS includes)
      string(REGEX REPLACE "^#include \"([^\"]+)\".*" "\\1" header "${line}")
      if(header MATCHES "^model/([a-z_]+)/")
        set(target "model/${CMAKE_MATCH_1}")
      elseif(header MATCHES "^([a-z_]+)/")
        set(target "${CMAKE_MATCH_1}")
      endif()
      if(target STREQUAL folder OR NOT target IN_LIST folders)
        continue()
      endif()
      if(target IN_LIST allowed_${folder} OR "${folder}>${target}" IN_LIST exceptions)
        continue()
      endif()
      list(APPEND violations "${src}: includes ${header} (${folder} may not depend on ${target})")
    endforeach()
  endforeach()
endforeach()

# An exception that no longer happens is stale: delete its line.
foreach(e IN LISTS exceptions)
  string(REPLACE ">" ";" pair "${e}")
  list(GET pair 0 from)
  list(GET pair 1 to)
  file(GLOB_RECURSE sources ${SOURCE_DIR}/${from}/*.cpp ${SOURCE_DIR}/${from}/*.hpp)
  set(used FALSE)
  foreach(src IN LISTS sources)
    file(STRINGS ${src} hits REGEX "^#include \"${to}/")
    if(hits)
      set(used TRUE)
      break()
    endif()
  endforeach()
  if(NOT used)
    list(APPEND violations "cmake/check_layers.cmake: the exception ${e} no longer happens: delete it")
  endif()
endforeach()

if(violations)
  list(JOIN violations "\n  " text)
  message(FATAL_ERROR "back-arrows between folders:\n  ${text}")
endif()
list(LENGTH exceptions n)
message(STATUS "${files} files: every include follows the layering (${n} known back-arrows listed)")
