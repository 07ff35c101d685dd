// Runs a shell command line for tests that drive the real binaries: its exit
// code and what it printed on stdout (redirect stderr in `cmd` to keep it).
//
//   CommandResult r = RunCommand(std::string(LPSIM_BIN) + " analyze x.npy 2>&1");
//   EXPECT_EQ(r.code, 2) << r.out;
#ifndef LPSIM_TESTS_COMMON_RUN_COMMAND_H_
#define LPSIM_TESTS_COMMON_RUN_COMMAND_H_

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace lpsim {

struct CommandResult {
  int code = -1;    // -1: could not start, or killed by a signal
  std::string out;  // stdout
};

inline CommandResult RunCommand(const std::string& cmd) {
  CommandResult r;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int status = ::pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace lpsim

#endif  // LPSIM_TESTS_COMMON_RUN_COMMAND_H_
