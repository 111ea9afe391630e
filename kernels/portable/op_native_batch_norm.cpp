// aten::_native_batch_norm_legit_no_training.out(Tensor input, Tensor? weight, Tensor? bias,
//     Tensor running_mean, Tensor running_var, float momentum, float eps, *,
//     Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2)
#include <cmath>

#include "sb/kernel.h"
#include "util/dtype_switch.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::_native_batch_norm_legit_no_training.out";

Error batch_norm_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& input = *args[0]->as_tensor;
  const double eps = args[6]->scalar_as_double();
  Tensor& out = *args[7]->as_tensor;
  if (input.dim < 2) return Error::make(ErrorCode::kInvalidArgument, "%s: input needs a channel dim", kOp);
  const int64_t channels = input.sizes[1];
  Error err = resize_output_like(kOp, out, input);
  if (!err.ok()) return err;
  if (!(err = check_dtype(kOp, "input", input, out.dtype)).ok()) return err;
  const char* names[] = {"weight", "bias", "running_mean", "running_var"};
  for (int i = 0; i < 4; ++i) {
    if (!(err = check_optional_param(kOp, names[i], *args[1 + i], channels, out.dtype)).ok()) return err;
  }

  // Any dim order, the same for input and out: with channel stride cs in
  // memory, channel c's elements are at o * (channels * cs) + c * cs + r.
  if (!same_dim_order(input, out)) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: out's dim order differs from input's", kOp);
  }
  int64_t strides[kMaxDims];
  dim_order_strides(input, strides);
  const int64_t inner = strides[1];
  const int64_t outer = out.numel() == 0 ? 0 : out.numel() / (channels * inner);
  return switch_dtype<kOp, kFloatHBF16>(out.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* x = input.data_as<T>();
    const T* w = args[1]->is_none() ? nullptr : args[1]->as_tensor->data_as<T>();
    const T* b = args[2]->is_none() ? nullptr : args[2]->as_tensor->data_as<T>();
    const T* mean = args[3]->as_tensor->data_as<T>();
    const T* var = args[4]->as_tensor->data_as<T>();
    T* y = out.data_as<T>();
    for (int64_t c = 0; c < channels; ++c) {
      // ExecuTorch's order, each step rounded to T (a no-op for float and double).
      const T invstd = static_cast<T>(1.0 / std::sqrt(static_cast<double>(var[c]) + eps));
      const T weight = w ? w[c] : T(1);
      const T shift = b ? b[c] : T(0);
      const T m = mean[c];
      for (int64_t o = 0; o < outer; ++o) {
        const int64_t base = (o * channels + c) * inner;
        for (int64_t i = 0; i < inner; ++i) y[base + i] = T(T(T(x[base + i] - m) * invstd) * weight) + shift;
      }
    }
    return Error();
  });
}

}  // namespace

extern const KernelDef _native_batch_norm_legit_no_training_out{kOp, "TttTTdd|TTT", &batch_norm_out_impl, {},
                                                           LayoutPolicy::kAny};

}  // namespace sb::kernels
