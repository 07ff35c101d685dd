// Integer quantization (formats/integer.h): the parser, TFLite's parameter
// choice and rounding on hand-computed cases (an int8 per-channel tensor with
// zero points, symmetric narrow-range weights), every code's round trip and
// every midpoint for the 8- and 4-bit formats, stochastic rounding's mean,
// and a long-double oracle on random inputs.
#include "formats/integer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace lpsim {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

IntFormat I(const std::string& spec) {
  StatusOr<IntFormat> f = ParseIntFormat(spec);
  EXPECT_TRUE(f.ok()) << f.status().message();
  return f.ok() ? f.value() : IntFormat{};
}

TEST(IntFormat, RangesAndParser) {
  EXPECT_EQ(I("int8").qmin(), -128);
  EXPECT_EQ(I("int8").qmax(), 127);
  EXPECT_EQ(I("int8:narrow").qmin(), -127);
  EXPECT_EQ(I("uint8").qmin(), 0);
  EXPECT_EQ(I("uint8").qmax(), 255);
  EXPECT_EQ(I("int4").qmin(), -8);
  EXPECT_EQ(I("int4").qmax(), 7);
  EXPECT_EQ(I("uint4").qmax(), 15);
  EXPECT_EQ(I("INT16").qmax(), 32767);
  EXPECT_EQ(I("int8:narrow").name, "int8:narrow");
  for (const char* bad : {"int", "int1", "int17", "uint8:narrow", "int8:wide", "in8", "int8x"}) {
    StatusOr<IntFormat> f = ParseIntFormat(bad);
    ASSERT_FALSE(f.ok()) << bad;
    EXPECT_NE(f.status().message().find(bad), std::string::npos) << f.status().message();
  }
  EXPECT_TRUE(LooksLikeIntFormat("uint4"));
  EXPECT_FALSE(LooksLikeIntFormat("e4m3fn"));
  EXPECT_FALSE(LooksLikeIntFormat("int"));
  EXPECT_EQ(BuiltinIntFormats().size(), 5u);
}

// TFLite's rounding is half away from zero: 2^-7 / 2^-6 = 0.5 -> 1, where
// ties-to-even gives 0; -2.5 -> -3 (even: -2).
TEST(IntFormat, RoundingModesOnTies) {
  const IntFormat f = I("int8");
  const IntQuantParams p{0.015625f, 0};
  EXPECT_EQ(QuantizeIntRef(f, 0.0078125f, p, IntRounding::kHalfAway, 0).q, 1);
  EXPECT_EQ(QuantizeIntRef(f, 0.0078125f, p, IntRounding::kNearestEven, 0).q, 0);
  EXPECT_EQ(QuantizeIntRef(f, -2.5f * 0.015625f, p, IntRounding::kHalfAway, 0).q, -3);
  EXPECT_EQ(QuantizeIntRef(f, -2.5f * 0.015625f, p, IntRounding::kNearestEven, 0).q, -2);
  EXPECT_EQ(QuantizeIntRef(f, 3.5f * 0.015625f, p, IntRounding::kNearestEven, 0).q, 4);
  // Stochastic: 0.25 of a step rounds up iff the bits are below 2^30.
  EXPECT_EQ(QuantizeIntRef(f, 0.25f * 0.015625f, p, IntRounding::kStochastic, (1u << 30) - 1).q, 1);
  EXPECT_EQ(QuantizeIntRef(f, 0.25f * 0.015625f, p, IntRounding::kStochastic, 1u << 30).q, 0);
}

TEST(IntFormat, ClampingAndSpecials) {
  const IntFormat f = I("int8");
  const IntQuantParams p{0.5f, 10};
  IntEncoded e = QuantizeIntRef(f, 100.0f, p, IntRounding::kHalfAway, 0);  // 200 + 10
  EXPECT_EQ(e.q, 127);
  EXPECT_TRUE(e.flags & kCastOverflow);
  e = QuantizeIntRef(f, -100.0f, p, IntRounding::kHalfAway, 0);  // -200 + 10
  EXPECT_EQ(e.q, -128);
  EXPECT_TRUE(e.flags & kCastOverflow);
  e = QuantizeIntRef(f, 1e38f, IntQuantParams{1e-30f, 0}, IntRounding::kHalfAway, 0);  // x/s = Inf
  EXPECT_EQ(e.q, 127);
  EXPECT_TRUE(e.flags & kCastOverflow);
  e = QuantizeIntRef(f, kNan, p, IntRounding::kHalfAway, 0);
  EXPECT_EQ(e.q, 10);
  EXPECT_EQ(e.flags, static_cast<uint32_t>(kCastNanIn));
  EXPECT_EQ(QuantizeIntRef(f, kInf, p, IntRounding::kHalfAway, 0).q, 127);
  EXPECT_EQ(QuantizeIntRef(f, -kInf, p, IntRounding::kHalfAway, 0).q, -128);
  e = QuantizeIntRef(f, 0.2f, p, IntRounding::kHalfAway, 0);  // 0.4 -> 0: reads back 0
  EXPECT_EQ(e.q, 10);
  EXPECT_TRUE(e.flags & kCastUnderflow);
  EXPECT_EQ(DequantizeIntRef(13, p), 1.5f);
}

