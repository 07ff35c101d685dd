#include "simd/scaling.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#include "core/bits.h"
#include "formats/fixed_sum.h"
#include "formats/stochastic.h"
#include "simd/internal/cast_params.h"
#include "simd/parallel.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd/scaling.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "simd/scaling-inl.h"

#if HWY_ONCE
namespace lpsim {
namespace {

// Block geometry of a [rows x cols] tensor; all sizes >= 1 when rows, cols > 0.
struct Geometry {
  size_t br, bc, bpr, bpc;
  Geometry(const BlockSpec& spec, size_t rows, size_t cols)
      : br(spec.block_rows == 0 ? std::max<size_t>(rows, 1) : spec.block_rows),
        bc(spec.block_cols == 0 ? std::max<size_t>(cols, 1) : spec.block_cols),
        bpr(spec.BlocksPerRow(cols)),
        bpc(spec.BlocksPerCol(rows)) {}
  size_t blocks() const { return bpr * bpc; }
};

// 2^e for e in [-149, 127], exactly (std::ldexp's value, built from bits:
// it runs once per block).
float PowerOfTwo(int e) {
  if (e >= -126) return FloatOf(static_cast<uint32_t>(e + 127) << 23);
  return FloatOf(uint32_t{1} << (e + 149));  // an fp32 subnormal
}

// From the block amaxes to the cast's multiplier, its fp32 reciprocal and the
// reported dequantization factor.
void BlockScales(const Format& f, const BlockSpec& spec, const std::vector<float>& amax,
                 std::vector<float>* mult, std::vector<float>* inv, float* scales) {
  mult->resize(amax.size());
  inv->resize(amax.size());
  float tensor_scale = 1.0f;
  if (spec.scale_type == BlockSpec::ScaleType::kNvfp4) {
    float tensor_amax = 0.0f;
    for (float a : amax) tensor_amax = std::max(tensor_amax, a);
    tensor_scale = Nvfp4TensorScale(f, tensor_amax);
  }
  for (size_t b = 0; b < amax.size(); ++b) {
    const BlockScale s = BlockScaleOf(f, spec, amax[b], tensor_scale);
    (*mult)[b] = s.mult;
    (*inv)[b] = s.inv;
    if (scales) scales[b] = s.inv;
  }
}

const Format& E4m3fnSat() {
  static const Format kFormat = ParseFormat("e4m3fn:sat").value();
  return kFormat;
}


}  // namespace

float CurrentScale(const Format& f, float amax, const ScaleOptions& opt) {
  if (!std::isfinite(amax) || !(amax > 0.0f)) return 1.0f;
  const float scaled_max = std::ldexp(f.MaxValue(), -opt.margin);
  float scale = scaled_max / amax;
  if (std::isinf(scale)) scale = std::numeric_limits<float>::max();
  // Keep 1/scale finite (and the cast's precondition, scale > 0).
  scale = std::max(scale, std::numeric_limits<float>::min());
  if (opt.power_of_two) {
    const int e = std::min(std::max(std::ilogb(scale), opt.min_exponent), opt.max_exponent);
    scale = std::ldexp(1.0f, std::min(std::max(e, -126), 127));
  }
  return scale;
}

float Nvfp4TensorScale(const Format& elem, float tensor_amax) {
  if (!std::isfinite(tensor_amax) || !(tensor_amax > 0.0f)) return 1.0f;
  const float s = (E4m3fnSat().MaxValue() * elem.MaxValue()) / tensor_amax;
  return std::isinf(s) ? std::numeric_limits<float>::max() : s;
}

Nvfp4Scale Nvfp4BlockScale(const Format& elem, float block_amax, float tensor_scale) {
  const float wanted = (block_amax / elem.MaxValue()) * tensor_scale;
  const Encoded enc = EncodeRef(E4m3fnSat(), wanted, Rounding::kNearestEven, 0);
  const float s_dec = DecodeRef(E4m3fnSat(), enc.code);
  if (!(s_dec > 0.0f)) return {tensor_scale, 0.0f, static_cast<uint8_t>(enc.code)};
  float mult = tensor_scale / s_dec;
  if (std::isinf(mult)) mult = std::numeric_limits<float>::max();
  return {mult, s_dec / tensor_scale, static_cast<uint8_t>(enc.code)};
}

BlockScale BlockScaleOf(const Format& f, const BlockSpec& spec, float block_amax, float tensor_scale) {
  switch (spec.scale_type) {
    case BlockSpec::ScaleType::kNvfp4: {
      const Nvfp4Scale s = Nvfp4BlockScale(f, block_amax, tensor_scale);
      return {s.mult, s.inv};
    }
    case BlockSpec::ScaleType::kE8m0: {
      const float mult = PowerOfTwo(-(static_cast<int>(MxScaleCode(f, block_amax)) - 127));
      return {mult, 1.0f / mult};  // 2^e exactly
    }
    case BlockSpec::ScaleType::kFp32:
      break;
  }
  const float mult = CurrentScale(f, block_amax, spec.scale);
  return {mult, 1.0f / mult};
}

// MX and NVFP4 elements always saturate (OCP MX; NVFP4's E2M1 has no Inf or
// NaN); fp32-scaled blocks keep the format's own overflow policy.
Format BlockElementFormat(const Format& f, const BlockSpec& spec) {
  return spec.scale_type == BlockSpec::ScaleType::kFp32 ? f : f.WithSaturate(true);
}

DelayedScaler::DelayedScaler(const Format& f, const Options& opt) : format_(f), opt_(opt) {}

void DelayedScaler::Update(float amax) {
  history_.push_back(amax);
  while (history_.size() > std::max<size_t>(opt_.history, 1)) history_.pop_front();
  float reduced = history_.back();
  if (opt_.algo == Algo::kMax) {
    for (float a : history_) {
      if (std::isnan(a) || a > reduced) reduced = a;
      if (std::isnan(a)) break;
    }
  }
  float next = scale_;
  if (std::isfinite(reduced) && reduced > 0.0f) next = CurrentScale(format_, reduced, opt_.scale);
  steps_since_change_ = next == scale_ ? steps_since_change_ + 1 : 0;
  scale_ = next;
}

uint8_t MxScaleCode(const Format& elem, float block_amax) {
  if (std::isnan(block_amax)) return 0xFF;  // E8M0 NaN
  int e = -127;
  const uint32_t abs = AbsBitsOf(block_amax);
  if (abs >= 0x7f800000u) {
    e = 127;  // Inf
  } else if (abs >= 0x00800000u) {
    e = static_cast<int>(abs >> 23) - 127 - elem.max_exponent();  // ilogb of a normal
  } else if (abs != 0) {
    e = std::ilogb(block_amax) - elem.max_exponent();
  }
  e = std::min(std::max(e, -127), 127);
  return static_cast<uint8_t>(e + 127);
}

namespace simd {

HWY_EXPORT(AmaxBits);
HWY_EXPORT(BlockAmaxRows);
HWY_EXPORT(BlockCastChunks);

float Amax(const float* x, size_t n, int threads) {
  const size_t workers = ThreadsFor(n, threads);
  std::vector<uint32_t> part(workers, 0);
  ForEachChunkRange(n, workers, [&](size_t w, size_t c0, size_t c1) {
    part[w] = HWY_DYNAMIC_DISPATCH(AmaxBits)(x, c0 * kSumChunk, std::min(n, c1 * kSumChunk));
  });
  return FloatOf(*std::max_element(part.begin(), part.end()));
}

namespace {

// Block amax (the largest finite |x| of each block, row-major over blocks).
std::vector<float> BlockAmaxes(const float* in, size_t rows, size_t cols, const Geometry& g,
                               size_t workers) {
  // As fp32 bits, combined with max: order-free.
  std::vector<uint32_t> amax_bits(g.blocks(), 0);
  if (workers == 1) {
    HWY_DYNAMIC_DISPATCH(BlockAmaxRows)(in, cols, 0, rows, g.br, g.bc, g.bpr, amax_bits.data());
  } else if (g.bpc >= workers) {
    // Workers own whole block rows.
    ForEachRange(g.bpc, workers, [&](size_t, size_t b0, size_t b1) {
      HWY_DYNAMIC_DISPATCH(BlockAmaxRows)(in, cols, b0 * g.br, std::min(rows, b1 * g.br), g.br,
                                          g.bc, g.bpr, amax_bits.data() + b0 * g.bpr);
    });
  } else {
    // Few block rows: workers split rows into private copies, merged by max.
    std::vector<std::vector<uint32_t>> priv(workers, std::vector<uint32_t>(g.blocks(), 0));
    ForEachRange(rows, workers, [&](size_t w, size_t r0, size_t r1) {
      if (r0 < r1) {
        HWY_DYNAMIC_DISPATCH(BlockAmaxRows)(in, cols, r0, r1, g.br, g.bc, g.bpr,
                                            priv[w].data() + (r0 / g.br) * g.bpr);
      }
    });
    for (const std::vector<uint32_t>& p : priv) {
      for (size_t b = 0; b < g.blocks(); ++b) amax_bits[b] = std::max(amax_bits[b], p[b]);
    }
  }
  std::vector<float> amax(g.blocks());
  for (size_t b = 0; b < g.blocks(); ++b) amax[b] = FloatOf(amax_bits[b]);
  return amax;
}

// Nonzero finite inputs of the blocks whose scale rounded to zero (inv 0:
// an NVFP4 block whose E4M3 scale is below its smallest subnormal). They
// read back as zeros: flushed by their scale, counted as `flushed`.
uint64_t ZeroScaleInputs(const float* in, size_t rows, size_t cols, const Geometry& g,
                         const std::vector<float>& inv) {
  if (std::find(inv.begin(), inv.end(), 0.0f) == inv.end()) return 0;
  uint64_t n = 0;
  for (size_t r = 0; r < rows; ++r) {
    for (size_t col = 0; col < cols; ++col) {
      const float x = in[r * cols + col];
      n += inv[(r / g.br) * g.bpr + col / g.bc] == 0.0f && x != 0.0f && std::isfinite(x);
    }
  }
  return n;
}

// Steps 2 and 3 of BlockQuantize for one format, given the block amaxes.
void BlockCast(const Format& f, const float* in, size_t rows, size_t cols, const BlockSpec& spec,
               const Geometry& g, const std::vector<float>& amax, const QuantizeOptions& opt,
               float* out, float* scales, CastCounts* counts, size_t workers) {
  const size_t n = rows * cols;
  // 2. Scales.
  std::vector<float> mult, inv;
  BlockScales(f, spec, amax, &mult, &inv, scales);

  // 3. The cast, in whole summation chunks (`out` may be `in`: the inputs
  // of zero-scale blocks are counted first).
  if (!out && !counts) return;
  const uint64_t zero_scale = counts ? ZeroScaleInputs(in, rows, cols, g, inv) : 0;
  const Format elem = BlockElementFormat(f, spec);
  const internal::CastParams p =
      internal::MakeCastParams(elem, opt.rounding, opt.seed, opt.index_offset, 1.0f);
  const bool sums = counts != nullptr;
  const size_t chunks = NumSumChunks(n);
  std::vector<double> chunk_err(sums ? chunks : 0), chunk_sig(sums ? chunks : 0);
  std::vector<internal::CastState> partial(workers);
  ForEachChunkRange(n, workers, [&](size_t w, size_t c0, size_t c1) {
    HWY_DYNAMIC_DISPATCH(BlockCastChunks)(p, in, rows, cols, g.br, g.bc, g.bpr, mult.data(),
                                          inv.data(), c0, c1, out, sums, chunk_err.data(),
                                          chunk_sig.data(), &partial[w]);
  });
  if (counts) {
    *counts = internal::FinishCounts(n, partial, chunk_err, chunk_sig);
    counts->flushed += zero_scale;
  }
}

}  // namespace

void BlockQuantize(const Format& f, const float* in, size_t rows, size_t cols,
                   const BlockSpec& spec, const QuantizeOptions& opt, float* out, float* scales,
                   CastCounts* counts, int threads) {
  const size_t n = rows * cols;
  if (n == 0) {
    if (counts) *counts = CastCounts{};
    return;
  }
  const Geometry g(spec, rows, cols);
  const size_t workers = ThreadsFor(n, threads);
  const std::vector<float> amax = BlockAmaxes(in, rows, cols, g, workers);
  BlockCast(f, in, rows, cols, spec, g, amax, opt, out, scales, counts, workers);
}

void BlockCounts(const std::vector<Format>& formats, const float* in, size_t rows, size_t cols,
                 const BlockSpec& spec, const QuantizeOptions& opt, CastCounts* counts,
                 int threads) {
  const size_t n = rows * cols;
  if (n == 0) {
    for (size_t i = 0; i < formats.size(); ++i) counts[i] = CastCounts{};
    return;
  }
  const Geometry g(spec, rows, cols);
  const size_t workers = ThreadsFor(n, threads);
  const std::vector<float> amax = BlockAmaxes(in, rows, cols, g, workers);
  for (size_t i = 0; i < formats.size(); ++i) {
    BlockCast(formats[i], in, rows, cols, spec, g, amax, opt, nullptr, nullptr, &counts[i],
              workers);
  }
}

void BlockQuantizeRef(const Format& f, const float* in, size_t rows, size_t cols,
                      const BlockSpec& spec, const QuantizeOptions& opt, float* out,
                      float* scales, CastCounts* counts) {
  const size_t n = rows * cols;
  CastCounts c;
  c.numel = n;
  if (n == 0) {
    if (counts) *counts = c;
    return;
  }
  const Geometry g(spec, rows, cols);
  std::vector<float> amax(g.blocks(), 0.0f);
  for (size_t r = 0; r < rows; ++r) {
    for (size_t col = 0; col < cols; ++col) {
      const float a = std::fabs(in[r * cols + col]);
      float& m = amax[(r / g.br) * g.bpr + col / g.bc];
      if (std::isfinite(a) && a > m) m = a;
    }
  }
  std::vector<float> mult, inv;
  BlockScales(f, spec, amax, &mult, &inv, scales);
  const Format elem = BlockElementFormat(f, spec);

  std::vector<float> elem_mult(n), elem_inv(n);
  for (size_t i = 0; i < n; ++i) {
    const size_t b = (i / cols / g.br) * g.bpr + (i % cols) / g.bc;
    elem_mult[i] = mult[b];
    elem_inv[i] = inv[b];
  }
  const uint64_t zero_scale = ZeroScaleInputs(in, rows, cols, g, inv);  // before `out` (may be `in`)
  QuantizeRefPerElement(elem, in, n, opt, elem_mult.data(), elem_inv.data(), out, counts);
  if (counts) counts->flushed += zero_scale;
}

}  // namespace simd
}  // namespace lpsim
#endif  // HWY_ONCE
