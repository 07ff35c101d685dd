#include "store/npy.h"

#include <sys/stat.h>  // fstat: the size check before allocating

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/bits.h"
#include "core/output.h"

namespace lpsim {
namespace {

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
constexpr bool kHostLittleEndian = false;
#else
constexpr bool kHostLittleEndian = true;
#endif

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;
constexpr size_t kAlign = 64;  // numpy aligns the data start to 64 bytes since 1.14
// Elements converted per step when the stored type is not float32, so a big
// float64 file does not need a second full-size buffer.
constexpr size_t kChunkElems = size_t{1} << 16;
// Real headers are under 64 KiB; more means a corrupt length field (checked
// before the header buffer is allocated when the size is unknown).
constexpr size_t kMaxHeaderLen = size_t{1} << 26;

constexpr char kSupported[] =
    "lpsim reads float32 '<f4', float16 '<f2' and float64 '<f8' (little-endian, C order)";

}  // namespace

const char kNpyUnsupportedDtype[] = "unsupported dtype";

namespace {

// Header text quoted for a one-line message, the way Python's repr() would
// pick the quotes; non-printable bytes as \xNN.
std::string Quote(const std::string& s, size_t max_len = 100) {
  const char q = s.find('\'') != std::string::npos && s.find('"') == std::string::npos ? '"' : '\'';
  std::string out(1, q);
  for (size_t i = 0; i < s.size() && i < max_len; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f && c != q) {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  if (s.size() > max_len) out += "...";
  return out + q;
}

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

// ---- Header dict: the Python literal numpy writes, e.g.
// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
struct Header {
  std::string descr;
  bool fortran_order = false;
  std::vector<size_t> shape;
};

class HeaderParser {
 public:
  explicit HeaderParser(const std::string& text) : s_(text) {}

  Status Parse(Header* h) {
    SkipSpace();
    if (!Eat('{')) return Fail("it does not start with '{'");
    bool seen_descr = false, seen_order = false, seen_shape = false;
    while (true) {
      SkipSpace();
      if (Eat('}')) break;
      std::string key;
      if (!ParseString(&key)) return Fail("expected a quoted key");
      SkipSpace();
      if (!Eat(':')) return Fail("expected ':' after key " + Quote(key));
      SkipSpace();
      if (key == "descr") {
        if (seen_descr) return Fail("key 'descr' appears twice");
        seen_descr = true;
        if (Peek() == '[') {
          return Status::Error(
              "unsupported dtype: a structured (record) array; " + std::string(kSupported) +
              ": save one field at a time, e.g. numpy.save(path, arr['x'].astype('<f4'))");
        }
        if (!ParseString(&h->descr)) return Fail("'descr' must be a quoted dtype string");
      } else if (key == "fortran_order") {
        if (seen_order) return Fail("key 'fortran_order' appears twice");
        seen_order = true;
        if (EatWord("True")) {
          h->fortran_order = true;
        } else if (EatWord("False")) {
          h->fortran_order = false;
        } else {
          return Fail("'fortran_order' must be True or False");
        }
      } else if (key == "shape") {
        if (seen_shape) return Fail("key 'shape' appears twice");
        seen_shape = true;
        Status st = ParseShape(&h->shape);
        if (!st.ok()) return st;
      } else {
        return Fail("unknown key " + Quote(key) +
                    " (a .npy header has exactly 'descr', 'fortran_order' and 'shape')");
      }
      SkipSpace();
      if (Eat(',')) continue;
      if (Eat('}')) break;
      return Fail("expected ',' or '}' after the value of " + Quote(key));
    }
    SkipSpace();
    if (pos_ != s_.size()) return Fail("unexpected text after the closing '}'");
    if (!seen_descr) return Fail("key 'descr' is missing");
    if (!seen_order) return Fail("key 'fortran_order' is missing");
    if (!seen_shape) return Fail("key 'shape' is missing");
    return Status();
  }

 private:
  Status Fail(const std::string& what) const {
    std::string text = s_;  // without the padding, which only makes the message long
    while (!text.empty() && (text.back() == ' ' || text.back() == '\n')) text.pop_back();
    return Status::Error("malformed header dict " + Quote(text) + ": " + what + " (at offset " +
                         std::to_string(pos_) + "); write the file with numpy.save");
  }
  char Peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  bool Eat(char c) {
    if (Peek() != c) return false;
    ++pos_;
    return true;
  }
  bool EatWord(const char* w) {
    const size_t n = std::strlen(w);
    if (s_.compare(pos_, n, w) != 0) return false;
    const size_t end = pos_ + n;
    if (end < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[end])) || s_[end] == '_')) {
      return false;
    }
    pos_ = end;
    return true;
  }
  void SkipSpace() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) {
      ++pos_;
    }
  }
  // A Python string literal without escapes (numpy never writes any).
  bool ParseString(std::string* out) {
    const char q = Peek();
    if (q != '\'' && q != '"') return false;
    const size_t end = s_.find(q, pos_ + 1);
    if (end == std::string::npos) return false;
    std::string v = s_.substr(pos_ + 1, end - pos_ - 1);
    if (v.find('\\') != std::string::npos || v.find('\n') != std::string::npos) return false;
    *out = std::move(v);
    pos_ = end + 1;
    return true;
  }
  // A tuple of non-negative ints: (), (3,), (2, 3) or (2, 3,). Python 2
  // writers appended 'L' to long ints.
  Status ParseShape(std::vector<size_t>* shape) {
    if (!Eat('(')) return Fail("'shape' must be a tuple like (2, 3)");
    shape->clear();
    bool trailing_comma = false;
    while (true) {
      SkipSpace();
      if (Eat(')')) break;
      if (!shape->empty() && !trailing_comma) return Fail("expected ',' between shape entries");
      if (!std::isdigit(static_cast<unsigned char>(Peek()))) {
        return Fail("shape entries must be non-negative integers");
      }
      size_t v = 0;
      while (std::isdigit(static_cast<unsigned char>(Peek()))) {
        const size_t d = static_cast<size_t>(s_[pos_] - '0');
        if (v > (std::numeric_limits<size_t>::max() - d) / 10) {
          return Fail("a shape entry is too large");
        }
        v = v * 10 + d;
        ++pos_;
      }
      Eat('L');
      shape->push_back(v);
      SkipSpace();
      trailing_comma = Eat(',');
    }
    if (shape->size() == 1 && !trailing_comma) {
      return Fail("'shape' (" + std::to_string((*shape)[0]) + ") is not a tuple; a 1-d shape is (" +
                  std::to_string((*shape)[0]) + ",)");
    }
    return Status();
  }

  const std::string& s_;
  size_t pos_ = 0;
};

