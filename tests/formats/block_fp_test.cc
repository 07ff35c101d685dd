// Block floating point (formats/block_fp.h): a bfp8 and a bfp4 block by
// hand, the shared exponent, every (exponent, magnitude) code's round trip and
// every midpoint, and a long-double oracle on random blocks.
#include "formats/block_fp.h"

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

BfpFormat B(const std::string& spec) {
  StatusOr<BfpFormat> f = ParseBfpFormat(spec);
  EXPECT_TRUE(f.ok()) << f.status().message();
  return f.ok() ? f.value() : BfpFormat{};
}

TEST(BlockFp, Parser) {
  EXPECT_EQ(B("bfp8").magnitude_bits, 7);
  EXPECT_EQ(B("bfp8").block, 16u);
  EXPECT_EQ(B("BFP4").magnitude_bits, 3);
  EXPECT_EQ(B("bfp2").magnitude_bits, 1);
  EXPECT_EQ(B("bfp8:block=32").block, 32u);
  EXPECT_EQ(B("bfp8").MaxRelative(), 127.0f / 64.0f);
  for (const char* bad : {"bfp16", "bfp8:block=0", "bfp8:block=x", "bfp8:blocks=4"}) {
    StatusOr<BfpFormat> f = ParseBfpFormat(bad);
    ASSERT_FALSE(f.ok()) << bad;
    EXPECT_NE(f.status().message().find(bad), std::string::npos) << f.status().message();
  }
}

TEST(BlockFp, SharedExponent) {
  EXPECT_EQ(BfpSharedExponent(3.0f), 1);
  EXPECT_EQ(BfpSharedExponent(4.0f), 2);
  EXPECT_EQ(BfpSharedExponent(0.0f), -127);
  EXPECT_EQ(BfpSharedExponent(std::numeric_limits<float>::denorm_min()), -127);
  EXPECT_EQ(BfpSharedExponent(std::numeric_limits<float>::max()), 127);
}

// One bfp8 block of 16 (amax 3.984375: E = 1, grid 2^(1-6) = 1/32) and the
// same block in bfp4 (grid 2^(1-2) = 1/2).
TEST(BlockFp, HandComputedBlocks) {
  const std::vector<float> in = {1.5f,     0.75f,      0.1f,      -3.0f,  1e-3f,    0.015625f,
                                 0.046875f, 3.984375f, -0.0f,     0.0f,   -0.3f,    2.0f,
                                 -1.0f,    0.03125f,   0.5f,      1.25f};
  // bfp8: x * 32 rounded to even, magnitudes up to 127:
  //   48, 24, 3.2->3, -96, 0.032->0, 0.5->0 (tie, even), 1.5->2 (tie, even),
  //   127.5->128 saturates at 127, -0, 0, -9.6->-10, 64, -32, 1, 16, 40.
  const std::vector<float> want8 = {1.5f,     0.75f,    0.09375f, -3.0f, 0.0f,    0.0f,
                                    0.0625f,  3.96875f, -0.0f,    0.0f,  -0.3125f, 2.0f,
                                    -1.0f,    0.03125f, 0.5f,     1.25f};
  std::vector<float> out(16);
  uint8_t e = 0;
  CastCounts c;
  BfpQuantizeRef(B("bfp8"), in.data(), 1, 16, {}, out.data(), &e, &c);
  EXPECT_EQ(e, 128);  // E = 1, stored + 127
  for (size_t i = 0; i < 16; ++i) {
    EXPECT_EQ(out[i], want8[i]) << i;
    EXPECT_EQ(std::signbit(out[i]), std::signbit(want8[i])) << i;
  }
  EXPECT_EQ(c.overflow, 1u);
  EXPECT_EQ(c.underflow, 2u);
  EXPECT_EQ(c.zero_in, 2u);

  // bfp4: x * 2 rounded to even, magnitudes up to 7:
  //   3, 1.5->2, 0.2->0, -6, 0, 0, 0.09->0, 7.97->8 saturates at 7, -0, 0,
  //   -0.6->-1, 4, -2, 0.0625->0, 1, 2.5->2.
  const std::vector<float> want4 = {1.5f, 1.0f, 0.0f, -3.0f, 0.0f, 0.0f, 0.0f, 3.5f,
                                    -0.0f, 0.0f, -0.5f, 2.0f, -1.0f, 0.0f, 0.5f, 1.0f};
  BfpQuantizeRef(B("bfp4"), in.data(), 1, 16, {}, out.data(), &e, &c);
  EXPECT_EQ(e, 128);
  for (size_t i = 0; i < 16; ++i) EXPECT_EQ(out[i], want4[i]) << i;
  EXPECT_EQ(c.overflow, 1u);
  EXPECT_EQ(c.underflow, 5u);
}

