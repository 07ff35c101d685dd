// Shared fixtures of the simd/ tests: formats to sweep, adversarial inputs,
// bit-exact comparisons and a fixture that runs a test once per SIMD target.
#ifndef LPSIM_TESTS_SIMD_TEST_UTIL_H_
#define LPSIM_TESTS_SIMD_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/bits.h"
#include "formats/format.h"
#include "formats/reference.h"
#include "simd/targets.h"

namespace lpsim {
namespace testing_simd {

inline uint32_t Bits(float x) { return BitsOf(x); }
inline float FromBits(uint32_t b) { return FloatOf(b); }

// Built-ins, their :sat / :ftz variants where they change anything, and custom
// specs that exercise other corners of the encoder (m = 0 with zero, odd
// biases, an unsigned format with zero, wide mantissas).
inline const std::vector<Format>& TestFormats() {
  static const std::vector<Format> kFormats = [] {
    std::vector<Format> out;
    for (const Format& f : BuiltinFormats()) out.push_back(f);
    for (const char* spec :
         {"e4m3fn:sat", "e5m2:sat", "e4m3fnuz:sat", "e8m0fnu:sat", "e4m3fn:ftz", "e5m2:ftz",
          "e2m1fn:ftz", "e3m2fn:ftz", "bf16:ftz", "fp16:sat:ftz", "e4m3:bias=9:nan=fn:inf=none",
          "e3m0", "e5m0:sat", "e6m9:bias=40", "e2m5:bias=-2:nan=none:inf=none",
          "e7m16:bias=30:nan=fnuz"}) {
      StatusOr<Format> f = ParseFormat(spec);
      if (!f.ok()) {
        ADD_FAILURE() << spec << ": " << f.status().message();
        continue;
      }
      out.push_back(f.value());
    }
    // Unsigned with zero: only reachable through FormatParams.
    FormatParams p;
    p.name = "u4m3";
    p.exponent_bits = 4;
    p.mantissa_bits = 3;
    p.bias = 7;
    p.is_signed = false;
    p.inf = InfEncoding::kNone;
    p.nan = NanEncoding::kAllOnes;
    StatusOr<Format> u = Format::Create(p);
    if (u.ok()) out.push_back(u.value());
    else ADD_FAILURE() << u.status().message();
    return out;
  }();
  return kFormats;
}

inline std::string SafeName(std::string s) {
  for (char& c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return s;
}

// Adversarial fp32 data for format f seen through `scale`: runs of random
// length, each from one regime, so every vector path gets whole vectors:
// values on and between the format's grid (midpoints, +-1 ulp), wide-range
// normals, values just below the normal range, fp32 specials and subnormals,
// random bit patterns.
inline std::vector<float> AdversarialData(const Format& f, float scale, size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<float> x(n);
  const uint32_t codes = f.total_bits() >= 32 ? 0 : 1u << f.total_bits();
  auto grid_value = [&]() -> float {
    // A finite code's value, or the midpoint to its neighbour, +-1 fp32 ulp.
    uint32_t c;
    float v;
    do {
      c = codes ? static_cast<uint32_t>(rng() % codes) : static_cast<uint32_t>(rng());
      v = DecodeRef(f, c);
    } while (!std::isfinite(v));
    switch (rng() % 4) {
      case 0: break;
      case 1: {
        const float w = DecodeRef(f, c + 1 < codes || !codes ? c + 1 : c);
        if (std::isfinite(w)) v = static_cast<float>((static_cast<double>(v) + w) / 2);
        break;
      }
      default: {
        uint32_t b = Bits(v);
        if (b & 0x7fffffffu) b += (rng() % 2) ? 1 : static_cast<uint32_t>(-1);
        v = FromBits(b);
      }
    }
    return v / scale;
  };
  const float specials[] = {0.0f, -0.0f, std::numeric_limits<float>::quiet_NaN(),
                            -std::numeric_limits<float>::quiet_NaN(), FromBits(0x7f800001u),
                            FromBits(0xffbfffffu), std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(),
                            std::numeric_limits<float>::min(), -std::numeric_limits<float>::min(),
                            std::numeric_limits<float>::denorm_min(), FromBits(0x807fffffu)};
  std::normal_distribution<float> normal(0.0f, 1.0f);
  size_t i = 0;
  while (i < n) {
    const size_t run = 1 + rng() % 96;
    const int regime = static_cast<int>(rng() % 7);
    const int exp_shift = static_cast<int>(rng() % 81) - 40;
    for (size_t k = 0; k < run && i < n; ++k, ++i) {
      float v = 0;
      switch (regime) {
        case 0:
        case 1: v = grid_value(); break;  // on/between codes, mostly in range
        case 2: v = std::ldexp(normal(rng), exp_shift); break;
        case 3: v = rng() % 5 == 0 ? 0.0f : std::ldexp(normal(rng), f.min_normal_exponent()) / scale;
          break;  // around the subnormal range of the format
        case 4: v = specials[rng() % (sizeof specials / sizeof specials[0])]; break;
        case 5: v = FromBits(static_cast<uint32_t>(rng())); break;
        case 6: v = rng() % 3 == 0 ? FromBits(static_cast<uint32_t>(rng()) & 0x807fffffu)
                                   : (rng() % 2 ? -1.0f : 1.0f) * f.MaxValue() / scale *
                                         (1.0f + std::ldexp(static_cast<float>(rng() % 64), -6));
          break;  // fp32 subnormals and values around the format's max
      }
      x[i] = v;
    }
  }
  return x;
}

inline ::testing::AssertionResult SameBits(const float* a, const float* b, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (Bits(a[i]) != Bits(b[i])) {
      return ::testing::AssertionFailure()
             << "element " << i << " of " << n << ": 0x" << std::hex << Bits(a[i]) << " (" << a[i]
             << ") vs 0x" << Bits(b[i]) << " (" << b[i] << ")" << std::dec;
    }
  }
  return ::testing::AssertionSuccess();
}

inline std::string ToString(const CastCounts& c) {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "{numel %llu under %llu flushed %llu sub %llu over %llu nan %llu inf %llu zero "
                "%llu err %.17g sig %.17g}",
                (unsigned long long)c.numel, (unsigned long long)c.underflow,
                (unsigned long long)c.flushed, (unsigned long long)c.subnormal,
                (unsigned long long)c.overflow, (unsigned long long)c.nan_in,
                (unsigned long long)c.inf_in, (unsigned long long)c.zero_in, c.sq_error,
                c.sq_signal);
  return buf;
}

inline ::testing::AssertionResult SameCounts(const CastCounts& a, const CastCounts& b) {
  if (a == b) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << ToString(a) << "\n vs reference " << ToString(b);
}

// Runs the test body once per compiled SIMD target; targets this CPU lacks
// are skipped, not failed.
class PerTarget : public ::testing::TestWithParam<int64_t> {
 protected:
  void SetUp() override {
    bool available = false;
    for (int64_t t : simd::AvailableTargets()) available |= t == GetParam();
    if (!available) GTEST_SKIP() << simd::TargetName(GetParam()) << " not supported by this CPU";
    force_ = std::make_unique<simd::ScopedTarget>(GetParam());
  }
  void TearDown() override { force_.reset(); }

 private:
  std::unique_ptr<simd::ScopedTarget> force_;
};

inline std::string TargetParamName(const ::testing::TestParamInfo<int64_t>& info) {
  return simd::TargetName(info.param);
}

#define LPSIM_INSTANTIATE_PER_TARGET(suite)                                       \
  INSTANTIATE_TEST_SUITE_P(Targets, suite,                                        \
                           ::testing::ValuesIn(::lpsim::simd::CompiledTargets()), \
                           ::lpsim::testing_simd::TargetParamName)

}  // namespace testing_simd
}  // namespace lpsim

#endif  // LPSIM_TESTS_SIMD_TEST_UTIL_H_
