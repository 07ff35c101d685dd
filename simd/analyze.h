// Analyze: one pass over a tensor producing its numerics record.
//
// For a float32 (or bf16 / fp16) tensor: the fp32 exponent histogram, moments,
// extremes, a log histogram for |x| quantiles, and, in the same pass, the cast
// counts of up to kMaxAnalyzeFormats formats, each with its own scale and
// rounding. This record is what the tracker stores per tensor and step and
// what checks/ and report/ read.
//
//   std::vector<FormatSlot> slots = {{e4m3fn, 448 / amax}, {e5m2}};
//   AnalyzeResult r = simd::Analyze(x, n, slots);
//   r.stats.Quantile(0.99);  r.formats[0].underflow;
#ifndef LPSIM_SIMD_ANALYZE_H_
#define LPSIM_SIMD_ANALYZE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/tensor_stats.h"
#include "formats/format.h"
#include "formats/reference.h"

namespace lpsim {

constexpr size_t kMaxAnalyzeFormats = 8;

// One candidate format in an analysis: the cast sees x * scale.
struct FormatSlot {
  Format format;
  float scale = 1.0f;  // finite, > 0
  Rounding rounding = Rounding::kNearestEven;
  uint64_t seed = 0;
};

struct AnalyzeResult {
  TensorStats stats;
  std::vector<CastCounts> formats;  // one per slot, in slot order
};

namespace simd {

// At most kMaxAnalyzeFormats slots; more are ignored. Slot s's counts equal
// QuantizeRef's for {rounding, seed, scale, index_offset = 0}. Bit-identical
// to AnalyzeRef for any SIMD target and thread count.
AnalyzeResult Analyze(const float* x, size_t n, const std::vector<FormatSlot>& slots,
                      int threads = 1);
// bf16 / fp16 tensors (raw 16-bit patterns), widened exactly to fp32 (fp16
// NaNs become the canonical fp32 NaN; they are only counted).
AnalyzeResult AnalyzeBf16(const uint16_t* x, size_t n, const std::vector<FormatSlot>& slots,
                          int threads = 1);
AnalyzeResult AnalyzeFp16(const uint16_t* x, size_t n, const std::vector<FormatSlot>& slots,
                          int threads = 1);

// The scalar twin every SIMD target is tested against.
AnalyzeResult AnalyzeRef(const float* x, size_t n, const std::vector<FormatSlot>& slots);

}  // namespace simd
}  // namespace lpsim

#endif  // LPSIM_SIMD_ANALYZE_H_
