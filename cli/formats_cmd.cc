// `lpsim formats`: the built-in formats (or the ones given with --format) and
// their ranges and special-value rules, as a table or JSON.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/table.h"
#include "formats/format.h"

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

int RunFormats(const FormatsOptions& opt) {
  std::vector<Format> formats;
  if (opt.specs.empty()) {
    formats = BuiltinFormats();
  } else {
    for (const std::string& spec : opt.specs) {
      StatusOr<Format> f = ParseFormat(spec);
      if (!f.ok()) {
        std::cerr << "lpsim formats: error: " << f.status().message() << "\n";
        return kExitBadInput;
      }
      formats.push_back(*f);
    }
  }
  if (opt.json) {
    std::cout << FormatsJson(formats).dump(2) << "\n";
  } else {
    std::cout << FormatsTable(formats);
  }
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
                  "Describe this format spec instead (repeatable), e.g. e4m3:bias=9:nan=fn:sat")
      ->type_name("SPEC");
  sub->add_flag("--json", opt->json, "Print a JSON array instead of a table");
  sub->callback([opt, selected] { *selected = [opt] { return RunFormats(*opt); }; });
}

}  // namespace lpsim::cli
