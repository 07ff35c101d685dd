#include "formats/format.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>
#include <string>

#include "core/printable.h"

namespace lpsim {
namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t pos = s.find(sep, start);
    parts.push_back(s.substr(start, pos - start));
    if (pos == std::string::npos) break;
    start = pos + 1;
  }
  return parts;
}

bool ParseInt(const std::string& s, int* out) {
  if (s.empty() || s.size() > 6) return false;
  size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (i == s.size()) return false;
  for (size_t j = i; j < s.size(); ++j) {
    if (!std::isdigit(static_cast<unsigned char>(s[j]))) return false;
  }
  *out = std::atoi(s.c_str());
  return true;
}

FormatParams Params(const char* name, int e, int m, int bias, InfEncoding inf, NanEncoding nan) {
  FormatParams p;
  p.name = name;
  p.exponent_bits = e;
  p.mantissa_bits = m;
  p.bias = bias;
  p.inf = inf;
  p.nan = nan;
  return p;
}

std::vector<Format> MakeBuiltins() {
  using I = InfEncoding;
  using N = NanEncoding;
  std::vector<FormatParams> list = {
      // OCP OFP8 E4M3: no Inf, NaN only at S.1111.111, max 0b0'1111'110 = 1.75 * 2^8 = 448.
      Params("e4m3fn", 4, 3, 7, I::kNone, N::kAllOnes),
      // OCP OFP8 E5M2: IEEE-like, max 0b0'11110'11 = 1.75 * 2^15 = 57344.
      Params("e5m2", 5, 2, 15, I::kIeee, N::kIeee),
      // FNUZ: bias one larger, NaN only at 0x80, no -0; max 0x7F = 1.875 * 2^7 = 240.
      Params("e4m3fnuz", 4, 3, 8, I::kNone, N::kNegativeZero),
      // max 0x7F = 1.75 * 2^15 = 57344.
      Params("e5m2fnuz", 5, 2, 16, I::kNone, N::kNegativeZero),
      // max 0x7F = 1.875 * 2^4 = 30, min normal 2^-10.
      Params("e4m3b11fnuz", 4, 3, 11, I::kNone, N::kNegativeZero),
      // IEEE-like E3M4: max 0b0'110'1111 = 1.9375 * 2^3 = 15.5.
      Params("e3m4", 3, 4, 3, I::kIeee, N::kIeee),
      // IEEE-like E4M3 (Inf and NaN at exponent 1111): max 1.875 * 2^7 = 240.
      Params("e4m3", 4, 3, 7, I::kIeee, N::kIeee),
      // OCP MX FP6 E2M3: no Inf, no NaN, max 0b0'11'111 = 1.875 * 2^2 = 7.5.
      Params("e2m3fn", 2, 3, 1, I::kNone, N::kNone),
      // OCP MX FP6 E3M2: max 0b0'111'11 = 1.75 * 2^4 = 28.
      Params("e3m2fn", 3, 2, 3, I::kNone, N::kNone),
      // OCP MX FP4 E2M1: values {0, .5, 1, 1.5, 2, 3, 4, 6}.
      Params("e2m1fn", 2, 1, 1, I::kNone, N::kNone),
      // OCP MX scale E8M0: unsigned, no zero, 0xFF NaN; 0x00 = 2^-127, 0xFE = 2^127.
      Params("e8m0fnu", 8, 0, 127, I::kNone, N::kAllOnes),
      // IEEE P3109 binary8, precision 3: bias 2^(8-3-1) = 16, NaN 0x80, no -0.
      // "se" (extended) puts +-Inf at 0x7F/0xFF: max 0x7E = 1.5 * 2^15 = 49152.
      Params("binary8p3se", 5, 2, 16, I::kAllOnes, N::kNegativeZero),
      // "sf" (finite): max 0x7F = 1.75 * 2^15 = 57344.
      Params("binary8p3sf", 5, 2, 16, I::kNone, N::kNegativeZero),
      // precision 4: bias 8; se max 0x7E = 1.75 * 2^7 = 224, sf max 240.
      Params("binary8p4se", 4, 3, 8, I::kAllOnes, N::kNegativeZero),
      Params("binary8p4sf", 4, 3, 8, I::kNone, N::kNegativeZero),
      Params("bf16", 8, 7, 127, I::kIeee, N::kIeee),
      Params("fp16", 5, 10, 15, I::kIeee, N::kIeee),
      // TF32: fp32's exponent with 10 mantissa bits (19 bits used).
      Params("tf32", 8, 10, 127, I::kIeee, N::kIeee),
      Params("fp32", 8, 23, 127, I::kIeee, N::kIeee),
  };
  list[10].is_signed = false;  // e8m0fnu
  list[10].has_zero = false;
  std::vector<Format> out;
  for (const FormatParams& p : list) {
    StatusOr<Format> f = Format::Create(p);
    if (!f.ok()) std::abort();  // a built-in table error is a programming error
    out.push_back(f.value());
  }
  return out;
}