// TFLite's ChooseQuantizationParams on ranges whose scale is a power of two,
// so every step is exact and can be checked by hand.
TEST(IntFormat, AsymmetricParamsHandComputed) {
  const IntFormat i8 = I("int8");
  // [-0.5, 3.484375]: width 255 * 2^-6; zero point -128 + 0.5 / 2^-6 = -96
  // (from min: error 128 + 32 = 160 < from max: 127 + 223 = 350).
  EXPECT_EQ(AsymmetricIntParams(i8, -0.5f, 3.484375f), (IntQuantParams{0.015625f, -96}));
  // [-1, 0.9921875]: width 255 * 2^-7; both ends give 0, from max wins
  // (127 + 127 < 128 + 128).
  EXPECT_EQ(AsymmetricIntParams(i8, -1.0f, 0.9921875f), (IntQuantParams{0.0078125f, 0}));
  // A range that excludes 0 is widened to include it: [1, 2] -> [0, 2].
  const IntQuantParams w = AsymmetricIntParams(I("uint8"), 1.0f, 2.0f);
  EXPECT_EQ(w.zero_point, 0);
  EXPECT_EQ(w.scale, static_cast<float>(2.0 / 255.0));
  // Nudging: [-0.1, 0.9] for uint8: zero point 0.1 / (1 / 255) = 25.5 -> 26
  // (half away from zero), so 0 stays exact.
  const IntQuantParams n = AsymmetricIntParams(I("uint8"), -0.1f, 0.9f);
  EXPECT_EQ(n.zero_point, static_cast<int32_t>(std::round(
                              0.0 - static_cast<double>(-0.1f) /
                                        ((static_cast<double>(0.9f) + 0.1f) / 255.0))));
  EXPECT_EQ(DequantizeIntRef(n.zero_point, n), 0.0f);
  EXPECT_EQ(AsymmetricIntParams(i8, 0.0f, 0.0f), (IntQuantParams{1.0f, 0}));
  EXPECT_EQ(SymmetricIntParams(I("int8:narrow"), 0.9921875f), (IntQuantParams{0.0078125f, 0}));
  EXPECT_EQ(SymmetricIntParams(i8, 0.0f), (IntQuantParams{1.0f, 0}));
  EXPECT_EQ(SymmetricIntParams(i8, kNan), (IntQuantParams{1.0f, 0}));
}

// An int8 tensor quantized per output channel (row) with zero points, TFLite
// style (asymmetric, round half away from zero), every value by hand.
TEST(IntFormat, PerChannelTensorWithZeroPoint) {
  const float in[2][6] = {
      // Row 0: range [-0.5, 3.484375] -> scale 2^-6, zero point -96.
      {1.0f, 0.01f, 0.0078125f, -0.5f, 3.484375f, 0.0f},
      // Row 1: range [-1, 0.9921875] -> scale 2^-7, zero point 0.
      {0.5f, -1.0f, 0.00390625f, 0.9921875f, -0.001f, 0.25f}};
  const float want[2][6] = {
      {1.0f, 0.015625f, 0.015625f, -0.5f, 3.484375f, 0.0f},     // q: -32 -95 -95 -128 127 -96
      {0.5f, -1.0f, 0.0078125f, 0.9921875f, 0.0f, 0.25f}};      // q: 64 -128 1 127 0 32
  IntQuantizeOptions opt;
  opt.per_row = true;
  opt.symmetric = false;
  std::vector<float> out(12);
  std::vector<IntQuantParams> params;
  CastCounts c;
  IntQuantizeRef(I("int8"), &in[0][0], 2, 6, opt, out.data(), &params, &c);
  ASSERT_EQ(params.size(), 2u);
  EXPECT_EQ(params[0], (IntQuantParams{0.015625f, -96}));
  EXPECT_EQ(params[1], (IntQuantParams{0.0078125f, 0}));
  for (int r = 0; r < 2; ++r) {
    for (int k = 0; k < 6; ++k) EXPECT_EQ(out[r * 6 + k], want[r][k]) << r << "," << k;
  }
  EXPECT_EQ(c.numel, 12u);
  EXPECT_EQ(c.zero_in, 1u);
  EXPECT_EQ(c.underflow, 1u);  // -0.001 -> 0
  EXPECT_EQ(c.overflow, 0u);
  double err = 0, sig = 0;
  for (int r = 0; r < 2; ++r) {
    for (int k = 0; k < 6; ++k) {
      err += (double(in[r][k]) - want[r][k]) * (double(in[r][k]) - want[r][k]);
      sig += double(in[r][k]) * in[r][k];
    }
  }
  EXPECT_NEAR(c.sq_error, err, 1e-15);
  EXPECT_NEAR(c.sq_signal, sig, 1e-12);

  // Symmetric narrow-range weights per channel: row 1's amax 1 -> 1/127.
  opt.symmetric = true;
  IntQuantizeRef(I("int8:narrow"), &in[0][0], 2, 6, opt, out.data(), &params, &c);
  EXPECT_EQ(params[0], (IntQuantParams{3.484375f / 127.0f, 0}));
  EXPECT_EQ(params[1], (IntQuantParams{1.0f / 127.0f, 0}));
  EXPECT_EQ(out[7], -1.0f / 127.0f * 127.0f);  // -1 -> q = -127
}

