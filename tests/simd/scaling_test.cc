// Scaling recipes: scale rules pinned as literals, and simd::BlockQuantize /
// simd::Amax against their scalar twins on every compiled SIMD target.
#include "simd/scaling.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "formats/reference.h"
#include "tests/simd/test_util.h"

namespace lpsim {
namespace {

using testing_simd::AdversarialData;
using testing_simd::Bits;
using testing_simd::SameBits;
using testing_simd::SameCounts;

const float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kFltMax = std::numeric_limits<float>::max();

Format F(const char* spec) { return *ParseFormat(spec); }

TEST(SimdScaling, CurrentScale) {
  const Format e4m3 = F("e4m3fn");
  EXPECT_EQ(CurrentScale(e4m3, 448.0f), 1.0f);
  EXPECT_EQ(CurrentScale(e4m3, 3.5f), 128.0f);
  EXPECT_EQ(CurrentScale(e4m3, 3.0f), 448.0f / 3.0f);
  EXPECT_EQ(CurrentScale(e4m3, 3.0f, {0, true}), 128.0f);      // 149.3 -> 2^7
  EXPECT_EQ(CurrentScale(e4m3, 3.0f, {1, false}), 224.0f / 3.0f);
  EXPECT_EQ(CurrentScale(F("e5m2"), 57344.0f, {2, false}), 0.25f);
  for (float bad : {0.0f, -1.0f, kInf, -kInf, kNaN}) EXPECT_EQ(CurrentScale(e4m3, bad), 1.0f);
  EXPECT_EQ(CurrentScale(e4m3, 1e-45f), kFltMax);              // 448 / 2^-149 = Inf
  EXPECT_EQ(CurrentScale(e4m3, 1e-45f, {0, true}), std::ldexp(1.0f, 127));
  EXPECT_EQ(CurrentScale(F("e2m1fn"), kFltMax, {60, false}), std::numeric_limits<float>::min());
}

TEST(SimdScaling, DelayedScaler) {
  const Format e4m3 = F("e4m3fn");
  DelayedScaler d(e4m3, {3, DelayedScaler::Algo::kMax, {}});
  EXPECT_EQ(d.Scale(), 1.0f);
  d.Update(2.0f);
  EXPECT_EQ(d.Scale(), 224.0f);
  EXPECT_EQ(d.steps_since_change(), 0u);
  d.Update(1.0f);  // window {2, 1}: max 2
  EXPECT_EQ(d.Scale(), 224.0f);
  EXPECT_EQ(d.steps_since_change(), 1u);
  d.Update(0.5f);  // {2, 1, .5}
  EXPECT_EQ(d.Scale(), 224.0f);
  d.Update(0.5f);  // {1, .5, .5}: 2 left the window
  EXPECT_EQ(d.Scale(), 448.0f);
  d.Update(0.0f);  // {.5, .5, 0}: max .5
  EXPECT_EQ(d.Scale(), 896.0f);
  d.Update(kNaN);  // NaN in the window: keep the scale
  EXPECT_EQ(d.Scale(), 896.0f);
  EXPECT_EQ(d.steps_since_change(), 1u);

  DelayedScaler recent(e4m3, {16, DelayedScaler::Algo::kMostRecent, {0, true}});
  recent.Update(100.0f);
  EXPECT_EQ(recent.Scale(), 4.0f);  // 4.48 -> 4
  recent.Update(0.0f);              // zero amax: keep
  EXPECT_EQ(recent.Scale(), 4.0f);
  recent.Update(kInf);
  EXPECT_EQ(recent.Scale(), 4.0f);
  recent.Update(1.0f);
  EXPECT_EQ(recent.Scale(), 256.0f);
}

TEST(SimdScaling, MxScaleCode) {
  EXPECT_EQ(MxScaleCode(F("e4m3fn"), 448.0f), 127);  // 2^8 - emax 8
  EXPECT_EQ(MxScaleCode(F("e4m3fn"), 511.0f), 127);
  EXPECT_EQ(MxScaleCode(F("e4m3fn"), 512.0f), 128);
  EXPECT_EQ(MxScaleCode(F("e4m3fn"), 1.0f), 119);
  EXPECT_EQ(MxScaleCode(F("e5m2"), 1.0f), 112);       // emax 15
  EXPECT_EQ(MxScaleCode(F("e2m1fn"), 6.0f), 127);     // emax 2
  EXPECT_EQ(MxScaleCode(F("e3m2fn"), 6.0f), 125);     // emax 4
  EXPECT_EQ(MxScaleCode(F("e2m3fn"), 0.75f), 124);    // -1 - 2
  EXPECT_EQ(MxScaleCode(F("e4m3fn"), 0.0f), 0);       // all-zero block: -127
  EXPECT_EQ(MxScaleCode(F("e4m3fn"), 1e-45f), 0);     // -149 - 8 clamped
  EXPECT_EQ(MxScaleCode(F("e2m1fn"), kFltMax), 252);  // 127 - 2
  EXPECT_EQ(MxScaleCode(F("e4m3fn"), kInf), 254);
  EXPECT_EQ(MxScaleCode(F("e4m3fn"), kNaN), 255);
}

TEST(SimdScaling, BlockSpecParse) {
  struct Case {
    const char* name;
    size_t rows, cols;
    BlockSpec::ScaleType type;
    bool pow2;
    int margin;
  };
  using T = BlockSpec::ScaleType;
  for (const Case& c : {Case{"mx", 1, 32, T::kE8m0, false, 0}, Case{"row", 1, 0, T::kFp32, false, 0},
                        Case{"col", 0, 1, T::kFp32, false, 0}, Case{"1x128", 1, 128, T::kFp32, true, 0},
                        Case{"128x128", 128, 128, T::kFp32, true, 0},
                        Case{"1x32:fp32:nopow2", 1, 32, T::kFp32, false, 0},
                        Case{"all x 1", 0, 0, T::kFp32, true, 0},
                        Case{"16x16:e8m0:margin=2", 16, 16, T::kE8m0, true, 2},
                        Case{"ROW:pow2", 1, 0, T::kFp32, true, 0}}) {
    StatusOr<BlockSpec> s = BlockSpec::Parse(c.name);
    if (std::string(c.name) == "all x 1") {
      EXPECT_FALSE(s.ok());
      continue;
    }
    ASSERT_TRUE(s.ok()) << c.name << ": " << s.status().message();
    EXPECT_EQ(s->block_rows, c.rows) << c.name;
    EXPECT_EQ(s->block_cols, c.cols) << c.name;
    EXPECT_EQ(s->scale_type, c.type) << c.name;
    EXPECT_EQ(s->scale.power_of_two, c.pow2) << c.name;
    EXPECT_EQ(s->scale.margin, c.margin) << c.name;
  }
  for (const char* bad : {"", "mxx", "0x32", "1x", "x4", "1x32:bogus", "row:margin=z"}) {
    StatusOr<BlockSpec> s = BlockSpec::Parse(bad);
    EXPECT_FALSE(s.ok()) << bad;
    if (!s.ok()) {
      EXPECT_NE(s.status().message().find("use mx"), std::string::npos);
    }
  }
  const BlockSpec mx = BlockSpec::Mx();
  EXPECT_EQ(mx.BlocksPerRow(64), 2u);
  EXPECT_EQ(mx.BlocksPerRow(65), 3u);
  EXPECT_EQ(mx.BlocksPerRow(0), 0u);
  EXPECT_EQ(mx.BlocksPerCol(7), 7u);
  EXPECT_EQ(BlockSpec::Columnwise().BlocksPerCol(7), 1u);
  EXPECT_EQ(BlockSpec::Rowwise().BlocksPerRow(100), 1u);
  EXPECT_EQ(BlockSpec::Tile128x128().BlocksPerCol(129), 2u);
}

TEST(SimdScaling, MxElementsSaturateAndScalesArePowersOfTwo) {
  // One MX block: amax 500 -> exponent floor(log2 500) - 8 = 0, so 500 casts
  // to e4m3fn unscaled, overflows, and saturates to 448.
  std::vector<float> x(32, 1.0f);
  x[3] = 500.0f;
  x[4] = -0.0f;
  std::vector<float> out(32), scales(1);
  CastCounts c;
  simd::BlockQuantize(F("e4m3fn"), x.data(), 1, 32, BlockSpec::Mx(), {}, out.data(), scales.data(),
                      &c);
  EXPECT_EQ(scales[0], 1.0f);
  EXPECT_EQ(out[3], 448.0f);
  EXPECT_EQ(out[0], 1.0f);
  EXPECT_EQ(Bits(out[4]), Bits(-0.0f));
  EXPECT_EQ(c.overflow, 1u);
  EXPECT_EQ(c.zero_in, 1u);
  // Tiny block: exponent clamps at -127, scale 2^-127 (an fp32 subnormal).
  std::vector<float> tiny(32, 1e-39f);
  simd::BlockQuantize(F("e2m1fn"), tiny.data(), 1, 32, BlockSpec::Mx(), {}, out.data(),
                      scales.data(), &c);
  EXPECT_EQ(scales[0], std::ldexp(1.0f, -127));
}

class SimdScalingTargets : public testing_simd::PerTarget {};

TEST_P(SimdScalingTargets, AmaxMatchesScalar) {
  const std::vector<float> x = AdversarialData(F("e5m2"), 1.0f, 5000, 3);
  for (size_t n : {size_t{0}, size_t{1}, size_t{7}, size_t{17}, size_t{4999}}) {
    for (size_t off : {size_t{0}, size_t{1}}) {
      float want = 0;
      for (size_t i = 0; i < n; ++i) {
        const float a = std::fabs(x[off + i]);
        if (std::isfinite(a) && a > want) want = a;
      }
      EXPECT_EQ(Bits(simd::Amax(x.data() + off, n)), Bits(want)) << n;
    }
  }
  const float only_specials[] = {kNaN, -kInf, kInf};
  EXPECT_EQ(simd::Amax(only_specials, 3), 0.0f);
}

void ExpectBlockMatches(const Format& f, const float* in, size_t rows, size_t cols,
                        const BlockSpec& spec, const QuantizeOptions& opt, int threads,
                        const char* what) {
  const size_t n = rows * cols;
  const size_t blocks = spec.BlocksPerRow(cols) * spec.BlocksPerCol(rows);
  std::vector<float> want(n), got(n + 1, 7.0f), want_s(blocks), got_s(blocks + 1, 7.0f);
  CastCounts want_c, got_c;
  simd::BlockQuantizeRef(f, in, rows, cols, spec, opt, want.data(), want_s.data(), &want_c);
  simd::BlockQuantize(f, in, rows, cols, spec, opt, got.data(), got_s.data(), &got_c, threads);
  ASSERT_TRUE(SameBits(got.data(), want.data(), n))
      << what << " " << f.name() << " " << rows << "x" << cols;
  ASSERT_TRUE(SameBits(got_s.data(), want_s.data(), blocks)) << what << " scales";
  ASSERT_EQ(got[n], 7.0f);
  ASSERT_EQ(got_s[blocks], 7.0f);
  ASSERT_TRUE(SameCounts(got_c, want_c)) << what << " " << f.name() << " " << rows << "x" << cols;
  // Counts only (no output, no scales): the same counts and sums.
  CastCounts only_c;
  simd::BlockQuantize(f, in, rows, cols, spec, opt, nullptr, nullptr, &only_c, threads);
  ASSERT_TRUE(SameCounts(only_c, want_c)) << what << " counts only " << f.name();
  // Several formats over one amax pass: each as BlockQuantize alone.
  const std::vector<Format> several = {F("e5m2"), f};
  CastCounts several_c[2], e5m2_c;
  simd::BlockCounts(several, in, rows, cols, spec, opt, several_c, threads);
  simd::BlockQuantizeRef(several[0], in, rows, cols, spec, opt, want.data(), want_s.data(), &e5m2_c);
  ASSERT_TRUE(SameCounts(several_c[0], e5m2_c)) << what << " BlockCounts e5m2";
  ASSERT_TRUE(SameCounts(several_c[1], want_c)) << what << " BlockCounts " << f.name();
}

TEST_P(SimdScalingTargets, BlockQuantizeMatchesReference) {
  const char* specs[] = {"mx", "row", "col", "1x128", "128x128", "3x5", "1x32:fp32:nopow2",
                         "7x1:e8m0", "2x16:margin=1"};
  const std::pair<size_t, size_t> shapes[] = {{0, 5}, {5, 0}, {1, 1},  {3, 7},    {4, 32},
                                              {2, 33}, {33, 64}, {130, 257}, {129, 128},
                                              {1100, 32}};  // narrow rows over chunks
  const char* formats[] = {"e4m3fn", "e5m2", "e2m1fn", "e3m2fn:ftz", "e2m3fn", "e4m3fnuz"};
  const std::vector<float> data = AdversarialData(F("e4m3fn"), 1.0f, 1100 * 32 + 3, 13);
  int k = 0;
  for (const char* spec_name : specs) {
    const BlockSpec spec = *BlockSpec::Parse(spec_name);
    for (const auto& [rows, cols] : shapes) {
      for (const char* fname : formats) {
        QuantizeOptions opt;
        opt.rounding = static_cast<Rounding>(k++ % 3);
        opt.seed = k;
        opt.index_offset = 5;
        ExpectBlockMatches(F(fname), data.data() + k % 3, rows, cols, spec, opt, 1, spec_name);
        if (HasFatalFailure()) return;
      }
    }
  }
}

TEST_P(SimdScalingTargets, BlockQuantizeThreads) {
  const size_t rows = 1024, cols = 800;  // 819200 elements: 3 workers
  std::vector<float> x(rows * cols);
  std::mt19937 rng(2);
  std::lognormal_distribution<float> ln(0.0f, 3.0f);
  for (float& v : x) v = (rng() % 2 ? -1 : 1) * ln(rng);
  EXPECT_EQ(Bits(simd::Amax(x.data(), x.size(), 3)), Bits(simd::Amax(x.data(), x.size(), 1)));
  for (const char* spec_name : {"mx", "col", "128x128"}) {
    for (int threads : {1, 2, 3}) {
      QuantizeOptions opt;
      opt.rounding = Rounding::kStochastic;
      ExpectBlockMatches(F("e4m3fn"), x.data(), rows, cols, *BlockSpec::Parse(spec_name), opt,
                         threads, spec_name);
      if (HasFatalFailure()) return;
    }
  }
}

LPSIM_INSTANTIATE_PER_TARGET(SimdScalingTargets);

}  // namespace
}  // namespace lpsim
