// The live agent over real sockets on 127.0.0.1: subscribe and receive,
// reductions, a slow and a vanished client dropped while the publisher goes
// on, token refusal, malformed queries (the corpus) answered 400, knobs
// acknowledged, limits. Every wait has a deadline, so the tests end by
// themselves.
#include "live/agent.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <future>
#include <thread>

#include "live/client.h"

namespace lpsim::live {
namespace {

using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;
constexpr auto kDeadline = std::chrono::seconds(20);

std::unique_ptr<Agent> StartAgent(AgentOptions o = {}) {
  StatusOr<std::unique_ptr<Agent>> a = Agent::Start(std::move(o));
  EXPECT_TRUE(a.ok()) << a.status().message();
  return a.ok() ? std::move(a).value() : nullptr;
}

Endpoint Local(const Agent& a) {
  StatusOr<Endpoint> e = ParseUrl(a.url());
  EXPECT_TRUE(e.ok()) << e.status().message();
  return e.value();
}

// Waits until pred() or the deadline; returns pred().
template <typename Pred>
bool WaitFor(Pred pred) {
  const auto end = Clock::now() + kDeadline;
  while (!pred() && Clock::now() < end) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  return pred();
}

// A client that collects `want` events (or gives up at the deadline).
std::future<std::vector<Json>> Collect(const Endpoint& e, const std::string& query, size_t want) {
  return std::async(std::launch::async, [e, query, want] {
    std::vector<Json> got;
    const auto end = Clock::now() + kDeadline;
    Status s = Watch(
        e, query,
        [&](const Json& ev) {
          got.push_back(ev);
          return got.size() < want;
        },
        [&] { return Clock::now() < end; });
    EXPECT_TRUE(s.ok()) << s.message();
    return got;
  });
}

TensorRecord Rec(int64_t step, const std::string& name, uint64_t underflow) {
  TensorRecord r;
  r.step = step;
  r.name = name;
  r.role = Role::kActivationGrad;
  r.stats.count = 8;
  r.stats.max_abs = 1.5f;
  CastCounts c;
  c.numel = 8;
  c.underflow = underflow;
  r.formats.push_back({"e5m2", "none", 1.0f, c});
  return r;
}

TEST(LiveAgent, BindsLoopbackOnAFreePort) {
  auto a = StartAgent();
  ASSERT_TRUE(a);
  EXPECT_GT(a->port(), 0);
  EXPECT_EQ(a->url(), "http://127.0.0.1:" + std::to_string(a->port()) + "/");
  StatusOr<Reply> r = GetJson(Local(*a), "/api/job");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body["name"], "job");
  EXPECT_TRUE(r->body["step"].is_null());
}

// A port another agent listens on is refused, with what to do (no shared
// port that would split the clients between two jobs).
TEST(LiveAgent, PortInUseIsRefused) {
  auto a = StartAgent();
  ASSERT_TRUE(a);
  AgentOptions o;
  o.port = a->port();
  StatusOr<std::unique_ptr<Agent>> b = Agent::Start(o);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("in use"), std::string::npos) << b.status().message();
}

TEST(LiveAgent, NonLoopbackNeedsAToken) {
  AgentOptions o;
  o.host = "0.0.0.0";  // refused before anything is bound
  StatusOr<std::unique_ptr<Agent>> a = Agent::Start(o);
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.status().message().find("needs a token"), std::string::npos) << a.status().message();
}

TEST(LiveAgent, NoClientNoEvents) {
  auto a = StartAgent();
  ASSERT_TRUE(a);
  for (int s = 0; s < 100; ++s) {
    a->Publish(Rec(s, "fc1", 1));
    a->Publish(ScalarRecord{s, "loss", 1.0});
    a->PublishStepEnd(s);
  }
  const AgentStats st = a->stats();
  EXPECT_EQ(st.events, 0u);
  EXPECT_EQ(st.clients, 0);
}