// What a descr names, for messages: '<i4' -> "int32".
std::string DescribeDescr(const std::string& d) {
  if (d.size() < 2) return "";
  size_t k = (d[0] == '<' || d[0] == '>' || d[0] == '|' || d[0] == '=') ? 1 : 0;
  const char kind = d[k];
  int bytes = 0;
  for (size_t i = k + 1; i < d.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(d[i])) || bytes > 1000) return "";
    bytes = bytes * 10 + (d[i] - '0');
  }
  const std::string bits = std::to_string(bytes * 8);
  switch (kind) {
    case 'i':
      return "int" + bits;
    case 'u':
      return "uint" + bits;
    case 'f':
      return bytes == 16 ? "longdouble" : "float" + bits;
    case 'c':
      return "complex" + bits;
    case 'b':
      return "bool";
    case 'O':
      return "Python objects";
    case 'U':
      return "unicode strings";
    case 'S':
      return "byte strings";
    case 'V':
      return "raw bytes";
    case 'M':
      return "datetime64";
    case 'm':
      return "timedelta64";
  }
  return "";
}

Status CheckDescr(const std::string& descr, NpyDtype* dtype, size_t* item_size) {
  if (descr == "<f4") {
    *dtype = NpyDtype::kFloat32, *item_size = 4;
  } else if (descr == "<f2") {
    *dtype = NpyDtype::kFloat16, *item_size = 2;
  } else if (descr == "<f8") {
    *dtype = NpyDtype::kFloat64, *item_size = 8;
  } else if (descr == ">f2" || descr == ">f4" || descr == ">f8") {
    return Status::Error("big-endian data (dtype " + Quote(descr) + ") is not supported; " +
                         kSupported + ": convert with arr.astype('<" + descr.substr(1) + "')");
  } else {
    const std::string what = DescribeDescr(descr);
    return Status::Error(kNpyUnsupportedDtype + (" " + Quote(descr)) +
                         (what.empty() ? "" : " (" + what + ")") + "; " + kSupported +
                         ": convert with arr.astype(numpy.float32)");
  }
  return Status();
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
  got = src->Read(pre + 8, len_bytes);
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
  Header h;
  Status st = HeaderParser(text).Parse(&h);
  if (!st.ok()) return st;
  NpyArray out;
  size_t item_size = 0;
  st = CheckDescr(h.descr, &out.source_dtype, &item_size);
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
      for (int b = 0; b < 4; ++b) (*out)[start + 4 * i + b] = static_cast<char>(bits >> (8 * b));
    }
  }
}

}  // namespace

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