// Blocks run along rows and restart at each row; specials do not set E.
TEST(BlockFp, BlocksPerRowAndSpecials) {
  const BfpFormat f = B("bfp8:block=2");
  const float in[2][3] = {{8.0f, kInf, 0.5f}, {kNan, 0.25f, -1.0f}};
  float out[6];
  uint8_t e[4];
  CastCounts c;
  BfpQuantizeRef(f, &in[0][0], 2, 3, {}, out, e, &c);
  EXPECT_EQ(e[0], 127 + 3);   // {8, Inf}: Inf takes no part
  EXPECT_EQ(e[1], 127 - 1);   // {0.5}
  EXPECT_EQ(e[2], 127 - 2);   // {NaN, 0.25}
  EXPECT_EQ(e[3], 127 + 0);   // {-1}
  EXPECT_EQ(out[0], 8.0f);
  EXPECT_EQ(out[1], 127.0f / 64.0f * 8.0f);  // Inf -> the block's largest magnitude
  EXPECT_EQ(out[2], 0.5f);
  EXPECT_EQ(out[3], 0.0f);  // NaN -> 0
  EXPECT_EQ(out[4], 0.25f);
  EXPECT_EQ(out[5], -1.0f);
  EXPECT_EQ(c.nan_in, 1u);
  EXPECT_EQ(c.inf_in, 1u);
}

// Every (E, m) code of bfp8/bfp4/bfp2 decodes to a value that encodes back
// to it; every midpoint goes to the even neighbour (RNE), the lower one
// (RTZ).
TEST(BlockFp, ExhaustiveCodesAndMidpoints) {
  for (const char* spec : {"bfp8", "bfp4", "bfp2"}) {
    const BfpFormat f = B(spec);
    const uint32_t max_mag = (1u << f.magnitude_bits) - 1;
    for (int e = -127; e <= 127; ++e) {
      for (uint32_t code = 0; code < (2u << f.magnitude_bits); ++code) {
        const float x = BfpDecodeRef(f, code, e);
        for (Rounding r : {Rounding::kNearestEven, Rounding::kTowardZero, Rounding::kStochastic}) {
          ASSERT_EQ(BfpEncodeRef(f, x, e, r, 0xffffffffu).code, code) << spec << " e " << e;
        }
        const uint32_t mag = code & max_mag;
        if (mag == max_mag) continue;
        const float step = std::ldexp(1.0f, e - f.magnitude_bits + 1);
        const float mid = std::fabs(x) + step / 2;  // exact: one more bit
        const uint32_t even = (mag % 2 == 0) ? mag : mag + 1;
        ASSERT_EQ(BfpEncodeRef(f, mid, e, Rounding::kNearestEven, 0).code, even)
            << spec << " e " << e << " m " << mag;
        ASSERT_EQ(BfpEncodeRef(f, mid, e, Rounding::kTowardZero, 0).code, mag);
      }
    }
  }
}

// Random blocks against long double: E from the block amax, then
// round-half-even of |x| * 2^(M - 1 - E), saturated.
TEST(BlockFp, LongDoubleOracle) {
  std::mt19937_64 rng(3);
  std::lognormal_distribution<float> ln(0.0f, 4.0f);
  constexpr int kBlocks = 20000;
  for (const char* spec : {"bfp8", "bfp4"}) {
    const BfpFormat f = B(spec);
    std::vector<float> in(16 * kBlocks), out(in.size());
    for (float& v : in) v = (rng() % 2 ? -1.0f : 1.0f) * ln(rng);
    BfpQuantizeRef(f, in.data(), kBlocks, 16, {}, out.data(), nullptr, nullptr);
    for (int b = 0; b < kBlocks; ++b) {
      long double amax = 0;
      for (int k = 0; k < 16; ++k) amax = std::max(amax, std::fabs((long double)in[b * 16 + k]));
      const int e = std::max(-127, std::ilogb(amax));
      for (int k = 0; k < 16; ++k) {
        const long double v = std::ldexp(std::fabs((long double)in[b * 16 + k]),
                                         f.magnitude_bits - 1 - e);
        long double r = std::nearbyint(v);  // default mode: ties to even
        r = std::min<long double>(r, (1 << f.magnitude_bits) - 1);
        const long double want = std::ldexp(r, e - f.magnitude_bits + 1) *
                                 (in[b * 16 + k] < 0 ? -1 : 1);
        ASSERT_EQ(out[b * 16 + k], static_cast<float>(want)) << spec << " block " << b;
      }
    }
  }
}

}  // namespace
}  // namespace lpsim
