#include "store/internal/row_check.h"

#include <cfloat>
#include <cmath>
#include <cstdio>

namespace lpsim::store_internal {
namespace {

// Longest text quoted in a message.
constexpr size_t kMaxQuoted = 40;

std::string Holds(const char* column, const Stmt& st, int i, const char* wanted) {
  return std::string("column ") + column + " holds " + DescribeValue(st, i) + " where " + wanted +
         " belongs";
}

}  // namespace

std::string DescribeValue(const Stmt& st, int i) {
  switch (st.Type(i)) {
    case SQLITE_NULL: return "NULL";
    case SQLITE_INTEGER: return std::to_string(st.Int(i));
    case SQLITE_FLOAT: {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.17g", st.Real(i));
      return buf;
    }
    case SQLITE_TEXT: {
      const std::string text = st.Text(i);
      std::string out = "text '";
      for (size_t k = 0; k < text.size() && k < kMaxQuoted; ++k) {
        const unsigned char c = static_cast<unsigned char>(text[k]);
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
      }
      return out + (text.size() > kMaxQuoted ? "...'" : "'");
    }
    default: return "a blob of " + std::to_string(st.Blob(i).size()) + " bytes";
  }
}

std::string IntegerProblem(const Stmt& st, int i, const char* column, bool nullable) {
  const int type = st.Type(i);
  if (type == SQLITE_INTEGER || (nullable && type == SQLITE_NULL)) return "";
  return Holds(column, st, i, nullable ? "an integer or NULL" : "an integer");
}

std::string TextProblem(const Stmt& st, int i, const char* column, bool nullable) {
  const int type = st.Type(i);
  if (type == SQLITE_TEXT || (nullable && type == SQLITE_NULL)) return "";
  return Holds(column, st, i, nullable ? "text or NULL" : "text");
}

std::string BlobProblem(const Stmt& st, int i, const char* column) {
  if (st.Type(i) == SQLITE_BLOB) return "";
  return Holds(column, st, i, "a blob");
}

std::string RealProblem(const Stmt& st, int i, const char* column, bool non_negative, bool fp32) {
  const int type = st.Type(i);
  if (type == SQLITE_NULL) return "";  // NaN
  if (type != SQLITE_FLOAT && type != SQLITE_INTEGER) return Holds(column, st, i, "a number");
  const double v = st.Real(i);
  if (non_negative && v < 0) {
    return std::string("column ") + column + " holds " + DescribeValue(st, i) +
           ": it cannot be negative";
  }
  if (fp32 && std::isfinite(v) && std::fabs(v) > FLT_MAX) {
    return std::string("column ") + column + " holds " + DescribeValue(st, i) +
           ", outside the fp32 range of the value it stores";
  }
  return "";
}

}  // namespace lpsim::store_internal
