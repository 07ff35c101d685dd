// Output files: the one way lpsim writes a file a person named.
//
// A regular file (or a name that does not exist yet) is written to a
// temporary file beside it, flushed to the disk (fsync) and renamed over the
// name, so a failure or a crash never leaves half a file and never destroys
// the old one. Anything else that exists (a device such as /dev/null or
// /dev/full, a pipe, a socket) is written directly, never replaced, and "-"
// is standard output. Every failure names the path and the system's reason.
//
// Before the command's work, CheckOutput refuses an output that is one of
// the command's inputs (the same file under any name, through links too) or
// one of the files it must not replace (a run's database and its -wal/-shm
// journals), a directory, or a file whose folder is missing or does not take
// new files, so a long command never fails at its last step.
//
//   Status s = CheckOutput(out, {in}, "quantize");
//   if (s.ok()) s = WriteOutput(out, [&](OutputSink& o) { return o.Write(bytes, n); });
#ifndef LPSIM_CORE_OUTPUT_H_
#define LPSIM_CORE_OUTPUT_H_

#include <cstddef>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "core/status.h"

namespace lpsim {

// Where the bytes go while WriteOutput runs.
class OutputSink {
 public:
  virtual ~OutputSink() = default;
  // Writes all n bytes or fails with the path and errno's reason.
  virtual Status Write(const void* data, size_t n) = 0;
  // A buffered stream over the same sink, for writers built on <ostream>
  // (its errors surface when WriteOutput finishes).
  virtual std::ostream& stream() = 0;
};

// Writes `path` with what `body` writes, as the header says. A body that
// fails (or a write, flush, fsync or rename that fails) leaves nothing
// behind: the temporary file is removed and an existing file is unchanged.
// I/O failures come back as Status::Failed with the path and the reason; a
// body's own error is returned as it is.
Status WriteOutput(const std::string& path, const std::function<Status(OutputSink&)>& body);

// The same for a string already in memory.
Status WriteOutput(const std::string& path, const std::string& bytes);

// Refuses (Status::Error) an output path that is a directory, one of
// `inputs` (same file by device and inode, whatever the spelling), one of
// `protect` (files the command reads or owns, e.g. a run's database and its
// journals; they need not exist), or a new or regular file whose folder does
// not exist, is not a folder, or does not let this process create files (the
// temporary file WriteOutput renames over the name). Devices, pipes and "-"
// pass. `what` names the flag or argument in the message ("the output",
// "--report").
Status CheckOutput(const std::string& path, const std::vector<std::string>& inputs,
                   const std::vector<std::string>& protect = {},
                   const std::string& what = "the output");

}  // namespace lpsim

#endif  // LPSIM_CORE_OUTPUT_H_
