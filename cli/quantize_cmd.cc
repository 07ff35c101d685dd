// `lpsim quantize`: fake-quantize a .npy tensor into a format and report what
// happened (underflow, overflow, subnormals, SNR).
//
//   lpsim quantize --format e4m3fn --scale 64 acts.npy acts_q.npy [--json]
//   lpsim quantize --target int8-npu --role weight w.npy w_q.npy
//
// Every input is checked before anything is read or written, and the output
// is written atomically last, so on any error OUT does not change.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "cli/commands.h"
#include "cli/table.h"
#include "core/output.h"
#include "core/printable.h"
#include "core/target.h"
#include "formats/fixed_sum.h"
#include "formats/format.h"
#include "formats/reference.h"
#include "simd/quantize.h"
#include "simd/role_quantizer.h"
#include "store/npy.h"

namespace lpsim::cli {
namespace {

struct QuantizeArgs {
  std::string format;
  std::string target;
  std::string role;
  bool saturate = false;
  bool ftz = false;
  std::string rounding = "rne";
  std::string seed = "0";
  std::string scale = "1";
  std::string in;
  std::string out;
  bool json = false;
};

// Scale and seed are parsed here rather than by CLI11 so that their errors
// read like every other error of this command (and exit 2).
StatusOr<float> ParseScale(const std::string& s) {
  const std::string help =
      "--scale must be a finite number > 0 whose reciprocal is finite in fp32 "
      "(e.g. --scale 64 or --scale 0.5)";
  char* end = nullptr;
  errno = 0;
  const float v = s.empty() ? 0.0f : std::strtof(s.c_str(), &end);
  if (s.empty() || *end != '\0')
    return Status::Error("--scale '" + s + "' is not a number; " + help);
  // Checked on the fp32 value the cast will use: "1e39" overflows fp32 and a
  // scale below ~2.9e-39 has an infinite reciprocal (the dequantize step).
  if (!std::isfinite(v) || !(v > 0.0f) || !std::isfinite(1.0f / v)) {
    return Status::Error("--scale '" + s + "' is out of range; " + help);
  }
  return v;
}

int Fail(const std::string& message, int code = kExitBadInput) {
  return PrintError("quantize", message, code);
}

// --target T --role R: the role's format, scaling and rounding as the target
// file says (core/target.h); --format, --scale, --rounding, --saturate and
// --ftz do not apply.
int RunQuantizeTarget(const QuantizeArgs& a) {
  if (!a.format.empty()) return Fail("give either --format or --target, not both");
  if (a.role.empty()) {
    return Fail("--target needs --role (activation, weight, activation_grad, weight_grad, "
                "optimizer_state or master_weights)");
  }
  if (a.saturate || a.ftz || a.rounding != "rne" || a.scale != "1") {
    return Fail("--saturate, --ftz, --rounding and --scale come from the target's role; drop "
                "them or use --format");
  }
  StatusOr<TargetRole> role = ParseTargetRole(a.role);
  if (!role.ok()) return Fail("--role: " + role.status().message());
  StatusOr<Target> target = FindTarget(a.target);
  if (!target.ok()) return Fail("--target: " + target.status().message());
  StatusOr<uint64_t> seed = ParseSeed(a.seed);
  if (!seed.ok()) return Fail(seed.status().message());
  Status checked = CheckOutput(a.out, {a.in}, {}, "OUT");
  if (!checked.ok()) return PrintError("quantize", checked);
  StatusOr<NpyArray> in = ReadNpy(a.in);
  if (!in.ok()) return Fail(in.status().message());
  const NpyArray& arr = *in;

  const RoleSpec& spec = target->role(*role);
  const std::vector<int64_t> shape(arr.shape.begin(), arr.shape.end());
  const auto [rows, cols] = RoleMatrixShape(spec, shape);
  RoleQuantizer q(spec);
  RoleQuantizer::Options opt;
  opt.seed = *seed;
  const unsigned cores = std::thread::hardware_concurrency();
  opt.threads = cores == 0 ? 1 : static_cast<int>(cores);
  std::vector<float> out(arr.data.size());
  CastCounts counts;
  const float scale = q.Quantize(arr.data.data(), rows, cols, opt, out.data(), &counts);
  Status st = WriteNpy(a.out, arr.shape, out.data());
  if (!st.ok()) return PrintError("quantize", st);
  // With OUT "-" the array is stdout: the summary goes to stderr.
  std::ostream& report = a.out == "-" ? std::cerr : std::cout;

  const std::string overflow_result =
      spec.storage == RoleSpec::Storage::kFloat ? ToString(spec.format.overflow_result()) : "max";
  if (a.json) {
    nlohmann::ordered_json j = {
        {"target", target->name},
        {"role", a.role},
        {"format", spec.StorageName()},
        {"scaling", spec.scaling.FullName()},
        {"scale", static_cast<double>(scale)},
        {"seed", *seed},
        {"input", a.in},
        {"input_dtype", ToString(arr.source_dtype)},
        {"output", a.out},
        {"shape", arr.shape},
    };
    j.update(CountsJson(spec.storage == RoleSpec::Storage::kFloat ? spec.format
                                                                   : *ParseFormat("fp32:sat"),
                        counts));
    j["overflow_result"] = overflow_result;
    report << j.dump(2) << "\n";
    return kExitOk;
  }
  report << fmt::format("{} {} {} -> {}\n", Printable(a.in), ShapeToString(arr.shape),
                           ToString(arr.source_dtype), Printable(a.out));
  report << fmt::format("target {}, role {}: {} with {} scaling (as [{} x {}]), seed {}\n\n",
                           target->name, a.role, spec.StorageName(), spec.scaling.FullName(), rows,
                           cols, *seed);
  const uint64_t n = counts.numel;
  Table t({{"count"}, {"elements", true}, {"%", true}});
  t.AddRow({"numel", std::to_string(n), n ? "100.000" : "0"});
  t.AddRow({"underflow", std::to_string(counts.underflow), Percent(counts.underflow, n)});
  t.AddRow({"flushed", std::to_string(counts.flushed), Percent(counts.flushed, n)});
  t.AddRow({"subnormal", std::to_string(counts.subnormal), Percent(counts.subnormal, n)});
  t.AddRow({"overflow (-> " + overflow_result + ")", std::to_string(counts.overflow),
            Percent(counts.overflow, n)});
  t.AddRow({"nan_in", std::to_string(counts.nan_in), Percent(counts.nan_in, n)});
  t.AddRow({"inf_in", std::to_string(counts.inf_in), Percent(counts.inf_in, n)});
  t.AddRow({"zero_in", std::to_string(counts.zero_in), Percent(counts.zero_in, n)});
  report << t.Render();
  report << "\nSNR " << Decibels(counts.SnrDb()) << " dB\n";
  return kExitOk;
}

// Elements per piece of `lpsim quantize` (16 MiB of float32, a multiple of
// kSumChunk as simd::PieceQuantizer needs).
constexpr size_t kQuantizePieceElems = size_t{4} << 20;
static_assert(kQuantizePieceElems % kSumChunk == 0, "pieces of whole chunks");

int RunQuantize(const QuantizeArgs& a) {
  if (!a.target.empty()) return RunQuantizeTarget(a);
  if (a.format.empty()) return Fail("give --format SPEC or --target NAME --role ROLE");
  if (!a.role.empty()) return Fail("--role needs --target");
  // 1. Flags, cheapest first; nothing has been read yet.
  StatusOr<Format> parsed = ParseFormat(a.format);
  if (!parsed.ok()) return Fail(parsed.status().message());
  Format format = *parsed;
  if (a.saturate) format = format.WithSaturate(true);
  if (a.ftz) format = format.WithFtz(true);
  StatusOr<Rounding> rounding = ParseRounding(a.rounding);
  if (!rounding.ok()) return Fail("--rounding: " + rounding.status().message());
  StatusOr<float> scale = ParseScale(a.scale);
  if (!scale.ok()) return Fail(scale.status().message());
  StatusOr<uint64_t> seed = ParseSeed(a.seed);
  if (!seed.ok()) return Fail(seed.status().message());
  // OUT may not be IN (under any name): the write would destroy the input.
  Status checked = CheckOutput(a.out, {a.in}, {}, "OUT");
  if (!checked.ok()) return PrintError("quantize", checked);

  // 2-4. Input, cast and output in pieces: a piece is cast in place and
  // written while the file system still writes out the ones before it (a
  // whole-file read, cast and write took about twice a synced copy). The
  // output is atomic as before: an input that turns out bad leaves nothing.
  QuantizeOptions opt;
  opt.rounding = *rounding;
  opt.seed = *seed;
  opt.scale = *scale;
  const unsigned cores = std::thread::hardware_concurrency();
  simd::PieceQuantizer quantizer(format, opt, cores == 0 ? 1 : static_cast<int>(cores));
  Status input_status;  // the input's fault (exit 2), not the output's
  NpyArray arr;
  Status st = WriteOutput(a.out, [&](OutputSink& out) -> Status {
    Status write_status;
    StatusOr<NpyArray> in = ReadNpy(
        a.in, kQuantizePieceElems,
        [&](const std::vector<size_t>& shape, float* data, size_t begin, size_t end) {
          if (begin == 0) {
            const std::string header = EncodeNpyHeader(shape);
            write_status = out.Write(header.data(), header.size());
            if (!write_status.ok()) return write_status;
          }
          quantizer.Next(data + begin, end - begin, data + begin);
          write_status = WriteNpyFloats(out, data + begin, end - begin);
          return write_status;
        });
    if (!write_status.ok()) return write_status;
    if (!in.ok()) {
      input_status = in.status();
      return input_status;
    }
    arr.shape = in->shape;
    arr.source_dtype = in->source_dtype;
    return Status();
  });
  if (!input_status.ok()) return Fail(input_status.message());
  if (!st.ok()) return PrintError("quantize", st);
  const CastCounts counts = quantizer.Finish();
  // With OUT "-" the array is stdout: the summary goes to stderr.
  std::ostream& report = a.out == "-" ? std::cerr : std::cout;

  // 5. Report.
  if (a.json) {
    nlohmann::ordered_json j = {
        {"format", format.name()},
        {"rounding", ToString(*rounding)},
        {"scale", static_cast<double>(*scale)},
        {"seed", *seed},
        {"input", a.in},
        {"input_dtype", ToString(arr.source_dtype)},
        {"output", a.out},
        {"shape", arr.shape},
    };
    j.update(CountsJson(format, counts));
    report << j.dump(2) << "\n";
    return kExitOk;
  }
  report << fmt::format("{} {} {} -> {}\n", Printable(a.in), ShapeToString(arr.shape),
                           ToString(arr.source_dtype), Printable(a.out));
  report << fmt::format("format {}, rounding {}, scale {}, seed {}\n\n", format.name(),
                           ToString(*rounding), Number(*scale), *seed);
  const uint64_t n = counts.numel;
  Table t({{"count"}, {"elements", true}, {"%", true}});
  t.AddRow({"numel", std::to_string(n), n ? "100.000" : "0"});
  t.AddRow({"underflow", std::to_string(counts.underflow), Percent(counts.underflow, n)});
  t.AddRow({"flushed", std::to_string(counts.flushed), Percent(counts.flushed, n)});
  t.AddRow({"subnormal", std::to_string(counts.subnormal), Percent(counts.subnormal, n)});
  t.AddRow({std::string("overflow (-> ") + ToString(format.overflow_result()) + ")",
            std::to_string(counts.overflow), Percent(counts.overflow, n)});
  t.AddRow({"nan_in", std::to_string(counts.nan_in), Percent(counts.nan_in, n)});
  t.AddRow({"inf_in", std::to_string(counts.inf_in), Percent(counts.inf_in, n)});
  t.AddRow({"zero_in", std::to_string(counts.zero_in), Percent(counts.zero_in, n)});
  report << t.Render();
  report << "\nSNR " << Decibels(counts.SnrDb()) << " dB\n";
  return kExitOk;
}

}  // namespace

void FakeQuantize(const Format& format, const float* in, size_t n, const QuantizeOptions& opt,
                  float* out, CastCounts* counts) {
  // The SIMD kernel (bit-exact with QuantizeRef), on every core for big inputs.
  const unsigned cores = std::thread::hardware_concurrency();
  simd::Quantize(format, in, n, opt, out, counts, cores == 0 ? 1 : static_cast<int>(cores));
}

nlohmann::ordered_json CountsJson(const Format& format, const CastCounts& c) {
  const double snr = c.SnrDb();
  return {
      {"numel", c.numel},
      {"underflow", c.underflow},
      {"flushed", c.flushed},
      {"subnormal", c.subnormal},
      {"overflow", c.overflow},
      {"overflow_result", ToString(format.overflow_result())},
      {"nan_in", c.nan_in},
      {"inf_in", c.inf_in},
      {"zero_in", c.zero_in},
      {"sq_error", c.sq_error},
      {"sq_signal", c.sq_signal},
      {"snr_db",
       std::isfinite(snr) ? nlohmann::ordered_json(snr) : nlohmann::ordered_json(nullptr)},
  };
}

void AddQuantizeCommand(CLI::App* app, Command* selected) {
  auto a = std::make_shared<QuantizeArgs>();
  CLI::App* sub = app->add_subcommand(
      "quantize", "Fake-quantize a .npy tensor into a format and count what happens");
  sub->add_option("--format,-f", a->format, "Format spec, e.g. e4m3fn or e4m3:bias=9:sat")
      ->type_name("SPEC");
  sub->add_option("--target,-t", a->target,
                  "Instead of --format: a hardware target (name or .json path; lpsim targets)")
      ->type_name("NAME|PATH");
  sub->add_option("--role", a->role,
                  "With --target: activation, weight, activation_grad, weight_grad, "
                  "optimizer_state or master_weights")
      ->type_name("ROLE");
  sub->add_flag("--saturate", a->saturate, "Clamp finite overflow to +-max");
  sub->add_flag("--ftz", a->ftz, "Flush results that would be subnormal to zero");
  sub->add_option("--rounding,-r", a->rounding, "rne (default), rtz or stochastic")
      ->type_name("MODE");
  sub->add_option("--seed", a->seed, "Seed of stochastic rounding (default 0)")->type_name("N");
  sub->add_option("--scale,-s", a->scale,
                  "Multiply by this before the cast and divide after (default 1)")
      ->type_name("S");
  sub->add_option("IN", a->in, "Input .npy (float32, float16 or float64)")
      ->type_name("")
      ->required();
  sub->add_option("OUT", a->out,
                  "Output .npy (float32, same shape); - for stdout (the summary then goes to stderr)")
      ->type_name("")
      ->required();
  sub->add_flag("--json", a->json, "Print the counts as one JSON object");
  sub->callback([a, selected] { *selected = [a] { return RunQuantize(*a); }; });
}

}  // namespace lpsim::cli
