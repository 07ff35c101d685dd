// `lpsim replay DIR [--json]`: re-runs a captured failing step of a built-in
// demo model (tracker/capture.h) and names the first tensor that went
// non-finite. For your own models, use lpsim::Replay from C++.
//
// Exit status: 0 when the step reproduces a non-finite loss or gradient, 1
// when it replays cleanly (not reproduced), 2 for bad input (not a capture,
// not a built-in model).
//
//   lpsim replay runs/demo/captures/step_5
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/commands.h"
#include "core/printable.h"
#include "tracker/capture.h"
#include "tracker/demo.h"

namespace lpsim::cli {
namespace {

struct ReplayArgs {
  std::string dir;
  bool json = false;
};

int RunReplay(const ReplayArgs& a) {
  auto fail = [](const std::string& m, int code) { return PrintError("replay", m, code); };
  StatusOr<Replay> replay = Replay::Load(a.dir);
  if (!replay.ok()) return fail(replay.status().message(), kExitBadInput);
  const CaptureManifest& m = replay->manifest();
  if (m.model != "mlp" && m.model != "cnn") {
    return fail("capture model '" + m.model + "' is not a built-in demo model (mlp, cnn); "
                "replay it from C++ with lpsim::Replay and your model",
                kExitBadInput);
  }
  // The built-in models' loss (cross entropy) needs the batch's targets.
  if (m.has_batch && !replay->targets().defined()) {
    return fail(a.dir + ": the capture has no targets.pt (manifest.json does not list it): the "
                "built-in models' loss needs the targets of the batch; capture the step again",
                kExitBadInput);
  }
  TrackedSequential model = DemoTask(m.model).MakeModel();
  torch::optim::Adam optimizer(model->parameters(),
                               torch::optim::AdamOptions(std::isfinite(m.lr) && m.lr > 0 ? m.lr : 1e-3));
  StatusOr<ReplayResult> r = replay->Run(*model, &optimizer, CrossEntropyLoss);
  if (!r.ok()) return fail(r.status().message(), kExitBadInput);
  if (a.json) {
    nlohmann::ordered_json j = {{"capture", a.dir},
                                {"step", m.step},
                                {"model", m.model},
                                {"reason", m.reason},
                                {"reproduced", r->reproduced},
                                {"loss", std::isfinite(r->loss) ? nlohmann::ordered_json(r->loss) : nlohmann::ordered_json()},
                                {"first_nonfinite", r->first_nonfinite},
                                {"first_activation", r->first_activation},
                                {"first_gradient", r->first_gradient},
                                {"nonfinite_gradients", r->nonfinite_gradients}};
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << Printable(fmt::format("capture of step {} ({} model): {}", m.step, m.model, m.reason))
              << "\n";
    if (r->reproduced) {
      std::cout << fmt::format("reproduced: loss {}, first non-finite tensor: {}\n", r->loss,
                               r->first_nonfinite.empty() ? "?" : r->first_nonfinite);
      std::string grads;
      for (const std::string& g : r->nonfinite_gradients) grads += (grads.empty() ? "" : ", ") + g;
      if (!grads.empty()) std::cout << "non-finite gradients: " << grads << "\n";
    } else {
      std::cout << fmt::format("not reproduced: the step replays with a finite loss ({}) and "
                               "finite gradients\n", r->loss);
    }
  }
  return r->reproduced ? kExitOk : kExitFailure;
}

}  // namespace

void AddReplayCommand(CLI::App* app, Command* selected) {
  auto args = std::make_shared<ReplayArgs>();
  CLI::App* cmd = app->add_subcommand(
      "replay", "Re-run a captured non-finite step of a built-in model and name the first "
                "non-finite tensor");
  cmd->add_option("DIR", args->dir, "capture folder, e.g. runs/demo/captures/step_5")->required();
  cmd->add_flag("--json", args->json, "print the result as JSON");
  cmd->callback([selected, args] { *selected = [args] { return RunReplay(*args); }; });
}

}  // namespace lpsim::cli
