// The columns of a tensor record: the one list that the run database's
// schema, its writer and reader, and the csv/json exports are all built from,
// so a statistic added here is stored, read back and exported everywhere.
//
// Two tables: kStatsColumns (a record's TensorStats; the stats table) and
// kFormatColumns (one FormatRecord; the format_stats table), each in the
// order of the table's columns and of the exports' fields.
//
//   for (const StatsColumn& c : kStatsColumns) {
//     if (c.type == ColumnType::kCount) std::cout << c.name << " " << c.count(stats) << "\n";
//   }
//
// Derived columns (the quantiles, snr_db) are written for SQL users and the
// exports but not read back: the reader recomputes them from what it read.
#ifndef LPSIM_STORE_RECORD_COLUMNS_H_
#define LPSIM_STORE_RECORD_COLUMNS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/records.h"

namespace lpsim {

enum class ColumnType : uint8_t {
  kCount,   // uint64 element count: SQL INTEGER NOT NULL; never negative, and
            // never above the table's first kCount column (count, numel),
            // which counts all the elements
  kFloat,   // an fp32 value: SQL REAL, exact; NULL stands for NaN
  kDouble,  // a double: SQL REAL; NULL stands for NaN
  kText,    // SQL TEXT NOT NULL
};

// One column of records of type R. Exactly the getter of `type` is set
// (kFloat and kDouble share `real`); setters are null for derived columns.
template <typename R>
struct Column {
  const char* name;
  ColumnType type;
  // kFloat/kDouble: a negative value read back means a corrupt row (std,
  // rms, magnitudes, sums of squares). NaN is always allowed.
  bool non_negative;
  uint64_t (*count)(const R&);
  double (*real)(const R&);  // kFloat values widened exactly
  const std::string& (*text)(const R&);
  void (*set_count)(R&, uint64_t);
  void (*set_real)(R&, double);  // kFloat: narrowed back, exact for stored values
  void (*set_text)(R&, std::string);

