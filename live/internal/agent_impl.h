// Agent's insides, shared by the files that define it: agent.cc (start,
// stop, the clients' queues and publishing), agent_http.cc (the server and
// its routes) and agent_knobs.cc (knobs and their commands). Not part of the
// public API (live/agent.h).
#ifndef LPSIM_LIVE_INTERNAL_AGENT_IMPL_H_
#define LPSIM_LIVE_INTERNAL_AGENT_IMPL_H_

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

#include "core/status.h"
#include "live/agent.h"
#include "live/query.h"

namespace lpsim::live {

using Json = nlohmann::json;

struct Agent::Client {
  explicit Client(Query q) : stream(std::move(q)) {}
  uint64_t id = 0;
  Stream stream;  // touched only under publish_mu_
  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::string> queue;
  size_t bytes = 0;
  bool dropped = false;
  bool greeted = false;
};

struct Agent::Knob {
  KnobSpec spec;
  Json value;
  std::function<Status(const Json&)> apply;
  Json last_ack;
};

struct Agent::Command {
  std::shared_ptr<Knob> knob;
  Json value;
  bool done = false;
  KnobAck ack;
};

namespace agent_internal {

// A knob command's value checked against the knob's type; returns it
// normalized (a number as double, "a,b" as a list).
StatusOr<Json> CheckKnobValue(const KnobSpec& k, const Json& v);

}  // namespace agent_internal
}  // namespace lpsim::live

#endif  // LPSIM_LIVE_INTERNAL_AGENT_IMPL_H_
