// `lpsim watch` and `lpsim jobs`: the terminal side of the live agent
// (live/agent.h, docs/live.md).
//
//   lpsim watch http://127.0.0.1:8123/ --tensor '^fc' --field underflow_pct --every 10
//   lpsim watch http://127.0.0.1:8123/ --query '{"kind": "scalar", "name": "loss"}' --json
//   lpsim jobs http://127.0.0.1:8123/ http://127.0.0.1:8124/
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/table.h"
#include "core/printable.h"
#include "live/client.h"

namespace lpsim::cli {
namespace {

using Json = nlohmann::json;

struct WatchArgs {
  std::string url, query, kind, tensor, name, role, token;
  std::vector<std::string> fields, formats;
  int every = 0;
  int64_t count = 0;
  double seconds = 0;
  bool json = false;
};

std::string Value(const Json& v) {
  if (v.is_number_float()) return fmt::format("{:.6g}", v.get<double>());
  if (v.is_null()) return "-";
  return v.is_string() ? v.get<std::string>() : v.dump();
}

// One line a person reads: what, where, then field=value.
std::string Line(const Json& e) {
  const std::string kind = e.value("kind", "");
  std::string head;
  if (e.contains("op")) {
    head = fmt::format("steps {}-{} {} of {}", e["from_step"].get<int64_t>(), e["to_step"].get<int64_t>(),
                       e["op"].get<std::string>(), e["n"].get<int64_t>());
  } else if (e.contains("step")) {
    head = fmt::format("step {}", e["step"].get<int64_t>());
  }
  if (kind == "finding" && !e.contains("op")) {
    return fmt::format("{}  [{}] {}{}: {}", head, e.value("severity", ""), e.value("rule", ""),
                       e.value("tensor", "").empty() ? "" : " " + e.value("tensor", ""), e.value("message", ""));
  }
  std::string s = head;
  const std::vector<std::string> ids = {"tensor", "role", "name", "rule"};
  for (const std::string& k : ids) {
    if (e.contains(k)) s += "  " + e[k].get<std::string>();
  }
  if (e.contains("format")) s += "  " + e["format"].get<std::string>() + "/" + e["recipe"].get<std::string>();
  for (auto it = e.begin(); it != e.end(); ++it) {
    const std::string& k = it.key();
    if (k == "kind" || k == "step" || k == "op" || k == "from_step" || k == "to_step" || k == "n" || k == "format" ||
        k == "recipe" || std::find(ids.begin(), ids.end(), k) != ids.end()) {
      continue;
    }
    s += "  " + k + "=" + Value(it.value());
  }
  return s;
}

int RunWatch(const WatchArgs& a) {
  StatusOr<live::Endpoint> ep = live::ParseUrl(a.url);
  if (!ep.ok()) return PrintError("watch", ep.status().message(), kExitBadInput);
  live::Endpoint e = ep.value();
  if (!a.token.empty()) e.token = a.token;
  std::string query = a.query;
  const bool shorthand = !a.kind.empty() || !a.tensor.empty() || !a.name.empty() || !a.role.empty() ||
                         !a.fields.empty() || !a.formats.empty() || a.every > 0;
  if (!query.empty() && shorthand) {
    return PrintError("watch",
                      "--query replaces --kind/--tensor/--name/--role/--format/--field/--every; give one or the other",
                      kExitBadInput);
  }
  if (query.empty()) {
    Json q = Json::object();
    q["kind"] = a.kind.empty() ? (a.name.empty() ? "step" : "scalar") : a.kind;
    if (!a.tensor.empty()) q["tensor"] = a.tensor;
    if (!a.name.empty()) q["name"] = a.name;
    if (!a.role.empty()) q["role"] = a.role;
    if (!a.formats.empty()) q["format"] = a.formats;
    if (!a.fields.empty()) q["fields"] = a.fields;
    if (a.every > 0) q["reduce"] = {{"op", "last"}, {"steps", a.every}};
    query = q.dump();
  }
  const auto start = std::chrono::steady_clock::now();
  int64_t seen = 0;
  auto in_time = [&] {
    return a.seconds <= 0 ||
           std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < a.seconds;
  };
  Status s = live::Watch(
      e, query,
      [&](const Json& ev) {
        // A tensor name is the job's text: escaped, one event stays one line.
        std::cout << (a.json ? ev.dump() : Printable(Line(ev))) << std::endl;
        ++seen;
        return (a.count <= 0 || seen < a.count) && in_time();
      },
      in_time);
  if (!s.ok()) {
    // A refused query or token (4xx) is the user's input; an unreachable or
    // full agent (503) is not.
    return PrintError("watch", s.message(),
                      s.message().find("refused the stream (HTTP 4") != std::string::npos ? kExitBadInput
                                                                                            : kExitFailure);
  }
  return kExitOk;
}

struct JobsArgs {
  std::vector<std::string> urls;
  std::string token;
  bool json = false;
};

// A job's break predictions so far (info.predictions, checks/prediction.h
// LivePredictions) in one cell: "T: breaks at step S (rule)" or "T: no
// sign so far" per target; "-" for a job without a target.
std::string PredictionsCell(const Json& job) {
  const Json* p = nullptr;
  if (job.contains("info") && job["info"].is_object() && job["info"].contains("predictions")) {
    p = &job["info"]["predictions"];
  }
  if (!p || !p->is_array() || p->empty()) return "-";
  std::string cell;
  for (const Json& x : *p) {
    cell += cell.empty() ? "" : "; ";
    cell += Printable(x.value("target", "?")) + ": ";
    cell += x.value("inference", false) ? "inference " : "";
    cell += x.value("breaks", false) ? fmt::format("breaks at step {} ({})", x.value("step", int64_t{0}),
                                                   Printable(x.value("rule", std::string("?"))))
                                     : std::string("no sign so far");
  }
  return cell;
}

int RunJobs(const JobsArgs& a) {
  std::vector<live::Endpoint> eps;
  for (const std::string& u : a.urls) {
    StatusOr<live::Endpoint> ep = live::ParseUrl(u);
    if (!ep.ok()) return PrintError("jobs", ep.status().message(), kExitBadInput);
    eps.push_back(ep.value());
    if (!a.token.empty()) eps.back().token = a.token;
  }
  Json all = Json::array();
  bool any_failed = false;
  Table t({{"job", false},
           {"url", false},
           {"step", true},
           {"streams", true},
           {"prediction", false},
           {"latest findings", false}});
  for (const live::Endpoint& e : eps) {
    StatusOr<live::Reply> r = live::GetJson(e, "/api/job");
    if (!r.ok() || r->status != 200) {
      any_failed = true;
      const std::string why = !r.ok() ? r.status().message() : r->body.value("error", "HTTP " + std::to_string(r->status));
      all.push_back({{"url", e.url}, {"error", why}});
      t.AddRow({"?", e.url, "", "", "", "unreachable: " + why});
      continue;
    }
    const Json& j = r->body;
    all.push_back(j);
    std::string latest;
    int shown = 0;
    for (const Json& f : j["findings"]) {
      if (shown++ == 3) break;
      // An agent's strings are shown escaped (core/printable.h).
      latest += fmt::format("{}[{}] step {} {}{}", latest.empty() ? "" : "; ",
                            Printable(f.value("severity", std::string("?"))), f.value("step", int64_t{0}),
                            Printable(f.value("rule", std::string("?"))),
                            f.value("tensor", std::string()).empty() ? "" : " " + Printable(f["tensor"].get<std::string>()));
    }
    t.AddRow({Printable(j.value("name", "")), e.url, j["step"].is_null() ? "-" : std::to_string(j["step"].get<int64_t>()),
              std::to_string(j.value("clients", 0)), PredictionsCell(j), latest.empty() ? "none" : latest});
  }
  if (a.json) {
    std::cout << all.dump(2) << "\n";
  } else {
    std::cout << t.Render();
  }
  return any_failed ? kExitFailure : kExitOk;
}

}  // namespace

void AddWatchCommand(CLI::App* app, Command* selected) {
  auto args = std::make_shared<WatchArgs>();
  CLI::App* cmd = app->add_subcommand(
      "watch", "Stream a running job's numerics from its live agent (lpsim demo --live, TrackerOptions::live_port)");
  cmd->add_option("URL", args->url, "the agent's URL, as the job printed it")->required();
  cmd->add_option("--query", args->query, "a query as JSON (docs/live.md), instead of the flags below");
  cmd->add_option("--kind", args->kind, "step, scalar or finding (default: step, or scalar with --name)");
  cmd->add_option("--tensor", args->tensor, "regex searched in tensor names");
  cmd->add_option("--name", args->name, "regex searched in scalar names (kind scalar)");
  cmd->add_option("--role", args->role, "e.g. activation or weight_grad|activation_grad");
  cmd->add_option("--format", args->formats, "only these formats (comma separated)")->delimiter(',');
  cmd->add_option("--field", args->fields, "fields to show (repeat or comma separate; docs/live.md)")
      ->delimiter(',');
  cmd->add_option("--every", args->every, "one event per N steps (the last values of each window)")
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--count", args->count, "stop after this many events (0: when the job ends)");
  cmd->add_option("--seconds", args->seconds, "stop after this many seconds (0: when the job ends)");
  cmd->add_option("--token", args->token, "the agent's token (also read from ?token= in the URL)");
  cmd->add_flag("--json", args->json, "one JSON object per line");
  cmd->callback([selected, args] { *selected = [args] { return RunWatch(*args); }; });
}

void AddJobsCommand(CLI::App* app, Command* selected) {
  auto args = std::make_shared<JobsArgs>();
  CLI::App* cmd = app->add_subcommand("jobs", "List running jobs (their live agents) with their latest findings");
  cmd->add_option("URL", args->urls, "agent URLs")->required();
  cmd->add_option("--token", args->token, "the agents' token");
  cmd->add_flag("--json", args->json, "print the jobs as JSON");
  cmd->callback([selected, args] { *selected = [args] { return RunJobs(*args); }; });
}

}  // namespace lpsim::cli
