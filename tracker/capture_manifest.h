// The manifest.json of a capture folder (tracker/capture.h), read without
// torch so its parser can be tested and fuzzed on its own.
//
//   StatusOr<CaptureManifest> m = ParseCaptureManifest(text);
//   if (!m.ok()) return Status::Error(path + ": " + m.status().message());
#ifndef LPSIM_TRACKER_CAPTURE_MANIFEST_H_
#define LPSIM_TRACKER_CAPTURE_MANIFEST_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"

namespace lpsim {

struct CaptureManifest {
  int64_t step = 0;
  std::string model;    // e.g. "mlp" / "cnn" for the built-in models, or the user's name
  std::string reason;   // why the step was captured
  double loss = 0;      // NaN/Inf are stored as JSON null and read back as NaN
  double lr = 0;
  bool has_batch = false;
  bool update_applied = false;  // true for captures asked by a rule policy after the update
  // The files the capture wrote ("files"), each a plain name in the folder;
  // empty when the manifest has no list.
  std::vector<std::string> files;
};

// Parses the text of a manifest.json. Missing optional fields keep their
// defaults; a field of the wrong type or out of range is an error naming it.
// Errors carry no file name.
StatusOr<CaptureManifest> ParseCaptureManifest(const std::string& text);

}  // namespace lpsim

#endif  // LPSIM_TRACKER_CAPTURE_MANIFEST_H_
