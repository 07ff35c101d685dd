// The CLI's one way to print an error (commands.h).
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "core/printable.h"

namespace lpsim::cli {

int PrintError(const std::string& command, const std::string& message, int code) {
  std::cerr << "lpsim " << command << ": error: " << Printable(message) << "\n";
  return code;
}

int PrintError(const std::string& command, const Status& status) {
  return PrintError(command, status.message(), ExitCode(status));
}

StatusOr<uint64_t> ParseSeed(const std::string& s) {
  const bool digits =
      !s.empty() && s.size() <= 20 && s.find_first_not_of("0123456789") == std::string::npos;
  errno = 0;
  const unsigned long long v = digits ? std::strtoull(s.c_str(), nullptr, 10) : 0;
  if (!digits || errno == ERANGE) {
    return Status::Error("--seed '" + s + "' is not an integer in 0..2^64-1");
  }
  return static_cast<uint64_t>(v);
}

std::vector<std::string> RunFiles(const std::string& run) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path p(run);
  const std::string db = (fs::is_directory(p, ec) ? p / "run.db" : p).string();
  return {db, db + "-wal", db + "-shm", db + "-journal"};
}

}  // namespace lpsim::cli
