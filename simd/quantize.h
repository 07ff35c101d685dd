// Fake quantization, encoding and decoding of fp32 tensors, SIMD.
//
// Bit-exact twins of formats/reference.h (QuantizeRef, EncodeScaledRef,
// DecodeRef), dispatched at run time to the best Highway target (SSSE3, SSE4,
// AVX2, AVX3; scalar fallback; simd/targets.h lists and forces them). Inputs
// of at least 2^18 elements per thread are split over up to `threads`
// threads in whole chunks of kSumChunk elements, so results, counts and
// floating sums are identical for any thread count and target
// (docs/simd.md describes how the kernels stay exact).
//
//   CastCounts counts;
//   simd::Quantize(format, x, n, {Rounding::kNearestEven}, y, &counts);
//   std::vector<uint8_t> codes(n * simd::CodeBytes(format));
//   simd::Encode(format, x, n, {}, codes.data(), nullptr);
#ifndef LPSIM_SIMD_QUANTIZE_H_
#define LPSIM_SIMD_QUANTIZE_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "formats/format.h"
#include "formats/reference.h"

namespace lpsim {
namespace simd {

// out[i] = Decode(Encode(in[i] * scale)) * (1 / scale); see QuantizeRef.
// `out` may equal `in`; `counts` may be null. An output of 32 MiB or more
// (not in place) is written with non-temporal stores: it is not left in cache.
void Quantize(const Format& f, const float* in, size_t n, const QuantizeOptions& opt, float* out,
              CastCounts* counts, int threads = 1);

// Quantize over a tensor that arrives a piece at a time (a file read and
// written in pieces): every piece but the last holds a multiple of kSumChunk
// elements, in order. The outputs and Finish()'s counts are bit-identical to
// one Quantize call over the whole tensor (stochastic indices and the fixed
// summation order continue across pieces).
//
//   PieceQuantizer q(format, opt, threads);
//   while (...) q.Next(piece, n, piece);   // in place, like Quantize
//   CastCounts counts = q.Finish();
class PieceQuantizer {
 public:
  PieceQuantizer(const Format& f, const QuantizeOptions& opt, int threads = 1)
      : format_(f), opt_(opt), threads_(threads) {}
  // The next n elements; `out` may equal `in`.
  void Next(const float* in, size_t n, float* out);
  // The counts of everything given so far.
  CastCounts Finish() const;

 private:
  Format format_;
  QuantizeOptions opt_;
  int threads_;
  size_t done_ = 0;
  CastCounts totals_;                          // integer counts
  std::vector<double> chunk_err_, chunk_sig_;  // per kSumChunk chunk, in order
};

// Bytes per code in Encode/Decode arrays: 1 (<= 8 bits), 2 (<= 16), else 4.
size_t CodeBytes(const Format& f);

// codes[i] = Encode(in[i] * scale) as CodeBytes(f)-byte little-endian
// integers. `counts` may be null.
void Encode(const Format& f, const float* in, size_t n, const QuantizeOptions& opt, void* codes,
            CastCounts* counts, int threads = 1);

// out[i] = Decode(codes[i]) = DecodeRef(f, codes[i]). Codes must be valid
// (below 2^total_bits); bits above the format's width are ignored.
void Decode(const Format& f, const void* codes, size_t n, float* out, int threads = 1);

// The Highway target these kernels dispatch to now, e.g. "AVX3".
const char* CurrentTargetName();

}  // namespace simd
}  // namespace lpsim

#endif  // LPSIM_SIMD_QUANTIZE_H_
