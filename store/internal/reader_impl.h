// RunReader's insides, shared by the two files that define it: run_reader.cc
// (opening, the run-level tables, validation) and run_records.cc (tensor
// records). Not part of the public API.
#ifndef LPSIM_STORE_INTERNAL_READER_IMPL_H_
#define LPSIM_STORE_INTERNAL_READER_IMPL_H_

#include <sqlite3.h>

#include <cstdint>
#include <functional>
#include <string>

#include "store/internal/statement.h"
#include "store/run_db.h"

namespace lpsim {

class RunReader::Impl {
 public:
  using Stmt = store_internal::Stmt;

  ~Impl() {
    if (db_) sqlite3_close(db_);
  }

  // "PATH: what went wrong: what to do" for read errors after Open.
  Status Fail(const std::string& what) const;

  // "PATH: table T, row N[ (context)]: what: ..." for a row holding what
  // lpsim never writes (store/internal/row_check.h says what that is).
  Status Corrupt(const std::string& table, int64_t row, const std::string& what,
                 const std::string& context = "") const;

  // The first row of `table` where `condition` (SQL on its columns) holds,
  // as a Corrupt() refusal: "column C holds <value> where <what> belongs".
  Status BadRow(const std::string& table, const std::string& condition, const char* column,
                const std::string& what) const;

  // Rows that point to rows that do not exist (a stats row's tensor, a
  // format_stats row's stats row), by SQLite's foreign key check: it reads
  // every row of the tables that refer to others.
  Status CheckReferences() const;

  // Prepares `sql`, lets bind() (may be null) set its parameters and calls
  // row() on each result row. row()'s first error is returned as it is; an
  // SQLite error as Fail("<context>: <SQLite's message>").
  Status Query(const std::string& context, const std::string& sql,
               const std::function<void(Stmt&)>& bind,
               const std::function<Status(const Stmt&)>& row) const;

  std::string path_;
  sqlite3* db_ = nullptr;
  int schema_version_ = 0;  // PRAGMA user_version; 1 has no stats.samples
};

namespace store_internal {

std::string Quoted(const std::string& s);

// A record's role: one single role, by name (ParseRole also takes sets).
StatusOr<Role> ParseRecordRole(const std::string& text);

}  // namespace store_internal
}  // namespace lpsim

#endif  // LPSIM_STORE_INTERNAL_READER_IMPL_H_
