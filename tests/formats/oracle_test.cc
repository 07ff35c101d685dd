// EncodeRef against an independent oracle in exact arithmetic.
//
// The oracle knows a format only by its description (E, M, bias, sign, zero,
// Inf/NaN encodings, policies). It lists every finite non-negative value by
// the textbook formula, computed in Boost.Multiprecision (cpp_bin_float_50,
// 166 bits, so every value, midpoint and fraction below is exact), finds the
// neighbours lo <= |x| <= hi of an input, and applies the rules stated in
// formats/reference.h: RNE with ties to the even code (away from zero when
// M = 0), RTZ, stochastic (up iff bits < floor(frac * 2^32)), overflow after
// rounding, saturation, FTZ, and the fixed results for NaN, Inf and zero. It
// shares no code with formats/reference.cc; DecodeRef is only compared with
// it, never used to build it.
//
// Each (format spec, rounding) pair is its own test, so ctest -j spreads
// them; each checks at least kMinInputs inputs: fp32 exponent x mantissa edge
// patterns, the values at and next to every midpoint, random fp32 bit
// patterns and random values log-uniform over the format's range.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/multiprecision/cpp_bin_float.hpp>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "formats/format.h"
#include "formats/reference.h"
#include "tests/formats/test_util.h"

namespace lpsim {
namespace {

using Big = boost::multiprecision::cpp_bin_float_50;
using testing_util::BitsFloat;
using testing_util::FloatBits;

constexpr size_t kMinInputs = 1'000'000;
constexpr size_t kRandomBitPatterns = 200'000;
constexpr size_t kMinLogUniform = 100'000;
constexpr int kMaxReportedFailures = 10;

// |x| exactly. Built from the integer significand: Boost 1.74 truncates when
// it converts to a narrower cpp_bin_float, so nothing here narrows.
Big Exact(float x) {
  int e = 0;
  const float m = std::frexp(std::fabs(x), &e);  // m in [0.5, 1), at most 24 bits
  const uint32_t sig = static_cast<uint32_t>(std::ldexp(m, 24));
  return ldexp(Big(sig), e - 24);
}

// --- The oracle -------------------------------------------------------------

class Oracle {
 public:
  explicit Oracle(const Format& f) : p_(f.params()) {
    const int e = p_.exponent_bits, m = p_.mantissa_bits;
    sign_bit_ = p_.is_signed ? 1u << (e + m) : 0u;
    const uint32_t top = (1u << (e + m)) - 1;            // all-ones magnitude
    const uint32_t exp_all_ones = ((1u << e) - 1) << m;  // S.1..1.0..0
    // Which magnitude codes are finite, from the encoding rules of format.h.
    if (p_.nan == NanEncoding::kIeee) {
      max_ = exp_all_ones - 1;
    } else if (p_.nan == NanEncoding::kAllOnes || p_.inf == InfEncoding::kAllOnes) {
      max_ = top - 1;
    } else {
      max_ = top;
    }
    inf_ = p_.inf == InfEncoding::kIeee ? exp_all_ones : top;
    switch (p_.nan) {
      case NanEncoding::kIeee:
        nan_ = exp_all_ones | 1u << (m - 1);
        break;  // quiet
      case NanEncoding::kAllOnes:
        nan_ = top;
        break;
      case NanEncoding::kNegativeZero:
        nan_ = sign_bit_;
        break;
      case NanEncoding::kNone:
        nan_ = sign_bit_;
        break;  // no NaN: -0
    }
    identity_ = e == 8 && m == 23 && p_.bias == 127 && p_.has_zero;
    if (identity_) return;  // fp32 itself: no table
    // value[c] for every finite magnitude code c, then the value the code
    // after max would have: max + ulp(max), where overflow starts.
    values_.reserve(max_ + 2);
    for (uint32_t c = 0; c <= max_ + 1; ++c) values_.push_back(ValueOf(c));
    for (uint32_t c = 0; c <= max_; ++c) mids_.push_back((values_[c] + values_[c + 1]) / 2);
    for (const Big& v : values_) approx_.push_back(v.convert_to<double>());
  }

