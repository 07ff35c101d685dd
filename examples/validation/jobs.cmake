# ctest validation.jobs: `--jobs N` while training trains the programs in
# batches, each in a process of its own, and gives the JSON, the text table
# and the saved truths one process gives (all but its time), simulating
# the truths or reading them (--truth); the run directories end under
# --root as one process leaves them (--rejudge reads them there), with no
# batch folder left behind; every other flag (--rules, the probes' and
# rollouts' settings) reaches the children.
#   cmake -DEXE=lpsim_validation -DOUT=dir -DPROGRAMS=a,b,c -DTARGETS=t1,t2 -P jobs.cmake
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
function(run name)  # run(NAME ARGS...): ${OUT}/NAME.out, the output without its time (and root)
  execute_process(COMMAND ${EXE} --programs ${PROGRAMS} --targets ${TARGETS} ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${name}: exit ${rc}: ${err}")
  endif()
  file(WRITE ${OUT}/${name}.out "${out}")
  string(REGEX REPLACE "\n *\"(seconds|rejudged)\": [^\n]*" "" out "${out}")
  string(REGEX REPLACE "targets, [0-9]+ s\\." "targets." out "${out}")
  set(${name} "${out}" PARENT_SCOPE)
  set(${name}_err "${err}" PARENT_SCOPE)
endfunction()
# The truths simulated (two fp32 seeds, one simulated: quick).
run(one --json --fp32-seeds 2 --sim-seeds 1 --root ${OUT}/one)
run(two --json --fp32-seeds 2 --sim-seeds 1 --root ${OUT}/two --jobs 2)
if(NOT one STREQUAL two)
  message(FATAL_ERROR "--jobs 2 differs from one process: ${OUT}/one.out, ${OUT}/two.out")
endif()
if(NOT two_err MATCHES "3 of 3 programs trained and judged \\(3 of 3 batches, 2 processes\\)")
  message(FATAL_ERROR "--jobs 2 did not report its batches: ${two_err}")
endif()
string(REPLACE "," ";" program_list "${PROGRAMS}")
foreach(p IN LISTS program_list)
  if(NOT EXISTS ${OUT}/two/${p}/fp32.validation.json)
    message(FATAL_ERROR "--jobs 2 left no run of ${p} under its --root ${OUT}/two")
  endif()
endforeach()
if(EXISTS ${OUT}/two/.batches)
  message(FATAL_ERROR "--jobs 2 left its batches behind: ${OUT}/two/.batches")
endif()
# ... and --rejudge reads them there: the same cells as one process's.
run(again --json --truth ${OUT}/one.out --root ${OUT}/two --rejudge)
run(again_one --json --truth ${OUT}/one.out --root ${OUT}/one --rejudge)
if(NOT again STREQUAL again_one)
  message(FATAL_ERROR "--rejudge of the runs --jobs 2 left differs from one process's: ${OUT}/again.out")
endif()
# The truths read (--truth), the text table and --save-truths.
run(text_one --truth ${OUT}/one.out --root ${OUT}/t1 --save-truths ${OUT}/t1.json)
run(text_two --truth ${OUT}/one.out --root ${OUT}/t2 --save-truths ${OUT}/t2.json --jobs 3)
if(NOT text_one STREQUAL text_two)
  message(FATAL_ERROR "--jobs 3 gives another table than one process: ${OUT}/text_one.out, ${OUT}/text_two.out")
endif()
file(READ ${OUT}/t1.json t1)
file(READ ${OUT}/t2.json t2)
if(NOT t1 STREQUAL t2)
  message(FATAL_ERROR "--jobs 3 saved other truths than one process: ${OUT}/t1.json, ${OUT}/t2.json")
endif()
# Every flag but this process's own reaches the children as given: the
# rules (lp_rollout off: no cell's first call is its), the probes and the
# rollouts (each child's run notes record them).
file(WRITE ${OUT}/no_rollout_rule.json "{\"lp_rollout\": {\"enabled\": false}}\n")
set(flags --json --truth ${OUT}/one.out --rules ${OUT}/no_rollout_rule.json --probe-every 16 --rollout 4
          --rollout-every 32)
run(flags_one ${flags} --root ${OUT}/f1)
run(flags_two ${flags} --root ${OUT}/f2 --jobs 2)
if(NOT flags_one STREQUAL flags_two)
  message(FATAL_ERROR "--jobs 2 with --rules and the probes' flags differs from one process: ${OUT}/flags_one.out, "
                      "${OUT}/flags_two.out")
endif()
foreach(p IN LISTS program_list)
  file(READ ${OUT}/f2/${p}/fp32.validation.json note)
  if(NOT note MATCHES "\"probe_every\": ?16[,}]" OR NOT note MATCHES "\"rollout\": ?4[,}]"
     OR NOT note MATCHES "\"rollout_every\": ?32[,}]")
    message(FATAL_ERROR "a --jobs 2 child did not probe as asked: ${OUT}/f2/${p}/fp32.validation.json")
  endif()
endforeach()
if(NOT one MATCHES "\"rule\": \"lp_rollout\"" OR flags_two MATCHES "\"rule\": \"lp_rollout\"")
  message(FATAL_ERROR "--jobs 2's children did not judge with --rules (lp_rollout off): ${OUT}/flags_two.out")
endif()
message(STATUS "--jobs gave one process's JSON, table and truths")