TEST(LiveAgent, SubscribeAndReceive) {
  auto a = StartAgent();
  ASSERT_TRUE(a);
  auto fut = Collect(Local(*a), R"({"kind": "scalar", "name": "^loss$"})", 3);
  ASSERT_TRUE(WaitFor([&] { return a->stats().clients == 1; }));
  for (int s = 0; s < 3; ++s) {
    a->Publish(ScalarRecord{s, "lr", 0.1});  // filtered out
    a->Publish(ScalarRecord{s, "loss", 2.0 - s});
    a->PublishStepEnd(s);
  }
  const std::vector<Json> got = fut.get();
  ASSERT_EQ(got.size(), 3u);
  for (int s = 0; s < 3; ++s) {
    EXPECT_EQ(got[s], (Json{{"kind", "scalar"}, {"name", "loss"}, {"step", s}, {"value", 2.0 - s}}));
  }
  // The client left: the stream is removed and publishing is idle again.
  EXPECT_TRUE(WaitFor([&] { return a->stats().clients == 0; }));
  EXPECT_EQ(a->stats().events, 3u);
}

TEST(LiveAgent, ReductionWindowOverHttp) {
  auto a = StartAgent();
  ASSERT_TRUE(a);
  auto fut = Collect(Local(*a),
                     R"({"tensor": "^fc1$", "fields": ["underflow_pct"], "reduce": {"op": "mean", "steps": 4}})", 2);
  ASSERT_TRUE(WaitFor([&] { return a->stats().clients == 1; }));
  for (int s = 0; s < 8; ++s) {
    a->Publish(Rec(s, "fc1", static_cast<uint64_t>(s)));  // s of 8: 12.5 s %
    a->Publish(Rec(s, "fc2", 8));
    a->PublishStepEnd(s);
  }
  const std::vector<Json> got = fut.get();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0]["tensor"], "fc1");
  EXPECT_EQ(got[0]["underflow_pct"].get<double>(), 12.5 * (0 + 1 + 2 + 3) / 4);
  EXPECT_EQ(got[1]["underflow_pct"].get<double>(), 12.5 * (4 + 5 + 6 + 7) / 4);
  EXPECT_EQ(got[1]["from_step"], 4);
  EXPECT_EQ(got[1]["to_step"], 7);
}

// A raw socket subscribes and never reads: once the kernel's buffers are
// full the agent's writer stalls, the client's queue fills and the client is
// dropped; Publish never waits for it.
TEST(LiveAgent, SlowClientIsDroppedAndPublishingGoesOn) {
  AgentOptions o;
  o.client_queue_events = 32;
  auto a = StartAgent(o);
  ASSERT_TRUE(a);
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  int small = 4096;
  ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(a->port()));
  ::inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  const std::string req = "GET /api/stream?q=%7B%22fields%22%3A%5B%22exp_hist%22%5D%7D HTTP/1.1\r\nHost: x\r\n\r\n";
  ASSERT_EQ(::write(fd, req.data(), req.size()), static_cast<ssize_t>(req.size()));
  ASSERT_TRUE(WaitFor([&] { return a->stats().clients == 1; }));
  TensorRecord big = Rec(0, "fc1", 0);
  for (int b = 0; b < TensorStats::kExponentBins; ++b) big.stats.exponent_hist[b] = 1000000007ull + b;  // ~3 KB event
  int64_t published = 0;
  const auto end = Clock::now() + kDeadline;
  while (a->stats().dropped == 0 && Clock::now() < end) {
    big.step = published++;
    a->Publish(big);
  }
  EXPECT_EQ(a->stats().dropped, 1u) << "after " << published << " records";
  EXPECT_EQ(a->stats().clients, 0);
  // Publishing after the drop costs nothing again.
  const uint64_t events = a->stats().events;
  a->Publish(big);
  EXPECT_EQ(a->stats().events, events);
  ::close(fd);
}

// A client that goes away without a word is noticed by the next write (the
// heartbeat) and removed.
TEST(LiveAgent, VanishedClientIsRemoved) {
  AgentOptions o;
  o.heartbeat_ms = 50;
  auto a = StartAgent(o);
  ASSERT_TRUE(a);
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(a->port()));
  ::inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  const std::string req = "GET /api/stream?q=%7B%7D HTTP/1.1\r\nHost: x\r\n\r\n";
  ASSERT_EQ(::write(fd, req.data(), req.size()), static_cast<ssize_t>(req.size()));
  ASSERT_TRUE(WaitFor([&] { return a->stats().clients == 1; }));
  ::close(fd);
  EXPECT_TRUE(WaitFor([&] { return a->stats().clients == 0; }));
  EXPECT_EQ(a->stats().dropped, 0u);  // gone, not dropped for being slow
}

