// The scalar reference casts: exhaustive round trips, every RNE midpoint,
// RTZ and FTZ behaviour, the pitfalls of docs/formats.md "Known pitfalls" as named regression
// tests, the per-tensor counts, and stochastic rounding's statistics.
#include "formats/reference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "formats/format.h"
#include "formats/stochastic.h"
#include "tests/formats/test_util.h"

namespace lpsim {
namespace {

using testing_util::BitsFloat;
using testing_util::Builtin;
using testing_util::FloatBits;
using testing_util::NameParam;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

// Stop a sweep after this many reported mismatches: one bug should not print
// 65536 lines.
constexpr int kMaxReportedFailures = 10;

// Random bits for stochastic rounding of exact values: whatever they are, an
// exact value has nothing to round.
constexpr uint32_t kAnyRandomBits[] = {0u, 1u, 0x7fffffffu, 0x80000000u, 0xfffffffeu, 0xffffffffu};

constexpr Rounding kRoundings[] = {Rounding::kNearestEven, Rounding::kTowardZero,
                                   Rounding::kStochastic};

std::string Hex(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%X", v);
  return buf;
}

std::string Describe(float x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g (%s)", x, Hex(FloatBits(x)).c_str());
  return buf;
}

// The code a zero result takes: -0 exists only where has_negative_zero().
uint32_t ZeroCode(const Format& f, bool negative) {
  return negative && f.has_negative_zero() ? f.sign_mask() : 0u;
}

// max + ulp(max): the value the code after max would have if it were finite.
double NextAfterMax(const Format& f) {
  const double max = f.MaxValue();
  return max + std::ldexp(1.0, std::ilogb(max) - f.mantissa_bits());
}

// Checks that `e` is the overflow result of `f` for a value of sign `negative`:
// +-Inf, NaN (FNUZ NaN is unsigned) or +-max, by docs/formats.md "Built-in formats"'s last column.
::testing::AssertionResult IsOverflow(const Format& f, bool negative, const Encoded& e) {
  const uint32_t sign = negative ? f.sign_mask() : 0u;
  if ((e.flags & kCastOverflow) == 0) {
    return ::testing::AssertionFailure() << "flags " << Hex(e.flags) << " lack kCastOverflow";
  }
  bool ok = false;
  switch (f.overflow_result()) {
    case OverflowResult::kMax:
      ok = e.code == (sign | f.max_code());
      break;
    case OverflowResult::kInf:
      ok = e.code == (sign | f.inf_code());
      break;
    case OverflowResult::kNan:
      ok = f.IsNan(e.code) &&
           (f.nan() == NanEncoding::kNegativeZero || (e.code & f.sign_mask()) == sign);
      break;
  }
  if (ok) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "code " << Hex(e.code) << " is not the overflow result ("
                                       << ToString(f.overflow_result()) << ") of " << f.name();
}

// --- Every code of every format of at most 19 bits -----------------------

class AllCodesTest : public ::testing::TestWithParam<std::string> {};

// Decode then encode gives the code back in every mode, with the flag the
// code's class implies; NaN codes give a NaN code.
TEST_P(AllCodesTest, EveryCodeRoundTrips) {
  const Format& base = Builtin(GetParam());
  int failures = 0;
  for (const Format& f : {base, base.WithSaturate(true)}) {
    const uint32_t n = 1u << f.total_bits();
    for (uint32_t code = 0; code < n && failures < kMaxReportedFailures; ++code) {
      const float x = DecodeRef(f, code);
      const uint32_t mag = code & ~f.sign_mask();
      uint32_t want_flags = 0;
      if (f.IsNan(code)) {
        want_flags = kCastNanIn;
      } else if (f.IsInf(code)) {
        want_flags = kCastInfIn;
      } else if (f.has_zero() && mag == 0) {
        want_flags = kCastZeroIn;
      } else if (f.has_zero() && mag < (1u << f.mantissa_bits())) {
        want_flags = kCastSubnormal;
      }
      for (Rounding r : kRoundings) {
        for (uint32_t bits : kAnyRandomBits) {
          const Encoded e = EncodeRef(f, x, r, bits);
          const bool ok = f.IsNan(code) ? std::isnan(x) && f.IsNan(e.code) : e.code == code;
          if (!ok || e.flags != want_flags) {
            ADD_FAILURE() << f.name() << " code " << Hex(code) << " -> " << Describe(x) << " -> "
                          << ToString(r) << " bits " << Hex(bits) << " code " << Hex(e.code)
                          << " flags " << Hex(e.flags) << " (want flags " << Hex(want_flags) << ")";
            ++failures;
          }
          if (r != Rounding::kStochastic) break;
        }
      }
    }
  }
}

// Finite values grow strictly with the magnitude code, the sign bit negates,
// and every magnitude code above max is Inf or NaN.
TEST_P(AllCodesTest, ValuesIncreaseWithMagnitudeCode) {
  const Format& f = Builtin(GetParam());
  const uint32_t mags = f.is_signed() ? f.sign_mask() : 1u << f.total_bits();
  float prev = -kInf;
  int failures = 0;
  for (uint32_t mag = 0; mag < mags && failures < kMaxReportedFailures; ++mag) {
    const float v = DecodeRef(f, mag);
    if (mag > f.max_code()) {
      if (!(f.IsNan(mag) || f.IsInf(mag))) {
        ADD_FAILURE() << Hex(mag) << " is above max but neither NaN nor Inf";
        ++failures;
      }
      continue;
    }
    if (!std::isfinite(v) || !(v > prev)) {
      ADD_FAILURE() << f.name() << " code " << Hex(mag) << " = " << Describe(v)
                    << " does not exceed the previous code's " << Describe(prev);
      ++failures;
    }
    prev = v;
    if (f.is_signed() && (mag != 0 || f.has_negative_zero())) {
      const float neg = DecodeRef(f, f.sign_mask() | mag);
      if (neg != -v || !std::signbit(neg)) {
        ADD_FAILURE() << f.name() << " code " << Hex(f.sign_mask() | mag) << " = " << Describe(neg)
                      << ", want -" << Describe(v);
        ++failures;
      }
    }
  }
  EXPECT_EQ(prev, f.MaxValue());
}

TEST_P(AllCodesTest, ZeroAndNegativeZero) {
  const Format& f = Builtin(GetParam());
  const Encoded pos = EncodeRef(f, 0.0f, Rounding::kNearestEven, 0);
  const Encoded neg = EncodeRef(f, -0.0f, Rounding::kNearestEven, 0);
  EXPECT_EQ(pos.flags, kCastZeroIn);
  EXPECT_EQ(neg.flags, kCastZeroIn);
  if (!f.has_zero()) {  // E8M0: zero is NaN, or the smallest code when saturating
    EXPECT_TRUE(f.IsNan(pos.code));
    EXPECT_TRUE(f.IsNan(neg.code));
    EXPECT_EQ(EncodeRef(f.WithSaturate(true), 0.0f, Rounding::kNearestEven, 0).code, 0u);
    return;
  }
  EXPECT_EQ(pos.code, 0u);
  EXPECT_EQ(neg.code, ZeroCode(f, true));
  if (f.has_negative_zero()) {
    EXPECT_EQ(neg.code, f.sign_mask());
    EXPECT_TRUE(std::signbit(DecodeRef(f, neg.code)));
  } else {
    EXPECT_EQ(neg.code, 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(Builtins, AllCodesTest,
                         ::testing::ValuesIn(testing_util::RoundingBuiltinNames()), NameParam());

// fp32 -> fp32 is the identity on every non-NaN pattern: every exponent with
// mantissa edge patterns, then random patterns.
TEST(Fp32Test, EncodeIsIdentity) {
  const Format& f = Builtin("fp32");
  std::vector<uint32_t> mantissas = {0,        1,        2,        3,        0x7fffff, 0x7ffffe,
                                     0x400000, 0x3fffff, 0x400001, 0x555555, 0x2aaaaa};
  for (int k = 0; k < 23; ++k) {
    mantissas.push_back(1u << k);
    mantissas.push_back(0x7fffffu ^ (1u << k));
  }
  std::vector<uint32_t> patterns;
  for (uint32_t sign = 0; sign < 2; ++sign) {
    for (uint32_t exp = 0; exp < 256; ++exp) {
      for (uint32_t m : mantissas) patterns.push_back(sign << 31 | exp << 23 | m);
    }
  }
  std::mt19937 rng(20240601);
  constexpr int kRandomPatterns = 1 << 20;
  for (int i = 0; i < kRandomPatterns; ++i) patterns.push_back(rng());
  int failures = 0;
  for (const Format& g : {f, f.WithSaturate(true)}) {
    for (uint32_t bits : patterns) {
      if (failures >= kMaxReportedFailures) break;
      const float x = BitsFloat(bits);
      for (Rounding r : kRoundings) {
        const Encoded e = EncodeRef(g, x, r, 0x80000000u);
        const bool ok =
            std::isnan(x) ? g.IsNan(e.code) && (e.code >> 31) == (bits >> 31) : e.code == bits;
        if (!ok) {
          ADD_FAILURE() << g.name() << " " << ToString(r) << " " << Describe(x) << " -> "
                        << Hex(e.code);
          ++failures;
        }
      }
      if (!std::isnan(x) && FloatBits(DecodeRef(g, bits)) != bits) {
        ADD_FAILURE() << "decode " << Hex(bits) << " -> " << Describe(DecodeRef(g, bits));
        ++failures;
      }
    }
  }
}

// --- Rounding at every pair of adjacent codes ------------------------------

class AdjacentCodesTest : public ::testing::TestWithParam<std::string> {};

// For each pair (a, a+1) of adjacent non-negative finite codes, and for max
// with the value max + ulp that would come next: the exact midpoint rounds to
// the even code (away from zero when M = 0), one fp32 ulp either side rounds
// to the nearer code. A carry past max is an overflow.
TEST_P(AdjacentCodesTest, NearestEvenAtEveryMidpoint) {
  const Format& base = Builtin(GetParam());
  int failures = 0;
  for (const Format& f : {base, base.WithSaturate(true)}) {
    const uint32_t max = f.max_code();
    for (uint32_t a = 0; a <= max && failures < kMaxReportedFailures; ++a) {
      const double lo = DecodeRef(f, a);
      const double hi = a < max ? static_cast<double>(DecodeRef(f, a + 1)) : NextAfterMax(f);
      const double mid_exact = (lo + hi) / 2;  // exact: lo, hi have at most 24 bits
      const float mid = static_cast<float>(mid_exact);
      ASSERT_EQ(static_cast<double>(mid), mid_exact) << "midpoint not an fp32 value";
      const bool tie_up = f.mantissa_bits() == 0 || (a & 1) != 0;
      const struct {
        float x;
        bool up;
      } cases[] = {
          {mid, tie_up}, {std::nextafter(mid, 0.0f), false}, {std::nextafter(mid, kInf), true}};
      for (const auto& c : cases) {
        for (bool negative : {false, true}) {
          if (negative && !f.is_signed()) continue;
          const float x = negative ? -c.x : c.x;
          const Encoded e = EncodeRef(f, x, Rounding::kNearestEven, 0);
          const uint32_t sign = negative ? f.sign_mask() : 0u;
          const uint32_t want = c.up ? a + 1 : a;
          ::testing::AssertionResult ok = ::testing::AssertionSuccess();
          if (want > max) {
            ok = IsOverflow(f, negative, e);
          } else if (want == 0 && f.has_zero()) {
            if (e.code != ZeroCode(f, negative)) ok = ::testing::AssertionFailure() << "not zero";
          } else if (e.code != (sign | want)) {
            ok = ::testing::AssertionFailure() << "want " << Hex(sign | want);
          }
          if (!ok) {
            ADD_FAILURE() << f.name() << " between codes " << Hex(a) << " and " << Hex(a + 1)
                          << ": " << Describe(x) << " -> " << Hex(e.code) << ": " << ok.message();
            ++failures;
          }
        }
      }
    }
  }
}

// Every value strictly between two adjacent codes truncates to the lower
// magnitude, including the values between max and max + ulp.
TEST_P(AdjacentCodesTest, TowardZeroTakesTheLowerMagnitude) {
  const Format& f = Builtin(GetParam());
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  constexpr int kRandomPerPair = 2;
  int failures = 0;
  const uint32_t max = f.max_code();
  for (uint32_t a = 0; a <= max && failures < kMaxReportedFailures; ++a) {
    const float lo = DecodeRef(f, a);
    const double hi_d = a < max ? static_cast<double>(DecodeRef(f, a + 1)) : NextAfterMax(f);
    // max + ulp is 2^128 for bf16, tf32 and e8m0fnu: Inf as a float, and then
    // the value below it is FLT_MAX, still strictly between max and 2^128.
    const float hi = static_cast<float>(hi_d);
    std::vector<float> inside = {std::nextafter(lo, kInf), static_cast<float>((lo + hi_d) / 2),
                                 std::nextafter(hi, 0.0f)};
    for (int i = 0; i < kRandomPerPair; ++i) {
      const float x = static_cast<float>(lo + unit(rng) * (hi_d - lo));
      if (x > lo && static_cast<double>(x) < hi_d) inside.push_back(x);
    }
    for (float x : inside) {
      for (bool negative : {false, true}) {
        if (negative && !f.is_signed()) continue;
        const Encoded e = EncodeRef(f, negative ? -x : x, Rounding::kTowardZero, 0);
        const uint32_t want =
            a == 0 && f.has_zero() ? ZeroCode(f, negative) : (negative ? f.sign_mask() : 0u) | a;
        if (e.code != want) {
          ADD_FAILURE() << f.name() << " rtz " << Describe(negative ? -x : x) << " -> "
                        << Hex(e.code) << ", want " << Hex(want);
          ++failures;
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Builtins, AdjacentCodesTest,
                         ::testing::ValuesIn(testing_util::RoundingBuiltinNames()), NameParam());

// --- Flush to zero ----------------------------------------------------------

class FtzTest : public ::testing::TestWithParam<std::string> {};

TEST_P(FtzTest, SubnormalResultsBecomeSignedZero) {
  const Format& base = Builtin(GetParam());
  ASSERT_TRUE(base.has_subnormals());
  const Format f = base.WithFtz(true);
  const uint32_t min_normal = 1u << f.mantissa_bits();
  // fp32 has 2^23 subnormal codes: a stride keeps this quick, 8-bit formats
  // still see every code.
  const uint32_t stride = min_normal > (1u << 16) ? 97 : 1;
  int failures = 0;
  for (uint32_t c = 1; c < min_normal && failures < kMaxReportedFailures; c += stride) {
    const float x = DecodeRef(f, c);
    for (bool negative : {false, true}) {
      for (Rounding r : kRoundings) {
        const Encoded e = EncodeRef(f, negative ? -x : x, r, 0x12345678u);
        if (e.code != ZeroCode(f, negative) || e.flags != (kCastFlushed | kCastUnderflow)) {
          ADD_FAILURE() << f.name() << " " << ToString(r) << " " << Describe(negative ? -x : x)
                        << " -> " << Hex(e.code) << " flags " << Hex(e.flags);
          ++failures;
        }
      }
    }
  }
  for (bool negative : {false, true}) {
    const uint32_t sign = negative ? f.sign_mask() : 0u;
    const float mn = negative ? -f.MinNormal() : f.MinNormal();
    for (Rounding r : kRoundings) {
      const Encoded e = EncodeRef(f, mn, r, 0);
      EXPECT_EQ(e.code, sign | min_normal) << ToString(r);
      EXPECT_EQ(e.flags, 0u) << ToString(r);
    }
    // Just below the min normal: RNE rounds up to it (kept), RTZ down to the
    // largest subnormal (flushed). In fp32 that value is the largest subnormal.
    if (f.mantissa_bits() == 23) continue;
    const float below = std::nextafter(mn, 0.0f);
    Encoded e = EncodeRef(f, below, Rounding::kNearestEven, 0);
    EXPECT_EQ(e.code, sign | min_normal);
    EXPECT_EQ(e.flags, 0u);
    e = EncodeRef(f, below, Rounding::kTowardZero, 0);
    EXPECT_EQ(e.code, ZeroCode(f, negative));
    EXPECT_EQ(e.flags, kCastFlushed | kCastUnderflow);
  }
}

std::vector<std::string> NamesWithSubnormals() {
  std::vector<std::string> names;
  for (const Format& f : BuiltinFormats()) {
    if (f.has_subnormals()) names.push_back(f.name());
  }
  return names;
}

INSTANTIATE_TEST_SUITE_P(Builtins, FtzTest, ::testing::ValuesIn(NamesWithSubnormals()),
                         NameParam());

// --- Known pitfalls (docs/formats.md) ---------------------------------------

uint32_t Rne(const std::string& spec, float x) {
  StatusOr<Format> f = ParseFormat(spec);
  if (!f.ok()) {
    ADD_FAILURE() << f.status().message();
    return 0xdeadbeefu;
  }
  return EncodeRef(*f, x, Rounding::kNearestEven, 0).code;
}

TEST(RegressionTest, DoubleRoundingViaFp16) {
  // 1.0625 + 2^-13 is just above the e4m3fn midpoint 1.0625 between 1.0 and
  // 1.125; via fp16 it lands on the midpoint and ties to 1.0.
  const float x = 1.0625f + 0x1p-13f;
  EXPECT_EQ(Rne("e4m3fn", x), 0b0'0111'001u);        // (1 + 1/8) * 2^0 = 1.125
  EXPECT_EQ(Rne("e4m3fn", 1.0625f), 0b0'0111'000u);  // the tie itself: even, 1.0
  // fp16's ulp at 1 is 2^-10, so x rounds to 1.0625 = 0x3C40: exactly the e4m3fn tie.
  EXPECT_EQ(Rne("fp16", x), 0x3C40u);
}

TEST(RegressionTest, TiesAtMax) {
  // e4m3fn: max 448, next would be 480; 464 is the tie, max's code 0x7E is even.
  EXPECT_EQ(Rne("e4m3fn", 464.0f), 0b0'1111'110u);
  EXPECT_EQ(Rne("e4m3fn", 465.0f), 0b0'1111'111u);  // NaN
  EXPECT_EQ(Rne("e4m3fn", -465.0f), 0b1'1111'111u);
  EXPECT_EQ(Rne("e4m3fn", 449.0f), 0b0'1111'110u);  // rounding, not saturation
  EXPECT_EQ(Rne("e4m3fn:sat", 465.0f), 0b0'1111'110u);
  EXPECT_EQ(Rne("e4m3fn:sat", 1e30f), 0b0'1111'110u);
  EXPECT_EQ(Rne("e4m3fn", 500.0f), 0b0'1111'111u);  // no pre-clamp in non-sat mode
  // e5m2: max 57344, next 65536, tie 61440 with max's code 0x7B odd.
  EXPECT_EQ(Rne("e5m2", 58000.0f), 0b0'11110'11u);
  EXPECT_EQ(Rne("e5m2", 61439.0f), 0b0'11110'11u);
  EXPECT_EQ(Rne("e5m2", 61440.0f), 0b0'11111'00u);  // Inf
  EXPECT_EQ(Rne("e5m2:sat", 61440.0f), 0b0'11110'11u);
  // e4m3fnuz: max 240 (0x7F, odd), next 256, tie 248 overflows.
  EXPECT_EQ(Rne("e4m3fnuz", 247.0f), 0b0'1111'111u);
  EXPECT_EQ(Rne("e4m3fnuz", 248.0f), 0b1'0000'000u);  // NaN
  EXPECT_EQ(Rne("e4m3fnuz", -248.0f), 0b1'0000'000u);
  EXPECT_EQ(Rne("e4m3fnuz:sat", 248.0f), 0b0'1111'111u);
  // e4m3b11fnuz: max 30, 31 is the tie (max code odd) -> NaN.
  EXPECT_EQ(Rne("e4m3b11fnuz", 31.0f), 0b1'0000'000u);
  // e3m4: max 15.5, 15.75 is the tie (max code 0x6F odd) -> Inf.
  EXPECT_EQ(Rne("e3m4", 15.75f), 0b0'111'0000u);
  EXPECT_EQ(Rne("e3m4", 15.74f), 0b0'110'1111u);
  // IEEE-like e4m3: 247 -> 240, 248 -> Inf.
  EXPECT_EQ(Rne("e4m3", 247.0f), 0b0'1110'111u);
  EXPECT_EQ(Rne("e4m3", 248.0f), 0b0'1111'000u);
  // fp16: 65519 -> 65504, 65520 (tie, max code 0x7BFF odd) -> Inf.
  EXPECT_EQ(Rne("fp16", 65519.0f), 0x7BFFu);
  EXPECT_EQ(Rne("fp16", 65520.0f), 0x7C00u);
  // MX formats always saturate.
  EXPECT_EQ(Rne("e2m1fn", 100.0f), 0b0'11'1u);
  EXPECT_EQ(Rne("e2m1fn", -7.0f), 0b1'11'1u);
  EXPECT_EQ(Rne("e3m2fn", 1e6f), 0b0'111'11u);
  EXPECT_EQ(Rne("e2m3fn", 8.0f), 0b0'11'111u);
}

TEST(RegressionTest, FnuzNegativeZero) {
  for (const char* name : {"e4m3fnuz", "e5m2fnuz", "e4m3b11fnuz", "binary8p3se", "binary8p3sf",
                           "binary8p4se", "binary8p4sf"}) {
    for (const std::string& spec : {std::string(name), std::string(name) + ":ftz"}) {
      const Format f = *ParseFormat(spec);
      // Half the min subnormal is a tie with zero (even): zero too.
      const float half_min = f.MinSubnormal() / 2;
      for (float x :
           {-0.0f, -0x1p-12f, -0x1p-40f, -half_min, -0x1p-149f, -std::nextafter(half_min, 0.0f)}) {
        if (-x > half_min) continue;
        for (Rounding r : kRoundings) {
          // All-ones random bits: stochastic rounding rounds down, like the others.
          const Encoded e = EncodeRef(f, x, r, 0xffffffffu);
          EXPECT_EQ(e.code, 0x00u) << spec << " " << ToString(r) << " " << Describe(x);
        }
      }
      // Flushed negative subnormals are +0 too.
      if (f.ftz()) {
        EXPECT_EQ(EncodeRef(f, -f.MinSubnormal(), Rounding::kNearestEven, 0).code, 0x00u);
      }
    }
  }
  EXPECT_EQ(Rne("e4m3fnuz", -0.0f), 0x00u);
  EXPECT_EQ(Rne("e4m3fnuz", -0x1p-12f), 0x00u);
  // A negative value that does not underflow keeps its sign.
  EXPECT_EQ(Rne("e4m3fnuz", -0x1p-10f), 0b1'0000'001u);
}

TEST(RegressionTest, E8m0Rounding) {
  const Format f = Builtin("e8m0fnu");
  const Format sat = f.WithSaturate(true);
  constexpr uint32_t kOne = 0b0111'1111;  // 2^(127-127)
  EXPECT_EQ(DecodeRef(f, kOne), 1.0f);
  // Nearest in linear value, ties (1.5 * 2^e) up.
  EXPECT_EQ(Rne("e8m0fnu", 1.4f), kOne);
  EXPECT_EQ(Rne("e8m0fnu", 1.5f), kOne + 1);   // 2
  EXPECT_EQ(Rne("e8m0fnu", 3.0f), kOne + 2);   // 4
  EXPECT_EQ(Rne("e8m0fnu", 0.75f), kOne);      // tie between 0.5 and 1: up
  EXPECT_EQ(Rne("e8m0fnu", 0.74f), kOne - 1);  // 0.5
  EXPECT_EQ(Rne("e8m0fnu", 0x1p-127f), 0x00u);
  EXPECT_EQ(Rne("e8m0fnu", 0x1p-140f), 0x00u);  // no zero: the smallest binade
  // Zero, negatives, Inf, NaN -> NaN 0xFF; saturating maps zero and negatives to 0x00.
  EXPECT_EQ(Rne("e8m0fnu", 0.0f), 0xFFu);
  EXPECT_EQ(Rne("e8m0fnu", -0.0f), 0xFFu);
  EXPECT_EQ(Rne("e8m0fnu:sat", 0.0f), 0x00u);
  EXPECT_EQ(Rne("e8m0fnu", -1.0f), 0xFFu);
  EXPECT_EQ(Rne("e8m0fnu:sat", -1.0f), 0x00u);
  EXPECT_EQ(Rne("e8m0fnu", kInf), 0xFFu);
  EXPECT_EQ(Rne("e8m0fnu", -kInf), 0xFFu);
  EXPECT_EQ(Rne("e8m0fnu:sat", kInf), 0xFFu);
  EXPECT_EQ(Rne("e8m0fnu", kNan), 0xFFu);
  // Overflow: 1.5 * 2^127 is the tie between 2^127 and 2^128.
  EXPECT_EQ(Rne("e8m0fnu", 0x1.7p127f), 0xFEu);
  EXPECT_EQ(Rne("e8m0fnu", 0x1.8p127f), 0xFFu);
  EXPECT_EQ(Rne("e8m0fnu:sat", 0x1.8p127f), 0xFEu);
  // Truncation is floor.
  for (float x : {1.0f, 1.4f, 1.5f, 1.99f}) {
    EXPECT_EQ(EncodeRef(f, x, Rounding::kTowardZero, 0).code, kOne) << x;
  }
  EXPECT_EQ(EncodeRef(f, 3.99f, Rounding::kTowardZero, 0).code, kOne + 1);
  EXPECT_EQ(EncodeRef(f, 0.99f, Rounding::kTowardZero, 0).code, kOne - 1);
  EXPECT_EQ(EncodeRef(sat, 0x1.Fp127f, Rounding::kTowardZero, 0).code, 0xFEu);
}

TEST(RegressionTest, NoMantissaTiesAwayFromZero) {
  // e5m0 (custom: bias 15, zero, no subnormals, NaN at the top code): values
  // 0, 2^-14 (code 0x01), ..., 2^15 (0x1E). With M = 0 ties go away from zero,
  // even where the lower code is even (0 and 0x1E).
  EXPECT_EQ(Rne("e5m0", 0x1p-15f), 0x01u);  // tie between 0 and 2^-14
  EXPECT_EQ(Rne("e5m0", std::nextafter(0x1p-15f, 0.0f)), 0x00u);
  EXPECT_EQ(Rne("e5m0", -0x1p-15f), 0x21u);
  EXPECT_EQ(Rne("e5m0", 1.5f), 0b0'10000u);       // tie between 1 and 2: 2 = 2^(16-15)
  EXPECT_EQ(Rne("e5m0", 0x1.8p15f), 0b0'11111u);  // tie between max 2^15 and 2^16: NaN
  EXPECT_EQ(Rne("e5m0:sat", 0x1.8p15f), 0b0'11110u);
  EXPECT_EQ(Rne("e5m0", 0x1.7p15f), 0b0'11110u);
}

TEST(RegressionTest, Subnormals) {
  // e5m2's min subnormal is 2^-16: anything at or below half of it is zero
  // (a shift of >= 32 bits must not leave a stray subnormal).
  for (float x : {0x1p-40f, 0x1p-17f, 0x1p-30f, 0x1p-149f, 0x1p-126f}) {
    for (bool negative : {false, true}) {
      const Encoded e = EncodeRef(Builtin("e5m2"), negative ? -x : x, Rounding::kNearestEven, 0);
      EXPECT_EQ(e.code, negative ? 0x80u : 0x00u) << Describe(x);
      EXPECT_EQ(e.flags, kCastUnderflow) << Describe(x);
    }
  }
  EXPECT_EQ(Rne("e5m2", 0x1.0001p-17f), 0x01u);  // just above the tie: min subnormal
  // Every subnormal code decodes to mant * 2^(emin - M).
  for (uint32_t mant = 1; mant < 8; ++mant) {
    EXPECT_EQ(DecodeRef(Builtin("e4m3fn"), mant), std::ldexp(static_cast<float>(mant), -6 - 3));
    EXPECT_EQ(DecodeRef(Builtin("e4m3fn"), 0x80 | mant),
              -std::ldexp(static_cast<float>(mant), -6 - 3));
  }
  for (uint32_t mant = 1; mant < 4; ++mant) {
    EXPECT_EQ(DecodeRef(Builtin("e5m2"), mant), std::ldexp(static_cast<float>(mant), -14 - 2));
  }
  // Subnormal rounding (RNE inside the subnormal binade): 2.5 * 2^-9 ties to 2 * 2^-9,
  // 3.5 * 2^-9 ties to 4 * 2^-9.
  EXPECT_EQ(Rne("e4m3fn", 2.5f * 0x1p-9f), 0x02u);
  EXPECT_EQ(Rne("e4m3fn", 3.5f * 0x1p-9f), 0x04u);
  // The largest subnormal 7 * 2^-9 and the min normal 8 * 2^-9: 7.5 * 2^-9 ties to even 0x08.
  EXPECT_EQ(Rne("e4m3fn", 7.5f * 0x1p-9f), 0x08u);
}

TEST(RegressionTest, NanPropagation) {
  // FNUZ 0x80 is NaN, not -0.
  for (const char* name : {"e4m3fnuz", "e5m2fnuz", "e4m3b11fnuz", "binary8p4sf"}) {
    EXPECT_TRUE(std::isnan(DecodeRef(Builtin(name), 0x80))) << name;
    EXPECT_EQ(Rne(name, kNan), 0x80u) << name;
    EXPECT_EQ(Rne(name, -kNan), 0x80u) << name;
  }
  EXPECT_TRUE(std::isnan(DecodeRef(Builtin("e8m0fnu"), 0xFF)));
  // MX fp6/fp4 have no NaN: a NaN input becomes -0 (ml_dtypes), either sign.
  for (float nan : {kNan, -kNan}) {
    EXPECT_EQ(Rne("e2m1fn", nan), 0b1'00'0u);
    EXPECT_EQ(Rne("e2m3fn", nan), 0b1'00'000u);
    EXPECT_EQ(Rne("e3m2fn", nan), 0b1'000'00u);
    EXPECT_EQ(EncodeRef(Builtin("e2m1fn"), nan, Rounding::kNearestEven, 0).flags, kCastNanIn);
  }
  // No Inf either: Inf saturates to +-max.
  EXPECT_EQ(Rne("e2m1fn", kInf), 0b0'11'1u);  // 6
  EXPECT_EQ(Rne("e2m1fn", -kInf), 0b1'11'1u);
  EXPECT_EQ(Rne("e3m2fn", kInf), 0b0'111'11u);  // 28
  // Sign of IEEE and fn NaNs is kept.
  EXPECT_EQ(Rne("e4m3fn", -kNan), 0b1'1111'111u);
  EXPECT_EQ(Rne("e5m2", kNan), 0b0'11111'10u);
  EXPECT_EQ(Rne("e5m2", -kNan), 0b1'11111'10u);
  EXPECT_TRUE(std::signbit(DecodeRef(Builtin("e4m3fn"), 0xFF)));
}

TEST(RegressionTest, InfWithSaturation) {
  // ml_dtypes: saturation clamps finite overflow only; specials stay.
  EXPECT_EQ(Rne("e4m3fn:sat", kInf), 0b0'1111'111u);  // NaN
  EXPECT_EQ(Rne("e4m3fn:sat", -kInf), 0b1'1111'111u);
  EXPECT_EQ(Rne("e4m3fn", kInf), 0b0'1111'111u);
  EXPECT_EQ(Rne("e5m2:sat", kInf), 0b0'11111'00u);  // Inf
  EXPECT_EQ(Rne("e5m2:sat", -kInf), 0b1'11111'00u);
  EXPECT_EQ(Rne("e4m3fnuz:sat", kInf), 0b1'0000'000u);     // FNUZ: NaN
  EXPECT_EQ(Rne("binary8p3se:sat", kInf), 0b0'11111'11u);  // P3109 extended: Inf
  EXPECT_EQ(Rne("fp16:sat", kInf), 0x7C00u);
  EXPECT_EQ(Rne("fp16:sat", 1e10f), 0x7BFFu);
  EXPECT_EQ(Rne("e4m3fn:sat", kNan), 0b0'1111'111u);
  const Encoded e = EncodeRef(*ParseFormat("e4m3fn:sat"), kInf, Rounding::kNearestEven, 0);
  EXPECT_EQ(e.flags, kCastInfIn);
}

// --- Counts -----------------------------------------------------------------

struct Case {
  float x;
  float q;  // expected x -> e4m3fn -> fp32 (NaN: a NaN)
};

// e4m3fn with RNE (docs/formats.md "Built-in formats": max 448, min normal 2^-6, min subnormal 2^-9).
const std::vector<Case>& CraftedE4m3fn() {
  static const std::vector<Case> kCases = {
      {0.0f, 0.0f},    // zero_in
      {-0.0f, -0.0f},  // zero_in
      {1.0f, 1.0f},
      {kNan, kNan},                // nan_in
      {kInf, kNan},                // inf_in: no Inf in e4m3fn
      {-kInf, kNan},               // inf_in
      {1000.0f, kNan},             // overflow
      {465.0f, kNan},              // overflow: above the tie 464
      {464.0f, 448.0f},            // the tie rounds to max: no overflow
      {0x1p-12f, 0.0f},            // underflow: below half the min subnormal
      {-0x1p-11f, -0.0f},          // underflow
      {0x1p-10f, 0.0f},            // underflow: the tie between 0 and 2^-9 goes to even 0
      {3 * 0x1p-9f, 3 * 0x1p-9f},  // subnormal, exact
      {0x1p-7f, 0x1p-7f},          // subnormal: 4 * 2^-9
      {0x1p-6f, 0x1p-6f},          // min normal
      {1.5f * 0x1p-10f, 0x1p-9f},  // subnormal: 0.75 * 2^-9 rounds up to 2^-9
      {300.0f, 288.0f},            // (1 + 1/8) * 2^8 = 288 and 320: 300 is nearer 288
  };
  return kCases;
}

TEST(CastCountsTest, ExactCounts) {
  const std::vector<Case>& cases = CraftedE4m3fn();
  std::vector<float> in, out(cases.size());
  for (const Case& c : cases) in.push_back(c.x);
  CastCounts counts;
  QuantizeRef(Builtin("e4m3fn"), in.data(), in.size(), QuantizeOptions{}, out.data(), &counts);
  EXPECT_EQ(counts.numel, cases.size());
  EXPECT_EQ(counts.zero_in, 2u);
  EXPECT_EQ(counts.nan_in, 1u);
  EXPECT_EQ(counts.inf_in, 2u);
  EXPECT_EQ(counts.overflow, 2u);
  EXPECT_EQ(counts.underflow, 3u);
  EXPECT_EQ(counts.subnormal, 3u);
  EXPECT_EQ(counts.flushed, 0u);
  double sq_error = 0, sq_signal = 0;  // every term and partial sum is exact in double
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    if (std::isnan(c.q)) {
      EXPECT_TRUE(std::isnan(out[i])) << i;
      continue;
    }
    EXPECT_EQ(FloatBits(out[i]), FloatBits(c.q)) << i << ": " << Describe(c.x);
    sq_error += (static_cast<double>(c.x) - c.q) * (static_cast<double>(c.x) - c.q);
    sq_signal += static_cast<double>(c.x) * c.x;
  }
  EXPECT_EQ(counts.sq_error, sq_error);
  EXPECT_EQ(counts.sq_signal, sq_signal);
  EXPECT_DOUBLE_EQ(counts.SnrDb(), 10 * std::log10(sq_signal / sq_error));
}

TEST(CastCountsTest, FtzCounts) {
  const std::vector<Case>& cases = CraftedE4m3fn();
  std::vector<float> in, out(cases.size());
  for (const Case& c : cases) in.push_back(c.x);
  CastCounts counts;
  QuantizeRef(Builtin("e4m3fn").WithFtz(true), in.data(), in.size(), QuantizeOptions{}, out.data(),
              &counts);
  EXPECT_EQ(counts.subnormal, 0u);
  EXPECT_EQ(counts.flushed, 3u);
  EXPECT_EQ(counts.underflow, 6u);  // 3 underflows plus 3 flushed
  EXPECT_EQ(counts.overflow, 2u);
  EXPECT_EQ(FloatBits(out[12]), FloatBits(0.0f));
}

TEST(CastCountsTest, NoErrorMeansInfiniteSnr) {
  const float in[] = {1.0f, 0.5f, -448.0f, 0x1p-9f};
  float out[4];
  CastCounts counts;
  QuantizeRef(Builtin("e4m3fn"), in, 4, QuantizeOptions{}, out, &counts);
  EXPECT_EQ(counts.sq_error, 0.0);
  EXPECT_EQ(counts.SnrDb(), kInf);
}

TEST(CastCountsTest, ScaleSemantics) {
  // The cast sees x * scale formed in fp32; the counts refer to x.
  QuantizeOptions opt;
  opt.scale = 0x1p100f;
  const float in[] = {
      0x1p40f,    // 2^140: Inf in fp32 -> overflow, not inf_in
      -0x1p40f,   // overflow
      0x1p-108f,  // 2^-8: fine in e5m2
      0.0f,       // zero_in
      kInf,       // inf_in
  };
  constexpr size_t kN = sizeof in / sizeof in[0];
  float out[kN];
  CastCounts counts;
  const Format& e5m2 = Builtin("e5m2");
  QuantizeRef(e5m2, in, kN, opt, out, &counts);
  EXPECT_EQ(counts.overflow, 2u);
  EXPECT_EQ(counts.inf_in, 1u);
  EXPECT_EQ(counts.zero_in, 1u);
  EXPECT_EQ(counts.underflow, 0u);
  EXPECT_EQ(out[0], kInf);
  EXPECT_EQ(out[1], -kInf);
  EXPECT_EQ(out[2], 0x1p-108f);  // back in x's units: decode * (1 / scale)
  // Saturating: the fp32 overflow clamps to max, reported in x's units.
  QuantizeRef(e5m2.WithSaturate(true), in, kN, opt, out, &counts);
  EXPECT_EQ(counts.overflow, 2u);
  EXPECT_EQ(out[0], 57344.0f * 0x1p-100f);
  EXPECT_EQ(out[1], -57344.0f * 0x1p-100f);

  // A nonzero x that scales to fp32 zero is an underflow, not a zero input.
  opt.scale = 0x1p-60f;
  const float tiny[] = {0x1p-100f, -0x1p-100f, 0.0f, 0x1p50f};
  float tiny_out[4];
  QuantizeRef(e5m2, tiny, 4, opt, tiny_out, &counts);
  EXPECT_EQ(counts.underflow, 2u);
  EXPECT_EQ(counts.zero_in, 1u);
  EXPECT_EQ(counts.overflow, 0u);
  EXPECT_EQ(tiny_out[3], 0x1p50f);  // 2^50 * 2^-60 = 2^-10: a normal e5m2 value
}

TEST(CastCountsTest, EncodeScaledRefFlags) {
  const Format& f = Builtin("e4m3fn");
  Encoded e = EncodeScaledRef(f, 0x1p100f, 0x1p100f, Rounding::kNearestEven, 0);
  EXPECT_EQ(e.flags, kCastOverflow);
  EXPECT_TRUE(f.IsNan(e.code));
  e = EncodeScaledRef(f, 0x1p-100f, 0x1p-100f, Rounding::kNearestEven, 0);
  EXPECT_EQ(e.flags, kCastUnderflow);
  EXPECT_EQ(e.code, 0x00u);
  e = EncodeScaledRef(f, 3.0f, 0.5f, Rounding::kNearestEven, 0);
  EXPECT_EQ(e.code, 0b0'0111'100u);  // 1.5
  EXPECT_EQ(e.flags, 0u);
}

// --- Stochastic rounding ----------------------------------------------------

// A value strictly between two adjacent finite codes, with its neighbours.
struct Between {
  float x;
  float lo;
  float hi;
};

// `count` values strictly between adjacent codes of `f` (never past max),
// random codes and fractions from a fixed seed, random sign where signed.
std::vector<Between> ValuesBetweenCodes(const Format& f, int count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<uint32_t> code(0, f.max_code() - 1);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<Between> out;
  while (static_cast<int>(out.size()) < count) {
    const uint32_t a = code(rng);
    const double lo = DecodeRef(f, a), hi = DecodeRef(f, a + 1);
    const float x = static_cast<float>(lo + unit(rng) * (hi - lo));
    if (!(x > lo && x < hi)) continue;
    const bool negative = f.is_signed() && (rng() & 1);
    const float s = negative ? -1.0f : 1.0f;
    out.push_back({s * x, s * static_cast<float>(lo), s * static_cast<float>(hi)});
  }
  return out;
}

TEST(StochasticTest, ReproducibleAndIndependentOfSplitting) {
  const Format& f = Builtin("e4m3fn");
  constexpr size_t kN = 10007;
  std::vector<float> in;
  for (const Between& b : ValuesBetweenCodes(f, kN, 11)) in.push_back(b.x);
  QuantizeOptions opt;
  opt.rounding = Rounding::kStochastic;
  opt.seed = 0x1234'5678'9abc'def0u;
  std::vector<float> whole(kN), again(kN), pieces(kN);
  QuantizeRef(f, in.data(), kN, opt, whole.data(), nullptr);
  QuantizeRef(f, in.data(), kN, opt, again.data(), nullptr);
  EXPECT_EQ(0, std::memcmp(whole.data(), again.data(), kN * sizeof(float)));
  const size_t cuts[] = {0, 1, 8, 4096, 9999, kN};
  for (size_t i = 0; i + 1 < std::size(cuts); ++i) {
    QuantizeOptions part = opt;
    part.index_offset = cuts[i];
    QuantizeRef(f, in.data() + cuts[i], cuts[i + 1] - cuts[i], part, pieces.data() + cuts[i],
                nullptr);
  }
  EXPECT_EQ(0, std::memcmp(whole.data(), pieces.data(), kN * sizeof(float)));
  // Element i uses StochasticBits(key, i), whatever the call.
  const uint32_t key = StochasticKey(opt.seed);
  for (size_t i = 0; i < kN; ++i) {
    const Encoded e = EncodeRef(f, in[i], Rounding::kStochastic, StochasticBits(key, i));
    ASSERT_EQ(FloatBits(DecodeRef(f, e.code)), FloatBits(whole[i])) << i;
  }
}

TEST(StochasticTest, SeedsDiffer) {
  // Values with round-up probability in [1/4, 3/4] differ between two
  // independent seeds with probability 2p(1-p) >= 3/8.
  constexpr double kMinDifferFraction = 0.25;
  const Format& f = Builtin("e4m3fn");
  std::vector<float> in;
  for (const Between& b : ValuesBetweenCodes(f, 20000, 12)) {
    const double p = (std::fabs(b.x) - std::fabs(b.lo)) / (std::fabs(b.hi) - std::fabs(b.lo));
    if (p >= 0.25 && p <= 0.75) in.push_back(b.x);
  }
  QuantizeOptions a, b;
  a.rounding = b.rounding = Rounding::kStochastic;
  a.seed = 1;
  b.seed = 2;
  std::vector<float> out_a(in.size()), out_b(in.size());
  QuantizeRef(f, in.data(), in.size(), a, out_a.data(), nullptr);
  QuantizeRef(f, in.data(), in.size(), b, out_b.data(), nullptr);
  size_t differ = 0;
  for (size_t i = 0; i < in.size(); ++i) differ += out_a[i] != out_b[i];
  EXPECT_GE(static_cast<double>(differ), kMinDifferFraction * in.size())
      << differ << " of " << in.size();
}

class StochasticBiasTest : public ::testing::TestWithParam<std::string> {};

// Over N draws (indices 0..N-1) the mean of SR(x) is x and the round-up
// frequency is p = (|x| - lo) / ulp, within kSigmas standard deviations of
// the mean of N Bernoulli(p) draws, plus the 2^-32 quantisation of p.
TEST_P(StochasticBiasTest, MeanIsUnbiased) {
  constexpr size_t kDraws = size_t{1} << 16;
  constexpr int kValues = 48;
  constexpr double kSigmas = 6.0;
  constexpr double kThresholdQuantum = 0x1p-32;
  const Format& f = Builtin(GetParam());
  std::vector<Between> values = ValuesBetweenCodes(f, kValues, 13);
  // Fixed fractions too, including small and large ones.
  for (double p : {0.5, 0.25, 0.75, 1.0 / 3, 0x1p-8, 1 - 0x1p-8}) {
    const uint32_t a = f.max_code() / 2;
    const double lo = DecodeRef(f, a), hi = DecodeRef(f, a + 1);
    values.push_back(
        {static_cast<float>(lo + p * (hi - lo)), static_cast<float>(lo), static_cast<float>(hi)});
  }
  QuantizeOptions opt;
  opt.rounding = Rounding::kStochastic;
  opt.seed = 99;
  std::vector<float> in(kDraws), out(kDraws);
  double worst_sigmas = 0;
  for (const Between& b : values) {
    ASSERT_TRUE(std::fabs(b.x) > std::fabs(b.lo) && std::fabs(b.x) < std::fabs(b.hi));
    std::fill(in.begin(), in.end(), b.x);
    QuantizeRef(f, in.data(), kDraws, opt, out.data(), nullptr);
    const double ulp = std::fabs(static_cast<double>(b.hi) - b.lo);
    const double p = (std::fabs(static_cast<double>(b.x)) - std::fabs(b.lo)) / ulp;
    size_t up = 0;
    double sum = 0;  // exact: N <= 2^16 values of at most 24 bits within a binade pair
    for (float q : out) {
      ASSERT_TRUE(q == b.lo || q == b.hi) << Describe(b.x) << " -> " << Describe(q);
      up += q == b.hi;
      sum += q;
    }
    const double sd = std::sqrt(p * (1 - p) / kDraws);  // of the mean of N draws of frac
    const double freq = static_cast<double>(up) / kDraws;
    EXPECT_LE(std::fabs(freq - p), kSigmas * sd + kThresholdQuantum)
        << Describe(b.x) << " p " << p << " freq " << freq;
    const double mean = sum / kDraws;
    EXPECT_LE(std::fabs(mean - b.x), ulp * (kSigmas * sd + kThresholdQuantum))
        << Describe(b.x) << " mean " << mean;
    if (sd > 0) worst_sigmas = std::max(worst_sigmas, std::fabs(freq - p) / sd);
  }
  RecordProperty("worst_sigmas", std::to_string(worst_sigmas));
  std::printf("%s: %zu values x %zu draws, worst |freq - p| = %.2f sd\n", f.name().c_str(),
              values.size(), kDraws, worst_sigmas);
}

INSTANTIATE_TEST_SUITE_P(Builtins, StochasticBiasTest,
                         ::testing::ValuesIn(testing_util::RoundingBuiltinNames()), NameParam());

}  // namespace
}  // namespace lpsim
