// Reading .npy files (store/npy.h): one strict decoder over a byte source,
// memory (ParseNpy) or a file (ReadNpy), converting to fp32 as it reads.
#include <sys/stat.h>  // fstat: the size check before allocating

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "core/bits.h"
#include "store/internal/npy_format.h"
#include "store/internal/npy_header.h"
#include "store/npy.h"

namespace lpsim {
namespace {

using store_internal::CheckNpyDescr;
using store_internal::kChunkElems;
using store_internal::kHostLittleEndian;
using store_internal::kMagic;
using store_internal::kMagicLen;
using store_internal::kMaxHeaderLen;
using store_internal::NpyHeader;
using store_internal::ParseNpyHeader;

uint32_t LoadLe(const uint8_t* p, int n) {
  uint32_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// IEEE binary16 bits -> fp32, exact (every half is an fp32 value). NaN
// payloads are kept in the top mantissa bits, so quiet stays quiet.
float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t mant = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else if (exp != 0) {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);  // rebias 15 -> 127
  } else if (mant == 0) {
    bits = sign;
  } else {
    // Subnormal mant * 2^-24: shift the leading one up to the implicit bit,
    // lowering the exponent once per shift.
    int e = 127 - 15 + 1;
    uint32_t m = mant;
    while ((m & 0x400u) == 0) {
      m <<= 1;
      --e;
    }
    bits = sign | (static_cast<uint32_t>(e) << 23) | ((m & 0x3ffu) << 13);
  }
  return FloatOf(bits);
}

bool MulOverflows(size_t a, size_t b, size_t* out) {
  if (a != 0 && b > std::numeric_limits<size_t>::max() / a) return true;
  *out = a * b;
  return false;
}

// Where the bytes come from: memory (ParseNpy) or a file (ReadNpy), so both
// share one decoder and a big file is never held twice.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to n bytes; fewer only at the end or on an error.
  virtual size_t Read(void* dst, size_t n) = 0;
  // Empty unless a read failed for a reason other than the end of the data.
  virtual std::string error() const { return ""; }
  // Bytes left, when that is known (not for pipes).
  virtual std::optional<size_t> Remaining() const = 0;
};

class MemorySource : public ByteSource {
 public:
  MemorySource(const void* p, size_t n) : p_(static_cast<const uint8_t*>(p)), n_(n) {}
  size_t Read(void* dst, size_t n) override {
    const size_t k = n < n_ - pos_ ? n : n_ - pos_;
    if (k) std::memcpy(dst, p_ + pos_, k);
    pos_ += k;
    return k;
  }
  std::optional<size_t> Remaining() const override { return n_ - pos_; }

 private:
  const uint8_t* p_;
  size_t n_;
  size_t pos_ = 0;
};

