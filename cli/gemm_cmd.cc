// `lpsim gemm`: a matrix product on a simulated matrix-multiply unit (mmu/),
// and how far each unit's accumulation drifts from the exact dot product.
//
//   lpsim gemm --unit h100 --in e4m3fn A.npy B.npy [--c C.npy] D.npy [--json]
//   lpsim gemm --unit b200 --rowwise A.npy B.npy D.npy     # D[i] = A[i,:] . B[i,:]
//   lpsim gemm --sweep-k [--in e4m3fn] [--kmax 16384] [--json]
//
// Every input is checked before anything is computed, and the output is
// written atomically last, so on any error OUT does not change.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cli/commands.h"
#include "cli/table.h"
#include "core/output.h"
#include "core/printable.h"
#include "formats/format.h"
#include "mmu/gemm.h"
#include "mmu/unit.h"
#include "store/npy.h"

namespace lpsim::cli {
namespace {

struct GemmArgs {
  std::string unit;
  std::string in;
  std::string in_b;
  std::string out;
  std::string a, b, c, d;
  bool rowwise = false;
  bool json = false;
  bool sweep_k = false;
  int kmax = 16384;
  int rows = 256;
  std::string dist = "positive";
  uint64_t seed = 0;
};

int Fail(const std::string& message, int code = kExitBadInput) {
  return PrintError("gemm", message, code);
}

int Threads() {
  const unsigned cores = std::thread::hardware_concurrency();
  return cores == 0 ? 1 : static_cast<int>(cores);
}

// The unit's first input format: what --in means when it is not given.
std::string DefaultInput(const std::string& unit) {
  StatusOr<const mmu::Unit*> u = mmu::FindUnit(unit);
  if (!u.ok()) return "e4m3fn";
  return (*u)->modes.front().inputs.front();
}

// One unit in the last place of `out` at the magnitude of e.
double Ulp(const Format& out, double e) {
  const int lead = e == 0 ? out.min_normal_exponent() : std::ilogb(e);
  return std::ldexp(1.0, std::max(lead, out.min_normal_exponent()) - out.mantissa_bits());
}

struct ErrorStats {
  double max_ulp = 0;
  double mean_ulp = 0;
  std::optional<double> rel;  // ||d - e|| / ||e||, none when e = 0
  size_t compared = 0;        // finite pairs
};

ErrorStats Compare(const Format& out, const std::vector<float>& d, const std::vector<float>& e) {
  ErrorStats s;
  double sum_ulp = 0, err2 = 0, ref2 = 0;
  for (size_t i = 0; i < d.size(); ++i) {
    if (!std::isfinite(d[i]) || !std::isfinite(e[i])) continue;
    const double diff = std::fabs(static_cast<double>(d[i]) - e[i]);
    const double ulps = diff / Ulp(out, e[i]);
    s.max_ulp = std::max(s.max_ulp, ulps);
    sum_ulp += ulps;
    err2 += diff * diff;
    ref2 += static_cast<double>(e[i]) * e[i];
    ++s.compared;
  }
  if (s.compared) s.mean_ulp = sum_ulp / static_cast<double>(s.compared);
  if (ref2 > 0) s.rel = std::sqrt(err2 / ref2);
  return s;
}

nlohmann::ordered_json StatsJson(const ErrorStats& s) {
  return {{"max_ulp", s.max_ulp},
          {"mean_ulp", s.mean_ulp},
          {"rel_error", s.rel ? nlohmann::ordered_json(*s.rel) : nlohmann::ordered_json(nullptr)},
          {"compared", s.compared}};
}

// Columns [0, k) of a rows x cols row-major matrix.
std::vector<float> Prefix(const std::vector<float>& x, size_t rows, size_t cols, size_t k) {
  std::vector<float> y(rows * k);
  for (size_t i = 0; i < rows; ++i) std::copy_n(x.data() + i * cols, k, y.data() + i * k);
  return y;
}

// Prefix lengths for the error-by-K table: powers of two from 8, and K.
std::vector<size_t> PrefixLengths(size_t k) {
  std::vector<size_t> ks;
  for (size_t p = 8; p < k; p *= 2) ks.push_back(p);
  ks.push_back(k);
  return ks;
}

// D (or rowwise d) for the first k products on cfg.
std::vector<float> Run(const mmu::GemmConfig& cfg, bool rowwise, const NpyArray& a,
                       const NpyArray& b, const float* c, size_t k, mmu::GemmNotes* notes) {
  const size_t m = a.shape[0], kfull = a.shape[1];
  const std::vector<float> ap = k == kfull ? a.data : Prefix(a.data, m, kfull, k);
  if (rowwise) {
    const std::vector<float> bp = k == kfull ? b.data : Prefix(b.data, m, kfull, k);
    std::vector<float> d(m);
    mmu::RowwiseDot(cfg, m, k, ap.data(), bp.data(), c, d.data(), notes, Threads());
    return d;
  }
  const size_t n = b.shape[1];
  std::vector<float> d(m * n);
  // B's first k rows are its first k * n values.
  mmu::Gemm(cfg, m, n, k, ap.data(), b.data.data(), c, d.data(), notes, Threads());
  return d;
}

void Note(size_t count, size_t total, const char* what, const Format& f) {
  if (count == 0) return;
  std::cerr << fmt::format(
      "lpsim gemm: note: {} of {} values of {} are not {} values; they were rounded to nearest "
      "even first\n",
      count, total, what, f.name());
}

int RunFiles(const GemmArgs& g) {
  // 1. Flags, then inputs; nothing is written until the end.
  const std::string in_a = g.in.empty() ? DefaultInput(g.unit) : g.in;
  const std::string in_b = g.in_b.empty() ? in_a : g.in_b;
  StatusOr<mmu::GemmConfig> cfg = mmu::MakeGemmConfig(g.unit, in_a, in_b, g.out);
  if (!cfg.ok()) return Fail(cfg.status().message());
  if (g.a.empty() || g.b.empty() || g.d.empty()) {
    return Fail("give A.npy B.npy OUT.npy (or --sweep-k, which reads no files)");
  }
  // OUT may not be one of the inputs (the write would destroy it).
  std::vector<std::string> inputs = {g.a, g.b};
  if (!g.c.empty()) inputs.push_back(g.c);
  Status checked = CheckOutput(g.d, inputs, {}, "OUT");
  if (!checked.ok()) return PrintError("gemm", checked);
  StatusOr<NpyArray> a = ReadNpy(g.a);
  if (!a.ok()) return Fail(a.status().message());
  StatusOr<NpyArray> b = ReadNpy(g.b);
  if (!b.ok()) return Fail(b.status().message());
  auto is2d = [](const NpyArray& x) { return x.shape.size() == 2; };
  if (!is2d(*a)) return Fail(g.a + " has shape " + ShapeToString(a->shape) + "; A must be 2-D (M, K)");
  if (!is2d(*b)) return Fail(g.b + " has shape " + ShapeToString(b->shape) + "; B must be 2-D");
  const size_t m = a->shape[0], k = a->shape[1];
  std::vector<size_t> out_shape;
  if (g.rowwise) {
    if (b->shape != a->shape) {
      return Fail("--rowwise takes A and B of the same shape (M, K); got " +
                  ShapeToString(a->shape) + " and " + ShapeToString(b->shape));
    }
    out_shape = {m};
  } else {
    if (b->shape[0] != k) {
      return Fail("A is " + ShapeToString(a->shape) + " and B is " + ShapeToString(b->shape) +
                  ": B must have as many rows as A has columns (A is M x K, B is K x N)");
    }
    out_shape = {m, b->shape[1]};
  }
  std::optional<NpyArray> c;
  if (!g.c.empty()) {
    StatusOr<NpyArray> cr = ReadNpy(g.c);
    if (!cr.ok()) return Fail(cr.status().message());
    if (cr->shape != out_shape) {
      return Fail(g.c + " has shape " + ShapeToString(cr->shape) + "; C must have D's shape " +
                  ShapeToString(out_shape));
    }
    c = std::move(cr).value();
  }
  const float* cp = c ? c->data.data() : nullptr;

  // 2. The product.
  mmu::GemmNotes notes;
  const std::vector<float> d = Run(*cfg, g.rowwise, *a, *b, cp, k, &notes);
  Note(notes.a_rounded, a->data.size(), "A", cfg->formats.a);
  Note(notes.b_rounded, b->data.size(), "B", cfg->formats.b);
  Note(notes.c_rounded, c ? c->data.size() : 0, "C", cfg->formats.out);
  if (notes.flushed) {
    std::cerr << fmt::format("lpsim gemm: note: {} subnormal inputs were flushed to zero ({} does "
                             "not keep them)\n",
                             notes.flushed, cfg->unit->name);
  }

  // 3. Output, atomically; a failure here is not the input's fault.
  Status st = WriteNpy(g.d, out_shape, d.data());
  if (!st.ok()) return PrintError("gemm", st);

  // 4. Report; with OUT "-" the array is stdout, so the report goes to stderr.
  std::ostream& report = g.d == "-" ? std::cerr : std::cout;
  nlohmann::ordered_json j = {
      {"unit", cfg->unit->name},
      {"hardware", cfg->unit->hardware},
      {"in_a", cfg->formats.a.name()},
      {"in_b", cfg->formats.b.name()},
      {"out", cfg->formats.out.name()},
      {"final_rounding", ToString(cfg->formats.rounding)},
      {"rowwise", g.rowwise},
      {"shape", out_shape},
      {"k", k},
      {"output", g.d},
      {"rounded_inputs", {{"a", notes.a_rounded}, {"b", notes.b_rounded}, {"c", notes.c_rounded}}},
      {"flushed_inputs", notes.flushed},
  };
  if (!g.json) {
    report << fmt::format("{} on {} ({} x {} -> {}, final rounding {}): {} {} -> {}\n",
                          g.rowwise ? "rowwise dot" : "gemm", cfg->unit->name,
                          cfg->formats.a.name(), cfg->formats.b.name(), cfg->formats.out.name(),
                          ToString(cfg->formats.rounding), ShapeToString(a->shape),
                          ShapeToString(b->shape), Printable(g.d));
    return kExitOk;
  }
  StatusOr<mmu::GemmConfig> exact =
      mmu::MakeGemmConfig("exact", cfg->formats.a.name(), cfg->formats.b.name(), cfg->formats.out.name());
  if (!exact.ok()) return Fail(exact.status().message(), kExitFailure);
  const std::vector<float> e = Run(*exact, g.rowwise, *a, *b, cp, k, nullptr);
  j["error_vs_exact"] = StatsJson(Compare(cfg->formats.out, d, e));
  nlohmann::ordered_json by_k = nlohmann::ordered_json::array();
  for (size_t kp : PrefixLengths(k)) {
    if (kp == k) {
      nlohmann::ordered_json row = StatsJson(Compare(cfg->formats.out, d, e));
      row = {{"k", kp}, {"rel_error", row["rel_error"]}, {"max_ulp", row["max_ulp"]}};
      by_k.push_back(row);
      continue;
    }
    const std::vector<float> dk = Run(*cfg, g.rowwise, *a, *b, cp, kp, nullptr);
    const std::vector<float> ek = Run(*exact, g.rowwise, *a, *b, cp, kp, nullptr);
    nlohmann::ordered_json row = StatsJson(Compare(cfg->formats.out, dk, ek));
    by_k.push_back({{"k", kp}, {"rel_error", row["rel_error"]}, {"max_ulp", row["max_ulp"]}});
  }
  j["error_by_k"] = by_k;
  report << j.dump(2) << "\n";
  return kExitOk;
}

// Error growth with K: rowwise dot products of random vectors on every unit
// that takes the input format, against the exact dot product.
int RunSweep(const GemmArgs& g) {
  const std::string in = g.in.empty() ? "e4m3fn" : g.in;
  StatusOr<Format> fin = ParseFormat(in);
  if (!fin.ok()) return Fail(fin.status().message());
  if (g.kmax < 16 || g.kmax > (1 << 20)) return Fail("--kmax must be in 16..1048576");
  if (g.rows < 1 || g.rows > 65536) return Fail("--rows must be in 1..65536");
  if (g.dist != "positive" && g.dist != "normal") {
    return Fail("--dist must be positive (uniform in [0, 1)) or normal (N(0, 1))");
  }
  std::vector<const mmu::Unit*> units;
  for (const mmu::Unit& u : mmu::Units()) {
    if (u.kind != mmu::UnitKind::kExact && u.ModeFor(*fin, *fin).ok()) units.push_back(&u);
  }
  if (units.empty()) return Fail("no unit takes " + in + " inputs");
  StatusOr<mmu::GemmConfig> exact = mmu::MakeGemmConfig("exact", in, in, "fp32");
  if (!exact.ok()) return Fail(exact.status().message());
  std::vector<size_t> ks;
  for (size_t k = 16; k <= static_cast<size_t>(g.kmax); k *= 4) ks.push_back(k);
  const size_t m = static_cast<size_t>(g.rows);
  std::mt19937_64 rng(g.seed);
  std::uniform_real_distribution<float> uni(0.0f, 1.0f);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  // rel[u][i]: relative error of unit u at ks[i].
  std::vector<std::vector<ErrorStats>> stats(units.size());
  for (size_t k : ks) {
    std::vector<float> a(m * k), b(m * k);
    for (float& v : a) v = g.dist == "positive" ? uni(rng) : normal(rng);
    for (float& v : b) v = g.dist == "positive" ? uni(rng) : normal(rng);
    std::vector<float> e(m);
    mmu::RowwiseDot(*exact, m, k, a.data(), b.data(), nullptr, e.data(), nullptr, Threads());
    for (size_t u = 0; u < units.size(); ++u) {
      StatusOr<mmu::GemmConfig> cfg = mmu::MakeGemmConfig(units[u]->name, in, in, "fp32");
      if (!cfg.ok()) return Fail(cfg.status().message(), kExitFailure);
      std::vector<float> d(m);
      mmu::RowwiseDot(*cfg, m, k, a.data(), b.data(), nullptr, d.data(), nullptr, Threads());
      stats[u].push_back(Compare(cfg->formats.out, d, e));
    }
  }
  if (g.json) {
    nlohmann::ordered_json j = {{"in", in}, {"dist", g.dist}, {"rows", m}, {"seed", g.seed},
                                {"k", ks}};
    nlohmann::ordered_json us = nlohmann::ordered_json::array();
    for (size_t u = 0; u < units.size(); ++u) {
      nlohmann::ordered_json rows = nlohmann::ordered_json::array();
      for (const ErrorStats& s : stats[u]) rows.push_back(StatsJson(s));
      us.push_back({{"unit", units[u]->name}, {"by_k", rows}});
    }
    j["units"] = us;
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  std::cout << fmt::format("relative error ||d - exact|| / ||exact|| of {} rowwise dot products, "
                           "{} inputs ({}), fp32 out, seed {}\n\n",
                           m, in, g.dist == "positive" ? "uniform [0, 1)" : "N(0, 1)", g.seed);
  std::vector<Column> cols = {{"unit"}};
  for (size_t k : ks) cols.push_back({"K=" + std::to_string(k), true});
  Table t(cols);
  for (size_t u = 0; u < units.size(); ++u) {
    std::vector<std::string> row = {units[u]->name};
    for (const ErrorStats& s : stats[u]) row.push_back(s.rel ? fmt::format("{:.2e}", *s.rel) : "-");
    t.AddRow(row);
  }
  std::cout << t.Render();
  return kExitOk;
}

}  // namespace

void AddGemmCommand(CLI::App* app, Command* selected) {
  auto g = std::make_shared<GemmArgs>();
  CLI::App* sub = app->add_subcommand(
      "gemm", "D = A B + C on a simulated matrix-multiply unit (tensor core), or --sweep-k");
  sub->add_option("--unit,-u", g->unit,
                  "v100, a100, h100 (= h200), h100-promote128, b200, l40s, mi300, fp32-fma, exact")
      ->type_name("UNIT");
  sub->add_option("--in", g->in, "Input format of A and B (default: the unit's first, e.g. e4m3fn)")
      ->type_name("FMT");
  sub->add_option("--in-b", g->in_b, "Input format of B when it differs from A's (e.g. e5m2)")
      ->type_name("FMT");
  sub->add_option("--out", g->out, "Output format of C and D: fp32 (default), fp16 or bf16")
      ->type_name("FMT");
  sub->add_option("--c", g->c, "Accumulator C.npy, D's shape (default zeros)")->type_name("C.npy");
  sub->add_flag("--rowwise", g->rowwise, "A and B both M x K: D[i] = sum_k A[i,k] B[i,k] + C[i]");
  sub->add_flag("--json", g->json, "Print a JSON report with the error against the exact product");
  sub->add_flag("--sweep-k", g->sweep_k,
                "Error growth with K of every unit taking --in, on random vectors (no files)");
  sub->add_option("--kmax", g->kmax, "--sweep-k: largest K (default 16384)")->type_name("K");
  sub->add_option("--rows", g->rows, "--sweep-k: dot products per K (default 256)")->type_name("M");
  sub->add_option("--dist", g->dist, "--sweep-k: positive (default) or normal")->type_name("D");
  sub->add_option("--seed", g->seed, "--sweep-k: random seed (default 0)")->type_name("N");
  sub->add_option("A", g->a, "A.npy (M x K)")->type_name("");
  sub->add_option("B", g->b, "B.npy (K x N; M x K with --rowwise)")->type_name("");
  sub->add_option("OUT", g->d, "Output .npy (float32); - for stdout (the summary then goes to stderr)")->type_name("");
  sub->callback([g, selected] {
    *selected = [g] {
      if (g->sweep_k) {
        if (!g->a.empty()) return Fail("--sweep-k reads no files; drop A.npy B.npy OUT.npy");
        return RunSweep(*g);
      }
      if (g->unit.empty()) return Fail("--unit is required (or --sweep-k)");
      return RunFiles(*g);
    };
  });
}

}  // namespace lpsim::cli
