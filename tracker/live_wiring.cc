#include "tracker/live_wiring.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <utility>

#include "formats/format.h"
#include "simd/analyze.h"

namespace lpsim {

using Json = nlohmann::json;

StatusOr<std::vector<Format>> ParseLiveFormats(const Json& specs, const std::map<Role, std::string>& judge_formats) {
  std::vector<Format> formats;
  if (!specs.is_array() || specs.empty()) return Status::Error("formats: name at least one format");
  for (const Json& spec : specs) {
    if (!spec.is_string()) return Status::Error("formats: each format is a string spec (got " + spec.dump() + ")");
    StatusOr<Format> f = ParseFormat(spec.get<std::string>());
    if (!f.ok()) return Status::Error("formats: " + f.status().message());
    formats.push_back(f.value());
  }
  if (formats.size() > kMaxAnalyzeFormats) {
    return Status::Error("formats: at most " + std::to_string(kMaxAnalyzeFormats) +
                         " formats are simulated in one pass (got " + std::to_string(formats.size()) + ")");
  }
  for (const auto& [role, name] : judge_formats) {
    bool kept = false;
    for (const Format& f : formats) kept |= f.name() == name;
    if (!kept) {
      return Status::Error("formats: the rules judge role " + ToString(role) + " in " + name +
                           " (TrackerOptions.judge); keep it in the list");
    }
  }
  return formats;
}

StatusOr<std::unique_ptr<LiveWiring>> LiveWiring::Start(LiveWiringOptions opt) {
  live::AgentOptions ao;
  ao.host = opt.host;
  ao.port = opt.port;
  ao.token = opt.token;
  ao.job_name = opt.job_name;
  ao.job_info = opt.job_info;
  ao.job_info["status"] = "running";
  std::unique_ptr<LivePredictions> predictions;
  if (!opt.predict.empty()) {
    predictions = std::make_unique<LivePredictions>(opt.predict);
    ao.job_info["predictions"] = predictions->Json();
  }
  StatusOr<std::unique_ptr<live::Agent>> made = live::Agent::Start(std::move(ao));
  if (!made.ok()) return Status::Error(opt.port_name + ": " + made.status().message());
  std::unique_ptr<LiveWiring> w(new LiveWiring(std::move(opt)));
  w->agent_ = std::move(made).value();
  w->predictions_ = std::move(predictions);
  for (const PredictedTarget& p : w->opt_.predict) w->judges_.emplace_back(w->opt_.predict_rules, &p.target);
  return w;
}

void LiveWiring::Hook(StepAnalyzerOptions* a) {
  live::Agent* agent = agent_.get();
  // Judged on each target until its first break sign (the prediction is
  // final then).
  a->on_record = [this, agent, user = std::move(a->on_record)](const TensorRecord& r) {
    if (user) user(r);
    agent->Publish(r);
    for (size_t i = 0; i < judges_.size(); ++i) {
      if (!predictions_->decided(i)) judges_[i].Add(r);
    }
  };
  a->on_scalar = [this, agent](const ScalarRecord& s) {
    agent->Publish(s);
    for (size_t i = 0; i < judges_.size(); ++i) {
      if (!predictions_->decided(i)) judges_[i].Add(s);
    }
  };
  a->on_finding = [agent](const Finding& f) { agent->Publish(f); };
  a->on_step_end = [this, agent](int64_t step) {
    JudgeStep(step);
    agent->PublishStepEnd(step);
  };
}

void LiveWiring::JudgeStep(int64_t step) {
  bool changed = false;
  for (size_t i = 0; i < judges_.size(); ++i) {
    if (predictions_->decided(i)) continue;
    for (const Finding& f : judges_[i].EndStep(step)) changed |= predictions_->Add(i, f);
  }
  if (changed) agent_->SetJobInfo("predictions", predictions_->Json());
}

Status LiveWiring::AddTrackerKnobs(int* every, bool* paused, StepAnalyzer* analyzer) {
  Status s = agent_->AddKnob({"every", "record tensors every N-th step", live::KnobType::kInteger, 1, 1e6}, *every,
                             [every](const Json& v) {
                               *every = v.get<int>();
                               return Status();
                             });
  if (!s.ok()) return s;
  s = agent_->AddKnob(
      {"paused", "no tensor records (loss and scalars go on) until set back to false", live::KnobType::kBool},
      *paused, [paused](const Json& v) {
        *paused = v.get<bool>();
        return Status();
      });
  if (!s.ok()) return s;
  const std::map<Role, std::string> judge = opt_.judge_formats;
  return agent_->AddKnob({"formats", "the formats analyzed from the next step (comma separated specs)",
                          live::KnobType::kStringList},
                         opt_.formats, [analyzer, judge](const Json& v) {
                           StatusOr<std::vector<Format>> f = ParseLiveFormats(v, judge);
                           if (!f.ok()) return f.status();
                           analyzer->SetFormats(std::move(f).value());
                           return Status();
                         });
}

Status LiveWiring::Announce() {
  const std::string url = agent_->url();
  const std::filesystem::path file = std::filesystem::path(opt_.run_dir) / "live.url";
  // Written whole, then renamed: a reader never sees half a URL.
  const std::filesystem::path tmp = file.string() + ".tmp";
  {
    std::ofstream out(tmp);
    out << url << "\n";
    if (!out.flush()) return Status::Error("could not write " + tmp.string());
  }
  std::error_code ec;
  std::filesystem::rename(tmp, file, ec);
  if (ec) return Status::Error("could not write " + file.string() + ": " + ec.message());
  // One write, so that a reader of stderr never sees half the line.
  std::cerr << ("lpsim: live dashboard and API at " + url + "\n") << std::flush;
  return Status();
}

void LiveWiring::ApplyPending(int64_t step, StepAnalyzer* analyzer) {
  if (!agent_->HasPending()) return;
  agent_->ApplyPending(step, [&](const live::KnobAck& a) {
    Finding f;
    f.rule = "live_knob";
    f.severity = Severity::kInfo;
    f.step = step;
    f.message = a.applied ? "knob " + a.knob + " set to " + a.value.dump() + " by a live client, from step " +
                                std::to_string(step)
                          : "knob " + a.knob + " = " + a.value.dump() + " refused: " + a.message;
    if (a.value.is_number()) f.evidence["value"] = a.value.get<double>();
    if (a.value.is_boolean()) f.evidence["value"] = a.value.get<bool>() ? 1 : 0;
    f.evidence["applied"] = a.applied ? 1 : 0;
    analyzer->Add(f, /*listed=*/false);
    if (a.applied && f.evidence.count("value")) {
      analyzer->Add(ScalarRecord{step, "knob/" + a.knob, f.evidence["value"]});
    }
  });
}

void LiveWiring::Close(const std::string& status) { agent_->SetJobInfo("status", status); }

}  // namespace lpsim
