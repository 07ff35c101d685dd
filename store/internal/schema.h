// The run database's schema (docs/store.md describes every column) and the
// SQL built from it: the stats and format_stats tables and their INSERT
// statements come from the column tables of store/record_columns.h, so the
// schema, the writer and the reader cannot disagree on a column.
//
//   Exec(db, SchemaSql().c_str());
//   insert.Prepare(db, StatsInsertSql().c_str());  // ?1 tensor_id, ?2 step, then the columns
#ifndef LPSIM_STORE_INTERNAL_SCHEMA_H_
#define LPSIM_STORE_INTERNAL_SCHEMA_H_

#include <string>
#include <utility>
#include <vector>

namespace lpsim::store_internal {

// Every CREATE TABLE and CREATE INDEX of a new run database.
const std::string& SchemaSql();

// The rows of table meta: the histogram layout a reader must agree with.
std::vector<std::pair<std::string, std::string>> MetaRows();

// INSERT INTO stats: ?1 tensor_id, ?2 step, then kStatsColumns from ?3 in
// order, then exponent_hist, log_hist, shape, dtype, samples.
const std::string& StatsInsertSql();
// Parameter index of exponent_hist in StatsInsertSql (log_hist, shape, dtype
// and samples follow it).
int StatsInsertBlobIndex();

// INSERT INTO format_stats: ?1 stats_id, ?2 tensor_id, ?3 step, then
// kFormatColumns from ?4 in order.
const std::string& FormatInsertSql();
constexpr int kFormatInsertFirstColumn = 4;
constexpr int kStatsInsertFirstColumn = 3;

// "p.a, p.b, ..." for the columns of a table that are read back (derived
// ones left out), in table order; `prefix` is a table alias such as "s.".
std::string StoredStatsColumnList(const std::string& prefix);
std::string StoredFormatColumnList(const std::string& prefix);

}  // namespace lpsim::store_internal

#endif  // LPSIM_STORE_INTERNAL_SCHEMA_H_
