// Whether an output path would overwrite an input: for the commands that read
// a run (or a file) and write another file, which must never write over what
// they read. A stopgap until one output helper serves every writer; callers
// use only these two functions, so it is replaced in one place.
//
//   Status s = RefuseOutputOverInput(out, RunDbFiles(reader.path()));
//   if (!s.ok()) { std::cerr << s.message() << "\n"; return 2; }
#ifndef LPSIM_STORE_OUTPUT_CHECK_H_
#define LPSIM_STORE_OUTPUT_CHECK_H_

#include <string>
#include <vector>

#include "formats/status.h"

namespace lpsim {

// The run database at db_path and its SQLite side files (-wal, -shm,
// -journal), whether they exist or not.
std::vector<std::string> RunDbFiles(const std::string& db_path);

// An error naming both paths when `output` is one of `inputs`: the same file
// by std::filesystem::equivalent (another spelling, a symlink, a hard link),
// or, when either does not exist yet, the same absolute normalized path.
Status RefuseOutputOverInput(const std::string& output, const std::vector<std::string>& inputs);

}  // namespace lpsim

#endif  // LPSIM_STORE_OUTPUT_CHECK_H_