TEST(LiveAgent, TokenIsRequiredWhenSet) {
  AgentOptions o;
  o.token = "s3cret-token";
  auto a = StartAgent(o);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->url(), "http://127.0.0.1:" + std::to_string(a->port()) + "/?token=s3cret-token");
  Endpoint e = Local(*a);
  EXPECT_EQ(e.token, "s3cret-token");
  StatusOr<Reply> ok = GetJson(e, "/api/job");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->status, 200);

  Endpoint none = e;
  none.token.clear();
  StatusOr<Reply> r = GetJson(none, "/api/job");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 401);
  EXPECT_NE(r->body["error"].get<std::string>().find("needs a token"), std::string::npos);
  Endpoint wrong = e;
  wrong.token = "s3cret-tokeN";
  r = GetJson(wrong, "/api/job");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 401);
  EXPECT_EQ(r->body["error"], "wrong token");
  Status w = Watch(none, "{}", [](const Json&) { return true; });
  EXPECT_FALSE(w.ok());
  EXPECT_NE(w.message().find("401"), std::string::npos) << w.message();
  StatusOr<Reply> page = GetJson(none, "/");  // the page too
  EXPECT_TRUE(!page.ok() || page->status == 401);
  EXPECT_EQ(a->stats().clients, 0);
  EXPECT_GE(a->stats().refused, 3u);
}

TEST(LiveAgent, MalformedQueriesGet400WithTheReason) {
  auto a = StartAgent();
  ASSERT_TRUE(a);
  const Endpoint e = Local(*a);
  std::ifstream in(LPSIM_LIVE_TEST_DIR "/bad_queries.jsonl");
  ASSERT_TRUE(in);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    const Json c = Json::parse(line);
    Status s = Watch(e, c["query"].get<std::string>(), [](const Json&) { return false; });
    ASSERT_FALSE(s.ok()) << c["query"];
    EXPECT_NE(s.message().find("HTTP 400"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find(c["error"].get<std::string>()), std::string::npos) << s.message();
    ++n;
  }
  EXPECT_GE(n, 30);
  StatusOr<Reply> r = GetJson(e, "/api/stream");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 400);
  EXPECT_NE(r->body["error"].get<std::string>().find("missing the query"), std::string::npos);
  EXPECT_EQ(a->stats().clients, 0);
  EXPECT_EQ(a->stats().subscribed, 0u);
}

TEST(LiveAgent, StreamLimitAnswers503) {
  AgentOptions o;
  o.max_clients = 1;
  auto a = StartAgent(o);
  ASSERT_TRUE(a);
  auto first = Collect(Local(*a), "{}", 1);
  ASSERT_TRUE(WaitFor([&] { return a->stats().clients == 1; }));
  Status s = Watch(Local(*a), "{}", [](const Json&) { return false; });
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("HTTP 503"), std::string::npos) << s.message();
  a->Publish(Rec(0, "fc1", 0));  // lets the first client finish
  EXPECT_EQ(first.get().size(), 1u);
}

