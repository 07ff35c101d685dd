// What a command that reads a run checks before it shows anything: that
// every row of the run is valid (RunReader refuses any row holding what lpsim
// never writes, naming its table and row), and whether the run finished well.
//
//   Status s = ValidateRun(reader);          // every row read once
//   std::string note = RunStatusNote(*reader.Info());  // "" for a run that ended ok
#ifndef LPSIM_STORE_RUN_CHECK_H_
#define LPSIM_STORE_RUN_CHECK_H_

#include <string>

#include "core/status.h"
#include "store/run_db.h"

namespace lpsim {

// Reads every row of the run (as RunReader's calls do) and returns the first
// problem: ok means every RunReader call succeeds on this run.
Status ValidateRun(const RunReader& reader);

// A line for a person when a run did not finish well, "" for status ok:
// "run 'a' failed: <why>; what it stored up to step 41 is shown", or, for
// status running, that it is still being written or its writer was killed.
std::string RunStatusNote(const RunInfo& info);

}  // namespace lpsim

#endif  // LPSIM_STORE_RUN_CHECK_H_
