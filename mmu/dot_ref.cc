#include "mmu/dot_ref.h"

#include <algorithm>
#include <boost/multiprecision/cpp_bin_float.hpp>
#include <boost/multiprecision/cpp_int.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace lpsim {
namespace mmu {
namespace {

using BigInt = boost::multiprecision::cpp_int;
using Int128 = __int128;

// Bit length of a non-negative integer (0 for 0).
int BitLength(Int128 x) {
  const auto hi = static_cast<uint64_t>(static_cast<unsigned __int128>(x) >> 64);
  const auto lo = static_cast<uint64_t>(x);
  if (hi) return 128 - __builtin_clzll(hi);
  return lo ? 64 - __builtin_clzll(lo) : 0;
}
int BitLength(const BigInt& x) { return x == 0 ? 0 : static_cast<int>(msb(x)) + 1; }

template <typename I>
I Pow2(int e) {
  return I(1) << e;
}

// +-mag * 2^exp; mag >= 0.
template <typename I>
struct Term {
  bool neg;
  I mag;
  int exp;
};

template <typename I>
Term<I> FromDouble(double d) {
  int e = 0;
  const double f = std::frexp(std::fabs(d), &e);  // |d| = f * 2^e, f in [0.5, 1)
  const auto m = static_cast<uint64_t>(std::ldexp(f, 53));
  return {std::signbit(d), I(m), e - 53};
}

// mag / 2^sh (sh > 0) rounded by `mode` for a term of sign `neg`.
template <typename I>
I ShiftRound(const I& mag, int sh, AlignRounding mode, bool neg) {
  const int len = BitLength(mag);
  I q = sh >= len ? I(0) : I(mag >> sh);
  // rem versus half, without forming 2^sh for huge shifts.
  const bool inexact = sh >= len ? mag != 0 : (mag & (Pow2<I>(sh) - 1)) != 0;
  if (!inexact) return q;
  switch (mode) {
    case AlignRounding::kTruncate: return q;
    case AlignRounding::kFloor: return neg ? I(q + 1) : q;
    case AlignRounding::kNearestEven: {
      if (sh > len) return q;  // rem < 2^(sh-1)
      const I rem = mag & (Pow2<I>(sh) - 1);
      const I half = Pow2<I>(sh - 1);
      if (rem > half || (rem == half && (q & 1) != 0)) return I(q + 1);
      return q;
    }
  }
  return q;
}

// Aligns the terms to the largest one keeping `bits` fraction bits (or all
// of them), sums exactly in a (bits + 1 + carry)-bit signed adder; the sum is
// S * 2^unit, returned as a term.
template <typename I>
Term<I> AlignedSum(const std::vector<Term<I>>& terms, const BlockFmaParams& p) {
  int emax = std::numeric_limits<int>::min();
  int lsb = std::numeric_limits<int>::max();
  for (const Term<I>& t : terms) {
    if (t.mag == 0) continue;
    emax = std::max(emax, t.exp + BitLength(t.mag) - 1);
    lsb = std::min(lsb, t.exp);
  }
  if (emax == std::numeric_limits<int>::min()) return {false, I(0), 0};
  const bool unlimited = p.alignment_bits == kUnlimitedAlignment;
  const int unit = unlimited ? lsb : emax - p.alignment_bits;
  I s = 0;
  for (const Term<I>& t : terms) {
    if (t.mag == 0) continue;
    const int sh = unit - t.exp;
    const I q = sh <= 0 ? I(t.mag << -sh) : ShiftRound(t.mag, sh, p.align_rounding, t.neg);
    if (t.neg) {
      s -= q;
    } else {
      s += q;
    }
  }
  if (!unlimited) {
    // Two's-complement wrap-around of an adder with 1 sign bit and
    // bits + 1 + carry magnitude bits.
    const I limit = Pow2<I>(p.alignment_bits + 1 + p.carry_bits);
    if (s >= limit || s < -limit) {
      const I mod = limit * 2;
      s = s % mod;  // C++: the sign of s
      if (s >= limit) s -= mod;
      if (s < -limit) s += mod;
    }
  }
  const bool neg = s < 0;
  return {neg, neg ? I(-s) : s, unit};
}

// Rounds +-mag * 2^exp into `out`.
template <typename I>
float RoundTerm(const Term<I>& t, const Format& out, Rounding rounding, bool flush_subnormal) {
  if (t.mag == 0) return 0.0f;
  const int m = out.mantissa_bits();
  const int emin = out.min_normal_exponent();
  const int lead = t.exp + BitLength(t.mag) - 1;
  const int quantum = std::max(lead, emin) - m;
  const int sh = quantum - t.exp;
  I r;
  if (sh <= 0) {
    r = t.mag << -sh;
  } else {
    r = ShiftRound(t.mag, sh,
                   rounding == Rounding::kTowardZero ? AlignRounding::kTruncate
                                                     : AlignRounding::kNearestEven,
                   t.neg);
  }
  // r <= 2^(m+1): exact in double.
  double v = std::ldexp(static_cast<double>(static_cast<uint64_t>(r)), quantum);
  if (v > static_cast<double>(out.MaxValue())) {
    v = rounding == Rounding::kTowardZero || !out.has_inf()
            ? static_cast<double>(out.MaxValue())
            : std::numeric_limits<double>::infinity();
  }
  if (flush_subnormal && v < static_cast<double>(out.MinNormal())) v = 0.0;
  return static_cast<float>(t.neg ? -v : v);
}

float ToFloat(double d) { return static_cast<float>(d); }

// One block FMA: products (exact, as doubles) and the accumulator c.
template <typename I>
float BlockFma(const BlockFmaParams& p, const DotFormats& f, const double* prods, size_t n,
               float c) {
  std::vector<Term<I>> terms;
  terms.reserve(n + 1);
  if (p.subgroups <= 1) {
    for (size_t t = 0; t < n; ++t) {
      if (prods[t] != 0) terms.push_back(FromDouble<I>(prods[t]));
    }
  } else {
    std::vector<Term<I>> set;
    for (int r = 0; r < p.subgroups; ++r) {
      set.clear();
      for (size_t t = static_cast<size_t>(r); t < n; t += static_cast<size_t>(p.subgroups)) {
        if (prods[t] != 0) set.push_back(FromDouble<I>(prods[t]));
      }
      const Term<I> partial = AlignedSum(set, p);
      if (partial.mag != 0) terms.push_back(partial);
    }
  }
  if (c != 0) terms.push_back(FromDouble<I>(c));
  return RoundTerm(AlignedSum(terms, p), f.out, f.rounding, !p.subnormal_output);
}

float Flush(float x, const Format& f, bool keep_subnormals) {
  if (keep_subnormals || !std::isfinite(x) || std::fabs(x) >= f.MinNormal()) return x;
  return std::copysign(0.0f, x);
}

template <typename I>
float BlockChain(const BlockFmaParams& p, const DotFormats& f, const std::vector<double>& prods,
                 float c) {
  const size_t k = prods.size();
  const size_t group = static_cast<size_t>(std::max(1, p.group));
  const size_t interval = p.promote_every > 0 ? static_cast<size_t>(p.promote_every) : k;
  float acc = c;
  for (size_t s = 0; s < k; s += interval) {
    const size_t end = std::min(k, s + interval);
    float part = p.promote_every > 0 ? 0.0f : acc;
    for (size_t g = s; g < end; g += group) {
      if (!std::isfinite(part)) break;
      part = BlockFma<I>(p, f, prods.data() + g, std::min(group, end - g), part);
    }
    // Promotion: an IEEE fp32 addition (double rounding through double is
    // innocuous for a sum of two floats: 53 >= 2 * 24 + 2).
    acc = p.promote_every > 0 ? ToFloat(static_cast<double>(acc) + static_cast<double>(part))
                              : part;
    if (!std::isfinite(acc)) break;
  }
  return acc;
}

// The IEEE double sum of c and the products: the answer when something is
// not finite.
float SpecialSum(const std::vector<double>& prods, float c) {
  double s = c;
  for (double x : prods) s += x;
  return static_cast<float>(s);
}

}  // namespace

float RoundToOutput(double x, const Format& out, Rounding rounding, bool flush_subnormal) {
  if (x == 0) return 0.0f;
  return RoundTerm(FromDouble<Int128>(x), out, rounding, flush_subnormal);
}

float BlockFmaDotRef(const BlockFmaParams& p, const DotFormats& f, const float* a, size_t sa,
                     const float* b, size_t sb, size_t k, float c) {
  std::vector<double> prods(k);
  bool special = !std::isfinite(c);
  for (size_t i = 0; i < k; ++i) {
    const double x = Flush(a[i * sa], f.a, p.subnormal_inputs);
    const double y = Flush(b[i * sb], f.b, p.subnormal_inputs);
    prods[i] = x * y;  // exact: at most 24 x 24 significand bits
    special |= !std::isfinite(prods[i]);
  }
  if (special) return SpecialSum(prods, c);
  // __int128 holds every aligned sum when the alignment point is bounded.
  const bool narrow = p.alignment_bits != kUnlimitedAlignment &&
                      p.alignment_bits + 2 + p.carry_bits + 8 < 126;
  // An accumulator that overflowed to Inf stays there: the rest of the
  // products are finite.
  return narrow ? BlockChain<Int128>(p, f, prods, c) : BlockChain<BigInt>(p, f, prods, c);
}

float Fp32FmaDotRef(const float* a, size_t sa, const float* b, size_t sb, size_t k, float c) {
  float acc = c;
  for (size_t i = 0; i < k; ++i) acc = std::fma(a[i * sa], b[i * sb], acc);
  return acc;
}

float ExactDotRef(const Format& out, Rounding rounding, const float* a, size_t sa, const float* b,
                  size_t sb, size_t k, float c) {
  using boost::multiprecision::cpp_bin_float;
  using boost::multiprecision::digit_base_2;
  using boost::multiprecision::et_off;
  using Big = boost::multiprecision::number<cpp_bin_float<1400, digit_base_2>, et_off>;
  bool special = !std::isfinite(c);
  std::vector<double> prods(k);
  for (size_t i = 0; i < k; ++i) {
    prods[i] = static_cast<double>(a[i * sa]) * static_cast<double>(b[i * sb]);
    special |= !std::isfinite(prods[i]);
  }
  if (special) return SpecialSum(prods, c);
  Big x = c;
  for (size_t i = 0; i < k; ++i) x += Big(a[i * sa]) * Big(b[i * sb]);
  if (x == 0) return 0.0f;
  const bool neg = x < 0;
  const Big ax = neg ? Big(-x) : x;
  int e = 0;
  (void)frexp(ax, &e);  // ax = f * 2^e, f in [0.5, 1): leading bit 2^(e-1)
  const int quantum = std::max(e - 1, out.min_normal_exponent()) - out.mantissa_bits();
  const Big n = ldexp(ax, -quantum);
  Big fl = floor(n);
  const Big frac = n - fl;
  const auto whole = fl.convert_to<int64_t>();  // at most 2^(mantissa + 1)
  int64_t r = whole;
  if (rounding == Rounding::kNearestEven && (frac > 0.5 || (frac == 0.5 && (whole & 1) != 0))) {
    ++r;
  }
  double v = std::ldexp(static_cast<double>(r), quantum);
  if (v > static_cast<double>(out.MaxValue())) {
    v = rounding == Rounding::kTowardZero || !out.has_inf()
            ? static_cast<double>(out.MaxValue())
            : std::numeric_limits<double>::infinity();
  }
  return static_cast<float>(neg ? -v : v);
}

float ExactDot(const Format& out, Rounding rounding, const float* a, size_t sa, const float* b,
               size_t sb, size_t k, float c) {
  // Every term as +-m * 2^e with m < 2^53; when all of them fit one 124-bit
  // window with room for the carries, an __int128 holds the exact sum.
  std::vector<Term<Int128>> terms;
  terms.reserve(k + 1);
  bool special = !std::isfinite(c);
  if (c != 0 && !special) terms.push_back(FromDouble<Int128>(c));
  for (size_t i = 0; i < k && !special; ++i) {
    const double x = static_cast<double>(a[i * sa]) * static_cast<double>(b[i * sb]);
    special = !std::isfinite(x);
    if (x != 0) terms.push_back(FromDouble<Int128>(x));
  }
  if (special || terms.empty()) return ExactDotRef(out, rounding, a, sa, b, sb, k, c);
  int lo = std::numeric_limits<int>::max(), hi = std::numeric_limits<int>::min();
  for (const Term<Int128>& t : terms) {
    lo = std::min(lo, t.exp);
    hi = std::max(hi, t.exp + 53);
  }
  int carry = 1;
  while ((size_t{1} << carry) <= terms.size()) ++carry;
  if (hi - lo + carry > 124) return ExactDotRef(out, rounding, a, sa, b, sb, k, c);
  Int128 s = 0;
  for (const Term<Int128>& t : terms) {
    const Int128 v = t.mag << (t.exp - lo);
    s += t.neg ? -v : v;
  }
  const bool neg = s < 0;
  return RoundTerm(Term<Int128>{neg, neg ? -s : s, lo}, out, rounding, /*flush_subnormal=*/false);
}

float DotRef(UnitKind kind, const BlockFmaParams& p, const DotFormats& f, const float* a, size_t sa,
             const float* b, size_t sb, size_t k, float c) {
  switch (kind) {
    case UnitKind::kBlockFma: return BlockFmaDotRef(p, f, a, sa, b, sb, k, c);
    case UnitKind::kFp32Fma: return Fp32FmaDotRef(a, sa, b, sb, k, c);
    case UnitKind::kExact: return ExactDot(f.out, f.rounding, a, sa, b, sb, k, c);
  }
  return 0.0f;
}

}  // namespace mmu
}  // namespace lpsim