TEST(LiveAgent, KnobsAreCheckedAppliedOnTheJobThreadAndAcknowledged) {
  auto a = StartAgent();
  ASSERT_TRUE(a);
  double lr = 0.1;
  std::thread::id applied_on;
  ASSERT_TRUE(a->AddKnob({"lr", "learning rate", KnobType::kNumber, 0, 1}, lr, [&](const Json& v) {
                   lr = v.get<double>();
                   applied_on = std::this_thread::get_id();
                   return Status();
                 }).ok());
  ASSERT_TRUE(a->AddKnob({"mode", "", KnobType::kChoice, 0, 0, {"a", "b"}}, "a", [](const Json& v) {
                   return v == "b" ? Status::Error("mode b is not available now") : Status();
                 }).ok());
  EXPECT_FALSE(a->AddKnob({"lr", "", KnobType::kNumber}, 1, [](const Json&) { return Status(); }).ok());
  const Endpoint e = Local(*a);

  StatusOr<Reply> r = PostJson(e, "/api/knobs/lr", {{"value", 2.0}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 400);
  EXPECT_NE(r->body["error"].get<std::string>().find("[0, 1]"), std::string::npos) << r->body;
  r = PostJson(e, "/api/knobs/lr", {{"value", "fast"}});
  EXPECT_EQ(r->status, 400);
  r = PostJson(e, "/api/knobs/momentum", {{"value", 1}});
  EXPECT_EQ(r->status, 404);
  EXPECT_NE(r->body["error"].get<std::string>().find("lr, mode"), std::string::npos) << r->body;
  EXPECT_FALSE(a->HasPending());

  // The job's loop: applies commands at its step ends, records the acks.
  std::vector<KnobAck> recorded;
  std::atomic<bool> done{false};
  std::thread job([&] {
    int64_t step = 0;
    while (!done) {
      a->ApplyPending(step++, [&](const KnobAck& k) { recorded.push_back(k); });
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  });
  r = PostJson(e, "/api/knobs/lr", {{"value", 0.25}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(r->body["status"], "applied");
  EXPECT_EQ(r->body["value"].get<double>(), 0.25);
  StatusOr<Reply> refused = PostJson(e, "/api/knobs/mode", {{"value", "b"}});
  EXPECT_EQ(refused->status, 409);
  EXPECT_EQ(refused->body["error"], "mode b is not available now");
  const std::thread::id job_id = job.get_id();
  done = true;
  job.join();
  EXPECT_EQ(lr, 0.25);
  EXPECT_EQ(applied_on, job_id);
  ASSERT_EQ(recorded.size(), 2u);
  EXPECT_TRUE(recorded[0].applied);
  EXPECT_EQ(recorded[0].knob, "lr");
  EXPECT_FALSE(recorded[1].applied);
  StatusOr<Reply> knobs = GetJson(e, "/api/knobs");
  ASSERT_TRUE(knobs.ok());
  EXPECT_EQ(knobs->body[0]["value"].get<double>(), 0.25);
  EXPECT_EQ(knobs->body[1]["value"], "a");  // the refused value did not stick
  EXPECT_EQ(knobs->body[0]["last_ack"]["applied"], true);
}

TEST(LiveAgent, KnobCommandWithoutAJobStepIsQueued) {
  AgentOptions o;
  o.ack_timeout_ms = 50;
  auto a = StartAgent(o);
  ASSERT_TRUE(a);
  ASSERT_TRUE(a->AddKnob({"paused", "", KnobType::kBool}, false, [](const Json&) { return Status(); }).ok());
  StatusOr<Reply> r = PostJson(Local(*a), "/api/knobs/paused", {{"value", true}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 202);
  EXPECT_EQ(r->body["status"], "queued");
  EXPECT_TRUE(a->HasPending());
  a->ApplyPending(5, nullptr);
  EXPECT_FALSE(a->HasPending());
}

TEST(LiveAgent, FindingsAreKeptForTheJobListing) {
  auto a = StartAgent();
  ASSERT_TRUE(a);
  Finding f;
  f.rule = "gradient_underflow";
  f.step = 17;
  f.tensor = "fc2";
  f.message = "grads underflow";
  a->Publish(f);
  StatusOr<Reply> r = GetJson(Local(*a), "/api/job");
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->body["findings"].size(), 1u);
  EXPECT_EQ(r->body["findings"][0]["rule"], "gradient_underflow");
  EXPECT_EQ(r->body["findings"][0]["step"], 17);
}

TEST(LiveAgent, ServesTheDashboardWithoutACdn) {
  auto a = StartAgent();
  ASSERT_TRUE(a);
  const Endpoint e = Local(*a);
  // The page is HTML, not JSON: GetJson reports it as such.
  StatusOr<Reply> page = GetJson(e, "/");
  ASSERT_FALSE(page.ok());
  EXPECT_NE(page.status().message().find("without JSON"), std::string::npos);
  StatusOr<Reply> fields = GetJson(e, "/api/fields");
  ASSERT_TRUE(fields.ok());
  EXPECT_GE(fields->body["step"].size(), 15u);
}

TEST(LiveClient, ParsesAgentUrls) {
  StatusOr<Endpoint> e = ParseUrl("http://127.0.0.1:8123/?token=abc");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->host, "127.0.0.1");
  EXPECT_EQ(e->port, 8123);
  EXPECT_EQ(e->token, "abc");
  e = ParseUrl("http://[::1]:9000");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->host, "::1");
  EXPECT_FALSE(ParseUrl("127.0.0.1:8123").ok());
  EXPECT_FALSE(ParseUrl("http://127.0.0.1/").ok());
  EXPECT_FALSE(ParseUrl("http://127.0.0.1:99999/").ok());
  EXPECT_FALSE(ParseUrl("http://:80/").ok());
}

}  // namespace
}  // namespace lpsim::live
