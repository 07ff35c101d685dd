#include "store/internal/npy_header.h"

#include <cctype>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace lpsim::store_internal {
namespace {

constexpr char kSupported[] =
    "lpsim reads float32 '<f4', float16 '<f2' and float64 '<f8' (little-endian, C order)";

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

class HeaderParser {
 public:
  explicit HeaderParser(const std::string& text) : s_(text) {}

  Status Parse(NpyHeader* h) {
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

}  // namespace

Status ParseNpyHeader(const std::string& text, NpyHeader* h) { return HeaderParser(text).Parse(h); }

Status CheckNpyDescr(const std::string& descr, NpyDtype* dtype, size_t* item_size) {
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

}  // namespace lpsim::store_internal
