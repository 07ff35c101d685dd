// Counter-based random bits for stochastic rounding.
//
// The bits for element `index` depend only on (seed, index), so a tensor
// rounds the same way whatever the thread count, SIMD target or chunking.
// The SIMD kernels compute the same function lane by lane (simd/), so this
// header is the single definition both sides follow.
//
//   uint32_t key = StochasticKey(seed);             // once per call
//   uint32_t r = StochasticBits(key, index);        // per element
#ifndef LPSIM_FORMATS_STOCHASTIC_H_
#define LPSIM_FORMATS_STOCHASTIC_H_

#include <cstdint>

namespace lpsim {

// A 32-bit bijective mixer (xor-shift-multiply, "lowbias32" constants); every
// output bit depends on every input bit.
inline uint32_t Mix32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

inline uint32_t StochasticKey(uint64_t seed) {
  return Mix32(static_cast<uint32_t>(seed) ^ 0x9e3779b9u) ^
         Mix32(static_cast<uint32_t>(seed >> 32) ^ 0x85ebca6bu);
}

// Uniform 32-bit value for element `index` (indices up to 2^64).
inline uint32_t StochasticBits(uint32_t key, uint64_t index) {
  return Mix32(Mix32(static_cast<uint32_t>(index) ^ key) + static_cast<uint32_t>(index >> 32));
}

}  // namespace lpsim

#endif  // LPSIM_FORMATS_STOCHASTIC_H_