class FileSource : public ByteSource {
 public:
  explicit FileSource(std::FILE* f) : f_(f) {}
  size_t Read(void* dst, size_t n) override {
    const size_t k = n ? std::fread(dst, 1, n, f_) : 0;
    if (k < n && std::ferror(f_)) error_ = std::strerror(errno);
    return k;
  }
  std::string error() const override { return error_; }
  std::optional<size_t> Remaining() const override {
    struct stat st;
    if (::fstat(::fileno(f_), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
    const long pos = std::ftell(f_);
    if (pos < 0 || static_cast<uint64_t>(st.st_size) < static_cast<uint64_t>(pos)) {
      return std::nullopt;
    }
    return static_cast<size_t>(static_cast<uint64_t>(st.st_size) - static_cast<uint64_t>(pos));
  }

 private:
  std::FILE* f_;
  std::string error_;
};

// Counts what is left, for the "trailing bytes" message.
size_t Drain(ByteSource* src) {
  uint8_t buf[4096];
  size_t total = 0, k;
  while ((k = src->Read(buf, sizeof buf)) > 0) total += k;
  return total;
}

Status ReadError(ByteSource* src) { return Status::Error("read failed: " + src->error()); }

StatusOr<NpyArray> Decode(ByteSource* src, size_t piece_elems = 0,
                          const NpyPieceFn* piece = nullptr) {
  // 1. Magic and version.
  uint8_t pre[12];
  size_t got = src->Read(pre, 8);
  if (!src->error().empty()) return ReadError(src);
  if (got == 0) return Status::Error("empty file: not a .npy file; write arrays with numpy.save");
  if (got < kMagicLen || std::memcmp(pre, kMagic, kMagicLen) != 0) {
    return Status::Error(
        "not a .npy file (bad magic: it does not start with \\x93NUMPY); write arrays with "
        "numpy.save(path, arr)");
  }
  if (got < 8) return Status::Error("truncated header: the file ends inside the version bytes");
  const int major = pre[6], minor = pre[7];
  if ((major != 1 && major != 2 && major != 3) || minor != 0) {
    return Status::Error("unsupported .npy version " + std::to_string(major) + "." +
                         std::to_string(minor) + "; lpsim reads versions 1.0, 2.0 and 3.0");
  }
  // 2. Header length: 2 bytes in 1.0, 4 bytes from 2.0 on.
  const int len_bytes = major == 1 ? 2 : 4;
  got = src->Read(pre + 8, static_cast<size_t>(len_bytes));
  if (!src->error().empty()) return ReadError(src);
  if (got < static_cast<size_t>(len_bytes)) {
    return Status::Error("truncated header: the file ends inside the header length");
  }
  const size_t header_len = LoadLe(pre + 8, len_bytes);
  const std::optional<size_t> header_rest = src->Remaining();
  if ((header_rest && *header_rest < header_len) || header_len > kMaxHeaderLen) {
    return Status::Error(
        "truncated header: it should be " + std::to_string(header_len) + " bytes but the file " +
        (header_rest ? "has only " + std::to_string(*header_rest) + " left" : "is not that long") +
        "; the file was cut short, write it again");
  }
  std::string text(header_len, '\0');
  got = src->Read(text.data(), header_len);
  if (!src->error().empty()) return ReadError(src);
  if (got < header_len) {
    return Status::Error("truncated header: it should be " + std::to_string(header_len) +
                         " bytes but the file ends after " + std::to_string(got) +
                         "; the file was cut short, write it again");
  }
  // 3. The dict. 1.0/2.0 headers are latin-1 and 3.0 ones utf-8, but a header
  // lpsim can use is plain ASCII either way.
  NpyHeader h;
  Status st = ParseNpyHeader(text, &h);
  if (!st.ok()) return st;
  NpyArray out;
  size_t item_size = 0;
  st = CheckNpyDescr(h.descr, &out.source_dtype, &item_size);
  if (!st.ok()) return st;
  if (h.fortran_order) {
    return Status::Error(
        "Fortran-order arrays (fortran_order: True) are not supported; lpsim reads C order: "
        "save numpy.ascontiguousarray(arr) instead");
  }
  // 4. Sizes, checked before anything is allocated.
  if (h.shape.size() > kNpyMaxDims) {
    return Status::Error("the array has " + std::to_string(h.shape.size()) +
                         " dimensions; lpsim reads at most " + std::to_string(kNpyMaxDims) +
                         " (numpy's own limit, NPY_MAXDIMS, before numpy 2)");
  }
  size_t numel = 1, data_bytes = 0;
  for (size_t d : h.shape) {
    if (MulOverflows(numel, d, &numel)) {
      return Status::Error("shape " + ShapeToString(h.shape) + " has too many elements");
    }
  }
  if (MulOverflows(numel, item_size, &data_bytes)) {
    return Status::Error("shape " + ShapeToString(h.shape) + " has too many elements");
  }
  const std::string what = "shape " + ShapeToString(h.shape) + " " + ToString(out.source_dtype) +
                           " needs " + std::to_string(data_bytes) + " data bytes";
  auto truncated = [&](size_t have) {
    return Status::Error("truncated data: " + what + " but only " + std::to_string(have) +
                         " follow the header; the file was cut short, write it again");
  };
  auto trailing = [&](size_t extra) {
    return Status::Error(std::to_string(extra) + " unexpected bytes after the data (" + what +
                         "); the header does not match the data, write the file again with "
                         "numpy.save");
  };
  out.shape = h.shape;
  // 5. When the size of the rest is known, check it before allocating, so a
  // header that claims a huge shape over a short file fails as truncated.
  const std::optional<size_t> rest = src->Remaining();
  if (rest && *rest < data_bytes) return truncated(*rest);
  if (rest && *rest > data_bytes) return trailing(*rest - data_bytes);
  // 6. Data, converted to fp32 a chunk at a time (one path for every dtype;
  // the extra copy for float32 costs nothing next to the read).
  try {
    if (kHostLittleEndian && out.source_dtype == NpyDtype::kFloat32 && rest) {
      // The common case: the file's bytes are the array's, read in place
      // (an element loop here cost 15 ns per element, more than the cast).
      out.data.resize(numel);
      const size_t step = piece != nullptr && piece_elems > 0 ? piece_elems : numel;
      size_t at = 0;
      do {
        const size_t len = std::min(step, numel - at);
        const size_t k = len ? src->Read(out.data.data() + at, len * sizeof(float)) : 0;
        if (!src->error().empty()) return ReadError(src);
        if (k < len * sizeof(float)) return truncated(at * sizeof(float) + k);
        if (piece != nullptr) {
          Status ps = (*piece)(out.shape, out.data.data(), at, at + len);
          if (!ps.ok()) return ps;
        }
        at += len;
      } while (at < numel);
      const size_t extra = Drain(src);
      if (!src->error().empty()) return ReadError(src);
      if (extra > 0) return trailing(extra);
      return out;
    }
    if (rest) out.data.reserve(numel);
    std::vector<uint8_t> buf(std::min(numel, kChunkElems) * item_size);
    size_t have = 0;
    for (size_t i = 0; i < numel;) {
      const size_t n = std::min(numel - i, kChunkElems);
      const size_t k = src->Read(buf.data(), n * item_size);
      if (!src->error().empty()) return ReadError(src);
      have += k;
      if (k < n * item_size) return truncated(have);
      for (size_t j = 0; j < n; ++j) {
        const uint8_t* p = buf.data() + j * item_size;
        if (out.source_dtype == NpyDtype::kFloat32) {
          out.data.push_back(FloatOf(LoadLe(p, 4)));
        } else if (out.source_dtype == NpyDtype::kFloat16) {
          out.data.push_back(HalfToFloat(static_cast<uint16_t>(LoadLe(p, 2))));
        } else {
          const uint64_t bits = LoadLe(p, 4) | static_cast<uint64_t>(LoadLe(p + 4, 4)) << 32;
          double d;
          std::memcpy(&d, &bits, sizeof d);
          out.data.push_back(static_cast<float>(d));  // one rounding, to nearest even
        }
      }
      i += n;
    }
  } catch (const std::bad_alloc&) {
    return Status::Error("out of memory reading " + what);
  }
  // 7. Nothing may follow: extra bytes mean the header does not describe the
  // file (only reachable when the size was not known up front).
  const size_t extra = Drain(src);
  if (!src->error().empty()) return ReadError(src);
  if (extra > 0) return trailing(extra);
  if (piece != nullptr) {
    Status ps = (*piece)(out.shape, out.data.data(), 0, out.data.size());
    if (!ps.ok()) return ps;
  }
  return out;
}

}  // namespace

StatusOr<NpyArray> ParseNpy(const void* bytes, size_t size) {
  MemorySource src(bytes, size);
  return Decode(&src);
}

namespace {

StatusOr<NpyArray> ReadNpyFile(const std::string& path, size_t piece_elems,
                               const NpyPieceFn* piece) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) {
    return Status::Error(path + ": cannot open: " + std::strerror(errno) +
                         "; check the path and permissions");
  }
  FileSource src(f);
  Status piece_status;  // a piece's own failure is returned unchanged
  NpyPieceFn wrapped;
  if (piece != nullptr) {
    wrapped = [&](const std::vector<size_t>& shape, float* data, size_t b, size_t e) {
      piece_status = (*piece)(shape, data, b, e);
      return piece_status;
    };
  }
  StatusOr<NpyArray> a = Decode(&src, piece_elems, piece != nullptr ? &wrapped : nullptr);
  std::fclose(f);
  if (!piece_status.ok()) return piece_status;
  if (!a.ok()) return Status::Error(path + ": " + a.status().message());
  return a;
}

}  // namespace

StatusOr<NpyArray> ReadNpy(const std::string& path) { return ReadNpyFile(path, 0, nullptr); }

StatusOr<NpyArray> ReadNpy(const std::string& path, size_t piece_elems, const NpyPieceFn& piece) {
  return ReadNpyFile(path, piece_elems, &piece);
}

}  // namespace lpsim
