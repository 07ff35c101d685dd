#include "store/npy.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "core/output.h"
#include "store/internal/npy_format.h"

// Reading lives in npy_read.cc (the header dict in internal/npy_header.cc);
// this file holds the shared names and the writer.
namespace lpsim {
namespace {

using store_internal::kAlign;
using store_internal::kChunkElems;
using store_internal::kHostLittleEndian;
using store_internal::kMagic;
using store_internal::kMagicLen;

std::string HeaderBytes(const std::vector<size_t>& shape) {
  std::string dict =
      "{'descr': '<f4', 'fortran_order': False, 'shape': " + ShapeToString(shape) + ", }";
  // Magic (6) + version (2) + length (2 or 4) + dict + padding + '\n'.
  size_t prefix = kMagicLen + 2 + 2;
  auto padded = [&](size_t pre) {
    const size_t used = pre + dict.size() + 1;
    return dict.size() + 1 + (kAlign - used % kAlign) % kAlign;
  };
  size_t len = padded(prefix);
  int major = 1;
  if (len > 0xffff) {  // only for absurd ranks: 2.0 has a 4-byte length
    major = 2;
    prefix += 2;
    len = padded(prefix);
  }
  std::string out(kMagic, kMagicLen);
  out += static_cast<char>(major);
  out += '\0';
  for (int i = 0; i < (major == 1 ? 2 : 4); ++i) out += static_cast<char>((len >> (8 * i)) & 0xff);
  out += dict;
  out.append(len - dict.size() - 1, ' ');
  out += '\n';
  return out;
}

// Appends n floats as little-endian bytes.
void AppendFloats(const float* data, size_t n, std::string* out) {
  const size_t start = out->size();
  out->resize(start + n * 4);
  if (n) std::memcpy(&(*out)[start], data, n * 4);
  if (!kHostLittleEndian) {
    for (size_t i = 0; i < n; ++i) {
      uint32_t bits;
      std::memcpy(&bits, data + i, 4);
      for (size_t b = 0; b < 4; ++b) (*out)[start + 4 * i + b] = static_cast<char>(bits >> (8 * b));
    }
  }
}

}  // namespace

const char kNpyUnsupportedDtype[] = "unsupported dtype";

const char* ToString(NpyDtype d) {
  switch (d) {
    case NpyDtype::kFloat16:
      return "float16";
    case NpyDtype::kFloat32:
      return "float32";
    case NpyDtype::kFloat64:
      return "float64";
  }
  return "?";
}

size_t NumElements(const std::vector<size_t>& shape) {
  size_t n = 1;
  for (size_t d : shape) n *= d;
  return n;
}

std::string ShapeToString(const std::vector<size_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

std::string EncodeNpy(const std::vector<size_t>& shape, const float* data) {
  std::string out = HeaderBytes(shape);
  AppendFloats(data, NumElements(shape), &out);
  return out;
}

std::string EncodeNpyHeader(const std::vector<size_t>& shape) { return HeaderBytes(shape); }

Status WriteNpyFloats(OutputSink& out, const float* data, size_t n) {
  if (kHostLittleEndian) return n > 0 ? out.Write(data, n * sizeof(float)) : Status();
  Status s;
  std::string chunk;
  for (size_t i = 0; s.ok() && i < n; i += kChunkElems) {
    chunk.clear();
    AppendFloats(data + i, std::min(kChunkElems, n - i), &chunk);
    s = out.Write(chunk.data(), chunk.size());
  }
  return s;
}

Status WriteNpy(const std::string& path, const std::vector<size_t>& shape, const float* data) {
  return WriteOutput(path, [&](OutputSink& out) {
    const std::string header = HeaderBytes(shape);
    Status s = out.Write(header.data(), header.size());
    if (s.ok()) s = WriteNpyFloats(out, data, NumElements(shape));
    return s;
  });
}

}  // namespace lpsim
