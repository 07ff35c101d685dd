#include "formats/integer.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "formats/internal/cast_counter.h"
#include "formats/stochastic.h"

namespace lpsim {
namespace {

IntFormat Make(const std::string& name, int bits, bool is_signed, bool narrow) {
  IntFormat f;
  f.name = name;
  f.bits = bits;
  f.is_signed = is_signed;
  f.narrow = narrow;
  return f;
}

// Rounds v (finite) to an integer-valued double.
double RoundInt(float v, IntRounding rounding, uint32_t random_bits) {
  const double d = v;
  const double fl = std::floor(d);
  const double frac = d - fl;  // compared with 1/2 only: rounding cannot cross it
  switch (rounding) {
    case IntRounding::kHalfAway: return std::round(d);
    case IntRounding::kNearestEven:
      if (frac > 0.5) return fl + 1.0;
      if (frac < 0.5) return fl;
      return std::fmod(fl, 2.0) == 0.0 ? fl : fl + 1.0;
    case IntRounding::kStochastic: {
      // floor(frac * 2^32) without forming frac: for a tiny negative v,
      // frac = 1 - |v| needs more than double's 53 bits. v * 2^32 and
      // fl * 2^32 are exact, and so is the difference of their integer parts.
      const double threshold = std::floor(std::ldexp(d, 32)) - std::ldexp(fl, 32);
      return static_cast<double>(random_bits) < threshold ? fl + 1.0 : fl;
    }
  }
  return fl;
}

}  // namespace

int IntFormat::qmin() const {
  if (!is_signed) return 0;
  return -(1 << (bits - 1)) + (narrow ? 1 : 0);
}

int IntFormat::qmax() const { return is_signed ? (1 << (bits - 1)) - 1 : (1 << bits) - 1; }

bool IntFormat::operator==(const IntFormat& o) const {
  return name == o.name && bits == o.bits && is_signed == o.is_signed && narrow == o.narrow;
}

const std::vector<IntFormat>& BuiltinIntFormats() {
  static const std::vector<IntFormat> kFormats = {
      Make("int8", 8, true, false), Make("uint8", 8, false, false), Make("int4", 4, true, false),
      Make("uint4", 4, false, false), Make("int16", 16, true, false)};
  return kFormats;
}

bool LooksLikeIntFormat(const std::string& spec) {
  std::string s;
  for (char c : spec) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  size_t i = s.rfind("uint", 0) == 0 ? 4 : s.rfind("int", 0) == 0 ? 3 : 0;
  return i > 0 && i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]));
}

StatusOr<IntFormat> ParseIntFormat(const std::string& spec) {
  auto fail = [&](const std::string& what) {
    return Status::Error("invalid integer format '" + spec + "': " + what +
                         "; use intN or uintN with N in 2..16 (int8, uint8, int4, uint4, int16), "
                         "optionally followed by :narrow for a signed format");
  };
  std::string s;
  for (char c : spec) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string base = s, option;
  const size_t colon = s.find(':');
  if (colon != std::string::npos) {
    base = s.substr(0, colon);
    option = s.substr(colon + 1);
  }
  const bool is_signed = base.rfind("uint", 0) != 0;
  const size_t digits = is_signed ? 3 : 4;
  if (base.rfind(is_signed ? "int" : "uint", 0) != 0 || base.size() <= digits ||
      base.size() > digits + 2) {
    return fail("expected intN or uintN");
  }
  for (size_t i = digits; i < base.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(base[i]))) return fail("expected intN or uintN");
  }
  const int bits = std::atoi(base.c_str() + digits);
  if (bits < 2 || bits > 16) return fail("N must be 2..16");
  bool narrow = false;
  if (!option.empty()) {
    if (option != "narrow") return fail("unknown option '" + option + "'");
    if (!is_signed) return fail(":narrow needs a signed format");
    narrow = true;
  }
  return Make(narrow ? base + ":narrow" : base, bits, is_signed, narrow);
}

const char* ToString(IntRounding r) {
  switch (r) {
    case IntRounding::kHalfAway: return "away";
    case IntRounding::kNearestEven: return "rne";
    case IntRounding::kStochastic: return "stochastic";
  }
  return "?";
}

StatusOr<IntRounding> ParseIntRounding(const std::string& s) {
  if (s == "away" || s == "half_away") return IntRounding::kHalfAway;
  if (s == "rne" || s == "nearest") return IntRounding::kNearestEven;
  if (s == "stochastic" || s == "sr") return IntRounding::kStochastic;
  return Status::Error("unknown integer rounding '" + s + "': use away, rne or stochastic");
}

IntQuantParams SymmetricIntParams(const IntFormat& f, float amax) {
  if (!std::isfinite(amax) || !(amax > 0.0f)) return {1.0f, 0};
  float scale = amax / static_cast<float>(f.qmax());
  // A subnormal amax can give a scale of 0 only for absurd qmax; keep > 0.
  scale = std::max(scale, std::numeric_limits<float>::denorm_min());
  return {scale, 0};
}

