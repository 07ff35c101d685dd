// Bit views of fp32 values, the one definition every layer uses.
//
//   uint32_t b = BitsOf(x);            // the raw IEEE-754 bits, sign included
//   uint32_t a = AbsBitsOf(x);         // the bits of |x| (sign cleared)
//   float y = FloatOf(0x3f800000u);    // 1.0f
//
// For finite and infinite non-negative values the order of AbsBitsOf is the
// order of the magnitudes, which is what makes integer thresholds work.
// Header-only: formats/ (std only) uses it as well as every layer above.
#ifndef LPSIM_CORE_BITS_H_
#define LPSIM_CORE_BITS_H_

#include <cstdint>
#include <cstring>

namespace lpsim {

inline uint32_t BitsOf(float x) {
  uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

inline uint32_t AbsBitsOf(float x) { return BitsOf(x) & 0x7fffffffu; }

inline float FloatOf(uint32_t bits) {
  float x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

}  // namespace lpsim

#endif  // LPSIM_CORE_BITS_H_
