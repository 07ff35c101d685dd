// `lpsim analyze FILE`: the per-tensor analysis for tensors at rest: a .npy,
// a LibTorch file (torch::save of a tensor, a vector of tensors or a module;
// torch.jit.save; torch.save pickles: each tensor named by its key), or a
// directory of such files (.npy, .pt, .pth). Files are told by their content,
// not their name. Prints the numerics per format and the recommendation;
// --report writes the HTML report. Without LibTorch (-DLPSIM_WITH_TORCH=OFF)
// LibTorch files get an error saying so.
//
//   lpsim analyze model.pt --formats e4m3fn,e5m2 --report model.html
//   lpsim analyze weights/ --json
//   lpsim analyze model.pt --target int8-npu,b200-nvfp4 [--role weight]
#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/torch_half.h"
#include "cli/table.h"
#include "core/output.h"
#include "core/printable.h"
#include "core/target.h"
#include "report/html.h"
#include "report/recommend.h"
#include "simd/analyze.h"
#include "simd/role_quantizer.h"
#include "simd/scaling.h"
#include "store/npy.h"
#include "store/torch_archive.h"

namespace lpsim::cli {

std::string RecommendationTable(const Recommendation& r);  // recommend_cmd.cc

namespace {

// One tensor to analyze, as read from a file.
struct Input {
  std::string name;
  std::vector<int64_t> shape;
  std::string dtype;
  std::vector<float> data;
};

// The first `n` bytes of a file (fewer when it is shorter or unreadable).
std::string FileHead(const std::string& path, size_t n) {
  std::ifstream in(path, std::ios::binary);
  std::string b(n, '\0');
  in.read(&b[0], static_cast<std::streamsize>(n));
  b.resize(static_cast<size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  return b;
}

// The tensors of one file; `prefix` is prepended to LibTorch keys (the file's
// stem when it is one of a directory). Notes collect skipped tensors.
Status ReadInputs(const std::filesystem::path& p, const std::string& prefix,
                  std::vector<Input>* out, std::vector<std::string>* notes) {
  const std::string path = p.string();
  const bool npy = FileHead(path, 6) == "\x93NUMPY";
  if (!npy && SniffTorchFile(FileHead(path, kTorchSniffBytes)) != TorchFileKind::kOther) {
    StatusOr<TorchFile> f = ReadTorchFileWithHelper(path);
    if (!f.ok()) return f.status();
    TorchFile file = std::move(f).value();
    for (const std::string& n : file.notes) notes->push_back(path + ": " + n);
    if (file.tensors.empty()) notes->push_back(path + ": no floating-point tensors");
    for (TorchTensor& t : file.tensors) {
      out->push_back({prefix + t.name, std::move(t.shape), std::move(t.dtype), std::move(t.data)});
    }
    return Status();
  }
  if (!npy && p.extension() != ".npy") {
    return Status::Error(path + ": neither a .npy file nor a LibTorch file (torch::save, "
                         "torch.jit.save, torch.save); lpsim analyze reads those");
  }
  StatusOr<NpyArray> arr = ReadNpy(path);
  if (!arr.ok()) {
    // In a directory, an array of integers (or another non-float type) is
    // skipped with a note, like a LibTorch file's non-float tensors; named
    // on its own it is an error.
    if (!prefix.empty() &&
        arr.status().message().rfind(path + ": " + kNpyUnsupportedDtype, 0) == 0) {
      const std::string why = arr.status().message().substr(path.size() + 2);
      notes->push_back(path + ": skipped: " + why.substr(0, why.find(';')) + ", not a float array");
      return Status();
    }
    return arr.status();
  }
  Input in;
  in.name = p.stem().string();
  for (size_t d : arr->shape) in.shape.push_back(static_cast<int64_t>(d));
  in.dtype = ToString(arr->source_dtype);
  in.data = std::move(arr->data);
  out->push_back(std::move(in));
  return Status();
}

struct AnalyzeArgs {
  std::string path;
  std::vector<std::string> formats = {"e4m3fn", "e5m2", "bf16"};
  std::vector<std::string> targets;
  std::string role = "weight";
  std::string report;
  bool json = false;
};

int RunAnalyze(const AnalyzeArgs& a) {
  namespace fs = std::filesystem;
  auto fail = [](const std::string& m, int code) { return PrintError("analyze", m, code); };
  std::vector<Format> formats;
  for (const std::string& s : a.formats) {
    StatusOr<Format> f = ParseFormat(s);
    if (!f.ok()) return fail(f.status().message(), kExitBadInput);
    if (!f->has_zero()) return fail("format '" + s + "' is a scale format", kExitBadInput);
    formats.push_back(*f);
  }
  if (formats.size() > kMaxAnalyzeFormats) {
    return fail("at most " + std::to_string(kMaxAnalyzeFormats) + " formats", kExitBadInput);
  }
  StatusOr<TargetRole> role = ParseTargetRole(a.role);
  if (!role.ok()) return fail("--role: " + role.status().message(), kExitBadInput);
  StatusOr<std::vector<Target>> targets = LoadTargets(a.targets);
  if (!targets.ok()) return fail("--target: " + targets.status().message(), kExitBadInput);
  std::vector<fs::path> files;
  std::vector<std::string> notes;
  std::error_code ec;
  if (fs::is_directory(a.path, ec)) {
    // Without exceptions: an entry that cannot be looked at (a symlink
    // loop, a dangling link, no permission) is a note, not the end.
    fs::directory_iterator it(a.path, ec), end;
    if (ec) return fail(a.path + ": cannot list the directory: " + ec.message(), kExitBadInput);
    for (; it != end; it.increment(ec)) {
      if (ec) return fail(a.path + ": cannot list the directory: " + ec.message(), kExitBadInput);
      const fs::path& p = it->path();
      const std::string ext = p.extension().string();
      if (ext != ".npy" && ext != ".pt" && ext != ".pth") continue;
      std::error_code st_ec;
      const bool regular = it->is_regular_file(st_ec);
      if (st_ec) {
        notes.push_back(p.string() + ": skipped: " + st_ec.message());
      } else if (regular) {
        files.push_back(p);
      } else {
        notes.push_back(p.string() + ": skipped: not a regular file");
      }
    }
    std::sort(files.begin(), files.end());
    if (files.empty()) {
      for (const std::string& n : notes) std::cerr << "note: " << Printable(n) << "\n";
      return fail("no .npy, .pt or .pth files in " + a.path, kExitBadInput);
    }
  } else if (fs::exists(a.path, ec)) {
    files.push_back(a.path);
  } else {
    return fail(a.path + ": " + (ec ? ec.message() : std::string("no such file or directory")),
                kExitBadInput);
  }
  if (!a.report.empty()) {
    std::vector<std::string> inputs;
    for (const fs::path& p : files) inputs.push_back(p.string());
    Status s = CheckOutput(a.report, inputs, {}, "--report");
    if (!s.ok()) return PrintError("analyze", s);
  }

  // Each tensor is cast with per-tensor current scaling, the recipe that
  // needs no history.
  // Every file is read before anything is written: a bad one fails the
  // whole command.
  std::vector<Input> inputs;
  const bool dir = files.size() > 1 || fs::is_directory(a.path, ec);
  for (const fs::path& p : files) {
    Status s = ReadInputs(p, dir ? p.stem().string() + "/" : "", &inputs, &notes);
    if (!s.ok()) return fail(s.message(), kExitBadInput);
  }
  if (inputs.empty()) {
    for (const std::string& n : notes) std::cerr << "note: " << Printable(n) << "\n";
    return fail("no floating-point tensors in " + a.path, kExitBadInput);
  }
  std::vector<TensorRecord> records;
  // Per tensor, per target: the role's simulation (clipping = overflow,
  // underflow and the rounding error as SNR).
  std::vector<std::vector<CastCounts>> on_target;
  for (Input& in : inputs) {
    on_target.emplace_back();
    for (const Target& t : *targets) {
      const RoleSpec& spec = t.role(*role);
      const auto [rows, cols] = RoleMatrixShape(spec, in.shape);
      RoleQuantizer q(spec);
      std::vector<float> out(in.data.size());
      CastCounts c;
      q.Quantize(in.data.data(), rows, cols, {}, out.data(), &c);
      on_target.back().push_back(c);
    }
    const AnalyzeResult pre = simd::Analyze(in.data.data(), in.data.size(), {});
    std::vector<FormatSlot> slots;
    for (const Format& f : formats) slots.push_back({f, CurrentScale(f, pre.stats.max_abs)});
    AnalyzeResult r = simd::Analyze(in.data.data(), in.data.size(), slots);
    std::vector<float>().swap(in.data);  // one tensor's copy at a time
    TensorRecord rec;
    rec.name = in.name;
    rec.role = Role::kWeight;
    rec.shape = in.shape;
    rec.dtype = in.dtype;
    rec.stats = std::move(r.stats);
    for (size_t i = 0; i < formats.size(); ++i) {
      rec.formats.push_back({formats[i].name(), "current", slots[i].scale, r.formats[i]});
    }
    records.push_back(std::move(rec));
  }
  RecommendOptions ropt;
  // Tensors at rest have no history to replay delayed scaling from.
  ropt.what_if_recipes = {"none", "current", "mx"};
  StatusOr<Recommendation> rec = RecommendFromRecords(records, ropt);
  if (!rec.ok()) return fail(rec.status().message(), kExitBadInput);

  if (!a.report.empty()) {
    ReportOptions o;
    o.recommend = ropt;
    for (const Target& tg : *targets) {
      for (ExtraRange& x : TargetRanges(tg)) {
        if (x.role == Role::kWeight) o.extra_ranges.push_back(std::move(x));
      }
    }
    StatusOr<std::string> html = RenderRecordsReport("lpsim analyze: " + a.path, records, o);
    if (!html.ok()) return fail(html.status().message(), kExitBadInput);
    Status s = WriteOutput(a.report, *html);
    if (!s.ok()) return PrintError("analyze", s);
  }
  if (a.json) {
    nlohmann::ordered_json j = {{"tensors", nlohmann::ordered_json::array()}};
    for (const TensorRecord& r : records) {
      nlohmann::ordered_json t = {{"name", r.name}, {"shape", r.shape}, {"dtype", r.dtype},
                                  {"max_abs", r.stats.max_abs}, {"min_abs", r.stats.min_abs}};
      for (size_t i = 0; i < r.formats.size(); ++i) {
        nlohmann::ordered_json c = CountsJson(formats[i], r.formats[i].counts);
        c["recipe"] = "current";
        c["scale"] = r.formats[i].scale;
        t["formats"][r.formats[i].format] = c;
      }
      const size_t k = static_cast<size_t>(&r - records.data());
      for (size_t i = 0; i < targets->size(); ++i) {
        const RoleSpec& spec = (*targets)[i].role(*role);
        nlohmann::ordered_json c = CountsJson(
            spec.storage == RoleSpec::Storage::kFloat ? spec.format : *ParseFormat("fp32:sat"),
            on_target[k][i]);
        c["role"] = a.role;
        c["format"] = spec.StorageName();
        c["scaling"] = spec.scaling.FullName();
        t["targets"][(*targets)[i].name] = c;
      }
      j["tensors"].push_back(t);
    }
    j["notes"] = notes;
    j["recommendation"] = RecommendationJson(*rec);
    if (!a.report.empty()) j["report"] = a.report;
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  std::vector<Column> cols = {{"tensor", false}, {"shape", false}, {"max |x|", true}};
  for (const Format& f : formats) {
    cols.push_back({f.name() + " under%", true});
    cols.push_back({"over%", true});
    cols.push_back({"SNR dB", true});
  }
  Table t(cols);
  for (const TensorRecord& r : records) {
    std::string shape;
    for (int64_t d : r.shape) shape += (shape.empty() ? "" : "x") + std::to_string(d);
    std::vector<std::string> row = {r.name, shape.empty() ? "scalar" : shape,
                                    Number(r.stats.max_abs)};
    for (const FormatRecord& f : r.formats) {
      row.push_back(Percent(f.counts.underflow, f.counts.numel));
      row.push_back(Percent(f.counts.overflow, f.counts.numel));
      row.push_back(Decibels(f.counts.SnrDb()));
    }
    t.AddRow(row);
  }
  std::cout << "Per tensor, with per-tensor current scaling:\n" << t.Render() << "\n";
  if (!targets->empty()) {
    std::vector<Column> tcols = {{"tensor", false}};
    for (const Target& tg : *targets) {
      tcols.push_back({tg.name + " clip%", true});
      tcols.push_back({"under%", true});
      tcols.push_back({"SNR dB", true});
    }
    Table tt(tcols);
    for (size_t k = 0; k < records.size(); ++k) {
      std::vector<std::string> row = {records[k].name};
      for (const CastCounts& c : on_target[k]) {
        row.push_back(Percent(c.overflow, c.numel));
        row.push_back(Percent(c.underflow, c.numel));
        row.push_back(Decibels(c.SnrDb()));
      }
      tt.AddRow(row);
    }
    std::cout << "Per tensor as the targets store a " << a.role
              << " (clip = clamped to the largest value, under = lost to zero):\n"
              << tt.Render() << "\n";
    for (const Target& tg : *targets) {
      const RoleSpec& spec = tg.role(*role);
      std::cout << "  " << tg.name << ": " << spec.StorageName() << ", " << spec.scaling.FullName()
                << " scaling\n";
    }
    std::cout << "\n";
  }
  for (const std::string& n : notes) std::cout << "Note: " << Printable(n) << "\n";
  if (!notes.empty()) std::cout << "\n";
  std::cout << PrintableLines(RecommendationTable(*rec));
  if (!a.report.empty()) std::cout << "Report written to " << Printable(a.report) << "\n";
  return kExitOk;
}

}  // namespace

void AddAnalyzeCommand(CLI::App* app, Command* selected) {
  auto args = std::make_shared<AnalyzeArgs>();
  CLI::App* cmd = app->add_subcommand(
      "analyze",
      "Analyze tensors at rest (.npy, LibTorch file, or a directory of them) for candidate formats");
  cmd->add_option("FILE", args->path,
                  ".npy file, LibTorch file (torch::save / torch.jit.save / torch.save), or a "
                  "directory of .npy/.pt/.pth files")
      ->required();
  cmd->add_option("--formats", args->formats, "candidate formats (comma separated)")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--target", args->targets,
                  "also simulate each tensor as these hardware targets store it (names or .json "
                  "paths, comma separated; lpsim targets lists them)")
      ->delimiter(',');
  cmd->add_option("--role", args->role,
                  "the role the tensors play on the targets (default weight)")
      ->capture_default_str();
  cmd->add_option("--report", args->report, "also write the HTML report here");
  cmd->add_flag("--json", args->json, "print the result as JSON");
  cmd->callback([selected, args] { *selected = [args] { return RunAnalyze(*args); }; });
}

}  // namespace lpsim::cli
