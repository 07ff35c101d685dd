// Child processes for `lpsim validate --jobs N` when it trains: the corpus
// is cut into batches of programs, each trained by a process of its own
// (the harness again, /proc/self/exe, on its own --root), at most N at a
// time.
// Processes, not threads: every program seeds LibTorch's global random
// generator, and two trainings in one process would draw from it in turn.
// No LibTorch here.
#ifndef LPSIM_EXAMPLES_VALIDATION_PROCESSES_H_
#define LPSIM_EXAMPLES_VALIDATION_PROCESSES_H_

#include <functional>
#include <string>
#include <vector>

#include "core/status.h"

namespace lpsim::validation {

struct Child {
  std::vector<std::string> argv;  // argv[0], the executable's path, first
  std::string out_file;           // its standard output
  std::string log_file;           // its standard error
  std::string what;               // what it trains, for a message
};

// Runs every child, at most `parallel` at a time, in the order given, each
// one's output and errors into its files; a child dies with this process
// (it is not left training when this one is stopped). `done(i)` is called
// as child i ends well. The first child that fails (a non-zero exit or a
// signal) stops the others, and the status names it, how it ended, its
// log and the log's last lines; none is started after it.
Status RunChildren(const std::vector<Child>& children, int parallel, const std::function<void(size_t)>& done);

}  // namespace lpsim::validation

#endif  // LPSIM_EXAMPLES_VALIDATION_PROCESSES_H_
