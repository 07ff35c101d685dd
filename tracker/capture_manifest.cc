#include "tracker/capture_manifest.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace lpsim {
namespace {

// The manifest version WriteCapture writes ("lpsim_capture": 1).
constexpr int64_t kManifestVersion = 1;

Status FieldError(const char* key, const std::string& what) {
  return Status::Error(std::string("field '") + key + "' " + what);
}

// A JSON number or null (a non-finite value was written as null): NaN when
// absent or null.
Status ReadNumber(const nlohmann::json& j, const char* key, double* out) {
  *out = NAN;
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return Status();
  if (!it->is_number()) return FieldError(key, "must be a number or null, not " + std::string(it->type_name()));
  *out = it->get<double>();
  return Status();
}

Status ReadString(const nlohmann::json& j, const char* key, std::string* out) {
  auto it = j.find(key);
  if (it == j.end()) return Status();
  if (!it->is_string()) return FieldError(key, "must be a string, not " + std::string(it->type_name()));
  *out = it->get<std::string>();
  return Status();
}

Status ReadBool(const nlohmann::json& j, const char* key, bool* out) {
  auto it = j.find(key);
  if (it == j.end()) return Status();
  if (!it->is_boolean()) return FieldError(key, "must be true or false, not " + std::string(it->type_name()));
  *out = it->get<bool>();
  return Status();
}

// A whole number in [0, 2^63): the JSON parser keeps integers apart from
// floats, so 1e300 or 2.5 never reach an integer conversion.
Status ReadCount(const nlohmann::json& j, const char* key, int64_t* out) {
  auto it = j.find(key);
  if (it == j.end()) return Status();
  if (it->is_number_unsigned()) {
    const uint64_t v = it->get<uint64_t>();
    if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return FieldError(key, "is out of range (" + it->dump() + ")");
    }
    *out = static_cast<int64_t>(v);
    return Status();
  }
  if (it->is_number_integer() && it->get<int64_t>() >= 0) {
    *out = it->get<int64_t>();
    return Status();
  }
  return FieldError(key, "must be a whole number >= 0, not " + it->dump().substr(0, 40));
}

// A list of plain file names (no folder part, no "..": the files must lie in
// the capture folder).
Status ReadFiles(const nlohmann::json& j, const char* key, std::vector<std::string>* out) {
  auto it = j.find(key);
  if (it == j.end()) return Status();
  if (!it->is_array()) return FieldError(key, "must be an array of file names, not " + std::string(it->type_name()));
  for (const nlohmann::json& f : *it) {
    if (!f.is_string()) return FieldError(key, "must hold file names (strings), not " + f.dump().substr(0, 40));
    const std::string name = f.get<std::string>();
    if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos ||
        name.find('\0') != std::string::npos) {
      return FieldError(key, "holds '" + name.substr(0, 80) + "', which is not a file name in the capture folder");
    }
    out->push_back(name);
  }
  return Status();
}

}  // namespace

StatusOr<CaptureManifest> ParseCaptureManifest(const std::string& text) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    return Status::Error(std::string("not valid JSON (") + e.what() + ")");
  }
  if (!j.is_object() || !j.contains("lpsim_capture")) {
    return Status::Error("not an lpsim capture manifest (no \"lpsim_capture\" field)");
  }
  const nlohmann::json& version = j["lpsim_capture"];
  if (!version.is_number_integer() || version.get<int64_t>() != kManifestVersion) {
    return Status::Error("capture manifest version " + version.dump().substr(0, 40) +
                         " is not supported: this lpsim reads version " +
                         std::to_string(kManifestVersion) + "; replay it with the lpsim that wrote it");
  }
  CaptureManifest m;
  for (Status s : {ReadCount(j, "step", &m.step), ReadString(j, "model", &m.model),
                   ReadString(j, "reason", &m.reason), ReadNumber(j, "loss", &m.loss),
                   ReadNumber(j, "lr", &m.lr), ReadBool(j, "has_batch", &m.has_batch),
                   ReadBool(j, "update_applied", &m.update_applied),
                   ReadFiles(j, "files", &m.files)}) {
    if (!s.ok()) return s;
  }
  return m;
}

}  // namespace lpsim
