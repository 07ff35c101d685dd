#include "analysis/step_analyzer.h"

#include <pthread.h>

#include <algorithm>
#include <utility>

#include "checks/neurons.h"
#include "checks/samples.h"
#include "simd/scaling.h"

namespace lpsim {

namespace {

// The 2-D view block recipes use: [numel / last_dim, last_dim].
void Matrix(const std::vector<int64_t>& shape, size_t n, size_t* rows, size_t* cols) {
  *cols = shape.empty() ? 1 : static_cast<size_t>(shape.back());
  if (*cols == 0) *cols = 1;
  *rows = n / *cols;
}

std::string Key(const std::string& name, Role role) { return ToString(role) + ":" + name; }

}  // namespace

StepAnalyzer::StepAnalyzer(StepAnalyzerOptions opt, RunWriter* writer)
    : opt_(std::move(opt)), writer_(writer), checker_(opt_.check_config) {
  if (opt_.background) {
    worker_ = std::thread([this] { Run(); });
    pthread_setname_np(worker_.native_handle(), "lpsim-analyze");  // for top/perf
  }
}

StepAnalyzer::~StepAnalyzer() {
  if (!worker_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  work_cv_.notify_all();
  worker_.join();
}

const Scaling& StepAnalyzer::RecipeFor(Role role) const {
  auto it = opt_.role_scaling.find(role);
  return it == opt_.role_scaling.end() ? opt_.scaling : it->second;
}

FloatBuffer StepAnalyzer::Buffer(size_t n) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    // The smallest pooled buffer that fits.
    size_t best = pool_.size();
    for (size_t i = 0; i < pool_.size(); ++i) {
      if (pool_[i].capacity >= n && (best == pool_.size() || pool_[i].capacity < pool_[best].capacity)) best = i;
    }
    if (best != pool_.size()) {
      FloatBuffer b = std::move(pool_[best]);
      pool_[best] = std::move(pool_.back());
      pool_.pop_back();
      pool_bytes_ -= b.capacity * sizeof(float);
      return b;
    }
  }
  FloatBuffer b;
  b.capacity = std::max<size_t>(n, 1);
  b.data.reset(new float[b.capacity]);
  return b;
}

void StepAnalyzer::Enqueue(Item item, size_t bytes) {
  if (!opt_.background) {
    Process(item);
    return;
  }
  std::unique_lock<std::mutex> lock(mu_);
  // A single item larger than the bound still goes, once the queue is empty.
  space_cv_.wait(lock, [&] { return queue_.empty() || queued_bytes_ + bytes <= opt_.max_queued_bytes; });
  queued_bytes_ += bytes;
  queue_.emplace_back(std::move(item), bytes);
  lock.unlock();
  work_cv_.notify_one();
}

void StepAnalyzer::Add(TensorSnapshot s) {
  const size_t bytes = s.size() * sizeof(float);
  Enqueue(std::move(s), bytes);
}
void StepAnalyzer::Add(ScalarRecord s) { Enqueue(std::move(s), 0); }
void StepAnalyzer::Add(Finding f, bool listed) { Enqueue(Extra{std::move(f), listed}, 0); }
void StepAnalyzer::EndStep(int64_t step, bool tracked) { Enqueue(StepEnd{step, tracked}, 0); }
void StepAnalyzer::SetFormats(std::vector<Format> formats) { Enqueue(Formats{std::move(formats)}, 0); }

void StepAnalyzer::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    work_cv_.wait(lock, [&] { return !queue_.empty() || stopping_; });
    if (queue_.empty()) return;  // stopping, and everything is done
    auto [item, bytes] = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    lock.unlock();
    Process(item);
    lock.lock();
    busy_ = false;
    queued_bytes_ -= bytes;
    space_cv_.notify_all();
  }
}

void StepAnalyzer::Drain() {
  if (!opt_.background) return;
  std::unique_lock<std::mutex> lock(mu_);
  space_cv_.wait(lock, [&] { return queue_.empty() && !busy_; });
}

void StepAnalyzer::Process(Item& item) {
  if (auto* s = std::get_if<TensorSnapshot>(&item)) {
    Analyze(*s);
    FloatBuffer b = s->Release();
    if (b.data) {
      std::lock_guard<std::mutex> lock(mu_);
      // Keep about one queue's worth of buffers for reuse.
      if (pool_bytes_ + b.capacity * sizeof(float) <= opt_.max_queued_bytes) {
        pool_bytes_ += b.capacity * sizeof(float);
        pool_.push_back(std::move(b));
      }
    }
  } else if (auto* scalar = std::get_if<ScalarRecord>(&item)) {
    if (!opt_.recording) return;
    if (opt_.on_scalar) opt_.on_scalar(*scalar);
    if (!writer_) return;
    // A write error sticks in the writer: its Close returns it (Tracker::Close).
    (void)writer_->Add(*scalar);
    if (opt_.checks) checker_.Add(*scalar);
  } else if (auto* x = std::get_if<Extra>(&item)) {
    if (writer_) (void)writer_->Add(x->finding);
    if (opt_.recording && opt_.on_finding) opt_.on_finding(x->finding);
    if (!x->listed) return;
    std::lock_guard<std::mutex> lock(mu_);
    findings_.push_back(x->finding);
  } else if (auto* f = std::get_if<Formats>(&item)) {
    opt_.formats = std::move(f->formats);
    delayed_.clear();
  } else {
    Finish(std::get<StepEnd>(item));
  }
}

