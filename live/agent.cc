#include "live/agent.h"

#include <httplib.h>
#include <pthread.h>
#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <sstream>

#include "live/dashboard.h"
#include "report/html.h"

namespace lpsim::live {

namespace {

using Json = nlohmann::json;

constexpr size_t kMaxBodyBytes = 64 * 1024;

void Reply(httplib::Response& res, int status, const Json& body) {
  res.status = status;
  res.set_header("Cache-Control", "no-store");
  res.set_content(body.dump(), "application/json");
}

void ReplyError(httplib::Response& res, int status, const std::string& message) {
  Reply(res, status, Json{{"error", message}});
}

bool SameToken(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;  // the same time whatever the first difference
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

// Origins a browser may call the API from: pages served on loopback (another
// agent's dashboard), never an arbitrary web site.
bool LoopbackOrigin(const std::string& origin) {
  for (const char* p : {"http://127.0.0.1:", "http://localhost:", "http://[::1]:"}) {
    if (origin.rfind(p, 0) == 0) return true;
  }
  return false;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

bool IsLoopback(const std::string& host) {
  return host == "localhost" || host == "::1" || host == "[::1]" || host.rfind("127.", 0) == 0;
}

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

Status Agent::Listen() {
  server_ = std::make_unique<httplib::Server>();
  // One thread per open stream, and a few for the API.
  const size_t threads = static_cast<size_t>(opt_.max_clients) + 6;
  server_->new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  server_->set_payload_max_length(kMaxBodyBytes);
  server_->set_keep_alive_max_count(4);
  server_->set_keep_alive_timeout(1);
  server_->set_read_timeout(5);
  server_->set_write_timeout(2);  // a client that stops reading fails a write within this
  // httplib's default sets SO_REUSEPORT, with which a second job would bind
  // the same port and the kernel would split the clients between the two.
  // SO_REUSEADDR alone still lets a restarted job take its port back.
  server_->set_socket_options([](socket_t sock) {
    int yes = 1;
    (void)setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  Route();
  const std::string host = opt_.host == "localhost" ? "127.0.0.1" : opt_.host;
  if (opt_.port == 0) {
    port_ = server_->bind_to_any_port(host);
    if (port_ < 0) return Status::Error("could not bind a free port on " + host);
  } else {
    if (!server_->bind_to_port(host, opt_.port)) {
      return Status::Error("could not bind " + host + ":" + std::to_string(opt_.port) +
                           " (in use?): pick another port or 0 for a free one");
    }
    port_ = opt_.port;
  }
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  pthread_setname_np(thread_.native_handle(), "lpsim-live");
  // stop() before the accept loop runs would be lost (and join would hang).
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!server_->is_running() && std::chrono::steady_clock::now() < end) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (!server_->is_running()) return Status::Error("the live server did not start within 10 s");
  return Status();
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

namespace {

// Checks a value against a knob's type; returns it normalized.
StatusOr<Json> CheckValue(const KnobSpec& k, const Json& v) {
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

}  // namespace

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

void Agent::Route() {
  httplib::Server& s = *server_;
  s.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    const std::string origin = req.get_header_value("Origin");
    if (!origin.empty() && LoopbackOrigin(origin)) {
      res.set_header("Access-Control-Allow-Origin", origin);
      res.set_header("Vary", "Origin");
      res.set_header("Access-Control-Allow-Headers", "Content-Type, Authorization");
      res.set_header("Access-Control-Allow-Methods", "GET, POST, OPTIONS");
    }
    if (req.method == "OPTIONS") {  // a preflight carries no credentials
      res.status = 204;
      return httplib::Server::HandlerResponse::Handled;
    }
    if (opt_.token.empty()) return httplib::Server::HandlerResponse::Unhandled;
    std::string given = req.has_param("token") ? req.get_param_value("token") : "";
    const std::string auth = req.get_header_value("Authorization");
    if (auth.rfind("Bearer ", 0) == 0) given = auth.substr(7);
    if (SameToken(given, opt_.token)) return httplib::Server::HandlerResponse::Unhandled;
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++stats_.refused;
    }
    ReplyError(res, 401, given.empty() ? "this agent needs a token: add ?token=TOKEN or 'Authorization: Bearer TOKEN'"
                                       : "wrong token");
    return httplib::Server::HandlerResponse::Handled;
  });

  s.Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_header("Cache-Control", "no-store");
    res.set_content(kDashboardHtml, "text/html; charset=utf-8");
  });
  s.Get("/dashboard.js", [](const httplib::Request&, httplib::Response& res) {
    res.set_header("Cache-Control", "no-store");
    res.set_content(kDashboardScript, "application/javascript");
  });
  s.Get(R"(/assets/(vega|vega-lite|vega-embed)\.min\.js)", [this](const httplib::Request& req, httplib::Response& res) {
    const std::string pkg = req.matches[1];
    std::lock_guard<std::mutex> lock(assets_mu_);
    auto it = assets_.find(pkg);
    if (it == assets_.end()) {
      const std::string dir = opt_.web_dir.empty() ? WebAssetsDir() : opt_.web_dir;
      std::string text = ReadFile(dir + "/" + pkg + "/build/" + pkg + ".min.js");
      if (text.empty()) {
        ReplyError(res, 404, "no " + pkg + " bundle under " + dir + ": run scripts/setup.sh (npm ci in report/web)");
        return;
      }
      it = assets_.emplace(pkg, std::move(text)).first;
    }
    res.set_header("Cache-Control", "max-age=3600");
    res.set_content(it->second, "application/javascript");
  });

  s.Get("/api/job", [this](const httplib::Request&, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(mu_);
    Reply(res, 200, JobJson());
  });
  s.Get("/api/knobs", [this](const httplib::Request&, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(mu_);
    Reply(res, 200, KnobsJson());
  });
  s.Get("/api/fields", [](const httplib::Request&, httplib::Response& res) {
    Json step = Json::array();
    for (const FieldInfo& f : StepFields()) {
      step.push_back({{"name", f.name}, {"per_format", f.per_format}, {"numeric", f.numeric}, {"help", f.help}});
    }
    Reply(res, 200, Json{{"step", step}, {"scalar", {"value"}},
                         {"finding", {"rule", "severity", "tensor", "message", "evidence"}}});
  });
  s.Post(R"(/api/knobs/([^/]+))", [this](const httplib::Request& req, httplib::Response& res) {
    const std::string name = req.matches[1];
    Json body = Json::parse(req.body, nullptr, /*allow_exceptions=*/false);
    if (body.is_discarded() || !body.is_object() || !body.contains("value")) {
      ReplyError(res, 400, "the body must be JSON {\"value\": ...}");
      return;
    }
    auto cmd = std::make_shared<Command>();
    {
      std::unique_lock<std::mutex> lock(mu_);
      for (const auto& k : knobs_) {
        if (k->spec.name == name) cmd->knob = k;
      }
      if (!cmd->knob) {
        std::string names;
        for (const auto& k : knobs_) names += (names.empty() ? "" : ", ") + k->spec.name;
        lock.unlock();
        ReplyError(res, 404, "no knob '" + name + "': this job has " + (names.empty() ? "none" : names));
        return;
      }
      StatusOr<Json> v = CheckValue(cmd->knob->spec, body["value"]);
      if (!v.ok()) {
        lock.unlock();
        ReplyError(res, 400, v.status().message());
        return;
      }
      cmd->value = v.value();
      commands_.push_back(cmd);
      pending_.fetch_add(1, std::memory_order_release);
      // The job applies it at the end of its current step.
      ack_cv_.wait_for(lock, std::chrono::milliseconds(opt_.ack_timeout_ms), [&] { return cmd->done; });
      if (!cmd->done) {
        lock.unlock();
        Reply(res, 202, Json{{"knob", name}, {"value", cmd->value}, {"status", "queued"},
                             {"message", "the job has not reached the end of a step yet; it applies the value then"}});
        return;
      }
    }
    const KnobAck& a = cmd->ack;
    if (!a.applied) {
      ReplyError(res, 409, a.message.empty() ? "not applied" : a.message);
      return;
    }
    Reply(res, 200, Json{{"knob", a.knob}, {"value", a.value}, {"status", "applied"}, {"step", a.step}});
  });

  s.Get("/api/stream", [this](const httplib::Request& req, httplib::Response& res) {
    auto refuse = [&](int status, const std::string& message) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        ++stats_.refused;
      }
      ReplyError(res, status, message);
    };
    if (!req.has_param("q")) {
      refuse(400, "missing the query: /api/stream?q={\"kind\":\"step\"} (URL-encoded JSON, see docs/live.md)");
      return;
    }
    StatusOr<Query> q = ParseQuery(req.get_param_value("q"));
    if (!q.ok()) {
      refuse(400, "bad query: " + q.status().message());
      return;
    }
    auto c = std::make_shared<Client>(std::move(q).value());
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stats_.clients >= opt_.max_clients) {
        ++stats_.refused;
        ReplyError(res, 503, "this job already serves " + std::to_string(opt_.max_clients) + " streams; close one");
        return;
      }
      c->id = next_client_++;
      clients_.push_back(c);
      ++stats_.clients;
      ++stats_.subscribed;
      active_.fetch_add(1, std::memory_order_relaxed);
    }
    res.set_header("Cache-Control", "no-store");
    res.set_header("X-Accel-Buffering", "no");
    const auto heartbeat = std::chrono::milliseconds(std::max(10, opt_.heartbeat_ms));
    res.set_chunked_content_provider(
        "text/event-stream",
        [this, c, heartbeat](size_t, httplib::DataSink& sink) {
          if (!c->greeted) {
            c->greeted = true;
            const std::string hello = "event: hello\ndata: " +
                                      Json{{"client", c->id}, {"query", Json::parse(c->stream.query().text)}}.dump() +
                                      "\n\n";
            return sink.write(hello.data(), hello.size());
          }
          std::deque<std::string> batch;
          {
            std::unique_lock<std::mutex> lock(c->mu);
            c->cv.wait_for(lock, heartbeat, [&] { return !c->queue.empty() || c->dropped || stopping_; });
            if (stopping_) return false;
            if (c->dropped) return false;
            batch.swap(c->queue);
            c->bytes = 0;
          }
          if (batch.empty()) return sink.write(": keepalive\n\n", 13);  // finds vanished clients
          std::string out;
          for (const std::string& e : batch) out.append("data: ").append(e).append("\n\n");
          return sink.write(out.data(), out.size());
        },
        [this, c](bool) { Remove(c); });
  });
}

}  // namespace lpsim::live
