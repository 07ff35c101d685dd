// The .npy layout that reading (npy_read.cc, internal/npy_header.cc) and
// writing (npy.cc) share: the magic, the alignment, the chunk size. Not part
// of the public API (store/npy.h).
#ifndef LPSIM_STORE_INTERNAL_NPY_FORMAT_H_
#define LPSIM_STORE_INTERNAL_NPY_FORMAT_H_

#include <cstddef>

namespace lpsim::store_internal {

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
inline constexpr bool kHostLittleEndian = false;
#else
inline constexpr bool kHostLittleEndian = true;
#endif

inline constexpr char kMagic[] = "\x93NUMPY";
inline constexpr size_t kMagicLen = 6;
inline constexpr size_t kAlign = 64;  // numpy aligns the data start to 64 bytes since 1.14
// Elements converted per step when the stored type is not float32, so a big
// float64 file does not need a second full-size buffer.
inline constexpr size_t kChunkElems = size_t{1} << 16;
// Real headers are under 64 KiB; more means a corrupt length field (checked
// before the header buffer is allocated when the size is unknown).
inline constexpr size_t kMaxHeaderLen = size_t{1} << 26;

}  // namespace lpsim::store_internal

#endif  // LPSIM_STORE_INTERNAL_NPY_FORMAT_H_
