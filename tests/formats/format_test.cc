// Format limits of every built-in, pinned as literals from docs/formats.md "Built-in formats", and
// the spec parser (aliases, custom formats, error messages).
#include "formats/format.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <ostream>
#include <string>
#include <vector>

#include "formats/reference.h"
#include "tests/formats/test_util.h"

namespace lpsim {
namespace {

using testing_util::Builtin;
using testing_util::Sanitize;

constexpr uint32_t kNoCode = 0xffffffffu;

// One row of docs/formats.md "Built-in formats". Codes are positive (sign bit clear).
struct Limits {
  const char* name;
  int exponent_bits;
  int mantissa_bits;
  int bias;
  int total_bits;
  bool is_signed;
  uint32_t max_code;
  float max;
  uint32_t min_normal_code;
  float min_normal;
  float min_subnormal;  // code 0x01; the min normal when there are no subnormals
  uint32_t inf_code;    // kNoCode: no Inf
  uint32_t nan_code;    // canonical NaN; kNoCode: no NaN
  int nan_count;        // NaN codes of either sign; -1 when not enumerated
  bool negative_zero;
  OverflowResult overflow;  // non-saturating; saturating is always kMax
};

const std::vector<Limits>& Table() {
  using O = OverflowResult;
  static const std::vector<Limits> kTable = {
      // OCP E4M3FN: max 0b0'1111'110 = (1 + 6/8) * 2^(15-7) = 448;
      // min normal 0b0'0001'000 = 2^(1-7); min subnormal 0b0'0000'001 = 1/8 * 2^-6 = 2^-9;
      // NaN S.1111.111 only.
      {"e4m3fn", 4, 3, 7, 8, true, 0b0'1111'110, 448.0f, 0b0'0001'000, 0x1p-6f, 0x1p-9f, kNoCode,
       0b0'1111'111, 2, true, O::kNan},
      // OCP E5M2: max 0b0'11110'11 = (1 + 3/4) * 2^(30-15) = 57344; Inf 0b0'11111'00;
      // NaN S.11111.{01,10,11}, quiet 0b0'11111'10.
      {"e5m2", 5, 2, 15, 8, true, 0b0'11110'11, 57344.0f, 0b0'00001'00, 0x1p-14f, 0x1p-16f,
       0b0'11111'00, 0b0'11111'10, 6, true, O::kInf},
      // E4M3FNUZ: max 0b0'1111'111 = (1 + 7/8) * 2^(15-8) = 240; NaN 0b1'0000'000 only.
      {"e4m3fnuz", 4, 3, 8, 8, true, 0b0'1111'111, 240.0f, 0b0'0001'000, 0x1p-7f, 0x1p-10f, kNoCode,
       0b1'0000'000, 1, false, O::kNan},
      // E5M2FNUZ: max 0b0'11111'11 = (1 + 3/4) * 2^(31-16) = 57344.
      {"e5m2fnuz", 5, 2, 16, 8, true, 0b0'11111'11, 57344.0f, 0b0'00001'00, 0x1p-15f, 0x1p-17f,
       kNoCode, 0b1'00000'00, 1, false, O::kNan},
      // E4M3B11FNUZ: max 0b0'1111'111 = (1 + 7/8) * 2^(15-11) = 30.
      {"e4m3b11fnuz", 4, 3, 11, 8, true, 0b0'1111'111, 30.0f, 0b0'0001'000, 0x1p-10f, 0x1p-13f,
       kNoCode, 0b1'0000'000, 1, false, O::kNan},
      // E3M4: max 0b0'110'1111 = (1 + 15/16) * 2^(6-3) = 15.5; Inf 0b0'111'0000;
      // NaN S.111.xxxx != 0 (15 per sign), quiet 0b0'111'1000.
      {"e3m4", 3, 4, 3, 8, true, 0b0'110'1111, 15.5f, 0b0'001'0000, 0.25f, 0x1p-6f, 0b0'111'0000,
       0b0'111'1000, 30, true, O::kInf},
      // IEEE-like E4M3: max 0b0'1110'111 = (1 + 7/8) * 2^(14-7) = 240; Inf 0b0'1111'000;
      // 7 NaNs per sign, quiet 0b0'1111'100.
      {"e4m3", 4, 3, 7, 8, true, 0b0'1110'111, 240.0f, 0b0'0001'000, 0x1p-6f, 0x1p-9f, 0b0'1111'000,
       0b0'1111'100, 14, true, O::kInf},
      // MX FP6 E2M3: max 0b0'11'111 = (1 + 7/8) * 2^(3-1) = 7.5; min sub 1/8 * 2^0.
      {"e2m3fn", 2, 3, 1, 6, true, 0b0'11'111, 7.5f, 0b0'01'000, 1.0f, 0.125f, kNoCode, kNoCode, 0,
       true, O::kMax},
      // MX FP6 E3M2: max 0b0'111'11 = (1 + 3/4) * 2^(7-3) = 28; min sub 1/4 * 2^-2.
      {"e3m2fn", 3, 2, 3, 6, true, 0b0'111'11, 28.0f, 0b0'001'00, 0.25f, 0.0625f, kNoCode, kNoCode,
       0, true, O::kMax},
      // MX FP4 E2M1: max 0b0'11'1 = (1 + 1/2) * 2^(3-1) = 6; min sub 1/2 * 2^0.
      {"e2m1fn", 2, 1, 1, 4, true, 0b0'11'1, 6.0f, 0b0'01'0, 1.0f, 0.5f, kNoCode, kNoCode, 0, true,
       O::kMax},
      // E8M0: unsigned, no zero; 0b1111'1110 = 2^(254-127) = 2^127, 0b0000'0000 = 2^-127;
      // NaN 0b1111'1111.
      {"e8m0fnu", 8, 0, 127, 8, false, 0b1111'1110, 0x1p127f, 0b0000'0000, 0x1p-127f, 0x1p-127f,
       kNoCode, 0b1111'1111, 1, false, O::kNan},
      // P3109 binary8p3se: bias 2^(8-3-1) = 16; Inf at 0b0'11111'11, so
      // max 0b0'11111'10 = (1 + 2/4) * 2^(31-16) = 49152; NaN 0x80.
      {"binary8p3se", 5, 2, 16, 8, true, 0b0'11111'10, 49152.0f, 0b0'00001'00, 0x1p-15f, 0x1p-17f,
       0b0'11111'11, 0b1'00000'00, 1, false, O::kInf},
      // binary8p3sf: no Inf, max 0b0'11111'11 = (1 + 3/4) * 2^15 = 57344.
      {"binary8p3sf", 5, 2, 16, 8, true, 0b0'11111'11, 57344.0f, 0b0'00001'00, 0x1p-15f, 0x1p-17f,
       kNoCode, 0b1'00000'00, 1, false, O::kNan},
      // binary8p4se: bias 2^(8-4-1) = 8; max 0b0'1111'110 = (1 + 6/8) * 2^7 = 224.
      {"binary8p4se", 4, 3, 8, 8, true, 0b0'1111'110, 224.0f, 0b0'0001'000, 0x1p-7f, 0x1p-10f,
       0b0'1111'111, 0b1'0000'000, 1, false, O::kInf},
      // binary8p4sf: max 0b0'1111'111 = (1 + 7/8) * 2^7 = 240.
      {"binary8p4sf", 4, 3, 8, 8, true, 0b0'1111'111, 240.0f, 0b0'0001'000, 0x1p-7f, 0x1p-10f,
       kNoCode, 0b1'0000'000, 1, false, O::kNan},
      // bf16: max 0x7F7F = (2 - 2^-7) * 2^127 ~ 3.3895e38; min sub 2^(-126-7);
      // 127 NaNs per sign.
      {"bf16", 8, 7, 127, 16, true, 0x7F7F, 0x1.FEp127f, 0x0080, 0x1p-126f, 0x1p-133f, 0x7F80,
       0x7FC0, 254, true, O::kInf},
      // fp16: max 0x7BFF = (2 - 2^-10) * 2^15 = 65504; min sub 2^(-14-10); 1023 NaNs per sign.
      {"fp16", 5, 10, 15, 16, true, 0x7BFF, 65504.0f, 0x0400, 0x1p-14f, 0x1p-24f, 0x7C00, 0x7E00,
       2046, true, O::kInf},
      // tf32 (19 bits): max (0xFE << 10 | 0x3FF) = (2 - 2^-10) * 2^127; min sub 2^(-126-10).
      {"tf32", 8, 10, 127, 19, true, 0x3FBFF, 0x1.FFCp127f, 0x00400, 0x1p-126f, 0x1p-136f, 0x3FC00,
       0x3FE00, -1, true, O::kInf},
      {"fp32", 8, 23, 127, 32, true, 0x7F7FFFFF, std::numeric_limits<float>::max(), 0x00800000,
       0x1p-126f, 0x1p-149f, 0x7F800000, 0x7FC00000, -1, true, O::kInf},
  };
  return kTable;
}

TEST(BuiltinFormatsTest, EveryBuiltinHasPinnedLimits) {
  std::vector<std::string> pinned;
  for (const Limits& l : Table()) pinned.push_back(l.name);
  std::vector<std::string> builtins;
  for (const Format& f : BuiltinFormats()) builtins.push_back(f.name());
  EXPECT_EQ(builtins, pinned) << "a built-in was added, removed or reordered: pin it here";
}

void PrintTo(const Limits& l, std::ostream* os) { *os << l.name; }

class FormatLimitsTest : public ::testing::TestWithParam<Limits> {};

TEST_P(FormatLimitsTest, FieldsAndLimits) {
  const Limits& l = GetParam();
  const Format& f = Builtin(l.name);
  EXPECT_EQ(f.exponent_bits(), l.exponent_bits);
  EXPECT_EQ(f.mantissa_bits(), l.mantissa_bits);
  EXPECT_EQ(f.bias(), l.bias);
  EXPECT_EQ(f.total_bits(), l.total_bits);
  EXPECT_EQ(f.is_signed(), l.is_signed);
  EXPECT_EQ(f.sign_mask(), l.is_signed ? 1u << (l.total_bits - 1) : 0u);
  EXPECT_EQ(f.max_code(), l.max_code);
  EXPECT_EQ(f.MaxValue(), l.max);
  EXPECT_EQ(f.MinNormal(), l.min_normal);
  EXPECT_EQ(f.MinSubnormal(), l.min_subnormal);
  EXPECT_EQ(f.has_subnormals(), l.min_subnormal < l.min_normal);
  EXPECT_EQ(f.has_zero(), l.min_normal_code != 0);  // only E8M0's code 0 is a value
  EXPECT_EQ(f.has_negative_zero(), l.negative_zero);
  EXPECT_EQ(f.overflow_result(), l.overflow);
  EXPECT_EQ(f.WithSaturate(true).overflow_result(), OverflowResult::kMax);
  EXPECT_EQ(f.saturate(), false);
  EXPECT_EQ(f.ftz(), false);
}

TEST_P(FormatLimitsTest, LimitCodesDecode) {
  const Limits& l = GetParam();
  const Format& f = Builtin(l.name);
  EXPECT_EQ(DecodeRef(f, l.max_code), l.max);
  EXPECT_EQ(DecodeRef(f, l.min_normal_code), l.min_normal);
  if (f.has_zero()) {
    EXPECT_EQ(DecodeRef(f, 0x01), l.min_subnormal);
    EXPECT_EQ(DecodeRef(f, 0x00), 0.0f);
    EXPECT_FALSE(std::signbit(DecodeRef(f, 0x00)));
  }
  if (l.is_signed) {
    EXPECT_EQ(DecodeRef(f, f.sign_mask() | l.max_code), -l.max);
  }
  if (l.negative_zero) {
    EXPECT_EQ(DecodeRef(f, f.sign_mask()), 0.0f);
    EXPECT_TRUE(std::signbit(DecodeRef(f, f.sign_mask())));
  }
}

TEST_P(FormatLimitsTest, Specials) {
  const Limits& l = GetParam();
  const Format& f = Builtin(l.name);
  EXPECT_EQ(f.has_inf(), l.inf_code != kNoCode);
  if (l.inf_code != kNoCode) {
    EXPECT_EQ(f.inf_code(), l.inf_code);
    EXPECT_TRUE(f.IsInf(l.inf_code));
    EXPECT_TRUE(f.IsInf(f.sign_mask() | l.inf_code));
    EXPECT_EQ(DecodeRef(f, l.inf_code), std::numeric_limits<float>::infinity());
    EXPECT_EQ(DecodeRef(f, f.sign_mask() | l.inf_code), -std::numeric_limits<float>::infinity());
  }
  EXPECT_EQ(f.has_nan(), l.nan_code != kNoCode);
  if (l.nan_code != kNoCode) {
    EXPECT_EQ(f.nan_code(), l.nan_code);
    EXPECT_TRUE(f.IsNan(l.nan_code));
    EXPECT_TRUE(std::isnan(DecodeRef(f, l.nan_code)));
  }
  EXPECT_FALSE(f.IsNan(l.max_code));
  EXPECT_FALSE(f.IsInf(l.max_code));
  if (l.nan_count >= 0) {
    int nans = 0;
    for (uint32_t c = 0; c < (1u << l.total_bits); ++c) nans += f.IsNan(c);
    EXPECT_EQ(nans, l.nan_count);
  }
}

INSTANTIATE_TEST_SUITE_P(Builtins, FormatLimitsTest, ::testing::ValuesIn(Table()),
                         [](const ::testing::TestParamInfo<Limits>& info) {
                           return Sanitize(info.param.name);
                         });

// --- Spec parser -----------------------------------------------------------

// The part of an error message after the echoed spec, so a check that the
// message names the bad part cannot pass just because the spec is echoed.
std::string Reason(const StatusOr<Format>& f, const std::string& spec) {
  const std::string& msg = f.status().message();
  const std::string echo = "'" + spec + "'";
  const size_t pos = msg.find(echo);
  return pos == std::string::npos ? msg : msg.substr(pos + echo.size());
}

TEST(ParseFormatTest, BuiltinNames) {
  for (const Format& b : BuiltinFormats()) {
    StatusOr<Format> f = ParseFormat(b.name());
    ASSERT_TRUE(f.ok()) << b.name() << ": " << f.status().message();
    EXPECT_EQ(*f, b) << b.name();
    EXPECT_EQ(f->name(), b.name());
  }
}

TEST(ParseFormatTest, MlDtypesAliases) {
  const std::vector<std::pair<std::string, std::string>> aliases = {
      {"float8_e4m3fn", "e4m3fn"},
      {"float8_e5m2", "e5m2"},
      {"float8_e4m3fnuz", "e4m3fnuz"},
      {"float8_e5m2fnuz", "e5m2fnuz"},
      {"float8_e4m3b11fnuz", "e4m3b11fnuz"},
      {"float8_e3m4", "e3m4"},
      {"float8_e4m3", "e4m3"},
      {"float8_e8m0fnu", "e8m0fnu"},
      {"float6_e2m3fn", "e2m3fn"},
      {"float6_e3m2fn", "e3m2fn"},
      {"float4_e2m1fn", "e2m1fn"},
      {"bfloat16", "bf16"},
      {"float16", "fp16"},
      {"float32", "fp32"},
      {"FLOAT8_E4M3FN", "e4m3fn"},
  };
  for (const auto& [alias, name] : aliases) {
    StatusOr<Format> f = ParseFormat(alias);
    ASSERT_TRUE(f.ok()) << alias << ": " << f.status().message();
    EXPECT_EQ(*f, Builtin(name)) << alias;
    EXPECT_EQ(f->name(), name) << alias;
  }
}

TEST(ParseFormatTest, PolicyOptions) {
  StatusOr<Format> f = ParseFormat("e4m3fn:sat");
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_TRUE(f->saturate());
  EXPECT_EQ(*f, Builtin("e4m3fn").WithSaturate(true));
  EXPECT_EQ(f->MaxValue(), 448.0f);

  f = ParseFormat("e5m2:ftz");
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_TRUE(f->ftz());
  EXPECT_EQ(*f, Builtin("e5m2").WithFtz(true));

  // A policy set again replaces the earlier one in the name, which parses
  // back to the same format.
  const Format off = f->WithFtz(false);
  EXPECT_EQ(off.name(), "e5m2:noftz");
  StatusOr<Format> again = ParseFormat(off.name());
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(*again, off);
  EXPECT_EQ(ParseFormat("e4m3fn:sat")->WithSaturate(false).name(), "e4m3fn:nosat");
}

// An option given twice would let the last one win silently: refused, naming
// both.
TEST(ParseFormatTest, RepeatedOptionsAreRefused) {
  struct Case {
    const char* spec;
    const char* says;
  };
  for (const Case& c : {Case{"e4m3fn:sat:nosat", "'nosat' conflicts with 'sat' given before"},
                        Case{"e4m3:bias=7:bias=9", "'bias=9' conflicts with 'bias=7' given before"},
                        Case{"e4m3:ftz:noftz", "'noftz' conflicts with 'ftz'"},
                        Case{"e4m3:nan=fn:nan=fnuz", "'nan=fnuz' conflicts with 'nan=fn'"},
                        Case{"e5m2:inf=ieee:inf=none", "'inf=none' conflicts with 'inf=ieee'"},
                        Case{"e4m3fn:sat:SAT", "'SAT' is given twice"}}) {
    StatusOr<Format> f = ParseFormat(c.spec);
    ASSERT_FALSE(f.ok()) << c.spec;
    EXPECT_NE(f.status().message().find(c.says), std::string::npos) << f.status().message();
  }
}

// Control characters in a spec are escaped in the message (core/printable.h).
TEST(ParseFormatTest, ControlCharactersInASpecAreEscaped) {
  StatusOr<Format> f = ParseFormat("e4m3\x1b[31m");
  ASSERT_FALSE(f.ok());
  f = ParseFormat(std::string("e4m3:\x1b[2J\n"));
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().message().find('\x1b'), std::string::npos) << f.status().message();
  EXPECT_EQ(f.status().message().find('\n'), std::string::npos);
  EXPECT_NE(f.status().message().find("\\x1b[2J\\n"), std::string::npos) << f.status().message();
}

TEST(ParseFormatTest, CustomFnFormat) {
  // E4M3 with bias 9 and the OCP "fn" NaN: max 0b0'1111'110 = (1 + 6/8) * 2^(15-9) = 112,
  // min normal 2^(1-9), min subnormal 2^(1-9-3).
  StatusOr<Format> f = ParseFormat("e4m3:bias=9:nan=fn:sat:ftz");
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->exponent_bits(), 4);
  EXPECT_EQ(f->mantissa_bits(), 3);
  EXPECT_EQ(f->bias(), 9);
  EXPECT_EQ(f->nan(), NanEncoding::kAllOnes);
  EXPECT_FALSE(f->has_inf());
  EXPECT_TRUE(f->saturate());
  EXPECT_TRUE(f->ftz());
  EXPECT_EQ(f->max_code(), 0b0'1111'110u);
  EXPECT_EQ(f->nan_code(), 0b0'1111'111u);
  EXPECT_EQ(f->MaxValue(), 112.0f);
  EXPECT_EQ(f->MinNormal(), 0x1p-8f);
  EXPECT_EQ(f->MinSubnormal(), 0x1p-11f);
  EXPECT_EQ(f->overflow_result(), OverflowResult::kMax);
  EXPECT_EQ(f->name(), "e4m3:bias=9:nan=fn:sat:ftz");
}

TEST(ParseFormatTest, CustomIeeeLikeFormat) {
  // e3m2 is not a built-in (e3m2fn is): IEEE-like, exponent 111 reserved, so
  // max 0b0'110'11 = (1 + 3/4) * 2^(6-3) = 14.
  StatusOr<Format> f = ParseFormat("e3m2:bias=3:sat");
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->bias(), 3);
  EXPECT_TRUE(f->has_inf());
  EXPECT_EQ(f->nan(), NanEncoding::kIeee);
  EXPECT_TRUE(f->saturate());
  EXPECT_EQ(f->max_code(), 0b0'110'11u);
  EXPECT_EQ(f->MaxValue(), 14.0f);
  EXPECT_EQ(f->MinSubnormal(), 0x1p-4f);  // 1/4 * 2^(1-3)
  // The default bias of eXmY is 2^(E-1) - 1.
  StatusOr<Format> g = ParseFormat("e3m2");
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(g->bias(), 3);
  EXPECT_FALSE(g->saturate());
}

