// Plain-text output helpers for the `lpsim` commands: aligned tables and the
// number spellings every command shares.
//
//   Table t({{"name", false}, {"max", true}});
//   t.AddRow({"e4m3fn", Number(448.0f)});
//   std::cout << t.Render();
//   // name    max
//   // ------  ---
//   // e4m3fn  448
#ifndef LPSIM_CLI_TABLE_H_
#define LPSIM_CLI_TABLE_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/printable.h"

namespace lpsim::cli {

struct Column {
  std::string title;
  bool right_align = false;  // numbers line up on their last digit
};

class Table {
 public:
  explicit Table(std::vector<Column> columns) : columns_(std::move(columns)) {}
  // Missing cells print empty; extra cells are a programming error (dropped).
  // Control characters in a cell (a tensor or file name) are escaped
  // (core/printable.h), so a row stays one line and cannot drive the
  // terminal.
  void AddRow(std::vector<std::string> cells) {
    for (std::string& c : cells) c = Printable(c);
    rows_.push_back(std::move(cells));
  }
  // Header, a dashed rule, then the rows; two spaces between columns and no
  // trailing blanks, so the output diffs cleanly.
  std::string Render() const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

// Shortest text that reads back as the same value ("448", "0.001953125",
// "1e-45"); "inf", "-inf", "nan" for the rest.
std::string Number(float v);
std::string Number(double v);

// 100 * part / whole with three decimals; "0" when part is 0 and "<0.001" when
// it is nonzero but would print as 0.000, so a rare event never reads as none.
std::string Percent(uint64_t part, uint64_t whole);
double PercentValue(uint64_t part, uint64_t whole);  // 0 when whole is 0

// An SNR in dB with two decimals, "inf" when there was no error.
std::string Decibels(double db);

}  // namespace lpsim::cli

#endif  // LPSIM_CLI_TABLE_H_