void StepAnalyzer::Analyze(TensorSnapshot& s) {
  const float* data = s.data();
  const size_t n = s.size();
  if (s.initial_weight) {
    if (!writer_ || !opt_.checks) return;
    TensorRecord rec;
    rec.step = s.step;
    rec.name = s.name;
    rec.role = Role::kWeight;
    rec.shape = s.shape;
    rec.stats = simd::Analyze(data, n, {}, opt_.threads).stats;
    checker_.AddInitialWeight(rec);
    return;
  }
  const Scaling& recipe = RecipeFor(s.role);
  std::vector<DelayedScaler>* delayed = nullptr;
  if (recipe.kind == Scaling::Kind::kDelayed) {
    const std::string key = Key(s.name, s.role);
    auto it = delayed_.find(key);
    if (it == delayed_.end()) {
      std::vector<DelayedScaler> v;
      for (const Format& f : opt_.formats) v.emplace_back(f, recipe.delayed);
      it = delayed_.emplace(key, std::move(v)).first;
    }
    delayed = &it->second;
  }
  float amax = 0.0f;
  if (recipe.kind == Scaling::Kind::kCurrent) {
    amax = simd::Amax(data, n, opt_.threads);
    if (opt_.reduce_amax) amax = opt_.reduce_amax(amax);
  }
  std::vector<FormatSlot> slots;
  for (size_t i = 0; i < opt_.formats.size(); ++i) {
    FormatSlot slot{opt_.formats[i]};
    if (recipe.kind == Scaling::Kind::kCurrent) slot.scale = CurrentScale(opt_.formats[i], amax, recipe.scale);
    if (delayed) slot.scale = (*delayed)[i].Scale();
    slots.push_back(slot);
  }
  AnalyzeResult result;
  if (recipe.kind == Scaling::Kind::kBlock) {
    // The statistics in one pass, then each format's counts with its block
    // scales (no quantized copy is kept: only the counts are recorded).
    result = simd::Analyze(data, n, {}, opt_.threads);
    result.formats.resize(opt_.formats.size());
    size_t rows, cols;
    Matrix(s.shape, n, &rows, &cols);
    simd::BlockCounts(opt_.formats, data, rows, cols, recipe.block, {}, result.formats.data(),
                      opt_.threads);
  } else {
    result = simd::Analyze(data, n, slots, opt_.threads);
  }
  if (opt_.reduce_result) opt_.reduce_result(&result);
  if (delayed) {
    for (DelayedScaler& d : *delayed) d.Update(result.stats.max_abs);
  }
  if (!opt_.recording) return;

  TensorRecord rec;
  rec.step = s.step;
  rec.name = std::move(s.name);
  rec.role = s.role;
  rec.shape = std::move(s.shape);
  rec.dtype = std::move(s.dtype);
  rec.module_type = std::move(s.module_type);
  rec.stats = std::move(result.stats);
  if (rec.role == Role::kActivation && opt_.checks) {
    // dead_relu and activation_saturation judge neurons over their window.
    const char* rule = NeuronRuleFor(rec.module_type);
    auto it = rule ? opt_.check_config.rules.find(rule) : opt_.check_config.rules.end();
    if (it != opt_.check_config.rules.end() && it->second.enabled) {
      rec.neurons = SummarizeNeurons(data, rec.shape, rec.module_type,
                                     opt_.check_config.activations.dead_relu.zero_threshold);
    }
  }
  if (rec.role == Role::kActivation && (opt_.checks || opt_.on_record || writer_) &&
      (opt_.check_config.enabled("lp_dynamic_range") || opt_.check_config.enabled("lp_centred_snr"))) {
    // lp_dynamic_range and lp_centred_snr judge rows and positions (here,
    // wherever on_record's records are judged, or on the stored run:
    // `lpsim check`, lpsim validate).
    rec.samples = SummarizeSamples(data, rec.shape);
  }
  const std::string recipe_name = recipe.Name();
  for (size_t i = 0; i < opt_.formats.size(); ++i) {
    rec.formats.push_back({opt_.formats[i].name(), recipe_name, slots[i].scale, result.formats[i]});
  }
  if (writer_) (void)writer_->Add(rec);
  if (opt_.on_record) opt_.on_record(rec);
  if (opt_.checks && !opt_.judge_formats) {
    checker_.Add(rec);
  } else if (opt_.checks) {
    // Judged in its role's format only; the other candidates stay in the
    // store for `recommend`.
    TensorRecord judged = rec;
    auto it = opt_.judge_formats->find(rec.role);
    judged.formats.clear();
    for (const FormatRecord& f : rec.formats) {
      if (it != opt_.judge_formats->end() && f.format == it->second) judged.formats.push_back(f);
    }
    checker_.Add(judged);
  }
  current_.push_back(std::move(rec));
}

void StepAnalyzer::Finish(const StepEnd& e) {
  std::vector<Finding> fresh;
  if (writer_ && opt_.checks) fresh = checker_.EndStep(e.step);
  for (const Finding& f : fresh) {
    (void)writer_->Add(f);
    if (opt_.on_finding) opt_.on_finding(f);
  }
  if (writer_) (void)writer_->EndStep(e.step);
  if (opt_.recording && opt_.on_step_end) opt_.on_step_end(e.step);
  std::lock_guard<std::mutex> lock(mu_);
  findings_.insert(findings_.end(), fresh.begin(), fresh.end());
  new_.insert(new_.end(), fresh.begin(), fresh.end());
  if (e.tracked) {
    last_ = std::move(current_);
    current_.clear();
  }
}

std::vector<Finding> StepAnalyzer::TakeNew() {
  std::lock_guard<std::mutex> lock(mu_);
  return std::exchange(new_, {});
}

std::vector<Finding> StepAnalyzer::findings() {
  Drain();
  std::lock_guard<std::mutex> lock(mu_);
  return findings_;
}

std::vector<TensorRecord> StepAnalyzer::last_records() {
  Drain();
  std::lock_guard<std::mutex> lock(mu_);
  return last_;
}

}  // namespace lpsim