  // (1 + mant / 2^M) * 2^(field - bias); field 0 of a format with zero holds
  // the subnormals mant / 2^M * 2^(1 - bias); without zero (E8M0) field 0 is
  // an ordinary binade.
  Big ValueOf(uint32_t mag) const {
    const int m = p_.mantissa_bits;
    const int field = static_cast<int>(mag >> m);
    const uint32_t mant = mag & ((1u << m) - 1);
    if (p_.has_zero && field == 0) return ldexp(Big(mant), 1 - p_.bias - m);
    return ldexp(Big((uint64_t{1} << m) + mant), field - p_.bias - m);
  }

  // What the rules decide for x before any random bits are looked at: a
  // fixed result (NaN, Inf, zero, ...) or a magnitude code to round down to
  // and the stochastic threshold (0 in the other modes: never up).
  struct Decision {
    bool fixed = false;
    Encoded result{};
    uint32_t sign = 0;
    uint64_t down = 0;       // max_code + 1 stands for an overflow
    uint64_t threshold = 0;  // up iff random_bits < threshold
  };

  Decision Decide(float x, Rounding rounding) const {
    Decision d;
    const bool negative = std::signbit(x);
    const uint32_t sign = negative ? sign_bit_ : 0u;
    d.sign = sign;
    auto fixed = [&d](uint32_t code, uint32_t flags) {
      d.fixed = true;
      d.result = {code, flags};
      return d;
    };
    if (std::isnan(x)) return fixed(NanResult(sign), kCastNanIn);
    if (std::isinf(x)) {
      if (!p_.is_signed) return fixed(NanResult(0), kCastInfIn);
      if (p_.inf != InfEncoding::kNone) return fixed(sign | inf_, kCastInfIn);
      if (p_.nan != NanEncoding::kNone) return fixed(NanResult(sign), kCastInfIn);
      return fixed(sign | max_, kCastInfIn);
    }
    if (x == 0) {
      if (!p_.has_zero) return fixed(p_.saturate ? 0u : NanResult(0), kCastZeroIn);
      return fixed(ZeroResult(sign), kCastZeroIn);
    }
    if (negative && !p_.is_signed) return fixed(p_.saturate ? 0u : NanResult(0), 0);
    if (identity_) {
      d.down = FloatBits(x) & 0x7fffffffu;
      return d;
    }
    const Big a = Exact(x);
    // Locate with the double copy (its values are exact), decide in Boost.
    const double ad = std::fabs(static_cast<double>(x));
    const size_t idx = std::upper_bound(approx_.begin(), approx_.end(), ad) - approx_.begin();
    if (idx == 0) {
      // Below the smallest value of a format without zero: nothing lower to
      // round to, every mode gives the smallest code.
      return fixed(0u, 0u);
    }
    const uint32_t i = static_cast<uint32_t>(idx - 1);
    d.down = i;
    if (i > max_) return d;  // at or above max + ulp: every mode overflows
    const Big& lo = values_[i];
    const Big& hi = values_[i + 1];
    if (!(lo <= a && a < hi)) ADD_FAILURE() << "oracle: double locate disagrees at " << x;
    if (a == lo) return d;
    switch (rounding) {
      case Rounding::kNearestEven:
        if (a > mids_[i] || (a == mids_[i] && (p_.mantissa_bits == 0 || (i & 1) != 0))) {
          d.down = i + 1;
        }
        break;
      case Rounding::kTowardZero:
        break;
      case Rounding::kStochastic: {
        const Big frac = (a - lo) / (hi - lo);  // exact: hi - lo is a power of 2
        const Big scaled = ldexp(frac, 32);
        const Big whole = floor(scaled);
        d.threshold = whole.convert_to<uint64_t>();
        break;
      }
    }
    return d;
  }

