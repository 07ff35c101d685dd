// simd::Analyze against simd::AnalyzeRef (bit for bit, every target) and
// AnalyzeRef's statistics against independent high-precision computations.
#include "simd/analyze.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/multiprecision/cpp_bin_float.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "formats/fixed_sum.h"
#include "formats/reference.h"
#include "tests/simd/test_util.h"

namespace lpsim {
namespace {

using testing_simd::AdversarialData;
using testing_simd::Bits;
using testing_simd::FromBits;
using testing_simd::SameCounts;
using Big = boost::multiprecision::cpp_bin_float_50;

// Observed worst cases are printed by the tests; these bounds leave a margin.
// Mean and rms: relative to the rms of the data (the scale of the terms).
constexpr double kMeanTolerance = 1e-13;
constexpr double kRmsTolerance = 1e-13;
// std: relative to the exact std, times the conditioning of the shifted sums
// 1 + ((mean - K) / std)^2 (K = the first finite element, analyze.h).
constexpr double kStdTolerance = 1e-12;

uint64_t DoubleBits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, sizeof b);
  return b;
}

::testing::AssertionResult SameStats(const TensorStats& a, const TensorStats& b) {
  auto fail = [](const char* what) { return ::testing::AssertionFailure() << what << " differs"; };
  if (a.count != b.count) return fail("count");
  if (a.zeros != b.zeros) return fail("zeros");
  if (a.nans != b.nans) return fail("nans");
  if (a.pos_infs != b.pos_infs) return fail("pos_infs");
  if (a.neg_infs != b.neg_infs) return fail("neg_infs");
  for (int i = 0; i < TensorStats::kExponentBins; ++i) {
    if (a.exponent_hist[i] != b.exponent_hist[i]) {
      return ::testing::AssertionFailure() << "exponent bin " << i - 149 << ": "
                                           << a.exponent_hist[i] << " vs " << b.exponent_hist[i];
    }
  }
  if (a.log_hist != b.log_hist) return fail("log_hist");
  if (DoubleBits(a.mean) != DoubleBits(b.mean)) {
    return ::testing::AssertionFailure() << "mean " << a.mean << " vs " << b.mean;
  }
  if (DoubleBits(a.std) != DoubleBits(b.std)) {
    return ::testing::AssertionFailure() << "std " << a.std << " vs " << b.std;
  }
  if (DoubleBits(a.rms) != DoubleBits(b.rms)) return fail("rms");
  if (Bits(a.min) != Bits(b.min)) return fail("min");
  if (Bits(a.max) != Bits(b.max)) return fail("max");
  if (Bits(a.min_abs) != Bits(b.min_abs)) return fail("min_abs");
  if (Bits(a.max_abs) != Bits(b.max_abs)) return fail("max_abs");
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult SameResult(const AnalyzeResult& a, const AnalyzeResult& b) {
  ::testing::AssertionResult s = SameStats(a.stats, b.stats);
  if (!s) return s;
  if (a.formats.size() != b.formats.size()) {
    return ::testing::AssertionFailure() << a.formats.size() << " vs " << b.formats.size()
                                         << " format results";
  }
  for (size_t i = 0; i < a.formats.size(); ++i) {
    s = SameCounts(a.formats[i], b.formats[i]);
    if (!s) return s << " (slot " << i << ")";
  }
  return ::testing::AssertionSuccess();
}

std::vector<FormatSlot> Slots(size_t count) {
  const char* names[] = {"e4m3fn", "e5m2", "e2m1fn:ftz", "bf16", "e3m2fn", "e4m3fnuz:sat",
                         "e8m0fnu", "fp16", "e2m3fn"};
  const float scales[] = {1.0f, 448.0f, 0.25f, 1e-30f, 3.0f, 1e30f, 1.0f, 2.0f, 0.5f};
  const Rounding roundings[] = {Rounding::kNearestEven, Rounding::kStochastic,
                                Rounding::kTowardZero};
  std::vector<FormatSlot> slots;
  for (size_t i = 0; i < count; ++i) {
    FormatSlot s{*ParseFormat(names[i % 9])};
    s.scale = scales[i % 9];
    s.rounding = roundings[i % 3];
    s.seed = 100 + i;
    slots.push_back(s);
  }
  return slots;
}

// Wide-range data for statistics: mixed magnitudes from 2^-140 to 2^120.
std::vector<float> MixedData(size_t n, uint64_t seed) {
  const Format f = *ParseFormat("e5m2");
  std::vector<float> x = AdversarialData(f, 1.0f, n, seed);
  return x;
}

class SimdAnalyze : public testing_simd::PerTarget {};

TEST_P(SimdAnalyze, MatchesReferenceSizesOffsetsSlots) {
  const std::vector<float> data = MixedData(3 * kSumChunk + 100, 17);
  for (size_t num_slots : {0, 1, 4, 8, 9}) {
    const std::vector<FormatSlot> slots = Slots(num_slots);
    for (size_t n : {size_t{0}, size_t{1}, size_t{7}, size_t{8}, size_t{9}, size_t{15},
                     size_t{16}, size_t{17}, size_t{33}, size_t{1000}, size_t{2049},
                     kSumChunk - 1, kSumChunk + 3, 3 * kSumChunk + 97}) {
      for (size_t offset : {size_t{0}, size_t{1}, size_t{3}}) {
        const AnalyzeResult want = simd::AnalyzeRef(data.data() + offset, n, slots);
        const AnalyzeResult got = simd::Analyze(data.data() + offset, n, slots);
        ASSERT_TRUE(SameResult(got, want)) << "n=" << n << " offset=" << offset
                                           << " slots=" << num_slots;
        ASSERT_EQ(got.formats.size(), std::min<size_t>(num_slots, kMaxAnalyzeFormats));
      }
    }
  }
}

TEST_P(SimdAnalyze, SlotCountsEqualQuantizeRef) {
  for (const Format& f : testing_simd::TestFormats()) {
    const std::vector<float> data = AdversarialData(f, 2.0f, 5000, 23);
    FormatSlot slot{f};
    slot.scale = 2.0f;
    slot.rounding = Rounding::kStochastic;
    slot.seed = 5;
    const AnalyzeResult got = simd::Analyze(data.data(), data.size(), {slot, slot});
    QuantizeOptions opt;
    opt.rounding = slot.rounding;
    opt.scale = slot.scale;
    opt.seed = slot.seed;
    std::vector<float> q(data.size());
    CastCounts want;
    QuantizeRef(f, data.data(), data.size(), opt, q.data(), &want);
    ASSERT_TRUE(SameCounts(got.formats[0], want)) << f.name();
    ASSERT_TRUE(SameCounts(got.formats[1], want)) << f.name();
  }
}

TEST_P(SimdAnalyze, NonFiniteResultsOnlyInSomeChunks) {
  // A format whose cast overflows to Inf in one chunk only: that slot's sum of
  // x^2 cannot be shared with the statistics' there.
  const size_t n = 4 * kSumChunk;
  std::vector<float> x(n);
  std::mt19937 rng(1);
  std::normal_distribution<float> nd;
  for (float& v : x) v = nd(rng);
  x[kSumChunk + 5] = 1e6f;  // e5m2 -> Inf, e4m3fn -> NaN
  x[3 * kSumChunk + 8] = std::numeric_limits<float>::quiet_NaN();
  const std::vector<FormatSlot> slots = {{*ParseFormat("e5m2")}, {*ParseFormat("e4m3fn")},
                                         {*ParseFormat("e4m3fn:sat")}};
  EXPECT_TRUE(SameResult(simd::Analyze(x.data(), n, slots), simd::AnalyzeRef(x.data(), n, slots)));
}

TEST_P(SimdAnalyze, ThreadCountDoesNotChangeResults) {
  const size_t n = 3 * (size_t{1} << 18) + 555;
  const std::vector<float> data = MixedData(n, 4);
  const std::vector<FormatSlot> slots = Slots(4);
  const AnalyzeResult want = simd::AnalyzeRef(data.data(), n, slots);
  for (int threads : {1, 2, 3}) {
    EXPECT_TRUE(SameResult(simd::Analyze(data.data(), n, slots, threads), want))
        << threads << " threads";
  }
}

TEST_P(SimdAnalyze, Bf16AndFp16Sources) {
  std::mt19937_64 rng(9);
  for (size_t n : {size_t{0}, size_t{5}, size_t{1000}, kSumChunk + 77}) {
    std::vector<uint16_t> raw(n);
    for (uint16_t& r : raw) r = static_cast<uint16_t>(rng());
    const std::vector<FormatSlot> slots = Slots(3);
    std::vector<float> wide(n);
    for (size_t i = 0; i < n; ++i) wide[i] = FromBits(static_cast<uint32_t>(raw[i]) << 16);
    EXPECT_TRUE(SameResult(simd::AnalyzeBf16(raw.data(), n, slots),
                           simd::AnalyzeRef(wide.data(), n, slots)))
        << "bf16 n=" << n;
    const Format fp16 = *ParseFormat("fp16");
    for (size_t i = 0; i < n; ++i) wide[i] = DecodeRef(fp16, raw[i]);
    EXPECT_TRUE(SameResult(simd::AnalyzeFp16(raw.data(), n, slots, 2),
                           simd::AnalyzeRef(wide.data(), n, slots)))
        << "fp16 n=" << n;
  }
}

TEST_P(SimdAnalyze, CommonCaseBlocksWithRareExceptions) {
  // Analyze's fused loop (statistics + slot 0 in one pass, special values
  // detected per block afterwards) on mostly ordinary data, with the cases
  // that must send a block or a vector back to the exact path.
  const size_t n = 3 * kSumChunk + 1000;
  std::mt19937 rng(31);
  std::normal_distribution<float> nd;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  for (int variant = 0; variant < 8; ++variant) {
    std::vector<float> x(n);
    for (float& v : x) v = rng() % 16 == 0 ? 0.0f : nd(rng) * 0.01f;
    switch (variant) {
      case 0: break;                                           // clean
      case 1: x[2048 * 3 + 17] = nan; x[kSumChunk + 5000] = inf; break;
      case 2: x[4100] = -inf; x[2 * kSumChunk + 9] = FromBits(0x00000123u); break;
      case 3: for (size_t i = 0; i < n; i += 777) x[i] = 1e-9f; break;  // below e4m3 normals
      case 4: x[5000] = 2e-38f; break;  // an fp32 normal that scales to 0 with 2e-8
      case 5: for (size_t i = 0; i < 4096; ++i) x[i] = -std::fabs(x[i]) - 1.0f; break;
      case 6: for (size_t i = 4096; i < 8192; ++i) x[i] = (i % 2) ? 0.0f : -0.0f; break;
      case 7: for (size_t i = 0; i < n; i += 3) x[i] = 3e4f; break;      // e5m2/e4m3 overflow
    }
    struct Candidate {
      const char* format;
      float scale;
      Rounding rounding;
    };
    const Candidate slot0s[] = {{"e4m3fn", 1.0f, Rounding::kNearestEven},
                                {"e4m3fn", 448.0f / 0.05f, Rounding::kStochastic},
                                {"e5m2", 2.0f, Rounding::kTowardZero},
                                {"bf16", 1.0f, Rounding::kNearestEven},
                                {"e2m1fn", 100.0f, Rounding::kNearestEven},
                                // 2e-38 scales to 0, the data stays normal:
                                {"e7m3:bias=100", 2e-8f, Rounding::kNearestEven},
                                {"fp16", 1.0f, Rounding::kNearestEven}};
    for (const Candidate& c : slot0s) {
      const StatusOr<Format> f = ParseFormat(c.format);
      ASSERT_TRUE(f.ok()) << c.format;
      FormatSlot s0{f.value()};
      s0.scale = c.scale;
      s0.rounding = c.rounding;
      s0.seed = 3;
      for (size_t num_slots : {1, 2}) {
        std::vector<FormatSlot> slots = {s0};
        if (num_slots == 2) slots.push_back(FormatSlot{*ParseFormat("e5m2")});
        const AnalyzeResult want = simd::AnalyzeRef(x.data(), n, slots);
        for (int threads : {1, 2}) {
          ASSERT_TRUE(SameResult(simd::Analyze(x.data(), n, slots, threads), want))
              << "variant " << variant << " slot0 " << c.format << " scale " << c.scale
              << " slots " << num_slots << " threads " << threads;
        }
      }
    }
    // No slots: statistics alone.
    ASSERT_TRUE(SameResult(simd::Analyze(x.data(), n, {}), simd::AnalyzeRef(x.data(), n, {})))
        << "variant " << variant;
  }
}

TEST_P(SimdAnalyze, SlotBlocksAroundTheSubnormalRange) {
  // Clean blocks (no fp32 specials or subnormals) whose scaled values sit on
  // and around the multiples of the format's quantum below and above its
  // smallest normal: the per-slot block kernel (SlotBlock) rounds these on
  // the fp32 bits with a per-lane shift; ties, the k = 23 binade [Q, 2Q),
  // values below Q/2 and the carry into 2^emin are all here. Each chunk also
  // holds a value near max so blocks stay below overflow, and zeros.
  const char* formats[] = {"e2m1fn", "e3m2fn", "e2m3fn", "e4m3fn", "e5m2",
                           "fp16",   "e4m3fnuz", "e5m2fnuz", "e3m4"};
  const float scales[] = {1.0f, 6.0f / 0.37f, 0.8125f, 1.0f / 3.0f};
  std::mt19937 rng(77);
  for (const char* name : formats) {
    const Format f = *ParseFormat(name);
    const int m = f.mantissa_bits();
    const float quantum = std::ldexp(1.0f, f.min_normal_exponent() - m);
    for (float scale : scales) {
      const size_t n = 2 * kSumChunk + 2048 + 40;
      std::vector<float> x(n);
      for (size_t i = 0; i < n; ++i) {
        float v;
        switch (rng() % 6) {
          case 0: v = 0.0f; break;
          case 1: {  // a multiple of Q/4 up to 2^(m + 2) Q, +-0..2 ulps
            const float base = quantum / 4 * static_cast<float>(rng() % (16u << m));
            v = FromBits(Bits(base) + (rng() % 5) - 2);
            break;
          }
          case 2: v = quantum * std::ldexp(static_cast<float>(rng() % 1000) / 1000.0f, -(int)(rng() % 30)); break;
          default: v = quantum * std::ldexp(1.0f + static_cast<float>(rng() % 4096) / 4096.0f,
                                            static_cast<int>(rng() % (m + 6)) - 2);
        }
        if (!(std::fabs(v) >= std::numeric_limits<float>::min())) v = 0.0f;  // keep blocks clean
        x[i] = (rng() % 2 ? -v : v) / scale;
        if (!std::isfinite(x[i]) || (x[i] != 0.0f && std::fabs(x[i]) < std::numeric_limits<float>::min())) x[i] = 0.0f;
      }
      for (size_t i = 100; i < n; i += 4096) x[i] = f.MaxValue() * 0.9f / scale;
      for (Rounding r : {Rounding::kNearestEven, Rounding::kTowardZero, Rounding::kStochastic}) {
        FormatSlot slot{f};
        slot.scale = scale;
        slot.rounding = r;
        slot.seed = 11;
        // Slot 1 (never fused into the statistics loop) and slot 0.
        const std::vector<FormatSlot> slots = {FormatSlot{*ParseFormat("bf16")}, slot, slot};
        const AnalyzeResult want = simd::AnalyzeRef(x.data(), n, slots);
        ASSERT_TRUE(SameResult(simd::Analyze(x.data(), n, slots), want))
            << name << " scale " << scale << " rounding " << ToString(r);
        EXPECT_GT(want.formats[1].subnormal + want.formats[1].underflow, 0u) << name;
      }
    }
  }
}

// Slot 0 rides the statistics loop only while its values stay in the
// format's normal range: chunks alternate between values that do (fused) and
// values mostly below it (SlotBlock's per-lane shift), so the decision flips
// both ways across chunks and inside one; bf16 (not `common`, normal-only
// blocks) sits in slot 1.
TEST_P(SimdAnalyze, FusedSlotFollowsTheRangeAcrossChunks) {
  const Format e2m1 = *ParseFormat("e2m1fn");
  const float scale = 6.0f / 0.75f;
  const size_t n = 7 * kSumChunk + 3 * 2048 + 13;
  std::vector<float> x(n);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> normal_range(1.0f, 5.5f);   // scaled: e2m1 normals
  std::uniform_real_distribution<float> below(0.01f, 1.0f);         // scaled: subnormals, underflow
  for (size_t i = 0; i < n; ++i) {
    const size_t chunk = i / kSumChunk;
    const bool in_range = chunk % 3 == 0 || (chunk == 4 && (i / 2048) % 2 == 0);
    const float v = i % 17 == 0 ? 0.0f : (in_range ? normal_range(rng) : below(rng)) / scale;
    x[i] = rng() % 2 ? -v : v;
  }
  for (Rounding r : {Rounding::kNearestEven, Rounding::kTowardZero, Rounding::kStochastic}) {
    FormatSlot slot{e2m1};
    slot.scale = scale;
    slot.rounding = r;
    slot.seed = 3;
    const std::vector<FormatSlot> slots = {slot, FormatSlot{*ParseFormat("bf16")}};
    const AnalyzeResult want = simd::AnalyzeRef(x.data(), n, slots);
    ASSERT_TRUE(SameResult(simd::Analyze(x.data(), n, slots), want)) << ToString(r);
    ASSERT_TRUE(SameResult(simd::Analyze(x.data(), n, slots, 2), want)) << ToString(r);
    EXPECT_GT(want.formats[0].subnormal, 0u);
    EXPECT_GT(want.formats[0].underflow, 0u);
  }
}

LPSIM_INSTANTIATE_PER_TARGET(SimdAnalyze);

// ---- The reference's statistics against independent computations.

struct Exact {
  Big mean, std, rms;
};

Exact ExactMoments(const std::vector<float>& x) {
  Big sum = 0, n = 0;
  for (float v : x) {
    if (std::isfinite(v)) {
      sum += Big(v);
      n += 1;
    }
  }
  Exact e;
  e.mean = sum / n;
  Big var = 0, sq = 0;
  for (float v : x) {
    if (std::isfinite(v)) {
      var += (Big(v) - e.mean) * (Big(v) - e.mean);
      sq += Big(v) * Big(v);
    }
  }
  e.std = boost::multiprecision::sqrt(var / n);
  e.rms = boost::multiprecision::sqrt(sq / n);
  return e;
}

void ExpectMomentsClose(const std::vector<float>& x, const char* what) {
  const TensorStats s = simd::Analyze(x.data(), x.size(), {}).stats;
  const Exact e = ExactMoments(x);
  const double rms = static_cast<double>(e.rms);
  const double mean_err = std::fabs(s.mean - static_cast<double>(e.mean)) / rms;
  const double rms_err = std::fabs(s.rms - rms) / rms;
  const double exact_std = static_cast<double>(e.std);
  const double std_err = exact_std == 0 ? s.std : std::fabs(s.std - exact_std) / exact_std;
  double k = 0;
  for (float v : x) {
    if (std::isfinite(v)) { k = v; break; }
  }
  const double shift = (static_cast<double>(e.mean) - k) / exact_std;
  const double condition = 1 + shift * shift;
  std::printf("[ moments  ] %-28s mean err %.3g (of rms), std err %.3g (condition %.3g), "
              "rms err %.3g\n", what, mean_err, std_err, condition, rms_err);
  EXPECT_LE(mean_err, kMeanTolerance) << what;
  EXPECT_LE(std_err, kStdTolerance * condition) << what;
  EXPECT_LE(rms_err, kRmsTolerance) << what;
}

TEST(SimdAnalyzeAccuracy, MomentsOnAdversarialData) {
  std::mt19937_64 rng(31);
  const size_t n = 2 * kSumChunk + 1234;
  std::vector<float> x(n);
  // Huge dynamic range: magnitudes 2^-100 .. 2^100, both signs.
  std::uniform_int_distribution<int> ex(-100, 100);
  std::uniform_real_distribution<float> mant(1.0f, 2.0f);
  for (float& v : x) v = (rng() % 2 ? -1.0f : 1.0f) * std::ldexp(mant(rng), ex(rng));
  ExpectMomentsClose(x, "dynamic range 2^+-100");
  // Large offset, small spread (cancellation in naive formulas).
  std::normal_distribution<float> nd(0.0f, 1.0f);
  for (float& v : x) v = 1e6f + nd(rng);
  ExpectMomentsClose(x, "1e6 + N(0,1)");
  // ... and the first element far from the rest (K is a bad shift).
  x[0] = -1e7f;
  ExpectMomentsClose(x, "1e6 + N(0,1), x0 = -1e7");
  // A single NaN and Infs are left out of the moments.
  for (float& v : x) v = nd(rng);
  x[n / 2] = std::numeric_limits<float>::quiet_NaN();
  x[7] = std::numeric_limits<float>::infinity();
  x[0] = -std::numeric_limits<float>::infinity();
  ExpectMomentsClose(x, "N(0,1) + NaN + Infs");
}

TEST(SimdAnalyzeAccuracy, AllEqualHasZeroStd) {
  for (float v : {3.14159f, -1e30f, 1e-40f, 0.0f}) {
    std::vector<float> x(3 * kSumChunk + 5, v);
    x[1] = std::numeric_limits<float>::quiet_NaN();  // first element stays the shift
    const TensorStats s = simd::Analyze(x.data(), x.size(), {}, 2).stats;
    EXPECT_EQ(s.std, 0.0) << v;
    EXPECT_EQ(s.mean, static_cast<double>(v)) << v;
    EXPECT_EQ(s.min, v);
    EXPECT_EQ(s.max, v);
    EXPECT_EQ(s.nans, 1u);
  }
}

TEST(SimdAnalyzeAccuracy, CountersExtremesAndHistogramsFromFirstPrinciples) {
  const std::vector<float> x = MixedData(50000, 77);
  const TensorStats s = simd::Analyze(x.data(), x.size(), {}).stats;
  uint64_t zeros = 0, nans = 0, pinf = 0, ninf = 0;
  std::vector<uint64_t> exp_bins(TensorStats::kExponentBins, 0);
  float mn = std::numeric_limits<float>::infinity(), mx = -mn, mn_abs = mx * -1, mx_abs = 0;
  bool any_finite = false;
  for (float v : x) {
    if (std::isnan(v)) { ++nans; continue; }
    if (std::isinf(v)) { (v > 0 ? pinf : ninf)++; continue; }
    any_finite = true;
    mn = std::min(mn, v);
    mx = std::max(mx, v);
    mx_abs = std::max(mx_abs, std::fabs(v));
    if (v == 0) { ++zeros; continue; }
    mn_abs = std::min(mn_abs, std::fabs(v));
    ++exp_bins[std::ilogb(v) - TensorStats::kMinExponent];
  }
  ASSERT_TRUE(any_finite);
  EXPECT_EQ(s.count, x.size());
  EXPECT_EQ(s.zeros, zeros);
  EXPECT_EQ(s.nans, nans);
  EXPECT_EQ(s.pos_infs, pinf);
  EXPECT_EQ(s.neg_infs, ninf);
  EXPECT_EQ(s.min, mn);
  EXPECT_EQ(s.max, mx);
  EXPECT_EQ(s.min_abs, mn_abs);
  EXPECT_EQ(s.max_abs, mx_abs);
  for (int i = 0; i < TensorStats::kExponentBins; ++i) {
    EXPECT_EQ(s.exponent_hist[i], exp_bins[i]) << "exponent " << i + TensorStats::kMinExponent;
  }
  uint64_t log_total = 0;
  for (uint64_t c : s.log_hist) log_total += c;
  EXPECT_EQ(log_total, s.finite() - s.zeros);
}

TEST(SimdAnalyzeAccuracy, NegativeZeroOrdersBelowPositiveZero) {
  const std::vector<float> x = {0.0f, -0.0f, 0.0f};
  const TensorStats s = simd::Analyze(x.data(), x.size(), {}).stats;
  EXPECT_EQ(Bits(s.min), Bits(-0.0f));
  EXPECT_EQ(Bits(s.max), Bits(0.0f));
  EXPECT_EQ(s.min_abs, 0.0f);
  EXPECT_EQ(s.zeros, 3u);
}

TEST(SimdAnalyzeAccuracy, EmptyAndNonFiniteOnly) {
  const TensorStats e = simd::Analyze(nullptr, 0, {}).stats;
  EXPECT_EQ(e.count, 0u);
  EXPECT_TRUE(std::isnan(e.mean));
  EXPECT_EQ(e.Quantile(0.5), 0.0f);
  const std::vector<float> x = {std::numeric_limits<float>::quiet_NaN(),
                                std::numeric_limits<float>::infinity()};
  const TensorStats s = simd::Analyze(x.data(), x.size(), {}).stats;
  EXPECT_EQ(s.finite(), 0u);
  EXPECT_TRUE(std::isnan(s.std));
  EXPECT_EQ(s.max_abs, 0.0f);
  EXPECT_EQ(s.min, 0.0f);
}

TEST(SimdAnalyzeAccuracy, QuantileWithinStatedError) {
  std::mt19937_64 rng(5);
  std::lognormal_distribution<float> ln(0.0f, 6.0f);
  std::vector<float> x(100000);
  for (float& v : x) v = (rng() % 2 ? -1 : 1) * ln(rng);
  x[3] = 0.0f;
  x[4] = std::numeric_limits<float>::quiet_NaN();
  const TensorStats s = simd::Analyze(x.data(), x.size(), {}).stats;
  std::vector<float> mags;
  for (float v : x) {
    if (std::isfinite(v) && v != 0) mags.push_back(std::fabs(v));
  }
  std::sort(mags.begin(), mags.end());
  double worst = 0;
  for (double p : {0.0, 0.01, 0.25, 0.5, 0.75, 0.99, 1.0}) {
    const size_t rank = std::max<size_t>(1, static_cast<size_t>(std::ceil(p * mags.size())));
    const float exact = mags[rank - 1];
    const double rel = std::fabs(s.Quantile(p) - exact) / exact;
    worst = std::max(worst, rel);
    EXPECT_LE(rel, TensorStats::kQuantileRelativeError) << "p=" << p;
  }
  std::printf("[ quantile ] worst relative error %.4f (bound %.4f)\n", worst,
              TensorStats::kQuantileRelativeError);
}

}  // namespace
}  // namespace lpsim
