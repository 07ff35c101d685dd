#include "store/output_check.h"

#include <filesystem>
#include <system_error>

namespace lpsim {
namespace {

namespace fs = std::filesystem;

bool SameFile(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (fs::exists(a, ec) && fs::exists(b, ec)) {
    const bool same = fs::equivalent(a, b, ec);
    if (!ec) return same;
  }
  // A path that does not exist yet (a side file SQLite creates later): the
  // same place once symlinks of the parts that exist are resolved.
  const fs::path pa = fs::weakly_canonical(fs::absolute(a, ec), ec);
  const fs::path pb = fs::weakly_canonical(fs::absolute(b, ec), ec);
  return !pa.empty() && pa == pb;
}

}  // namespace

std::vector<std::string> RunDbFiles(const std::string& db_path) {
  return {db_path, db_path + "-wal", db_path + "-shm", db_path + "-journal"};
}

Status RefuseOutputOverInput(const std::string& output, const std::vector<std::string>& inputs) {
  for (const std::string& input : inputs) {
    if (!SameFile(output, input)) continue;
    const std::string same = output == input ? "" : " (the same file as " + input + ")";
    return Status::Error("the output " + output + " is an input of this command" + same +
                         ": writing it would destroy what is being read; choose another output "
                         "path");
  }
  return Status();
}

}  // namespace lpsim