  bool derived() const { return !set_count && !set_real && !set_text; }
  const char* SqlType() const {
    return type == ColumnType::kCount ? "INTEGER NOT NULL"
           : type == ColumnType::kText ? "TEXT NOT NULL"
                                       : "REAL";
  }
};

using StatsColumn = Column<TensorStats>;
using FormatColumn = Column<FormatRecord>;

namespace column_internal {

template <typename R>
constexpr Column<R> Count(const char* name, uint64_t (*get)(const R&),
                          void (*set)(R&, uint64_t)) {
  return {name, ColumnType::kCount, true, get, nullptr, nullptr, set, nullptr, nullptr};
}
template <typename R>
constexpr Column<R> Real(const char* name, ColumnType type, bool non_negative,
                         double (*get)(const R&), void (*set)(R&, double)) {
  return {name, type, non_negative, nullptr, get, nullptr, nullptr, set, nullptr};
}
template <typename R>
constexpr Column<R> Text(const char* name, const std::string& (*get)(const R&),
                         void (*set)(R&, std::string)) {
  return {name, ColumnType::kText, false, nullptr, nullptr, get, nullptr, nullptr, set};
}

using S = TensorStats;
using F = FormatRecord;
constexpr ColumnType kF32 = ColumnType::kFloat;
constexpr ColumnType kF64 = ColumnType::kDouble;

}  // namespace column_internal

// The stats table's value columns (after id, tensor_id, step; before the
// histogram blobs and the per-record shape/dtype).
inline constexpr StatsColumn kStatsColumns[] = {
    // clang-format off
    column_internal::Count<column_internal::S>("count",
        [](const TensorStats& s) { return s.count; }, [](TensorStats& s, uint64_t v) { s.count = v; }),
    column_internal::Count<column_internal::S>("zeros",
        [](const TensorStats& s) { return s.zeros; }, [](TensorStats& s, uint64_t v) { s.zeros = v; }),
    column_internal::Count<column_internal::S>("nans",
        [](const TensorStats& s) { return s.nans; }, [](TensorStats& s, uint64_t v) { s.nans = v; }),
    column_internal::Count<column_internal::S>("pos_infs",
        [](const TensorStats& s) { return s.pos_infs; }, [](TensorStats& s, uint64_t v) { s.pos_infs = v; }),
    column_internal::Count<column_internal::S>("neg_infs",
        [](const TensorStats& s) { return s.neg_infs; }, [](TensorStats& s, uint64_t v) { s.neg_infs = v; }),
    column_internal::Real<column_internal::S>("mean", column_internal::kF64, false,
        [](const TensorStats& s) { return s.mean; }, [](TensorStats& s, double v) { s.mean = v; }),
    column_internal::Real<column_internal::S>("std", column_internal::kF64, true,
        [](const TensorStats& s) { return s.std; }, [](TensorStats& s, double v) { s.std = v; }),
    column_internal::Real<column_internal::S>("rms", column_internal::kF64, true,
        [](const TensorStats& s) { return s.rms; }, [](TensorStats& s, double v) { s.rms = v; }),
    column_internal::Real<column_internal::S>("min", column_internal::kF32, false,
        [](const TensorStats& s) { return double{s.min}; },
        [](TensorStats& s, double v) { s.min = static_cast<float>(v); }),
    column_internal::Real<column_internal::S>("max", column_internal::kF32, false,
        [](const TensorStats& s) { return double{s.max}; },
        [](TensorStats& s, double v) { s.max = static_cast<float>(v); }),
    column_internal::Real<column_internal::S>("min_abs", column_internal::kF32, true,
        [](const TensorStats& s) { return double{s.min_abs}; },
        [](TensorStats& s, double v) { s.min_abs = static_cast<float>(v); }),
    column_internal::Real<column_internal::S>("max_abs", column_internal::kF32, true,
        [](const TensorStats& s) { return double{s.max_abs}; },
        [](TensorStats& s, double v) { s.max_abs = static_cast<float>(v); }),
    // Derived from log_hist (TensorStats::Quantile): stored for SQL users.
    column_internal::Real<column_internal::S>("p25", column_internal::kF32, true,
        [](const TensorStats& s) { return double{s.Quantile(0.25)}; }, nullptr),
    column_internal::Real<column_internal::S>("p50", column_internal::kF32, true,
        [](const TensorStats& s) { return double{s.Quantile(0.50)}; }, nullptr),
    column_internal::Real<column_internal::S>("p75", column_internal::kF32, true,
        [](const TensorStats& s) { return double{s.Quantile(0.75)}; }, nullptr),
    column_internal::Real<column_internal::S>("p99", column_internal::kF32, true,
        [](const TensorStats& s) { return double{s.Quantile(0.99)}; }, nullptr),
    // clang-format on
};

// The format_stats table's value columns (after id, stats_id, tensor_id, step).
inline constexpr FormatColumn kFormatColumns[] = {
    // clang-format off
    column_internal::Text<column_internal::F>("format",
        [](const FormatRecord& f) -> const std::string& { return f.format; },
        [](FormatRecord& f, std::string v) { f.format = std::move(v); }),
    column_internal::Text<column_internal::F>("recipe",
        [](const FormatRecord& f) -> const std::string& { return f.recipe; },
        [](FormatRecord& f, std::string v) { f.recipe = std::move(v); }),
    column_internal::Real<column_internal::F>("scale", column_internal::kF32, false,
        [](const FormatRecord& f) { return double{f.scale}; },
        [](FormatRecord& f, double v) { f.scale = static_cast<float>(v); }),
    column_internal::Count<column_internal::F>("numel",
        [](const FormatRecord& f) { return f.counts.numel; },
        [](FormatRecord& f, uint64_t v) { f.counts.numel = v; }),
    column_internal::Count<column_internal::F>("underflow",
        [](const FormatRecord& f) { return f.counts.underflow; },
        [](FormatRecord& f, uint64_t v) { f.counts.underflow = v; }),
    column_internal::Count<column_internal::F>("flushed",
        [](const FormatRecord& f) { return f.counts.flushed; },
        [](FormatRecord& f, uint64_t v) { f.counts.flushed = v; }),
    column_internal::Count<column_internal::F>("subnormal",
        [](const FormatRecord& f) { return f.counts.subnormal; },
        [](FormatRecord& f, uint64_t v) { f.counts.subnormal = v; }),
    column_internal::Count<column_internal::F>("overflow",
        [](const FormatRecord& f) { return f.counts.overflow; },
        [](FormatRecord& f, uint64_t v) { f.counts.overflow = v; }),
    column_internal::Count<column_internal::F>("nan_in",
        [](const FormatRecord& f) { return f.counts.nan_in; },
        [](FormatRecord& f, uint64_t v) { f.counts.nan_in = v; }),
    column_internal::Count<column_internal::F>("inf_in",
        [](const FormatRecord& f) { return f.counts.inf_in; },
        [](FormatRecord& f, uint64_t v) { f.counts.inf_in = v; }),
    column_internal::Count<column_internal::F>("zero_in",
        [](const FormatRecord& f) { return f.counts.zero_in; },
        [](FormatRecord& f, uint64_t v) { f.counts.zero_in = v; }),
    column_internal::Real<column_internal::F>("sq_error", column_internal::kF64, true,
        [](const FormatRecord& f) { return f.counts.sq_error; },
        [](FormatRecord& f, double v) { f.counts.sq_error = v; }),
    column_internal::Real<column_internal::F>("sq_signal", column_internal::kF64, true,
        [](const FormatRecord& f) { return f.counts.sq_signal; },
        [](FormatRecord& f, double v) { f.counts.sq_signal = v; }),
    // Derived from sq_signal / sq_error (CastCounts::SnrDb).
    column_internal::Real<column_internal::F>("snr_db", column_internal::kF64, false,
        [](const FormatRecord& f) { return f.counts.SnrDb(); }, nullptr),
    // clang-format on
};

// The column of `name`, or null.
template <typename R, size_t N>
constexpr const Column<R>* FindColumn(const Column<R> (&columns)[N], const char* name) {
  for (const Column<R>& c : columns) {
    if (std::string_view(c.name) == name) return &c;
  }
  return nullptr;
}

}  // namespace lpsim

#endif  // LPSIM_STORE_RECORD_COLUMNS_H_