TEST(ParseFormatTest, CustomWithoutMantissaKeepsOneNan) {
  // M = 0 leaves no room for IEEE NaNs: the top code is the NaN, no Inf.
  StatusOr<Format> f = ParseFormat("e5m0");
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->nan(), NanEncoding::kAllOnes);
  EXPECT_FALSE(f->has_inf());
  EXPECT_EQ(f->MaxValue(), 0x1p15f);  // 0b0'11110 = 2^(30-15)
}

struct BadSpec {
  const char* spec;
  std::vector<const char*> reason_mentions;  // all must occur after the echoed spec
};

void PrintTo(const BadSpec& b, std::ostream* os) { *os << "'" << b.spec << "'"; }

class ParseFormatErrorTest : public ::testing::TestWithParam<BadSpec> {};

TEST_P(ParseFormatErrorTest, NamesTheBadPart) {
  const BadSpec& b = GetParam();
  StatusOr<Format> f = ParseFormat(b.spec);
  ASSERT_FALSE(f.ok()) << "'" << b.spec << "' parsed as " << f->name();
  const std::string reason = Reason(f, b.spec);
  for (const char* word : b.reason_mentions) {
    EXPECT_NE(reason.find(word), std::string::npos)
        << "error for '" << b.spec << "' should mention \"" << word
        << "\": " << f.status().message();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Specs, ParseFormatErrorTest,
    ::testing::Values(BadSpec{"", {"empty"}}, BadSpec{"foo", {"'foo'", "neither"}},
                      BadSpec{"e4m3:bias=x", {"'bias=x'", "integer"}},
                      BadSpec{"e4m3:bias=", {"'bias='", "integer"}},
                      BadSpec{"e4m3fn:fast", {"unknown option", "'fast'"}},
                      BadSpec{"e4m3fn:nan=maybe", {"'nan=maybe'"}},
                      BadSpec{"e4m3fn:inf=maybe", {"'inf=maybe'"}},
                      BadSpec{"e9m3", {"exponent bits", "(got 9)"}},
                      BadSpec{"e4m24", {"mantissa bits", "(got 24)"}},
                      BadSpec{"e0m3", {"exponent bits", "(got 0)"}},
                      // IEEE-like E8M3 with bias 100: top binade 2^(254-100) = 2^154.
                      BadSpec{"e8m3:bias=100", {"2^154", "fp32"}},
                      // bias 160: smallest value 2^(1-160-3) = 2^-162.
                      BadSpec{"e8m3:bias=160", {"2^-162", "fp32"}},
                      BadSpec{"e5m0:nan=ieee", {"nan=ieee", "mantissa"}},
                      BadSpec{"e8m0fnu:nan=ieee", {"nan=ieee", "mantissa"}}),
    [](const ::testing::TestParamInfo<BadSpec>& info) {
      const std::string spec = info.param.spec;
      return spec.empty() ? std::string("empty") : Sanitize(spec);
    });

TEST(FormatTest, WithPolicyCopiesKeepTheLayout) {
  const Format& f = Builtin("e4m3fn");
  const Format s = f.WithSaturate(true);
  EXPECT_TRUE(s.saturate());
  EXPECT_EQ(s.name(), "e4m3fn:sat");
  EXPECT_EQ(s.max_code(), f.max_code());
  EXPECT_EQ(s.WithSaturate(false), f);
  const Format z = f.WithFtz(true);
  EXPECT_TRUE(z.ftz());
  EXPECT_EQ(z.name(), "e4m3fn:ftz");
  EXPECT_FALSE(z == f);
}

TEST(FormatTest, CreateRejectsInconsistentEncodings) {
  FormatParams p;
  p.name = "bad";
  p.exponent_bits = 4;
  p.mantissa_bits = 3;
  p.bias = 7;
  p.inf = InfEncoding::kAllOnes;
  p.nan = NanEncoding::kAllOnes;  // both claim S.1111.111
  EXPECT_FALSE(Format::Create(p).ok());
  p.inf = InfEncoding::kIeee;
  p.nan = NanEncoding::kNone;  // IEEE Inf without IEEE NaN
  EXPECT_FALSE(Format::Create(p).ok());
  p.inf = InfEncoding::kNone;
  p.nan = NanEncoding::kNegativeZero;
  p.is_signed = false;  // fnuz NaN lives in the sign bit
  EXPECT_FALSE(Format::Create(p).ok());
  p.is_signed = true;
  p.has_zero = false;  // a zero-less format must be unsigned
  EXPECT_FALSE(Format::Create(p).ok());
  p.has_zero = true;
  EXPECT_TRUE(Format::Create(p).ok());
}

}  // namespace
}  // namespace lpsim
