#include "store/run_check.h"

namespace lpsim {

Status ValidateRun(const RunReader& reader) {
  StatusOr<RunInfo> info = reader.Info();
  if (!info.ok()) return info.status();
  StatusOr<std::vector<TensorInfo>> tensors = reader.Tensors();
  if (!tensors.ok()) return tensors.status();
  StatusOr<std::vector<int64_t>> steps = reader.Steps();
  if (!steps.ok()) return steps.status();
  StatusOr<std::vector<std::pair<std::string, std::string>>> candidates = reader.Candidates();
  if (!candidates.ok()) return candidates.status();
  Status s = reader.ForEachRecord({}, [](TensorRecord&&) { return Status(); });
  if (!s.ok()) return s;
  StatusOr<std::vector<ScalarRecord>> scalars = reader.Scalars();
  if (!scalars.ok()) return scalars.status();
  StatusOr<std::vector<Finding>> findings = reader.Findings();
  if (!findings.ok()) return findings.status();
  StatusOr<std::vector<CaptureRecord>> captures = reader.Captures();
  if (!captures.ok()) return captures.status();
  return Status();
}

std::string RunStatusNote(const RunInfo& info) {
  if (info.status == "ok") return "";
  const std::string stored =
      info.last_step ? "what it stored up to step " + std::to_string(*info.last_step) + " is shown"
                     : "it stored no step";
  const std::string run = "run '" + info.name + "'";
  if (info.status == "running") {
    return run + " is not finished (started " + info.started_at +
           "): it is still being written, or the program writing it was killed; " + stored;
  }
  return run + " " + info.status + (info.status_message.empty() ? "" : ": " + info.status_message) +
         "; " + stored;
}

}  // namespace lpsim
