#include "simd/quantize.h"

#include <algorithm>
#include <vector>

#include "formats/fixed_sum.h"
#include "simd/internal/cast_params.h"
#include "simd/parallel.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd/quantize.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "simd/quantize-inl.h"

#if HWY_ONCE
namespace lpsim {
namespace simd {

HWY_EXPORT(CastChunks);
HWY_EXPORT(DecodeRange);
HWY_EXPORT(CurrentTarget);

namespace {

// Float outputs at least this large are written with non-temporal stores:
// larger than the last-level caches of the machines this runs on, so the
// output would not stay cached anyway. In place (out == in) the lines are
// already owned and cached stores are kept.
constexpr size_t kStreamBytes = size_t{32} << 20;

// The cast of in[0, n) with its per-chunk sums (when wanted) and per-worker
// counts; index_offset places in[0] in the stochastic stream.
void CastPiece(const Format& f, const float* in, size_t n, const QuantizeOptions& opt,
               int out_kind, void* out, bool sums, int threads, std::vector<double>* chunk_err,
               std::vector<double>* chunk_sig, std::vector<internal::CastState>* partial) {
  internal::CastParams p =
      internal::MakeCastParams(f, opt.rounding, opt.seed, opt.index_offset, opt.scale);
  p.stream_out = out_kind == 0 && out != in && n * sizeof(float) >= kStreamBytes;
  const size_t chunks = NumSumChunks(n);
  chunk_err->assign(sums ? chunks : 0, 0.0);
  chunk_sig->assign(sums ? chunks : 0, 0.0);
  const size_t workers = ThreadsFor(n, threads);
  partial->assign(workers, internal::CastState());
  ForEachChunkRange(n, workers, [&](size_t w, size_t c0, size_t c1) {
    HWY_DYNAMIC_DISPATCH(CastChunks)(p, in, n, c0, c1, out_kind, out, sums, chunk_err->data(),
                                     chunk_sig->data(), &(*partial)[w]);
  });
}

// Quantize (out_kind 0) and Encode (code width) share one driver.
void CastDriver(const Format& f, const float* in, size_t n, const QuantizeOptions& opt,
                int out_kind, void* out, CastCounts* counts, int threads) {
  std::vector<double> chunk_err, chunk_sig;
  std::vector<internal::CastState> partial;
  CastPiece(f, in, n, opt, out_kind, out, counts != nullptr, threads, &chunk_err, &chunk_sig,
            &partial);
  if (counts) *counts = internal::FinishCounts(n, partial, chunk_err, chunk_sig);
}

}  // namespace

void Quantize(const Format& f, const float* in, size_t n, const QuantizeOptions& opt, float* out,
              CastCounts* counts, int threads) {
  CastDriver(f, in, n, opt, 0, out, counts, threads);
}

void PieceQuantizer::Next(const float* in, size_t n, float* out) {
  QuantizeOptions opt = opt_;
  opt.index_offset += done_;
  std::vector<double> err, sig;
  std::vector<internal::CastState> partial;
  CastPiece(format_, in, n, opt, 0, out, /*sums=*/true, threads_, &err, &sig, &partial);
  internal::CastState total;
  for (const internal::CastState& s : partial) total.AddCounts(s);
  totals_.underflow += total.underflow;
  totals_.flushed += total.flushed;
  totals_.subnormal += total.subnormal;
  totals_.overflow += total.overflow;
  totals_.nan_in += total.nan_in;
  totals_.inf_in += total.inf_in;
  totals_.zero_in += total.zero_in;
  chunk_err_.insert(chunk_err_.end(), err.begin(), err.end());
  chunk_sig_.insert(chunk_sig_.end(), sig.begin(), sig.end());
  done_ += n;
}

CastCounts PieceQuantizer::Finish() const {
  CastCounts c = totals_;
  c.numel = done_;
  c.sq_error = PairwiseSum(chunk_err_.data(), chunk_err_.size());
  c.sq_signal = PairwiseSum(chunk_sig_.data(), chunk_sig_.size());
  return c;
}

size_t CodeBytes(const Format& f) {
  const int bits = f.total_bits();
  return bits <= 8 ? 1 : bits <= 16 ? 2 : 4;
}

void Encode(const Format& f, const float* in, size_t n, const QuantizeOptions& opt, void* codes,
            CastCounts* counts, int threads) {
  CastDriver(f, in, n, opt, static_cast<int>(CodeBytes(f)), codes, counts, threads);
}

void Decode(const Format& f, const void* codes, size_t n, float* out, int threads) {
  const internal::CastParams p = internal::MakeCastParams(f, Rounding::kNearestEven, 0, 0, 1.0f);
  const int bytes = static_cast<int>(CodeBytes(f));
  ForEachChunkRange(n, ThreadsFor(n, threads),
                              [&](size_t, size_t c0, size_t c1) {
                                HWY_DYNAMIC_DISPATCH(DecodeRange)(
                                    p, codes, bytes, c0 * kSumChunk,
                                    std::min(n, c1 * kSumChunk), out);
                              });
}

const char* CurrentTargetName() {
  return hwy::TargetName(HWY_DYNAMIC_DISPATCH(CurrentTarget)());
}

}  // namespace simd
}  // namespace lpsim
#endif  // HWY_ONCE
