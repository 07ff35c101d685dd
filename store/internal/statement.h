// SQLite plumbing for the run database: a prepared statement that binds,
// steps and reads columns, and the one loop that walks a query's rows, so no
// caller repeats the prepare/step/fail dance.
//
//   Stmt st;
//   Status s = st.Prepare(db, "SELECT step, value FROM scalars WHERE name = ?1");
//   st.Bind(1, std::string("loss"));
//   s = st.ForEachRow([&] { out.push_back(st.Int(0)); return Status(); });
//
// Errors carry SQLite's message and extended code; callers add the context.
#ifndef LPSIM_STORE_INTERNAL_STATEMENT_H_
#define LPSIM_STORE_INTERNAL_STATEMENT_H_

#include <sqlite3.h>

#include <cstdint>
#include <functional>
#include <string>

#include "core/status.h"

namespace lpsim::store_internal {

// "message (SQLite code N)" for the connection's last error.
std::string SqliteError(sqlite3* db);

class Stmt {
 public:
  Stmt() = default;
  ~Stmt() { sqlite3_finalize(stmt_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  Status Prepare(sqlite3* db, const char* sql);
  void Finalize();

  // Binding (1-based, as SQLite). Doubles: NaN is stored as NULL by SQLite.
  void Bind(int i, int64_t v) { sqlite3_bind_int64(stmt_, i, v); }
  void Bind(int i, uint64_t v) { sqlite3_bind_int64(stmt_, i, static_cast<int64_t>(v)); }
  void Bind(int i, double v) { sqlite3_bind_double(stmt_, i, v); }
  void Bind(int i, const std::string& v) {
    sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  }
  void BindNull(int i) { sqlite3_bind_null(stmt_, i); }
  // A zero-length blob, not NULL, for an empty string.
  void BindBlob(int i, const std::string& v);

  // Runs a statement that returns no rows (or ignores them), then resets it.
  Status Run();
  // Steps through the rows, calling row() on each (read them with Int, Text,
  // ...); row()'s first error stops the walk and is returned as it is. Resets
  // the statement and its bindings afterwards, so it can be bound again.
  Status ForEachRow(const std::function<Status()>& row);
  // Steps once: true with a row, false when there is none.
  StatusOr<bool> StepRow();
  void Reset();

  // Reading the current row (0-based, as SQLite).
  int Type(int i) const { return sqlite3_column_type(stmt_, i); }
  bool IsNull(int i) const { return Type(i) == SQLITE_NULL; }
  int64_t Int(int i) const { return sqlite3_column_int64(stmt_, i); }
  uint64_t UInt(int i) const { return static_cast<uint64_t>(sqlite3_column_int64(stmt_, i)); }
  // NULL reads back as the NaN it was written as.
  double Real(int i) const;
  std::string Text(int i) const;
  std::string Blob(int i) const;

 private:
  sqlite3* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
};

// Runs SQL text (several statements allowed) that returns no rows.
Status Exec(sqlite3* db, const char* sql);

// One integer from a single-row query such as a PRAGMA.
StatusOr<int64_t> QueryInt(sqlite3* db, const char* sql);

}  // namespace lpsim::store_internal

#endif  // LPSIM_STORE_INTERNAL_STATEMENT_H_
