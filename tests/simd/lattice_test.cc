// simd::IntQuantize / IntQuantizeWith / BfpQuantize against their scalar
// references (formats/integer.h, formats/block_fp.h) bit for bit, on every
// compiled SIMD target: outputs, parameters, shared exponents and counts,
// over sizes around the vector length, rows that straddle summation chunks,
// ties, NaN/Inf, saturation, zero points at both ends, all-zero and
// subnormal blocks, in place and threaded.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "formats/block_fp.h"
#include "formats/fixed_sum.h"
#include "formats/integer.h"
#include "formats/stochastic.h"
#include "simd/block_fp.h"
#include "simd/integer.h"
#include "tests/simd/test_util.h"

namespace lpsim {
namespace {

using testing_simd::AdversarialData;
using testing_simd::FromBits;
using testing_simd::SameBits;
using testing_simd::SameCounts;

const float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

// (rows, cols): single elements, around every vector width (4, 8, 16 lanes)
// and the bfp block of 16, odd rows that start off the accumulator lanes,
// and rows that straddle a summation chunk.
const std::vector<std::pair<size_t, size_t>>& Shapes() {
  static const std::vector<std::pair<size_t, size_t>> kShapes = {
      {1, 1},  {1, 3},  {1, 7},  {1, 8},   {1, 15},  {1, 16},  {1, 17},   {1, 31},
      {1, 33}, {3, 5},  {5, 7},  {4, 16},  {7, 33},  {2, 100}, {33, 31},  {1, 1000},
      {3, kSumChunk / 2 + 7},   {1, 2 * kSumChunk + 5}, {2 * kSumChunk / 16 + 3, 16}};
  return kShapes;
}

// Integer data: adversarial fp32 (specials, subnormals, any magnitude) in
// some rows; in others values on and halfway between the grid of a
// power-of-two scale, so ties really are ties: the row's largest value
// fixes the scale (symmetric: amax / qmax).
std::vector<float> IntData(const IntFormat& f, size_t rows, size_t cols, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<float> x = AdversarialData(*ParseFormat("e5m2"), 1.0f, rows * cols, seed);
  for (size_t r = 0; r < rows; ++r) {
    if (rng() % 3 == 0) continue;
    const int e = static_cast<int>(rng() % 20) - 10;
    const int32_t qmax = f.qmax();
    for (size_t c = 0; c < cols; ++c) {
      const int32_t k = static_cast<int32_t>(rng() % (2 * qmax + 1)) - qmax;
      double v = k;
      switch (rng() % 4) {
        case 0: break;
        case 1: v += 0.5; break;
        case 2: v -= 0.5; break;
        default: v += std::ldexp(static_cast<double>(rng() % 2000) - 1000.0, -12);
      }
      x[r * cols + c] = static_cast<float>(std::ldexp(std::max(std::min(v, double(qmax)),
                                                               -double(qmax)), e));
    }
    x[r * cols] = std::ldexp(static_cast<float>(qmax), e);  // amax: scale 2^e
  }
  return x;
}

const std::vector<IntFormat>& IntFormats() {
  static const std::vector<IntFormat> kFormats = [] {
    std::vector<IntFormat> out;
    for (const char* spec : {"int8", "uint8", "int4", "uint4", "int16", "int8:narrow", "int2",
                             "uint2", "int4:narrow"}) {
      out.push_back(*ParseIntFormat(spec));
    }
    return out;
  }();
  return kFormats;
}

using SimdInteger = testing_simd::PerTarget;

TEST_P(SimdInteger, MatchesReference) {
  uint64_t seed = 1;
  for (const IntFormat& f : IntFormats()) {
    for (const auto& [rows, cols] : Shapes()) {
      const size_t n = rows * cols;
      // Large shapes: one format's worth is enough.
      if (n > 4096 && f.name != "int8" && f.name != "uint4") continue;
      const std::vector<float> x = IntData(f, rows, cols, ++seed);
      for (IntRounding r :
           {IntRounding::kHalfAway, IntRounding::kNearestEven, IntRounding::kStochastic}) {
        for (int mode = 0; mode < 4; ++mode) {
          IntQuantizeOptions o;
          o.per_row = mode & 1;
          o.symmetric = mode & 2;
          o.rounding = r;
          o.seed = seed;
          o.index_offset = (uint64_t{1} << 32) - 5;  // stochastic index wraps the low word
          std::vector<float> want(n), got(n, -1.0f);
          std::vector<IntQuantParams> want_p, got_p;
          CastCounts want_c, got_c;
          IntQuantizeRef(f, x.data(), rows, cols, o, want.data(), &want_p, &want_c);
          simd::IntQuantize(f, x.data(), rows, cols, o, got.data(), &got_p, &got_c);
          const std::string what = f.name + " " + ToString(r) + " mode " + std::to_string(mode) +
                                   " " + std::to_string(rows) + "x" + std::to_string(cols);
          ASSERT_TRUE(SameBits(got.data(), want.data(), n)) << what;
          ASSERT_TRUE(SameCounts(got_c, want_c)) << what;
          ASSERT_EQ(got_p, want_p) << what;
          // In place, without counts.
          std::vector<float> inplace = x;
          simd::IntQuantize(f, inplace.data(), rows, cols, o, inplace.data(), nullptr, &got_c);
          ASSERT_TRUE(SameBits(inplace.data(), want.data(), n)) << what << " in place";
          ASSERT_TRUE(SameCounts(got_c, want_c)) << what << " in place";
          // Without counts (the kernels' other instantiation).
          simd::IntQuantize(f, x.data(), rows, cols, o, got.data(), nullptr, nullptr);
          ASSERT_TRUE(SameBits(got.data(), want.data(), n)) << what << " no counts";
        }
      }
    }
  }
}

// Calibrated parameters: values far outside the grid saturate; zero points
// at qmin and qmax; power-of-two scales with exact ties; a scale so small
// that x / scale overflows fp32; a huge one that dequantizes to Inf.
TEST_P(SimdInteger, GivenParamsSaturateAndTie) {
  std::mt19937_64 rng(7);
  for (const IntFormat& f : IntFormats()) {
    const std::vector<IntQuantParams> cases = {
        {0.25f, f.qmin()}, {0.25f, f.qmax()}, {0.25f, 0 < f.qmin() ? f.qmin() : 0},
        {1.0f, (f.qmin() + f.qmax()) / 2}, {1e-38f, f.qmax()}, {3.0e38f, f.qmin()},
        {0.1f, f.qmin() + 1}};
    for (const auto& [rows, cols] : Shapes()) {
      if (rows * cols > 4096) continue;
      const size_t n = rows * cols;
      std::vector<float> x = AdversarialData(*ParseFormat("e4m3fn"), 1.0f, n, rng());
      for (size_t i = 0; i < n; i += 3) {
        // Grid points and midpoints of scale 0.25 up to twice the range.
        const int32_t span = 2 * (f.qmax() - f.qmin());
        x[i] = (static_cast<float>(static_cast<int32_t>(rng() % (2 * span + 1)) - span) +
                (rng() % 2 ? 0.5f : 0.0f)) * 0.25f;
      }
      for (IntRounding r :
           {IntRounding::kHalfAway, IntRounding::kNearestEven, IntRounding::kStochastic}) {
        for (bool per_row : {false, true}) {
          IntQuantizeOptions o;
          o.per_row = per_row;
          o.rounding = r;
          o.seed = rng();
          std::vector<IntQuantParams> p(per_row ? rows : 1);
          for (IntQuantParams& g : p) g = cases[rng() % cases.size()];
          std::vector<float> want(n), got(n);
          CastCounts want_c, got_c;
          IntQuantizeWithRef(f, x.data(), rows, cols, p.data(), o, want.data(), &want_c);
          simd::IntQuantizeWith(f, x.data(), rows, cols, p.data(), o, got.data(), &got_c);
          const std::string what = f.name + " " + ToString(r) + " " + std::to_string(rows) +
                                   "x" + std::to_string(cols);
          ASSERT_TRUE(SameBits(got.data(), want.data(), n)) << what;
          ASSERT_TRUE(SameCounts(got_c, want_c)) << what;
        }
      }
    }
  }
}

// Several threads: the same bits and counts as the reference.
TEST_P(SimdInteger, Threads) {
  const IntFormat f = *ParseIntFormat("int8");
  const size_t rows = 5, cols = (size_t{1} << 18) / 2 + 3;  // 2.5 threads' worth
  const std::vector<float> x = IntData(f, rows, cols, 99);
  for (bool per_row : {false, true}) {
    IntQuantizeOptions o;
    o.per_row = per_row;
    o.symmetric = !per_row;
    std::vector<float> want(x.size()), got(x.size());
    std::vector<IntQuantParams> want_p, got_p;
    CastCounts want_c, got_c;
    IntQuantizeRef(f, x.data(), rows, cols, o, want.data(), &want_p, &want_c);
    simd::IntQuantize(f, x.data(), rows, cols, o, got.data(), &got_p, &got_c, 3);
    ASSERT_TRUE(SameBits(got.data(), want.data(), x.size()));
    ASSERT_TRUE(SameCounts(got_c, want_c));
    ASSERT_EQ(got_p, want_p);
  }
}

// Every 4099th fp32 bit pattern (all exponents, signs, NaN payloads) as
// one row, with given parameters of small, unit and large scales.
constexpr uint32_t kSweepStride = 4099;

std::vector<float> PatternSweep() {
  std::vector<float> x;
  for (uint64_t b = 0; b <= 0xffffffffu; b += kSweepStride) {
    x.push_back(FromBits(static_cast<uint32_t>(b)));
  }
  return x;
}

TEST_P(SimdInteger, Fp32PatternSweep) {
  const std::vector<float> x = PatternSweep();
  const size_t n = x.size();
  for (const char* spec : {"int8", "uint4"}) {
    const IntFormat f = *ParseIntFormat(spec);
    for (const IntQuantParams& p : {IntQuantParams{1e-20f, f.qmin() + 1}, IntQuantParams{1.0f, 0},
                                    IntQuantParams{1e20f, f.qmax()}}) {
      for (IntRounding r :
           {IntRounding::kHalfAway, IntRounding::kNearestEven, IntRounding::kStochastic}) {
        IntQuantizeOptions o;
        o.rounding = r;
        o.seed = 3;
        std::vector<float> want(n), got(n);
        CastCounts want_c, got_c;
        IntQuantizeWithRef(f, x.data(), 1, n, &p, o, want.data(), &want_c);
        simd::IntQuantizeWith(f, x.data(), 1, n, &p, o, got.data(), &got_c);
        ASSERT_TRUE(SameBits(got.data(), want.data(), n)) << spec << " " << ToString(r);
        ASSERT_TRUE(SameCounts(got_c, want_c)) << spec << " " << ToString(r);
      }
    }
  }
}

LPSIM_INSTANTIATE_PER_TARGET(SimdInteger);

// Block floating-point data, block by block: all zero (signed zeros),
// subnormal only, one subnormal among normals, values on and halfway between
// the grid of a chosen exponent (largest value (2^M - 1 + t) 2^(E-M+1), so
// the block's exponent is E and the top can round up into saturation),
// exponents at the ends of the range, fp32 specials, random bits.
std::vector<float> BfpData(const BfpFormat& f, size_t rows, size_t cols, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<float> x = AdversarialData(*ParseFormat("e4m3fn"), 1.0f, rows * cols, seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const int m = f.magnitude_bits;
  for (size_t r = 0; r < rows; ++r) {
    for (size_t c0 = 0; c0 < cols; c0 += f.block) {
      const size_t c1 = std::min(cols, c0 + f.block);
      const int regime = static_cast<int>(rng() % 8);
      if (regime == 7) continue;  // adversarial
      const int e_choices[] = {-127, -126, -125, -100, -20, 0, 5, 100, 126, 127};
      const int e = rng() % 2 ? e_choices[rng() % 10] : static_cast<int>(rng() % 255) - 127;
      for (size_t c = c0; c < c1; ++c) {
        float v = 0.0f;
        const float sign = rng() % 2 ? -1.0f : 1.0f;
        switch (regime) {
          case 0: v = sign * 0.0f; break;
          case 1: v = FromBits(static_cast<uint32_t>(rng()) & 0x807fffffu); break;
          case 2:
            v = c == c0 ? sign * FromBits(1 + static_cast<uint32_t>(rng() % 0x7fffff))
                        : std::ldexp(normal(rng), e);
            break;
          case 3:
          case 4: {
            const double k = static_cast<double>(rng() % (1u << m));
            const double t = rng() % 3 == 0 ? 0.0 : rng() % 2 ? 0.5 : (rng() % 1000) / 1000.0;
            v = sign * static_cast<float>(std::ldexp(k + t, e - m + 1));
            break;
          }
          case 5: {
            const float specials[] = {kNaN, -kNaN, kInf, -kInf, 0.0f, -0.0f,
                                      std::numeric_limits<float>::max()};
            v = rng() % 2 ? specials[rng() % 7] : std::ldexp(normal(rng), e);
            break;
          }
          default: v = FromBits(static_cast<uint32_t>(rng()));
        }
        x[r * cols + c] = v;
      }
      if (regime == 3 || regime == 4) {
        // The block's largest value, with exponent e: maybe the top midpoint.
        const double t = regime == 3 ? 0.5 : 0.25;
        x[r * cols + c0 + rng() % (c1 - c0)] = static_cast<float>(
            std::ldexp(static_cast<double>((1u << m) - 1) + t, e - m + 1));
      }
    }
  }
  return x;
}

const std::vector<BfpFormat>& BfpFormats() {
  static const std::vector<BfpFormat> kFormats = [] {
    std::vector<BfpFormat> out;
    for (const char* spec : {"bfp8", "bfp4", "bfp2", "bfp8:block=1", "bfp4:block=7",
                             "bfp8:block=33", "bfp2:block=3"}) {
      out.push_back(*ParseBfpFormat(spec));
    }
    // Wider magnitudes than the built-ins, down to shifts of 0 in
    // subnormal blocks (M = 23).
    for (int mb : {12, 23}) {
      BfpFormat f;
      f.name = "m" + std::to_string(mb);
      f.magnitude_bits = mb;
      f.block = mb == 23 ? 16 : 5;
      out.push_back(f);
    }
    return out;
  }();
  return kFormats;
}

using SimdBlockFp = testing_simd::PerTarget;

TEST_P(SimdBlockFp, MatchesReference) {
  uint64_t seed = 100;
  for (const BfpFormat& f : BfpFormats()) {
    for (const auto& [rows, cols] : Shapes()) {
      const size_t n = rows * cols;
      if (n > 4096 && f.name != "bfp8" && f.name != "bfp4:block=7") continue;
      const std::vector<float> x = BfpData(f, rows, cols, ++seed);
      for (Rounding r : {Rounding::kNearestEven, Rounding::kTowardZero, Rounding::kStochastic}) {
        QuantizeOptions o;
        o.rounding = r;
        o.seed = seed;
        o.index_offset = (uint64_t{1} << 32) - 3;
        const size_t blocks = rows * f.BlocksPerRow(cols);
        std::vector<float> want(n), got(n, -1.0f);
        std::vector<uint8_t> want_e(blocks), got_e(blocks, 0xAA);
        CastCounts want_c, got_c;
        BfpQuantizeRef(f, x.data(), rows, cols, o, want.data(), want_e.data(), &want_c);
        simd::BfpQuantize(f, x.data(), rows, cols, o, got.data(), got_e.data(), &got_c);
        const std::string what = f.name + " rounding " + std::to_string(static_cast<int>(r)) +
                                 " " + std::to_string(rows) + "x" + std::to_string(cols);
        ASSERT_TRUE(SameBits(got.data(), want.data(), n)) << what;
        ASSERT_TRUE(SameCounts(got_c, want_c)) << what;
        ASSERT_EQ(got_e, want_e) << what;
        std::vector<float> inplace = x;
        simd::BfpQuantize(f, inplace.data(), rows, cols, o, inplace.data(), nullptr, &got_c);
        ASSERT_TRUE(SameBits(inplace.data(), want.data(), n)) << what << " in place";
        ASSERT_TRUE(SameCounts(got_c, want_c)) << what << " in place";
        simd::BfpQuantize(f, x.data(), rows, cols, o, got.data(), nullptr, nullptr);
        ASSERT_TRUE(SameBits(got.data(), want.data(), n)) << what << " no counts";
      }
    }
  }
}

TEST_P(SimdBlockFp, ThreadsInPlace) {
  const BfpFormat f = *ParseBfpFormat("bfp4:block=7");
  const size_t rows = 3, cols = (size_t{1} << 18) - 5;  // rows straddle the workers
  const std::vector<float> x = BfpData(f, rows, cols, 5);
  std::vector<float> want(x.size());
  CastCounts want_c, got_c;
  BfpQuantizeRef(f, x.data(), rows, cols, {}, want.data(), nullptr, &want_c);
  std::vector<float> got = x;
  simd::BfpQuantize(f, got.data(), rows, cols, {}, got.data(), nullptr, &got_c, 3);
  ASSERT_TRUE(SameBits(got.data(), want.data(), x.size()));
  ASSERT_TRUE(SameCounts(got_c, want_c));
}

// The pattern sweep in blocks: neighbouring patterns share a block, so
// every block exponent, subnormal and NaN/Inf block is reached.
TEST_P(SimdBlockFp, Fp32PatternSweep) {
  const std::vector<float> x = PatternSweep();
  const size_t cols = 1024, rows = x.size() / cols, n = rows * cols;
  for (const char* spec : {"bfp8", "bfp2:block=3"}) {
    const BfpFormat f = *ParseBfpFormat(spec);
    for (Rounding r : {Rounding::kNearestEven, Rounding::kTowardZero, Rounding::kStochastic}) {
      QuantizeOptions o;
      o.rounding = r;
      o.seed = 4;
      std::vector<float> want(n), got(n);
      CastCounts want_c, got_c;
      BfpQuantizeRef(f, x.data(), rows, cols, o, want.data(), nullptr, &want_c);
      simd::BfpQuantize(f, x.data(), rows, cols, o, got.data(), nullptr, &got_c);
      ASSERT_TRUE(SameBits(got.data(), want.data(), n)) << spec;
      ASSERT_TRUE(SameCounts(got_c, want_c)) << spec;
    }
  }
}

LPSIM_INSTANTIATE_PER_TARGET(SimdBlockFp);

}  // namespace
}  // namespace lpsim