  // The code and flags for a decision and the element's random bits.
  Encoded Finish(const Decision& d, uint32_t random_bits) const {
    if (d.fixed) return d.result;
    const uint64_t j = random_bits < d.threshold ? d.down + 1 : d.down;
    const uint32_t sign = d.sign;
    if (j > max_) {
      if (p_.saturate) return {sign | max_, kCastOverflow};
      if (p_.inf != InfEncoding::kNone) return {sign | inf_, kCastOverflow};
      if (p_.nan != NanEncoding::kNone) return {NanResult(sign), kCastOverflow};
      return {sign | max_, kCastOverflow};
    }
    const uint32_t code = static_cast<uint32_t>(j);
    if (p_.has_zero && code == 0) return {ZeroResult(sign), kCastUnderflow};
    if (p_.has_zero && code < (1u << p_.mantissa_bits)) {
      if (p_.ftz) return {ZeroResult(sign), kCastUnderflow | kCastFlushed};
      return {sign | code, kCastSubnormal};
    }
    return {sign | code, 0u};
  }

  bool identity() const { return identity_; }
  uint32_t max_code() const { return max_; }
  const std::vector<Big>& values() const { return values_; }  // incl. max + ulp
  const std::vector<Big>& mids() const { return mids_; }

 private:
  // NaN keeps the input's sign for IEEE and fn NaNs; FNUZ's NaN is 0x80
  // whatever the sign; without NaN it is -0.
  uint32_t NanResult(uint32_t sign) const {
    if (p_.nan == NanEncoding::kIeee || p_.nan == NanEncoding::kAllOnes) return sign | nan_;
    return nan_;
  }
  uint32_t ZeroResult(uint32_t sign) const {
    const bool has_negative_zero = p_.is_signed && p_.nan != NanEncoding::kNegativeZero;
    return has_negative_zero ? sign : 0u;
  }

