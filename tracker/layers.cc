#include "tracker/layers.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "simd/scaling.h"

namespace lpsim {
namespace {

// A scale exponent beyond this is clamped (values that need more are far
// below the format's smallest subnormal anyway); it keeps 2^(ea+eb) a double.
constexpr int kMaxScaleExponent = 120;

std::string BaseName(const std::string& name) { return name.substr(0, name.find(':')); }

// The exponent e of the largest 2^e with amax * 2^e <= f's max (0 for a zero
// or non-finite amax).
int ScaleExponent(const Format& f, const float* x, size_t n, int threads) {
  const float amax = simd::Amax(x, n, threads);
  if (!(amax > 0) || !std::isfinite(amax)) return 0;
  int e = 0;
  // max / amax = m * 2^e with m in [0.5, 1): floor(log2(max / amax)) = e - 1.
  std::frexp(static_cast<double>(f.MaxValue()) / amax, &e);
  return std::clamp(e - 1, -kMaxScaleExponent, kMaxScaleExponent);
}

// a[m,k] . b[k,n] on cfg's unit: each operand scaled by its power of two,
// the product scaled back. Contiguous float tensors.
torch::Tensor ScaledGemm(const mmu::GemmConfig& cfg, const torch::Tensor& a, const torch::Tensor& b,
                         int threads) {
  const size_t m = static_cast<size_t>(a.size(0)), k = static_cast<size_t>(a.size(1));
  const size_t n = static_cast<size_t>(b.size(1));
  const int ea = ScaleExponent(cfg.formats.a, a.data_ptr<float>(), m * k, threads);
  const int eb = ScaleExponent(cfg.formats.b, b.data_ptr<float>(), k * n, threads);
  // Multiplying by a power of two is exact while the result stays a normal
  // fp32 number, which it does for everything the format can represent.
  const torch::Tensor as = ea == 0 ? a : a * std::ldexp(1.0f, ea);
  const torch::Tensor bs = eb == 0 ? b : b * std::ldexp(1.0f, eb);
  torch::Tensor d = torch::empty({a.size(0), b.size(1)}, torch::kFloat);
  mmu::Gemm(cfg, m, n, k, as.data_ptr<float>(), bs.data_ptr<float>(), /*c=*/nullptr,
            d.data_ptr<float>(), /*notes=*/nullptr, threads);
  if (ea + eb != 0) {
    const double back = std::ldexp(1.0, -(ea + eb));
    float* p = d.data_ptr<float>();
    for (size_t i = 0; i < m * n; ++i) p[i] = static_cast<float>(p[i] * back);
  }
  return d;
}

torch::Tensor AsMatrix(const torch::Tensor& t) { return t.detach().to(torch::kFloat).contiguous(); }

// y = x w^T with both backward products on the unit.
class UnitMatmulFunction : public torch::autograd::Function<UnitMatmulFunction> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x,
                               const torch::Tensor& w, const c10::intrusive_ptr<UnitGemms>& g) {
    const torch::Tensor xf = AsMatrix(x), wf = AsMatrix(w);
    ctx->save_for_backward({xf, wf});
    ctx->saved_data["gemms"] = c10::IValue::make_capsule(g);
    return ScaledGemm(g->forward, xf, wf.t().contiguous(), g->threads).to(x.scalar_type());
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const torch::Tensor& x = saved[0];
    const torch::Tensor& w = saved[1];
    const auto g = c10::static_intrusive_pointer_cast<UnitGemms>(ctx->saved_data["gemms"].toCapsule());
    const torch::Tensor dy = AsMatrix(grads[0]);
    torch::Tensor dx, dw;
    if (ctx->needs_input_grad(0)) dx = ScaledGemm(g->grad_input, dy, w, g->threads);
    if (ctx->needs_input_grad(1)) dw = ScaledGemm(g->grad_weight, dy.t().contiguous(), x, g->threads);
    return {dx, dw, torch::Tensor()};
  }
};

}  // namespace

