// The integer and block floating-point references (formats/integer.h,
// formats/block_fp.h) against an oracle in exact arithmetic.
//
// The oracle works in Boost.Multiprecision (cpp_bin_float_50, 166 bits) from
// the rules as the headers state them and shares no code with the
// references: it rounds the exact quotient x / scale to fp32 itself (RNE,
// subnormals, overflow to Inf), rounds that to an integer (half away from
// zero, half to even, or up iff bits < floor(frac * 2^32)), adds the zero
// point and clamps; for block floating point it takes E = floor(log2(amax))
// of the exact block amax, scales by 2^(M - 1 - E) exactly and rounds and
// saturates the magnitude. Stochastic rounding is checked with random bits
// and with the bits on both sides of the oracle's threshold, where the
// decision flips. fp32 values enter Boost through their integer
// significands: Boost 1.74 truncates a float or double converted into a
// narrower cpp_bin_float, and nothing here narrows.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/multiprecision/cpp_bin_float.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "formats/block_fp.h"
#include "formats/integer.h"
#include "formats/stochastic.h"
#include "tests/formats/test_util.h"

namespace lpsim {
namespace {

using Big = boost::multiprecision::cpp_bin_float_50;
using testing_util::BitsFloat;
using testing_util::FloatBits;

constexpr int kIntInputsPerCase = 40'000;
constexpr int kBfpBlocksPerCase = 4'000;
const float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

// x exactly (sign included).
Big Exact(float x) {
  int e = 0;
  const float m = std::frexp(std::fabs(x), &e);  // m in [0.5, 1), at most 24 bits
  const Big a = ldexp(Big(static_cast<uint32_t>(std::ldexp(m, 24))), e - 24);
  return std::signbit(x) ? Big(-a) : a;
}

// floor(log2(a)) for a > 0.
int FloorLog2(const Big& a) {
  int e = 0;
  frexp(a, &e);  // a = m 2^e, m in [0.5, 1)
  return e - 1;
}

// q rounded to fp32 (RNE, subnormals, Inf past the largest finite value),
// returned exactly; `inf` set when it overflowed.
Big RoundToFp32(const Big& q, bool* inf) {
  *inf = false;
  if (q == 0) return Big(0);
  const Big a = abs(q);
  const int e = std::max(FloorLog2(a), -126);
  const Big n = ldexp(a, 23 - e);  // units of the fp32 ulp at a
  Big r = floor(n);
  const Big rem = n - r;
  if (rem > Big(0.5) || (rem == Big(0.5) && fmod(r, Big(2)) != 0)) r += 1;
  const Big v = ldexp(r, e - 23);
  if (v >= ldexp(Big(1), 128)) *inf = true;
  return q < 0 ? Big(-v) : v;
}

// floor(frac(v) * 2^32): the stochastic threshold.
Big Threshold(const Big& v) { return floor(ldexp(v - floor(v), 32)); }

// --- Integer ----------------------------------------------------------------

struct IntOracle {
  int32_t q;
  bool overflow, underflow;
};

IntOracle IntQuantizeOracle(const IntFormat& f, float x, const IntQuantParams& p, IntRounding r,
                            uint32_t bits) {
  const int32_t qmin = f.qmin(), qmax = f.qmax();
  if (std::isnan(x) || x == 0.0f) return {p.zero_point, false, false};
  if (std::isinf(x)) return {x > 0 ? qmax : qmin, false, false};
  bool inf = false;
  const Big v = RoundToFp32(Exact(x) / Exact(p.scale), &inf);
  Big t;
  if (inf) {
    t = v > 0 ? qmax + 1 : qmin - 1;
  } else {
    const Big fl = floor(v);
    const Big frac = v - fl;
    switch (r) {
      case IntRounding::kHalfAway: {
        const Big a = floor(abs(v) + Big(0.5));
        t = v < 0 ? Big(-a) : a;
        break;
      }
      case IntRounding::kNearestEven:
        t = frac > Big(0.5) || (frac == Big(0.5) && fmod(fl, Big(2)) != 0) ? fl + 1 : fl;
        break;
      case IntRounding::kStochastic: t = Big(bits) < Threshold(v) ? fl + 1 : fl; break;
    }
    t += p.zero_point;
  }
  IntOracle o{0, false, false};
  if (t > qmax) {
    o.q = qmax;
    o.overflow = true;
  } else if (t < qmin) {
    o.q = qmin;
    o.overflow = true;
  } else {
    o.q = t.convert_to<int32_t>();  // an integer of at most 17 bits: exact
  }
  o.underflow = o.q == p.zero_point;
  return o;
}

class IntOracleTest : public ::testing::TestWithParam<std::string> {};

// Every rounding on: points of the grid and halfway between (ties), +-1 ulp,
// random fp32 bit patterns (Inf, NaN, subnormals, overflowing quotients),
// tiny negative quotients (frac = 1 - |v| beyond double's precision), with
// power-of-two, random and extreme scales and zero points at both ends.
TEST_P(IntOracleTest, QuantizeAndDequantize) {
  const IntFormat f = *ParseIntFormat(GetParam());
  std::mt19937_64 rng(std::hash<std::string>()(GetParam()));
  const float extreme_scales[] = {std::numeric_limits<float>::denorm_min(),
                                  std::numeric_limits<float>::min(), 1e-30f, 1.0f, 3e38f,
                                  std::numeric_limits<float>::max()};
  size_t checked = 0, ties = 0, flips = 0;
  for (int k = 0; k < kIntInputsPerCase; ++k) {
    IntQuantParams p;
    switch (rng() % 4) {
      case 0: p.scale = std::ldexp(1.0f, static_cast<int>(rng() % 40) - 20); break;
      case 1: p.scale = extreme_scales[rng() % 6]; break;
      default:
        p.scale = std::ldexp(1.0f + static_cast<float>(rng() % (1u << 23)) * 0x1p-23f,
                             static_cast<int>(rng() % 60) - 30);
    }
    const int32_t span = f.qmax() - f.qmin();
    switch (rng() % 4) {
      case 0: p.zero_point = f.qmin(); break;
      case 1: p.zero_point = f.qmax(); break;
      default: p.zero_point = f.qmin() + static_cast<int32_t>(rng() % (span + 1));
    }
    float x;
    switch (rng() % 5) {
      case 0:
      case 1: {
        const double g = static_cast<double>(static_cast<int64_t>(rng() % (4 * span + 3)) -
                                             2 * span - 1) +
                         (rng() % 2 ? 0.5 : 0.0);
        x = static_cast<float>(g * p.scale);
        if (rng() % 4 == 0) x = BitsFloat(FloatBits(x) + (rng() % 2 ? 1 : -1));
        break;
      }
      case 2: x = BitsFloat(static_cast<uint32_t>(rng())); break;
      case 3:
        // Tiny negative quotient: v in (-2^-20, 0).
        p.scale = 1.0f;
        x = -std::ldexp(1.0f + static_cast<float>(rng() % (1u << 23)) * 0x1p-23f,
                        -20 - static_cast<int>(rng() % 100));
        break;
      default: {
        const float specials[] = {0.0f, -0.0f, kInf, -kInf, kNaN,
                                  std::numeric_limits<float>::max()};
        x = specials[rng() % 6];
      }
    }
    for (IntRounding r :
         {IntRounding::kHalfAway, IntRounding::kNearestEven, IntRounding::kStochastic}) {
      std::vector<uint32_t> bit_choices = {static_cast<uint32_t>(rng())};
      if (r == IntRounding::kStochastic && std::isfinite(x) && x != 0.0f) {
        bool inf = false;
        const Big v = RoundToFp32(Exact(x) / Exact(p.scale), &inf);
        if (!inf) {
          const Big t = Threshold(v);
          if (t > 0) {
            bit_choices.push_back((t - 1).convert_to<uint32_t>());
            if (t < ldexp(Big(1), 32)) bit_choices.push_back(t.convert_to<uint32_t>());
            ++flips;
          }
        }
      }
      for (uint32_t bits : bit_choices) {
        const IntOracle want = IntQuantizeOracle(f, x, p, r, bits);
        const IntEncoded got = QuantizeIntRef(f, x, p, r, bits);
        ASSERT_EQ(got.q, want.q) << GetParam() << " " << ToString(r) << " x " << x << " scale "
                                 << p.scale << " zp " << p.zero_point << " bits " << bits;
        const bool finite_nonzero = std::isfinite(x) && x != 0.0f;
        ASSERT_EQ((got.flags & kCastOverflow) != 0, finite_nonzero && want.overflow) << x;
        ASSERT_EQ((got.flags & kCastUnderflow) != 0, finite_nonzero && want.underflow) << x;
        ++checked;
      }
      if (r == IntRounding::kHalfAway && std::isfinite(x)) {
        bool inf = false;
        const Big v = RoundToFp32(Exact(x) / Exact(p.scale), &inf);
        ties += !inf && v - floor(v) == Big(0.5);
      }
    }
    // Dequantization: scale * (q - zp) rounded to fp32 once.
    const int32_t q = f.qmin() + static_cast<int32_t>(rng() % (span + 1));
    bool inf = false;
    const Big want = RoundToFp32(Exact(p.scale) * (q - p.zero_point), &inf);
    const float got = DequantizeIntRef(q, p);
    if (inf) {
      ASSERT_TRUE(std::isinf(got)) << q;
    } else {
      ASSERT_EQ(Exact(got), want) << GetParam() << " q " << q << " scale " << p.scale;
    }
  }
  // Symmetric parameters: fp32(amax / qmax).
  for (int k = 0; k < 1000; ++k) {
    const float amax = std::fabs(BitsFloat(static_cast<uint32_t>(rng()) & 0x7f7fffffu));
    if (!(amax > 0.0f)) continue;
    bool inf = false;
    Big want = RoundToFp32(Exact(amax) / Big(f.qmax()), &inf);
    if (want == 0) want = Exact(std::numeric_limits<float>::denorm_min());
    ASSERT_EQ(Exact(SymmetricIntParams(f, amax).scale), want) << amax;
  }
  EXPECT_GT(ties, static_cast<size_t>(kIntInputsPerCase / 20)) << "too few exact ties";
  EXPECT_GT(flips, static_cast<size_t>(kIntInputsPerCase / 10)) << "too few threshold checks";
  std::printf("%s: %zu inputs, %zu ties, %zu stochastic thresholds\n", GetParam().c_str(),
              checked, ties, flips);
}

INSTANTIATE_TEST_SUITE_P(Formats, IntOracleTest,
                         ::testing::Values("int8", "uint8", "int4", "uint4", "int16",
                                           "int8:narrow", "int2"),
                         [](const ::testing::TestParamInfo<std::string>& i) {
                           std::string s = i.param;
                           for (char& c : s) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return s;
                         });

// --- Block floating point ---------------------------------------------------

class BfpOracleTest : public ::testing::TestWithParam<std::string> {};

// Blocks that are all zero, subnormal, on and between the grid of a chosen
// exponent (ties, and the top midpoint that saturates), at both ends of the
// exponent range, with specials or random bits; each through BfpQuantizeRef
// (values, exponents, counts) and each element with bits at the threshold.
TEST_P(BfpOracleTest, Quantize) {
  const BfpFormat f = *ParseBfpFormat(GetParam());
  const int m = f.magnitude_bits;
  const uint32_t max_mag = (1u << m) - 1;
  std::mt19937_64 rng(std::hash<std::string>()(GetParam()));
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const size_t cols = f.block * 3 + f.block / 2;  // a short last block
  const size_t rows = kBfpBlocksPerCase / 4;
  std::vector<float> x(rows * cols);
  for (size_t r = 0; r < rows; ++r) {
    for (size_t c0 = 0; c0 < cols; c0 += f.block) {
      const size_t c1 = std::min(cols, c0 + f.block);
      const int regime = static_cast<int>(rng() % 6);
      const int e = rng() % 3 == 0 ? (rng() % 2 ? 127 : -126) : static_cast<int>(rng() % 250) - 124;
      for (size_t c = c0; c < c1; ++c) {
        const float sign = rng() % 2 ? -1.0f : 1.0f;
        float v = 0.0f;
        switch (regime) {
          case 0: v = sign * 0.0f; break;
          case 1: v = BitsFloat(static_cast<uint32_t>(rng()) & 0x807fffffu); break;
          case 2:
          case 3: {
            const double k = static_cast<double>(rng() % (max_mag + 1));
            const double t = rng() % 3 == 0 ? 0.0 : rng() % 2 ? 0.5 : (rng() % 997) / 997.0;
            v = sign * static_cast<float>(std::ldexp(k + t, e - m + 1));
            break;
          }
          case 4: {
            const float specials[] = {kNaN, kInf, -kInf, -0.0f};
            v = rng() % 4 == 0 ? specials[rng() % 4] : std::ldexp(normal(rng), e);
            break;
          }
          default: v = BitsFloat(static_cast<uint32_t>(rng()));
        }
        x[r * cols + c] = v;
      }
      if (regime == 2) {
        x[r * cols + c0 + rng() % (c1 - c0)] =
            static_cast<float>(std::ldexp(static_cast<double>(max_mag) + 0.5, e - m + 1));
      }
    }
  }
  for (Rounding rounding : {Rounding::kNearestEven, Rounding::kTowardZero, Rounding::kStochastic}) {
    QuantizeOptions opt;
    opt.rounding = rounding;
    opt.seed = 17;
    std::vector<float> out(x.size());
    std::vector<uint8_t> exps(rows * f.BlocksPerRow(cols));
    CastCounts counts;
    BfpQuantizeRef(f, x.data(), rows, cols, opt, out.data(), exps.data(), &counts);
    const uint32_t key = StochasticKey(opt.seed);
    uint64_t overflow = 0, underflow = 0, nan_in = 0, inf_in = 0, zero_in = 0, saturated = 0;
    for (size_t r = 0; r < rows; ++r) {
      for (size_t b = 0; b < f.BlocksPerRow(cols); ++b) {
        const size_t c0 = b * f.block, c1 = std::min(cols, c0 + f.block);
        Big amax = 0;
        for (size_t c = c0; c < c1; ++c) {
          const float v = x[r * cols + c];
          if (std::isfinite(v)) amax = std::max(amax, abs(Exact(v)));
        }
        const int e = amax == 0 ? -127 : std::min(std::max(FloorLog2(amax), -127), 127);
        ASSERT_EQ(static_cast<int>(exps[r * f.BlocksPerRow(cols) + b]), e + 127)
            << GetParam() << " row " << r << " block " << b;
        for (size_t c = c0; c < c1; ++c) {
          const size_t i = r * cols + c;
          const float v = x[i];
          auto value = [&](uint32_t bits, bool* ovf, bool* und) -> Big {
            *ovf = *und = false;
            if (std::isnan(v)) return Big(0);
            if (std::isinf(v)) return ldexp(Big(max_mag), e - m + 1) * (v < 0 ? -1 : 1);
            const Big a = ldexp(abs(Exact(v)), m - 1 - e);
            Big mag = floor(a);
            const Big frac = a - mag;
            if (rounding == Rounding::kNearestEven) {
              if (frac > Big(0.5) || (frac == Big(0.5) && fmod(mag, Big(2)) != 0)) mag += 1;
            } else if (rounding == Rounding::kStochastic) {
              if (Big(bits) < floor(ldexp(frac, 32))) mag += 1;
            }
            if (mag > max_mag) {
              mag = max_mag;
              *ovf = v != 0.0f;
            }
            *und = v != 0.0f && mag == 0;
            return ldexp(mag, e - m + 1) * (std::signbit(v) ? -1 : 1);
          };
          const uint32_t bits = StochasticBits(key, opt.index_offset + i);
          bool ovf, und;
          const Big want = value(bits, &ovf, &und);
          ASSERT_EQ(Exact(out[i]), want) << GetParam() << " x " << v << " e " << e;
          ASSERT_EQ(std::signbit(out[i]), !std::isnan(v) && std::signbit(v)) << v;
          overflow += ovf;
          underflow += und;
          saturated += ovf && rounding == Rounding::kNearestEven;
          nan_in += std::isnan(v);
          inf_in += std::isinf(v);
          zero_in += v == 0.0f;
          // The stochastic decision at its threshold, element by element.
          if (rounding == Rounding::kStochastic && std::isfinite(v) && v != 0.0f) {
            const Big t = floor(ldexp(ldexp(abs(Exact(v)), m - 1 - e) -
                                          floor(ldexp(abs(Exact(v)), m - 1 - e)), 32));
            if (t > 0) {
              for (const Big& tb : {Big(t - 1), t}) {
                if (tb >= ldexp(Big(1), 32)) continue;
                const uint32_t b2 = tb.convert_to<uint32_t>();
                const Encoded enc = BfpEncodeRef(f, v, e, Rounding::kStochastic, b2);
                ASSERT_EQ(Exact(BfpDecodeRef(f, enc.code, e)), value(b2, &ovf, &und))
                    << GetParam() << " x " << v << " bits " << b2;
              }
            }
          }
        }
      }
    }
    EXPECT_EQ(counts.overflow, overflow);
    EXPECT_EQ(counts.underflow, underflow);
    EXPECT_EQ(counts.nan_in, nan_in);
    EXPECT_EQ(counts.inf_in, inf_in);
    EXPECT_EQ(counts.zero_in, zero_in);
    if (rounding == Rounding::kNearestEven) {
      EXPECT_GT(saturated, 0u) << "no block rounded into saturation";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, BfpOracleTest,
                         ::testing::Values("bfp8", "bfp4", "bfp2", "bfp8:block=7",
                                           "bfp4:block=33"),
                         [](const ::testing::TestParamInfo<std::string>& i) {
                           std::string s = i.param;
                           for (char& c : s) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return s;
                         });

}  // namespace
}  // namespace lpsim