// ml_dtypes / numpy spellings of the built-ins.
std::string CanonicalName(std::string name) {
  name = Lower(name);
  for (const char* prefix : {"float8_", "float6_", "float4_"}) {
    if (name.rfind(prefix, 0) == 0) return name.substr(std::string(prefix).size());
  }
  if (name == "bfloat16") return "bf16";
  if (name == "float16" || name == "half") return "fp16";
  if (name == "float32" || name == "float") return "fp32";
  return name;
}

const char* kSpecHelp =
    "a spec is a built-in name (see `lpsim formats`) or eXmY, followed by options "
    "':bias=N', ':nan=ieee|fn|fnuz|none', ':inf=ieee|top|none', ':sat', ':nosat', "
    "':ftz', ':noftz' (example: e4m3:bias=9:nan=fn:inf=none:sat)";

}  // namespace

const char* ToString(NanEncoding e) {
  switch (e) {
    case NanEncoding::kNone: return "none";
    case NanEncoding::kIeee: return "ieee";
    case NanEncoding::kAllOnes: return "fn";
    case NanEncoding::kNegativeZero: return "fnuz";
  }
  return "?";
}

const char* ToString(InfEncoding e) {
  switch (e) {
    case InfEncoding::kNone: return "none";
    case InfEncoding::kIeee: return "ieee";
    case InfEncoding::kAllOnes: return "top";
  }
  return "?";
}

const char* ToString(OverflowResult r) {
  switch (r) {
    case OverflowResult::kInf: return "inf";
    case OverflowResult::kNan: return "nan";
    case OverflowResult::kMax: return "max";
  }
  return "?";
}

StatusOr<Format> Format::Create(const FormatParams& p) {
  const int e = p.exponent_bits;
  const int m = p.mantissa_bits;
  if (e < 1 || e > 8) {
    return Status::Error("exponent bits must be 1..8 (got " + std::to_string(e) + ")");
  }
  if (m < 0 || m > 23) {
    return Status::Error("mantissa bits must be 0..23 (got " + std::to_string(m) + ")");
  }
  if ((p.inf == InfEncoding::kIeee) != (p.nan == NanEncoding::kIeee)) {
    return Status::Error(
        "inf=ieee and nan=ieee go together (both live at the all-ones exponent): set both, or "
        "pair nan=fn|fnuz|none with inf=top|none");
  }
  if (p.nan == NanEncoding::kIeee && (m == 0 || e < 2)) {
    return Status::Error("nan=ieee needs at least 2 exponent bits and 1 mantissa bit");
  }
  if (p.inf == InfEncoding::kAllOnes && p.nan == NanEncoding::kAllOnes) {
    return Status::Error("inf=top and nan=fn both claim the all-ones code");
  }
  if (p.nan == NanEncoding::kNegativeZero && !p.is_signed) {
    return Status::Error("nan=fnuz needs a sign bit");
  }
  if (!p.has_zero && p.is_signed) {
    return Status::Error("a format without zero must be unsigned (like e8m0fnu)");
  }
  Format f;
  f.p_ = p;
  const uint32_t all_ones_exp = (1u << e) - 1;
  const uint32_t top = (all_ones_exp << m) | ((1u << m) - 1);
  if (p.nan == NanEncoding::kIeee) {
    f.max_code_ = top - (1u << m);  // the all-ones exponent is reserved
    f.inf_code_ = all_ones_exp << m;
    f.nan_code_ = (all_ones_exp << m) | (1u << (m - 1));  // quiet NaN
  } else {
    f.max_code_ = (p.nan == NanEncoding::kAllOnes || p.inf == InfEncoding::kAllOnes) ? top - 1 : top;
    f.inf_code_ = p.inf == InfEncoding::kAllOnes ? top : 0;
    f.nan_code_ = p.nan == NanEncoding::kAllOnes ? top
                  : p.nan == NanEncoding::kNegativeZero ? f.sign_mask()
                  : 0;
  }
  if (f.max_code_ == 0) return Status::Error("the format has no positive finite value");
  const int max_field = static_cast<int>(f.max_code_ >> m);
  if (max_field == 0 && p.has_zero) return Status::Error("the format has no normal value");
  f.max_exponent_ = max_field - p.bias;
  if (f.max_exponent_ > 127) {
    return Status::Error("largest value 2^" + std::to_string(f.max_exponent_) +
                         " does not fit fp32 (max exponent 127): raise the bias");
  }
  const int min_exp = f.min_normal_exponent() - (f.has_subnormals() ? m : 0);
  if (min_exp < -149) {
    return Status::Error("smallest value 2^" + std::to_string(min_exp) +
                         " is below fp32's 2^-149: lower the bias");
  }
  return f;
}

