#include "cli/table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace lpsim::cli {

std::string Table::Render() const {
  std::vector<size_t> width(columns_.size(), 0);
  for (size_t c = 0; c < columns_.size(); ++c) width[c] = columns_[c].title.size();
  for (const auto& row : rows_) {
    for (size_t c = 0; c < row.size() && c < width.size(); ++c) {
      width[c] = std::max(width[c], row[c].size());
    }
  }
  std::string out;
  auto line = [&](auto cell_of) {
    std::string s;
    for (size_t c = 0; c < columns_.size(); ++c) {
      const std::string cell = cell_of(c);
      if (c) s += "  ";
      const std::string pad(width[c] - cell.size(), ' ');
      s += columns_[c].right_align ? pad + cell : cell + pad;
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    out += s + "\n";
  };
  line([&](size_t c) { return columns_[c].title; });
  line([&](size_t c) { return std::string(width[c], '-'); });
  for (const auto& row : rows_) {
    line([&](size_t c) { return c < row.size() ? row[c] : std::string(); });
  }
  return out;
}

namespace {
template <typename T>
std::string ShortestNumber(T v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return fmt::format("{}", v);  // fmt's default is the shortest round-trip form
}
}  // namespace

std::string Number(float v) { return ShortestNumber(v); }
std::string Number(double v) { return ShortestNumber(v); }

double PercentValue(uint64_t part, uint64_t whole) {
  return whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

std::string Percent(uint64_t part, uint64_t whole) {
  if (part == 0) return "0";
  const double p = PercentValue(part, whole);
  if (p < 0.0005) return "<0.001";
  return fmt::format("{:.3f}", p);
}

std::string Decibels(double db) {
  if (std::isinf(db)) return db > 0 ? "inf" : "-inf";
  if (std::isnan(db)) return "nan";
  return fmt::format("{:.2f}", db);
}

}  // namespace lpsim::cli
