// Checks of the values a run database row holds, for RunReader: SQLite keeps
// whatever a program inserts (text in an INTEGER column, a negative count), so
// every value read is checked against what lpsim writes before it is used.
// Each check returns "" for a valid value, else what is wrong in words:
//
//   std::string p = IntegerProblem(st, 1, "step");
//   if (!p.empty()) return Corrupt("stats", id, p);  // "column step holds text 'x', ..."
#ifndef LPSIM_STORE_INTERNAL_ROW_CHECK_H_
#define LPSIM_STORE_INTERNAL_ROW_CHECK_H_

#include <cstddef>
#include <string>

#include "store/internal/statement.h"
#include "store/record_columns.h"

namespace lpsim::store_internal {

// The value at result column i for a message: NULL, 12, -0.5, text 'abc'
// (control characters escaped, long text cut), a blob of 12 bytes.
std::string DescribeValue(const Stmt& st, int i);

// An INTEGER (NULL allowed only when nullable).
std::string IntegerProblem(const Stmt& st, int i, const char* column, bool nullable = false);
// TEXT (NULL allowed only when nullable).
std::string TextProblem(const Stmt& st, int i, const char* column, bool nullable = false);
// A BLOB (a zero-length one included).
std::string BlobProblem(const Stmt& st, int i, const char* column);
// A value of column c: a count is a non-negative INTEGER; a real is REAL or
// NULL (NaN), not negative when c.non_negative, within the fp32 range for
// kFloat columns; text is TEXT.
template <typename R>
std::string ColumnProblem(const Column<R>& c, const Stmt& st, int i);

// After reading a record's columns: every count no larger than the first
// count column (the number of elements).
template <typename R, size_t N>
std::string CountBoundProblem(const Column<R> (&columns)[N], const R& r) {
  const Column<R>* total = nullptr;
  for (const Column<R>& c : columns) {
    if (c.type != ColumnType::kCount) continue;
    if (!total) {
      total = &c;
    } else if (c.count(r) > total->count(r)) {
      return std::string("column ") + c.name + " holds " + std::to_string(c.count(r)) +
             ", more than the " + std::to_string(total->count(r)) + " elements of column " +
             total->name;
    }
  }
  return "";
}

std::string RealProblem(const Stmt& st, int i, const char* column, bool non_negative, bool fp32);

template <typename R>
std::string ColumnProblem(const Column<R>& c, const Stmt& st, int i) {
  switch (c.type) {
    case ColumnType::kCount: {
      std::string p = IntegerProblem(st, i, c.name);
      if (p.empty() && st.Int(i) < 0) {
        p = std::string("column ") + c.name + " holds " + std::to_string(st.Int(i)) +
            ": a count cannot be negative";
      }
      return p;
    }
    case ColumnType::kFloat:
    case ColumnType::kDouble:
      return RealProblem(st, i, c.name, c.non_negative, c.type == ColumnType::kFloat);
    case ColumnType::kText: return TextProblem(st, i, c.name);
  }
  return "";
}

}  // namespace lpsim::store_internal

#endif  // LPSIM_STORE_INTERNAL_ROW_CHECK_H_