namespace {

// `name` with its yes/no option set to `on`: an earlier spelling of the same
// option is dropped, so the name parses again (ParseFormat refuses
// "e4m3:sat:nosat").
std::string WithOption(const std::string& name, const char* yes, const char* no, bool on) {
  std::vector<std::string> parts = Split(name, ':');
  std::string out = parts[0];
  for (size_t i = 1; i < parts.size(); ++i) {
    const std::string o = Lower(parts[i]);
    if (o != yes && o != no) out += ":" + parts[i];
  }
  return out + ":" + (on ? yes : no);
}

}  // namespace

Format Format::WithSaturate(bool on) const {
  if (on == p_.saturate) return *this;
  Format f = *this;
  f.p_.saturate = on;
  f.p_.name = WithOption(p_.name, "sat", "nosat", on);
  return f;
}

Format Format::WithFtz(bool on) const {
  if (on == p_.ftz) return *this;
  Format f = *this;
  f.p_.ftz = on;
  f.p_.name = WithOption(p_.name, "ftz", "noftz", on);
  return f;
}

OverflowResult Format::overflow_result() const {
  if (p_.saturate) return OverflowResult::kMax;
  if (has_inf()) return OverflowResult::kInf;
  if (has_nan()) return OverflowResult::kNan;
  return OverflowResult::kMax;
}

float Format::MaxValue() const {
  const int m = p_.mantissa_bits;
  const uint32_t mant = max_code_ & ((1u << m) - 1);
  // (2^m + mant) * 2^(max_exponent - m), exact in fp32 by validation.
  return std::ldexp(static_cast<float>((1u << m) + mant), max_exponent_ - m);
}

float Format::MinNormal() const { return std::ldexp(1.0f, min_normal_exponent()); }

float Format::MinSubnormal() const {
  return has_subnormals() ? std::ldexp(1.0f, min_normal_exponent() - p_.mantissa_bits) : MinNormal();
}

bool Format::IsNan(uint32_t code) const {
  const uint32_t mag = code & ~sign_mask();
  const int m = p_.mantissa_bits;
  switch (p_.nan) {
    case NanEncoding::kNone: return false;
    case NanEncoding::kIeee:
      return (mag >> m) == (1u << p_.exponent_bits) - 1 && (mag & ((1u << m) - 1)) != 0;
    case NanEncoding::kAllOnes: return mag == nan_code_;
    case NanEncoding::kNegativeZero: return code == sign_mask();
  }
  return false;
}

bool Format::IsInf(uint32_t code) const {
  return has_inf() && (code & ~sign_mask()) == inf_code_;
}

bool Format::operator==(const Format& o) const {
  const FormatParams& a = p_;
  const FormatParams& b = o.p_;
  return a.exponent_bits == b.exponent_bits && a.mantissa_bits == b.mantissa_bits &&
         a.bias == b.bias && a.is_signed == b.is_signed && a.has_zero == b.has_zero &&
         a.inf == b.inf && a.nan == b.nan && a.saturate == b.saturate && a.ftz == b.ftz;
}