StatusOr<c10::intrusive_ptr<UnitGemms>> MakeUnitGemms(const std::string& unit,
                                                      const std::string& activation,
                                                      const std::string& weight,
                                                      const std::string& activation_grad,
                                                      int threads) {
  auto g = c10::make_intrusive<UnitGemms>();
  g->unit = unit;
  g->threads = std::max(1, threads);
  const std::string act = BaseName(activation), wt = BaseName(weight);
  const std::string grad = BaseName(activation_grad);
  const std::pair<const char*, std::pair<std::string, std::string>> products[] = {
      {"forward (activation x weight)", {act, wt}},
      {"input gradient (activation_grad x weight)", {grad, wt}},
      {"weight gradient (activation_grad x activation)", {grad, act}}};
  mmu::GemmConfig* out[] = {&g->forward, &g->grad_input, &g->grad_weight};
  for (int i = 0; i < 3; ++i) {
    StatusOr<mmu::GemmConfig> cfg =
        mmu::MakeGemmConfig(unit, products[i].second.first, products[i].second.second, "fp32");
    if (!cfg.ok()) {
      return Status::Error(std::string(products[i].first) + ": " + cfg.status().message());
    }
    *out[i] = cfg.value();
  }
  return g;
}

torch::Tensor UnitMatmul(const torch::Tensor& x, const torch::Tensor& w,
                         const c10::intrusive_ptr<UnitGemms>& gemms) {
  TORCH_CHECK(x.dim() == 2 && w.dim() == 2 && x.size(1) == w.size(1),
              "UnitMatmul: x must be [M,K] and w [N,K]; got ", x.sizes(), " and ", w.sizes());
  TORCH_CHECK(x.device().is_cpu() && w.device().is_cpu(), "UnitMatmul: CPU tensors only");
  return UnitMatmulFunction::apply(x, w, gemms);
}

torch::Tensor LinearImpl::forward(const torch::Tensor& input) {
  if (!gemms_) return torch::nn::LinearImpl::forward(input);
  const int64_t k = input.size(-1);
  std::vector<int64_t> shape = input.sizes().vec();
  shape.back() = weight.size(0);
  torch::Tensor y = UnitMatmul(input.reshape({-1, k}), weight, gemms_).view(shape);
  return bias.defined() ? y + bias : y;
}

Status LinearImpl::set_unit(c10::intrusive_ptr<UnitGemms> gemms) {
  gemms_ = std::move(gemms);
  return Status();
}

Status Conv2dImpl::set_unit(c10::intrusive_ptr<UnitGemms> gemms) {
  if (gemms) {
    if (options.groups() != 1) {
      return Status::Error("lpsim::Conv2d runs on a matrix unit only with groups = 1 (has " +
                           std::to_string(options.groups()) + ")");
    }
    if (!c10::get_if<torch::enumtype::kZeros>(&options.padding_mode())) {
      return Status::Error("lpsim::Conv2d runs on a matrix unit only with zero padding mode");
    }
    if (!c10::get_if<torch::ExpandingArray<2>>(&options.padding())) {
      return Status::Error("lpsim::Conv2d runs on a matrix unit only with numeric padding "
                           "(not kSame/kValid)");
    }
  }
  gemms_ = std::move(gemms);
  return Status();
}

torch::Tensor Conv2dImpl::forward(const torch::Tensor& input) {
  if (!gemms_) return torch::nn::Conv2dImpl::forward(input);
  namespace F = torch::nn::functional;
  TORCH_CHECK(input.dim() == 4, "lpsim::Conv2d on a unit takes [B,C,H,W]; got ", input.sizes());
  const auto& pad = c10::get<torch::ExpandingArray<2>>(options.padding());
  const auto& ks = options.kernel_size();
  const auto& st = options.stride();
  const auto& dil = options.dilation();
  const int64_t batch = input.size(0);
  const int64_t out_h = (input.size(2) + 2 * (*pad)[0] - (*dil)[0] * ((*ks)[0] - 1) - 1) / (*st)[0] + 1;
  const int64_t out_w = (input.size(3) + 2 * (*pad)[1] - (*dil)[1] * ((*ks)[1] - 1) - 1) / (*st)[1] + 1;
  // [B, C*kh*kw, L] -> [B*L, C*kh*kw]: one row per output position.
  const torch::Tensor cols = F::unfold(input, F::UnfoldFuncOptions(*ks).dilation(*dil).padding(*pad).stride(*st));
  const int64_t patch = cols.size(1), positions = cols.size(2);
  const torch::Tensor rows = cols.transpose(1, 2).reshape({batch * positions, patch});
  const int64_t out_c = weight.size(0);
  torch::Tensor y = UnitMatmul(rows, weight.reshape({out_c, patch}), gemms_)
                        .view({batch, positions, out_c})
                        .transpose(1, 2)
                        .reshape({batch, out_c, out_h, out_w});
  return bias.defined() ? y + bias.view({1, out_c, 1, 1}) : y;
}

}  // namespace lpsim
