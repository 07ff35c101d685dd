// Per-target bodies of simd/quantize.h: whole summation chunks of Quantize /
// Encode, and Decode. Threading and dispatch live in quantize.cc.

#if defined(LPSIM_SIMD_QUANTIZE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef LPSIM_SIMD_QUANTIZE_INL_H_
#undef LPSIM_SIMD_QUANTIZE_INL_H_
#else
#define LPSIM_SIMD_QUANTIZE_INL_H_
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "formats/fixed_sum.h"
#include "hwy/highway.h"
#include "simd/internal/cast-inl.h"
#include "simd/internal/cast_params.h"

HWY_BEFORE_NAMESPACE();
namespace lpsim {
namespace simd {
namespace HWY_NAMESPACE {

template <int kOut, bool kSums>
void CastChunksT(const internal::CastParams& p, const float* in, size_t n, size_t c0, size_t c1,
                 void* out, double* chunk_err, double* chunk_sig, internal::CastState* counts) {
  using OutT = typename OutType<kOut>::T;
  for (size_t c = c0; c < c1; ++c) {
    const size_t begin = c * kSumChunk;
    const size_t len = std::min(kSumChunk, n - begin);
    internal::CastState st;
    CastRangeAny<kOut, kSums, /*kSig=*/true, /*kLaneScale=*/false>(
        p, in + begin, len, begin, static_cast<OutT*>(out) + begin, nullptr, nullptr, &st);
    counts->AddCounts(st);
    if (kSums) {
      chunk_err[c] = ReduceLanes(st.err);
      chunk_sig[c] = ReduceLanes(st.sig);
    }
  }
}

// Casts chunks [c0, c1) of in[0, n). out_kind: 0 floats (Quantize), else the
// code width in bytes (1, 2, 4). With `sums`, chunk totals go to
// chunk_err[c] / chunk_sig[c]; counts are added to *counts either way.
void CastChunks(const internal::CastParams& p, const float* in, size_t n, size_t c0, size_t c1,
                int out_kind, void* out, bool sums, double* chunk_err, double* chunk_sig,
                internal::CastState* counts) {
#define LPSIM_CAST_CHUNKS(KIND)                                                           \
  return sums ? CastChunksT<KIND, true>(p, in, n, c0, c1, out, chunk_err, chunk_sig, counts) \
              : CastChunksT<KIND, false>(p, in, n, c0, c1, out, chunk_err, chunk_sig, counts)
  switch (out_kind) {
    case 0: LPSIM_CAST_CHUNKS(kOutFloat);
    case 1: LPSIM_CAST_CHUNKS(kOutU8);
    case 2: LPSIM_CAST_CHUNKS(kOutU16);
    default: LPSIM_CAST_CHUNKS(kOutU32);
  }
#undef LPSIM_CAST_CHUNKS
}

template <typename CodeT>
void DecodeRangeT(const internal::CastParams& p, const CodeT* HWY_RESTRICT codes, size_t n,
                  float* HWY_RESTRICT out) {
  const DF df;
  const DU du;
  const hn::Rebind<CodeT, DU> dc;
  size_t i = 0;
  for (; i + kNF <= n; i += kNF) {
    VU code;
    if constexpr (sizeof(CodeT) == 4) {
      code = hn::LoadU(du, reinterpret_cast<const uint32_t*>(codes) + i);
    } else {
      code = hn::PromoteTo(du, hn::LoadU(dc, codes + i));
    }
    hn::StoreU(DecodeVec(p, code), df, out + i);
  }
  for (; i < n; ++i) out[i] = DecodeRef(*p.format, codes[i]);
}

void DecodeRange(const internal::CastParams& p, const void* codes, int code_bytes, size_t begin,
                 size_t end, float* out) {
  switch (code_bytes) {
    case 1:
      return DecodeRangeT(p, static_cast<const uint8_t*>(codes) + begin, end - begin, out + begin);
    case 2:
      return DecodeRangeT(p, static_cast<const uint16_t*>(codes) + begin, end - begin, out + begin);
    default:
      return DecodeRangeT(p, static_cast<const uint32_t*>(codes) + begin, end - begin, out + begin);
  }
}

int64_t CurrentTarget() { return HWY_TARGET; }

}  // namespace HWY_NAMESPACE
}  // namespace simd
}  // namespace lpsim
HWY_AFTER_NAMESPACE();

#endif  // include guard toggle
