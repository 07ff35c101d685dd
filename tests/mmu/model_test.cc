// The block-FMA model (mmu/dot_ref.h) on hand-built vectors, one feature at a
// time: each vector gives different answers for the two settings compared, so
// a model that ignored the feature would fail. Then the model with unlimited
// alignment against the exact dot product, and fp32-fma against std::fma.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "formats/format.h"
#include "formats/reference.h"
#include "mmu/dot_ref.h"
#include "mmu/unit.h"

namespace lpsim {
namespace mmu {
namespace {

Format F(const char* name) { return *ParseFormat(name); }

DotFormats Fmts(const char* in, Rounding r = Rounding::kTowardZero, const char* out = "fp32") {
  return DotFormats{F(in), F(in), F(out), r};
}

BlockFmaParams Params(int group, int bits, AlignRounding mode = AlignRounding::kTruncate) {
  BlockFmaParams p;
  p.group = group;
  p.alignment_bits = bits;
  p.align_rounding = mode;
  p.carry_bits = 8;
  return p;
}

// d = c + sum a[i] * b[i] on the model.
float Dot(const BlockFmaParams& p, const DotFormats& f, const std::vector<float>& a,
          const std::vector<float>& b, float c = 0.0f) {
  return BlockFmaDotRef(p, f, a.data(), 1, b.data(), 1, a.size(), c);
}

float P2(int e) { return std::ldexp(1.0f, e); }

TEST(MmuModel, AlignmentBitsDecideWhatSmallProductsKeep) {
  // 1 + 2^-14: the small product sits 14 bits below the large one.
  const std::vector<float> a = {1.0f, P2(-7)}, b = {1.0f, P2(-7)};
  EXPECT_EQ(Dot(Params(2, 13), Fmts("fp16"), a, b), 1.0f);
  EXPECT_EQ(Dot(Params(2, 14), Fmts("fp16"), a, b), 1.0f + P2(-14));
  EXPECT_EQ(Dot(Params(2, kUnlimitedAlignment), Fmts("fp16"), a, b), 1.0f + P2(-14));
}

TEST(MmuModel, TruncationDirectionAtAlignment) {
  // 1 - 0.75 * 2^-13 with 13 alignment bits: the small term is -0.75 units.
  const std::vector<float> a = {1.0f, -3.0f * P2(-8)}, b = {1.0f, P2(-7)};
  const DotFormats f = Fmts("fp16");
  EXPECT_EQ(Dot(Params(2, 13, AlignRounding::kTruncate), f, a, b), 1.0f);
  EXPECT_EQ(Dot(Params(2, 13, AlignRounding::kFloor), f, a, b), 1.0f - P2(-13));
  EXPECT_EQ(Dot(Params(2, 13, AlignRounding::kNearestEven), f, a, b), 1.0f - P2(-13));
  // -0.5 units: a tie, to even (0) under nearest; floor still takes a unit.
  const std::vector<float> tie = {1.0f, -P2(-7)};
  EXPECT_EQ(Dot(Params(2, 13, AlignRounding::kNearestEven), f, tie, b), 1.0f);
  EXPECT_EQ(Dot(Params(2, 13, AlignRounding::kFloor), f, tie, b), 1.0f - P2(-13));
  // A positive term truncates the same way under truncate and floor.
  const std::vector<float> pos = {1.0f, 3.0f * P2(-8)};
  EXPECT_EQ(Dot(Params(2, 13, AlignRounding::kTruncate), f, pos, b), 1.0f);
  EXPECT_EQ(Dot(Params(2, 13, AlignRounding::kFloor), f, pos, b), 1.0f);
}

TEST(MmuModel, FinalRoundingIntoTheOutput) {
  // 1 + 0.75 ulp(1) of fp32, all bits kept at alignment.
  const std::vector<float> a = {1.0f, P2(-12), P2(-13)}, b = {1.0f, P2(-12), P2(-12)};
  const BlockFmaParams p = Params(4, 40);
  EXPECT_EQ(Dot(p, Fmts("fp16", Rounding::kTowardZero), a, b), 1.0f);
  EXPECT_EQ(Dot(p, Fmts("fp16", Rounding::kNearestEven), a, b), 1.0f + P2(-23));
  // Into fp16: 1 + 2^-11 + 2^-12 is 0.75 ulp of fp16 (2^-10 apart).
  const std::vector<float> h = {1.0f, P2(-6), P2(-6)}, hb = {1.0f, P2(-5), P2(-6)};
  EXPECT_EQ(Dot(p, Fmts("fp16", Rounding::kTowardZero, "fp16"), h, hb), 1.0f);
  EXPECT_EQ(Dot(p, Fmts("fp16", Rounding::kNearestEven, "fp16"), h, hb), 1.0f + P2(-10));
}

TEST(MmuModel, GroupSizeSetsWhereSumsAreNormalized) {
  // Three 2^-24 products, then 1, with fp32's 23 alignment bits.
  const float s = P2(-12);
  const std::vector<float> a = {s, s, s, 1.0f}, b = {s, s, s, 1.0f};
  const DotFormats f = Fmts("fp16");
  // One group: every 2^-24 sits below 1's last kept bit.
  EXPECT_EQ(Dot(Params(4, 23), f, a, b), 1.0f);
  // Groups of 2: the first two sum to 2^-23 before they meet 1.
  EXPECT_EQ(Dot(Params(2, 23), f, a, b), 1.0f + P2(-23));
  // Groups of 1: 3 * 2^-24 is accumulated exactly, then 1.5 units truncate to 1.
  EXPECT_EQ(Dot(Params(1, 23), f, a, b), 1.0f + P2(-23));
}

TEST(MmuModel, InterleavedSubgroupsAddANormalizationPoint) {
  // Products 2^-4, 1, 2^-4, 0 with 3 alignment bits.
  const std::vector<float> a = {P2(-2), 1.0f, P2(-2), 0.0f}, b = {P2(-2), 1.0f, P2(-2), 1.0f};
  const DotFormats f = Fmts("fp16");
  BlockFmaParams one = Params(4, 3);
  EXPECT_EQ(Dot(one, f, a, b), 1.0f);  // both 2^-4 below 1's 3 bits
  BlockFmaParams two = one;
  two.subgroups = 2;
  // Even products {2^-4, 2^-4} sum to 2^-3 on their own, then meet 1 and keep
  // it (contiguous halves {2^-4, 1}, {2^-4, 0} would give 1).
  EXPECT_EQ(Dot(two, f, a, b), 1.125f);
}

TEST(MmuModel, SubnormalInputsAndOutputs) {
  BlockFmaParams p = Params(2, 23);
  const DotFormats e4 = Fmts("e4m3fn");
  const std::vector<float> a = {P2(-9), 0.0f}, b = {1.0f, 0.0f};  // e4m3fn's smallest subnormal
  EXPECT_EQ(Dot(p, e4, a, b), P2(-9));
  p.subnormal_inputs = false;
  EXPECT_EQ(Dot(p, e4, a, b), 0.0f);
  // bf16 2^-70 squared is 2^-140, subnormal in fp32.
  BlockFmaParams q = Params(2, 23);
  const std::vector<float> t = {P2(-70)};
  EXPECT_EQ(Dot(q, Fmts("bf16"), t, t), P2(-140));
  q.subnormal_output = false;
  EXPECT_EQ(Dot(q, Fmts("bf16"), t, t), 0.0f);
}

TEST(MmuModel, PromotionIntervalRestartsThePartialSum) {
  // c = 1 and two products of 2^-24, one product per block FMA.
  const float s = P2(-12);
  const std::vector<float> a = {s, s}, b = {s, s};
  const DotFormats f = Fmts("fp16");
  BlockFmaParams p = Params(1, 23);
  EXPECT_EQ(Dot(p, f, a, b, 1.0f), 1.0f);  // each 2^-24 truncated against 1
  p.promote_every = 2;  // 2^-24 + 2^-24 = 2^-23 apart from 1, then 1 + 2^-23
  EXPECT_EQ(Dot(p, f, a, b, 1.0f), 1.0f + P2(-23));
  p.promote_every = 1;  // 1 + 2^-24 is a tie in the fp32 add: to even, twice
  EXPECT_EQ(Dot(p, f, a, b, 1.0f), 1.0f);
}

TEST(MmuModel, TooFewCarryBitsWrapAround) {
  // 1.5 + 1.5 with 3 alignment bits is 24 units: needs 1 carry bit.
  const std::vector<float> a = {1.5f, 1.5f}, b = {1.0f, 1.0f};
  BlockFmaParams p = Params(2, 3);
  p.carry_bits = 1;
  EXPECT_EQ(Dot(p, Fmts("fp16"), a, b), 3.0f);
  p.carry_bits = 0;  // a 5-bit two's-complement adder: 24 - 32 = -8 units
  EXPECT_EQ(Dot(p, Fmts("fp16"), a, b), -1.0f);
}

TEST(MmuModel, SpecialValuesFollowIeeeSums) {
  const BlockFmaParams p = Params(4, 13);
  const DotFormats f = Fmts("e5m2");
  const float inf = INFINITY;
  EXPECT_EQ(Dot(p, f, {inf, 1.0f}, {1.0f, 1.0f}), inf);
  EXPECT_TRUE(std::isnan(Dot(p, f, {inf, -inf}, {1.0f, 1.0f})));
  EXPECT_TRUE(std::isnan(Dot(p, f, {inf}, {0.0f})));
  EXPECT_TRUE(std::isnan(Dot(p, f, {1.0f}, {1.0f}, NAN)));
}

// Random values of format f, spread over `octaves` binades around 1.
std::vector<float> Random(const Format& f, size_t n, int octaves, std::mt19937* rng) {
  std::uniform_real_distribution<float> m(-1.0f, 1.0f);
  std::uniform_int_distribution<int> e(-octaves, octaves);
  const Format sat = f.WithSaturate(true);  // no Inf or NaN from the draw
  std::vector<float> x(n);
  for (float& v : x) {
    v = DecodeRef(sat, EncodeRef(sat, std::ldexp(m(*rng), e(*rng)), Rounding::kNearestEven, 0).code);
  }
  return x;
}

TEST(MmuModel, UnlimitedAlignmentInOneGroupIsTheExactDot) {
  std::mt19937 rng(12);
  for (const char* in : {"e4m3fn", "e5m2", "fp16", "bf16", "tf32"}) {
    const DotFormats f = Fmts(in, Rounding::kNearestEven);
    for (size_t k : {1u, 2u, 7u, 32u, 100u}) {
      for (int rep = 0; rep < 20; ++rep) {
        const std::vector<float> a = Random(f.a, k, 20, &rng), b = Random(f.b, k, 20, &rng);
        const float c = Random(F("fp32"), 1, 30, &rng)[0];
        BlockFmaParams p = Params(static_cast<int>(k), kUnlimitedAlignment);
        const float model = Dot(p, f, a, b, c);
        const float exact = ExactDotRef(f.out, f.rounding, a.data(), 1, b.data(), 1, k, c);
        ASSERT_EQ(model, exact) << in << " k=" << k << " rep=" << rep;
        // Toward zero as well.
        const DotFormats z = Fmts(in, Rounding::kTowardZero);
        ASSERT_EQ(Dot(p, z, a, b, c), ExactDotRef(z.out, z.rounding, a.data(), 1, b.data(), 1, k, c));
      }
    }
  }
}

TEST(MmuModel, UnlimitedAlignmentInGroupsIsTheExactDotPerGroup) {
  std::mt19937 rng(13);
  const DotFormats f = Fmts("e4m3fn", Rounding::kTowardZero);
  const size_t k = 37, group = 8;
  for (int rep = 0; rep < 50; ++rep) {
    const std::vector<float> a = Random(f.a, k, 8, &rng), b = Random(f.b, k, 8, &rng);
    float c = 0.5f;
    const float model = Dot(Params(group, kUnlimitedAlignment), f, a, b, c);
    for (size_t g = 0; g < k; g += group) {
      c = ExactDotRef(f.out, f.rounding, a.data() + g, 1, b.data() + g, 1, std::min(group, k - g), c);
    }
    ASSERT_EQ(model, c) << rep;
  }
}

TEST(MmuModel, FastExactDotEqualsTheMultiprecisionOne) {
  std::mt19937 rng(15);
  for (const char* in : {"e4m3fn", "e5m2", "fp16", "bf16", "fp32"}) {
    for (Rounding r : {Rounding::kNearestEven, Rounding::kTowardZero}) {
      for (const char* out : {"fp32", "fp16", "bf16"}) {
        const DotFormats f = Fmts(in, r, out);
        for (size_t k : {1u, 9u, 300u}) {
          // Narrow spreads take the __int128 path, wide ones (bf16, fp32
          // over 60 binades) the multiprecision one; both must agree.
          const int octaves = std::string(in) == "fp32" ? 60 : 12;
          const std::vector<float> a = Random(f.a, k, octaves, &rng), b = Random(f.b, k, octaves, &rng);
          const float c = rng() % 3 == 0 ? 0.0f : Random(F(out), 1, 10, &rng)[0];
          const float fast = ExactDot(f.out, r, a.data(), 1, b.data(), 1, k, c);
          const float ref = ExactDotRef(f.out, r, a.data(), 1, b.data(), 1, k, c);
          ASSERT_EQ(std::memcmp(&fast, &ref, sizeof(float)), 0) << in << " " << out << " k=" << k;
        }
      }
    }
  }
}

TEST(MmuModel, ExactDotRoundsOnceToNearest) {
  // 1 + 2^-24 + 2^-60: just above the tie, so up; without the 2^-60, even.
  const std::vector<float> a = {1.0f, P2(-12), P2(-30)}, b = {1.0f, P2(-12), P2(-30)};
  const Format fp32 = F("fp32");
  EXPECT_EQ(ExactDotRef(fp32, Rounding::kNearestEven, a.data(), 1, b.data(), 1, 3, 0.0f),
            1.0f + P2(-23));
  EXPECT_EQ(ExactDotRef(fp32, Rounding::kNearestEven, a.data(), 1, b.data(), 1, 2, 0.0f), 1.0f);
  // Overflow to Inf to nearest, to the largest finite toward zero.
  const std::vector<float> big = {P2(127)}, two = {4.0f};
  EXPECT_EQ(ExactDotRef(fp32, Rounding::kNearestEven, big.data(), 1, two.data(), 1, 1, 0.0f), INFINITY);
  EXPECT_EQ(ExactDotRef(fp32, Rounding::kTowardZero, big.data(), 1, two.data(), 1, 1, 0.0f),
            fp32.MaxValue());
}

TEST(MmuModel, Fp32FmaIsASequentialFmaLoop) {
  std::mt19937 rng(14);
  std::uniform_real_distribution<float> u(-4.0f, 4.0f);
  for (size_t k : {1u, 3u, 64u, 1000u}) {
    std::vector<float> a(k), b(k);
    for (size_t i = 0; i < k; ++i) {
      a[i] = u(rng);
      b[i] = u(rng);
    }
    float want = 0.25f;
    for (size_t i = 0; i < k; ++i) want = std::fma(a[i], b[i], want);
    const float got = Fp32FmaDotRef(a.data(), 1, b.data(), 1, k, 0.25f);
    ASSERT_EQ(std::memcmp(&got, &want, sizeof(float)), 0) << k;
  }
}

TEST(MmuUnits, EveryUnitHasSourcedModesAndResolvesAliases) {
  for (const Unit& u : Units()) {
    EXPECT_FALSE(u.modes.empty()) << u.name;
    for (const UnitMode& m : u.modes) {
      EXPECT_FALSE(m.source.empty()) << u.name;
      EXPECT_FALSE(m.outputs.empty()) << u.name;
      for (const std::string& in : m.inputs) EXPECT_TRUE(ParseFormat(in).ok()) << in;
      if (u.kind == UnitKind::kBlockFma) {
        // Carry bits enough that the named units never wrap.
        EXPECT_GT(1 << m.params.carry_bits, m.params.group + 1) << u.name;
      }
    }
  }
  ASSERT_TRUE(FindUnit("h200").ok());
  EXPECT_EQ((*FindUnit("h200"))->name, "h100");
  EXPECT_FALSE(FindUnit("tpu9").ok());
  EXPECT_NE(FindUnit("tpu9").status().message().find("h100"), std::string::npos);
  const Unit& h = **FindUnit("h100");
  EXPECT_TRUE(h.ModeFor(F("e4m3fn"), F("e5m2")).ok());
  EXPECT_FALSE((**FindUnit("v100")).ModeFor(F("e4m3fn"), F("e4m3fn")).ok());
}

}  // namespace
}  // namespace mmu
}  // namespace lpsim
