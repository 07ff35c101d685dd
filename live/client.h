// A client of the live agent (live/agent.h): what `lpsim watch` and
// `lpsim jobs` use, and the tests. Plain HTTP; Server-Sent Events parsed
// into JSON events.
//
//   StatusOr<Endpoint> e = ParseUrl("http://127.0.0.1:8123/");
//   Status s = Watch(*e, R"({"kind": "scalar", "name": "loss"})",
//                    [](const nlohmann::json& ev) { std::cout << ev << "\n"; return true; });
#ifndef LPSIM_LIVE_CLIENT_H_
#define LPSIM_LIVE_CLIENT_H_

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "core/status.h"

namespace lpsim::live {

struct Endpoint {
  std::string host;   // without brackets
  int port = 0;
  std::string token;  // from ?token= in the URL, or set by the caller
  std::string url;    // as given
};

// http://HOST:PORT[/][?token=T]; the error says what is wrong.
StatusOr<Endpoint> ParseUrl(const std::string& url);

// The status and JSON body of a request (the agent's {"error": ...} for
// 4xx/5xx); an error Status only when the agent could not be reached or
// did not answer JSON.
struct Reply {
  int status = 0;
  nlohmann::json body;
};
StatusOr<Reply> GetJson(const Endpoint& e, const std::string& path, int timeout_s = 5);
StatusOr<Reply> PostJson(const Endpoint& e, const std::string& path, const nlohmann::json& body,
                         int timeout_s = 15);

// Subscribes with `query` (JSON text) and calls on_event with each event
// until the agent ends the stream (the job finished: Ok) or on_event
// returns false (Ok). A refused query is an error with the agent's message.
// keep_going (may be null) is asked at every chunk received, keepalives
// included (about once a second): false ends the stream (Ok).
Status Watch(const Endpoint& e, const std::string& query,
             const std::function<bool(const nlohmann::json&)>& on_event,
             const std::function<bool()>& keep_going = nullptr, int read_timeout_s = 30);

}  // namespace lpsim::live

#endif  // LPSIM_LIVE_CLIENT_H_
