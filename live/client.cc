#include "live/client.h"

#include <httplib.h>

#include <cstdlib>
#include <memory>

namespace lpsim::live {

namespace {

using Json = nlohmann::json;

std::unique_ptr<httplib::Client> Connect(const Endpoint& e, int timeout_s) {
  auto c = std::make_unique<httplib::Client>(e.host, e.port);
  c->set_connection_timeout(timeout_s, 0);
  c->set_read_timeout(timeout_s, 0);
  c->set_write_timeout(timeout_s, 0);
  return c;
}

httplib::Headers Auth(const Endpoint& e) {
  httplib::Headers h;
  if (!e.token.empty()) h.emplace("Authorization", "Bearer " + e.token);
  return h;
}

std::string Where(const Endpoint& e) { return e.host + ":" + std::to_string(e.port); }

StatusOr<Reply> ToReply(const Endpoint& e, const httplib::Result& r) {
  if (!r) {
    return Status::Error("could not reach the agent at " + Where(e) + ": " + httplib::to_string(r.error()) +
                         " (is the job running? is the URL the one it printed?)");
  }
  Reply out;
  out.status = r->status;
  out.body = Json::parse(r->body, nullptr, /*allow_exceptions=*/false);
  if (out.body.is_discarded()) {
    return Status::Error(Where(e) + " answered " + std::to_string(r->status) + " without JSON: is it an lpsim agent?");
  }
  return out;
}

}  // namespace

StatusOr<Endpoint> ParseUrl(const std::string& url) {
  const std::string scheme = "http://";
  if (url.rfind(scheme, 0) != 0) {
    return Status::Error("'" + url + "' is not an agent URL: use http://127.0.0.1:PORT/ as the job printed it");
  }
  std::string rest = url.substr(scheme.size());
  Endpoint e;
  e.url = url;
  const size_t q = rest.find('?');
  if (q != std::string::npos) {
    const std::string query = rest.substr(q + 1);
    rest = rest.substr(0, q);
    size_t pos = 0;
    while (pos <= query.size()) {
      const size_t amp = std::min(query.find('&', pos), query.size());
      const std::string kv = query.substr(pos, amp - pos);
      if (kv.rfind("token=", 0) == 0) e.token = kv.substr(6);
      pos = amp + 1;
    }
  }
  const size_t slash = rest.find('/');
  if (slash != std::string::npos) rest = rest.substr(0, slash);
  size_t colon;
  if (!rest.empty() && rest.front() == '[') {
    const size_t close = rest.find(']');
    if (close == std::string::npos) return Status::Error("'" + url + "': unclosed [ in the host");
    e.host = rest.substr(1, close - 1);
    colon = rest.find(':', close);
  } else {
    colon = rest.rfind(':');
    e.host = rest.substr(0, colon);
  }
  if (e.host.empty()) return Status::Error("'" + url + "' has no host");
  if (colon == std::string::npos) return Status::Error("'" + url + "' has no port: the job printed http://HOST:PORT/");
  const std::string port = rest.substr(colon + 1);
  char* end = nullptr;
  const long p = std::strtol(port.c_str(), &end, 10);
  if (port.empty() || *end != '\0' || p < 1 || p > 65535) {
    return Status::Error("'" + url + "': the port '" + port + "' is not a number in 1..65535");
  }
  e.port = static_cast<int>(p);
  return e;
}

StatusOr<Reply> GetJson(const Endpoint& e, const std::string& path, int timeout_s) {
  auto c = Connect(e, timeout_s);
  return ToReply(e, c->Get(path, Auth(e)));
}

StatusOr<Reply> PostJson(const Endpoint& e, const std::string& path, const Json& body, int timeout_s) {
  auto c = Connect(e, timeout_s);
  return ToReply(e, c->Post(path, Auth(e), body.dump(), "application/json"));
}

Status Watch(const Endpoint& e, const std::string& query,
             const std::function<bool(const Json&)>& on_event, const std::function<bool()>& keep_going,
             int read_timeout_s) {
  auto c = Connect(e, read_timeout_s);
  int status = 0;
  std::string buffer, error_body;
  bool stopped = false;
  Status bad;
  httplib::Result r = c->Get(
      "/api/stream?q=" + httplib::detail::encode_query_param(query), Auth(e),
      [&](const httplib::Response& res) {
        status = res.status;
        return true;
      },
      [&](const char* data, size_t n) {
        if (status != 200) {
          error_body.append(data, n);
          return error_body.size() < 65536;
        }
        buffer.append(data, n);
        if (keep_going && !keep_going()) {
          stopped = true;
          return false;
        }
        size_t end;
        while ((end = buffer.find("\n\n")) != std::string::npos) {
          const std::string block = buffer.substr(0, end);
          buffer.erase(0, end + 2);
          std::string event = "message", payload;
          size_t pos = 0;
          while (pos < block.size()) {
            const size_t nl = std::min(block.find('\n', pos), block.size());
            const std::string line = block.substr(pos, nl - pos);
            pos = nl + 1;
            if (line.rfind("data: ", 0) == 0) payload += line.substr(6);
            else if (line.rfind("event: ", 0) == 0) event = line.substr(7);
          }
          if (event != "message" || payload.empty()) continue;  // hello, keepalive comments
          Json ev = Json::parse(payload, nullptr, /*allow_exceptions=*/false);
          if (ev.is_discarded()) {
            bad = Status::Error("the agent sent an event that is not JSON: " + payload.substr(0, 200));
            return false;
          }
          if (!on_event(ev)) {
            stopped = true;
            return false;
          }
        }
        return true;
      });
  if (!bad.ok()) return bad;
  if (stopped) return Status();
  if (status != 0 && status != 200) {
    Json j = Json::parse(error_body, nullptr, false);
    const std::string msg = !j.is_discarded() && j.contains("error") ? j["error"].get<std::string>() : error_body;
    return Status::Error("the agent refused the stream (HTTP " + std::to_string(status) + "): " + msg);
  }
  if (!r && status == 0) {
    return Status::Error("could not reach the agent at " + Where(e) + ": " + httplib::to_string(r.error()) +
                         " (is the job running? is the URL the one it printed?)");
  }
  return Status();  // the job ended the stream
}

}  // namespace lpsim::live
