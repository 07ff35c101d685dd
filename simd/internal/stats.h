// Pieces of TensorStats shared by simd::Analyze and simd::AnalyzeRef (no SIMD
// types): the per-worker partial record and the formulas that finish it, so
// both sides derive mean/std/min/max/histograms the same way.
//
//   internal::StatsPartial part;             // per worker, merged with Merge()
//   ... part.hist[bits >> 20] += 1 ...        // raw: every element
//   internal::FinishStats(part, s1, s2, s3, k, n, &stats);
#ifndef LPSIM_SIMD_INTERNAL_STATS_H_
#define LPSIM_SIMD_INTERNAL_STATS_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "formats/fixed_sum.h"
#include "simd/analyze.h"
#include "simd/internal/cast_params.h"

namespace lpsim {
namespace simd {
namespace internal {

// Raw log histogram size: (abs_bits >> 20) for every fp32, specials included
// (2040..2047 are Inf/NaN, discarded when finishing).
constexpr size_t kRawLogBins = 2048;
constexpr int kLogShift = TensorStats::kLogBinShift;
static_assert(kRawLogBins == (size_t{1} << (31 - kLogShift)), "raw histogram covers all fp32");

// Monotonic map from fp32 bits to int32 (finite values, -0 < +0), its own
// inverse on the sign-preserving half.
inline int32_t OrderKey(uint32_t bits) {
  const uint32_t flip = (bits >> 31) != 0 ? 0x7fffffffu : 0u;
  return static_cast<int32_t>(bits ^ flip);
}
inline uint32_t FromOrderKey(int32_t key) {
  return static_cast<uint32_t>(OrderKey(static_cast<uint32_t>(key)));
}

struct StatsPartial {
  // Zeros are not counted here: they are raw bin 0 minus the fp32 subnormals
  // below 2^-129 (exp_subnormal[0..19]), see Zeros().
  uint64_t nans = 0, pos_infs = 0, neg_infs = 0;
  uint64_t exp_subnormal[23] = {};  // fp32 subnormals by exponent bin 0..22
  std::vector<uint64_t> hist = std::vector<uint64_t>(kRawLogBins, 0);
  int32_t min_key = std::numeric_limits<int32_t>::max();
  int32_t max_key = std::numeric_limits<int32_t>::min();
  uint32_t min_abs_m1 = 0xffffffffu;  // min over (abs_bits - 1): zeros wrap to the top

  void Merge(const StatsPartial& o);
  uint64_t Zeros() const {
    uint64_t z = hist[0];
    for (int i = 0; i < kLogShift; ++i) z -= exp_subnormal[i];
    return z;
  }
  // Largest finite |x| as bits (0 if none): from the extremes' keys.
  uint32_t MaxAbsBits() const {
    if (min_key > max_key) return 0;
    const uint32_t a = FromOrderKey(min_key) & 0x7fffffffu;
    const uint32_t b = FromOrderKey(max_key) & 0x7fffffffu;
    return a > b ? a : b;
  }
};

// The shift K of the moment sums: the first finite element (0 if none).
// Returns its index, n if none.
size_t FirstFinite(const float* x, size_t n, float* k);

// Fills `t` from the merged partial and the fixed-order totals
// S1 = sum(x - K), S2 = sum((x - K)^2), S3 = sum(x^2) over finite x.
void FinishStats(const StatsPartial& part, size_t n, double s1, double s2, double s3, float k,
                 TensorStats* t);

// One element, scalar (AnalyzeRef and the vector loops' tails): histograms,
// counters, extremes and the lane (pos mod kSumLanes) of the moment sums.
inline void StatsElement(float x, size_t pos, double k, StatsPartial* p, double* s1, double* s2,
                         double* s3) {
  uint32_t bits;
  static_assert(sizeof bits == sizeof x, "");
  __builtin_memcpy(&bits, &x, sizeof bits);
  const uint32_t abs = bits & 0x7fffffffu;
  p->hist[abs >> kLogShift] += 1;
  p->min_abs_m1 = abs - 1 < p->min_abs_m1 ? abs - 1 : p->min_abs_m1;
  if (abs >= 0x7f800000u) {
    if (abs > 0x7f800000u) ++p->nans;
    else if (bits >> 31) ++p->neg_infs;
    else ++p->pos_infs;
    return;
  }
  if (abs != 0 && abs < 0x00800000u) ++p->exp_subnormal[31 - __builtin_clz(abs)];
  const int32_t key = OrderKey(bits);
  if (key < p->min_key) p->min_key = key;
  if (key > p->max_key) p->max_key = key;
  const double xd = static_cast<double>(x);
  const double t = xd - k;
  s1[pos % kSumLanes] += t;
  s2[pos % kSumLanes] += t * t;
  s3[pos % kSumLanes] += xd * xd;
}

// What one Analyze call hands its per-target workers (plain pointers; each
// worker writes only the chunk slots it owns).
struct AnalyzeJob {
  enum Source { kF32, kBf16, kFp16 };
  const void* src = nullptr;
  Source source = kF32;
  size_t n = 0;
  float k = 0;                          // the moment shift K
  const CastParams* fp16 = nullptr;     // decoder of fp16 sources
  const CastParams* slots = nullptr;    // one per format slot
  size_t num_slots = 0;
  double* chunk_s1 = nullptr;           // [NumSumChunks(n)] each
  double* chunk_s2 = nullptr;
  double* chunk_s3 = nullptr;
  double* slot_err[kMaxAnalyzeFormats] = {};
  double* slot_sig[kMaxAnalyzeFormats] = {};
};

}  // namespace internal
}  // namespace simd
}  // namespace lpsim

#endif  // LPSIM_SIMD_INTERNAL_STATS_H_
