// Scalings that hardware targets need, pinned on hand-computed cases: an
// NVFP4 tensor (two-level E4M3 + fp32 scales), an MX block whose E8M0 scale
// saturates, the IPU's per-tensor exponent bias (equal, bit for bit, to a
// format with that bias); NVFP4 BlockQuantize against its scalar twin on
// every compiled SIMD target.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "formats/reference.h"
#include "simd/scaling.h"
#include "tests/simd/test_util.h"

namespace lpsim {
namespace {

using testing_simd::AdversarialData;
using testing_simd::SameBits;
using testing_simd::SameCounts;

Format F(const std::string& spec) { return *ParseFormat(spec); }

TEST(TargetScaling, Nvfp4Parse) {
  const BlockSpec a = *BlockSpec::Parse("nvfp4");
  EXPECT_EQ(a.block_rows, 1u);
  EXPECT_EQ(a.block_cols, 16u);
  EXPECT_EQ(a.scale_type, BlockSpec::ScaleType::kNvfp4);
  const BlockSpec w = *BlockSpec::Parse("16x16:nvfp4");
  EXPECT_EQ(w.block_rows, 16u);
  EXPECT_EQ(w.scale_type, BlockSpec::ScaleType::kNvfp4);
}

// Tensor amax 2688 = 448 * 6 makes the per-tensor scale exactly 1, so each
// block's E4M3 scale is its amax / 6.
TEST(TargetScaling, Nvfp4BlockHandComputed) {
  const Format e2m1 = F("e2m1fn");
  std::vector<float> x(32, 0.0f);
  // Block 0: amax 2688 -> s_dec = 448 (E4M3 0x7E), mult fl(1/448).
  x[0] = 2688.0f;   // -> 6 -> 2688
  x[1] = 1000.0f;   // 2.23 -> 2 -> 896
  x[2] = -100.0f;   // -0.22 -> -0
  // Block 1: amax 12 -> s_dec = 2 (0x40), mult 0.5.
  x[16] = 12.0f;    // 6 -> 12
  x[17] = 5.0f;     // 2.5: tie, to even 2 -> 4
  x[18] = 7.0f;     // 3.5: tie, to even 4 -> 8
  x[19] = 0.6f;     // 0.3 -> 0.5 -> 1
  x[20] = 0.5f;     // 0.25: tie, to even 0 -> 0 (underflow)
  EXPECT_EQ(Nvfp4TensorScale(e2m1, 2688.0f), 1.0f);
  EXPECT_EQ(Nvfp4BlockScale(e2m1, 2688.0f, 1.0f).e4m3_code, 0x7E);
  EXPECT_EQ(Nvfp4BlockScale(e2m1, 12.0f, 1.0f).e4m3_code, 0x40);
  std::vector<float> out(32), scales(2);
  CastCounts c;
  simd::BlockQuantizeRef(e2m1, x.data(), 1, 32, BlockSpec::Nvfp4(), {}, out.data(),
                         scales.data(), &c);
  EXPECT_EQ(scales[0], 448.0f);
  EXPECT_EQ(scales[1], 2.0f);
  EXPECT_EQ(out[0], 2688.0f);
  EXPECT_EQ(out[1], 896.0f);
  EXPECT_EQ(out[2], 0.0f);
  EXPECT_TRUE(std::signbit(out[2]));
  EXPECT_EQ(out[16], 12.0f);
  EXPECT_EQ(out[17], 4.0f);
  EXPECT_EQ(out[18], 8.0f);
  EXPECT_EQ(out[19], 1.0f);
  EXPECT_EQ(out[20], 0.0f);
  EXPECT_EQ(c.underflow, 2u);  // -100 and 0.5
  EXPECT_EQ(c.overflow, 0u);
}

// Tensor amax 1: per-tensor scale 2688. A block of amax 0.3 wants the E4M3
// scale 0.05 * 2688 = 134.4, which rounds to 128 (0x70): its largest value
// 0.3 * 21 = 6.3 saturates at 6 and reads back as 6 * 128 / 2688 = 0.2857.
// A block of amax 1e-7 wants 4.5e-5, below half of E4M3's smallest
// subnormal 2^-9: its scale is 0 and the block reads back as zeros.
TEST(TargetScaling, Nvfp4TwoLevelScaleRoundsAndUnderflows) {
  const Format e2m1 = F("e2m1fn");
  std::vector<float> x(48, 0.0f);
  x[0] = 1.0f;    // block 0: s_dec 448, mult 6: reads back as 6 * (448 / 2688)
  x[16] = 0.3f;   // block 1
  x[17] = 0.1f;   // 2.1 -> 2
  x[32] = 1e-7f;  // block 2
  EXPECT_EQ(Nvfp4TensorScale(e2m1, 1.0f), 2688.0f);
  const Nvfp4Scale s1 = Nvfp4BlockScale(e2m1, 0.3f, 2688.0f);
  EXPECT_EQ(s1.e4m3_code, 0x70);
  EXPECT_EQ(s1.mult, 21.0f);
  EXPECT_EQ(Nvfp4BlockScale(e2m1, 1e-7f, 2688.0f).e4m3_code, 0);
  std::vector<float> out(48), scales(3);
  CastCounts c;
  simd::BlockQuantizeRef(e2m1, x.data(), 1, 48, BlockSpec::Nvfp4(), {}, out.data(),
                         scales.data(), &c);
  EXPECT_EQ(out[0], 6.0f * (448.0f / 2688.0f));
  EXPECT_EQ(out[16], 6.0f * (128.0f / 2688.0f));
  EXPECT_EQ(out[17], 2.0f * (128.0f / 2688.0f));
  EXPECT_EQ(out[32], 0.0f);
  EXPECT_EQ(scales[2], 0.0f);
  EXPECT_EQ(c.underflow, 1u);
}

// OCP MX: a block of amax 1.5 * 2^-128 wants the shared exponent
// -128 - 8 = -136 (e4m3fn's emax is 8); E8M0 stops at -127, so the block is
// cast as x * 2^127: its amax lands at 0.75 instead of near 448, 2^-136 at
// e4m3fn's smallest subnormal 2^-9, and 2^-137 at 2^-10, a tie that rounds
// to even (0): lost.
TEST(TargetScaling, MxBlockWhoseScaleSaturates) {
  const Format e4m3 = F("e4m3fn");
  EXPECT_EQ(MxScaleCode(e4m3, 1.5f * std::ldexp(1.0f, -128)), 0);
  std::vector<float> x(32, 0.0f), out(32), scales(1);
  x[0] = 1.5f * std::ldexp(1.0f, -128);
  x[1] = std::ldexp(1.0f, -136);
  x[2] = -std::ldexp(1.0f, -137);
  CastCounts c;
  simd::BlockQuantizeRef(e4m3, x.data(), 1, 32, BlockSpec::Mx(), {}, out.data(), scales.data(),
                         &c);
  EXPECT_EQ(scales[0], std::ldexp(1.0f, -127));
  EXPECT_EQ(out[0], x[0]);
  EXPECT_EQ(out[1], x[1]);
  EXPECT_EQ(out[2], 0.0f);
  EXPECT_EQ(c.underflow, 1u);
  // The same block times 2^20 gets the exponent -116 it asks for, and keeps
  // all three values (384, 1 and 0.5 after scaling by 2^116).
  for (int i = 0; i < 3; ++i) x[i] *= std::ldexp(1.0f, 20);
  simd::BlockQuantizeRef(e4m3, x.data(), 1, 32, BlockSpec::Mx(), {}, out.data(), scales.data(),
                         &c);
  EXPECT_EQ(scales[0], std::ldexp(1.0f, -116));
  for (int i = 0; i < 3; ++i) EXPECT_EQ(out[i], x[i]) << i;
  EXPECT_EQ(c.underflow, 0u);
}

// NVFP4: an outlier channel sets the tensor scale; a block whose amax is
// more than E4M3's range below it gets a scale that rounds to zero, and its
// values read back as zeros: counted as flushed (and, rounding to nearest,
// as underflow), whatever the format could have held.
TEST(TargetScaling, Nvfp4BlocksWhoseScaleFlushes) {
  const Format e2m1 = F("e2m1fn");
  const size_t rows = 8, cols = 64;
  std::vector<float> x(rows * cols);
  for (size_t i = 0; i < x.size(); ++i) x[i] = 0.25f + static_cast<float>(i % 7) * 0.5f;  // 0.25 .. 3.25
  x[5] = 0.0f;  // a zero in a flushed block: not counted
  for (size_t r = 0; r < rows; ++r) x[r * cols] = 1e7f;  // channel 0
  // Blocks 1..3 of each row: amax 3.25, s_dec = e4m3(3.25 / 6 * 2688 / 1e7)
  // = e4m3(1.46e-4) = 0 (below 2^-10, half E4M3's smallest subnormal).
  const float s_enc = Nvfp4TensorScale(e2m1, 1e7f);
  ASSERT_EQ(Nvfp4BlockScale(e2m1, 3.25f, s_enc).inv, 0.0f);
  uint64_t want = 0;
  for (size_t i = 0; i < x.size(); ++i) want += (i % cols) >= 16 && x[i] != 0.0f;
  std::vector<float> out(x.size()), in_place = x;
  CastCounts c, c_in_place;
  simd::BlockQuantizeRef(e2m1, x.data(), rows, cols, BlockSpec::Nvfp4(), {}, out.data(), nullptr, &c);
  EXPECT_EQ(c.flushed, want);
  // Underflow adds the outlier's block neighbours (2^22 below it, lost to
  // rounding, not to a flushed scale).
  uint64_t neighbours = 0;
  for (size_t i = 0; i < x.size(); ++i) neighbours += (i % cols) >= 1 && (i % cols) < 16 && x[i] != 0.0f;
  EXPECT_EQ(c.underflow, want + neighbours);
  for (size_t i = 0; i < x.size(); ++i) {
    if (i % cols >= 16) {
      ASSERT_EQ(out[i], 0.0f) << i;
    }
  }
  // In place: the inputs are counted before they are overwritten.
  simd::BlockQuantize(e2m1, in_place.data(), rows, cols, BlockSpec::Nvfp4(), {}, in_place.data(), nullptr,
                      &c_in_place);
  EXPECT_TRUE(SameCounts(c_in_place, c));
  // Outliers 100x smaller leave every block a scale: nothing flushed.
  for (size_t r = 0; r < rows; ++r) x[r * cols] = 1e5f;
  simd::BlockQuantizeRef(e2m1, x.data(), rows, cols, BlockSpec::Nvfp4(), {}, out.data(), nullptr, &c);
  EXPECT_EQ(c.flushed, 0u);
}

// IPU FP8 (FP8-143 = e4m3fnuz, FP8-152 = e5m2fnuz) with a per-tensor
// exponent bias in [-32, 31].
TEST(TargetScaling, IpuExponentBias) {
  const Format f143 = F("e4m3fnuz"), f152 = F("e5m2fnuz");
  const ScaleOptions ipu = ScaleOptions::IpuExponentBias();
  EXPECT_EQ(CurrentScale(f143, 30.0f, ipu), 8.0f);       // 240 / 30 = 2^3
  EXPECT_EQ(CurrentScale(f143, 31.0f, ipu), 4.0f);       // 7.74 -> 2^2
  EXPECT_EQ(CurrentScale(f143, 1e-20f, ipu), std::ldexp(1.0f, 31));   // 2^74 clamps
  EXPECT_EQ(CurrentScale(f152, 1e20f, ipu), std::ldexp(1.0f, -32));   // 2^-51 clamps
  // Without the clamp the same amaxes give the unclamped powers of two.
  EXPECT_EQ(CurrentScale(f143, 1e-20f, {0, true}), std::ldexp(1.0f, 74));
  // A bias of k is the format with bias 8 + k: same values, bit for bit,
  // and same counts, for every k, on data that stays inside fp32's range.
  std::vector<float> x = AdversarialData(f143, 1.0f, 4000, 5);
  for (float& v : x) {
    if (std::isfinite(v) && v != 0.0f && (std::fabs(v) > 1e25f || std::fabs(v) < 1e-25f)) v = 1.0f;
  }
  std::vector<float> a(x.size()), b(x.size());
  for (int k = -32; k <= 31; ++k) {
    QuantizeOptions opt;
    opt.scale = std::ldexp(1.0f, k);
    CastCounts ca, cb;
    QuantizeRef(f143, x.data(), x.size(), opt, a.data(), &ca);
    QuantizeRef(F("e4m3fnuz:bias=" + std::to_string(8 + k)), x.data(), x.size(), {}, b.data(),
                &cb);
    ASSERT_TRUE(SameBits(a.data(), b.data(), x.size())) << "k " << k;
    ASSERT_TRUE(SameCounts(ca, cb)) << "k " << k;
  }
}

class TargetScalingSimd : public testing_simd::PerTarget {};

TEST_P(TargetScalingSimd, Nvfp4MatchesReference) {
  const std::vector<float> data = AdversarialData(F("e2m1fn"), 1.0f, 130 * 257 + 3, 17);
  const std::pair<size_t, size_t> shapes[] = {{1, 1}, {3, 7}, {4, 32}, {2, 33}, {33, 64},
                                              {130, 257}};
  int k = 0;
  for (const char* spec_name : {"nvfp4", "16x16:nvfp4"}) {
    const BlockSpec spec = *BlockSpec::Parse(spec_name);
    for (const auto& [rows, cols] : shapes) {
      for (const char* fname : {"e2m1fn", "e4m3fn"}) {
        const Format f = F(fname);
        QuantizeOptions opt;
        opt.rounding = static_cast<Rounding>(k++ % 3);
        opt.seed = k;
        const float* in = data.data() + k % 3;
        const size_t n = rows * cols;
        const size_t blocks = spec.BlocksPerRow(cols) * spec.BlocksPerCol(rows);
        std::vector<float> want(n), got(n), want_s(blocks), got_s(blocks);
        CastCounts want_c, got_c;
        simd::BlockQuantizeRef(f, in, rows, cols, spec, opt, want.data(), want_s.data(), &want_c);
        for (int threads : {1, 3}) {
          simd::BlockQuantize(f, in, rows, cols, spec, opt, got.data(), got_s.data(), &got_c,
                              threads);
          ASSERT_TRUE(SameBits(got.data(), want.data(), n)) << spec_name << " " << fname;
          ASSERT_TRUE(SameBits(got_s.data(), want_s.data(), blocks)) << spec_name;
          ASSERT_TRUE(SameCounts(got_c, want_c)) << spec_name << " " << fname;
        }
      }
    }
  }
}

LPSIM_INSTANTIATE_PER_TARGET(TargetScalingSimd);

}  // namespace
}  // namespace lpsim
