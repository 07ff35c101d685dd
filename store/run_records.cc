// RunReader's tensor records (store/run_db.h): the stats rows joined with
// their tensors and format_stats rows, every value checked before it is used.
#include <sqlite3.h>

#include <exception>
#include <string>

#include "store/internal/reader_impl.h"
#include "store/internal/record_codec.h"
#include "store/internal/row_check.h"
#include "store/internal/schema.h"
#include "store/record_columns.h"
#include "store/run_db.h"

namespace lpsim {

using store_internal::ParseRecordRole;
using store_internal::Quoted;
using store_internal::Stmt;

namespace {

// Checks and reads the stored (not derived) columns of `columns` from st,
// starting at result column `first`, into r: the first problem, or "".
template <typename R, size_t N>
std::string ReadColumns(const Column<R> (&columns)[N], const Stmt& st, int first, R& r) {
  int i = first;
  for (const Column<R>& c : columns) {
    if (c.derived()) continue;
    std::string problem = store_internal::ColumnProblem(c, st, i);
    if (!problem.empty()) return problem;
    switch (c.type) {
      case ColumnType::kCount: c.set_count(r, st.UInt(i)); break;
      case ColumnType::kFloat:
      case ColumnType::kDouble: c.set_real(r, st.Real(i)); break;
      case ColumnType::kText: c.set_text(r, st.Text(i)); break;
    }
    ++i;
  }
  return store_internal::CountBoundProblem(columns, r);
}

}  // namespace

Status RunReader::ForEachRecord(const RecordFilter& filter,
                                const std::function<Status(TensorRecord&&)>& fn) const {
  try {
    using store_internal::TextProblem;
    // Result columns: 0 s.id, 1 s.step, 2 t.id, 3 t.name, 4 t.role,
    // 5 t.module_type, 6 s.shape, 7 t.shape, 8 s.dtype, 9 t.dtype, then the
    // stored stats columns, then the two histograms and the sample summary
    // (NULL in a version 1 database, which has no such column).
    constexpr int kFirstStat = 10;
    const std::string records_sql =
        "SELECT s.id, s.step, t.id, t.name, t.role, t.module_type, s.shape, t.shape, s.dtype, "
        "t.dtype, " +
        store_internal::StoredStatsColumnList("s.") + ", s.exponent_hist, s.log_hist, " +
        (impl_->schema_version_ >= 2 ? "s.samples " : "NULL ") +
        "FROM stats s JOIN tensors t ON t.id = s.tensor_id "
        "WHERE s.step BETWEEN ?1 AND ?2 AND (?3 IS NULL OR t.name = ?3) "
        "AND (?4 IS NULL OR instr(?4, '|' || t.role || '|') > 0) ORDER BY s.step, s.id";
    static const std::string kFormatsSql = "SELECT id, " +
                                           store_internal::StoredFormatColumnList("") +
                                           " FROM format_stats WHERE stats_id = ?1 ORDER BY id";
    int stored_stats = 0;
    for (const StatsColumn& c : kStatsColumns) stored_stats += c.derived() ? 0 : 1;
    const int exponent_col = kFirstStat + stored_stats;
    const int samples_col = exponent_col + 2;

    Stmt fst;
    Status s = fst.Prepare(impl_->db_, kFormatsSql.c_str());
    if (!s.ok()) return impl_->Fail("cannot read table format_stats: " + s.message());

    auto bind = [&](Stmt& st) {
      st.Bind(1, filter.min_step);
      st.Bind(2, filter.max_step);
      if (filter.name) {
        st.Bind(3, *filter.name);
      } else {
        st.BindNull(3);
      }
      if (filter.role) {
        // "|weight|weight_grad|": each single role of the set, delimited.
        std::string roles = "|";
        for (Role single : kSingleRoles) {
          if (Contains(*filter.role, single)) roles += ToString(single) + "|";
        }
        st.Bind(4, roles);
      } else {
        st.BindNull(4);
      }
    };
    return impl_->Query("cannot read table stats", records_sql, bind, [&](const Stmt& st) {
      const int64_t stats_id = st.Int(0);
      const int64_t tensor_id = st.Int(2);
      auto corrupt = [&](const std::string& what, const std::string& context = "") {
        return impl_->Corrupt("stats", stats_id, what, context);
      };
      std::string p = store_internal::IntegerProblem(st, 1, "step");
      if (p.empty()) p = TextProblem(st, 6, "shape", /*nullable=*/true);
      if (p.empty()) p = TextProblem(st, 8, "dtype", /*nullable=*/true);
      if (!p.empty()) return corrupt(p);
      const char* const kTensorText[] = {"name", "role", "module_type", "shape", "dtype"};
      const int kTensorCol[] = {3, 4, 5, 7, 9};
      for (int k = 0; k < 5; ++k) {
        p = TextProblem(st, kTensorCol[k], kTensorText[k]);
        if (!p.empty()) return impl_->Corrupt("tensors", tensor_id, p);
      }
      TensorRecord r;
      r.step = st.Int(1);
      r.name = st.Text(3);
      const std::string where = "tensor " + Quoted(r.name) + " at step " + std::to_string(r.step);
      StatusOr<Role> role = ParseRecordRole(st.Text(4));
      if (!role.ok()) return impl_->Corrupt("tensors", tensor_id, role.status().message());
      r.role = *role;
      r.module_type = st.Text(5);
      const bool own_shape = !st.IsNull(6);
      StatusOr<std::vector<int64_t>> shape =
          store_internal::ParseShape(st.Text(own_shape ? 6 : 7));
      if (!shape.ok()) {
        return own_shape ? corrupt(shape.status().message(), where)
                         : impl_->Corrupt("tensors", tensor_id, shape.status().message());
      }
      r.shape = std::move(shape).value();
      r.dtype = st.Text(st.IsNull(8) ? 9 : 8);
      p = ReadColumns(kStatsColumns, st, kFirstStat, r.stats);
      if (p.empty()) p = store_internal::BlobProblem(st, exponent_col, "exponent_hist");
      if (p.empty()) p = store_internal::BlobProblem(st, exponent_col + 1, "log_hist");
      if (!p.empty()) return corrupt(p, where);
      Status hs = store_internal::DecodeExponentHist(st.Blob(exponent_col), &r.stats);
      if (!hs.ok()) return corrupt("exponent_hist: " + hs.message(), where);
      hs = store_internal::DecodeLogHist(st.Blob(exponent_col + 1), &r.stats);
      if (!hs.ok()) return corrupt("log_hist: " + hs.message(), where);
      if (!st.IsNull(samples_col)) {
        p = store_internal::BlobProblem(st, samples_col, "samples");
        if (!p.empty()) return corrupt(p, where);
        hs = store_internal::DecodeSampleSummary(st.Blob(samples_col), &r.samples.emplace());
        if (!hs.ok()) return corrupt("samples: " + hs.message(), where);
      }

      fst.Bind(1, stats_id);
      Status row_error;
      hs = fst.ForEachRow([&] {
        FormatRecord f;
        const std::string fp = ReadColumns(kFormatColumns, fst, 1, f);
        if (!fp.empty()) {
          row_error = impl_->Corrupt("format_stats", fst.Int(0), fp, where);
          return row_error;
        }
        r.formats.push_back(std::move(f));
        return Status();
      });
      if (!row_error.ok()) return row_error;
      if (!hs.ok()) return impl_->Fail(where + ": cannot read format_stats: " + hs.message());
      return fn(std::move(r));
    });
  } catch (const std::exception& e) {
    return impl_->Fail(std::string("reading records failed: ") + e.what());
  }
}

StatusOr<std::vector<TensorRecord>> RunReader::Records(const RecordFilter& filter) const {
  std::vector<TensorRecord> out;
  Status s = ForEachRecord(filter, [&](TensorRecord&& r) {
    out.push_back(std::move(r));
    return Status();
  });
  if (!s.ok()) return s;
  return out;
}

}  // namespace lpsim
