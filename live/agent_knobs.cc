// The live agent's knobs (live/agent.h): registration, the value checks a
// command passes before it is queued, and ApplyPending, which applies the
// queued commands on the job's thread and acknowledges them.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "live/internal/agent_impl.h"

namespace lpsim::live {

const char* ToString(KnobType t) {
  switch (t) {
    case KnobType::kNumber: return "number";
    case KnobType::kInteger: return "integer";
    case KnobType::kBool: return "bool";
    case KnobType::kChoice: return "choice";
    case KnobType::kStringList: return "string_list";
  }
  return "?";
}

Json Agent::KnobsJson() const {
  Json a = Json::array();
  for (const auto& k : knobs_) {
    Json j = {{"name", k->spec.name}, {"help", k->spec.help}, {"type", ToString(k->spec.type)}, {"value", k->value}};
    if (k->spec.type == KnobType::kNumber || k->spec.type == KnobType::kInteger) {
      if (k->spec.min > -1e300) j["min"] = k->spec.min;
      if (k->spec.max < 1e300) j["max"] = k->spec.max;
    }
    if (!k->spec.choices.empty()) j["choices"] = k->spec.choices;
    if (!k->last_ack.is_null()) j["last_ack"] = k->last_ack;
    a.push_back(j);
  }
  return a;
}

Status Agent::AddKnob(KnobSpec spec, Json initial, std::function<Status(const Json&)> apply) {
  if (spec.name.empty() || spec.name.find_first_of("/?#& ") != std::string::npos) {
    return Status::Error("knob name '" + spec.name + "' must be non-empty, without / ? # & or spaces");
  }
  if (spec.type == KnobType::kChoice && spec.choices.empty()) {
    return Status::Error("knob '" + spec.name + "' is a choice: give its choices");
  }
  if (!apply) return Status::Error("knob '" + spec.name + "' has no apply function");
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& k : knobs_) {
    if (k->spec.name == spec.name) return Status::Error("knob '" + spec.name + "' is registered twice");
  }
  auto k = std::make_shared<Knob>();
  k->spec = std::move(spec);
  k->value = std::move(initial);
  k->apply = std::move(apply);
  knobs_.push_back(std::move(k));
  return Status();
}

// Checks a value against a knob's type; returns it normalized.
StatusOr<Json> agent_internal::CheckKnobValue(const KnobSpec& k, const Json& v) {
  auto range = [&](double x) -> Status {
    if (!std::isfinite(x) || x < k.min || x > k.max) {
      std::ostringstream s;
      s << "knob '" << k.name << "' takes values in [" << k.min << ", " << k.max << "] (got " << v.dump() << ")";
      return Status::Error(s.str());
    }
    return Status();
  };
  switch (k.type) {
    case KnobType::kNumber: {
      if (!v.is_number()) return Status::Error("knob '" + k.name + "' takes a number (got " + v.dump() + ")");
      Status s = range(v.get<double>());
      if (!s.ok()) return s;
      return Json(v.get<double>());
    }
    case KnobType::kInteger: {
      if (!v.is_number_integer()) return Status::Error("knob '" + k.name + "' takes an integer (got " + v.dump() + ")");
      Status s = range(static_cast<double>(v.get<int64_t>()));
      if (!s.ok()) return s;
      return v;
    }
    case KnobType::kBool:
      if (!v.is_boolean()) return Status::Error("knob '" + k.name + "' takes true or false (got " + v.dump() + ")");
      return v;
    case KnobType::kChoice: {
      if (!v.is_string() || std::find(k.choices.begin(), k.choices.end(), v.get<std::string>()) == k.choices.end()) {
        std::string c;
        for (const std::string& x : k.choices) c += (c.empty() ? "" : ", ") + x;
        return Status::Error("knob '" + k.name + "' takes one of " + c + " (got " + v.dump() + ")");
      }
      return v;
    }
    case KnobType::kStringList: {
      Json list = Json::array();
      if (v.is_string()) {  // "a,b"
        std::stringstream s(v.get<std::string>());
        std::string item;
        while (std::getline(s, item, ',')) {
          if (!item.empty()) list.push_back(item);
        }
      } else if (v.is_array()) {
        for (const Json& x : v) {
          if (!x.is_string()) return Status::Error("knob '" + k.name + "' takes a list of strings (got " + v.dump() + ")");
          list.push_back(x);
        }
      } else {
        return Status::Error("knob '" + k.name + "' takes a list of strings (got " + v.dump() + ")");
      }
      if (list.empty()) return Status::Error("knob '" + k.name + "' needs at least one entry");
      for (const Json& x : list) {
        if (!k.choices.empty() &&
            std::find(k.choices.begin(), k.choices.end(), x.get<std::string>()) == k.choices.end()) {
          return Status::Error("knob '" + k.name + "' does not offer '" + x.get<std::string>() + "'");
        }
      }
      return list;
    }
  }
  return Status::Error("unknown knob type");
}

void Agent::ApplyPending(int64_t step, const std::function<void(const KnobAck&)>& record) {
  if (!HasPending()) return;
  std::deque<std::shared_ptr<Command>> todo;
  {
    std::lock_guard<std::mutex> lock(mu_);
    todo.swap(commands_);
    pending_.store(0, std::memory_order_release);
  }
  for (auto& cmd : todo) {
    KnobAck ack;
    ack.knob = cmd->knob->spec.name;
    ack.value = cmd->value;
    ack.step = step;
    const Status s = cmd->knob->apply(cmd->value);
    ack.applied = s.ok();
    ack.message = s.ok() ? "" : s.message();
    if (record) record(ack);
    std::lock_guard<std::mutex> lock(mu_);
    if (ack.applied) cmd->knob->value = cmd->value;
    cmd->knob->last_ack = {{"value", ack.value}, {"step", step}, {"applied", ack.applied}, {"message", ack.message}};
    cmd->ack = ack;
    cmd->done = true;
  }
  ack_cv_.notify_all();
}

}  // namespace lpsim::live
