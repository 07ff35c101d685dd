# ctest validation.save_truths: the repository's truths (TRUTHS) read by
# --truth and written back by --save-truths for a few cells (PROGRAMS on
# TARGETS) come out byte for byte as the repository holds them (one run per
# line), and the written file is read back by --truth --list.
#   cmake -DEXE=lpsim_validation -DTRUTHS=truths.json -DOUT=dir -DPROGRAMS=a,b -DTARGETS=t1,t2 -P saved_truths.cmake
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
execute_process(
  COMMAND ${EXE} --truth ${TRUTHS} --programs ${PROGRAMS} --targets ${TARGETS} --root ${OUT}/runs
          --save-truths ${OUT}/saved.json
  RESULT_VARIABLE rc OUTPUT_VARIABLE table ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "--save-truths failed (${rc}): ${err}")
endif()
# Run lines only: each has balanced brackets, which a CMake list needs.
file(STRINGS ${OUT}/saved.json saved REGEX "^{\"program\":")
file(READ ${TRUTHS} committed)
string(REPLACE "," ";" programs "${PROGRAMS}")
string(REPLACE "," ";" targets "${TARGETS}")
list(LENGTH programs np)
list(LENGTH targets nt)
math(EXPR want "${np} * ${nt}")
set(runs 0)
foreach(line IN LISTS saved)
  math(EXPR runs "${runs} + 1")
  string(REGEX REPLACE ",$" "" run "${line}")
  # The same run in the repository's file, a whole line of it.
  string(FIND "${committed}" "\n${run}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "saved run not in ${TRUTHS} as written:\n${run}")
  endif()
endforeach()
if(NOT runs EQUAL want)
  message(FATAL_ERROR "saved ${runs} runs, want ${want} (${PROGRAMS} on ${TARGETS})")
endif()
# The file written is one --truth reads, and covers the cells it was saved for.
execute_process(
  COMMAND ${EXE} --truth ${OUT}/saved.json --list --programs ${PROGRAMS} --targets ${TARGETS}
  RESULT_VARIABLE rc OUTPUT_VARIABLE listed ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "--truth of the saved file failed (${rc}): ${err}")
endif()
foreach(p IN LISTS programs)
  if(NOT listed MATCHES "${p}\t")
    message(FATAL_ERROR "--list with the saved truths does not list ${p}:\n${listed}")
  endif()
endforeach()
message(STATUS "saved ${runs} runs, each as ${TRUTHS} holds it")