IntQuantParams AsymmetricIntParams(const IntFormat& f, float min, float max) {
  const double qmin = f.qmin(), qmax = f.qmax();
  const double rmin = std::min(static_cast<double>(std::isfinite(min) ? min : 0.0f), 0.0);
  const double rmax = std::max(static_cast<double>(std::isfinite(max) ? max : 0.0f), 0.0);
  if (rmin == rmax) return {1.0f, static_cast<int32_t>(std::min(std::max(0.0, qmin), qmax))};
  const double scale = (rmax - rmin) / (qmax - qmin);
  const double zp_from_min = qmin - rmin / scale;
  const double zp_from_max = qmax - rmax / scale;
  const double err_min = std::fabs(qmin) + std::fabs(rmin / scale);
  const double err_max = std::fabs(qmax) + std::fabs(rmax / scale);
  const double zp = err_min < err_max ? zp_from_min : zp_from_max;
  double nudged;
  if (zp < qmin) nudged = qmin;
  else if (zp > qmax) nudged = qmax;
  else nudged = std::round(zp);
  float s = static_cast<float>(scale);
  s = std::max(s, std::numeric_limits<float>::denorm_min());
  return {s, static_cast<int32_t>(nudged)};
}

IntEncoded QuantizeIntRef(const IntFormat& f, float x, const IntQuantParams& p,
                          IntRounding rounding, uint32_t random_bits) {
  const int32_t qmin = f.qmin(), qmax = f.qmax();
  // 1. Non-finite inputs.
  if (std::isnan(x)) return {p.zero_point, kCastNanIn};
  if (std::isinf(x)) return {x > 0 ? qmax : qmin, kCastInfIn};
  if (x == 0.0f) return {p.zero_point, kCastZeroIn};
  // 2. Divide in fp32 (TFLite: x / scale), round.
  const float v = x / p.scale;
  uint32_t flags = 0;
  double t;
  if (std::isinf(v)) {
    t = v > 0 ? static_cast<double>(qmax) + 1.0 : static_cast<double>(qmin) - 1.0;
  } else {
    t = RoundInt(v, rounding, random_bits) + static_cast<double>(p.zero_point);
  }
  // 3. Clamp.
  int32_t q;
  if (t > qmax) {
    q = qmax;
    flags |= kCastOverflow;
  } else if (t < qmin) {
    q = qmin;
    flags |= kCastOverflow;
  } else {
    q = static_cast<int32_t>(t);
  }
  if (q == p.zero_point) flags |= kCastUnderflow;
  return {q, flags};
}

float DequantizeIntRef(int32_t q, const IntQuantParams& p) {
  return p.scale * static_cast<float>(q - p.zero_point);
}

void IntQuantizeRef(const IntFormat& f, const float* in, size_t rows, size_t cols,
                    const IntQuantizeOptions& opt, float* out,
                    std::vector<IntQuantParams>* params, CastCounts* counts) {
  const size_t n = rows * cols;
  const size_t groups = opt.per_row ? rows : (n > 0 ? 1 : 0);
  const size_t group_size = opt.per_row ? cols : n;
  std::vector<IntQuantParams> p(groups);
  for (size_t g = 0; g < groups; ++g) {
    float lo = 0.0f, hi = 0.0f, amax = 0.0f;
    for (size_t i = g * group_size; i < (g + 1) * group_size; ++i) {
      const float x = in[i];
      if (!std::isfinite(x)) continue;
      lo = std::min(lo, x);
      hi = std::max(hi, x);
      amax = std::max(amax, std::fabs(x));
    }
    p[g] = opt.symmetric ? SymmetricIntParams(f, amax) : AsymmetricIntParams(f, lo, hi);
  }
  IntQuantizeWithRef(f, in, rows, cols, p.data(), opt, out, counts);
  if (params) *params = std::move(p);
}

void IntQuantizeWithRef(const IntFormat& f, const float* in, size_t rows, size_t cols,
                        const IntQuantParams* params, const IntQuantizeOptions& opt, float* out,
                        CastCounts* counts) {
  const size_t n = rows * cols;
  const uint32_t key = StochasticKey(opt.seed);
  internal::CastCounter counter(n);
  for (size_t i = 0; i < n; ++i) {
    const float x = in[i];
    const IntQuantParams& gp = params[opt.per_row ? i / cols : 0];
    const uint32_t r = opt.rounding == IntRounding::kStochastic
                           ? StochasticBits(key, opt.index_offset + i) : 0u;
    const IntEncoded e = QuantizeIntRef(f, x, gp, opt.rounding, r);
    const float q = DequantizeIntRef(e.q, gp);
    out[i] = q;
    counter.Add(i, x, q, e.flags);
  }
  if (counts) *counts = counter.Finish();
}

}  // namespace lpsim
