#include "store/internal/record_codec.h"

#include <time.h>  // gmtime_r

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>

namespace lpsim::store_internal {
namespace {

using Json = nlohmann::json;

std::optional<double> NumberFromJson(const Json& j) {
  if (j.is_number()) return j.get<double>();
  if (j.is_string()) {
    const std::string& s = j.get_ref<const std::string&>();
    if (s == "nan") return std::nan("");
    if (s == "inf") return HUGE_VAL;
    if (s == "-inf") return -HUGE_VAL;
  }
  return std::nullopt;
}

void PutLe(std::string* out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint64_t GetLe(const unsigned char* p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// Calls put(key, count) per entry; keys are checked against [lo, hi].
template <typename Put>
Status DecodeSparse(const std::string& blob, bool signed_key, int lo, int hi, Put put) {
  if (blob.size() % kHistEntryBytes != 0) {
    return Status::Error("blob of " + std::to_string(blob.size()) +
                         " bytes is not a whole number of 10-byte entries");
  }
  const auto* p = reinterpret_cast<const unsigned char*>(blob.data());
  int prev = std::numeric_limits<int>::min();
  for (size_t off = 0; off < blob.size(); off += kHistEntryBytes) {
    const uint16_t raw = static_cast<uint16_t>(GetLe(p + off, 2));
    const int key =
        signed_key ? static_cast<int>(static_cast<int16_t>(raw)) : static_cast<int>(raw);
    if (key < lo || key > hi) {
      return Status::Error("bin " + std::to_string(key) + " is outside [" + std::to_string(lo) +
                           ", " + std::to_string(hi) + "]");
    }
    if (key <= prev) return Status::Error("bins are not strictly increasing");
    prev = key;
    put(key, GetLe(p + off + 2, 8));
  }
  return Status();
}

}  // namespace

std::string NowIso8601() {
  using std::chrono::duration_cast;
  using std::chrono::milliseconds;
  const int64_t ms =
      duration_cast<milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  const time_t secs = static_cast<time_t>(ms / 1000);
  struct tm tm;
  gmtime_r(&secs, &tm);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &tm);
  char out[48];
  std::snprintf(out, sizeof out, "%s.%03dZ", date, static_cast<int>(ms % 1000));
  return out;
}

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

StatusOr<std::vector<int64_t>> ParseShape(const std::string& text) {
  const Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_array()) {
    return Status::Error("shape '" + text + "' is not a JSON array");
  }
  std::vector<int64_t> shape;
  for (const Json& d : j) {
    if (!d.is_number_integer()) return Status::Error("shape '" + text + "' has a non-integer");
    if (d.get<int64_t>() < 0) return Status::Error("shape '" + text + "' has a negative size");
    shape.push_back(d.get<int64_t>());
  }
  return shape;
}

Json NumberJson(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

std::string EvidenceJson(const std::map<std::string, double>& evidence) {
  Json j = Json::object();
  for (const auto& [k, v] : evidence) j[k] = NumberJson(v);
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

StatusOr<std::map<std::string, double>> ParseEvidence(const std::string& text) {
  const Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return Status::Error("evidence_json is not a JSON object");
  }
  std::map<std::string, double> out;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::optional<double> v = NumberFromJson(it.value());
    if (!v) return Status::Error("evidence_json value '" + it.key() + "' is not a number");
    out[it.key()] = *v;
  }
  return out;
}

StatusOr<Severity> ParseSeverity(const std::string& s) {
  for (Severity v : {Severity::kInfo, Severity::kWarning, Severity::kError}) {
    if (s == ToString(v)) return v;
  }
  return Status::Error("unknown severity '" + s + "'");
}

std::string EncodeExponentHist(const TensorStats& s) {
  std::string out;
  for (int i = 0; i < TensorStats::kExponentBins; ++i) {
    const uint64_t c = s.exponent_hist[static_cast<size_t>(i)];
    if (c == 0) continue;
    const int16_t e = static_cast<int16_t>(i + TensorStats::kMinExponent);
    PutLe(&out, static_cast<uint16_t>(e), 2);
    PutLe(&out, c, 8);
  }
  return out;
}

std::string EncodeLogHist(const TensorStats& s) {
  std::string out;
  const size_t n = std::min(s.log_hist.size(), static_cast<size_t>(TensorStats::kLogBins));
  for (size_t i = 0; i < n; ++i) {
    if (s.log_hist[i] == 0) continue;
    PutLe(&out, i, 2);
    PutLe(&out, s.log_hist[i], 8);
  }
  return out;
}

Status DecodeExponentHist(const std::string& blob, TensorStats* s) {
  s->exponent_hist.fill(0);
  return DecodeSparse(blob, /*signed_key=*/true, TensorStats::kMinExponent,
                      TensorStats::kMaxExponent, [&](int e, uint64_t c) {
                        s->exponent_hist[static_cast<size_t>(e - TensorStats::kMinExponent)] = c;
                      });
}

Status DecodeLogHist(const std::string& blob, TensorStats* s) {
  s->log_hist.assign(TensorStats::kLogBins, 0);
  return DecodeSparse(blob, /*signed_key=*/false, 0, TensorStats::kLogBins - 1,
                      [&](int b, uint64_t c) { s->log_hist[static_cast<size_t>(b)] = c; });
}

namespace {

// SampleSummary's four quantile lists, in the blob's order (S: const or not).
template <typename S>
auto QuantileLists(S* s) {
  return std::array{&s->row_log2_rms, &s->row_log2_offset, &s->position_log2_rms, &s->position_log2_offset};
}

}  // namespace

std::string EncodeSampleSummary(const SampleSummary& s) {
  std::string out;
  PutLe(&out, static_cast<uint64_t>(s.rows), 8);
  PutLe(&out, static_cast<uint64_t>(s.positions), 8);
  for (const SampleSummary::Quantiles* q : QuantileLists(&s)) {
    PutLe(&out, q->size(), 1);
    for (float v : *q) {
      uint32_t bits;
      std::memcpy(&bits, &v, sizeof bits);
      PutLe(&out, bits, 4);
    }
  }
  return out;
}

Status DecodeSampleSummary(const std::string& blob, SampleSummary* s) {
  *s = SampleSummary();
  constexpr size_t kFull = SampleSummary::kQuantiles + 1;
  const auto* p = reinterpret_cast<const unsigned char*>(blob.data());
  size_t off = 0;
  auto need = [&](size_t bytes) { return off + bytes <= blob.size(); };
  auto too_short = [&] {
    return Status::Error("blob of " + std::to_string(blob.size()) + " bytes ends inside the summary");
  };
  if (!need(16)) return too_short();
  s->rows = static_cast<int64_t>(GetLe(p, 8));
  s->positions = static_cast<int64_t>(GetLe(p + 8, 8));
  off = 16;
  if (s->rows < 0 || s->positions < 0) {
    return Status::Error("rows " + std::to_string(s->rows) + " or positions " + std::to_string(s->positions) +
                         " is negative");
  }
  const char* const kNames[] = {"row_log2_rms", "row_log2_offset", "position_log2_rms", "position_log2_offset"};
  int k = 0;
  for (SampleSummary::Quantiles* q : QuantileLists(s)) {
    const char* name = kNames[k++];
    if (!need(1)) return too_short();
    const size_t n = p[off++];
    if (n != 0 && n != kFull) {
      return Status::Error(std::string(name) + " has " + std::to_string(n) + " quantiles, not 0 or " +
                           std::to_string(kFull));
    }
    if (!need(4 * n)) return too_short();
    q->resize(n);
    for (size_t i = 0; i < n; ++i, off += 4) {
      const uint32_t bits = static_cast<uint32_t>(GetLe(p + off, 4));
      float v;
      std::memcpy(&v, &bits, sizeof v);
      if (std::isnan(v) || v == HUGE_VALF) return Status::Error(std::string(name) + " holds NaN or +Inf");
      if (i > 0 && v < (*q)[i - 1]) return Status::Error(std::string(name) + " decreases");
      (*q)[i] = v;
    }
  }
  if (off != blob.size()) {
    return Status::Error("blob of " + std::to_string(blob.size()) + " bytes has " +
                         std::to_string(blob.size() - off) + " bytes after the summary");
  }
  return Status();
}

}  // namespace lpsim::store_internal
