// The live agent's HTTP side (live/agent.h, docs/live.md): the server's
// settings, the token and origin checks, the dashboard and its assets, the
// JSON API and the event streams, which drain the queues agent.cc fills.
#include <httplib.h>
#include <pthread.h>
#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>

#include "live/dashboard.h"
#include "live/internal/agent_impl.h"
#include "report/html.h"

namespace lpsim::live {
namespace {

using agent_internal::CheckKnobValue;

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
      StatusOr<Json> v = CheckKnobValue(cmd->knob->spec, body["value"]);
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
