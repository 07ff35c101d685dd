#include "store/internal/statement.h"

#include <cmath>
#include <cstddef>

namespace lpsim::store_internal {

std::string SqliteError(sqlite3* db) {
  return std::string(sqlite3_errmsg(db)) + " (SQLite code " +
         std::to_string(sqlite3_extended_errcode(db)) + ")";
}

Status Stmt::Prepare(sqlite3* db, const char* sql) {
  sqlite3_finalize(stmt_);
  stmt_ = nullptr;
  db_ = db;
  if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) {
    return Status::Error(SqliteError(db));
  }
  return Status();
}

void Stmt::Finalize() {
  sqlite3_finalize(stmt_);
  stmt_ = nullptr;
}

void Stmt::BindBlob(int i, const std::string& v) {
  if (v.empty()) {
    sqlite3_bind_zeroblob(stmt_, i, 0);
  } else {
    sqlite3_bind_blob(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  }
}

Status Stmt::Run() {
  return ForEachRow([] { return Status(); });
}

Status Stmt::ForEachRow(const std::function<Status()>& row) {
  int rc;
  while ((rc = sqlite3_step(stmt_)) == SQLITE_ROW) {
    Status s = row();
    if (!s.ok()) {
      Reset();
      return s;
    }
  }
  Status s = rc == SQLITE_DONE ? Status() : Status::Error(SqliteError(db_));
  Reset();
  return s;
}

StatusOr<bool> Stmt::StepRow() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return Status::Error(SqliteError(db_));
}

void Stmt::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

double Stmt::Real(int i) const {
  return IsNull(i) ? std::nan("") : sqlite3_column_double(stmt_, i);
}

std::string Stmt::Text(int i) const {
  const unsigned char* p = sqlite3_column_text(stmt_, i);
  const int n = sqlite3_column_bytes(stmt_, i);
  return p ? std::string(reinterpret_cast<const char*>(p), static_cast<size_t>(n)) : std::string();
}

std::string Stmt::Blob(int i) const {
  const void* p = sqlite3_column_blob(stmt_, i);
  const int n = sqlite3_column_bytes(stmt_, i);
  return p ? std::string(static_cast<const char*>(p), static_cast<size_t>(n)) : std::string();
}

Status Exec(sqlite3* db, const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errmsg(db);
    sqlite3_free(err);
    return Status::Error(msg + " (SQLite code " + std::to_string(sqlite3_extended_errcode(db)) +
                         ")");
  }
  return Status();
}

StatusOr<int64_t> QueryInt(sqlite3* db, const char* sql) {
  Stmt st;
  Status s = st.Prepare(db, sql);
  if (!s.ok()) return s;
  StatusOr<bool> row = st.StepRow();
  if (!row.ok()) return row.status();
  if (!*row) return Status::Error(std::string("no result from ") + sql);
  return st.Int(0);
}

}  // namespace lpsim::store_internal
