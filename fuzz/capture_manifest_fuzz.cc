// Fuzzes capture manifests (tracker/capture_manifest.h): every manifest.json
// text is either refused with a message or read into a manifest; nothing may
// throw, crash or hit undefined behaviour.
#include <string>

#include "fuzz/fuzz_util.h"
#include "tracker/capture_manifest.h"

namespace {
// Real manifests are a few hundred bytes.
constexpr size_t kMaxManifestBytes = 16 << 10;
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > kMaxManifestBytes) return 0;
  const std::string text(reinterpret_cast<const char*>(data), size);
  lpsim::StatusOr<lpsim::CaptureManifest> m = lpsim::ParseCaptureManifest(text);
  if (!m.ok()) FUZZ_CHECK(!m.status().message().empty());
  return 0;
}