const std::vector<Format>& BuiltinFormats() {
  static const std::vector<Format> kFormats = MakeBuiltins();
  return kFormats;
}

StatusOr<Format> ParseFormat(const std::string& spec) {
  auto fail = [&](const std::string& what) {
    // Escaped as a whole: `what` may quote a part of the spec.
    return Status::Error(Printable("invalid format spec '" + spec + "': " + what + "; " + kSpecHelp));
  };
  if (spec.empty()) return fail("empty spec");
  // Each option once: "sat:nosat" or "bias=7:bias=9" would otherwise let the
  // last one win silently.
  std::map<std::string, std::string> given;  // option group -> the option as written

  std::vector<std::string> parts = Split(spec, ':');
  const std::string base = CanonicalName(parts[0]);
  FormatParams p;
  bool found = false;
  for (const Format& f : BuiltinFormats()) {
    if (f.name() == base) {
      p = f.params();
      found = true;
      break;
    }
  }
  if (!found) {
    int e = 0, m = 0;
    size_t mpos = base.find('m');
    if (base.size() < 4 || base[0] != 'e' || mpos == std::string::npos ||
        !ParseInt(base.substr(1, mpos - 1), &e) || !ParseInt(base.substr(mpos + 1), &m) ||
        base[1] == '-' || base[1] == '+' || base[mpos + 1] == '-' || base[mpos + 1] == '+') {
      return fail("'" + parts[0] + "' is neither a built-in format nor eXmY");
    }
    p.name = base;
    p.exponent_bits = e;
    p.mantissa_bits = m;
    p.bias = e >= 1 && e <= 8 ? (1 << (e - 1)) - 1 : 0;
    if (m == 0 || e < 2) {  // no room for IEEE NaNs: keep one NaN code at the top
      p.inf = InfEncoding::kNone;
      p.nan = NanEncoding::kAllOnes;
    }
  }
  p.name = base;
  for (size_t i = 1; i < parts.size(); ++i) {
    const std::string opt = Lower(parts[i]);
    const size_t eq = opt.find('=');
    const std::string key = opt.substr(0, eq);
    const std::string val = eq == std::string::npos ? "" : opt.substr(eq + 1);
    const std::string group = key == "nosat" ? "sat" : key == "noftz" ? "ftz" : key;
    const auto [before, first] = given.emplace(group, parts[i]);
    if (!first) {
      return fail(Lower(before->second) == opt
                      ? "'" + parts[i] + "' is given twice; give each option once"
                      : "'" + parts[i] + "' conflicts with '" + before->second +
                            "' given before; give each option once");
    }
    if (key == "bias") {
      if (!ParseInt(val, &p.bias)) return fail("'" + parts[i] + "': bias must be an integer");
    } else if (key == "nan") {
      if (val == "ieee") p.nan = NanEncoding::kIeee;
      else if (val == "fn") p.nan = NanEncoding::kAllOnes;
      else if (val == "fnuz") p.nan = NanEncoding::kNegativeZero;
      else if (val == "none") p.nan = NanEncoding::kNone;
      else return fail("'" + parts[i] + "': nan must be ieee, fn, fnuz or none");
      // IEEE NaNs and IEEE Infs share the all-ones exponent: they come and go together.
      if (p.nan == NanEncoding::kIeee) p.inf = InfEncoding::kIeee;
      else if (p.inf == InfEncoding::kIeee) p.inf = InfEncoding::kNone;
    } else if (key == "inf") {
      if (val == "ieee") p.inf = InfEncoding::kIeee, p.nan = NanEncoding::kIeee;
      else if (val == "top") p.inf = InfEncoding::kAllOnes;
      else if (val == "none") p.inf = InfEncoding::kNone;
      else return fail("'" + parts[i] + "': inf must be ieee, top or none");
    } else if (opt == "sat" || opt == "nosat") {
      p.saturate = opt == "sat";
    } else if (opt == "ftz" || opt == "noftz") {
      p.ftz = opt == "ftz";
    } else {
      return fail("unknown option '" + parts[i] + "'");
    }
    p.name += ":" + opt;
  }
  StatusOr<Format> f = Format::Create(p);
  if (!f.ok()) return fail(f.status().message());
  return f;
}

}  // namespace lpsim
