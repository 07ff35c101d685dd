// `lpsim formats`: the built-in formats (or the ones given with --format) and
// their ranges and special-value rules, as a table or JSON: floating-point
// formats, integer formats (scale and zero point), block floating point
// (shared exponent) and the block-scaled compositions (MX, NVFP4).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/table.h"
#include "formats/block_fp.h"
#include "formats/format.h"
#include "formats/integer.h"

namespace lpsim::cli {
namespace {

// Formats with neither Inf nor NaN have nowhere else to send an overflow, so
// they clamp whatever the saturate flag says; the table says which case it is.
bool AlwaysSaturates(const Format& f) { return !f.has_inf() && !f.has_nan(); }

std::string OverflowText(const Format& f) {
  const std::string r = ToString(f.overflow_result());
  if (f.overflow_result() != OverflowResult::kMax) return r;
  return r + (AlwaysSaturates(f) ? " (always)" : " (sat)");
}

struct FormatsOptions {
  std::vector<std::string> specs;
  bool json = false;
};

// Element format + block scaling, as the hardware names them (OCP MX v1.0;
// NVIDIA NVFP4). `recipe` is the scaling name lpsim takes (--scaling).
struct BlockScaled {
  const char* name;
  const char* element;
  const char* recipe;
  const char* scale;
};
constexpr BlockScaled kBlockScaled[] = {
    {"mxfp8_e4m3", "e4m3fn", "mx", "e8m0 per 1x32"},
    {"mxfp8_e5m2", "e5m2", "mx", "e8m0 per 1x32"},
    {"mxfp6_e3m2", "e3m2fn", "mx", "e8m0 per 1x32"},
    {"mxfp6_e2m3", "e2m3fn", "mx", "e8m0 per 1x32"},
    {"mxfp4", "e2m1fn", "mx", "e8m0 per 1x32"},
    {"nvfp4", "e2m1fn", "nvfp4", "e4m3 per 1x16 + fp32 per tensor"},
};

std::string IntFormatsTable(const std::vector<IntFormat>& formats) {
  Table t({{"integer"}, {"bits", true}, {"qmin", true}, {"qmax", true}, {"rounding"}});
  for (const IntFormat& f : formats) {
    t.AddRow({f.name, std::to_string(f.bits), std::to_string(f.qmin()), std::to_string(f.qmax()),
              "away (TFLite), rne, stochastic"});
  }
  return t.Render();
}

std::string BfpFormatsTable(const std::vector<BfpFormat>& formats) {
  Table t({{"block fp"}, {"block", true}, {"shared exp bits", true}, {"magnitude bits", true},
           {"max / 2^E", true}});
  for (const BfpFormat& f : formats) {
    t.AddRow({f.name, std::to_string(f.block), "8", std::to_string(f.magnitude_bits),
              Number(f.MaxRelative())});
  }
  return t.Render();
}

std::string BlockScaledTable() {
  Table t({{"block scaled"}, {"element"}, {"scaling"}, {"scales"}});
  for (const BlockScaled& b : kBlockScaled) t.AddRow({b.name, b.element, b.recipe, b.scale});
  return t.Render();
}

nlohmann::ordered_json OtherFormatsJson(const std::vector<IntFormat>& ints,
                                        const std::vector<BfpFormat>& bfps, bool block_scaled) {
  nlohmann::ordered_json arr = nlohmann::ordered_json::array();
  for (const IntFormat& f : ints) {
    arr.push_back({{"name", f.name}, {"kind", "integer"}, {"total_bits", f.bits},
                   {"signed", f.is_signed}, {"qmin", f.qmin()}, {"qmax", f.qmax()}});
  }
  for (const BfpFormat& f : bfps) {
    arr.push_back({{"name", f.name}, {"kind", "block_fp"}, {"block", f.block},
                   {"shared_exponent_bits", 8}, {"magnitude_bits", f.magnitude_bits},
                   {"max_relative", static_cast<double>(f.MaxRelative())}});
  }
  if (block_scaled) {
    for (const BlockScaled& b : kBlockScaled) {
      arr.push_back({{"name", b.name}, {"kind", "block_scaled"}, {"element", b.element},
                     {"scaling", b.recipe}, {"scales", b.scale}});
    }
  }
  return arr;
}

int RunFormats(const FormatsOptions& opt) {
  std::vector<Format> formats;
  std::vector<IntFormat> ints;
  std::vector<BfpFormat> bfps;
  if (opt.specs.empty()) {
    formats = BuiltinFormats();
    ints = BuiltinIntFormats();
    bfps = BuiltinBfpFormats();
  } else {
    for (const std::string& spec : opt.specs) {
      Status error;
      if (LooksLikeIntFormat(spec)) {
        StatusOr<IntFormat> f = ParseIntFormat(spec);
        if (f.ok()) ints.push_back(*f);
        else error = f.status();
      } else if (LooksLikeBfpFormat(spec)) {
        StatusOr<BfpFormat> f = ParseBfpFormat(spec);
        if (f.ok()) bfps.push_back(*f);
        else error = f.status();
      } else {
        StatusOr<Format> f = ParseFormat(spec);
        if (f.ok()) formats.push_back(*f);
        else error = f.status();
      }
      if (!error.ok()) return PrintError("formats", error.message(), kExitBadInput);
    }
  }
  const bool all = opt.specs.empty();
  if (opt.json) {
    nlohmann::ordered_json arr = FormatsJson(formats);
    for (auto& e : OtherFormatsJson(ints, bfps, all)) arr.push_back(e);
    std::cout << arr.dump(2) << "\n";
    return kExitOk;
  }
  std::string out;
  auto section = [&](const std::string& table) {
    if (!out.empty()) out += "\n";
    out += table;
  };
  if (!formats.empty()) section(FormatsTable(formats));
  if (!ints.empty()) section(IntFormatsTable(ints));
  if (!bfps.empty()) section(BfpFormatsTable(bfps));
  if (all) section(BlockScaledTable());
  std::cout << out;
  return kExitOk;
}

}  // namespace

std::string FormatsTable(const std::vector<Format>& formats) {
  Table t({{"name"},
           {"exp", true},
           {"man", true},
           {"bias", true},
           {"max", true},
           {"min normal", true},
           {"min subnormal", true},
           {"inf"},
           {"nan"},
           {"-0"},
           {"overflow"}});
  for (const Format& f : formats) {
    t.AddRow({f.name(), std::to_string(f.exponent_bits()), std::to_string(f.mantissa_bits()),
              std::to_string(f.bias()), Number(f.MaxValue()), Number(f.MinNormal()),
              f.has_subnormals() ? Number(f.MinSubnormal()) : "-", f.has_inf() ? "yes" : "no",
              ToString(f.nan()), f.has_negative_zero() ? "yes" : "no", OverflowText(f)});
  }
  return t.Render();
}

nlohmann::ordered_json FormatsJson(const std::vector<Format>& formats) {
  nlohmann::ordered_json arr = nlohmann::ordered_json::array();
  for (const Format& f : formats) {
    // Limits go out as doubles: every fp32 value is one, and the JSON writer
    // prints the shortest text that reads back as the same double.
    arr.push_back({
        {"name", f.name()},
        {"kind", "float"},
        {"exponent_bits", f.exponent_bits()},
        {"mantissa_bits", f.mantissa_bits()},
        {"bias", f.bias()},
        {"max", static_cast<double>(f.MaxValue())},
        {"min_normal", static_cast<double>(f.MinNormal())},
        {"min_subnormal", static_cast<double>(f.MinSubnormal())},
        {"has_inf", f.has_inf()},
        {"nan", ToString(f.nan())},
        {"negative_zero", f.has_negative_zero()},
        {"overflow", ToString(f.overflow_result())},
        {"total_bits", f.total_bits()},
    });
  }
  return arr;
}

void AddFormatsCommand(CLI::App* app, Command* selected) {
  auto opt = std::make_shared<FormatsOptions>();
  CLI::App* sub = app->add_subcommand(
      "formats", "List the built-in formats with their ranges and special-value rules");
  sub->add_option("--format,-f", opt->specs,
                  "Describe this format spec instead (repeatable), e.g. e4m3:bias=9:nan=fn:sat, "
                  "int4, uint8, int8:narrow, bfp8, bfp4:block=32")
      ->type_name("SPEC");
  sub->add_flag("--json", opt->json, "Print a JSON array instead of a table");
  sub->callback([opt, selected] { *selected = [opt] { return RunFormats(*opt); }; });
}

}  // namespace lpsim::cli
