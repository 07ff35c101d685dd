#include "simd/role_quantizer.h"

#include "formats/block_fp.h"
#include "formats/integer.h"
#include "simd/block_fp.h"
#include "simd/integer.h"
#include "simd/quantize.h"

namespace lpsim {

RoleQuantizer::RoleQuantizer(const RoleSpec& spec) : spec_(spec) {
  if (spec_.storage == RoleSpec::Storage::kFloat &&
      spec_.scaling.kind == Scaling::Kind::kDelayed) {
    delayed_ = std::make_unique<DelayedScaler>(spec_.format, spec_.scaling.delayed);
  }
}

RoleQuantizer::RoleQuantizer(const RoleQuantizer& other) : spec_(other.spec_), first_(other.first_) {
  if (other.delayed_) delayed_ = std::make_unique<DelayedScaler>(*other.delayed_);
}

float RoleQuantizer::Quantize(const float* in, size_t rows, size_t cols, const Options& opt,
                              float* out, CastCounts* counts) {
  const size_t n = rows * cols;
  switch (spec_.storage) {
    case RoleSpec::Storage::kInteger: {
      IntQuantizeOptions io;
      io.per_row = spec_.scaling.integer.per_channel;
      io.symmetric = spec_.scaling.integer.symmetric;
      io.rounding = spec_.int_rounding;
      io.seed = opt.seed;
      io.index_offset = opt.index_offset;
      simd::IntQuantize(spec_.int_format, in, rows, cols, io, out, nullptr, counts, opt.threads);
      return 1.0f;
    }
    case RoleSpec::Storage::kBlockFp: {
      QuantizeOptions qo;
      qo.rounding = spec_.rounding;
      qo.seed = opt.seed;
      qo.index_offset = opt.index_offset;
      simd::BfpQuantize(spec_.bfp_format, in, rows, cols, qo, out, nullptr, counts, opt.threads);
      return 1.0f;
    }
    case RoleSpec::Storage::kFloat: break;
  }
  QuantizeOptions qo;
  qo.rounding = spec_.rounding;
  qo.seed = opt.seed;
  qo.index_offset = opt.index_offset;
  const Scaling& s = spec_.scaling;
  if (s.kind == Scaling::Kind::kBlock) {
    simd::BlockQuantize(spec_.format, in, rows, cols, s.block, qo, out, nullptr, counts,
                        opt.threads);
    return 1.0f;
  }
  float scale = 1.0f;
  if (s.kind == Scaling::Kind::kCurrent) {
    scale = CurrentScale(spec_.format, simd::Amax(in, n, opt.threads), s.scale);
  } else if (s.kind == Scaling::Kind::kDelayed) {
    const float amax = simd::Amax(in, n, opt.threads);
    scale = first_ ? CurrentScale(spec_.format, amax, s.delayed.scale) : delayed_->Scale();
    delayed_->Update(amax);
    first_ = false;
  }
  qo.scale = scale;
  simd::Quantize(spec_.format, in, n, qo, out, counts, opt.threads);
  return scale;
}

void RoleQuantizer::Observe(float amax) {
  if (!delayed_) return;
  delayed_->Update(amax);
  first_ = false;
}

}  // namespace lpsim
