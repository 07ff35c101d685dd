# ctest validation.rejudge: --rejudge judges the fp32 runs a full run left
# under its --root again without training, and gives the JSON a full --truth
# run gives (all but its time and the `rejudged` line), with the default
# rules and with a rules file (RULES) alike, its targets judged in one thread
# or two (--jobs); runs probed otherwise, a root
# with no runs, a note of another shape and --rejudge without --truth are
# refused with what to do; by_rule's first calls add up to the table.
#   cmake -DEXE=lpsim_validation -DTRUTHS=truths.json -DRULES=rules.json -DOUT=dir -DPROGRAMS=a,b
#         -DTARGETS=t1,t2 -P rejudge.cmake
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
set(cells --truth ${TRUTHS} --programs ${PROGRAMS} --targets ${TARGETS} --json)
function(run name)  # run(NAME ARGS...): ${OUT}/NAME.json, the JSON without its time and `rejudged` lines
  execute_process(COMMAND ${EXE} ${cells} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${name}: exit ${rc}: ${err}")
  endif()
  file(WRITE ${OUT}/${name}.json "${out}")
  string(REGEX REPLACE "\n *\"(seconds|rejudged)\": [^\n]*" "" out "${out}")
  set(${name} "${out}" PARENT_SCOPE)
endfunction()
run(full --root ${OUT}/a)
# by_rule: each predicted cell once, under the rule that fired first, so the
# first calls add up to the table's hits and false alarms.
string(JSON rules LENGTH "${full}" by_rule)
if(rules EQUAL 0)
  message(FATAL_ERROR "no rule in by_rule: ${OUT}/full.json")
endif()
foreach(kind tp fp)
  string(JSON want GET "${full}" overall all ${kind})
  set(sum 0)
  math(EXPR last "${rules} - 1")
  foreach(i RANGE ${last})
    string(JSON rule MEMBER "${full}" by_rule ${i})
    string(JSON n GET "${full}" by_rule ${rule} first ${kind})
    math(EXPR sum "${sum} + ${n}")
  endforeach()
  if(NOT sum EQUAL want)
    message(FATAL_ERROR "by_rule's first calls give ${kind} ${sum}, the table ${want}: ${OUT}/full.json")
  endif()
endforeach()
# The targets judged in one thread and in two (--jobs): the same cells.
foreach(jobs 1 2)
  run(again --root ${OUT}/a --rejudge --jobs ${jobs})
  if(NOT full STREQUAL again)
    message(FATAL_ERROR "--rejudge --jobs ${jobs} differs from the full run that recorded the runs: ${OUT}/full.json, "
                        "${OUT}/again.json")
  endif()
endforeach()
file(READ ${OUT}/again.json text)
if(NOT text MATCHES "\"rejudged\": \"[^\"]*/a\"")
  message(FATAL_ERROR "--rejudge's JSON does not say it judged the runs under ${OUT}/a")
endif()
run(full_rules --root ${OUT}/b --rules ${RULES})
run(again_rules --root ${OUT}/a --rejudge --rules ${RULES})
if(NOT full_rules STREQUAL again_rules)
  message(FATAL_ERROR "--rejudge --rules differs from a full run with --rules: ${OUT}/full_rules.json, "
                      "${OUT}/again_rules.json")
endif()
if(full STREQUAL full_rules)
  message(FATAL_ERROR "the rules file changed nothing in the JSON (not even its rules): ${RULES}")
endif()
# Refusals: exit 2 and a message that says what to run.
function(refused why)  # refused(REGEX ARGS...)
  execute_process(COMMAND ${EXE} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 2 OR NOT err MATCHES "${why}")
    message(FATAL_ERROR "want exit 2 and '${why}', got ${rc}: ${err}")
  endif()
endfunction()
refused("probed with probe_every 8, this run asks 4: run `lpsim validate` once without --rejudge"
        ${cells} --root ${OUT}/a --rejudge --probe-every 4)
refused("no recorded fp32 run of [a-z_0-9]+ \\([^)]*/empty/[a-z_0-9]+/fp32.validation.json is missing\\)"
        ${cells} --root ${OUT}/empty --rejudge)
string(REPLACE "," ";" program_list "${PROGRAMS}")
list(GET program_list 0 first)
file(WRITE ${OUT}/odd/${first}/fp32.validation.json "{\"loss\": 1, \"targets\": \"not a list\"}\n")
refused("--rejudge: [^ ]*/odd/${first}/fp32.validation.json is not a run note this build writes"
        ${cells} --root ${OUT}/odd --rejudge)
refused("--jobs needs a number >= 1" ${cells} --root ${OUT}/a --rejudge --jobs 0)
refused("--rejudge judges recorded fp32 runs again against truths from a file: give --truth FILE"
        --programs ${PROGRAMS} --root ${OUT}/a --rejudge)
message(STATUS "--rejudge gave the full runs' JSON, with and without ${RULES}")