  FormatParams p_;
  uint32_t sign_bit_ = 0, max_ = 0, inf_ = 0, nan_ = 0;
  bool identity_ = false;
  std::vector<Big> values_, mids_;
  std::vector<double> approx_;
};

// --- Inputs -----------------------------------------------------------------

struct Inputs {
  std::vector<float> x;
  size_t structured = 0;
};

// fp32 mantissa patterns: the edges (0, 1, all ones, half, half +- 1) and,
// for every possible number k of dropped bits, the rounding boundary at bit
// k - 1 (+-1) with the kept bits 0, odd, or all ones.
std::vector<uint32_t> MantissaPatterns() {
  std::vector<uint32_t> v = {0,        1,        2,        3,        0x7fffff, 0x7ffffe,
                             0x400000, 0x3fffff, 0x400001, 0x555555, 0x2aaaaa};
  for (int k = 1; k <= 23; ++k) {
    const uint32_t half = 1u << (k - 1);
    const uint32_t dropped_mask = (1u << k) - 1;
    const uint32_t kept_lsb = k < 23 ? 1u << k : 0u;
    const uint32_t kept_all = 0x7fffffu & ~dropped_mask;
    for (uint32_t dropped : {half, half - 1, half + 1, dropped_mask}) {
      for (uint32_t kept : {0u, kept_lsb, kept_all}) v.push_back((kept | dropped) & 0x7fffffu);
    }
  }
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

Inputs MakeInputs(const Format& f, const Oracle& o) {
  Inputs in;
  // Every fp32 exponent (a superset of the format's range) x mantissa patterns.
  const std::vector<uint32_t> mantissas = MantissaPatterns();
  for (uint32_t sign = 0; sign < 2; ++sign) {
    for (uint32_t exp = 0; exp < 256; ++exp) {
      for (uint32_t m : mantissas) in.x.push_back(BitsFloat(sign << 31 | exp << 23 | m));
    }
  }
  // Each value, each midpoint and the fp32 values next to it, both signs.
  if (!o.identity()) {
    for (uint32_t c = 0; c <= o.max_code(); ++c) {
      const float lo = o.values()[c].convert_to<float>();
      const float mid = o.mids()[c].convert_to<float>();
      if (Exact(mid) != o.mids()[c]) ADD_FAILURE() << "midpoint not an fp32 value";
      for (float v : {lo, std::nextafter(lo, std::numeric_limits<float>::infinity()), mid,
                      std::nextafter(mid, 0.0f),
                      std::nextafter(mid, std::numeric_limits<float>::infinity())}) {
        in.x.push_back(v);
        in.x.push_back(-v);
      }
    }
  }
  in.structured = in.x.size();
  std::mt19937_64 rng(0x5eed'0f'f0'57a7ull);
  for (size_t i = 0; i < kRandomBitPatterns; ++i)
    in.x.push_back(BitsFloat(static_cast<uint32_t>(rng())));
  // Log-uniform from a little below the smallest positive value to a little
  // above max (capped at fp32's range).
  const double lo_log2 = std::log2(static_cast<double>(f.MinSubnormal())) - 3;
  const double hi_log2 = std::min(std::log2(static_cast<double>(f.MaxValue())) + 1.5, 128.0);
  std::uniform_real_distribution<double> log2(lo_log2, hi_log2);
  const size_t n_log =
      std::max(kMinLogUniform, kMinInputs > in.x.size() ? kMinInputs - in.x.size() : 0);
  for (size_t i = 0; i < n_log; ++i) {
    const float v = static_cast<float>(std::exp2(log2(rng)));
    in.x.push_back((rng() & 1) ? -v : v);
  }
  return in;
}

// --- Tests ------------------------------------------------------------------

struct OracleCase {
  std::string spec;
  Rounding rounding;
};

std::vector<OracleCase> Cases() {
  // Built-ins with each policy that changes something, plus custom formats:
  // a non-default bias with the fn NaN, M = 0 with a zero, and values down in
  // fp32's subnormal range.
  std::vector<std::string> specs;
  for (const Format& f : BuiltinFormats()) {
    specs.push_back(f.name());
    if (f.overflow_result() != OverflowResult::kMax) specs.push_back(f.name() + ":sat");
    if (f.has_subnormals()) specs.push_back(f.name() + ":ftz");
  }
  for (const char* custom : {"e4m3:bias=9:nan=fn", "e4m3:bias=9:nan=fn:sat",
                             "e4m3:bias=9:nan=fn:ftz", "e5m0", "e5m0:sat", "e8m5:bias=140",
                             "e8m5:bias=140:ftz", "e3m2:bias=-5", "e6m9:nan=fnuz:inf=top"}) {
    specs.push_back(custom);
  }
  std::vector<OracleCase> cases;
  for (const std::string& s : specs) {
    for (Rounding r : {Rounding::kNearestEven, Rounding::kTowardZero, Rounding::kStochastic}) {
      cases.push_back({s, r});
    }
  }
  return cases;
}

std::string Hex(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%X", v);
  return buf;
}

class OracleTest : public ::testing::TestWithParam<OracleCase> {};

TEST_P(OracleTest, EncodeMatchesOracle) {
  const auto start = std::chrono::steady_clock::now();
  const OracleCase& c = GetParam();
  StatusOr<Format> parsed = ParseFormat(c.spec);
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  const Format& f = *parsed;
  const Oracle oracle(f);
  const Inputs inputs = MakeInputs(f, oracle);
  ASSERT_GE(inputs.x.size(), kMinInputs);
  std::mt19937 rng(0xb175);
  size_t checks = 0;
  int failures = 0;
  auto check = [&](float x, uint32_t bits, const Encoded& want) {
    const Encoded got = EncodeRef(f, x, c.rounding, bits);
    ++checks;
    if (got.code != want.code || got.flags != want.flags) {
      ADD_FAILURE() << f.name() << " " << ToString(c.rounding) << " x = " << x << " ("
                    << Hex(FloatBits(x)) << ") bits " << Hex(bits) << ": got code " << Hex(got.code)
                    << " flags " << Hex(got.flags) << ", oracle code " << Hex(want.code)
                    << " flags " << Hex(want.flags);
      ++failures;
    }
  };
  for (size_t i = 0; i < inputs.x.size() && failures < kMaxReportedFailures; ++i) {
    const float x = inputs.x[i];
    const Oracle::Decision d = oracle.Decide(x, c.rounding);
    if (c.rounding != Rounding::kStochastic) {
      check(x, 0, oracle.Finish(d, 0));
      continue;
    }
    // Stochastic: one random draw, and the draws either side of the
    // threshold floor(frac * 2^32), where the decision flips.
    const uint32_t r = rng();
    check(x, r, oracle.Finish(d, r));
    const uint64_t t = d.threshold;
    if (t > 0)
      check(x, static_cast<uint32_t>(t - 1), oracle.Finish(d, static_cast<uint32_t>(t - 1)));
    if (t > 0 && t <= 0xffffffffu) {
      check(x, static_cast<uint32_t>(t), oracle.Finish(d, static_cast<uint32_t>(t)));
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  RecordProperty("inputs", std::to_string(inputs.x.size()));
  RecordProperty("checks", std::to_string(checks));
  std::printf("oracle %s %s: %zu inputs (%zu structured), %zu checks, %.1f s\n", f.name().c_str(),
              ToString(c.rounding), inputs.x.size(), inputs.structured, checks, seconds);
}

INSTANTIATE_TEST_SUITE_P(Formats, OracleTest, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<OracleCase>& info) {
                           return testing_util::Sanitize(info.param.spec) + "_" +
                                  ToString(info.param.rounding);
                         });

// The format's own derived limits and DecodeRef agree with the oracle's table.
class OracleTableTest : public ::testing::TestWithParam<std::string> {};

TEST_P(OracleTableTest, DecodeAndLimitsMatchTheTable) {
  StatusOr<Format> parsed = ParseFormat(GetParam());
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  const Format& f = *parsed;
  const Oracle oracle(f);
  ASSERT_FALSE(oracle.identity());
  const std::vector<Big>& v = oracle.values();
  EXPECT_EQ(f.max_code(), oracle.max_code());
  EXPECT_EQ(Exact(f.MaxValue()), v[oracle.max_code()]);
  const uint32_t first_normal = f.has_zero() ? 1u << f.mantissa_bits() : 0u;
  EXPECT_EQ(Exact(f.MinNormal()), v[first_normal]);
  EXPECT_EQ(Exact(f.MinSubnormal()), f.has_zero() ? v[1] : v[0]);
  int failures = 0;
  for (uint32_t c = 0; c <= oracle.max_code() && failures < kMaxReportedFailures; ++c) {
    for (uint32_t sign : {0u, f.sign_mask()}) {
      if (sign != 0 && (c == 0 && !f.has_negative_zero())) continue;
      const float d = DecodeRef(f, sign | c);
      const bool ok = std::isfinite(d) && std::signbit(d) == (sign != 0) && Exact(d) == v[c];
      if (!ok) {
        ADD_FAILURE() << f.name() << " code " << Hex(sign | c) << " decodes to " << d;
        ++failures;
      }
      if (!f.is_signed()) break;
    }
  }
}

std::vector<std::string> TableSpecs() {
  std::vector<std::string> specs = testing_util::RoundingBuiltinNames();
  for (const char* custom :
       {"e4m3:bias=9:nan=fn", "e5m0", "e8m5:bias=140", "e3m2:bias=-5", "e6m9:nan=fnuz:inf=top"}) {
    specs.push_back(custom);
  }
  return specs;
}

INSTANTIATE_TEST_SUITE_P(Formats, OracleTableTest, ::testing::ValuesIn(TableSpecs()),
                         testing_util::NameParam());

}  // namespace
}  // namespace lpsim
