// aten::convolution_backward.out(Tensor grad_output, Tensor input, Tensor weight, SymInt[]? bias_sizes,
//     SymInt[] stride, SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding,
//     SymInt groups, bool[3] output_mask, *, Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2)
//
// Gradients of a 2-D convolution with respect to its input (out0), weight
// (out1) and bias (out2), each only when its output_mask entry is set (a
// program passes an empty placeholder for the others). As ExecuTorch's
// portable kernel: plain (not transposed) 2-D convolutions of floating dtypes,
// groups, stride, padding and dilation; each gradient accumulates its terms in
// ExecuTorch's order, in the tensors' own dtype.
#include "sb/kernel.h"
#include "util/conv.h"
#include "util/dtype_switch.h"
#include "util/promote.h"
#include "util/shape.h"
#include "util/window.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::convolution_backward.out";

// Every gradient the mask asks for is set to the sum of its terms: the loops
// visit (batch, group, output row, output column, output channel) as the
// forward pass does, and each tap that lands inside the input adds one term
// to the input's, the weight's and the bias's gradients.
template <typename T>
void backward(const ConvGeometry& g, const T* grad_out, const T* x, const T* w, T* grad_in, T* grad_w, T* grad_b) {
  const int64_t cin_g = g.c_in / g.groups;
  const int64_t cout_g = g.c_out / g.groups;
  if (grad_in) {
    for (int64_t i = 0; i < g.n * g.c_in * g.h * g.w; ++i) grad_in[i] = T(0);
  }
  if (grad_w) {
    for (int64_t i = 0; i < g.c_out * cin_g * g.kh * g.kw; ++i) grad_w[i] = T(0);
  }
  if (grad_b) {
    for (int64_t i = 0; i < g.c_out; ++i) grad_b[i] = T(0);
  }
  for (int64_t n = 0; n < g.n; ++n) {
    for (int64_t group = 0; group < g.groups; ++group) {
      for (int64_t oh = 0; oh < g.oh; ++oh) {
        for (int64_t ow = 0; ow < g.ow; ++ow) {
          for (int64_t ocg = 0; ocg < cout_g; ++ocg) {
            const int64_t oc = group * cout_g + ocg;
            const T go = grad_out[((n * g.c_out + oc) * g.oh + oh) * g.ow + ow];
            if (grad_b) grad_b[oc] = mul_add(grad_b[oc], go, T(1));
            for (int64_t icg = 0; icg < cin_g; ++icg) {
              const int64_t plane = (n * g.c_in + group * cin_g + icg) * g.h;
              const int64_t taps = (oc * cin_g + icg) * g.kh;
              for_each_window_tap(g, oh, ow, [&](int64_t kh, int64_t kw, int64_t ih, int64_t iw) {
                const int64_t xi = (plane + ih) * g.w + iw;
                const int64_t wi = (taps + kh) * g.kw + kw;
                if (grad_in) grad_in[xi] = mul_add(grad_in[xi], go, w[wi]);
                if (grad_w) grad_w[wi] = mul_add(grad_w[wi], go, x[xi]);
              });
            }
          }
        }
      }
    }
  }
}

Error convolution_backward_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& grad_out = *args[0]->as_tensor;
  const Tensor& in = *args[1]->as_tensor;
  const Tensor& weight = *args[2]->as_tensor;
  const Span<const bool> mask = args[10]->as_bool_list;
  if (args[7]->as_bool) {
    return Error::make(ErrorCode::kNotSupported, "%s: transposed convolutions are not supported", kOp);
  }
  if (in.dim != 4) return Error::make(ErrorCode::kNotSupported, "%s: only 2-D convolutions are supported", kOp);
  if (mask.size() != 3) return Error::make(ErrorCode::kInvalidArgument, "%s: output_mask has %zu values, not 3", kOp, mask.size());
  ConvGeometry g{};
  Error err = conv_geometry(kOp, in, weight, args[4]->as_int_list, args[5]->as_int_list, args[6]->as_int_list, false,
                            args[8]->as_int_list, args[9]->as_int, &g);
  if (!err.ok()) return err;
  const ScalarType dtype = in.dtype;
  if (!(err = check_dtype(kOp, "weight", weight, dtype)).ok()) return err;
  if (!(err = check_dtype(kOp, "grad_output", grad_out, dtype)).ok()) return err;
  int64_t out_sizes[4];
  if (!(err = check_shape(kOp, "grad_output", grad_out, out_sizes, conv_out_sizes(in, g, out_sizes))).ok()) return err;
  if (!args[3]->is_none()) {
    const Span<const int64_t> bias_sizes = args[3]->as_int_list;
    if (bias_sizes.size() != 1 || bias_sizes[0] != g.c_out) {
      return Error::make(ErrorCode::kInvalidArgument, "%s: bias_sizes is not [out channels]", kOp);
    }
  }
  Tensor* grads[3] = {nullptr, nullptr, nullptr};
  const Tensor* likes[2] = {&in, &weight};
  for (int k = 0; k < 3; ++k) {
    if (!mask[k]) continue;
    Tensor& out = *args[11 + k]->as_tensor;
    err = k < 2 ? resize_output_like(kOp, out, *likes[k]) : resize_output(kOp, out, &g.c_out, 1);
    if (!err.ok() || !(err = check_dtype(kOp, "out", out, dtype)).ok()) return err;
    grads[k] = &out;
  }
  return switch_dtype<kOp, kFloatHBF16>(dtype, [&](auto zero) {
    using T = decltype(zero);
    auto data = [](Tensor* t) { return t ? t->data_as<T>() : nullptr; };
    backward<T>(g, grad_out.data_as<T>(), in.data_as<T>(), weight.data_as<T>(), data(grads[0]), data(grads[1]),
                data(grads[2]));
    return Error();
  });
}

}  // namespace

extern const KernelDef convolution_backward_out{kOp, "TTTJIIIbIiB|TTT", &convolution_backward_out_impl, {}};

}  // namespace sb::kernels
