#include "formats/reference.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "core/bits.h"
#include "formats/fixed_sum.h"
#include "formats/stochastic.h"

namespace lpsim {
namespace {

// The code a signed magnitude-code turns into, for the special codes.
uint32_t NanCode(const Format& f, uint32_t sign) {
  if (!f.has_nan()) return f.sign_mask();  // no NaN: -0, as ml_dtypes does
  if (f.nan() == NanEncoding::kNegativeZero) return f.nan_code();
  return sign | f.nan_code();
}

uint32_t OverflowCode(const Format& f, uint32_t sign) {
  switch (f.overflow_result()) {
    case OverflowResult::kInf: return sign | f.inf_code();
    case OverflowResult::kNan: return NanCode(f, sign);
    case OverflowResult::kMax: break;
  }
  return sign | f.max_code();
}

uint32_t ZeroCode(const Format& f, uint32_t sign) {
  return f.has_negative_zero() ? sign : 0u;
}

}  // namespace

const char* ToString(Rounding r) {
  switch (r) {
    case Rounding::kNearestEven: return "rne";
    case Rounding::kTowardZero: return "rtz";
    case Rounding::kStochastic: return "stochastic";
  }
  return "?";
}

StatusOr<Rounding> ParseRounding(const std::string& s) {
  if (s == "rne" || s == "nearest") return Rounding::kNearestEven;
  if (s == "rtz" || s == "truncate") return Rounding::kTowardZero;
  if (s == "stochastic" || s == "sr") return Rounding::kStochastic;
  return Status::Error("unknown rounding '" + s + "': use rne, rtz or stochastic");
}

Encoded EncodeRef(const Format& f, float x, Rounding rounding, uint32_t random_bits) {
  const uint32_t bits = BitsOf(x);
  const bool negative = (bits >> 31) != 0;
  const uint32_t abs_bits = bits & 0x7fffffffu;
  const uint32_t sign = negative ? f.sign_mask() : 0u;
  const int m = f.mantissa_bits();

  // 1. Non-finite inputs: fixed per-format results, whatever the policy.
  if (abs_bits > 0x7f800000u) return {NanCode(f, sign), kCastNanIn};
  if (abs_bits == 0x7f800000u) {
    if (!f.is_signed()) return {NanCode(f, 0), kCastInfIn};
    if (f.has_inf()) return {sign | f.inf_code(), kCastInfIn};
    if (f.has_nan()) return {NanCode(f, sign), kCastInfIn};
    return {sign | f.max_code(), kCastInfIn};
  }
  // 2. Values an unsigned or zero-less format (E8M0) cannot hold.
  if (abs_bits == 0 && !f.has_zero()) {
    return {f.saturate() ? 0u : NanCode(f, 0), kCastZeroIn};
  }
  if (negative && !f.is_signed()) return {f.saturate() ? 0u : NanCode(f, 0), 0};
  // 3. Zero.
  if (abs_bits == 0) return {ZeroCode(f, sign), kCastZeroIn};

  // 4. Normalize: |x| = sig * 2^(e - 23) with sig in [2^23, 2^24).
  uint32_t sig;
  int e;
  const int biased = static_cast<int>(abs_bits >> 23);
  if (biased != 0) {
    sig = (abs_bits & 0x7fffffu) | 0x800000u;
    e = biased - 127;
  } else {
    const int lz = __builtin_clz(abs_bits) - 8;
    sig = abs_bits << lz;
    e = -126 - lz;
  }

  // 5. Round sig to units of 2^q, q the exponent of the last kept bit.
  const int emin = f.min_normal_exponent();
  const int e_eff = std::max(e, emin);
  const int shift = 23 + (e_eff - m) - e;  // >= 23 - m >= 0
  uint64_t n = shift >= 32 ? 0 : sig >> shift;
  const uint64_t rem = shift >= 32 ? sig : sig - (n << shift);  // dropped part, in 2^-shift units
  if (shift > 0) {
    switch (rounding) {
      case Rounding::kNearestEven: {
        if (shift <= 25) {
          const uint64_t half = uint64_t{1} << (shift - 1);
          const bool tie_up = m == 0 || (n & 1) != 0;  // no mantissa: ties away
          if (rem > half || (rem == half && tie_up)) ++n;
        }  // shift > 25: rem < 2^24 < half, round down
        break;
      }
      case Rounding::kTowardZero: break;
      case Rounding::kStochastic: {
        const uint64_t threshold = shift >= 64 ? 0 : (rem << 32) >> shift;
        if (random_bits < threshold) ++n;
        break;
      }
    }
  }

  // 6. Pack by integer addition, so a rounding carry bumps the exponent.
  const int64_t field = int64_t{e_eff - emin} << m;
  int64_t mag = f.has_zero() ? field + static_cast<int64_t>(n)
                             : field + static_cast<int64_t>(n) - (int64_t{1} << m);
  if (!f.has_zero() && mag < 0) mag = 0;  // below the smallest binade: clamp (no zero)

  // 7. Classify.
  if (mag > static_cast<int64_t>(f.max_code())) return {OverflowCode(f, sign), kCastOverflow};
  if (mag == 0 && f.has_zero()) return {ZeroCode(f, sign), kCastUnderflow};
  if (f.has_zero() && mag < (int64_t{1} << m)) {
    if (f.ftz()) return {ZeroCode(f, sign), kCastUnderflow | kCastFlushed};
    return {sign | static_cast<uint32_t>(mag), kCastSubnormal};
  }
  return {sign | static_cast<uint32_t>(mag), 0};
}

float DecodeRef(const Format& f, uint32_t code) {
  const uint32_t sign = code & f.sign_mask();
  if (f.IsNan(code)) {
    const bool keep_sign = f.nan() != NanEncoding::kNegativeZero && sign != 0;
    return FloatOf(keep_sign ? 0xffc00000u : 0x7fc00000u);
  }
  const float s = sign ? -1.0f : 1.0f;
  if (f.IsInf(code)) return s * std::numeric_limits<float>::infinity();
  const int m = f.mantissa_bits();
  const uint32_t mag = code & ~f.sign_mask();
  const int field = static_cast<int>(mag >> m);
  const uint32_t mant = mag & ((1u << m) - 1);
  const int emin = f.min_normal_exponent();
  float v;
  if (f.has_zero() && field == 0) {
    v = std::ldexp(static_cast<float>(mant), emin - m);
  } else {
    const int e = f.has_zero() ? field - 1 + emin : field + emin;
    v = std::ldexp(static_cast<float>((1u << m) + mant), e - m);
  }
  return s * v;
}

Encoded EncodeScaledRef(const Format& f, float x, float scale, Rounding rounding,
                        uint32_t random_bits) {
  const float v = x * scale;
  Encoded enc = EncodeRef(f, v, rounding, random_bits);
  if (std::isfinite(x) && std::isinf(v)) {
    const uint32_t sign = std::signbit(x) && f.is_signed() ? f.sign_mask() : 0u;
    if (!f.is_signed() && std::signbit(x)) return {f.saturate() ? 0u : NanCode(f, 0), 0};
    return {OverflowCode(f, sign), kCastOverflow};
  }
  if (x != 0.0f && v == 0.0f && std::isfinite(x)) {
    enc.flags = (enc.flags & ~kCastZeroIn) | kCastUnderflow;
  }
  return enc;
}

namespace {

// mult/inv null: opt.scale for every element.
void QuantizeLoop(const Format& f, const float* in, size_t n, const QuantizeOptions& opt,
                  const float* mult, const float* inv, float* out, CastCounts* counts) {
  const float inv_scale = 1.0f / opt.scale;
  const uint32_t key = StochasticKey(opt.seed);
  CastCounts c;
  c.numel = n;
  std::vector<double> chunk_err, chunk_sig;
  double err[kSumLanes] = {}, sig[kSumLanes] = {};
  for (size_t i = 0; i < n; ++i) {
    const float x = in[i];
    const uint32_t r = opt.rounding == Rounding::kStochastic
                           ? StochasticBits(key, opt.index_offset + i) : 0u;
    const Encoded enc = EncodeScaledRef(f, x, mult ? mult[i] : opt.scale, opt.rounding, r);
    const float q = DecodeRef(f, enc.code) * (inv ? inv[i] : inv_scale);
    out[i] = q;
    c.underflow += (enc.flags & kCastUnderflow) != 0;
    c.flushed += (enc.flags & kCastFlushed) != 0;
    c.subnormal += (enc.flags & kCastSubnormal) != 0;
    c.overflow += (enc.flags & kCastOverflow) != 0;
    c.nan_in += (enc.flags & kCastNanIn) != 0;
    c.inf_in += (enc.flags & kCastInfIn) != 0;
    c.zero_in += (enc.flags & kCastZeroIn) != 0;
    if (std::isfinite(x) && std::isfinite(q)) {
      const double d = static_cast<double>(x) - static_cast<double>(q);
      err[i % kSumLanes] += d * d;
      sig[i % kSumLanes] += static_cast<double>(x) * static_cast<double>(x);
    }
    if ((i + 1) % kSumChunk == 0 || i + 1 == n) {
      chunk_err.push_back(ReduceLanes(err));
      chunk_sig.push_back(ReduceLanes(sig));
      std::fill(err, err + kSumLanes, 0.0);
      std::fill(sig, sig + kSumLanes, 0.0);
    }
  }
  c.sq_error = PairwiseSum(chunk_err.data(), chunk_err.size());
  c.sq_signal = PairwiseSum(chunk_sig.data(), chunk_sig.size());
  if (counts) *counts = c;
}

}  // namespace

void QuantizeRef(const Format& f, const float* in, size_t n, const QuantizeOptions& opt,
                 float* out, CastCounts* counts) {
  QuantizeLoop(f, in, n, opt, nullptr, nullptr, out, counts);
}

void QuantizeRefPerElement(const Format& f, const float* in, size_t n, const QuantizeOptions& opt,
                           const float* mult, const float* inv, float* out, CastCounts* counts) {
  QuantizeLoop(f, in, n, opt, mult, inv, out, counts);
}

}  // namespace lpsim
