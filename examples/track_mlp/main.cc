// A user's own LibTorch training loop with lpsim tracking added: a two-layer
// MLP fits y = sin(x), with every tensor tracked in three formats.
//
//   track_mlp RUN_DIR        (prints the run database path)
#include <lpsim/tracker.h>

#include <iostream>

struct Mlp : torch::nn::Module {
  Mlp() {
    fc1 = register_module("fc1", torch::nn::Linear(1, 64));
    fc2 = register_module("fc2", torch::nn::Linear(64, 1));
  }
  torch::Tensor forward(lpsim::Tracker& tracker, torch::Tensor x) {
    x = tracker.tap("fc1", fc1->forward(x), "Linear");
    x = tracker.tap("tanh", torch::tanh(x), "Tanh");
    return tracker.tap("fc2", fc2->forward(x), "Linear");
  }
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
};

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: track_mlp RUN_DIR\n";
    return 2;
  }
  torch::manual_seed(0);
  Mlp model;
  torch::optim::Adam optimizer(model.parameters(), torch::optim::AdamOptions(1e-2));

  lpsim::TrackerOptions opt;
  opt.formats = {"e4m3fn", "e5m2", "bf16"};
  opt.scaling = lpsim::Scaling::Delayed(16);
  opt.roles = lpsim::Role::All;
  opt.include = "fc.*|tanh";
  opt.every = 5;
  opt.run_dir = argv[1];
  opt.overwrite = true;
  try {
    lpsim::Tracker tracker(model, optimizer, opt);
    for (int step = 0; step < 50; ++step) {
      torch::Tensor x = torch::rand({128, 1}) * 6 - 3;
      optimizer.zero_grad();
      torch::Tensor loss = torch::mse_loss(model.forward(tracker, x), torch::sin(x));
      loss.backward();
      tracker.step(loss);
    }
    std::cout << tracker.run_path() << "\n";
  } catch (const lpsim::TrackerError& e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
  return 0;
}
