#include "tracker/capture.h"

#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tracker/tracker.h"

namespace lpsim {
namespace {

namespace fs = std::filesystem;

nlohmann::json Number(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); }

torch::Tensor RngState() {
  auto gen = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(gen.mutex());
  return gen.get_state();
}

// LibTorch's messages can run over several lines; a one-line error keeps the
// first.
std::string FirstLine(const std::string& s) { return s.substr(0, s.find('\n')); }

bool Finite(const torch::Tensor& t) {
  return !t.defined() || torch::isfinite(t.detach()).all().item<bool>();
}

}  // namespace

torch::Tensor CrossEntropyLoss(const torch::Tensor& output, const torch::Tensor& targets) {
  return torch::nn::functional::cross_entropy(output, targets);
}

Status WriteCapture(const std::string& dir, const torch::nn::Module& model,
                    const torch::optim::Optimizer& optimizer, const CaptureInput& in) {
  try {
    std::error_code ec;
    fs::remove_all(dir, ec);
    fs::create_directories(dir, ec);
    if (ec) return Status::Error("cannot create capture folder '" + dir + "': " + ec.message());
    const fs::path d(dir);
    std::vector<std::string> files = {"manifest.json", "finding.json", "model.pt", "optimizer.pt", "rng.pt"};
    {
      torch::serialize::OutputArchive archive;
      for (const auto& p : model.named_parameters(/*recurse=*/true)) archive.write(p.key(), p.value().detach());
      for (const auto& b : model.named_buffers(/*recurse=*/true)) archive.write(b.key(), b.value(), /*is_buffer=*/true);
      archive.save_to((d / "model.pt").string());
    }
    torch::save(optimizer, (d / "optimizer.pt").string());
    torch::save(in.rng_state.defined() ? in.rng_state : RngState(), (d / "rng.pt").string());
    const bool batch = in.inputs.defined();
    if (batch) {
      torch::save(in.inputs.detach(), (d / "inputs.pt").string());
      files.push_back("inputs.pt");
      if (in.targets.defined()) {
        torch::save(in.targets.detach(), (d / "targets.pt").string());
        files.push_back("targets.pt");
      }
    }
    nlohmann::ordered_json ev = nlohmann::ordered_json::object();
    for (const auto& [k, v] : in.finding.evidence) ev[k] = Number(v);
    nlohmann::ordered_json finding = {{"rule", in.finding.rule},
                                      {"severity", ToString(in.finding.severity)},
                                      {"step", in.finding.step},
                                      {"tensor", in.finding.tensor},
                                      {"message", in.finding.message},
                                      {"evidence", ev}};
    const CaptureManifest& m = in.manifest;
    nlohmann::ordered_json manifest = {{"lpsim_capture", 1},
                                       {"step", m.step},
                                       {"model", m.model},
                                       {"reason", m.reason},
                                       {"loss", Number(m.loss)},
                                       {"lr", Number(m.lr)},
                                       {"has_batch", batch},
                                       {"update_applied", m.update_applied},
                                       {"files", files}};
    std::ofstream(d / "finding.json") << finding.dump(2) << "\n";
    std::ofstream out(d / "manifest.json");
    out << manifest.dump(2) << "\n";
    if (!out) return Status::Error("cannot write '" + (d / "manifest.json").string() + "'");
  } catch (const c10::Error& e) {
    return Status::Error("cannot write capture '" + dir + "': " + e.what_without_backtrace());
  } catch (const std::exception& e) {
    return Status::Error("cannot write capture '" + dir + "': " + e.what());
  }
  return Status();
}

StatusOr<Replay> Replay::Load(const std::string& dir) {
  const fs::path d(dir);
  std::ifstream in(d / "manifest.json");
  if (!in) return Status::Error("'" + dir + "' is not a capture folder: no manifest.json");
  std::ostringstream text;
  text << in.rdbuf();
  StatusOr<CaptureManifest> m = ParseCaptureManifest(text.str());
  if (!m.ok()) return Status::Error((d / "manifest.json").string() + ": " + m.status().message());
  Replay r;
  r.dir_ = dir;
  r.manifest_ = *m;
  // Every file the manifest lists must be there: a replay without rng.pt or
  // targets.pt would run, but not the step that was captured. A manifest
  // without a list needs what WriteCapture always writes.
  std::vector<std::string> needed = r.manifest_.files;
  if (needed.empty()) {
    needed = {"model.pt", "optimizer.pt", "rng.pt"};
    if (r.manifest_.has_batch) needed.push_back("inputs.pt");
  }
  for (const std::string& f : needed) {
    std::error_code ec;
    if (!fs::is_regular_file(d / f, ec)) {
      return Status::Error((d / f).string() + " is missing" +
                           (ec && ec != std::errc::no_such_file_or_directory ? " (" + ec.message() + ")" : "") +
                           ", and manifest.json lists it: the capture is incomplete; capture the step again");
    }
  }
  auto listed = [&](const char* f) {
    return std::find(needed.begin(), needed.end(), f) != needed.end();
  };
  const char* reading = "";
  try {
    if (r.manifest_.has_batch) {
      reading = "inputs.pt";
      torch::load(r.inputs_, (d / reading).string());
      if (listed("targets.pt")) {
        reading = "targets.pt";
        torch::load(r.targets_, (d / reading).string());
      }
    }
    if (listed("rng.pt")) {
      reading = "rng.pt";
      torch::load(r.rng_state_, (d / reading).string());
    }
  } catch (const c10::Error& e) {
    return Status::Error("cannot read " + (d / reading).string() + ": " + FirstLine(e.what_without_backtrace()));
  }
  return r;
}

