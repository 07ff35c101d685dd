// Format: a simulated floating-point format as a run-time value.
//
// Every format lpsim knows is described by one Format: built-ins come from a
// registry (names follow ml_dtypes: e4m3fn, e5m2, ...), users define their own
// from a spec string. The same description drives the scalar reference, the
// SIMD kernels, the checks and the reports.
//
//   StatusOr<Format> f = ParseFormat("e4m3fn:sat");
//   float max = f->MaxValue();  // 448
//
// Spec grammar (docs/formats.md):
//   spec    := base (':' option)*
//   base    := builtin-name | 'e' E 'm' M          (IEEE-like when not built in)
//   option  := 'bias=' INT | 'nan=' (ieee|fn|fnuz|none) | 'inf=' (ieee|top|none)
//            | 'sat' | 'nosat' | 'ftz' | 'noftz'
#ifndef LPSIM_FORMATS_FORMAT_H_
#define LPSIM_FORMATS_FORMAT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"

namespace lpsim {

// Where NaN lives in the code space.
enum class NanEncoding : uint8_t {
  kNone,          // no NaN (MX fp6/fp4): NaN inputs become -0
  kIeee,          // exponent all ones, mantissa nonzero (e5m2, bf16, fp16)
  kAllOnes,       // only S.1..1.1..1 (OCP "fn": e4m3fn)
  kNegativeZero,  // only the code 1.0..0.0..0, so no -0 ("fnuz", P3109)
};

// Where Inf lives in the code space.
enum class InfEncoding : uint8_t {
  kNone,     // no Inf
  kIeee,     // exponent all ones, mantissa zero
  kAllOnes,  // S.1..1.1..1 (P3109 "extended" formats)
};

// What a finite input too large for the format becomes.
enum class OverflowResult : uint8_t { kInf, kNan, kMax };

const char* ToString(NanEncoding e);
const char* ToString(InfEncoding e);
const char* ToString(OverflowResult r);

// Field layout and special-value rules. Build with Format::Create, which
// validates and derives the limits used by the hot paths.
struct FormatParams {
  std::string name;
  int exponent_bits = 0;
  int mantissa_bits = 0;
  int bias = 0;
  bool is_signed = true;
  // false only for scale formats like E8M0: exponent field 0 is an ordinary
  // binade 2^-bias, so there is neither zero nor any subnormal.
  bool has_zero = true;
  InfEncoding inf = InfEncoding::kIeee;
  NanEncoding nan = NanEncoding::kIeee;
  // Overflow policy: clamp finite overflow to +-max instead of Inf/NaN. Formats
  // with neither Inf nor NaN always saturate.
  bool saturate = false;
  // Hardware flush-to-zero: results that would be subnormal become zero.
  bool ftz = false;
};

class Format {
 public:
  // Validates `params`: 1 <= E <= 8, 0 <= M <= 23, every finite value
  // exactly representable in fp32, consistent special-value encodings.
  static StatusOr<Format> Create(const FormatParams& params);

  const FormatParams& params() const { return p_; }
  const std::string& name() const { return p_.name; }
  int exponent_bits() const { return p_.exponent_bits; }
  int mantissa_bits() const { return p_.mantissa_bits; }
  int bias() const { return p_.bias; }
  bool is_signed() const { return p_.is_signed; }
  bool has_zero() const { return p_.has_zero; }
  InfEncoding inf() const { return p_.inf; }
  NanEncoding nan() const { return p_.nan; }
  bool saturate() const { return p_.saturate; }
  bool ftz() const { return p_.ftz; }
  bool has_inf() const { return p_.inf != InfEncoding::kNone; }
  bool has_nan() const { return p_.nan != NanEncoding::kNone; }
  bool has_negative_zero() const {
    return p_.is_signed && p_.has_zero && p_.nan != NanEncoding::kNegativeZero;
  }
  bool has_subnormals() const { return p_.has_zero && p_.mantissa_bits > 0; }

  // Copies with one policy changed (the name gains ":sat" / ":ftz").
  Format WithSaturate(bool on) const;
  Format WithFtz(bool on) const;

  int total_bits() const { return p_.exponent_bits + p_.mantissa_bits + (p_.is_signed ? 1 : 0); }
  uint32_t sign_mask() const { return p_.is_signed ? 1u << (total_bits() - 1) : 0u; }

  // Codes. Magnitude codes are codes without the sign bit; they are ordered
  // like the values they stand for.
  uint32_t max_code() const { return max_code_; }    // largest finite magnitude
  uint32_t inf_code() const { return inf_code_; }    // +Inf, valid if has_inf()
  uint32_t nan_code() const { return nan_code_; }    // canonical NaN, valid if has_nan()
  uint32_t zero_code() const { return 0; }           // +0 (the min value if !has_zero)
  // The unbiased exponent of the smallest normal binade.
  int min_normal_exponent() const { return p_.has_zero ? 1 - p_.bias : -p_.bias; }
  int max_exponent() const { return max_exponent_; }
  OverflowResult overflow_result() const;

  // Limits as fp32 (all exact by construction).
  float MaxValue() const;
  float MinNormal() const;
  float MinSubnormal() const;  // MinNormal() when the format has no subnormals

  // Every code of this format (2^total_bits of them) classified; only for
  // formats of at most 16 bits.
  bool IsNan(uint32_t code) const;
  bool IsInf(uint32_t code) const;

  bool operator==(const Format& o) const;

 private:
  FormatParams p_;
  uint32_t max_code_ = 0;
  uint32_t inf_code_ = 0;
  uint32_t nan_code_ = 0;
  int max_exponent_ = 0;
};

// The built-in formats of docs/formats.md, in display order.
const std::vector<Format>& BuiltinFormats();

// A built-in name or a spec string (grammar above). The error names the part
// of the spec that is wrong and lists what is accepted.
StatusOr<Format> ParseFormat(const std::string& spec);

}  // namespace lpsim

#endif  // LPSIM_FORMATS_FORMAT_H_
