// Block floating point with a shared exponent (Tenstorrent bfp8 / bfp4 /
// bfp2): the scalar reference.
//
// A block of `block` consecutive values along a row shares one 8-bit
// exponent; each value keeps a sign and an unsigned magnitude of
// `magnitude_bits` bits that includes the leading one of the largest value
// (Tenstorrent's "bfp8_b": 16 values, 8-bit shared exponent, sign + 7-bit
// mantissa; tenstorrent/tt-metal docs "Data formats"). With E the exponent of
// the block's largest finite |x| (floor(log2), clamped to [-127, 127]; -127
// for an all-zero block) and M = magnitude_bits:
//   m = round(|x| * 2^(M - 1 - E)), clamped to 2^M - 1;  x' = +-m * 2^(E - M + 1)
// so the largest value keeps M significant bits and smaller ones lose the
// bits that fall below the block's grid (they flush to zero when more than
// M + 1 binades below it).
// Assumed (no vendor statement found): ties to even; a rounding carry past
// 2^M - 1 saturates instead of bumping the shared exponent; NaN -> 0 and
// +-Inf -> the largest magnitude of the block, and neither takes part in E.
//
//   BfpFormat f = *ParseBfpFormat("bfp8");
//   std::vector<uint8_t> exps(rows * f.BlocksPerRow(cols));
//   BfpQuantizeRef(f, x, rows, cols, {}, y, exps.data(), &counts);
#ifndef LPSIM_FORMATS_BLOCK_FP_H_
#define LPSIM_FORMATS_BLOCK_FP_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "formats/reference.h"
#include "core/status.h"

namespace lpsim {

struct BfpFormat {
  std::string name;
  int magnitude_bits = 7;  // 1..23, the leading one included
  size_t block = 16;       // values per shared exponent, along a row

  size_t BlocksPerRow(size_t cols) const { return (cols + block - 1) / block; }
  // Largest magnitude relative to 2^E: (2^M - 1) * 2^(1 - M).
  float MaxRelative() const;
  bool operator==(const BfpFormat& o) const {
    return name == o.name && magnitude_bits == o.magnitude_bits && block == o.block;
  }
};

// bfp8 (M = 7), bfp4 (M = 3), bfp2 (M = 1), blocks of 16.
const std::vector<BfpFormat>& BuiltinBfpFormats();
// "bfp8", "bfp4", "bfp2", optionally ":block=N" (N in 1..4096).
StatusOr<BfpFormat> ParseBfpFormat(const std::string& spec);
bool LooksLikeBfpFormat(const std::string& spec);

// The shared exponent E of a block whose largest finite |x| is `amax`;
// stored as the 8-bit field E + 127.
int BfpSharedExponent(float amax);

// One value on a block's grid with shared exponent `e`. `random_bits` is
// used only by stochastic rounding. Flags as in formats/reference.h
// (overflow = the magnitude saturated, underflow = nonzero x became 0).
Encoded BfpEncodeRef(const BfpFormat& f, float x, int e, Rounding rounding, uint32_t random_bits);
// A (sign, magnitude) code from BfpEncodeRef: bit M is the sign.
float BfpDecodeRef(const BfpFormat& f, uint32_t code, int e);

// Fake quantization of a [rows x cols] row-major tensor; blocks run along
// rows (a row's last block may be short). `exps` (may be null) receives the
// shared exponent fields (E + 127), rows * BlocksPerRow(cols) of them.
// opt.scale is ignored. `out` may equal `in`.
void BfpQuantizeRef(const BfpFormat& f, const float* in, size_t rows, size_t cols,
                    const QuantizeOptions& opt, float* out, uint8_t* exps, CastCounts* counts);

}  // namespace lpsim

#endif  // LPSIM_FORMATS_BLOCK_FP_H_