Status Replay::Restore(torch::nn::Module& model, torch::optim::Optimizer* optimizer) const {
  const fs::path d(dir_);
  const char* reading = "model.pt";
  try {
    torch::serialize::InputArchive archive;
    archive.load_from((d / reading).string());
    torch::NoGradGuard no_grad;
    auto load = [&](const std::string& key, torch::Tensor& dst, bool buffer) -> Status {
      torch::Tensor src;
      if (!archive.try_read(key, src, buffer)) {
        return Status::Error("capture has no tensor '" + key + "': is this the model that was captured?");
      }
      if (!src.sizes().equals(dst.sizes())) {
        std::ostringstream s;
        s << "tensor '" << key << "' has shape " << src.sizes() << " in the capture but " << dst.sizes()
          << " in the model";
        return Status::Error(s.str());
      }
      dst.copy_(src);
      return Status();
    };
    for (auto& p : model.named_parameters(true)) {
      Status s = load(p.key(), p.value(), false);
      if (!s.ok()) return s;
    }
    for (auto& b : model.named_buffers(true)) {
      Status s = load(b.key(), b.value(), true);
      if (!s.ok()) return s;
    }
    reading = "optimizer.pt";
    if (optimizer) torch::load(*optimizer, (d / reading).string());
    if (rng_state_.defined()) {
      auto gen = at::detail::getDefaultCPUGenerator();
      std::lock_guard<std::mutex> lock(gen.mutex());
      gen.set_state(rng_state_);
    }
  } catch (const c10::Error& e) {
    return Status::Error("cannot restore capture '" + dir_ + "' from " + reading + ": " +
                         FirstLine(e.what_without_backtrace()));
  }
  return Status();
}

StatusOr<ReplayResult> Replay::Run(torch::nn::Module& model, torch::optim::Optimizer* optimizer,
                                   const ReplayLoss& loss_fn,
                                   const std::function<torch::Tensor(const torch::Tensor&)>& forward) const {
  if (!inputs_.defined()) {
    return Status::Error("capture '" + dir_ + "' has no batch (the tracker was not given one with "
                         "set_batch): the step cannot be re-run");
  }
  Status s = Restore(model, optimizer);
  if (!s.ok()) return s;
  ReplayResult r;
  try {
    model.train();
    model.zero_grad();
    torch::Tensor x = inputs_;
    if (auto* seq = dynamic_cast<TrackedSequentialImpl*>(&model)) {
      const auto children = seq->named_children();
      size_t i = 0;
      for (auto it = seq->begin(); it != seq->end(); ++it, ++i) {
        x = it->forward(x);
        if (r.first_activation.empty() && !Finite(x) && i < children.size()) r.first_activation = children[i].key();
      }
    } else if (forward) {
      x = forward(x);
      if (!Finite(x)) r.first_activation = "output";
    } else {
      return Status::Error("Replay::Run needs a forward function for a model that is not a TrackedSequential");
    }
    torch::Tensor loss = loss_fn(x, targets_);
    r.loss = loss.item<double>();
    loss.backward();
    for (const auto& p : model.named_parameters(true)) {
      if (!Finite(p.value().grad())) r.nonfinite_gradients.push_back(p.key());
    }
  } catch (const c10::Error& e) {
    return Status::Error("replaying capture '" + dir_ + "' failed: " + FirstLine(e.what_without_backtrace()));
  }
  if (!r.nonfinite_gradients.empty()) r.first_gradient = r.nonfinite_gradients.front();
  r.reproduced = !std::isfinite(r.loss) || !r.nonfinite_gradients.empty();
  if (!r.first_activation.empty()) {
    r.first_nonfinite = "activation '" + r.first_activation + "'";
  } else if (!std::isfinite(r.loss)) {
    r.first_nonfinite = "loss";
  } else if (!r.first_gradient.empty()) {
    r.first_nonfinite = "gradient '" + r.first_gradient + "'";
  }
  return r;
}

}  // namespace lpsim
