#include "live/agent.h"

#include <httplib.h>

#include <algorithm>
#include <chrono>

#include "live/internal/agent_impl.h"

// The agent's life (Start, the destructor) and its clients' queues: every
// publication is evaluated per client and queued, a client that falls behind
// is dropped. The HTTP side is agent_http.cc, knobs agent_knobs.cc.
namespace lpsim::live {

bool IsLoopback(const std::string& host) {
  return host == "localhost" || host == "::1" || host == "[::1]" || host.rfind("127.", 0) == 0;
}

Agent::Agent(AgentOptions opt) : opt_(std::move(opt)), start_(std::chrono::steady_clock::now()) {
  job_info_ = opt_.job_info.is_object() ? opt_.job_info : Json::object();
}

StatusOr<std::unique_ptr<Agent>> Agent::Start(AgentOptions opt) {
  if (!IsLoopback(opt.host) && opt.token.empty()) {
    return Status::Error("serving live on '" + opt.host +
                         "' (not loopback) needs a token: set a token, or serve 127.0.0.1");
  }
  if (opt.port < 0 || opt.port > 65535) {
    return Status::Error("live port " + std::to_string(opt.port) + " is out of range: use 0 (a free port) to 65535");
  }
  if (opt.max_clients < 1) opt.max_clients = 1;
  if (opt.client_queue_events < 1) opt.client_queue_events = 1;
  std::unique_ptr<Agent> a(new Agent(std::move(opt)));
  Status s = a->Listen();
  if (!s.ok()) return s;
  return a;
}

Agent::~Agent() {
  stopping_ = true;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& c : clients_) {
      std::lock_guard<std::mutex> cl(c->mu);
      c->cv.notify_all();
    }
    for (auto& cmd : commands_) {
      cmd->done = true;
      cmd->ack.message = "the job is shutting down";
    }
    ack_cv_.notify_all();
  }
  if (server_) server_->stop();
  if (thread_.joinable()) thread_.join();
}

std::string Agent::url() const {
  std::string host = opt_.host == "localhost" ? "127.0.0.1" : opt_.host;
  if (host.find(':') != std::string::npos && host.front() != '[') host = "[" + host + "]";
  std::string u = "http://" + host + ":" + std::to_string(port_) + "/";
  if (!opt_.token.empty()) u += "?token=" + opt_.token;
  return u;
}

double Agent::Now() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void Agent::Deliver(const std::shared_ptr<Client>& client, std::vector<std::string>* events) {
  Client& c = *client;
  if (events->empty()) return;
  bool drop = false;
  {
    std::lock_guard<std::mutex> lock(c.mu);
    if (c.dropped) return;
    size_t bytes = 0;
    for (const std::string& e : *events) bytes += e.size();
    if (c.queue.size() + events->size() > opt_.client_queue_events || c.bytes + bytes > opt_.client_queue_bytes) {
      // The client does not keep up: it goes, and its queue with it.
      c.dropped = drop = true;
      c.queue.clear();
      c.bytes = 0;
    } else {
      for (std::string& e : *events) c.queue.push_back(std::move(e));
      c.bytes += bytes;
    }
    c.cv.notify_one();
  }
  if (drop) Remove(client);  // its stream is no longer evaluated
  std::lock_guard<std::mutex> lock(mu_);
  if (drop) {
    ++stats_.dropped;
  } else {
    stats_.events += events->size();
  }
  events->clear();
}

void Agent::Fanout(
    const std::function<void(Client&, double, std::vector<std::string>*)>& make_events) {
  // One publisher at a time, so each client's events keep their order; the
  // client list is copied so a subscribe or a drop never waits for delivery.
  std::lock_guard<std::mutex> pub(publish_mu_);
  std::vector<std::shared_ptr<Client>> clients;
  {
    std::lock_guard<std::mutex> lock(mu_);
    clients = clients_;
  }
  const double now = Now();
  std::vector<std::string> events;
  for (auto& c : clients) {
    make_events(*c, now, &events);
    Deliver(c, &events);
  }
}

void Agent::PublishRecord(const TensorRecord& r) {
  Fanout([&](Client& c, double now, std::vector<std::string>* ev) { c.stream.OnRecord(r, now, ev); });
}

void Agent::PublishScalar(const ScalarRecord& s) {
  Fanout([&](Client& c, double now, std::vector<std::string>* ev) { c.stream.OnScalar(s, now, ev); });
}

void Agent::Publish(const Finding& f) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    recent_.push_back(f);
    while (recent_.size() > opt_.recent_findings) recent_.pop_front();
  }
  if (active_.load(std::memory_order_relaxed) == 0) return;
  Fanout([&](Client& c, double now, std::vector<std::string>* ev) { c.stream.OnFinding(f, now, ev); });
}

void Agent::PublishStepEnd(int64_t step) {
  step_.store(step, std::memory_order_relaxed);
  if (active_.load(std::memory_order_relaxed) == 0) return;
  Fanout([&](Client& c, double now, std::vector<std::string>* ev) { c.stream.OnStepEnd(step, now, ev); });
}

void Agent::Remove(const std::shared_ptr<Client>& c) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = std::find(clients_.begin(), clients_.end(), c);
  if (it == clients_.end()) return;
  clients_.erase(it);
  --stats_.clients;
  active_.fetch_sub(1, std::memory_order_relaxed);
}

AgentStats Agent::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

void Agent::SetJobInfo(const std::string& key, Json value) {
  std::lock_guard<std::mutex> lock(mu_);
  job_info_[key] = std::move(value);
}

Json Agent::JobJson() const {
  Json findings = Json::array();
  for (auto it = recent_.rbegin(); it != recent_.rend(); ++it) {
    findings.push_back({{"step", it->step}, {"rule", it->rule}, {"severity", ToString(it->severity)},
                        {"tensor", it->tensor}, {"message", it->message}});
  }
  const int64_t step = step_.load(std::memory_order_relaxed);
  Json j = {{"name", opt_.job_name},
            {"url", url()},
            {"step", step < 0 ? Json() : Json(step)},
            {"uptime_s", Now()},
            {"clients", stats_.clients},
            {"streams_opened", stats_.subscribed},
            {"streams_dropped", stats_.dropped},
            {"events", stats_.events},
            {"findings", findings},
            {"knobs", KnobsJson()},
            {"info", job_info_}};
  return j;
}

}  // namespace lpsim::live
