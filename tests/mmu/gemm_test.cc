// The GEMM driver and its SIMD kernel against the scalar reference twin,
// bit for bit: every unit and input mode, odd sizes around the lane count,
// special values, on every SIMD target this CPU runs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "formats/format.h"
#include "formats/reference.h"
#include "mmu/gemm.h"
#include "mmu/unit.h"
#include "simd/quantize.h"
#include "simd/targets.h"

namespace lpsim {
namespace mmu {
namespace {

std::vector<float> Random(size_t n, float scale, std::mt19937* rng) {
  std::normal_distribution<float> g(0.0f, scale);
  std::vector<float> x(n);
  for (float& v : x) v = g(*rng);
  return x;
}

// Bitwise equality, any NaN equal to any NaN.
::testing::AssertionResult SameBits(const std::vector<float>& got, const std::vector<float>& want) {
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(got[i]) && std::isnan(want[i])) continue;
    if (std::memcmp(&got[i], &want[i], sizeof(float)) != 0) {
      return ::testing::AssertionFailure()
             << "element " << i << ": got " << got[i] << " want " << want[i];
    }
  }
  return ::testing::AssertionSuccess();
}

struct Case {
  std::string unit;
  std::string in;
};

std::vector<Case> AllModes() {
  std::vector<Case> cases;
  for (const Unit& u : Units()) {
    for (const UnitMode& m : u.modes) {
      for (const std::string& in : m.inputs) {
        if (u.kind == UnitKind::kExact && in != "e4m3fn" && in != "bf16") continue;  // slow
        cases.push_back({u.name, in});
      }
    }
  }
  return cases;
}

TEST(MmuGemm, KernelMatchesReferenceOnEveryUnitAndTarget) {
  std::mt19937 rng(21);
  for (int64_t target : simd::AvailableTargets()) {
    simd::ScopedTarget force(target);
    for (const Case& c : AllModes()) {
      StatusOr<GemmConfig> cfg = MakeGemmConfig(c.unit, c.in, c.in, "");
      ASSERT_TRUE(cfg.ok()) << cfg.status().message();
      const size_t ks[] = {1, 5, 33, 130};
      const size_t ns[] = {1, 3, 4, 7, 9, 17};
      for (size_t k : ks) {
        for (size_t n : ns) {
          const size_t m = 3;
          const std::vector<float> a = Random(m * k, 2.0f, &rng), b = Random(k * n, 0.5f, &rng);
          const std::vector<float> cc = Random(m * n, 4.0f, &rng);
          std::vector<float> got(m * n), want(m * n);
          Gemm(*cfg, m, n, k, a.data(), b.data(), cc.data(), got.data(), nullptr, 2);
          GemmRef(*cfg, m, n, k, a.data(), b.data(), cc.data(), want.data());
          ASSERT_TRUE(SameBits(got, want)) << c.unit << " " << c.in << " k=" << k << " n=" << n
                                           << " target " << simd::TargetName(target);
        }
      }
    }
  }
}

TEST(MmuGemm, RowwiseMatchesReference) {
  std::mt19937 rng(22);
  for (int64_t target : simd::AvailableTargets()) {
    simd::ScopedTarget force(target);
    for (const Case& c : AllModes()) {
      StatusOr<GemmConfig> cfg = MakeGemmConfig(c.unit, c.in, c.in, "");
      ASSERT_TRUE(cfg.ok());
      for (size_t m : {1u, 7u, 9u, 300u}) {
        const size_t k = 70;
        const std::vector<float> a = Random(m * k, 1.0f, &rng), b = Random(m * k, 1.0f, &rng);
        std::vector<float> got(m), want(m);
        RowwiseDot(*cfg, m, k, a.data(), b.data(), nullptr, got.data(), nullptr, 2);
        RowwiseDotRef(*cfg, m, k, a.data(), b.data(), nullptr, want.data());
        ASSERT_TRUE(SameBits(got, want)) << c.unit << " " << c.in << " m=" << m;
      }
    }
  }
}

TEST(MmuGemm, SpecialValuesAndWideRangesMatchReference) {
  std::mt19937 rng(23);
  const size_t m = 2, n = 8, k = 40;
  for (const char* unit : {"h100", "b200", "a100", "h100-promote128", "mi300"}) {
    const char* in = std::string(unit) == "a100" || std::string(unit) == "mi300" ? "bf16" : "e5m2";
    StatusOr<GemmConfig> cfg = MakeGemmConfig(unit, in, in, "");
    ASSERT_TRUE(cfg.ok());
    std::vector<float> a = Random(m * k, 1.0f, &rng), b = Random(k * n, 1.0f, &rng);
    for (size_t i = 0; i < a.size(); ++i) a[i] = std::ldexp(a[i], static_cast<int>(i % 31) - 15);
    a[3] = INFINITY;               // row 0: Inf in every column
    b[5 * n + 2] = -INFINITY;      // column 2: Inf; with a[3]: maybe NaN
    b[7 * n + 5] = NAN;
    std::vector<float> c(m * n, 0.0f);
    c[n + 1] = 3e38f;              // an accumulator near the top of fp32
    std::vector<float> got(m * n), want(m * n);
    Gemm(*cfg, m, n, k, a.data(), b.data(), c.data(), got.data(), nullptr, 1);
    GemmRef(*cfg, m, n, k, a.data(), b.data(), c.data(), want.data());
    ASSERT_TRUE(SameBits(got, want)) << unit;
  }
}

TEST(MmuGemm, TinyAccumulatorsMatchReference) {
  // Float lanes (h100) cannot scale a sum whose largest term is tiny: such
  // lanes go to the reference. Row 0 of A is zero, so c alone is the sum.
  std::mt19937 rng(25);
  const size_t m = 3, n = 16, k = 64;
  for (const char* unit : {"h100", "l40s", "b200"}) {
    StatusOr<GemmConfig> cfg = MakeGemmConfig(unit, "e4m3fn", "e5m2", "");
    ASSERT_TRUE(cfg.ok());
    std::vector<float> a = Random(m * k, 1.0f, &rng), b = Random(k * n, 1.0f, &rng);
    for (size_t t = 0; t < k; ++t) a[t] = 0.0f;
    std::vector<float> c(m * n);
    for (size_t i = 0; i < c.size(); ++i) {
      c[i] = std::ldexp(i % 2 ? -1.5f : 1.25f, -100 - static_cast<int>(i % 49));  // to subnormal
    }
    std::vector<float> got(m * n), want(m * n);
    Gemm(*cfg, m, n, k, a.data(), b.data(), c.data(), got.data(), nullptr, 1);
    GemmRef(*cfg, m, n, k, a.data(), b.data(), c.data(), want.data());
    ASSERT_TRUE(SameBits(got, want)) << unit;
  }
}

TEST(MmuGemm, Fp32FmaEqualsAPlainFmaLoop) {
  std::mt19937 rng(24);
  StatusOr<GemmConfig> cfg = MakeGemmConfig("fp32-fma", "fp32", "fp32", "");
  ASSERT_TRUE(cfg.ok());
  for (int64_t target : simd::AvailableTargets()) {
    simd::ScopedTarget force(target);
    const size_t m = 4, n = 19, k = 257;
    const std::vector<float> a = Random(m * k, 1.0f, &rng), b = Random(k * n, 1.0f, &rng);
    const std::vector<float> c = Random(m * n, 1.0f, &rng);
    std::vector<float> got(m * n), want(m * n);
    Gemm(*cfg, m, n, k, a.data(), b.data(), c.data(), got.data(), nullptr, 1);
    for (size_t i = 0; i < m; ++i) {
      for (size_t j = 0; j < n; ++j) {
        float acc = c[i * n + j];
        for (size_t t = 0; t < k; ++t) acc = std::fma(a[i * k + t], b[t * n + j], acc);
        want[i * n + j] = acc;
      }
    }
    ASSERT_TRUE(SameBits(got, want)) << simd::TargetName(target);
  }
}

TEST(MmuGemm, InputsAreRoundedIntoTheirFormatsAndCounted) {
  StatusOr<GemmConfig> cfg = MakeGemmConfig("h100", "e4m3fn", "e5m2", "");
  ASSERT_TRUE(cfg.ok());
  // 1.1 is not an e4m3fn value (1.125 is); 3.0 is an e5m2 value, 2.9 is not.
  const std::vector<float> a = {1.1f, 1.0f}, b = {3.0f, 2.9f};
  float d = 0;
  GemmNotes notes;
  Gemm(*cfg, 1, 1, 2, a.data(), b.data(), nullptr, &d, &notes);
  EXPECT_EQ(notes.a_rounded, 1u);
  EXPECT_EQ(notes.b_rounded, 1u);
  EXPECT_EQ(d, 1.125f * 3.0f + 1.0f * 3.0f);  // exact: small integers times 2^-3
}

TEST(MmuGemm, NamedBlockUnitsRunOnTheKernel) {
  for (const char* unit : {"v100", "a100", "h100", "h100-promote128", "b200", "l40s", "mi300"}) {
    const char* in = std::string(unit) == "v100" || std::string(unit) == "a100" ? "fp16" : "e4m3fn";
    StatusOr<GemmConfig> cfg = MakeGemmConfig(unit, in, in, "fp32");
    ASSERT_TRUE(cfg.ok()) << unit;
    EXPECT_TRUE(UsesKernel(*cfg)) << unit;
  }
  // fp16 output and the exact unit go to the reference.
  EXPECT_FALSE(UsesKernel(*MakeGemmConfig("h100", "e4m3fn", "e4m3fn", "fp16")));
  EXPECT_FALSE(UsesKernel(*MakeGemmConfig("exact", "e4m3fn", "e4m3fn", "")));
}

TEST(MmuGemm, ConfigErrorsSayWhatIsAccepted) {
  EXPECT_NE(MakeGemmConfig("h100", "fp32", "fp32", "").status().message().find("e4m3fn"),
            std::string::npos);
  EXPECT_NE(MakeGemmConfig("h100", "e4m3fn", "e4m3fn", "bf16").status().message().find("fp16"),
            std::string::npos);
  EXPECT_FALSE(MakeGemmConfig("nope", "e4m3fn", "e4m3fn", "").ok());
  EXPECT_TRUE(MakeGemmConfig("h200", "e5m2", "e4m3fn", "fp16").ok());
}

}  // namespace
}  // namespace mmu
}  // namespace lpsim
