// `lpsim demo`: the formats showcase (until the training tracker lands, when
// the demo becomes a tracked training run).
//
// Casts one built-in tensor spanning 44 binades into several formats, with no
// scaling and with per-tensor current-amax scaling (scale = max / amax, as
// DESIGN.md describes), and prints how much underflows, overflows and turns
// subnormal, and the SNR.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/table.h"
#include "formats/format.h"
#include "formats/reference.h"

namespace lpsim::cli {
namespace {

constexpr size_t kDemoNumel = size_t{1} << 16;
constexpr uint32_t kDemoSeed = 20240601;
// |x| spans binades 2^kMinExp .. 2^kMaxExp (upper end exclusive).
constexpr int kMinExp = -24;
constexpr int kMaxExp = 20;

const std::vector<std::string> kDefaultFormats = {"e4m3fn", "e5m2", "e4m3fnuz", "e3m2fn",
                                                  "e2m1fn", "bf16", "fp16"};

// Log-uniform at binade granularity: a uniform binade, a uniform mantissa and a
// random sign, assembled as fp32 bits straight from std::mt19937's output
// (which the standard fixes exactly), so the tensor is the same with every
// standard library; the std distributions and exp2 are not.
std::vector<float> DemoTensor() {
  std::mt19937 gen(kDemoSeed);
  std::vector<float> x(kDemoNumel);
  constexpr uint32_t kBinades = kMaxExp - kMinExp;
  for (float& v : x) {
    const uint32_t a = gen(), b = gen();
    // Multiply-shift maps 32 random bits onto [0, kBinades) without modulo bias
    // worth mentioning (< kBinades / 2^32).
    const uint32_t binade = static_cast<uint32_t>((uint64_t{a} * kBinades) >> 32);
    const uint32_t exp_field = static_cast<uint32_t>(kMinExp + 127) + binade;
    const uint32_t bits = (b & 0x80000000u) | (exp_field << 23) | (b & 0x007fffffu);
    std::memcpy(&v, &bits, sizeof v);
  }
  return x;
}

float AbsMax(const std::vector<float>& x) {
  float m = 0.0f;
  for (float v : x) {
    if (std::isfinite(v)) m = std::fmax(m, std::fabs(v));
  }
  return m;
}

struct DemoArgs {
  std::vector<std::string> formats;
  bool json = false;
};

struct DemoRow {
  std::string scaling;
  float scale;
  CastCounts counts;
};

int RunDemo(const DemoArgs& a) {
  const std::vector<std::string>& names = a.formats.empty() ? kDefaultFormats : a.formats;
  std::vector<Format> formats;
  for (const std::string& name : names) {
    StatusOr<Format> f = ParseFormat(name);
    if (!f.ok()) {
      std::cerr << "lpsim demo: error: --formats: " << f.status().message() << "\n";
      return kExitBadInput;
    }
    formats.push_back(*f);
  }
  const std::vector<float> x = DemoTensor();
  const float amax = AbsMax(x);
  std::vector<float> q(x.size());

  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  Table t({{"format"},
           {"scaling"},
           {"scale", true},
           {"underflow %", true},
           {"overflow %", true},
           {"subnormal %", true},
           {"SNR dB", true}});
  for (const Format& f : formats) {
    // Current amax, no margin: the largest |x| lands exactly on the format's max.
    const float amax_scale = amax > 0.0f ? f.MaxValue() / amax : 1.0f;
    for (const auto& [scaling, scale] :
         std::vector<std::pair<std::string, float>>{{"none", 1.0f}, {"amax", amax_scale}}) {
      QuantizeOptions opt;
      opt.scale = scale;
      CastCounts c;
      FakeQuantize(f, x.data(), x.size(), opt, q.data(), &c);
      t.AddRow({f.name(), scaling, Number(scale), Percent(c.underflow, c.numel),
                Percent(c.overflow, c.numel), Percent(c.subnormal, c.numel), Decibels(c.SnrDb())});
      nlohmann::ordered_json j = CountsJson(f, c);
      j["format"] = f.name();
      j["scaling"] = scaling;
      j["scale"] = static_cast<double>(scale);
      j["underflow_pct"] = PercentValue(c.underflow, c.numel);
      j["overflow_pct"] = PercentValue(c.overflow, c.numel);
      j["subnormal_pct"] = PercentValue(c.subnormal, c.numel);
      results.push_back(std::move(j));
    }
  }
  const std::string tensor_text = fmt::format(
      "{} values, |x| log-uniform over [2^{}, 2^{}) by binade, random signs, seed {}; amax {}",
      kDemoNumel, kMinExp, kMaxExp, kDemoSeed, Number(amax));
  if (a.json) {
    nlohmann::ordered_json j = {
        {"formats", FormatsJson(formats)},
        {"tensor",
         {{"numel", kDemoNumel},
          {"min_exponent", kMinExp},
          {"max_exponent", kMaxExp},
          {"seed", kDemoSeed},
          {"amax", static_cast<double>(amax)}}},
        {"results", results},
    };
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  std::cout << "Formats\n\n" << FormatsTable(formats) << "\n";
  std::cout << "Casting a demo tensor: " << tensor_text << "\n";
  std::cout << "scaling none: x as is; amax: x * (format max / amax) before the cast\n\n";
  std::cout << t.Render();
  std::cout << "\nSNR is over the elements whose input and result are both finite; what "
               "overflows to Inf or NaN shows in overflow %.\n";
  return kExitOk;
}

}  // namespace

void AddDemoCommand(CLI::App* app, Command* selected) {
  auto a = std::make_shared<DemoArgs>();
  CLI::App* sub = app->add_subcommand(
      "demo",
      "Formats showcase: cast a wide-range tensor into several formats, with and "
      "without amax scaling");
  sub->add_option("--formats", a->formats,
                  "Comma-separated format specs (default e4m3fn,e5m2,e4m3fnuz,e3m2fn,e2m1fn,"
                  "bf16,fp16)")
      ->delimiter(',')
      ->type_name("SPEC,...");
  sub->add_flag("--json", a->json, "Print JSON instead of tables");
  sub->callback([a, selected] { *selected = [a] { return RunDemo(*a); }; });
}

}  // namespace lpsim::cli
