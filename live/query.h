// Live queries: what a client of the live agent (live/agent.h) asks to see,
// and the per-client evaluator that turns published records into events.
//
// A query is declarative JSON (no code runs in the job on a client's
// behalf); docs/live.md has the grammar. For example
//
//   {"kind": "step", "tensor": "^fc", "role": "activation_grad",
//    "format": "e5m2", "fields": ["underflow_pct", "max_abs"],
//    "reduce": {"op": "mean", "steps": 10}}
//
//   StatusOr<Query> q = ParseQuery(text);      // a 4xx message on error
//   Stream s(std::move(q).value());
//   std::vector<std::string> events;           // one JSON object each
//   s.OnRecord(record, now_seconds, &events);
//   s.OnStepEnd(step, now_seconds, &events);   // closes due windows
#ifndef LPSIM_LIVE_QUERY_H_
#define LPSIM_LIVE_QUERY_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/records.h"
#include "core/status.h"

namespace lpsim::live {

enum class EventKind { kStep, kScalar, kFinding };
const char* ToString(EventKind k);

enum class ReduceOp { kNone, kMean, kMin, kMax, kSum, kLast, kCount };
const char* ToString(ReduceOp op);

struct Query {
  EventKind kind = EventKind::kStep;
  // Filters; empty = everything. `tensor` and `name` are ECMAScript regexes
  // searched in the tensor (step, finding) or scalar name; `rule` likewise
  // in a finding's rule.
  std::string tensor, name, rule;
  Role roles = Role::kAll;
  std::vector<std::string> formats;  // FormatRecord::format, exact
  std::vector<std::string> recipes;  // FormatRecord::recipe, exact
  std::vector<std::string> targets;  // "format/recipe", exact
  Severity min_severity = Severity::kInfo;
  std::vector<std::string> fields;   // the defaults of the kind when omitted
  ReduceOp op = ReduceOp::kNone;
  int64_t window_steps = 0;          // one of these two with a reduction
  double window_seconds = 0;

  std::string text;                  // the canonical JSON of the query
  bool per_format = false;           // some field is per format (derived)
};

// Parses and validates a query; the error says which key is wrong and what
// is allowed, for a 400 reply.
StatusOr<Query> ParseQuery(const std::string& json_text);

// The field names each kind accepts (GET /api/fields, docs/live.md).
struct FieldInfo {
  const char* name;
  bool per_format;  // one value per simulated format
  bool numeric;     // reducible with mean/min/max/sum
  const char* help;
};
const std::vector<FieldInfo>& StepFields();

// One client's query, evaluated on what the job publishes. Not thread-safe:
// the agent serializes calls. Events are JSON object texts.
class Stream {
 public:
  explicit Stream(Query q);
  const Query& query() const { return q_; }

  void OnRecord(const TensorRecord& r, double now, std::vector<std::string>* out);
  void OnScalar(const ScalarRecord& s, double now, std::vector<std::string>* out);
  void OnFinding(const Finding& f, double now, std::vector<std::string>* out);
  // The end of a step: windows that end at or before it (steps) or that
  // are T seconds old (seconds) are emitted.
  void OnStepEnd(int64_t step, double now, std::vector<std::string>* out);

 private:
  struct Window {
    std::string head;  // the event's identifying members, as JSON text
    int64_t first_step = 0, last_step = 0;
    double started = 0;
    int64_t n = 0;
    std::vector<double> acc;  // one per field
    std::vector<int64_t> finite;  // values that entered acc, per field
    std::string last;  // op last: the latest record's fields, as a JSON object
  };
  bool Matches(std::unordered_map<std::string, bool>* cache, const std::regex& re,
               bool active, const std::string& s);
  void Feed(const std::string& key, const std::string& head, int64_t step, double now,
            const std::vector<double>& values, std::string last, std::vector<std::string>* out);
  void Emit(Window& w, std::vector<std::string>* out);
  bool Due(const Window& w, int64_t step, double now) const;

  Query q_;
  std::regex tensor_re_, name_re_, rule_re_;
  std::unordered_map<std::string, bool> tensor_ok_, name_ok_, rule_ok_;
  std::map<std::string, Window> windows_;  // by key, in key order
};

}  // namespace lpsim::live

#endif  // LPSIM_LIVE_QUERY_H_
