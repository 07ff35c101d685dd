// How the run database spells record fields that SQLite has no type for:
// timestamps, shapes and evidence as JSON text, severities as names, and the
// sparse histogram blobs (docs/store.md, "Histogram blobs"). Pure functions,
// no SQLite: the writer encodes with them, the reader and the exports decode.
//
//   std::string blob = EncodeExponentHist(stats);
//   Status s = DecodeExponentHist(blob, &copy);  // refuses a malformed blob
#ifndef LPSIM_STORE_INTERNAL_RECORD_CODEC_H_
#define LPSIM_STORE_INTERNAL_RECORD_CODEC_H_

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/records.h"
#include "core/status.h"

namespace lpsim::store_internal {

// Bytes per sparse histogram entry: a 2-byte key and an 8-byte count.
constexpr size_t kHistEntryBytes = 10;

// The current time as ISO 8601 UTC with milliseconds: 2026-11-29T12:41:36.123Z.
std::string NowIso8601();

// [64,128]: a shape as the database and the exports write it.
std::string ShapeText(const std::vector<int64_t>& shape);
StatusOr<std::vector<int64_t>> ParseShape(const std::string& text);

// JSON has no Inf/NaN: they are written as the strings "inf", "-inf", "nan".
nlohmann::json NumberJson(double v);

std::string EvidenceJson(const std::map<std::string, double>& evidence);
StatusOr<std::map<std::string, double>> ParseEvidence(const std::string& text);

StatusOr<Severity> ParseSeverity(const std::string& s);

// Sparse histogram blobs: (key, count) pairs, little-endian, keys strictly
// increasing, zero counts omitted. Exponent histograms key by the signed
// exponent e (int16; the bin holds |x| in [2^e, 2^(e+1))), log histograms by
// the bin index (uint16).
std::string EncodeExponentHist(const TensorStats& s);
std::string EncodeLogHist(const TensorStats& s);
// Fill the histogram of `s` (zeroed first); refuse a blob that is not whole
// entries, has a key out of range or keys not strictly increasing.
Status DecodeExponentHist(const std::string& blob, TensorStats* s);
Status DecodeLogHist(const std::string& blob, TensorStats* s);

// A SampleSummary as the stats table's samples blob (docs/store.md): rows
// and positions as int64, then row_log2_rms, row_log2_offset,
// position_log2_rms, position_log2_offset, each a uint8 length (0 or
// kQuantiles + 1) and that many float32, little-endian. Decoding refuses a
// blob of another size, a negative count, another length, a NaN or +Inf
// quantile, or quantiles that decrease (-Inf is a log2 of 0: an offset whose
// mean is 0).
std::string EncodeSampleSummary(const SampleSummary& s);
Status DecodeSampleSummary(const std::string& blob, SampleSummary* s);

}  // namespace lpsim::store_internal

#endif  // LPSIM_STORE_INTERNAL_RECORD_CODEC_H_
