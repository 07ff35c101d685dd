#include "simd/internal/cast_params.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/bits.h"

namespace lpsim {
namespace simd {
namespace internal {

CastParams MakeCastParams(const Format& f, Rounding rounding, uint64_t seed,
                          uint64_t index_offset, float scale) {
  CastParams p;
  p.format = &f;
  p.rounding = rounding;
  p.key = StochasticKey(seed);
  p.index_offset = index_offset;
  p.scale = scale;
  p.inv_scale = 1.0f / scale;

  const int m = f.mantissa_bits();
  p.m = static_cast<uint32_t>(m);
  p.s = static_cast<uint32_t>(23 - m);
  p.sign_mask = f.sign_mask();
  p.code_sign_shift = static_cast<uint32_t>(32 - f.total_bits());
  p.emin = f.min_normal_exponent();
  p.is_signed = f.is_signed();
  p.has_zero = f.has_zero();
  p.ftz = f.ftz();
  p.has_negzero = f.has_negative_zero();
  p.max_code = f.max_code();
  p.sub_limit = 1u << m;

  // The reference's special codes (reference.cc: NanCode, OverflowCode,
  // ZeroCode), restated; the tests pin every one against EncodeRef.
  auto nan_code = [&](uint32_t sign) -> uint32_t {
    if (!f.has_nan()) return f.sign_mask();  // no NaN: -0
    if (f.nan() == NanEncoding::kNegativeZero) return f.nan_code();
    return sign | f.nan_code();
  };
  auto overflow_code = [&](uint32_t sign) -> uint32_t {
    switch (f.overflow_result()) {
      case OverflowResult::kInf: return sign | f.inf_code();
      case OverflowResult::kNan: return nan_code(sign);
      case OverflowResult::kMax: break;
    }
    return sign | f.max_code();
  };
  p.ovf_pos = overflow_code(0);
  p.ovf_neg = overflow_code(f.sign_mask());
  p.zero_neg = f.has_negative_zero() ? f.sign_mask() : 0u;
  p.bad_code = f.saturate() ? 0u : nan_code(0);
  p.direct_q = f.has_zero() && p.emin - m >= -126;
  p.common = p.direct_q && f.is_signed() && !f.ftz() && m >= 1;
  p.q_ovf_pos = BitsOf(DecodeRef(f, p.ovf_pos));
  p.q_ovf_neg = BitsOf(DecodeRef(f, p.ovf_neg));
  p.q_bad = BitsOf(DecodeRef(f, p.bad_code));

  p.fast = f.is_signed() && f.has_zero();
  p.low_mask = (1u << p.s) - 1u;
  const uint32_t half = p.s > 0 ? 1u << (p.s - 1) : 0u;
  p.rne_base = p.s > 0 ? (half - 1u) + (m == 0 ? 1u : 0u) : 0u;
  p.odd_mask = (p.s > 0 && m > 0) ? 1u : 0u;
  p.sr_shift = std::min(32u - p.s, 31u);
  p.min_bits = BitsOf(std::ldexp(1.0f, std::max(p.emin, -126)));
  p.max_bits = BitsOf(f.MaxValue());
  p.rebias = static_cast<uint32_t>(static_cast<int64_t>(126 + p.emin) * (int64_t{1} << m));
  const float q_min = std::ldexp(1.0f, std::max(p.emin, -126)) * p.inv_scale;
  const float q_max = f.MaxValue() * p.inv_scale;
  p.fast_exact_diff = m >= 1 && q_min >= std::numeric_limits<float>::min() && std::isfinite(q_max);

  p.dec_add = f.has_zero() ? 0u : 1u << 23;
  p.dec_exp_add = static_cast<uint32_t>(static_cast<int64_t>(p.emin + 126) * (int64_t{1} << 23));
  const int tiny_fields = f.has_zero() ? std::max(1, -125 - p.emin) : std::max(0, -126 - p.emin);
  p.tiny_limit = static_cast<uint32_t>(tiny_fields) << m;
  p.nan_kind = static_cast<int>(f.nan());
  p.nan_code = f.nan_code();
  p.has_inf = f.has_inf();
  p.inf_code = f.inf_code();
  p.code_mask = f.total_bits() >= 32 ? ~0u : (1u << f.total_bits()) - 1u;
  return p;
}

}  // namespace internal
}  // namespace simd
}  // namespace lpsim
