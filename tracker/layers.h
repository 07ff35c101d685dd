// Drop-in Linear and Conv2d whose matrix products can run on a simulated
// matrix-multiply unit (mmu/unit.h, docs/mmu.md).
//
// Without a unit, lpsim::Linear and lpsim::Conv2d are torch::nn::Linear and
// torch::nn::Conv2d (same options, parameters, initialization and results,
// bit for bit). With one (Tracker in simulate mode with
// TrackerOptions::matmul_unit or a target that names its unit, or
// set_unit()), the forward product y = x W^T and both backward products
// dX = dY W and dW = dY^T X run through mmu::Gemm on that unit, each operand
// in its role's format: x in the activation format, W in the weight format,
// dY in the activation-gradient format. The weights stay fp32 (the tracker
// keeps the fp32 master copy). Conv2d unfolds its input (im2col) and runs the
// same product; its input gradient is folded back (col2im) in fp32.
//
// Each operand gets a per-tensor power-of-two scale that takes its largest
// magnitude to at most its format's max (as the tracker's fake quantization
// has already put the values on that format's grid, a power-of-two scale
// keeps them there exactly), the GEMM rounds whatever is off the grid to
// nearest even, and the fp32 result is scaled back.
//
//   TrackedSequential net(torch::OrderedDict<std::string, torch::nn::AnyModule>{
//       {"fc1", torch::nn::AnyModule(lpsim::Linear(32, 128))}, ...});
//   TrackerOptions o;  o.simulate = true;  o.matmul_unit = "h100";
//   Tracker tracker(*net, optimizer, o);   // fc1's products now run on h100
#ifndef LPSIM_TRACKER_LAYERS_H_
#define LPSIM_TRACKER_LAYERS_H_

#include <torch/torch.h>

#include <string>

#include "core/status.h"
#include "mmu/gemm.h"

namespace lpsim {

// The three products of a layer on one unit.
struct UnitGemms : torch::CustomClassHolder {
  std::string unit;
  mmu::GemmConfig forward;      // x (activation) . W^T (weight)
  mmu::GemmConfig grad_input;   // dY (activation_grad) . W (weight)
  mmu::GemmConfig grad_weight;  // dY^T (activation_grad) . X (activation)
  int threads = 1;
};

// Validates that `unit` takes each pair of formats (errors name what it
// accepts). Format names may carry ":sat"/":ftz" (the unit reads the values).
StatusOr<c10::intrusive_ptr<UnitGemms>> MakeUnitGemms(const std::string& unit,
                                                      const std::string& activation,
                                                      const std::string& weight,
                                                      const std::string& activation_grad,
                                                      int threads = 1);

// y[M,N] = x[M,K] . w[N,K]^T on the unit, differentiable in x and w with
// both backward products on the unit. Float CPU tensors.
torch::Tensor UnitMatmul(const torch::Tensor& x, const torch::Tensor& w,
                         const c10::intrusive_ptr<UnitGemms>& gemms);

// What the tracker looks for in a model: a layer that can run on a unit.
class UnitLayer {
 public:
  virtual ~UnitLayer() = default;
  // A null pointer makes the layer plain torch again. An error when the
  // layer cannot run on a unit (Conv2d with groups or a non-zero padding mode).
  virtual Status set_unit(c10::intrusive_ptr<UnitGemms> gemms) = 0;
  const c10::intrusive_ptr<UnitGemms>& unit() const { return gemms_; }

 protected:
  c10::intrusive_ptr<UnitGemms> gemms_;
};

class LinearImpl : public torch::nn::LinearImpl, public UnitLayer {
 public:
  using torch::nn::LinearImpl::LinearImpl;
  torch::Tensor forward(const torch::Tensor& input);
  Status set_unit(c10::intrusive_ptr<UnitGemms> gemms) override;
};
TORCH_MODULE(Linear);

class Conv2dImpl : public torch::nn::Conv2dImpl, public UnitLayer {
 public:
  using torch::nn::Conv2dImpl::Conv2dImpl;
  torch::Tensor forward(const torch::Tensor& input);
  Status set_unit(c10::intrusive_ptr<UnitGemms> gemms) override;
};
TORCH_MODULE(Conv2d);

}  // namespace lpsim

#endif  // LPSIM_TRACKER_LAYERS_H_
