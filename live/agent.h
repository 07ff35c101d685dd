// The live agent: an HTTP server inside a training job that streams the
// job's records, scalars and findings to whoever watches (a browser on the
// dashboard it serves, `lpsim watch`, scripts), and takes commands only
// through knobs the job registered. Torch-free: it serves records, never
// tensors. docs/live.md has the API and the query grammar.
//
//   AgentOptions o;  o.port = 0;             // a free port on 127.0.0.1
//   StatusOr<std::unique_ptr<Agent>> a = Agent::Start(o);
//   std::cout << (*a)->url() << "\n";
//   (*a)->AddKnob({"lr", "learning rate", KnobType::kNumber, 0, 1}, 1e-3,
//                 [&](const nlohmann::json& v) { SetLr(v.get<double>()); return Status(); });
//   for (...) {                              // the training loop
//     (*a)->Publish(record);                 // no client: one atomic load
//     (*a)->PublishStepEnd(step);
//     (*a)->ApplyPending(step, nullptr);     // knob commands, on this thread
//   }
//
// Cost: with no client subscribed, Publish* returns after one relaxed
// atomic load. With clients, the publishing thread evaluates each client's
// query (live/query.h) and appends the events to the client's bounded
// queue; a client whose queue is full is dropped, so the publisher never
// waits on a network and memory stays bounded.
#ifndef LPSIM_LIVE_AGENT_H_
#define LPSIM_LIVE_AGENT_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "core/records.h"
#include "core/status.h"
#include "live/query.h"

namespace httplib {
class Server;
}  // namespace httplib

namespace lpsim::live {

struct AgentOptions {
  // Only loopback ("127.0.0.1", "::1", "localhost") is served without a
  // token; any other address needs `token`.
  std::string host = "127.0.0.1";
  int port = 0;  // 0: a free port
  // When set, every request must carry it ("Authorization: Bearer TOKEN" or
  // "?token=TOKEN"); others get 401.
  std::string token;
  std::string job_name = "job";
  nlohmann::json job_info = nlohmann::json::object();  // shown by GET /api/job
  int max_clients = 8;                  // concurrent streams
  size_t client_queue_events = 4096;    // per client; beyond it the client is dropped
  size_t client_queue_bytes = size_t{8} << 20;
  int ack_timeout_ms = 10000;           // how long a knob POST waits for the job
  int heartbeat_ms = 1000;              // SSE comment when idle (finds vanished clients)
  size_t recent_findings = 64;          // kept for GET /api/job and new dashboards
  // Folder holding vega/, vega-lite/, vega-embed/ (npm's node_modules) for
  // the dashboard; empty: report/'s WebAssetsDir().
  std::string web_dir;
};

enum class KnobType { kNumber, kInteger, kBool, kChoice, kStringList };
const char* ToString(KnobType t);

struct KnobSpec {
  KnobSpec() = default;
  KnobSpec(std::string name_, std::string help_, KnobType type_, double min_ = -1e300, double max_ = 1e300,
           std::vector<std::string> choices_ = {})
      : name(std::move(name_)), help(std::move(help_)), type(type_), min(min_), max(max_),
        choices(std::move(choices_)) {}
  std::string name;
  std::string help;
  KnobType type = KnobType::kNumber;
  double min = -1e300, max = 1e300;   // kNumber, kInteger
  std::vector<std::string> choices;   // kChoice (required), kStringList (empty: any)
};

// What a knob command became, as acknowledged to the client and recorded.
struct KnobAck {
  std::string knob;
  nlohmann::json value;
  int64_t step = 0;      // the step at whose end it was applied
  bool applied = false;
  std::string message;   // why not, when not applied
};

struct AgentStats {
  int clients = 0;             // streams now open
  uint64_t subscribed = 0;     // streams opened so far
  uint64_t dropped = 0;        // streams dropped for a full queue
  uint64_t events = 0;         // events queued to clients
  uint64_t refused = 0;        // requests refused (token, limits, bad queries)
};

class Agent {
 public:
  static StatusOr<std::unique_ptr<Agent>> Start(AgentOptions opt);
  ~Agent();  // stops the server, ends every stream
  Agent(const Agent&) = delete;
  Agent& operator=(const Agent&) = delete;

  // http://HOST:PORT/ (with ?token= when there is a token).
  std::string url() const;
  int port() const { return port_; }

  // Any thread; serialized inside.
  void Publish(const TensorRecord& r) {
    if (active_.load(std::memory_order_relaxed) == 0) return;
    PublishRecord(r);
  }
  void Publish(const ScalarRecord& s) {
    if (active_.load(std::memory_order_relaxed) == 0) return;
    PublishScalar(s);
  }
  // Findings are rare: the last few are also kept for GET /api/job.
  void Publish(const Finding& f);
  void PublishStepEnd(int64_t step);

  // Knobs. The initial value is shown until a command changes it; apply
  // runs on the thread that calls ApplyPending (the training thread), and
  // its error is the client's 409.
  Status AddKnob(KnobSpec spec, nlohmann::json initial,
                 std::function<Status(const nlohmann::json&)> apply);
  // Whether commands wait (one atomic load).
  bool HasPending() const { return pending_.load(std::memory_order_acquire) != 0; }
  // Applies the waiting commands in arrival order; `record` (may be null)
  // gets each acknowledgement, to keep it in the run.
  void ApplyPending(int64_t step, const std::function<void(const KnobAck&)>& record);

  void SetJobInfo(const std::string& key, nlohmann::json value);
  AgentStats stats() const;

 private:
  struct Client;
  struct Knob;
  struct Command;
  explicit Agent(AgentOptions opt);
  Status Listen();
  void Route();
  void PublishRecord(const TensorRecord& r);
  void PublishScalar(const ScalarRecord& s);
  // Hands events to a client; drops it when its queue is full.
  void Deliver(const std::shared_ptr<Client>& c, std::vector<std::string>* events);
  // Every subscribed client's events for one publication, delivered.
  void Fanout(const std::function<void(Client&, double, std::vector<std::string>*)>& make_events);
  void Remove(const std::shared_ptr<Client>& c);
  nlohmann::json JobJson() const;
  nlohmann::json KnobsJson() const;
  double Now() const;

  AgentOptions opt_;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int port_ = 0;
  std::chrono::steady_clock::time_point start_;

  std::atomic<int> active_{0};   // subscribed clients
  std::atomic<int> pending_{0};  // knob commands waiting
  std::atomic<int64_t> step_{-1};
  std::atomic<bool> stopping_{false};

  std::mutex publish_mu_;        // serializes publishers (query state)
  mutable std::mutex mu_;        // clients, findings, stats, knobs, job info
  std::vector<std::shared_ptr<Client>> clients_;
  std::deque<Finding> recent_;
  AgentStats stats_;
  uint64_t next_client_ = 1;
  nlohmann::json job_info_;

  std::vector<std::shared_ptr<Knob>> knobs_;
  std::deque<std::shared_ptr<Command>> commands_;
  std::condition_variable ack_cv_;

  mutable std::mutex assets_mu_;
  std::map<std::string, std::string> assets_;  // cached file contents
};

// True for 127.0.0.1 (127.0.0.0/8), ::1 and localhost.
bool IsLoopback(const std::string& host);

}  // namespace lpsim::live

#endif  // LPSIM_LIVE_AGENT_H_
