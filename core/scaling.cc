#include "core/scaling.h"

#include <cctype>
#include <cstdlib>
#include <vector>

namespace lpsim {
namespace {

bool ParseSize(const std::string& s, size_t* out) {
  if (s == "all") {
    *out = 0;
    return true;
  }
  if (s.empty() || s.size() > 9) return false;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  *out = static_cast<size_t>(std::strtoull(s.c_str(), nullptr, 10));
  return *out > 0;
}

// "1x128", "allx16": rows x columns, 0 written "all".
std::string BlockShape(const BlockSpec& b) {
  auto dim = [](size_t n) { return n == 0 ? std::string("all") : std::to_string(n); };
  return dim(b.block_rows) + "x" + dim(b.block_cols);
}

// "margin=N" (N in -64..64) into *margin; false when opt is not one.
bool ParseMargin(const std::string& opt, int* margin) {
  if (opt.rfind("margin=", 0) != 0 || opt.size() == 7) return false;
  char* end = nullptr;
  const long m = std::strtol(opt.c_str() + 7, &end, 10);
  if (*end != '\0' || m < -64 || m > 64) return false;
  *margin = static_cast<int>(m);
  return true;
}

const char* ScaleTypeName(BlockSpec::ScaleType t) {
  switch (t) {
    case BlockSpec::ScaleType::kE8m0: return "e8m0";
    case BlockSpec::ScaleType::kNvfp4: return "nvfp4";
    case BlockSpec::ScaleType::kFp32: return "fp32";
  }
  return "?";
}

}  // namespace

StatusOr<BlockSpec> BlockSpec::Parse(const std::string& name) {
  auto fail = [&](const std::string& what) {
    return Status::Error("invalid block spec '" + name + "': " + what +
                         "; use mx, nvfp4, row, col, 1x128, 128x128 or RxC (R, C a count or "
                         "'all'), optionally followed by :e8m0, :fp32, :nvfp4, :pow2, :nopow2, "
                         ":margin=N");
  };
  std::string lower;
  for (char c : name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    const size_t pos = lower.find(':', start);
    parts.push_back(lower.substr(start, pos - start));
    if (pos == std::string::npos) break;
    start = pos + 1;
  }
  BlockSpec spec;
  const std::string& base = parts[0];
  if (base == "mx") spec = Mx();
  else if (base == "nvfp4") spec = Nvfp4();
  else if (base == "row" || base == "rowwise") spec = Rowwise();
  else if (base == "col" || base == "columnwise") spec = Columnwise();
  else if (base == "1x128") spec = Tile1x128();
  else if (base == "128x128") spec = Tile128x128();
  else {
    const size_t x = base.find('x');
    size_t r = 0, c = 0;
    if (x == std::string::npos || !ParseSize(base.substr(0, x), &r) ||
        !ParseSize(base.substr(x + 1), &c)) {
      return fail("'" + parts[0] + "' is not a known block shape");
    }
    spec = {r, c, ScaleType::kFp32, {0, true}};
  }
  for (size_t i = 1; i < parts.size(); ++i) {
    const std::string& o = parts[i];
    if (o == "e8m0") spec.scale_type = ScaleType::kE8m0;
    else if (o == "nvfp4") spec.scale_type = ScaleType::kNvfp4;
    else if (o == "fp32") spec.scale_type = ScaleType::kFp32;
    else if (o == "pow2") spec.scale.power_of_two = true;
    else if (o == "nopow2") spec.scale.power_of_two = false;
    else if (o.rfind("margin=", 0) == 0) {
      if (!ParseMargin(o, &spec.scale.margin)) return fail("margin must be -64..64");
    } else {
      return fail("unknown option '" + o + "'");
    }
  }
  return spec;
}

size_t BlockSpec::BlocksPerRow(size_t cols) const {
  if (cols == 0) return 0;
  return block_cols == 0 ? 1 : (cols + block_cols - 1) / block_cols;
}

size_t BlockSpec::BlocksPerCol(size_t rows) const {
  if (rows == 0) return 0;
  return block_rows == 0 ? 1 : (rows + block_rows - 1) / block_rows;
}

Scaling Scaling::Current(int margin, bool power_of_two) {
  Scaling s;
  s.kind = Kind::kCurrent;
  s.scale = {margin, power_of_two};
  return s;
}

Scaling Scaling::Delayed(size_t history, int margin, AmaxReduction algo) {
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

Scaling Scaling::Integer(bool per_channel, bool symmetric) {
  Scaling s;
  s.kind = Kind::kInteger;
  s.integer = {per_channel, symmetric};
  return s;
}

const ScaleOptions& Scaling::scale_options() const {
  switch (kind) {
    case Kind::kDelayed: return delayed.scale;
    case Kind::kBlock: return block.scale;
    case Kind::kNone:
    case Kind::kCurrent:
    case Kind::kInteger: break;
  }
  return scale;
}

StatusOr<Scaling> Scaling::Parse(const std::string& name) {
  if (name == "none") return None();
  // current and delayedN, with the options FullName writes after them.
  const size_t colon = name.find(':');
  const std::string base = name.substr(0, colon);
  if (base == "current" || base.rfind("delayed", 0) == 0) {
    Scaling s = Current();
    if (base != "current") {
      const std::string digits = base.substr(7);
      bool ok = digits.size() <= 6;
      for (char c : digits) ok = ok && std::isdigit(static_cast<unsigned char>(c));
      if (!ok || (!digits.empty() && std::stoul(digits) == 0)) {
        return Status::Error("bad recipe '" + name +
                             "': delayed takes a history length: use delayedN with N >= 1, e.g. delayed16");
      }
      s = digits.empty() ? Delayed() : Delayed(std::stoul(digits));
    }
    const bool delayed = s.kind == Kind::kDelayed;
    ScaleOptions& o = delayed ? s.delayed.scale : s.scale;
    for (size_t start = colon; start != std::string::npos;) {
      const size_t end = name.find(':', start + 1);
      const std::string opt = name.substr(start + 1, end == std::string::npos ? end : end - start - 1);
      start = end;
      auto fail = [&](const std::string& what) {
        return Status::Error("bad recipe '" + name + "': " + what + "; use " +
                             (delayed ? "delayedN[:max|:most_recent][:margin=N]"
                                      : "current[:margin=N][:pow2][:exp=A..B]"));
      };
      char* rest = nullptr;
      if (opt.rfind("margin=", 0) == 0) {
        if (!ParseMargin(opt, &o.margin)) return fail("margin must be -64..64");
      } else if (delayed && (opt == "max" || opt == "most_recent")) {
        s.delayed.algo = opt == "max" ? AmaxReduction::kMax : AmaxReduction::kMostRecent;
      } else if (!delayed && (opt == "pow2" || opt == "nopow2")) {
        o.power_of_two = opt == "pow2";
      } else if (!delayed && opt.rfind("exp=", 0) == 0) {
        const size_t dots = opt.find("..");
        const long lo = std::strtol(opt.c_str() + 4, &rest, 10);
        const bool lo_ok = dots != std::string::npos && rest == opt.c_str() + dots && dots > 4;
        const long hi = lo_ok ? std::strtol(opt.c_str() + dots + 2, &rest, 10) : 0;
        if (!lo_ok || *rest != '\0' || opt.size() == dots + 2 || lo < -126 || hi > 127 || lo > hi) {
          return fail("exp takes A..B with -126 <= A <= B <= 127");
        }
        o.min_exponent = static_cast<int>(lo), o.max_exponent = static_cast<int>(hi);
      } else {
        return fail("unknown option '" + opt + "'");
      }
    }
    return s;
  }
  StatusOr<BlockSpec> block = BlockSpec::Parse(name);
  if (block.ok()) return Block(block.value());
  // A block shape with a bad option: the block parser's reason is the useful one.
  if (name.find(':') != std::string::npos) return block.status();
  return Status::Error("unknown scaling recipe '" + name +
                       "': use none, current, delayedN (e.g. delayed16), mx, nvfp4, row, col, "
                       "1x128, 128x128 or RxC[:options]");
}

std::string Scaling::Name() const {
  switch (kind) {
    case Kind::kNone: return "none";
    case Kind::kCurrent: return "current";
    case Kind::kDelayed: return "delayed" + std::to_string(delayed.history);
    case Kind::kBlock: break;
    case Kind::kInteger: return FullName();
  }
  std::string base;
  if (block.block_rows == 1 && block.block_cols == 32 && block.scale_type == BlockSpec::ScaleType::kE8m0) {
    base = "mx";
  } else if (block.block_rows == 1 && block.block_cols == 16 &&
             block.scale_type == BlockSpec::ScaleType::kNvfp4) {
    base = "nvfp4";
  } else if (block.block_rows == 1 && block.block_cols == 0) {
    base = "row";
  } else if (block.block_rows == 0 && block.block_cols == 1) {
    base = "col";
  } else {
    base = BlockShape(block);
  }
  // Options only where they differ from what the base name parses to.
  const BlockSpec plain = BlockSpec::Parse(base).value();
  std::string name = base;
  if (block.scale_type != plain.scale_type) name += std::string(":") + ScaleTypeName(block.scale_type);
  if (block.scale_type == BlockSpec::ScaleType::kFp32) {
    if (block.scale.power_of_two != plain.scale.power_of_two) {
      name += block.scale.power_of_two ? ":pow2" : ":nopow2";
    }
    if (block.scale.margin != plain.scale.margin) name += ":margin=" + std::to_string(block.scale.margin);
  }
  return name;
}

std::string Scaling::FullName() const {
  switch (kind) {
    case Kind::kNone: return "none";
    case Kind::kCurrent: {
      std::string n = "current";
      if (scale.margin != 0) n += ":margin=" + std::to_string(scale.margin);
      if (scale.power_of_two) n += ":pow2";
      if (scale.min_exponent != -126 || scale.max_exponent != 127) {
        n += ":exp=" + std::to_string(scale.min_exponent) + ".." +
             std::to_string(scale.max_exponent);
      }
      return n;
    }
    case Kind::kDelayed: {
      std::string n = "delayed" + std::to_string(delayed.history) +
                      (delayed.algo == AmaxReduction::kMax ? ":max" : ":most_recent");
      if (delayed.scale.margin != 0) n += ":margin=" + std::to_string(delayed.scale.margin);
      return n;
    }
    case Kind::kBlock: {
      const std::string shape = BlockShape(block);
      if (block.scale_type == BlockSpec::ScaleType::kE8m0 && shape == "1x32") return "mx";
      if (block.scale_type == BlockSpec::ScaleType::kNvfp4 && shape == "1x16") return "nvfp4";
      std::string n = shape + ":" + ScaleTypeName(block.scale_type);
      if (block.scale_type == BlockSpec::ScaleType::kFp32 && block.scale.power_of_two) n += ":pow2";
      return n;
    }
    case Kind::kInteger:
      return std::string("int:") + (integer.per_channel ? "per_channel" : "per_tensor") +
             (integer.symmetric ? ":symmetric" : ":asymmetric");
  }
  return "?";
}

}  // namespace lpsim