// Every code of each 8- and 4-bit format reads back and quantizes to itself;
// every midpoint between neighbours goes to the one each rounding picks.
TEST(IntFormat, ExhaustiveCodesAndMidpoints) {
  for (const char* spec : {"int8", "uint8", "int4", "uint4", "int8:narrow", "int4:narrow"}) {
    const IntFormat f = I(spec);
    for (int32_t zp : {f.qmin(), 0, 3, f.qmax()}) {
      if (zp < f.qmin() || zp > f.qmax()) continue;
      const IntQuantParams p{0.125f, zp};
      for (int32_t q = f.qmin(); q <= f.qmax(); ++q) {
        const float x = DequantizeIntRef(q, p);
        for (IntRounding r : {IntRounding::kHalfAway, IntRounding::kNearestEven,
                              IntRounding::kStochastic}) {
          EXPECT_EQ(QuantizeIntRef(f, x, p, r, 0xffffffffu).q, q) << spec << " q " << q;
        }
        if (q == f.qmax()) continue;
        const float mid = x + 0.0625f;  // exact: halfway to q + 1
        const int32_t away = (q - zp) >= 0 ? q + 1 : q;
        const int32_t even = ((q - zp) % 2 == 0) ? q : q + 1;
        EXPECT_EQ(QuantizeIntRef(f, mid, p, IntRounding::kHalfAway, 0).q, away) << spec << q;
        EXPECT_EQ(QuantizeIntRef(f, mid, p, IntRounding::kNearestEven, 0).q, even) << spec << q;
      }
    }
  }
}

// Against long double on random inputs with power-of-two scales (x / scale
// exact, so the oracle is exact rounding and clamping).
TEST(IntFormat, LongDoubleOracle) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<float> u(-300.0f, 300.0f);
  constexpr int kInputs = 200000;
  for (const char* spec : {"int8", "uint8", "int4", "int16"}) {
    const IntFormat f = I(spec);
    for (int k = 0; k < kInputs; ++k) {
      const int e = static_cast<int>(rng() % 12) - 6;
      const IntQuantParams p{std::ldexp(1.0f, e), static_cast<int32_t>(rng() % 9) - 4 +
                                                      (f.is_signed ? 0 : 4)};
      const float x = u(rng);
      const long double v = std::ldexp(static_cast<long double>(x), -e);
      long double r = std::floor(std::fabs(v) + 0.5L);
      r = v < 0 ? -r : r;
      long double t = r + p.zero_point;
      t = std::min<long double>(std::max<long double>(t, f.qmin()), f.qmax());
      ASSERT_EQ(QuantizeIntRef(f, x, p, IntRounding::kHalfAway, 0).q, static_cast<int32_t>(t))
          << spec << " x " << x << " e " << e;
    }
  }
}

TEST(IntFormat, StochasticIsUnbiased) {
  const IntFormat f = I("int8");
  std::vector<float> in(1 << 16, 0.3f), out(in.size());
  IntQuantizeOptions opt;
  opt.rounding = IntRounding::kStochastic;
  opt.seed = 5;
  // One value of 127 makes the tensor's symmetric scale 127 / 127 = 1, so
  // 0.3 falls between the codes 0 and 1.
  in[0] = 127.0f;
  IntQuantizeRef(f, in.data(), 1, in.size(), opt, out.data(), nullptr, nullptr);
  double mean = 0;
  for (size_t i = 1; i < out.size(); ++i) mean += out[i];
  mean /= static_cast<double>(out.size() - 1);
  constexpr double kStochasticMeanTolerance = 0.01;  // ~5 sigma for 65535 Bernoulli(0.3) draws
  EXPECT_NEAR(mean, 0.3, kStochasticMeanTolerance);
}

}  // namespace
}  // namespace lpsim
