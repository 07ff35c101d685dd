#include "formats/block_fp.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include "formats/internal/cast_counter.h"
#include "formats/stochastic.h"

namespace lpsim {
namespace {

BfpFormat Make(const std::string& name, int m, size_t block) {
  BfpFormat f;
  f.name = name;
  f.magnitude_bits = m;
  f.block = block;
  return f;
}

}  // namespace

float BfpFormat::MaxRelative() const {
  return std::ldexp(static_cast<float>((1u << magnitude_bits) - 1), 1 - magnitude_bits);
}

const std::vector<BfpFormat>& BuiltinBfpFormats() {
  static const std::vector<BfpFormat> kFormats = {Make("bfp8", 7, 16), Make("bfp4", 3, 16),
                                                  Make("bfp2", 1, 16)};
  return kFormats;
}

bool LooksLikeBfpFormat(const std::string& spec) {
  std::string s;
  for (char c : spec) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s.rfind("bfp", 0) == 0;
}

StatusOr<BfpFormat> ParseBfpFormat(const std::string& spec) {
  auto fail = [&](const std::string& what) {
    return Status::Error("invalid block floating-point format '" + spec + "': " + what +
                         "; use bfp8, bfp4 or bfp2, optionally followed by :block=N");
  };
  std::string s;
  for (char c : spec) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const size_t colon = s.find(':');
  const std::string base = s.substr(0, colon);
  const BfpFormat* found = nullptr;
  for (const BfpFormat& f : BuiltinBfpFormats()) {
    if (f.name == base) found = &f;
  }
  if (!found) return fail("'" + base + "' is not a known block floating-point format");
  BfpFormat f = *found;
  if (colon != std::string::npos) {
    const std::string o = s.substr(colon + 1);
    if (o.rfind("block=", 0) != 0) return fail("unknown option '" + o + "'");
    const std::string v = o.substr(6);
    char* end = nullptr;
    const long b = std::strtol(v.c_str(), &end, 10);
    if (v.empty() || *end != '\0' || b < 1 || b > 4096) return fail("block must be 1..4096");
    f.block = static_cast<size_t>(b);
    f.name = base + ":block=" + std::to_string(b);
  }
  return f;
}

int BfpSharedExponent(float amax) {
  if (!std::isfinite(amax) || !(amax > 0.0f)) return -127;
  return std::min(std::max(std::ilogb(amax), -127), 127);
}

Encoded BfpEncodeRef(const BfpFormat& f, float x, int e, Rounding rounding, uint32_t random_bits) {
  const int m_bits = f.magnitude_bits;
  const uint32_t max_mag = (1u << m_bits) - 1;
  const uint32_t sign = std::signbit(x) ? 1u << m_bits : 0u;
  if (std::isnan(x)) return {0u, kCastNanIn};
  if (std::isinf(x)) return {sign | max_mag, kCastInfIn};
  if (x == 0.0f) return {sign, kCastZeroIn};
  // Exact in double: |x| has 24 significant bits and the shift is at most
  // 23 + 127 + 149 binades, far inside double's range.
  const double v = std::ldexp(std::fabs(static_cast<double>(x)), m_bits - 1 - e);
  const double fl = std::floor(v);
  const double frac = v - fl;
  double r = fl;
  switch (rounding) {
    case Rounding::kNearestEven:
      if (frac > 0.5 || (frac == 0.5 && std::fmod(fl, 2.0) != 0.0)) r = fl + 1.0;
      break;
    case Rounding::kTowardZero: break;
    case Rounding::kStochastic:
      if (static_cast<double>(random_bits) < std::floor(std::ldexp(frac, 32))) r = fl + 1.0;
      break;
  }
  if (r > max_mag) return {sign | max_mag, kCastOverflow};
  const uint32_t mag = static_cast<uint32_t>(r);
  return {sign | mag, mag == 0 ? kCastUnderflow : 0u};
}

float BfpDecodeRef(const BfpFormat& f, uint32_t code, int e) {
  const uint32_t mag = code & ((1u << f.magnitude_bits) - 1);
  const float v = std::ldexp(static_cast<float>(mag), e - f.magnitude_bits + 1);
  return (code >> f.magnitude_bits) & 1u ? -v : v;
}

void BfpQuantizeRef(const BfpFormat& f, const float* in, size_t rows, size_t cols,
                    const QuantizeOptions& opt, float* out, uint8_t* exps, CastCounts* counts) {
  const size_t n = rows * cols;
  const size_t bpr = f.BlocksPerRow(cols);
  const uint32_t key = StochasticKey(opt.seed);
  internal::CastCounter counter(n);
  for (size_t r = 0; r < rows; ++r) {
    for (size_t b = 0; b < bpr; ++b) {
      const size_t c0 = b * f.block, c1 = std::min(cols, c0 + f.block);
      float amax = 0.0f;
      for (size_t c = c0; c < c1; ++c) {
        const float a = std::fabs(in[r * cols + c]);
        if (std::isfinite(a)) amax = std::max(amax, a);
      }
      const int e = BfpSharedExponent(amax);
      if (exps) exps[r * bpr + b] = static_cast<uint8_t>(e + 127);
      for (size_t c = c0; c < c1; ++c) {
        const size_t i = r * cols + c;
        const float x = in[i];
        const uint32_t bits = opt.rounding == Rounding::kStochastic
                                  ? StochasticBits(key, opt.index_offset + i) : 0u;
        const Encoded enc = BfpEncodeRef(f, x, e, opt.rounding, bits);
        const float q = BfpDecodeRef(f, enc.code, e);
        out[i] = q;
        counter.Add(i, x, q, enc.flags);
      }
    }
  }
  if (counts) *counts = counter.Finish();
}

}  // namespace lpsim
