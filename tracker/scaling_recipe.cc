#include "tracker/scaling_recipe.h"

#include <cctype>

namespace lpsim {

Scaling Scaling::Current(int margin, bool power_of_two) {
  Scaling s;
  s.kind = Kind::kCurrent;
  s.scale = {margin, power_of_two};
  return s;
}

Scaling Scaling::Delayed(size_t history, int margin, DelayedScaler::Algo algo) {
  Scaling s;
  s.kind = Kind::kDelayed;
  s.delayed.history = history;
  s.delayed.algo = algo;
  s.delayed.scale.margin = margin;
  return s;
}

Scaling Scaling::Block(const BlockSpec& spec) {
  Scaling s;
  s.kind = Kind::kBlock;
  s.block = spec;
  return s;
}

StatusOr<Scaling> Scaling::Parse(const std::string& name) {
  if (name == "none") return None();
  if (name == "current") return Current();
  if (name.rfind("delayed", 0) == 0) {
    const std::string digits = name.substr(7);
    if (digits.empty()) return Delayed();
    bool ok = digits.size() <= 6;
    for (char c : digits) ok = ok && std::isdigit(static_cast<unsigned char>(c));
    if (ok && std::stoul(digits) > 0) return Delayed(std::stoul(digits));
    return Status::Error("bad recipe '" + name + "': delayed takes a history length, e.g. delayed16");
  }
  StatusOr<BlockSpec> block = BlockSpec::Parse(name);
  if (block.ok()) return Block(block.value());
  return Status::Error("unknown scaling recipe '" + name +
                       "': use none, current, delayedN (e.g. delayed16), mx, nvfp4, row, col, "
                       "1x128, 128x128 or RxC");
}

std::string Scaling::Name() const {
  switch (kind) {
    case Kind::kNone: return "none";
    case Kind::kCurrent: return "current";
    case Kind::kDelayed: return "delayed" + std::to_string(delayed.history);
    case Kind::kBlock: break;
  }
  if (block.scale_type == BlockSpec::ScaleType::kE8m0 && block.block_rows == 1 &&
      block.block_cols == 32) {
    return "mx";
  }
  if (block.scale_type == BlockSpec::ScaleType::kNvfp4) {
    if (block.block_rows == 1 && block.block_cols == 16) return "nvfp4";
    return std::to_string(block.block_rows) + "x" + std::to_string(block.block_cols) + ":nvfp4";
  }
  if (block.block_rows == 1 && block.block_cols == 0) return "row";
  if (block.block_rows == 0 && block.block_cols == 1) return "col";
  return std::to_string(block.block_rows) + "x" + std::to_string(block.block_cols);
}

}  // namespace lpsim
