// What the tracker tests train: a two-layer net that taps both layers through
// the tracker it is given, and an empty run folder of each test's own.
//
//   Net net;
//   torch::optim::SGD opt(net.parameters(), torch::optim::SGDOptions(0.01));
//   TrackerOptions o;  o.run_dir = TestRunDir("tracker", "equal");  // TMP/lpsim_tracker_equal_PID
//   Tracker t(net, opt, o);
//   torch::Tensor y = net.forward(t, torch::randn({4, 8}));
#ifndef LPSIM_TESTS_TRACKER_TEST_NET_H_
#define LPSIM_TESTS_TRACKER_TEST_NET_H_

#include <torch/torch.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "tracker/tracker.h"

namespace lpsim {

// TMP/lpsim_<test>_<tag>_<pid>, removed if it was left behind.
inline std::string TestRunDir(const std::string& test, const std::string& tag) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("lpsim_" + test + "_" + tag + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir.string();
}

// fc1 (8 -> 16), ReLU, fc2 (16 -> 4); fc1 and fc2 tapped as "Linear".
struct Net : torch::nn::Module {
  Net() {
    fc1 = register_module("fc1", torch::nn::Linear(8, 16));
    fc2 = register_module("fc2", torch::nn::Linear(16, 4));
  }
  torch::Tensor forward(Tracker& t, torch::Tensor x) {
    x = t.tap("fc1", fc1->forward(x), "Linear");
    x = torch::relu(x);
    return t.tap("fc2", fc2->forward(x), "Linear");
  }
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
};

}  // namespace lpsim

#endif  // LPSIM_TESTS_TRACKER_TEST_NET_H_
